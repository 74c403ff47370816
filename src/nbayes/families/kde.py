"""Continuous features by kernel density estimation (Weka's ``NaiveBayes -K``), on the sketch.

The class-conditional density of feature j in class c is a weighted sum of Gaussian kernels
centred on the sketch's keys (the observed values, or bin means once the sketch has pooled):

    P(x_j | c) = Σ_b W_{b,c} · N(x_j; m_{b,c}, h_c²) / Σ_b W_{b,c}

The bandwidth follows Silverman's rule of thumb (``"silverman"``, the default)

    h_c = 0.9 · min(σ_c, IQR_c / 1.34) · W_c^(−1/5)

or Scott's (``"scott"``, h_c = 1.06 σ_c W_c^(−1/5)), with σ_c (the weighted standard deviation
with divisor W_c) and the interquartile range (quartiles as the smallest values whose cumulative
weight reaches 1/4 and 3/4) of the class's values taken from the sketch (exact while it holds the
values themselves; W_c is the class's total weight). A class whose
values are all equal gets the feature's pooled bandwidth, and a class that never observed the
feature uses the density pooled over all classes. A number given as ``bandwidth`` is used as h.

The sum is taken relative to the kernel nearest to x (in log space, so it stays finite and
accurate far from every kernel), and kernels whose term is below e^{-32} times the nearest one's
are skipped: only those within √(z₀² + 64) bandwidths of x count, z₀ being the nearest kernel's
distance in bandwidths.
"""

from __future__ import annotations

import math

import numba
import numpy as np
import polars as pl

from .._kernels import _JIT
from ._group import Settings, format_table
from ._registry import Family, register
from ._tidy import column_log_likelihood, tidy_frame
from .sketch import FeatureSketch, SketchColumns

BANDWIDTH_RULES = ("silverman", "scott")
_DEPTH = 32.0  # kernels below e^-32 times the nearest kernel's term are skipped


@numba.njit(parallel=True, **_JIT)
def _log_density(x, centres, weights, offsets, bandwidth, log_norm, out):  # pragma: no cover
    """out[i, c] += log Σ_b w_b N(x_i; centre_b, h_c²) / W_c over class c's kernels."""
    n = x.shape[0]
    K = offsets.shape[0] - 1
    for i in numba.prange(n):
        v = x[i]
        if v != v:
            continue
        for c in range(K):
            lo, hi = offsets[c], offsets[c + 1]
            if hi <= lo:  # no kernels at all: density 0
                out[i, c] += -np.inf
                continue
            h = bandwidth[c]
            # distance (in bandwidths) to the nearest kernel: every term is taken relative to it
            p = lo + np.searchsorted(centres[lo:hi], v)
            gap = np.inf
            if p < hi:
                gap = centres[p] - v
            if p > lo:
                gap = min(gap, v - centres[p - 1])
            z0 = gap / h
            if not z0 * z0 < np.inf:  # x infinite or beyond the float range of the kernels
                out[i, c] += -np.inf
                continue
            reach = math.sqrt(z0 * z0 + 2.0 * _DEPTH) * h
            start = lo + np.searchsorted(centres[lo:hi], v - reach)
            stop = lo + np.searchsorted(centres[lo:hi], v + reach, side="right")
            total = 0.0
            for b in range(start, stop):
                z = (v - centres[b]) / h
                total += weights[b] * math.exp(-0.5 * (z * z - z0 * z0))
            out[i, c] += math.log(total) - 0.5 * z0 * z0 + log_norm[c]


def _weighted_quantile(values: np.ndarray, weights: np.ndarray, q: float) -> float:
    order = np.argsort(values)
    cumulative = np.cumsum(weights[order])
    return float(values[order][np.searchsorted(cumulative, q * cumulative[-1])])


def _rule(values: np.ndarray, weights: np.ndarray, rule: str) -> float:
    total = weights.sum()
    mean = np.dot(weights, values) / total
    sd = math.sqrt(max(np.dot(weights, (values - mean) ** 2) / total, 0.0))
    if rule == "scott":
        spread = sd
        factor = 1.06
    else:
        iqr = _weighted_quantile(values, weights, 0.75) - _weighted_quantile(values, weights, 0.25)
        spread = min(sd, iqr / 1.34) if iqr > 0 else sd
        factor = 0.9
    return factor * spread * total ** (-0.2)


class KernelDensity:
    """Per-class kernel centres, weights and bandwidths of one feature, derived from its sketch."""

    def __init__(self, sketch: FeatureSketch, bandwidth: str | float) -> None:
        centres = sketch.centres()
        weight = sketch.weight
        pooled_weight = weight.sum(axis=1)
        pooled_centres = sketch.pooled_centres()
        keep = pooled_weight > 0
        floor = self._floor(sketch)
        if isinstance(bandwidth, str):
            pooled_h = (
                _rule(pooled_centres[keep], pooled_weight[keep], bandwidth) if keep.any() else floor
            )
            pooled_h = max(pooled_h, floor)
        else:
            pooled_h = float(bandwidth)
        parts_c, parts_w, offsets, widths, norms = [], [], [0], [], []
        for c in range(weight.shape[1]):
            present = weight[:, c] > 0
            if present.any():
                c_centres, c_weight = centres[present, c], weight[present, c]
            else:  # the class never observed this feature: use the pooled density
                c_centres, c_weight = pooled_centres[keep], pooled_weight[keep]
            if isinstance(bandwidth, str):
                h = _rule(c_centres, c_weight, bandwidth) if c_weight.size else 0.0
                h = pooled_h if h <= floor else h
            else:
                h = float(bandwidth)
            order = np.argsort(c_centres, kind="stable")
            parts_c.append(c_centres[order])
            parts_w.append(c_weight[order])
            offsets.append(offsets[-1] + c_centres.shape[0])
            widths.append(h)
            norms.append(
                -math.log(c_weight.sum() * h * math.sqrt(2 * math.pi)) if c_weight.size else -np.inf
            )
        self.centres = np.concatenate(parts_c) if parts_c else np.zeros(0)
        self.weights = np.concatenate(parts_w) if parts_w else np.zeros(0)
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.bandwidth = np.asarray(widths)
        self.log_norm = np.asarray(norms)

    @staticmethod
    def _floor(sketch: FeatureSketch) -> float:
        """Smallest bandwidth allowed: the grid width, or a hair of the feature's scale."""
        scale = (
            max(abs(sketch.minimum), abs(sketch.maximum), 1.0)
            if np.isfinite(sketch.minimum)
            else 1.0
        )
        grid = math.ldexp(1.0, int(sketch.level)) if sketch.level > -1075 else 0.0
        return max(grid, 1e-9 * scale)

    def add_log_density(self, x: np.ndarray, out: np.ndarray) -> None:
        """out[i, c] += log P(x_i | c); NaN (missing) adds nothing."""
        _log_density(
            np.ascontiguousarray(x, dtype=np.float64),
            self.centres,
            self.weights,
            self.offsets,
            self.bandwidth,
            self.log_norm,
            out,
        )


# ---------------------------------------------------------------------- table columns
class KernelColumns(SketchColumns):
    """Numeric columns of a table with a kernel density per class (Weka's -K)."""

    family = "kde"

    def densities(self, settings: Settings) -> list[KernelDensity]:
        return self.stats.cached(
            ("kde", settings.bandwidth),
            lambda: [KernelDensity(f, settings.bandwidth) for f in self.stats.features],
        )

    def log_likelihood(self, block: np.ndarray, settings: Settings) -> np.ndarray:
        out = np.zeros((block.shape[0], self.stats.features[0].n_classes))
        for j, density in enumerate(self.densities(settings)):
            density.add_log_density(block[:, j], out)
        return out

    def describe(self, classes: np.ndarray, settings: Settings) -> str:
        parts = []
        for j, (name, density) in enumerate(zip(self.names, self.densities(settings), strict=True)):
            kernels = np.diff(density.offsets).tolist()  # counts: printed as integers
            parts.append(
                f"{name}  (kernel density, {settings.bandwidth} bandwidth, {self.resolution(j)})\n"
                + format_table(
                    ["kernels", "bandwidth"], classes, [kernels, density.bandwidth.tolist()]
                )
            )
        return "\n\n".join(parts)

    def tables(
        self, classes: np.ndarray, settings: Settings, *, grid: int = 200
    ) -> dict[str, pl.DataFrame]:
        """x on a grid over the values ± 3 bandwidths, density p(x | c), bandwidth h_c."""
        out = {}
        for j, (name, density) in enumerate(zip(self.names, self.densities(settings), strict=True)):
            sketch = self.stats.features[j]
            finite = np.isfinite(sketch.minimum)
            low, high = (sketch.minimum, sketch.maximum) if finite else (0.0, 1.0)
            margin = 3 * float(np.max(density.bandwidth, initial=0.0))
            xs = np.linspace(low - margin, high + margin, grid)
            with np.errstate(under="ignore"):
                values = np.exp(column_log_likelihood(self, j, xs, settings)).T
            out[name] = tidy_frame(
                name,
                classes,
                grid,
                shared={"x": xs.tolist()},
                per_class={
                    "density": values,
                    "bandwidth": np.repeat(density.bandwidth[:, None], grid, axis=1),
                },
            )
        return out


register(
    Family(
        "kde",
        rank=30,
        reads=frozenset({"int", "float"}),
        group=KernelColumns,
        continuous=True,
        density=True,
        summary="a kernel density per class",
    )
)
