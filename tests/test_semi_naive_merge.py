"""SemiNaiveBayes merges like NaiveBayes: for one-pass structures over categorical columns,
``nbayes.merge(fit(A), fit(B))`` is ``fit(A ∪ B)``, whatever the split and whichever part saw a
value first; structures learnt before they are counted refuse in one sentence naming the staged
protocol, and neither model changes."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nbayes
from nbayes.semi_naive import KDB
from nbayes.semi_naive import SemiNaiveBayes as TableModel


def SemiNaiveBayes(
    *args, discriminative: bool = False, missing: str = "skip", **kwargs
) -> TableModel:
    """The structures' counts alone, missing values skipped: they add. (The discriminative
    correction is learnt from all rows and a missing value's meaning is chosen knowing every
    value, so those refuse to merge: tests/test_semi_naive_discriminative.py.)"""
    return TableModel(*args, discriminative=discriminative, missing=missing, **kwargs)


ONE_PASS = ["aode", "waode", "aodesr", "a2de", "hnb", "tan", "kdb"]


def categorical_table(n: int = 240, seed: int = 0) -> pl.DataFrame:
    """Four dependent categorical columns (one with a missing marker) and a 3-class label."""
    rng = np.random.default_rng(seed)
    a = rng.choice(["lo", "mid", "hi"], n)
    b = np.where(rng.random(n) < 0.7, a, rng.choice(["lo", "mid", "hi"], n))
    c = rng.choice(["x", "y", "z", "w"], n)
    d = rng.integers(0, 3, n)
    label = np.where((a == "hi") & (c != "w"), "p", np.where(d == 0, "q", "r"))
    flip = rng.random(n) < 0.1
    label[flip] = rng.choice(["p", "q", "r"], int(flip.sum()))
    b = b.astype(object)
    b[rng.random(n) < 0.08] = "?"
    return pl.DataFrame({"a": a, "b": b, "c": c, "d": d, "label": label})


@pytest.mark.parametrize("model", ONE_PASS)
@pytest.mark.filterwarnings("ignore:.*not seen in fitting")
@settings(max_examples=15)
@given(order=st.permutations(range(240)), cut=st.integers(20, 220))
def test_merge_of_two_parts_equals_one_fit(model, order, cut):
    table = categorical_table()
    rows = np.asarray(order)
    first, second = table[rows[:cut]], table[rows[cut:]]
    whole = SemiNaiveBayes(model, missing_values="?").fit(table, target="label")
    part_a = SemiNaiveBayes(model, missing_values="?").fit(first, target="label")
    part_b = SemiNaiveBayes(model, missing_values="?").fit(second, target="label")
    merged = nbayes.merge(part_a, part_b)
    np.testing.assert_allclose(
        merged.predict_proba(table), whole.predict_proba(table), rtol=0, atol=1e-9
    )
    np.testing.assert_array_equal(merged.class_count_, whole.class_count_)
    # the inputs are untouched: part_a still predicts as the model of its own rows
    again = SemiNaiveBayes(model, missing_values="?").fit(first, target="label")
    np.testing.assert_allclose(part_a.predict_proba(table), again.predict_proba(table), atol=0)


def test_merge_in_place_and_of_three_parts():
    table = categorical_table(seed=3)
    whole = SemiNaiveBayes("tan").fit(table, target="label")
    parts = [SemiNaiveBayes("tan").fit(table[i::3], target="label") for i in range(3)]
    parts[0].merge(parts[1], parts[2])
    np.testing.assert_allclose(
        parts[0].predict_proba(table), whole.predict_proba(table), rtol=0, atol=1e-9
    )


def test_a_part_that_never_saw_a_class_or_a_value_merges():
    table = categorical_table(seed=5)
    only_p = table.filter(pl.col("label") == "p").filter(pl.col("c") != "w")
    rest = table.filter(~((pl.col("label") == "p") & (pl.col("c") != "w")))
    whole = SemiNaiveBayes("aode").fit(pl.concat([only_p, rest]), target="label")
    # a fit on one class is refused (as NaiveBayes's is): the one-class part is a partial fit
    merged = nbayes.merge(
        SemiNaiveBayes("aode").partial_fit(only_p, target="label"),
        SemiNaiveBayes("aode").fit(rest, target="label"),
    )
    np.testing.assert_allclose(
        merged.predict_proba(table), whole.predict_proba(table), rtol=0, atol=1e-9
    )


@pytest.mark.parametrize("model", ["skdb", KDB(2)], ids=["skdb", "kdb2"])
def test_structures_of_several_passes_refuse_merge_naming_the_staged_protocol(model):
    table = categorical_table()
    a = SemiNaiveBayes(model).fit(table[:120], target="label")
    b = SemiNaiveBayes(model).fit(table[120:], target="label")
    before = a.predict_proba(table)
    with pytest.raises(ValueError, match="staged protocol"):
        a.merge(b)
    np.testing.assert_array_equal(a.predict_proba(table), before)
    # and they have no partial_fit, as scikit-learn expects of a model that cannot take batches
    assert not hasattr(SemiNaiveBayes(model), "partial_fit")
    assert hasattr(SemiNaiveBayes("aode"), "partial_fit")


def test_interval_columns_refuse_merge_and_nothing_changes():
    rng = np.random.default_rng(1)
    table = categorical_table().with_columns(pl.Series("x", rng.normal(size=240)))
    a = SemiNaiveBayes("aode").fit(table[:120], target="label")
    b = SemiNaiveBayes("aode").fit(table[120:], target="label")
    vocabulary = [list(v) for v in a._encoder.vocabularies]
    with pytest.raises(ValueError, match=r"column 'x' is cut into intervals.*staged protocol"):
        nbayes.merge(a, b)
    assert [list(v) for v in a._encoder.vocabularies] == vocabulary


def test_models_of_different_columns_or_structures_do_not_merge():
    table = categorical_table()
    a = SemiNaiveBayes("aode").fit(table, target="label")
    with pytest.raises(ValueError, match="columns differ"):
        a.merge(SemiNaiveBayes("aode").fit(table.drop("d"), target="label"))
    # the same names and families, another type: the message shows the column that differs
    flagged = table.with_columns(pl.col("d") == pl.col("d").first())
    with pytest.raises(ValueError, match=r"first \('d', 'categorical', Int64\) vs \('d', "
                       r"'categorical', Boolean\)"):  # fmt: skip
        a.merge(SemiNaiveBayes("aode").fit(flagged, target="label"))
    # the same modelled columns, another column left out: not the same table
    extra = table.with_columns(pl.Series("id", [f"r{i}" for i in range(table.height)]))
    with pytest.raises(ValueError, match=r"fitted on different columns: .*'id'.*\(the "
                       r"left-out ones: \[\] vs \['id'\]\)"):  # fmt: skip
        a.merge(SemiNaiveBayes("aode", families={"id": "ignore"}).fit(extra, target="label"))
    with pytest.raises(ValueError, match="cannot merge a TAN"):
        a.merge(SemiNaiveBayes("tan").fit(table, target="label"))
    with pytest.raises(TypeError, match="cannot merge a NaiveBayes"):
        a.merge(nbayes.NaiveBayes().fit(table, target="label"))


@pytest.mark.slow
@pytest.mark.parametrize("model", ["aode", "waode", "a2de", "hnb", "tan"])
def test_car_random_halves_merge_to_one_fit(shared_data, model):
    names = ["buying", "maint", "doors", "persons", "lug_boot", "safety", "class"]
    car = pl.read_csv(shared_data / "car" / "car.data", has_header=False, new_columns=names)
    rows = np.random.default_rng(7).permutation(car.height)
    half = car.height // 2
    make = lambda: SemiNaiveBayes(model)  # noqa: E731
    whole = make().fit(car, target="class")
    merged = nbayes.merge(
        make().fit(car[rows[:half]], target="class"), make().fit(car[rows[half:]], target="class")
    )
    assert np.abs(merged.predict_proba(car) - whole.predict_proba(car)).max() <= 1e-9


@pytest.mark.parametrize("model", [None, "skdb", "tan"])
@pytest.mark.filterwarnings("ignore:.*not seen in fitting")
@settings(max_examples=8)
@given(order=st.permutations(range(240)))
def test_rows_in_any_order_give_the_same_model(model, order):
    """Vocabularies come in order of first appearance and sketches in any order, but the
    model — cut points, structure, counts — is the same: SemiNaiveBayes() (the default) and
    the structures learnt from the data (skdb, tan), with a numeric column cut into intervals."""
    rng = np.random.default_rng(2)
    table = categorical_table().with_columns(
        pl.Series("x", rng.normal(size=240).round(2)) + (pl.col("label") == "p").cast(float)
    )
    make = (lambda: TableModel()) if model is None else (lambda: SemiNaiveBayes(model))
    whole = make().fit(table, target="label")
    shuffled = make().fit(table[np.asarray(order)], target="label")
    np.testing.assert_array_equal(shuffled.cut_points_["x"], whole.cut_points_["x"])
    np.testing.assert_allclose(
        shuffled.predict_proba(table), whole.predict_proba(table), rtol=0, atol=1e-9
    )
