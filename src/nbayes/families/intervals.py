"""Continuous features discretised into intervals (Dougherty, Kohavi & Sahami 1995).

Cut points t_1 < … < t_{B−1} turn x into the interval index l with t_{l−1} < x ≤ t_l; the
feature is then categorical, with the Lidstone estimate over its B intervals:

    P_λ(x ∈ I_l | c) = (n_{c,l} + λ) / (N_c + B λ)

Three ways to choose the cut points, all computed from the feature's sketch
(:mod:`nbayes.families.sketch`), so that fitting stays one mergeable pass:

* ``"equal-width"``: B intervals of equal width between the smallest and largest value seen;
* ``"equal-frequency"``: B intervals holding (about) equal weight of training values;
* ``"mdl"``: supervised, Fayyad & Irani (1993), as in Weka's ``NaiveBayes -D``: recursively
  split at the boundary that minimises the class entropy, and keep a split only if its
  information gain exceeds the minimum description length criterion

      Gain(A, T; S) > log₂(N − 1) / N + Δ(A, T; S) / N,
      Δ = log₂(3^k − 2) − [k Ent(S) − k₁ Ent(S₁) − k₂ Ent(S₂)]

  (k, k₁, k₂ = number of classes present in S, S₁, S₂). A feature with no accepted cut has one
  interval and contributes nothing to decisions.

Exact and approximate: with the sketch holding every distinct value (at most ``max_bins`` per
feature), the cut points and counts are exactly those of sorting all the training values (cut
points midway between neighbouring values, like Weka). Beyond that the candidate cut points are
the sketch's grid lines, and equal-width bins are filled by bin means: an approximation whose
resolution is the grid width 2^e, reported on the fitted model.
"""

from __future__ import annotations

import itertools

import numpy as np
import polars as pl

from ._group import Settings, format_number, format_table
from ._mdl_kernels import mdl_splits
from ._registry import Family, register
from ._sketch_kernels import _interval_sums, _positions
from ._tidy import tidy_frame
from .category_counts import CategoricalCounts
from .sketch import EXACT, FeatureSketch, SketchColumns

METHODS = ("equal-width", "equal-frequency", "mdl")
#: The most intervals ``bins`` may ask for: cut points and a column of counts per class each.
MAX_INTERVALS = 2**16


def _boundaries(sketch: FeatureSketch) -> np.ndarray:
    """Candidate cut between key b−1 and key b: the midpoint (exact) or the grid line."""
    keys = sketch.keys
    if sketch.level == EXACT:
        return (keys[:-1] + keys[1:]) / 2.0
    return keys[1:]


def equal_width(sketch: FeatureSketch, bins: int) -> np.ndarray:
    if not np.isfinite(sketch.minimum) or sketch.maximum <= sketch.minimum:
        return np.zeros(0)
    return np.linspace(sketch.minimum, sketch.maximum, bins + 1)[1:-1]


def equal_frequency(sketch: FeatureSketch, bins: int) -> np.ndarray:
    weight = sketch.weight.sum(axis=1)
    if weight.sum() <= 0 or sketch.keys.shape[0] < 2:
        return np.zeros(0)
    cumulative = np.cumsum(weight) / weight.sum()
    boundaries = _boundaries(sketch)
    cuts = []
    for q in np.arange(1, bins) / bins:
        b = int(np.searchsorted(cumulative, q))  # first key reaching quantile q
        if b < boundaries.shape[0]:
            cuts.append(boundaries[b])
    return np.unique(np.asarray(cuts))


def mdl(sketch: FeatureSketch, max_intervals: int | None = None) -> np.ndarray:
    """Fayyad–Irani cut points of one feature (see the module docstring), the recursion
    compiled (:func:`~nbayes.families._mdl_kernels.mdl_splits`).

    With ``max_intervals`` at most that many intervals: the accepted splits are taken best
    first, by the class-coding bits they save on their segment (n · Gain), so that the cuts kept
    are the most informative ones the unbounded recursion would make. Without it, every split
    the criterion accepts (the order does not matter then)."""
    counts = np.ascontiguousarray(sketch.weight, dtype=np.float64)
    splits = mdl_splits(counts, 0 if max_intervals is None else max_intervals)
    return np.sort(_boundaries(sketch)[splits])


def cut_points(
    sketch: FeatureSketch, method: str, bins: int, max_intervals: int | None = None
) -> np.ndarray:
    """The cut points of ``method``; ``max_intervals`` bounds MDL's (the other two make
    ``bins``)."""
    if method == "equal-width":
        return equal_width(sketch, bins)
    if method == "equal-frequency":
        return equal_frequency(sketch, bins)
    if method == "mdl":
        return mdl(sketch, max_intervals)
    raise ValueError(f"unknown discretisation {method!r}; choose one of {METHODS}.")


def interval_counts(sketch: FeatureSketch, cuts: np.ndarray) -> np.ndarray:
    """n_{c,l}: weight of class c in interval l, shape (K, B) with B = len(cuts) + 1."""
    index = np.searchsorted(cuts, sketch.pooled_centres(), side="left")
    counts = np.zeros((sketch.weight.shape[1], cuts.shape[0] + 1))
    np.add.at(counts.T, index, sketch.weight)
    return counts


def interval_counts_of(sketches: list[FeatureSketch], cuts: list[np.ndarray]) -> np.ndarray:
    """:func:`interval_counts` of every column, side by side ((K, Σ_j B_j)), in one compiled
    pass over the sketches' keys."""
    key_offsets = np.zeros(len(sketches) + 1, dtype=np.int64)
    np.cumsum([s.keys.shape[0] for s in sketches], out=key_offsets[1:])
    cut_offsets = np.zeros(len(cuts) + 1, dtype=np.int64)
    np.cumsum([c.shape[0] for c in cuts], out=cut_offsets[1:])
    keys = np.concatenate([s.keys for s in sketches])
    weight = np.concatenate([s.weight for s in sketches])
    pooled = weight.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):  # FeatureSketch.pooled_centres
        centres = np.where(
            pooled > 0, np.concatenate([s.total for s in sketches]).sum(axis=1) / pooled, keys
        )
    all_cuts = np.concatenate(cuts).astype(np.float64, copy=False)
    return _interval_sums(centres, weight, key_offsets, all_cuts, cut_offsets)


def interval_of(x: np.ndarray, cuts: np.ndarray) -> np.ndarray:
    """Interval index of each value (t_{l−1} < x ≤ t_l), NaN where x is missing."""
    index = np.searchsorted(cuts, x, side="left").astype(np.float64)
    index[np.isnan(x)] = np.nan
    return index


def interval_codes_of(block: np.ndarray, cuts: list[np.ndarray]) -> np.ndarray:
    """:func:`interval_of` of each column of an (n, d) block under its own cut points, in one
    compiled pass."""
    block = np.asarray(block, dtype=np.float64)
    if block.ndim != 2 or block.shape[1] != len(cuts):
        raise ValueError(f"a block of {len(cuts)} columns is needed, not of shape {block.shape}.")
    cut_offsets = np.zeros(len(cuts) + 1, dtype=np.int64)
    np.cumsum([c.shape[0] for c in cuts], out=cut_offsets[1:])
    all_cuts = np.concatenate([np.zeros(0), *cuts]).astype(np.float64, copy=False)
    return _positions(block, all_cuts, cut_offsets, False, 0.0)


# ---------------------------------------------------------------------- table columns
class IntervalColumns(SketchColumns):
    """Numeric columns of a table discretised into intervals (equal-width, equal-frequency,
    MDL): cut points derived from the sketch, then counting as for categories."""

    def cuts(self, settings: Settings) -> list[np.ndarray]:
        return self.stats.cached(
            ("cuts", self.family, settings.bins),
            lambda: [cut_points(f, self.family, settings.bins) for f in self.stats.features],
        )

    def frozen_choices(self, settings: Settings) -> dict:
        # MDL places its cut points by the classes of the rows: a held-out model (whose rows'
        # classes must not have shaped it) places its own; the others' depend on values alone
        if self.family == "mdl":
            return {}
        return {("cuts", self.family, settings.bins): self.cuts(settings)}

    def counts(self, settings: Settings) -> CategoricalCounts:
        def build() -> CategoricalCounts:
            cuts = self.cuts(settings)
            stats = CategoricalCounts(self.stats.features[0].n_classes, len(cuts))
            stats.grow(np.array([c.shape[0] + 1 for c in cuts]))
            stats.counts = interval_counts_of(self.stats.features, cuts)
            return stats

        return self.stats.cached(("interval-counts", self.family, settings.bins), build)

    def codes(self, block: np.ndarray, settings: Settings) -> np.ndarray:
        return interval_codes_of(block, self.cuts(settings))

    def log_likelihood(self, block: np.ndarray, settings: Settings) -> np.ndarray:
        codes = self.codes(block, settings)
        return self.counts(settings).log_likelihood(codes, settings.alpha_for(self.names))[0]

    def describe(self, classes: np.ndarray, settings: Settings) -> str:
        counts = self.counts(settings)
        table, _ = counts.log_prob(settings.alpha_for(self.names))
        offsets = counts.offsets
        parts = []
        for j, (name, cuts) in enumerate(zip(self.names, self.cuts(settings), strict=True)):
            edges = [-np.inf, *cuts.tolist(), np.inf]
            labels = [
                f"({format_number(a)}, {format_number(b)}]".replace("(-inf", "(-∞").replace(
                    "inf]", "∞)"
                )
                for a, b in itertools.pairwise(edges)
            ]
            rows = [np.exp(table[offsets[j] + i]).tolist() for i in range(len(labels))]
            shown_cuts = ", ".join(format_number(c) for c in cuts) or "none (one interval)"
            parts.append(
                f"{name}  ({self.family} intervals, {self.resolution(j)}); "
                f"cut points: {shown_cuts}\n" + format_table(labels, classes, rows)
            )
        return "\n\n".join(parts)

    def tables(
        self, classes: np.ndarray, settings: Settings, *, grid: int = 200
    ) -> dict[str, pl.DataFrame]:
        """interval l, lower < x ≤ upper, count n_{c,l}, probability P_λ(x ∈ I_l | c)."""
        counts = self.counts(settings)
        table, _ = counts.log_prob(settings.alpha_for(self.names))
        out = {}
        for j, (name, cuts) in enumerate(zip(self.names, self.cuts(settings), strict=True)):
            size = len(cuts) + 1
            columns = slice(counts.offsets[j], counts.offsets[j] + size)
            out[name] = tidy_frame(
                name,
                classes,
                size,
                shared={
                    "interval": range(size),
                    "lower": [-np.inf, *cuts.tolist()],
                    "upper": [*cuts.tolist(), np.inf],
                },
                per_class={
                    "count": counts.counts[:, columns],
                    "probability": np.exp(table[columns]).T,
                },
            )
        return out


_SUMMARIES = {
    "equal-width": "intervals of equal width, then counting",
    "equal-frequency": "intervals of equal weight, then counting",
    "mdl": "supervised intervals (Fayyad & Irani's MDL), then counting",
}
for _rank, _method in enumerate(METHODS, start=40):
    register(
        Family(
            _method,
            rank=_rank,
            reads=frozenset({"int", "float"}),
            group=IntervalColumns,
            continuous=True,
            summary=_SUMMARIES[_method],
        )
    )
