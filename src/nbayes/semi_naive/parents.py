"""Mergeable counts of each attribute with its parents: the statistics of TAN and k-DB.

For attribute j with ordered parents π_j(0), π_j(1), … (a
:class:`~nbayes.semi_naive.structure.Structure`) and each level L = 0 … |π_j|, with u the
values of its first L parents,

    N(c, u, x_j) = Σ_rows w [y = c, x_π(0) … x_π(L−1) = u, x_j]

over the rows where x_j and those L parents are observed. Every level is kept, not only the
deepest, so that a prediction can back off to fewer parents (a missing parent, a configuration
seen too rarely) and selective k-DB can compare every k' ≤ k from one pass.

With k ≤ 1 these are sums of the pair counts, so TAN and 1-dependence k-DB are one pass
(:meth:`ParentCounts.from_pairs`); with k ≥ 2 the structure must be known before counting, so
k-DB takes a second pass over the data.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import _threads
from . import _kernels
from .memory import DEFAULT_MAX_MEMORY, check_budget
from .pairs import SCATTER_STEPS, PairCounts, count_chunks, top_codes
from .structure import Structure


def level_layout(
    n_values: np.ndarray, parents: np.ndarray, n_parents: np.ndarray
) -> tuple[np.ndarray, np.ndarray, int, int]:
    """(level_base, config_base, cells, config cells): where each (attribute, level) block starts
    in the count table and in the configuration table (Python integers, checked for size)."""
    d = n_values.shape[0]
    k = parents.shape[1]
    level_base = np.zeros((d, k + 1), dtype=np.int64)
    config_base = np.zeros((d, k + 1), dtype=np.int64)
    cells = 0
    config_cells = 0
    for j in range(d):
        configs = 1
        for L in range(int(n_parents[j]) + 1):
            if L > 0:
                configs *= int(n_values[parents[j, L - 1]])
            level_base[j, L] = cells
            config_base[j, L] = config_cells
            cells += configs * int(n_values[j])
            config_cells += configs
    return level_base, config_base, cells, config_cells


def layout_bytes(n_values: np.ndarray, parents: np.ndarray, n_parents: np.ndarray, K: int) -> int:
    """Bytes of the counts, the log table and the configuration totals, without allocating."""
    cells = 0
    config_cells = 0
    for j in range(n_values.shape[0]):
        configs = 1
        for L in range(int(n_parents[j]) + 1):
            if L > 0:
                configs *= int(n_values[parents[j, L - 1]])
            cells += configs * int(n_values[j])
            config_cells += configs
    return 8 * (2 * K * cells + (K + 1) * config_cells)


class ParentCounts:
    """N(c, u, x_j) at every level of every attribute (see the module docstring)."""

    def __init__(
        self,
        n_classes: int,
        n_values: np.ndarray,
        structure: Structure,
        *,
        max_parents: int | None = None,
        max_memory: int = DEFAULT_MAX_MEMORY,
        names: Sequence[str] | None = None,
    ) -> None:
        self.structure = structure
        self.n_values = np.asarray(n_values, dtype=np.int64).copy()
        self.parents, self.n_parents = structure.arrays(max_parents)
        needed = layout_bytes(self.n_values, self.parents, self.n_parents, n_classes)
        check_budget(
            f"the parent counts of a {self.parents.shape[1]}-dependence network",
            needed,
            max_memory,
            n_values=self.n_values,
            n_classes=n_classes,
            names=names,
            remedies=[
                "a smaller k (each parent multiplies an attribute's table by its number of values)",
                "fewer values per attribute (coarser intervals, rare categories merged)",
            ],
        )
        self.max_memory = max_memory
        self.level_base, self.config_base, cells, config_cells = level_layout(
            self.n_values, self.parents, self.n_parents
        )
        self.n_config_cells = config_cells
        self.counts = np.zeros((cells, n_classes))
        self._cache: dict = {}

    @property
    def n_classes(self) -> int:
        return self.counts.shape[1]

    @classmethod
    def from_pairs(cls, pairs: PairCounts, structure: Structure) -> ParentCounts:
        """The tables of a structure with at most one parent per attribute, summed from the pair
        counts: level 0 is N(c, x_j), level 1 is N(c, x_p, x_j) (one fit, no second pass)."""
        if structure.max_parents > 1:
            raise ValueError("pair counts give the tables of at most one parent per attribute.")
        stats = cls(pairs.n_classes, pairs.n_values, structure, max_parents=1,
                    max_memory=pairs.max_memory, names=pairs.names)  # fmt: skip
        offsets, base, _ = pairs.layout()
        v = pairs.n_values
        for j in range(v.shape[0]):
            start = stats.level_base[j, 0]
            stats.counts[start : start + v[j]] = pairs.singles[offsets[j] : offsets[j + 1]]
            if stats.n_parents[j] == 0:
                continue
            p = int(stats.parents[j, 0])
            first, low, high = (p, p, j) if p < j else (j, j, p)
            block = pairs.pairs[base[low, high] : base[low, high] + v[low] * v[high]]
            block = block.reshape(v[low], v[high], stats.n_classes)
            if first != p:  # stored as (x_j, x_p): the table wants (x_p, x_j)
                block = block.transpose(1, 0, 2)
            start = stats.level_base[j, 1]
            stats.counts[start : start + v[p] * v[j]] = block.reshape(v[p] * v[j], stats.n_classes)
        return stats

    # ------------------------------------------------------------------ statistics
    def accumulate(self, X: np.ndarray, cls: np.ndarray, weight: np.ndarray) -> None:
        """Add a batch of codes; every code must be one the structure's pass has seen."""
        if X.shape[0] == 0:
            return
        top = top_codes(X)
        beyond = np.flatnonzero(top >= self.n_values)
        if beyond.size:
            j = int(beyond[0])
            raise ValueError(
                f"attribute {j} has code {int(top[j])} in this pass, but the structure was learnt "
                f"from data where it had {int(self.n_values[j])} values: every pass must read the "
                "same rows."
            )
        count_chunks(X, cls, weight, self.n_values, self._count)
        self._cache.clear()

    def _count(self, C: np.ndarray, cls: np.ndarray, weight: np.ndarray) -> None:
        """Add a chunk of codes by attribute (d, rows), the attributes shared among threads
        (each owns the blocks of its levels; :mod:`nbayes._threads`)."""
        d, n = C.shape
        levels = d + int(self.n_parents.sum())  # one cell per level of each attribute
        threads = _threads.plan(SCATTER_STEPS * n * levels)

        def count(start: int, stop: int) -> None:
            _kernels.count_parents(
                C, cls, weight, self.n_values, self.parents, self.n_parents, self.level_base,
                self.counts, start, stop,
            )  # fmt: skip

        _threads.run(count, _threads.blocks(d, threads), threads)

    def _same_layout(self, other: ParentCounts) -> bool:
        return (
            np.array_equal(self.n_values, other.n_values)
            and np.array_equal(self.parents, other.parents)
            and np.array_equal(self.n_parents, other.n_parents)
        )

    def merge(self, other: ParentCounts, positions: np.ndarray) -> None:
        """Add ``other``'s counts: both must have the same structure and attribute values."""
        if not self._same_layout(other):
            raise ValueError(
                "cannot merge parent counts of different structures (the parents or the number "
                "of values of some attribute differ): models fitted apart with k >= 2 learn their "
                "own structure. Merge their pair statistics and count again with that structure "
                "(fit_passes), or fit on all rows."
            )
        self.counts[:, positions] += other.counts
        self._cache.clear()

    def add(self, other: ParentCounts) -> None:
        """Add the counts of other rows of the same model (the same classes)."""
        self.merge(other, np.arange(self.n_classes))

    def reindex_classes(self, positions: np.ndarray, n_classes: int) -> None:
        counts = np.zeros((self.counts.shape[0], n_classes))
        counts[:, positions] = self.counts
        self.counts = counts
        self._cache.clear()

    def state(self) -> dict[str, np.ndarray]:
        return {
            "n_values": self.n_values,
            "parents": self.parents,
            "n_parents": self.n_parents,
            "weights": np.array([w for ws in self.structure.weights for w in ws], dtype=np.float64),
            "order": np.asarray(self.structure.order, dtype=np.int64),
            "counts": self.counts,
        }

    @classmethod
    def from_state(cls, state: dict[str, np.ndarray]) -> ParentCounts:
        parents = np.asarray(state["parents"], dtype=np.int64)
        n_parents = np.asarray(state["n_parents"], dtype=np.int64)
        weights = np.asarray(state["weights"], dtype=np.float64)
        d = parents.shape[0]
        if n_parents.shape != (d,) or int(n_parents.sum()) != weights.shape[0]:
            raise ValueError("the parents, their counts and their weights do not match.")
        if np.any(n_parents < 0) or np.any(n_parents > parents.shape[1]):
            raise ValueError("n_parents is out of range.")
        listed, position = [], 0
        for j in range(d):
            ps = tuple(int(p) for p in parents[j, : n_parents[j]])
            if any(not 0 <= p < d or p == j for p in ps):
                raise ValueError(f"attribute {j} has an invalid parent.")
            listed.append((ps, tuple(float(w) for w in weights[position : position + len(ps)])))
            position += len(ps)
        order = tuple(int(j) for j in np.asarray(state["order"], dtype=np.int64))
        if sorted(order) != list(range(d)):
            raise ValueError("order must list every attribute once.")
        structure = Structure(tuple(p for p, _ in listed), tuple(w for _, w in listed), order)
        counts = np.asarray(state["counts"], dtype=np.float64)
        n_values = np.asarray(state["n_values"], dtype=np.int64)
        if n_values.shape != (d,) or np.any(n_values < 0):
            raise ValueError(f"n_values must be {d} counts >= 0.")
        # the file's counts must have the layout's shape before a table of that shape is made
        cells = level_layout(n_values, parents, n_parents)[2]
        if counts.ndim != 2 or counts.shape[0] != cells:
            raise ValueError(f"counts has shape {counts.shape}, expected ({cells}, K).")
        stats = cls(counts.shape[1], n_values, structure, max_parents=parents.shape[1],
                    max_memory=2**62)  # fmt: skip
        stats.counts = counts.copy()
        return stats

    def bytes_needed(self) -> int:
        """Bytes of the counts and the tables a prediction derives from them (the layout's
        estimate, as the constructor checks it against ``max_memory``)."""
        return layout_bytes(self.n_values, self.parents, self.n_parents, self.n_classes)

    def check(self, n_classes: int, n_features: int) -> None:
        if self.n_values.shape != (n_features,) or self.counts.shape[1] != n_classes:
            raise ValueError("the parent counts do not match the model's classes and features.")
        if np.any(self.counts < 0) or not np.all(np.isfinite(self.counts)):
            raise ValueError("parent counts must be finite and >= 0.")

    # ------------------------------------------------------------------ derived tables
    def tables(
        self, pseudo: np.ndarray, hierarchical: bool = False
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(log P̂(x_j | c, u) per cell, N(c, u) per configuration, Σ_c N(c, u) per
        configuration), with pseudo-count p_j per attribute:
        P̂(x_j | c, u) = (N(c, u, x_j) + p_j) / (N(c, u) + v_j p_j), or with ``hierarchical``
        (N(c, u, x_j) + v_j p_j P̂(x_j | c, u⁻)) / (N(c, u) + v_j p_j) below the first level
        (:mod:`nbayes.semi_naive.classifier`)."""
        key = ("tables", pseudo.tobytes(), hierarchical)
        if key not in self._cache:
            log_table = np.empty_like(self.counts)
            config_class = np.empty((self.n_config_cells, self.n_classes))
            config_count = np.empty(self.n_config_cells)
            _kernels.network_tables(
                self.counts, self.n_values, self.parents, self.n_parents, self.level_base,
                self.config_base, pseudo, hierarchical, log_table, config_class, config_count,
            )  # fmt: skip
            self._cache[key] = (log_table, config_class, config_count)
        return self._cache[key]
