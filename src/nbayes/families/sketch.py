"""A mergeable summary of continuous values per class: the statistic behind kernel density
estimates and discretisation into intervals.

For each feature the sketch keeps the distinct observed values ("keys"), and for each key and
class the weight W and the weighted sum T of the values that fell on it. While a feature has at
most ``max_bins`` distinct values the keys are the values themselves and the sketch is exact.
Beyond that, values are pooled on a grid of width 2^e (the key is ⌊x / 2^e⌋ · 2^e) with the
smallest e that brings the count of keys to at most ``max_bins``; T / W then gives each bin's
mean.

Why this merges exactly: pooling on 2^a then on 2^b (b ≥ a) equals pooling on 2^b directly, and
the number of keys only falls as e grows. A batch of rows never needs a coarser grid than all the
rows together, so merging two sketches (re-pooling both to the coarser of their grids, then
coarsening further while there are too many keys) lands on the same grid, with the same W and T
(up to floating-point order in T), as one sketch of all the rows. Streaming, partial_fit and
distributed training therefore agree with a single fit.
"""

from __future__ import annotations

import copy
import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _threads
from .._validation import MAX_ABS_VALUE, check_finite_sums
from ._group import ColumnGroup, Memo, zero_round_off
from ._sketch_kernels import (
    _distinct_keys,
    _grid_sums,
    _merge_on_grid,
    _pool_sorted,
    _pooled_count,
    _sum_runs,
    _take_out,
)

EXACT = np.iinfo(np.int64).min  # grid level meaning "keys are the exact values"


def pool(values: np.ndarray, level: int) -> np.ndarray:
    """Key of each value on the grid of width 2^level: ⌊x / 2^level⌋ · 2^level.

    Where 2^level is below the value's floating-point spacing the key is the value itself (the
    limit of the formula, and what it would give without overflow)."""
    if level == EXACT:
        return values
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = np.ldexp(values, -level)
        return np.where(np.abs(scaled) >= 2.0**53, values, np.ldexp(np.floor(scaled), level))


def _distinct_sorted(values: np.ndarray) -> int:
    """How many distinct values a sorted array holds (pooling keeps sorted keys sorted: no
    sort needed to count them)."""
    return int(np.count_nonzero(values[1:] != values[:-1])) + int(values.size > 0)


def _grid_factor(level: int) -> float:
    """2^-level, the factor that maps a value to its grid cell (1 on the exact grid), or 0 where
    that is not a normal float (counting then does not apply)."""
    scale = 0 if level == EXACT else -level
    return math.ldexp(1.0, scale) if -1022 <= scale <= 1023 else 0.0


def _sums_on_grid(
    values: np.ndarray, cls: np.ndarray, weight: np.ndarray, level: int, n_classes: int
) -> tuple[int, float, float, tuple[float, np.ndarray, np.ndarray] | None]:
    """A batch of one column (NaN values and rows of weight 0 left out) summed per cell of the
    grid of width 2^level (:func:`pool`) and class by counting rather than sorting, where the
    keys span few grid cells (a column of codes, or any column once pooled): a batch of a
    stream then costs two compiled passes, not a sort.

    Returns (count, min, max, grid): the number of values kept, their range, and (lowest cell,
    W, T) with W and T flat over slot = (cell − lowest) · K + class, or None where counting
    does not apply (few values, a wide span, exact values that are not whole numbers, an
    extreme grid)."""
    factor = _grid_factor(level)
    count, smallest, largest, low, W, T = _grid_sums(
        values, cls, weight, factor, level == EXACT, n_classes
    )
    if W.size == 0 or factor == 0.0:
        return count, smallest, largest, None
    return count, smallest, largest, (low, W, T)


def _grid_entries(grid: tuple, level: int, n_classes: int) -> tuple[np.ndarray, ...]:
    """The used slots of a grid from :func:`_sums_on_grid` as (key, class, W, T), keys in order."""
    low, W, T = grid
    used = np.flatnonzero(W)
    scale = 0 if level == EXACT else -level
    key_of = np.ldexp(low + (used // n_classes).astype(np.float64), -scale)
    return key_of, used % n_classes, W[used], T[used]


class FeatureSketch:
    """Keys, per-class weights W and weighted sums T for one feature, plus exact min and max."""

    # one per column of a table, which may have 100,000: slots make them small and quick
    __slots__ = ("keys", "level", "max_bins", "maximum", "minimum", "n_classes", "total", "weight")

    def __init__(self, n_classes: int, max_bins: int) -> None:
        self.n_classes = n_classes
        self.max_bins = max_bins
        self.level = EXACT
        self.keys = np.zeros(0)
        self.weight = np.zeros((0, n_classes))
        self.total = np.zeros((0, n_classes))
        self.minimum = np.inf
        self.maximum = -np.inf

    @classmethod
    def of(
        cls,
        keys: np.ndarray,
        weight: np.ndarray,
        total: np.ndarray,
        *,
        level: int,
        max_bins: int,
        minimum: float,
        maximum: float,
    ) -> FeatureSketch:
        """A sketch holding the given arrays (no copy, no check: see :meth:`check`)."""
        sketch = cls.__new__(cls)
        sketch.n_classes, sketch.max_bins, sketch.level = weight.shape[1], max_bins, level
        sketch.keys, sketch.weight, sketch.total = keys, weight, total
        sketch.minimum, sketch.maximum = minimum, maximum
        return sketch

    def __deepcopy__(self, memo: dict) -> FeatureSketch:
        # a sketch's arrays are replaced, never written into (every change stores new ones):
        # a copy may share them. copy.deepcopy's generic path for a slotted object costs
        # ~50 µs, and a table may have 100,000 sketches that calibration copies once per
        # held-out fold
        clone = FeatureSketch.__new__(FeatureSketch)
        clone.keys, clone.level, clone.max_bins = self.keys, self.level, self.max_bins
        clone.maximum, clone.minimum, clone.n_classes = self.maximum, self.minimum, self.n_classes
        clone.total, clone.weight = self.total, self.weight
        return clone

    def _entries(self, positions: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        """The stored (key, class, W, T) as flat arrays, classes mapped through ``positions``."""
        return tuple(_stored_entries([self], positions)[0])

    def _store(
        self, keys: np.ndarray, cls: np.ndarray, weight: np.ndarray, total: np.ndarray
    ) -> None:
        """Keep the entries (key, class, weight, total), already on this sketch's grid, as its
        keys, W and T, on the smallest coarser grid that holds at most max_bins keys.

        One sort of the keys finds the distinct ones and the grid; the sums are then taken
        on that grid at once (:func:`_sum_runs`): a first batch of distinct values is not
        first kept key by key, then pooled."""
        # stable: keys on a grid repeat (a column of mostly zeros), where NumPy's quicksort
        # is many times slower than its stable sort, which also leaves runs in input order
        order = np.argsort(keys, kind="stable")
        distinct = _distinct_keys(keys, order)
        level = self._coarser_level(distinct)
        cells = distinct if level == self.level else pool(distinct, level)
        entries = np.empty((keys.shape[0], 4))
        entries[:, 0], entries[:, 1], entries[:, 2], entries[:, 3] = keys, cls, weight, total
        keys, weight, total = _sum_runs(entries, order, cells, self.n_classes)
        check_finite_sums(total, "a value sketch", estimator="sketch")  # before any change
        self.keys, self.weight, self.total, self.level = keys, weight, total, level

    def add(self, values: np.ndarray, cls: np.ndarray, weight: np.ndarray) -> None:
        """Add values with their class indices and weights; NaN (missing) is skipped. A value
        of weight zero is not added (not even to the range): it must not move a cut point, as
        a row left out would not."""
        count, smallest, largest, grid = _sums_on_grid(
            values, cls, weight, self.level, self.n_classes
        )
        if count == 0:
            return
        before = self.minimum, self.maximum
        self.minimum = min(self.minimum, float(smallest))
        self.maximum = max(self.maximum, float(largest))
        try:
            if grid is None:
                if count < values.shape[0]:
                    keep = (weight != 0) & ~np.isnan(values)
                    values, cls, weight = values[keep], cls[keep], weight[keep]
                with np.errstate(over="ignore", invalid="ignore"):
                    total = weight * values
                new = (pool(values, self.level), cls, weight, total)
            elif self._add_on_grid(grid):
                return
            else:
                new = _grid_entries(grid, self.level, self.n_classes)
            if self.keys.shape[0]:
                new = tuple(np.concatenate(p) for p in zip(self._entries(), new, strict=True))
            self._store(*new)  # (a first batch: its entries alone, no empty ones to join)
        except ValueError:  # the sums overflowed: nothing was stored
            self.minimum, self.maximum = before
            raise

    def _add_on_grid(self, grid: tuple[float, np.ndarray, np.ndarray]) -> bool:
        """Add a batch's grid sums to the stored ones by merging the sorted keys (compiled:
        :func:`_merge_on_grid`), the sums :meth:`_store` gives. False (nothing changed) where
        the union would need a coarser grid, which :meth:`_store` then finds."""
        low, W, T = grid
        keys, counts, sums, size = _merge_on_grid(
            self.keys, self.weight, self.total, low, _grid_factor(self.level), W, T, self.max_bins
        )
        if size < 0:
            return False
        check_finite_sums(sums, "a value sketch", estimator="sketch")  # before any change
        self.keys, self.weight, self.total = keys, counts, sums
        return True

    def merge(self, other: FeatureSketch, positions: np.ndarray) -> None:
        """Add ``other`` (its class k is this sketch's class ``positions[k]``)."""
        self.minimum = min(self.minimum, other.minimum)
        self.maximum = max(self.maximum, other.maximum)
        level = max(self.level, other.level)
        keys, cls, weight, total = other._entries(positions)
        new = (pool(keys, level), cls, weight, total)
        self.level = level
        mine = self._entries()
        self._store(
            pool(np.concatenate([mine[0], new[0]]), level),
            *(np.concatenate(pair) for pair in zip(mine[1:], new[1:], strict=True)),
        )

    def reindex_classes(self, positions: np.ndarray, n_classes: int) -> None:
        for name in ("weight", "total"):
            old = getattr(self, name)
            new = np.zeros((old.shape[0], n_classes))
            new[:, positions] = old
            setattr(self, name, new)
        self.n_classes = n_classes

    def _coarser_level(self, keys: np.ndarray) -> int:
        """The smallest grid 2^e (e ≥ the current level) on which the sorted distinct ``keys``
        (on the current grid) pool into at most max_bins keys."""
        if keys.shape[0] <= self.max_bins:
            return self.level
        span = max(abs(self.minimum), abs(self.maximum))
        if self.level == EXACT:  # below the smallest gap, pooling keeps every key apart
            low = int(np.floor(np.log2(np.min(np.diff(keys))))) - 1
        else:
            low = self.level
        high = int(np.ceil(np.log2(span))) + 2 if span > 0 else low + 1  # ≤ 4 keys there
        while low < high:  # bisection: the number of keys falls as the grid widens
            middle = (low + high) // 2
            factor = _grid_factor(middle)
            if factor:  # compiled: no array of pooled keys per step
                size = _pooled_count(keys, factor)
            else:  # an extreme grid, where 2^-level is no normal float
                size = _distinct_sorted(pool(keys, middle))
            if size <= self.max_bins:
                high = middle
            else:
                low = middle + 1
        return high

    def _coarsen(self) -> None:
        """Move to the smallest grid 2^e (e ≥ current level) with at most max_bins keys."""
        level = self._coarser_level(self.keys)
        if level != self.level:
            self.level = level
            self.keys, self.weight, self.total = _pool_sorted(
                pool(self.keys, level), self.weight, self.total
            )

    # ------------------------------------------------------------------ derived views
    def centres(self) -> np.ndarray:
        """Each key's representative value per class: the bin mean, or the key itself when the
        sketch is exact (a mean of its copies would differ from it by their sum's round-off)."""
        out = np.repeat(self.keys[:, None], self.weight.shape[1], axis=1)
        if self.level != EXACT:
            np.divide(self.total, self.weight, out=out, where=self.weight > 0)
        return out

    def pooled_centres(self) -> np.ndarray:
        """Each key's representative value over all classes."""
        weight = self.weight.sum(axis=1)
        out = self.keys.copy()
        np.divide(self.total.sum(axis=1), weight, out=out, where=weight > 0)
        return out

    def state(self, prefix: str) -> dict[str, np.ndarray]:
        return {
            f"{prefix}.keys": self.keys,
            f"{prefix}.weight": self.weight,
            f"{prefix}.total": self.total,
            f"{prefix}.meta": np.array([self.level, self.max_bins], dtype=np.int64),
            f"{prefix}.range": np.array([self.minimum, self.maximum]),
        }

    def check(self, n_classes: int) -> None:
        """Raise ValueError unless the arrays are a consistent sketch (used by model files):
        shapes, strictly increasing keys, weights >= 0, a grid level in range, and a range
        that is (inf, -inf) for an empty sketch and finite, in order, otherwise."""
        m = self.keys.shape[0]
        if (
            self.keys.ndim != 1
            or self.weight.shape != (m, n_classes)
            or self.total.shape != (m, n_classes)
        ):
            raise ValueError("sketch arrays have inconsistent shapes.")
        _check_packed(  # the rules of packed sketches, for this one column
            self.keys,
            self.weight,
            np.array([0, m]),
            np.array([[self.level, self.max_bins]], dtype=np.int64),
            np.array([[self.minimum, self.maximum]]),
        )

    @classmethod
    def from_state(cls, state: dict[str, np.ndarray], prefix: str) -> FeatureSketch:
        meta, weight = state[f"{prefix}.meta"], state[f"{prefix}.weight"]
        if meta.shape != (2,) or meta.dtype != np.int64 or weight.ndim != 2:
            raise ValueError(f"sketch {prefix} is malformed.")
        if state[f"{prefix}.range"].shape != (2,):
            raise ValueError(f"sketch {prefix} has a malformed range.")
        level, max_bins = (int(v) for v in meta)
        sketch = cls(weight.shape[1], max_bins)
        sketch.level = level
        sketch.keys = np.asarray(state[f"{prefix}.keys"], dtype=np.float64)
        sketch.weight = np.asarray(state[f"{prefix}.weight"], dtype=np.float64)
        sketch.total = np.asarray(state[f"{prefix}.total"], dtype=np.float64)
        sketch.minimum, sketch.maximum = (float(v) for v in state[f"{prefix}.range"])
        return sketch


#: A batch of fewer rows than _WIDE_ROWS and at least _WIDE_COLUMNS columns is summarised by
#: :func:`_add_columns`, all columns in one sort, in blocks of about _WIDE_BLOCK_ENTRIES values:
#: a wide table of few rows then costs NumPy work in proportion to its values, not one round of
#: Python calls per column (100,000 columns of 200 rows: about 2.5 s instead of 20 s).
_WIDE_COLUMNS = 16
_WIDE_ROWS = 1024
_WIDE_BLOCK_ENTRIES = 1 << 20  # 8 MiB arrays: reused by malloc, not mapped anew per block

#: Rows a sketch adds at a time. The first rows of a column of distinct values are sorted to find
#: its grid; the rest are counted on that grid (:func:`_sums_on_grid`) rather than sorted in
#: one large batch, which makes ``fit`` on a million rows several times faster. The sums are the
#: same as for one batch up to floating-point order (see the module's docstring).
ROWS_PER_ADD = 1 << 18


def _stored_entries(
    sketches: list[FeatureSketch], positions: np.ndarray | None = None
) -> tuple[list[np.ndarray], np.ndarray]:
    """The stored (key, class, W, T) of every sketch as flat arrays end to end (entries of
    weight 0 left out; classes mapped through ``positions``), and the index in ``sketches`` of
    each entry's sketch: one pass for all of a wide table's columns."""
    k = sketches[0].weight.shape[1]
    sizes = np.array([s.keys.shape[0] for s in sketches])
    weight = np.concatenate([s.weight for s in sketches]).ravel()
    keep = weight != 0
    keys = np.repeat(np.concatenate([s.keys for s in sketches]), k)[keep]
    classes = np.arange(k) if positions is None else positions
    cls = np.tile(classes, int(sizes.sum()))[keep]
    total = np.concatenate([s.total for s in sketches]).ravel()[keep]
    owner = np.repeat(np.repeat(np.arange(len(sketches)), sizes), k)[keep]
    return [keys, cls, weight[keep], total], owner


def _add_columns(
    sketches: list[FeatureSketch], X: np.ndarray, cls: np.ndarray, weight: np.ndarray
) -> None:
    """``sketches[j].add(X[:, j] observed, cls, weight)`` for every j at once: the same keys, W
    and T, the same ranges and grids. Each column's entries (its stored ones, then its rows in
    order) are sorted by key with a stable sort, so a run of equal keys is one key of its
    sketch and its sums run in the order ``add`` sums them. Nothing is stored if a sum
    overflows."""
    n, b = X.shape
    n_classes = sketches[0].n_classes
    values = np.ascontiguousarray(X.T)  # (b, n): column j's values in row order
    present = ~np.isnan(values) & (weight != 0)[None, :]
    keys = np.where(present, values, np.nan)
    levels = np.array([s.level for s in sketches], dtype=np.int64)
    for level in np.unique(levels[levels != EXACT]).tolist():
        rows = levels == level
        keys[rows] = pool(keys[rows], level)
    stored = [j for j, s in enumerate(sketches) if s.keys.shape[0]]
    if stored:  # the stored entries and the rows as one list, sorted by (column, key)
        entries, owner = _stored_entries([sketches[j] for j in stored])
        col = np.concatenate([np.asarray(stored)[owner], np.nonzero(present)[0]])
        key = np.concatenate([entries[0], keys[present]])
        order = np.lexsort((key, col))
        col, key = col[order], key[order]
        cls_of = np.concatenate([entries[1], np.broadcast_to(cls, (b, n))[present]])[order]
        w = np.concatenate([entries[2], np.broadcast_to(weight, (b, n))[present]])[order]
        with np.errstate(over="ignore", invalid="ignore"):
            t = np.concatenate([entries[3], (values * weight)[present]])[order]
        starts = np.ones(key.shape[0], dtype=bool)
        starts[1:] = (col[1:] != col[:-1]) | (key[1:] != key[:-1])
        group_col = col[starts]
    else:  # each column's values sorted within its row; absent values (NaN) sort last
        order = np.argsort(keys, axis=1, kind="stable")
        key = np.take_along_axis(keys, order, axis=1)
        observed = ~np.isnan(key)
        starts = observed.copy()
        starts[:, 1:] &= key[:, 1:] != key[:, :-1]
        group_col = np.nonzero(starts)[0]
        starts, observed = starts.ravel(), observed.ravel()
        key = key.ravel()
        cls_of = cls[order].ravel()
        # an absent value (at a row's end) adds 0 to the row's last key: no filtering needed
        w = np.where(observed, weight[order].ravel(), 0.0)
        with np.errstate(over="ignore", invalid="ignore"):
            t = np.where(observed, np.take_along_axis(values, order, axis=1).ravel() * w, 0.0)
    n_groups = group_col.shape[0]
    if n_groups == 0:
        return
    slot = np.maximum(np.cumsum(starts) - 1, 0) * n_classes + cls_of
    size = n_groups * n_classes
    W = np.bincount(slot, weights=w, minlength=size).reshape(-1, n_classes)
    T = np.bincount(slot, weights=t, minlength=size).reshape(-1, n_classes)
    check_finite_sums(T, "a value sketch", estimator="sketch")  # before any change
    group_key = key[starts]
    offsets = np.concatenate([[0], np.cumsum(np.bincount(group_col, minlength=b))]).tolist()
    lows = np.where(present, values, np.inf).min(axis=1).tolist()
    highs = np.where(present, values, -np.inf).max(axis=1).tolist()
    for j, sketch in enumerate(sketches):
        start, stop = offsets[j], offsets[j + 1]
        if start == stop:
            continue
        sketch.keys, sketch.weight, sketch.total = (
            group_key[start:stop],
            W[start:stop],
            T[start:stop],
        )
        sketch.minimum = min(sketch.minimum, lows[j])
        sketch.maximum = max(sketch.maximum, highs[j])
        if stop - start > sketch.max_bins:
            sketch._coarsen()


def _check_packed(
    keys: np.ndarray,
    weight: np.ndarray,
    offsets: np.ndarray,
    meta: np.ndarray,
    bounds: np.ndarray,
) -> None:
    """The rules of a consistent sketch (strictly increasing keys, weights >= 0, sizes within
    max_bins, a grid level in range, a range (inf, -inf) when empty and finite and in order
    otherwise, values and weights within the float range) for every column of packed sketches
    at once; :meth:`FeatureSketch.check` applies them to one column. The offsets are already
    known to run from 0 to len(keys), never decreasing."""
    sizes = np.diff(offsets)  # safe: offsets are in order and within the arrays
    levels, max_bins = meta[:, 0], meta[:, 1]
    increasing = keys[1:] > keys[:-1]
    starts = offsets[1:-1]
    increasing[starts[(starts > 0) & (starts < keys.shape[0])] - 1] = True  # a new column
    if not np.all(increasing):
        raise ValueError("sketch keys must be strictly increasing.")
    if np.any(weight < 0) or np.any(max_bins < 2) or np.any(sizes > max_bins):
        raise ValueError("sketch weights or sizes are invalid.")
    # a grid 2^level must be a float (2^1024 is not: its densities' bandwidths would be inf)
    if np.any((levels != EXACT) & ((levels < -1100) | (levels > 1023))):
        raise ValueError("sketch grid level is invalid.")
    low, high = bounds[:, 0], bounds[:, 1]
    empty = sizes == 0
    if np.any(empty & ~((low == np.inf) & (high == -np.inf))):
        raise ValueError("an empty sketch must have the range (inf, -inf).")
    if np.any(~empty & ~(np.isfinite(low) & np.isfinite(high) & (low <= high))):
        raise ValueError("a sketch's range must be two finite numbers, in order.")
    with np.errstate(over="ignore", invalid="ignore"):  # each column's total weight
        column_weight = (
            np.add.reduceat(weight.sum(axis=1), offsets[:-1][~empty]) if keys.size else keys
        )
    if np.any(np.abs(keys) > MAX_ABS_VALUE) or not np.all(np.isfinite(column_weight)):
        raise ValueError("a sketch holds values or weights beyond the float range.")


class ValueSketches(Memo):
    """One :class:`FeatureSketch` per continuous feature, fed from an (n, d) float block."""

    def __init__(self, n_classes: int, n_features: int, max_bins: int = 2048) -> None:
        # empty sketches share their empty arrays (a sketch's arrays are replaced, never
        # written into): 100,000 columns cost no 300,000 allocations
        keys, sums = np.zeros(0), np.zeros((0, n_classes))
        self.features = [
            FeatureSketch.of(
                keys, sums, sums, level=EXACT, max_bins=max_bins, minimum=np.inf, maximum=-np.inf
            )
            for _ in range(n_features)
        ]
        self._cache: dict = {}

    def __deepcopy__(self, memo: dict) -> ValueSketches:
        # each sketch copied directly, not through copy.deepcopy's dispatch per sketch
        held = type(self).__new__(type(self))
        memo[id(self)] = held
        for name, value in self.__dict__.items():
            copied = (
                [sketch.__deepcopy__(memo) for sketch in value]
                if name == "features"
                else copy.deepcopy(value, memo)
            )
            setattr(held, name, copied)
        return held

    def accumulate(self, X: np.ndarray, cls: np.ndarray, weight: np.ndarray) -> None:
        _threads.run_tasks(self.tasks(X, cls, weight), self.work(X))

    @staticmethod
    def work(X: np.ndarray) -> float:
        """The inner-loop steps of adding an (n, d) block (:mod:`nbayes._threads`' scale): two
        passes over each column (its range, then its sums), and a sort of its values where
        they are not counted on a grid, about log2(n) steps a value."""
        return X.size * (2 + math.log2(max(X.shape[0], 2)))

    def tasks(
        self, X: np.ndarray, cls: np.ndarray, weight: np.ndarray
    ) -> list[Callable[[], None]]:
        """Adding an (n, d) block, as independent tasks that threads may share (a column or a
        block of columns each, touching nothing of the others): :meth:`accumulate` runs them.
        The sketches' derived values are forgotten at once."""
        self._cache.clear()
        n, d = X.shape
        if d >= _WIDE_COLUMNS and n < _WIDE_ROWS:
            step = max(1, _WIDE_BLOCK_ENTRIES // max(n, 1))
            blocks = [slice(start, start + step) for start in range(0, d, step)]
            return [
                functools.partial(_add_columns, self.features[b], X[:, b], cls, weight)
                for b in blocks
            ]
        columns = np.ascontiguousarray(X.T)  # a column at a time: contiguous reads

        def add(sketch: FeatureSketch, values: np.ndarray) -> None:
            for start in range(0, n, ROWS_PER_ADD):  # NaN (missing) skipped there
                stop = start + ROWS_PER_ADD
                sketch.add(values[start:stop], cls[start:stop], weight[start:stop])

        return [
            functools.partial(add, sketch, values)
            for sketch, values in zip(self.features, columns, strict=True)
        ]

    def remove(self, X: np.ndarray, cls: np.ndarray, weight: np.ndarray) -> None:
        """Take counted rows of an (n, d) block back out. Each row's key (its value pooled on
        its sketch's grid) is one of that sketch's keys, as the row was added there, so
        W[key, c] −= w and T[key, c] −= w · x in place (compiled, all columns at once): the sums
        that adding the rows with weight −w gives, up to floating-point order, with no sort and
        no key added, dropped or pooled anew; a weight they took to zero is zero
        (:func:`~nbayes.families._group.zero_round_off`). Rows some key of which is missing
        (they were not counted here) are added with weight −w instead."""
        self._cache.clear()
        features = self.features
        if X.shape[0] == 0 or not features:
            return
        offsets = np.zeros(len(features) + 1, dtype=np.int64)
        np.cumsum([s.keys.shape[0] for s in features], out=offsets[1:])
        keys = np.concatenate([s.keys for s in features])
        # new arrays: a sketch's arrays are replaced, never written into
        before = np.concatenate([s.weight for s in features])
        W, T = before.copy(), np.concatenate([s.total for s in features])
        values = np.ascontiguousarray(X.T, dtype=np.float64)
        levels = np.array([s.level for s in features], dtype=np.int64)
        pooled = values
        for level in np.unique(levels[levels != EXACT]).tolist():
            if pooled is values:
                pooled = values.copy()
            on_level = levels == level
            pooled[on_level] = pool(values[on_level], level)
        row_weight = np.asarray(weight, dtype=np.float64)
        if not _take_out(keys, offsets, W, T, pooled, values, np.asarray(cls), row_weight):
            self.accumulate(X, cls, -row_weight)
            return
        # a weight the rows took to zero is zero, and so is its sum of values (fractional
        # weights leave round-off whose sign would decide whether a kernel remains)
        T[zero_round_off(W, before)] = 0.0
        np.maximum(W, 0.0, out=W)
        bounds = offsets.tolist()
        for j, sketch in enumerate(features):
            sketch.weight, sketch.total = W[bounds[j] : bounds[j + 1]], T[bounds[j] : bounds[j + 1]]

    def merge(self, other: ValueSketches, positions: np.ndarray) -> None:
        for mine, theirs in zip(self.features, other.features, strict=True):
            mine.merge(theirs, positions)
        self._cache.clear()

    def reindex_classes(self, positions: np.ndarray, n_classes: int) -> None:
        for sketch in self.features:
            sketch.reindex_classes(positions, n_classes)
        self._cache.clear()

    def state(self) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for j, sketch in enumerate(self.features):
            out.update(sketch.state(f"f{j}"))
        return out

    def check(self, n_classes: int, n_features: int) -> None:
        if len(self.features) != n_features:
            raise ValueError(f"expected {n_features} sketches, found {len(self.features)}.")
        if self._cache.get("checked") == n_classes:  # checked whole by from_packed_state
            return
        for sketch in self.features:
            sketch.check(n_classes)

    @classmethod
    def from_state(cls, state: dict[str, np.ndarray]) -> ValueSketches:
        n_features = sum(1 for key in state if key.endswith(".keys"))
        sketches = cls.__new__(cls)
        sketches.features = [FeatureSketch.from_state(state, f"f{j}") for j in range(n_features)]
        sketches._cache = {}
        return sketches

    def packed_state(self) -> dict[str, np.ndarray]:
        """The sketches as six arrays whatever the number of columns (a model file of 100,000
        columns holds six arrays, not 500,000): the keys, weights and sums of every column one
        after another, column j's rows being ``offsets[j]:offsets[j + 1]``, and each column's
        (grid level, max_bins) and (min, max)."""
        if "packed" in self._cache:  # the arrays these sketches were unpacked from
            return dict(self._cache["packed"])
        k = self.features[0].weight.shape[1] if self.features else 0
        sizes = [s.keys.shape[0] for s in self.features]
        return {
            "keys": np.concatenate([s.keys for s in self.features] or [np.zeros(0)]),
            "weight": np.concatenate([s.weight for s in self.features] or [np.zeros((0, k))]),
            "total": np.concatenate([s.total for s in self.features] or [np.zeros((0, k))]),
            "offsets": np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]).astype(np.int64),
            "meta": np.array(
                [[s.level, s.max_bins] for s in self.features], dtype=np.int64
            ).reshape(-1, 2),
            "range": np.array([[s.minimum, s.maximum] for s in self.features]).reshape(-1, 2),
        }

    @classmethod
    def from_packed_state(cls, state: dict[str, np.ndarray]) -> ValueSketches:
        """The inverse of :meth:`packed_state`. Everything :meth:`FeatureSketch.check` checks
        of one sketch is checked here for all columns at once, with the layout (offsets from 0
        to the number of keys, never decreasing, compared rather than subtracted), before any
        sketch is built; :meth:`check` then has only the class count left to compare."""
        offsets, meta = state["offsets"], state["meta"]
        keys, weight, total, bounds = (
            np.asarray(state[name], dtype=np.float64)
            for name in ("keys", "weight", "total", "range")
        )
        d = offsets.shape[0] - 1 if offsets.ndim == 1 else -1
        if (
            d < 0
            or offsets.dtype != np.int64
            or keys.ndim != 1
            or weight.ndim != 2
            or total.shape != weight.shape
            or weight.shape[0] != keys.shape[0]
            or meta.shape != (d, 2)
            or meta.dtype != np.int64
            or bounds.shape != (d, 2)
        ):
            raise ValueError("packed sketches have inconsistent shapes.")
        if int(offsets[0]) != 0 or int(offsets[-1]) != keys.shape[0]:
            raise ValueError("packed sketch offsets must run from 0 to the number of keys.")
        if np.any(offsets[1:] < offsets[:-1]):
            raise ValueError("packed sketch offsets must never decrease.")
        _check_packed(keys, weight, offsets, meta, bounds)
        sketches = cls.__new__(cls)
        n_classes = weight.shape[1]
        cuts, levels, max_bins = offsets.tolist(), meta[:, 0].tolist(), meta[:, 1].tolist()
        lows, highs = bounds[:, 0].tolist(), bounds[:, 1].tolist()
        sketches.features = [
            FeatureSketch.of(
                keys[cuts[j] : cuts[j + 1]],
                weight[cuts[j] : cuts[j + 1]],
                total[cuts[j] : cuts[j + 1]],
                level=levels[j],
                max_bins=max_bins[j],
                minimum=lows[j],
                maximum=highs[j],
            )
            for j in range(d)
        ]
        packed = {"keys": keys, "weight": weight, "total": total}
        sketches._cache = {
            "packed": {**packed, "offsets": offsets, "meta": meta, "range": bounds},
            "checked": n_classes,
        }
        return sketches


# ---------------------------------------------------------------------- table columns
class SketchColumns(ColumnGroup):
    """Base of the table columns summarised by value sketches (kernel densities, intervals)."""

    def __init__(self, names: list[str], n_classes: int, *, max_bins: int = 2048, **options: Any):
        super().__init__(names, n_classes, **options)
        self.stats = ValueSketches(n_classes, len(names), max_bins)

    def remove(self, block: np.ndarray, cls: np.ndarray, weight: np.ndarray) -> None:
        self.stats.remove(block, cls, weight)

    def resolution(self, j: int) -> str:
        """How exactly column j's sketch holds its values, in words."""
        level = self.stats.features[j].level
        if level == EXACT:
            return "exact values"
        return f"values pooled on a grid of width {math.ldexp(1.0, int(level)):g}"
