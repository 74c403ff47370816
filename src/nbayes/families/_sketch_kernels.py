"""The compiled loops (Numba) of the value sketch (:mod:`nbayes.families.sketch`): counting the
distinct keys a grid would give, summing a batch's values per key and class, pooling sorted cells,
and merging a batch's grid sums into the stored keys. Each is cached once per install
(:mod:`nbayes._jit`; ``python -m nbayes.compile``).
"""

from __future__ import annotations

import math

import numpy as np

from .._jit import kernel


@kernel
def _pooled_count(keys, factor):  # pragma: no cover - compiled
    """How many distinct keys :func:`pool` gives sorted ``keys`` on the grid 2^level, with
    factor = 2^-level a normal float, without building them: ⌊x · factor⌋ / factor is
    ⌊x / 2^level⌋ · 2^level exactly (multiplying or dividing by a power of 2 only moves the
    exponent, and rounds as ``ldexp`` does where the result is subnormal)."""
    count = 0
    previous = 0.0
    for i in range(keys.shape[0]):
        x = keys[i]
        scaled = x * factor
        key = x if abs(scaled) >= 2.0**53 else math.floor(scaled) / factor
        if i == 0 or key != previous:
            count += 1
        previous = key
    return count


@kernel
def _distinct_keys(keys, order):  # pragma: no cover - compiled
    """The distinct values of ``keys`` in increasing order, given ``order`` that sorts them
    (any sort). Each run of equal keys in ``order`` is put back in input order, in place, so
    that sums over a run add its entries in the order ``np.bincount`` would. A zero key is
    kept as +0.0."""
    n = order.shape[0]
    size = 0
    start = 0
    for i in range(1, n + 1):
        if i == n or keys[order[i]] != keys[order[start]]:
            if i - start > 16:
                order[start:i] = np.sort(order[start:i])
            else:  # a short run (the usual one): insertion sort, no allocation
                for a in range(start + 1, i):
                    held = order[a]
                    b = a - 1
                    while b >= start and order[b] > held:
                        order[b + 1] = order[b]
                        b -= 1
                    order[b + 1] = held
            size += 1
            start = i
    distinct = np.empty(size)
    r = -1
    for i in range(n):
        if i == 0 or keys[order[i]] != keys[order[i - 1]]:
            r += 1
            distinct[r] = keys[order[i]] + 0.0  # -0.0 + 0.0 is +0.0
    return distinct


@kernel
def _sum_runs(entries, order, cells, n_classes):  # pragma: no cover - compiled
    """W and T per (cell, class) of ``entries``, rows of (key, class, weight, total), without
    a sort of their own: ``order`` sorts the keys with equal keys in input order
    (:func:`_distinct_keys`) and ``cells[k]`` is the key the k-th distinct key is stored under
    (itself, or :func:`pool` of it on a coarser grid; never decreasing). An entry is one row,
    so that reading the entries in key order costs one cache line each.

    Each key's sums run over its entries in input order (as ``np.bincount`` over the entries
    adds them), and each cell's over its keys in key order, keys without weight in a class
    left out (as :func:`_pool_sorted` adds them): the sums of the entries summed per key, then
    pooled, bit for bit."""
    size = 0
    for k in range(cells.shape[0]):
        if k == 0 or cells[k] != cells[k - 1]:
            size += 1
    merged = np.empty(size)
    W = np.zeros((size, n_classes))
    T = np.zeros((size, n_classes))
    key_weight = np.zeros(n_classes)  # a repeated key's sums
    key_total = np.zeros(n_classes)
    n = order.shape[0]
    r = -1
    k = 0
    i = 0
    while i < n:  # key k is the key of entries[order[i:j]]
        first = order[i]
        key = entries[first, 0]
        j = i + 1
        while j < n and entries[order[j], 0] == key:
            j += 1
        if k == 0 or cells[k] != cells[k - 1]:
            r += 1
            merged[r] = cells[k]
        if j == i + 1:  # a key of one entry (the usual one): its sums are its values
            if entries[first, 2] != 0:
                c = int(entries[first, 1])
                W[r, c] += entries[first, 2]
                T[r, c] += entries[first, 3]
        else:
            key_weight[:] = 0.0
            key_total[:] = 0.0
            for t in range(i, j):
                e = order[t]
                c = int(entries[e, 1])
                key_weight[c] += entries[e, 2]
                key_total[c] += entries[e, 3]
            for c in range(n_classes):
                if key_weight[c] != 0:
                    W[r, c] += key_weight[c]
                    T[r, c] += key_total[c]
        i = j
        k += 1
    return merged, W, T


@kernel
def _pool_sorted(cells, weight, total):  # pragma: no cover - compiled
    """Stored rows of W and T summed per cell, in key order, entries of zero weight left out
    (those :meth:`FeatureSketch._entries` leaves out): ``cells`` is :func:`pool` of the stored
    (sorted) keys on a coarser grid, so the keys of a cell are neighbours and need no sort."""
    m, n_classes = weight.shape
    size = 0
    for i in range(m):
        if i == 0 or cells[i] != cells[i - 1]:
            size += 1
    merged = np.empty(size)
    W = np.zeros((size, n_classes))
    T = np.zeros((size, n_classes))
    r = -1
    for i in range(m):
        if i == 0 or cells[i] != cells[i - 1]:
            r += 1
            merged[r] = cells[i]
        for c in range(n_classes):
            if weight[i, c] != 0:
                W[r, c] += weight[i, c]
                T[r, c] += total[i, c]
    return merged, W, T


@kernel
def _grid_sums(values, cls, weight, factor, exact, n_classes):  # pragma: no cover - compiled
    """A batch of one column in two passes, rows of weight 0 and NaN values left out.

    Pass 1: how many values, their min and max, and (``exact``) whether all are whole numbers.
    Pass 2, where the grid cells ⌊x · factor⌋ (factor = 2^-level; the values themselves when
    ``exact``) span few enough cells to count (span · K ≤ 4n): W and T = Σ w·x per (cell,
    class), summed in row order as ``np.bincount`` would. Returns (count, min, max, lowest
    cell, W, T), W and T empty where counting does not apply."""
    n = values.shape[0]
    count = 0
    smallest = np.inf
    largest = -np.inf
    whole = True
    for i in range(n):
        x = values[i]
        if weight[i] != 0 and x == x:
            count += 1
            smallest = min(smallest, x)
            largest = max(largest, x)
            whole &= math.floor(x) == x
    empty = np.zeros(0)
    if count < 1024 or (exact and not whole):  # few values, or exact non-whole keys: a sort
        return count, smallest, largest, 0.0, empty, empty
    low, high = smallest * factor, largest * factor  # exactly ldexp: factor is a power of 2
    if not (abs(low) < 2.0**53 and abs(high) < 2.0**53):  # pool keeps such values as they are
        return count, smallest, largest, 0.0, empty, empty
    low, high = math.floor(low), math.floor(high)  # the cells of the extremes bound them all
    span = high - low + 1
    if not (span * n_classes <= 4 * count and span < 2**31):
        return count, smallest, largest, 0.0, empty, empty
    size = int(span) * n_classes
    W = np.zeros(size)
    T = np.zeros(size)
    for i in range(n):
        x = values[i]
        w = weight[i]
        if w != 0 and x == x:
            slot = int(math.floor(x * factor) - low) * n_classes + cls[i]
            W[slot] += w
            T[slot] += w * x
    return count, smallest, largest, low, W, T


@kernel
def _merge_on_grid(keys, weight, total, low, factor, W, T, max_keys):  # pragma: no cover
    """The stored (keys, W, T) plus a batch's grid sums (:func:`_sums_on_grid`), merged in one
    walk of the two sorted key lists, no search and no sort: the usual batch of a stream once
    its grid has settled, whose keys are stored ones and perhaps a few new cells at the tails.
    A used cell's key is (low + cell) / factor, as :func:`_grid_entries` gives it; each sum is
    the stored one plus the batch's (a new key's is the batch's), the sums
    :meth:`FeatureSketch._store` gives. Returns (keys, W, T, size): size −1 (nothing usable)
    where the union would hold more than ``max_keys`` keys, and ``keys`` the stored array itself
    where no key is new."""
    m, n_classes = weight.shape
    cells = W.shape[0] // n_classes
    used = np.zeros(cells, dtype=np.bool_)
    for slot in range(W.shape[0]):
        if W[slot] != 0:
            used[slot // n_classes] = True
    room = m + np.count_nonzero(used)  # every stored key and every used cell, at most
    merged = np.empty(room)
    counts = np.zeros((room, n_classes))
    sums = np.zeros((room, n_classes))
    r = 0
    a = 0
    for cell in range(cells):
        if not used[cell]:
            continue
        key = (low + cell) / factor
        while a < m and keys[a] < key:  # stored keys below this cell's
            merged[r] = keys[a]
            counts[r] = weight[a]
            sums[r] = total[a]
            a += 1
            r += 1
        merged[r] = key
        if a < m and keys[a] == key:
            merged[r] = keys[a]
            counts[r] = weight[a]
            sums[r] = total[a]
            a += 1
        at = cell * n_classes
        for c in range(n_classes):
            if W[at + c] != 0:
                counts[r, c] += W[at + c]
                sums[r, c] += T[at + c]
        r += 1
    while a < m:  # stored keys above every cell
        merged[r] = keys[a]
        counts[r] = weight[a]
        sums[r] = total[a]
        a += 1
        r += 1
    if r > max_keys:
        return keys, weight, total, -1
    return (keys if r == m else merged[:r]), counts[:r], sums[:r], r


@kernel
def _take_out(keys, offsets, weight, total, pooled, values, cls, row_weight):  # pragma: no cover
    """Rows taken back out of packed sketches, in place: column j owns the sorted keys
    ``keys[offsets[j]:offsets[j + 1]]`` and their rows of W and T; each row i with a value x
    (not NaN) and a weight w ≠ 0 finds its pooled key there by bisection, and
    W[key, c_i] −= w, T[key, c_i] −= w · x, in row order. False (and the arrays partly changed)
    where a row's key is not among its column's keys: that row was never counted there."""
    d, n = pooled.shape
    for j in range(d):
        low, high = offsets[j], offsets[j + 1]
        column = keys[low:high]
        for i in range(n):
            w = row_weight[i]
            x = values[j, i]
            if w == 0.0 or x != x:
                continue
            at = low + np.searchsorted(column, pooled[j, i])
            if at >= high or keys[at] != pooled[j, i]:
                return False
            weight[at, cls[i]] -= w
            total[at, cls[i]] -= w * x
    return True


@kernel
def _interval_sums(centres, weight, key_offsets, cuts, cut_offsets):  # pragma: no cover
    """n_{c,l} for many columns at once: column j owns the keys
    ``key_offsets[j]:key_offsets[j + 1]`` (their pooled centres and W rows) and the sorted cut
    points ``cuts[cut_offsets[j]:cut_offsets[j + 1]]``; a key falls in interval
    l = #{cuts < centre} (t_{l−1} < x ≤ t_l) of its column, whose intervals are the columns
    ``cut_offsets[j] + j`` … ``cut_offsets[j + 1] + j`` of the (K, Σ_j B_j) result. Keys are
    added in order, as ``np.add.at`` adds them."""
    d = key_offsets.shape[0] - 1
    n_classes = weight.shape[1]
    counts = np.zeros((n_classes, cut_offsets[d] + d))
    for j in range(d):
        first = cut_offsets[j] + j
        column = cuts[cut_offsets[j] : cut_offsets[j + 1]]
        for m in range(key_offsets[j], key_offsets[j + 1]):
            at = first + np.searchsorted(column, centres[m])
            for k in range(n_classes):
                counts[k, at] += weight[m, k]
    return counts


@kernel
def _positions(block, values, offsets, match, unseen):  # pragma: no cover - compiled
    """Each x's position among its column's sorted ``values[offsets[j]:offsets[j + 1]]``, for
    an (n, d) block at once; NaN (missing) stays NaN. Without ``match``: the interval
    l = #{cuts < x} (t_{l−1} < x ≤ t_l) among cut points. With ``match``: the category code of
    an x that is one of the values (a sketch's keys), ``unseen`` for any other x."""
    n, d = block.shape
    codes = np.empty((n, d))
    for j in range(d):
        column = values[offsets[j] : offsets[j + 1]]
        for i in range(n):
            x = block[i, j]
            if x != x:
                codes[i, j] = np.nan
                continue
            p = np.searchsorted(column, x)
            if match and not (p < column.shape[0] and column[p] == x):
                codes[i, j] = unseen
            else:
                codes[i, j] = p
    return codes
