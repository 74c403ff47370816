"""Compiled loops (Numba) of the semi-naive models: counting pairs, triples and parent
configurations, deriving their log tables, and scoring rows.

Layouts shared by every kernel (v_j = values of attribute j, K classes):

* a value of attribute j with code a is cell ``offsets[j] + a`` of the singles table (V, K);
* the pair (x_i = a, x_j = b), i < j, is cell ``pair_base[i, j] + a·v_j + b`` of the pair
  table (P, K), P = Σ_{i<j} v_i v_j;
* the triple (x_i = a, x_j = b, x_l = e), i < j < l, is cell
  ``triple_base[i, j, l] + (a·v_j + b)·v_l + e`` of the triple table;
* a network attribute j with ordered parents π_j(0), π_j(1), … has one block per level
  L = 0 … |π_j|: the cell of (parent configuration u, x_j) is ``level_base[j, L] + u·v_j + x_j``
  with u = ((x_π(0)·v_π(1) + x_π(1))·v_π(2) + …) over the first L parents, and its
  configuration total is cell ``config_base[j, L] + u``.

A value is missing when it is NaN or negative, and is skipped. At prediction a code ≥ v_j was
never seen in fitting: it is skipped as missing too, and counted.

The counting and scoring kernels do one range ``start ≤ t < stop`` of their outer index (rows,
attributes, pairs, triples) and are serial: their callers share the ranges among threads
(:mod:`nbayes._threads`), each output cell written by one range only, so the numbers are the
same on any number of threads.
Every kernel is cached once per install (:mod:`nbayes._jit`; ``python -m nbayes.compile``).
"""

from __future__ import annotations

import numpy as np

from .._jit import kernel


@kernel
def _observed(X, r, n_values, attr, code):  # pragma: no cover - compiled
    """Write the observed attributes of row r (ascending) and their codes; return (m, unseen)."""
    d = X.shape[1]
    m = 0
    unseen = 0
    for j in range(d):
        v = X[r, j]
        if v != v or v < 0:
            continue
        c = np.int64(v)
        if c >= n_values[j]:
            unseen += 1
            continue
        attr[m] = j
        code[m] = c
        m += 1
    return m, unseen


@kernel
def _log_ratio(numerator, denominator, n_values):  # pragma: no cover - compiled
    """log(numerator / denominator); an empty denominator gives 1/v (the λ → 0⁺ limit)."""
    if denominator <= 0.0:
        return -np.log(max(n_values, 1))
    if numerator <= 0.0:
        return -np.inf
    return np.log(numerator) - np.log(denominator)


# --------------------------------------------------------------------------- counting
@kernel
def column_codes(X, n_values, out, start, stop):  # pragma: no cover - compiled
    """out[j, r] = the code x_rj as int32, or −1 where it is missing or ≥ v_j (unseen), for the
    attributes start ≤ j < stop; returns the number of unseen codes among them. Counting reads
    each attribute's codes as one contiguous run."""
    n = X.shape[0]
    unseen = 0
    for j in range(start, stop):
        v_j = n_values[j]
        for r in range(n):
            v = X[r, j]
            if v != v or v < 0:
                out[j, r] = -1
            elif v >= v_j:
                out[j, r] = -1
                unseen += 1
            else:
                out[j, r] = np.int32(v)
    return unseen


@kernel
def count_pairs(
    C, cls, weight, offsets, n_values, pair_base, pair_list, singles, pairs, start, stop
):  # pragma: no cover - compiled
    """singles[offsets[j] + x_j, c] += w and pairs[pair cell of (x_i, x_j), c] += w for every
    row of class c and every observed attribute (pair of attributes), for the items
    start ≤ t < stop: item t < d is attribute t's singles, item d + p the pair p of
    ``pair_list``.

    C holds the codes by attribute (:func:`column_codes`). Each attribute, and each pair
    (i, j) of ``pair_list``, owns its block of the table, so ranges of items are counted on
    different threads without sharing a cell, and a block stays in cache while the rows stream
    past."""
    d, n = C.shape
    for t in range(start, stop):
        if t < d:
            first = offsets[t]
            for r in range(n):
                a = C[t, r]
                if a >= 0:
                    singles[first + a, cls[r]] += weight[r]
            continue
        p = t - d
        i = pair_list[p, 0]
        j = pair_list[p, 1]
        base = pair_base[i, j]
        v_j = n_values[j]
        for r in range(n):
            a = C[i, r]
            b = C[j, r]
            if a >= 0 and b >= 0:
                pairs[base + a * v_j + b, cls[r]] += weight[r]


@kernel
def count_triples(
    C, cls, weight, n_values, triple_base, triple_list, triples, start, stop
):  # pragma: no cover - compiled
    """triples[triple cell of (x_i, x_j, x_l), c] += w for every row of class c and every three
    observed attributes (i, j, l) = triple_list[t], start ≤ t < stop (i < j < l); each triple
    owns its block of the table."""
    n = C.shape[1]
    for t in range(start, stop):
        i = triple_list[t, 0]
        j = triple_list[t, 1]
        l_ = triple_list[t, 2]
        base = triple_base[i, j, l_]
        v_j = n_values[j]
        v_l = n_values[l_]
        for r in range(n):
            a = C[i, r]
            b = C[j, r]
            e = C[l_, r]
            if a >= 0 and b >= 0 and e >= 0:
                triples[base + (a * v_j + b) * v_l + e, cls[r]] += weight[r]


@kernel
def count_parents(
    C, cls, weight, n_values, parents, n_parents, level_base, counts, start, stop
):  # pragma: no cover - compiled
    """counts[level cell of (u, x_j), c] += w at every level L whose L parents are observed, for
    the attributes start ≤ j < stop; each attribute's levels are its own blocks."""
    n = C.shape[1]
    for j in range(start, stop):
        v_j = n_values[j]
        for r in range(n):
            x = C[j, r]
            if x < 0:
                continue
            c = cls[r]
            w = weight[r]
            counts[level_base[j, 0] + x, c] += w
            config = 0
            for L in range(1, n_parents[j] + 1):
                p = parents[j, L - 1]
                pv = C[p, r]
                if pv < 0:
                    break
                config = config * n_values[p] + pv
                counts[level_base[j, L] + config * v_j + x, c] += w


# --------------------------------------------------------------------------- layout changes
@kernel
def add_singles(src, src_values, src_offsets, dst, dst_offsets, positions):  # pragma: no cover
    """dst[same value, positions[c]] += src[value, c] between two single layouts."""
    K = src.shape[1]
    for j in range(src_values.shape[0]):
        for a in range(src_values[j]):
            s = src_offsets[j] + a
            t = dst_offsets[j] + a
            for c in range(K):
                dst[t, positions[c]] += src[s, c]


@kernel
def add_pairs(src, src_values, src_base, dst, dst_values, dst_base, positions):  # pragma: no cover
    """dst[same pair, positions[c]] += src[pair, c] between two pair layouts."""
    d = src_values.shape[0]
    K = src.shape[1]
    for i in range(d):
        for j in range(i + 1, d):
            for a in range(src_values[i]):
                for b in range(src_values[j]):
                    s = src_base[i, j] + a * src_values[j] + b
                    t = dst_base[i, j] + a * dst_values[j] + b
                    for c in range(K):
                        dst[t, positions[c]] += src[s, c]


@kernel
def add_triples(
    src, src_values, src_base, dst, dst_values, dst_base, positions
):  # pragma: no cover - compiled
    """dst[same triple, positions[c]] += src[triple, c] between two triple layouts."""
    d = src_values.shape[0]
    K = src.shape[1]
    for i in range(d):
        for j in range(i + 1, d):
            for l_ in range(j + 1, d):
                for a in range(src_values[i]):
                    for b in range(src_values[j]):
                        for e in range(src_values[l_]):
                            s = src_base[i, j, l_] + (a * src_values[j] + b) * src_values[l_] + e
                            t = dst_base[i, j, l_] + (a * dst_values[j] + b) * dst_values[l_] + e
                            for c in range(K):
                                dst[t, positions[c]] += src[s, c]


# --------------------------------------------------------------------------- derived tables
@kernel
def pair_margins(pairs, offsets, n_values, pair_base, margins):  # pragma: no cover - compiled
    """margins[offsets[i] + a, j, c] = Σ_b N(c, x_i = a, x_j = b): the class-c rows with
    x_i = a and x_j observed (for every ordered pair i ≠ j)."""
    d = n_values.shape[0]
    K = pairs.shape[1]
    for i in range(d):
        for j in range(i + 1, d):
            for a in range(n_values[i]):
                for b in range(n_values[j]):
                    p = pair_base[i, j] + a * n_values[j] + b
                    for c in range(K):
                        x = pairs[p, c]
                        margins[offsets[i] + a, j, c] += x
                        margins[offsets[j] + b, i, c] += x


@kernel
def pair_conditionals(
    pairs, margins, offsets, n_values, pair_base, pseudo, forward, backward
):  # pragma: no cover - compiled
    """forward[p, c] = log P(x_j = b | c, x_i = a), backward[p, c] = log P(x_i = a | c, x_j = b)
    for the pair cell p of (x_i = a, x_j = b), i < j, with

        P(x_j = b | c, x_i = a) = (N(c, a, b) + p_j) / (Σ_b' N(c, a, b') + v_j p_j).
    """
    d = n_values.shape[0]
    K = pairs.shape[1]
    for i in range(d):
        for j in range(i + 1, d):
            for a in range(n_values[i]):
                for b in range(n_values[j]):
                    p = pair_base[i, j] + a * n_values[j] + b
                    for c in range(K):
                        x = pairs[p, c]
                        forward[p, c] = _log_ratio(
                            x + pseudo[j],
                            margins[offsets[i] + a, j, c] + n_values[j] * pseudo[j],
                            n_values[j],
                        )
                        backward[p, c] = _log_ratio(
                            x + pseudo[i],
                            margins[offsets[j] + b, i, c] + n_values[i] * pseudo[i],
                            n_values[i],
                        )


@kernel
def pair_joints(pairs, n_values, pair_base, pseudo_pair, joint):  # pragma: no cover - compiled
    """joint[p, c] = log P(x_i = a, x_j = b | c)
    = log (N(c, a, b) + q_ij) / (N_c^(ij) + v_i v_j q_ij), N_c^(ij) the class-c rows with both
    observed."""
    d = n_values.shape[0]
    K = pairs.shape[1]
    total = np.zeros(K)
    for i in range(d):
        for j in range(i + 1, d):
            cells = n_values[i] * n_values[j]
            start = pair_base[i, j]
            total[:] = 0.0
            for p in range(start, start + cells):
                for c in range(K):
                    total[c] += pairs[p, c]
            q = pseudo_pair[i, j]
            for p in range(start, start + cells):
                for c in range(K):
                    joint[p, c] = _log_ratio(pairs[p, c] + q, total[c] + cells * q, cells)


@kernel
def triple_conditionals(
    triples, n_values, pair_base, triple_base, pseudo, first, middle, last
):  # pragma: no cover - compiled
    """For the triple cell t of (x_i = a, x_j = b, x_l = e), i < j < l:
    last[t, c] = log P(x_l | c, x_i, x_j), middle[t, c] = log P(x_j | c, x_i, x_l),
    first[t, c] = log P(x_i | c, x_j, x_l), each (N(c, a, b, e) + p_child) over
    (Σ_child-values N + v_child p_child)."""
    d = n_values.shape[0]
    K = triples.shape[1]
    for i in range(d):
        for j in range(i + 1, d):
            for l_ in range(j + 1, d):
                vi = n_values[i]
                vj = n_values[j]
                vl = n_values[l_]
                base = triple_base[i, j, l_]
                m_ij = np.zeros((vi * vj, K))
                m_il = np.zeros((vi * vl, K))
                m_jl = np.zeros((vj * vl, K))
                for a in range(vi):
                    for b in range(vj):
                        for e in range(vl):
                            t = base + (a * vj + b) * vl + e
                            for c in range(K):
                                x = triples[t, c]
                                m_ij[a * vj + b, c] += x
                                m_il[a * vl + e, c] += x
                                m_jl[b * vl + e, c] += x
                for a in range(vi):
                    for b in range(vj):
                        for e in range(vl):
                            t = base + (a * vj + b) * vl + e
                            for c in range(K):
                                x = triples[t, c]
                                last[t, c] = _log_ratio(
                                    x + pseudo[l_], m_ij[a * vj + b, c] + vl * pseudo[l_], vl
                                )
                                middle[t, c] = _log_ratio(
                                    x + pseudo[j], m_il[a * vl + e, c] + vj * pseudo[j], vj
                                )
                                first[t, c] = _log_ratio(
                                    x + pseudo[i], m_jl[b * vl + e, c] + vi * pseudo[i], vi
                                )


@kernel
def conditional_mutual_information(
    pairs, margins, offsets, n_values, pair_base, out
):  # pragma: no cover - compiled
    """out[i, j] = out[j, i] = I(X_i; X_j | C) in nats, over the rows observing both:

    Σ_{c,a,b} P̂(c, a, b) log [ P̂(c, a, b) P̂(c) / (P̂(c, a) P̂(c, b)) ].
    """
    d = n_values.shape[0]
    K = pairs.shape[1]
    class_total = np.zeros(K)
    for i in range(d):
        for j in range(i + 1, d):
            class_total[:] = 0.0
            for a in range(n_values[i]):
                for c in range(K):
                    class_total[c] += margins[offsets[i] + a, j, c]
            total = 0.0
            for c in range(K):
                total += class_total[c]
            value = 0.0
            if total > 0.0:
                for a in range(n_values[i]):
                    for b in range(n_values[j]):
                        p = pair_base[i, j] + a * n_values[j] + b
                        for c in range(K):
                            x = pairs[p, c]
                            if x <= 0.0:
                                continue
                            ca = margins[offsets[i] + a, j, c]
                            cb = margins[offsets[j] + b, i, c]
                            value += x / total * np.log(x * class_total[c] / (ca * cb))
            out[i, j] = max(value, 0.0)
            out[j, i] = out[i, j]


@kernel
def network_tables(
    counts, n_values, parents, n_parents, level_base, config_base, pseudo, log_table,
    config_class, config_count,
):  # pragma: no cover - compiled  # fmt: skip
    """For every attribute j, level L and parent configuration u:
    config_class[config cell, c] = N(c, u) = Σ_x N(c, u, x), config_count[config cell] = Σ_c N(c, u)
    and log_table[cell, c] = log P(x_j | c, u) = log (N(c, u, x_j) + p_j) / (N(c, u) + v_j p_j)."""
    d = n_values.shape[0]
    K = counts.shape[1]
    for j in range(d):
        v = n_values[j]
        configs = 1
        for L in range(n_parents[j] + 1):
            if L > 0:
                configs *= n_values[parents[j, L - 1]]
            for u in range(configs):
                start = level_base[j, L] + u * v
                g = config_base[j, L] + u
                seen = 0.0
                for c in range(K):
                    total = 0.0
                    for x in range(v):
                        total += counts[start + x, c]
                    config_class[g, c] = total
                    seen += total
                config_count[g] = seen
                for x in range(v):
                    for c in range(K):
                        log_table[start + x, c] = _log_ratio(
                            counts[start + x, c] + pseudo[j], config_class[g, c] + v * pseudo[j], v
                        )


# --------------------------------------------------------------------------- scoring
@kernel
def _pair_term(a, b, attr, code, n_values, pair_base, forward, backward):  # pragma: no cover
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
            p, fwd = _pair_term(a, b, attr, code, n_values, pair_base, forward, backward)
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
            i = triple_list[q, 0]
            j = triple_list[q, 1]
            l_ = triple_list[q, 2]
            base = triple_base[i, j, l_]
            v_j = n_values[j]
            v_l = n_values[l_]
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
        m, u = _observed(X, r, n_values, attr, code)
        unseen += u
        for c in range(K):
            out[r, c] = 0.0
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
                p, fwd = _pair_term(a, b, attr, code, n_values, pair_base, forward, backward)
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
def _network_cell(
    X, r, j, x, n_values, parents, depth, level_base, config_base, config_count, min_count
):  # pragma: no cover - compiled
    """The deepest level L ≤ depth whose L parents are observed (and seen in fitting) and whose
    configuration was seen at least min_count times; returns that level's cell of (u, x_j)."""
    cell = level_base[j, 0] + x
    config = 0
    for L in range(1, depth + 1):
        p = parents[j, L - 1]
        pv = X[r, p]
        if pv != pv or pv < 0:
            break
        pc = np.int64(pv)
        if pc >= n_values[p]:
            break
        config = config * n_values[p] + pc
        if config_count[config_base[j, L] + config] < min_count:
            break
        cell = level_base[j, L] + config * n_values[j] + x
    return cell


@kernel
def network_scores(
    X, n_values, parents, depth, level_base, config_base, config_count, log_table, min_count,
    out, start, stop,
):  # pragma: no cover - compiled  # fmt: skip
    """out[r, c] = Σ_j log P(x_j | c, x_π(j)) for the rows start ≤ r < stop, over the observed
    attributes with depth[j] ≥ 0 (depth[j] < 0: attribute left out), each at the level
    :func:`_network_cell` picks. Returns the number of codes unseen in fitting among those rows."""
    d = X.shape[1]
    K = out.shape[1]
    attr = np.empty(d, np.int64)
    code = np.empty(d, np.int64)
    unseen = 0
    for r in range(start, stop):
        m, u = _observed(X, r, n_values, attr, code)
        unseen += u
        for c in range(K):
            out[r, c] = 0.0
        for b in range(m):
            j = attr[b]
            if depth[j] < 0:
                continue
            cell = _network_cell(
                X, r, j, code[b], n_values, parents, depth[j], level_base, config_base,
                config_count, min_count,
            )  # fmt: skip
            for c in range(K):
                out[r, c] += log_table[cell, c]
    return unseen


@kernel
def leave_one_out_losses(
    X, cls, weight, n_values, parents, n_parents, order, level_base, config_base, counts,
    config_class, config_count, class_count, pseudo, min_count, k, start, stop,
):  # pragma: no cover - compiled  # fmt: skip
    """Leave-one-out losses of the nested k-DB models (selective k-DB, Martínez et al. 2016).

    For each training row start ≤ r < stop (its own weight w taken out of every count it
    touched) and each model (s, k'), k' ≤ k — the first s attributes of ``order``, each with at
    most k' parents — the posterior P(c | x) ∝ P(c) Π_j P(x_j | c, u_j) is formed, and the
    returned array (d + 1, k + 1, 3), zero at first, gets, row after row,
    out[s, k', 0] += w · (−log P(y | x)), out[s, k', 1] += w · [argmax_c P(c | x) ≠ y],
    out[s, k', 2] += w · Σ_c (P(c | x) − [c = y])².
    P(c) is the Laplace estimate (N_c − w[c = y] + 1) / (N − w + K); P(x_j | c, u_j) is the
    model's estimate with the row's counts taken out, at the level the row reaches
    (the network scoring rule, with config counts less w).
    """
    d = X.shape[1]
    K = counts.shape[1]
    partial = np.zeros((d + 1, k + 1, 3))
    total_weight = 0.0
    for c in range(K):
        total_weight += class_count[c]
    jll = np.empty((k + 1, K))
    post = np.empty(K)
    cells = np.empty(k + 1, np.int64)
    configs = np.empty(k + 1, np.int64)
    for r in range(start, stop):
        y = cls[r]
        w = weight[r]
        for c in range(K):
            own = w if c == y else 0.0
            prior = np.log((class_count[c] - own + 1.0) / (total_weight - w + K))
            for kk in range(k + 1):
                jll[kk, c] = prior
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
                    for kk in range(k + 1):
                        L = min(kk, reached)
                        for c in range(K):
                            own = w if c == y else 0.0
                            jll[kk, c] += _log_ratio(
                                counts[cells[L], c] - own + pseudo[j],
                                config_class[configs[L], c] - own + vj * pseudo[j],
                                vj,
                            )
            for kk in range(k + 1):
                top = -np.inf
                best = 0
                for c in range(K):
                    if jll[kk, c] > top:
                        top = jll[kk, c]
                        best = c
                norm = 0.0
                for c in range(K):
                    post[c] = np.exp(jll[kk, c] - top) if top > -np.inf else 1.0
                    norm += post[c]
                sq = 0.0
                for c in range(K):
                    post[c] /= norm
                    diff = post[c] - (1.0 if c == y else 0.0)
                    sq += diff * diff
                py = post[y]
                partial[s, kk, 0] += w * (-np.log(py) if py > 0.0 else 745.0)
                partial[s, kk, 1] += w * (1.0 if best != y else 0.0)
                partial[s, kk, 2] += w * sq
    return partial
