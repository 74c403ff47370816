"""Numbers that cannot overflow into nonsense: infinite values and values whose squares overflow
are refused naming the column and the row, weights whose sums overflow are refused before they
change anything, and probabilities are never NaN."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from conftest import assert_same_statistics

import nbayes
from nbayes.cli import main

RNG = np.random.default_rng(2)
X = RNG.normal(size=(30, 3))
Y = RNG.integers(0, 2, 30)


def table(value: float) -> pl.DataFrame:
    height = RNG.normal(170, 10, 30)
    height[7] = value
    return pl.DataFrame({"height": height, "colour": ["red", "blue"] * 15, "y": Y})


@pytest.mark.parametrize("continuous", ["gaussian", "kde", "equal-width", "mdl"])
@pytest.mark.parametrize("value", [np.inf, -np.inf, 1e200])
def test_the_table_model_refuses_infinite_and_huge_values_naming_column_and_row(
    continuous: str, value: float
):
    with pytest.raises(ValueError, match=r"'height'.*row 7|row 7.*'height'"):
        nbayes.NaiveBayes(continuous=continuous).fit(table(value), target="y")


def test_the_table_model_refuses_infinity_in_prediction_too():
    model = nbayes.NaiveBayes().fit(table(171.0), target="y")
    with pytest.raises(ValueError, match=r"'height'.*row 0.*infinite"):
        model.predict({"height": [np.inf], "colour": ["red"]})


def test_gaussian_nb_refuses_values_whose_squares_overflow():
    bad = X.copy()
    bad[4, 2] = -3e160
    with pytest.raises(ValueError, match=r"feature 2 has -3e\+160 at row 4"):
        nbayes.GaussianNB().fit(bad, Y)
    model = nbayes.GaussianNB().fit(X, Y)  # prediction accepts them: no NaN comes out
    with pytest.warns(nbayes.ZeroLikelihoodWarning):  # row 4 is beyond every class's density
        probabilities = model.predict_proba(bad)
    assert np.isfinite(probabilities).all()
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0)


@pytest.mark.parametrize("cls", [nbayes.GaussianNB, nbayes.MultinomialNB, nbayes.CategoricalNB])
def test_weights_whose_sum_overflows_are_refused_and_change_nothing(cls):
    data = np.abs(X.round())
    model = cls().fit(data, Y)
    before = model.predict_proba(data)
    with pytest.raises(ValueError, match="sample weights sum to"):
        model.partial_fit(data, Y, sample_weight=np.full(30, 1e308))
    np.testing.assert_array_equal(model.predict_proba(data), before)
    with pytest.raises(ValueError, match="sample weights sum to"):
        cls().fit(data, Y, sample_weight=np.full(30, 1e308))


def test_weighted_sums_that_overflow_are_refused_before_they_change_the_counts():
    counts = RNG.poisson(3, (30, 4)).astype(float)
    model = nbayes.MultinomialNB().fit(counts, Y)
    reference = nbayes.MultinomialNB().fit(counts, Y)
    big = counts.copy()
    big[:, 1] = 1e30
    with pytest.raises(ValueError, match="overflow"):
        model.partial_fit(big, Y, sample_weight=np.full(30, 1e280))
    assert_same_statistics(model, reference)
    import scipy.sparse as sp

    with pytest.raises(ValueError, match="overflow"):
        model.partial_fit(sp.csr_array(big), Y, sample_weight=np.full(30, 1e280))
    assert_same_statistics(model, reference)


def test_gaussian_moments_that_overflow_are_refused_before_they_change_anything():
    model = nbayes.GaussianNB().fit(X, Y)
    reference = nbayes.GaussianNB().fit(X, Y)
    big = X * 1e140
    with pytest.raises(ValueError, match="overflow"):
        model.partial_fit(big, Y, sample_weight=np.full(30, 1e40))
    assert_same_statistics(model, reference)


def test_a_class_holding_nearly_all_of_a_count_keeps_complement_weights_finite():
    """(Σ_k n_kt + α) − n_ct cancelled to 0 or below when one class dominated a feature."""
    counts = RNG.poisson(3, (30, 4)).astype(float)
    weight = np.ones(30)
    weight[np.flatnonzero(Y == 0)[0]] = 1e17
    model = nbayes.ComplementNB().fit(counts, Y, sample_weight=weight)
    assert np.isfinite(model.feature_log_prob_).all()
    assert not np.isnan(model.predict_proba(counts)).any()
    # the same as the complement computed class by class, with no subtraction
    c = model.feature_count_
    for k in range(2):
        other = c[1 - k] + 1.0
        np.testing.assert_allclose(
            model.feature_log_prob_[k], -np.log(other / other.sum()), rtol=1e-12
        )


def test_probabilities_are_never_nan_with_infinite_scores():
    """λ = 0 with a feature seen only in the other class gives +inf complement weights."""
    counts = np.array([[3.0, 0.0], [0.0, 2.0], [4.0, 0.0], [0.0, 5.0]])
    model = nbayes.ComplementNB(alpha=0.0, force_alpha=True).fit(counts, [0, 1, 0, 1])
    with np.errstate(divide="ignore"):
        probabilities = model.predict_proba([[1.0, 1.0], [2.0, 0.0]])
        log_probabilities = model.predict_log_proba([[1.0, 1.0], [2.0, 0.0]])
    assert not np.isnan(probabilities).any() and not np.isnan(log_probabilities).any()
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0)


def test_the_command_line_refuses_infinity_and_keeps_the_previous_model(tmp_path, capsys):
    good, bad = tmp_path / "good.csv", tmp_path / "bad.csv"
    table(171.0).write_csv(good)
    table(np.inf).write_csv(bad)
    model = tmp_path / "m.nbm"
    assert main(["fit", str(good), "--target", "y", "-o", str(model)]) == 0
    capsys.readouterr()
    before = model.read_bytes()
    assert main(["fit", str(bad), "--target", "y", "-o", str(model)]) == 1
    err = capsys.readouterr().err
    assert "height" in err and "inf" in err and len(err.strip().splitlines()) == 1
    assert model.read_bytes() == before
