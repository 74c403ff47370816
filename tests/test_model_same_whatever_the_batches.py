"""``NaiveBayes()`` with no arguments is the same model, calibration included, however its rows
arrive: in one fit, in any order, in batches, merged from parts in any order, or through a model
file in between (its calibration is derived from mergeable statistics and a row sample:
nbayes.model_calibration)."""

from __future__ import annotations

import itertools

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nbayes

N = 700


def mixed_table(n: int = N, seed: int = 0) -> tuple[pl.DataFrame, np.ndarray]:
    """Categories (one repeated: evidence counted twice), numbers of several shapes, integer
    codes and missing values: every choice the default model makes from the data."""
    rng = np.random.default_rng(seed)
    y = rng.choice(np.array(["no", "yes", "maybe"]), n, p=[0.5, 0.3, 0.2])
    shift = (y == "yes") * 1.0 + (y == "maybe") * 2.0
    colour = np.where(rng.random(n) < 0.3 + 0.2 * shift, "red", "blue")
    height = rng.normal(shift, 1.0, n)
    skewed = rng.exponential(1.0 + shift, n)
    code = rng.integers(0, 4, n) + (shift > 1)
    frame = pl.DataFrame(
        {
            "colour": colour,
            "colour again": colour,
            "height": np.where(rng.random(n) < 0.05, np.nan, height),
            "skewed": skewed,
            "code": code,
        }
    ).with_columns(pl.col("height").fill_nan(None))
    return frame, y


FRAME, Y = mixed_table()
ONE_FIT = nbayes.NaiveBayes().fit(FRAME, Y)
EXPECTED = ONE_FIT.predict_proba(FRAME)


def assert_same_model(model: nbayes.NaiveBayes) -> None:
    assert model.families_ == ONE_FIT.families_
    assert model.calibration_.weight == pytest.approx(ONE_FIT.calibration_.weight, rel=1e-9)
    np.testing.assert_allclose(model.calibration_.offset, ONE_FIT.calibration_.offset, atol=1e-9)
    np.testing.assert_allclose(model.predict_proba(FRAME), EXPECTED, rtol=0, atol=1e-9)


def test_the_default_model_of_this_table_is_calibrated():
    # otherwise the equalities below would not test the calibration
    assert not ONE_FIT.calibration_.is_identity
    assert len(ONE_FIT._stats.sample) > 100


def cuts(draw, n: int, most: int) -> list[int]:
    inner = draw(st.lists(st.integers(1, n - 1), max_size=most - 1, unique=True))
    return [0, *sorted(inner), n]


@settings(max_examples=8)
@given(st.data())
def test_any_order_and_any_batches_give_the_model_of_one_fit(data):
    order = np.random.default_rng(data.draw(st.integers(0, 2**31))).permutation(N)
    frame, y = FRAME[order], Y[order]
    edges = cuts(data.draw, N, 5)
    model = nbayes.NaiveBayes()
    for start, stop in itertools.pairwise(edges):
        model.partial_fit(frame[start:stop], y[start:stop])
    assert_same_model(model)


@settings(max_examples=8)
@given(st.data())
def test_parts_merged_in_any_order_give_the_model_of_one_fit(data):
    order = np.random.default_rng(data.draw(st.integers(0, 2**31))).permutation(N)
    edges = cuts(data.draw, N, 4)
    parts = [
        nbayes.NaiveBayes().partial_fit(FRAME[order[start:stop]], Y[order[start:stop]])
        for start, stop in itertools.pairwise(edges)
    ]
    merged = parts[-1]
    for part in parts[:-1]:  # the last first: the class order differs from one fit's
        assert merged.calibration_ is not False  # derived now: a merge must derive it again
        merged.merge(part)
    assert_same_model(merged)


def test_a_model_file_between_batches_keeps_the_sample(tmp_path):
    first = nbayes.NaiveBayes().fit(FRAME[:300], Y[:300])
    path = nbayes.save(first, tmp_path / "half.nbm")
    loaded = nbayes.load(path)
    assert loaded.calibration_.weight == first.calibration_.weight  # saved, not derived again
    loaded.partial_fit(FRAME[300:], Y[300:])
    assert_same_model(loaded)


def test_weights_of_copies_add_up_in_the_sample():
    doubled = nbayes.NaiveBayes().fit(pl.concat([FRAME, FRAME]), np.concatenate([Y, Y]))
    weighted = nbayes.NaiveBayes().fit(FRAME, Y, sample_weight=np.full(N, 2.0))
    np.testing.assert_allclose(doubled._stats.sample.weight, weighted._stats.sample.weight)
    np.testing.assert_allclose(
        doubled.predict_proba(FRAME), weighted.predict_proba(FRAME), atol=1e-9
    )


def test_a_loaded_model_keeps_the_choices_and_derives_none_again(tmp_path, monkeypatch):
    from nbayes.families.auto import AutoColumns

    path = nbayes.save(ONE_FIT, tmp_path / "m.nbm")

    def refuse(self, settings):
        raise AssertionError("the choices were derived again after loading")

    monkeypatch.setattr(AutoColumns, "_choose_all", refuse)
    loaded = nbayes.load(path)
    assert loaded.families_ == ONE_FIT.families_
    assert loaded.family_reasons_ == ONE_FIT.family_reasons_
    np.testing.assert_array_equal(loaded.predict_proba(FRAME), EXPECTED)


def test_a_forged_choice_is_refused(tmp_path):
    from nbayes.families.auto import _choice_from_json, _choice_json

    good = _choice_json(ONE_FIT._stats.groups[-1].choices(ONE_FIT._settings())[0])
    assert _choice_from_json(good) == _choice_from_json(good)
    forged = [
        ("family", "rm -rf"),
        ("family", "kde without point masses"),  # a candidate, not a family
        ("alpha", -1.0),
        ("missing", "guess"),
    ]
    for field, value in forged:
        with pytest.raises(ValueError, match="choice"):
            _choice_from_json({**good, field: value})


def test_integers_beyond_float_precision_are_distinct_rows_and_survive_a_model_file(tmp_path):
    rng = np.random.default_rng(1)
    n = 300
    y = rng.choice(np.array(["a", "b"]), n)
    ids = (2**53 + np.arange(n)).astype(np.int64)  # equal as float64 in pairs
    frame = pl.DataFrame({"id": ids, "x": rng.normal(y == "a", 1.0, n)})
    model = nbayes.NaiveBayes(families={"id": "categorical"}).fit(frame, y)
    assert len(model._stats.sample) == n
    loaded = nbayes.load(nbayes.save(model, tmp_path / "m.nbm"))
    assert loaded._stats.sample.frame.equals(model._stats.sample.frame)


def test_a_batch_the_sample_cannot_read_changes_nothing():
    model = nbayes.NaiveBayes(families={"note": "ignore"}).partial_fit(
        FRAME.with_columns(pl.lit(1).alias("note")), Y
    )
    counts = model.class_count_.copy()
    bad = FRAME[:50].with_columns(pl.lit("not a number").alias("note"))
    with pytest.raises(ValueError, match="note"):
        model.partial_fit(bad, Y[:50])
    np.testing.assert_array_equal(model.class_count_, counts)


def test_fractional_weights_leave_no_round_off_in_the_held_out_counts():
    weight = np.random.default_rng(2).uniform(0.1, 0.9, N)
    model = nbayes.NaiveBayes(alpha=0.0, continuous="gaussian").fit(FRAME, Y, sample_weight=weight)
    assert "nan" not in model.calibration_.reason
    assert not model.calibration_.is_identity
