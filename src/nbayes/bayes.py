"""Bayes' rule and the law of total probability, for a complete set of events A_1 … A_n.

Kept as small public functions so that worked examples (the tree watering and plaid shirts of
the tests) can be reproduced as written:

    P(B) = Σ_i P(A_i) P(B | A_i)                       (total probability)
    P(A_i | B) = P(A_i) P(B | A_i) / Σ_k P(A_k) P(B | A_k)   (Bayes' rule)

(a tree dies with probability 0.15 if watered, 0.8 if not; it is watered 9 times in 10:
P(tree dies) = 0.9 × 0.15 + 0.1 × 0.8)

>>> round(total_probability([0.9, 0.1], [0.15, 0.8]), 3)
0.215
>>> round(float(bayes_rule([0.9, 0.1], [0.15, 0.8])[1]), 3)   # P(forgot to water | tree died)
0.372
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def _check(priors: Sequence[float], likelihoods: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    p = np.asarray(priors, dtype=np.float64)
    lik = np.asarray(likelihoods, dtype=np.float64)
    if p.ndim != 1 or p.shape != lik.shape:
        raise ValueError(
            "priors and likelihoods must be 1-D and of equal length, got "
            f"{p.shape} and {lik.shape}."
        )
    if np.any(p < 0) or not np.isclose(p.sum(), 1.0):
        raise ValueError(f"priors must be >= 0 and sum to 1 (a complete set of events), got {p}.")
    if np.any(lik < 0) or np.any(lik > 1):
        raise ValueError(f"likelihoods P(B | A_i) must lie in [0, 1], got {lik}.")
    return p, lik


def total_probability(priors: Sequence[float], likelihoods: Sequence[float]) -> float:
    """P(B) = Σ_i P(A_i) P(B | A_i)."""
    p, lik = _check(priors, likelihoods)
    return float(np.dot(p, lik))


def bayes_rule(priors: Sequence[float], likelihoods: Sequence[float]) -> np.ndarray:
    """P(A_i | B) for every i, by Bayes' rule with the total probability as denominator."""
    p, lik = _check(priors, likelihoods)
    evidence = np.dot(p, lik)
    if evidence == 0:
        raise ValueError("P(B) = 0: B cannot occur under these priors and likelihoods.")
    return p * lik / evidence
