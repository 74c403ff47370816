"""``nbayes cv``: figures per fold against an independent loop, --json, --repeats, --oof, and
--compare with the corrected resampled t-test."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from scipy.stats import t as student
from sklearn import metrics

import nbayes
from nbayes.cli import main
from nbayes.evaluation import stratified_folds


def run(args: list, capsys) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def data(tmp_path: Path) -> Path:
    rng = np.random.default_rng(5)
    n = 600
    y = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
    shift = np.searchsorted(["a", "b", "c"], y)
    frame = pl.DataFrame(
        {
            "height": rng.exponential(1 + shift, n),  # skewed: intervals beat a Gaussian
            "colour": np.where(rng.random(n) < 0.5, np.array(["r", "g", "b"])[shift], "b"),
            "y": y,
        }
    )
    path = tmp_path / "data.csv"
    frame.write_csv(path)
    return path


def independent(path: Path, folds: int, seeds: list[int], **params) -> list[dict]:
    """Per fold: the NaiveBayes of ``params`` fitted on the other folds, scored by sklearn."""
    frame = pl.read_csv(path)
    labels = frame.get_column("y").to_numpy()
    out = []
    for seed in seeds:
        for test in stratified_folds(labels, folds, seed=seed):
            train = np.setdiff1d(np.arange(frame.height), test)
            model = nbayes.NaiveBayes(**params).fit(frame[train], target="y")
            features = frame[test].drop("y")
            predicted, proba = model.predict(features), model.predict_proba(features)
            out.append(
                {
                    "test": test,
                    "predicted": predicted,
                    "proba": proba,
                    "accuracy": metrics.accuracy_score(labels[test], predicted),
                    "kappa": metrics.cohen_kappa_score(labels[test], predicted),
                    "log_loss": metrics.log_loss(labels[test], proba, labels=model.classes_),
                }
            )
    return out


def test_json_per_fold_and_repeats_equal_an_independent_loop(data: Path, capsys):
    code, out, _ = run(["cv", data, "--target", "y", "--folds", "4", "--repeats", "2",
                        "--seed", "7", "--json"], capsys)  # fmt: skip
    assert code == 0
    result = json.loads(out)
    folds = result["settings"][0]["per_fold"]
    expected = independent(data, 4, [7, 8])
    assert len(folds) == 8
    assert [(f["repeat"], f["fold"], f["seed"]) for f in folds] == [
        (r + 1, k + 1, 7 + r) for r in range(2) for k in range(4)
    ]
    for got, want in zip(folds, expected, strict=True):
        assert got["rows"] == len(want["test"])
        for name in ("accuracy", "kappa", "log_loss"):
            assert got[name] == pytest.approx(want[name]), name
    mean = result["settings"][0]["mean"]["accuracy"]
    assert mean == pytest.approx(np.mean([f["accuracy"] for f in expected]))


def test_text_output_prints_every_fold_on_stdout(data: Path, capsys):
    code, out, err = run(["cv", data, "--target", "y", "--folds", "5"], capsys)
    assert code == 0 and "fold" not in err
    rows = [line.split() for line in out.splitlines() if line[:6].strip() == "1"]
    expected = independent(data, 5, [0])
    assert [float(r[3]) for r in rows] == [round(f["accuracy"], 4) for f in expected]
    assert "Cohen's kappa" in out and "ROC AUC" in out and "confusion matrix" in out


def test_out_of_fold_predictions(data: Path, tmp_path: Path, capsys):
    oof = tmp_path / "oof.csv"
    code, _, _ = run(["cv", data, "--target", "y", "--folds", "3", "--repeats", "2",
                      "--oof", oof], capsys)  # fmt: skip
    assert code == 0
    got = pl.read_csv(oof)
    assert got.columns == ["row", "repeat", "fold", "truth", "prediction", "P(a)", "P(b)", "P(c)"]
    assert got.height == 2 * 600
    for repeat in (1, 2):  # each repeat predicts every row once
        rows = got.filter(pl.col("repeat") == repeat).get_column("row").sort().to_list()
        assert rows == list(range(600))
    expected = independent(data, 3, [0, 1])
    for index, want in enumerate(expected):
        part = got.filter((pl.col("repeat") == index // 3 + 1) & (pl.col("fold") == index % 3 + 1))
        np.testing.assert_array_equal(part.get_column("row").to_numpy(), want["test"])
        np.testing.assert_array_equal(part.get_column("prediction").to_numpy(), want["predicted"])
        np.testing.assert_allclose(
            part.select("P(a)", "P(b)", "P(c)").to_numpy(), want["proba"], rtol=1e-12
        )


def test_compare_reports_the_corrected_resampled_t_test(data: Path, capsys):
    code, out, _ = run(["cv", data, "--target", "y", "--folds", "5", "--repeats", "2",
                        "--compare", "continuous=gaussian", "--compare", "--prior uniform",
                        "--json"], capsys)  # fmt: skip
    assert code == 0
    result = json.loads(out)
    # (the base chooses each column's family: continuous=mdl could choose alike on this table)
    names = ["base", "continuous=gaussian", "--prior uniform"]
    assert [s["name"] for s in result["settings"]] == names
    base = independent(data, 5, [0, 1])
    for name, params in (
        ("continuous=gaussian", {"continuous": "gaussian"}),
        ("--prior uniform", {"class_prior": "uniform"}),
    ):
        other = independent(data, 5, [0, 1], **params)
        d = np.array([o["accuracy"] - b["accuracy"] for o, b in zip(other, base, strict=True)])
        sizes = [len(b["test"]) for b in base]
        ratio = np.mean([s / (600 - s) for s in sizes])
        t = d.mean() / np.sqrt((1 / 10 + ratio) * d.var(ddof=1))
        (comparison,) = [c for c in result["comparisons"] if c["setting"] == name]
        assert comparison["mean_difference"] == pytest.approx(d.mean())
        assert comparison["t"] == pytest.approx(t)
        assert comparison["df"] == 9
        assert comparison["p"] == pytest.approx(2 * student.sf(abs(t), 9))
    code, out, _ = run(["cv", data, "--target", "y", "--folds", "5",
                        "--compare", "continuous=gaussian"], capsys)  # fmt: skip
    assert "corrected resampled t-test" in out and "continuous=gaussian:" in out
    code, _, err = run(["cv", data, "--target", "y", "--compare", "colour=7"], capsys)
    assert code == 2 and "--compare 'colour=7': --colour 7 is not a model option" in err


def test_compare_takes_the_models_missing_and_names_the_reading_option(data: Path, capsys):
    """missing=category is NaiveBayes's parameter (the command line's --missing-as); missing=?
    is the reading option --missing (not abbreviated into --missing-as), which --compare
    cannot change."""
    code, out, _ = run(["cv", data, "--target", "y", "--folds", "5",
                        "--compare", "missing=category", "--json"], capsys)  # fmt: skip
    assert code == 0
    (comparison,) = json.loads(out)["comparisons"]
    other = independent(data, 5, [0], missing="category")
    base = independent(data, 5, [0])
    expected = np.mean([o["accuracy"] - b["accuracy"] for o, b in zip(other, base, strict=True)])
    assert comparison["mean_difference"] == pytest.approx(expected)
    code, _, err = run(["cv", data, "--target", "y", "--compare", "missing=?"], capsys)
    assert code == 2 and "--missing is an option of nbayes cv itself, not of the model" in err


def test_loss_matrix_gives_costs(data: Path, tmp_path: Path, capsys):
    loss = tmp_path / "loss.csv"
    loss.write_text("decision,a,b,c\na,0,1,5\nb,1,0,1\nc,1,1,0\n")
    code, out, _ = run(["cv", data, "--target", "y", "--folds", "3", "--loss", loss,
                        "--oof", tmp_path / "oof.csv", "--json"], capsys)  # fmt: skip
    assert code == 0
    pooled = json.loads(out)["settings"][0]["pooled"]
    oof = pl.read_csv(tmp_path / "oof.csv")
    matrix = {("a", "a"): 0, ("a", "b"): 1, ("a", "c"): 5, ("b", "a"): 1, ("b", "b"): 0,
              ("b", "c"): 1, ("c", "a"): 1, ("c", "b"): 1, ("c", "c"): 0}  # fmt: skip
    cost = sum(matrix[d, t] for d, t in oof.select("prediction", "truth").iter_rows())
    assert pooled["total_cost"] == pytest.approx(cost)
    assert pooled["mean_cost"] == pytest.approx(cost / 600)
