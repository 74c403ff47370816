"""The compiled loops (Numba) of MDL discretisation (:func:`nbayes.families.intervals.mdl`): the
best split of a run of sketch keys and whether Fayyad & Irani's criterion accepts it (one pass
over the keys), and the recursion over the segments the accepted splits make, best first. A
column's cut points are one call: the held-out models of the default model's calibration cut
every MDL column again in each fold. Cached once per install (:mod:`nbayes._jit`;
``python -m nbayes.compile``).
"""

from __future__ import annotations

import numpy as np

from .._jit import kernel


@kernel
def _entropy_bits(counts, total):  # pragma: no cover - compiled
    """Class entropy in bits, −Σ_c p_c log₂ p_c with p_c = counts[c] / total (0 if empty)."""
    if total <= 0.0:
        return 0.0
    h = 0.0
    for c in range(counts.shape[0]):
        if counts[c] > 0.0:
            p = counts[c] / total
            h -= p * np.log2(p)
    return h


@kernel
def best_split(counts, lo, hi):  # pragma: no cover - compiled
    """(n · Gain, i): the split of keys lo ≤ b < hi after key lo + i with the smallest weighted
    class entropy (the first of equals), if the MDL criterion

        Gain > (log₂(n − 1) + log₂(3^k − 2) − [k Ent(S) − k₁ Ent(S₁) − k₂ Ent(S₂)]) / n

    accepts it; (−1, −1) otherwise (k, k₁, k₂: the classes present in S, S₁, S₂)."""
    K = counts.shape[1]
    if hi - lo < 2:
        return -1.0, -1
    total = np.zeros(K)
    for b in range(lo, hi):
        for c in range(K):
            total[c] += counts[b, c]
    n = 0.0
    for c in range(K):
        n += total[c]
    if n <= 1.0:
        return -1.0, -1
    left = np.zeros(K)
    right = np.empty(K)
    best_entropy = np.inf
    best = -1
    for i in range(hi - lo - 1):
        n_left = 0.0
        n_right = 0.0
        for c in range(K):
            left[c] += counts[lo + i, c]
            right[c] = total[c] - left[c]
            n_left += left[c]
            n_right += right[c]
        entropy = (
            n_left * _entropy_bits(left, n_left) + n_right * _entropy_bits(right, n_right)
        ) / n
        if entropy < best_entropy:
            best_entropy = entropy
            best = i
    if best < 0:
        return -1.0, -1
    left[:] = 0.0
    for b in range(lo, lo + best + 1):
        for c in range(K):
            left[c] += counts[b, c]
    k = 0
    k1 = 0
    k2 = 0
    n_left = 0.0
    n_right = 0.0
    for c in range(K):
        right[c] = total[c] - left[c]
        n_left += left[c]
        n_right += right[c]
        k += total[c] != 0.0
        k1 += left[c] != 0.0
        k2 += right[c] != 0.0
    whole = _entropy_bits(total, n)
    gain = whole - best_entropy
    delta = np.log2(3.0**k - 2) - (
        k * whole - k1 * _entropy_bits(left, n_left) - k2 * _entropy_bits(right, n_right)
    )
    if gain > (np.log2(n - 1) + delta) / n:
        return n * gain, best
    return -1.0, -1


@kernel
def mdl_splits(counts, max_intervals):  # pragma: no cover - compiled
    """The keys after which Fayyad & Irani's recursion cuts (b: between key b and key b + 1),
    in the order the cuts are accepted: the accepted splits taken best first, by n · Gain (the
    first of equals by (lo, hi, split), as a heap of (−n · Gain, lo, hi, split) pops them),
    until ``max_intervals`` intervals (no bound when it is below 1). Each split found by
    :func:`best_split` on its segment of keys [lo, hi)."""
    capacity = 2 * counts.shape[0] + 2  # a segment is split at most once; two segments each
    bits = np.empty(capacity)
    lows = np.empty(capacity, dtype=np.int64)
    highs = np.empty(capacity, dtype=np.int64)
    at = np.empty(capacity, dtype=np.int64)
    alive = np.zeros(capacity, dtype=np.bool_)
    pending = 0
    size = 0
    cuts = np.empty(counts.shape[0], dtype=np.int64)
    n_cuts = 0
    gain, split = best_split(counts, 0, counts.shape[0])
    if split >= 0:
        bits[0], lows[0], highs[0], at[0], alive[0] = -gain, 0, counts.shape[0], split, True
        size, pending = 1, 1
    while pending > 0 and (max_intervals < 1 or n_cuts + 1 < max_intervals):
        best = -1
        for s in range(size):  # the smallest (−n · Gain, lo, hi, split): the heap's pop
            if alive[s] and (
                best < 0
                or bits[s] < bits[best]
                or (
                    bits[s] == bits[best]
                    and (lows[s], highs[s], at[s]) < (lows[best], highs[best], at[best])
                )
            ):
                best = s
        alive[best] = False
        pending -= 1
        lo, hi, cut = lows[best], highs[best], lows[best] + at[best]
        cuts[n_cuts] = cut
        n_cuts += 1
        for left, right in ((lo, cut + 1), (cut + 1, hi)):
            gain, split = best_split(counts, left, right)
            if split >= 0:
                bits[size], lows[size], highs[size], at[size] = -gain, left, right, split
                alive[size] = True
                size += 1
                pending += 1
    return cuts[:n_cuts]
