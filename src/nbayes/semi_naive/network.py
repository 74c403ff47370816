"""Bayesian-network classifiers in which each attribute has the class and a few attributes as
parents: TAN and k-DB.

    P(c, x) = P(c) Π_j P(x_j | c, x_π(j))

**TAN** (Friedman, Geiger & Goldszmidt 1997): π(j) is one attribute, the parent in the Chow–Liu
tree of I(X_i; X_j | C) (:func:`~nbayes.semi_naive.structure.chow_liu_tree`; the root, by default
the attribute with the largest I(X_j; C), has none). **k-DB** (Sahami 1996): π(j) are up to k
attributes ranked before j by I(X; C) (:func:`~nbayes.semi_naive.structure.kdb_structure`).

Each factor is P̂(x_j | c, u) = (N(c, u, x_j) + p) / (N(c, u) + v_j p) (see
:mod:`nbayes.semi_naive.classifier` for p), where u are the values of the parents. **Back-off:**
a factor uses the first L parents only, L the deepest level at which those parents are observed
in the row, were seen in fitting, and their configuration u occurred at least ``min_count``
times in fitting (over all classes); L = 0 is naive Bayes' P̂(x_j | c). So a missing parent
never discards the child, and a configuration the training data never showed is not scored as
the uniform 1/v_j.

Passes: TAN and k-DB with k = 1 are sums of the pair counts (one pass; ``partial_fit`` and
``merge`` exact). k-DB with k ≥ 2 learns the structure from the pair counts (pass 1) and then
counts every attribute with its parents (pass 2); models fitted apart merge only when the
structure of the merged pair counts is the one both counted with (else a clear error).
"""

from __future__ import annotations

import copy
import numbers
from typing import Any

import numpy as np

from .. import _threads
from .._base import NaiveBayesClassifier
from .._state import nest, section
from . import _scoring_kernels
from .classifier import (
    SemiNaiveClassifier,
    check_min_count,
    scoring_blocks,
    structure_constructor,
)
from .information import conditional_mutual_information, mutual_information
from .pairs import PairCounts
from .parents import ParentCounts
from .structure import (
    Structure,
    chow_liu_tree,
    kdb_structure,
    sampled_order,
    without_round_off,
)

#: Steps of :mod:`nbayes._threads` one read of a network's tables counts for in a kernel's work:
#: the cells a row reaches lie at scattered places (measured 35-180 ns per row and attribute
#: on the shared tables, against about 1 ns per step), so threads pay from fewer rows.
SCATTERED = 8


class StagedCounts:
    """The pair counts of pass 1 and, once pass 2 has run, the parent counts of the structure
    learnt from them. Merges add both; parent counts of different structures do not merge."""

    def __init__(self, pairs: PairCounts, parents: ParentCounts | None = None) -> None:
        self.pairs = pairs
        self.parents = parents

    def accumulate(self, X: np.ndarray, cls: np.ndarray, weight: np.ndarray) -> None:
        self.pairs.accumulate(X, cls, weight)

    def merge(self, other: StagedCounts, positions: np.ndarray) -> None:
        if (self.parents is None) != (other.parents is None):
            raise ValueError("cannot merge a model whose second pass ran with one whose did not.")
        self.pairs.merge(other.pairs, positions)
        if self.parents is not None:
            self.parents.merge(other.parents, positions)

    def reindex_classes(self, positions: np.ndarray, n_classes: int) -> None:
        self.pairs.reindex_classes(positions, n_classes)
        if self.parents is not None:
            self.parents.reindex_classes(positions, n_classes)

    def state(self) -> dict[str, np.ndarray]:
        out = nest("pairs", self.pairs.state())
        if self.parents is not None:
            out.update(nest("parents", self.parents.state()))
        return out

    @classmethod
    def from_state(cls, state: dict[str, np.ndarray]) -> StagedCounts:
        parents = section("parents", state)
        return cls(
            PairCounts.from_state(section("pairs", state)),
            ParentCounts.from_state(parents) if parents else None,
        )

    def check(self, n_classes: int, n_features: int) -> None:
        self.pairs.check(n_classes, n_features)
        if self.parents is not None:
            self.parents.check(n_classes, n_features)


class _Network(SemiNaiveClassifier):
    """Scoring shared by TAN, k-DB and selective k-DB."""

    def _check_params(self) -> None:
        super()._check_params()
        check_min_count(self.min_count)

    @property
    def _pairs(self) -> PairCounts:
        return self._stats.pairs if isinstance(self._stats, StagedCounts) else self._stats

    def _structure(self) -> Structure:
        raise NotImplementedError

    def _parent_counts(self) -> ParentCounts:
        """The parent counts: from pass 2, or summed from the pair counts for ≤ 1 parent."""
        if isinstance(self._stats, StagedCounts):
            if self._stats.parents is None:
                raise ValueError(f"{self._name}: the second pass has not run.")
            return self._stats.parents
        structure = self._structure()
        return self._pairs.cached(
            ("parent_counts", structure), lambda: ParentCounts.from_pairs(self._pairs, structure)
        )

    def _depth(self, counts: ParentCounts) -> np.ndarray:
        """Parents each attribute may use (−1: attribute left out)."""
        return counts.n_parents

    def _score_rows(self, X: np.ndarray, out: np.ndarray) -> int:
        counts = self._parent_counts()
        log_table, _, config_count = counts.tables(self._pseudo(), self._hierarchical)
        depth = self._depth(counts)
        n, d = X.shape
        # per attribute: its parents' configuration, then a table row over the classes
        levels = int(counts.n_parents.max(initial=0))
        threads, parts = scoring_blocks(n, SCATTERED * d * (out.shape[1] + levels))

        def score(start: int, stop: int) -> int:
            return _scoring_kernels.network_scores(
                X, counts.n_values, counts.parents, depth, counts.level_base, counts.config_base,
                config_count, log_table, float(self.min_count), out, start, stop,
            )  # fmt: skip

        return int(sum(_threads.run(score, parts, threads)))

    def _held_out_shifts(self, X: np.ndarray, cls: np.ndarray, weight: np.ndarray) -> np.ndarray:
        """For training rows (codes ``X``, class indices ``cls``, weights), how much the log
        joint of each row's own class falls when the row's weight is taken out of the counts:
        log P̂₋ᵢ(y_i) + Σ_j log P̂₋ᵢ(x_ij | y_i, u_ij) − [the same with the row in], the class
        prior's part where it is estimated (``mle`` or ``smoothed``). Added to those rows'
        scores, it makes them leave-one-out scores: what the model would say of a row it has
        not counted (the discriminative correction judges its iterations on such rows)."""
        counts = self._parent_counts()
        _, config_class, config_count = counts.tables(self._pseudo(), self._hierarchical)
        X = np.ascontiguousarray(X, dtype=np.float64)
        cls = np.ascontiguousarray(cls, dtype=np.int64)
        weight = np.ascontiguousarray(weight, dtype=np.float64)
        out = np.zeros(X.shape[0])
        depth = self._depth(counts)
        # per attribute and level: the counts it touched (about eight scattered reads) and two
        # logarithms (each row's own, so the blocks' rows may run on any thread)
        levels = int(depth.max(initial=0)) + 1
        per_row = X.shape[1] * levels * (8 * SCATTERED + 2 * _threads.EXP_STEPS)
        threads, parts = scoring_blocks(X.shape[0], per_row)

        def shifts(start: int, stop: int) -> None:
            _scoring_kernels.leave_one_out_shifts(
                X, cls, weight, counts.n_values, counts.parents, depth, counts.level_base,
                counts.config_base, counts.counts, config_class, config_count, self._pseudo(),
                self._hierarchical, float(self.min_count), out, start, stop,
            )  # fmt: skip

        _threads.run(shifts, parts, threads)
        spec = self._prior_spec()
        if isinstance(spec, str) and spec in ("mle", "smoothed"):
            a = self._prior_alpha() if spec == "smoothed" else 0.0
            own = self.class_count_[cls] + a
            left = own - weight
            # a class no other row holds keeps its prior (no estimate is left to take)
            out += np.where(left > 0, np.log(np.maximum(left, 1e-300)) - np.log(own), 0.0)
        return out

    def _used_edges(self) -> np.ndarray:
        """The edges (child, parent) the predictions use: each attribute with each parent up
        to its depth (selective k-DB: the attributes and depth it selected)."""
        counts = self._parent_counts()
        depth = self._depth(counts)
        edges = [
            (j, int(counts.parents[j, level]))
            for j in range(depth.shape[0])
            for level in range(int(depth[j]))
        ]
        return np.asarray(edges, dtype=np.int64).reshape(-1, 2)

    def _explain_lines(self, codes, names, show):
        from .explain import network_lines

        return "network", network_lines(self, codes, names, show)

    def _edge_records(self, names: list[str] | None) -> list[dict]:
        """The learnt structure's edges (:meth:`Structure.edges`), each with ``used``: whether
        the predictions use it (selective k-DB leaves out the attributes it did not select and
        the parents beyond the depth k' it chose)."""
        structure = self._structure()
        used = {(child, parent) for child, parent in self._used_edges().tolist()}
        return [
            {**edge, "used": (at["child"], at["parent"]) in used}
            for edge, at in zip(structure.edges(names), structure.edges(), strict=True)
        ]

    def _describe_structure(self, names: list[str]) -> list[str]:
        edges = self._edge_records(names)
        lines = ["structure (parent -> child: I(X_child; X_parent | C) in nats):"]
        for edge in edges:
            if edge["used"]:
                lines.append(f"  {edge['parent']} -> {edge['child']}: {edge['cmi']:.4f}")
        unused = sum(not edge["used"] for edge in edges)
        if unused:
            lines.append(
                f"  and {unused} learnt edge(s) the predictions do not use (a parent beyond "
                "the chosen depth, or an attribute not selected: edges() lists them with "
                "used=False)"
            )
        return lines

    @property
    def structure_(self) -> Structure:
        """The learnt structure: each attribute's parents (indices) and edge weights."""
        self._check_fitted()
        return self._structure()

    def edges(self) -> list[dict]:
        """The learnt edges as data: parent, child (names when known), the parent's rank among
        the child's parents, I(X_child; X_parent | C) in nats, and whether the predictions use
        the edge (``used``)."""
        self._check_fitted()
        return self._edge_records(self._feature_names)


class TAN(_Network):
    """Tree-augmented naive Bayes (Friedman, Geiger & Goldszmidt 1997) over integer codes:

        P(c, x) = P(c) Π_j P(x_j | c, x_π(j))

    π(j) the parent of j in the Chow–Liu tree of I(X_i; X_j | C) (see
    :mod:`nbayes.semi_naive.structure` for the root and tie-breaking, and
    :mod:`nbayes.semi_naive.network` for back-off). One pass over the pair counts.

    Parameters
    ----------
    alpha : float, default 0.5
        Pseudo-count: Lidstone λ (0.5 is the α of Weka's BayesNet SimpleEstimator) or m.
    smoothing : {"lidstone", "m-estimate", "hierarchical"}, default "lidstone"
        Hierarchical: each estimate shrunk towards the one with a parent fewer
        (:mod:`nbayes.semi_naive.classifier`).
    root : int or None, default None
        The root attribute (index); None: the attribute with the largest I(X_j; C).
    min_count : float, default 1
        A parent configuration seen fewer times in fitting is backed off from.
    class_prior, prior_alpha, loss, max_memory
        As :class:`~nbayes.semi_naive.AODE`.
    """

    __init__ = structure_constructor(alpha=0.5, smoothing="lidstone", root=None, min_count=1)

    def _check_params(self) -> None:
        super()._check_params()
        if self.root is not None and (
            isinstance(self.root, bool)
            or not isinstance(self.root, numbers.Integral)
            or self.root < 0
        ):
            raise ValueError(f"root must be None or an attribute index >= 0, got {self.root!r}.")

    def _check_root(self, n_features: int) -> None:
        if self.root is not None and not 0 <= int(self.root) < n_features:
            raise ValueError(
                f"root={self.root} is not an attribute index: the model has {n_features} "
                "attribute(s)."
            )

    def _reset(self, classes: np.ndarray, n_features: int) -> None:
        self._check_root(n_features)
        super()._reset(classes, n_features)

    def _restore_fitted(self, meta: dict, arrays: dict[str, np.ndarray]) -> None:
        self._check_root(self.n_features_in_)

    def _structure(self) -> Structure:
        pairs = self._pairs
        if self.root is None:
            root = int(np.argmax(without_round_off(mutual_information(pairs))))
        else:
            root = int(self.root)
            if not 0 <= root < pairs.n_features:
                raise ValueError(
                    f"root={root} is not an attribute index: the model has {pairs.n_features}."
                )
        return pairs.cached(
            ("tan", root), lambda: chow_liu_tree(conditional_mutual_information(pairs), root)
        )


class KDB(_Network):
    """k-dependence Bayesian classifier (Sahami 1996) over integer codes:

        P(c, x) = P(c) Π_j P(x_j | c, x_π(j)),   |π(j)| ≤ k

    with the parents of :func:`~nbayes.semi_naive.structure.kdb_structure` and the back-off of
    :mod:`nbayes.semi_naive.network`. k = 0 is naive Bayes; k = 1 is one pass (pair counts);
    k ≥ 2 two passes (``fit`` or ``fit_passes``; no ``partial_fit``).

    Parameters
    ----------
    k : int, default 1
        The most parents (besides the class) an attribute may have.
    alpha, smoothing, min_count, class_prior, prior_alpha, loss, max_memory
        As :class:`TAN` (``alpha`` default 1: Laplace).
    """

    __init__ = structure_constructor("k", k=1, alpha=1.0, smoothing="lidstone", min_count=1)

    @property
    def passes(self) -> int:  # type: ignore[override]
        return 1 if self.k <= 1 else 2

    def _check_params(self) -> None:
        super()._check_params()
        if isinstance(self.k, bool) or not isinstance(self.k, numbers.Integral) or self.k < 0:
            raise ValueError(f"k must be an integer >= 0, got {self.k!r}.")

    def _reset(self, classes: np.ndarray, n_features: int) -> None:
        if self.k > max(n_features - 1, 0):
            raise ValueError(
                f"k={self.k} is larger than the number of other attributes: X has {n_features} "
                f"feature(s), so each can have at most {max(n_features - 1, 0)} parent(s)."
            )
        super()._reset(classes, n_features)

    def _merge_key(self) -> tuple:
        return (*super()._merge_key(), ("k", int(self.k)))

    def _new_stats(self, n_classes: int, n_features: int) -> Any:
        pairs = super()._new_stats(n_classes, n_features)
        return pairs if self.k <= 1 else StagedCounts(pairs)

    @classmethod
    def _stats_from_state(cls, state: dict[str, np.ndarray]) -> Any:
        if "order" in state:  # k <= 1: the pair counts alone
            return PairCounts.from_state(state)
        return StagedCounts.from_state(state)

    def _restore_fitted(self, meta: dict, arrays: dict[str, np.ndarray]) -> None:
        staged = isinstance(self._stats, StagedCounts)
        if staged != (self.k > 1) or (staged and self._stats.parents is None):
            raise ValueError(f"the counts do not match a KDB with k={self.k}.")

    #: Which member of an ensemble this model is (:mod:`nbayes.semi_naive.ensemble`): 0 ranks
    #: the attributes by I(X_j; C); a member m ≥ 1 draws its ranking (:func:`sampled_order`).
    _member = 0

    def _learnt_structure(self) -> Structure:
        pairs = self._pairs
        member = self._member

        def learn() -> Structure:
            mi = mutual_information(pairs)
            order = sampled_order(mi, member, pairs.n_values) if member else None
            return kdb_structure(mi, conditional_mutual_information(pairs), int(self.k), order)

        return pairs.cached(("kdb", int(self.k), member), learn)

    def _structure(self) -> Structure:
        if isinstance(self._stats, StagedCounts) and self._stats.parents is not None:
            return self._stats.parents.structure
        return self._learnt_structure()

    def _pass_statistics(self, number: int) -> Any:
        return self._empty_parent_counts()

    def _pass_accumulate(
        self, number: int, statistics: Any, X: np.ndarray, cls: np.ndarray, weight: np.ndarray
    ) -> None:
        statistics.accumulate(X, cls, weight)

    def _pass_finish(self, number: int, statistics: Any) -> None:
        self._stats.parents = statistics

    def _empty_parent_counts(self) -> ParentCounts:
        """Pass 2's statistics, empty: the parent counts of the structure the pair counts of
        pass 1 learn (each batch, or Dask partition, fills one; they merge by addition)."""
        pairs = self._pairs
        return ParentCounts(
            pairs.n_classes, pairs.n_values, self._learnt_structure(), max_parents=int(self.k),
            max_memory=self._budget(), names=self._names(),
        )  # fmt: skip

    def merge(self, *others: NaiveBayesClassifier) -> KDB:
        """Add models fitted on other rows. For k ≥ 2 the result must be the model one fit on
        all rows gives: the parent counts merge only if they share one structure and the merged
        pair counts learn that same structure; otherwise ValueError (refit with ``fit_passes``)."""
        if self.k <= 1 or self._stats.parents is None:  # pair counts only (pass 1): they add
            return super().merge(*others)
        trial = copy.deepcopy(self)
        NaiveBayesClassifier.merge(trial, *others)
        learnt = trial._learnt_structure()
        counted = trial._stats.parents.structure
        if (learnt.parents, learnt.order) != (counted.parents, counted.order):
            raise ValueError(
                f"cannot merge these KDB(k={self.k}) models exactly: the merged pair counts learn "
                "a different structure from the one the parts counted with, so the result would "
                "not be the model one fit on all rows gives. Fit on all rows (fit_passes reads a "
                "source once per pass)."
            )
        trial._stats.parents.structure = learnt  # the same edges, weighed on all the rows
        self.__dict__.update(trial.__dict__)
        return self
