"""Textbook worked examples, each with the figures the worked solution prints: Han & Kamber's
buys_computer example, the programmer table, Bayes' rule worked examples (tree watering, plaid
shirt, LOL players), the Gaussian density of age and the Lidstone estimate.

Where a worked solution prints a rounded figure, the test rounds nbayes' value the same way; where
its arithmetic can be written as exact fractions, the test compares with those fractions.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import nbayes
from nbayes.datasets import load_buys_computer, load_programmers


def fitted_buys_computer(alpha: float = 0.0) -> tuple[nbayes.CategoricalNB, np.ndarray, list]:
    table = load_buys_computer()
    codes, levels = table.codes()
    model = nbayes.CategoricalNB(alpha=alpha).fit(codes, table.y)
    query = {"age": "youth", "income": "medium", "student": "yes", "credit_rating": "fair"}
    x = np.array(
        [[np.searchsorted(levels[j], query[name]) for j, name in enumerate(table.feature_names)]]
    )
    return model, x, levels


def test_buys_computer_priors_and_conditionals():
    model, x, _ = fitted_buys_computer()
    assert list(model.classes_) == ["no", "yes"]
    # P(buys_computer = yes) = 9/14 = 0.643, P(no) = 5/14 = 0.357
    prior = np.exp(model.class_log_prior_)
    assert round(prior[1], 3) == 0.643 and round(prior[0], 3) == 0.357
    conditionals = np.array([np.exp(model.feature_log_prob_[j][:, x[0, j]]) for j in range(4)])
    # Han & Kamber: 2/9=0.222, 4/9=0.444, 6/9=0.667, 6/9=0.667 for yes; 3/5, 2/5, 1/5, 2/5 for no
    np.testing.assert_allclose(conditionals[:, 1], [2 / 9, 4 / 9, 6 / 9, 6 / 9], rtol=1e-14)
    np.testing.assert_allclose(conditionals[:, 0], [3 / 5, 2 / 5, 1 / 5, 2 / 5], rtol=1e-14)
    assert [round(v, 3) for v in conditionals[:, 1]] == [0.222, 0.444, 0.667, 0.667]
    assert [round(v, 3) for v in conditionals[:, 0]] == [0.600, 0.400, 0.200, 0.400]


def test_buys_computer_decision():
    model, x, _ = fitted_buys_computer()
    joint = np.exp(model.predict_joint_log_proba(x)[0])  # P(X|c) P(c), classes [no, yes]
    likelihood = joint / np.exp(model.class_log_prior_)  # P(X|c)
    assert round(likelihood[1], 3) == 0.044  # P(X|yes)
    assert round(likelihood[0], 3) == 0.019  # P(X|no)
    assert round(joint[1], 3) == 0.028  # P(X|yes) P(yes)
    assert round(joint[0], 3) == 0.007  # P(X|no) P(no)
    np.testing.assert_allclose(
        joint[1], float(Fraction(2, 9) * Fraction(4, 9) * Fraction(6, 9) ** 2 * Fraction(9, 14))
    )
    assert model.predict(x)[0] == "yes"


def test_buys_computer_laplace_calibration():
    # class yes: 1000 tuples, income low 0, medium 990, high 10 (codes 0, 1, 2)
    income = np.array([1] * 990 + [2] * 10)[:, None]
    y = np.array(["yes"] * 1000)
    laplace = nbayes.CategoricalNB(alpha=1.0, min_categories=3).fit(income, y)
    p = np.exp(laplace.feature_log_prob_[0][0])
    np.testing.assert_allclose(p, [1 / 1003, 991 / 1003, 11 / 1003], rtol=1e-14)
    assert [round(v, 3) for v in p] == [0.001, 0.988, 0.011]
    mle = nbayes.CategoricalNB(alpha=0.0, min_categories=3).fit(income, y)
    np.testing.assert_allclose(np.exp(mle.feature_log_prob_[0][0]), [0.0, 0.990, 0.010], rtol=1e-14)


def programmer_model(alpha: float, **params) -> tuple[nbayes.CategoricalNB, np.ndarray]:
    table = load_programmers()
    X = table.X.astype(int)
    y = table.y.astype(int)
    return nbayes.CategoricalNB(alpha=alpha, **params).fit(X, y), X


def test_programmer_table_counts():
    model, _ = programmer_model(0.0)
    np.testing.assert_allclose(np.exp(model.class_log_prior_), [1 / 3, 2 / 3])
    p = [np.exp(f) for f in model.feature_log_prob_]  # p[j][class, value]
    np.testing.assert_allclose(p[0], [[3 / 5, 2 / 5], [2 / 5, 3 / 5]])
    np.testing.assert_allclose(p[1], [[1, 0], [1 / 10, 9 / 10]])
    np.testing.assert_allclose(p[2], [[3 / 5, 2 / 5], [1 / 5, 4 / 5]])


def test_programmer_posterior():
    model, _ = programmer_model(0.0)
    posterior = model.predict_proba(np.array([[1, 0, 1]]))[0]
    assert round(posterior[0], 3) == 0.625  # not a programmer
    assert round(posterior[1], 3) == 0.375
    expected = Fraction(1, 3) * Fraction(2, 5) * 1 * Fraction(2, 5)
    other = Fraction(2, 3) * Fraction(3, 5) * Fraction(1, 10) * Fraction(4, 5)
    np.testing.assert_allclose(posterior[0], float(expected / (expected + other)), rtol=1e-14)
    assert model.predict(np.array([[1, 0, 1]]))[0] == 0


def test_programmer_zero_probability_and_laplace_repair():
    x = np.array([[1, 1, 0]])
    mle, _ = programmer_model(0.0)
    # no non-programmer is bald: P(x2=1 | y=0) = 0 wipes out the other two attributes
    assert mle.predict_proba(x)[0, 0] == 0.0
    assert mle.predict_joint_log_proba(x)[0, 0] == -np.inf
    laplace, _ = programmer_model(1.0, class_prior="smoothed")
    # Laplace: priors (|D_c|+1)/(|D|+N), conditionals (|D_c,x|+1)/(|D_c|+N_i)
    joint0 = Fraction(6, 17) * Fraction(3, 7) * Fraction(1, 7) * Fraction(4, 7)
    joint1 = Fraction(11, 17) * Fraction(7, 12) * Fraction(10, 12) * Fraction(3, 12)
    posterior = laplace.predict_proba(x)[0]
    assert posterior[0] > 0
    np.testing.assert_allclose(posterior[0], float(joint0 / (joint0 + joint1)), rtol=1e-13)


def test_bayes_rule_worked_examples():
    # tree watering: P(B2) = 0.215, P(A2 | B2) = 0.372
    assert round(nbayes.total_probability([0.9, 0.1], [0.15, 0.8]), 3) == 0.215
    assert round(nbayes.bayes_rule([0.9, 0.1], [0.15, 0.8])[1], 3) == 0.372
    # plaid shirt: 0.42/0.46 ≈ 0.91 programmer, 0.04/0.46 ≈ 0.09 not
    posterior = nbayes.bayes_rule([0.6, 0.4], [0.7, 0.1])
    assert [round(v, 2) for v in posterior] == [0.91, 0.09]
    np.testing.assert_allclose(posterior, [0.42 / 0.46, 0.04 / 0.46])
    # LOL players: P(plays | male) = 0.8·0.6 / (0.8·0.6 + 0.2·0.4)
    lol = nbayes.bayes_rule([0.6, 0.4], [0.8, 0.2])
    np.testing.assert_allclose(lol[0], 0.48 / 0.56)
    assert round(lol[0], 3) == 0.857


def test_plaid_shirt_through_a_fitted_model():
    # 10 programmers of whom 7 wear plaid, 10 others of whom 1 does; office prior 0.6 / 0.4
    plaid = np.array([1] * 7 + [0] * 3 + [1] * 1 + [0] * 9)[:, None]
    y = np.array(["programmer"] * 10 + ["other"] * 10)
    model = nbayes.CategoricalNB(alpha=0.0, class_prior=[0.4, 0.6]).fit(plaid, y)
    assert list(model.classes_) == ["other", "programmer"]
    np.testing.assert_allclose(model.predict_proba([[1]])[0], [0.04 / 0.46, 0.42 / 0.46])


def test_gaussian_age_density():
    # after Han & Kamber: buyers' age is 38 ± 12, so μ = 38, σ = 12 for class yes,
    # and P(age = 35 | yes) = g(35, 38, 12) = 0.032. Two buyers aged 26 and 50 have exactly
    # this mean and (maximum-likelihood) standard deviation.
    age = np.array([[26.0], [50.0], [20.0], [22.0]])
    y = np.array(["yes", "yes", "no", "no"])
    model = nbayes.GaussianNB(var_smoothing=0.0).fit(age, y)
    assert model.theta_[1, 0] == 38.0
    assert math.sqrt(model.var_[1, 0]) == 12.0
    density = np.exp(model.predict_joint_log_proba([[35.0]])[0] - model.class_log_prior_)
    by_formula = 1 / (math.sqrt(2 * math.pi) * 12) * math.exp(-((35 - 38) ** 2) / (2 * 12**2))
    np.testing.assert_allclose(density[1], by_formula, rtol=1e-13)
    assert round(density[1], 3) == 0.032


def test_mnist_parameter_count():
    # K · Σ_j S_j conditional parameters (10 · 784 · 256), not K · ∏_j S_j
    rng = np.random.default_rng(0)
    X = rng.integers(0, 256, (200, 784), dtype=np.uint8)
    y = np.arange(200) % 10
    model = nbayes.CategoricalNB(min_categories=256).fit(X, y)
    assert sum(table.size for table in model.feature_log_prob_) == 10 * 784 * 256
    assert model._stats.counts.size == 10 * 784 * 256


@pytest.mark.parametrize("alpha", [0.5, 2.0])
def test_lidstone_estimate(alpha):
    # P_λ(X=a | Y=c) = (count + λ) / (N_c + S_j λ), and the smoothed prior (N_c + λ)/(N + Kλ)
    model, _ = programmer_model(alpha, class_prior="smoothed")
    p = np.exp(model.feature_log_prob_[1])  # bald
    np.testing.assert_allclose(p[0], [(5 + alpha) / (5 + 2 * alpha), alpha / (5 + 2 * alpha)])
    np.testing.assert_allclose(
        p[1], [(1 + alpha) / (10 + 2 * alpha), (9 + alpha) / (10 + 2 * alpha)]
    )
    np.testing.assert_allclose(
        np.exp(model.class_log_prior_),
        [(5 + alpha) / (15 + 2 * alpha), (10 + alpha) / (15 + 2 * alpha)],
    )
