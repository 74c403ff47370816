"""Tables of very many columns take the wide paths — every column's value sketch updated by one
sort, packed model-file sketches checked all at once, column types inferred from fewer rows —
and these give exactly what the column-by-column paths give."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl
import pytest

from nbayes import NaiveBayes, load
from nbayes.cli import main
from nbayes.families import sketch as sketch_module
from nbayes.families.sketch import FeatureSketch, ValueSketches


def column_by_column(sketches: ValueSketches, X, cls, weight) -> None:
    for j, one in enumerate(sketches.features):
        present = ~np.isnan(X[:, j])
        one.add(X[present, j], cls[present], weight[present])


def assert_same_sketches(a: ValueSketches, b: ValueSketches) -> None:
    for j, (x, y) in enumerate(zip(a.features, b.features, strict=True)):
        assert x.level == y.level, j
        np.testing.assert_array_equal(x.keys, y.keys)
        np.testing.assert_array_equal(x.weight, y.weight)
        np.testing.assert_array_equal(x.total, y.total)
        assert (x.minimum, x.maximum) == (y.minimum, y.maximum)


@pytest.mark.parametrize("seed", range(12))
def test_the_wide_sketch_update_equals_column_by_column(seed: int):
    """Exact values and pooled grids (max_bins 8 forces coarsening), missing values, zero
    weights, a column missing in every row, and batches added onto stored entries."""
    rng = np.random.default_rng(seed)
    n, d, K = int(rng.integers(1, 200)), int(rng.integers(16, 50)), 3
    wide, narrow = ValueSketches(K, d, max_bins=8), ValueSketches(K, d, max_bins=8)
    for _ in range(3):
        X = rng.integers(0, 12, size=(n, d)).astype(float)
        X[:, :5] = rng.normal(size=(n, 5)) * rng.choice([1e-3, 1.0, 1e6])
        X[rng.random((n, d)) < 0.2] = np.nan
        X[:, 0] = np.nan
        cls = rng.integers(0, K, n)
        weight = rng.choice([0.0, 1.0, 2.5], n)
        wide.accumulate(X, cls, weight)  # d >= 16 columns of < 1024 rows: the wide path
        column_by_column(narrow, X, cls, weight)
        assert_same_sketches(wide, narrow)
    assert any(s.level != sketch_module.EXACT for s in wide.features)  # grids were exercised


def test_a_wide_batch_whose_sums_overflow_changes_nothing():
    rng = np.random.default_rng(0)
    sketches = ValueSketches(2, 20)
    X = rng.normal(size=(10, 20))
    sketches.accumulate(X, rng.integers(0, 2, 10), np.ones(10))
    before = sketches.packed_state()
    with pytest.raises(ValueError, match="overflow"):
        sketches.accumulate(np.full((10, 20), 1e300), np.zeros(10, dtype=int), np.full(10, 1e300))
    for name, array in sketches.packed_state().items():
        np.testing.assert_array_equal(array, before[name])


def test_a_copied_sketch_holds_every_field_and_leaves_the_original_alone():
    # calibration copies each sketch once per held-out fold, field by field (written out, for
    # speed): a field added to the class must be copied too
    import copy

    rng = np.random.default_rng(1)
    sketches = ValueSketches(2, 3, max_bins=4)
    sketches.accumulate(rng.normal(size=(50, 3)), rng.integers(0, 2, 50), np.ones(50))
    held = copy.deepcopy(sketches)
    before = sketches.packed_state()
    for original, clone in zip(sketches.features, held.features, strict=True):
        assert clone is not original
        for name in FeatureSketch.__slots__:
            assert getattr(clone, name) is getattr(original, name), name
    # the copy's arrays are replaced, never written into, when it changes
    held.accumulate(rng.normal(size=(10, 3)), np.zeros(10, dtype=int), np.ones(10))
    for name, array in sketches.packed_state().items():
        np.testing.assert_array_equal(array, before[name])


def test_a_wide_table_fits_the_model_a_narrow_path_fits(monkeypatch):
    """The whole model (file arrays and probabilities) is the same whichever path the sketches
    took, after a fit and after a partial_fit onto stored statistics."""
    rng = np.random.default_rng(1)
    n, d = 60, 40
    frame = pl.DataFrame({f"x{j}": rng.integers(0, 6, n) * (1.0 + j % 3) for j in range(d)})
    frame = frame.with_columns(pl.Series("y", rng.choice(["a", "b"], n)))
    more = frame.sample(30, seed=2)

    def fitted() -> NaiveBayes:
        return NaiveBayes().fit(frame, target="y").partial_fit(more, target="y")

    wide = fitted()
    monkeypatch.setattr(sketch_module, "_WIDE_COLUMNS", 10**9)
    narrow = fitted()
    _, wide_arrays = wide._to_state()
    _, narrow_arrays = narrow._to_state()
    assert sorted(wide_arrays) == sorted(narrow_arrays)
    for name, array in wide_arrays.items():
        np.testing.assert_array_equal(array, narrow_arrays[name], err_msg=name)
    np.testing.assert_array_equal(
        wide.predict_proba(frame.drop("y")), narrow.predict_proba(frame.drop("y"))
    )


def packed(d: int = 5) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3)
    sketches = ValueSketches(2, d, max_bins=16)
    sketches.accumulate(rng.integers(0, 5, size=(30, d)).astype(float), rng.integers(0, 2, 30),
                        np.ones(30))  # fmt: skip
    sketches.features[2] = FeatureSketch(2, 16)  # an empty column among full ones
    return sketches.packed_state()


def forged(change) -> dict[str, np.ndarray]:
    state = {name: array.copy() for name, array in packed().items()}
    change(state)
    return state


def _swap_first_keys(s):
    s["keys"][[0, 1]] = s["keys"][[1, 0]]


def _negative_weight(s):
    s["weight"][3, 0] = -1.0


def _too_many_keys(s):
    s["meta"][0, 1] = 2


def _bad_level(s):
    s["meta"][1, 0] = 5000


def _level_beyond_floats(s):
    s["meta"][1, 0] = 1050  # a grid of width 2^1050: no float


def _inverted_range(s):
    s["range"][0] = [3.0, 1.0]


def _nan_range(s):
    s["range"][1, 0] = np.nan


def _empty_with_a_range(s):
    s["range"][2] = [0.0, 1.0]


def _huge_key(s):
    s["keys"][-1] = 1e300


@pytest.mark.parametrize(
    "change",
    [
        _swap_first_keys,
        _negative_weight,
        _too_many_keys,
        _bad_level,
        _level_beyond_floats,
        _inverted_range,
        _nan_range,
        _empty_with_a_range,
        _huge_key,
    ],
)
def test_packed_sketches_are_refused_where_a_column_check_refuses(change):
    """The all-columns check of a model file's packed sketches refuses what FeatureSketch.check
    refuses column by column."""
    state = forged(change)
    with pytest.raises(ValueError):
        ValueSketches.from_packed_state(state)
    # the column-by-column check agrees (built without the packed check)
    offsets, meta, bounds = state["offsets"], state["meta"], state["range"]
    with pytest.raises(ValueError):
        for j in range(offsets.shape[0] - 1):
            rows = slice(int(offsets[j]), int(offsets[j + 1]))
            FeatureSketch.of(
                state["keys"][rows],
                state["weight"][rows],
                state["total"][rows],
                level=int(meta[j, 0]),
                max_bins=int(meta[j, 1]),
                minimum=float(bounds[j, 0]),
                maximum=float(bounds[j, 1]),
            ).check(2)


def test_keys_fall_between_columns_and_an_unaltered_file_loads():
    state = packed()
    keys, starts = state["keys"], state["offsets"][1:-1]
    assert np.any(keys[starts] <= keys[starts - 1])  # a column's first key below the last one
    loaded = ValueSketches.from_packed_state(state)
    loaded.check(2, 5)
    for name, array in loaded.packed_state().items():
        np.testing.assert_array_equal(array, state[name])


def test_types_inferred_from_few_rows_of_a_wide_table_do_not_lose_later_values(
    tmp_path: Path, monkeypatch
):
    """With types inferred from 20 rows (as in a table of 100,000 columns), a column of whole
    numbers that holds 2.5 on row 50 is still read as numbers: the quick reading stops at the
    mismatch and the careful one reads the file again."""
    from nbayes import _read_common, readers

    monkeypatch.setattr(_read_common, "INFER_VALUES", 40)
    assert readers.infer_rows(3) == 20
    rows = [f"{i % 7},{i % 3},{'ab'[i % 2]}" for i in range(60)]
    rows[50] = "2.5,1,a"
    data = tmp_path / "late.csv"
    data.write_text("x,z,y\n" + "\n".join(rows) + "\n")
    model_path = tmp_path / "m.nbm"
    assert main(["fit", str(data), "--target", "y", "-o", str(model_path)]) == 0
    model = load(model_path)
    moments = model._stats.groups[0].stats.moments
    values = np.array([[float(v) for v in row.split(",")[:2]] for row in rows])  # 2.5 included
    np.testing.assert_allclose(moments.pooled_mean, values.mean(axis=0))


def test_a_wide_mixed_file_through_the_command_line_is_the_table_fitted_in_memory(
    tmp_path: Path,
):
    """300 columns — floats with missing values ('?'), integers, strings — fitted by `nbayes
    fit` (markers touching only the columns they can change, the wide sketch path) hold the
    statistics of NaiveBayes fitted on the same table in memory, and `nbayes predict` gives
    its predictions."""
    from conftest import assert_same_statistics

    rng = np.random.default_rng(5)
    n = 120
    columns = {}
    for j in range(100):
        floats = np.round(rng.normal(size=n) + j % 3, 3).astype(str).astype(object)
        floats[rng.random(n) < 0.1] = "?"
        columns[f"f{j}"] = floats.tolist()
        columns[f"i{j}"] = rng.integers(0, 5, n).tolist()
        columns[f"s{j}"] = rng.choice(["red", "green", "blue"], n).tolist()
    columns["y"] = rng.choice(["a", "b", "c"], n).tolist()
    text = pl.DataFrame(columns, strict=False).with_columns(pl.all().cast(pl.String))
    data = tmp_path / "wide.csv"
    text.write_csv(data)
    model_path, out = tmp_path / "m.nbm", tmp_path / "p.csv"
    assert main(["fit", str(data), "--target", "y", "--missing", "?", "-o", str(model_path)]) == 0
    frame = pl.read_csv(data, null_values="?")
    in_memory = NaiveBayes(missing_values="?", calibration=None).fit(frame, target="y")
    from_file = load(model_path)
    assert_same_statistics(from_file, in_memory)
    assert main(["predict", str(model_path), str(data), "--missing", "?", "-o", str(out)]) == 0
    predicted = pl.read_csv(out)
    expected = in_memory.predict(frame.drop("y"))
    assert predicted.get_column(predicted.columns[-1]).cast(pl.String).to_list() == list(expected)
