"""The command line: every subcommand, exit codes, and streaming equal to fitting in memory."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from conftest import assert_same_statistics

import nbayes
from nbayes.cli import main
from nbayes.evaluation import stratified_folds


def dataset(n: int = 3000, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b", "c"], n)
    shift = np.searchsorted(["a", "b", "c"], y)
    return pl.DataFrame(
        {
            "height": rng.normal(170 + 5 * shift, 8, n),
            "colour": np.where(
                rng.random(n) < 0.6, np.array(["red", "green", "blue"])[shift], "blue"
            ).tolist(),
            "code": (rng.integers(0, 3, n) + shift) % 4,
            "visits": rng.poisson(2 + shift, n),
            "y": y.tolist(),
        }
    )


@pytest.fixture
def csv_file(tmp_path: Path) -> Path:
    path = tmp_path / "data.csv"
    frame = dataset()
    frame = frame.with_columns(
        pl.when(pl.int_range(pl.len()) % 17 == 0)
        .then(pl.lit("?"))
        .otherwise(pl.col("colour"))
        .alias("colour")
    )
    frame.write_csv(path)
    return path


def run(args: list[str], capsys) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_fit_predict_evaluate_inspect(tmp_path: Path, csv_file: Path, capsys):
    model_path = tmp_path / "m.nbm"
    code, out, err = run(
        [
            "fit",
            csv_file,
            "--target",
            "y",
            "-o",
            model_path,
            "--missing",
            "?",
            "--family",
            "visits=poisson",
        ],
        capsys,
    )
    assert code == 0 and out == "" and "3,000 rows" in err
    model = nbayes.load(model_path)
    frame = pl.read_csv(csv_file, null_values="?")
    expected = nbayes.NaiveBayes(missing_values="?", families={"visits": "poisson"}).fit(
        frame, target="y"
    )
    assert_same_statistics(model, expected)

    code, out, _ = run(["predict", model_path, csv_file, "--proba"], capsys)
    assert code == 0
    predicted = pl.read_csv(out.encode())
    assert predicted.columns == ["prediction", "P(a)", "P(b)", "P(c)"]
    features = frame.drop("y")
    np.testing.assert_array_equal(
        predicted.get_column("prediction").to_numpy(), expected.predict(features)
    )
    np.testing.assert_allclose(
        predicted.select("P(a)", "P(b)", "P(c)").to_numpy(),
        expected.predict_proba(features),
        rtol=1e-12,
    )

    code, out, _ = run(["evaluate", model_path, csv_file, "--target", "y", "--json"], capsys)
    report = json.loads(out)
    truth = frame.get_column("y").to_numpy()
    assert report["accuracy"] == pytest.approx(np.mean(expected.predict(features) == truth))
    proba = expected.predict_proba(features)
    log_loss = -np.mean(
        np.log(proba[np.arange(len(truth)), np.searchsorted(expected.classes_, truth)])
    )
    assert report["log_loss"] == pytest.approx(log_loss)
    assert np.sum(report["confusion_matrix"]) == frame.height

    code, out, _ = run(["evaluate", model_path, csv_file, "--target", "y"], capsys)
    assert "accuracy" in out and "confusion matrix" in out and "precision" in out

    code, out, _ = run(["inspect", model_path], capsys)
    assert code == 0 and out.strip() == model.summary().strip()


def test_predict_writes_parquet_tsv_and_json_lines(tmp_path: Path, csv_file: Path, capsys):
    model_path = tmp_path / "m.nbm"
    run(["fit", csv_file, "--target", "y", "-o", model_path], capsys)
    for name in ("out.parquet", "out.tsv", "out.jsonl"):
        code, out, _ = run(["predict", model_path, csv_file, "-o", tmp_path / name], capsys)
        assert code == 0 and out == ""
    parquet = pl.read_parquet(tmp_path / "out.parquet")
    tsv = pl.read_csv(tmp_path / "out.tsv", separator="\t")
    lines = pl.read_ndjson(tmp_path / "out.jsonl")
    assert parquet.height == tsv.height == lines.height == 3000
    assert parquet.get_column("prediction").to_list() == tsv.get_column("prediction").to_list()
    assert lines.get_column("prediction").to_list() == tsv.get_column("prediction").to_list()
    # a .json path would get something that is not a JSON document: refused, nothing written
    code, _, err = run(["predict", model_path, csv_file, "-o", tmp_path / "out.json"], capsys)
    assert code == 2 and "-o " in err and "name the file .jsonl" in err
    assert not (tmp_path / "out.json").exists()
    # so would a path named for a spreadsheet, a compressed file or a model file
    for name, what in [("out.xlsx", "spreadsheets"), ("out.csv.gz", "compressed"),
                       ("p.nbm", "model file")]:  # fmt: skip
        before = (tmp_path / name).read_bytes() if (tmp_path / name).exists() else None
        code, _, err = run(["predict", model_path, csv_file, "-o", tmp_path / name], capsys)
        assert code == 2 and what in err and ".csv, .tsv, .parquet or .jsonl" in err
        after = (tmp_path / name).read_bytes() if (tmp_path / name).exists() else None
        assert after == before  # nothing written
    # cv's --oof alike, before any fold is fitted; and --oof - would mix rows with the report
    for oof, what in [(tmp_path / "oof.xlsx", "spreadsheets"), ("-", "name a file")]:
        code, out, err = run(["cv", csv_file, "--target", "y", "--oof", oof], capsys)
        assert code == 2 and what in err and out == ""


def test_streaming_equals_in_memory(tmp_path: Path, capsys):
    """Many 1 MiB chunks through partial_fit give the model of one fit on the whole table."""
    frame = dataset(120_000, seed=3)
    path = tmp_path / "big.csv"
    frame.write_csv(path)
    assert path.stat().st_size > 3 * 2**20
    model_path = tmp_path / "m.nbm"
    fit = ["fit", path, "--target", "y", "-o", model_path, "--chunk-mb", "1"]
    assert run([*fit, "--calibration", "none"], capsys)[0] == 0  # batch by batch
    streamed = nbayes.load(model_path)
    whole = nbayes.NaiveBayes(calibration=None).fit(pl.read_csv(path), target="y")
    assert_same_statistics(streamed, whole)
    # the counts of the categorical columns are exactly equal, not just close
    for a, b in zip(streamed._stats.groups, whole._stats.groups, strict=True):
        if a.family == "categorical":
            assert a.vocabularies == b.vocabularies
            np.testing.assert_array_equal(a.stats.counts, b.stats.counts)
    features = frame.drop("y")
    np.testing.assert_array_equal(streamed.predict(features), whole.predict(features))


def echoed(n: int = 600, seed: int = 1) -> pl.DataFrame:
    """Two classes, each informative column written three times: naive Bayes counts its
    evidence three times, so its probabilities are over-confident, and ``NaiveBayes().fit``
    calibrates them."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["no", "yes"], n, p=[0.7, 0.3])
    shift = (y == "yes").astype(float)
    x = rng.normal(shift, 1.2, n)
    colour = np.where(rng.random(n) < 0.6 + 0.2 * shift, "red", "blue")
    return pl.DataFrame(
        {**{f"x{k}": x for k in range(3)}, **{f"colour{k}": colour for k in range(3)}, "y": y}
    )


def test_fit_reads_a_small_file_whole_and_calibrates_as_naive_bayes_fit(tmp_path: Path, capsys):
    path = tmp_path / "echoed.csv"
    echoed().write_csv(path)
    frame = pl.read_csv(path)
    features = frame.drop("y")
    for option, calibration in (([], "auto"), (["--calibration", "none"], None)):
        model_path = tmp_path / "m.nbm"
        code, _, err = run(["fit", path, "--target", "y", "-o", model_path, *option], capsys)
        assert code == 0 and "without calibration" not in err
        model = nbayes.load(model_path)
        expected = nbayes.NaiveBayes(calibration=calibration).fit(frame, target="y")
        assert model.get_params()["calibration"] == calibration
        if calibration is None:
            assert model.calibration_ is None
        else:  # the data calls for a calibration, and the file gets the one fit finds
            assert not expected.calibration_.is_identity and expected.calibration_.weight < 0.8
            assert model.calibration_.weight == pytest.approx(expected.calibration_.weight, 1e-9)
            np.testing.assert_allclose(
                model.calibration_.offset, expected.calibration_.offset, atol=1e-9
            )
        np.testing.assert_allclose(
            model.predict_proba(features), expected.predict_proba(features), atol=1e-9
        )


def as_stdin(frame: pl.DataFrame, monkeypatch) -> None:
    """Make ``frame``, written as CSV, the standard input the CLI reads."""
    data = io.BytesIO()
    frame.write_csv(data)

    class Stdin:
        buffer = io.BytesIO(data.getvalue())

    monkeypatch.setattr(sys, "stdin", Stdin)


def test_fit_streams_a_large_file_into_the_calibrated_model_of_one_fit(
    tmp_path: Path, capsys, monkeypatch
):
    from nbayes.readers import TableReader

    path = tmp_path / "echoed.csv"
    echoed(60_000).write_csv(path)
    frame = pl.read_csv(path)
    model_path = tmp_path / "m.nbm"
    fit = ["fit", path, "--target", "y", "-o", model_path, "--chunk-mb", "1"]
    assert len(list(TableReader(path, chunk_bytes=2**20, quick=True))) >= 3
    code, _, err = run(fit, capsys)
    assert code == 0 and "calibration" not in err
    streamed = nbayes.load(model_path)
    one_fit = nbayes.NaiveBayes().fit(frame, target="y")
    assert not one_fit.calibration_.is_identity
    assert streamed.calibration_.weight == pytest.approx(one_fit.calibration_.weight, rel=1e-9)
    expected = one_fit.predict_proba(frame)
    np.testing.assert_allclose(streamed.predict_proba(frame), expected, atol=1e-9)

    as_stdin(frame, monkeypatch)
    code, _, err = run(["fit", "-", "--target", "y", "-o", model_path, "--chunk-mb", "1"], capsys)
    assert code == 0
    from_stdin = nbayes.load(model_path)
    np.testing.assert_allclose(from_stdin.predict_proba(frame), expected, atol=1e-9)


def test_cross_validation_evaluates_the_calibrated_model(tmp_path: Path, capsys):
    path = tmp_path / "echoed.csv"
    echoed().write_csv(path)
    frame = pl.read_csv(path)
    labels = frame.get_column("y").to_numpy()
    losses: dict = {"auto": [], None: []}
    for test in stratified_folds(labels, 5, seed=0):
        train = np.setdiff1d(np.arange(frame.height), test)
        for calibration, scores in losses.items():
            model = nbayes.NaiveBayes(calibration=calibration).fit(frame[train], target="y")
            proba = model.predict_proba(frame[test].drop("y"))
            truth = np.searchsorted(model.classes_, labels[test])
            scores.append(-np.mean(np.log(proba[np.arange(len(test)), truth])))
    for option, calibration in (([], "auto"), (["--calibration", "none"], None)):
        _, out, _ = run(["cv", path, "--target", "y", "--folds", "5", "--json", *option], capsys)
        got = [fold["log_loss"] for fold in json.loads(out)["settings"][0]["per_fold"]]
        np.testing.assert_allclose(got, losses[calibration], rtol=1e-9)
    assert np.mean(losses["auto"]) < np.mean(losses[None]) - 0.02  # calibration mattered


def test_explain_row(tmp_path: Path, csv_file: Path, capsys):
    model_path = tmp_path / "m.nbm"
    run(["fit", csv_file, "--target", "y", "-o", model_path, "--missing", "?"], capsys)
    code, out, _ = run(["explain", model_path, csv_file, "--row", "17"], capsys)
    assert code == 0
    assert "row 17, line 19" in out and "P(c | x)" in out
    assert "colour is missing" in out  # row 17 holds '?': skipped, as in the textbook examples
    code, _, err = run(["explain", model_path, csv_file, "--row", "5000"], capsys)
    assert code == 1 and "there is no row 5,000" in err


def test_cross_validation_matches_an_independent_loop(csv_file: Path, capsys):
    code, out, _ = run(["cv", csv_file, "--target", "y", "--folds", "5", "--missing", "?"], capsys)
    assert code == 0
    frame = pl.read_csv(csv_file, null_values="?")
    labels = frame.get_column("y").to_numpy()
    scores = []
    for test in stratified_folds(labels, 5, seed=0):
        train = np.setdiff1d(np.arange(frame.height), test)
        model = nbayes.NaiveBayes(missing_values="?").fit(frame[train], target="y")
        scores.append(np.mean(model.predict(frame[test].drop("y")) == labels[test]))
    assert f"mean accuracy over folds {np.mean(scores):.4f}" in out


def test_loss_file_changes_decisions(tmp_path: Path, csv_file: Path, capsys):
    loss = tmp_path / "loss.csv"
    loss.write_text("decision,a,b,c\na,0,1,1\nb,1,0,1\nc,20,20,0\n")
    model_path = tmp_path / "m.nbm"
    assert run(["fit", csv_file, "--target", "y", "-o", model_path, "--loss", loss], capsys)[0] == 0
    model = nbayes.load(model_path)
    matrix = np.array([[0, 1, 1], [1, 0, 1], [20, 20, 0]])
    np.testing.assert_array_equal(model.loss, matrix)
    _, out, _ = run(["predict", model_path, csv_file], capsys)
    got = pl.read_csv(out.encode()).get_column("prediction").to_numpy()
    features = pl.read_csv(csv_file).drop("y")
    risk = model.predict_proba(features) @ matrix.T
    np.testing.assert_array_equal(got, model.classes_[np.argmin(risk, axis=1)])
    loss.write_text("decision,a,b\na,0,1\nb,1,0\n")
    code, _, err = run(["fit", csv_file, "--target", "y", "-o", model_path, "--loss", loss], capsys)
    assert code == 2 and "every class" in err


@pytest.mark.parametrize(
    "content, args, message",
    [
        (b"a,b,y\n1,2,x\n3,4,y,z\n5,6,x\n", [], "data.csv: line 3: this row has 4 fields"),
        (b"", [], "data.csv: the file is empty"),
        (b"a,b,y\n", [], "data.csv: the file has no data rows"),
        (b"a,b,c\n1,2,x\n3,4,y\n", [], "there is no target column 'y'"),
        (b"a,b,y\n1,2,\n3,4,\n", [], "the target column 'y' is entirely missing"),
        (b"a,b,y\n1,2,x\n3,4,x\n", [], "single class ('x')"),
        (b"a,b,y\n1,-2,x\n3,4,z\n", ["--family", "b=poisson"], "column 'b' has the negative value"),
    ],
)
def test_data_errors_exit_1_with_one_line(tmp_path: Path, capsys, content, args, message):
    path = tmp_path / "data.csv"
    path.write_bytes(content)
    code, out, err = run(["fit", path, "--target", "y", "-o", tmp_path / "m.nbm", *args], capsys)
    assert code == 1 and out == ""
    assert message in err
    errors = [line for line in err.splitlines() if line.startswith("nbayes: error:")]
    assert len(errors) == 1 and "Traceback" not in err
    assert not (tmp_path / "m.nbm").exists()


def test_skip_bad_rows_and_non_utf8(tmp_path: Path, capsys):
    path = tmp_path / "data.csv"
    path.write_bytes(b"a,b,y\n1,caf\xe9,x\n3,4,y,z\n5,6,x\n7,8,y\n")
    code, _, err = run(
        ["fit", path, "--target", "y", "-o", tmp_path / "m.nbm", "--skip-bad-rows"], capsys
    )
    assert code == 0
    assert "1 bad row skipped" in err and "not UTF-8" in err and "line 2" in err
    assert nbayes.load(tmp_path / "m.nbm").class_count_.sum() == 3


def test_skipped_rows_are_counted_in_words_that_agree(tmp_path: Path, capsys):
    path = tmp_path / "data.csv"
    path.write_bytes(b"a,b,y\n1,2,x\n3,4,y,z\n5,6,x\n7,8,y,z\n9,0,y\n")
    code, _, err = run(
        ["fit", path, "--target", "y", "-o", tmp_path / "m.nbm", "--skip-bad-rows"], capsys
    )
    assert code == 0 and "2 bad rows skipped (lines 3, 5)" in err and "bad row skipped" not in err
    assert nbayes.load(tmp_path / "m.nbm").class_count_.sum() == 3
    # predict drops them too, and says which lines have no prediction
    code, out, err = run(["predict", tmp_path / "m.nbm", path, "--skip-bad-rows"], capsys)
    assert code == 0 and len(out.splitlines()) == 1 + 3
    assert "nbayes: 2 bad rows skipped (lines 3, 5)" in err


def test_predict_refuses_a_file_whose_every_row_is_dropped(tmp_path: Path, capsys):
    """A file read with a line of text taken for its header (a headerless file given without
    --no-header) has every row of the wrong width: with --skip-bad-rows, predict says so, and
    leaves the output file as it was, instead of writing a file of no predictions."""
    data = tmp_path / "data.csv"
    data.write_text("a,b,y\n1,2,x\n3,4,y\n5,6,x\n")
    assert run(["fit", data, "--target", "y", "-o", tmp_path / "m.nbm"], capsys)[0] == 0
    given = tmp_path / "given.csv"
    given.write_text("a note above the rows\n1,2\n3,4\n")
    output = tmp_path / "out.csv"
    output.write_text("earlier predictions\n")
    code, _, err = run(
        ["predict", tmp_path / "m.nbm", given, "--skip-bad-rows", "-o", output], capsys
    )
    assert code == 1 and "every row was dropped as bad" in err and "(lines 2, 3)" in err
    assert "--no-header" in err and len(err.strip().splitlines()) == 1
    assert output.read_text() == "earlier predictions\n"


def test_debug_shows_the_traceback(tmp_path: Path):
    path = tmp_path / "data.csv"
    path.write_bytes(b"")
    with pytest.raises(ValueError, match="empty"):
        main(["--debug", "fit", str(path), "--target", "y", "-o", str(tmp_path / "m.nbm")])


def test_model_file_errors_exit_1(tmp_path: Path, csv_file: Path, capsys):
    bad = tmp_path / "bad.nbm"
    bad.write_bytes(b"not a model")
    code, _, err = run(["predict", bad, csv_file], capsys)
    assert code == 1 and "not an nbayes model file" in err


@pytest.mark.parametrize("command", ["predict", "evaluate", "report", "explain"])
def test_model_and_data_the_wrong_way_round_are_named(
    tmp_path: Path, csv_file: Path, capsys, command
):
    model = tmp_path / "m.nbm"
    assert run(["fit", csv_file, "--target", "y", "-o", model], capsys)[0] == 0
    extra = {"report": ["-o", tmp_path / "r.html"], "explain": ["--row", "1"]}.get(command, [])
    code, _, err = run([command, csv_file, model, *extra], capsys)
    assert code == 2
    assert f"{csv_file} is not a model file but {model} is: the model comes first" in err
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize("command", ["fit", "predict", "evaluate"])
def test_a_model_file_given_as_the_data_is_named_as_one(
    tmp_path: Path, csv_file: Path, capsys, command
):
    """A model file where the data belongs (fit's DATA, or predict's DATA after its MODEL) is
    named as what it is, not read as a table of JSON fragments or refused as an unknown format;
    nbayes.read_table says the same."""
    model = tmp_path / "m.nbm"
    assert run(["fit", csv_file, "--target", "y", "-o", model], capsys)[0] == 0
    first = {"fit": [model, "--target", "y", "-o", tmp_path / "x.nbm"]}.get(command, [model, model])
    code, _, err = run([command, *first], capsys)
    assert code == 1 and f"{model}: is an nbayes model file, not data" in err, err
    assert "fit, cv and read_table take data" in err  # (whichever command met it)
    assert not (tmp_path / "x.nbm").exists()
    with pytest.raises(nbayes.DataError, match="is an nbayes model file, not data"):
        nbayes.read_table(model)


def test_console_script_usage_errors_exit_2_and_help_everywhere():
    script = Path(sys.executable).with_name("nbayes")
    result = subprocess.run([script, "fit", "data.csv"], capture_output=True, text=True)
    assert result.returncode == 2 and "required" in result.stderr
    for command in ("fit", "predict", "evaluate", "explain", "inspect", "cv", "demo"):
        result = subprocess.run([script, command, "--help"], capture_output=True, text=True)
        assert result.returncode == 0 and "usage: nbayes" in result.stdout


def test_demo_prints_the_buys_computer_figures(capsys):
    code, out, _ = run(["demo"], capsys)
    assert code == 0
    for figure in (
        "0.222",
        "0.444",
        "0.667",
        "0.600",
        "0.400",
        "0.200",
        "0.044",
        "0.019",
        "0.028",
        "0.007",
    ):
        assert figure in out
    assert "decision: yes" in out
    # mushroom: the textbook model's accuracy is 0.95; calibrated, above it
    accuracy = float(re.search(r"accuracy +(0\.\d+)", out).group(1))
    assert 0.95 < accuracy < 1.0
    assert "then calibration (a = " in out
    # the demo runs the default model, NaiveBayes() with no arguments, whose 10-fold accuracy on
    # mushroom the README states
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert f"mushroom {accuracy:.4f}" in readme
    assert "NaiveBayes() with no arguments" in out


def test_predict_reads_with_the_models_missing_markers(tmp_path: Path, capsys):
    path = tmp_path / "data.csv"
    path.write_text("height,y\n1.5,a\n?,b\n2.5,a\n3.5,b\n4.5,b\n")
    model_path = tmp_path / "m.nbm"
    assert run(["fit", path, "--target", "y", "-o", model_path, "--missing", "?"], capsys)[0] == 0
    assert nbayes.load(model_path).schema_[0].family == "auto"  # "?" did not make it text
    code, out, _ = run(["predict", model_path, path, "--proba"], capsys)  # no --missing here
    assert code == 0
    proba = pl.read_csv(out.encode()).select("P(a)", "P(b)").to_numpy()
    np.testing.assert_allclose(
        proba[1], np.exp(nbayes.load(model_path).class_log_prior_)
    )  # missing: the prior


def test_help_imports_no_command_module():
    """The parser alone answers --help; a command's module is imported only when it runs."""
    code = (
        "import sys\n"
        "from nbayes.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "names = ('fit', 'predict', 'evaluate', 'explain', 'inspect', 'cv', 'report', 'demo')\n"
        "print(sorted(n for n in names if 'nbayes.cli.' + n in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.strip().endswith("[]")
    result = subprocess.run(
        [sys.executable, "-m", "nbayes.cli", "inspect", "--help"], capture_output=True, text=True
    )
    assert result.returncode == 0 and "usage: nbayes inspect" in result.stdout


def test_inspect_prints_counts_as_integers_and_numbers_in_order(tmp_path: Path, capsys):
    rng = np.random.default_rng(2)
    frame = pl.DataFrame(
        {
            "rating": rng.integers(1, 13, 300),  # 12 values: categorical
            "weight": rng.normal(70, 9, 300),
            "y": rng.choice(["a", "b"], 300).tolist(),
        }
    )
    path = tmp_path / "d.csv"
    frame.write_csv(path)
    model_path = tmp_path / "m.nbm"
    # one family for numbers: rating's 12 integers are categorical by the rule
    run(["fit", path, "--target", "y", "-o", model_path, "--family", "weight=kde",
         "--continuous", "gaussian"], capsys)  # fmt: skip
    code, out, _ = run(["inspect", model_path], capsys)
    assert code == 0
    assert out.startswith("NaiveBayes: 300 training rows, ") and "(weighted)" not in out
    block = out.split("rating  (categorical")[1].split("\n\n")[0].splitlines()[2:]
    assert [line.split()[0] for line in block] == [str(v) for v in range(1, 13)]
    kernels = out.split("weight  (kernel density")[1].splitlines()[2].split()
    counts = frame.group_by("y").len().sort("y").get_column("len").to_list()
    assert kernels == ["kernels", *(f"{c:,}" for c in counts)]
    weighted = nbayes.NaiveBayes().fit(frame, target="y", sample_weight=np.full(300, 0.5))
    assert weighted.summary().startswith("NaiveBayes: weight 150.000 (weighted), ")


def late_kinds(seed: int = 4) -> pl.DataFrame:
    """A table whose first rows mislead: 30,000 rows of one repeated note and a distinct ticket
    each (a category and an identifier), then 40,000 rows of distinct notes of several words
    and 50 repeated tickets. Over all the rows the note is free text and the ticket a
    category."""
    rng = np.random.default_rng(seed)
    first, rest = 30_000, 40_000
    y = rng.choice(["a", "b"], first + rest)
    words = np.array(["red", "green", "blue", "small", "large", "fast", "slow", "old", "new"])
    notes = ["all good here"] * first + [
        " ".join(rng.choice(words, 4)) + f" n{i}" for i in range(rest)
    ]
    tickets = [f"T-{i:06d}" for i in range(first)] + [f"R-{i % 50:02d}" for i in range(rest)]
    x = rng.normal((y == "b") * 1.0, 1.0)
    # an integer column of 10 codes in the first rows, of many values after them
    code = np.concatenate([np.arange(first) % 10, rng.integers(0, 10**6, rest)])
    return pl.DataFrame({"note": notes, "ticket": tickets, "code": code, "x": x, "y": y})


def test_streaming_settles_string_kinds_on_all_the_rows(tmp_path: Path, capsys, monkeypatch):
    """The first batch's rows call the note a category and the ticket an identifier; over all
    the rows the note is free text and the ticket a category, as one fit of the whole table
    finds. ``nbayes fit`` reads the file again with those families and saves the model of one
    fit; from standard input, which cannot be read again, it keeps the first batch's families
    and warns, naming both columns."""
    from nbayes.readers import TableReader

    path = tmp_path / "late.csv"
    late_kinds().write_csv(path)
    frame = pl.read_csv(path)
    first = next(iter(TableReader(path, chunk_bytes=2**20, quick=True))).frame
    with pytest.warns(UserWarning):
        misled = nbayes.NaiveBayes(calibration=None).fit(first, target="y")
        whole = nbayes.NaiveBayes().fit(frame, target="y")
    assert misled.families_["note"] == "categorical" and misled.families_["ticket"] == "ignore"
    assert whole.families_["note"] == "text" and whole.families_["ticket"] == "categorical"
    model_path = tmp_path / "m.nbm"
    fit = ["fit", path, "--target", "y", "-o", model_path, "--chunk-mb", "1"]
    code, _, err = run(fit, capsys)
    assert code == 0 and "reading it again" in err and "'note' as 'text'" in err
    streamed = nbayes.load(model_path)
    assert streamed.families_ == whole.families_
    features = frame.drop("y")
    np.testing.assert_allclose(
        streamed.predict_proba(features), whole.predict_proba(features), atol=1e-9
    )

    as_stdin(frame, monkeypatch)
    code, _, err = run(["fit", "-", "--target", "y", "-o", model_path, "--chunk-mb", "1"], capsys)
    assert code == 0
    message = next(line for line in err.splitlines() if "cannot be read again" in line)
    assert "'note' as 'text'" in message and "'ticket' as 'categorical'" in message
    assert nbayes.load(model_path).families_["ticket"] == "ignore"


def test_passes_of_a_semi_naive_model_stop_at_a_table_error_without_reading_again(
    tmp_path: Path, capsys
):
    """A fault the table's pass finds (here one class) is reported at once: reading the file
    again with other families could not mend it."""
    path = tmp_path / "one-class.csv"
    late_kinds().with_columns(pl.lit("a").alias("y")).write_csv(path)
    fit = ["fit", path, "--target", "y", "-o", tmp_path / "m.nbm", "--chunk-mb", "1"]
    code, _, err = run([*fit, "--model", "skdb"], capsys)
    assert code == 1 and "single class" in err and "reading it again" not in err


def test_passes_of_a_semi_naive_model_settle_the_families_on_all_the_rows(tmp_path: Path, capsys):
    """The same for a semi-naive structure read in passes: over all the rows the note is free
    text (a bag of words beside the structure), the ticket a category and the code a number
    cut into MDL intervals, as one fit of the whole table finds. The model itself counts an
    integer column or cuts it at the end of its table pass, from all the rows, so only the
    note needs the data read again."""
    path = tmp_path / "late.csv"
    late_kinds().write_csv(path)
    frame = pl.read_csv(path)
    model_path = tmp_path / "m.nbm"
    fit = ["fit", path, "--target", "y", "-o", model_path, "--chunk-mb", "1", "--model", "aode"]
    code, _, err = run([*fit, "--discriminative", "off"], capsys)
    assert code == 0 and "reading it again" in err and "'note' as 'text'" in err
    assert "'code'" not in err
    streamed = nbayes.load(model_path)
    params = {**streamed.get_params(deep=False), "families": None}
    with pytest.warns(UserWarning):
        whole = type(streamed)(**params).fit(frame, target="y")
    assert streamed.text_columns_ == whole.text_columns_ == ["note"]
    assert streamed.ignored_ == whole.ignored_ == []
    assert [(s.name, s.family) for s in streamed.schema_] == [
        (s.name, s.family) for s in whole.schema_
    ]
    features = frame.drop("y")
    np.testing.assert_allclose(
        streamed.predict_proba(features), whole.predict_proba(features), atol=1e-9
    )


@pytest.mark.parametrize("model", [[], ["--model", "aode"], ["--model", "aode", "-"]])
@pytest.mark.parametrize("unlabelled, warning", [
    ([120_000, 140_000], "2 row(s) with a missing target were dropped (first at row 120000)"),
    (range(50_000), "50000 row(s) with a missing target were dropped (first at row 0)"),
])  # fmt: skip
def test_a_streamed_fit_names_a_dropped_row_by_its_row_in_the_file(
    tmp_path: Path, capsys, monkeypatch, model, unlabelled, warning
):
    """A file read in batches of 1 MiB (about 40,000 rows here) whose rows without a label lie
    in later batches, or fill the whole first batch: one warning, counting the rows over the
    whole file and naming the first by its row in the file (from 0, as Python's fit does),
    and the model of the labelled rows. Before, each batch warned apart, counting from its own
    first row, and one warning's figures were shown ("1 row(s) … (first at row 26795)")."""
    rng = np.random.default_rng(0)
    n = 150_000
    x, size = rng.integers(0, 4, n), rng.normal(size=n)
    label = np.where(rng.random(n) < 0.5, "p", "q").astype(object)
    label[list(unlabelled)] = ""
    lines = [f"{a},{b:.15f},{c}" for a, b, c in zip(x, size, label, strict=True)]
    path = tmp_path / "late.csv"
    path.write_text("x,size,y\n" + "\n".join(lines) + "\n")
    assert path.stat().st_size > 3 * 2**20  # more than three batches
    if model[-1:] == ["-"]:  # standard input, read once: a one-pass structure's batches
        as_stdin(pl.read_csv(path), monkeypatch)
        model = [*model[:-1], "--discriminative", "off", "--missing-as", "skip", "--family",
                 "size=categorical"]  # fmt: skip
        path = "-"
    code, _, err = run(["fit", path, "--target", "y", "--chunk-mb", "1", *model,
                        "-o", tmp_path / "m.nbm"], capsys)  # fmt: skip
    assert code == 0, err
    assert [line for line in err.splitlines() if "missing target" in line] == [
        f"nbayes: warning: {warning}."
    ]
    if not model:  # the model of the labelled rows: Python's fit of the same file
        table = pl.read_csv(tmp_path / "late.csv")
        with pytest.warns(UserWarning, match="missing target"):
            expected = nbayes.NaiveBayes().fit(table, target="y")
        features = table.drop("y")[:2_000]
        np.testing.assert_allclose(nbayes.load(tmp_path / "m.nbm").predict_proba(features),
                                   expected.predict_proba(features), atol=1e-9)  # fmt: skip


def test_with_bad_rows_skipped_a_dropped_row_is_named_by_its_batch_line(tmp_path: Path, capsys):
    """With --skip-bad-rows the rows kept no longer count the file's rows (the row without a
    label is the file's data row 3, the third row kept): the warning names the line its batch
    starts at, which stays true."""
    path = tmp_path / "tiny.csv"
    path.write_text("a,b,y\n1,x,p\n2,x\n3,y,q\n4,y,\n5,x,p\n6,y,q\n")
    code, _, err = run(["fit", path, "--target", "y", "--skip-bad-rows", "-o",
                        tmp_path / "m.nbm"], capsys)  # fmt: skip
    assert code == 0, err
    assert "1 row(s) with a missing target were dropped (the first in the rows from line 2)" in err
