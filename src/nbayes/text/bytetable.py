"""A set of tokens with stable ids: the vocabulary of vocabulary mode, the stop-word list, and the
names of hashed columns.

Stored as four NumPy arrays (see :mod:`nbayes.text._hashtable`): it pickles, crosses into the
compiled tokenizer without conversion, and two tables merge by union (the other table's ids are
re-mapped, this table's never change). Tokens are UTF-8 byte strings; ids follow first insertion.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from . import _hashtable
from ._hashing import murmur3_32
from ._hashtable import TableArrays


class ByteTable:
    """Tokens (UTF-8 byte strings) ↔ ids 0, 1, 2, … in order of first insertion."""

    def __init__(self, tokens: Iterable[str | bytes] = ()) -> None:
        self.slots = np.full(1024, -1, dtype=np.int64)
        self.hashes = np.empty(256, dtype=np.int64)
        self.offsets = np.zeros(257, dtype=np.int64)
        self.arena = np.empty(4096, dtype=np.uint8)
        self.n = 0
        for token in tokens:
            self.add(token)

    def __len__(self) -> int:
        return self.n

    def arrays(self) -> TableArrays:
        return TableArrays(self.slots, self.hashes, self.offsets, self.arena)

    def update(self, arrays: TableArrays, n: int) -> None:
        """Take the (possibly reallocated) arrays a kernel returned."""
        self.slots, self.hashes, self.offsets, self.arena = arrays
        self.n = int(n)

    @staticmethod
    def _bytes(token: str | bytes) -> np.ndarray:
        raw = token.encode("utf-8", "surrogatepass") if isinstance(token, str) else bytes(token)
        return np.frombuffer(raw, dtype=np.uint8)

    def find(self, token: str | bytes) -> int:
        """The id of ``token``, or -1."""
        buf = self._bytes(token)
        h = murmur3_32(buf, 0, buf.shape[0], 0)
        return int(_hashtable.find(self.arrays(), buf, 0, buf.shape[0], h))

    def add(self, token: str | bytes) -> int:
        """The id of ``token``, inserting it if absent."""
        buf = self._bytes(token)
        h = murmur3_32(buf, 0, buf.shape[0], 0)
        found = int(_hashtable.find(self.arrays(), buf, 0, buf.shape[0], h))
        if found >= 0:
            return found
        arrays = _hashtable.insert(self.arrays(), self.n, buf, 0, buf.shape[0], h)
        self.update(arrays, self.n + 1)
        return self.n - 1

    def __contains__(self, token: str | bytes) -> bool:
        return self.find(token) >= 0

    def token_bytes(self, i: int) -> bytes:
        return self.arena[self.offsets[i] : self.offsets[i + 1]].tobytes()

    def token(self, i: int) -> str:
        """Entry i as text (tokens come from decoded text, so they are always UTF-8)."""
        return self.token_bytes(i).decode("utf-8", "replace")

    def tokens(self, ids: Iterable[int] | None = None) -> list[str]:
        chosen = range(self.n) if ids is None else ids
        return [self.token(int(i)) for i in chosen]

    def union(self, other: ByteTable, limit: int | None = None) -> np.ndarray:
        """Add ``other``'s tokens (new ones only while this table has fewer than ``limit``,
        in ``other``'s order); returns the id here of each of ``other``'s ids (-1 if left out)."""
        cap = np.iinfo(np.int64).max if limit is None else int(limit)
        arrays, n, where = _hashtable.union(self.arrays(), self.n, other.arrays(), other.n, cap)
        self.update(arrays, n)
        return where

    def add_new_columns(
        self, other: ByteTable, named: np.ndarray, n_features: int, limit: int
    ) -> None:
        """Hashed-column names: add ``other``'s tokens whose column (|hash| mod n_features) is
        not marked in ``named`` (marking it), in ``other``'s order, while fewer than ``limit``."""
        arrays, n = _hashtable.add_new_columns(
            self.arrays(), self.n, named, int(n_features), other.arrays(), other.n, int(limit)
        )
        self.update(arrays, n)

    def copy(self) -> ByteTable:
        new = ByteTable.__new__(ByteTable)
        new.slots, new.hashes = self.slots.copy(), self.hashes.copy()
        new.offsets, new.arena = self.offsets.copy(), self.arena.copy()
        new.n = self.n
        return new

    def arrays_state(self) -> dict[str, np.ndarray]:
        """The tokens as two arrays (model files): entry i is arena[offsets[i]:offsets[i+1]]."""
        return {
            "offsets": self.offsets[: self.n + 1].copy(),
            "arena": self.arena[: self.offsets[self.n]].copy(),
        }

    @classmethod
    def from_arrays(cls, offsets: np.ndarray, arena: np.ndarray) -> ByteTable:
        """Rebuild a table from :meth:`arrays_state`, checking the arrays first (a model file
        is read from outside: inconsistent offsets must not reach the compiled code). Hashes
        and slots are recomputed, never read."""
        offsets = np.asarray(offsets)
        arena = np.asarray(arena)
        if offsets.ndim != 1 or offsets.shape[0] < 1 or offsets.dtype.kind not in "iu":
            raise ValueError("a token table's offsets must be a 1-D integer array.")
        if arena.ndim != 1 or arena.dtype != np.uint8:
            raise ValueError("a token table's arena must be 1-D bytes.")
        if offsets.dtype == np.uint64 and np.any(offsets > np.iinfo(np.int64).max):
            raise ValueError("a token table's offsets are beyond 64-bit integers.")
        offsets = offsets.astype(np.int64)
        # compared, never subtracted: differences of forged offsets can wrap around
        if (
            offsets[0] != 0
            or offsets[-1] != arena.shape[0]
            or not np.all(offsets[1:] >= offsets[:-1])
        ):
            raise ValueError("a token table's offsets do not describe its arena.")
        n = offsets.shape[0] - 1
        hashes = _hashtable.entry_hashes(offsets, arena, n, 0)
        table = cls.__new__(cls)
        table.__setstate__({"offsets": offsets, "arena": arena, "hashes": hashes})
        return table

    def __getstate__(self) -> dict:
        # only the used part of the arrays; the slots are rebuilt on load
        return {**self.arrays_state(), "hashes": self.hashes[: self.n].copy()}

    def __setstate__(self, state: dict) -> None:
        offsets, arena, hashes = state["offsets"], state["arena"], state["hashes"]
        n = hashes.shape[0]
        size = 1024
        while size < 2 * (n + 1):
            size *= 2
        self.slots = np.full(size, -1, dtype=np.int64)
        self.hashes = np.empty(max(256, n), dtype=np.int64)
        self.hashes[:n] = hashes
        self.offsets = np.zeros(max(257, n + 1), dtype=np.int64)
        self.offsets[: n + 1] = offsets
        self.arena = np.empty(max(4096, arena.shape[0]), dtype=np.uint8)
        self.arena[: arena.shape[0]] = arena
        self.n = n
        _hashtable.rebuild_slots(self.slots, self.hashes, n)
