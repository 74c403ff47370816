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
    with pytest.raises(ValueError, match=SINGLE + r"\. A part of the rows .* partial_fit"):
        NaiveBayes().fit(TABLE, ["c"] * 4)
    with pytest.raises(ValueError, match=SINGLE + r"\.$"):  # (its default has no partial_fit)
        SemiNaiveBayes().fit(TABLE, ["c"] * 4)
    with pytest.raises(ValueError, match=SINGLE):
        SemiNaiveBayes().fit_passes(lambda: [(TABLE, ["c"] * 4)])
    # a partial fit may start with one class, in both (classes grow batch by batch)
    colours = {"colour": TABLE["colour"]}
    assert list(NaiveBayes().partial_fit(colours, ["c"] * 4, classes=["c"]).classes_) == ["c"]
    one_pass = SemiNaiveBayes("aode", discriminative=False, missing="skip")
    assert list(one_pass.partial_fit(colours, ["c"] * 4).classes_) == ["c"]


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


# ------------------------------------------------------------------ 3. a dict is one row
ROWS = {"size": [1.0, 2.0, 3.0, 4.0, 2.5, 1.5], "colour": ["u", "v", "u", "v", "v", "u"],
        "legs": [1, 2, 1, 2, 1, 2]}  # fmt: skip
LABELS = ["p", "n", "p", "n", "p", "n"]
METHODS = ["predict", "predict_proba", "predict_log_proba", "predict_joint_log_proba",
           "predict_risk"]  # fmt: skip


def _call(model, method, X):
    if method == "predict_risk":
        return model.predict_risk(X, loss=[[0, 1], [1, 0]])
    return getattr(model, method)(X)


@pytest.mark.parametrize("model", [NaiveBayes, SemiNaiveBayes])
@pytest.mark.parametrize(
    "row",
    [{"size": 1.0, "colour": "u", "legs": 1}, {"size": None, "colour": "v", "legs": 2},
     {"size": np.float64(2.0), "colour": None, "legs": np.int64(1)}],
    ids=["values", "missing-number", "numpy-scalars"],
)  # fmt: skip
def test_every_prediction_method_takes_a_dict_as_one_row(model, row):
    fitted = model().fit(ROWS, LABELS)
    table = {k: [v] for k, v in row.items()}
    for method in METHODS:
        one = _call(fitted, method, row)
        assert np.asarray(one).shape[0] == 1, method
        np.testing.assert_array_equal(one, _call(fitted, method, table), err_msg=method)
    by_dict, by_table = fitted.explain(row), fitted.explain(table)
    assert str(by_dict) == str(by_table)


@pytest.mark.parametrize("model", [NaiveBayes, SemiNaiveBayes])
def test_a_dict_of_columns_stays_a_table_and_ragged_columns_are_named(model):
    fitted = model().fit(ROWS, LABELS)
    assert fitted.predict_proba({k: v[:2] for k, v in ROWS.items()}).shape == (2, 2)
    with pytest.raises(ValueError, match="explain takes one row; got 2"):
        fitted.explain({k: v[:2] for k, v in ROWS.items()})
    ragged = {"size": [1.0, 2.0], "colour": ["u"], "legs": [1, 2]}
    lengths = r"different lengths \('size': 2, 'colour': 1, 'legs': 2\)"
    with pytest.raises(ValueError, match=lengths):
        fitted.predict(ragged)


@pytest.mark.parametrize("model", [NaiveBayes, SemiNaiveBayes])
def test_a_list_of_row_dicts_is_a_table(model):
    """Rows as dicts (Polars' rows(named=True), a JSON list) are a table, each dict a row, in
    any key order; a key one row lacks is a missing value there (as pandas reads records)."""
    fitted = model().fit(ROWS, LABELS)
    rows = [dict(zip(ROWS, values, strict=True)) for values in zip(*ROWS.values(), strict=True)]
    rows[1] = dict(reversed(rows[1].items()))
    for method in METHODS:
        np.testing.assert_array_equal(
            _call(fitted, method, rows), _call(fitted, method, ROWS), err_msg=method
        )
    lacking = fitted.predict_proba([{"size": 1.0, "colour": "u"}, rows[0]])
    np.testing.assert_array_equal(
        lacking[0], fitted.predict_proba({"size": 1.0, "colour": "u", "legs": None})[0]
    )


# ------------------------------------------------------------------ 4. did you mean
NAMED = {"colour": ["red", "blue", "red", "blue"], "size": ["s", "m", "s", "l"],
         "label": ["p", "n", "p", "n"]}  # fmt: skip


@pytest.mark.parametrize("model", [NaiveBayes, SemiNaiveBayes])
def test_a_lacking_column_suggests_the_data_column_it_may_be(model):
    fitted = model().fit(NAMED, target="label")
    expected = (
        "the data lacks column(s) the model was fitted on: ['colour']; the data has 'color': "
        "did you mean 'colour'?"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(expected)}$"):
        fitted.predict({"color": ["red"], "size": ["s"]})
    # nothing close: no guess, but the data's columns the model does not know are named (a
    # renamed column, or a row dict's misspelt key); none such: the message ends there
    with pytest.raises(ValueError, match=r"fitted on: \['colour'\]; the data has column\(s\) "
                       r"the model was not fitted on: \['weight'\]\.$"):  # fmt: skip
        fitted.predict({"size": ["s"], "weight": [3]})
    with pytest.raises(ValueError, match=r"fitted on: \['colour'\]\.$"):
        fitted.predict({"size": ["s"]})


@pytest.mark.parametrize("model", [NaiveBayes, SemiNaiveBayes])
def test_a_misspelt_target_or_family_column_suggests_the_column(model):
    with pytest.raises(ValueError, match=r"target column 'lable' is not in the data .*; "
                       r"did you mean 'label'\?$"):  # fmt: skip
        model().fit(NAMED, target="lable")
    with pytest.raises(ValueError, match=r"families names columns that are not in the data: "
                       r"\['colr'\]; did you mean 'colour'\?$"):  # fmt: skip
        model(families={"colr": "categorical"}).fit(NAMED, target="label")


def test_misspelt_option_columns_of_naive_bayes_suggest_the_columns():
    with pytest.raises(ValueError, match=r"alpha names columns .*\['colr', 'sise'\]; did you "
                       r"mean 'colour' for 'colr', 'size' for 'sise'\?$"):  # fmt: skip
        NaiveBayes(alpha={"colr": 0.5, "sise": 2.0}).fit(NAMED, target="label")


def test_the_command_line_and_the_models_share_one_did_you_mean():
    from nbayes import exceptions
    from nbayes.cli import _args

    assert _args.did_you_mean is exceptions.did_you_mean
    assert exceptions.did_you_mean("colr", ["colour", "size"]) == "did you mean 'colour'?"


def test_text_classifier_score_leaves_out_missing_labels_as_table_models_do():
    text = TextClassifier(mode="vocabulary").fit(DOCS, ["p", "n", "p", "n", "p"])
    table = NaiveBayes().fit({"doc": DOCS}, ["p", "n", "p", "n", "p"])
    y = ["p", "n", None, "n", "p"]
    with pytest.warns(UserWarning, match=DROPPED):
        expected = table.score({"doc": DOCS}, y)
    with pytest.warns(UserWarning, match=DROPPED):
        assert text.score(DOCS, y) == expected
