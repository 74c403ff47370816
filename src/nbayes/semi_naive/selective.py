"""Selective k-DB (Martínez, Webb, Chen & Zaidi, JMLR 2016): k-DB that chooses, from the data,
how many attributes to use and how many parents each may have.

The attributes are ranked by I(X_j; C) and given their k-DB parents for the largest k (passes 1
and 2, :mod:`nbayes.semi_naive.network`). Every model (s, k') — the s first attributes of the
ranking, each with at most its first k' ≤ k parents — is nested in that one and scored from the
same counts, so one more pass over the training rows computes their leave-one-out losses
together: for each row, its own weight is taken out of every count it touched and

    log-loss:  −log P̂(y | x),      error:  [argmax_c P̂(c | x) ≠ y],
    rmse:      Σ_c (P̂(c | x) − [c = y])²   (the root of the mean is reported)

are added up for every (s, k'), with their squares
(:func:`nbayes.semi_naive._scoring_kernels.leave_one_out_losses`).

The choice follows the one-standard-error rule (Breiman, Friedman, Olshen & Stone 1984,
*Classification and Regression Trees*, §3.4.3): a deeper model must beat a shallower one by
more than the noise of the estimate. With L* the smallest total, over N rows of total weight,
and Q* the sum of its rows' squared losses, the standard error of L* is

    SE = √(Q* − L*² / N)     (√N times the standard deviation of one row's loss),

and k' is the fewest parents whose best total over s is at most L* + SE; with that k', the s of
the smallest total is kept. Totals within 10⁻⁹ (relative) of each other count as equal, since
their last bits follow the order the rows were added in, and among equals the fewer attributes
win. The rule matters on small tables, where a third parent's gain in leave-one-out loss is
often a few rows' luck; on large ones SE is small beside the gain of each parent. Three passes;
``merge`` refuses, since the selection depends on all rows' leave-one-out predictions.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _threads
from .._base import NaiveBayesClassifier
from . import _scoring_kernels
from .classifier import SemiNaiveClassifier, structure_constructor
from .network import KDB, StagedCounts
from .parents import ParentCounts

CRITERIA = ("log-loss", "error", "rmse")

#: Training rows per leave-one-out block. The blocks do not depend on the number of threads and
#: their sums are added in block order, so the losses are the same on any number of threads.
LOSS_BLOCK_ROWS = 1024

#: Leave-one-out totals this close (relative) to the smallest count as equal to it.
TIE = 1e-9


class SummedLosses:
    """Pass 3's statistics: leave-one-out losses and their squares summed over rows (they
    add)."""

    def __init__(self, table: np.ndarray) -> None:
        self.table = table

    def add(self, other: SummedLosses) -> None:
        self.table += other.table


class SelectiveKDB(KDB):
    """Selective k-DB (see :mod:`nbayes.semi_naive.selective`) over integer codes.

    Parameters
    ----------
    k : int, default 3
        The most parents per attribute among which k' ≤ k is chosen (more than the d − 1 other
        attributes is allowed: k' then stops at d − 1).
    criterion : {"log-loss", "error", "rmse"}, default "log-loss"
        The leave-one-out loss by which the attribute count s and k' are chosen: the fewest
        parents within one standard error of the lowest total (see the module docstring).
        ``leave_one_out_losses_`` holds the totals and ``leave_one_out_squares_`` the sums of
        the rows' squared losses, each of shape (d + 1, k + 1, 3) over (s, k', criterion).
    alpha, smoothing, min_count, class_prior, prior_alpha, loss, max_memory
        As :class:`~nbayes.semi_naive.KDB`.
    """

    __init__ = structure_constructor(
        "k", k=3, criterion="log-loss", alpha=1.0, smoothing="lidstone", min_count=1
    )

    @property
    def passes(self) -> int:  # type: ignore[override]
        return 3

    def _check_params(self) -> None:
        super()._check_params()
        if self.criterion not in CRITERIA:
            raise ValueError(f"criterion must be one of {CRITERIA}, got {self.criterion!r}.")

    def _reset(self, classes: np.ndarray, n_features: int) -> None:
        # k is the largest k' tried: with fewer attributes, each simply has fewer parents
        SemiNaiveClassifier._reset(self, classes, n_features)

    def _new_stats(self, n_classes: int, n_features: int) -> StagedCounts:
        return StagedCounts(super(KDB, self)._new_stats(n_classes, n_features))

    def _pass_statistics(self, number: int) -> Any:
        return (
            super()._pass_statistics(number) if number == 2 else SummedLosses(self._empty_losses())
        )

    def _pass_accumulate(
        self, number: int, statistics: Any, X: np.ndarray, cls: np.ndarray, weight: np.ndarray
    ) -> None:
        if number == 2:
            super()._pass_accumulate(number, statistics, X, cls, weight)
        else:
            self._add_losses(statistics.table, X, cls, weight)

    def _pass_finish(self, number: int, statistics: Any) -> None:
        if number == 2:
            super()._pass_finish(number, statistics)
        else:
            self._choose(statistics.table)

    def _empty_losses(self) -> np.ndarray:
        """Pass 3's statistics, zero: the summed losses of every (s, k') and criterion, then
        their summed squares."""
        return np.zeros((self.n_features_in_ + 1, int(self.k) + 1, 2 * len(CRITERIA)))

    def _add_losses(
        self, losses: np.ndarray, X: np.ndarray, cls: np.ndarray, weight: np.ndarray
    ) -> None:
        """Add the leave-one-out losses of a batch of training rows (codes) to ``losses``."""
        counts = self._stats.parents
        pseudo = self._pseudo()
        _, config_class, config_count = counts.tables(pseudo, self._hierarchical)
        order = np.asarray(counts.structure.order, dtype=np.int64)
        cls = np.ascontiguousarray(cls, dtype=np.int64)
        weight = np.ascontiguousarray(weight, dtype=np.float64)
        k = losses.shape[1] - 1
        n, d = X.shape
        # per row, attribute and k': a product and a division per class (the kernel keeps
        # products, not sums of logarithms), and at most one logarithm
        steps = n * d * (k + 1) * (2 * self.class_count_.shape[0] + _threads.EXP_STEPS)
        threads = _threads.plan(steps)
        parts = [(a, min(n, a + LOSS_BLOCK_ROWS)) for a in range(0, n, LOSS_BLOCK_ROWS)]

        def block(start: int, stop: int) -> np.ndarray:
            return _scoring_kernels.leave_one_out_losses(
                X, cls, weight, counts.n_values, counts.parents, counts.n_parents, order,
                counts.level_base, counts.config_base, counts.counts, config_class, config_count,
                self.class_count_, pseudo, self._hierarchical, float(self.min_count), k, start,
                stop,
            )  # fmt: skip

        for part in _threads.run(block, parts, threads):
            losses += part

    def _choose(self, losses: np.ndarray) -> None:
        self.leave_one_out_losses_ = losses[:, :, : len(CRITERIA)].copy()
        self.leave_one_out_squares_ = losses[:, :, len(CRITERIA) :].copy()
        self._select()

    def _select(self) -> None:
        """(s, k') by the one-standard-error rule of the module docstring."""
        criterion = CRITERIA.index(self.criterion)
        table = self.leave_one_out_losses_[:, :, criterion]
        # the losses are sums whose last bits follow the order rows and partitions were added
        # in: losses within TIE (relative) of a bound count as within it
        finite = np.isfinite(table)
        if not finite.any():  # nothing to judge by: the prior alone
            self.n_attributes_, self.k_ = 0, 0
            return
        scored = np.where(finite, table, np.inf)
        lowest, error = self._lowest_and_error(scored, criterion)
        bound = lowest + error
        bound += TIE * (1 + abs(bound))
        for depth in range(scored.shape[1]):
            column = scored[:, depth]
            smallest = float(np.min(column))
            if smallest <= bound:
                floor = smallest + TIE * (1 + abs(smallest))
                self.n_attributes_ = int(np.flatnonzero(column <= floor)[0])
                self.k_ = depth
                return

    def _lowest_and_error(self, scored: np.ndarray, criterion: int) -> tuple[float, float]:
        """L*, the smallest total of ``scored`` (the criterion's totals, inf where not finite),
        and its standard error SE = √(Q* − L*² / N) (the module docstring)."""
        best = np.unravel_index(int(np.argmin(scored)), scored.shape)
        lowest = float(scored[best])
        squares = float(self.leave_one_out_squares_[(*best, criterion)])
        rows = float(self.class_count_.sum())
        error = math.sqrt(max(squares - lowest * lowest / rows, 0.0)) if rows > 0 else 0.0
        return lowest, error

    def _to_state(self) -> tuple[dict, dict[str, np.ndarray]]:
        meta, arrays = super()._to_state()
        meta["selection"] = [self.n_attributes_, self.k_]
        arrays["leave_one_out_losses"] = self.leave_one_out_losses_
        arrays["leave_one_out_squares"] = self.leave_one_out_squares_
        return meta, arrays

    def _restore_fitted(self, meta: dict, arrays: dict[str, np.ndarray]) -> None:
        if not isinstance(self._stats, StagedCounts) or self._stats.parents is None:
            raise ValueError("a selective k-DB file must hold the parent counts.")
        losses = np.asarray(arrays["leave_one_out_losses"], dtype=np.float64)
        d = self.n_features_in_
        if losses.shape != (d + 1, int(self.k) + 1, len(CRITERIA)):
            raise ValueError(f"leave_one_out_losses has shape {losses.shape}.")
        s, k = (int(v) for v in meta["selection"])
        if not (0 <= s <= d and 0 <= k <= int(self.k)):
            raise ValueError(f"the selection ({s} attributes, k' = {k}) is out of range.")
        self.leave_one_out_losses_ = losses.copy()
        # a file written before the squares were kept: zeros make the standard error 0, the
        # rule the file's selection was made by (the smallest total)
        squares = arrays.get("leave_one_out_squares", np.zeros_like(losses))
        squares = np.asarray(squares, dtype=np.float64)
        if squares.shape != losses.shape:
            raise ValueError(f"leave_one_out_squares has shape {squares.shape}.")
        self.leave_one_out_squares_ = squares.copy()
        self.n_attributes_, self.k_ = s, k

    def _depth(self, counts: ParentCounts) -> np.ndarray:
        depth = np.full(counts.n_values.shape[0], -1, dtype=np.int64)
        chosen = np.asarray(counts.structure.order[: self.n_attributes_], dtype=np.int64)
        depth[chosen] = np.minimum(counts.n_parents[chosen], self.k_)
        return depth

    def _describe_structure(self, names: list[str]) -> list[str]:
        index = CRITERIA.index(self.criterion)
        criterion = self.leave_one_out_losses_[:, :, index]
        finite = np.isfinite(criterion)
        lowest, error = (
            self._lowest_and_error(np.where(finite, criterion, np.inf), index)
            if finite.any()
            else (np.inf, 0.0)
        )
        used = [names[j] for j in self._structure().order[: self.n_attributes_]]
        return [
            f"selected by leave-one-out {self.criterion}, the fewest parents within one standard "
            f"error of the lowest: the first {self.n_attributes_} attributes {self._ranking()}, "
            f"at most {self.k_} parent(s) each (loss {criterion[self.n_attributes_, self.k_]:.4f}; "
            f"lowest {lowest:.4f}, its standard error {error:.4f}; with every attribute and "
            f"k = {self.k}: {criterion[-1, -1]:.4f})",
            f"attributes used: {', '.join(used) or 'none'}",
            *super()._describe_structure(names),
        ]

    def _ranking(self) -> str:
        return "by I(X; C)" if not self._member else "in this ensemble member's drawn ranking"

    @property
    def selected_(self) -> list:
        """The attributes used, in the order of I(X_j; C) (an ensemble's member m ≥ 1: its drawn
        ranking; names when known)."""
        self._check_fitted()
        chosen = self._structure().order[: self.n_attributes_]
        names = self._feature_names
        return [names[j] if names is not None else j for j in chosen]

    def merge(self, *others: NaiveBayesClassifier) -> SelectiveKDB:
        """Refused once the selection is made (it depends on all rows' leave-one-out
        predictions); models holding only the pair counts of pass 1 add, as Dask's passes do."""
        return merge_before_choosing(
            self, others, hasattr(self, "k_"), "the choice of attributes and k comes from "
            "leave-one-out predictions over all rows' counts",
        )  # fmt: skip


def merge_before_choosing(model: Any, others: tuple, chosen: bool, why: str) -> Any:
    """``model`` merged with ``others`` while it holds only the pair counts of pass 1 (as Dask's
    first pass merges its partitions' models); otherwise ValueError saying ``why`` not."""
    if model._stats.parents is None and not chosen:
        return NaiveBayesClassifier.merge(model, *others)
    raise ValueError(
        f"{type(model).__name__} models cannot be merged exactly: {why}. Fit on all rows "
        "(fit_passes reads a source once per pass)."
    )
