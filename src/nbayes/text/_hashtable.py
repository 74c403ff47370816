"""The compiled (Numba) operations of a *byte table*: a hash set of byte strings with stable ids
(:class:`~nbayes.text.bytetable.ByteTable` is its Python face).

The table is four NumPy arrays, passed together as one :class:`TableArrays`, so that it pickles,
merges and crosses into compiled code:

* ``slots``: open addressing, linear probing; -1 is empty, else the entry's id << 32 | the low 32
  bits of its hash (a probe reads one array); at most half the slots are full;
* ``hashes``: MurmurHash3 (seed 0) of each entry, signed;
* ``offsets``: entry i is ``arena[offsets[i]:offsets[i+1]]``;
* ``arena``: the entries' bytes, one after another.

Ids are given in order of insertion and never change. The arrays may be longer than the entries
they hold (they grow by doubling); the number of entries n travels beside them. Functions that
may reallocate return the new :class:`TableArrays`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._jit import kernel
from ._hashing import hash_index, murmur3_32

_LOW32 = np.int64(0xFFFFFFFF)


class TableArrays(NamedTuple):
    """The four arrays of a byte table (see the module docstring)."""

    slots: np.ndarray  # int64
    hashes: np.ndarray  # int64
    offsets: np.ndarray  # int64
    arena: np.ndarray  # uint8


def no_table() -> TableArrays:
    """Arrays of length 0: "no table" (no stop words, no vocabulary, no names)."""
    empty = np.empty(0, dtype=np.int64)
    return TableArrays(empty, empty, empty, np.empty(0, dtype=np.uint8))


@kernel(inline="always")
def find(table, buf, start, end, h):  # pragma: no cover - compiled
    """Id of ``buf[start:end]`` (with hash h) in the table, or -1."""
    slots, offsets, arena = table.slots, table.offsets, table.arena
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


@kernel
def place(slots, h, entry):  # pragma: no cover - compiled
    """Put entry (with hash h) in the first free slot from h: a slot holds the entry's id in its
    high 32 bits and the low 32 bits of its hash, so a probe reads one array."""
    mask = slots.shape[0] - 1
    i = np.int64(h) & mask
    while slots[i] >= 0:
        i = (i + 1) & mask
    slots[i] = (np.int64(entry) << 32) | (np.int64(h) & _LOW32)


@kernel
def rebuild_slots(slots, hashes, n):  # pragma: no cover - compiled
    """Place entries 0..n-1 into empty ``slots`` (after unpickling)."""
    for e in range(n):
        place(slots, hashes[e], e)


@kernel(inline="always")
def has_room(table, n, entries, nbytes):  # pragma: no cover - compiled
    """Whether ``entries`` more entries of ``nbytes`` bytes in all fit without reallocating."""
    return (
        2 * (n + entries) <= table.slots.shape[0]
        and n + entries <= table.hashes.shape[0]
        and n + entries + 1 <= table.offsets.shape[0]
        and table.offsets[n] + nbytes <= table.arena.shape[0]
    )


@kernel(inline="always")
def append(table, n, buf, start, end, h):  # pragma: no cover - compiled
    """Add the absent ``buf[start:end]`` as entry n, in place: the caller made sure there is room
    (:func:`has_room`)."""
    top = table.offsets[n]
    length = end - start
    table.arena[top : top + length] = buf[start:end]
    table.offsets[n + 1] = top + length
    table.hashes[n] = h
    place(table.slots, h, n)


@kernel
def reserve(table, n, entries, nbytes):  # pragma: no cover - compiled
    """The table's arrays with room for ``entries`` more entries of ``nbytes`` bytes in all (each
    array grown by doubling only if it must)."""
    slots, hashes, offsets, arena = table
    if 2 * (n + entries) > slots.shape[0]:
        size = slots.shape[0]
        while 2 * (n + entries) > size:
            size *= 2
        slots = np.full(size, -1, dtype=np.int64)
        for e in range(n):
            place(slots, hashes[e], e)
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
    return TableArrays(slots, hashes, offsets, arena)


@kernel
def insert(table, n, buf, start, end, h):  # pragma: no cover - compiled
    """Add the absent ``buf[start:end]`` (hash h) as entry n; returns the (possibly grown)
    arrays. The table keeps at most half its slots full."""
    slots, hashes, offsets, arena = table
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
            place(slots, hashes[e], e)
    place(slots, h, n)
    return TableArrays(slots, hashes, offsets, arena)


@kernel
def entry_hashes(offsets, arena, n, seed):  # pragma: no cover - compiled
    """MurmurHash3 of each of the first n entries."""
    out = np.empty(n, dtype=np.int64)
    for e in range(n):
        out[e] = murmur3_32(arena, offsets[e], offsets[e + 1], seed)
    return out


@kernel
def union(table, n, other, o_n, limit):  # pragma: no cover - compiled
    """Add the ``other`` table's o_n entries to this one's n (new ones only while it has fewer
    than ``limit``); returns the grown arrays, the new size and where each of the other table's
    entries now is (-1: left out by the limit)."""
    where = np.empty(o_n, dtype=np.int64)
    for e in range(o_n):
        a, b = other.offsets[e], other.offsets[e + 1]
        h = other.hashes[e]
        found = find(table, other.arena, a, b, h)
        if found < 0 and n < limit:
            table = insert(table, n, other.arena, a, b, h)
            found = n
            n += 1
        where[e] = found
    return table, n, where


@kernel
def add_new_columns(table, n, named, n_features, other, o_n, limit):  # pragma: no cover
    """Names of hashed columns: add the ``other`` table's entries whose column (|hash| mod
    n_features) is not marked in ``named`` yet, marking it (in the other table's order, while
    fewer than ``limit``); returns the arrays and the new size."""
    for e in range(o_n):
        if n >= limit:
            break
        h = other.hashes[e]
        column = hash_index(h, n_features)
        if named[column]:
            continue
        named[column] = 1
        table = insert(table, n, other.arena, other.offsets[e], other.offsets[e + 1], h)
        n += 1
    return table, n
