"""Compiled loop (Numba) of the discriminative correction
(:mod:`nbayes.semi_naive.discriminative`): one pass over a batch of rows giving the conditional
log-likelihood of the training rows, its gradient, and the log-likelihood of the held-out rows.

Serial and in row order, so its sums are the same on any number of threads; cached once per
install (:mod:`nbayes._jit`; ``python -m nbayes.compile``).
"""

from __future__ import annotations

import numpy as np

from .._jit import kernel


@kernel
def correction_pass(
    slots, offsets, cls, weight, held_out, delta, bias, gradient, bias_gradient, totals
):  # pragma: no cover - compiled
    """Add one batch to the sums of a pass.

    For row r with class y, scores s_c = offsets[r, c] + bias[c] + Σ_j delta[slots[r, j], c]
    (slot −1: no term), p_c = exp(s_c) / Σ exp(s): a training row adds w·(log Σ exp(s) − s_y) to
    ``totals[0]``, w to ``totals[1]`` and w·(p_c − [c = y]) to the gradients of its slots and of
    the bias; a held-out row adds its loss to ``totals[2]``, w to ``totals[3]``, and with
    Δ = its loss less its loss under the offsets alone (the generative model), w·Δ to
    ``totals[4]``, w·Δ² to ``totals[5]`` and 1 to ``totals[6]``.
    """
    n, d = slots.shape
    K = offsets.shape[1]
    score = np.empty(K)
    g = np.empty(K)
    for r in range(n):
        w = weight[r]
        if w == 0.0:
            continue
        for c in range(K):
            score[c] = offsets[r, c] + bias[c]
        for j in range(d):  # a slot's K weights lie together: one row of delta each
            slot = slots[r, j]
            if slot >= 0:
                for c in range(K):
                    score[c] += delta[slot, c]
        top = -np.inf
        for c in range(K):
            if score[c] > top:
                top = score[c]
        total = 0.0
        for c in range(K):
            g[c] = np.exp(score[c] - top)
            total += g[c]
        normaliser = top + np.log(total)
        loss = w * (normaliser - score[cls[r]])
        if held_out[r]:
            top0 = -np.inf
            for c in range(K):
                if offsets[r, c] > top0:
                    top0 = offsets[r, c]
            total0 = 0.0
            for c in range(K):
                total0 += np.exp(offsets[r, c] - top0)
            change = loss / w - (top0 + np.log(total0) - offsets[r, cls[r]])
            totals[2] += loss
            totals[3] += w
            totals[4] += w * change
            totals[5] += w * change * change
            totals[6] += 1.0
            continue
        totals[0] += loss
        totals[1] += w
        scale = w / total  # w · p_c = w · exp(s_c − top) / Σ exp(s − top)
        for c in range(K):
            g[c] *= scale
        g[cls[r]] -= w
        for c in range(K):
            bias_gradient[c] += g[c]
        for j in range(d):
            slot = slots[r, j]
            if slot >= 0:
                for c in range(K):
                    gradient[slot, c] += g[c]
