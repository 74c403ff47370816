"""String columns that are free text or identifiers are recognised, with a warning that names the
column and says how to override (see nbayes.schema)."""

from __future__ import annotations

import functools
import itertools
import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nbayes

WORDS = "the cat dog sat ran on a mat log in park home fast slow big red".split()


def table(n: int = 200, seed: int = 0) -> tuple[pl.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.choice(["x", "y"], n)
    review = [
        " ".join(rng.choice(WORDS[:8] if label == "x" else WORDS[8:], rng.integers(4, 9)))
        for label in y
    ]
    return (
        pl.DataFrame(
            {
                "review": review,
                "customer": [f"C{i:05d}" for i in range(n)],
                "amount": [f"{v:,}" for v in rng.integers(1000, 10**6, n)],
                "city": rng.choice(["New York", "San Diego", "Los Angeles"], n),
                "age": rng.integers(18, 80, n),
            }
        ),
        y,
    )


def fit_collecting(frame, y, **params):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = nbayes.NaiveBayes(**params).fit(frame, y)
    return model, [str(w.message) for w in caught if issubclass(w.category, UserWarning)]


def test_free_text_becomes_text_and_identifiers_are_left_out_with_warnings():
    frame, y = table()
    model, messages = fit_collecting(frame, y)
    families = {s.name: s.family for s in model.schema_}
    assert families["review"] == "text"
    assert families["customer"] == families["amount"] == "ignore"
    assert families["city"] == "categorical"  # few values, spaces or not: a category
    text = [m for m in messages if "'review'" in m]
    assert len(text) == 1 and "free text" in text[0]
    assert "families={'review': 'categorical'}" in text[0]
    ident = [m for m in messages if "'customer'" in m]
    assert len(ident) == 1 and "identifier" in ident[0] and "left out" in ident[0]
    assert "families={'customer': 'categorical'}" in ident[0]
    assert "numbers" not in ident[0]
    amount = [m for m in messages if "'amount'" in m]
    assert len(amount) == 1 and "numbers written with separators" in amount[0]
    assert len(messages) == 3
    # a left-out column contributes nothing: the model equals one fitted without it
    without = nbayes.NaiveBayes(families={"review": "text"}).fit(
        frame.drop("customer", "amount"), y
    )
    np.testing.assert_allclose(
        model.predict_joint_log_proba(frame), without.predict_joint_log_proba(frame), rtol=1e-12
    )
    assert "left out" in model.family_reasons_["customer"]
    assert "left out" in model.summary()
    # a left-out column is never read: data without it predicts the same (as SemiNaiveBayes
    # does), while a modelled column stays required
    np.testing.assert_array_equal(
        model.predict_joint_log_proba(frame.drop("customer", "amount")),
        model.predict_joint_log_proba(frame),
    )
    # (and the left-out columns the data has are not named as columns the model does not know)
    lacking = r"lacks column\(s\) the model was fitted on: \['city'\]\.$"
    with pytest.raises(ValueError, match=lacking):
        model.predict(frame.drop("city"))


def test_naming_a_family_keeps_the_column_without_a_warning():
    frame, y = table()
    families = {"review": "categorical", "customer": "categorical", "amount": "categorical"}
    model, messages = fit_collecting(frame, y, families=families)
    assert messages == []
    assert {s.name: s.family for s in model.schema_}["customer"] == "categorical"


def test_small_batches_and_repeated_values_are_plain_categories():
    frame, y = table(n=30)
    model, messages = fit_collecting(frame, y)
    assert messages == []
    assert {s.name: s.family for s in model.schema_}["customer"] == "categorical"


def test_the_ignore_family_drops_a_column_on_request_and_survives_a_model_file(tmp_path):
    frame, y = table()
    model = nbayes.NaiveBayes(
        families={"review": "ignore", "customer": "ignore", "amount": "ignore", "city": "ignore"}
    ).fit(frame, y)
    only_age = nbayes.NaiveBayes().fit(frame.select("age"), y)
    np.testing.assert_allclose(
        model.predict_proba(frame), only_age.predict_proba(frame), rtol=1e-12
    )
    loaded = nbayes.load(nbayes.save(model, tmp_path / "m.nbm"))
    np.testing.assert_array_equal(loaded.predict_proba(frame), model.predict_proba(frame))
    explanation = model.explain(frame.row(0, named=True))
    assert explanation.values[0] == "left out"


def test_warning_points_at_the_callers_line():
    frame, y = table()
    with pytest.warns(UserWarning, match="free text") as record:
        nbayes.NaiveBayes().fit(frame.select("review"), y)
    assert record[0].filename == __file__


@settings(max_examples=40, deadline=None)
@given(
    values=st.lists(
        st.one_of(st.none(), st.sampled_from(["a", "b c", "d e f"]), st.text(max_size=6)),
        min_size=1,
        max_size=120,
    ),
    cuts=st.lists(st.integers(0, 120), max_size=4),
)
def test_a_string_summary_merged_from_any_pieces_is_the_summary_of_all_the_values(values, cuts):
    """What the text and identifier rules read merges exactly: the summaries of any pieces, in
    any order, merge into the summary of the whole column (count, kept hashes and values)."""
    from nbayes.schema import StringSummary

    column = pl.Series(values, dtype=pl.String)
    whole = StringSummary.of(column)
    edges = sorted({0, len(values), *(min(c, len(values)) for c in cuts)})
    pieces = [StringSummary.of(column[a:b]) for a, b in itertools.pairwise(edges)]
    for order in (pieces, pieces[::-1]):
        merged = functools.reduce(StringSummary.merge, order)
        assert merged.observed == whole.observed == column.drop_nulls().len()
        np.testing.assert_array_equal(merged.hashes, whole.hashes)
        assert merged.values == whole.values
    # a stream's batches, each batch's distinct values found for all its columns in one query
    streamed = StringSummary.empty()
    for a, b in itertools.pairwise(edges):
        piece = pl.DataFrame({"c": column[a:b], "other": column[a:b].reverse()})
        present = StringSummary.distinct_values(piece, ["c", "other"])["c"]
        streamed = streamed.add_distinct(present, b - a - column[a:b].null_count())
    assert streamed.observed == whole.observed and streamed.values == whole.values
    np.testing.assert_array_equal(streamed.hashes, whole.hashes)
    assert whole.distinct() == column.drop_nulls().n_unique()  # exact below the sketch's size
    assert sorted(whole.values) == sorted(column.drop_nulls().unique().to_list())


@settings(max_examples=60, deadline=None)
@given(
    pool=st.integers(1, 200),
    nulls=st.floats(0.0, 0.5),
    words=st.integers(1, 4),
    n=st.integers(1, 300),
    seed=st.integers(0, 2**31 - 1),
)
def test_a_string_column_gets_the_family_its_summary_gives(pool, nulls, words, n, seed):
    """Telling a column of few distinct values categories by one count chooses as the text
    and identifier rules do from its summary (which a stream's batches and Dask's partitions
    merge), around the rules' thresholds too."""
    from nbayes.schema import StringSummary, _string_family_of, string_family

    rng = np.random.default_rng(seed)
    vocabulary = [" ".join(f"w{i}x{k}" for k in range(words)) for i in range(pool)]
    values = [None if rng.random() < nulls else vocabulary[rng.integers(pool)] for _ in range(n)]
    column = pl.Series(values, dtype=pl.String)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        quick = _string_family_of("c", column, None)[0]
        assert quick == string_family("c", StringSummary.of(column))[0]


def test_a_string_summary_estimates_many_distinct_values_and_their_words(monkeypatch):
    """Beyond the sketch's size the distinct values are estimated from the k-th smallest hash
    (within a few standard errors, 1/√(k − 2)); the words are those of the kept values."""
    from nbayes import schema

    monkeypatch.setattr(schema, "DISTINCT_SKETCH", 512)
    n = 20_000
    column = pl.Series([f"id {i % 15_000} x" for i in range(n)])  # 15,000 distinct, 3 words
    summary = schema.StringSummary.of(column)
    assert len(summary.values) == 512 and summary.observed == n
    assert abs(summary.distinct() / 15_000 - 1) < 4 / np.sqrt(510)
    assert summary.mean_words() == 3.0
    halves = schema.StringSummary.of(column[:7000]).merge(schema.StringSummary.of(column[7000:]))
    assert halves.distinct() == summary.distinct()


def test_a_column_of_bytes_is_refused_saying_how_to_decode_it():
    frame = pl.DataFrame({"text": [b"a b", b"c d", b"a c", b"b d"], "y": ["p", "q", "p", "q"]})
    with pytest.raises(ValueError, match=r"column 'text' has type Binary.*decode=True") as error:
        nbayes.NaiveBayes().fit(frame, target="y")
    assert "pl.col(...).cast(pl.String)" in str(error.value)
    decoded = frame.with_columns(pl.col("text").cast(pl.String))  # as the message says
    assert nbayes.NaiveBayes().fit(decoded, target="y").predict(decoded).shape == (4,)


def test_a_column_of_decimals_is_refused_saying_how_to_cast_it():
    from decimal import Decimal

    frame = pl.DataFrame({"price": [Decimal("1.25"), Decimal("2.50")] * 30, "y": [0, 1] * 30})
    with pytest.raises(ValueError, match=r"'price' has type Decimal.*cast\(pl.Float64\)"):
        nbayes.NaiveBayes().fit(frame, target="y")
    cast = frame.with_columns(pl.col("price").cast(pl.Float64))  # as the message says
    assert nbayes.NaiveBayes().fit(cast, target="y").predict(cast).shape == (60,)


def _codes_with_missing(n: int = 600, seed: int = 0) -> tuple[pl.DataFrame, pl.DataFrame]:
    """A column of 6 codes with missing values, as pandas holds it (floats with NaN) and as
    Polars reads it (integers with nulls), beside a measurement."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 6, n).astype(float)
    codes[rng.random(n) < 0.1] = np.nan
    size = rng.normal(size=n)
    label = np.where((np.nan_to_num(codes) % 2 == 0) ^ (size > 0.3), "p", "q")
    frame = pd.DataFrame({"codes": codes, "size": size, "y": label})
    return frame, pl.from_pandas(frame).with_columns(pl.col("codes").cast(pl.Int64))


@pytest.mark.parametrize("continuous", ["gaussian", "mdl"])
def test_integers_held_as_floats_are_counted_as_integers_are(continuous):
    """With a continuous family named, a column of at most max_int_categories integers is
    counted whether pandas holds it as floats (it has missing values) or Polars as integers;
    a column of fractions is not."""
    from_pandas, from_polars = _codes_with_missing()
    options = {"continuous": continuous, "calibration": None}
    floats = nbayes.NaiveBayes(**options).fit(from_pandas, target="y")
    integers = nbayes.NaiveBayes(**options).fit(from_polars, target="y")
    assert floats.families_ == integers.families_ == {"codes": "categorical", "size": continuous}
    features = from_polars.drop("y")
    np.testing.assert_allclose(
        floats.predict_proba(features), integers.predict_proba(features), atol=1e-9
    )
    halves = from_pandas.assign(codes=from_pandas["codes"] / 2)
    assert nbayes.NaiveBayes(**options).fit(halves, target="y").families_["codes"] == continuous


def test_merged_naive_models_whose_counted_column_outgrows_the_bound_are_refused():
    """With one continuous family named, each half counts its 15 codes; together they hold 25,
    which one fit of both would model as Gaussian: the merge is refused before anything
    changes, naming the column and the bound. Within the bound the merge is the one fit."""
    rng = np.random.default_rng(6)

    def half(low: int) -> pl.DataFrame:
        codes = rng.integers(low, low + 15, 400).astype(float)
        return pl.DataFrame({"r": codes, "y": (codes % 2 == 0).astype(int)})

    options = {"continuous": "gaussian", "calibration": None}
    a, b = half(0), half(10)
    first = nbayes.NaiveBayes(**options).fit(a, target="y")
    before = first.predict_proba(a.drop("y"))
    with pytest.raises(ValueError, match=r"'r' holds 25 distinct integers.*max_int_categories=20"):
        nbayes.merge(first, nbayes.NaiveBayes(**options).fit(b, target="y"))
    np.testing.assert_array_equal(first.predict_proba(a.drop("y")), before)
    c = half(3)  # codes 3–17: 18 together with the first half's
    merged = nbayes.merge(first, nbayes.NaiveBayes(**options).fit(c, target="y"))
    whole = nbayes.NaiveBayes(**options).fit(pl.concat([a, c]), target="y")
    assert merged.families_ == whole.families_ == {"r": "categorical"}
    features = pl.concat([a, c]).drop("y")
    np.testing.assert_allclose(merged.predict_proba(features), whole.predict_proba(features),
                               atol=1e-9)  # fmt: skip


@settings(max_examples=12, deadline=None)
@given(cut=st.integers(60, 540), pandas_first=st.booleans(), family=st.sampled_from(
    ["auto", "gaussian"]))  # fmt: skip
def test_a_model_of_pandas_rows_merges_with_one_of_polars_rows_as_one_fit(
    cut, pandas_first, family
):
    """pandas holds a column of codes with missing values as floats, Polars as integers: the
    models of either half merge (either way round) into the model one fit of all the rows
    gives. Before, the merge was refused for the columns' types (Float64 vs Int64)."""
    from_pandas, from_polars = _codes_with_missing()
    halves = (from_pandas[:cut], from_polars[cut:])
    if not pandas_first:
        halves = (from_polars[:cut], from_pandas[cut:])
    make = functools.partial(nbayes.NaiveBayes, continuous=family)
    merged = nbayes.merge(*(make().fit(half, target="y") for half in halves))
    whole = make().fit(from_polars, target="y")
    features = from_polars.drop("y")
    np.testing.assert_allclose(merged.predict_proba(features), whole.predict_proba(features),
                               atol=1e-9)  # fmt: skip
    assert merged.families_ == whole.families_
    # its row sample in the merged model's types: it saves, and loads as the same model
    loaded = nbayes.persist.loads(nbayes.persist.dumps(merged))
    np.testing.assert_array_equal(loaded.predict_proba(features), merged.predict_proba(features))


def test_a_one_pass_semi_naive_model_of_pandas_rows_merges_with_one_of_polars_rows():
    """The same for a one-pass structure over a counted column (AODE, missing values
    skipped)."""
    from_pandas, from_polars = _codes_with_missing()
    from_pandas, from_polars = from_pandas.drop(columns="size"), from_polars.drop("size")
    make = functools.partial(nbayes.SemiNaiveBayes, "aode", discriminative=False, missing="skip")
    merged = nbayes.merge(
        make().fit(from_polars[:250], target="y"), make().fit(from_pandas[250:], target="y")
    )
    whole = make().fit(from_polars, target="y")
    features = from_polars.drop("y")
    np.testing.assert_allclose(merged.predict_proba(features), whole.predict_proba(features),
                               atol=1e-9)  # fmt: skip


def test_a_fraction_among_integer_categories_is_refused_in_a_merge_and_changes_nothing():
    """An Int64 column's categories cannot take the other model's 1.5: the merge is refused,
    naming the column and the value, and the model is unchanged; the other way round the
    Float64 categories hold both."""
    pd = pytest.importorskip("pandas")
    integers = pl.DataFrame({"a": [1, 2, 3, 1] * 10, "y": ["p", "q"] * 20})
    fractions = pd.DataFrame({"a": [1.5, 2.0, 3.0, 1.0] * 10, "y": ["p", "q"] * 20})
    make = functools.partial(nbayes.NaiveBayes, families={"a": "categorical"})
    model = make().fit(integers, target="y")
    probe = pl.DataFrame({"a": [1, 2, 3]})
    before = model.predict_proba(probe)
    with pytest.raises(ValueError, match=r"column 'a'.*category 1\.5.*Int64 categories"):
        nbayes.merge(model, make().fit(fractions, target="y"))
    beyond = fractions.assign(a=[1e19, 2.0, 3.0, 1.0] * 10)  # whole, but beyond 64 bits
    with pytest.raises(ValueError, match=r"column 'a'.*category 1e\+19.*Int64 categories"):
        nbayes.merge(model, make().fit(beyond, target="y"))
    np.testing.assert_array_equal(model.predict_proba(probe), before)
    merged = nbayes.merge(make().fit(fractions, target="y"), model)
    whole = make().fit(pl.concat([pl.from_pandas(fractions), integers], how="vertical_relaxed"),
                       target="y")  # fmt: skip
    np.testing.assert_allclose(merged.predict_proba(probe), whole.predict_proba(probe),
                               atol=1e-9)  # fmt: skip
