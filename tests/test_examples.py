"""The scripts in examples/ run, and print exactly the output the documentation shows
(docs/examples/NAME.txt, written by running them)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
SHOWN = ROOT / "docs" / "examples"


def run(name: str, *args: str) -> str:
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=str(ROOT / "src"))
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / f"{name}.py"), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("name", ["quickstart", "tables"])
def test_example_prints_what_the_docs_show(name):
    assert run(name) == (SHOWN / f"{name}.txt").read_text(encoding="utf-8")


def test_plots_example(tmp_path):
    pytest.importorskip("matplotlib")
    pytest.importorskip("sklearn")
    assert run("plots", str(tmp_path)) == (SHOWN / "plots.txt").read_text(encoding="utf-8")
    pictures = sorted(p.name for p in tmp_path.glob("*.png"))
    assert pictures == sorted(p.name for p in (ROOT / "docs" / "images").glob("*.png"))
    assert all(p.stat().st_size > 1000 for p in tmp_path.glob("*.png"))


def test_report_example(tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "mushroom.html"
    assert run("report", str(path)) == f"wrote {path}: 8 figures\n"
    assert "UCI Mushroom: naive Bayes, 5-fold cross-validation" in path.read_text("utf-8")


@pytest.mark.slow
def test_calibration_example(shared_data):
    pytest.importorskip("sklearn")
    expected = (SHOWN / "calibration.txt").read_text(encoding="utf-8")
    assert run("calibration", str(shared_data)) == expected
