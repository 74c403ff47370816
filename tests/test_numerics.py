"""Log-space robustness: many features, extreme values, exact zeros, and smoothing changed later.

References are computed independently of nbayes' internals: counts and moments straight from
the data with NumPy, the log-likelihood by its textbook formula in extended precision
(``np.longdouble``), and posteriors by a log-sum-exp.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import nbayes

LD = np.longdouble


def log_posterior_reference(joint: np.ndarray) -> np.ndarray:
    """log P(c | x) = jll(c) − log Σ_k exp jll(k), by log-sum-exp in the dtype of ``joint``."""
    top = joint.max(axis=1, keepdims=True)
    return joint - (top + np.log(np.exp(joint - top).sum(axis=1, keepdims=True)))


def assert_normalised(proba: np.ndarray) -> None:
    assert np.all(np.isfinite(proba))
    assert np.all((proba >= 0) & (proba <= 1))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=0, atol=1e-12)


# --------------------------------------------------------------------------- 100,000 features
D = 100_000


def test_multinomial_100k_features_sparse():
    rng = np.random.default_rng(0)
    n, k = 60, 3
    y = np.arange(n) % k
    X = sp.random_array(
        (n, D),
        density=0.01,
        rng=rng,
        format="csr",
        data_sampler=lambda size: rng.integers(1, 5, size).astype(float),
    )
    model = nbayes.MultinomialNB(alpha=0.5).fit(X, y)
    # test rows: full-length documents (posteriors saturate) and short ones (they do not)
    long_rows = sp.random_array((5, D), density=0.01, rng=rng, format="csr") * 3
    short = np.zeros((5, D))
    short[np.arange(5)[:, None], rng.integers(0, D, (5, 4))] = 1.0
    Z = sp.vstack([long_rows, sp.csr_array(short)]).tocsr()

    dense = X.toarray()
    counts = np.stack([dense[y == c].sum(axis=0) for c in range(k)]).astype(LD)
    log_p = np.log(counts + LD(0.5)) - np.log(counts.sum(axis=1, keepdims=True) + LD(0.5) * D)
    joint = Z.toarray().astype(LD) @ log_p.T + np.log(LD(1) / k)
    expected = log_posterior_reference(joint)

    got = model.predict_log_proba(Z)
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, expected.astype(float), rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(Z), joint.astype(float), rtol=1e-12, atol=1e-9
    )
    proba = model.predict_proba(Z)
    assert_normalised(proba)
    assert np.all(proba[5:].max(axis=1) < 0.999)  # the short rows are not saturated
    np.testing.assert_allclose(proba, np.exp(expected).astype(float), atol=1e-12)


def test_categorical_100k_features_dense_few_rows():
    rng = np.random.default_rng(1)
    n, k, alpha = 20, 2, 200.0  # strong smoothing keeps posteriors away from 0 and 1
    y = np.arange(n) % k
    X = rng.integers(0, 4, (n, D))
    Z = rng.integers(0, 4, (6, D))
    Z = np.minimum(Z, X.max(axis=0))  # codes seen in fitting
    model = nbayes.CategoricalNB(alpha=alpha).fit(X, y)

    n_values = X.max(axis=0) + 1  # S_j
    joint = np.full((Z.shape[0], k), np.log(LD(1) / k))
    for c in range(k):
        rows = X[y == c]
        N_c = LD(rows.shape[0])
        for v in range(4):
            n_cjv = (rows == v).sum(axis=0).astype(LD)  # n_{c,j,v}
            log_p = np.log(n_cjv + LD(alpha)) - np.log(N_c + n_values.astype(LD) * LD(alpha))
            joint[:, c] += ((Z == v) * log_p).sum(axis=1)
    expected = log_posterior_reference(joint)

    # a running float64 sum of 10⁵ terms ≈ −1.39 rounds each step to the grid of its ~1.4e5
    # total (spacing 3e-11), ~1e-7 in all: 1e-12 relative to the joint; most of it is common to
    # both classes and cancels in the posterior
    np.testing.assert_allclose(
        model.predict_joint_log_proba(Z), joint.astype(float), rtol=5e-12, atol=0
    )
    got = model.predict_log_proba(Z)
    np.testing.assert_allclose(got, expected.astype(float), rtol=0, atol=1e-7)
    proba = model.predict_proba(Z)
    assert_normalised(proba)
    assert np.all(model.predict_joint_log_proba(Z) < -1e5)  # the joint itself underflows exp()
    assert np.any((proba > 0.01) & (proba < 0.99))


def test_gaussian_100k_features_dense_few_rows():
    rng = np.random.default_rng(2)
    n, k = 20, 2
    y = np.arange(n) % k
    X = rng.normal(0.0, 1.0, (n, D)) + 0.01 * y[:, None]
    Z = rng.normal(0.0, 1.0, (6, D))
    var_smoothing = 50.0  # ε = 50 · max Var: posteriors stay between 0 and 1
    model = nbayes.GaussianNB(var_smoothing=var_smoothing).fit(X, y)

    Xl, Zl = X.astype(LD), Z.astype(LD)
    epsilon = LD(var_smoothing) * Xl.var(axis=0).max()
    joint = np.empty((Z.shape[0], k), dtype=LD)
    for c in range(k):
        mu = Xl[y == c].mean(axis=0)
        var = Xl[y == c].var(axis=0) + epsilon
        joint[:, c] = (
            np.log(LD(0.5))
            - 0.5 * np.log(2 * LD(np.pi) * var).sum()
            - 0.5 * ((Zl - mu) ** 2 / var).sum(axis=1)
        )
    expected = log_posterior_reference(joint)
    np.testing.assert_allclose(model.epsilon_, float(epsilon), rtol=1e-12)
    got = model.predict_log_proba(Z)
    np.testing.assert_allclose(got, expected.astype(float), rtol=1e-10, atol=1e-8)
    proba = model.predict_proba(Z)
    assert_normalised(proba)
    assert np.any((proba > 0.01) & (proba < 0.99))


# --------------------------------------------------------------------------- extreme values
def direct_gaussian_jll(model: nbayes.GaussianNB, Z: np.ndarray) -> np.ndarray:
    """log P(c) − ½ Σ_j log(2πσ²) − ½ Σ_j (x − μ)²/σ², straight from theta_ and var_."""
    theta, var = model.theta_, model.var_
    out = np.empty((Z.shape[0], len(model.classes_)))
    for c in range(len(model.classes_)):
        out[:, c] = (
            model.class_log_prior_[c]
            - 0.5 * np.sum(np.log(2.0 * np.pi * var[c]))
            - 0.5 * np.sum((Z - theta[c]) ** 2 / var[c], axis=1)
        )
    return out


@pytest.mark.parametrize("offset", [0.0, 1e4, 1e8])
def test_gaussian_matches_direct_formula_far_from_zero(offset):
    """|x| ≫ σ: the expanded (centred) computation equals the direct formula to ~1e-9."""
    rng = np.random.default_rng(3)
    n, d, k = 600, 5, 3
    y = rng.integers(0, k, n)
    centres = rng.normal(0.0, 2.0, (k, d))
    X = offset + centres[y] + rng.normal(0.0, 1.0, (n, d))
    Z = offset + rng.normal(0.0, 3.0, (200, d))
    model = nbayes.GaussianNB().fit(X, y)
    # the moments themselves, by two-pass NumPy on the raw data
    for c in range(k):
        np.testing.assert_allclose(model.theta_[c], X[y == c].mean(axis=0), rtol=1e-15)
        np.testing.assert_allclose(model.var_[c] - model.epsilon_, X[y == c].var(axis=0), rtol=1e-9)
    expected = direct_gaussian_jll(model, Z)
    got = model.predict_joint_log_proba(Z)
    np.testing.assert_allclose(got, expected, rtol=1e-11, atol=1e-9)
    np.testing.assert_allclose(
        model.predict_log_proba(Z), log_posterior_reference(expected), rtol=1e-10, atol=1e-9
    )
    assert_normalised(model.predict_proba(Z))


def test_gaussian_at_scale_1e100():
    rng = np.random.default_rng(4)
    n, d = 200, 4
    y = rng.integers(0, 2, n)
    X = 1e100 * (rng.normal(0.0, 1.0, (n, d)) + y[:, None])
    Z = 1e100 * rng.normal(0.5, 2.0, (50, d))
    model = nbayes.GaussianNB().fit(X, y)
    assert np.all(np.isfinite(model.var_)) and np.all(model.var_ > 1e199)
    got = model.predict_joint_log_proba(Z)
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, direct_gaussian_jll(model, Z), rtol=1e-11, atol=1e-9)
    assert_normalised(model.predict_proba(Z))
    assert np.all(np.isfinite(model.predict_log_proba(Z)))


@pytest.mark.parametrize("sparse", [False, True])
def test_multinomial_counts_of_1e12(sparse):
    rng = np.random.default_rng(5)
    n, d = 40, 6
    y = np.arange(n) % 2
    X = rng.integers(0, 3, (n, d)) * 1e12 + (y[:, None] == (np.arange(d) % 2)) * 1e12
    Z = rng.integers(0, 4, (10, d)) * 1e12
    model = nbayes.MultinomialNB().fit(sp.csr_array(X) if sparse else X, y)
    counts = np.stack([X[y == c].sum(axis=0) for c in range(2)]).astype(LD)
    log_p = np.log(counts + 1) - np.log(counts.sum(axis=1, keepdims=True) + d)
    joint = Z.astype(LD) @ log_p.T + np.log(LD(0.5))
    Zin = sp.csr_array(Z) if sparse else Z
    np.testing.assert_allclose(model.predict_joint_log_proba(Zin), joint.astype(float), rtol=1e-13)
    got = model.predict_log_proba(Zin)
    assert np.all(np.isfinite(got))
    # a log posterior is a difference of joints of size ~1e13: float64 keeps it to ~1e-15 of that
    scale = float(np.max(np.abs(joint)))
    np.testing.assert_allclose(
        got, log_posterior_reference(joint).astype(float), rtol=0, atol=1e-14 * scale
    )
    assert_normalised(model.predict_proba(Zin))


def test_poisson_counts_of_1e12():
    rng = np.random.default_rng(6)
    X = rng.integers(1, 3, (30, 3)) * 1e12
    y = np.arange(30) % 2
    model = nbayes.PoissonNB().fit(X, y)
    proba = model.predict_proba(X)
    assert_normalised(proba)
    assert np.all(np.isfinite(model.predict_joint_log_proba(X)))


# --------------------------------------------------------------------------- exact zeros (λ = 0)
ZERO_CASES = {
    # each: model with alpha=0, training X, y, and a row whose value class 0 never saw
    "categorical": (
        nbayes.CategoricalNB,
        np.array([[0, 1], [0, 2], [1, 1], [2, 2]]),
        np.array([0, 0, 1, 1]),
        np.array([[2, 1]]),  # feature 0 = 2 never occurred with class 0
    ),
    "multinomial": (
        nbayes.MultinomialNB,
        np.array([[3, 0, 1], [2, 0, 2], [1, 4, 1], [0, 2, 1]]),
        np.array([0, 0, 1, 1]),
        np.array([[1, 1, 1]]),  # feature 1 never counted in class 0
    ),
    "bernoulli": (
        nbayes.BernoulliNB,
        np.array([[1, 0, 1], [1, 0, 0], [1, 1, 0], [0, 1, 1]]),
        np.array([0, 0, 1, 1]),
        np.array([[1, 1, 0]]),  # feature 1 never present in class 0
    ),
    "poisson": (
        nbayes.PoissonNB,
        np.array([[3, 0, 1], [2, 0, 2], [1, 4, 1], [0, 2, 1]]),
        np.array([0, 0, 1, 1]),
        np.array([[1, 1, 1]]),  # rate of feature 1 in class 0 is 0
    ),
}


@pytest.mark.parametrize("name", sorted(ZERO_CASES))
def test_alpha_zero_unseen_value_gives_exact_zero(name):
    cls, X, y, row = ZERO_CASES[name]
    model = cls(alpha=0.0).fit(X, y)
    joint = model.predict_joint_log_proba(row)
    assert joint[0, 0] == -np.inf
    assert np.isfinite(joint[0, 1])
    proba = model.predict_proba(row)
    assert proba[0, 0] == 0.0 and proba[0, 1] == 1.0
    log_proba = model.predict_log_proba(row)
    assert log_proba[0, 0] == -np.inf and log_proba[0, 1] == 0.0
    assert model.predict(row)[0] == 1
    # the seen rows keep finite, correct posteriors (no NaN from 0 · log 0)
    assert_normalised(model.predict_proba(X))


def test_bernoulli_alpha_zero_absent_feature_that_was_always_present():
    # class 0 always has feature 0: a row without it has likelihood exactly 0 under class 0
    X = np.array([[1, 0], [1, 1], [0, 1], [1, 0]])
    y = np.array([0, 0, 1, 1])
    model = nbayes.BernoulliNB(alpha=0.0).fit(X, y)
    for Z in (np.array([[0, 1]]), sp.csr_array(np.array([[0, 1]]))):
        joint = model.predict_joint_log_proba(Z)
        assert joint[0, 0] == -np.inf and np.isfinite(joint[0, 1])
        np.testing.assert_array_equal(model.predict_proba(Z), [[0.0, 1.0]])


DEAD_CASES = {
    # a row that every class finds impossible
    "categorical": (
        nbayes.CategoricalNB,
        np.array([[0, 1], [0, 1], [0, 1], [1, 0]]),
        np.array([0, 0, 0, 1]),
        np.array([[1, 1], [0, 1]]),
    ),
    "multinomial": (
        nbayes.MultinomialNB,
        np.array([[3, 0], [2, 0], [1, 0], [0, 2]]),
        np.array([0, 0, 0, 1]),
        np.array([[1, 1], [1, 0]]),
    ),
    "bernoulli": (
        nbayes.BernoulliNB,
        np.array([[1, 0], [1, 0], [1, 0], [0, 1]]),
        np.array([0, 0, 0, 1]),
        np.array([[1, 1], [1, 0]]),
    ),
    "poisson": (
        nbayes.PoissonNB,
        np.array([[3, 0], [2, 0], [1, 0], [0, 2]]),
        np.array([0, 0, 0, 1]),
        np.array([[1, 1], [1, 0]]),
    ),
}


@pytest.mark.parametrize("name", sorted(DEAD_CASES))
def test_all_classes_impossible_gives_the_prior(name):
    """Documented in nbayes.decision: such rows get the prior as posterior, with a warning."""
    cls, X, y, Z = DEAD_CASES[name]  # row 0 is dead, row 1 is an ordinary class-0 row
    model = cls(alpha=0.0).fit(X, y)
    prior = np.array([0.75, 0.25])
    np.testing.assert_allclose(np.exp(model.class_log_prior_), prior)
    assert np.all(model.predict_joint_log_proba(Z)[0] == -np.inf)
    loss = np.array([[0.0, 10.0], [1.0, 0.0]])  # prior risk: decide 0 → 2.5, decide 1 → 0.75

    with pytest.warns(nbayes.ZeroLikelihoodWarning, match="1 row"):
        proba = model.predict_proba(Z)
    np.testing.assert_allclose(proba[0], prior, rtol=1e-15)
    np.testing.assert_array_equal(proba[1], [1.0, 0.0])
    with pytest.warns(nbayes.ZeroLikelihoodWarning):
        log_proba = model.predict_log_proba(Z)
    np.testing.assert_allclose(log_proba[0], np.log(prior), rtol=1e-15)
    with pytest.warns(nbayes.ZeroLikelihoodWarning):
        np.testing.assert_array_equal(model.predict(Z), [0, 0])  # the a-priori likelier class
    with pytest.warns(nbayes.ZeroLikelihoodWarning):
        risk = model.predict_risk(Z, loss=loss)
    np.testing.assert_allclose(risk[0], loss @ prior)
    with pytest.warns(nbayes.ZeroLikelihoodWarning):
        np.testing.assert_array_equal(model.predict(Z, loss=loss), [1, 0])
    with pytest.warns(nbayes.ZeroLikelihoodWarning):
        given = model.predict_proba(Z, priors=[0.4, 0.6])
    np.testing.assert_allclose(given[0], [0.4, 0.6], rtol=1e-15)
    for result in (proba, log_proba, risk, given):
        assert not np.any(np.isnan(result))


def test_ordinary_rows_do_not_warn():
    cls, X, y, Z = DEAD_CASES["categorical"]
    model = cls(alpha=0.0).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.predict_proba(Z[1:])
        model.predict(Z[1:])
        model.predict_log_proba(Z[1:])


# ---------------------------------------------------------------------- smoothing changed later
CHANGES = [
    (nbayes.MultinomialNB, "alpha", 1.0, 0.01, "counts"),
    (nbayes.MultinomialNB, "alpha", 1.0, [0.5, 2.0, 0.1, 1.0], "counts"),
    (nbayes.ComplementNB, "alpha", 1.0, 3.0, "counts"),
    (nbayes.BernoulliNB, "alpha", 1.0, 0.2, "counts"),
    (nbayes.PoissonNB, "alpha", 1.0, 0.0, "counts"),
    (nbayes.CategoricalNB, "alpha", 1.0, 0.3, "codes"),
    (nbayes.CategoricalNB, "alpha", 0.0, [1.0, 2.0, 0.5, 4.0], "codes"),
    (nbayes.GaussianNB, "var_smoothing", 1e-9, 0.5, "real"),
]


@pytest.mark.parametrize(
    ("cls", "name", "old", "new", "kind"),
    CHANGES,
    ids=[f"{c[0].__name__}-{c[3]}" for c in CHANGES],
)
def test_changing_smoothing_after_fit_takes_effect(cls, name, old, new, kind):
    rng = np.random.default_rng(8)
    n, d = 80, 4
    y = rng.integers(0, 3, n)
    if kind == "real":
        X = rng.normal(y[:, None], 1.0, (n, d))
    else:
        X = np.minimum(rng.poisson(1.0 + y[:, None], (n, d)), 5).astype(float)
    Z = X[::3] if kind != "real" else rng.normal(1.0, 1.5, (30, d))
    params = {name: old}
    if cls is not nbayes.GaussianNB:
        params["class_prior"] = "smoothed"  # the prior's λ follows alpha too
    model = cls(**params).fit(X, y)
    before = model.predict_proba(Z)  # fills the caches with tables for the old value
    setattr(model, name, new)
    fresh = cls(**{**params, name: new}).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", nbayes.ZeroLikelihoodWarning)
        after = model.predict_proba(Z)
        np.testing.assert_allclose(after, fresh.predict_proba(Z), rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(
            model.predict_joint_log_proba(Z), fresh.predict_joint_log_proba(Z), rtol=1e-13
        )
    assert not np.allclose(after, before)
    np.testing.assert_allclose(model.class_log_prior_, fresh.class_log_prior_, rtol=1e-13)
    # and back again
    setattr(model, name, old)
    np.testing.assert_allclose(model.predict_proba(Z), before, rtol=1e-13, atol=1e-15)


# ------------------------------------------------------------------------ warnings, once per call
def _many_chunks_problem(monkeypatch=None):
    """Enough features that one prediction call runs over several row chunks (CategoricalNB
    scores its codes in place, so its chunks hold only the scores: with ``monkeypatch``, chunks
    of 300 rows for it too)."""
    if monkeypatch is not None:
        from nbayes import _base

        monkeypatch.setattr(_base, "CHUNK_BYTES", 8 * 4 * 300)  # 0 columns, K = 2: 300 rows
    d = 5000
    rng = np.random.default_rng(9)
    X = rng.integers(0, 2, (20, d))
    y = np.arange(20) % 2
    Z = rng.integers(0, 2, (1000, d))
    return X, y, Z


def test_one_unseen_category_warning_per_call_with_the_total_count(monkeypatch):
    X, y, Z = _many_chunks_problem(monkeypatch)
    model = nbayes.CategoricalNB().fit(X, y)
    Z[:, 0] = 5
    Z[700, 3] = 9
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.predict_proba(Z)
    assert len(caught) == 1
    assert caught[0].category is nbayes.UnseenCategoryWarning
    assert "feature 0: 1000, feature 3: 1." in str(caught[0].message)
    assert caught[0].filename == __file__  # points at the caller, not into nbayes
    error = nbayes.CategoricalNB(unknown="error").fit(X, y)
    Z[:, 0] = 1
    with pytest.raises(ValueError, match=r"first at row 700\)"):  # counted from the first row
        error.predict(Z)
    # a mask slice of 1000 bytes (200 rows of 5000 codes): the first unseen code in a later
    # slice of a later chunk, and the counts summed over the slices
    from nbayes import estimators

    monkeypatch.setattr(estimators, "UNSEEN_MASK_BYTES", 1000)
    Z[700, 3] = 1
    Z[[250, 950], 4] = 7
    per_feature = estimators.report_unseen(Z, model.n_categories_, None, "m", raise_error=False)
    assert per_feature[4] == 2 and per_feature.sum() == 2
    with pytest.raises(ValueError, match=r"first at row 250\); per feature: feature 4: 1\."):
        error.predict(Z)  # the chunk of rows 0-299 stops the call


def test_one_zero_likelihood_warning_per_call_with_the_total_count(monkeypatch):
    X, y, Z = _many_chunks_problem(monkeypatch)
    X[:, 0] = y  # class c always has feature 0 = c
    X[:, 1] = 1 - y
    model = nbayes.CategoricalNB(alpha=0.0).fit(X, y)
    Z[:, 2:] = X[1, 2:]  # the rest of the row is that of a class-1 training row
    Z[:, 0] = 1
    Z[:, 1] = 1  # impossible under both classes
    Z[-10:, 1] = 0  # these are ordinary class-1 rows
    for method in ("predict", "predict_proba", "predict_log_proba", "predict_risk"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            getattr(model, method)(Z)
        assert len(caught) == 1, method
        assert caught[0].category is nbayes.ZeroLikelihoodWarning
        assert str(caught[0].message).startswith("990 row(s)"), method
        assert caught[0].filename == __file__, method
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.predict_joint_log_proba(Z)  # −inf is the answer there, not a substitution


def test_small_alpha_warns_once_per_call_at_the_caller():
    (
        X,
        y,
        _,
    ) = _many_chunks_problem()
    model = nbayes.MultinomialNB(alpha=0.0, force_alpha=False, class_prior="smoothed")
    model.fit(X[:, :50], y)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.predict(X[:, :50])
    assert [w.category for w in caught] == [UserWarning]
    assert "alpha too small" in str(caught[0].message)
    assert caught[0].filename == __file__
