"""Helpers shared by the benchmark scripts: timing, peak memory, and writing tables into
benchmarks/README.md between markers, so that recorded figures are always the script's output."""

from __future__ import annotations

import argparse
import gc
import os
import platform
import re
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

Key = TypeVar("Key")

README = Path(__file__).with_name("README.md")
#: The shared data sets (UCI, MNIST, …) beside the repository.
SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def data_parser(doc: str, runs: int | None = None, runs_help: str = "") -> argparse.ArgumentParser:
    """The arguments of a benchmark on the shared data sets: ``--data`` (their folder),
    ``--write`` (record the table in benchmarks/README.md) and, given a default, ``--runs``."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    if runs is not None:
        parser.add_argument("--runs", type=int, default=runs, help=runs_help)
    parser.add_argument("--data", type=Path, default=SHARED_DATA, help="the shared data folder")
    parser.add_argument(
        "--write", action="store_true", help="record the table in benchmarks/README.md"
    )
    return parser


def best_time(action: Callable[[], object], repeat: int) -> float:
    """Fastest of ``repeat`` wall-clock runs (the machine is shared: the minimum is the signal)."""
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - start)
    return best


def peak_bytes(action: Callable[[], object]) -> int:
    """Peak of memory allocated through Python and NumPy while ``action`` runs (tracemalloc)."""
    gc.collect()
    tracemalloc.start()
    try:
        action()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def mib(n_bytes: float) -> str:
    return f"{n_bytes / 2**20:,.0f} MiB"


def machine() -> str:
    try:
        import numpy as np

        numpy_version = np.__version__
    except ImportError:  # pragma: no cover
        numpy_version = "?"
    return (
        f"{platform.machine()}, {os.cpu_count()} cores, Python {sys.version.split()[0]}, "
        f"NumPy {numpy_version}"
    )


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def write_section(name: str, body: str) -> None:
    """Replace the text between ``<!-- name:start -->`` and ``<!-- name:end -->`` in README."""
    text = README.read_text() if README.exists() else "# Benchmarks\n"
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    block = f"{start}\n{body.strip()}\n{end}"
    if start in text:
        text = re.sub(re.escape(start) + r".*?" + re.escape(end), lambda _: block, text, flags=re.S)
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    README.write_text(text)


def publish(name: str, body: str, write: bool) -> None:
    """Print a section's body, and with ``write`` record it in README (:func:`write_section`)."""
    print(body)
    if write:
        write_section(name, body)


def fresh_run(code: str) -> str:
    """The last line ``code`` prints, run by ``python -c`` in a fresh process that imports this
    checkout's nbayes (src/ first on its path)."""
    env = {**os.environ, "PYTHONPATH": str(README.parent.parent / "src")}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    return done.stdout.strip().splitlines()[-1]


def interleaved(
    runs: int, contenders: Iterable[Key], time_one: Callable[[Key], float]
) -> dict[Key, list[float]]:
    """Each contender's ``time_one`` seconds, ``runs`` times, the contenders in turn (A B A B …:
    a drift of the machine's speed falls on all of them alike)."""
    times: dict[Key, list[float]] = {contender: [] for contender in contenders}
    for _ in range(runs):
        for contender, seconds in times.items():
            seconds.append(time_one(contender))
    return times


def median_worst(values: list[float], unit: str = " s", worst: Callable = max) -> str:
    """"median (worst)" of ``values``, two decimals and ``unit``; ``worst``: max for times and
    costs, min for speed-ups."""
    return f"{statistics.median(values):.2f}{unit} ({worst(values):.2f}{unit})"
