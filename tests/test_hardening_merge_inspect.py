"""Merging refuses class labels of different types (NumPy would silently turn them all into
text), before anything is merged; ``nbayes inspect`` describes every model type."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

import nbayes
from nbayes.cli import main

RNG = np.random.default_rng(8)
X = RNG.integers(0, 3, (40, 3))
INTS = RNG.integers(0, 2, 40)
TEXT = np.array(["no", "yes"])[INTS]


@pytest.mark.parametrize("cls", nbayes.ESTIMATORS, ids=lambda c: c.__name__)
def test_merging_labels_of_different_types_is_an_error_that_changes_nothing(cls):
    numbers = cls().fit(X, INTS)
    words = cls().fit(X, TEXT)
    before = numbers.predict_proba(X)
    with pytest.raises(ValueError, match="class labels of different types"):
        numbers.merge(words)
    np.testing.assert_array_equal(numbers.classes_, [0, 1])
    np.testing.assert_array_equal(numbers.predict_proba(X), before)
    with pytest.raises(ValueError, match="different types"):
        nbayes.merge(words, numbers)
    floats = cls().fit(X, INTS.astype(float))  # integral floats are float labels
    with pytest.raises(ValueError, match=r"integer .* float|float .* integer"):
        numbers.merge(floats)


def test_table_and_text_models_refuse_mixed_label_types_too():
    frame = pl.DataFrame({"c": np.array(["a", "b"])[X[:, 0] % 2].tolist(), "y": INTS})
    numbers = nbayes.NaiveBayes().fit(frame, target="y")
    words = nbayes.NaiveBayes().fit(frame.with_columns(pl.Series("y", TEXT)), target="y")
    with pytest.raises(ValueError, match="different types"):
        numbers.merge(words)
    with pytest.raises(ValueError, match="different types"):  # a later batch, in partial_fit
        numbers.partial_fit(frame.with_columns(pl.Series("y", TEXT)), target="y")
    docs = ["free prize", "lunch at noon"] * 5
    first = nbayes.TextClassifier(n_features=2**8).fit(docs, [0, 1] * 5)
    second = nbayes.TextClassifier(n_features=2**8).fit(docs, ["spam", "ham"] * 5)
    documents = first.vectorizer_.n_documents_
    with pytest.raises(ValueError, match="different types"):
        first.merge(second)
    assert first.vectorizer_.n_documents_ == documents  # nothing was merged


def test_inspect_describes_every_model_type(tmp_path: Path, capsys):
    models = {cls.__name__: cls().fit(X, TEXT) for cls in nbayes.ESTIMATORS}
    models["NaiveBayes"] = nbayes.NaiveBayes().fit(
        pl.DataFrame({"c": ["a", "b"] * 20, "y": TEXT}), target="y"
    )
    for mode in ("hashing", "vocabulary"):
        docs = ["free prize now", "lunch at noon"] * 5
        models[f"TextClassifier-{mode}"] = nbayes.TextClassifier(mode=mode).fit(
            docs, ["spam", "ham"] * 5
        )
    for name, model in models.items():
        path = nbayes.save(model, tmp_path / f"{name}.nbm")
        assert main(["inspect", str(path)]) == 0, name
        out, err = capsys.readouterr()
        assert err == "" and ("yes" in out or "spam" in out), (name, out)
        if name.startswith("TextClassifier"):
            assert "documents: 10" in out and "most indicative of spam: " in out
            assert "prize" in out.split("most indicative of spam: ")[1].splitlines()[0]
