"""First use: ``import nbayes`` imports only what it needs, and compiled kernels are cached once
per install, including an install that is read-only when it is used."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import nbayes

PACKAGE = Path(nbayes.__file__).resolve().parent
HEAVY = ("numpy", "scipy", "numba", "polars", "sklearn", "dask")


def run_python(code: str, env: dict | None = None, prefix: list[str] | None = None) -> str:
    result = subprocess.run(
        [*(prefix or []), sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_import_nbayes_imports_no_heavy_library():
    code = (
        "import sys, nbayes\n"
        f"print([m for m in {HEAVY!r} if m in sys.modules])\n"
        "print(nbayes.__version__)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(PACKAGE.parent)}
    loaded, version = run_python(code, env).splitlines()
    assert loaded == "[]"
    assert version == nbayes.__version__


def test_estimators_and_text_import_no_table_machinery():
    """The array estimators and TextClassifier import neither Polars nor SciPy's special
    functions: those come with the table models (their column groups and encoders)."""
    code = (
        "import sys, nbayes\n"
        "nbayes.GaussianNB, nbayes.CategoricalNB, nbayes.PoissonNB, nbayes.TextClassifier\n"
        "print([m for m in ('polars', 'scipy.special', 'nbayes.encoding') if m in sys.modules])\n"
        "nbayes.NaiveBayes\n"
        "print('polars' in sys.modules)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(PACKAGE.parent)}
    loaded, table_model_brings_polars = run_python(code, env).splitlines()
    assert loaded == "[]"
    assert table_model_brings_polars == "True"


def test_every_public_name_resolves():
    for name in nbayes.__all__:
        assert getattr(nbayes, name) is not None, name
    assert set(nbayes.__all__) <= set(dir(nbayes))
    assert nbayes.GaussianNB in nbayes.ESTIMATORS
    with pytest.raises(AttributeError, match="no_such_name"):
        nbayes.no_such_name  # noqa: B018


def test_star_import_gives_the_public_names():
    namespace: dict = {}
    exec("from nbayes import *", namespace)
    assert {"NaiveBayes", "TextClassifier", "load", "save"} <= set(namespace)


# ---------------------------------------------------------------------- kernel cache
FIT_CATEGORICAL = """
import json, numpy as np, nbayes
from nbayes import _kernels
X = (np.arange(300 * 4) % 5).reshape(300, 4).astype(np.uint8)
y = np.arange(300) % 3
nbayes.CategoricalNB().fit(X, y).predict_proba(X)
kernels = [_kernels.count_codes, _kernels.gather_rows, _kernels.normalize_block]
print(json.dumps({
    "hits": sum(sum(k.stats.cache_hits.values()) for k in kernels),
    "misses": sum(sum(k.stats.cache_misses.values()) for k in kernels),
}))
"""

FIT_GAUSSIAN = """
import json, numpy as np, nbayes
from nbayes.families import gaussian
X = np.arange(300 * 4, dtype=float).reshape(300, 4) % 7
y = np.arange(300) % 3
nbayes.GaussianNB().fit(X, y).predict_proba(X)
k = gaussian._batch_moments
print(json.dumps({"hits": sum(k.stats.cache_hits.values()),
                  "misses": sum(k.stats.cache_misses.values())}))
"""


def _read_only_prefix(folder: Path) -> list[str] | None:
    """A command prefix under which ``folder`` is read-only, or None when none is available:
    a private read-only bind mount (a user namespace; no privileges needed where the kernel
    allows it), else file permissions for a user other than root."""
    script = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"'
    prefix = ["unshare", "-rm", "sh", "-c", script, str(folder)]
    if shutil.which("unshare"):
        probe = subprocess.run(
            [*prefix, "sh", "-c", f'! touch "{folder}/.probe" 2>/dev/null'],
            capture_output=True,
        )
        if probe.returncode == 0:
            return prefix
    if os.geteuid() != 0:
        for path in [folder, *folder.rglob("*")]:
            path.chmod(path.stat().st_mode & ~0o222)
        return []
    return None


def test_kernels_cached_at_install_load_from_a_read_only_install(tmp_path):
    install = tmp_path / "site"
    shutil.copytree(PACKAGE, install / "nbayes", ignore=shutil.ignore_patterns("__pycache__"))
    base = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}

    def env(cache: str) -> dict:
        return {
            **base,
            "PYTHONPATH": str(install),
            "XDG_CACHE_HOME": str(tmp_path / cache),
            "HOME": str(tmp_path / "home"),
        }

    # the install step (writable): compiles and saves beside the sources
    first = json.loads(run_python(FIT_CATEGORICAL, env("cache-install")))
    assert first["misses"] > 0
    assert list((install / "nbayes" / "__pycache__").glob("_kernels.*.nbi"))

    prefix = _read_only_prefix(install)
    if prefix is None:
        pytest.skip("no way to make a folder read-only for a child process here")

    # a user of the read-only install: every kernel loads, nothing is compiled or written
    used = json.loads(run_python(FIT_CATEGORICAL, env("cache-user"), prefix))
    assert used == {"hits": first["misses"], "misses": 0}
    assert not (tmp_path / "cache-user").exists() or not any(
        (tmp_path / "cache-user").rglob("*.nbi")
    )

    # a kernel the install step did not compile: compiled once, saved in the user's cache
    # (the read-only package cannot take it), loaded from there by the next process
    compiled = json.loads(run_python(FIT_GAUSSIAN, env("cache-user"), prefix))
    assert compiled["misses"] > 0
    assert any((tmp_path / "cache-user").rglob("gaussian*.nbi"))
    again = json.loads(run_python(FIT_GAUSSIAN, env("cache-user"), prefix))
    assert again == {"hits": compiled["misses"], "misses": 0}


def test_compile_runs_every_step(capsys):
    from nbayes import compile as precompile

    assert precompile.main([]) == 0
    printed = capsys.readouterr().out
    for step in precompile.STEPS:
        assert f"{step}:" in printed
    assert "kernels cached under" in printed
    assert "bytecode:" in printed


def test_compile_writes_the_bytecode_of_every_module(tmp_path):
    install = tmp_path / "site"
    shutil.copytree(PACKAGE, install / "nbayes", ignore=shutil.ignore_patterns("__pycache__"))
    environment = {**os.environ, "PYTHONPATH": str(install), "PYTHONDONTWRITEBYTECODE": "1"}
    code = "from nbayes import compile as c; print(c.byte_compile())"
    assert run_python(code, environment).strip() == "True"
    modules = sorted(install.rglob("*.py"))
    assert len(modules) > 50
    # where this interpreter looks for each module's bytecode before compiling its source
    lacking = [p for p in modules if not Path(importlib.util.cache_from_source(p)).exists()]
    assert not lacking, lacking[:5]
