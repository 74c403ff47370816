"""The README's command lines on the data sets of ../shared/data as they are published (marked
slow; skipped when the folder is absent): each line is read from the README and run as a new
user would, and its figures are checked against the Python API on the same folds."""

from __future__ import annotations

import json
import re
import shlex
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl
import pytest

import nbayes
from nbayes.cli import main
from nbayes.evaluation import stratified_folds

README = Path(__file__).resolve().parents[1] / "README.md"

pytestmark = pytest.mark.slow


def readme_commands() -> dict[str, list[str]]:
    """The ``nbayes`` lines of the README's block of published files, by data set folder."""
    text = README.read_text()
    block = text[text.index("Files as they are published") :]
    block = block[block.index("```sh") + 5 : block.index("```", block.index("```sh") + 5)]
    commands: dict[str, list[str]] = {}
    for line in block.splitlines():
        words = shlex.split(line, comments=True)
        if not words:
            continue
        assert words[0] == "nbayes", line
        data = next(w for w in words[2:] if "/" in w)
        commands.setdefault(data.split("/")[0], []).append(words[1:])
    return commands


@pytest.fixture
def workdir(shared_data: Path, tmp_path: Path, monkeypatch) -> Path:
    """A folder where the data sets appear under their names (links) and outputs can go."""
    for entry in shared_data.iterdir():
        if entry.is_dir():
            (tmp_path / entry.name).symlink_to(entry)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(words: list[str], capsys) -> tuple[str, str]:
    code = main(words)
    out, err = capsys.readouterr()
    assert code == 0, err
    return out, err


def readme_figure(pattern: str) -> str:
    """A figure the README states after running its lines (``pattern`` ends with a group)."""
    text = README.read_text()
    measured = " ".join(text[text.index("Measured with these lines") :].split("\n\n")[0].split())
    return re.search(pattern, measured).group(1)


def mean_accuracy(out: str) -> float:
    return float(re.search(r"mean accuracy over folds (\d\.\d+)", out).group(1))


def cv_accuracy(frame: pd.DataFrame, target, **params) -> float:
    """Mean 10-fold accuracy of NaiveBayes on ``frame`` (read by pandas), the CLI's folds and
    its model (calibrated, as the CLI's files are small enough to read whole)."""
    labels = frame[target].to_numpy().astype(str)
    scores = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for test in stratified_folds(labels, 10, seed=0):
            train = np.setdiff1d(np.arange(len(frame)), test)
            model = nbayes.NaiveBayes(**params).fit(frame.iloc[train], target=target)
            predicted = model.predict(frame.iloc[test].drop(columns=target)).astype(str)
            scores.append(np.mean(predicted == labels[test]))
    return float(np.mean(scores))


def uci(path: Path, **options) -> pd.DataFrame:
    """A headerless UCI file read by pandas, columns named by position as strings."""
    frame = pd.read_csv(path, header=None, skipinitialspace=True, na_values="?", **options)
    frame.columns = [str(k + 1) for k in range(frame.shape[1])]
    return frame


def test_adult(workdir: Path, capsys):
    cv, fit, predict = readme_commands()["adult"]
    out, err = run(cv, capsys)
    expected = cv_accuracy(uci(workdir / "adult/adult.data"), "15")
    assert mean_accuracy(out) == pytest.approx(expected, abs=5e-5)
    assert mean_accuracy(out) > 0.82
    assert readme_figure(r"adult (\d\.\d{4})") == f"{mean_accuracy(out):.4f}"
    run(fit, capsys)
    _, err = run(predict, capsys)
    assert "nbayes: error" not in err
    got = pl.read_csv(workdir / "adult.csv")
    assert got.columns == ["15", "prediction", "P(<=50K)", "P(>50K)"]
    test = uci(workdir / "adult/adult.test", skiprows=1)
    assert got.height == len(test) == 16281
    truth = test["15"].str.rstrip(".").to_numpy()  # the test file's labels end with a dot
    np.testing.assert_array_equal(got.get_column("15").str.strip_chars(".").to_numpy(), truth)
    train = uci(workdir / "adult/adult.data")
    model = nbayes.NaiveBayes(missing_values="?").fit(train, target="15")
    assert not model.calibration_.is_identity  # the CLI's model is calibrated as fit's is
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = model.predict(test.drop(columns="15"))
    np.testing.assert_array_equal(got.get_column("prediction").to_numpy(), expected)
    assert np.mean(expected == truth) > 0.82


def test_mushroom(workdir: Path, capsys):
    (cv,) = readme_commands()["mushroom"]
    out, _ = run(cv, capsys)
    expected = cv_accuracy(uci(workdir / "mushroom/agaricus-lepiota.data"), "1")
    assert mean_accuracy(out) == pytest.approx(expected, abs=5e-5)
    assert mean_accuracy(out) > 0.95
    assert readme_figure(r"mushroom (\d\.\d{4})") == f"{mean_accuracy(out):.4f}"


def test_spambase_and_a_paired_comparison(workdir: Path, capsys):
    (cv,) = readme_commands()["spambase"]
    out, _ = run(cv, capsys)
    frame = uci(workdir / "spambase/spambase.data")
    chosen = cv_accuracy(frame, "58")
    gaussian = cv_accuracy(frame, "58", continuous="gaussian")
    assert mean_accuracy(out) == pytest.approx(chosen, abs=5e-5)
    match = re.search(r"continuous=gaussian: (\d\.\d+) vs (\d\.\d+), .*: (\w+)", out)
    assert float(match.group(1)) == pytest.approx(gaussian, abs=5e-5)
    assert float(match.group(2)) == pytest.approx(chosen, abs=5e-5)
    assert match.group(3) == "worse" and chosen > gaussian + 0.05
    assert readme_figure(r"spambase (\d\.\d{4})") == f"{mean_accuracy(out):.4f}"
    assert readme_figure(r"against (\d\.\d{4}) with a Gaussian") == match.group(1)


def test_sms_spam_collection(workdir: Path, capsys):
    (cv,) = readme_commands()["sms-spam-collection"]
    out, _ = run(cv, capsys)
    texts, labels = nbayes.read_labeled_lines(workdir / "sms-spam-collection/SMSSpamCollection")
    scores = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for test in stratified_folds(labels, 10, seed=0):
            train = np.setdiff1d(np.arange(len(labels)), test)
            model = nbayes.TextClassifier().fit([texts[i] for i in train], labels[train])
            scores.append(np.mean(model.predict([texts[i] for i in test]) == labels[test]))
    assert mean_accuracy(out) == pytest.approx(np.mean(scores), abs=5e-5)
    assert mean_accuracy(out) > 0.985
    assert readme_figure(r"SMS (\d\.\d{4})") == f"{mean_accuracy(out):.4f}"


def test_20_newsgroups(workdir: Path, capsys):
    fit, evaluate = readme_commands()["20newsgroups-bydate"]
    _, err = run(fit, capsys)
    assert "11,314 documents, 20 classes" in err
    out, _ = run([*evaluate, "--json"], capsys)
    report = json.loads(out)
    assert report["accuracy"] >= 0.85
    assert readme_figure(r"20 Newsgroups (\d\.\d{4})") == f"{report['accuracy']:.4f}"
    test, labels = nbayes.read_text_folder(workdir / "20newsgroups-bydate/20news-bydate-test")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert report["accuracy"] == pytest.approx(nbayes.load("news.nbm").score(test, labels))
