"""From documents to per-document token counts, in chunks of bounded size.

The token rule (scikit-learn's default analyzer, exactly): the document is lowercased with
``str.lower()`` (when ``lowercase``), and its tokens are the maximal runs of word characters
(``str.isalnum()`` or ``_``, Python's ``re`` ``\\w``) of at least ``min_token_length`` (2) code
points — ``re.findall(r"(?u)\\b\\w\\w+\\b", text.lower())``. Stop words are removed next, then
word n-grams for n in ``ngram_range`` are formed by joining consecutive remaining tokens with one
space (scikit-learn's ``_word_ngrams``).

Documents may be ``str``, ``bytes`` (or any bytes-like object), or missing:

* **Bytes that are not valid UTF-8** are decoded with replacement: each maximal ill-formed
  subsequence becomes one U+FFFD, exactly as ``bytes.decode("utf-8", errors="replace")``. U+FFFD
  is not a word character, so it separates tokens and is never part of one. The number of
  substitutions is counted (``n_invalid``), and the estimators warn once per call with a
  :class:`UnicodeWarning`; nothing ever raises on bad bytes. A ``str`` holding lone surrogates
  (from ``errors="surrogateescape"``) is treated the same way: they cannot be UTF-8, each counts as
  ill-formed and separates tokens.
* **Missing documents** (``None``, NaN, ``pd.NA``) are empty documents: no tokens. They are
  counted (``n_missing``).

Memory is bounded by ``chunk_bytes`` (counted in characters for ``str`` documents, so up to 4×
that in UTF-8 bytes): documents are encoded and tokenised a chunk at a time, and a
document longer than a chunk is cut into pieces at whitespace (never inside a token) that are
tokenised one after another, the n-gram context carried from piece to piece, and summed into one
row. Only the current piece, its counts and the distinct columns of the document are in memory.
"""

from __future__ import annotations

import math
import os
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp

from ..exceptions import choice_hint
from . import _scan, _unicode
from ._hashtable import no_table
from .bytetable import ByteTable
from .stop_words import LISTS

#: Default bytes of text per chunk.
CHUNK_BYTES = 1 << 22

_EMPTY_I = np.empty(0, dtype=np.int64)
_EMPTY_U8 = np.empty(0, dtype=np.uint8)
_WHITESPACE = (" ", "\n", "\t", "\r", "\f", "\v")
_WHITESPACE_B = tuple(w.encode() for w in _WHITESPACE)


@dataclass
class Hashing:
    """Columns are |MurmurHash3_x86_32(token bytes, seed 0)| mod ``n_features`` (scikit-learn's
    HashingVectorizer). ``names``, when given, records the first n-gram met in each column not
    marked in ``named`` (a byte per column), up to ``max_names`` columns."""

    n_features: int
    names: ByteTable | None = None
    max_names: int = 0
    named: np.ndarray | None = None


@dataclass
class Vocabulary:
    """Columns are token ids in ``table``; unknown tokens are added (``grow``) or skipped."""

    table: ByteTable
    grow: bool


@dataclass
class LocalVocabulary:
    """For a worker thread while a vocabulary grows: ``table`` is only read; n-grams it lacks get
    ids -1, -2, ... in ``new`` (a table of the chunk's own), renumbered afterwards."""

    table: ByteTable
    new: ByteTable


class Counted(NamedTuple):
    """One chunk of documents: raw counts (CSR, rows = documents) and what the decoding met."""

    X: sp.csr_array
    n_invalid: int
    n_missing: int


def is_missing(doc: Any) -> bool:
    return (
        doc is None
        or (isinstance(doc, float) and math.isnan(doc))
        or type(doc).__name__ in ("NAType", "NaTType")
    )


def _encode(doc: Any, row: int) -> bytes | memoryview | None:
    if isinstance(doc, str):
        return doc.encode("utf-8", "surrogatepass")
    if isinstance(doc, bytes | bytearray | memoryview):
        return doc
    if is_missing(doc):
        return None
    if isinstance(doc, np.str_ | np.bytes_):
        return _encode(doc.item(), row)
    raise TypeError(
        f"document {row} is a {type(doc).__name__}, not text: documents must be str or bytes "
        "(None for a missing document)."
    )


def _cut(doc: str | bytes, start: int, limit: int) -> int:
    """Where the piece starting at ``start`` ends: the last whitespace in the second half of the
    next ``limit`` characters (bytes), or ``start + limit`` if there is none."""
    stop = start + limit
    if stop >= len(doc):
        return len(doc)
    spaces = _WHITESPACE if isinstance(doc, str) else _WHITESPACE_B
    lo = start + limit // 2
    best = max(doc.rfind(w, lo, stop) for w in spaces)
    return best + 1 if best >= 0 else stop


@dataclass
class Tokenizer:
    """Lowercasing, word tokens, stop words and word n-grams (see the module docstring for the
    exact rule), run by a compiled single pass over the UTF-8 bytes."""

    lowercase: bool = True
    ngram_range: tuple[int, int] = (1, 1)
    stop_words: str | Iterable[str] | None = None
    min_token_length: int = 2
    chunk_bytes: int = CHUNK_BYTES
    n_threads: int | None = None
    _stop: ByteTable | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        lo, hi = check_ngram_range(self.ngram_range)
        self.ngram_range = (lo, hi)
        if isinstance(self.min_token_length, bool) or not isinstance(self.min_token_length, int):
            raise ValueError(
                f"min_token_length must be an int >= 1, got {self.min_token_length!r}."
            )
        if self.min_token_length < 1:
            raise ValueError(f"min_token_length must be >= 1, got {self.min_token_length}.")
        if not isinstance(self.chunk_bytes, int) or self.chunk_bytes < 1024:
            raise ValueError(f"chunk_bytes must be an int >= 1024, got {self.chunk_bytes!r}.")
        if self.n_threads is not None and (
            not isinstance(self.n_threads, int) or self.n_threads < 1
        ):
            raise ValueError(f"n_threads must be None or an int >= 1, got {self.n_threads!r}.")
        self._stop = stop_table(self.stop_words)

    # ----------------------------------------------------------------- compiled pass
    def _run(
        self,
        data: np.ndarray,
        starts: np.ndarray,
        ends: np.ndarray,
        indexer: Hashing | Vocabulary | LocalVocabulary,
        history: tuple[np.ndarray, np.ndarray] = (_EMPTY_U8, _EMPTY_I),
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, tuple[np.ndarray, np.ndarray]]:
        props, lower = _unicode.tables()
        lo, hi = self.ngram_range
        stop = self._stop.arrays() if self._stop is not None else no_table()
        rule = _scan.TokenRule(
            props, lower, bool(self.lowercase), int(self.min_token_length), lo, hi, stop
        )
        named, shared = _EMPTY_U8, no_table()
        if isinstance(indexer, Hashing):
            mode, n_features = _scan.MODE_HASH, int(indexer.n_features)
            table = indexer.names
            limit = int(indexer.max_names) if table is not None else 0
            if limit:
                named = indexer.named
        elif isinstance(indexer, LocalVocabulary):
            mode, n_features, table, limit = _scan.MODE_LOCAL, 0, indexer.new, 0
            shared = indexer.table.arrays()
        else:
            mode = _scan.MODE_GROW if indexer.grow else _scan.MODE_FIXED
            n_features, table, limit = 0, indexer.table, 0
        index = _scan.Indexing(mode, n_features, limit, named, shared)
        arrays = table.arrays() if table is not None else no_table()
        n = table.n if table is not None else 0
        indptr, indices, counts, invalid, arrays, n, history = _scan.count_documents(
            data, starts, ends, rule, index, arrays, n, history
        )
        if table is not None:
            table.update(arrays, n)
        return indptr, indices, counts, int(invalid), history

    def _width(self, indexer: Hashing | Vocabulary) -> int:
        return indexer.n_features if isinstance(indexer, Hashing) else len(indexer.table)

    # ----------------------------------------------------------------- chunks
    def count(self, texts: Iterable[Any], indexer: Hashing | Vocabulary) -> Iterator[Counted]:
        """Yield the raw counts of ``texts``, a chunk of documents at a time (rows in order).

        Chunks are tokenised by ``n_threads`` threads at once (the compiled pass releases the
        GIL), except when a vocabulary grows, which is sequential; results come in order and do
        not depend on the number of threads. Column names (hashing) are collected per chunk and
        added in chunk order, which gives the same names as one sequential pass.
        """
        _unicode.tables()  # built once, before any worker needs them
        threads = self._threads()
        if threads <= 1:
            for item in self._batches(texts):
                yield self._count_item(item, indexer)
            return
        if isinstance(indexer, Vocabulary) and indexer.grow:
            yield from self._count_growing(texts, indexer, threads)
            return
        pending: deque = deque()
        with ThreadPoolExecutor(threads) as pool:
            for item in self._batches(texts):
                if isinstance(item, tuple):  # a batch of documents: in a worker
                    local = _local_indexer(indexer)
                    pending.append((pool.submit(self._count_item, item, local), local))
                    if len(pending) <= threads:
                        continue
                else:  # a long document, in pieces: after everything before it
                    while pending:
                        yield _finish(*pending.popleft(), indexer)
                    yield self._count_item(item, indexer)
                    continue
                yield _finish(*pending.popleft(), indexer)
            while pending:
                yield _finish(*pending.popleft(), indexer)

    def _count_growing(
        self, texts: Iterable[Any], indexer: Vocabulary, threads: int
    ) -> Iterator[Counted]:
        """A growing vocabulary, in rounds of ``threads`` chunks: the workers read the vocabulary
        (unchanged during a round) and collect the n-grams it lacks in tables of their own; then,
        chunk by chunk in order, those are added to the vocabulary and the chunk renumbered: the
        ids are those of one sequential pass."""
        items = self._batches(texts)
        with ThreadPoolExecutor(threads) as pool:
            done = False
            while not done:
                round_: list[tuple] = []
                long_doc = None
                for item in items:
                    if isinstance(item, tuple):
                        round_.append(item)
                        if len(round_) == threads:
                            break
                    else:
                        long_doc = item
                        break
                else:
                    done = True
                workers = [
                    pool.submit(self._count_item, item, LocalVocabulary(indexer.table, ByteTable()))
                    for item in round_
                ]
                # every worker of the round has finished reading the vocabulary before it changes
                results = [worker.result() for worker in workers]
                for result, item in zip(results, round_, strict=True):
                    yield _renumber(result, item, indexer.table)
                if long_doc is not None:
                    yield self._count_item(long_doc, indexer)

    def _threads(self) -> int:
        if self.n_threads is not None:
            return int(self.n_threads)
        return min(8, os.cpu_count() or 1)

    def _batches(self, texts: Iterable[Any]) -> Iterator[tuple | str | bytes]:
        """Batches of encoded documents, as (data, starts, ends, missing), and documents longer
        than a chunk, as themselves. A batch of ``str`` (the common case) is joined and encoded
        at once; as soon as it holds anything else it is encoded document by document."""
        batch: list = []
        size = 0
        missing = 0
        strings = True
        long_limit = self.chunk_bytes
        for row, doc in enumerate(texts):
            long_doc: str | bytes | None = None
            if type(doc) is str:
                if len(doc) <= long_limit // 4:
                    batch.append(doc if strings else doc.encode("utf-8", "surrogatepass"))
                    size += len(doc)
                else:
                    long_doc = doc
            elif isinstance(doc, bytes | bytearray | memoryview) and (
                memoryview(doc).nbytes > long_limit
            ):
                long_doc = bytes(doc) if not isinstance(doc, bytes) else doc
            else:
                encoded = _encode(doc, row)
                if encoded is None:
                    missing += 1
                    encoded = b""
                if strings:
                    batch = [d.encode("utf-8", "surrogatepass") for d in batch]
                    strings = False
                batch.append(encoded)
                size += len(encoded)
            if long_doc is not None:
                if batch:
                    yield _pack(batch, missing, strings)
                    batch, size, missing, strings = [], 0, 0, True
                yield long_doc
                continue
            if size >= self.chunk_bytes:
                yield _pack(batch, missing, strings)
                batch, size, missing, strings = [], 0, 0, True
        if batch:
            yield _pack(batch, missing, strings)

    def _count_item(
        self, item: tuple | str | bytes, indexer: Hashing | Vocabulary | LocalVocabulary
    ) -> Counted | tuple:
        if not isinstance(item, tuple):
            return self._count_long(item, indexer)
        data, starts, ends, missing = item
        indptr, indices, counts, invalid, _ = self._run(data, starts, ends, indexer)
        if isinstance(indexer, LocalVocabulary):  # renumbered by _renumber
            return indptr, indices, counts, invalid, indexer.new
        shape = (starts.shape[0], self._width(indexer))
        return Counted(sp.csr_array((counts, indices, indptr), shape=shape), invalid, missing)

    def _count_long(self, doc: str | bytes, indexer: Hashing | Vocabulary) -> Counted:
        """One document in pieces cut at whitespace, summed into one row."""
        limit = self.chunk_bytes // 4 if isinstance(doc, str) else self.chunk_bytes
        history = (_EMPTY_U8, _EMPTY_I)
        keys, values = [], []
        pending = 0
        invalid = 0
        start = 0
        while start < len(doc):
            stop = _cut(doc, start, limit)
            piece = doc[start:stop]
            raw = piece.encode("utf-8", "surrogatepass") if isinstance(piece, str) else piece
            data = np.frombuffer(raw, dtype=np.uint8)
            bounds = np.array([0], dtype=np.int64), np.array([data.shape[0]], dtype=np.int64)
            _, indices, counts, bad, history = self._run(data, *bounds, indexer, history)
            invalid += bad
            keys.append(indices.copy())  # (not views: they would keep the kernel's buffers)
            values.append(counts.copy())
            pending += indices.shape[0]
            if pending > (1 << 21):  # fold the pieces so far: at most one pair per column
                folded = _sum_pairs(keys, values)
                keys, values = [folded[0]], [folded[1]]
                pending = folded[0].shape[0]
            start = stop
        indices, counts = _sum_pairs(keys, values)
        indptr = np.array([0, indices.shape[0]], dtype=np.int64)
        X = sp.csr_array((counts, indices, indptr), shape=(1, self._width(indexer)))
        X.has_sorted_indices = True
        return Counted(X, invalid, 0)

    # ----------------------------------------------------------------- inspection
    def analyze(self, doc: str | bytes | None) -> dict[str, int]:
        """The n-grams of one document with their counts, in order of first appearance."""
        table = ByteTable()
        counted = next(self.count([doc], Vocabulary(table, grow=True)))
        X = counted.X
        return {table.token(int(j)): int(c) for j, c in zip(X.indices, X.data, strict=True)}


def _pack(batch: list, missing: int, strings: bool) -> tuple:
    """(bytes, starts, ends, missing) of a batch of documents. ``str`` documents are joined with
    NUL and encoded at once, the NULs giving the boundaries (unless a document holds a NUL
    itself: then, and for bytes, one document at a time)."""
    if strings:
        data = np.frombuffer("\0".join(batch).encode("utf-8", "surrogatepass"), dtype=np.uint8)
        cuts = np.flatnonzero(data == 0)
        if cuts.shape[0] == len(batch) - 1:
            ends = np.append(cuts, data.shape[0]).astype(np.int64)
            starts = np.concatenate(([0], cuts + 1)).astype(np.int64)
            return data, starts, ends, missing
        batch = [d.encode("utf-8", "surrogatepass") for d in batch]
    lengths = np.fromiter(map(len, batch), dtype=np.int64, count=len(batch))
    ends = np.cumsum(lengths)
    return np.frombuffer(b"".join(batch), dtype=np.uint8), ends - lengths, ends, missing


def _local_indexer(indexer: Hashing | Vocabulary) -> Hashing | Vocabulary:
    """What a worker thread may use: a read-only vocabulary is shared; names of hashed columns
    go to a table of the chunk's own (united into the shared one in order, by :func:`_finish`)."""
    if isinstance(indexer, Hashing) and indexer.names is not None:
        room = indexer.max_names - len(indexer.names)
        if room > 0:
            named = np.zeros(indexer.n_features, dtype=np.uint8)
            return Hashing(indexer.n_features, ByteTable(), room, named)
        return Hashing(indexer.n_features)
    return indexer


def _finish(future: Any, local: Hashing | Vocabulary, indexer: Hashing | Vocabulary) -> Counted:
    counted = future.result()
    if local is not indexer and isinstance(local, Hashing) and local.names is not None:
        indexer.names.add_new_columns(
            local.names, indexer.named, indexer.n_features, indexer.max_names
        )
    return counted


def _renumber(result: tuple, item: tuple, table: ByteTable) -> Counted:
    """Add a chunk's new n-grams to the vocabulary (in their order of first appearance) and give
    its local ids -1, -2, ... their ids there."""
    indptr, indices, counts, invalid, new = result
    where = table.union(new)
    local = indices < 0
    if local.any():
        indices = indices.copy()
        indices[local] = where[-1 - indices[local]]
    X = sp.csr_array((counts, indices, indptr), shape=(item[1].shape[0], len(table)))
    return Counted(X, invalid, item[3])


def _sum_pairs(keys: list[np.ndarray], values: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Sum (index, count) pairs with equal indices; indices come out sorted."""
    if not keys:
        return _EMPTY_I, np.empty(0)
    all_keys = np.concatenate(keys)
    unique, inverse = np.unique(all_keys, return_inverse=True)
    return unique, np.bincount(inverse, weights=np.concatenate(values), minlength=unique.shape[0])


#: The longest word n-gram: a document of T tokens gives up to T · max_n n-grams, so an unbounded
#: max_n (from a forged model file, say) would make tokenising quadratic in T.
MAX_NGRAM = 32


def check_ngram_range(value: Any) -> tuple[int, int]:
    try:
        lo, hi = value
        ok = all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in (lo, hi))
    except (TypeError, ValueError):
        ok = False
    if not ok or not 1 <= lo <= hi <= MAX_NGRAM:
        raise ValueError(
            f"ngram_range must be a pair (min_n, max_n) of ints with 1 <= min_n <= max_n <= "
            f"{MAX_NGRAM}, got {value!r}."
        )
    return int(lo), int(hi)


def stop_table(stop_words: str | Iterable[str] | None) -> ByteTable | None:
    """The stop words as a byte table; ``"english"`` is scikit-learn's list."""
    if stop_words is None:
        return None
    if isinstance(stop_words, str) and stop_words in LISTS:
        words: Iterable[str] = sorted(LISTS[stop_words])
    elif isinstance(stop_words, str):  # a misspelt list's name, not one word
        raise ValueError(
            f"stop_words must be None, {sorted(LISTS)} or a list of words, got "
            f"{stop_words!r}{choice_hint(stop_words, LISTS)}"
        )
    else:
        words = list(stop_words)
        bad = [w for w in words if not isinstance(w, str)]
        if bad:
            raise ValueError(f"stop_words must be strings; got {bad[0]!r}.")
    table = ByteTable(words)
    return table if len(table) else None
