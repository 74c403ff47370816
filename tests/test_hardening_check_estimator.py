"""The table model passes scikit-learn's check_estimator, except the checks that contradict a
documented design choice (docs/deviations.md): those must fail, and for that reason only."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from documented import deviations
from sklearn.utils.estimator_checks import check_estimator

import nbayes


def test_naive_bayes_passes_check_estimator_except_the_documented_design_choices():
    expected = deviations("check_estimator on NaiveBayes")
    assert expected
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the checks provoke warnings on purpose
        results = check_estimator(
            nbayes.NaiveBayes(), expected_failed_checks=expected, on_fail=None
        )
    assert len(results) > 50
    failed = [f"{r['check_name']}: {r['exception']!r}" for r in results if r["status"] == "failed"]
    assert not failed, "\n".join(failed)
    skipped = {r["check_name"] for r in results if r["status"] == "skipped"}
    assert skipped <= {"check_array_api_input"}, skipped
    xfailed = {r["check_name"] for r in results if r["status"] == "xfail"}
    assert xfailed == set(expected)


def test_nan_is_missing_and_inf_is_refused_which_is_why_nan_inf_is_listed():
    X = np.array([[0.0, 1.0], [1.0, np.nan], [2.0, 0.5], [3.0, 1.5]])
    y = [0, 0, 1, 1]
    model = nbayes.NaiveBayes().fit(X, y)  # NaN: a missing value, skipped
    assert model.class_count_.tolist() == [2.0, 2.0]
    with pytest.raises(ValueError, match="infinite"):
        nbayes.NaiveBayes().fit(np.where(np.isnan(X), np.inf, X), y)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda m: m.fit(np.zeros((4, 0)), [0, 1, 0, 1]), r"0 feature\(s\)"),
        (lambda m: m.fit([[1.0], [2.0]], [0.5, 1.5]), "Unknown label type: continuous"),
        (lambda m: m.fit([[1.0], [2.0]], [3, 3]), "1 class"),
        (lambda m: m.fit([[1.0], [2.0]]), "requires y to be passed"),
        (lambda m: m.fit([[1 + 2j], [2.0]], [0, 1]), "Complex data not supported"),
    ],
    ids=["no-features", "continuous", "one-class", "no-y", "complex"],
)
def test_messages_scikit_learns_tooling_recognises(call, match):
    with pytest.raises(ValueError, match=match):
        call(nbayes.NaiveBayes())


def test_a_numpy_array_with_other_columns_and_sparse_input_are_refused():
    import scipy.sparse as sp

    model = nbayes.NaiveBayes().fit(np.arange(12.0).reshape(6, 2), [0, 1] * 3)
    with pytest.raises(ValueError, match="X has 3 features, but NaiveBayes is expecting 2"):
        model.predict(np.zeros((2, 3)))
    codes = np.array([["a", "b", "c"], ["b", "a", "c"]] * 5)
    semi = nbayes.SemiNaiveBayes().fit(codes, [0, 1] * 5)
    with pytest.raises(ValueError, match="X has 2 features, but SemiNaiveBayes is expecting 3"):
        semi.predict(codes[:, :2])
    with pytest.raises(TypeError, match="sparse input is not supported"):
        nbayes.NaiveBayes().fit(sp.csr_array(np.eye(4)), [0, 1, 0, 1])
    with pytest.warns(nbayes.DataConversionWarning, match="column-vector y"):
        nbayes.NaiveBayes().fit(np.arange(12.0).reshape(6, 2), np.array([[0], [1]] * 3))


@pytest.mark.parametrize(
    "continuous", ["auto", "gaussian", "kde", "mdl", "equal-frequency", "equal-width"]
)
def test_integer_weights_equal_repeated_rows_for_every_continuous_family(continuous):
    # scikit-learn's meaning of sample_weight: weight k is the row repeated k times, weight 0
    # the row left out (so a zero-weight value must not move a cut point or a choice)
    rng = np.random.default_rng(42)
    X = rng.random((30, 6))
    y = rng.integers(0, 3, 30)
    weight = rng.integers(0, 5, 30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        weighted = nbayes.NaiveBayes(calibration=None, continuous=continuous).fit(
            X, y, sample_weight=weight
        )
        repeated = nbayes.NaiveBayes(calibration=None, continuous=continuous).fit(
            X.repeat(weight, axis=0), y.repeat(weight)
        )
    assert weighted.families_ == repeated.families_
    np.testing.assert_allclose(
        weighted.predict_proba(X), repeated.predict_proba(X), rtol=1e-9, atol=1e-12
    )
