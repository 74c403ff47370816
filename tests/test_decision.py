"""Bayes decision theory (Duda, Hart & Stork): loss matrices, conditional risk, MAP, and class
priors.

With a loss λ (``loss[i][j]`` = cost of deciding class i when the truth is j) the Bayes decision is
argmin_i R(c_i | x), R(c_i | x) = Σ_j λ_ij P(c_j | x); under 0-1 loss that is the MAP class.
The references here are direct NumPy computations from ``predict_proba`` / ``class_count_`` and
the textbook formulas.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import nbayes


def gaussian_problem(seed: int, n: int = 300, d: int = 4, k: int = 3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    centres = rng.normal(0.0, 1.0, (k, d))
    X = centres[y] + rng.normal(0.0, 1.5, (n, d))
    return X, y, rng


def fitted_models(seed: int):
    """A few families fitted on 3-class data, each with held-out rows to predict."""
    rng = np.random.default_rng(seed)
    n, d = 240, 6
    y = rng.integers(0, 3, n)
    y[:3] = [0, 1, 2]
    rates = rng.uniform(0.2, 3.0, (3, d))
    counts = rng.poisson(rates[y]).astype(float)
    codes = np.minimum(counts, 4)
    real = rates[y] + rng.normal(0, 1.0, (n, d))
    train, test = slice(0, 160), slice(160, None)
    return [
        (nbayes.GaussianNB().fit(real[train], y[train]), real[test]),
        (nbayes.MultinomialNB(alpha=0.5).fit(counts[train], y[train]), counts[test]),
        (
            nbayes.MultinomialNB().fit(sp.csr_array(counts[train]), y[train]),
            sp.csr_array(counts[test]),
        ),
        (nbayes.CategoricalNB().fit(codes[train], y[train]), codes[test]),
        (nbayes.BernoulliNB(binarize=1.0).fit(counts[train], y[train]), counts[test]),
        (nbayes.PoissonNB().fit(counts[train], y[train]), counts[test]),
    ]


MODEL_IDS = ["gaussian", "multinomial", "multinomial-csr", "categorical", "bernoulli", "poisson"]


def random_loss(rng: np.random.Generator, k: int) -> np.ndarray:
    loss = rng.uniform(0.0, 10.0, (k, k))
    loss[np.diag_indices(k)] = rng.uniform(0.0, 0.5, k)
    return loss


# --------------------------------------------------------------------------- minimum risk
@pytest.mark.parametrize("index", range(len(MODEL_IDS)), ids=MODEL_IDS)
def test_predict_is_argmin_of_conditional_risk(index):
    rng = np.random.default_rng(100 + index)
    model, X = fitted_models(index)[index]
    proba = model.predict_proba(X)
    for _ in range(5):
        loss = random_loss(rng, 3)
        risk = proba @ loss.T  # R(c_i | x) = Σ_j λ_ij P(c_j | x)
        np.testing.assert_allclose(model.predict_risk(X, loss=loss), risk, rtol=1e-12, atol=1e-12)
        expected = model.classes_[np.argmin(risk, axis=1)]
        # a decision may only differ where two risks tie to rounding
        got = model.predict(X, loss=loss)
        sorted_risk = np.sort(risk, axis=1)
        clear = sorted_risk[:, 1] - sorted_risk[:, 0] > 1e-9
        np.testing.assert_array_equal(got[clear], expected[clear])
        chosen_risk = risk[np.arange(len(got)), np.searchsorted(model.classes_, got)]
        np.testing.assert_allclose(chosen_risk, sorted_risk[:, 0], rtol=1e-9, atol=1e-12)


def test_predict_risk_without_loss_is_one_minus_posterior():
    X, y, _ = gaussian_problem(1)
    model = nbayes.GaussianNB().fit(X, y)
    np.testing.assert_allclose(model.predict_risk(X), 1.0 - model.predict_proba(X), atol=1e-15)


@pytest.mark.parametrize("scale", [1.0, 5.0, 1e-3])
def test_zero_one_loss_reproduces_map_exactly(scale):
    """0-1 loss (and any a·(1−I), a > 0) gives exactly the MAP decisions, ties included."""
    rng = np.random.default_rng(2)
    n, d = 2000, 3
    y = rng.integers(0, 4, n)
    X = rng.normal(0.0, 1.0, (n, d)) + 0.3 * y[:, None]
    # classes 1 and 2 see the same rows: their likelihoods tie exactly on every row; priors that
    # differ in the last bits then make near-ties (posteriors a few ulps apart), where a risk
    # computed as Σ_j λ_ij P(c_j|x) could round to the other side
    base = X[y == 1]
    X_fit = np.vstack([X[y == 0], base, base, X[y == 3]])
    y_fit = np.repeat([0, 1, 2, 3], [np.sum(y == 0), len(base), len(base), np.sum(y == 3)])
    zero_one = scale * (1.0 - np.eye(4))
    for model, Z in (
        (nbayes.GaussianNB().fit(X_fit, y_fit), X),
        (nbayes.CategoricalNB().fit(np.floor(np.abs(X_fit)), y_fit), np.floor(np.abs(X))),
    ):
        for delta in (0.0, 1e-17, 5e-17, 1e-16, 2e-16, 1e-15):
            for priors in ([0.2, 0.3, 0.3 + delta, 0.2], [0.2, 0.3 + delta, 0.3, 0.2]):
                proba = model.predict_proba(Z, priors=priors)
                if delta == 0.0:
                    assert np.all(proba[:, 1] == proba[:, 2])  # the exact ties are there
                map_decision = model.predict(Z, priors=priors)
                top2 = np.sort(proba, axis=1)[:, -2:]
                distinct = top2[:, 1] > top2[:, 0]  # elsewhere exp() may have merged a near-tie
                np.testing.assert_array_equal(
                    map_decision[distinct], model.classes_[np.argmax(proba, axis=1)][distinct]
                )
                for loss in (zero_one, zero_one.tolist(), "0-1"):
                    assert np.array_equal(model.predict(Z, priors=priors, loss=loss), map_decision)
        with_constructor = type(model)(loss=zero_one)
        with_constructor.fit(X_fit if Z is X else np.floor(np.abs(X_fit)), y_fit)
        assert np.array_equal(with_constructor.predict(Z), model.predict(Z))


def test_asymmetric_loss_moves_decisions_toward_the_costly_miss():
    """Binary case: decide c1 iff λ01 P(c1|x) > λ10 P(c0|x), i.e. P(c1|x) > λ10 / (λ01 + λ10)."""
    X, y, _ = gaussian_problem(3, n=400, k=2)
    model = nbayes.GaussianNB().fit(X, y)
    p1 = model.predict_proba(X)[:, 1]
    plain = model.predict(X)
    for miss_cost in (2.0, 10.0, 100.0):
        # deciding 0 when the truth is 1 costs miss_cost; the opposite error costs 1
        loss = np.array([[0.0, miss_cost], [1.0, 0.0]])
        decided = model.predict(X, loss=loss)
        threshold = 1.0 / (1.0 + miss_cost)
        clear = np.abs(p1 - threshold) > 1e-12
        np.testing.assert_array_equal(decided[clear], (p1 > threshold).astype(int)[clear])
        assert np.all(decided[plain == 1] == 1)  # nothing decided 1 under MAP flips back
        assert np.sum(decided == 1) > np.sum(plain == 1)


def test_reject_like_loss_column_never_chosen_when_dominated():
    # a decision whose loss row is everywhere larger than another's is never taken
    X, y, _ = gaussian_problem(4)
    model = nbayes.GaussianNB().fit(X, y)
    loss = np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [2.0, 2.0, 2.0]])
    assert not np.any(model.predict(X, loss=loss) == 2)


def test_per_call_loss_overrides_constructor_loss():
    X, y, _ = gaussian_problem(5)
    favour_2 = np.array([[0.0, 1.0, 50.0], [1.0, 0.0, 50.0], [1.0, 1.0, 0.0]])
    favour_0 = np.array([[0.0, 50.0, 50.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]])
    model = nbayes.GaussianNB(loss=favour_2).fit(X, y)
    proba = model.predict_proba(X)
    np.testing.assert_array_equal(model.predict(X), np.argmin(proba @ favour_2.T, axis=1))
    np.testing.assert_array_equal(
        model.predict(X, loss=favour_0), np.argmin(proba @ favour_0.T, axis=1)
    )
    np.testing.assert_allclose(model.predict_risk(X), proba @ favour_2.T, atol=1e-12)
    np.testing.assert_allclose(model.predict_risk(X, loss=favour_0), proba @ favour_0.T, atol=1e-12)
    assert not np.array_equal(model.predict(X), model.predict(X, loss=favour_0))
    # "0-1" per call switches the constructor's loss off
    np.testing.assert_array_equal(model.predict(X, loss="0-1"), np.argmax(proba, axis=1))


def test_loss_is_in_classes_order_with_string_labels():
    X, y, _ = gaussian_problem(6, k=2)
    labels = np.where(y == 1, "spam", "ham")  # classes_ = ["ham", "spam"]
    model = nbayes.GaussianNB().fit(X, labels)
    # calling ham what is spam is cheap; calling spam what is ham is very costly
    loss = np.array([[0.0, 1.0], [20.0, 0.0]])
    p_spam = model.predict_proba(X)[:, 1]
    decided = model.predict(X, loss=loss)
    clear = np.abs(p_spam - 20.0 / 21.0) > 1e-12
    np.testing.assert_array_equal(
        decided[clear], np.where(p_spam > 20.0 / 21.0, "spam", "ham")[clear]
    )


# --------------------------------------------------------------------------- priors
def discrete_problem(seed: int):
    rng = np.random.default_rng(seed)
    n = 90
    y = rng.choice(3, size=n, p=[0.6, 0.3, 0.1])
    y[:3] = [0, 1, 2]
    X = rng.poisson(1.0 + y[:, None], (n, 4)).astype(float)
    weight = rng.uniform(0.2, 3.0, n)
    return X, y, weight


DISCRETE = [c for c in nbayes.ESTIMATORS if c is not nbayes.GaussianNB]


@pytest.mark.parametrize("cls", DISCRETE, ids=[c.__name__ for c in DISCRETE])
@pytest.mark.parametrize("weighted", [False, True])
def test_class_prior_modes(cls, weighted):
    X, y, weight = discrete_problem(7)
    w = weight if weighted else np.ones(len(y))
    N_c = np.array([w[y == c].sum() for c in range(3)])
    N, K = N_c.sum(), 3

    def prior(**params):
        return cls(**params).fit(X, y, sample_weight=w if weighted else None).class_log_prior_

    np.testing.assert_allclose(prior(), np.log(N_c / N), rtol=1e-13)
    np.testing.assert_allclose(prior(class_prior="mle"), np.log(N_c / N), rtol=1e-13)
    np.testing.assert_allclose(prior(class_prior="uniform"), np.log(np.full(K, 1 / K)))
    np.testing.assert_allclose(prior(fit_prior=False), np.log(np.full(K, 1 / K)))
    # smoothed: λ is the model's alpha unless prior_alpha is given
    for alpha in (1.0, 0.25, 3.0):
        np.testing.assert_allclose(
            prior(class_prior="smoothed", alpha=alpha),
            np.log((N_c + alpha) / (N + K * alpha)),
            rtol=1e-13,
        )
    np.testing.assert_allclose(
        prior(class_prior="smoothed", alpha=0.3, prior_alpha=7.0),
        np.log((N_c + 7.0) / (N + K * 7.0)),
        rtol=1e-13,
    )
    given = [0.5, 0.2, 0.3]
    np.testing.assert_allclose(prior(class_prior=given), np.log(given), rtol=1e-15)
    # a given prior wins over fit_prior, as in scikit-learn
    np.testing.assert_allclose(prior(class_prior=given, fit_prior=False), np.log(given))


@pytest.mark.parametrize("weighted", [False, True])
def test_gaussian_priors(weighted):
    X, y, weight = discrete_problem(8)
    w = weight if weighted else None
    N_c = np.array([(weight if weighted else np.ones(len(y)))[y == c].sum() for c in range(3)])
    N, K = N_c.sum(), 3

    def model(**params):
        return nbayes.GaussianNB(**params).fit(X, y, sample_weight=w)

    for m, expected in [
        (model(), N_c / N),
        (model(priors="mle"), N_c / N),
        (model(priors="uniform"), np.full(K, 1 / K)),
        (model(priors="smoothed"), (N_c + 1.0) / (N + K)),
        (model(priors="smoothed", prior_alpha=2.5), (N_c + 2.5) / (N + K * 2.5)),
        (model(priors=[0.1, 0.1, 0.8]), np.array([0.1, 0.1, 0.8])),
    ]:
        np.testing.assert_allclose(m.class_prior_, expected, rtol=1e-13)
        np.testing.assert_allclose(m.class_log_prior_, np.log(expected), rtol=1e-13)


def test_prior_enters_the_joint_log_likelihood_additively():
    X, y, _ = discrete_problem(9)
    a = nbayes.MultinomialNB(class_prior=[0.2, 0.3, 0.5]).fit(X, y)
    b = nbayes.MultinomialNB(class_prior="uniform").fit(X, y)
    np.testing.assert_allclose(
        a.predict_joint_log_proba(X) - np.log([0.2, 0.3, 0.5]),
        b.predict_joint_log_proba(X) - np.log(1 / 3),
        rtol=1e-13,
    )


def _bayes_with_new_prior(model, X, new_prior) -> np.ndarray:
    """posterior ∝ P(x | c) × new prior, from the model's own joint log-likelihood."""
    log_likelihood = model.predict_joint_log_proba(X) - model.class_log_prior_
    joint = log_likelihood + np.log(new_prior)
    joint -= joint.max(axis=1, keepdims=True)
    p = np.exp(joint)
    return p / p.sum(axis=1, keepdims=True)


PER_CALL = [
    lambda: nbayes.GaussianNB(),
    lambda: nbayes.MultinomialNB(),
    lambda: nbayes.CategoricalNB(class_prior="smoothed"),
    lambda: nbayes.BernoulliNB(fit_prior=False),
    lambda: nbayes.PoissonNB(class_prior=[0.3, 0.3, 0.4]),
]


@pytest.mark.parametrize("make", PER_CALL, ids=["gauss", "multi", "categ", "bern", "poisson"])
def test_per_call_priors_follow_bayes_rule(make):
    X, y, _ = discrete_problem(10)
    model = make().fit(X, y)
    before = model.class_log_prior_.copy()
    for new in ([0.8, 0.1, 0.1], [0.05, 0.05, 0.9], [1 / 3, 1 / 3, 1 / 3]):
        expected = _bayes_with_new_prior(model, X, np.array(new))
        np.testing.assert_allclose(model.predict_proba(X, priors=new), expected, atol=1e-12)
        np.testing.assert_allclose(
            model.predict_log_proba(X, priors=new), np.log(expected), rtol=1e-9, atol=1e-12
        )
        np.testing.assert_array_equal(
            model.predict(X, priors=new), model.classes_[np.argmax(expected, axis=1)]
        )
        np.testing.assert_allclose(
            model.predict_joint_log_proba(X, priors=new),
            model.predict_joint_log_proba(X) - before + np.log(new),
            rtol=1e-13,
        )
    # the modes work per call too; and the per-call prior never sticks
    np.testing.assert_allclose(
        model.predict_proba(X, priors="uniform"),
        _bayes_with_new_prior(model, X, np.full(3, 1 / 3)),
        atol=1e-12,
    )
    np.testing.assert_array_equal(model.class_log_prior_, before)


def test_per_call_prior_with_a_zero_excludes_that_class():
    X, y, _ = discrete_problem(11)
    model = nbayes.MultinomialNB().fit(X, y)
    proba = model.predict_proba(X, priors=[0.5, 0.0, 0.5])
    assert np.all(proba[:, 1] == 0.0)
    assert np.all(model.predict_log_proba(X, priors=[0.5, 0.0, 0.5])[:, 1] == -np.inf)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert not np.any(model.predict(X, priors=[0.5, 0.0, 0.5]) == 1)


def test_per_call_priors_by_class_name():
    """priors= may name the classes: {label: probability} is the vector in classes_' order,
    whatever the dict's order; a class left out, or a label the model does not know, is
    refused naming it; the constructor's class_prior stays a mode or a vector."""
    X, y, _ = discrete_problem(12)
    labels = np.array(["ham", "spam", "eggs"])[y]
    model = nbayes.CategoricalNB().fit(X, labels)  # classes_: eggs, ham, spam
    by_name = {"spam": 0.1, "eggs": 0.3, "ham": 0.6}
    np.testing.assert_array_equal(
        model.predict_proba(X, priors=by_name), model.predict_proba(X, priors=[0.3, 0.6, 0.1])
    )
    with pytest.raises(ValueError, match=r"no probability for the class\(es\) \['eggs'\]"):
        model.predict(X, priors={"spam": 0.5, "ham": 0.5})
    with pytest.raises(ValueError, match=r"does not know: \['spma'\]; did you mean 'spam'\?"):
        model.predict(X, priors={"spma": 0.1, "eggs": 0.3, "ham": 0.6})
    with pytest.raises(ValueError, match="got a dict"):
        nbayes.CategoricalNB(class_prior=by_name).fit(X, labels)


def test_complement_nb_decisions_ignore_the_prior():
    """ComplementNB's scores are not joint log-probabilities: the prior is not added (paper)."""
    X, y, _ = discrete_problem(12)
    uniform = nbayes.ComplementNB(class_prior="uniform").fit(X, y)
    skewed = nbayes.ComplementNB(class_prior=[0.98, 0.01, 0.01]).fit(X, y)
    np.testing.assert_array_equal(uniform.predict_proba(X), skewed.predict_proba(X))
    np.testing.assert_array_equal(
        uniform.predict_proba(X), uniform.predict_proba(X, priors=[0.9, 0.05, 0.05])
    )
    np.testing.assert_allclose(
        uniform.predict_joint_log_proba(X), X @ uniform.feature_log_prob_.T, rtol=1e-13
    )
