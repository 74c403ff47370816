"""CategoricalEncoder.learn: the vocabularies ``encode(fitting=True)`` learns, without codes."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nbayes.encoding import CategoricalEncoder

NAMES = ["text", "whole", "flag", "read as floats"]
DTYPES = [pl.String, pl.Int64, pl.Boolean, pl.Int64]


@st.composite
def batches(draw):
    """Batches of four columns (text, integers, booleans, integers read as floats), with
    nulls, each drawn from a few values so that later batches repeat and add values."""
    out = []
    for _ in range(draw(st.integers(1, 4))):
        n = draw(st.integers(0, 12))

        def column(values, n=n):
            return draw(st.lists(st.sampled_from([*values, None]), min_size=n, max_size=n))

        out.append(
            pl.DataFrame(
                {
                    "text": pl.Series(column(["a", "b", "c", "d"]), dtype=pl.String),
                    "whole": pl.Series(column([3, -1, 7, 0]), dtype=pl.Int64),
                    "flag": pl.Series(column([True, False]), dtype=pl.Boolean),
                    "read as floats": pl.Series(column([2.0, 5.0, -4.0]), dtype=pl.Float64),
                }
            )
        )
    return out


@settings(max_examples=60, deadline=None)
@given(batches())
def test_learn_keeps_the_vocabularies_and_missing_values_encode_gives(frames):
    coding = CategoricalEncoder(NAMES, DTYPES)
    learning = CategoricalEncoder(NAMES, DTYPES)
    for frame in frames:
        codes = coding.encode(frame, fitting=True)
        missing = learning.learn(frame)
        assert learning.vocabularies == coding.vocabularies  # values and order of appearance
        np.testing.assert_array_equal(missing, np.isnan(codes))


def test_learn_leaves_columns_whose_missing_values_may_be_nan_to_encode():
    encoder = CategoricalEncoder(["x"], [pl.Float64])
    assert encoder.learn(pl.DataFrame({"x": [1.5, float("nan")]})) is None
    assert encoder.vocabularies == [[]]


def test_learn_refuses_a_fractional_integer_by_name_as_encode_does():
    frame = pl.DataFrame({"n": [1.0, 2.5]})
    with pytest.raises(ValueError, match=r"column 'n' holds the fractional value 2\.5 \(row 1\)"):
        CategoricalEncoder(["n"], [pl.Int64]).learn(frame)
