"""Compiled loops (Numba) of the discriminative correction
(:mod:`nbayes.semi_naive.discriminative`): the slot of each value and value pair of the rows
(:func:`value_slots`), and one pass over a block of rows giving the conditional log-likelihood of
the training rows, its gradient, and the log-likelihood of the held-out rows
(:func:`correction_pass`).

Serial and in row order within a block, its sums kept as integers, so a pass's sums are the same
on any number of threads and in any order of rows, blocks or partitions; cached once per install
(:mod:`nbayes._jit`; ``python -m nbayes.compile``).
"""

from __future__ import annotations

import numpy as np

from .._jit import kernel


@kernel
def correction_pass(
    slots, offsets, cls, weight, held_out, generative_loss, start, stop, delta_t, bias,
    gradient_t, bias_gradient, totals, fine, coarse,
):  # pragma: no cover - compiled  # fmt: skip
    """The sums of a pass over the rows start ≤ r < stop of a batch, written over ``gradient_t``,
    ``bias_gradient`` and ``totals`` (zeroed first, here, by the thread that fills them).

    For row r with class y, scores s_c = offsets[r, c] + bias[c] + Σ_j delta_t[c, slots[r, j]]
    (slot −1: no term), p_c = exp(s_c) / Σ exp(s): a training row adds w·(log Σ exp(s) − s_y) to
    total 0, w to total 1 and w·(p_c − [c = y]) to the gradients of its slots
    (``gradient_t[c, slot]``) and of the bias; a held-out row adds its loss to total 2, w to
    total 3, and with Δ = its loss less ``generative_loss[r]`` (its loss under the offsets
    alone), w·Δ to total 4, w·Δ² to total 5 and 1 to total 6 (a count, kept unscaled in
    ``totals[6]``).

    Every sum is of integers, so that it is the same in any order (the rows', the blocks', the
    batches', the partitions'): a gradient term g as trunc(g · ``fine``) (``fine`` = 2^S, with
    |g| ≤ w and the weights' sum W ≤ 2^(62 − S), so no sum can overflow); a total t, which has
    no such bound, as two words, h = trunc(t · ``coarse``) (``coarse`` = 2^(S − 31)) in
    ``totals[k]`` and trunc((t − h / coarse) · fine) in ``totals[7 + k]`` (t − h / coarse is
    exact: Sterbenz), t clipped to ±w · 2^30 (a row's loss of 10⁹ nats is as wrong as any
    larger one). trunc rounds toward zero. See
    :class:`nbayes.semi_naive.discriminative.FixedPoint`.

    The weights are class-major (one row of ``delta_t`` and ``gradient_t`` per class) so that a
    class's score sums in a register over the row's slots, four classes per sweep of the slots
    (then three, two or one, for the rest): independent sums in flight instead of one chain of
    dependent additions (class-major with two per sweep was 1.4–1.9× faster than one class at
    a time on the shared tables; four or three per sweep 8–31 % faster again where K ≥ 3). Each sum
    still adds its terms in slot order, and the gradients row after row, so the numbers are
    those of one class at a time.
    """
    d = slots.shape[1]
    K = offsets.shape[1]
    n_totals = totals.shape[0] // 2
    gradient_t[:, :] = 0
    bias_gradient[:] = 0
    totals[:] = 0
    score = np.empty(K)
    g = np.empty(K)
    step = np.empty(K, np.int64)
    terms = np.empty(n_totals)
    coarse_step = 1.0 / coarse  # a power of two: exact
    for r in range(start, stop):
        w = weight[r]
        if w == 0.0:
            continue
        row = slots[r]
        c = 0
        while c + 4 <= K:
            s0 = offsets[r, c] + bias[c]
            s1 = offsets[r, c + 1] + bias[c + 1]
            s2 = offsets[r, c + 2] + bias[c + 2]
            s3 = offsets[r, c + 3] + bias[c + 3]
            weights0, weights1 = delta_t[c], delta_t[c + 1]
            weights2, weights3 = delta_t[c + 2], delta_t[c + 3]
            for j in range(d):
                slot = row[j]
                if slot >= 0:
                    s0 += weights0[slot]
                    s1 += weights1[slot]
                    s2 += weights2[slot]
                    s3 += weights3[slot]
            score[c], score[c + 1], score[c + 2], score[c + 3] = s0, s1, s2, s3
            c += 4
        if c + 3 == K:
            s0 = offsets[r, c] + bias[c]
            s1 = offsets[r, c + 1] + bias[c + 1]
            s2 = offsets[r, c + 2] + bias[c + 2]
            weights0, weights1, weights2 = delta_t[c], delta_t[c + 1], delta_t[c + 2]
            for j in range(d):
                slot = row[j]
                if slot >= 0:
                    s0 += weights0[slot]
                    s1 += weights1[slot]
                    s2 += weights2[slot]
            score[c], score[c + 1], score[c + 2] = s0, s1, s2
            c += 3
        if c + 2 <= K:
            s0 = offsets[r, c] + bias[c]
            s1 = offsets[r, c + 1] + bias[c + 1]
            weights0, weights1 = delta_t[c], delta_t[c + 1]
            for j in range(d):
                slot = row[j]
                if slot >= 0:
                    s0 += weights0[slot]
                    s1 += weights1[slot]
            score[c], score[c + 1] = s0, s1
            c += 2
        if c < K:
            s0 = offsets[r, c] + bias[c]
            weights0 = delta_t[c]
            for j in range(d):
                slot = row[j]
                if slot >= 0:
                    s0 += weights0[slot]
            score[c] = s0
        top = -np.inf
        best = 0
        for c in range(K):
            if score[c] > top:
                top = score[c]
                best = c
        total = 0.0
        for c in range(K):  # exp(0) is 1 exactly: the top class needs no exp
            g[c] = np.exp(score[c] - top) if c != best or top == -np.inf else 1.0
            total += g[c]
        normaliser = top + np.log(total)
        loss = w * (normaliser - score[cls[r]])
        if held_out[r]:
            change = loss / w - generative_loss[r]
            terms[2] = loss
            terms[3] = w
            terms[4] = w * change
            terms[5] = w * change * change
            totals[6] += 1  # a count: kept as it is, whatever the weights' scale
            first, last = 2, 6
        else:
            terms[0] = loss
            terms[1] = w
            first, last = 0, 2
        limit = w * 1073741824.0  # 2^30
        for k in range(first, last):
            x = min(max(terms[k], -limit), limit)
            high = np.int64(x * coarse)  # truncated: x − high / coarse is then exact
            totals[k] += high
            totals[n_totals + k] += np.int64((x - high * coarse_step) * fine)
        if held_out[r]:
            continue
        scale = w / total  # w · p_c = w · exp(s_c − top) / Σ exp(s − top)
        for c in range(K):
            g[c] *= scale
        g[cls[r]] -= w
        for c in range(K):
            step[c] = np.int64(g[c] * fine)  # truncated toward zero
            bias_gradient[c] += step[c]
        c = 0
        while c + 4 <= K:
            step0, step1, step2, step3 = step[c], step[c + 1], step[c + 2], step[c + 3]
            sums0, sums1 = gradient_t[c], gradient_t[c + 1]
            sums2, sums3 = gradient_t[c + 2], gradient_t[c + 3]
            for j in range(d):
                slot = row[j]
                if slot >= 0:
                    sums0[slot] += step0
                    sums1[slot] += step1
                    sums2[slot] += step2
                    sums3[slot] += step3
            c += 4
        if c + 3 == K:
            step0, step1, step2 = step[c], step[c + 1], step[c + 2]
            sums0, sums1, sums2 = gradient_t[c], gradient_t[c + 1], gradient_t[c + 2]
            for j in range(d):
                slot = row[j]
                if slot >= 0:
                    sums0[slot] += step0
                    sums1[slot] += step1
                    sums2[slot] += step2
            c += 3
        if c + 2 <= K:
            step0, step1 = step[c], step[c + 1]
            sums0, sums1 = gradient_t[c], gradient_t[c + 1]
            for j in range(d):
                slot = row[j]
                if slot >= 0:
                    sums0[slot] += step0
                    sums1[slot] += step1
            c += 2
        if c < K:
            step0 = step[c]
            sums0 = gradient_t[c]
            for j in range(d):
                slot = row[j]
                if slot >= 0:
                    sums0[slot] += step0


@kernel
def value_slots(codes, n_values, bases, edges, out):  # pragma: no cover - compiled
    """out[r, j] = the slot of row r's value of attribute j, bases[j] + x_rj (bases[j] + v_j
    for a missing value: NaN), and out[r, d + e] = the slot of edge e's pair of values,
    bases[d + e] + a · (v_p + 1) + b with a, b the child's and the parent's value (v for
    missing); −1 wherever a value is unseen in fitting (a code ≥ v_j, or negative)."""
    n, d = codes.shape
    m = edges.shape[0]
    local = np.empty(d, np.int64)
    for r in range(n):
        for j in range(d):
            v = codes[r, j]
            if v != v:
                local[j] = n_values[j]
            elif v >= n_values[j] or v < 0:
                local[j] = -1
            else:
                local[j] = np.int64(v)
            out[r, j] = bases[j] + local[j] if local[j] >= 0 else -1
        for e in range(m):
            a = local[edges[e, 0]]
            b = local[edges[e, 1]]
            if a < 0 or b < 0:
                out[r, d + e] = -1
            else:
                out[r, d + e] = bases[d + e] + a * (n_values[edges[e, 1]] + 1) + b
