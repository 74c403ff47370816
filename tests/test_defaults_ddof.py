"""The sample variance (``ddof=1``) of GaussianNB and of the table model's Gaussian columns.

σ²_{c,j} = M2 / (W − ddof), W the class's weight: with weights it treats them as frequency weights
(a row of weight 3 is three rows). Checked against a hand computation in exact fractions and
against the formula of R's e1071 ``naiveBayes`` (per class ``mean`` and ``sd``, which divides by
n − 1; ``predict`` multiplies the prior by ``dnorm(x, mean, sd)`` and normalises).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import polars as pl
import pytest
from scipy.stats import norm

import nbayes

# a small weighted table: integer weights, so that frequency weights are repeated rows
X = np.array([[1.0, 10.0], [2.0, 14.0], [4.0, 11.0], [3.0, 20.0], [5.0, 25.0], [9.0, 21.0],
              [6.0, 30.0]])  # fmt: skip
Y = np.array(["a", "a", "a", "b", "b", "b", "b"])
W = np.array([1, 3, 2, 1, 1, 2, 1])


def sample_variance(values: list[Fraction], weights: list[int]) -> Fraction:
    """M2 / (W − 1) in exact arithmetic."""
    total = sum(weights)
    mean = sum(w * v for v, w in zip(values, weights, strict=True)) / total
    m2 = sum(w * (v - mean) ** 2 for v, w in zip(values, weights, strict=True))
    return m2 / (total - 1)


@pytest.mark.parametrize("model", ["GaussianNB", "NaiveBayes"])
def test_weighted_sample_variance_is_m2_over_w_minus_one(model):
    if model == "GaussianNB":
        fitted = nbayes.GaussianNB(ddof=1, var_smoothing=0.0).fit(X, Y, sample_weight=W)
        var = fitted.var_
    else:
        frame = pl.DataFrame({"u": X[:, 0], "v": X[:, 1]})
        # (named: whole numbers of at most max_int_categories values would be counted)
        gaussian = {"u": "gaussian", "v": "gaussian"}
        fitted = nbayes.NaiveBayes(families=gaussian, ddof=1, var_smoothing=0.0)
        fitted.fit(frame, Y, sample_weight=W)
        group = fitted._stats.groups[0]
        var = group.stats.theta_var(0.0, ddof=1, rule="per-column")[1]
    for k, c in enumerate(["a", "b"]):
        rows = np.flatnonzero(Y == c)
        for j in range(2):
            expected = sample_variance([Fraction(X[i, j]) for i in rows], [int(W[i]) for i in rows])
            assert var[k, j] == pytest.approx(float(expected), rel=1e-13)
            # and as repeated rows: NumPy's ddof=1 variance of the expanded column
            repeated = np.repeat(X[rows, j], W[rows])
            assert var[k, j] == pytest.approx(np.var(repeated, ddof=1), rel=1e-13)


def test_ddof_zero_is_the_maximum_likelihood_variance():
    fitted = nbayes.GaussianNB(var_smoothing=0.0).fit(X, Y, sample_weight=W)
    for k, c in enumerate(["a", "b"]):
        rows = np.flatnonzero(Y == c)
        repeated = np.repeat(X[rows], W[rows], axis=0)
        np.testing.assert_allclose(fitted.var_[k], repeated.var(axis=0), rtol=1e-13)


def e1071_posterior(X_train, y, X_test) -> np.ndarray:
    """e1071::naiveBayes for numeric columns: prior = class frequencies, per class mean and
    sd(x) (divisor n − 1), posterior ∝ prior · Π_j dnorm(x_j, mean, sd)."""
    classes = np.unique(y)
    joint = np.zeros((X_test.shape[0], classes.shape[0]))
    for k, c in enumerate(classes):
        rows = X_train[y == c]
        prior = rows.shape[0] / X_train.shape[0]
        density = norm.pdf(X_test, rows.mean(axis=0), rows.std(axis=0, ddof=1))
        joint[:, k] = prior * density.prod(axis=1)
    return joint / joint.sum(axis=1, keepdims=True)


def test_reproduces_r_e1071_naive_bayes():
    rng = np.random.default_rng(3)
    y = rng.choice(["setosa", "versicolor", "virginica"], 40)
    shift = (y == "versicolor") * 1.5 + (y == "virginica") * 3.0
    X_train = rng.normal(shift[:, None] + [0.0, 5.0, -2.0], [1.0, 0.5, 2.0], (40, 3))
    X_test = rng.normal(1.5, 1.5, (25, 3))
    expected = e1071_posterior(X_train, y, X_test)
    gnb = nbayes.GaussianNB(ddof=1, var_smoothing=0.0).fit(X_train, y)
    np.testing.assert_allclose(gnb.predict_proba(X_test), expected, rtol=1e-9)
    frame = pl.DataFrame({f"x{j}": X_train[:, j] for j in range(3)})
    table = nbayes.NaiveBayes(continuous="gaussian", ddof=1, var_smoothing=0.0).fit(frame, y)
    query = pl.DataFrame({f"x{j}": X_test[:, j] for j in range(3)})
    np.testing.assert_allclose(table.predict_proba(query), expected, rtol=1e-9)
    # the maximum-likelihood variance gives other posteriors
    assert not np.allclose(nbayes.GaussianNB(var_smoothing=0.0).fit(X_train, y)
                           .predict_proba(X_test), expected, rtol=1e-3)  # fmt: skip


def test_a_class_of_one_row_keeps_divisor_w():
    """W ≤ ddof: the variance of one row is 0 (divisor W), which var_smoothing then lifts."""
    X1 = np.array([[1.0], [2.0], [4.0], [7.0]])
    y1 = np.array(["a", "a", "a", "b"])
    fitted = nbayes.GaussianNB(ddof=1, var_smoothing=1e-2).fit(X1, y1)
    epsilon = 1e-2 * X1.var()
    np.testing.assert_allclose(fitted.var_[:, 0], [np.var([1, 2, 4], ddof=1) + epsilon, epsilon])


@pytest.mark.parametrize("value", [2, -1, 0.5, True, "1"])
def test_ddof_must_be_zero_or_one(value):
    with pytest.raises(ValueError, match="ddof must be 0"):
        nbayes.GaussianNB(ddof=value).fit(X, Y)
    with pytest.raises(ValueError, match="ddof must be 0"):
        nbayes.NaiveBayes(ddof=value).fit(pl.DataFrame({"u": X[:, 0]}), Y)
