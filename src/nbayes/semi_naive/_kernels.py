"""Compiled loops (Numba) of the semi-naive models: counting pairs, triples and parent
configurations, and deriving their log tables (scoring rows: :mod:`._scoring_kernels`).

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
def _triple(triple_list, triple_base, n_values, t):  # pragma: no cover - compiled
    """Triple t of triple_list: its attributes (i, j, l), i < j < l, the first cell of its block
    and the value counts v_j, v_l that stride the block ((x_i · v_j + x_j) · v_l + x_l)."""
    i = triple_list[t, 0]
    j = triple_list[t, 1]
    l_ = triple_list[t, 2]
    return i, j, l_, triple_base[i, j, l_], n_values[j], n_values[l_]


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


#: The copies :func:`_add_block` counts a block in (a power of two), and the most cells × classes
#: a block may have for copies (four copies of 1,024 float64 stay within a core's L1 cache).
COPIES = 4
COPIED_CELLS = 1024


@kernel
def _add_block(cell, cls, weight, n_cells, table, base, copies):  # pragma: no cover - compiled
    """table[base + cell[r], cls[r]] += weight[r] for every row r with cell[r] ≥ 0.

    A column of mostly one value sends run after run of rows to the same cell, and each addition
    to a memory cell waits for the one before it. Where the block is small beside the rows, row r
    is counted in copy r mod COPIES of the block (``copies``, scratch), so that COPIES chains of
    additions run at once, and the copies are then summed into the table: with whole weights the
    same sums exactly, and in a fixed order, so the same on any number of threads. Clearing and
    summing the copies costs 2 · COPIES passes over the block, so only blocks of at most
    rows / (2 · COPIES) cells × classes are copied (measured: blocks that small beside the rows
    gain, larger ones lose); the others are added row by row."""
    n = cell.shape[0]
    K = table.shape[1]
    size = n_cells * K
    if size > COPIED_CELLS or 2 * COPIES * size > n:
        for r in range(n):
            if cell[r] >= 0:
                table[base + cell[r], cls[r]] += weight[r]
        return
    copies[: COPIES * size] = 0.0
    whole = n - n % COPIES
    for r in range(0, whole, COPIES):
        for q in range(COPIES):
            if cell[r + q] >= 0:
                copies[q * size + cell[r + q] * K + cls[r + q]] += weight[r + q]
    for r in range(whole, n):
        if cell[r] >= 0:
            copies[cell[r] * K + cls[r]] += weight[r]
    for a in range(n_cells):
        for c in range(K):
            total = 0.0
            for q in range(COPIES):
                total += copies[q * size + a * K + c]
            table[base + a, c] += total


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
    past (:func:`_add_block`)."""
    d, n = C.shape
    cell = np.empty(n, dtype=np.int64)
    copies = np.empty(COPIES * COPIED_CELLS)
    for t in range(start, stop):
        if t < d:
            _add_block(C[t], cls, weight, n_values[t], singles, offsets[t], copies)
            continue
        p = t - d
        i = pair_list[p, 0]
        j = pair_list[p, 1]
        v_j = n_values[j]
        for r in range(n):
            a = C[i, r]
            b = C[j, r]
            cell[r] = a * v_j + b if a >= 0 and b >= 0 else -1
        _add_block(cell, cls, weight, n_values[i] * v_j, pairs, pair_base[i, j], copies)


@kernel
def count_triples(
    C, cls, weight, n_values, triple_base, triple_list, triples, start, stop
):  # pragma: no cover - compiled
    """triples[triple cell of (x_i, x_j, x_l), c] += w for every row of class c and every three
    observed attributes (i, j, l) = triple_list[t], start ≤ t < stop (i < j < l); each triple
    owns its block of the table (:func:`_add_block`)."""
    n = C.shape[1]
    cell = np.empty(n, dtype=np.int64)
    copies = np.empty(COPIES * COPIED_CELLS)
    for t in range(start, stop):
        i, j, l_, base, v_j, v_l = _triple(triple_list, triple_base, n_values, t)
        for r in range(n):
            a = C[i, r]
            b = C[j, r]
            e = C[l_, r]
            cell[r] = (a * v_j + b) * v_l + e if a >= 0 and b >= 0 and e >= 0 else -1
        _add_block(cell, cls, weight, n_values[i] * v_j * v_l, triples, base, copies)


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
    pairs, margins, offsets, n_values, pair_base, pseudo, hierarchical, log_single, forward,
    backward,
):  # pragma: no cover - compiled  # fmt: skip
    """forward[p, c] = log P(x_j = b | c, x_i = a), backward[p, c] = log P(x_i = a | c, x_j = b)
    for the pair cell p of (x_i = a, x_j = b), i < j, with

        P(x_j = b | c, x_i = a) = (N(c, a, b) + p_j) / (Σ_b' N(c, a, b') + v_j p_j),

    or with ``hierarchical`` shrunk towards the single estimate log_single (P̂(x_j = b | c)):
    (N(c, a, b) + v_j p_j P̂(x_j = b | c)) / (Σ_b' N(c, a, b') + v_j p_j).
    """
    d = n_values.shape[0]
    K = pairs.shape[1]
    for i in range(d):
        for j in range(i + 1, d):
            mass_i = n_values[i] * pseudo[i]
            mass_j = n_values[j] * pseudo[j]
            for a in range(n_values[i]):
                for b in range(n_values[j]):
                    p = pair_base[i, j] + a * n_values[j] + b
                    for c in range(K):
                        x = pairs[p, c]
                        if hierarchical:
                            towards_j = mass_j * np.exp(log_single[offsets[j] + b, c])
                            towards_i = mass_i * np.exp(log_single[offsets[i] + a, c])
                        else:
                            towards_j = pseudo[j]
                            towards_i = pseudo[i]
                        forward[p, c] = _log_ratio(
                            x + towards_j, margins[offsets[i] + a, j, c] + mass_j, n_values[j]
                        )
                        backward[p, c] = _log_ratio(
                            x + towards_i, margins[offsets[j] + b, i, c] + mass_i, n_values[i]
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
    triples, n_values, triple_base, pseudo, first, middle, last
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
                            # as two ratios: ca · cb underflows for tiny weights
                            value += x / total * np.log((x / ca) * (class_total[c] / cb))
            out[i, j] = max(value, 0.0)
            out[j, i] = out[i, j]


@kernel
def network_tables(
    counts, n_values, parents, n_parents, level_base, config_base, pseudo, hierarchical,
    log_table, config_class, config_count,
):  # pragma: no cover - compiled  # fmt: skip
    """For every attribute j, level L and parent configuration u:
    config_class[config cell, c] = N(c, u) = Σ_x N(c, u, x), config_count[config cell] = Σ_c N(c, u)
    and log_table[cell, c] = log P(x_j | c, u) = log (N(c, u, x_j) + p_j) / (N(c, u) + v_j p_j);
    with ``hierarchical`` and L ≥ 1, log (N(c, u, x_j) + v_j p_j P(x_j | c, u⁻)) / (N(c, u) +
    v_j p_j), u⁻ the configuration of the first L − 1 parents (u = u⁻ · v_parent + value)."""
    d = n_values.shape[0]
    K = counts.shape[1]
    for j in range(d):
        v = n_values[j]
        configs = 1
        for L in range(n_parents[j] + 1):
            parent_values = 1
            if L > 0:
                parent_values = n_values[parents[j, L - 1]]
                configs *= parent_values
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
                above = level_base[j, L - 1] + (u // parent_values) * v if L > 0 else 0
                for x in range(v):
                    for c in range(K):
                        if hierarchical and L > 0:
                            mass = v * pseudo[j]
                            prior = np.exp(log_table[above + x, c])
                            log_table[start + x, c] = _log_ratio(
                                counts[start + x, c] + mass * prior, config_class[g, c] + mass, v
                            )
                        else:
                            log_table[start + x, c] = _log_ratio(
                                counts[start + x, c] + pseudo[j],
                                config_class[g, c] + v * pseudo[j],
                                v,
                            )
