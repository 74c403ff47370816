"""The command line's words (issue 36): a misspelt command, option or choice gets "did you mean
…?"; a file that cannot be read or written is named in plain words; a missing optional
dependency is one line naming the install, exit 1; ``nbayes report`` without matplotlib writes
the page without figures and says so in one line."""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import nbayes
from nbayes.cli import main


def run(args: list, capsys) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def usage_error(args: list, capsys) -> str:
    """The last line of stderr of a usage error (exit 2 from argparse)."""
    with pytest.raises(SystemExit) as stop:
        main([str(a) for a in args])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err.strip().splitlines()[-1]


@pytest.fixture
def data(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    y = rng.choice(["p", "q"], 200)
    path = tmp_path / "data.csv"
    pl.DataFrame(
        {
            "a": (rng.normal(size=200) + (y == "q")).round(3),
            "b": np.where(y == "p", rng.choice(["x", "y"], 200), "z").tolist(),
            "y": y.tolist(),
        }
    ).write_csv(path)
    return path


@pytest.fixture
def model(tmp_path: Path, data: Path, capsys) -> Path:
    path = tmp_path / "m.nbm"
    assert main(["fit", str(data), "--target", "y", "-o", str(path)]) == 0
    capsys.readouterr()
    return path


# ---------------------------------------------------------------------- did you mean
@pytest.mark.parametrize(
    "args",
    [
        ["fit", "data.csv", "--taget", "y", "-o", "m.nbm"],
        ["fit", "data.csv", "--taget", "y"],  # (-o missing too: the misspelling comes first)
        ["fit", "data.csv", "--taget=y", "-o", "m.nbm"],
        ["cv", "data.csv", "--tagret", "y"],
    ],
)
def test_a_misspelt_option_gets_the_closest_one(args, capsys):
    line = usage_error(args, capsys)
    assert line.startswith(f"nbayes {args[0]}: error: unrecognized argument")
    assert line.endswith("did you mean '--target'?")


def test_a_misspelt_command_gets_the_closest_one(capsys):
    line = usage_error(["fti", "data.csv"], capsys)
    assert "invalid choice: 'fti'" in line and line.endswith("did you mean 'fit'?")


def test_a_misspelt_family_gets_the_closest_one(tmp_path: Path, data: Path, capsys):
    model = tmp_path / "m.nbm"
    line = usage_error(["fit", data, "--target", "y", "-o", model, "--family", "a=gausian"], capsys)
    assert "unknown family 'gausian' for column 'a'; did you mean 'gaussian'?" in line
    assert not model.exists()
    line = usage_error(["cv", data, "--continuous", "gausian"], capsys)
    assert "invalid choice: 'gausian'" in line and line.endswith("did you mean 'gaussian'?")


def test_a_misspelt_choice_or_top_level_option_gets_the_closest_one(capsys):
    line = usage_error(["fit", "data.csv", "-o", "m.nbm", "--model", "aode2"], capsys)
    assert line.endswith("did you mean 'aode'?")
    line = usage_error(["--degub", "inspect", "m.nbm"], capsys)
    assert line == "nbayes: error: unrecognized argument '--degub': did you mean '--debug'?"
    line = usage_error(["inspect", "m.nbm", "--debug"], capsys)
    assert "--debug goes before the command" in line


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--alpha", "abc"], "argument --alpha: expected a number >= 0, got 'abc'"),
        (["--chunk-mb", "1.5"], "argument --chunk-mb: expected a positive integer, got '1.5'"),
    ],
)
def test_a_number_option_given_text_says_what_it_wanted(args, said, capsys):
    """Not argparse's "invalid non_negative_float value" (the name of a function)."""
    line = usage_error(["fit", "data.csv", "--target", "y", "-o", "m.nbm", *args], capsys)
    assert line.endswith(said) and "_" not in line.split("argument ")[1].split(":")[1]


def test_a_name_close_to_nothing_gets_no_suggestion(capsys):
    line = usage_error(["fit", "data.csv", "-o", "m.nbm", "--frobnicate"], capsys)
    assert line == "nbayes: error: unrecognized arguments: --frobnicate"
    line = usage_error(["xyzzy"], capsys)
    assert "invalid choice: 'xyzzy'" in line and "did you mean" not in line


def test_a_value_that_looks_like_an_option_is_still_a_value(data: Path, capsys):
    """argparse reads "--a b" (with a space) as a value: --compare takes options that way."""
    code, out, err = run(
        ["cv", data, "--target", "y", "--folds", 3, "--compare", "--continuous gaussian"], capsys
    )
    assert code == 0, err
    assert "--continuous gaussian:" in out


# ---------------------------------------------------------------------- files in plain words
def test_a_missing_data_file_is_named_in_plain_words(tmp_path: Path, model: Path, capsys):
    missing = tmp_path / "x.csv"
    for args in (
        ["predict", model, missing],
        ["fit", missing, "--target", "y", "-o", tmp_path / "new.nbm"],
        ["evaluate", model, missing, "--target", "y"],
    ):
        code, out, err = run(args, capsys)
        assert code == 1 and out == ""
        assert err == f"nbayes: error: cannot read {str(missing)!r}: no such file\n"


def test_an_output_that_names_an_input_is_refused_and_the_input_kept(
    tmp_path: Path, model: Path, data: Path, capsys
):
    before_data, before_model = data.read_bytes(), model.read_bytes()
    link = tmp_path / "link.csv"
    link.symlink_to(data)
    for args, named in (
        (["predict", model, data, "-o", data], "DATA"),
        (["predict", model, link, "-o", data], "DATA"),  # the same file under another name
        (["predict", model, data, "-o", model], "MODEL"),
        (["fit", data, "--target", "y", "-o", data], "DATA"),
        (["cv", data, "--target", "y", "--oof", data], "DATA"),
    ):
        code, out, err = run(args, capsys)
        assert out == ""
        assert code == 2, args
        assert f"is the file given as {named}" in err and "Traceback" not in err
    assert data.read_bytes() == before_data and model.read_bytes() == before_model


def test_a_folder_or_a_missing_model_is_named_in_plain_words(
    tmp_path: Path, data: Path, model: Path, capsys
):
    code, _, err = run(["fit", data, "--target", "y", "-o", tmp_path / "n.nbm",
                        "--loss", tmp_path], capsys)  # fmt: skip
    assert code == 1
    assert err == f"nbayes: error: cannot read {str(tmp_path)!r}: it is a folder\n"
    assert not (tmp_path / "n.nbm").exists()  # refused before fitting
    code, _, err = run(["predict", tmp_path / "absent.nbm", data], capsys)
    assert code == 1 and err.endswith("absent.nbm: no such file\n") and "Errno" not in err


@pytest.mark.parametrize(
    "error, words",
    [
        (PermissionError(errno.EACCES, "Permission denied", "x.csv"), "permission denied"),
        (IsADirectoryError(errno.EISDIR, "Is a directory", "x.csv"), "it is a folder"),
        (FileNotFoundError(errno.ENOENT, "No such file or directory", "x.csv"), "no such file"),
    ],
)
def test_unreadable_files_in_plain_words(error: OSError, words: str, capsys, monkeypatch):
    from nbayes.cli import inspect

    def refused(args):
        raise error

    monkeypatch.setattr(inspect, "run", refused)
    code, _, err = run(["inspect", "m.nbm"], capsys)
    assert code == 1 and err == f"nbayes: error: cannot read 'x.csv': {words}\n"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their permissions")
def test_a_file_without_read_permission(tmp_path: Path, model: Path, data: Path, capsys):
    os.chmod(data, 0)
    code, _, err = run(["predict", model, data], capsys)
    assert code == 1 and err == f"nbayes: error: cannot read {str(data)!r}: permission denied\n"


# ---------------------------------------------------------------------- optional dependencies
def test_fitting_on_dask_without_dask_is_one_line_naming_the_install(
    tmp_path: Path, data: Path, capsys, monkeypatch
):
    for name in ("dask", "dask.dataframe", "distributed"):
        monkeypatch.setitem(sys.modules, name, None)  # import dask now fails
    code, out, err = run(["fit", data, "--target", "y", "-o", tmp_path / "d.nbm",
                          "--scheduler", "tcp://localhost:1"], capsys)  # fmt: skip
    assert code == 1 and out == ""
    assert err.startswith("nbayes: error: ") and "pip install 'nbayes[dask]'" in err
    assert len(err.splitlines()) == 1 and "usage:" not in err


def test_writing_parquet_without_pyarrow_is_one_line_naming_the_install(
    tmp_path: Path, model: Path, data: Path, capsys, monkeypatch
):
    for name in ("pyarrow", "pyarrow.parquet"):
        monkeypatch.setitem(sys.modules, name, None)
    code, _, err = run(["predict", model, data, "-o", tmp_path / "p.parquet"], capsys)
    assert code == 1 and "pip install pyarrow" in err
    assert len(err.splitlines()) == 1 and "usage:" not in err
    assert not (tmp_path / "p.parquet").exists()


def test_an_optional_module_missing_anywhere_is_one_line(capsys, monkeypatch):
    from nbayes.cli import inspect

    def needs_pandas(args):
        import pandas  # noqa: F401

    monkeypatch.setitem(sys.modules, "pandas", None)
    monkeypatch.setattr(inspect, "run", needs_pandas)
    code, _, err = run(["inspect", "m.nbm"], capsys)
    assert code == 1 and err == (
        "nbayes: error: this needs pandas, which is not installed: pip install pandas\n"
    )


def test_running_out_of_memory_is_one_line_naming_the_ways_out(capsys, monkeypatch):
    from nbayes.cli import fit

    def too_large(args):  # what NumPy raises when an allocation fails
        raise MemoryError("Unable to allocate 330. GiB for an array with shape (7391520000, 6)")

    monkeypatch.setattr(fit, "run", too_large)
    code, _, err = run(["fit", "d.csv", "--target", "y", "-o", "m.nbm"], capsys)
    assert code == 1 and len(err.splitlines()) == 1
    assert err.startswith("nbayes: error: out of memory (Unable to allocate")
    assert "--max-memory" in err


# ---------------------------------------------------------------------- report without figures
def without_matplotlib(monkeypatch) -> None:
    for name in list(sys.modules):
        if name == "matplotlib" or name.startswith("matplotlib."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)


def test_report_without_matplotlib_writes_the_page_without_figures(
    tmp_path: Path, model: Path, data: Path, capsys, monkeypatch
):
    without_matplotlib(monkeypatch)
    page = tmp_path / "report.html"
    code, out, err = run(["report", model, data, "--target", "y", "-o", page], capsys)
    assert code == 0
    assert out.startswith(f"wrote {page}")
    assert err == (
        "nbayes: warning: matplotlib is not installed: the report has no figures "
        "(pip install 'nbayes[plot]' adds them).\n"
    )
    text = page.read_text()
    assert "<svg" not in text and "No figures: matplotlib is not installed" in text
    assert "id='metrics'" in text and 'id="metric-accuracy"' in text  # every table is there


def test_nbayes_report_without_matplotlib_warns_once(
    tmp_path: Path, model: Path, data: Path, monkeypatch
):
    without_matplotlib(monkeypatch)
    with pytest.warns(UserWarning, match="matplotlib is not installed") as caught:
        page = nbayes.report(nbayes.load(model), pl.read_csv(data), target="y")
    assert len(caught) == 1 and caught[0].filename == __file__
    assert "<svg" not in page and "metric-accuracy" in page


def test_plots_without_matplotlib_name_the_install(monkeypatch):
    without_matplotlib(monkeypatch)
    from nbayes.exceptions import MissingDependencyError
    from nbayes.plot import ConfusionMatrixDisplay

    with pytest.raises(ImportError, match=r"pip install \"nbayes\[plot\]\"") as raised:
        ConfusionMatrixDisplay.from_predictions(["a", "b"], ["a", "a"], ["a", "b"])
    assert isinstance(raised.value, MissingDependencyError)


def test_a_headerless_file_of_identifiers_names_each_column_and_says_nothing_is_modelled(
    tmp_path: Path, capsys
):
    """Columns named by number ('2', '3') are two warnings, not one "2 times" (figures vary
    from fold to fold; the names are what the warning is about), and a table whose every
    feature is left out says that the model is the class prior alone."""
    rng = np.random.default_rng(0)
    rows = [f"{c},id{i},{''.join(rng.choice(list('ACGT'), 12))}" for i, c in
            enumerate(rng.choice(["EI", "IE", "N"], 300))]  # fmt: skip
    path = tmp_path / "ids.data"
    path.write_text("\n".join(rows) + "\n")
    code = main(["fit", str(path), "--no-header", "--target", "1", "-o", str(tmp_path / "m.nbm")])
    err = capsys.readouterr().err
    assert code == 0
    assert "column '2' has a distinct value" in err and "column '3' has a distinct value" in err
    assert "times; the figures" not in err
    assert "no column is modelled: all 2 are left out" in err


def test_warnings_that_differ_in_figures_alone_are_one_line_with_a_count(capsys):
    from nbayes.cli import _Warnings

    shown = _Warnings()
    for fold, rows in enumerate((12, 15, 9)):
        shown.show(f"fold {fold}: {rows} rows of column 'x' were skipped", UserWarning, "f", 1)
    shown.show("fold 0: 4 rows of column 'y' were skipped", UserWarning, "f", 1)
    shown.flush()
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        "nbayes: warning: fold 0: 12 rows of column 'x' were skipped (3 times; the figures are "
        "the first one's)",
        "nbayes: warning: fold 0: 4 rows of column 'y' were skipped",
    ]


def test_an_identifier_is_told_once_and_a_near_identifier_the_model_keeps_is_told_too(
    tmp_path: Path, capsys
):
    """A column the model leaves out as an identifier (a distinct value in nearly every row) is
    told by the model's own warning alone, with the command line's way to keep it; one of
    fewer distinct values, which the model keeps as categories, gets the command line's note."""
    rng = np.random.default_rng(1)
    n = 400
    pl.DataFrame(
        {
            "ticket": [f"t{i:04d}" for i in range(n)],
            "code": [f"c{v}" for v in rng.integers(0, int(0.7 * n), n)],
            "y": rng.choice(["a", "b"], n).tolist(),
        }
    ).write_csv(tmp_path / "d.csv")
    code = main(["fit", str(tmp_path / "d.csv"), "--target", "y", "-o", str(tmp_path / "m.nbm")])
    err = capsys.readouterr().err
    assert code == 0
    assert err.count("column 'ticket'") == 1 and "--family ticket=categorical" in err
    assert "column 'code' has" in err and "probably an identifier" in err
    assert nbayes.load(tmp_path / "m.nbm").families_ == {"ticket": "ignore", "code": "categorical"}
    # the summary line counts the columns as read, and those left out, for every model
    assert "400 rows, 2 classes, 2 columns (1 left out)" in err
    out = str(tmp_path / "s.nbm")
    assert main(["fit", str(tmp_path / "d.csv"), "--target", "y", "--model", "tan", "-o", out]) == 0
    assert "400 rows, 2 classes, 2 columns (1 left out)" in capsys.readouterr().err


def test_report_names_the_class_column_that_holds_labels_the_model_does_not_know(
    tmp_path: Path, model: Path, data: Path, capsys
):
    table = pl.read_csv(data).with_columns(pl.col("y").replace({"q": "r"}))
    other = tmp_path / "other.csv"
    table.write_csv(other)
    page = tmp_path / "report.html"
    code, _, err = run(["report", model, other, "--target", "y", "-o", page], capsys)
    assert code == 1 and not page.exists()
    assert err.strip() == (
        "nbayes: error: column 'y' holds labels the model does not know: ['r'] (its classes: "
        "['p', 'q'])."
    )


def test_fit_warns_of_a_class_written_as_a_missing_marker(tmp_path: Path, capsys):
    path = tmp_path / "labels.csv"
    path.write_text("a,y\n1,p\n2,q\n3,NaN\n4,p\n5,q\n6,p\n")
    code, _, err = run(["fit", path, "--target", "y", "-o", tmp_path / "m.nbm"], capsys)
    assert code == 0
    assert "nbayes: warning: the target holds 'NaN', which usually marks a missing label" in err
    assert "--missing 'NaN'" in err
    code, _, err = run(
        ["fit", path, "--target", "y", "--missing", "NaN", "-o", tmp_path / "m.nbm"], capsys
    )
    assert code == 0 and "usually marks a missing label" not in err
    assert len(nbayes.load(tmp_path / "m.nbm").classes_) == 2


def test_a_folder_given_as_a_table_is_told_how_nbayes_reads_folders(
    tmp_path: Path, data: Path, capsys
):
    folder = tmp_path / "parts"
    folder.mkdir()
    rows = data.read_text().splitlines()
    (folder / "a.csv").write_text("\n".join(rows[:100]) + "\n")
    (folder / "b.csv").write_text("\n".join([rows[0], *rows[100:]]) + "\n")
    model = tmp_path / "m.nbm"
    code, _, err = run(["fit", folder, "--target", "y", "-o", model], capsys)
    assert code == 2 and not model.exists()
    assert "is a folder, which nbayes reads as documents" in err
    assert "Its files (a.csv, b.csv) look like tables: give one file" in err
    assert "--scheduler" in err  # (fit has it)
    # without --target, to fit or to predict: the same, the folder holding only tables
    for args in (["fit", folder, "-o", model], ["predict", model_file(tmp_path, data), folder]):
        code, _, err = run(args, capsys)
        assert code == 2 and not model.exists()
        assert "is a folder, which nbayes reads as documents" in err and "--target names" not in err
        assert "Its files (a.csv, b.csv) look like tables" in err
        assert ("--scheduler" in err) == (args[0] == "fit")  # predict has no such option
    # documents without a class subfolder: nothing to fit, said so
    (folder / "a.csv").rename(folder / "a.txt")
    code, _, err = run(["fit", folder, "-o", model], capsys)
    assert code == 1 and not model.exists()
    assert "the folder has no subfolders, so its documents have no class" in err
    # a folder of documents by class is read as before, --target label or not
    documents = tmp_path / "documents"
    for label, texts in {"p": ["good day", "good times"], "q": ["bad day", "bad luck"]}.items():
        (documents / label).mkdir(parents=True)
        for i, text in enumerate(texts):
            (documents / label / f"{i}.txt").write_text(text)
    assert run(["fit", documents, "-o", model], capsys)[0] == 0
    code, out, _ = run(["evaluate", model, documents, "--target", "label"], capsys)
    assert code == 0 and "accuracy" in out


def model_file(tmp_path: Path, data: Path) -> Path:
    """A model fitted on ``data`` (its class column y)."""
    path = tmp_path / "fitted.nbm"
    assert main(["fit", str(data), "--target", "y", "-o", str(path)]) == 0
    return path


def test_evaluate_on_rows_of_one_class_says_why_there_is_no_auc(
    tmp_path: Path, model: Path, data: Path, capsys
):
    one_class = tmp_path / "p_only.csv"
    pl.read_csv(data).filter(pl.col("y") == "p").write_csv(one_class)
    code, out, _ = run(["evaluate", model, one_class, "--target", "y"], capsys)
    assert code == 0
    assert "no ROC or PR AUC: every labelled row is of one class" in out
    assert "average the 0 classes" not in out


def test_output_dash_is_standard_output(tmp_path: Path, model: Path, data: Path, capsys):
    code, out, _ = run(["predict", model, data, "-o", "-"], capsys)
    assert code == 0 and out.splitlines()[0] == "prediction" and len(out.splitlines()) == 201
    assert not Path("-").exists()


def test_a_report_on_rows_of_one_class_draws_no_empty_legend(
    tmp_path: Path, model: Path, data: Path, capsys
):
    pytest.importorskip("matplotlib")
    one_class = tmp_path / "p_only.csv"
    pl.read_csv(data).filter(pl.col("y") == "p").write_csv(one_class)
    page = tmp_path / "r.html"
    code, _, err = run(["report", model, one_class, "--target", "y", "-o", page], capsys)
    assert code == 0 and page.exists()
    assert "legend" not in err  # matplotlib's "No artists with labels" warning


def test_evaluate_and_report_say_how_many_unlabelled_rows_they_left_out(
    tmp_path: Path, model: Path, data: Path, capsys
):
    table = pl.read_csv(data)
    gaps = table.with_columns(
        pl.when(pl.int_range(pl.len()) < 7).then(None).otherwise(pl.col("y")).alias("y")
    )
    path = tmp_path / "gaps.csv"
    gaps.write_csv(path)
    code, _, err = run(["evaluate", model, path, "--target", "y"], capsys)
    assert code == 0
    assert "7 rows without a label (missing in 'y') were left out" in err
    assert "over the 193 labelled rows" in err
    page = tmp_path / "r.html"
    code, _, err = run(["report", model, path, "--target", "y", "-o", page], capsys)
    assert code == 0 and "7 rows without a label (missing in 'y') were left out" in err


def test_report_suggests_naming_a_missing_marker_it_finds_among_the_labels(
    tmp_path: Path, model: Path, data: Path, capsys
):
    marked = pl.read_csv(data).with_columns(
        pl.when(pl.int_range(pl.len()) < 3).then(pl.lit("?")).otherwise(pl.col("y")).alias("y")
    )
    path = tmp_path / "marked.csv"
    marked.write_csv(path)
    page = tmp_path / "r.html"
    code, _, err = run(["report", model, path, "--target", "y", "-o", page], capsys)
    assert code == 1 and "If '?' means a missing label, name it missing" in err
    code, _, err = run(["report", model, path, "--target", "y", "--missing", "?", "-o", page],
                       capsys)  # fmt: skip
    assert code == 0 and "3 rows without a label" in err


def test_a_bad_value_late_in_a_file_read_in_passes_names_the_file_once(tmp_path: Path, capsys):
    """A value the reader refuses long after the rows its types come from (a fraction in a
    column of integers), met by a semi-naive model's passes: the reader's located message,
    the file named once (not wrapped a second time)."""
    rng = np.random.default_rng(0)
    n = 60_000  # about 2 MiB: the bad value is in a later chunk than the first
    frame = pl.DataFrame(
        {
            "a": rng.choice(["red", "green", "blue"], n),
            "k": rng.integers(0, 5, n),
            "x": rng.normal(size=n),
            "y": ["p", "q"] * (n // 2),
        }
    )
    path = tmp_path / "late_bad.csv"
    path.write_text(frame.write_csv() + "red,5.5,0.5,p\n")
    assert path.stat().st_size > 1.5 * 2**20
    code, _, err = run(
        ["fit", path, "--target", "y", "-o", tmp_path / "m.nbm", "--model", "aode",
         "--chunk-mb", "1"],
        capsys,
    )  # fmt: skip
    assert code != 0 and "the value '5.5' does not fit the column's type" in err
    assert err.count("late_bad.csv") == 1, err
