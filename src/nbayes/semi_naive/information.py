"""Mutual information from the counts: what the structures are learnt from.

In nats, with P̂ the empirical (unsmoothed) distributions of the counts:

    I(X_j; C)       = Σ_{c,a}   P̂(c, a) log [ P̂(c, a) / (P̂(c) P̂(a)) ]
                      over the rows observing x_j;
    I(X_i; X_j | C) = Σ_{c,a,b} P̂(c, a, b) log [ P̂(c, a, b) P̂(c) / (P̂(c, a) P̂(c, b)) ]
                      over the rows observing both x_i and x_j.

Both are ≥ 0 and 0 exactly when the attributes are independent (of the class, or of each other
given the class) in the counted rows.
"""

from __future__ import annotations

import numpy as np

from . import _kernels
from .pairs import PairCounts


def mutual_information(stats: PairCounts) -> np.ndarray:
    """I(X_j; C) for each attribute j, shape (d,)."""

    def compute() -> np.ndarray:
        offsets, _, _ = stats.layout()
        counts = stats.singles  # (V, K)
        d = stats.n_features
        feature = np.repeat(np.arange(d), stats.n_values)
        running = np.vstack([np.zeros((1, stats.n_classes)), np.cumsum(counts, axis=0)])
        class_total = running[offsets[1:]] - running[offsets[:-1]]  # (d, K)
        total = class_total.sum(axis=1)  # (d,)
        value_total = counts.sum(axis=1)  # (V,)
        with np.errstate(divide="ignore", invalid="ignore"):
            # as two ratios: products of tiny weights would underflow
            share = counts / value_total[:, None]  # P(c | x_j)
            ratio = share * (total[feature][:, None] / class_total[feature])  # ÷ P(c)
            terms = np.where(counts > 0, counts * np.log(ratio), 0.0)
        per_value = terms.sum(axis=1)
        sums = np.bincount(feature, weights=per_value, minlength=d)
        with np.errstate(divide="ignore", invalid="ignore"):
            info = np.where(total > 0, sums / total, 0.0)
        return np.maximum(info, 0.0)

    return stats.cached(("mutual_information",), compute)


def conditional_mutual_information(stats: PairCounts) -> np.ndarray:
    """I(X_i; X_j | C) for every pair, a symmetric (d, d) matrix with zeros on the diagonal."""

    def compute() -> np.ndarray:
        offsets, base, _ = stats.layout()
        out = np.zeros((stats.n_features, stats.n_features))
        _kernels.conditional_mutual_information(
            stats.pairs, stats.margins(), offsets, stats.n_values, base, out
        )
        return out

    return stats.cached(("conditional_mutual_information",), compute)
