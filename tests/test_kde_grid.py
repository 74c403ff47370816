"""Kernel densities of values on a grid (integers, decimals): the terms read from a table by
distance in steps give the direct sum's log density, to round-off, whatever the values asked."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logsumexp
from scipy.stats import norm

import nbayes
from nbayes.families import _selection, kde

# (_selection is imported here, before any test replaces kde._grid: the compiled candidates of
# _selection_kernels take kde's kernels when first imported)


def density_parts(values: np.ndarray, cls: np.ndarray, n_classes: int) -> tuple:
    """A feature's kernels (centres, weights, offsets, bandwidths, log normalisers) as a
    KernelDensity without point masses makes them from an exact sketch of ``values``."""
    keys, inverse = np.unique(values, return_inverse=True)
    weight = np.zeros((keys.shape[0], n_classes))
    np.add.at(weight, (inverse, cls), 1.0)
    total = weight * keys[:, None]
    floor = 1e-9 * np.abs(keys).max()
    share, alpha, rule, scott, per_class, fixed_h, exact = (
        math.nan,
        1.0,
        True,
        False,
        True,
        0.0,
        True,
    )
    parts = kde._density_parts(
        keys, weight, total, share, alpha, rule, scott, per_class, fixed_h, floor, exact
    )
    return parts[2:]  # no point masses: centres, weights, offsets, bandwidths, log norms


def log_density(parts: tuple, query: np.ndarray, grid: tuple | None) -> np.ndarray:
    """log f_c(x) by the grid's tables (``grid``) or by the direct sum (None)."""
    centres, weights, offsets, bandwidth, log_norm = parts
    n_classes = offsets.shape[0] - 1
    if grid is None:
        grid = (
            0.0,
            np.zeros(centres.shape[0], np.int64),
            np.zeros(1),
            np.zeros(n_classes + 1, np.int64),
        )
    out = np.zeros((query.shape[0], n_classes))
    kde._log_density_rows(
        query, centres, weights, offsets, bandwidth, log_norm, out, 0, query.shape[0], *grid
    )
    return out


def assert_same_density(direct: np.ndarray, tabled: np.ndarray, rtol: float = 1e-13) -> None:
    assert np.array_equal(np.isfinite(direct), np.isfinite(tabled))
    finite = np.isfinite(direct)
    np.testing.assert_allclose(tabled[finite], direct[finite], rtol=rtol, atol=1e-12)


@settings(max_examples=80, deadline=None)
@given(
    data=st.data(),
    step=st.sampled_from([1.0, 0.5, 0.25, 0.1, 0.01, 0.001]),
    n_classes=st.integers(1, 4),
    origin=st.sampled_from([0, 10_000, 2_000_000_000]),
)
def test_the_grids_tables_give_the_direct_sums_density(data, step, n_classes, origin):
    """Values (origin + k) · step (integers, halves, quarters, decimals of one to three places;
    near 0, or far from it in steps), asked on the grid, between its points, beyond the
    centres' range by up to 400 bandwidths, and missing: the tables' log density equals the
    direct sum's, to round-off where the step is a power of two; a decimal step's values are
    not exact in binary, and its tables serve only where that leaves them within 1e-11."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    n = data.draw(st.integers(3 * n_classes, 120))
    width = data.draw(st.integers(2, 60))
    values = np.array([(origin + k) / (1 / step) for k in rng.integers(-width, width, n)])
    cls = np.arange(n) % n_classes
    parts = density_parts(values, cls, n_classes)
    grid = kde._grid(parts[0], parts[2], parts[3])
    spread = 400 * max(parts[3].max(), step)
    query = np.concatenate(
        [
            np.array([(origin + k) / (1 / step) for k in rng.integers(-3 * width, 3 * width, 40)]),
            rng.uniform(values.min() - spread, values.max() + spread, 20),
            [np.nan, values.min() - spread, values.max() + spread, -np.inf, np.inf],
        ]
    )
    exact = math.frexp(1 / step)[0] == 0.5
    assert_same_density(
        log_density(parts, query, None), log_density(parts, query, grid), 1e-13 if exact else 3e-11
    )


@pytest.mark.parametrize(
    ("step", "origin"), [(1.0, 0), (0.25, 0), (1.0, 10_000), (0.01, 0), (0.001, 500)]
)
def test_a_grid_is_found_for_integers_quarters_and_decimals(step, origin):
    """Dense columns of such values find their grid: 300 values in 120 steps, two classes."""
    rng = np.random.default_rng(1)
    values = np.array([(origin + k) / (1 / step) for k in rng.integers(0, 120, 300)])
    parts = density_parts(values, np.arange(300) % 2, 2)
    assert kde._grid(parts[0], parts[2], parts[3])[0] == 1 / step


def test_a_decimal_grid_serves_no_values_far_from_zero_in_bandwidths():
    """Prices near 2,000,000 in thousandths, with a bandwidth of 3e-4: read as k / 1000, a value
    differs from its float by up to 1e-10, a third of a bandwidth's millionth; the terms' error
    would reach 1e-5 (found in review): no grid, the direct sum."""
    keys = np.array([k / 1000 for k in range(2_000_000_000, 2_000_000_200)])
    weight = np.ones((200, 1))
    parts = kde._density_parts(
        keys, weight, weight * keys[:, None], math.nan, 1.0, False, False, False, 3e-4, 0.0, True
    )[2:]
    assert kde._grid(parts[0], parts[2], parts[3])[0] == 0.0


def test_the_grid_density_is_the_mixture_of_normals():
    """Integers on the grid, against SciPy's normal densities summed by hand."""
    rng = np.random.default_rng(0)
    values = rng.integers(0, 200, 500).astype(float)
    cls = np.zeros(500, dtype=np.intp)
    parts = density_parts(values, cls, 1)
    grid = kde._grid(parts[0], parts[2], parts[3])
    assert grid[0] == 1.0
    query = np.arange(-20.0, 220.0)
    h = parts[3][0]
    expected = logsumexp(norm.logpdf(query[:, None], values[None, :], h), axis=1) - math.log(500)
    np.testing.assert_allclose(log_density(parts, query, grid)[:, 0], expected, rtol=1e-12)


@pytest.mark.parametrize(
    "values",
    [
        np.arange(50) * math.pi,  # no step of GRID_SCALES holds them
        np.arange(50) * 1e-10,  # integers in a tiny unit: 1e-10 is no decimal of three places
        np.array([0.0, 0.001, 1000.0]),  # 3 kernels, each summing 10⁶ steps of 1/1000
        np.arange(50) * 3.0 / 7.0,  # sevenths: no decimal of three places
    ],
    ids=["irrational", "tiny unit", "sparse", "sevenths"],
)
def test_no_grid_where_the_centres_are_off_every_grid_or_too_sparse(values):
    """Such columns are summed directly (the table would be wrong, or larger than the sum)."""
    parts = density_parts(values, np.zeros(values.shape[0], dtype=np.intp), 1)
    assert kde._grid(parts[0], parts[2], parts[3])[0] == 0.0


def test_tiny_weights_fall_back_to_the_direct_sum():
    """Weights of 1e-300 make the tabled sum underflow: the direct, relative sum is used."""
    values = np.arange(30, dtype=float)
    parts = list(density_parts(values, np.zeros(30, dtype=np.intp), 1))
    parts[1] = parts[1] * 1e-300  # weights
    parts[4] = parts[4] + 300 * math.log(10)  # their normaliser, so the density stays a density
    grid = kde._grid(parts[0], parts[2], parts[3])
    assert grid[0] == 1.0
    query = np.array([3.0, 10.0, 400.0])
    assert_same_density(
        log_density(tuple(parts), query, None), log_density(tuple(parts), query, grid)
    )


def test_a_model_of_integer_columns_uses_the_grid_and_predicts_as_the_direct_sums(monkeypatch):
    """NaiveBayes(continuous="kde") on integer and two-decimal columns: the densities find
    their grids, and the probabilities equal those of the direct sums."""
    rng = np.random.default_rng(3)
    y = rng.choice(["a", "b", "c"], 600)
    frame = pl.DataFrame(
        {
            "count": rng.poisson(np.where(y == "a", 20, 30)).astype(float),
            "price": np.round(rng.normal(np.where(y == "b", 5.0, 6.0), 1.0), 2),
        }
    )
    found = []
    grid = kde._grid

    def spy(centres, offsets, bandwidth):
        result = grid(centres, offsets, bandwidth)
        found.append(result[0])
        return result

    monkeypatch.setattr(kde, "_grid", spy)
    model = nbayes.NaiveBayes(continuous="kde", calibration=None).fit(frame, y)
    tabled = model.predict_proba(frame)
    assert sorted(set(found)) == [1.0, 100.0]

    def no_grid(centres, offsets, bandwidth):
        return (
            0.0,
            np.zeros(centres.shape[0], np.int64),
            np.zeros(1),
            np.zeros(offsets.shape[0], np.int64),
        )

    monkeypatch.setattr(kde, "_grid", no_grid)
    direct = nbayes.NaiveBayes(continuous="kde", calibration=None).fit(frame, y)
    np.testing.assert_allclose(tabled, direct.predict_proba(frame), rtol=1e-12, atol=1e-15)


def test_leave_one_out_removes_a_rows_kernel_from_where_the_density_centred_it():
    """An exact sketch's kernels sit on its keys (0.1, not the mean of three 0.1s, which is
    0.10000000000000002): leaving one copy out of the key 0.1 removes a kernel at 0.1 itself,
    so with a bandwidth far below that round-off its density falls from 3/4 to 2/3 of one
    kernel's peak, as by hand."""
    from nbayes.families.sketch import FeatureSketch

    sketch = FeatureSketch(1, 100)
    sketch.add(np.array([0.1, 0.1, 0.1, 0.7]), np.zeros(4, np.intp), np.ones(4))
    h = 1e-17
    full, own = _selection.kernels(
        [sketch], np.array([0, 2]), sketch.keys, np.ones((2, 1)), np.ones(1, bool), [None], h,
        np.ones(1),
    )  # fmt: skip
    peak = -math.log(h * math.sqrt(2 * math.pi))
    assert full[0, 0] == pytest.approx(math.log(3 / 4) + peak, rel=1e-12)
    assert own[0, 0] == pytest.approx(math.log(2 / 3) + peak, rel=1e-12)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.lists(st.integers(-3, 12), min_size=4, max_size=30), min_size=1, max_size=4
    ),
    st.integers(0, 2**32 - 1),
)
def test_the_kernel_candidates_of_a_block_are_each_columns_leave_one_out_density(columns, seed):
    """The kernel density candidate of columns laid end to end, computed in one call, is for
    every column and key the log of the class's kernels summed at that value, and without the
    row's own kernel, log Σ_{i ≠ row} N(x; x_i, h_c²) − log(W_c − 1), as by hand (in log space)
    with the density's own bandwidths (no point masses). Where the row's own kernel is most of
    the sum, taking it out cancels digits in any arithmetic: those keys are not compared."""
    from nbayes.families.sketch import FeatureSketch

    rng = np.random.default_rng(seed)
    sketches, rows = [], []
    for values in columns:
        x = np.array(values, dtype=np.float64) / 2.0  # a grid of half steps
        cls = np.arange(x.shape[0]) % 2  # both classes, each at least twice
        rng.shuffle(cls)
        sketch = FeatureSketch(2, 1000)
        sketch.add(x, cls, np.ones(x.shape[0]))
        sketches.append(sketch)
        rows.append((x, cls))
    sizes = [s.keys.shape[0] for s in sketches]
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    keys = np.concatenate([s.keys for s in sketches])
    delta = np.ones((keys.shape[0], 2))
    use = np.ones(len(sketches), bool)
    full, own = _selection.kernels(
        sketches, offsets, keys, delta, use, [None] * len(sketches), "silverman",
        np.ones(len(sketches)),
    )  # fmt: skip
    for k, (sketch, (x, cls)) in enumerate(zip(sketches, rows, strict=True)):
        h = kde.KernelDensity(sketch, "silverman").bandwidth
        for b, value in enumerate(sketch.keys):
            for c in range(2):
                mine = x[cls == c]
                terms = norm.logpdf(value, loc=mine, scale=h[c])
                row = offsets[k] + b
                expected = logsumexp(terms) - math.log(mine.shape[0])
                assert full[row, c] == pytest.approx(expected, rel=1e-9, abs=1e-9)
                at = np.flatnonzero(mine == value)
                if at.size:  # a row of this class at this key leaves
                    others = np.delete(terms, at[0])
                    if logsumexp(others) - logsumexp(terms) < math.log(0.1):
                        continue  # the row's own kernel is over 90 % of the sum
                    expected = logsumexp(others) - math.log(mine.shape[0] - 1)
                    assert own[row, c] == pytest.approx(expected, rel=1e-9, abs=1e-9)
