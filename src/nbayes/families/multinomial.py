"""Multinomial model: bag of words / counts (Manning, Raghavan & Schütze, *Introduction to
Information Retrieval*, §13.2).

    P(x_t | y = k) = (δ + N(x_t, y = k)) / (δ|V| + Σ_t' N(x_t', y = k))

with δ the smoothing λ (``alpha``; per feature when a vector, then δ|V| becomes Σ_t δ_t), and

    log P(x | y = k) = Σ_t x_t log P(t | y = k)

(the multinomial coefficient is the same for every class and is left out, as scikit-learn does).
A class with no counts at all and δ = 0 gets the limit δ → 0⁺, the uniform 1/|V|.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .counts import FeatureSums, LogTable


def log_prob(stats: FeatureSums, alpha: float | np.ndarray) -> np.ndarray:
    """log P(t | c) as a (K, V) array (scikit-learn's ``feature_log_prob_``; a view of the
    (V, K) table that prediction reads)."""

    def compute() -> np.ndarray:
        # built directly in the (V, K) layout the sparse product reads, in place: hashed text
        # tables are large, and each fresh array of that size costs its page faults
        counts = stats.counts
        table = np.empty((counts.shape[1], counts.shape[0]))
        np.add(counts.T, np.asarray(alpha)[..., None] if np.ndim(alpha) else alpha, out=table)
        total = table.sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            np.log(table, out=table)
            table -= np.log(total)
        empty = total == 0
        if empty.any():
            table[:, empty] = -np.log(counts.shape[1])
        return table

    return stats.cached(("multinomial", _key(alpha)), compute).T


def log_likelihood(
    stats: FeatureSums, X: np.ndarray | sp.csr_array, alpha: float | np.ndarray
) -> np.ndarray:
    """Σ_t x_t log P(t | c), shape (rows, K)."""
    table = stats.cached(
        ("multinomial.table", _key(alpha)), lambda: LogTable(log_prob(stats, alpha).T)
    )
    return table.apply(X)


def _key(alpha: float | np.ndarray) -> object:
    return alpha.tobytes() if isinstance(alpha, np.ndarray) else float(alpha)
