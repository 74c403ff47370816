"""Compiled loops (Numba) of the semi-naive models that score rows: AODE, A2DE, HNB and the
networks' log-likelihoods, subsumption resolution, and selective k-DB's leave-one-out losses.

The layouts of the tables they read, and the rule for missing and unseen codes, are those of
:mod:`._kernels` (counting). Each kernel does one range ``start ≤ t < stop`` of rows and is
serial: its callers share the ranges among threads (:mod:`nbayes._threads`), each output cell
written by one range only, so the numbers are the same on any number of threads. Every kernel
is cached once per install (:mod:`nbayes._jit`; ``python -m nbayes.compile``).
"""

from __future__ import annotations

import math

import numpy as np

from .._jit import kernel
from ._kernels import _observed, _triple


# --------------------------------------------------------------------------- scoring
@kernel
def _pair_term(a, b, attr, code, n_values, pair_base):  # pragma: no cover
    """Row index into the table of log P(x_b | c, x_a) for observed positions a ≠ b."""
    i = attr[a]
    j = attr[b]
    if i < j:
        return pair_base[i, j] + code[a] * n_values[j] + code[b], True
    return pair_base[j, i] + code[b] * n_values[i] + code[a], False


@kernel
def _pair_count(a, b, attr, code, n_values, pair_base, pair_freq):  # pragma: no cover
    i = attr[a]
    j = attr[b]
    if i < j:
        return pair_freq[pair_base[i, j] + code[a] * n_values[j] + code[b]]
    return pair_freq[pair_base[j, i] + code[b] * n_values[i] + code[a]]


@kernel
def _subsume(
    attr, code, m, offsets, n_values, pair_base, freq, pair_freq, critical, keep
):  # pragma: no cover - compiled
    """Lazy subsumption resolution (Zheng & Webb 2006), as Weka's AODEsr: x_a is dropped when
    some other observed value x_b with N(x_b) > critical has N(x_a, x_b) = N(x_b) (every row
    with x_b has x_a: x_a generalises x_b). Of two values that subsume each other, the one of
    the lower attribute index is kept."""
    general = np.full(m, -1, np.int64)
    for a in range(m):
        fa = freq[offsets[attr[a]] + code[a]]
        for b in range(m):
            if b == a or general[b] == a:
                continue
            fb = freq[offsets[attr[b]] + code[b]]
            if fb > critical:
                if fb == _pair_count(a, b, attr, code, n_values, pair_base, pair_freq):
                    if fb == fa and a < b:
                        continue
                    general[a] = b
                    break
    for a in range(m):
        keep[a] = general[a] == -1


@kernel
def _logsumexp_rows(score, n_rows, K, out_row, shift):  # pragma: no cover - compiled
    for c in range(K):
        top = -np.inf
        for s in range(n_rows):
            if score[s, c] > top:
                top = score[s, c]
        if top == -np.inf:
            out_row[c] = -np.inf
            continue
        total = 0.0
        for s in range(n_rows):
            total += np.exp(score[s, c] - top)
        out_row[c] = top + np.log(total) - shift


@kernel
def _aode_row(
    attr, code, m, keep, offsets, n_values, pair_base, log_single, forward, backward,
    freq, min_count, parent_weight, score, out_row,
):  # pragma: no cover - compiled  # fmt: skip
    """out_row[c] = log [ Σ_i w_i P(x_i | c) Π_{j≠i} P(x_j | c, x_i) / Σ_i w_i ] over the
    eligible super-parents i; naive Bayes Σ_j log P(x_j | c) when there is none."""
    K = out_row.shape[0]
    n_par = 0
    weight_total = 0.0
    for a in range(m):
        if not keep[a] or freq[offsets[attr[a]] + code[a]] < min_count:
            continue
        weight_total += parent_weight[attr[a]]
    uniform = weight_total <= 0.0
    for a in range(m):
        if not keep[a] or freq[offsets[attr[a]] + code[a]] < min_count:
            continue
        w = 1.0 if uniform else parent_weight[attr[a]]
        if w <= 0.0:
            continue
        log_w = np.log(w)
        g = offsets[attr[a]] + code[a]
        for c in range(K):
            score[n_par, c] = log_w + log_single[g, c]
        for b in range(m):
            if b == a or not keep[b]:
                continue
            p, fwd = _pair_term(a, b, attr, code, n_values, pair_base)
            if fwd:
                for c in range(K):
                    score[n_par, c] += forward[p, c]
            else:
                for c in range(K):
                    score[n_par, c] += backward[p, c]
        n_par += 1
    if n_par == 0:
        for c in range(K):
            out_row[c] = 0.0
        for a in range(m):
            g = offsets[attr[a]] + code[a]
            for c in range(K):
                out_row[c] += log_single[g, c]
        return
    _logsumexp_rows(score, n_par, K, out_row, np.log(n_par if uniform else weight_total))


@kernel
def aode_scores(
    X, offsets, n_values, pair_base, log_single, forward, backward, freq, min_count,
    parent_weight, critical, pair_freq, out, start, stop,
):  # pragma: no cover - compiled  # fmt: skip
    """AODE (weighted, with subsumption resolution when ``critical`` ≥ 0) of the rows
    start ≤ r < stop into out; returns the number of codes unseen in fitting among them."""
    d = X.shape[1]
    K = out.shape[1]
    unseen = 0
    attr = np.empty(d, np.int64)
    code = np.empty(d, np.int64)
    keep = np.ones(d, np.bool_)
    score = np.empty((d, K))
    for r in range(start, stop):
        m, u = _observed(X, r, n_values, attr, code)
        unseen += u
        keep[:] = True
        if critical >= 0:
            _subsume(attr, code, m, offsets, n_values, pair_base, freq, pair_freq, critical, keep)
        _aode_row(
            attr, code, m, keep, offsets, n_values, pair_base, log_single, forward, backward,
            freq, min_count, parent_weight, score, out[r],
        )  # fmt: skip
    return unseen


@kernel
def _observed_column(C, r, attr, code):  # pragma: no cover - compiled
    """The observed attributes of row r of codes by attribute (−1 missing) and their codes."""
    m = 0
    for j in range(C.shape[0]):
        if C[j, r] >= 0:
            attr[m] = j
            code[m] = C[j, r]
            m += 1
    return m


@kernel
def a2de_scores(
    C, offsets, n_values, pair_base, pair_index, triple_base, triple_list, log_single, forward,
    backward, joint, first, middle, last, freq, pair_freq, min_count, critical, out, block_rows,
    start, stop,
):  # pragma: no cover - compiled  # fmt: skip
    """A2DE of the rows start ≤ r < stop: out[r, c] = log [ (1/|S|) Σ_{(i,j) ∈ S} P(x_i, x_j | c)
    Π_{l ∉ {i,j}} P(x_l | c, x_i, x_j) ], S the super-parent pairs with N(x_i, x_j) ≥ min_count;
    AODE for the row when S is empty.

    C holds the codes by attribute (−1: missing or unseen). Rows are scored in blocks of
    ``block_rows``: for each triple (i, j, l) its three table blocks are read once for the whole
    block of rows, and each row's term is added to the scores of its three super-parent pairs,
    (i, j) with child l, (i, l) with child j and (j, l) with child i. A row's score does not
    depend on the other rows of its block."""
    d = C.shape[0]
    K = out.shape[1]
    P = max(pair_base.shape[0] * (pair_base.shape[0] - 1) // 2, 1)
    parent_weight = np.ones(d)
    for r0 in range(start, stop, block_rows):
        B = min(stop, r0 + block_rows) - r0
        score = np.zeros((P, B, K))
        eligible = np.zeros((P, B), np.bool_)
        kept = np.zeros((d, B), np.bool_)
        attr = np.empty(d, np.int64)
        code = np.empty(d, np.int64)
        keep = np.ones(d, np.bool_)
        row_score = np.empty((d, K))
        for b in range(B):
            m = _observed_column(C, r0 + b, attr, code)
            keep[:] = True
            if critical >= 0:
                _subsume(
                    attr, code, m, offsets, n_values, pair_base, freq, pair_freq, critical, keep
                )
            for a in range(m):
                kept[attr[a], b] = keep[a]
            for a in range(m):
                if not keep[a]:
                    continue
                for e in range(a + 1, m):
                    if not keep[e]:
                        continue
                    i = attr[a]
                    j = attr[e]
                    cell = pair_base[i, j] + code[a] * n_values[j] + code[e]
                    if pair_freq[cell] >= min_count:
                        p = pair_index[i, j]
                        eligible[p, b] = True
                        for c in range(K):
                            score[p, b, c] = joint[cell, c]
        for q in range(triple_list.shape[0]):
            i, j, l_, base, v_j, v_l = _triple(triple_list, triple_base, n_values, q)
            p_ij = pair_index[i, j]
            p_il = pair_index[i, l_]
            p_jl = pair_index[j, l_]
            for b in range(B):
                if not (kept[i, b] and kept[j, b] and kept[l_, b]):
                    continue
                r = r0 + b
                cell = base + (C[i, r] * v_j + C[j, r]) * v_l + C[l_, r]
                if eligible[p_ij, b]:
                    for c in range(K):
                        score[p_ij, b, c] += last[cell, c]
                if eligible[p_il, b]:
                    for c in range(K):
                        score[p_il, b, c] += middle[cell, c]
                if eligible[p_jl, b]:
                    for c in range(K):
                        score[p_jl, b, c] += first[cell, c]
        for b in range(B):
            r = r0 + b
            n_par = 0
            for p in range(P):
                if eligible[p, b]:
                    n_par += 1
            if n_par == 0:
                m = _observed_column(C, r, attr, code)
                for a in range(m):
                    keep[a] = kept[attr[a], b]
                _aode_row(
                    attr, code, m, keep, offsets, n_values, pair_base, log_single, forward,
                    backward, freq, min_count, parent_weight, row_score, out[r],
                )  # fmt: skip
                continue
            for c in range(K):
                top = -np.inf
                for p in range(P):
                    if eligible[p, b] and score[p, b, c] > top:
                        top = score[p, b, c]
                if top == -np.inf:
                    out[r, c] = -np.inf
                    continue
                total = 0.0
                for p in range(P):
                    if eligible[p, b]:
                        total += np.exp(score[p, b, c] - top)
                out[r, c] = top + np.log(total) - np.log(n_par)


@kernel
def _sum_row(X, r, n_values, attr, code, out):  # pragma: no cover - compiled
    """Start row r's sum of log factors: out[r] set to 0, and its observed attributes and codes
    written to attr and code as :func:`._kernels._observed` does; returns (m, unseen)."""
    for c in range(out.shape[1]):
        out[r, c] = 0.0
    return _observed(X, r, n_values, attr, code)


@kernel
def hnb_scores(
    X, offsets, n_values, pair_base, log_single, forward, backward, cmi, out, start, stop
):  # pragma: no cover - compiled
    """Hidden naive Bayes (Zhang, Jiang & Su 2005) of the rows start ≤ r < stop:

        out[r, c] = Σ_j log Σ_{i≠j} W_ij P(x_j | c, x_i),
        W_ij = I(X_i; X_j | C) / Σ_{i'≠j} I(X_i'; X_j | C)

    over the observed i, j; where every weight of j is 0, log P(x_j | c) instead. Returns the
    number of codes unseen in fitting among those rows."""
    d = X.shape[1]
    K = out.shape[1]
    unseen = 0
    attr = np.empty(d, np.int64)
    code = np.empty(d, np.int64)
    mix = np.empty(K)
    for r in range(start, stop):
        m, u = _sum_row(X, r, n_values, attr, code, out)
        unseen += u
        for b in range(m):
            j = attr[b]
            total = 0.0
            mix[:] = 0.0
            for a in range(m):
                if a == b:
                    continue
                w = cmi[attr[a], j]
                if w <= 0.0:
                    continue
                total += w
                p, fwd = _pair_term(a, b, attr, code, n_values, pair_base)
                for c in range(K):
                    mix[c] += w * np.exp(forward[p, c] if fwd else backward[p, c])
            g = offsets[j] + code[b]
            for c in range(K):
                if total > 0.0:
                    out[r, c] += np.log(mix[c] / total) if mix[c] > 0.0 else -np.inf
                else:
                    out[r, c] += log_single[g, c]
    return unseen


@kernel
def _next_config(config, pv, n_p):  # pragma: no cover - compiled
    """The configuration of an attribute's first L parents, from ``config``, that of its first
    L − 1, and pv, the L-th parent's value in the row (of the n_p values seen in fitting); −1
    where pv is missing or was never seen.

    Scalars only, as the helpers called per value of a row should be: handed arrays, a call
    took a reference on each and released it (atomic operations Numba does not prune across
    the helper's branches), which cost several times the work of the scoring itself."""
    if pv != pv or pv < 0:
        return -1
    pc = np.int64(pv)
    if pc >= n_p:
        return -1
    return config * n_p + pc


@kernel
def network_scores(
    X, n_values, parents, depth, level_base, config_base, config_count, log_table, min_count,
    out, start, stop,
):  # pragma: no cover - compiled  # fmt: skip
    """out[r, c] = Σ_j log P(x_j | c, x_π(j)) for the rows start ≤ r < stop, over the observed
    attributes with depth[j] ≥ 0 (depth[j] < 0: attribute left out), each at the deepest level
    L ≤ depth[j] whose L parents are observed (and seen in fitting) and whose configuration was
    seen at least min_count times: the cell of (u, x_j) at that level. Returns the number of
    codes unseen in fitting among those rows."""
    d = X.shape[1]
    K = out.shape[1]
    unseen = 0
    for r in range(start, stop):
        for c in range(K):
            out[r, c] = 0.0
        for j in range(d):
            v = X[r, j]
            if v != v or v < 0:  # missing
                continue
            x = np.int64(v)
            if x >= n_values[j]:  # unseen in fitting (counted, left out attribute or not)
                unseen += 1
                continue
            if depth[j] < 0:
                continue
            cell = level_base[j, 0] + x
            config = 0
            for L in range(1, depth[j] + 1):
                p = parents[j, L - 1]
                config = _next_config(config, X[r, p], n_values[p])
                if config < 0 or config_count[config_base[j, L] + config] < min_count:
                    break
                cell = level_base[j, L] + config * n_values[j] + x
            for c in range(K):
                out[r, c] += log_table[cell, c]
    return unseen


@kernel
def _ratio(numerator, denominator, n_values):  # pragma: no cover - compiled
    """numerator / denominator; an empty denominator gives 1/v (the λ → 0⁺ limit)."""
    if denominator <= 0.0:
        return 1.0 / max(n_values, 1)
    if numerator <= 0.0:
        return 0.0
    return numerator / denominator


#: A running product below this is renormalised (its mantissa kept, its binary exponent
#: counted apart), so that a product of factors ≥ this never reaches the subnormal range.
_SMALL = 2.0**-500
_LN2 = math.log(2.0)


@kernel
def _times(product, exponent, factor):  # pragma: no cover - compiled
    """(product · factor) as (mantissa, exponent + e), the value mantissa · 2^(exponent + e);
    exact scaling by powers of two, so the only rounding is that of one multiplication."""
    if factor < _SMALL and factor > 0.0:
        mantissa, shift = math.frexp(factor)
        factor = mantissa
        exponent += shift
    product *= factor
    if product < _SMALL and product > 0.0:
        mantissa, shift = math.frexp(product)
        return mantissa, exponent + shift
    return product, exponent


@kernel
def leave_one_out_losses(
    X, cls, weight, n_values, parents, n_parents, order, level_base, config_base, counts,
    config_class, config_count, class_count, pseudo, hierarchical, min_count, k, start, stop,
):  # pragma: no cover - compiled  # fmt: skip
    """Leave-one-out losses of the nested k-DB models (selective k-DB, Martínez et al. 2016).

    For each training row start ≤ r < stop (its own weight w taken out of every count it
    touched) and each model (s, k'), k' ≤ k — the first s attributes of ``order``, each with at
    most k' parents — the posterior P(c | x) ∝ P(c) Π_j P(x_j | c, u_j) is formed, and the
    returned array (d + 1, k + 1, 6), zero at first, gets, row after row,
    out[s, k', 0] += w · (−log P(y | x)), out[s, k', 1] += w · [argmax_c P(c | x) ≠ y],
    out[s, k', 2] += w · Σ_c (P(c | x) − [c = y])², and out[s, k', 3 + m] += w · ℓ_m², the
    squares of the three losses ℓ_m (for the standard errors of their totals).
    P(c) is the Laplace estimate (N_c − w[c = y] + 1) / (N − w + K); P(x_j | c, u_j) is the
    model's estimate with the row's counts taken out, at the level the row reaches
    (the network scoring rule, with config counts less w); with ``hierarchical`` each level's
    estimate backs off to the level above's, itself with the row's counts taken out.

    The product P(c) Π_j P(x_j | c, u_j) is kept as a mantissa and a binary exponent per class
    (:func:`_times`), not as a sum of logarithms: no underflow, and no logarithm per factor.
    −log P(y | x) is capped at 745 (e^−745 is below the smallest double).
    """
    d = X.shape[1]
    K = counts.shape[1]
    partial = np.zeros((d + 1, k + 1, 6))
    total_weight = 0.0
    for c in range(K):
        total_weight += class_count[c]
    joint = np.empty((k + 1, K))  # P(c) Π_j P(x_j | c, u_j) = joint · 2^exponent
    exponent = np.empty((k + 1, K), np.int64)
    level_p = np.empty((k + 1, K))  # each level's estimate
    post = np.empty(K)
    cells = np.empty(k + 1, np.int64)
    configs = np.empty(k + 1, np.int64)
    # same[kk]: the row's joint[kk] is still joint[kk − 1] (no attribute so far reached level
    # kk), so model (s, kk) scores the row as (s, kk − 1) does and its losses are copied
    same = np.empty(k + 1, np.bool_)
    loss = np.empty(6)  # the row's three losses and their squares, under the last model
    for r in range(start, stop):
        y = cls[r]
        w = weight[r]
        same[:] = True
        for c in range(K):
            own = w if c == y else 0.0
            prior = _ratio(class_count[c] - own + 1.0, total_weight - w + K, K)
            for kk in range(k + 1):
                joint[kk, c], exponent[kk, c] = _times(1.0, 0, prior)
        for s in range(d + 1):
            if s > 0:
                j = order[s - 1]
                v = X[r, j]
                if v == v and v >= 0:
                    x = np.int64(v)
                    vj = n_values[j]
                    cells[0] = level_base[j, 0] + x
                    configs[0] = config_base[j, 0]
                    config = 0
                    reached = 0
                    for L in range(1, n_parents[j] + 1):
                        p = parents[j, L - 1]
                        pv = X[r, p]
                        if pv != pv or pv < 0:
                            break
                        config = config * n_values[p] + np.int64(pv)
                        if config_count[config_base[j, L] + config] - w < min_count:
                            break
                        reached = L
                        cells[L] = level_base[j, L] + config * vj + x
                        configs[L] = config_base[j, L] + config
                    for L in range(reached + 1):
                        for c in range(K):
                            own = w if c == y else 0.0
                            if hierarchical and L > 0:
                                mass = vj * pseudo[j]
                                level_p[L, c] = _ratio(
                                    counts[cells[L], c] - own + mass * level_p[L - 1, c],
                                    config_class[configs[L], c] - own + mass,
                                    vj,
                                )
                            else:
                                level_p[L, c] = _ratio(
                                    counts[cells[L], c] - own + pseudo[j],
                                    config_class[configs[L], c] - own + vj * pseudo[j],
                                    vj,
                                )
                    for kk in range(k + 1):
                        L = min(kk, reached)
                        for c in range(K):
                            joint[kk, c], exponent[kk, c] = _times(
                                joint[kk, c], exponent[kk, c], level_p[L, c]
                            )
                    for kk in range(1, reached + 1):
                        same[kk] = False
            for kk in range(k + 1):
                if kk > 0 and same[kk]:
                    for m in range(6):
                        partial[s, kk, m] += loss[m]
                    continue
                top = np.iinfo(np.int64).min  # the largest exponent among possible classes
                for c in range(K):
                    if joint[kk, c] > 0.0 and exponent[kk, c] > top:
                        top = exponent[kk, c]
                best = 0
                norm = 0.0
                for c in range(K):
                    if joint[kk, c] <= 0.0:
                        post[c] = 0.0
                    elif exponent[kk, c] == top:
                        post[c] = joint[kk, c]
                    else:
                        post[c] = math.ldexp(joint[kk, c], exponent[kk, c] - top)
                    if post[c] > post[best]:
                        best = c
                    norm += post[c]
                if norm <= 0.0:  # every class impossible: the posterior is uniform
                    for c in range(K):
                        post[c] = 1.0
                    norm = float(K)
                sq = 0.0
                for c in range(K):
                    post[c] /= norm
                    diff = post[c] - (1.0 if c == y else 0.0)
                    sq += diff * diff
                py = post[y]
                if py >= _SMALL:
                    row_loss = -np.log(py)
                    loss[0] = w * row_loss
                elif joint[kk, y] > 0.0:  # in logs: post[y] lost its precision or underflowed
                    log_py = (
                        np.log(joint[kk, y])
                        + (exponent[kk, y] - top) * _LN2
                        - np.log(norm)
                    )
                    row_loss = min(-log_py, 745.0)
                    loss[0] = w * row_loss
                else:
                    row_loss = 745.0
                    loss[0] = w * row_loss
                loss[1] = w * (1.0 if best != y else 0.0)
                loss[2] = w * sq
                loss[3] = w * row_loss * row_loss
                loss[4] = loss[1]  # an error is 0 or 1: its square is itself
                loss[5] = w * sq * sq
                for m in range(6):
                    partial[s, kk, m] += loss[m]
    return partial


@kernel
def leave_one_out_shifts(
    X, cls, weight, n_values, parents, depth, level_base, config_base, counts, config_class,
    config_count, pseudo, hierarchical, min_count, out, start, stop,
):  # pragma: no cover - compiled  # fmt: skip
    """out[r] = log P̂₋ᵣ(x_r | y_r) − log P̂(x_r | y_r) for the rows start ≤ r < stop: how much
    the log-likelihood of a row's own class falls when its own weight w is taken out of every
    count it touched (configuration counts, and the level the row reaches, included), over the
    attributes with depth[j] ≥ 0. The other classes' counts do not hold the row: their scores
    do not move. A factor whose estimate without the row is 0 is left as it was."""
    d = X.shape[1]
    levels = 1
    for j in range(d):
        levels = max(levels, depth[j] + 1)
    # each level's estimate P̂(x_j | y, u_j) with the row's weight in (side 0) and out (side 1)
    level_p = np.empty((2, levels))
    estimate = np.empty(2)
    for r in range(start, stop):
        y = cls[r]
        w = weight[r]
        shift = 0.0
        for j in range(d):
            if depth[j] < 0:
                continue
            v = X[r, j]
            if v != v or v < 0:
                continue
            x = np.int64(v)
            vj = n_values[j]
            if x >= vj:
                continue
            for side in range(2):
                # the estimates of ParentCounts.tables, each count less ``own``, at the level
                # the row reaches with those counts (network_scores' rule)
                own = 0.0 if side == 0 else w
                cell = level_base[j, 0] + x
                config_cell = config_base[j, 0]
                level_p[side, 0] = _ratio(
                    counts[cell, y] - own + pseudo[j],
                    config_class[config_cell, y] - own + vj * pseudo[j],
                    vj,
                )
                config = 0
                reached = 0
                for L in range(1, depth[j] + 1):
                    p = parents[j, L - 1]
                    config = _next_config(config, X[r, p], n_values[p])
                    if config < 0 or config_count[config_base[j, L] + config] - own < min_count:
                        break
                    reached = L
                    cell = level_base[j, L] + config * vj + x
                    config_cell = config_base[j, L] + config
                    if hierarchical:
                        mass = vj * pseudo[j]
                        level_p[side, L] = _ratio(
                            counts[cell, y] - own + mass * level_p[side, L - 1],
                            config_class[config_cell, y] - own + mass,
                            vj,
                        )
                    else:
                        level_p[side, L] = _ratio(
                            counts[cell, y] - own + pseudo[j],
                            config_class[config_cell, y] - own + vj * pseudo[j],
                            vj,
                        )
                estimate[side] = level_p[side, reached]
            p_full, p_held = estimate[0], estimate[1]
            if p_full > 0.0 and p_held > 0.0:
                shift += np.log(p_held) - np.log(p_full)
        out[r] = shift
