"""Side by side with scikit-learn: same numbers, to 1e-9, for every estimator and option.

And where scikit-learn fails its users (NaN, category codes unseen in fitting), nbayes is checked
against a hand computation from the counts and moments.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import naive_bayes as skl

import nbayes

ATOL = 1e-9
SEEDS = [0, 1, 2]

ATTRIBUTES = [
    "classes_",
    "class_count_",
    "class_log_prior_",
    "feature_count_",
    "feature_log_prob_",
    "feature_all_",
    "category_count_",
    "n_categories_",
    "theta_",
    "var_",
    "epsilon_",
    "class_prior_",
    "n_features_in_",
    "feature_names_in_",
]


def assert_close(got, expected, name: str) -> None:
    if isinstance(expected, list):  # CategoricalNB's per-feature tables
        assert isinstance(got, list) and len(got) == len(expected), name
        for j, (g, e) in enumerate(zip(got, expected, strict=True)):
            assert_close(g, e, f"{name}[{j}]")
        return
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.shape == expected.shape, f"{name}: {got.shape} != {expected.shape}"
    if expected.dtype.kind in "OUSb" or got.dtype.kind in "OUSb":
        np.testing.assert_array_equal(got, expected, err_msg=name)
    else:
        np.testing.assert_allclose(got, expected, rtol=0, atol=ATOL, err_msg=name)


def assert_equivalent(ours, theirs, X_test, *, attributes=ATTRIBUTES, fitted=True) -> None:
    """Fitted attributes and every prediction method agree with scikit-learn's."""
    if fitted:
        for name in attributes:
            if hasattr(theirs, name):
                assert hasattr(ours, name), name
                assert_close(getattr(ours, name), getattr(theirs, name), name)
    for method in ("predict_joint_log_proba", "predict_log_proba", "predict_proba"):
        assert_close(getattr(ours, method)(X_test), getattr(theirs, method)(X_test), method)
    np.testing.assert_array_equal(ours.predict(X_test), theirs.predict(X_test))


# --------------------------------------------------------------------------- data
def count_data(seed: int, n: int = 120, d: int = 8, k: int = 3, *, sparse: bool = False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)
    rates = rng.uniform(0.05, 3.0, (k, d))
    X = rng.poisson(rates[y]).astype(np.float64)
    X_test = rng.poisson(rates[rng.integers(0, k, 40)]).astype(np.float64)
    weight = rng.uniform(0.1, 4.0, n)
    if sparse:
        X, X_test = sp.csr_array(X), sp.csr_array(X_test)
    return X, y, X_test, weight


def real_data(seed: int, n: int = 150, d: int = 5, k: int = 3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)
    centres = rng.normal(0.0, 2.0, (k, d))
    scales = rng.uniform(0.5, 2.0, (k, d))
    X = centres[y] + scales[y] * rng.normal(size=(n, d))
    X_test = rng.normal(0.0, 3.0, (40, d))
    weight = rng.uniform(0.1, 4.0, n)
    return X, y, X_test, weight


def code_data(seed: int, n: int = 150, d: int = 4, k: int = 3, levels: int = 4):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    y[:k] = np.arange(k)
    probs = rng.dirichlet(np.ones(levels), (k, d))
    X = np.empty((n, d), dtype=np.int64)
    for j in range(d):
        for c in range(k):
            rows = y == c
            X[rows, j] = rng.choice(levels, rows.sum(), p=probs[c, j])
    X[:levels, :] = np.arange(levels)[:, None]  # every code seen in fitting
    X_test = rng.integers(0, levels, (40, d))
    weight = rng.uniform(0.1, 4.0, n)
    return X, y, X_test, weight


def batches(n: int, seed: int, parts: int = 4) -> list[np.ndarray]:
    rng = np.random.default_rng(seed + 1000)
    cuts = np.sort(rng.choice(np.arange(1, n), parts - 1, replace=False))
    return np.split(rng.permutation(n), cuts)


# --------------------------------------------------------------------------- count models
COUNT_CASES = [
    ("MultinomialNB", {}),
    ("MultinomialNB", {"alpha": 0.3}),
    ("MultinomialNB", {"alpha": "vector"}),
    ("MultinomialNB", {"fit_prior": False}),
    ("MultinomialNB", {"class_prior": [0.2, 0.5, 0.3]}),
    ("ComplementNB", {}),
    ("ComplementNB", {"norm": True}),
    ("ComplementNB", {"norm": True, "alpha": "vector"}),
    ("ComplementNB", {"alpha": 2.0, "class_prior": [0.2, 0.5, 0.3]}),
    ("BernoulliNB", {}),
    ("BernoulliNB", {"binarize": 0.5}),
    ("BernoulliNB", {"binarize": 2.0, "alpha": 0.7}),
    ("BernoulliNB", {"fit_prior": False}),
    ("BernoulliNB", {"binarize": 1.0, "class_prior": [0.6, 0.1, 0.3]}),
]


def count_params(params: dict, d: int, seed: int) -> dict:
    if params.get("alpha") == "vector":
        return {**params, "alpha": np.random.default_rng(seed).uniform(0.01, 3.0, d)}
    return params


def case_id(case) -> str:
    name, params = case
    return name + "".join(f"-{k}={v}" for k, v in params.items())


@pytest.mark.parametrize("case", COUNT_CASES, ids=[case_id(c) for c in COUNT_CASES])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("seed", SEEDS)
def test_count_models_fit(case, sparse, weighted, seed):
    name, params = case
    X, y, X_test, weight = count_data(seed, sparse=sparse)
    params = count_params(params, X.shape[1], seed)
    w = weight if weighted else None
    ours = getattr(nbayes, name)(**params).fit(X, y, sample_weight=w)
    theirs = getattr(skl, name)(**params).fit(X, y, sample_weight=w)
    assert_equivalent(ours, theirs, X_test)
    assert_equivalent(ours, theirs, X, fitted=False)


@pytest.mark.parametrize("case", COUNT_CASES, ids=[case_id(c) for c in COUNT_CASES])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("seed", SEEDS[:2])
def test_count_models_partial_fit(case, sparse, seed):
    name, params = case
    X, y, X_test, weight = count_data(seed, sparse=sparse)
    params = count_params(params, X.shape[1], seed)
    ours = getattr(nbayes, name)(**params)
    theirs = getattr(skl, name)(**params)
    for part in batches(X.shape[0], seed):
        ours.partial_fit(X[part], y[part], classes=[0, 1, 2], sample_weight=weight[part])
        theirs.partial_fit(X[part], y[part], classes=[0, 1, 2], sample_weight=weight[part])
        assert_equivalent(ours, theirs, X_test)


def test_class_declared_but_never_seen_in_partial_fit():
    X, y, X_test, _ = count_data(3)
    keep = y != 2
    ours = nbayes.MultinomialNB().partial_fit(X[keep], y[keep], classes=[0, 1, 2])
    theirs = skl.MultinomialNB().partial_fit(X[keep], y[keep], classes=[0, 1, 2])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # scikit-learn's log(0)
        assert_equivalent(ours, theirs, X_test)
    assert ours.class_log_prior_[2] == -np.inf
    assert np.all(ours.predict_proba(X_test)[:, 2] == 0.0)


def test_small_alpha_without_force_alpha_is_raised_to_1e_10_like_sklearn():
    X, y, X_test, _ = count_data(4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for name in ("MultinomialNB", "BernoulliNB", "ComplementNB"):
            ours = getattr(nbayes, name)(alpha=0.0, force_alpha=False).fit(X, y)
            theirs = getattr(skl, name)(alpha=0.0, force_alpha=False).fit(X, y)
            assert_equivalent(ours, theirs, X_test)
    with pytest.warns(UserWarning, match="alpha too small"):
        nbayes.MultinomialNB(alpha=0.0, force_alpha=False).fit(X, y).predict(X_test)


def test_bernoulli_binarize_none_on_binary_and_fractional_data():
    X, y, X_test, weight = count_data(5)
    # 0/1 data, and values in [0, 1] (a "soft" presence, as scikit-learn's formula takes it)
    for data, test in ((np.minimum(X, 1), np.minimum(X_test, 1)), (X / 12, X_test / 12)):
        assert data.max() <= 1 and test.max() <= 1
        for input_ in (lambda a: a, sp.csr_array):
            ours = nbayes.BernoulliNB(binarize=None).fit(input_(data), y, sample_weight=weight)
            theirs = skl.BernoulliNB(binarize=None).fit(input_(data), y, sample_weight=weight)
            assert_equivalent(ours, theirs, input_(test))
    # counts above 1 with binarize=None would give P(x_t = 1 | c) > 1 and NaN log-likelihoods
    # (scikit-learn returns them with a RuntimeWarning): nbayes refuses them, naming the place
    with pytest.raises(ValueError, match=r"binarize=None takes binary features.*at row"):
        nbayes.BernoulliNB(binarize=None).fit(X, y)


def test_bernoulli_per_feature_alpha_by_formula():
    """scikit-learn's BernoulliNB cannot take an alpha vector (it adds 2α to the K class
    counts); nbayes' is (df_{c,t} + α_t) / (N_c + 2α_t), checked here by hand."""
    X, y, X_test, weight = count_data(9)
    alpha = np.random.default_rng(9).uniform(0.01, 3.0, X.shape[1])
    model = nbayes.BernoulliNB(alpha=alpha).fit(X, y, sample_weight=weight)
    present = (X > 0).astype(float)
    N_c = np.array([weight[y == c].sum() for c in range(3)])
    df = np.stack([(weight[y == c, None] * present[y == c]).sum(axis=0) for c in range(3)])
    p = (df + alpha) / (N_c[:, None] + 2 * alpha)
    np.testing.assert_allclose(np.exp(model.feature_log_prob_), p, rtol=1e-13)
    x = (X_test > 0).astype(float)
    joint = np.log(N_c / N_c.sum()) + x @ np.log(p).T + (1 - x) @ np.log(1 - p).T
    np.testing.assert_allclose(model.predict_joint_log_proba(X_test), joint, rtol=1e-12)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(sp.csr_array(X_test)), joint, rtol=1e-12
    )


def test_integer_and_csr_matrix_inputs():
    X, y, X_test, _ = count_data(6)
    for convert in (lambda a: a.astype(np.int64), sp.csr_matrix, lambda a: sp.csr_array(a).tocsc()):
        ours = nbayes.MultinomialNB().fit(convert(X), y)
        theirs = skl.MultinomialNB().fit(convert(X), y)
        assert_equivalent(ours, theirs, convert(X_test))


def test_string_labels():
    X, y, X_test, _ = count_data(7)
    labels = np.array(["spam", "ham", "eggs"])[y]
    ours = nbayes.ComplementNB().fit(X, labels)
    theirs = skl.ComplementNB().fit(X, labels)
    assert_equivalent(ours, theirs, X_test)


# --------------------------------------------------------------------------- Gaussian
GAUSSIAN_CASES = [
    {},
    {"var_smoothing": 0.0},
    {"var_smoothing": 0.1},
    {"priors": [0.5, 0.25, 0.25]},
]


@pytest.mark.parametrize("params", GAUSSIAN_CASES, ids=[str(p) for p in GAUSSIAN_CASES])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("seed", SEEDS)
def test_gaussian_fit(params, weighted, seed):
    X, y, X_test, weight = real_data(seed)
    w = weight if weighted else None
    ours = nbayes.GaussianNB(**params).fit(X, y, sample_weight=w)
    theirs = skl.GaussianNB(**params).fit(X, y, sample_weight=w)
    assert_equivalent(ours, theirs, X_test)
    assert_equivalent(ours, theirs, X, fitted=False)


@pytest.mark.parametrize("params", GAUSSIAN_CASES, ids=[str(p) for p in GAUSSIAN_CASES])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("seed", SEEDS[:2])
def test_gaussian_partial_fit(params, weighted, seed):
    X, y, X_test, weight = real_data(seed)
    ours = nbayes.GaussianNB(**params)
    theirs = skl.GaussianNB(**params)
    seen = np.zeros(0, dtype=int)
    for part in batches(X.shape[0], seed):
        w = weight[part] if weighted else None
        ours.partial_fit(X[part], y[part], classes=[0, 1, 2], sample_weight=w)
        theirs.partial_fit(X[part], y[part], classes=[0, 1, 2], sample_weight=w)
        seen = np.concatenate([seen, part])
        # scikit-learn's partial_fit recomputes epsilon_ from the newest batch alone, so its
        # var_ and predictions are not those of any fit. nbayes computes epsilon from all rows
        # seen so far, which is scikit-learn's fit on their union: compare with that, and with
        # partial_fit's statistics that do not involve epsilon.
        union = skl.GaussianNB(**params).fit(
            X[seen], y[seen], sample_weight=weight[seen] if weighted else None
        )
        assert_equivalent(ours, union, X_test)
        # (its var_ - epsilon_ is not comparable either: it subtracts the new batch's epsilon
        # from a variance that holds the previous one, so the error accumulates)
        assert_close(ours.theta_, theirs.theta_, "theta_ (partial_fit)")
        assert_close(ours.class_count_, theirs.class_count_, "class_count_ (partial_fit)")


def test_gaussian_far_from_zero_matches_sklearn():
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 300)
    X = 1e6 + rng.normal(y[:, None] * 0.5, 1.0, (300, 3))
    X_test = 1e6 + rng.normal(0.25, 1.5, (50, 3))
    ours, theirs = nbayes.GaussianNB().fit(X, y), skl.GaussianNB().fit(X, y)
    assert_close(ours.var_, theirs.var_, "var_")
    assert_close(ours.predict_log_proba(X_test), theirs.predict_log_proba(X_test), "log_proba")


# --------------------------------------------------------------------------- Categorical
CATEGORICAL_CASES = [
    {},
    {"alpha": 0.4},
    {"min_categories": 6},
    {"min_categories": [4, 7, 5, 9]},
    {"fit_prior": False, "alpha": 2.0},
    {"class_prior": [0.1, 0.6, 0.3]},
]


@pytest.mark.parametrize("params", CATEGORICAL_CASES, ids=[str(p) for p in CATEGORICAL_CASES])
@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("seed", SEEDS)
def test_categorical_fit(params, weighted, seed):
    X, y, X_test, weight = code_data(seed)
    w = weight if weighted else None
    ours = nbayes.CategoricalNB(**params).fit(X, y, sample_weight=w)
    theirs = skl.CategoricalNB(**params).fit(X, y, sample_weight=w)
    assert_equivalent(ours, theirs, X_test)
    assert_equivalent(ours, theirs, X.astype(np.float64), fitted=False)


@pytest.mark.parametrize("params", CATEGORICAL_CASES, ids=[str(p) for p in CATEGORICAL_CASES])
@pytest.mark.parametrize("seed", SEEDS[:2])
def test_categorical_partial_fit_with_growing_categories(params, seed):
    X, y, X_test, weight = code_data(seed, levels=5)
    X[:5] = np.arange(5)[:, None]
    ours, theirs = nbayes.CategoricalNB(**params), skl.CategoricalNB(**params)
    # the first batch sees only codes 0..2: later batches bring new ones
    order = np.argsort(X.max(axis=1), kind="stable")
    for part in np.array_split(order, 4):
        ours.partial_fit(X[part], y[part], classes=[0, 1, 2], sample_weight=weight[part])
        theirs.partial_fit(X[part], y[part], classes=[0, 1, 2], sample_weight=weight[part])
    assert_equivalent(ours, theirs, X_test)


# --------------------------------------------------------------------------- pandas input
@pytest.mark.parametrize(
    "name", ["GaussianNB", "MultinomialNB", "ComplementNB", "BernoulliNB", "CategoricalNB"]
)
def test_dataframe_input_keeps_feature_names(name):
    maker = code_data if name == "CategoricalNB" else count_data
    X, y, X_test, _ = maker(8)
    columns = [f"col_{j}" for j in range(X.shape[1])]
    frame, frame_test = pd.DataFrame(X, columns=columns), pd.DataFrame(X_test, columns=columns)
    ours = getattr(nbayes, name)().fit(frame, pd.Series(y))
    theirs = getattr(skl, name)().fit(frame, pd.Series(y))
    assert list(ours.feature_names_in_) == columns
    assert ours.feature_names_in_.dtype == object
    assert_equivalent(ours, theirs, frame_test)


# --------------------------------------------------------------------------- beyond sklearn: NaN
def test_categorical_nan_is_skipped_in_fit_and_predict():
    rng = np.random.default_rng(12)
    X, y, X_test, weight = code_data(12)
    X = X.astype(np.float64)
    X[rng.random(X.shape) < 0.25] = np.nan
    X[:4, :] = np.arange(4)[:, None]  # keep every code present
    X_test = X_test.astype(np.float64)
    X_test[rng.random(X_test.shape) < 0.3] = np.nan
    X_test[0, :] = np.nan  # a row with nothing observed
    alpha = 0.7
    model = nbayes.CategoricalNB(alpha=alpha).fit(X, y, sample_weight=weight)

    K, d = 3, X.shape[1]
    S = np.nanmax(X, axis=0).astype(int) + 1
    N_c = np.array([weight[y == c].sum() for c in range(K)])  # every row counts for the prior
    np.testing.assert_allclose(model.class_count_, N_c, rtol=1e-13)
    joint = np.tile(np.log(N_c / N_c.sum()), (X_test.shape[0], 1))
    for j in range(d):
        present = ~np.isnan(X[:, j])
        counts = np.zeros((K, S[j]))
        for c in range(K):
            for v in range(S[j]):
                counts[c, v] = weight[present & (y == c) & (X[:, j] == v)].sum()
        np.testing.assert_allclose(model.category_count_[j], counts, rtol=1e-13, atol=1e-13)
        log_p = np.log(counts + alpha) - np.log(counts.sum(axis=1, keepdims=True) + S[j] * alpha)
        np.testing.assert_allclose(model.feature_log_prob_[j], log_p, rtol=1e-13)
        observed = ~np.isnan(X_test[:, j])
        joint[observed] += log_p[:, X_test[observed, j].astype(int)].T
    np.testing.assert_allclose(model.predict_joint_log_proba(X_test), joint, rtol=1e-13)
    proba = model.predict_proba(X_test)
    np.testing.assert_allclose(proba[0], N_c / N_c.sum(), rtol=1e-13)  # nothing seen: prior
    expected = np.exp(joint - joint.max(axis=1, keepdims=True))
    np.testing.assert_allclose(proba, expected / expected.sum(axis=1, keepdims=True), atol=1e-13)


def test_categorical_nan_at_prediction_equals_model_without_that_feature():
    X, y, X_test, _ = code_data(13)
    X_test = X_test.astype(np.float64)
    X_test[:, 2] = np.nan
    full = nbayes.CategoricalNB().fit(X, y)
    without = nbayes.CategoricalNB().fit(np.delete(X, 2, axis=1), y)
    reference = skl.CategoricalNB().fit(np.delete(X, 2, axis=1), y)
    expected = reference.predict_proba(np.delete(X_test, 2, axis=1).astype(int))
    np.testing.assert_allclose(full.predict_proba(X_test), expected, atol=ATOL)
    np.testing.assert_allclose(
        without.predict_proba(np.delete(X_test, 2, axis=1)), expected, atol=ATOL
    )


def test_gaussian_nan_is_skipped_in_fit_and_predict():
    rng = np.random.default_rng(14)
    X, y, X_test, weight = real_data(14)
    X[rng.random(X.shape) < 0.2] = np.nan
    X_test[rng.random(X_test.shape) < 0.3] = np.nan
    var_smoothing = 1e-3
    model = nbayes.GaussianNB(var_smoothing=var_smoothing).fit(X, y, sample_weight=weight)

    K = 3
    epsilon = var_smoothing * np.nanvar(X, axis=0).max()  # unweighted, over observed values
    np.testing.assert_allclose(model.epsilon_, epsilon, rtol=1e-12)
    N_c = np.array([weight[y == c].sum() for c in range(K)])
    joint = np.tile(np.log(N_c / N_c.sum()), (X_test.shape[0], 1))
    for c in range(K):
        rows = X[y == c]
        w = np.where(np.isnan(rows), 0.0, weight[y == c][:, None])
        mu = np.nansum(w * rows, axis=0) / w.sum(axis=0)
        var = np.nansum(w * (rows - mu) ** 2, axis=0) / w.sum(axis=0) + epsilon
        np.testing.assert_allclose(model.theta_[c], mu, rtol=1e-12)
        np.testing.assert_allclose(model.var_[c], var, rtol=1e-12)
        terms = -0.5 * np.log(2 * np.pi * var) - 0.5 * (X_test - mu) ** 2 / var
        joint[:, c] += np.nansum(terms, axis=1)
    np.testing.assert_allclose(model.predict_joint_log_proba(X_test), joint, rtol=1e-12)
    expected = np.exp(joint - joint.max(axis=1, keepdims=True))
    np.testing.assert_allclose(
        model.predict_proba(X_test), expected / expected.sum(axis=1, keepdims=True), atol=1e-12
    )


def test_gaussian_without_nan_in_a_column_equals_sklearn_on_the_rest():
    X, y, X_test, _ = real_data(15)
    X_test[:, 1] = np.nan
    ours = nbayes.GaussianNB(var_smoothing=0.0).fit(X, y)
    theirs = skl.GaussianNB(var_smoothing=0.0).fit(np.delete(X, 1, axis=1), y)
    assert_close(
        ours.predict_proba(X_test), theirs.predict_proba(np.delete(X_test, 1, axis=1)), "proba"
    )


# --------------------------------------------------------------------------- unseen categories
def _unseen_problem():
    X, y, X_test, _ = code_data(16)  # codes 0..3 in fitting
    X_test = X_test[:10].copy()
    X_test[2, 1] = 7  # unseen code in feature 1
    X_test[5, 1] = 4
    X_test[5, 3] = 9  # and in feature 3
    X_test[7, :] = 5  # every feature unseen
    return X, y, X_test


def test_unseen_category_ignored_by_default():
    X, y, X_test = _unseen_problem()
    model = nbayes.CategoricalNB().fit(X, y)
    with pytest.warns(
        nbayes.UnseenCategoryWarning,
        match=r"feature 0: 1, feature 1: 3, feature 2: 1, feature 3: 2",
    ):
        got = model.predict_joint_log_proba(X_test)
    expected = np.tile(model.class_log_prior_, (X_test.shape[0], 1))
    for j in range(X.shape[1]):
        seen = X_test[:, j] < model.n_categories_[j]
        expected[seen] += model.feature_log_prob_[j][:, X_test[seen, j]].T
    np.testing.assert_allclose(got, expected, rtol=1e-13)
    with pytest.warns(nbayes.UnseenCategoryWarning):
        proba = model.predict_proba(X_test)
    np.testing.assert_allclose(proba[7], np.exp(model.class_log_prior_), rtol=1e-13)
    # rows without unseen codes are exactly scikit-learn's
    clean = [0, 1, 3, 4, 6, 8, 9]
    reference = skl.CategoricalNB().fit(X, y)
    assert_close(proba[clean], reference.predict_proba(X_test[clean]), "proba")
    # with a DataFrame the warning names the column
    columns = ["colour", "size", "shape", "weight"]
    framed = nbayes.CategoricalNB().fit(pd.DataFrame(X, columns=columns), y)
    with pytest.warns(nbayes.UnseenCategoryWarning, match=r"feature 1 \('size'\): 3"):
        framed.predict(pd.DataFrame(X_test, columns=columns))


def test_unseen_category_smooth():
    """Each feature gets one extra value: P = (n + λ) / (N_cj + (S_j+1)λ), unseen: λ / (…)."""
    X, y, X_test = _unseen_problem()
    alpha = 0.5
    model = nbayes.CategoricalNB(alpha=alpha, unknown="smooth").fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing to warn about: the user asked for it
        got = model.predict_joint_log_proba(X_test)
    expected = np.tile(model.class_log_prior_, (X_test.shape[0], 1))
    for j in range(X.shape[1]):
        counts = model.category_count_[j]
        S = counts.shape[1]
        denominator = counts.sum(axis=1) + (S + 1) * alpha
        for i, v in enumerate(X_test[:, j]):
            numerator = counts[:, v] + alpha if v < S else np.full(3, alpha)
            expected[i] += np.log(numerator / denominator)
    np.testing.assert_allclose(got, expected, rtol=1e-13)
    assert np.all(np.isfinite(got))


def test_unseen_category_error():
    X, y, X_test = _unseen_problem()
    model = nbayes.CategoricalNB(unknown="error").fit(X, y)
    with pytest.raises(ValueError, match=r"not seen in fitting \(first at row 2\).*feature 1: 3"):
        model.predict(X_test)
    model.predict(X_test[:2])  # rows with known codes are fine


def test_partial_fit_learns_new_codes_then_predicts_them():
    X, y, X_test = _unseen_problem()
    model = nbayes.CategoricalNB().fit(X, y)
    model.partial_fit(X_test, np.arange(len(X_test)) % 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.predict(X_test)
    theirs = skl.CategoricalNB().fit(np.vstack([X, X_test]), np.r_[y, np.arange(len(X_test)) % 3])
    assert_equivalent(model, theirs, X_test)


# --------------------------------------------------------------------------- random small problems
@st.composite
def small_problems(draw):
    n = draw(st.integers(1, 30))
    d = draw(st.integers(1, 5))
    k = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2**32 - 1))
    weighted = draw(st.booleans())
    sparse = draw(st.booleans())
    return n, d, k, seed, weighted, sparse


@pytest.mark.parametrize(
    "name", ["GaussianNB", "MultinomialNB", "ComplementNB", "BernoulliNB", "CategoricalNB"]
)
@settings(max_examples=40, deadline=None)
@given(problem=small_problems())
def test_random_small_problems_match_sklearn(name, problem):
    """Tiny and degenerate data: one row, one class, constant or all-zero features."""
    n, d, k, seed, weighted, sparse = problem
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    if name == "GaussianNB":
        X = np.round(rng.normal(0.0, 2.0, (n, d)), 1)  # rounding makes ties and constants
        X_test = np.round(rng.normal(0.0, 2.0, (5, d)), 1)
    else:
        X = rng.poisson(rng.uniform(0.0, 2.0, d), (n, d)).astype(float)
        X_test = rng.poisson(1.0, (5, d)).astype(float)
        if name == "CategoricalNB":
            X_test = np.minimum(X_test, X.max(axis=0))
        elif sparse:
            X, X_test = sp.csr_array(X), sp.csr_array(X_test)
    w = rng.uniform(0.1, 3.0, n) if weighted else None
    ours = getattr(nbayes, name)().fit(X, y, sample_weight=w)
    theirs = getattr(skl, name)().fit(X, y, sample_weight=w)
    for attribute in ATTRIBUTES:
        if hasattr(theirs, attribute):
            assert_close(getattr(ours, attribute), getattr(theirs, attribute), attribute)
    if name == "GaussianNB" and theirs.var_.min() <= np.finfo(np.float64).eps:
        # a zero variance (one row per class and var_smoothing · 0): scikit-learn divides by
        # it, or by its round-off residue, and gets NaN or any size; nbayes floors it at machine
        # epsilon (documented) and only has to stay finite and normalised
        assert np.all(np.isfinite(ours.predict_log_proba(X_test)))
        np.testing.assert_allclose(ours.predict_proba(X_test).sum(axis=1), 1.0)
        return
    tolerance = np.full((X_test.shape[0], 1), ATOL)
    if name == "GaussianNB":
        # nbayes expands −½(x − μ)²/σ² around the pooled mean m into terms in x' and x'²; terms
        # of size ((x − m)² + (μ − m)²)/σ² then cancel, and leave a few ulps of that size. Random
        # degenerate data (a class of one row: σ² = ε) makes them large, so the round-off
        # allowed is that size times 1e-14 (a documented property of the design)
        m = X.mean(axis=0)
        size = ((X_test[:, None, :] - m) ** 2 + (ours.theta_ - m) ** 2) / ours.var_
        tolerance = ATOL + 1e-14 * size.sum(axis=2).max(axis=1, keepdims=True)
    for method in ("predict_joint_log_proba", "predict_log_proba", "predict_proba"):
        got = getattr(ours, method)(X_test)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            expected = getattr(theirs, method)(X_test)
        assert not np.any(np.isnan(got)), method
        valid = ~np.isnan(expected).any(axis=1)
        same = (got == expected) | (np.abs(got - expected) <= tolerance + 1e-12 * np.abs(expected))
        assert np.all(same[valid]), (method, got[valid], expected[valid])
    # decisions agree wherever scikit-learn's is well defined and not a near-tie
    top = np.sort(np.where(np.isnan(expected), 0.0, expected), axis=1)  # its predict_proba
    clear = valid & (top[:, -1] - (top[:, -2] if top.shape[1] > 1 else 0.0) > 1e-9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        theirs_decision = theirs.predict(X_test)
    np.testing.assert_array_equal(ours.predict(X_test)[clear], theirs_decision[clear])


# --------------------------------------------------------------------------- PoissonNB (no twin)
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("alpha", [0.5, 1.0, 3.0])
def test_poisson_matches_scipy_logpmf(sparse, alpha):
    """scikit-learn has no PoissonNB: λ_cj = (Σ_i w_i x_ij + α) / (N_c + α), and the joint is
    log P(c) + Σ_j log Poisson(x_j; λ_cj), with scipy.stats as the reference density."""
    from scipy.stats import poisson

    X, y, X_test, weight = count_data(20)
    model = nbayes.PoissonNB(alpha=alpha).fit(
        sp.csr_array(X) if sparse else X, y, sample_weight=weight
    )
    N_c = np.array([weight[y == c].sum() for c in range(3)])
    sums = np.stack([(weight[y == c, None] * X[y == c]).sum(axis=0) for c in range(3)])
    rate = (sums + alpha) / (N_c[:, None] + alpha)
    np.testing.assert_allclose(model.rate_, rate, rtol=1e-13)
    joint = np.log(N_c / N_c.sum()) + np.stack(
        [poisson.logpmf(X_test, rate[c]).sum(axis=1) for c in range(3)], axis=1
    )
    Z = sp.csr_array(X_test) if sparse else X_test
    np.testing.assert_allclose(model.predict_joint_log_proba(Z), joint, rtol=1e-12, atol=ATOL)
    expected = np.exp(joint - joint.max(axis=1, keepdims=True))
    np.testing.assert_allclose(
        model.predict_proba(Z), expected / expected.sum(axis=1, keepdims=True), atol=ATOL
    )
