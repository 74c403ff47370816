"""Per-class feature sums: the sufficient statistic of the multinomial, complement, Bernoulli
and Poisson models.

    n_{c,t} = Σ_i w_i x_it   (over the rows of class c)

For word counts x_it this is N(x_t, y = c), the count of word t in class c; for 0/1 features it
is the (weighted) number of class-c documents containing t; for counts it is the class total of
a Poisson feature.
The batch sum is one sparse product (a weighted one-hot class matrix times X) for dense X, or one
pass over the stored entries for CSR X; sums of disjoint batches add.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from .. import _kernels
from .._validation import MAX_TOTAL_WEIGHT, check_finite_sums
from ._group import Memo


def class_matrix(cls: np.ndarray, weight: np.ndarray, n_classes: int) -> sp.csr_array:
    """The (K, n) matrix with w_i at (y_i, i): its product with X sums rows by class."""
    n = cls.shape[0]
    return sp.csr_array((weight, (cls, np.arange(n))), shape=(n_classes, n))


class FeatureSums(Memo):
    """Mergeable n_{c,t} (K, V) and, optionally, the weight of rows observing each feature."""

    def __init__(self, n_classes: int, n_features: int, *, track_observed: bool = False) -> None:
        self.counts = np.zeros((n_classes, n_features))
        self.observed = np.zeros((n_classes, n_features)) if track_observed else None
        self._cache: dict = {}
        self._ceiling: float | None = None  # an upper bound of the largest count (None: unknown)

    def accumulate(self, X: np.ndarray | sp.csr_array, cls: np.ndarray, weight: np.ndarray) -> None:
        """Add a batch; dense X may hold NaN (missing) only when observed weights are tracked."""
        if X.shape[0] == 0:
            return
        self._check_growth(X, weight)
        if is_sparse(X):
            _kernels.count_csr(
                X.indptr, X.indices, np.asarray(X.data, dtype=np.float64), cls, weight, self.counts
            )
            if self.observed is not None:
                self.observed += np.bincount(cls, weights=weight, minlength=self.counts.shape[0])[
                    :, None
                ]
        else:
            Y = class_matrix(cls, weight, self.counts.shape[0])
            if self.observed is not None:
                present = ~np.isnan(X)
                self.counts += Y @ np.where(present, X, 0.0)
                self.observed += Y @ present.astype(np.float64)
            else:
                self.counts += Y @ X
        self._cache.clear()

    def _check_growth(self, X: np.ndarray | sp.csr_array, weight: np.ndarray) -> None:
        """Refuse, before anything is added, a batch whose weighted sums Σ w_i x_it would
        overflow: first a cheap bound (rows × largest weight × largest value), and only when
        that is not small enough, the exact per-column sums against the largest counts."""
        values = X.data if is_sparse(X) else X
        if not values.size:
            return
        top = float(np.max(np.abs(values), initial=0.0, where=~np.isnan(values)))
        bound = X.shape[0] * float(np.max(weight)) * top  # ≥ every Σ_i w_i x_it of the batch
        ceiling = getattr(self, "_ceiling", None)
        if ceiling is None:
            ceiling = float(np.max(self.counts, initial=0.0))
        if bound + ceiling < MAX_TOTAL_WEIGHT:
            self._ceiling = ceiling + bound  # still ≥ the largest count after this batch
            return
        self._ceiling = None
        if is_sparse(X):
            rows = sp.csr_array((np.abs(X.data), X.indices, X.indptr), shape=X.shape)
            column_sums = rows.T @ weight
        else:
            with np.errstate(over="ignore", invalid="ignore"):
                column_sums = weight @ np.where(np.isnan(X), 0.0, np.abs(X))
        with np.errstate(over="ignore", invalid="ignore"):
            grown = np.max(self.counts, axis=0, initial=0.0) + column_sums
        check_finite_sums(grown, "the feature counts", estimator="counting")

    def merge(self, other: FeatureSums, positions: np.ndarray) -> None:
        with np.errstate(over="ignore"):
            check_finite_sums(
                self.counts[positions] + other.counts, "the merged counts", estimator="merge"
            )
        self.counts[positions] += other.counts
        self._ceiling = None
        if self.observed is not None and other.observed is not None:
            self.observed[positions] += other.observed
        self._cache.clear()

    def reindex_classes(self, positions: np.ndarray, n_classes: int) -> None:
        counts = np.zeros((n_classes, self.counts.shape[1]))
        counts[positions] = self.counts
        self.counts = counts
        if self.observed is not None:
            observed = np.zeros((n_classes, self.observed.shape[1]))
            observed[positions] = self.observed
            self.observed = observed
        self._cache.clear()

    def state(self) -> dict[str, np.ndarray]:
        state = {"counts": self.counts}
        if self.observed is not None:
            state["observed"] = self.observed
        return state

    def check(self, n_classes: int, n_features: int) -> None:
        """Raise ValueError unless the arrays fit a model of this size (used by model files):
        shapes, signs, and sums over classes and over features that stay finite."""
        for name in ("counts", "observed"):
            array = getattr(self, name)
            if array is None:
                continue
            if array.shape != (n_classes, n_features):
                raise ValueError(f"{name} must have shape ({n_classes}, {n_features}).")
            if np.any(array < 0):
                raise ValueError(f"{name} must be >= 0.")
            with np.errstate(over="ignore"):
                total = float(array.sum())
            if not total <= MAX_TOTAL_WEIGHT:
                raise ValueError(f"{name} sum to {total:g}, beyond {MAX_TOTAL_WEIGHT:g}.")

    @classmethod
    def from_state(cls, state: dict[str, np.ndarray]) -> FeatureSums:
        for name in ("counts", "observed"):
            if name in state and state[name].ndim != 2:
                raise ValueError(f"{name} must be a 2-D array.")
        stats = cls(0, 0, track_observed="observed" in state)
        stats.counts = np.asarray(state["counts"], dtype=np.float64)
        if "observed" in state:
            stats.observed = np.asarray(state["observed"], dtype=np.float64)
        return stats


class CSRRows(NamedTuple):
    """A block of CSR rows whose arrays are views of a larger matrix's (scipy would copy them)."""

    data: np.ndarray
    indices: np.ndarray
    indptr: np.ndarray
    shape: tuple[int, int]


def is_sparse(X: object) -> bool:
    return isinstance(X, CSRRows) or sp.issparse(X)


def take_rows(X: np.ndarray | sp.csr_array, start: int, stop: int) -> np.ndarray | CSRRows:
    """Rows start..stop of X without copying (for CSR, views of its value and index arrays)."""
    if not is_sparse(X):
        return X[start:stop]
    first, last = X.indptr[start], X.indptr[stop]
    return CSRRows(
        X.data[first:last],
        X.indices[first:last],
        X.indptr[start : stop + 1] - first,
        (stop - start, X.shape[1]),
    )


def matmul(X: np.ndarray | sp.csr_array | CSRRows, table: np.ndarray) -> np.ndarray:
    """X @ table for a (V, K) table: a row-parallel kernel for CSR, BLAS for dense."""
    if is_sparse(X):
        out = np.zeros((X.shape[0], table.shape[1]))
        data = X.data if X.data.dtype == np.float64 else X.data.astype(np.float64)
        _kernels.csr_times_table(X.indptr, X.indices, data, table, out)
        return out
    return X @ table


def positive_part(X: np.ndarray | sp.csr_array | CSRRows) -> np.ndarray | CSRRows:
    """The indicator x > 0, as float, same layout as X."""
    if is_sparse(X):
        return CSRRows((X.data > 0).astype(np.float64), X.indices, X.indptr, X.shape)
    return (X > 0).astype(np.float64)


class LogTable:
    """A (V, K) table of log-probabilities prepared for Σ_t x_t · table[t, c].

    An entry of −inf is a probability exactly 0 (λ = 0). There x = 0 contributes nothing (the
    factor P^0 = 1) and x > 0 makes the whole product 0 (−inf), instead of the NaN that
    0 · −inf gives in floating point. The −inf entries are found once, when the table is built.
    """

    def __init__(self, table: np.ndarray) -> None:
        impossible = np.isneginf(table)
        certain = np.isposinf(table)  # complement weights −log θ̃ with θ̃ = 0 (λ = 0)
        self.has_zero = bool(impossible.any())
        self.has_inf = bool(certain.any())
        self.values = np.ascontiguousarray(
            np.where(impossible | certain, 0.0, table) if self.has_zero or self.has_inf else table
        )
        self.zero = np.ascontiguousarray(impossible, dtype=np.float64) if self.has_zero else None
        self.inf = np.ascontiguousarray(certain, dtype=np.float64) if self.has_inf else None

    def apply(self, X: np.ndarray | sp.csr_array) -> np.ndarray:
        out = matmul(X, self.values)
        if self.has_inf:
            out[matmul(positive_part(X), self.inf) > 0] = np.inf
        if self.has_zero:
            out[matmul(positive_part(X), self.zero) > 0] = -np.inf
        return out
