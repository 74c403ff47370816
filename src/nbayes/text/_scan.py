"""The document scan, compiled (Numba): UTF-8 bytes → lowercased word tokens → n-grams → column
indices (MurmurHash3 or a vocabulary) → per-document counts, in one pass over the bytes.

Why a loop and not Polars or PyArrow string kernels: lowercasing, regex extraction, exploding
and grouping are separate passes there, each allocating a string per token. Measured on this
project's 2-core machine on 20 MB of text, Polars 2.1 ran ``str.to_lowercase`` at ~110 MB/s,
``str.extract_all(r"\\w\\w+")`` at ~105 MB/s (``r"\\b\\w\\w+\\b"``: 25 MB/s, Unicode word
boundaries defeat its DFA) and the group-by count per document at ~25 MB/s: under 30 MB/s
for the chain. This single pass runs at ~150 MB/s on one core for word unigrams (~280 MB/s to
scan without emitting), and reproduces Python's ``re`` and ``str.lower()`` exactly
(scikit-learn's tokens), which the Rust regex crate's Unicode classes do not.

What the scan reads is grouped in records (Numba passes tuples of arrays as they are):
:class:`TokenRule` (the character tables and the token rule), :class:`Indexing` (how an n-gram
becomes a column), the byte table being grown (:class:`~nbayes.text._hashtable.TableArrays`) and
the current row's counts (:class:`RowCounts`).

Numba's on-disk cache does not follow calls into other files: after editing ``_hashing.py``,
``_hashtable.py`` or ``_decode.py``, delete ``__pycache__`` (the compiled scan would keep the old
code inlined).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._jit import kernel
from . import _hashtable
from ._decode import decode, lower_case, put_utf8
from ._hashing import hash_index, murmur3_32
from ._unicode import CASE_IGNORABLE, CASED, DOTTED_CAPITAL_I, WORD

#: How n-grams become columns (:class:`Indexing`): hashed; ids in a vocabulary that grows; ids in
#: a fixed vocabulary (unknown n-grams skipped); ids in a shared read-only vocabulary, else
#: chunk-local ids -1, -2, ... in a table of the chunk's own.
MODE_HASH, MODE_GROW, MODE_FIXED, MODE_LOCAL = 0, 1, 2, 3

#: Multiplier of the row tables' hash (Fibonacci hashing).
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


class TokenRule(NamedTuple):
    """What a token is (see :mod:`nbayes.text.tokenizer`)."""

    props: np.ndarray  # uint8 per code point: WORD, CASED, CASE_IGNORABLE bits (_unicode)
    lower: np.ndarray  # int32 per code point: its lowercase
    lowercase: bool
    min_chars: int  # shortest token, in code points
    nmin: int  # n-grams for n in nmin..nmax
    nmax: int
    stop: _hashtable.TableArrays  # stop words (no slots: none)


class Indexing(NamedTuple):
    """How an n-gram becomes a column (``mode``: one of MODE_*), besides the table being grown."""

    mode: int
    n_features: int  # MODE_HASH: columns
    max_names: int  # MODE_HASH: record up to this many column names in the table (0: none)
    named: np.ndarray  # MODE_HASH: uint8 per column, 1 once it has a name
    shared: _hashtable.TableArrays  # MODE_LOCAL: the read-only vocabulary


class RowCounts(NamedTuple):
    """The current document's counts: a small open-addressing table ``keys`` (an entry number or
    -1) over its distinct columns ``cols[:u]``, their ``counts``, and the slot of each entry in
    ``keys`` (to clear it quickly)."""

    keys: np.ndarray  # int64, a power of two long
    cols: np.ndarray  # int64
    counts: np.ndarray  # float64
    slots: np.ndarray  # int64


@kernel
def _new_row_counts(size):  # pragma: no cover - compiled
    """An empty row table of ``size`` slots (a power of two) for up to size / 2 columns."""
    return RowCounts(
        np.full(size, -1, dtype=np.int64),
        np.empty(size // 2, dtype=np.int64),
        np.empty(size // 2, dtype=np.float64),
        np.empty(size // 2, dtype=np.int64),
    )


# --------------------------------------------------------------------------- row counts
@kernel(inline="always")
def _row_slot(column, mask):  # pragma: no cover - compiled
    return np.int64((np.uint64(column) * _GOLDEN) >> np.uint64(32)) & mask


@kernel(inline="always")
def _row_add(row, u, column):  # pragma: no cover - compiled
    """Count ``column`` once more in the row of u distinct columns; returns the new u."""
    keys, cols, counts, slots = row  # (unpacked first: see _scan_document)
    mask = keys.shape[0] - 1
    i = _row_slot(column, mask)
    while True:
        j = keys[i]
        if j < 0:
            keys[i] = u
            cols[u] = column
            counts[u] = 1.0
            slots[u] = i
            return u + 1
        if cols[j] == column:
            counts[j] += 1.0
            return u
        i = (i + 1) & mask


@kernel
def _row_grow(row, u):  # pragma: no cover - compiled
    """The row table at twice the size, with the same u entries."""
    grown = _new_row_counts(2 * row.keys.shape[0])
    mask = grown.keys.shape[0] - 1
    for j in range(u):
        column = row.cols[j]
        i = _row_slot(column, mask)
        while grown.keys[i] >= 0:
            i = (i + 1) & mask
        grown.keys[i] = j
        grown.cols[j] = column
        grown.counts[j] = row.counts[j]
        grown.slots[j] = i
    return grown


@kernel
def _append_row(row, u, indices, counts, nnz):  # pragma: no cover - compiled
    """Copy the row's u entries to the CSR arrays at nnz (growing them if needed) and empty the
    row table; returns the arrays and the new nnz."""
    if indices.shape[0] < nnz + u:
        size = max(nnz + u, 2 * indices.shape[0])
        more_indices = np.empty(size, dtype=np.int64)
        more_indices[:nnz] = indices[:nnz]
        more_counts = np.empty(size, dtype=np.float64)
        more_counts[:nnz] = counts[:nnz]
        indices, counts = more_indices, more_counts
    for j in range(u):
        indices[nnz + j] = row.cols[j]
        counts[nnz + j] = row.counts[j]
        row.keys[row.slots[j]] = -1
    return indices, counts, nnz + u


# --------------------------------------------------------------------------- tokens
# the scan's state between calls (an int64 array, so the hot loop never reallocates): the byte
# position, the scratch position, tokens in the n-gram ring, distinct columns in the row, inside
# a token?, where it starts, where to roll back to if it is dropped, its code points, was the
# last letter cased?, ill-formed sequences, entries in the table
_P, _POS, _NTOK, _K, _IN, _START, _BACK, _CHARS, _CASED, _BAD, _VN = range(11)
_STATE_SIZE = 11
#: What :func:`_scan_document` returns: the document is done, or which buffer to grow first.
_DONE, _NEED_SCRATCH, _NEED_ROW, _NEED_TABLE = 0, 1, 2, 3


@kernel(inline="always")
def _open_token(scratch, pos, ntok, nmax):  # pragma: no cover - compiled
    """Where a new token's bytes start: after a space following the previous tokens of the n-gram
    context, or at 0 for unigrams; returns (rollback position, start)."""
    rollback = pos
    if nmax == 1:
        pos = 0
    elif ntok > 0:
        scratch[pos] = 32
        pos += 1
    return rollback, pos


@kernel
def _scan_document(data, end, rule, index, table, scratch, ring, row, st):  # pragma: no cover
    """Tokenise one document from the state ``st`` until it ends (returns _DONE) or a buffer is
    too small (returns what to grow; ``st`` then points at the character to redo).

    Why this loop is long: written as helpers, its hot parts measured slower on 20 Newsgroups
    (one thread, CPU time): the ASCII fast paths and the ring of token starts by 10-30%, the
    token's end and the n-gram → column step, which take the ``index`` and ``table`` records,
    by 1.5-4× (Numba updates the reference count of each array of a record that an inlined
    helper holds across a loop, at every call). So the records are unpacked here, once per call,
    and the helpers it calls take arrays or unpack their record before looping
    (:func:`_row_add`, :func:`~nbayes.text._hashtable.find`).
    """
    props, lower, lowercase, nmax = rule.props, rule.lower, rule.lowercase, rule.nmax
    p, pos, ntok, k = st[_P], st[_POS], st[_NTOK], st[_K]
    in_token, cur_start, rollback = st[_IN] != 0, st[_START], st[_BACK]
    cur_chars, prev_cased, invalid, v_n = st[_CHARS], st[_CASED] != 0, st[_BAD], st[_VN]
    emits = nmax - rule.nmin + 1
    mode = index.mode
    min_chars, nmin, stop = rule.min_chars, rule.nmin, rule.stop
    use_stop = stop.slots.shape[0] > 0
    n_features, max_names, named = index.n_features, index.max_names, index.named
    shared = index.shared
    keys = row.keys
    names = mode == MODE_HASH and max_names > 0
    growing = mode == MODE_GROW or mode == MODE_LOCAL or names  # the table may get entries
    status = _DONE
    limit = scratch.shape[0] - 8
    while True:
        # fast paths for ASCII (no ASCII word character is case-ignorable, none is Σ or İ, and
        # no ASCII separator is cased): a run of separators, and the start of a token ...
        if not in_token:
            while p < end:
                b = data[p]
                if b >= 0x80:
                    break
                flags = props[b]
                if flags & WORD:
                    in_token = True
                    rollback, pos = _open_token(scratch, pos, ntok, nmax)
                    cur_start, cur_chars = pos, 0
                    break
                if not (flags & CASE_IGNORABLE):
                    prev_cased = False
                p += 1
        # ... and a run of word characters inside a token
        if in_token:
            while p < end and pos < limit:
                b = data[p]
                if b >= 0x80:
                    break
                flags = props[b]
                if not (flags & WORD):
                    break
                scratch[pos] = b + 32 if lowercase and 65 <= b <= 90 else b
                pos += 1
                cur_chars += 1
                p += 1
                prev_cased = (flags & CASED) != 0
        # then one character the fast paths left: non-ASCII, or where a token ends
        at_end = p >= end
        cp = -1
        size = 1
        if not at_end:
            cp, size = decode(data, p, end)
        flags = 0 if cp < 0 else props[cp]
        word = (flags & WORD) != 0
        # U+0130 lowers to "i" + a combining dot that is not a word character: it ends the token
        ending = (lowercase and cp == DOTTED_CAPITAL_I) if word else in_token
        # room for this character, checked before any state changes (so it can be redone):
        # 4 bytes and a space of scratch; at a token's end, its n-grams in the row and the table
        if word and pos + 8 > scratch.shape[0]:
            status = _NEED_SCRATCH
            break
        if ending:
            if 2 * (k + emits) > keys.shape[0]:
                status = _NEED_ROW
                break
            if growing and not _hashtable.has_room(table, v_n, emits, emits * (pos + 8)):
                status = _NEED_TABLE
                break
        if cp < 0 and not at_end:
            invalid += 1
        if word:
            if not in_token:
                in_token = True
                rollback, pos = _open_token(scratch, pos, ntok, nmax)
                cur_start, cur_chars = pos, 0
            out = cp
            if lowercase:
                out = lower_case(cp, prev_cased, data, p + size, end, props, lower)
            pos = put_utf8(scratch, pos, out)
            cur_chars += 1
        if not (flags & CASE_IGNORABLE):
            prev_cased = (flags & CASED) != 0
        if ending:  # the token scratch[cur_start:pos] ends: drop it, or count its n-grams
            in_token = False
            keep = cur_chars >= min_chars
            if keep and use_stop:
                h = murmur3_32(scratch, cur_start, pos, 0)
                keep = _hashtable.find(stop, scratch, cur_start, pos, h) < 0
            if not keep:
                pos = rollback if nmax > 1 else 0
            else:
                if ntok == nmax:  # remember where the last nmax tokens start
                    for i in range(nmax - 1):
                        ring[i] = ring[i + 1]
                    ntok -= 1
                ring[ntok] = cur_start
                ntok += 1
                for n in range(nmin, nmax + 1):  # the n-grams ending with this token
                    if n > ntok:
                        break
                    s = ring[ntok - n]
                    h = murmur3_32(scratch, s, pos, 0)
                    if mode == MODE_HASH:
                        column = hash_index(h, n_features)
                        # the first n-gram met in a column names it (an n-gram always lands in
                        # the same column, so an unnamed column means an unrecorded n-gram)
                        if v_n < max_names and named[column] == 0:
                            named[column] = 1
                            _hashtable.append(table, v_n, scratch, s, pos, h)
                            v_n += 1
                    elif mode == MODE_LOCAL:
                        # a vocabulary read by several threads: known n-grams take their id,
                        # unknown ones a chunk-local id -1, -2, ... (renumbered by the caller)
                        column = _hashtable.find(shared, scratch, s, pos, h)
                        if column < 0:
                            local = _hashtable.find(table, scratch, s, pos, h)
                            if local < 0:
                                _hashtable.append(table, v_n, scratch, s, pos, h)
                                local = v_n
                                v_n += 1
                            column = -1 - local
                    else:  # a vocabulary: grown, or fixed (unknown n-grams are not counted)
                        column = _hashtable.find(table, scratch, s, pos, h)
                        if column < 0:
                            if mode == MODE_FIXED:
                                continue
                            _hashtable.append(table, v_n, scratch, s, pos, h)
                            column = v_n
                            v_n += 1
                    k = _row_add(row, k, column)
                # keep the scratch small: slide the context still needed to the front
                if nmax > 1 and pos > 65536:
                    base = ring[max(0, ntok - (nmax - 1))]
                    scratch[: pos - base] = scratch[base:pos]
                    pos -= base
                    for i in range(ntok):
                        ring[i] -= base
        if at_end:
            break
        p += size
    st[_P], st[_POS], st[_NTOK], st[_K] = p, pos, ntok, k
    st[_IN], st[_START], st[_BACK] = 1 if in_token else 0, cur_start, rollback
    st[_CHARS], st[_CASED], st[_BAD], st[_VN] = cur_chars, 1 if prev_cased else 0, invalid, v_n
    return status


@kernel
def _carried_context(scratch, ring, st, nmax, n_docs):  # pragma: no cover - compiled
    """The n-gram context after the last document (its last nmax-1 tokens joined by spaces, and
    where each starts), for the next piece of the same document."""
    ntok, pos = st[_NTOK], st[_POS]
    keep_tokens = min(ntok, nmax - 1) if n_docs > 0 else 0
    if keep_tokens > 0:
        base = ring[ntok - keep_tokens]
        return scratch[base:pos].copy(), ring[ntok - keep_tokens : ntok] - base
    return np.empty(0, dtype=np.uint8), np.empty(0, dtype=np.int64)


@kernel
def count_documents(data, starts, ends, rule, index, table, n, history):  # pragma: no cover
    """Tokenise and count the documents ``data[starts[i]:ends[i]]`` (UTF-8 bytes).

    Each document is decoded (ill-formed bytes become U+FFFD, not a word character), lowered
    when ``rule.lowercase``, cut into maximal runs of word characters of at least
    ``rule.min_chars`` code points, stripped of stop words (the byte table ``rule.stop``, if it
    has slots), joined into n-grams for n in ``rule.nmin..rule.nmax`` (tokens joined by one
    space), and each n-gram turned into a column index (``index.mode``):

    * ``MODE_HASH``: |MurmurHash3_x86_32(utf-8 bytes, seed 0)| mod ``index.n_features``; if
      ``index.max_names`` > 0, the first n-gram met in a column not yet marked in
      ``index.named`` is recorded in the byte table ``table`` (of n entries, up to
      ``max_names``) and the column marked, so that columns have names;
    * ``MODE_GROW``: its id in the vocabulary ``table``, added when absent (no limit);
    * ``MODE_FIXED``: its id in the vocabulary, skipped when absent;
    * ``MODE_LOCAL``: its id in the vocabulary ``index.shared`` (only read), or if absent -1 -
      its id in the chunk's own table ``table`` of new n-grams (added when absent).

    ``history``: (bytes, starts), the n-gram context carried in from the previous piece of the
    same document (the last nmax-1 tokens joined by spaces, and where each starts), used for the
    first document; the context after the last document is returned, so a very long document
    can be fed in pieces cut at whitespace.

    Returns the CSR arrays (indptr, indices, counts) with one entry per distinct column of a row
    (in order of first appearance, not sorted), the number of U+FFFD substitutions, the table's
    arrays and size, and the carried context.
    """
    history_bytes, history_starts = history
    n_docs = starts.shape[0]
    indptr = np.zeros(n_docs + 1, dtype=np.int64)
    capacity = max(1024, (ends[-1] - starts[0]) // 8 if n_docs > 0 else 1024)
    indices = np.empty(capacity, dtype=np.int64)
    counts = np.empty(capacity, dtype=np.float64)
    nnz = 0
    emits = rule.nmax - rule.nmin + 1
    scratch = np.empty(max(4096, 2 * history_bytes.shape[0] + 64), dtype=np.uint8)
    ring = np.zeros(rule.nmax, dtype=np.int64)
    row = _new_row_counts(1024)
    st = np.zeros(_STATE_SIZE, dtype=np.int64)
    st[_VN] = n
    invalid = 0
    for d in range(n_docs):
        st[:_VN] = 0  # all but the table's size (the last field)
        st[_P] = starts[d]
        if d == 0 and history_starts.shape[0] > 0:  # n-gram context carried in
            st[_POS] = history_bytes.shape[0]
            scratch[: history_bytes.shape[0]] = history_bytes
            st[_NTOK] = history_starts.shape[0]
            ring[: history_starts.shape[0]] = history_starts
        while True:
            status = _scan_document(data, ends[d], rule, index, table, scratch, ring, row, st)
            if status == _DONE:
                break
            if status == _NEED_SCRATCH:
                bigger = np.empty(2 * scratch.shape[0], dtype=np.uint8)
                bigger[: st[_POS]] = scratch[: st[_POS]]
                scratch = bigger
            elif status == _NEED_ROW:
                row = _row_grow(row, st[_K])
            else:
                entries, nbytes = max(1024, emits), max(65536, 2 * emits * (st[_POS] + 8))
                table = _hashtable.reserve(table, st[_VN], entries, nbytes)
        invalid += st[_BAD]
        indices, counts, nnz = _append_row(row, st[_K], indices, counts, nnz)
        indptr[d + 1] = nnz
    carried = _carried_context(scratch, ring, st, rule.nmax, n_docs)
    return indptr, indices[:nnz], counts[:nnz], invalid, table, st[_VN], carried
