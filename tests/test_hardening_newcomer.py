"""Issue 36: bad input handled as a newcomer would understand it.

One label rule for every estimator, the semi-naive model refusing what NaiveBayes refuses (in
the same words), a dict as one row everywhere a table is read, and "did you mean" for a
misspelt column name."""

from __future__ import annotations

import re

import numpy as np
import pytest

from nbayes import NaiveBayes, SemiNaiveBayes, TextClassifier

DOCS = ["good great movie", "bad awful film", "great fun", "awful boring", "good fun"]
DROPPED = r"1 row\(s\) with a missing target were dropped \(first at row 2\)"


# ------------------------------------------------------------------ 1. one label rule
@pytest.mark.parametrize(
    "y",
    [
        ["p", "n", float("nan"), "n", "p"],
        ["p", "n", None, "n", "p"],
        np.array(["p", "n", None, "n", "p"], dtype=object),
        [1.0, 0.0, float("nan"), 0.0, 1.0],
    ],
    ids=["nan-among-text", "none-among-text", "object-array", "nan-among-numbers"],
)
def test_text_classifier_drops_missing_labels_as_table_models_do(y):
    with pytest.warns(UserWarning, match=DROPPED):
        text = TextClassifier(mode="vocabulary").fit(DOCS, y)
    with pytest.warns(UserWarning, match=DROPPED):
        table = NaiveBayes().fit({"doc": DOCS}, y)
    assert "nan" not in [str(c) for c in text.classes_]
    assert list(text.classes_) == list(table.classes_)
    assert text.class_count_.sum() == 4  # the unlabelled document is not counted
    assert text.vectorizer_.n_documents_ == 4


def test_text_classifier_drops_missing_labels_of_an_iterable_and_partial_fit():
    with pytest.warns(UserWarning, match=DROPPED):
        model = TextClassifier(mode="vocabulary").fit(iter(DOCS), ["p", "n", None, "n", "p"])
    assert model.vectorizer_.n_documents_ == 4
    with pytest.warns(UserWarning, match=DROPPED):
        model.partial_fit(DOCS, ["p", "n", None, "n", "p"], sample_weight=[1, 1, 9, 1, 1])
    assert model.class_count_.sum() == 8


def test_text_classifier_refuses_mixed_label_kinds_as_table_models_do():
    with pytest.raises(ValueError) as table:
        NaiveBayes().fit({"doc": DOCS}, [1, "h", 1, "h", 1])
    with pytest.raises(ValueError, match=re.escape(str(table.value))):
        TextClassifier(mode="vocabulary").fit(DOCS, [1, "h", 1, "h", 1])
    assert "mixes types" in str(table.value)


def test_text_classifier_all_labels_missing():
    with pytest.raises(ValueError, match="there are no labelled rows to learn from"):
        TextClassifier(mode="vocabulary").fit(DOCS, [None] * 5)


# ------------------------------------------------------------------ 2. SemiNaiveBayes as NaiveBayes
TABLE = {"colour": ["red", "blue", "red", "blue"], "size": [1.0, 2.0, 3.0, 4.0]}
SINGLE = r"the target has a single class .*'c'.*: 1 class, and a classifier needs at least two"


def test_semi_naive_refuses_a_single_class_as_naive_bayes_does():
    with pytest.raises(ValueError, match=SINGLE):
        NaiveBayes().fit(TABLE, ["c"] * 4)
    with pytest.raises(ValueError, match=SINGLE):
        SemiNaiveBayes().fit(TABLE, ["c"] * 4)
    with pytest.raises(ValueError, match=SINGLE):
        SemiNaiveBayes().fit_passes(lambda: [(TABLE, ["c"] * 4)])
    # a partial fit may start with one class, in both (classes grow batch by batch)
    colours = {"colour": TABLE["colour"]}
    assert list(NaiveBayes().partial_fit(colours, ["c"] * 4, classes=["c"]).classes_) == ["c"]
    assert list(SemiNaiveBayes().partial_fit(colours, ["c"] * 4).classes_) == ["c"]


@pytest.mark.parametrize("weights", [None, [1.0, 2.0, 1.0, 2.0]], ids=["no-weights", "weights"])
def test_semi_naive_names_the_column_with_an_infinite_value(weights):
    table = {"colour": TABLE["colour"], "size": [1.0, np.inf, 3.0, 4.0]}
    expected = r"column 'size' has the value inf at row 1; infinite values are refused"
    for model in (NaiveBayes(), SemiNaiveBayes()):
        with pytest.raises(ValueError, match=expected) as error:
            model.fit(table, ["p", "n", "p", "n"], sample_weight=weights)
        assert "sample" not in str(error.value)


def test_semi_naive_says_there_are_no_rows_for_an_empty_table():
    empty = {"colour": [], "y": []}
    for model in (NaiveBayes(), SemiNaiveBayes()):
        with pytest.raises(ValueError, match=r"^there are no rows to learn from\.$"):
            model.fit(empty, target="y")
        with pytest.raises(ValueError, match=r"^there are no rows to learn from\.$"):
            model.fit({"colour": []}, [])
