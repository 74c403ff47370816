"""Bernoulli model: each feature is present (1) or absent (0).

    P(x_t = 1 | c) = p_{c,t} = (df_{c,t} + α) / (N_c + 2α)

with df_{c,t} the (weighted) number of class-c rows where t is present and N_c the class count.
Unlike the multinomial model, an absent feature is evidence too:

    log P(x | c) = Σ_t [x_t log p_{c,t} + (1 − x_t) log(1 − p_{c,t})]
                 = Σ_t x_t (log p_{c,t} − log(1 − p_{c,t})) + Σ_t log(1 − p_{c,t})
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .counts import FeatureSums, LogTable, matmul, positive_part
from .multinomial import _key


def log_prob(stats: FeatureSums, class_count: np.ndarray, alpha: float | np.ndarray) -> np.ndarray:
    """log p_{c,t} as a (K, V) array (scikit-learn's ``feature_log_prob_``)."""

    def compute() -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            table = np.log(stats.counts + alpha) - np.log(class_count[:, None] + 2.0 * alpha)
        return np.where(np.isnan(table), np.log(0.5), table)  # N_c = 0, α = 0: the limit 1/2

    return stats.cached(("bernoulli", _key(alpha), class_count.tobytes()), compute)


def log_likelihood(
    stats: FeatureSums,
    X: np.ndarray | sp.csr_array,
    class_count: np.ndarray,
    alpha: float | np.ndarray,
) -> np.ndarray:
    """Σ_t log P(x_t | c) for binary X, shape (rows, K)."""

    def tables() -> tuple[LogTable, LogTable, np.ndarray]:
        present = log_prob(stats, class_count, alpha)
        with np.errstate(divide="ignore", invalid="ignore"):
            absent = np.log1p(-np.exp(present))
            difference = np.ascontiguousarray((present - absent).T)
        return LogTable(present.T), LogTable(absent.T), difference

    key = ("bernoulli.T", _key(alpha), class_count.tobytes())
    present, absent, difference = stats.cached(key, tables)
    absent_total = absent.values.sum(axis=0)
    if not (present.has_zero or absent.has_zero):
        return matmul(X, difference) + absent_total
    # some p is exactly 0 or 1 (α = 0): add the two parts separately so that 0 · −inf stays 0
    out = present.apply(X)
    out += absent_total - matmul(X, absent.values)
    if absent.has_zero:
        missing_required = absent.zero.sum(axis=0) - matmul(positive_part(X), absent.zero)
        out[missing_required > 0] = -np.inf
    return out
