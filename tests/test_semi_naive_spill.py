"""Rows spilled for later passes (nbayes.semi_naive.spill): read back exactly, the source read
once, and every pass reading the source where a batch cannot be spilled."""

from __future__ import annotations

import numpy as np
import polars as pl

from nbayes.semi_naive.spill import compact_codes, compact_slots, replayed


def test_codes_are_narrowed_only_when_every_code_survives():
    codes = np.array([[0.0, np.nan], [3.0, 16_777_215.0]])
    narrow = compact_codes(codes)
    assert narrow.dtype == np.float32
    np.testing.assert_array_equal(narrow.astype(np.float64), codes)
    wide = np.array([[0.0, 16_777_217.0]])  # 2²⁴ + 1: no 32-bit float holds it
    assert compact_codes(wide).dtype == np.float64
    assert compact_slots(np.array([-1, 5])).dtype == np.int32
    assert compact_slots(np.array([2**40])).dtype == np.int64


def _batches(reads: list[int]):
    rng = np.random.default_rng(3)
    data = [rng.normal(size=(5, 2)) for _ in range(3)]

    def source():
        reads.append(1)
        yield from data

    return source, data


def test_later_passes_read_the_spill_and_get_the_same_batches():
    reads: list[int] = []
    source, data = _batches(reads)
    with replayed(source, lambda a: [a, a.sum(axis=1)], lambda arrays: arrays[0], "t-") as again:
        passes = [list(again()) for _ in range(3)]
    assert len(reads) == 1
    for batches in passes:
        assert len(batches) == len(data)
        for got, expected in zip(batches, data, strict=True):
            np.testing.assert_array_equal(got, expected)


def test_a_batch_that_cannot_be_spilled_makes_every_pass_read_the_source():
    reads: list[int] = []
    source, data = _batches(reads)
    packs = iter([[data[0]], None])  # the second batch cannot be stored

    def pack(batch):
        return next(packs, [batch])

    with replayed(source, pack, lambda arrays: arrays[0], "t-") as again:
        passes = [list(again()) for _ in range(3)]
    assert len(reads) == 3
    for batches in passes:
        for got, expected in zip(batches, data, strict=True):
            np.testing.assert_array_equal(got, expected)


def test_tables_come_back_from_the_spill_as_they_went_in():
    """Frames (Arrow IPC) beside arrays (.npy): the same values bit for bit (nulls, NaN, −0.0,
    text with separators and quotes), types and column order."""
    frames = [
        pl.DataFrame(
            {
                "text": ["a, b", None, '"q"', "é"],
                "x": [0.1, -0.0, float("nan"), None],
                "n": [1, None, -(2**62), 3],
                "flag": [True, None, False, True],
            }
        ),
        pl.DataFrame({"text": [], "x": [], "n": [], "flag": []}).cast(
            {"text": pl.String, "x": pl.Float64, "n": pl.Int64, "flag": pl.Boolean}
        ),
    ]
    reads: list[int] = []

    def source():
        reads.append(1)
        for frame in frames:
            yield frame, np.arange(frame.height)

    with replayed(source, list, tuple, "t-") as again:
        passes = [list(again()) for _ in range(2)]
    assert len(reads) == 1
    for frame, (got, index) in zip(frames, passes[1], strict=True):
        assert got.schema == frame.schema
        assert got.equals(frame, null_equal=True)
        x = got.get_column("x").to_numpy()
        np.testing.assert_array_equal(np.signbit(x), np.signbit(frame.get_column("x").to_numpy()))
        np.testing.assert_array_equal(index, np.arange(frame.height))
