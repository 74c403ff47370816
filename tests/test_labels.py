"""Class labels to class indices: text coded by Polars gives what NumPy's sort gives."""

from __future__ import annotations

import re
import warnings

import numpy as np
import polars as pl
import pytest

import nbayes
from nbayes.labels import class_indices, label_values, text_codes
from nbayes.model import _known_class_indices


def _by_numpy(labels: pl.Series) -> tuple[np.ndarray, np.ndarray]:
    classes, cls = np.unique(label_values(labels), return_inverse=True)
    return classes, cls.ravel()


LABELS = {
    "ascii": ["<=50K", ">50K", ">50K", "<=50K", "b", "a"],
    "unicode": ["été", "ete", "中文", "😀", "Été", "été", "z"],
    "empty text": ["", "x", "", "y"],
    "trailing NUL": ["a", "a\x00", "b", "a\x00\x00"],  # one class for NumPy: its rule holds
    "one class": ["only"] * 5,
    "integers": [3, -1, 3, 7, 0],
    "booleans": [True, False, False],
    "whole floats": [1.0, 2.0, 1.0, -0.0],
}


@pytest.mark.parametrize("kind", list(LABELS))
def test_class_indices_equal_numpys_unique(kind):
    labels = pl.Series("y", LABELS[kind])
    classes, cls = class_indices(labels)
    want_classes, want_cls = _by_numpy(labels)
    np.testing.assert_array_equal(classes, want_classes)
    assert classes.dtype == want_classes.dtype
    np.testing.assert_array_equal(cls, want_cls)
    assert cls.dtype == np.intp


@pytest.mark.parametrize("distinct", [1, 40, 1024, 1025])
def test_text_labels_become_the_numpy_strings_of_each_value(distinct):
    """label_values of text, by class (few distinct labels) or value by value (many), is the
    NumPy string of each label: the values, their order and the width of the dtype."""
    rng = np.random.default_rng(distinct)
    pool = [f"c{i}" + "é" * int(rng.integers(0, 3)) + "\x00" * (i % 2) for i in range(distinct)]
    labels = pl.Series("y", rng.permutation(pool + rng.choice(pool, 5000).tolist()).tolist())
    got, want = label_values(labels), labels.to_numpy().astype(str)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_many_random_text_classes_equal_numpys_unique():
    rng = np.random.default_rng(4)
    alphabet = list("abcAB é中😀 ")
    pool = ["".join(rng.choice(alphabet, rng.integers(0, 6))) for _ in range(3000)]
    labels = pl.Series("y", rng.choice(pool, 20_000).tolist())
    classes, cls = class_indices(labels)
    want_classes, want_cls = _by_numpy(labels)
    np.testing.assert_array_equal(classes, want_classes)
    np.testing.assert_array_equal(cls, want_cls)


def test_real_valued_labels_are_refused_as_before():
    with pytest.raises(ValueError, match="continuous"):
        class_indices(pl.Series("y", [0.5, 1.0]))


def test_known_text_labels_are_their_positions_and_a_new_one_is_none():
    classes = np.array(["<=50K", ">50K", "z"])
    labels = pl.Series("y", [">50K", "z", "<=50K", ">50K"])
    np.testing.assert_array_equal(_known_class_indices(classes, labels), [1, 2, 0, 1])
    assert _known_class_indices(classes, pl.Series("y", ["<=50K", "new"])) is None
    assert _known_class_indices(np.array([0, 1]), labels) is None  # numbers: another path
    assert text_codes(labels, np.array([], dtype=str)) is None


def test_a_stream_of_text_labels_with_classes_arriving_late_counts_as_one_fit():
    rng = np.random.default_rng(9)
    n = 3000
    x = rng.normal(size=n)
    y = rng.choice(["b", "c", "a", "é"], n)
    y[:1000] = np.where(y[:1000] == "a", "b", y[:1000])  # "a" only after the first batch
    y[1000:2000] = np.where(y[1000:2000] == "é", "c", y[1000:2000])
    whole = nbayes.NaiveBayes(calibration=None).fit({"x": x}, y.tolist())
    stream = nbayes.NaiveBayes(calibration=None)
    for start in range(0, n, 1000):
        stop = start + 1000
        stream.partial_fit({"x": x[start:stop]}, pl.Series("y", y[start:stop].tolist()))
    np.testing.assert_array_equal(stream.classes_, ["a", "b", "c", "é"])
    np.testing.assert_array_equal(stream.classes_, whole.classes_)
    want = np.array([np.sum(y == c) for c in stream.classes_], dtype=float)
    np.testing.assert_array_equal(stream.class_count_, want)
    np.testing.assert_array_equal(whole.class_count_, want)
    grid = {"x": np.linspace(-3, 3, 25)}
    np.testing.assert_allclose(stream.predict_proba(grid), whole.predict_proba(grid), atol=1e-9)


def test_given_classes_place_the_first_batchs_labels():
    model = nbayes.NaiveBayes(calibration=None)
    model.partial_fit({"x": [0.0, 1.0, 2.0]}, ["m", "k", "m"], classes=["z", "k", "m", "a"])
    np.testing.assert_array_equal(model.classes_, ["a", "k", "m", "z"])
    np.testing.assert_array_equal(model.class_count_, [0, 1, 2, 0])


@pytest.mark.parametrize("marker", ["NaN", "NA", "?", "null", " n/a "])
def test_a_class_written_as_a_missing_marker_is_fitted_with_a_warning_naming_it(marker):
    X = pl.DataFrame({"a": ["x", "y", "x", "y", "x", "y"]})
    y = np.array(["p", "q", marker, "p", "q", "p"])
    for model in (nbayes.NaiveBayes(), nbayes.SemiNaiveBayes("tan")):
        with pytest.warns(UserWarning, match=re.escape(f"the target holds {marker!r}, which")) as w:
            model.fit(X, y)
        assert marker in model.classes_.tolist()  # still a class: the warning only tells
        assert f"missing_values={marker!r}" in str(w[0].message)
        assert w[0].filename == __file__  # pointed at the caller's line
    # named missing, its rows are dropped (with the usual note) and no such warning is given
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = nbayes.NaiveBayes(missing_values=marker).fit(X.with_columns(pl.Series("y", y)),
                                                             target="y")
    assert marker not in model.classes_.tolist()
    assert not any("usually marks a missing" in str(c.message) for c in caught)


def test_ordinary_classes_and_numbers_give_no_missing_marker_warning():
    X = pl.DataFrame({"a": ["x", "y", "x", "y"]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nbayes.NaiveBayes().fit(X, np.array(["none", "soft", "hard", "none"]))
        nbayes.NaiveBayes().fit(X, np.array([0, 1, 0, 1]))
