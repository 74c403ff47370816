"""Compiled inner loops (Numba): the counting pass of fitting, the gathers and products of
prediction, the log-sum-exp normalisation, and the CSV record scan.

Each kernel is the literal loop of a formula; NumPy cannot express these without materialising
an index array the size of the data (for counting) or an n × d × K array (for gathering).
Missing values arrive as NaN (float input) or a negative code and are skipped.

Prediction kernels work on a range of rows and are compiled serial; the functions without a
``@kernel`` decorator share the rows among threads as :mod:`nbayes._threads` decides (one
thread for small work, dynamic blocks otherwise), so the numbers never depend on the thread
count. Every kernel is cached once per install (:mod:`nbayes._jit`).
"""

from __future__ import annotations

import itertools

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from . import _threads
from ._jit import kernel

#: Bytes of a table small enough to stay in the L1 data cache whatever the gather order.
SMALL_TABLE_BYTES = 32 * 2**10

#: Bytes of the (rows, K) scores a gather block accumulates. For each eight features the
#: block's scores are read and written in row order, which the hardware prefetcher follows even
#: from L3, while every block fetches each feature's part of the table afresh, at random: longer
#: blocks fetch the table fewer times. On a machine with a 512 KiB L2, blocks of 1 MiB and
#: 2 MiB ran alike and about a quarter faster than 256 KiB (categorical predict_proba on one
#: thread, measured when blocks still passed once per feature).
BLOCK_SCORE_BYTES = 2**20

#: Bytes of scores a thread's share of a gather holds at least: shares stay shorter than a
#: block, so that two threads still get several each and balance when one core is busy.
SHARE_SCORE_BYTES = 128 * 2**10

#: How many stored entries ahead the sparse kernels request a table row (about a memory
#: latency's worth of work: K multiply-adds per entry).
PREFETCH = 16


@intrinsic
def prefetch(typingctx, array, row, column):  # pragma: no cover - compiled
    """A hint to bring array[row, column] into the cache (LLVM's llvm.prefetch: read, high
    locality); it never faults and changes no result."""

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        view = context.make_array(array_type)(context, builder, args[0])
        indices = [
            context.cast(builder, value, kind, types.intp)
            for value, kind in zip(args[1:], signature.args[1:], strict=True)
        ]
        pointer = cgutils.get_item_pointer2(
            context,
            builder,
            data=view.data,
            shape=cgutils.unpack_tuple(builder, view.shape),
            strides=cgutils.unpack_tuple(builder, view.strides),
            layout=array_type.layout,
            inds=indices,
            boundscheck=False,
        )
        byte_pointer = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        function = builder.module.declare_intrinsic(
            "llvm.prefetch",
            [byte_pointer],
            fnty=ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32]),
        )
        builder.call(function, [builder.bitcast(pointer, byte_pointer), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return types.void(array, row, column), codegen


@kernel
def largest_magnitude_flat(values):  # pragma: no cover - compiled
    """max |x| over a 1-d float array, NaN left out (0 when there is no other value), in one
    pass: four running maxima, so that the loop is not one chain of dependent comparisons."""
    n = values.shape[0]
    m0 = m1 = m2 = m3 = 0.0
    stop = n - n % 4
    for i in range(0, stop, 4):
        a0 = abs(values[i])
        a1 = abs(values[i + 1])
        a2 = abs(values[i + 2])
        a3 = abs(values[i + 3])
        m0 = a0 if a0 > m0 else m0  # NaN compares false: left out
        m1 = a1 if a1 > m1 else m1
        m2 = a2 if a2 > m2 else m2
        m3 = a3 if a3 > m3 else m3
    for i in range(stop, n):
        a = abs(values[i])
        m0 = a if a > m0 else m0
    return max(max(m0, m1), max(m2, m3))


@kernel
def count_codes(X, cls, weight, offsets, counts):  # pragma: no cover - compiled
    """counts[c, offsets[j] + v] += w_i for every row i of class c with x_ij = v (v ≥ 0)."""
    n, d = X.shape
    for i in range(n):
        c = cls[i]
        w = weight[i]
        for j in range(d):
            v = X[i, j]
            if v != v or v < 0:  # NaN or a negative code: missing
                continue
            counts[c, offsets[j] + np.int64(v)] += w


@kernel(inline="always")
def table_row(v, offset, n_category):  # pragma: no cover - compiled
    """The table row of a feature's code v, ``offset`` + v (``offset``: the feature's first
    row), or -1 for a missing value (NaN or a negative code) or a code ≥ ``n_category`` (the
    feature's categories), never seen in fitting.

    Scalars only: handed the arrays instead, each call took a reference on every one of them
    and released it (atomic operations Numba does not prune across this function's branches),
    some 35 ns a value, ten times the gather itself with few classes."""
    if v != v or v < 0:
        return -1
    code = np.int64(v)
    return offset + code if code < n_category else -1


@kernel(inline="always")
def add_code(
    X, i, j, offsets, n_categories, table, unknown_table, unknown_mode, out
):  # pragma: no cover - compiled
    """out[i, :] += table[offsets[j] + x_ij, :] for one value, or unknown_table[j, :] for a code
    never seen in fitting (``unknown_mode`` 1; skipped with 0); a missing value (NaN or a
    negative code) adds nothing. Returns 1 for an unseen code, else 0."""
    row = table_row(X[i, j], offsets[j], n_categories[j])
    K = table.shape[1]
    if row >= 0:
        for k in range(K):
            out[i, k] += table[row, k]
        return 0
    v = X[i, j]
    if v != v or v < 0:
        return 0
    if unknown_mode == 1:
        for k in range(K):
            out[i, k] += unknown_table[j, k]
    return 1


@kernel
def gather_rows(
    X, offsets, n_categories, table, unknown_table, unknown_mode, out, start, stop, rows_per_block
):  # pragma: no cover - compiled
    """out[i, :] += Σ_j table[offsets[j] + x_ij, :] for rows start ≤ i < stop.

    Blocked for the cache: for each block of ``rows_per_block`` rows, the table parts of
    eight features at a time (S_j rows of K values each) are read for every row of the block
    before the next eight, so they stay in L1/L2 while the block's scores stream through L2 in
    row order; with ``rows_per_block`` 1 this is the plain row-by-row loop (best when the whole
    table fits in L1). A row's scores are loaded and stored once per eight features, not once
    per feature: the eight terms are added in registers, left to right, which rounds exactly as
    adding them one by one. Each score is thus summed over j in increasing order whatever the
    blocking or the sharing of rows among threads, and the result never depends on either.

    A code ≥ n_categories[j] was never seen in fitting: with ``unknown_mode`` 0 it is skipped,
    with 1 it takes ``unknown_table[j, :]``. NaN or a negative code is missing (skipped). Eight
    features holding such a value are added one at a time (:func:`add_code`).
    Returns the number of unseen codes met.
    """
    d = X.shape[1]
    K = table.shape[1]
    grouped = d - d % 8
    unseen = 0
    for first in range(start, stop, rows_per_block):
        last = min(stop, first + rows_per_block)
        for j in range(0, grouped, 8):
            for i in range(first, last):
                r0 = table_row(X[i, j], offsets[j], n_categories[j])
                r1 = table_row(X[i, j + 1], offsets[j + 1], n_categories[j + 1])
                r2 = table_row(X[i, j + 2], offsets[j + 2], n_categories[j + 2])
                r3 = table_row(X[i, j + 3], offsets[j + 3], n_categories[j + 3])
                r4 = table_row(X[i, j + 4], offsets[j + 4], n_categories[j + 4])
                r5 = table_row(X[i, j + 5], offsets[j + 5], n_categories[j + 5])
                r6 = table_row(X[i, j + 6], offsets[j + 6], n_categories[j + 6])
                r7 = table_row(X[i, j + 7], offsets[j + 7], n_categories[j + 7])
                if (r0 | r1 | r2 | r3 | r4 | r5 | r6 | r7) >= 0:
                    for k in range(K):
                        out[i, k] = (
                            out[i, k]
                            + table[r0, k]
                            + table[r1, k]
                            + table[r2, k]
                            + table[r3, k]
                            + table[r4, k]
                            + table[r5, k]
                            + table[r6, k]
                            + table[r7, k]
                        )
                else:
                    for q in range(j, j + 8):
                        unseen += add_code(
                            X, i, q, offsets, n_categories, table, unknown_table, unknown_mode, out
                        )
        for j in range(grouped, d):
            for i in range(first, last):
                # the common case written out: through add_code alone this loop ran about a
                # third slower (n=1,000,000, d=20, K=5, where it is a fifth of the work)
                row = table_row(X[i, j], offsets[j], n_categories[j])
                if row >= 0:
                    for k in range(K):
                        out[i, k] += table[row, k]
                else:
                    unseen += add_code(
                        X, i, j, offsets, n_categories, table, unknown_table, unknown_mode, out
                    )
    return unseen


def gather_codes(X, offsets, n_categories, table, unknown_table, unknown_mode, out) -> int:
    """out[i, :] += Σ_j table[offsets[j] + x_ij, :], the categorical log-likelihood, on as many
    threads as the work pays for (:mod:`nbayes._threads`). Returns the number of unseen codes.
    """
    n, d = X.shape
    K = table.shape[1]

    def rows_holding(score_bytes: int) -> int:  # 1: the row loop, for a table in L1
        small = table.nbytes <= SMALL_TABLE_BYTES
        return 1 if small else max(64, score_bytes // (8 * max(K, 1)))

    rows_per_block = rows_holding(BLOCK_SCORE_BYTES)
    threads = _threads.plan(n * d * max(K, 1))
    parts = _threads.blocks(n, threads, minimum=max(256, rows_holding(SHARE_SCORE_BYTES)))

    def body(start: int, stop: int) -> int:
        return gather_rows(
            X,
            offsets,
            n_categories,
            table,
            unknown_table,
            unknown_mode,
            out,
            start,
            stop,
            rows_per_block,
        )

    return int(sum(_threads.run(body, parts, threads)))


@kernel
def count_csr(indptr, indices, data, cls, weight, counts):  # pragma: no cover - compiled
    """counts[c, t] += w_i x_it over the stored entries of CSR rows (Σ_i over class c).

    The counts row of entry p + PREFETCH is requested while entry p is added (software
    prefetch: a vocabulary's counts are read in random order and rarely in cache).
    """
    n = indptr.shape[0] - 1
    end = indptr[n]
    for i in range(n):
        c = cls[i]
        w = weight[i]
        for p in range(indptr[i], indptr[i + 1]):
            if p + PREFETCH < end:
                prefetch(counts, c, indices[p + PREFETCH])
            counts[c, indices[p]] += w * data[p]


@kernel
def csr_rows_times_table(indptr, indices, data, table, out, start, stop):  # pragma: no cover
    """out[i, :] += Σ_t x_it table[t, :] for CSR rows start ≤ i < stop.

    Rows of the table are read in the order of the stored entries, at random over a table
    that is often larger than the caches: the row of entry p + PREFETCH is requested while
    entry p is added, so its memory latency overlaps useful work. Every cache line of that
    row is requested (a row of K = 20 doubles spans three); requesting only the first made
    the product 30-50 % slower on one thread (CSR 100,000 × 200,000 and 40,000 × 120,000).
    """
    K = table.shape[1]
    end = indptr[stop]
    for i in range(start, stop):
        for p in range(indptr[i], indptr[i + 1]):
            if p + PREFETCH < end:
                ahead = indices[p + PREFETCH]
                for k in range(0, K, 8):  # 8 doubles: one 64-byte line
                    prefetch(table, ahead, k)
                prefetch(table, ahead, K - 1)  # the last line, when the row straddles one more
            t = indices[p]
            x = data[p]
            for k in range(K):
                out[i, k] += x * table[t, k]


def csr_times_table(indptr, indices, data, table, out) -> None:
    """out[i, :] += Σ_t x_it table[t, :] for CSR rows: the sparse × dense product, its rows
    shared among threads in blocks of about equal stored entries."""
    n = indptr.shape[0] - 1
    nnz = int(indptr[-1] - indptr[0]) if n > 0 else 0
    threads = _threads.plan(nnz * table.shape[1])
    parts = _threads.blocks(nnz, threads, minimum=4096)
    if len(parts) > 1:
        # entry blocks → row blocks: each row goes to the block its first entry falls in
        edges = np.searchsorted(indptr, [indptr[0] + stop for _, stop in parts[:-1]])
        edges = np.unique(np.concatenate(([0], np.minimum(edges, n), [n])))
        parts = [(int(a), int(b)) for a, b in itertools.pairwise(edges) if b > a]
    else:
        parts = [(0, n)] if n > 0 else []

    def body(start: int, stop: int) -> None:
        csr_rows_times_table(indptr, indices, data, table, out, start, stop)

    _threads.run(body, parts, threads)


# ---------------------------------------------------------------------- normalisation
_LN2_HI = 6.93147180369123816490e-01  # ln 2 split in two (Cody & Waite): k·LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10
_INV_LN2 = 1.44269504088896338700e00
_ROUND = 6755399441055744.0  # 1.5 · 2^52: adding it rounds to an integer kept in the low bits
_EXP_FLOOR = -708.0  # below this exp(x) < 2^-1021: taken as 0 (less than 1e-300 of a total ≥ 1)


@kernel(fastmath={"contract"})
def exp_nonpositive(x, out, scratch):  # pragma: no cover - compiled
    """out = exp(x) for x ≤ 0, in loops the compiler vectorises (libm's exp is one call per value).

    exp(x) = 2^k · exp(r), k = round(x / ln 2), r = x − k ln 2 ∈ [−ln2/2, ln2/2], exp(r) by its
    Taylor polynomial of degree 13 (truncation below 1e-17 relative), 2^k built from its bits.
    Error within 1 ulp of the exact value; x < −708, −inf and NaN give 0. ``scratch`` is a float
    array at least as long as x (it holds k); ``out`` must not be ``x``.
    """
    n = x.shape[0]
    bits = scratch.view(np.int64)
    for i in range(n):
        v = x[i]
        v = v if v > _EXP_FLOOR else _EXP_FLOOR
        s = v * _INV_LN2 + _ROUND
        k = s - _ROUND
        r = (v - k * _LN2_HI) - k * _LN2_LO
        p = 1.0 / 6227020800.0
        p = p * r + 1.0 / 479001600.0
        p = p * r + 1.0 / 39916800.0
        p = p * r + 1.0 / 3628800.0
        p = p * r + 1.0 / 362880.0
        p = p * r + 1.0 / 40320.0
        p = p * r + 1.0 / 5040.0
        p = p * r + 1.0 / 720.0
        p = p * r + 1.0 / 120.0
        p = p * r + 1.0 / 24.0
        p = p * r + 1.0 / 6.0
        p = p * r + 0.5
        p = p * r + 1.0
        p = p * r + 1.0
        out[i] = p
        scratch[i] = s
    for i in range(n):  # the integer k sits in the low bits of s: 2^k = (k + 1023) << 52
        bits[i] = (bits[i] - 0x4338000000000000 + 1023) << 52
    for i in range(n):
        out[i] = out[i] * scratch[i] if x[i] > _EXP_FLOOR else 0.0


@kernel(fastmath={"contract"})
def normalize_block(jll, log_prior, as_log, out, start, stop):  # pragma: no cover - compiled
    """Posterior of rows start ≤ i < stop by log-sum-exp: out = jll − log Σ_k exp(jll_k) (or
    its exp). ``out`` may be ``jll`` (each block of rows is read before it is written).

    NaN counts as −inf. A row that is −inf for every class takes ``log_prior`` instead (the
    features carried no usable evidence); in a row with +inf scores those classes share the
    posterior equally. Returns the number of rows that took the prior.
    """
    K = jll.shape[1]
    rows = max(1, 2048 // max(K, 1))
    shifted = np.empty(rows * K)
    e = np.empty(rows * K)
    scratch = np.empty(rows * K)
    dead = 0
    for first in range(start, stop, rows):
        last = min(stop, first + rows)
        m = (last - first) * K
        for i in range(first, last):
            top = -np.inf
            for k in range(K):
                v = jll[i, k]
                if v > top:  # False for NaN
                    top = v
            base = (i - first) * K
            if top == -np.inf:
                dead += 1
                for k in range(K):
                    if log_prior[k] > top:
                        top = log_prior[k]
                for k in range(K):
                    shifted[base + k] = log_prior[k] - top
            elif top == np.inf:
                # +inf scores (possible only in complement weights with λ = 0) share the mass
                # among themselves; inf − inf would be NaN
                for k in range(K):
                    shifted[base + k] = 0.0 if jll[i, k] == top else -np.inf
            else:
                for k in range(K):
                    shifted[base + k] = jll[i, k] - top
        exp_nonpositive(shifted[:m], e[:m], scratch[:m])
        for i in range(first, last):
            base = (i - first) * K
            total = 0.0
            for k in range(K):
                total += e[base + k]
            if as_log:
                log_total = np.log(total)
                for k in range(K):
                    v = shifted[base + k]
                    out[i, k] = v - log_total if v == v else -np.inf
            else:
                for k in range(K):
                    out[i, k] = e[base + k] / total
    return dead


def normalize_rows(jll, log_prior, as_log, out) -> int:
    """Posterior per row by log-sum-exp (see :func:`normalize_block`), on as many threads as the
    work pays for. Returns the number of rows that fell back to the prior."""
    n, K = jll.shape
    threads = _threads.plan(_threads.EXP_STEPS * n * K)  # an exp and a few passes per value
    parts = _threads.blocks(n, threads, minimum=64)

    def body(start: int, stop: int) -> int:
        return normalize_block(jll, log_prior, as_log, out, start, stop)

    return int(sum(_threads.run(body, parts, threads)))


@kernel
def scan_records(buffer, separator, quote, final, ends, fields, lines):  # pragma: no cover
    """Find the CSV records of a byte buffer that starts at a record boundary.

    RFC 4180 quoting, as Polars and Python's csv module read it: a quote opens a quoted field
    only at the start of a field; inside, "" is an escaped quote and a single quote closes the
    field (any text after it, up to the separator, is kept literally); a quote elsewhere is an
    ordinary character. A newline ends a record unless it lies inside a quoted field. For each
    complete record: the offset just past its end, its number of fields (separators outside
    quotes + 1; 0 for a blank line) and its line number relative to the buffer start. With
    ``final`` the unterminated tail is a record too. Returns the number of records and the
    bytes they span.
    """
    n = buffer.shape[0]
    count = 0
    n_fields = 1
    inside = False
    at_field_start = True
    start = 0
    line = 0
    record_line = 0
    i = 0
    while i < n:
        c = buffer[i]
        if inside:
            if c == quote:
                if i + 1 < n and buffer[i + 1] == quote:
                    i += 1  # an escaped quote
                else:
                    inside = False
        elif c == quote and at_field_start:
            inside = True
            at_field_start = False
        elif c == separator:
            n_fields += 1
            at_field_start = True
        elif c == 10:
            length = i - start
            blank = length == 0 or (length == 1 and buffer[start] == 13)
            ends[count] = i + 1
            fields[count] = 0 if blank else n_fields
            lines[count] = record_line
            count += 1
            n_fields = 1
            start = i + 1
            record_line = line + 1
            at_field_start = True
        else:
            at_field_start = False
        if c == 10:
            line += 1
        i += 1
    if final and start < n:
        length = n - start
        blank = length == 1 and buffer[start] == 13
        ends[count] = n
        fields[count] = 0 if blank else n_fields
        lines[count] = record_line
        count += 1
        start = n
    return count, start


@kernel
def scan_plain_records(buffer, separator, final, ends, fields):  # pragma: no cover - compiled
    """:func:`scan_records` for a buffer without quote characters: every newline ends a record,
    so record k starts on line k. Same outputs (lines are implicit)."""
    n = buffer.shape[0]
    count = 0
    n_fields = 1
    start = 0
    for i in range(n):
        c = buffer[i]
        if c == separator:
            n_fields += 1
        elif c == 10:
            blank = i == start or (i == start + 1 and buffer[start] == 13)
            ends[count] = i + 1
            fields[count] = 0 if blank else n_fields
            count += 1
            n_fields = 1
            start = i + 1
    if final and start < n:
        ends[count] = n
        fields[count] = 0 if (n == start + 1 and buffer[start] == 13) else n_fields
        count += 1
        start = n
    return count, start


@kernel
def lookup_codes(values, low, table, unseen, out, column):  # pragma: no cover - compiled
    """out[i, column] = table[values[i] − low]: the category code of each integer value; NaN
    stays NaN (missing) and a value outside the table gets ``unseen``. Returns how many values
    got ``unseen`` (so that a batch with none needs no second look)."""
    size = table.shape[0]
    met = 0
    for i in range(values.shape[0]):
        v = values[i]
        if v != v:
            out[i, column] = np.nan
            continue
        k = np.int64(v) - low
        code = table[k] if 0 <= k < size else unseen
        met += code == unseen
        out[i, column] = code
    return met


@kernel
def padded_field(buffer, separator, blank_a, blank_b):  # pragma: no cover - compiled
    """Whether a byte ``blank_a`` or ``blank_b`` (space, tab) touches the start or end of the
    buffer, the separator or a line end (\\n, \\r) on either side: a field that begins or ends
    with whitespace. Stops at the first one (a padded file answers at once)."""
    n = buffer.shape[0]
    after_edge = True  # the start of the buffer is an edge
    for i in range(n):
        c = buffer[i]
        if c == blank_a or c == blank_b:
            if after_edge or i + 1 == n:
                return True
            following = buffer[i + 1]
            if following == separator or following == 10 or following == 13:
                return True
            after_edge = False
        else:
            after_edge = c == separator or c == 10 or c == 13
    return False


@kernel
def strip_fields(buffer, separator, out):  # pragma: no cover - compiled
    """Copy ``buffer`` (records without quote characters) into ``out`` with the whitespace at
    either end of every field left out, as Polars' ``str.strip_chars()`` strips each value
    (whitespace: a space, \\t, \\v, \\f or \\r that is not the separator). Returns the length
    written, or −1 where a field begins or ends with a byte beyond ASCII (it may be Unicode
    whitespace, which a byte scan cannot judge cheaply)."""
    n = buffer.shape[0]
    j = 0  # bytes written
    kept = 0  # bytes written up to the current field's last byte that is not whitespace
    start = 0  # where the current field starts in ``out``
    leading = True  # no byte of the current field but whitespace yet
    for i in range(n):
        c = buffer[i]
        if c == separator or c == 10:
            if kept > start and out[kept - 1] >= 128:
                return -1
            out[kept] = c
            j = kept + 1
            kept = j
            start = j
            leading = True
        elif c > 32 or not (c == 32 or 9 <= c <= 13):
            if leading and c >= 128:
                return -1
            out[j] = c
            j += 1
            kept = j
            leading = False
        elif not leading:  # whitespace inside a field, or at its end (then dropped)
            out[j] = c
            j += 1
    if kept > start and out[kept - 1] >= 128:
        return -1
    return kept
