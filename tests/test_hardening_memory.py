"""A compressed bomb: a small ``.zst`` that expands to far more rows than memory should hold.

Every command that keeps rows (``cv``, ``report``) or their
scores (``evaluate``) counts the bytes it holds as the batches arrive and stops, before they
pass ``--max-memory``, with one line naming the bound and the option — exit 1, never a Rust
panic or an abort — and its peak memory stays far below the decompressed size (issue 36: a
274 KB file expanding to 3 GB grew ``report`` and ``cv`` to 7.7 GB and aborted).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import zstandard

import nbayes
from nbayes.cli import build_parser
from nbayes.cli._args import TABLE_MAX_BYTES
from nbayes.cli._reading import memory_bound

SOURCE = Path(nbayes.__file__).resolve().parent.parent
#: What the bomb expands to: 3 GiB of valid CSV rows (about 300 KB compressed), as in the issue.
EXPANDED = 3 * 2**30
#: The peak a stopped command may reach, a quarter of that: the interpreter with Polars, NumPy
#: and Numba (about 300 MiB), the rows held (below --max-memory) and one chunk being parsed.
PEAK_LIMIT = EXPANDED // 4

#: Runs a command and prints its peak resident memory (KiB on Linux) on the last stderr line,
#: measured in a process of its own, so no other test's child counts.
MEASURED = (
    "import resource, subprocess, sys\n"
    "code = subprocess.run(sys.argv[1:]).returncode\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def write_bomb(path: Path, size: int = EXPANDED) -> None:
    """A Zstandard file of ``size`` bytes of valid, labelled CSV rows (a block repeated)."""
    block = "".join(
        f"{i % 7},{(i * 3) % 11}.5,{'abc'[i % 3]},{'yn'[(i // 3) % 2]}\n" for i in range(10_000)
    ).encode()
    with open(path, "wb") as handle:
        writer = zstandard.ZstdCompressor(level=3).stream_writer(handle)
        writer.write(b"a,b,c,y\n")
        for _ in range(size // len(block) + 1):
            writer.write(block)
        writer.flush(zstandard.FLUSH_FRAME)


@pytest.fixture(scope="module")
def bomb(tmp_path_factory) -> tuple[Path, Path]:
    """The bomb and a model fitted on a few of its rows."""
    folder = tmp_path_factory.mktemp("bomb")
    path = folder / "bomb.csv.zst"
    write_bomb(path)
    small = folder / "small.csv"
    write_bomb(folder / "small.csv.zst", 200_000)
    small.write_bytes(zstandard.ZstdDecompressor().decompress(
        (folder / "small.csv.zst").read_bytes(), max_output_size=2**20))  # fmt: skip
    model = folder / "model.nbm"
    assert nbayes_run(["fit", small, "--target", "y", "--calibration", "none", "-o", model])[0] == 0
    return path, model


def nbayes_run(args: list) -> tuple[int, str, int]:
    """(exit code, stderr without the measurement, peak memory in bytes) of ``nbayes ARGS``."""
    env = {**os.environ, "PYTHONPATH": str(SOURCE)}
    command = [sys.executable, "-c", MEASURED, sys.executable, "-m", "nbayes.cli"]
    result = subprocess.run(
        [*command, *map(str, args)], capture_output=True, text=True, env=env, timeout=120
    )
    lines = result.stderr.strip().splitlines()
    return result.returncode, "\n".join(lines[:-1]), int(lines[-1]) * 1024


@pytest.mark.parametrize(
    "command",
    [
        ["cv", "{bomb}", "--target", "y", "--folds", "2"],
        ["report", "{model}", "{bomb}", "--target", "y", "-o", "{out}.html"],
        ["evaluate", "{model}", "{bomb}", "--target", "y"],
    ],
    ids=["cv", "report", "evaluate"],
)
def test_a_compressed_bomb_stops_at_max_memory_with_one_line(bomb, tmp_path, command):
    path, model = bomb
    args = [part.format(bomb=path, model=model, out=tmp_path / "out") for part in command] + [
        "--max-memory",
        "16MiB",
        "--chunk-mb",
        "4",
    ]
    code, err, peak = nbayes_run(args)
    assert code == 1, err
    assert len(err.splitlines()) == 1, err
    assert err.startswith(f"nbayes: error: {path}: "), err
    assert "above --max-memory 16 MiB; raise --max-memory" in err, err
    assert "panic" not in err.lower()
    print(f"{command[0]}: peak {peak / 2**20:.0f} MiB")  # shown with -s
    assert peak < PEAK_LIMIT, f"peak {peak / 2**20:.0f} MiB for {EXPANDED / 2**20:.0f} MiB of rows"
    assert not list(tmp_path.iterdir())  # nothing written


def test_fit_streams_a_bomb_calibrated_in_the_memory_of_a_batch(tmp_path):
    """``nbayes fit`` holds no rows to calibrate (the row sample is part of the statistics):
    a file expanding to 16 MiB fits batch by batch, calibrated, in far less memory than its
    expanded size (a slice of the bomb, to stay quick)."""
    part = tmp_path / "part.csv.zst"
    write_bomb(part, 16 * 2**20)
    code, err, _ = nbayes_run(
        ["fit", part, "--target", "y", "--chunk-mb", "1", "-o", tmp_path / "m.nbm"]
    )
    assert code == 0, err
    assert "calibration" not in err
    assert nbayes.load(tmp_path / "m.nbm")._stats.sample is not None


def test_the_default_bound_is_a_fixed_4_gib():
    """Without --max-memory the rows held are bounded by TABLE_MAX_BYTES (the same on every
    machine); every command that holds rows takes the option."""
    parser = build_parser()
    for argv in (
        ["cv", "d.csv"],
        ["report", "m.nbm", "d.csv", "-o", "r.html"],
        ["evaluate", "m.nbm", "d.csv"],
    ):
        args = parser.parse_args(argv)
        assert args.max_memory is None and memory_bound(args) == TABLE_MAX_BYTES == 4 * 2**30
        given = parser.parse_args([*argv, "--max-memory", "2GiB"])
        assert memory_bound(given) == 2 * 2**30


def test_a_rust_panic_is_one_line_not_a_traceback(monkeypatch, capsys):
    """A panic inside Polars reaches Python as pyo3's PanicException (a BaseException, which
    the usual ``except`` clauses let through): the command line reports it as one line."""
    import polars as pl

    from nbayes.cli import cv, main

    def panic(args):
        raise pl.exceptions.PanicException("capacity overflow\nnote: run with RUST_BACKTRACE=1")

    monkeypatch.setattr(cv, "run", panic)
    assert main(["cv", "d.csv", "--target", "y"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == (
        "nbayes: error: the data library failed (a Rust panic): capacity overflow note: run "
        "with RUST_BACKTRACE=1"
    )
