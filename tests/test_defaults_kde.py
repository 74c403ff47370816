"""Kernel densities that survive atoms: point masses of zero-inflated columns, and the pooled
bandwidth rules, against SciPy written out by hand."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from scipy.special import logsumexp
from scipy.stats import norm

import nbayes
from nbayes.families import kde


def log_likelihood(model: nbayes.NaiveBayes, values: np.ndarray) -> np.ndarray:
    frame = pl.DataFrame({"x": np.asarray(values, dtype=float)})
    return model.predict_joint_log_proba(frame) - model.class_log_prior_


def mixture(query: np.ndarray, centres: np.ndarray, h: float) -> np.ndarray:
    """log (1/n) Σ_i N(q; x_i, h²)."""
    logs = norm.logpdf(query[:, None], loc=centres[None, :], scale=h)
    return logsumexp(logs, axis=1) - math.log(centres.shape[0])


def silverman(values: np.ndarray) -> float:
    q1, q3 = np.quantile(values, [0.25, 0.75], method="inverted_cdf")
    sd = values.std()
    spread = min(sd, (q3 - q1) / 1.34) if q3 > q1 else sd
    return 0.9 * spread * values.shape[0] ** (-0.2)


def zero_inflated(seed: int = 0, n: int = 300):
    """A capital-gain-like column: 0 for most rows (more often in class "a"), else spread out."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b"], n, p=[0.7, 0.3])
    zero = rng.random(n) < np.where(y == "a", 0.9, 0.6)
    x = np.where(zero, 0.0, np.round(rng.lognormal(np.where(y == "a", 7.0, 8.5), 0.6), 0))
    return x, y


@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_a_zero_inflated_column_has_a_point_mass_at_zero(alpha):
    x, y = zero_inflated()
    model = nbayes.NaiveBayes(families={"x": "kde"}, alpha=alpha).fit(pl.DataFrame({"x": x}), y)
    query = np.array([0.0, 500.0, 3000.0, 12000.0])
    got = log_likelihood(model, query)
    for k, c in enumerate(["a", "b"]):
        values = x[y == c]
        W, W0 = values.shape[0], np.sum(values == 0)
        rest = values[values != 0]
        # P(x = 0 | c) = (W_0c + λ) / (W_c + 2λ): a probability, not a bump of width h
        assert got[0, k] == pytest.approx(math.log((W0 + alpha) / (W + 2 * alpha)), rel=1e-12)
        # elsewhere: P(other | c) times the kernel density of the class's other values, whose
        # bandwidth comes from those values alone
        h = silverman(rest)
        expected = math.log((W - W0 + alpha) / (W + 2 * alpha)) + mixture(query[1:], rest, h)
        np.testing.assert_allclose(got[1:, k], expected, rtol=1e-10, err_msg=c)


def test_point_masses_keep_the_density_ratio_at_the_atom_honest():
    """At the atom the classes' ratio is their shares of zeros (0.9/0.6-ish), not a ratio of
    bandwidths: without point masses the narrow class's kernel towers over the other's."""
    x, y = zero_inflated(1, n=2000)
    frame = pl.DataFrame({"x": x})
    shares = [np.mean(x[y == c] == 0) for c in ("a", "b")]
    with_masses = nbayes.NaiveBayes(calibration=None, families={"x": "kde"}).fit(frame, y)
    ratio = np.exp(np.diff(log_likelihood(with_masses, np.array([0.0]))[0]))[0]
    assert ratio == pytest.approx(shares[1] / shares[0], rel=0.01)
    plain = nbayes.NaiveBayes(calibration=None, families={"x": "kde"}, point_masses=None).fit(
        frame, y
    )
    distorted = np.exp(np.diff(log_likelihood(plain, np.array([0.0]))[0]))[0]
    assert abs(math.log(distorted / ratio)) > 1.0  # more than e-fold off


def test_a_single_valued_class_is_a_point_mass():
    """The data of test_continuous's pooled-bandwidth test, with point masses on: class b's
    one value 3.0 holds 60% of the weight, so it is a point mass of both classes."""
    rng = np.random.default_rng(5)
    y = rng.choice(["a", "b"], 120, p=[0.4, 0.6])
    x = np.where(y == "a", np.round(rng.normal(0.0, 1.0, 120), 1), 3.0)
    model = nbayes.NaiveBayes(calibration=None, families={"x": "kde"}).fit(
        pl.DataFrame({"x": x}), y
    )
    got = log_likelihood(model, np.array([3.0, 0.5]))
    n_a, n_b = np.sum(y == "a"), np.sum(y == "b")
    assert got[0, 1] == pytest.approx(math.log((n_b + 1) / (n_b + 2)), rel=1e-12)
    assert got[0, 0] == pytest.approx(math.log(1 / (n_a + 2)), rel=1e-12)
    # class b has no other value: its density elsewhere is the pooled one over other values
    rest = x[x != 3.0]
    pooled = math.log(1 / (n_b + 2)) + mixture(np.array([0.5]), rest, silverman(rest))[0]
    assert got[1, 1] == pytest.approx(pooled, rel=1e-10)


def test_one_value_besides_the_point_mass_is_smoothed_by_the_whole_columns_rule():
    """A column of zeros but one 13: its only other value has no spread, so its kernel takes
    Silverman's width over all the column's values, not the 10⁻⁹ floor, whose spike put x = 1
    some 10¹⁷ nats down in both classes and left the other column's evidence to round-off (the
    posterior came out 0.5 / 0.5)."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 2000)
    x = np.r_[13.0, np.zeros(1999)]
    model = nbayes.NaiveBayes(calibration=None, families={"x": "kde"})
    got = log_likelihood(model.fit(pl.DataFrame({"x": x}), y), np.array([0.0, 1.0, 254.0]))
    h = silverman(x)  # 0.9 · σ · n^(−1/5): the IQR of a column of zeros is 0
    log_other = []
    for k in range(2):
        W = np.sum(y == k)
        rest = np.sum((y == k) & (x != 0))
        # P(x = 0 | c) = (W_0c + λ) / (W_c + 2λ); elsewhere P(other | c) · N(x; 13, h²)
        assert got[0, k] == pytest.approx(math.log((W - rest + 1) / (W + 2)), rel=1e-12)
        log_other.append(math.log((rest + 1) / (W + 2)))
        expected = log_other[k] + norm.logpdf([1.0, 254.0], 13.0, h)
        np.testing.assert_allclose(got[1:, k], expected, rtol=1e-10)
    # the density is the same in both classes: beside the other column's evidence, the log-odds
    # gain only the ratio of the classes' shares of other values
    g = rng.normal(2.0 * y, 1.0)
    both = nbayes.NaiveBayes(calibration=None, families={"g": "gaussian", "x": "kde"})
    both.fit(pl.DataFrame({"g": g, "x": x}), y)
    alone = nbayes.NaiveBayes(calibration=None, families={"g": "gaussian"})
    alone.fit(pl.DataFrame({"g": g}), y)
    proba = both.predict_proba(pl.DataFrame({"g": [4.0, 4.0], "x": [1.0, 254.0]}))
    base = alone.predict_proba(pl.DataFrame({"g": [4.0]}))[0]
    odds = math.log(base[1] / base[0]) + log_other[1] - log_other[0]
    np.testing.assert_allclose(np.log(proba[:, 1] / proba[:, 0]), odds, rtol=1e-9)
    assert np.all(proba[:, 1] > 0.99)


@pytest.mark.parametrize("rule", ["silverman-pooled", "scott-pooled"])
def test_pooled_bandwidth_is_one_rule_on_all_classes(rule):
    rng = np.random.default_rng(2)
    y = rng.choice(["a", "b"], 200)
    x = np.where(y == "a", rng.normal(0.0, 1.0, 200), rng.normal(2.0, 4.0, 200)).round(3)
    model = nbayes.NaiveBayes(calibration=None, families={"x": "kde"}, bandwidth=rule).fit(
        pl.DataFrame({"x": x}), y
    )
    if rule.startswith("silverman"):
        h = silverman(x)
    else:
        h = 1.06 * x.std() * x.shape[0] ** (-0.2)
    query = np.linspace(-4.0, 10.0, 29)
    got = log_likelihood(model, query)
    for k, c in enumerate(["a", "b"]):
        np.testing.assert_allclose(got[:, k], mixture(query, x[y == c], h), rtol=1e-10)
    assert str(model).count(f"{h:.3f}") >= 2  # the summary shows one bandwidth for both


def test_bandwidth_rules_are_named_in_the_error():
    with pytest.raises(ValueError, match="silverman-pooled"):
        nbayes.NaiveBayes(bandwidth="weka").fit(pl.DataFrame({"x": [1.0, 2.0]}), ["a", "b"])


@pytest.mark.parametrize("share", [0.0, 1.5, -0.1, "many"])
def test_point_masses_must_be_a_share(share):
    with pytest.raises(ValueError, match="point_masses"):
        nbayes.NaiveBayes(point_masses=share).fit(pl.DataFrame({"x": [1.0, 2.0]}), ["a", "b"])


def test_the_module_says_it_is_weka_k_s_kind_not_weka_s_estimator():
    doc = kde.__doc__
    assert "Weka's ``NaiveBayes -K``" in doc and "not Weka's exact one" in doc


def test_repeated_values_get_the_density_each_value_gets_alone():
    # a value that repeats is evaluated once and its density copied to each of its rows: the
    # same numbers, bit for bit, as rows evaluated one at a time, with missing values untouched
    rng = np.random.default_rng(3)
    y = rng.choice(["a", "b", "c"], 400)
    x = np.round(rng.normal(40, 12, 400))  # ages: a few dozen values, each many times
    model = nbayes.NaiveBayes(families={"x": "kde"}).fit(pl.DataFrame({"x": x}), y)
    query = np.concatenate([rng.choice(x, 200), [np.nan, np.nan, 1e300, -7.5]])
    together = log_likelihood(model, query)
    alone = np.vstack([log_likelihood(model, query[i : i + 1]) for i in range(query.size)])
    np.testing.assert_array_equal(together, alone)
    assert np.unique(query[:200]).size < 100  # the repeats are there
    # the kernels' sum against the formula, on the distinct values
    for k, c in enumerate(["a", "b", "c"]):
        values = x[y == c]
        expected = mixture(query[:200], values, silverman(values))
        np.testing.assert_allclose(together[:200, k], expected, rtol=1e-10)
