"""alpha="auto" (the default): each categorical column's Lidstone λ chosen from the data by the
leave-one-out conditional log-likelihood of the class (nbayes.families._selection)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from scipy import stats
from test_model_merge import assert_same_predictions, problems, run

import nbayes
from nbayes.families import _selection
from nbayes.families.categorical import CategoricalColumns


def table(seed: int, n: int = 60, signal: float = 0.9) -> tuple[pl.DataFrame, np.ndarray]:
    """A column that nearly decides the class (``signal`` of its rows), and one of noise."""
    rng = np.random.default_rng(seed)
    y = rng.choice(np.array(["a", "b", "c"]), n, p=[0.5, 0.3, 0.2])
    own = {"a": ["p", "q"], "b": ["r"], "c": ["s", "t"]}
    every = ["p", "q", "r", "s", "t"]
    decided = [
        rng.choice(own[c]) if rng.random() < signal else rng.choice(every) for c in y.tolist()
    ]
    noise = rng.choice(["x", "y", "z"], n).tolist()
    return pl.DataFrame({"decided": decided, "noise": noise}), y


def brute_force_scores(values: np.ndarray, y: np.ndarray, alpha: float) -> np.ndarray:
    """log P^(−i)(y_i | x_i) of every row: counts without row i, S the values of all rows, the
    criterion's prior N_c − [c = y_i] + 1."""
    classes = np.unique(y)
    S = np.unique(values).shape[0]
    out = np.empty(values.shape[0])
    for i in range(values.shape[0]):
        keep = np.arange(values.shape[0]) != i
        scores = []
        for c in classes:
            in_class = y[keep] == c
            n = np.sum(in_class & (values[keep] == values[i]))
            scores.append(
                math.log((n + alpha) / (in_class.sum() + S * alpha)) + math.log(in_class.sum() + 1)
            )
        scores = np.array(scores)
        out[i] = scores[np.searchsorted(classes, y[i])] - np.logaddexp.reduce(scores)
    return out


def brute_force_alpha(values: np.ndarray, y: np.ndarray, columns: int) -> float:
    """The λ of ALPHAS with the largest criterion if it beats λ = 1 by z standard errors of the
    paired row differences (and by more than round-off), else 1: z with P(Z > z) = P(Z > 1) /
    ``columns`` (Bonferroni over the group's columns)."""
    bar = -stats.norm.ppf(stats.norm.sf(1.0) / columns)
    scores = {a: brute_force_scores(values, y, a) for a in _selection.ALPHAS}
    best = max(_selection.ALPHAS, key=lambda a: (scores[a].sum(), a))
    d = scores[best] - scores[1.0]
    gain, error = d.sum(), math.sqrt(d.shape[0] * d.var())
    return best if gain > bar * error and gain > 1e-9 * d.shape[0] else 1.0


@pytest.mark.parametrize("seed", range(6))
def test_the_chosen_alpha_is_the_brute_force_leave_one_out_choice(seed):
    frame, y = table(seed)
    model = nbayes.NaiveBayes().fit(frame, y)
    for name in frame.columns:
        values = frame[name].to_numpy()
        assert model.alpha_[name] == brute_force_alpha(values, y, len(frame.columns)), name
    # and the criterion the choice compares is that leave-one-out, for every λ of the grid
    group = next(g for g in model._stats.groups if isinstance(g, CategoricalColumns))
    j = group.names.index("decided")
    values = frame["decided"].to_numpy()
    vocabulary = group.vocabularies[j]
    table_ = group.stats.category_count(j).T
    totals = table_.sum(axis=0) + group.missing[:, j]
    delta = _selection.removed_weight(table_, 1.0)
    codes = np.arange(table_.shape[0])
    for alpha in _selection.ALPHAS:
        cells = _selection.scores(*_selection.counted(table_, codes, delta, alpha), delta, totals)
        expected = brute_force_scores(values, y, alpha)
        rows = [vocabulary.index(v) for v in values]
        classes = np.searchsorted(model.classes_, y)
        np.testing.assert_allclose(cells[rows, classes], expected, rtol=1e-12)


def test_a_column_that_decides_the_class_gets_a_small_alpha_and_noise_keeps_laplace():
    frame, y = table(0, n=400, signal=1.0)
    model = nbayes.NaiveBayes().fit(frame, y)
    assert model.alpha_["decided"] < 1.0
    assert model.alpha_["noise"] == 1.0
    reasons = model.family_reasons_
    assert f"λ = {model.alpha_['decided']:g} chosen" in reasons["decided"]
    assert "λ = 1: no smaller λ beats it by the group's standard-error bar" in reasons["noise"]
    assert "chosen from the data" in model.summary()
    # the chosen λ predicts as that λ given explicitly
    fixed = nbayes.NaiveBayes(alpha=model.alpha_).fit(frame, y)
    np.testing.assert_array_equal(fixed.predict_proba(frame), model.predict_proba(frame))


@pytest.mark.parametrize("alpha", [1.0, 0.5, 0.0, {"decided": 0.25}])
def test_an_explicit_alpha_is_used_as_given(alpha):
    frame, y = table(0, n=400, signal=0.95)
    model = nbayes.NaiveBayes(calibration=None, alpha=alpha).fit(frame, y)
    expected = alpha if not isinstance(alpha, dict) else None
    for name in frame.columns:
        lam = expected if expected is not None else alpha.get(name, 1.0)
        assert model.alpha_[name] == lam
    assert "chosen from the data" not in model.summary()
    # P(value | class) = (n + λ) / (N + S λ) with the given λ
    lam = model.alpha_["decided"]
    counts = model.tables()["decided"]
    for row in counts.iter_rows(named=True):
        in_class = y == row["class"]
        n = np.sum(in_class & (frame["decided"].to_numpy() == row["value"]))
        S = frame["decided"].n_unique()
        if in_class.sum() + S * lam > 0:
            assert row["probability"] == pytest.approx((n + lam) / (in_class.sum() + S * lam))


def test_alpha_must_be_auto_a_number_or_a_dict():
    frame, y = table(0)
    with pytest.raises(ValueError, match='alpha must be "auto"'):
        nbayes.NaiveBayes(alpha="laplace").fit(frame, y)
    assert nbayes.NaiveBayes().get_params()["alpha"] == "auto"


def test_numeric_codes_counted_as_categories_get_their_own_alpha():
    rng = np.random.default_rng(3)
    y = rng.choice(np.array(["a", "b"]), 500)
    codes = np.where(y == "a", rng.choice([0, 2, 4], 500), rng.choice([1, 3, 5], 500))
    frame = pl.DataFrame({"code": codes})
    model = nbayes.NaiveBayes().fit(frame, y)
    assert model.families_["code"] == "categorical"
    assert model.alpha_["code"] < 1.0
    assert f"λ = {model.alpha_['code']:g} chosen" in model.family_reasons_["code"]
    fixed = nbayes.NaiveBayes(families={"code": "categorical"}, alpha=model.alpha_).fit(frame, y)
    np.testing.assert_allclose(fixed.predict_proba(frame), model.predict_proba(frame), rtol=1e-12)
    # an explicit λ is used in the family choice and in the counts, as before
    laplace = nbayes.NaiveBayes(alpha=1.0).fit(frame, y)
    assert laplace.alpha_["code"] == 1.0


def test_model_files_keep_the_statistics_and_so_the_chosen_alpha(tmp_path):
    frame, y = table(1, n=400, signal=1.0)
    frame = frame.with_columns(code=pl.Series(np.searchsorted(np.unique(y), y) * 2 % 5))
    model = nbayes.NaiveBayes().fit(frame, y)
    loaded = nbayes.load(nbayes.save(model, tmp_path / "alpha.nbm"))
    assert loaded.get_params()["alpha"] == "auto"
    assert loaded.alpha_ == model.alpha_
    assert loaded.family_reasons_ == model.family_reasons_
    np.testing.assert_array_equal(loaded.predict_proba(frame), model.predict_proba(frame))
    fixed = nbayes.NaiveBayes(alpha=1.0).fit(frame, y)
    again = nbayes.load(nbayes.save(fixed, tmp_path / "laplace.nbm"))
    assert again.get_params()["alpha"] == 1.0
    np.testing.assert_array_equal(again.predict_proba(frame), fixed.predict_proba(frame))


@settings(max_examples=20, deadline=None)
@given(problem=problems())
def test_merge_and_partial_fit_choose_the_alpha_of_one_fit(problem):
    """The default model on tests/test_model_merge.py's table: any split, merged or streamed,
    has one fit's statistics, and so its λ and predictions."""
    whole, merged, streamed = run(problem, {}, distinct=False)
    for model in (merged, streamed):
        assert model.alpha_ == whole.alpha_
    assert set(whole.alpha_) >= {"colour", "flag"}


def test_merged_models_choose_alpha_from_the_merged_counts():
    frame, y = table(2, n=400, signal=1.0)
    whole = nbayes.NaiveBayes(calibration=None).fit(frame, y)
    halves = [nbayes.NaiveBayes(calibration=None).fit(frame[i::2], y[i::2]) for i in range(2)]
    merged = nbayes.merge(*halves)
    assert merged.alpha_ == whole.alpha_
    assert_same_predictions(whole, merged, frame)


def test_the_bar_is_one_standard_error_for_the_group_of_columns():
    """A weak win for a small λ in one column is kept alone and dropped beside 30 columns: the bar
    rises with the number of columns that choose (Bonferroni), as for missing values."""
    assert _selection.group_standard_errors(1) == _selection.STANDARD_ERRORS
    assert _selection.group_standard_errors(16) == pytest.approx(2.33, abs=0.01)
    frame, y = table(2, signal=0.9)
    alone = nbayes.NaiveBayes().fit(frame.select("decided"), y)
    assert alone.alpha_["decided"] == 0.25
    rng = np.random.default_rng(9)
    noise = [pl.Series(f"n{k}", rng.choice(["x", "y", "z"], len(y))) for k in range(30)]
    wide = nbayes.NaiveBayes().fit(frame.with_columns(noise), y)
    assert wide.alpha_["decided"] == 1.0
    assert brute_force_alpha(frame["decided"].to_numpy(), y, 1) == 0.25
    assert brute_force_alpha(frame["decided"].to_numpy(), y, 32) == 1.0
