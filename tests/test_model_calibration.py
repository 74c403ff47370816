"""NaiveBayes's calibration (nbayes.calibration): score a · [log P(c) + Σ_j log P(x_j | c)] + b_c,
with a and b fitted on cross-fitted scores, checked against a logistic regression, a hand
softmax, models fitted by hand on the folds, and the textbook model it reduces to."""

from __future__ import annotations

import re
import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.optimize import check_grad
from scipy.special import log_softmax
from sklearn.linear_model import LogisticRegression

import nbayes
from nbayes import row_sample
from nbayes.calibration import (
    FOLDS,
    LOG_STEP,
    _fit,
    _fold_starts,
    _Scores,
    _temperature_start,
    choose_calibration,
    fit,
)
from nbayes.row_sample import RowSample, row_hashes

RNG = np.random.default_rng(5)


def redundant_table(
    n: int = 3000, copies: int = 4, seed: int = 0
) -> tuple[pl.DataFrame, np.ndarray]:
    """One informative categorical column repeated ``copies`` times (the textbook model counts
    its evidence ``copies`` times), plus a weak one and an unrelated one."""
    rng = np.random.default_rng(seed)
    y = rng.choice(np.array(["no", "yes"]), n, p=[0.7, 0.3])
    signal = np.where(rng.random(n) < np.where(y == "yes", 0.7, 0.3), "a", "b")
    noise = np.where(rng.random(n) < np.where(y == "yes", 0.55, 0.45), "u", "v")
    # an unrelated column of many values: rows mostly distinct, so the folds (dealt by row) fill
    unrelated = rng.integers(0, 60, n).astype(str)
    columns = {f"copy{k}": signal for k in range(copies)} | {"weak": noise, "other": unrelated}
    return pl.DataFrame(columns), y


def test_binary_fit_is_the_logistic_regression_on_the_log_odds():
    # two classes: logit P(1 | x) = a (J_1 − J_0) + b_1, J the textbook log joint: a logistic
    # regression on the textbook log-odds
    n = 2000
    truth = RNG.integers(0, 2, n)
    log_odds = 1.7 * (truth - 0.5) + RNG.normal(0, 1.5, n)
    log_joint = np.column_stack([-log_odds / 2, log_odds / 2]) - 3.0
    a, b = fit(log_joint, truth, np.ones(n), "weight and offsets")
    reference = LogisticRegression(C=1e12, tol=1e-12, max_iter=10_000).fit(log_odds[:, None], truth)
    assert a == pytest.approx(reference.coef_[0, 0], rel=1e-5)
    assert b[0] == 0.0
    assert b[1] == pytest.approx(reference.intercept_[0], abs=1e-5)
    # the temperature alone: the same regression through the origin
    a_alone, b_alone = fit(log_joint, truth, np.ones(n), "weight")
    through_origin = LogisticRegression(C=1e12, tol=1e-12, max_iter=10_000, fit_intercept=False)
    through_origin.fit(log_odds[:, None], truth)
    assert a_alone == pytest.approx(through_origin.coef_[0, 0], rel=1e-5)
    assert not b_alone.any()


def test_the_gradient_is_the_objectives():
    n, k = 300, 4
    truth = RNG.integers(0, k, n)
    log_joint = RNG.normal(0, 2, (n, k))
    log_joint[0, 2] = -np.inf  # a class impossible for one row: probability 0, no NaN
    weight = RNG.uniform(0.5, 2.0, n)
    for theta, offsets in ((np.array([0.7, 0.3, -0.2, 0.5]), True), (np.array([1.3]), False)):

        def value(t, offsets=offsets):
            return _Scores(log_joint, truth, weight).objective(t, offsets)[0]

        def gradient(t, offsets=offsets):
            return _Scores(log_joint, truth, weight).objective(t, offsets)[1]

        assert check_grad(value, gradient, theta) < 1e-6
        # the Hessian: central differences of the gradient
        scores = _Scores(log_joint, truth, weight)
        hessian = scores.derivatives(theta, offsets)[2]
        step = 1e-6
        numeric = np.column_stack(
            [
                (gradient(theta + step * e) - gradient(theta - step * e)) / (2 * step)
                for e in np.eye(theta.size)
            ]
        )
        np.testing.assert_allclose(hessian, numeric, rtol=1e-5, atol=1e-7)
        np.testing.assert_array_equal(hessian, hessian.T)


def test_each_folds_sums_are_the_derivatives_of_its_rows_alone():
    # one pass sums each fold's rows apart; the objective is a weighted mean, so fold f's sums
    # are its rows' own mean derivatives times their share W_f / W of the weight
    n, k = 500, 3
    truth = RNG.integers(0, k, n)
    log_joint = RNG.normal(0, 2, (n, k))
    weight = RNG.uniform(0.5, 2.0, n)
    fold = RNG.integers(0, FOLDS, n)
    scores = _Scores(log_joint, truth, weight)
    for theta, offsets in ((np.array([0.8, 0.4, -0.3]), True), (np.array([1.2]), False)):
        value, grad, hessian = scores.fold_derivatives(theta, offsets, fold, FOLDS)
        for f in range(FOLDS):
            rows = fold == f
            share = weight[rows].sum() / weight.sum()
            alone = _Scores(log_joint[rows], truth[rows], weight[rows]).derivatives(theta, offsets)
            assert value[f] == pytest.approx(share * alone[0], rel=1e-12)
            np.testing.assert_allclose(grad[f], share * alone[1], rtol=1e-10, atol=1e-14)
            np.testing.assert_allclose(hessian[f], share * alone[2], rtol=1e-10, atol=1e-14)


def test_a_folds_fit_starts_one_newton_step_from_the_fit_on_every_row():
    # each fold's fit starts one Newton step from the fit on every row; Newton's error squares,
    # so the start lies within (distance to the fold's fit)² of it
    n, k = 4000, 3
    truth = RNG.integers(0, k, n)
    log_joint = 2.5 * RNG.normal(0, 1, (n, k))  # overconfident scores: a well below 1
    log_joint[np.arange(n), truth] += 1.5
    weight = RNG.uniform(0.5, 2.0, n)
    fold = RNG.integers(0, FOLDS, n)
    everyone = _Scores(log_joint, truth, weight)
    for form in ("weight", "weight and offsets"):
        whole = _fit(everyone, form)
        assert whole[0] < 0.8
        for f, (a, b) in enumerate(_fold_starts(everyone, form, whole, fold)):
            rows = fold != f
            exact = _fit(_Scores(log_joint[rows], truth[rows], weight[rows]), form)
            before = max(abs(whole[0] - exact[0]), np.max(np.abs(whole[1] - exact[1])))
            after = max(abs(a - exact[0]), np.max(np.abs(b - exact[1])))
            assert before > 1e-5  # the folds' fits differ from the whole's
            assert after <= 4 * before**2 + 1e-12


def fold_refits(log_joint, truth, weight, fold):
    """choose_calibration's verdict from folds' fits made from scratch: each form fitted on
    the other folds' rows from (1, 0), and judged on the fold."""
    forms = ("none", "weight", "weight and offsets")
    scores = {form: np.zeros(len(truth)) for form in forms}
    for f in range(FOLDS):
        fitted_on, judged = fold != f, fold == f
        fitting = _Scores(log_joint[fitted_on], truth[fitted_on], weight[fitted_on])
        judging = _Scores(log_joint[judged], truth[judged], weight[judged])
        for form in forms:
            scores[form][judged] = judging.held_out(*_fit(fitting, form))[0]
    return {form: float(np.dot(weight, s) / weight.sum()) for form, s in scores.items()}


@pytest.mark.parametrize("case", ["offset at its bound", "a class in one fold"])
def test_the_forms_are_judged_by_fits_converged_on_the_other_folds(case):
    # each fold's fit is Newton's method run to convergence from its one-step start: where the
    # fit on every row sits at a bound, or a fold holds a whole class, the one step lands far
    # from the fold's fit (judged by it, the held-out scores would flatter the offsets); the
    # held-out criteria are then those of fits made from scratch
    rng = np.random.default_rng(12 if case == "offset at its bound" else 0)
    n, k = (300, 2) if case == "offset at its bound" else (400, 3)
    truth = rng.integers(0, k, n)
    log_joint = rng.normal(0, 1.5 if k == 2 else 2, (n, k))
    log_joint[np.arange(n), truth] += 4.5 if k == 2 else 1.0
    if k == 2:
        log_joint[:, 1] += rng.normal(0, 6)
    fold = rng.integers(0, FOLDS, n)
    if k == 3:
        truth[(truth == 2) & (fold != 1)] = 0
    weight = np.ones(n)
    if k == 2:  # the offset of the fit on every row is at its bound
        assert _fit(_Scores(log_joint, truth, weight), "weight and offsets")[1][1] == 50.0
    chosen = choose_calibration(log_joint, truth, weight, fold)
    expected = fold_refits(log_joint, truth, weight, fold)
    for form, value in expected.items():
        shown = float(re.search(rf"{form} ([+-]\d\.\d+)", chosen.reason).group(1))
        # the objective is flat where an offset nears its bound: fits stopped at a gradient of
        # 10⁻⁴ from other starts agree to a hundredth or two there
        assert shown == pytest.approx(value, abs=0.02), form
    best = max(expected, key=expected.get)  # by far, in both cases
    assert re.search(rf"{best} [+-]\d\.\d+ \(chosen\)", chosen.reason)
    # the one-step starts alone would have judged the offsets far better than their fits do
    everyone = _Scores(log_joint, truth, weight)
    whole = _fit(everyone, "weight and offsets", _fit(everyone, "weight"))
    starts = _fold_starts(everyone, "weight and offsets", whole, fold)
    by_start = np.zeros(n)
    for f, start in enumerate(starts):
        judged = fold == f
        by_start[judged] = _Scores(log_joint[judged], truth[judged], weight[judged]).held_out(
            *start
        )[0]
    assert abs(by_start.mean() - expected["weight and offsets"]) > 0.05


def test_log_joints_far_from_zero_fit_as_their_differences_do():
    """P(c | x) depends on a row's log joints only through their differences, so shifting each
    row by a constant (here about −10⁹, as narrow kernel densities over many columns give)
    changes neither the objective's curvature nor the fitted (a, b); and the temperature is the
    minimum a one-dimensional search finds. (The curvature was once taken as E J² − (E J)²,
    all round-off at such magnitudes: Newton's method then stopped at a = 1.)"""
    from scipy.optimize import minimize_scalar

    rng = np.random.default_rng(11)  # its own draws: the module's RNG follows the tests run before
    n, k = 400, 3
    truth = rng.integers(0, k, n)
    log_joint = 40.0 * rng.normal(0, 1, (n, k))  # overconfident: the optimum a is well below 1
    log_joint[np.arange(n), truth] += 20.0
    shifted = log_joint - rng.uniform(1e9, 2e9, (n, 1))
    weight = np.ones(n)
    near, far = _Scores(log_joint, truth, weight), _Scores(shifted, truth, weight)
    for theta, offsets in ((np.array([0.3, 0.2, -0.1]), True), (np.array([1.0]), False)):
        np.testing.assert_allclose(
            far.derivatives(theta, offsets)[2], near.derivatives(theta, offsets)[2], rtol=1e-6
        )
    best = minimize_scalar(
        lambda a: near.objective(np.array([a]), False)[0],
        bounds=(1e-3, 10.0), method="bounded", options={"xatol": 1e-10},
    )  # fmt: skip
    for form in ("weight", "weight and offsets"):
        a, b = fit(shifted, truth, weight, form)
        expected_a, expected_b = fit(log_joint, truth, weight, form)
        assert a == pytest.approx(expected_a, rel=1e-6)
        np.testing.assert_allclose(b, expected_b, atol=1e-6)
    assert fit(shifted, truth, weight, "weight")[0] == pytest.approx(best.x, rel=1e-5)
    assert best.x < 0.5


@pytest.mark.parametrize("sureness", [0.5, 1.0, 4.0, 12.0])
def test_the_temperatures_start_in_log_a_leads_to_the_same_fit(sureness):
    """From scores too sure (a* well below 1), about right, or too timid (a* above 1): the
    start lands within a factor e^{0.2}-ish of a* (Newton's steps in log a), and the fit from
    there is the fit from a = 1, to its convergence, as a one-dimensional search finds it."""
    from scipy.optimize import minimize_scalar

    n, k = 600, 3
    truth = RNG.integers(0, k, n)
    log_joint = sureness * RNG.normal(0, 1, (n, k))
    log_joint[np.arange(n), truth] += sureness
    scores = _Scores(log_joint, truth, np.ones(n))
    best = minimize_scalar(
        lambda a: scores.objective(np.array([a]), False)[0],
        bounds=(1e-3, 1e3), method="bounded", options={"xatol": 1e-12},
    ).x  # fmt: skip
    start = _temperature_start(scores)
    assert abs(np.log(start[0] / best)) < 2 * LOG_STEP
    from_start = _fit(scores, "weight", start)[0]
    assert from_start == pytest.approx(_fit(scores, "weight")[0], rel=1e-10)
    assert from_start == pytest.approx(best, rel=1e-6)


@pytest.mark.parametrize("seed", range(4))
def test_a_fit_on_log_joints_far_from_zero_converges_from_either_start(seed):
    """Log joints near −10⁶ and a temperature near 50: a J_k rounds to 10⁻⁸ there, and an
    objective computed from it was too rough for the line search, which stopped short (gradient
    3e-9; found in review). Taken relative to each row's best class, the objective is smooth:
    the fit reaches a gradient of 1e-12 from a = 1 and from the temperature's start alike."""
    rng = np.random.default_rng(seed)
    n, k = 500, 3
    truth = rng.integers(0, k, n)
    log_joint = 0.01 * rng.normal(0, 1, (n, k))
    log_joint[np.arange(n), truth] += 0.005
    scores = _Scores(log_joint - 1e6, truth, np.ones(n))
    fits = [_fit(scores, "weight", start)[0] for start in (None, _temperature_start(scores))]
    for a in fits:
        assert abs(scores.derivatives(np.array([a]), False)[1][0]) <= 1e-12
    assert fits[0] == pytest.approx(fits[1], rel=1e-12)


def test_held_out_scores_are_the_log_posterior_of_the_class_and_its_decision():
    n, k = 200, 3
    truth = RNG.integers(0, k, n)
    log_joint = RNG.normal(0, 2, (n, k))
    log_joint[1, 0] = -np.inf
    log_joint[2] = 0.5  # a tie: the first class is the decision
    a, b = 0.8, np.array([0.0, 0.4, -0.3])
    scores, right = _Scores(log_joint, truth, np.ones(n)).held_out(a, b)
    z = a * log_joint + b
    expected = (
        z[np.arange(n), truth]
        - np.log(np.exp(z - z.max(axis=1, keepdims=True)).sum(axis=1))
        - z.max(axis=1)
    )
    np.testing.assert_allclose(scores, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(right, z.argmax(axis=1) == truth)


def test_offsets_that_lose_held_out_decisions_are_refused():
    # scores with wild tails: 5% of the rows have a log-odds of 10^4 the wrong way. The
    # likelihood then wants a tiny temperature and offsets that give every row the larger
    # class; the offsets would lose held-out decisions, so only the temperature is kept
    rng = np.random.default_rng(8)
    n = 3000
    truth = (rng.random(n) < 0.4).astype(np.intp)
    log_odds = np.where(truth == 1, 3.0, -3.0) + rng.normal(0, 1.0, n)
    wild = rng.random(n) < 0.05
    log_odds[wild] = np.where(truth[wild] == 1, -1e4, 1e4)
    log_joint = np.column_stack([-log_odds / 2, log_odds / 2])
    fold = np.arange(n) % FOLDS
    chosen = choose_calibration(log_joint, truth, np.ones(n), fold)
    assert not chosen.offset.any() and chosen.weight < 1e-2
    assert "weight -" in chosen.reason and "(chosen), weight and offsets" in chosen.reason
    accuracies = re.search(r"accuracy (\d\.\d+), with the offsets (\d\.\d+)", chosen.reason)
    assert float(accuracies.group(2)) < float(accuracies.group(1))
    # what the offsets would have done: the likelihood prefers them
    a, b = fit(log_joint, truth, np.ones(n), "weight and offsets")
    assert np.mean((a * log_joint + b).argmax(axis=1) == truth) < 0.7


def test_rows_impossible_under_their_folds_models_take_no_part():
    n = 300
    truth = np.arange(n) % 2
    log_joint = np.zeros((n, 2))
    log_joint[np.arange(n), truth] = -np.inf  # every row's class impossible: nothing to fit
    chosen = choose_calibration(log_joint, truth, np.ones(n), np.arange(n) % FOLDS)
    assert chosen.is_identity and "only 0 rows" in chosen.reason
    log_joint[:250] = np.log([0.5, 0.5])  # 250 rows left: they decide
    chosen = choose_calibration(log_joint, truth, np.ones(n), np.arange(n) % FOLDS)
    assert "only" not in chosen.reason


def test_repeated_evidence_is_weighted_down_and_probabilities_follow_the_formula():
    X, y = redundant_table()
    model = nbayes.NaiveBayes().fit(X, y)
    textbook = nbayes.NaiveBayes(calibration=None).fit(X, y)
    fitted = model.calibration_
    assert not fitted.is_identity
    assert 0.15 < fitted.weight < 0.6  # the signal is counted 4 times: a near 1/4
    # the same statistics; the scores: a [log P(c) + Σ_j log P(x_j | c)] + b_c
    expected = log_softmax(
        fitted.weight * textbook.predict_joint_log_proba(X) + fitted.offset, axis=1
    )
    np.testing.assert_allclose(model.predict_log_proba(X), expected, rtol=1e-12, atol=1e-12)
    # the joint log-likelihood stays the model's own
    np.testing.assert_array_equal(
        model.predict_joint_log_proba(X), textbook.predict_joint_log_proba(X)
    )
    np.testing.assert_array_equal(model.predict(X), model.classes_[expected.argmax(axis=1)])
    # better probabilities on new rows than the textbook's
    X_new, y_new = redundant_table(seed=1)
    truth = np.searchsorted(model.classes_, y_new)
    rows = np.arange(len(y_new))
    assert model.predict_log_proba(X_new)[rows, truth].mean() > (
        textbook.predict_log_proba(X_new)[rows, truth].mean() + 0.05
    )


def test_the_calibration_is_chosen_on_models_fitted_without_each_fold():
    # an independent computation: every distinct row (fewer than the sample's 4,096), its
    # copies' weights summed, its fold its content hash mod 5, scored by a textbook model
    # fitted on the rows of the other folds (λ given: nothing for the held-out models to choose)
    # (3,000 rows of at most 480 contents: every category is in every fold's other rows, so
    # the parts know the categories the statistics minus a fold know)
    X, y = redundant_table(n=3000, copies=3, seed=2)
    weight = RNG.uniform(0.5, 1.5, len(y))
    model = nbayes.NaiveBayes(alpha=1.0).fit(X, y, sample_weight=weight)
    hashes = row_hashes(X, pl.Series(y))
    distinct, first, inverse = np.unique(hashes, return_index=True, return_inverse=True)
    assert len(model._stats.sample) == len(distinct) < len(y)  # copies: one sample row
    fold = (distinct % np.uint64(FOLDS)).astype(np.intp)
    row_fold = fold[inverse]
    log_joint = np.empty((len(distinct), 2))
    for f in range(FOLDS):
        part = nbayes.NaiveBayes(alpha=1.0, calibration=None).fit(
            X.filter(pl.Series(row_fold != f)),
            y[row_fold != f],
            sample_weight=weight[row_fold != f],
        )
        held = fold == f
        log_joint[held] = part.predict_joint_log_proba(X[first[held]])
    cls = np.searchsorted(model.classes_, y[first])
    summed = np.bincount(inverse, weights=weight)
    rows = f"{len(distinct)} sample rows held out by hash"
    expected = choose_calibration(log_joint, cls, summed, fold, rows=rows)
    assert model.calibration_.weight == pytest.approx(expected.weight, rel=1e-9)
    np.testing.assert_allclose(model.calibration_.offset, expected.offset, atol=1e-9)
    assert model.calibration_.reason == expected.reason
    assert model.calibration_.reason.startswith(f"{len(distinct):,} sample rows held out by hash")


def test_independent_columns_keep_the_textbook_scores():
    rng = np.random.default_rng(3)
    n = 4000
    y = rng.choice(np.array(["a", "b"]), n)
    columns = {
        f"x{j}": np.where(rng.random(n) < np.where(y == "a", 0.6, 0.4), "p", "q") for j in range(8)
    }  # 2^8 contents per class: enough distinct rows to calibrate on
    X = pl.DataFrame(columns)
    model = nbayes.NaiveBayes(alpha=1.0).fit(X, y)
    assert model.calibration_.is_identity
    assert "the textbook scores stay" in model.calibration_.reason
    textbook = nbayes.NaiveBayes(alpha=1.0, calibration=None).fit(X, y)
    np.testing.assert_array_equal(model.predict_proba(X), textbook.predict_proba(X))


def test_partial_fit_merge_and_any_row_order_give_the_model_of_one_fit():
    X, y = redundant_table(n=1000)
    one_fit = nbayes.NaiveBayes().fit(X, y)
    assert not one_fit.calibration_.is_identity
    streamed = nbayes.NaiveBayes()
    for start in range(0, 1000, 250):
        streamed.partial_fit(X[start : start + 250], y[start : start + 250])
    merged = nbayes.NaiveBayes().fit(X[500:], y[500:])
    merged.merge(nbayes.NaiveBayes().fit(X[:500], y[:500]))
    order = np.random.default_rng(0).permutation(1000)
    shuffled = nbayes.NaiveBayes().fit(X[order], y[order])
    for other in (streamed, merged, shuffled):
        assert other.calibration_.weight == pytest.approx(one_fit.calibration_.weight, rel=1e-9)
        np.testing.assert_allclose(other.predict_proba(X), one_fit.predict_proba(X), atol=1e-9)
    # a model the statistics of another batch change derives its calibration again
    model = nbayes.NaiveBayes().fit(X[:500], y[:500])
    before = model.calibration_
    model.partial_fit(X[500:], y[500:])
    assert model.calibration_.weight == pytest.approx(one_fit.calibration_.weight, rel=1e-9)
    assert model.calibration_.weight != before.weight


def test_integers_read_as_floats_give_the_same_calibrated_model():
    """pandas reads an integer column with missing values as floats (2.0), Polars as integers
    (2): the same rows, so the same sample, calibration and probabilities."""
    rng = np.random.default_rng(8)
    n = 2000
    y = rng.choice(["p", "q", "r"], n)
    codes = {f"c{j}": rng.integers(0, 4, n) + (y == "q") * (j % 2) for j in range(6)}
    frame = pl.DataFrame(codes).with_columns(
        pl.when(pl.Series(rng.random(n) < 0.1)).then(None).otherwise(pl.col(name)).alias(name)
        for name in codes
    )
    floats = frame.to_pandas()
    assert all(str(t) == "float64" for t in floats.dtypes)
    as_ints = nbayes.NaiveBayes().fit(frame, y)
    as_floats = nbayes.NaiveBayes().fit(floats, y)
    assert not as_ints.calibration_.is_identity
    assert as_floats.calibration_.weight == pytest.approx(as_ints.calibration_.weight, rel=1e-12)
    np.testing.assert_allclose(
        as_floats.predict_proba(floats), as_ints.predict_proba(frame), atol=1e-12
    )


def test_a_class_with_one_sample_row_keeps_a_zero_offset():
    # scores whose class 1 is favoured by 2 nats too many: its offset is fitted near −2; class
    # 2, masked out (as a class with fewer than two sample rows is), keeps b = 0
    rng = np.random.default_rng(6)
    n = 3000
    truth = rng.integers(0, 3, n)
    log_joint = np.log(np.full((n, 3), 0.1))
    log_joint[np.arange(n), truth] = np.log(0.8)
    log_joint += rng.normal(0, 0.3, (n, 3))
    log_joint[:, 1] += 2.0
    fold = np.arange(n) % FOLDS
    chosen = choose_calibration(log_joint, truth, np.ones(n), fold, offsets=np.array([1, 1, 0]))
    assert chosen.offset[2] == 0.0 and chosen.offset[0] == 0.0
    assert chosen.offset[1] < -1.0
    # the model: a class of one row keeps its offset at 0
    X, y = redundant_table(n=1000)
    y = y.astype("U4")
    y[np.flatnonzero(y == "no")[0]] = "rare"
    fitted = nbayes.NaiveBayes().fit(X, y).calibration_
    assert fitted.offset[list(np.unique(y)).index("rare")] == 0.0
    # fewer than 100 distinct rows: nothing to calibrate on
    assert nbayes.NaiveBayes().fit(X[:99], y[:99]).calibration_ is None


def test_models_with_and_without_a_sample_are_not_merged():
    X, y = redundant_table(n=400)
    model = nbayes.NaiveBayes().fit(X, y)
    with pytest.raises(ValueError, match="calibration"):
        model.merge(nbayes.NaiveBayes(calibration=None).fit(X, y))


def test_a_given_prior_keeps_its_offsets_at_zero_and_the_decisions_with_them():
    X, y = redundant_table()
    model = nbayes.NaiveBayes(class_prior="uniform").fit(X, y)
    assert model.calibration_.weight < 0.6
    assert not model.calibration_.offset.any()
    textbook = nbayes.NaiveBayes(class_prior="uniform", calibration=None).fit(X, y)
    np.testing.assert_array_equal(model.predict(X), textbook.predict(X))


@pytest.mark.parametrize("class_prior", [None, "uniform"])
def test_a_prior_given_per_call_moves_the_calibrated_posterior_by_bayes_rule(class_prior):
    """P'(c | x) ∝ P(c | x) · π'(c) / P(c): the calibrated posterior (a temperature a < 1, and
    offsets where the prior was estimated) with the model's prior exchanged for π', as
    SemiNaiveBayes and the textbook model (a = 1) do; not π' inside a · [log π' + Σ_j], which
    would shrink its log by a and keep offsets fitted to another prior."""
    # one column copied four times whose evidence is lopsided (P(a | yes) = 0.95, P(a | no) =
    # 0.5): one temperature cannot undo the overcount for both values, so offsets are fitted
    rng = np.random.default_rng(0)
    y = rng.choice(np.array(["no", "yes"]), 3000, p=[0.7, 0.3])
    signal = np.where(rng.random(3000) < np.where(y == "yes", 0.95, 0.5), "a", "b")
    X = pl.DataFrame({f"copy{k}": signal for k in range(4)} | {"other": rng.integers(0, 60, 3000)})
    options = {} if class_prior is None else {"class_prior": class_prior}
    model = nbayes.NaiveBayes(**options).fit(X, y)
    fitted = model.calibration_
    assert fitted.weight < 0.6 and (fitted.offset.any() == (class_prior is None))
    own = np.exp(model.class_log_prior_)
    posterior = model.predict_proba(X)
    for priors in ([0.2, 0.8], "uniform", {"no": 0.9, "yes": 0.1}):
        shifted = model.predict_proba(X, priors=priors)
        wanted = np.exp(model._class_log_prior(priors))  # π', however it was given
        expected = posterior * wanted / own
        expected /= expected.sum(axis=1, keepdims=True)
        np.testing.assert_allclose(shifted, expected, rtol=1e-12, atol=1e-15)
        np.testing.assert_array_equal(
            model.predict(X, priors=priors), model.classes_[np.argmax(expected, axis=1)]
        )
        # the worked explanation says the same: its posterior, and terms that add up to the
        # log-odds (the calibration's step absorbing the exchange of priors)
        explanation = model.explain(X.row(0, named=True), priors=priors)
        np.testing.assert_allclose(explanation.posterior, expected[0], rtol=1e-12)
        a, b = explanation.top_two
        total = sum(value for _, value in explanation.contributions)
        assert total == pytest.approx(np.log(expected[0, a] / expected[0, b]), abs=1e-9)
    # the model's own prior given per call changes nothing
    np.testing.assert_allclose(model.predict_proba(X, priors=own), posterior, rtol=1e-12)


def test_a_per_call_prior_revives_a_class_the_models_prior_ruled_out_and_can_rule_one_out():
    """A class whose fitted prior is 0 takes a · Σ_j log P(x_j | c) + b_c + log π'(c) under a
    per-call π' (the textbook model gives it Σ_j + log π'(c)), and a class π' rules out gets
    probability 0, in predict_proba and in explain alike, with no round-off warning."""
    rng = np.random.default_rng(1)
    y = rng.choice(np.array(["a", "b", "c"]), 3000, p=[0.3, 0.4, 0.3])
    signal = np.where(rng.random(3000) < np.where(y == "a", 0.9, 0.4), "u", "v")
    X = pl.DataFrame({f"copy{k}": signal for k in range(4)} | {"other": rng.integers(0, 60, 3000)})
    model = nbayes.NaiveBayes(class_prior=[0.0, 0.6, 0.4]).fit(X, y)
    a = model.calibration_.weight
    assert a < 0.6 and not model.calibration_.offset.any()
    textbook = nbayes.NaiveBayes(class_prior=[0.0, 0.6, 0.4], calibration=None).fit(X, y)
    evidence = textbook.predict_joint_log_proba(X, priors="uniform") - np.log(1 / 3)
    own = np.log([1.0, 0.6, 0.4])  # class a: its prior ignored (log 1 = 0)
    own[0] = 0.0
    scores = a * (evidence + own) + np.log(1 / 3) - own
    expected = np.exp(scores - scores.max(axis=1, keepdims=True))
    expected /= expected.sum(axis=1, keepdims=True)
    assert model.predict_proba(X)[:, 0].max() == 0.0  # under its own prior, never a
    np.testing.assert_allclose(model.predict_proba(X, priors="uniform"), expected, rtol=1e-10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ruled_out = model.predict_proba(X, priors=[0.5, 0.0, 0.5])
        explanation = model.explain(X.row(0, named=True), priors=[0.5, 0.0, 0.5])
    assert ruled_out[:, 1].max() == 0.0
    np.testing.assert_allclose(explanation.posterior, ruled_out[0], rtol=1e-12)
    assert np.isfinite(explanation.calibrated_log_joint[[0, 2]]).all()


def test_a_model_file_keeps_the_calibration(tmp_path):
    X, y = redundant_table()
    model = nbayes.NaiveBayes().fit(X, y)
    path = nbayes.save(model, tmp_path / "calibrated.nbm")
    loaded = nbayes.load(path)
    assert loaded.calibration_.weight == model.calibration_.weight
    np.testing.assert_array_equal(loaded.calibration_.offset, model.calibration_.offset)
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))
    assert "calibration: score" in loaded.summary()


def test_a_model_file_keeps_the_sample_with_its_missing_values_and_types(tmp_path):
    """The sample is written as arrays with masks of the nulls and read back in one select per
    kind of column: every value, null and type must come back, so that a loaded model given
    more rows derives the calibration a never-saved one does."""
    rng = np.random.default_rng(3)
    n = 400
    X = pl.DataFrame(
        {
            "m0": rng.normal(size=n),  # a name like the masks' own
            "codes": pl.Series(rng.integers(0, 5, n), dtype=pl.Int16),
            "flag": rng.random(n) < 0.5,
            "word": rng.choice(["a", "b", "c"], n),
            "wide": pl.Series(rng.integers(-(2**40), 2**40, n), dtype=pl.Int64),
        }
    ).with_columns(
        pl.when(pl.col("codes") == 1).then(None).otherwise(pl.col("m0")).alias("m0"),
        pl.when(pl.col("codes") == 2).then(None).otherwise(pl.col("flag")).alias("flag"),
        pl.when(pl.col("codes") == 3).then(None).otherwise(pl.col("word")).alias("word"),
    )
    y = rng.integers(0, 2, n)
    model = nbayes.NaiveBayes().fit(X[:300], y[:300])
    loaded = nbayes.load(nbayes.save(model, tmp_path / "m.nbm"))
    assert loaded._stats.sample.frame.equals(model._stats.sample.frame)
    assert loaded._stats.sample.frame.schema == model._stats.sample.frame.schema
    assert loaded._stats.sample.frame.null_count().row(0)[:3] != (0, 0, 0)
    model.partial_fit(X[300:], y[300:])
    loaded.partial_fit(X[300:], y[300:])
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


def test_explain_shows_the_calibration_term():
    X, y = redundant_table()
    model = nbayes.NaiveBayes().fit(X, y)
    row = X[:1]
    explanation = model.explain(row)
    np.testing.assert_allclose(explanation.posterior, model.predict_proba(row)[0], rtol=1e-12)
    a, b = explanation.top_two
    log_odds = np.log(explanation.posterior[a]) - np.log(explanation.posterior[b])
    assert sum(value for _, value in explanation.contributions) == pytest.approx(log_odds)
    # the calibration is its own step, after every feature's term (not sorted among them)
    last_term, _ = explanation.contributions[-1]
    assert last_term.startswith("then calibration (a = ")
    features = [value for term, value in explanation.contributions[:-1]]
    assert features == sorted(features, key=lambda v: -abs(v))
    assert "a [log P(c) + Σ log P(x_j | c)] + b_c" in str(explanation)


def test_a_bad_calibration_parameter_is_named():
    X, y = redundant_table(n=100)
    with pytest.raises(ValueError, match="calibration must be one of"):
        nbayes.NaiveBayes(calibration="platt").fit(X, y)


def test_fitting_warns_nothing_of_its_own():
    X, y = redundant_table()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nbayes.NaiveBayes().fit(X, y)


def test_held_out_copies_are_the_same_whatever_order_fractional_sums_were_taken_in():
    """Held-out copies take fractional sums back out: a text column's unit-length features, a
    numeric column's weighted values. A sum they take to zero is zero, so which terms of the
    vocabulary and which kernels a held-out copy keeps does not depend on the order the sums
    were taken in (the sign of the round-off left decided it): the merge of two halves and a
    fit of shuffled rows give one fit's calibration and probabilities, to 1e-9."""
    rng = np.random.default_rng(12)
    n = 900
    y = rng.choice(["spam", "ham"], n)
    words = {"spam": ["free", "win", "prize", "now"], "ham": ["see", "you", "lunch", "notes"]}
    # the words of the other class in a third of the messages: the classes overlap, so the
    # temperature has a finite optimum (on separable scores the likelihood grows without end)
    says = np.where(rng.random(n) < 0.35, np.where(y == "spam", "ham", "spam"), y)
    frame = pl.DataFrame(
        {
            # rare terms, each in about three messages: where a fold holds all of a term's
            # messages, its held-out copy takes the term's sum to zero
            "message": [
                " ".join(rng.choice(words[label], 3)) + f" r{rng.integers(0, n // 3)}"
                for label in says
            ],
            "amount": np.round(rng.exponential(1.0 + (y == "spam"), n), 2),
            "y": y,
        }
    )
    weight = rng.uniform(0.3, 2.0, n)
    families = {"message": "text"}
    one = nbayes.NaiveBayes(families=families).fit(frame, target="y", sample_weight=weight)
    assert one.calibration_ is not None and not one.calibration_.is_identity
    half = rng.random(n) < 0.5
    parts = [
        nbayes.NaiveBayes(families=families).fit(
            frame.filter(pl.Series(rows)), target="y", sample_weight=weight[rows]
        )
        for rows in (half, ~half)
    ]
    order = rng.permutation(n)
    shuffled = nbayes.NaiveBayes(families=families).fit(
        frame[order], target="y", sample_weight=weight[order]
    )
    features = frame.drop("y")
    for other in (nbayes.merge(*parts), shuffled):
        assert other.calibration_.weight == pytest.approx(one.calibration_.weight, rel=1e-9)
        np.testing.assert_allclose(
            other.predict_proba(features), one.predict_proba(features), atol=1e-9
        )


@given(
    st.lists(st.integers(0, 40), min_size=1, max_size=120),
    st.integers(1, 30),
    st.integers(1, 4),
)
def test_a_batchs_bottom_rows_are_the_ones_a_full_sort_keeps(values, size, batches):
    # the sample of a large batch keeps its rows of the `size` smallest distinct hashes (all
    # copies of each); selected in linear time, they are the rows a full sort would keep, and
    # the sample is the same whether the batch came whole or in parts
    hashes = np.array(values, dtype=np.uint64)
    frame = pl.DataFrame({"x": np.arange(hashes.size)})
    labels = pl.Series(["a"] * hashes.size)
    cls, weight = np.zeros(hashes.size, np.intp), np.ones(hashes.size)
    original = row_sample.row_hashes
    row_sample.row_hashes = lambda rows, _labels, _cls=None: hashes[rows["x"].to_numpy()]
    try:
        whole = RowSample.empty(frame, size)
        whole.add(frame, labels, cls, weight)
        parts = RowSample.empty(frame, size)
        for rows in np.array_split(np.arange(hashes.size), batches):
            parts.add(frame[rows], labels[rows], cls[rows], weight[rows])
    finally:
        row_sample.row_hashes = original
    distinct, copies = np.unique(hashes, return_counts=True)
    np.testing.assert_array_equal(whole.hashes, distinct[:size])
    np.testing.assert_array_equal(whole.weight, copies[:size])
    np.testing.assert_array_equal(parts.hashes, whole.hashes)
    np.testing.assert_array_equal(parts.weight, whole.weight)


def test_the_folds_scored_side_by_side_give_the_calibration_of_one_thread(monkeypatch):
    # the held-out folds are scored on several threads when the work pays for it: each fold's
    # model is its own, so the calibration is the same, bit for bit, as on one thread
    from nbayes import _threads

    X, y = redundant_table(n=6000, copies=3)
    rng = np.random.default_rng(1)  # numeric columns: their folds' scoring is compiled work
    X = X.with_columns(pl.Series(f"number{j}", rng.normal(0, 1, 6000)) for j in range(10))
    monkeypatch.setattr(_threads, "limit", lambda: 2)
    shared, run = [], _threads.run

    def spy(body, parts, threads):
        shared.append(min(threads, len(parts)))
        return run(body, parts, threads)

    monkeypatch.setattr(_threads, "run", spy)
    model = nbayes.NaiveBayes().fit(X, y)
    for group in model._stats.groups:  # the columns' choices first: they may share threads too
        group.frozen_choices(model._settings())
    shared.clear()
    side_by_side = model.calibration_
    assert 2 in shared  # the folds did share the threads
    monkeypatch.setattr(_threads, "limit", lambda: 1)
    one_thread = nbayes.NaiveBayes().fit(X, y).calibration_
    assert side_by_side.weight != 1.0
    assert side_by_side.weight == one_thread.weight
    np.testing.assert_array_equal(side_by_side.offset, one_thread.offset)
    assert side_by_side.reason == one_thread.reason


@pytest.mark.parametrize(
    "labels",
    [
        pl.Series([3, 1, 3, 2, 1, 1]),
        pl.Series([0.5, -1.0, 0.5, 2.25, -1.0, 0.5]),
        pl.Series([True, False, False, True, True, False]),
        pl.Series(["b", "a", "b", "c", "a", "a"]),
        pl.Series(["b", "a", "b", "c", "a", "a"], dtype=pl.Categorical),
        pl.Series([20, 10, 20, 30, 10, 10]).cast(pl.Date),
    ],
)
def test_a_rows_hash_is_the_same_whether_its_class_index_is_known(labels):
    # with the rows' class indices, each class's label is turned into text once and gathered:
    # the hashes (and so the sample) are those of turning every label into text
    frame = pl.DataFrame({"x": [1.5, 2.0, 1.5, None, 0.0, 1.5], "n": [1, 2, 1, 3, 4, 1]})
    values = labels.to_list()
    order = sorted(set(values))
    cls = np.array([order.index(v) + 2 for v in values])  # indices into a longer class list
    np.testing.assert_array_equal(row_hashes(frame, labels, cls), row_hashes(frame, labels))
    contents = set(zip(frame["x"].to_list(), frame["n"].to_list(), values, strict=True))
    assert len(set(row_hashes(frame, labels).tolist())) == len(contents)  # copies: one hash


def test_a_fold_number_out_of_range_is_refused():
    # the compiled pass sums each fold's rows into its own slot: a fold it has no slot for is
    # refused before it runs (it once wrote outside its arrays)
    n = 40
    truth = RNG.integers(0, 2, n)
    log_joint = RNG.normal(0, 1, (n, 2))
    scores = _Scores(log_joint, truth, np.ones(n))
    with pytest.raises(ValueError, match="fold number from 0 to 4"):
        scores.fold_derivatives(np.array([1.0]), False, np.full(n, 7), FOLDS)
    with pytest.raises(ValueError, match="fold numbers 0 to 4"):
        choose_calibration(log_joint, truth, np.ones(n), np.arange(n) - 1)


def test_held_out_models_place_their_own_mdl_cut_points():
    # MDL places cut points by the classes of the rows, so a held-out model must not keep the
    # full model's: the calibration equals the one chosen on models fitted (cut points
    # included) without each fold. Values on a grid of 0.1: every value of every column is in
    # each fold's other rows, so a sketch minus a fold holds the keys a refit holds.
    rng = np.random.default_rng(11)
    n = 3000
    y = rng.choice(np.array(["a", "b"]), n)
    shift = (y == "b") * 0.8
    X = pl.DataFrame(
        {f"x{j}": np.round(np.clip(rng.normal(shift * (j + 1) / 3, 1.0, n), -2.5, 2.5), 1)
         for j in range(3)}
    )  # fmt: skip
    model = nbayes.NaiveBayes(continuous="mdl", alpha=1.0).fit(X, y)
    hashes = row_hashes(X, pl.Series(y))
    distinct, first, inverse = np.unique(hashes, return_index=True, return_inverse=True)
    assert len(model._stats.sample) == len(distinct)
    fold = (distinct % np.uint64(FOLDS)).astype(np.intp)
    row_fold = fold[inverse]
    log_joint = np.empty((len(distinct), 2))
    cuts = []
    for f in range(FOLDS):
        keep = row_fold != f
        part = nbayes.NaiveBayes(continuous="mdl", alpha=1.0, calibration=None).fit(
            X.filter(pl.Series(keep)), y[keep]
        )
        cuts.append(part._stats.groups[0].cuts(part._settings()))
        held = fold == f
        log_joint[held] = part.predict_joint_log_proba(X[first[held]])
    assert any(  # the folds' cut points differ from the full model's: the test can tell
        not np.array_equal(a, b)
        for c in cuts
        for a, b in zip(c, model._stats.groups[0].cuts(model._settings()), strict=True)
    )
    cls = np.searchsorted(model.classes_, y[first])
    summed = np.bincount(inverse).astype(float)
    rows = f"{len(distinct)} sample rows held out by hash"
    expected = choose_calibration(log_joint, cls, summed, fold, rows=rows)
    assert model.calibration_.weight == pytest.approx(expected.weight, rel=1e-9)
    np.testing.assert_allclose(model.calibration_.offset, expected.offset, atol=1e-9)


def test_a_column_the_default_cuts_by_mdl_keeps_no_cut_points_for_held_out_models():
    # the default's choice of MDL for a column: its held-out models place their own cut points
    rng = np.random.default_rng(0)
    n = 3000
    x = rng.uniform(0, 1, n)
    y = np.where(rng.random(n) < np.where((x > 0.3) & (x < 0.6), 0.9, 0.1), "b", "a")
    model = nbayes.NaiveBayes().fit(pl.DataFrame({"x": np.round(x, 3)}), y)
    assert model.families_ == {"x": "mdl"}
    group = model._stats.groups[0]
    assert [key[0] for key in group.frozen_choices(model._settings())] == ["choices"]
