"""A semi-naive table counts a numeric column whose values, over all the rows, are at most
``max_int_categories`` distinct integers, and cuts the others into intervals — whatever type
holds them (pandas keeps integers with a missing value as floats, Polars as integers with
nulls) and however the rows arrive (at once, in batches of passes, in Dask partitions)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nbayes.schema import ColumnSpec
from nbayes.semi_naive import SemiNaiveBayes
from nbayes.semi_naive.integer_columns import FewValues, few_integers_in


def rated(n: int = 600, seed: int = 0) -> pd.DataFrame:
    """A rating of 6 values with missing ones (floats with NaN in pandas), a measurement, and
    a class that depends on both."""
    rng = np.random.default_rng(seed)
    rating = rng.integers(0, 6, n).astype(float)
    rating[rng.random(n) < 0.1] = np.nan
    size = rng.normal(size=n)
    label = np.where((np.nan_to_num(rating) % 2 == 0) ^ (size > 0.3), "p", "q")
    return pd.DataFrame({"rating": rating, "size": size, "y": label})


def as_polars(frame: pd.DataFrame) -> pl.DataFrame:
    """The same rows as Polars holds them when it reads them (integers with nulls)."""
    return pl.from_pandas(frame).with_columns(pl.col("rating").cast(pl.Int64))


@pytest.mark.parametrize("model", ["skdb", "aode", "tan"])
def test_integers_held_as_floats_with_nan_are_the_model_of_integers_with_nulls(model):
    """Found by a new user on soybean-large: pandas' float column of codes was cut into
    intervals and Polars' integer column counted, up to 0.92 apart in a probability."""
    frame = rated()
    from_pandas = SemiNaiveBayes(model).fit(frame, target="y")
    from_polars = SemiNaiveBayes(model).fit(as_polars(frame), target="y")
    families = [(s.name, s.family) for s in from_pandas.schema_]
    assert families == [(s.name, s.family) for s in from_polars.schema_]
    assert families == [("rating", "categorical"), ("size", "mdl")]
    assert from_pandas._encoder.vocabularies == [[0.0, 1.0, 2.0, 3.0, 4.0, 5.0]]
    assert from_polars._encoder.vocabularies == [[0, 1, 2, 3, 4, 5]]
    features = as_polars(frame).drop("y")
    np.testing.assert_allclose(
        from_pandas.predict_proba(features), from_polars.predict_proba(features), atol=1e-9
    )
    np.testing.assert_allclose(
        from_pandas.predict_proba(frame.drop(columns="y")),
        from_polars.predict_proba(features),
        atol=1e-9,
    )


def test_the_bound_counts_distinct_integers_and_fractions_are_cut():
    frame = rated()
    few = SemiNaiveBayes(discriminative=False, max_int_categories=5).fit(frame, target="y")
    assert few.schema_[0].family == "mdl"  # 6 distinct values, one more than the bound
    halves = frame.assign(rating=frame["rating"] / 2)  # 0, 0.5, 1, …: not integers
    assert SemiNaiveBayes(discriminative=False).fit(halves, target="y").schema_[0].family == "mdl"
    named = SemiNaiveBayes(discriminative=False, families={"rating": "equal-width"})
    assert named.fit(frame, target="y").schema_[0].family == "equal-width"


def late_codes(n: int = 2000, seed: int = 1) -> pl.DataFrame:
    """An integer column with 8 codes in its first half and a thousand values in its second."""
    rng = np.random.default_rng(seed)
    code = np.concatenate([rng.integers(0, 8, n // 2), rng.integers(0, 1000, n - n // 2)])
    x = rng.normal(size=n)
    y = np.where((code % 3 == 0) ^ (x > 0), "a", "b")
    return pl.DataFrame({"code": code, "x": x, "y": y})


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    cuts=st.lists(st.integers(1, 1999), min_size=1, max_size=4, unique=True),
    late=st.booleans(),
)
def test_batches_decide_as_one_fit_of_all_the_rows(seed, cuts, late):
    """Whatever the first batch shows, the column is counted or cut as a fit of all the rows
    finds: here cut (a thousand values over all the rows) even where the first batches hold
    only the 8 codes, and counted where only the codes are given."""
    table = late_codes(seed=seed % 1000)
    if not late:
        table = table.head(1000)
    bounds = [0, *sorted(c for c in cuts if c < table.height), table.height]
    batches = [table.slice(a, b - a) for a, b in itertools.pairwise(bounds) if b > a]
    options = {"discriminative": False}
    whole = SemiNaiveBayes("aode", **options).fit(table, target="y")
    passes = SemiNaiveBayes("aode", **options).fit_passes(batches, target="y")
    expected = "mdl" if late else "categorical"
    assert whole.schema_[0].family == passes.schema_[0].family == expected
    features = table.drop("y")
    np.testing.assert_allclose(
        passes.predict_proba(features), whole.predict_proba(features), atol=1e-9
    )


def test_partial_fit_counts_integers_held_as_floats_from_its_first_batch():
    """pandas' float batches, counted from the first one, give the model one fit of the same
    rows as Polars' integers gives."""
    frame = rated()
    categorical = frame.drop(columns="size")
    options = {"model": "aode", "discriminative": False, "missing": "skip"}
    streamed = SemiNaiveBayes(**options)
    for start in range(0, len(frame), 150):
        streamed.partial_fit(categorical.iloc[start : start + 150], target="y")
    whole = SemiNaiveBayes(**options).fit(as_polars(categorical), target="y")
    features = categorical.drop(columns="y")
    np.testing.assert_allclose(
        streamed.predict_proba(features), whole.predict_proba(features), atol=1e-12
    )


def test_a_value_only_in_rows_of_weight_zero_joins_the_categories_as_a_string_would():
    """The column is counted as when Polars holds it as integers: every labelled row's value
    is a category, a row of weight zero's too (it is counted with weight zero)."""
    frame = rated()
    extra = frame.head(3).assign(rating=17.0)
    weight = np.r_[np.ones(len(frame)), np.zeros(3)]
    table = pd.concat([frame, extra], ignore_index=True)
    options = {"discriminative": False}
    from_pandas = SemiNaiveBayes(**options).fit(table, target="y", sample_weight=weight)
    from_polars = SemiNaiveBayes(**options).fit(as_polars(table), target="y", sample_weight=weight)
    assert from_pandas._encoder.vocabularies == [[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 17.0]]
    features = as_polars(table).drop("y")
    np.testing.assert_allclose(
        from_pandas.predict_proba(features), from_polars.predict_proba(features), atol=1e-9
    )


def test_the_rules_on_a_batch_and_over_pieces():
    assert few_integers_in(pl.Series([1.0, 2.0, None, float("nan"), 2.0]), 2)
    assert not few_integers_in(pl.Series([1.0, 2.5]), 5)
    assert not few_integers_in(pl.Series([1, 2, 3]), 2)
    big = 2**60 + 1  # beyond 2^53: a float64 would not hold it, the categories do
    table = pl.DataFrame({"a": [3, big, None, 3, 5, 6], "b": [1.0, 2.0, 3.0, 4.0, 5.0, 6.5]})
    whole = FewValues(["a", "b"], cap=4)
    whole.add(table, {})
    pieces = [FewValues(["a", "b"], cap=4) for _ in range(3)]
    for k, piece in enumerate(pieces):
        piece.add(table.slice(2 * k, 2), {})
    merged = pieces[0]
    merged.merge(pieces[1])
    merged.merge(pieces[2])
    assert merged.values == whole.values == {"a": {3, big, 5, 6}, "b": None}
    spec, categories = whole.categories(ColumnSpec("a", "mdl", pl.Int32))
    assert spec == ColumnSpec("a", "categorical", pl.Int64) and categories == [3, 5, 6, big]
    fractional = FewValues(["b"], cap=4)
    fractional.add(pl.DataFrame({"b": [1.0, 1.5]}), {})
    assert fractional.categories(ColumnSpec("b", "mdl", pl.Float64)) is None


def test_a_column_of_integers_whose_later_batches_hold_fractions_is_cut_as_in_one_fit():
    """pandas' chunked reader types a column by each chunk: integers first, then floats with
    fractions. Over all the rows the column is not a few integers: cut, as one fit cuts it."""
    rng = np.random.default_rng(2)
    first = pd.DataFrame({"a": rng.integers(0, 4, 300), "x": rng.normal(size=300)})
    later = pd.DataFrame({"a": rng.integers(0, 4, 300) + 0.5, "x": rng.normal(size=300)})
    batches = [b.assign(y=np.where(b["x"] + b["a"] > 2, "p", "q")) for b in (first, later)]
    whole = SemiNaiveBayes(discriminative=False).fit(pd.concat(batches), target="y")
    passes = SemiNaiveBayes(discriminative=False).fit_passes(batches, target="y")
    assert whole.schema_[0].family == passes.schema_[0].family == "mdl"
    features = pd.concat(batches).drop(columns="y")
    np.testing.assert_allclose(
        passes.predict_proba(features), whole.predict_proba(features), atol=1e-9
    )


def test_merged_models_whose_counted_column_outgrows_the_bound_are_refused():
    """Each piece counts its 15 codes; together they hold 25, which one fit of both would cut
    into intervals: the merge is refused, naming the column, the bound and the way out."""
    rng = np.random.default_rng(3)
    options = {"model": "aode", "missing": "skip", "discriminative": False}

    def piece(low: int) -> pd.DataFrame:
        codes = rng.integers(low, low + 15, 400)
        return pd.DataFrame({"c": codes, "y": np.where(codes % 2 == 0, "p", "q")})

    a = SemiNaiveBayes(**options).fit(piece(0), target="y")
    b = SemiNaiveBayes(**options).fit(piece(10), target="y")
    before = a.predict_proba(pd.DataFrame({"c": [3]}))
    with pytest.raises(ValueError, match=r"'c' holds 25 distinct integers.*max_int_categories=20"):
        a.merge(b)
    np.testing.assert_array_equal(a.predict_proba(pd.DataFrame({"c": [3]})), before)
    few = SemiNaiveBayes(**options).fit(piece(2), target="y")  # codes 2–16: 17 together
    merged = SemiNaiveBayes(**options).fit(piece(0), target="y").merge(few)
    assert merged._encoder.sizes().tolist() == [17]


def test_no_value_and_infinity_are_not_a_few_integers():
    assert not few_integers_in(pl.Series([None, None], dtype=pl.Int64), 20)
    assert not few_integers_in(pl.Series([float("nan"), None], dtype=pl.Float64), 20)
    assert not few_integers_in(pl.Series([1.0, float("inf")]), 20)
    assert few_integers_in(pl.Series([1.0, -0.0, 0.0]), 2)
