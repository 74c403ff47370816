"""Compiled (Numba) loops of the text pipeline: UTF-8 decoding, lowercasing, word tokens, n-grams,
feature indices (MurmurHash3 or a vocabulary) and per-document counts, in one pass over the bytes.

Why a loop and not Polars or PyArrow string kernels: lowercasing, regex extraction, exploding
and grouping are separate passes there, each allocating a string per token. Measured on this
project's 2-core machine on 20 MB of text, Polars 2.1 ran ``str.to_lowercase`` at ~110 MB/s,
``str.extract_all(r"\\w\\w+")`` at ~105 MB/s (``r"\\b\\w\\w+\\b"``: 25 MB/s, Unicode word
boundaries defeat its DFA) and the group-by count per document at ~25 MB/s: under 30 MB/s
for the chain. This single pass runs at ~150 MB/s on one core for word unigrams (~280 MB/s to
scan without emitting), and reproduces Python's ``re`` and ``str.lower()`` exactly
(scikit-learn's tokens), which the Rust regex crate's Unicode classes do not.

A *byte table* is a hash set of byte strings, kept in four NumPy arrays so that it pickles, merges
and crosses into compiled code: ``slots`` (open addressing: -1 empty, else the id << 32 | the
low 32 bits of its hash), ``hashes`` (MurmurHash3 of each entry, signed), ``offsets`` (entry i
is ``arena[offsets[i]:offsets[i+1]]``) and ``arena``. Ids are given in order of insertion and
never change.
"""

from __future__ import annotations

import numba
import numpy as np

from ._unicode import (
    CAPITAL_SIGMA,
    CASE_IGNORABLE,
    CASED,
    DOTTED_CAPITAL_I,
    FINAL_SIGMA,
    WORD,
)

_JIT = {"cache": True, "nogil": True}

MODE_HASH, MODE_GROW, MODE_FIXED, MODE_LOCAL = 0, 1, 2, 3

_U32 = np.uint32
_LOW32 = np.int64(0xFFFFFFFF)
#: Multiplier of the row tables' hash (Fibonacci hashing).
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@numba.njit(inline="always", **_JIT)
def _rotl(x, r):  # pragma: no cover - compiled
    return _U32((x << _U32(r)) | (x >> _U32(32 - r)))


@numba.njit(inline="always", **_JIT)
def murmur3_32(buf, start, end, seed):  # pragma: no cover - compiled
    """MurmurHash3 x86 32-bit of ``buf[start:end]``, as a signed 32-bit value (scikit-learn's
    ``murmurhash3_32(..., positive=False)``)."""
    c1, c2 = _U32(0xCC9E2D51), _U32(0x1B873593)
    h = _U32(seed)
    n = end - start
    stop = start + (n >> 2) * 4
    p = start
    while p < stop:
        k = (
            _U32(buf[p])
            | (_U32(buf[p + 1]) << _U32(8))
            | (_U32(buf[p + 2]) << _U32(16))
            | (_U32(buf[p + 3]) << _U32(24))
        )
        k = _rotl(_U32(k * c1), 15)
        h ^= _U32(k * c2)
        h = _rotl(h, 13)
        h = _U32(h * _U32(5) + _U32(0xE6546B64))
        p += 4
    rest = end - stop
    if rest > 0:
        k = _U32(0)
        if rest == 3:
            k ^= _U32(buf[stop + 2]) << _U32(16)
        if rest >= 2:
            k ^= _U32(buf[stop + 1]) << _U32(8)
        k ^= _U32(buf[stop])
        k = _rotl(_U32(k * c1), 15)
        h ^= _U32(k * c2)
    h ^= _U32(n)
    h ^= h >> _U32(16)
    h = _U32(h * _U32(0x85EBCA6B))
    h ^= h >> _U32(13)
    h = _U32(h * _U32(0xC2B2AE35))
    h ^= h >> _U32(16)
    return np.int64(np.int32(h))


@numba.njit(inline="always", **_JIT)
def hash_index(h, n_features):  # pragma: no cover - compiled
    """scikit-learn's HashingVectorizer column of a token with hash h: |h| mod n_features."""
    magnitude = h if h >= 0 else -h
    if n_features & (n_features - 1) == 0:
        return magnitude & (n_features - 1)
    return magnitude % n_features


# --------------------------------------------------------------------------- byte tables
@numba.njit(inline="always", **_JIT)
def table_find(slots, hashes, offsets, arena, buf, start, end, h):  # pragma: no cover
    """Id of ``buf[start:end]`` (with hash h) in the table, or -1."""
    mask = slots.shape[0] - 1
    i = np.int64(h) & mask
    low = np.int64(h) & _LOW32
    length = end - start
    while True:
        slot = slots[i]
        if slot < 0:
            return -1
        if slot & _LOW32 == low:
            entry = slot >> 32
            a = offsets[entry]
            if offsets[entry + 1] - a == length:
                same = True
                for j in range(length):
                    if arena[a + j] != buf[start + j]:
                        same = False
                        break
                if same:
                    return entry
        i = (i + 1) & mask


@numba.njit(**_JIT)
def _place(slots, h, entry):  # pragma: no cover - compiled
    """Put entry (with hash h) in the first free slot from h: a slot holds the entry's id in its
    high 32 bits and the low 32 bits of its hash, so a probe reads one array."""
    mask = slots.shape[0] - 1
    i = np.int64(h) & mask
    while slots[i] >= 0:
        i = (i + 1) & mask
    slots[i] = (np.int64(entry) << 32) | (np.int64(h) & _LOW32)


@numba.njit(**_JIT)
def table_insert(slots, hashes, offsets, arena, n, buf, start, end, h):  # pragma: no cover
    """Append ``buf[start:end]`` as entry n (it must be absent); returns the (possibly grown)
    arrays. The table keeps at most half its slots full."""
    length = end - start
    top = offsets[n]
    if top + length > arena.shape[0]:
        bigger = np.empty(max(2 * arena.shape[0], top + length), dtype=np.uint8)
        bigger[:top] = arena[:top]
        arena = bigger
    arena[top : top + length] = buf[start:end]
    if n + 2 > offsets.shape[0]:
        grown = np.empty(2 * (n + 2), dtype=np.int64)
        grown[: n + 1] = offsets[: n + 1]
        offsets = grown
    if n + 1 > hashes.shape[0]:
        more = np.empty(2 * (n + 1), dtype=np.int64)
        more[:n] = hashes[:n]
        hashes = more
    offsets[n + 1] = top + length
    hashes[n] = h
    if 2 * (n + 1) > slots.shape[0]:
        slots = np.full(2 * slots.shape[0], -1, dtype=np.int64)
        for e in range(n):
            _place(slots, hashes[e], e)
    _place(slots, h, n)
    return slots, hashes, offsets, arena


@numba.njit(**_JIT)
def table_hashes(offsets, arena, n, seed):  # pragma: no cover - compiled
    """MurmurHash3 of each of the first n entries."""
    out = np.empty(n, dtype=np.int64)
    for e in range(n):
        out[e] = murmur3_32(arena, offsets[e], offsets[e + 1], seed)
    return out


@numba.njit(**_JIT)
def table_union(slots, hashes, offsets, arena, n, o_hashes, o_offsets, o_arena, o_n, limit):
    """Add the other table's entries to this one (new ones only while it has fewer than
    ``limit``); returns the grown arrays, the new size and where each of the other table's
    entries now is (-1: left out by the limit)."""  # pragma: no cover - compiled
    where = np.empty(o_n, dtype=np.int64)
    for e in range(o_n):
        a, b = o_offsets[e], o_offsets[e + 1]
        h = o_hashes[e]
        found = table_find(slots, hashes, offsets, arena, o_arena, a, b, h)
        if found < 0 and n < limit:
            slots, hashes, offsets, arena = table_insert(
                slots, hashes, offsets, arena, n, o_arena, a, b, h
            )
            found = n
            n += 1
        where[e] = found
    return slots, hashes, offsets, arena, n, where


# --------------------------------------------------------------------------- UTF-8
@numba.njit(inline="always", **_JIT)
def decode(data, p, end):  # pragma: no cover - compiled
    """The code point at ``data[p]`` and the number of bytes it takes. An ill-formed sequence
    gives code point -1 and the length of its maximal subpart (Unicode's "U+FFFD substitution of
    maximal subparts", which Python's ``errors="replace"`` follows)."""
    b0 = np.int64(data[p])
    if b0 < 0x80:
        return b0, 1
    if b0 < 0xC2 or b0 > 0xF4:
        return -1, 1
    if b0 < 0xE0:
        need, cp, lo, hi = 1, b0 & 0x1F, 0x80, 0xBF
    elif b0 < 0xF0:
        need, cp = 2, b0 & 0x0F
        lo = 0xA0 if b0 == 0xE0 else 0x80
        hi = 0x9F if b0 == 0xED else 0xBF
    else:
        need, cp = 3, b0 & 0x07
        lo = 0x90 if b0 == 0xF0 else 0x80
        hi = 0x8F if b0 == 0xF4 else 0xBF
    for k in range(1, need + 1):
        q = p + k
        if q >= end:
            return -1, k
        b = np.int64(data[q])
        if k == 1:
            if b < lo or b > hi:
                return -1, 1
        elif b < 0x80 or b > 0xBF:
            return -1, k
        cp = (cp << 6) | (b & 0x3F)
    return cp, need + 1


@numba.njit(inline="always", **_JIT)
def _put(buf, pos, cp):  # pragma: no cover - compiled
    """Write code point cp as UTF-8 at buf[pos]; returns the new position (buf has room)."""
    if cp < 0x80:
        buf[pos] = cp
        return pos + 1
    if cp < 0x800:
        buf[pos] = 0xC0 | (cp >> 6)
        buf[pos + 1] = 0x80 | (cp & 0x3F)
        return pos + 2
    if cp < 0x10000:
        buf[pos] = 0xE0 | (cp >> 12)
        buf[pos + 1] = 0x80 | ((cp >> 6) & 0x3F)
        buf[pos + 2] = 0x80 | (cp & 0x3F)
        return pos + 3
    buf[pos] = 0xF0 | (cp >> 18)
    buf[pos + 1] = 0x80 | ((cp >> 12) & 0x3F)
    buf[pos + 2] = 0x80 | ((cp >> 6) & 0x3F)
    buf[pos + 3] = 0x80 | (cp & 0x3F)
    return pos + 4


@numba.njit(**_JIT)
def _sigma_is_final(data, p, end, props):  # pragma: no cover - compiled
    """Final_Sigma, looking ahead: no cased letter follows (skipping case-ignorable ones)."""
    while p < end:
        cp, size = decode(data, p, end)
        if cp < 0:
            return True
        flags = props[cp]
        if flags & CASE_IGNORABLE:
            p += size
            continue
        return not (flags & CASED)
    return True


# --------------------------------------------------------------------------- rows
@numba.njit(inline="always", **_JIT)
def _row_add(keys, cols, counts, slots, u, column):  # pragma: no cover - compiled
    """Count ``column`` in the current row: a small open-addressing table ``keys`` (entry or -1)
    over the row's distinct columns ``cols[:u]`` and their ``counts``; returns the new u."""
    mask = keys.shape[0] - 1
    i = np.int64((np.uint64(column) * _GOLDEN) >> np.uint64(32)) & mask
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


@numba.njit(**_JIT)
def _row_grow(keys, cols, counts, slots, u):  # pragma: no cover - compiled
    """The row table at twice the size, with the same u entries."""
    size = 2 * keys.shape[0]
    new_keys = np.full(size, -1, dtype=np.int64)
    new_cols = np.empty(size // 2, dtype=np.int64)
    new_counts = np.empty(size // 2, dtype=np.float64)
    new_slots = np.empty(size // 2, dtype=np.int64)
    mask = size - 1
    for j in range(u):
        column = cols[j]
        i = np.int64((np.uint64(column) * _GOLDEN) >> np.uint64(32)) & mask
        while new_keys[i] >= 0:
            i = (i + 1) & mask
        new_keys[i] = j
        new_cols[j] = column
        new_counts[j] = counts[j]
        new_slots[j] = i
    return new_keys, new_cols, new_counts, new_slots


@numba.njit(**_JIT)
def _grow_i(a, need):  # pragma: no cover - compiled
    if need <= a.shape[0]:
        return a
    b = np.empty(max(need, 2 * a.shape[0]), dtype=a.dtype)
    b[: a.shape[0]] = a
    return b


# state of the scanner between calls (an int64 array, so the hot loop never reallocates)
_P, _POS, _NTOK, _K, _IN, _START, _BACK, _CHARS, _CASED, _BAD, _VN = range(11)
_DONE, _NEED_SCRATCH, _NEED_ROW, _NEED_TABLE = 0, 1, 2, 3


@numba.njit(inline="always", **_JIT)
def _table_room(slots, hashes, offsets, arena, n, entries, nbytes):  # pragma: no cover
    return (
        2 * (n + entries) <= slots.shape[0]
        and n + entries <= hashes.shape[0]
        and n + entries + 1 <= offsets.shape[0]
        and offsets[n] + nbytes <= arena.shape[0]
    )


@numba.njit(inline="always", **_JIT)
def _table_add(slots, hashes, offsets, arena, n, buf, start, end, h):  # pragma: no cover
    """Append an absent entry; the caller made sure there is room."""
    top = offsets[n]
    length = end - start
    arena[top : top + length] = buf[start:end]
    offsets[n + 1] = top + length
    hashes[n] = h
    _place(slots, h, n)


@numba.njit(**_JIT)
def _grow_table(slots, hashes, offsets, arena, n, entries, nbytes):  # pragma: no cover
    """Arrays with room for ``entries`` more entries of ``nbytes`` bytes in all."""
    if 2 * (n + entries) > slots.shape[0]:
        size = slots.shape[0]
        while 2 * (n + entries) > size:
            size *= 2
        slots = np.full(size, -1, dtype=np.int64)
        for e in range(n):
            _place(slots, hashes[e], e)
    if n + entries > hashes.shape[0]:
        more = np.empty(2 * (n + entries), dtype=np.int64)
        more[:n] = hashes[:n]
        hashes = more
    if n + entries + 1 > offsets.shape[0]:
        grown = np.empty(2 * (n + entries + 1), dtype=np.int64)
        grown[: n + 1] = offsets[: n + 1]
        offsets = grown
    if offsets[n] + nbytes > arena.shape[0]:
        bigger = np.empty(2 * (offsets[n] + nbytes), dtype=np.uint8)
        bigger[: offsets[n]] = arena[: offsets[n]]
        arena = bigger
    return slots, hashes, offsets, arena


@numba.njit(**_JIT)
def _scan(
    data,
    end,
    props,
    lower,
    lowercase,
    min_chars,
    nmin,
    nmax,
    stop_slots,
    stop_hashes,
    stop_offsets,
    stop_arena,
    mode,
    n_features,
    v_slots,
    v_hashes,
    v_offsets,
    v_arena,
    v_max,
    named,
    g_slots,
    g_hashes,
    g_offsets,
    g_arena,
    scratch,
    ring,
    row_keys,
    row_cols,
    row_counts,
    row_slots,
    st,
):  # pragma: no cover - compiled
    """Tokenise one document from the state ``st`` until it ends (returns _DONE) or a buffer is
    too small (returns what to grow; ``st`` then points at the character to redo)."""
    p, pos, ntok, k = st[_P], st[_POS], st[_NTOK], st[_K]
    in_token, cur_start, rollback = st[_IN] != 0, st[_START], st[_BACK]
    cur_chars, prev_cased, invalid, v_n = st[_CHARS], st[_CASED] != 0, st[_BAD], st[_VN]
    use_stop = stop_slots.shape[0] > 0
    emits = nmax - nmin + 1
    growing = mode == MODE_GROW or mode == MODE_LOCAL or (mode == MODE_HASH and v_max > 0)
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
                    rollback = pos
                    if nmax == 1:
                        pos = 0
                    elif ntok > 0:
                        scratch[pos] = 32
                        pos += 1
                    cur_start = pos
                    cur_chars = 0
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
            if 2 * (k + emits) > row_keys.shape[0]:
                status = _NEED_ROW
                break
            if growing and not _table_room(
                v_slots, v_hashes, v_offsets, v_arena, v_n, emits, emits * (pos + 8)
            ):
                status = _NEED_TABLE
                break
        if cp < 0 and not at_end:
            invalid += 1
        if word:
            if not in_token:
                in_token = True
                rollback = pos
                if nmax == 1:
                    pos = 0
                elif ntok > 0:
                    scratch[pos] = 32
                    pos += 1
                cur_start = pos
                cur_chars = 0
            out = cp
            if lowercase:
                out = lower[cp]
                if cp == CAPITAL_SIGMA and prev_cased:
                    if _sigma_is_final(data, p + size, end, props):
                        out = FINAL_SIGMA
            pos = _put(scratch, pos, out)
            cur_chars += 1
        if not (flags & CASE_IGNORABLE):
            prev_cased = (flags & CASED) != 0
        if ending:
            in_token = False
            keep = cur_chars >= min_chars
            if keep and use_stop:
                h = murmur3_32(scratch, cur_start, pos, 0)
                found = table_find(
                    stop_slots, stop_hashes, stop_offsets, stop_arena, scratch, cur_start, pos, h
                )
                keep = found < 0
            if not keep:
                pos = rollback if nmax > 1 else 0
            else:
                if ntok == nmax:
                    for i in range(nmax - 1):
                        ring[i] = ring[i + 1]
                    ntok -= 1
                ring[ntok] = cur_start
                ntok += 1
                for n in range(nmin, nmax + 1):
                    if n > ntok:
                        break
                    s = ring[ntok - n]
                    h = murmur3_32(scratch, s, pos, 0)
                    if mode == MODE_HASH:
                        column = hash_index(h, n_features)
                        # the first n-gram met in a column names it (an n-gram always lands in
                        # the same column, so an unnamed column means an unrecorded n-gram)
                        if growing and v_n < v_max and named[column] == 0:
                            named[column] = 1
                            _table_add(
                                v_slots, v_hashes, v_offsets, v_arena, v_n, scratch, s, pos, h
                            )
                            v_n += 1
                    elif mode == MODE_LOCAL:
                        # a vocabulary read by several threads: known n-grams take their id,
                        # unknown ones a chunk-local id -1, -2, ... (renumbered by the caller)
                        column = table_find(
                            g_slots, g_hashes, g_offsets, g_arena, scratch, s, pos, h
                        )
                        if column < 0:
                            local = table_find(
                                v_slots, v_hashes, v_offsets, v_arena, scratch, s, pos, h
                            )
                            if local < 0:
                                _table_add(
                                    v_slots, v_hashes, v_offsets, v_arena, v_n, scratch, s, pos, h
                                )
                                local = v_n
                                v_n += 1
                            column = -1 - local
                    else:
                        column = table_find(
                            v_slots, v_hashes, v_offsets, v_arena, scratch, s, pos, h
                        )
                        if column < 0:
                            if mode == MODE_FIXED:
                                continue
                            _table_add(
                                v_slots, v_hashes, v_offsets, v_arena, v_n, scratch, s, pos, h
                            )
                            column = v_n
                            v_n += 1
                    k = _row_add(row_keys, row_cols, row_counts, row_slots, k, column)
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


@numba.njit(**_JIT)
def count_documents(
    data,
    starts,
    ends,
    props,
    lower,
    lowercase,
    min_chars,
    nmin,
    nmax,
    stop_slots,
    stop_hashes,
    stop_offsets,
    stop_arena,
    mode,
    n_features,
    v_slots,
    v_hashes,
    v_offsets,
    v_arena,
    v_n,
    v_max,
    named,
    g_slots,
    g_hashes,
    g_offsets,
    g_arena,
    history,
    history_starts,
):  # pragma: no cover - compiled
    """Tokenise and count the documents ``data[starts[i]:ends[i]]`` (UTF-8 bytes).

    Each document is decoded (ill-formed bytes become U+FFFD, not a word character), lowered
    when ``lowercase``, cut into maximal runs of word characters of at least ``min_chars`` code
    points, stripped of stop words (the byte table ``stop_*``, if it has slots), joined into
    n-grams for n in ``nmin..nmax`` (tokens joined by one space), and each n-gram turned into a
    column index:

    * ``MODE_HASH``: |MurmurHash3_x86_32(utf-8 bytes, seed 0)| mod ``n_features``; if ``v_max``
      > 0, the first n-gram met in a column not yet marked in ``named`` is recorded in the byte
      table ``v_*`` (up to ``v_max`` entries) and the column marked, so that columns have names;
    * ``MODE_GROW``: its id in the vocabulary ``v_*``, added when absent (no limit);
    * ``MODE_FIXED``: its id in the vocabulary, skipped when absent;
    * ``MODE_LOCAL``: its id in the vocabulary ``g_*`` (only read), or if absent -1 - its id in
      the chunk's own table ``v_*`` of new n-grams (added when absent).

    ``history`` / ``history_starts``: the n-gram context carried in from the previous piece of
    the same document (the last nmax-1 tokens joined by spaces, and where each starts), used for
    the first document; the context after the last document is returned, so a very long
    document can be fed in pieces cut at whitespace.

    Returns the CSR arrays (indptr, indices, counts) with one entry per distinct column of a row
    (in order of first appearance, not sorted), the
    number of U+FFFD substitutions, the vocabulary arrays and size, and the carried context.
    """
    n_docs = starts.shape[0]
    indptr = np.zeros(n_docs + 1, dtype=np.int64)
    capacity = max(1024, (ends[-1] - starts[0]) // 8 if n_docs > 0 else 1024)
    indices = np.empty(capacity, dtype=np.int64)
    counts = np.empty(capacity, dtype=np.float64)
    nnz = 0
    emits = nmax - nmin + 1
    scratch = np.empty(max(4096, 2 * history.shape[0] + 64), dtype=np.uint8)
    ring = np.zeros(nmax, dtype=np.int64)
    row_keys = np.full(1024, -1, dtype=np.int64)
    row_cols = np.empty(512, dtype=np.int64)
    row_counts = np.empty(512, dtype=np.float64)
    row_slots = np.empty(512, dtype=np.int64)
    st = np.zeros(11, dtype=np.int64)
    st[_VN] = v_n
    invalid = 0
    for d in range(n_docs):
        st[_P], st[_POS], st[_NTOK], st[_K] = starts[d], 0, 0, 0
        st[_IN], st[_START], st[_BACK], st[_CHARS], st[_CASED], st[_BAD] = 0, 0, 0, 0, 0, 0
        if d == 0 and history_starts.shape[0] > 0:  # n-gram context carried in
            st[_POS] = history.shape[0]
            scratch[: history.shape[0]] = history
            st[_NTOK] = history_starts.shape[0]
            ring[: history_starts.shape[0]] = history_starts
        while True:
            status = _scan(
                data,
                ends[d],
                props,
                lower,
                lowercase,
                min_chars,
                nmin,
                nmax,
                stop_slots,
                stop_hashes,
                stop_offsets,
                stop_arena,
                mode,
                n_features,
                v_slots,
                v_hashes,
                v_offsets,
                v_arena,
                v_max,
                named,
                g_slots,
                g_hashes,
                g_offsets,
                g_arena,
                scratch,
                ring,
                row_keys,
                row_cols,
                row_counts,
                row_slots,
                st,
            )
            if status == _DONE:
                break
            if status == _NEED_SCRATCH:
                bigger = np.empty(2 * scratch.shape[0], dtype=np.uint8)
                bigger[: st[_POS]] = scratch[: st[_POS]]
                scratch = bigger
            elif status == _NEED_ROW:
                row_keys, row_cols, row_counts, row_slots = _row_grow(
                    row_keys, row_cols, row_counts, row_slots, st[_K]
                )
            else:
                v_slots, v_hashes, v_offsets, v_arena = _grow_table(
                    v_slots,
                    v_hashes,
                    v_offsets,
                    v_arena,
                    st[_VN],
                    max(1024, emits),
                    max(65536, 2 * emits * (st[_POS] + 8)),
                )
        invalid += st[_BAD]
        u = st[_K]
        if indices.shape[0] < nnz + u:
            indices = _grow_i(indices, nnz + u)
            grown = np.empty(indices.shape[0], dtype=np.float64)
            grown[:nnz] = counts[:nnz]
            counts = grown
        for j in range(u):
            indices[nnz + j] = row_cols[j]
            counts[nnz + j] = row_counts[j]
            row_keys[row_slots[j]] = -1
        nnz += u
        indptr[d + 1] = nnz

    # the context after the last document, for a continuation
    ntok, pos = st[_NTOK], st[_POS]
    keep_tokens = min(ntok, nmax - 1) if n_docs > 0 else 0
    if keep_tokens > 0:
        base = ring[ntok - keep_tokens]
        out_history = scratch[base:pos].copy()
        out_starts = ring[ntok - keep_tokens : ntok] - base
    else:
        out_history = np.empty(0, dtype=np.uint8)
        out_starts = np.empty(0, dtype=np.int64)
    return (
        indptr, indices[:nnz], counts[:nnz], invalid,
        v_slots, v_hashes, v_offsets, v_arena, st[_VN],
        out_history, out_starts,
    )  # fmt: skip


@numba.njit(**_JIT)
def rebuild_slots(slots, hashes, n):  # pragma: no cover - compiled
    """Place entries 0..n-1 into empty ``slots`` (after unpickling)."""
    for e in range(n):
        _place(slots, hashes[e], e)


@numba.njit(**_JIT)
def add_columns(indices, data, df, tf):  # pragma: no cover - compiled
    """df[j] += 1 and tf[j] += x for each stored entry (j, x) of a CSR chunk (one per row and
    column): document frequencies and total counts, in place."""
    for p in range(indices.shape[0]):
        j = indices[p]
        df[j] += 1.0
        tf[j] += data[p]


@numba.njit(**_JIT)
def transform_rows(indptr, indices, data, tf_mode, norm, position, scale):  # pragma: no cover
    """Rennie's per-document steps and the column selection in one pass over CSR counts:
    v = log(1 + x) (tf_mode 1) or 1 (tf_mode 2) or x (0); v / sqrt(Σ_row v²) if ``norm``; then
    column j → ``position[j]`` (dropped if -1; identity if ``position`` is empty) and
    v · ``scale[new column]`` (if ``scale`` is not empty)."""
    n = indptr.shape[0] - 1
    out_ptr = np.empty(n + 1, dtype=np.int64)
    out_idx = np.empty(indices.shape[0], dtype=np.int64)
    out_val = np.empty(indices.shape[0], dtype=np.float64)
    remap = position.shape[0] > 0
    scaled = scale.shape[0] > 0
    q = 0
    for i in range(n):
        out_ptr[i] = q
        inverse = 1.0
        if norm:
            total = 0.0
            for p in range(indptr[i], indptr[i + 1]):
                x = data[p]
                v = np.log1p(x) if tf_mode == 1 else (1.0 if x > 0 else 0.0) if tf_mode == 2 else x
                total += v * v
            if total > 0.0:
                inverse = 1.0 / np.sqrt(total)
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            if remap:
                j = position[j]
                if j < 0:
                    continue
            x = data[p]
            v = np.log1p(x) if tf_mode == 1 else (1.0 if x > 0 else 0.0) if tf_mode == 2 else x
            v *= inverse
            if scaled:
                v *= scale[j]
            out_idx[q] = j
            out_val[q] = v
            q += 1
    out_ptr[n] = q
    return out_ptr, out_idx[:q], out_val[:q]


@numba.njit(**_JIT)
def add_new_columns(
    slots, hashes, offsets, arena, n, named, n_features, o_hashes, o_offsets, o_arena, o_n, limit
):  # pragma: no cover - compiled
    """Names of hashed columns: add the other table's entries whose column is not marked in
    ``named`` yet (in the other table's order, while fewer than ``limit``); returns the arrays
    and the new size."""
    for e in range(o_n):
        if n >= limit:
            break
        column = hash_index(o_hashes[e], n_features)
        if named[column]:
            continue
        named[column] = 1
        a, b = o_offsets[e], o_offsets[e + 1]
        slots, hashes, offsets, arena = table_insert(
            slots, hashes, offsets, arena, n, o_arena, a, b, o_hashes[e]
        )
        n += 1
    return slots, hashes, offsets, arena, n
