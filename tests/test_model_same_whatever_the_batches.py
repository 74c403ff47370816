"""``NaiveBayes()`` with no arguments is the same model, calibration included, however its rows
arrive: in one fit, in any order, in batches, merged from parts in any order, or through a model
file in between (its calibration is derived from mergeable statistics and a row sample:
nbayes.model_calibration)."""

from __future__ import annotations

import itertools
import json
import pickle

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


def _one_object_per_column(saved: dict) -> list[dict]:
    """Saved choices as files written them before they were lists of fields."""
    columns = len(saved["family"])
    out = [{name: saved[name][k] for name in saved if name != "scores"} for k in range(columns)]
    for k, item in enumerate(out):
        item["scores"] = [[n, v[k]] for n, v in saved["scores"].items() if v[k] is not None]
    return out


def test_a_forged_choice_is_refused(tmp_path):
    from nbayes.families._auto_choice import _choice_from_json, choices_from_json, choices_json

    group = ONE_FIT._stats.groups[-1]
    choices = group.choices(ONE_FIT._settings())
    good = group.saved_choices(ONE_FIT._settings())
    columns = len(choices)
    # (compared as JSON and in words: a NaN field is unequal to itself)
    for read in (
        choices_from_json(json.loads(json.dumps(good)), columns),
        [_choice_from_json(item) for item in _one_object_per_column(good)],
    ):
        assert choices_json(read) == good
        assert [c.reason() for c in read] == [c.reason() for c in choices]
    forged = [
        ("family", "rm -rf"),
        ("family", "kde without point masses"),  # a candidate, not a family
        ("alpha", -1.0),
        ("alpha", True),
        ("missing", "guess"),
        ("note", None),
    ]
    for field, value in forged:
        one = {**_one_object_per_column(good)[0], field: value}
        with pytest.raises(ValueError, match="choice"):
            _choice_from_json(one)
        listed = {**good, field: [value, *good[field][1:]]}
        with pytest.raises(ValueError, match="choices"):
            choices_from_json(listed, columns)
    for bad in (
        {**good, "family": good["family"][:-1]},  # a value short
        {**good, "scores": {"astrology": [0.0] * columns}},  # not a candidate
        {**good, "scores": {"gaussian": ["high"] * columns}},
        {**good, "family": [["gaussian"]] * columns},  # not a string
        {k: v for k, v in good.items() if k != "usual"},
    ):
        with pytest.raises(ValueError, match="choices"):
            choices_from_json(bad, columns)


def test_a_file_with_one_object_per_column_choice_loads_the_same_model(monkeypatch, tmp_path):
    # files written before the choices were lists of fields keep loading, without a new choice
    from forging import forge, parts

    from nbayes.families.auto import AutoColumns

    meta, arrays = parts(ONE_FIT)
    meta["choices"] = [
        _one_object_per_column(c) if isinstance(c, dict) else c for c in meta["choices"]
    ]

    def refuse(self, settings):
        raise AssertionError("the choices were derived again after loading")

    monkeypatch.setattr(AutoColumns, "_choose_all", refuse)
    loaded = nbayes.persist.loads(forge(meta, arrays))
    assert loaded.family_reasons_ == ONE_FIT.family_reasons_
    np.testing.assert_array_equal(loaded.predict_proba(FRAME), EXPECTED)


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


def test_a_loaded_sample_writes_back_the_file_and_builds_the_same_rows_when_asked(tmp_path):
    # the frame of a loaded sample is built when first needed: before, the model writes the
    # file's own values back; after, the rows are those the fitted model held
    frame = FRAME.with_columns(pl.col("code").cast(pl.Int64).alias("count"))
    frame = frame.with_columns(
        pl.when(pl.col("skewed") > 3).then(None).otherwise(pl.col("count")).alias("count")
    )
    model = nbayes.NaiveBayes().fit(frame, Y)
    payload = nbayes.persist.dumps(model)
    loaded = nbayes.persist.loads(payload)
    assert loaded._stats.sample._frame is None  # not built by loading
    assert nbayes.persist.dumps(loaded) == payload
    copied = pickle.loads(pickle.dumps(loaded))  # a model still pickles (scikit-learn tools)
    assert copied._stats.sample.frame.equals(model._stats.sample.frame)
    assert loaded._stats.sample.frame.equals(model._stats.sample.frame)
    assert loaded._stats.sample._stored is None  # one copy of the values: the frame's
    assert nbayes.persist.dumps(loaded) == payload


def test_a_sample_saved_without_its_integer_columns_named_loads_and_its_values_are_checked():
    """A model file written before the sample named its integer columns holds them in the
    schema's types: it loads as the same model, and a value beyond the Int8 column's type in
    it is no value the model could have written: refused."""
    from forging import forge, parts

    frame = FRAME.with_columns(pl.col("code").cast(pl.Int8))
    model = nbayes.NaiveBayes().fit(frame, Y)
    meta, arrays = parts(model)
    assert meta["sample"].pop("integers") == ["code"]  # as a file from before holds it
    loaded = nbayes.persist.loads(forge(meta, arrays))
    np.testing.assert_array_equal(loaded.predict_proba(frame), model.predict_proba(frame))
    assert loaded._stats.sample.frame.schema["code"] == pl.Int8
    beyond = arrays["sample.integers"].copy()
    beyond[0, 0] = 1000
    with pytest.raises(nbayes.ModelFileError, match="sample"):
        nbayes.persist.loads(forge(meta, {**arrays, "sample.integers": beyond}))


def test_a_later_fraction_in_a_column_typed_as_integers_is_kept_in_the_sample():
    """A first batch types "code" as integers (Polars), a later one holds fractions (pandas):
    the row sample keeps them as they are, as the statistics do, so the model is the one whose
    first batch gave floats (before, the sample cut 2.5 to 2, and the calibration differed)."""
    floats = FRAME.with_columns(pl.col("code") + 0.5 * (pl.int_range(pl.len()) % 2))
    integers_first = nbayes.NaiveBayes().partial_fit(FRAME[:100], Y[:100])
    integers_first.partial_fit(floats[100:], Y[100:])
    floats_first = nbayes.NaiveBayes().partial_fit(
        FRAME[:100].with_columns(pl.col("code").cast(pl.Float64)), Y[:100]
    )
    floats_first.partial_fit(floats[100:], Y[100:])
    assert integers_first.calibration_.reason == floats_first.calibration_.reason
    np.testing.assert_allclose(
        integers_first.predict_proba(floats), floats_first.predict_proba(floats), atol=1e-9
    )
    # saved and loaded, the sample keeps its fractions: the calibration derived again is the same
    loaded = nbayes.persist.loads(nbayes.persist.dumps(integers_first))
    loaded.partial_fit(floats[:1], Y[:1])
    integers_first.partial_fit(floats[:1], Y[:1])
    assert loaded.calibration_.reason == integers_first.calibration_.reason


def test_a_sample_value_under_a_null_mark_is_refused():
    from forging import forge, parts

    meta, arrays = parts(ONE_FIT)
    marks = arrays["sample.numbers absent"].copy()
    numbers = arrays["sample.numbers"].copy()
    row, column = np.argwhere(marks == 1)[0]
    numbers[row, column] = 5.0  # a null does not hold a value
    for forged in ({"sample.numbers": numbers}, {"sample.numbers absent": marks * 2}):
        with pytest.raises(nbayes.ModelFileError, match="row sample"):
            nbayes.persist.loads(forge(meta, {**arrays, **forged}))


def test_a_batch_of_32_bit_floats_joins_the_sample_as_their_64_bit_values():
    """A later batch holds the measurements as Float32: its rows join the sample (and are
    hashed) as the Float64 values the statistics read, so the model is one fit of all the rows
    with those values as Float64."""
    measured = ["height", "skewed"]
    later = FRAME[150:].with_columns(pl.col(measured).cast(pl.Float32))
    batches = nbayes.NaiveBayes().partial_fit(FRAME[:150], Y[:150]).partial_fit(later, Y[150:])
    whole = nbayes.NaiveBayes().fit(
        pl.concat([FRAME[:150], later.with_columns(pl.col(measured).cast(pl.Float64))]), Y
    )
    assert batches.calibration_.reason == whole.calibration_.reason
    np.testing.assert_allclose(batches.predict_proba(FRAME), whole.predict_proba(FRAME), atol=1e-9)
