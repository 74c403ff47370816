"""First use of nbayes: import time, ``nbayes --help``, and the first fit of a fresh install.

Every figure comes from fresh processes (the median of ``--runs`` of them, and the worst). The
"fresh install" rows copy the package to a temporary folder without any compiled kernels (its
modules byte-compiled, as ``pip install`` leaves them) and give each process an empty user
cache, so what is timed is what a new user meets:

* first process after installing (kernels compiled, then cached beside the sources);
* the next process (kernels loaded from that cache);
* a read-only install prepared with ``python -m nbayes.compile`` (a user other than the
  installer: kernels loaded, nothing compiled).

    python benchmarks/first_use.py            # 5 processes per figure
    python benchmarks/first_use.py --quick    # 2 per figure, smaller corpus (a smoke test)
    python benchmarks/first_use.py --write    # also record the table in benchmarks/README.md
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _report

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "src" / "nbayes"

TEXT_FIT = """
import time
start = time.perf_counter()
import nbayes
docs = [f"w{{i % 97}} v{{i % 13}} u{{i % 7}} the a text number {{i}}" for i in range({n})]
labels = [i % 4 for i in range({n})]
nbayes.TextClassifier().fit(docs, labels)
print(time.perf_counter() - start)
"""

CATEGORICAL_FIT = """
import time
start = time.perf_counter()
import numpy as np, nbayes
X = (np.arange({n} * 20) % 7).reshape({n}, 20).astype(np.uint8)
y = np.arange({n}) % 3
nbayes.CategoricalNB().fit(X, y).predict_proba(X)
print(time.perf_counter() - start)
"""


def process_seconds(command: list[str], env: dict) -> tuple[float, str]:
    """Wall time of a whole fresh process, and what it printed."""
    start = time.perf_counter()
    result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{result.stderr}")
    return elapsed, result.stdout


def summary(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} s (worst {max(values):.2f} s)"


def fresh_install(folder: Path) -> Path:
    """The package copied without compiled kernels, its modules byte-compiled as ``pip
    install`` does (without this, an environment with PYTHONDONTWRITEBYTECODE would compile
    every module from source in every process, which no installed package does)."""
    site = folder / "site"
    shutil.copytree(SOURCE, site / "nbayes", ignore=shutil.ignore_patterns("__pycache__"))
    compileall.compile_dir(site / "nbayes", quiet=1)
    return site


def environment(site: Path, cache: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env.update(PYTHONPATH=str(site), XDG_CACHE_HOME=str(cache), HOME=str(cache))
    return env


def read_only(folder: Path) -> list[str] | None:
    """A command prefix under which ``folder`` is read-only (a private bind mount)."""
    script = 'mount --bind "$0" "$0" && mount -o remount,bind,ro "$0" && exec "$@"'
    prefix = ["unshare", "-rm", "sh", "-c", script, str(folder)]
    if shutil.which("unshare") is None:
        return None
    probe = subprocess.run([*prefix, "sh", "-c", f'! touch "{folder}/.p" 2>/dev/null'], check=False)
    return prefix if probe.returncode == 0 else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer processes (smoke test)")
    parser.add_argument("--runs", type=int, default=None, help="fresh processes per figure")
    parser.add_argument(
        "--write", action="store_true", help="record the table in benchmarks/README.md"
    )
    args = parser.parse_args()
    runs = args.runs or (2 if args.quick else 5)
    n_docs = 2_000 if args.quick else 20_000
    python = sys.executable
    base_env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    load = os.getloadavg()[0]

    rows = []

    def add(label: str, values: list[float], target: str = "") -> None:
        row = [label, summary(values), target]
        rows.append(row)
        print(" | ".join(row), flush=True)

    add(
        "`python -c 'import numpy'` (for scale)",
        [process_seconds([python, "-c", "import numpy"], base_env)[0] for _ in range(runs)],
    )
    add(
        "`python -c 'import nbayes'`",
        [process_seconds([python, "-c", "import nbayes"], base_env)[0] for _ in range(runs)],
    )
    help_times = [
        process_seconds([python, "-m", "nbayes.cli", "--help"], base_env)[0] for _ in range(runs)
    ]
    add("`nbayes --help` (`python -m nbayes.cli --help`)", help_times, "< 0.2 s")

    scripts = {
        f"TextClassifier().fit, {n_docs:,} short documents": TEXT_FIT.format(n=n_docs),
        "CategoricalNB fit + predict_proba, 2,000 × 20": CATEGORICAL_FIT.format(n=2000),
    }
    for label, script in scripts.items():
        first, second, prepared = [], [], []
        for _ in range(runs):
            with tempfile.TemporaryDirectory() as folder:
                site = fresh_install(Path(folder))
                env = environment(site, Path(folder) / "cache")
                first.append(float(process_seconds([python, "-c", script], env)[1]))
                second.append(float(process_seconds([python, "-c", script], env)[1]))
        add(f"{label}: first process of a fresh install", first)
        add(f"{label}: the next process", second, "< 2 s" if "Text" in label else "")
        with tempfile.TemporaryDirectory() as folder:
            site = fresh_install(Path(folder))
            env = environment(site, Path(folder) / "install-cache")
            compile_seconds, _ = process_seconds([python, "-m", "nbayes.compile", "-q"], env)
            prefix = read_only(site)
            if prefix is None:
                print("(no read-only mount available: read-only rows skipped)")
                continue
            for i in range(runs):
                user_env = environment(site, Path(folder) / f"user-{i}")
                seconds = process_seconds([*prefix, python, "-c", script], user_env)[1]
                prepared.append(float(seconds))
        add(
            f"{label}: read-only install after `python -m nbayes.compile` "
            f"({compile_seconds:.0f} s once)",
            prepared,
            "< 2 s" if "Text" in label else "",
        )

    table = _report.markdown_table(["what", "median of fresh processes", "target"], rows)
    note = (
        f"Command: `python benchmarks/first_use.py{' --quick' if args.quick else ''}` — "
        f"{_report.machine()}; {runs} fresh processes per row; 1-minute load average "
        f"{load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end. Fit rows time the whole "
        "script inside the process (imports included, interpreter start excluded); the other "
        "rows the whole process."
    )
    print()
    print(note)
    print()
    print(table)
    if args.write and not args.quick:
        _report.write_section("first_use", note + "\n\n" + table)


if __name__ == "__main__":
    main()
