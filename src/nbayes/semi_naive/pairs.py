"""Mergeable pair (and triple) counts: the sufficient statistics of AODE, AnDE, HNB, TAN and
1-dependence k-DB.

Over integer codes (x_j ∈ 0 … v_j − 1, NaN or negative = missing), with row weights w and K
classes, the statistics are

    N(c, x_j = a)                 = Σ_rows w [y = c, x_j = a]
    N(c, x_i = a, x_j = b)        = Σ_rows w [y = c, x_i = a, x_j = b]           (i < j)
    N(c, x_i = a, x_j = b, x_l = e)                                               (i < j < l; A2DE)

each counted over the rows where the attributes involved are observed (a missing value adds
nothing). Counts of disjoint row sets add, so ``accumulate`` on batches, ``merge`` of models
fitted apart and one fit on all the rows give the same tables. Everything the models need is
derived from them when a prediction asks:

* P̂(x_j | c), P̂(x_j | c, x_i), P̂(x_i, x_j | c), P̂(x_l | c, x_i, x_j)
  (:meth:`PairCounts.single_log_prob`, :meth:`~PairCounts.conditionals`,
  :meth:`~PairCounts.joints`, :meth:`~PairCounts.triple_conditionals`), each

      (N(…, x) + p) / (N(…) + v p)

  where N(…) counts the rows observing the conditioning values *and* the child, and p is the
  pseudo-count (Lidstone λ, or m / v for an m-estimate); an empty N(…) gives 1/v;
* the class-free frequencies N(x_j), N(x_i, x_j) (super-parent eligibility, subsumption);
* I(X_j; C) and I(X_i; X_j | C) (:mod:`nbayes.semi_naive.information`).

The number of values v_j of each attribute grows as larger codes arrive; the tables are then
re-laid out (:meth:`PairCounts.grow`), after checking the memory budget
(:mod:`nbayes.semi_naive.memory`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from .. import _threads
from ..families._group import Memo
from . import _kernels
from .memory import DEFAULT_MAX_MEMORY, check_budget, index_bytes, pair_cells, triple_cells

#: Rows counted at a time: their codes, by attribute, stay in cache while every block of the
#: tables is visited.
CHUNK_ROWS = 16384
#: The inner-loop steps (of :mod:`nbayes._threads`' scale, about a nanosecond each) that one
#: weight added to a counts cell costs: the cells of a pair or parent table are met in no useful
#: order (measured: about 7 ns a cell for k-DB(2) on 16,384 rows × 30 attributes, before pair
#: blocks were counted in copies, about 2–3 ns a cell since). Counting a chunk with this weight
#: shares it among threads where it is about a millisecond of work or more.
SCATTER_STEPS = 8


def value_offsets(n_values: np.ndarray) -> np.ndarray:
    """Start of each attribute's values in the singles table: (0, v_0, v_0 + v_1, …)."""
    return np.concatenate(([0], np.cumsum(n_values))).astype(np.int64)


def pair_layout(n_values: np.ndarray) -> np.ndarray:
    """pair_base[i, j] (i < j): the first cell of the block of attributes (i, j); −1 elsewhere."""
    d = n_values.shape[0]
    base = np.full((d, d), -1, dtype=np.int64)
    i, j = np.triu_indices(d, 1)
    sizes = n_values[i] * n_values[j]
    base[i, j] = np.cumsum(sizes) - sizes
    return base


def triple_layout(n_values: np.ndarray) -> np.ndarray:
    """triple_base[i, j, l] (i < j < l): the first cell of the block of (i, j, l); −1 elsewhere."""
    d = n_values.shape[0]
    base = np.full((d, d, d), -1, dtype=np.int64)
    upper = np.triu(np.ones((d, d), dtype=bool), 1)
    i, j, l_ = np.nonzero(upper[:, :, None] & upper[None, :, :])  # i < j and j < l, in order
    sizes = n_values[i] * n_values[j] * n_values[l_]
    base[i, j, l_] = np.cumsum(sizes) - sizes
    return base


def top_codes(X: np.ndarray) -> np.ndarray:
    """The largest code of each column (−1 where a column has none observed)."""
    if X.shape[0] == 0:
        return np.full(X.shape[1], -1, dtype=np.int64)
    if X.dtype.kind == "f":
        top = np.fmax.reduce(X, axis=0)
        return np.where(np.isnan(top) | (top < 0), -1, top).astype(np.int64)
    return np.maximum(X.max(axis=0), -1).astype(np.int64)


def column_codes(X: np.ndarray, n_values: np.ndarray, out: np.ndarray) -> int:
    """out[j, r] = the code x_rj, −1 where it is missing or ≥ v_j (:func:`_kernels.column_codes`),
    the attributes shared among threads; returns the number of codes ≥ v_j."""
    n, d = X.shape
    threads = _threads.plan(n * d)
    parts = _threads.blocks(d, threads)

    def body(start: int, stop: int) -> int:
        return _kernels.column_codes(X, n_values, out, start, stop)

    return int(sum(_threads.run(body, parts, threads)))


def count_chunks(
    X: np.ndarray,
    cls: np.ndarray,
    weight: np.ndarray,
    n_values: np.ndarray,
    count: Callable[[np.ndarray, np.ndarray, np.ndarray], None],
) -> None:
    """Hand a batch of codes (n, d) to ``count(columns, cls, weight)`` chunk by chunk of rows:
    the chunk's codes by attribute (d, rows), int32 with −1 for missing, with its classes (int64)
    and weights (float64)."""
    cls = np.ascontiguousarray(cls, dtype=np.int64)
    weight = np.ascontiguousarray(weight, dtype=np.float64)
    for start in range(0, X.shape[0], CHUNK_ROWS):
        stop = min(X.shape[0], start + CHUNK_ROWS)
        columns = np.empty((X.shape[1], stop - start), dtype=np.int32)
        column_codes(X[start:stop], n_values, columns)
        count(columns, cls[start:stop], weight[start:stop])


class PairCounts(Memo):
    """N(c, x_j), N(c, x_i, x_j) and, with ``order=2``, N(c, x_i, x_j, x_l); see the module
    docstring. ``max_memory`` (bytes) bounds fitting and prediction tables together."""

    def __init__(
        self,
        n_classes: int,
        n_features: int,
        *,
        order: int = 1,
        max_memory: int = DEFAULT_MAX_MEMORY,
        names: Sequence[str] | None = None,
    ) -> None:
        if order not in (1, 2):
            raise ValueError(f"order must be 1 (pairs) or 2 (triples), got {order!r}.")
        self.order = order
        self.max_memory = max_memory
        self.names = names
        self.n_values = np.zeros(n_features, dtype=np.int64)
        self.singles = np.zeros((0, n_classes))
        self.pairs = np.zeros((0, n_classes))
        self.triples = np.zeros((0, n_classes))
        self._cache: dict = {}
        self._layout_cache: dict = {}

    # ------------------------------------------------------------------ layout
    @property
    def n_classes(self) -> int:
        return self.singles.shape[1]

    @property
    def n_features(self) -> int:
        return self.n_values.shape[0]

    def layout(self) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """(offsets, pair_base, triple_base or None) of the current ``n_values``."""
        key = self.n_values.tobytes()
        cached = self._layout_cache.get(key)
        if cached is None:
            cached = (
                value_offsets(self.n_values),
                pair_layout(self.n_values),
                triple_layout(self.n_values) if self.order == 2 else None,
            )
            self._layout_cache = {
                k: v for k, v in self._layout_cache.items() if isinstance(k, tuple)
            }
            self._layout_cache[key] = cached
        return cached

    def lists(self) -> tuple[np.ndarray, np.ndarray]:
        """The attribute pairs (i < j) and, for order 2, triples (i < j < l), one per row."""
        key = ("lists", self.n_features, self.order)
        if key not in self._layout_cache:
            d = self.n_features
            pairs = np.column_stack(np.triu_indices(d, 1)).astype(np.int64)
            triples = np.zeros((0, 3), dtype=np.int64)
            if self.order == 2:
                upper = np.triu(np.ones((d, d), dtype=bool), 1)
                triples = np.column_stack(np.nonzero(upper[:, :, None] & upper[None, :, :]))
            self._layout_cache[key] = (pairs, triples.astype(np.int64))
        return self._layout_cache[key]

    def pair_index(self) -> np.ndarray:
        """pair_index[i, j] = pair_index[j, i]: the row of (min, max) in :meth:`lists`' pairs."""
        key = ("pair_index", self.n_features)
        if key not in self._layout_cache:
            d = self.n_features
            index = np.full((d, d), -1, dtype=np.int64)
            i, j = np.triu_indices(d, 1)
            index[i, j] = index[j, i] = np.arange(i.shape[0])
            self._layout_cache[key] = index
        return self._layout_cache[key]

    def count_bytes(self, n_values: np.ndarray) -> int:
        """Bytes of the count tables for ``n_values``."""
        K = self.n_classes
        cells = int(np.sum(n_values)) + pair_cells(n_values)
        if self.order == 2:
            cells += triple_cells(n_values)
        return 8 * K * cells

    def estimate(self, n_values: np.ndarray) -> int:
        """Bytes of the count tables, the tables prediction derives from them and the index
        tables that find their blocks (:func:`~nbayes.semi_naive.memory.index_bytes`: d² or d³
        entries whatever the values, so an attribute with no value costs its share too)."""
        K, d = self.n_classes, len(n_values)
        V, P = int(np.sum(n_values)), pair_cells(n_values)
        derived = K * (V + 2 * P + V * d) + P + V  # log P(x|c), two directions, margins, N(x)
        if self.order == 2:
            T = triple_cells(n_values)
            derived += K * (P + 3 * T)  # log P(x_i, x_j | c) and three child directions
        return self.count_bytes(n_values) + 8 * derived + index_bytes(d, self.order, K)

    def _check_memory(self, n_values: np.ndarray) -> None:
        what = "A2DE's triple counts" if self.order == 2 else "the pair counts N(c, x_i, x_j)"
        remedies = [
            "fewer values per attribute (coarser intervals for numeric columns, rare categories "
            "merged)",
            "fewer attributes (drop identifiers and near-unique columns)",
        ]
        if self.order == 2:
            remedies.insert(0, "AODE (n=1) instead of A2DE")
        check_budget(
            what,
            self.estimate(n_values),
            self.max_memory,
            n_values=n_values,
            n_classes=self.n_classes,
            names=self.names,
            remedies=remedies,
        )

    def grow(self, n_values: np.ndarray) -> None:
        """Make room for at least ``n_values[j]`` values of attribute j (new cells count 0)."""
        wanted = np.maximum(self.n_values, np.asarray(n_values, dtype=np.int64))
        if np.array_equal(wanted, self.n_values):
            return
        self._check_memory(wanted)
        old_values = self.n_values
        old_offsets, old_base, old_triple = self.layout()
        old = (self.singles, self.pairs, self.triples)
        self.n_values = wanted
        offsets, base, triple_base = self.layout()
        K = self.n_classes
        positions = np.arange(K, dtype=np.int64)
        self.singles = np.zeros((int(offsets[-1]), K))
        _kernels.add_singles(old[0], old_values, old_offsets, self.singles, offsets, positions)
        self.pairs = np.zeros((pair_cells(wanted), K))
        _kernels.add_pairs(old[1], old_values, old_base, self.pairs, wanted, base, positions)
        if self.order == 2:
            self.triples = np.zeros((triple_cells(wanted), K))
            if old[2].shape[0]:
                _kernels.add_triples(
                    old[2], old_values, old_triple, self.triples, wanted, triple_base, positions
                )
        self._cache.clear()

    # ------------------------------------------------------------------ statistics
    def accumulate(self, X: np.ndarray, cls: np.ndarray, weight: np.ndarray) -> None:
        """Add a batch of codes (n, d): integers, or floats with NaN for missing."""
        if X.shape[0] == 0:
            return
        self.grow(top_codes(X) + 1)
        count_chunks(X, cls, weight, self.n_values, self._count)
        self._cache.clear()

    def _count(self, C: np.ndarray, cls: np.ndarray, weight: np.ndarray) -> None:
        """Add a chunk of codes by attribute (d, rows), on threads: the items are the attributes
        (their singles) and the pairs, then the triples; each owns its block of the table, so
        threads share the items without sharing a cell (:mod:`nbayes._threads`)."""
        offsets, base, triple_base = self.layout()
        pair_list, triple_list = self.lists()
        n = C.shape[1]
        items = self.n_features + pair_list.shape[0]
        threads = _threads.plan(SCATTER_STEPS * n * items)

        def pairs(start: int, stop: int) -> None:
            _kernels.count_pairs(
                C, cls, weight, offsets, self.n_values, base, pair_list, self.singles, self.pairs,
                start, stop,
            )  # fmt: skip

        _threads.run(pairs, _threads.blocks(items, threads), threads)
        if self.order == 2:
            items = triple_list.shape[0]
            threads = _threads.plan(SCATTER_STEPS * n * items)

            def triples(start: int, stop: int) -> None:
                _kernels.count_triples(
                    C, cls, weight, self.n_values, triple_base, triple_list, self.triples, start,
                    stop,
                )  # fmt: skip

            _threads.run(triples, _threads.blocks(items, threads), threads)

    def merge(self, other: PairCounts, positions: np.ndarray) -> None:
        """Add ``other``'s counts; its class k lands on this table's class ``positions[k]``."""
        if other.order != self.order:
            raise ValueError(
                f"cannot merge counts of order {other.order} into counts of order {self.order}."
            )
        if other.n_features != self.n_features:
            raise ValueError(
                f"cannot merge counts over {other.n_features} attributes into {self.n_features}."
            )
        self.grow(other.n_values)
        offsets, base, triple_base = self.layout()
        o_offsets, o_base, o_triple = other.layout()
        positions = np.asarray(positions, dtype=np.int64)
        _kernels.add_singles(
            other.singles, other.n_values, o_offsets, self.singles, offsets, positions
        )
        _kernels.add_pairs(
            other.pairs, other.n_values, o_base, self.pairs, self.n_values, base, positions
        )
        if self.order == 2 and other.triples.shape[0]:
            _kernels.add_triples(
                other.triples, other.n_values, o_triple, self.triples, self.n_values,
                triple_base, positions,
            )  # fmt: skip
        self._cache.clear()

    def recoded(self, mappings: Sequence[np.ndarray], n_values: np.ndarray) -> PairCounts:
        """The same counts with attribute j's value a renamed ``mappings[j][a]``, laid out for
        (at least) ``n_values`` values: N'(c, x_i = m_i(a), x_j = m_j(b)) = N(c, x_i = a,
        x_j = b). Two tables coded in different vocabularies are added this way (a table
        model's merge); each mapping must be one-to-one on the values counted here."""
        out = PairCounts(
            self.n_classes, self.n_features, order=self.order, max_memory=self.max_memory,
            names=self.names,
        )  # fmt: skip
        v = self.n_values
        maps = [np.asarray(m, dtype=np.int64)[: v[j]] for j, m in enumerate(mappings)]
        if len(maps) != self.n_features or any(m.shape[0] != v[j] for j, m in enumerate(maps)):
            raise ValueError("recoded needs a mapping of every value of every attribute.")
        out.grow(np.maximum(n_values, [m.max(initial=-1) + 1 for m in maps]))
        offsets, base, triple_base = self.layout()
        new_offsets, new_base, new_triple_base = out.layout()
        w = out.n_values
        for j, m in enumerate(maps):
            out.singles[new_offsets[j] + m] = self.singles[offsets[j] : offsets[j] + v[j]]
        for i, j in zip(*np.triu_indices(self.n_features, 1), strict=True):
            cells = (maps[i][:, None] * w[j] + maps[j][None, :]).ravel()
            out.pairs[new_base[i, j] + cells] = self.pairs[base[i, j] : base[i, j] + v[i] * v[j]]
        if self.order == 2 and self.triples.shape[0]:
            i, j, l_ = np.nonzero(triple_base >= 0)
            for a, b, e in zip(i, j, l_, strict=True):
                cells = (
                    (maps[a][:, None, None] * w[b] + maps[b][None, :, None]) * w[e]
                    + maps[e][None, None, :]
                ).ravel()
                size = v[a] * v[b] * v[e]
                start = triple_base[a, b, e]
                out.triples[new_triple_base[a, b, e] + cells] = self.triples[start : start + size]
        return out

    def reindex_classes(self, positions: np.ndarray, n_classes: int) -> None:
        """Move class k to column ``positions[k]`` of tables with ``n_classes`` classes."""
        for name in ("singles", "pairs", "triples"):
            old = getattr(self, name)
            new = np.zeros((old.shape[0], n_classes))
            new[:, positions] = old
            setattr(self, name, new)
        self._cache.clear()

    def state(self) -> dict[str, np.ndarray]:
        out = {
            "order": np.array([self.order], dtype=np.int64),
            "n_values": self.n_values,
            "singles": self.singles,
            "pairs": self.pairs,
        }
        if self.order == 2:
            out["triples"] = self.triples
        return out

    @classmethod
    def from_state(cls, state: dict[str, np.ndarray]) -> PairCounts:
        order = int(np.asarray(state["order"]).ravel()[0])
        n_values = np.asarray(state["n_values"], dtype=np.int64)
        singles = np.asarray(state["singles"], dtype=np.float64)
        stats = cls(singles.shape[1] if singles.ndim == 2 else 0, n_values.shape[0], order=order)
        stats.n_values = n_values.copy()
        stats.singles = singles.copy()
        stats.pairs = np.asarray(state["pairs"], dtype=np.float64).copy()
        if order == 2:
            stats.triples = np.asarray(state["triples"], dtype=np.float64).copy()
        return stats

    def check(self, n_classes: int, n_features: int) -> None:
        """Raise ValueError unless the arrays fit a model of this size (used by model files)."""
        if self.n_values.shape != (n_features,) or np.any(self.n_values < 0):
            raise ValueError(f"n_values must be {n_features} counts >= 0.")
        expected = {
            "singles": int(self.n_values.sum()),
            "pairs": pair_cells(self.n_values),
        }
        if self.order == 2:
            expected["triples"] = triple_cells(self.n_values)
        for name, cells in expected.items():
            table = getattr(self, name)
            if table.shape != (cells, n_classes):
                raise ValueError(f"{name} has shape {table.shape}, expected {(cells, n_classes)}.")
            if np.any(table < 0) or not np.all(np.isfinite(table)):
                raise ValueError(f"{name} must hold finite counts >= 0.")

    # ------------------------------------------------------------------ derived tables
    def margins(self) -> np.ndarray:
        """margins[offsets[i] + a, j, c] = Σ_b N(c, x_i = a, x_j = b), shape (V, d, K)."""

        def compute() -> np.ndarray:
            offsets, base, _ = self.layout()
            out = np.zeros((self.singles.shape[0], self.n_features, self.n_classes))
            _kernels.pair_margins(self.pairs, offsets, self.n_values, base, out)
            return out

        return self.cached(("margins",), compute)

    def frequencies(self) -> tuple[np.ndarray, np.ndarray]:
        """(N(x_j) per value, N(x_i, x_j) per pair cell): the counts over all classes."""
        return self.cached(
            ("frequencies",), lambda: (self.singles.sum(axis=1), self.pairs.sum(axis=1))
        )

    def single_log_prob(self, pseudo: np.ndarray) -> np.ndarray:
        """log P̂(x_j = a | c) = log (N(c, a) + p_j) / (N_c^(j) + v_j p_j), shape (V, K)."""

        def compute() -> np.ndarray:
            offsets, _, _ = self.layout()
            feature = np.repeat(np.arange(self.n_features), self.n_values)
            running = np.vstack([np.zeros((1, self.n_classes)), np.cumsum(self.singles, axis=0)])
            observed = running[offsets[1:]] - running[offsets[:-1]]  # N_c^(j), shape (d, K)
            p = pseudo[feature][:, None]
            numerator = self.singles + p
            denominator = observed[feature] + (self.n_values * pseudo)[feature][:, None]
            with np.errstate(divide="ignore", invalid="ignore"):
                table = np.log(numerator) - np.log(denominator)
            uniform = -np.log(np.maximum(self.n_values[feature], 1))[:, None]
            return np.where(denominator > 0, table, uniform)

        return self.cached(("single", pseudo.tobytes()), compute)

    def conditionals(
        self, pseudo: np.ndarray, hierarchical: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """(forward, backward): log P̂(x_j | c, x_i) and log P̂(x_i | c, x_j) per pair cell;
        with ``hierarchical`` shrunk towards :meth:`single_log_prob` instead of the uniform."""

        def compute() -> tuple[np.ndarray, np.ndarray]:
            offsets, base, _ = self.layout()
            forward = np.empty_like(self.pairs)
            backward = np.empty_like(self.pairs)
            _kernels.pair_conditionals(
                self.pairs, self.margins(), offsets, self.n_values, base, pseudo, hierarchical,
                self.single_log_prob(pseudo), forward, backward,
            )  # fmt: skip
            return forward, backward

        return self.cached(("conditionals", pseudo.tobytes(), hierarchical), compute)

    def joints(self, pseudo_pair: np.ndarray) -> np.ndarray:
        """log P̂(x_i, x_j | c) per pair cell, with pseudo-count ``pseudo_pair[i, j]``."""

        def compute() -> np.ndarray:
            _, base, _ = self.layout()
            joint = np.empty_like(self.pairs)
            _kernels.pair_joints(self.pairs, self.n_values, base, pseudo_pair, joint)
            return joint

        return self.cached(("joints", pseudo_pair.tobytes()), compute)

    def triple_conditionals(self, pseudo: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(first, middle, last): log P̂ of the first, middle and last attribute of each triple
        cell given the class and the other two."""
        if self.order != 2:
            raise ValueError("triple conditionals need counts of order 2 (A2DE).")

        def compute() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            _, _, triple_base = self.layout()
            tables = tuple(np.empty_like(self.triples) for _ in range(3))
            _kernels.triple_conditionals(self.triples, self.n_values, triple_base, pseudo, *tables)
            return tables

        return self.cached(("triples", pseudo.tobytes()), compute)
