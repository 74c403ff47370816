"""Continuous features with a Gaussian density (Han, Kamber & Pei, §8.3.2; Mitchell, ch. 6).

    P(x_j | c) = 1 / (√(2π) σ_{c,j}) · exp(−(x_j − μ_{c,j})² / (2σ²_{c,j}))

μ_{c,j} is the (weighted) mean of feature j over the class-c rows where it was observed and
σ²_{c,j} = M2_{c,j} / (W_{c,j} − ddof) its variance: ``ddof=0`` (the default) the
maximum-likelihood variance, as scikit-learn, Weka's NaiveBayes and e1071's ``naiveBayes`` on
weighted data; ``ddof=1`` the sample variance of R (e1071, naivebayes) and Weka's
NaiveBayesSimple. With weights, W is their sum, so ``ddof=1`` treats them as frequency weights
(a row of weight 3 is three rows): M2 / (W − 1). A class with W_{c,j} ≤ ddof (one row) keeps
the divisor W_{c,j}: its variance is 0, which the smoothing below then lifts.

Sufficient statistics, per class and feature: the weight W_{c,j}, the mean μ_{c,j} and
M2_{c,j} = Σ w_i (x_ij − μ_{c,j})², merged across batches by Chan et al.'s update, which stays
accurate where Σx² − (Σx)²/n would cancel:

    W = W_a + W_b,  δ = μ_b − μ_a,  μ = μ_a + δ W_b / W,  M2 = M2_a + M2_b + δ² W_a W_b / W

Alongside, unweighted pooled moments per feature give the variance smoothing ε added to every
σ²_{c,j} and a centring shift for prediction. Two rules for ε:

* ``"max"`` (:class:`~nbayes.GaussianNB`, scikit-learn's): ε = var_smoothing · max_j Var(x_j),
  one ε for a homogeneous array;
* ``"per-column"`` (the table model :class:`~nbayes.NaiveBayes`): ε_j = var_smoothing · Var(x_j),
  each column smoothed on its own scale, so that a column's units (and the other columns')
  never change its variances.

Both scale with the data, so multiplying X (or, per column, one column) by any factor leaves
every prediction unchanged. A variance that is still zero (a constant class with
var_smoothing = 0) is floored at machine epsilon times the feature's pooled variance, a near
point mass that keeps results finite; only a feature constant over all rows, whose term is the
same for every class, falls back to machine epsilon itself.

Prediction expands the exponent, so that a row's log-likelihood under every class is, feature
by feature, two multiply-adds per class on [x'², x'] and per-class weights computed once
(a compiled kernel; only the constants of observed features are summed when values are missing):

    Σ_j log P(x_j|c) = Σ_j [−½ log(2πσ²) − ½ μ'²/σ²]  +  Σ_j x'_j μ'/σ²  −  ½ Σ_j x'_j² / σ²

with x' = x − m and μ' = μ − m centred on the pooled mean m of each feature, so that data far
from zero (|x| ≫ σ) do not lose digits to cancellation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _threads
from .._jit import kernel
from .._validation import MAX_ABS_VALUE, check_finite_sums
from ._group import ColumnGroup, Memo, Settings, format_table
from ._registry import Family, register
from ._tidy import tidy_frame

if TYPE_CHECKING:
    import polars as pl


#: A column-major block (Polars' layout) up to this size is copied to row-major before its
#: moments are summed: the kernel reads a row at a time, its sums per class vectorised over the
#: features, and the copy costs less than the strided reads it saves (about half the kernel's
#: time on a 146,000 × 20 batch of a stream). The sums are the same either way: the kernel
#: adds the values in the same order whatever the layout.
ROW_MAJOR_COPY_BYTES = 64 * 2**20


@kernel
def _batch_moments(X, cls, weight, n_classes):  # pragma: no cover - compiled
    """Two passes over a batch: per-class W, mean, M2 and per-feature unweighted n, mean, M2.

    A missing value (NaN) adds zeros instead of being skipped by a branch, so that the compiler
    vectorises the loop over features (adding 0.0 leaves every sum as it was).
    """
    n, d = X.shape
    W = np.zeros((n_classes, d))
    S = np.zeros((n_classes, d))
    U = np.zeros(d)
    US = np.zeros(d)
    for i in range(n):
        c = cls[i]
        w = weight[i]
        for j in range(d):
            x = X[i, j]
            observed = x == x
            value = x if observed else 0.0
            w_observed = w if observed else 0.0
            W[c, j] += w_observed
            S[c, j] += w_observed * value
            U[j] += 1.0 if observed else 0.0
            US[j] += value
    mean = np.zeros((n_classes, d))
    for c in range(n_classes):
        for j in range(d):
            if W[c, j] > 0:
                mean[c, j] = S[c, j] / W[c, j]
    umean = np.zeros(d)
    for j in range(d):
        if U[j] > 0:
            umean[j] = US[j] / U[j]
    M2 = np.zeros((n_classes, d))
    UM2 = np.zeros(d)
    for i in range(n):
        c = cls[i]
        w = weight[i]
        for j in range(d):
            x = X[i, j]
            observed = x == x
            e = x - mean[c, j] if observed else 0.0
            f = x - umean[j] if observed else 0.0
            M2[c, j] += w * e * e
            UM2[j] += f * f
    return W, mean, M2, U, umean, UM2


#: The fewest rows a thread takes at a time when a Gaussian log-likelihood is shared.
ROWS_PER_BLOCK = 256

#: Features summed into a partial sum before it is added to a row's total: summing d terms one
#: after another accumulates round-off ∝ d, in partial sums ∝ FEATURES_PER_SUM + d / it.
FEATURES_PER_SUM = 128


@kernel
def _expanded_rows(
    X, shift, quadratic, linear, constant, total, out, start, stop
):  # pragma: no cover - compiled
    """out[i, c] = Σ_j (q_jc x'_ij² + l_jc x'_ij + k_jc) over the observed j of row i, with
    x' = x − shift, for start ≤ i < stop; returns how many rows came out NaN (the expansion
    overflowed: inf − inf).

    A row with no missing value starts from Σ_j k_jc (``total``); a row with some adds the
    constants k_jc of its observed features only. Four rows are scored at once, so that each
    feature's (q, l) row of K values is read once for the four; the terms of every
    ``FEATURES_PER_SUM`` features are summed apart, then added to the row's total.
    """
    d = X.shape[1]
    K = quadratic.shape[1]
    acc = np.empty((4, K))
    part = np.zeros((4, K))
    centred = np.zeros(4)
    squared = np.zeros(4)
    lacking = np.zeros(4, dtype=np.bool_)
    broken = 0
    for first in range(start, stop, 4):
        rows = min(4, stop - first)
        for r in range(4):
            lacking[r] = False
            if r < rows:
                for j in range(d):
                    if X[first + r, j] != X[first + r, j]:
                        lacking[r] = True
                        break
            for c in range(K):
                acc[r, c] = 0.0 if lacking[r] else total[c]
        for j in range(d):
            for r in range(4):
                x = X[first + r, j] if r < rows else shift[j]
                if x != x:  # missing: no term
                    centred[r] = 0.0
                else:
                    centred[r] = x - shift[j]
                    if lacking[r]:
                        for c in range(K):
                            part[r, c] += constant[j, c]
                squared[r] = centred[r] * centred[r]
            a0, a1, a2, a3 = centred[0], centred[1], centred[2], centred[3]
            b0, b1, b2, b3 = squared[0], squared[1], squared[2], squared[3]
            for c in range(K):
                q = quadratic[j, c]
                lin = linear[j, c]
                part[0, c] += q * b0 + lin * a0
                part[1, c] += q * b1 + lin * a1
                part[2, c] += q * b2 + lin * a2
                part[3, c] += q * b3 + lin * a3
            if (j + 1) % FEATURES_PER_SUM == 0 or j == d - 1:
                for r in range(4):
                    for c in range(K):
                        acc[r, c] += part[r, c]
                        part[r, c] = 0.0
        for r in range(rows):
            nan = False
            for c in range(K):
                value = acc[r, c]
                nan = nan or value != value
                out[first + r, c] = value
            broken += nan
    return broken


def chan_merge(
    weight_a: np.ndarray,
    mean_a: np.ndarray,
    m2_a: np.ndarray,
    weight_b: np.ndarray,
    mean_b: np.ndarray,
    m2_b: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Combine (W, μ, M2) of two disjoint sets of rows (Chan, Golub & LeVeque 1979)."""
    weight = weight_a + weight_b
    with np.errstate(invalid="ignore", divide="ignore"):
        share_b = np.where(weight > 0, weight_b / weight, 0.0)
        delta = mean_b - mean_a
        mean = mean_a + delta * share_b
        m2 = m2_a + m2_b + delta * delta * weight_a * share_b
    return weight, mean, m2


def chan_remove(
    weight_t: np.ndarray,
    mean_t: np.ndarray,
    m2_t: np.ndarray,
    weight_b: np.ndarray,
    mean_b: np.ndarray,
    m2_b: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(W, μ, M2) of the rows of a set (W_t, μ_t, M2_t) that remain when a subset (W_b, μ_b,
    M2_b) is taken out: :func:`chan_merge` solved for its other part, W_a = W_t − W_b,
    μ_a = μ_t + (μ_t − μ_b) W_b / W_a, M2_a = M2_t − M2_b − (μ_b − μ_a)² W_a W_b / W_t.
    What is left of a weight below round-off of the total is nothing."""
    weight = weight_t - weight_b
    empty = weight <= 1e-12 * np.maximum(weight_t, 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = mean_t + (mean_t - mean_b) * np.where(empty, 0.0, weight_b / weight)
        delta = mean_b - mean
        m2 = m2_t - m2_b - delta * delta * np.where(empty, 0.0, weight * weight_b / weight_t)
    weight[empty], mean[empty], m2[empty] = 0.0, 0.0, 0.0
    return weight, mean, np.maximum(m2, 0.0)


class GaussianMoments(Memo):
    """Mergeable per-class (W, μ, M2) and per-feature unweighted pooled (n, m, M2u)."""

    def __init__(self, n_classes: int, n_features: int) -> None:
        self.weight = np.zeros((n_classes, n_features))
        self.mean = np.zeros((n_classes, n_features))
        self.m2 = np.zeros((n_classes, n_features))
        self.pooled_count = np.zeros(n_features)
        self.pooled_mean = np.zeros(n_features)
        self.pooled_m2 = np.zeros(n_features)
        self._cache: dict = {}

    def accumulate(self, X: np.ndarray, cls: np.ndarray, weight: np.ndarray) -> None:
        """Add a batch of float rows (NaN = missing)."""
        if X.shape[0] == 0:
            return
        if X.nbytes <= ROW_MAJOR_COPY_BYTES:
            X = np.ascontiguousarray(X)
        W, mean, M2, U, umean, UM2 = _batch_moments(X, cls, weight, self.weight.shape[0])
        merged = chan_merge(self.weight, self.mean, self.m2, W, mean, M2)
        pooled = chan_merge(self.pooled_count, self.pooled_mean, self.pooled_m2, U, umean, UM2)
        for part in (*merged, *pooled):  # checked before anything is changed
            check_finite_sums(part, "the Gaussian moments", estimator="gaussian")
        self.weight, self.mean, self.m2 = merged
        self.pooled_count, self.pooled_mean, self.pooled_m2 = pooled
        self._cache.clear()

    def remove(self, X: np.ndarray, cls: np.ndarray, weight: np.ndarray) -> None:
        """Take counted rows back out of the per-class moments (:func:`chan_remove`). The
        pooled spread of every row, which only scales the variance floor, is kept."""
        if X.shape[0] == 0:
            return
        W, mean, M2, *_ = _batch_moments(
            np.ascontiguousarray(X), cls, weight, self.weight.shape[0]
        )
        self.weight, self.mean, self.m2 = chan_remove(self.weight, self.mean, self.m2, W, mean, M2)
        self._cache.clear()

    def merge(self, other: GaussianMoments, positions: np.ndarray) -> None:
        merged = chan_merge(
            self.weight[positions],
            self.mean[positions],
            self.m2[positions],
            other.weight,
            other.mean,
            other.m2,
        )
        self.weight[positions], self.mean[positions], self.m2[positions] = merged
        self.pooled_count, self.pooled_mean, self.pooled_m2 = chan_merge(
            self.pooled_count,
            self.pooled_mean,
            self.pooled_m2,
            other.pooled_count,
            other.pooled_mean,
            other.pooled_m2,
        )
        self._cache.clear()

    def reindex_classes(self, positions: np.ndarray, n_classes: int) -> None:
        for name in ("weight", "mean", "m2"):
            old = getattr(self, name)
            new = np.zeros((n_classes, old.shape[1]))
            new[positions] = old
            setattr(self, name, new)
        self._cache.clear()

    def state(self) -> dict[str, np.ndarray]:
        return {
            "weight": self.weight,
            "mean": self.mean,
            "m2": self.m2,
            "pooled_count": self.pooled_count,
            "pooled_mean": self.pooled_mean,
            "pooled_m2": self.pooled_m2,
        }

    def check(self, n_classes: int, n_features: int) -> None:
        """Raise ValueError unless the arrays fit a model of this size (used by model files):
        shapes, signs, and means within ±MAX_ABS_VALUE (what fitting accepts), so that no
        derived parameter overflows."""
        for name in ("weight", "mean", "m2"):
            if getattr(self, name).shape != (n_classes, n_features):
                raise ValueError(f"{name} must have shape ({n_classes}, {n_features}).")
        for name in ("pooled_count", "pooled_mean", "pooled_m2"):
            if getattr(self, name).shape != (n_features,):
                raise ValueError(f"{name} must have shape ({n_features},).")
        for name in ("weight", "m2", "pooled_count", "pooled_m2"):
            if np.any(getattr(self, name) < 0):
                raise ValueError(f"{name} must be >= 0.")
        for name in ("mean", "pooled_mean"):
            if np.any(np.abs(getattr(self, name)) > MAX_ABS_VALUE):
                raise ValueError(f"{name} holds values beyond ±{MAX_ABS_VALUE:g}.")

    @classmethod
    def from_state(cls, state: dict[str, np.ndarray]) -> GaussianMoments:
        stats = cls(0, 0)
        for name in ("weight", "mean", "m2", "pooled_count", "pooled_mean", "pooled_m2"):
            setattr(stats, name, np.asarray(state[name], dtype=np.float64))
        return stats

    # ------------------------------------------------------------------ parameters
    def pooled_variance(self) -> np.ndarray:
        """Unweighted variance of each feature over all observed values."""

        def compute() -> np.ndarray:
            with np.errstate(invalid="ignore", divide="ignore"):
                return np.where(self.pooled_count > 0, self.pooled_m2 / self.pooled_count, 0.0)

        return self.cached(("pooled_variance",), compute)

    def epsilon(self, var_smoothing: float, rule: str = "max") -> float | np.ndarray:
        """The variance smoothing: ε = var_smoothing · max_j Var(x_j) (``rule="max"``,
        scikit-learn's; a number) or ε_j = var_smoothing · Var(x_j) (``"per-column"``; (d,))."""
        variance = self.pooled_variance()
        if rule == "per-column":
            return self.cached(("epsilon", float(var_smoothing)), lambda: var_smoothing * variance)
        if rule != "max":
            raise ValueError(f"unknown variance smoothing rule {rule!r}.")
        return float(var_smoothing * variance.max()) if variance.size else 0.0

    def variance(self, ddof: int = 0) -> np.ndarray:
        """σ²_{c,j} = M2 / (W − ddof), or M2 / W where W ≤ ddof; 0 where W = 0. (K, d)."""
        divisor = np.where(self.weight > ddof, self.weight - ddof, self.weight)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.weight > 0, self.m2 / divisor, 0.0)

    def variance_floor(self) -> np.ndarray:
        """The smallest variance used, per feature: machine epsilon times the feature's pooled
        variance (machine epsilon for a feature constant over all rows). Relative, so that it
        never depends on the data's units."""
        tiny = np.finfo(np.float64).eps
        pooled = self.pooled_variance()
        return self.cached(("floor",), lambda: np.where(pooled > 0, tiny * pooled, tiny))

    def unobserved(self) -> np.ndarray:
        """(d,) bool: the features with no value in any class."""
        return self.weight.sum(axis=0) == 0

    def theta_var(
        self, var_smoothing: float, *, ddof: int = 0, rule: str = "max"
    ) -> tuple[np.ndarray, np.ndarray]:
        """(μ, σ² + ε), each (K, d). A class that never observed a feature uses the pooled
        mean and variance of that feature (a non-informative stand-in, documented)."""
        key = ("theta_var", float(var_smoothing), int(ddof), rule)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        var = self.variance(ddof)
        theta = self.mean.copy()
        empty = self.weight == 0
        if empty.any():
            theta = np.where(empty, self.pooled_mean, theta)
            var = np.where(empty, self.pooled_variance(), var)
        var = var + self.epsilon(var_smoothing, rule)
        result = (theta, var)
        self._cache[key] = result
        return result

    def _coefficients(
        self, var_smoothing: float, ddof: int = 0, rule: str = "max"
    ) -> tuple[np.ndarray, ...]:
        """(shift m, quadratic, linear, constant, constant total): the per-class terms of the
        expanded exponent, each (d, K) C-ordered (the last (K,)).

        quadratic −½/σ², linear μ'/σ² and constant −½ log(2πσ²) − ½ μ'²/σ² of feature j and
        class c sit at [j, c] (the layout the scoring kernel reads feature by feature), and the
        constant total Σ_j is what a row with no missing value starts from.
        """
        key = ("coefficients", float(var_smoothing), int(ddof), rule)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        theta, var = self.theta_var(var_smoothing, ddof=ddof, rule=rule)
        # a zero variance (a constant class and var_smoothing = 0) would divide by zero: floor it
        # (see variance_floor), a near point mass, so that results stay finite and never NaN
        var = np.maximum(var, self.variance_floor())
        shift = np.ascontiguousarray(self.pooled_mean, dtype=np.float64)
        centred = theta - shift
        quadratic = -0.5 / var  # (K, d)
        linear = centred / var
        constant = -0.5 * np.log(2.0 * np.pi * var) - 0.5 * centred * centred / var
        # a feature no class observed (partial_fit of batches without its values) adds nothing
        unobserved = self.unobserved()
        quadratic[:, unobserved] = linear[:, unobserved] = constant[:, unobserved] = 0.0
        result = (
            shift,
            np.ascontiguousarray(quadratic.T),
            np.ascontiguousarray(linear.T),
            np.ascontiguousarray(constant.T),
            constant.sum(axis=1),
        )
        self._cache[key] = result
        return result

    def log_likelihood(
        self, X: np.ndarray, var_smoothing: float, *, ddof: int = 0, rule: str = "max"
    ) -> np.ndarray:
        """Σ_j log N(x_j; μ_{c,j}, σ²_{c,j}) over observed j, shape (rows, K).

        The expanded exponent (see the module's docstring) summed feature by feature for each
        row by :func:`_expanded_rows`, on as many threads as the work pays for
        (:mod:`nbayes._threads`); each row's sum runs over j in increasing order, so the result
        does not depend on the threads or on how the rows are blocked.
        """
        shift, quadratic, linear, constant, total = self._coefficients(var_smoothing, ddof, rule)
        n, d = X.shape
        K = quadratic.shape[1]
        out = np.empty((n, K))
        threads = _threads.plan(n * d * K)
        parts = _threads.blocks(n, threads, minimum=ROWS_PER_BLOCK)

        def body(start: int, stop: int) -> int:
            return _expanded_rows(X, shift, quadratic, linear, constant, total, out, start, stop)

        if sum(_threads.run(body, parts, threads)):
            # the expansion overflowed (inf − inf) on some rows: those rows term by term
            broken = np.isnan(out).any(axis=1)
            out[broken] = self._direct(X[broken], var_smoothing, ddof, rule)
        return out

    def _direct(
        self, X: np.ndarray, var_smoothing: float, ddof: int = 0, rule: str = "max"
    ) -> np.ndarray:
        """Σ_j log N(x_j; μ, σ²) of a few rows without expanding the square: each term is
        −½ log(2πσ²) − ½ ((x − μ)/σ)², which may be −inf but never NaN."""
        theta, var = self.theta_var(var_smoothing, ddof=ddof, rule=rule)
        var = np.maximum(var, self.variance_floor())
        out = np.zeros((X.shape[0], theta.shape[0]))
        unobserved = self.unobserved()
        with np.errstate(over="ignore", invalid="ignore"):
            for i, row in enumerate(X):
                z = (row[None, :] - theta) / np.sqrt(var)
                terms = -0.5 * np.log(2.0 * np.pi * var) - 0.5 * z * z
                skipped = np.isnan(row) | unobserved
                out[i] = np.where(skipped[None, :], 0.0, terms).sum(axis=1)
        return out


# ---------------------------------------------------------------------- table columns
class GaussianColumns(ColumnGroup):
    """Numeric columns of a table with a Gaussian density per class, Chan-merged moments."""

    family = "gaussian"

    def __init__(self, names: list[str], n_classes: int, **options: Any) -> None:
        super().__init__(names, n_classes, **options)
        self.stats = GaussianMoments(n_classes, len(names))

    def remove(self, block: np.ndarray, cls: np.ndarray, weight: np.ndarray) -> None:
        self.stats.remove(block, cls, weight)

    def log_likelihood(self, block: np.ndarray, settings: Settings) -> np.ndarray:
        return self.stats.log_likelihood(
            block, settings.var_smoothing, ddof=settings.ddof, rule="per-column"
        )

    def describe(self, classes: np.ndarray, settings: Settings) -> str:
        theta, var = self.stats.theta_var(
            settings.var_smoothing, ddof=settings.ddof, rule="per-column"
        )
        parts = []
        for j, name in enumerate(self.names):
            parts.append(
                f"{name}  (gaussian)\n"
                + format_table(
                    ["mean", "sd"], classes, [theta[:, j].tolist(), np.sqrt(var[:, j]).tolist()]
                )
            )
        return "\n\n".join(parts)

    def tables(
        self, classes: np.ndarray, settings: Settings, *, grid: int = 200
    ) -> dict[str, pl.DataFrame]:
        """count N_c (weight of observed values), mean μ_c, sd √(σ²_c + ε)."""
        theta, var = self.stats.theta_var(
            settings.var_smoothing, ddof=settings.ddof, rule="per-column"
        )
        return {
            name: tidy_frame(
                name,
                classes,
                1,
                per_class={
                    "count": self.stats.weight[:, j, None],
                    "mean": theta[:, j, None],
                    "sd": np.sqrt(var[:, j, None]),
                },
            )
            for j, name in enumerate(self.names)
        }


register(
    Family(
        "gaussian",
        rank=20,
        reads=frozenset({"int", "float"}),
        group=GaussianColumns,
        continuous=True,
        density=True,
        summary="a normal density per class (mean and variance)",
    )
)
