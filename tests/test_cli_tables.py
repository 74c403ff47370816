"""The command line on tables as they are published: headerless, ", " separated, "?" for
missing, targets by position, broken quoting; predictions that keep the rows' identity."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from conftest import assert_same_statistics

import nbayes
from nbayes.cli import main


def run(args: list, capsys) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def adult_like(n: int = 600, seed: int = 0) -> tuple[bytes, pl.DataFrame]:
    """UCI adult's layout: no header, ", " between fields, " ?" for missing; and the same
    table built independently (what the file means)."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["<=50K", ">50K"], n, p=[0.7, 0.3])
    age = rng.integers(17, 90, n) + 8 * (y == ">50K")
    work = np.where(rng.random(n) < 0.1, None, rng.choice(["Private", "State-gov", "Self-emp"], n))
    hours = np.round(rng.normal(40, 10, n) + 5 * (y == ">50K"), 1)
    frame = pl.DataFrame({"age": age, "workclass": work.tolist(), "hours": hours, "income": y})
    lines = [", ".join("?" if v is None else str(v) for v in row) for row in frame.iter_rows()]
    return ("\n".join(lines) + "\n").encode(), frame


def test_headerless_comma_space_file_fits_the_model_of_its_table(tmp_path: Path, capsys):
    content, table = adult_like()
    data = tmp_path / "adult.data"
    data.write_bytes(content)
    by_position = tmp_path / "a.nbm"
    code, _, err = run(
        ["fit", data, "--no-header", "--target", "4", "--missing", "?", "-o", by_position], capsys
    )
    assert code == 0 and "600 rows, 2 classes, 3 columns" in err and "warning" not in err
    renamed = table.rename({"age": "1", "workclass": "2", "hours": "3", "income": "4"})
    expected = nbayes.NaiveBayes(missing_values="?").fit(renamed, target="4")
    assert_same_statistics(nbayes.load(by_position), expected)
    by_name = tmp_path / "b.nbm"
    names = "age,workclass,hours,income"
    assert run(
        ["fit", data, "--no-header", "--names", names, "--target", "income", "--missing", "?",
         "-o", by_name],
        capsys,
    )[0] == 0  # fmt: skip
    assert_same_statistics(
        nbayes.load(by_name), nbayes.NaiveBayes(missing_values="?").fit(table, target="income")
    )


def test_no_strip_explains_what_went_wrong(tmp_path: Path, capsys):
    content, _ = adult_like()
    data = tmp_path / "adult.data"
    data.write_bytes(content)
    code, _, err = run(
        ["fit", data, "--no-header", "--target", "4", "--missing", "?", "--no-strip",
         "-o", tmp_path / "m.nbm", "--separator", ","],
        capsys,
    )  # fmt: skip
    assert code == 0
    assert "column '2' holds ' ?'" in err and "not the missing-value marker '?'" in err
    assert "column '3' has" in err and "numbers read as text" in err


def test_header_line_that_is_data_is_warned_about(tmp_path: Path, capsys):
    content, _ = adult_like()
    data = tmp_path / "adult.data"
    data.write_bytes(content)
    code, _, err = run(["fit", data, "--target", "4", "-o", tmp_path / "m.nbm"], capsys)
    # the first row's "<=50K"/">50K" is not a column name: the target is column 4 by position
    assert code == 0 and "names that are numbers" in err and "--no-header" in err


def test_target_errors_name_the_columns(tmp_path: Path, capsys):
    data = tmp_path / "t.csv"
    data.write_text("a,b,y\n1,2,x\n3,4,z\n")
    code, _, err = run(["fit", data, "--target", "7", "-o", tmp_path / "m.nbm"], capsys)
    assert code == 1 and "no target column '7' (by name, or by position 1 to 3); the" in err
    assert "did you mean" not in err  # a position out of range is not a misspelt name
    data.write_text("age,buys,label\n1,2,x\n3,4,z\n")
    code, _, err = run(["fit", data, "--target", "buy", "-o", tmp_path / "m.nbm"], capsys)
    assert code == 1 and "no target column 'buy'" in err and "did you mean 'buys'? The" in err
    code, _, err = run(["fit", data, "-o", tmp_path / "m.nbm"], capsys)
    assert code == 2 and "--target is required for a table" in err


def test_broken_quoting_is_located_and_skippable(tmp_path: Path, capsys):
    data = tmp_path / "SMSSpamCollection"
    lines = [f"{'spam' if i % 4 == 0 else 'ham'}\tmessage number {i} free" for i in range(40)]
    lines[6] = 'ham\t"Wen u miss someone" gdeve..'
    data.write_text("\n".join(lines) + "\n")
    model = tmp_path / "m.nbm"
    code, _, err = run(["fit", data, "--no-header", "--target", "1", "-o", model], capsys)
    assert code == 1
    assert "SMSSpamCollection: line 7: a quoted field does not close" in err
    assert "--no-quote" in err and "Polars" not in err and "infer_schema" not in err
    args = ["fit", data, "--no-header", "--target", "1", "-o", model]
    code, _, err = run([*args, "--skip-bad-rows"], capsys)
    assert code == 0 and "39 documents" in err and "1 bad row skipped" in err
    code, _, err = run([*args, "--no-quote"], capsys)
    assert code == 0 and "40 documents" in err


def test_predict_keeps_columns_in_row_order(tmp_path: Path, capsys):
    rng = np.random.default_rng(3)
    frame = pl.DataFrame(
        {
            "id": [f"r{i:04d}" for i in range(500)],
            "x": rng.normal(size=500),
            "y": rng.choice(["a", "b"], 500).tolist(),
        }
    )
    data = tmp_path / "d.csv"
    frame.write_csv(data)
    model = tmp_path / "m.nbm"
    # id is an identifier: left out, told to the user once (the model's warning, with the
    # command line's way to keep it), not twice in two wordings
    code, _, err = run(["fit", data, "--target", "y", "-o", model], capsys)
    assert code == 0 and "column 'id' has a distinct value in 100% of its 500 rows" in err
    assert "--family id=categorical on the command line" in err
    assert "nearly one category per row" not in err
    args = ["predict", model, data, "--chunk-mb", "1", "--proba"]
    code, out, _ = run([*args, "--keep", "id"], capsys)
    got = pl.read_csv(out.encode())
    assert got.columns == ["id", "prediction", "P(a)", "P(b)"]
    assert got.get_column("id").to_list() == frame.get_column("id").to_list()
    fitted = nbayes.load(model)
    np.testing.assert_array_equal(got.get_column("prediction").to_numpy(), fitted.predict(frame))
    code, out, _ = run([*args, "--keep-all"], capsys)
    every = pl.read_csv(out.encode())
    assert every.columns == ["id", "x", "y", "prediction", "P(a)", "P(b)"]
    np.testing.assert_allclose(every.get_column("x").to_numpy(), frame.get_column("x").to_numpy())
    code, _, err = run([*args, "--keep", "nope"], capsys)
    assert code == 1 and "there is no column 'nope'" in err


def test_version_and_a_closed_pipe(tmp_path: Path):
    for module in ("nbayes.cli", "nbayes"):  # python -m nbayes is the command too
        result = subprocess.run(
            [sys.executable, "-m", module, "--version"], capture_output=True, text=True
        )
        assert result.returncode == 0
        assert result.stdout.strip() == f"nbayes {nbayes.__version__}"
    rng = np.random.default_rng(0)
    frame = pl.DataFrame({"x": rng.normal(size=200_000), "y": rng.choice(["a", "b"], 200_000)})
    data = tmp_path / "d.csv"
    frame.write_csv(data)
    model = tmp_path / "m.nbm"
    assert main(["fit", str(data), "--target", "y", "-o", str(model)]) == 0
    process = subprocess.Popen(
        [sys.executable, "-m", "nbayes.cli", "predict", str(model), str(data), "--proba"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout.readline().startswith(b"prediction")
    process.stdout.close()  # as `| head -1` does
    _, err = process.communicate()
    assert process.returncode == 0 and err == b""


def test_a_warning_of_every_fold_is_printed_once_with_a_count(tmp_path: Path, capsys):
    rng = np.random.default_rng(0)
    n = 400
    colour = rng.choice(["red", "blue"], n).astype(object)
    colour[::40] = [f"rare{i}" for i in range(10)]  # each rare value in one fold only
    frame = pl.DataFrame({"colour": colour.tolist(), "y": rng.choice(["a", "b"], n).tolist()})
    data = tmp_path / "d.csv"
    frame.write_csv(data)
    code, _, err = run(["cv", data, "--target", "y", "--folds", "5"], capsys)
    assert code == 0
    warned = [line for line in err.splitlines() if "not seen in fitting" in line]
    assert len(warned) == 1 and "(5 times" in warned[0]


def test_metric_choices_are_the_evaluation_figures():
    from nbayes.cli._parser import METRICS
    from nbayes.evaluation import SCALARS

    assert METRICS == tuple(SCALARS)


def test_reading_flags_are_on_every_reading_command(capsys):
    for command in ("fit", "predict", "evaluate", "explain", "cv"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = capsys.readouterr().out
        for flag in ("--no-header", "--names", "--no-strip", "--no-quote", "--skip-bad-rows"):
            assert flag in out, (command, flag)
