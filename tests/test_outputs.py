"""Every file nbayes writes is written whole or not at all (issue 36): predictions
(``nbayes predict -o``), out-of-fold rows (``nbayes cv --oof``) and reports (``nbayes report``,
``nbayes.report``) go to a temporary file beside the target, renamed over it only once complete,
as model files always were. A failure leaves the old file and no temporary file."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import nbayes
from nbayes.cli import main

OLD = "the previous output, which must survive\n"


def run(args: list, capsys) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def rows(n: int, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.choice(["p", "q"], n)
    return pl.DataFrame(
        {
            "a": (rng.normal(size=n) + (y == "q")).round(3),
            "b": np.where(y == "p", rng.choice(["x", "y"], n), rng.choice(["y", "z"], n)).tolist(),
            "y": y.tolist(),
        }
    )


@pytest.fixture
def model(tmp_path: Path, capsys) -> Path:
    data = tmp_path / "train.csv"
    rows(500).write_csv(data)
    path = tmp_path / "m.nbm"
    assert main(["fit", str(data), "--target", "y", "-o", str(path)]) == 0
    capsys.readouterr()
    return path


def with_bad_row(path: Path, n: int) -> Path:
    """A CSV of ``n`` good rows, then one row of 4 fields where the header has 3."""
    rows(n, seed=1).drop("y").write_csv(path)
    with open(path, "a") as handle:
        handle.write("1.0,x,extra,field\n")
    return path


def files_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_a_bad_row_late_in_the_input_leaves_the_old_predictions(
    tmp_path: Path, model: Path, capsys, suffix: str
):
    """The bad row comes after the first 1 MiB chunk has been predicted: before, that chunk's
    rows were already in the output, a valid-looking partial file."""
    data = with_bad_row(tmp_path / "new.csv", 150_000)
    assert data.stat().st_size > 2**20  # more than one chunk of --chunk-mb 1
    out = tmp_path / "out" / f"predictions{suffix}"
    out.parent.mkdir()
    out.write_text(OLD)
    code, stdout, err = run(["predict", model, data, "--chunk-mb", 1, "-o", out], capsys)
    assert code == 1 and stdout == ""
    assert "line 150,002: this row has 4 fields" in err and "Traceback" not in err
    assert out.read_bytes() == OLD.encode()
    assert files_in(out.parent) == [out.name]  # no temporary file left


def test_a_bad_row_in_the_first_chunk_leaves_the_old_predictions(
    tmp_path: Path, model: Path, capsys
):
    data = with_bad_row(tmp_path / "new.csv", 3)
    out = tmp_path / "out" / "predictions.csv"
    out.parent.mkdir()
    out.write_text(OLD)
    code, _, err = run(["predict", model, data, "-o", out], capsys)
    assert code == 1 and "line 5: this row has 4 fields" in err
    assert out.read_text() == OLD  # before: truncated to nothing
    assert files_in(out.parent) == [out.name]


def test_predictions_replace_the_old_file_once_complete_keeping_its_mode(
    tmp_path: Path, model: Path, capsys
):
    data = tmp_path / "new.csv"
    rows(50, seed=2).drop("y").write_csv(data)
    out = tmp_path / "out" / "predictions.csv"
    out.parent.mkdir()
    out.write_text(OLD)
    os.chmod(out, 0o640)
    code, _, _ = run(["predict", model, data, "--proba", "-o", out], capsys)
    assert code == 0
    written = pl.read_csv(out)
    assert written.height == 50 and written.columns == ["prediction", "P(p)", "P(q)"]
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert files_in(out.parent) == [out.name]


def test_predictions_can_still_go_to_a_device(tmp_path: Path, model: Path, capsys):
    """A device or a pipe cannot be replaced: it is written to as before."""
    data = tmp_path / "new.csv"
    rows(20, seed=2).drop("y").write_csv(data)
    code, _, err = run(["predict", model, data, "-o", os.devnull], capsys)
    assert code == 0, err


def test_a_failing_write_of_the_out_of_fold_rows_leaves_the_old_file(
    tmp_path: Path, capsys, monkeypatch
):
    """The disk fills while ``cv --oof`` writes its second block of rows: the old file stays
    (before, the first block was left as the whole file)."""
    data = tmp_path / "data.csv"
    rows(300).write_csv(data)
    oof = tmp_path / "out" / "oof.csv"
    oof.parent.mkdir()
    oof.write_text(OLD)
    original = pl.DataFrame.write_csv
    written = []

    def fills_the_disk(self, file=None, **options):
        if written:
            raise OSError(28, "No space left on device")
        written.append(self.height)
        return original(self, file, **options)

    monkeypatch.setattr(pl.DataFrame, "write_csv", fills_the_disk)
    code, _, err = run(["cv", data, "--target", "y", "--folds", 3, "--oof", oof], capsys)
    assert code == 1 and written
    assert oof.read_text() == OLD
    assert err.strip().splitlines()[-1] == "nbayes: error: no space left on the device"
    assert files_in(oof.parent) == [oof.name]


def test_a_report_that_cannot_be_written_whole_leaves_the_old_one(
    tmp_path: Path, model: Path, capsys, monkeypatch
):
    """The bytes of the page cannot reach the disk (fsync fails, as on a full disk): the old
    report stays, from the command line and from Python."""
    data = tmp_path / "test.csv"
    rows(60, seed=3).write_csv(data)
    page = tmp_path / "out" / "report.html"
    page.parent.mkdir()
    page.write_text(OLD)

    def full_disk(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    code, _, err = run(["report", model, data, "--target", "y", "-o", page], capsys)
    assert code == 1 and "no space left on the device" in err and "Traceback" not in err
    assert page.read_text() == OLD
    with pytest.raises(OSError, match="No space"):
        nbayes.report(nbayes.load(model), pl.read_csv(data), target="y", path=page)
    assert page.read_text() == OLD
    assert files_in(page.parent) == [page.name]


def test_replacing_keeps_the_old_file_on_any_exception(tmp_path: Path):
    from nbayes import _atomic

    target = tmp_path / "file.txt"
    target.write_text(OLD)
    with pytest.raises(KeyboardInterrupt), _atomic.replacing(target, text=True) as handle:
        handle.write("half of the new content")
        raise KeyboardInterrupt
    assert target.read_text() == OLD
    assert files_in(tmp_path) == ["file.txt"]
    with _atomic.replacing(target, text=True) as handle:
        handle.write("new\n")
    assert target.read_text() == "new\n"
    assert files_in(tmp_path) == ["file.txt"]


def test_an_output_in_a_missing_folder_is_named_in_plain_words(tmp_path: Path, model: Path, capsys):
    data = tmp_path / "new.csv"
    rows(20, seed=2).drop("y").write_csv(data)
    out = tmp_path / "nowhere" / "p.csv"
    code, _, err = run(["predict", model, data, "-o", out], capsys)
    assert code == 1
    assert err.strip() == f"nbayes: error: cannot write {str(out)!r}: no such folder"
    written = f"{tmp_path}/./nowhere/m.nbm"  # a model file's path, as Path() spells it
    code, _, err = run(["fit", data.with_name("train.csv"), "--target", "y", "-o", written], capsys)
    assert code == 1
    assert (
        err.strip()
        == f"nbayes: error: cannot write {str(out.with_name('m.nbm'))!r}: no such folder"
    )


def test_predictions_killed_midway_leave_the_old_file(tmp_path: Path, model: Path):
    """kill -9 after the first chunk's rows were written: before, they were the whole file."""
    import subprocess
    import sys

    data = tmp_path / "new.csv"
    rows(150_000, seed=1).drop("y").write_csv(data)
    out = tmp_path / "out" / "predictions.csv"
    out.parent.mkdir()
    out.write_text(OLD)
    code = f"""
import os, signal
import polars as pl
from nbayes.cli import main
original = pl.DataFrame.write_csv
calls = []
def write_then_die(self, *args, **options):
    if calls:
        os.kill(os.getpid(), signal.SIGKILL)
    calls.append(1)
    return original(self, *args, **options)
pl.DataFrame.write_csv = write_then_die
main(["predict", {str(model)!r}, {str(data)!r}, "--chunk-mb", "1", "-o", {str(out)!r}])
"""
    source = str(Path(nbayes.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": source}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, timeout=600)
    assert result.returncode == -9, result.stderr
    assert out.read_text() == OLD
    leftovers = [name for name in files_in(out.parent) if name != out.name]
    # an unnamed temporary (O_TMPFILE) vanishes with the process; a named one cannot be removed
    # by a killed process, so it is at least hidden and marked as such
    assert all(name.startswith(".predictions.csv.") and name.endswith(".tmp") for name in leftovers)
    if unnamed_files_work(out.parent):
        assert leftovers == []


def unnamed_files_work(folder: Path) -> bool:
    """Whether this file system makes unnamed temporary files (O_TMPFILE)."""
    try:
        fd = os.open(folder, os.O_TMPFILE | os.O_WRONLY, 0o600)
    except (AttributeError, OSError):
        return False
    os.close(fd)
    return True
