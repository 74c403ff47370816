"""Each numeric column's family, and each column's missing values, chosen from the data
(``continuous="auto"``, ``missing="auto"``: the defaults).

The criterion is checked against a brute-force leave-one-out written here (refit without each
row, score its class); the choice against data whose right representation is known; and the
choice is a function of mergeable statistics, so any split of the rows, merged or streamed, makes
the same choices and predictions as one fit (Hypothesis, as tests/test_model_merge.py).
"""

from __future__ import annotations

import copy
import math
import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from scipy import stats
from test_model_merge import assert_same_predictions, problems, run

import nbayes
from nbayes.families import _selection
from nbayes.families import auto as _auto
from nbayes.families.auto import AutoColumns


def auto_group(model: nbayes.NaiveBayes) -> AutoColumns:
    return next(g for g in model._stats.groups if isinstance(g, AutoColumns))


def choice(model: nbayes.NaiveBayes, name: str):
    group = auto_group(model)
    return group.choices(model._settings())[group.names.index(name)]


# ---------------------------------------------------------------------- the criterion
def brute_force_loo(frame: pl.DataFrame, y: np.ndarray, params: dict) -> float:
    """Σ_i log P^(−i)(y_i | x_i): refit on every row but i (one column, missing rows too), with
    the criterion's prior (N_c − [c = y_i] + 1) in place of the model's."""
    total = 0.0
    classes = np.unique(y)
    for i in range(frame.height):
        keep = np.arange(frame.height) != i
        model = nbayes.NaiveBayes(**params).fit(frame.filter(pl.Series(keep)), y[keep])
        log_p = model.predict_joint_log_proba(frame[i]) - model.class_log_prior_
        counts = np.array([np.sum(y[keep] == c) for c in classes], dtype=float)
        scores = log_p[0] + np.log(counts + 1.0)
        k = int(np.searchsorted(classes, y[i]))
        total += scores[k] - np.logaddexp.reduce(scores)
    return total


def criterion(model: nbayes.NaiveBayes, name: str, family: str) -> float:
    """The model's criterion of ``family`` for column ``name`` (per observed row × rows)."""
    c = choice(model, name)
    group = auto_group(model)
    j = group.names.index(name)
    observed = group.stats.sketches.features[j].weight.sum()
    return c.scores[family] * observed


def small_problem(seed: int, n: int = 40):
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
    shift = (y == "b") + 2.0 * (y == "c")
    x = np.round(rng.normal(shift, 1.0, n), 1)  # repeated values
    codes = rng.integers(0, 3, n) + (y == "c")
    return pl.DataFrame({"x": x, "codes": codes}), y


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gaussian_criterion_is_the_brute_force_leave_one_out(seed):
    frame, y = small_problem(seed)
    for ddof in (0, 1):
        # (var_smoothing 0: the criterion keeps ε = var_smoothing · Var(x) of all the rows, a
        # refit would recompute it without the row)
        params = {"ddof": ddof, "var_smoothing": 0.0}
        model = nbayes.NaiveBayes(**params).fit(frame.select("x"), y)
        expected = brute_force_loo(frame.select("x"), y, {**params, "continuous": "gaussian"})
        assert criterion(model, "x", "gaussian") == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_categorical_criterion_is_the_brute_force_leave_one_out(seed, alpha):
    frame, y = small_problem(seed)
    model = nbayes.NaiveBayes(alpha=alpha).fit(frame.select("codes"), y)
    # the column's values are those of all rows (as in the criterion, S_j counts the held-out
    # row's value): refit with unknown="smooth" and S_j fixed by a row of every value
    expected = 0.0
    classes = np.unique(y)
    codes = frame["codes"].to_numpy()
    S = np.unique(codes).shape[0]
    for i in range(frame.height):
        keep = np.arange(frame.height) != i
        counts = np.array([np.sum(y[keep] == c) for c in classes], dtype=float)
        log_p = np.array(
            [
                math.log(
                    (np.sum((codes[keep] == codes[i]) & (y[keep] == c)) + alpha)
                    / (np.sum(y[keep] == c) + S * alpha)
                )
                for c in classes
            ]
        )
        scores = log_p + np.log(counts + 1.0)
        k = int(np.searchsorted(classes, y[i]))
        expected += scores[k] - np.logaddexp.reduce(scores)
    assert criterion(model, "codes", "categorical") == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_kernel_criterion_is_the_brute_force_leave_one_out_at_a_fixed_bandwidth(seed):
    """With h given (a refit would otherwise move the bandwidth too) and no point masses."""
    frame, y = small_problem(seed)
    frame = frame.with_columns(pl.col("x") + pl.Series(np.arange(frame.height) * 1e-3))
    params = {"bandwidth": 0.4, "point_masses": None}
    model = nbayes.NaiveBayes(**params).fit(frame.select("x"), y)
    expected = brute_force_loo(frame.select("x"), y, {**params, "continuous": "kde"})
    assert criterion(model, "x", "kde") == pytest.approx(expected, rel=1e-9)


def test_the_standard_error_is_that_of_the_paired_row_differences():
    a = np.array([[-0.1, -1.0], [-0.5, -0.2]])
    b = np.array([[-0.3, -0.9], [-0.4, -0.6]])
    weight = np.array([[2.0, 1.0], [0.0, 3.0]])
    d = np.repeat([0.2, -0.1, 0.4], [2, 1, 3])  # every row's difference
    gain, error = _selection.margin(a, b, weight, 1.0)
    assert gain == pytest.approx(d.sum())
    assert error == pytest.approx(math.sqrt(d.shape[0] * d.var()))
    # in units of rows: weights twice as large with rows of weight 2 are the same evidence
    assert _selection.margin(a, b, 2 * weight, 2.0) == pytest.approx((gain, error))


# ---------------------------------------------------------------------- the choices
def known_table(seed: int = 0, n: int = 3000) -> tuple[pl.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.choice(["poor", "rich"], n, p=[0.75, 0.25])
    rich = y == "rich"
    gain = np.where(rng.random(n) < np.where(rich, 0.75, 0.97), 0.0, 0.0)
    gain = np.where(gain == 0, np.where(rng.random(n) < np.where(rich, 0.25, 0.03), 1.0, 0.0), gain)
    gain = np.round(gain * np.where(rich, rng.uniform(7000, 20000, n), rng.uniform(500, 4000, n)))
    height = rng.normal(np.where(rich, 172.0, 168.0), 8.0).round(1)
    stars = rng.integers(1, 6, n) + rich * rng.integers(0, 2, n)  # codes 1-6
    stars = np.minimum(stars, 6)
    # the missing answers mean something: the rich decline to answer
    answer = rng.choice(["yes", "no"], n).astype(object)
    answer[rng.random(n) < np.where(rich, 0.4, 0.05)] = None
    noisy = rng.choice(["u", "v"], n).astype(object)
    noisy[rng.random(n) < 0.2] = None  # missing at random
    frame = pl.DataFrame(
        {
            "gain": gain,
            "height": height,
            "stars": stars,
            "answer": pl.Series(answer.tolist(), dtype=pl.String),
            "noisy": pl.Series(noisy.tolist(), dtype=pl.String),
        }
    )
    return frame, y


def test_each_column_gets_the_representation_its_data_call_for():
    frame, y = known_table()
    model = nbayes.NaiveBayes().fit(frame, y)
    families = model.families_
    assert families["gain"] in ("mdl", "kde", "equal-frequency")  # zero-inflated: no Gaussian
    assert families["height"] == "gaussian"  # bell-shaped: the usual Gaussian stays
    assert families["stars"] == "categorical"  # a few integer codes
    assert families["answer"] == families["noisy"] == "categorical"
    reasons = model.family_reasons_
    assert "missing values a category" in reasons["answer"]
    assert "missing values skipped" in reasons["noisy"]
    assert "chosen from the data" in reasons["gain"] and "gaussian" in reasons["gain"]
    # the Gaussian scores far worse on the zero-inflated column
    scores = choice(model, "gain").scores
    assert scores["gaussian"] < max(scores.values()) - 0.1
    text = model.summary()
    assert "gain  (" in text and "chosen from the data" in text and "why:" in text
    assert "(missing)" in text  # the answer column's table shows its missing row


def test_a_chosen_family_predicts_as_that_family_named():
    frame, y = known_table(1, n=1500)
    model = nbayes.NaiveBayes().fit(frame, y)
    named = nbayes.NaiveBayes(families=model.families_).fit(frame, y)
    # the same numbers, except the missing values of 'answer', which named families skip
    # unless missing="category" says so too
    modes = {n: "category" if "missing values a category" in r else "skip"
             for n, r in model.family_reasons_.items()}  # fmt: skip
    named = nbayes.NaiveBayes(families=model.families_, missing=modes).fit(frame, y)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(frame), named.predict_joint_log_proba(frame), rtol=1e-12
    )


def test_missing_as_a_category_is_one_more_value():
    frame, y = known_table(2, n=1000)
    model = nbayes.NaiveBayes(missing="category").fit(frame.select("answer"), y)
    answers = frame["answer"].to_list()
    for value in ("yes", "no", None):
        got = model.predict_joint_log_proba(
            pl.DataFrame({"answer": [value]}, schema={"answer": pl.String})
        )
        expected = []
        for c in ("poor", "rich"):
            rows = [a for a, label in zip(answers, y, strict=True) if label == c]
            n = sum(a == value for a in rows)
            expected.append(math.log((n + 1) / (len(rows) + 3)) + math.log(len(rows) / len(y)))
        np.testing.assert_allclose(got[0], expected, rtol=1e-12)
    skipped = nbayes.NaiveBayes(missing="skip").fit(frame.select("answer"), y)
    row = pl.DataFrame({"answer": [None]}, schema={"answer": pl.String})
    np.testing.assert_allclose(skipped.predict_log_proba(row)[0], skipped.class_log_prior_)


def test_numeric_missing_values_as_an_outcome():
    rng = np.random.default_rng(4)
    n = 2000
    y = rng.choice(["a", "b"], n)
    x = rng.normal(np.where(y == "a", 0.0, 0.5), 1.0, n)
    x[rng.random(n) < np.where(y == "a", 0.05, 0.5)] = np.nan
    model = nbayes.NaiveBayes().fit(pl.DataFrame({"x": x}), y)
    c = choice(model, "x")
    assert c.missing == "category" and c.missing_gain > 0
    absent = np.isnan(x)
    row = pl.DataFrame({"x": [None]}, schema={"x": pl.Float64})
    got = model.predict_joint_log_proba(row)[0] - model.class_log_prior_
    for k, label in enumerate(("a", "b")):
        in_class = y == label
        expected = (np.sum(absent & in_class) + 1) / (np.sum(in_class) + 2)
        assert got[k] == pytest.approx(math.log(expected), rel=1e-12)


def test_the_usual_representation_stays_on_noise():
    """Columns unrelated to the class: no evidence, so no change from the usual families."""
    rng = np.random.default_rng(7)
    n = 400
    frame = pl.DataFrame(
        {"x": rng.normal(size=n), "k": rng.integers(0, 5, n), "s": rng.choice(["p", "q"], n)}
    ).with_columns(
        pl.when(pl.Series(rng.random(n) < 0.2)).then(None).otherwise(pl.col(c)).alias(c)
        for c in ("x", "k", "s")
    )
    y = rng.choice(["a", "b"], n)
    model = nbayes.NaiveBayes().fit(frame, y)
    assert model.families_ == {"x": "gaussian", "k": "categorical", "s": "categorical"}
    assert all("skipped" in r for r in model.family_reasons_.values())


def test_an_unseen_integer_of_a_column_counted_as_categories_warns():
    frame, y = known_table(3, n=800)
    model = nbayes.NaiveBayes().fit(frame.select("stars"), y)
    assert model.families_ == {"stars": "categorical"}
    with pytest.warns(nbayes.UnseenCategoryWarning, match="'stars': 1"):
        proba = model.predict_proba(pl.DataFrame({"stars": [9, 2]}))
    np.testing.assert_allclose(proba[0], np.exp(model.class_log_prior_), rtol=1e-12)
    strict = nbayes.NaiveBayes(unknown="error").fit(frame.select("stars"), y)
    with pytest.raises(ValueError, match="stars"):
        strict.predict(pl.DataFrame({"stars": [9]}))


def test_model_files_keep_the_statistics_and_so_the_choices(tmp_path):
    frame, y = known_table(5, n=1200)
    model = nbayes.NaiveBayes().fit(frame, y)
    loaded = nbayes.load(nbayes.save(model, tmp_path / "auto.nbm"))
    assert loaded.families_ == model.families_
    assert loaded.family_reasons_ == model.family_reasons_
    np.testing.assert_array_equal(loaded.predict_proba(frame), model.predict_proba(frame))


def test_choices_follow_the_parameters_at_prediction_time():
    """Like cut points, the choice is derived, not fitted: changing a setting re-derives it."""
    frame, y = known_table(6, n=1200)
    model = nbayes.NaiveBayes().fit(frame, y)
    assert "missing values a category" in model.family_reasons_["answer"]
    model.set_params(missing="skip")
    assert "missing values skipped" in model.family_reasons_["answer"]
    with pytest.raises(ValueError, match="missing must be one of"):
        nbayes.NaiveBayes(missing="drop").fit(frame, y)


# ---------------------------------------------------------------------- merging
def assert_same_choices(a: nbayes.NaiveBayes, b: nbayes.NaiveBayes) -> None:
    assert a.families_ == b.families_
    for group_a, group_b in zip(a._stats.groups, b._stats.groups, strict=True):
        if isinstance(group_a, AutoColumns):
            for x, y in zip(
                group_a.choices(a._settings()), group_b.choices(b._settings()), strict=True
            ):
                assert (x.family, x.missing, x.candidate) == (y.family, y.missing, y.candidate)
                assert x.scores.keys() == y.scores.keys()
                for name in x.scores:
                    assert x.scores[name] == pytest.approx(y.scores[name], rel=1e-9, abs=1e-12)


@settings(max_examples=20, deadline=None)
@given(problem=problems())
def test_merge_and_partial_fit_make_the_choices_of_one_fit(problem):
    """Every numeric column of tests/test_model_merge.py's table in the default family "auto":
    the statistics, the choices and the predictions of any split equal one fit's."""
    whole, merged, streamed = run(problem, {"alpha": 0.5}, distinct=False)
    assert all(f != "auto" for f in whole.families_.values())
    for model in (merged, streamed):
        assert_same_choices(whole, model)


@settings(max_examples=10, deadline=None)
@given(problem=problems())
def test_merging_sketches_that_pooled_makes_the_same_choices(problem):
    whole, merged, streamed = run(problem, {"max_bins": 8}, distinct=True)
    for model in (merged, streamed):
        assert_same_choices(whole, model)
        assert_same_predictions(whole, model, whole_frame(problem))


def whole_frame(problem: dict) -> pl.DataFrame:
    from test_model_merge import make_table

    return make_table(problem["n"], problem["seed"], problem["missing"], True)[0]


def test_warnings_from_choices_are_not_raised():
    """Deriving the choices warns about nothing (no division or log of zero leaks out)."""
    frame, y = known_table(8, n=500)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nbayes.NaiveBayes().fit(frame, y).summary()


def test_explanations_of_missing_values_counted_as_a_category_add_up_to_the_prediction():
    # each column's term alone: the other columns' missing terms must not leak into it, and a
    # missing value counted as a category has its own term, P(missing | c)
    rng = np.random.default_rng(3)
    n = 200
    y = rng.choice(["a", "b"], n)
    colour = rng.choice(["red", "green"], n).astype(object)
    colour[(y == "a") & (rng.random(n) < 0.4)] = None
    size = rng.normal(0, 1, n) + (y == "a")
    size[(y == "b") & (rng.random(n) < 0.3)] = np.nan
    frame = pl.DataFrame({"colour": colour.tolist(), "size": size}, strict=False)
    model = nbayes.NaiveBayes(missing="category", alpha=1.0).fit(frame, y)
    assert model.missing_ == {"colour": "category", "size": "category"}
    rows = frame.with_row_index().filter(pl.col("colour").is_null() | pl.col("size").is_nan())
    for i in rows.get_column("index").to_list()[:6]:
        row = frame.slice(i, 1)
        explanation = model.explain(row)
        np.testing.assert_allclose(
            explanation.posterior, model.predict_proba(row)[0], rtol=1e-10, atol=1e-14
        )
        assert not np.isnan(explanation.log_likelihood).any()
    # P(colour = missing | c) = (N_c,missing + λ) / (N_c + (S + 1) λ): S = 2 colours seen
    row = frame.filter(pl.col("colour").is_null()).slice(0, 1)
    explanation = model.explain(row)
    j = list(explanation.features).index("colour")
    for k, c in enumerate(explanation.classes):
        missing = np.sum((y == c) & (frame.get_column("colour").is_null().to_numpy()))
        expected = (missing + 1.0) / (np.sum(y == c) + 3.0)
        assert np.exp(explanation.log_likelihood[j, k]) == pytest.approx(expected, rel=1e-12)


def test_packed_sketches_round_trip_and_refuse_forged_offsets():
    from nbayes.families.sketch import ValueSketches

    rng = np.random.default_rng(4)
    X = np.column_stack([rng.normal(size=60), rng.integers(0, 4, 60), np.full(60, np.nan)])
    sketches = ValueSketches(2, 3)
    sketches.accumulate(X, rng.integers(0, 2, 60), np.ones(60))
    packed = sketches.packed_state()
    assert len(packed) == 6  # whatever the number of columns
    back = ValueSketches.from_packed_state(packed)
    back.check(2, 3)
    for a, b in zip(sketches.features, back.features, strict=True):
        np.testing.assert_array_equal(a.keys, b.keys)
        np.testing.assert_array_equal(a.weight, b.weight)
        assert (a.minimum, a.maximum, a.level) == (b.minimum, b.maximum, b.level)
    offsets = packed["offsets"]
    forged = [
        offsets[::-1].copy(),  # decreasing
        offsets + 1,  # not from 0
        np.append(offsets[:-1], offsets[-1] + 5),  # beyond the keys
        offsets.astype(np.float64),  # not integers
    ]
    for bad in forged:
        with pytest.raises(ValueError, match="packed sketch"):
            ValueSketches.from_packed_state({**packed, "offsets": bad})


def test_rows_of_weight_zero_are_rows_left_out_for_every_choice():
    # many zero weights: the chosen families, the missing-value modes and the predictions are
    # those of the fit without those rows (scikit-learn's meaning of a zero weight)
    rng = np.random.default_rng(12)
    n = 200
    y = rng.choice(np.array(["a", "b"]), n)
    answer = rng.choice(["yes", "no"], n).astype(object)
    answer[(y == "a") & (rng.random(n) < 0.3)] = None
    frame = pl.DataFrame(
        {"g": rng.normal(size=n) + (y == "a"), "k": rng.integers(0, 4, n), "answer": answer},
        strict=False,
    )
    weight = np.where(rng.random(n) < 0.75, 0.0, 1.0)
    keep = weight > 0
    weighted = nbayes.NaiveBayes().fit(frame, y, sample_weight=weight)
    dropped = nbayes.NaiveBayes().fit(frame.filter(pl.Series(keep)), y[keep])
    assert weighted.families_ == dropped.families_
    assert weighted.missing_ == dropped.missing_
    assert weighted.family_reasons_ == dropped.family_reasons_
    np.testing.assert_allclose(
        weighted.predict_proba(frame), dropped.predict_proba(frame), rtol=1e-9, atol=1e-12
    )


def counts_table(seed: int = 1, n: int = 300) -> tuple[pl.DataFrame, np.ndarray]:
    """A count of 0-14 whose class densities are smooth and one of them bimodal: neighbouring
    counts share a class, and the rare counts are best judged by their neighbours."""
    rng = np.random.default_rng(seed)
    y = rng.choice(np.array(["a", "b"]), n)
    centre = np.where(y == "a", np.where(rng.random(n) < 0.5, 2.0, 10.0), 6.0)
    legs = np.clip(np.round(rng.normal(centre, 1.3)), 0, 14).astype(int)
    return pl.DataFrame({"legs": legs}), y


def test_a_count_can_be_smoothed_across_neighbouring_codes(tmp_path):
    frame, y = counts_table()
    model = nbayes.NaiveBayes(calibration=None).fit(frame, y)
    assert model.families_ == {"legs": "kde"}
    c = choice(model, "legs")
    assert c.candidate == _auto.SMOOTH and not c.point_masses
    assert "kde without point masses" in c.reason() and "(chosen)" in c.reason()
    assert c.scores[_auto.SMOOTH] > max(v for k, v in c.scores.items() if k != _auto.SMOOTH)
    # the same numbers as the family named, without point masses for that column
    named = nbayes.NaiveBayes(
        calibration=None, families={"legs": "kde"}, point_masses={"legs": None}
    ).fit(frame, y)
    np.testing.assert_allclose(
        model.predict_joint_log_proba(frame), named.predict_joint_log_proba(frame), rtol=1e-12
    )
    for fitted in (model, named):  # model files keep the per-column point masses
        loaded = nbayes.load(nbayes.save(fitted, tmp_path / "counts.nbm"))
        np.testing.assert_array_equal(loaded.predict_proba(frame), fitted.predict_proba(frame))
    with_masses = nbayes.NaiveBayes(calibration=None, families={"legs": "kde"}).fit(frame, y)
    assert not np.allclose(
        model.predict_joint_log_proba(frame), with_masses.predict_joint_log_proba(frame)
    )
    assert "legs  (kernel density" in model.summary()
    # point_masses=None everywhere: the two kernel densities are one, and only "kde" is scored
    plain = nbayes.NaiveBayes(calibration=None, point_masses=None).fit(frame, y)
    assert _auto.SMOOTH not in choice(plain, "legs").scores


def test_two_codes_are_not_smoothed_across():
    rng = np.random.default_rng(2)
    n = 300
    y = rng.choice(np.array(["a", "b"]), n)
    frame = pl.DataFrame({"flag": (rng.random(n) < np.where(y == "a", 0.2, 0.7)).astype(int)})
    model = nbayes.NaiveBayes().fit(frame, y)
    assert _auto.SMOOTH not in choice(model, "flag").scores


def test_a_tie_in_round_off_keeps_the_usual_representation():
    assert not _selection.beats(3e-13, 1e-14, 1000.0)  # 30 standard errors, but of round-off
    assert _selection.beats(2.0, 1.0, 1000.0)
    assert not _selection.beats(2.0, 1.0, 1000.0, standard_errors=2.33)


def test_the_missing_value_bar_is_bonferronis_over_the_columns_that_choose():
    assert _selection.group_standard_errors(1) == _selection.STANDARD_ERRORS
    z16 = _selection.group_standard_errors(16)
    assert z16 == pytest.approx(2.33, abs=5e-3)
    assert stats.norm.sf(z16) == pytest.approx(stats.norm.sf(1.0) / 16, rel=1e-9)


def test_weak_wins_of_missing_categories_in_many_columns_are_skipped():
    """Sixteen votes whose missing values lean weakly to one class (the same kind of evidence in
    every column), and one whose missing values clearly mean something."""
    rng = np.random.default_rng(0)
    n = 600
    y = rng.choice(np.array(["a", "b"]), n)
    columns = {}
    for j in range(16):
        vote = rng.choice(["y", "n"], n).astype(object)
        vote[rng.random(n) < np.where(y == "b", 0.16, 0.08)] = None
        columns[f"v{j}"] = pl.Series(vote.tolist(), dtype=pl.String)
    told = rng.choice(["y", "n"], n).astype(object)
    told[rng.random(n) < np.where(y == "b", 0.4, 0.05)] = None
    columns["told"] = pl.Series(told.tolist(), dtype=pl.String)
    frame = pl.DataFrame(columns)
    model = nbayes.NaiveBayes().fit(frame, y)
    assert [n for n, mode in model.missing_.items() if mode == "category"] == ["told"]
    # each vote alone, one column choosing, takes the weak win of some of them
    alone = [nbayes.NaiveBayes().fit(frame.select(f"v{j}"), y).missing_ for j in range(16)]
    assert sum(m[f"v{j}"] == "category" for j, m in enumerate(alone)) >= 3


def test_point_masses_per_column_are_checked():
    frame, y = counts_table(n=100)
    with pytest.raises(ValueError, match="point_masses must be a share"):
        nbayes.NaiveBayes(point_masses={"legs": 2.0}).fit(frame, y)
    with pytest.raises(ValueError, match="point_masses names columns that are not in the data"):
        nbayes.NaiveBayes(point_masses={"arms": None}).fit(frame, y)


def test_a_column_of_few_integers_keeps_counting_and_says_so():
    rng = np.random.default_rng(1)
    n = 300
    y = rng.choice(np.array(["a", "b"]), n)
    frame = pl.DataFrame({"k": np.where(y == "a", rng.integers(0, 2, n), rng.integers(1, 4, n))})
    model = nbayes.NaiveBayes().fit(frame, y)
    assert model.families_ == {"k": "categorical"}
    assert "the usual categorical stays" in model.family_reasons_["k"]


@pytest.mark.parametrize("kind", ["codes", "pooled", "exact floats"])
def test_a_batch_counted_on_the_grid_equals_the_sorted_reduction(kind):
    from nbayes.families import sketch as sk

    rng = np.random.default_rng(21)
    n, k = 5000, 3
    cls = rng.integers(0, k, n)
    weight = rng.random(n) + 0.5
    if kind == "codes":  # whole numbers at the exact level
        level, values = sk.EXACT, rng.integers(-3, 9, n).astype(np.float64)
    elif kind == "pooled":  # any values, pooled on a grid of width 2^-5
        level, values = -5, rng.normal(size=n) * 3
    else:  # exact values that are not whole numbers: left to the sort
        level, values = sk.EXACT, rng.normal(size=n)
    total = weight * values
    count, smallest, largest, grid = sk._sums_on_grid(values, cls, weight, level, k)
    assert (count, smallest, largest) == (n, values.min(), values.max())
    if kind == "exact floats":
        assert grid is None
        return
    expected = _sum_on_keys(sk.pool(values, level), cls, weight, total, k)
    got = _sum_on_keys(*sk._grid_entries(grid, level, k), k)
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-12)
    np.testing.assert_allclose(got[2], expected[2], rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("n", [500, 5000])  # below and above the counting threshold
def test_a_sketch_skips_missing_values_and_zero_weights_as_if_they_were_not_there(n):
    from nbayes.families import sketch as sk

    rng = np.random.default_rng(23)
    values = rng.integers(0, 9, n).astype(np.float64)
    values[rng.random(n) < 0.2] = np.nan
    cls = rng.integers(0, 2, n)
    weight = rng.random(n) + 0.5
    weight[rng.random(n) < 0.1] = 0.0
    values[np.argmax(weight == 0)] = 100.0  # a value of weight 0 must not stretch the range
    raw, filtered = sk.FeatureSketch(2, 2048), sk.FeatureSketch(2, 2048)
    raw.add(values, cls, weight)
    keep = ~np.isnan(values) & (weight != 0)
    filtered.add(values[keep], cls[keep], weight[keep])
    assert raw.minimum == values[keep].min()
    assert raw.maximum == values[keep].max() < 100.0
    np.testing.assert_array_equal(raw.keys, filtered.keys)
    np.testing.assert_array_equal(raw.weight, filtered.weight)
    np.testing.assert_array_equal(raw.total, filtered.total)


def test_a_batch_whose_keys_are_all_known_is_added_in_place_with_the_same_sums():
    from nbayes.families import sketch as sk

    rng = np.random.default_rng(22)
    n, k = 4000, 3
    batches = [
        (rng.integers(0, 6, n).astype(np.float64), rng.integers(0, k, n), rng.random(n) + 0.5)
        for _ in range(3)
    ]
    fast = sk.FeatureSketch(k, 2048)
    slow = sk.FeatureSketch(k, 2048)
    in_place = []
    for values, cls, weight in batches:
        before = fast.keys
        fast.add(values, cls, weight)
        in_place.append(fast.keys is before)  # the keys array is kept only in place
        # the general path: every stored entry and the batch's, summed again by sorting
        new = sk._grid_entries(sk._sums_on_grid(values, cls, weight, sk.EXACT, k)[3], sk.EXACT, k)
        slow._store(*(np.concatenate(p) for p in zip(slow._entries(), new, strict=True)))
    assert in_place == [False, True, True]
    np.testing.assert_array_equal(fast.keys, np.arange(6.0))
    np.testing.assert_array_equal(fast.weight, slow.weight)
    np.testing.assert_array_equal(fast.total, slow.total)
    # a key never seen joins the union in its place, with the same sums as the sorting path
    values = np.where(batches[0][0] == 2.0, 7.0, batches[0][0])
    fast.add(values, batches[0][1], batches[0][2])
    grid = sk._sums_on_grid(values, batches[0][1], batches[0][2], sk.EXACT, k)[3]
    new = sk._grid_entries(grid, sk.EXACT, k)
    slow._store(*(np.concatenate(p) for p in zip(slow._entries(), new, strict=True)))
    np.testing.assert_array_equal(fast.keys, [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 7.0])
    np.testing.assert_array_equal(fast.weight, slow.weight)
    np.testing.assert_array_equal(fast.total, slow.total)
    # a union beyond max_bins is left to the sorting path, which coarsens the grid
    small = sk.FeatureSketch(k, 4)
    assert small._add_on_grid(grid) is False
    assert small.keys.size == 0


@pytest.mark.parametrize("kind", ["codes", "pooled"])
def test_grid_sums_merged_with_the_stored_keys_equal_the_sorted_reduction(kind):
    """The compiled merge of a batch's grid sums with the stored keys gives, bit for bit, the
    keys and sums of the general path (every stored entry and the batch's, summed again by
    sorting): for a batch of stored keys only (the stored keys array kept), for one with new
    keys at both ends and inside, and it refuses (nothing changed) a union beyond max_bins."""
    from nbayes.families import sketch as sk

    rng = np.random.default_rng(24)
    n, k = 6000, 4

    if kind == "codes":
        seen = rng.integers(-3, 9, n).astype(np.float64)
    else:
        seen = np.round(rng.normal(size=n) * 3, 1)
    seen[rng.random(n) < 0.05] = np.nan

    def batch(values):  # shuffled, new classes and weights (some zero)
        weight = np.where(rng.random(n) < 0.05, 0.0, rng.random(n) + 0.5)
        return rng.permutation(values), rng.integers(0, k, n), weight

    sketch = sk.FeatureSketch(k, 64 if kind == "pooled" else 2048)
    for _ in range(3):  # the grid settles
        sketch.add(*batch(seen))
    assert (sketch.level == sk.EXACT) == (kind == "codes")
    width = 1.0 if kind == "codes" else 2.0**sketch.level
    gaps = seen.copy()
    gaps[: n // 10] = np.nanmin(seen) - 3 * width  # new keys below, above and (codes) inside
    gaps[n // 10 : n // 5] = np.nanmax(seen) + 2 * width
    if kind == "codes":
        sketch.keys, sketch.weight, sketch.total = (
            a[sketch.keys != 4.0] for a in (sketch.keys, sketch.weight, sketch.total)
        )
    for values, new_keys in ((seen, kind == "codes"), (gaps, True)):
        values, cls, weight = batch(values)
        _, _, _, grid = sk._sums_on_grid(values, cls, weight, sketch.level, k)
        expected = copy.copy(sketch)  # the same arrays: a sketch replaces them, never writes
        entries = zip(expected._entries(), sk._grid_entries(grid, sketch.level, k), strict=True)
        expected._store(*(np.concatenate(pair) for pair in entries))
        keys = sketch.keys
        assert sketch._add_on_grid(grid)
        assert (sketch.keys is keys) == (not new_keys)
        np.testing.assert_array_equal(sketch.keys, expected.keys)
        np.testing.assert_array_equal(sketch.weight, expected.weight)
        np.testing.assert_array_equal(sketch.total, expected.total)
    # a union beyond max_bins: nothing changes here (the sorting path coarsens the grid)
    values, cls, weight = batch(gaps + 1000.0 * width)
    _, _, _, grid = sk._sums_on_grid(values, cls, weight, sketch.level, k)
    sketch.max_bins = sketch.keys.size
    weight_before = sketch.weight
    assert not sketch._add_on_grid(grid)
    assert sketch.weight is weight_before


def test_explanations_stay_exact_when_a_missing_term_is_minus_infinity():
    # maximum likelihood (alpha=0): a class with no missing values has P(missing | c) = 0, and
    # the other columns' terms must not become NaN (−inf − −inf) on a row with a missing value
    y = np.array(["a"] * 6 + ["b"] * 6)
    frame = pl.DataFrame(
        {
            "colour": ["red", "red", "blue", "red", "blue", "red"] + ["blue"] * 4 + ["red"] * 2,
            "answer": ["yes", None, "no", None, "yes", "no"] + ["no", "yes"] * 3,
        }
    )
    model = nbayes.NaiveBayes(missing="category", alpha=0.0).fit(frame, y)
    row = frame.slice(1, 1)  # answer missing: impossible for class b
    explanation = model.explain(row)
    terms = dict(zip(explanation.features, explanation.log_likelihood, strict=True))
    # colour = red: 4 of 6 in a, 2 of 6 in b (counted with missing as a value: no change here)
    np.testing.assert_allclose(np.exp(terms["colour"]), [4 / 6, 2 / 6], rtol=1e-12)
    np.testing.assert_allclose(np.exp(terms["answer"]), [2 / 6, 0.0], rtol=1e-12)
    np.testing.assert_allclose(explanation.posterior, [1.0, 0.0])
    np.testing.assert_allclose(model.predict_proba(row)[0], [1.0, 0.0])


def _sum_on_keys(keys, cls, weight, total, n_classes):
    """(distinct keys, W, T): weight and total summed per (key, class) by ``np.unique`` and
    ``np.bincount``, each sum in the entries' order."""
    unique, inverse = np.unique(keys, return_inverse=True)
    slot = inverse.ravel() * n_classes + cls
    size = unique.size * n_classes
    sums = [np.bincount(slot, weights=v, minlength=size) for v in (weight, total)]
    return unique, *(s.reshape(-1, n_classes) for s in sums)


def _sketch_by_sorting_twice(sketch, keys, cls, weight, total):
    """The keys, W, T and grid of ``sketch`` after storing the entries (key, class, weight,
    total), computed the plain way: sum the entries on their distinct keys (``np.unique`` and
    ``np.bincount``, in the entries' order), find the smallest grid 2^e that pools them into at
    most max_bins keys by trying every e in turn, then sum the stored entries (zero weights
    left out) again on that grid."""
    from nbayes.families import sketch as sk

    def reduce(keys, cls, weight, total):
        return _sum_on_keys(keys, cls, weight, total, sketch.n_classes)

    unique, W, T = reduce(keys, cls, weight, total)
    level = sketch.level
    if unique.size > sketch.max_bins:
        level = (
            int(np.floor(np.log2(np.min(np.diff(unique))))) - 1
            if level == sk.EXACT
            else level
        )
        while np.unique(sk.pool(unique, level)).size > sketch.max_bins:
            level += 1
        entries = np.repeat(unique, sketch.n_classes), np.tile(
            np.arange(sketch.n_classes), unique.size
        )
        keep = W.ravel() != 0
        unique, W, T = reduce(
            sk.pool(entries[0][keep], level), entries[1][keep], W.ravel()[keep], T.ravel()[keep]
        )
    return unique, W, T, level


@pytest.mark.parametrize(
    "kind", ["distinct", "repeated", "few", "tiny and huge", "signed zeros", "coarse again"]
)
def test_a_sketch_stores_a_batch_with_the_sums_of_sorting_twice(kind):
    """The sort path of a value sketch (a first batch of distinct values, a merge) sums each
    key's entries in their order and pools the keys in key order in one compiled walk: the
    keys, grid, W and T of summing on the distinct keys and then pooling them, bit for bit,
    with weights that make the order of a sum matter. It covers long runs of one key, a few
    keys (no grid), values near zero and near the float range, ±0 and a second coarsening."""
    from nbayes.families import sketch as sk

    rng = np.random.default_rng(31)
    n, k, max_bins = 20_000, 3, 256
    values = {
        "distinct": np.round(rng.normal(size=n) * 4, 6),
        "repeated": np.round(rng.normal(size=n) * 3, 2),  # runs of up to about 30 of one key
        "few": rng.choice([0.25, 1.5, 2.75, 3.0], n),
        "tiny and huge": rng.choice([-1, 1], n) * 10.0 ** rng.uniform(-300, 100, n),
        "signed zeros": np.where(
            rng.random(n) < 0.3, rng.choice([-0.0, 0.0], n), np.round(rng.normal(size=n), 2)
        ),
        "coarse again": np.round(rng.normal(size=n) * 1000, 3),
    }[kind]
    cls, weight = rng.integers(0, k, n), rng.random(n) + 0.1
    sketch = sk.FeatureSketch(k, max_bins)
    if kind == "coarse again":  # a grid already, that a wider batch must coarsen
        sketch.add(values[: n // 2] / 100, cls[: n // 2], weight[: n // 2])
        assert sketch.level != sk.EXACT
    before = copy.copy(sketch)
    with np.errstate(over="ignore"):
        total = weight * values
    entries = zip(
        sketch._entries(), (sk.pool(values, sketch.level), cls, weight, total), strict=True
    )
    keys, cls_all, weight_all, total_all = (np.concatenate(pair) for pair in entries)
    expected = _sketch_by_sorting_twice(before, keys, cls_all, weight_all, total_all)
    sketch.minimum = min(sketch.minimum, values.min())
    sketch.maximum = max(sketch.maximum, values.max())
    sketch._store(keys, cls_all, weight_all, total_all)
    assert sketch.level == expected[3]
    assert (sketch.level == sk.EXACT) == (kind == "few")
    np.testing.assert_array_equal(sketch.keys, expected[0])
    np.testing.assert_array_equal(sketch.weight, expected[1])
    np.testing.assert_array_equal(sketch.total, expected[2])
    if kind == "signed zeros":  # -0.0 and +0.0 are one key, kept as +0.0
        assert np.count_nonzero(sketch.keys == 0) == 1
        assert not np.signbit(sketch.keys[sketch.keys == 0])


def test_choosing_many_columns_at_once_equals_choosing_each_alone(monkeypatch):
    """The choice lays many columns' keys end to end (``_auto_choice``): each column's
    criteria, gains and family must be those of a model of that column alone, across the
    boundaries of the blocks the columns are cut into."""
    from nbayes.families import _auto_choice

    rng = np.random.default_rng(7)
    n = 240
    y = rng.integers(0, 3, n)
    columns = {
        "codes": rng.integers(0, 6, n) + y,
        "two codes": (rng.random(n) < 0.3 + 0.2 * y).astype(float),
        "normal": rng.normal(y, 1.0),
        "skewed": rng.lognormal(y * 0.4, 1.0),
        "zero inflated": np.where(rng.random(n) < 0.6, 0.0, rng.exponential(1 + y)),
        "threshold": (rng.normal(size=n) > 0.5 * y).astype(float) * 10 + rng.normal(size=n),
        "one class constant": np.where(y == 0, 3.0, rng.normal(size=n)),
        "with missing": np.where(rng.random(n) < 0.2 * y, np.nan, rng.normal(y, 2.0)),
        "codes with missing": np.where(rng.random(n) < 0.15, np.nan, rng.integers(0, 4, n)),
    }
    frame = pl.DataFrame(columns)
    weight = rng.choice([0.5, 1.0, 2.0], n)
    for params in ({"missing": "category"}, {"missing": "skip", "alpha": 0.5}):
        monkeypatch.setattr(_auto_choice, "BLOCK_CELLS", 40)  # several blocks
        together = nbayes.NaiveBayes(**params).fit(frame, y, sample_weight=weight)
        monkeypatch.undo()
        for name in columns:
            alone = nbayes.NaiveBayes(**params).fit(frame.select(name), y, sample_weight=weight)
            a, b = choice(together, name), choice(alone, name)
            assert (a.family, a.candidate, a.missing, a.usual) == (
                b.family, b.candidate, b.missing, b.usual
            ), name
            assert list(a.scores) == list(b.scores), name
            np.testing.assert_allclose(list(a.scores.values()), list(b.scores.values()), 1e-12)
            np.testing.assert_allclose(a.missing_gain, b.missing_gain, 1e-12)
    # the columns really went in several blocks
    group = auto_group(together)
    assert len(_auto_choice.blocks(group.stats.sketches.features, 3)) == 1
    monkeypatch.setattr(_auto_choice, "BLOCK_CELLS", 40)
    assert len(_auto_choice.blocks(group.stats.sketches.features, 3)) > 3
