"""Text on the command line: a folder with one subfolder per class, label<TAB>text lines, and a
table whose only feature is free text all give the TextClassifier of the Python API."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import nbayes
from nbayes.cli import main

SPAM = ["win a free prize now", "claim your free cash", "free entry call now to win"]
HAM = ["see you at lunch today", "are we still on for dinner", "call me when you are home"]


def documents(n: int = 60) -> tuple[list[str], list[str]]:
    rng = np.random.default_rng(0)
    labels = rng.choice(["ham", "spam"], n).tolist()
    texts = [
        f"{rng.choice(SPAM if y == 'spam' else HAM)} {rng.choice(['ok', 'u', 'txt'])} {i}"
        for i, y in enumerate(labels)
    ]
    return texts, labels


def run(args: list, capsys) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "train"
    texts, labels = documents()
    for i, (text, label) in enumerate(zip(texts, labels, strict=True)):
        (root / label).mkdir(parents=True, exist_ok=True)
        (root / label / f"{i:04d}").write_bytes(text.encode() + (b" caf\xe9" if i == 3 else b""))
    return root


@pytest.mark.filterwarnings("ignore::UnicodeWarning")
def test_fit_on_a_folder_is_the_python_text_classifier(folder: Path, tmp_path: Path, capsys):
    model_path = tmp_path / "m.nbm"
    code, _, err = run(["fit", folder, "-o", model_path, "--chunk-mb", "1"], capsys)
    assert code == 0 and "60 documents, 2 classes" in err
    assert "1 documents hold bytes that are not UTF-8" in err
    model = nbayes.load(model_path)
    assert isinstance(model, nbayes.TextClassifier)
    texts, labels = nbayes.read_text_folder(folder)
    expected = nbayes.TextClassifier().fit(texts, labels)
    probe = ["free prize", "lunch at home", "call now"]
    np.testing.assert_allclose(model.predict_proba(probe), expected.predict_proba(probe))

    code, out, _ = run(["evaluate", model_path, folder, "--json"], capsys)
    report = json.loads(out)
    assert report["accuracy"] == pytest.approx(expected.score(texts, labels))

    flat = tmp_path / "new"
    flat.mkdir()
    (flat / "a.txt").write_text("free cash prize")
    (flat / "b.txt").write_text("dinner today?")
    code, out, _ = run(["predict", model_path, flat, "--keep", "file"], capsys)
    got = pl.read_csv(out.encode())
    assert got.rows() == [("a.txt", "spam"), ("b.txt", "ham")]


def test_label_tab_text_lines_and_a_free_text_table_agree(tmp_path: Path, capsys):
    texts, labels = documents()
    lines = tmp_path / "SMSSpamCollection"
    lines.write_text("".join(f"{y}\t{t}\n" for t, y in zip(texts, labels, strict=True)))
    table = tmp_path / "sms.csv"
    pl.DataFrame({"label": labels, "message": texts}).write_csv(table)
    expected = nbayes.TextClassifier(alpha=0.5, ngram_range=(1, 1)).fit(texts, labels)
    probe = ["free prize", "lunch at home"]
    options = ["--alpha", "0.5", "--ngrams", "1,1"]
    code, _, err = run(["fit", lines, "--format", "lines", "-o", tmp_path / "a.nbm", *options],
                       capsys)  # fmt: skip
    assert code == 0
    code, _, err = run(["fit", table, "--target", "label", "-o", tmp_path / "b.nbm", *options],
                       capsys)  # fmt: skip
    assert code == 0 and "'message' holds free text" in err
    for name in ("a.nbm", "b.nbm"):
        model = nbayes.load(tmp_path / name)
        assert model.get_params()["alpha"] == 0.5
        np.testing.assert_allclose(model.predict_proba(probe), expected.predict_proba(probe))
    code, out, _ = run(["predict", tmp_path / "b.nbm", table, "--text", "message"], capsys)
    assert code == 0
    predicted = pl.read_csv(out.encode()).get_column("prediction").to_numpy()
    np.testing.assert_array_equal(predicted, expected.predict(texts))
    code, _, err = run(["predict", tmp_path / "b.nbm", table], capsys)
    assert code == 1 and "pass --text COL" in err


def test_label_tab_text_lines_are_read_from_standard_input(tmp_path: Path, capsys, monkeypatch):
    """``-`` with --format lines reads the lines from standard input, as a table's ``-`` does:
    the model file is the one the file's path gives, byte for byte."""
    import io
    import sys

    texts, labels = documents()
    body = "".join(f"{y}\t{t}\n" for t, y in zip(texts, labels, strict=True)).encode()
    lines = tmp_path / "SMSSpamCollection"
    lines.write_bytes(body)

    class Stdin:
        buffer = io.BytesIO(body)

    monkeypatch.setattr(sys, "stdin", Stdin)
    code, _, err = run(["fit", "-", "--format", "lines", "-o", tmp_path / "in.nbm"], capsys)
    assert code == 0, err
    code, _, err = run(["fit", lines, "--format", "lines", "-o", tmp_path / "file.nbm"], capsys)
    assert code == 0, err
    assert (tmp_path / "in.nbm").read_bytes() == (tmp_path / "file.nbm").read_bytes()


def test_text_options_reach_the_model(tmp_path: Path, capsys):
    texts, labels = documents()
    lines = tmp_path / "docs.txt"
    lines.write_text("".join(f"{y}\t{t}\n" for t, y in zip(texts, labels, strict=True)))
    code, _, _ = run(
        ["fit", lines, "--format", "lines", "-o", tmp_path / "m.nbm", "--text-model",
         "multinomial", "--stop-words", "english", "--min-df", "2", "--vocabulary",
         "--prior", "uniform"],
        capsys,
    )  # fmt: skip
    assert code == 0
    params = nbayes.load(tmp_path / "m.nbm").get_params()
    assert (params["model"], params["stop_words"], params["min_df"], params["mode"]) == (
        "multinomial",
        "english",
        2,
        "vocabulary",
    )
    assert params["alpha"] == 0.1 and params["class_prior"] == "uniform"


def test_lines_without_a_separator(tmp_path: Path, capsys):
    lines = tmp_path / "docs.txt"
    lines.write_text("spam\tfree prize\nno separator here\nham\tlunch\nspam\twin now\nham\tok\n")
    code, _, err = run(["fit", lines, "--format", "lines", "-o", tmp_path / "m.nbm"], capsys)
    assert code == 1 and "docs.txt: line 2: no '\\t' separating a label" in err
    code, _, err = run(["fit", lines, "--format", "lines", "-o", tmp_path / "m.nbm",
                        "--skip-bad-rows"], capsys)  # fmt: skip
    assert code == 0 and "4 documents" in err and "1 bad row skipped" in err


def test_cross_validation_of_documents(folder: Path, capsys):
    code, out, _ = run(["cv", folder, "--folds", "3", "--json"], capsys)
    assert code == 0
    result = json.loads(out)
    texts, labels = nbayes.read_text_folder(folder, decode=True)
    from nbayes.evaluation import stratified_folds

    scores = []
    for test in stratified_folds(labels, 3, seed=0):
        train = np.setdiff1d(np.arange(len(labels)), test)
        model = nbayes.TextClassifier().fit([texts[i] for i in train], labels[train])
        scores.append(np.mean(model.predict([texts[i] for i in test]) == labels[test]))
    folds = result["settings"][0]["per_fold"]
    assert [f["accuracy"] for f in folds] == pytest.approx(scores)
