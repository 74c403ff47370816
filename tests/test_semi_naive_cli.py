"""The command line with semi-naive models: nbayes fit --model …, and the commands that read
the saved model."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import nbayes
from nbayes.cli import main
from nbayes.cli._args import TABLE_MODELS
from nbayes.semi_naive.table import MODEL_NAMES, SemiNaiveBayes


def table(n: int = 600, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.choice(["x", "y", "z"], n)
    b = np.where(rng.random(n) < 0.8, a, rng.choice(["x", "y", "z"], n))
    number = rng.normal(0, 1, n).round(3)
    label = np.where((a == b) & (number > 0), "hit", "miss")
    return pl.DataFrame({"a": a, "b": b, "number": number, "label": label})


@pytest.fixture
def csv_file(tmp_path: Path) -> Path:
    path = tmp_path / "data.csv"
    table().write_csv(path)
    return path


def run(args: list, capsys) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_cli_names_every_semi_naive_model():
    assert set(TABLE_MODELS) == {"naive", *MODEL_NAMES}


def test_fit_kdb_equals_the_python_api_and_the_other_commands_read_it(tmp_path, csv_file, capsys):
    model_path = tmp_path / "kdb.nbm"
    code, _, err = run(
        ["fit", csv_file, "--target", "label", "--model", "kdb", "--k", "2", "-o", model_path],
        capsys,
    )
    assert code == 0 and "fitted 600 rows, 2 classes, 3 columns" in err
    saved = nbayes.load(model_path)
    expected = nbayes.SemiNaiveBayes(nbayes.KDB(2)).fit(table(), target="label")
    frame = table().drop("label")
    np.testing.assert_allclose(saved.predict_proba(frame), expected.predict_proba(frame))
    np.testing.assert_array_equal(saved.cut_points_["number"], expected.cut_points_["number"])

    code, out, _ = run(["inspect", model_path], capsys)
    assert code == 0 and "KDB:" in out and "structure (parent -> child" in out
    code, out, _ = run(["explain", model_path, csv_file, "--row", "2"], capsys)
    assert code == 0 and "parents used" in out and "decision:" in out
    code, out, _ = run(["evaluate", model_path, csv_file, "--target", "label"], capsys)
    assert code == 0 and "accuracy" in out


def test_max_intervals_reaches_the_table_model(tmp_path, capsys):
    rng = np.random.default_rng(3)
    n = 900
    number = rng.normal(0, 1, n).round(3)
    label = np.digitize(number + rng.normal(0, 0.3, n), [-1.0, 0.0, 1.0]).astype(str)
    frame = pl.DataFrame({"number": number, "label": label})
    path, model_path = tmp_path / "steps.csv", tmp_path / "m.nbm"
    frame.write_csv(path)
    code, _, _ = run(
        ["fit", path, "--target", "label", "--model", "skdb", "--discriminative", "off",
         "--max-intervals", "3", "-o", model_path],
        capsys,
    )  # fmt: skip
    assert code == 0
    saved = nbayes.load(model_path).cut_points_["number"]
    free = SemiNaiveBayes(discriminative=False, max_intervals=None).fit(frame, target="label")
    bounded = SemiNaiveBayes(discriminative=False, max_intervals=3).fit(frame, target="label")
    assert len(free.cut_points_["number"]) > 2 and len(saved) == 2
    np.testing.assert_array_equal(saved, bounded.cut_points_["number"])
    with pytest.raises(SystemExit) as exit_:
        run(["fit", path, "--target", "label", "--max-intervals", "1"], capsys)
    assert exit_.value.code == 2 and "--max-intervals" in capsys.readouterr().err


def test_max_memory_bounds_the_structure_tables(tmp_path, capsys):
    rng = np.random.default_rng(4)
    frame = pl.DataFrame(
        {f"a{j}": np.char.add("v", rng.integers(0, 12, 300).astype(str)) for j in range(8)}
    ).with_columns(label=pl.Series(rng.integers(0, 3, 300).astype(str)))
    path, model_path = tmp_path / "t.csv", tmp_path / "m.nbm"
    frame.write_csv(path)
    base = ["fit", path, "--target", "label", "--model", "a2de", "-o", model_path]
    code, _, err = run([*base, "--max-memory", "1MiB"], capsys)
    assert code == 1 and "above max_memory = 1.0 MiB" in err and "--max-memory" in err
    assert not model_path.exists()
    code, _, _ = run([*base, "--max-memory", "64MiB"], capsys)
    assert code == 0 and nbayes.load(model_path).model_.max_memory == 64 * 2**20


def test_cv_compares_semi_naive_models(csv_file, capsys):
    code, out, _ = run(
        ["cv", csv_file, "--target", "label", "--folds", "3", "--compare", "model=aode",
         "--compare", "model=skdb k=2"],
        capsys,
    )  # fmt: skip
    assert code == 0 and "model=aode" in out and "model=skdb k=2" in out


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--model", "aode", "--k", "2"], "--k applies to --model kdb, skdb and eskdb"),
        (["--model", "tan", "--continuous", "gaussian"], "needs discrete columns"),
        # an option the model would ignore is refused, not silently dropped
        (["--k", "2"], "--k applies to --model kdb, skdb and eskdb, not naive"),
        (["--discriminative", "off"], "--discriminative applies to semi-naive models"),
        (["--max-intervals", "3"], "--max-intervals applies to semi-naive models"),
        (["--max-memory", "64MiB"], "--max-memory applies to semi-naive models"),
        (["--model", "tan", "--calibration", "none"], "--calibration applies to naive Bayes"),
    ],
)
def test_bad_semi_naive_options_are_usage_errors(tmp_path, csv_file, capsys, extra, message):
    code, _, err = run(
        ["fit", csv_file, "--target", "label", "-o", tmp_path / "m.nbm", *extra], capsys
    )
    assert code == 2 and message in err


def feed_stdin(monkeypatch, frame: pl.DataFrame) -> None:
    class Stdin:
        buffer = io.BytesIO(frame.write_csv().encode())

    monkeypatch.setattr(sys, "stdin", Stdin)


def test_one_pass_structures_read_standard_input_once(tmp_path, capsys, monkeypatch):
    """Standard input is read once: a one-pass structure over categorical columns takes it
    batch by batch (the model of a fit on the same rows); what needs another pass is refused
    in one line, naming why."""
    data = table().drop("number")
    feed_stdin(monkeypatch, data)
    out = tmp_path / "m.nbm"
    code, _, err = run(["fit", "-", "--target", "label", "--model", "tan", "-o", out], capsys)
    # every option that must change, in one refusal: not one per attempt
    assert code == 2 and "--discriminative off and --missing-as skip" in err
    assert len(err.strip().splitlines()) <= 2
    feed_stdin(monkeypatch, data)
    code, _, err = run(
        ["fit", "-", "--target", "label", "--model", "tan", "--discriminative", "off", "-o", out],
        capsys,
    )
    assert code == 2 and "--missing-as skip" in err and len(err.strip().splitlines()) <= 2
    feed_stdin(monkeypatch, data)
    code, _, err = run(
        ["fit", "-", "--target", "label", "--model", "tan", "--discriminative", "off",
         "--missing-as", "skip", "-o", out],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    expected = SemiNaiveBayes("tan", discriminative=False, missing="skip")
    expected.fit(data, target="label")
    np.testing.assert_allclose(
        nbayes.load(out).predict_proba(data), expected.predict_proba(data), atol=1e-12
    )
    feed_stdin(monkeypatch, table())
    code, _, err = run(
        ["fit", "-", "--target", "label", "--model", "aode", "--discriminative", "off",
         "--missing-as", "skip", "-o", out],
        capsys,
    )  # fmt: skip
    assert code == 1 and "numeric columns ['number'] need their cut points" in err
    feed_stdin(monkeypatch, data)
    code, _, err = run(
        ["fit", "-", "--target", "label", "--model", "kdb", "--k", "2", "--discriminative",
         "off", "--missing-as", "skip", "-o", out],
        capsys,
    )  # fmt: skip
    assert code == 2 and "once per pass" in err and len(err.strip().splitlines()) <= 2
    # a structure of several passes is refused for that alone, whatever its options: no
    # option named would make standard input do
    feed_stdin(monkeypatch, data)
    code, _, err = run(["fit", "-", "--target", "label", "--model", "skdb", "-o", out], capsys)
    assert code == 2 and "learns its structure from all rows" in err
    assert "--discriminative" not in err and "--missing-as" not in err


def test_fit_with_an_identifier_and_a_free_text_column(tmp_path):
    rng = np.random.default_rng(0)
    words = np.array("the cat sat on a mat with red blue green dog ran far away".split())
    n = 200
    a = rng.choice(["x", "y"], n)
    path = tmp_path / "t.csv"
    pl.DataFrame(
        {
            "id": [f"id-{i:05d}" for i in range(n)],
            "note": [" ".join(rng.choice(words, 6)) for _ in range(n)],
            "a": a,
            "cls": np.where(rng.random(n) < 0.9, a, "w"),
        }
    ).write_csv(path)
    for model in ("tan", "skdb"):
        out = tmp_path / f"{model}.nbm"
        assert main(["fit", str(path), "--target", "cls", "--model", model, "-o", str(out)]) == 0
        model = nbayes.load(out)
        assert model.ignored_ == ["id"] and model.text_columns_ == ["note"]


def test_a_structure_is_refused_for_documents(tmp_path, capsys):
    """Documents (or a table whose only feature is free text) are a TextClassifier's: --model
    is refused in one line by fit and cv (fit crashed, cv ignored it)."""
    lines = tmp_path / "sms.txt"
    spam, ham = "win a free prize now", "see you at lunch"
    lines.write_text("".join(f"spam\t{spam} {i}\nham\t{ham} {i}\n" for i in range(30)))
    texts = tmp_path / "texts.csv"
    pl.DataFrame({"label": ["spam", "ham"] * 30, "text": [spam, ham] * 30}).write_csv(texts)
    for command in (
        ["fit", lines, "--format", "lines", "--model", "tan", "-o", tmp_path / "m.nbm"],
        ["cv", lines, "--format", "lines", "--model", "kdb", "--folds", "3"],
        ["fit", texts, "--target", "label", "--text", "text", "--model", "kdb", "--k", "2",
         "-o", tmp_path / "m.nbm"],
        ["cv", lines, "--format", "lines", "--folds", "3", "--compare", "model=tan"],
    ):  # fmt: skip
        code, _, err = run(command, capsys)
        assert code == 2 and "Traceback" not in err, command
        assert "applies to tables; documents" in err, command
    assert not (tmp_path / "m.nbm").exists()


def test_a_tables_column_options_are_refused_for_documents(tmp_path, capsys):
    """--continuous, --missing-as and --family describe a table's columns: for documents (a
    TextClassifier's) they would be dropped in silence, so they are refused in one line."""
    lines = tmp_path / "sms.txt"
    lines.write_text("".join(f"spam\twin a prize {i}\nham\tsee you at {i}\n" for i in range(30)))
    for option in (["--continuous", "gaussian"], ["--missing-as", "skip"],
                   ["--family", "2=categorical"]):  # fmt: skip
        code, _, err = run(["fit", lines, "--format", "lines", *option, "-o", tmp_path / "m.nbm"],
                           capsys)  # fmt: skip
        assert code == 2 and "Traceback" not in err, option
        assert f"{option[0]} applies to the columns of a table; documents" in err, option
    assert not (tmp_path / "m.nbm").exists()
    code, _, _ = run(["fit", lines, "--format", "lines", "-o", tmp_path / "m.nbm"], capsys)
    assert code == 0 and (tmp_path / "m.nbm").exists()


def test_compare_can_set_an_option_back_to_its_default(csv_file, capsys):
    """--compare "model=naive" against a base of --model tan compares naive Bayes (it compared
    the base with itself), and the base's structure options are not inherited by it."""
    import json

    code, out, _ = run(
        ["cv", csv_file, "--target", "label", "--folds", "3", "--model", "tan",
         "--discriminative", "off", "--compare", "model=naive", "--json"],
        capsys,
    )  # fmt: skip
    assert code == 0
    result = json.loads(out)
    naive = json.loads(
        run(["cv", csv_file, "--target", "label", "--folds", "3", "--json"], capsys)[1]
    )
    base, variant = result["settings"]
    assert variant["name"] == "model=naive"
    assert variant["per_fold"] == naive["settings"][0]["per_fold"]
    assert variant["per_fold"] != base["per_fold"]
    assert result["comparisons"][0]["mean_difference"] != 0


def test_a_multi_pass_fit_reads_a_csv_quickly_and_starts_over_carefully_when_it_must(
    tmp_path, capsys, monkeypatch
):
    """Polars' streaming engine reads a plain CSV for the table's pass; a file the quick reader
    cannot take (here a value padded with blanks in a late row) is read again carefully. Either
    way the model is the in-memory fit of the table."""
    from nbayes import _read_delimited, _read_quick

    attempts, careful = [], []
    quick, slow = _read_quick.QuickReading._csv_quick, _read_delimited.DelimitedReading._csv

    def counted(self):
        attempts.append(self.path)
        yield from quick(self)

    def counted_careful(self, stream):
        careful.append(self.path)
        yield from slow(self, stream)

    monkeypatch.setattr(_read_quick.QuickReading, "_csv_quick", counted)
    monkeypatch.setattr(_read_delimited.DelimitedReading, "_csv", counted_careful)
    frame = table(3000)
    plain = tmp_path / "plain.csv"
    frame.write_csv(plain)
    padded = tmp_path / "padded.csv"
    lines = plain.read_text().splitlines()
    lines[-3] = lines[-3].replace(",", ", ", 1)  # the careful reader strips the blank
    padded.write_text("\n".join(lines) + "\n")
    expected = nbayes.SemiNaiveBayes("skdb").fit(frame, target="label")
    features = frame.drop("label")
    for path in (plain, padded):
        model_path = tmp_path / f"{path.stem}.nbm"
        code, _, err = run(
            ["fit", path, "--target", "label", "--model", "skdb", "--chunk-mb", "1", "-o",
             model_path],
            capsys,
        )  # fmt: skip
        assert code == 0, err
        saved = nbayes.load(model_path)
        np.testing.assert_allclose(
            saved.predict_proba(features), expected.predict_proba(features), rtol=0, atol=1e-9
        )
    assert attempts == [str(plain), str(padded)]  # one quick read each
    # the careful reader reads the plain file's first block only (to choose the model), and
    # the padded file again once its quick read is abandoned
    assert careful.count(str(plain)) == 1 and careful.count(str(padded)) > 1


def test_verbose_reports_the_naive_models_pass_and_its_derived_values(tmp_path, csv_file, capsys):
    """The naive model reads its data once, then derives its choices and calibration when the
    model file is written: ``--verbose`` shows both, not nothing."""
    code, _, err = run(
        ["fit", csv_file, "--target", "label", "--verbose", "-o", tmp_path / "m.nbm"], capsys
    )
    assert code == 0, err
    names = [
        line.removeprefix("nbayes: ").rsplit(": ", 1)[0]
        for line in err.splitlines()
        if re.fullmatch(r"nbayes: .+: \d+\.\d\d s", line)
    ]
    assert names == [
        "the table's pass (counts, value sketches, row sample)",
        "the derived values (choices, calibration) and the model file written",
    ]


def test_verbose_reports_each_pass_of_a_multi_pass_fit_and_nothing_without_it(
    tmp_path, csv_file, capsys
):
    """``--verbose`` prints a line per pass, in the order the passes run: the table's, then the
    structure's (selective k-DB makes three), then each evaluation of the correction's search;
    the model is the one fitted without it."""
    quiet_path, verbose_path = tmp_path / "quiet.nbm", tmp_path / "verbose.nbm"
    fit = ["fit", csv_file, "--target", "label", "--model", "skdb"]
    code, _, quiet = run([*fit, "-o", quiet_path], capsys)
    assert code == 0 and "nbayes: " not in quiet
    code, _, err = run([*fit, "--verbose", "-o", verbose_path], capsys)
    assert code == 0, err
    passes = [line for line in err.splitlines() if line.startswith("nbayes: ")]
    # each line names its pass and gives seconds in the form "N.NN s" (not how many)
    assert all(re.fullmatch(r"nbayes: .+: \d+\.\d\d s", line) for line in passes)
    names = [line.removeprefix("nbayes: ").rsplit(": ", 1)[0] for line in passes]
    assert names[:4] == [
        "the table's pass (types, values, numeric sketches)",
        "SelectiveKDB's pass 1 of 3",
        "SelectiveKDB's pass 2 of 3",
        "SelectiveKDB's pass 3 of 3",
    ]
    search = names[4:-1]
    assert search and search == [
        f"the correction's search, evaluation {i}" for i in range(1, len(search) + 1)
    ]
    assert names[-1] == "the derived values (choices, calibration) and the model file written"
    frame = table().drop("label")
    np.testing.assert_array_equal(
        nbayes.load(verbose_path).predict_proba(frame), nbayes.load(quiet_path).predict_proba(frame)
    )
    # the handler is gone once the command ends: a later fit prints no pass
    code, _, again = run([*fit, "-o", quiet_path], capsys)
    assert code == 0 and "nbayes: " not in again
