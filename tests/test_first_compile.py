"""The first use after an install that did not precompile the kernels: the command line says
why it pauses, once, to a person at a terminal (and to nobody else)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from nbayes import _first_compile, _jit
from nbayes._kernels import gather_rows
from nbayes.cli import main


def test_the_hooks_run_once_before_the_first_compile():
    calls = []
    _first_compile.on_first_compile(lambda: calls.append(1))
    _first_compile.first_compile()
    _first_compile.first_compile()
    assert calls == [1]


@pytest.mark.skipif(_jit.KernelCache is None, reason="this Numba has no cache internals to wrap")
def test_a_kernel_found_in_no_cache_runs_the_hooks(monkeypatch):
    class Empty:
        def load_overload(self, sig, target_context):
            return None

    class Holding:
        def load_overload(self, sig, target_context):
            return "compiled"

    cache = _jit.KernelCache(gather_rows.py_func)
    calls = []
    _first_compile.on_first_compile(lambda: calls.append(1))
    monkeypatch.setattr(cache, "_levels", [Empty(), Holding()])
    assert cache.load_overload(None, None) == "compiled" and calls == []  # a hit: no notice
    monkeypatch.setattr(cache, "_levels", [Empty(), Empty()])
    assert cache.load_overload(None, None) is None and calls == [1]
    cache.load_overload(None, None)
    assert calls == [1]  # once per process


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def model_file(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    path = tmp_path / "d.csv"
    pl.DataFrame({"a": rng.choice(["x", "y"], 50), "y": rng.choice(["p", "q"], 50)}).write_csv(path)
    assert main(["fit", str(path), "--target", "y", "-o", str(tmp_path / "m.nbm")]) == 0
    return tmp_path / "m.nbm"


def test_the_command_line_tells_a_terminal_why_the_first_run_pauses(monkeypatch, model_file):
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(["inspect", str(model_file)]) == 0
    _first_compile.first_compile()  # what a kernel found in no cache does
    notice = terminal.getvalue().strip().splitlines()
    assert notice == [
        "nbayes: compiling its kernels for this machine, once per install (about a minute; "
        "`python -m nbayes.compile` does it ahead of time)"
    ]


def test_no_notice_where_no_person_watches(monkeypatch, model_file, capsys):
    assert main(["inspect", str(model_file)]) == 0  # captured: not a terminal
    assert _first_compile._hooks == []
