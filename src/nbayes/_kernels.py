"""Compiled inner loops (Numba): the counting pass of fitting and the gathers of prediction.

Each kernel is the literal loop of a formula; NumPy cannot express these without materialising
an index array the size of the data (for counting) or an n × d × K array (for gathering).
Missing values arrive as NaN (float input) or a negative code and are skipped.
"""

from __future__ import annotations

import numba
import numpy as np

_JIT = {"cache": True, "nogil": True}


@numba.njit(**_JIT)
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


@numba.njit(parallel=True, **_JIT)
def gather_codes(
    X, offsets, n_categories, table, unknown_table, unknown_mode, out
):  # pragma: no cover
    """out[i, :] += Σ_j table[offsets[j] + x_ij, :], the categorical log-likelihood.

    A code ≥ n_categories[j] was never seen in fitting: with ``unknown_mode`` 0 it is skipped
    (the feature is left out for that row), with 1 it takes ``unknown_table[j, :]``. Returns the
    number of unseen codes met.
    """
    n, d = X.shape
    K = table.shape[1]
    unseen = 0
    for i in numba.prange(n):
        for j in range(d):
            v = X[i, j]
            if v != v or v < 0:
                continue
            code = np.int64(v)
            if code >= n_categories[j]:
                unseen += 1
                if unknown_mode == 1:
                    for k in range(K):
                        out[i, k] += unknown_table[j, k]
                continue
            base = offsets[j] + code
            for k in range(K):
                out[i, k] += table[base, k]
    return unseen


@numba.njit(**_JIT)
def count_csr(indptr, indices, data, cls, weight, counts):  # pragma: no cover - compiled
    """counts[c, t] += w_i x_it over the stored entries of CSR rows (Σ_i over class c)."""
    n = indptr.shape[0] - 1
    for i in range(n):
        c = cls[i]
        w = weight[i]
        for p in range(indptr[i], indptr[i + 1]):
            counts[c, indices[p]] += w * data[p]


@numba.njit(parallel=True, **_JIT)
def csr_times_table(indptr, indices, data, table, out):  # pragma: no cover - compiled
    """out[i, :] += Σ_t x_it table[t, :] for CSR rows: the sparse × dense product, row-parallel."""
    n = indptr.shape[0] - 1
    K = table.shape[1]
    for i in numba.prange(n):
        for p in range(indptr[i], indptr[i + 1]):
            t = indices[p]
            x = data[p]
            for k in range(K):
                out[i, k] += x * table[t, k]


@numba.njit(parallel=True, **_JIT)
def normalize_rows(jll, log_prior, as_log, out):  # pragma: no cover - compiled
    """Posterior per row by log-sum-exp: out = jll − log Σ_k exp(jll_k) (or its exp).

    NaN counts as −inf. A row that is −inf for every class takes ``log_prior`` instead (the
    features carried no usable evidence); in a row with +inf scores those classes share the
    posterior equally. Returns the number of rows that took the prior.
    """
    n, K = jll.shape
    dead = 0
    for i in numba.prange(n):
        top = -np.inf
        for k in range(K):
            v = jll[i, k]
            if v == v and v > top:
                top = v
        source_prior = top == -np.inf
        if source_prior:
            dead += 1
            top = -np.inf
            for k in range(K):
                if log_prior[k] > top:
                    top = log_prior[k]
        total = 0.0
        for k in range(K):
            v = log_prior[k] if source_prior else jll[i, k]
            if v == v:
                # +inf scores (possible only in complement weights with λ = 0) share the
                # mass among themselves; exp(inf − inf) would be NaN
                e = (1.0 if v == top else 0.0) if top == np.inf else np.exp(v - top)
                total += e
                out[i, k] = e
            else:
                out[i, k] = 0.0
        if as_log and top == np.inf:
            for k in range(K):
                out[i, k] = np.log(out[i, k] / total)
        elif as_log:
            log_total = np.log(total) + top
            for k in range(K):
                v = log_prior[k] if source_prior else jll[i, k]
                out[i, k] = v - log_total if v == v else -np.inf
        else:
            for k in range(K):
                out[i, k] /= total
    return dead


@numba.njit(**_JIT)
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


@numba.njit(**_JIT)
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


@numba.njit(**_JIT)
def lookup_codes(values, low, table, unseen, out, column):  # pragma: no cover - compiled
    """out[i, column] = table[values[i] − low]: the category code of each integer value; NaN
    stays NaN (missing) and a value outside the table gets ``unseen``."""
    size = table.shape[0]
    for i in range(values.shape[0]):
        v = values[i]
        if v != v:
            out[i, column] = np.nan
            continue
        k = np.int64(v) - low
        out[i, column] = table[k] if 0 <= k < size else unseen
