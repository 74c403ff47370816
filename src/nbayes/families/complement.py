"""Complement naive Bayes (Rennie, Shih, Teevan & Karger 2003), for skewed text classes.

Each class is described by the counts of every *other* class, which are far more plentiful:

    θ̃_{c,t} = (α_t + Σ_{k≠c} n_{k,t}) / (Σ_t α_t + Σ_{k≠c} Σ_t n_{k,t})

    w_{c,t} = −log θ̃_{c,t}                        (``norm=False``)
    w_{c,t} = log θ̃_{c,t} / Σ_t log θ̃_{c,t}       (``norm=True``: weight normalisation, step 8)

and a document is assigned to argmax_c Σ_t x_t w_{c,t}. As in the paper and in scikit-learn, the
class prior is not part of the decision (except in the degenerate one-class case): complement NB
scores are not joint log-probabilities.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .counts import FeatureSums, LogTable
from .multinomial import _key


def weights(stats: FeatureSums, alpha: float | np.ndarray, norm: bool) -> np.ndarray:
    """w_{c,t} as a (K, V) array (scikit-learn's ``feature_log_prob_``; a view of the (V, K)
    table that prediction reads)."""

    def compute() -> np.ndarray:
        # built directly in the (V, K) layout the sparse product reads, in place (see
        # multinomial.log_prob): complement count of t for class c, then log θ̃
        counts = stats.counts
        other = counts.sum(axis=0) + alpha  # Σ_k n_{k,t} + α_t
        logged = np.empty((counts.shape[1], counts.shape[0]))
        np.subtract(other[:, None], counts.T, out=logged)
        _recount_cancelled(counts, alpha, other, logged)
        totals = logged.sum(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            np.log(logged, out=logged)
            logged -= np.log(totals)  # log θ̃ = log(complement count) − log(its total)
            if norm:
                total = logged.sum(axis=0)
                # Σ_t log θ̃ = 0 only when one feature holds all the mass (V = 1): weight 0
                logged /= np.where(total == 0, np.inf, total)
                return logged
            return np.negative(logged, out=logged)

    return stats.cached(("complement", _key(alpha), bool(norm)), compute).T


def _recount_cancelled(
    counts: np.ndarray, alpha: float | np.ndarray, other: np.ndarray, logged: np.ndarray
) -> None:
    """Where one class holds nearly all of a feature's count, (Σ_k n_{k,t} + α) − n_{c,t} loses
    its digits to cancellation (down to 0, or below: a log of 0 or NaN). Those features'
    complements are summed again over the other classes only (sums before and after c)."""
    risky = np.flatnonzero((logged < other[:, None] * 2.0**-20).any(axis=1))
    if not risky.size:
        return
    block = counts[:, risky]  # (K, r)
    zero = np.zeros((1, risky.size))
    before = np.concatenate([zero, np.cumsum(block, axis=0)[:-1]])
    after = np.concatenate([np.cumsum(block[::-1], axis=0)[-2::-1], zero])
    extra = alpha[risky] if np.ndim(alpha) else alpha
    logged[risky] = (before + after + extra).T


def log_likelihood(
    stats: FeatureSums, X: np.ndarray | sp.csr_array, alpha: float | np.ndarray, norm: bool
) -> np.ndarray:
    """Σ_t x_t w_{c,t}, shape (rows, K)."""
    table = stats.cached(
        ("complement.T", _key(alpha), bool(norm)),
        lambda: LogTable(weights(stats, alpha, norm).T),
    )
    return table.apply(X)
