"""Averaged n-dependence estimators: AODE, A2DE, weighted AODE and AODE with subsumption
resolution.

**AODE** (Webb, Boughton & Wang 2005) averages the one-dependence models in which one attribute
value x_i (the super-parent) is a parent of every other attribute:

    P(c, x) = (1 / Σ_{i∈S} w_i) Σ_{i∈S} w_i P(c) P(x_i | c) Π_{j≠i} P(x_j | c, x_i)

S holds the observed attributes whose value occurred at least ``min_count`` times in fitting
(N(x_i) ≥ m, Weka's frequency limit, default 1), w_i = 1. When S is empty the row is scored by
naive Bayes, P(c) Π_j P(x_j | c). The log-likelihood this module gives the base class is
log [P(c, x) / P(c)], so ``class_prior`` and ``priors=`` set P(c). Weka estimates the joint
P(c, x_i) = (N(c, x_i) + 1) / (N_i + K v_i) in one fraction; here it is the product of the
class prior and P(x_i | c) = (N(c, x_i) + p) / (N_c^(i) + v_i p), which lets the prior be set
apart (the two agree as N grows).

**Weighted AODE** (Jiang & Zhang 2006; Weka's WAODE): w_i = I(X_i; C), the mutual information of
the super-parent with the class (:mod:`nbayes.semi_naive.information`); every observed attribute
is a super-parent (``min_count=0``). If every weight is 0, they are taken equal.

**Subsumption resolution** (Zheng & Webb 2006; Weka's AODEsr): at prediction, a value x_i that
a more specific value x_j of the same row implies — every training row with x_j had x_i,
N(x_i, x_j) = N(x_j), and x_j occurred more than ``subsumption`` times (Weka's critical value,
50) — is dropped, as parent and as child. Of two values that imply each other the one of the
lower attribute index is kept.

**AnDE** (Webb et al. 2012) with n = 2 averages over pairs of super-parents:

    P(c, x) = (1 / |S₂|) Σ_{(i,j)∈S₂} P(c) P(x_i, x_j | c) Π_{l∉{i,j}} P(x_l | c, x_i, x_j)

S₂ the pairs of observed values that occurred together at least ``min_count`` times; a row with
none falls back to AODE (and that to naive Bayes). It needs the triple counts
N(c, x_i, x_j, x_l), K Σ v_i v_j v_l cells (:mod:`nbayes.semi_naive.memory`).

Every conditional is a smoothed count ratio (:mod:`nbayes.semi_naive.classifier`); the counts are
those of :class:`~nbayes.semi_naive.pairs.PairCounts`, one pass, exact under ``merge``.
"""

from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np

from .. import _threads
from . import _scoring_kernels
from .classifier import (
    SemiNaiveClassifier,
    check_min_count,
    scoring_blocks,
    structure_constructor,
)
from .information import mutual_information
from .memory import a2de_block_rows
from .pairs import column_codes

WEIGHTING = (None, "mutual-information")


class AODETables(NamedTuple):
    """What AODE reads: value offsets, pair bases, log P(x_i | c) per value, log P(x_j | c, x_i)
    and log P(x_i | c, x_j) per pair cell, N(x_i) per value and N(x_i, x_j) per pair cell."""

    offsets: np.ndarray
    pair_base: np.ndarray
    log_single: np.ndarray
    forward: np.ndarray
    backward: np.ndarray
    freq: np.ndarray
    pair_freq: np.ndarray


class _Averaged(SemiNaiveClassifier):
    """Shared scoring of AODE, WAODE, AODEsr and AnDE."""

    def _check_params(self) -> None:
        super()._check_params()
        check_min_count(self.min_count)
        if self.weighting not in WEIGHTING:
            raise ValueError(f"weighting must be one of {WEIGHTING}, got {self.weighting!r}.")
        if self.subsumption is not None and (
            isinstance(self.subsumption, bool)
            or not isinstance(self.subsumption, numbers.Real)
            or self.subsumption < 0
        ):
            raise ValueError(
                f"subsumption must be None or a count >= 0 (Weka's critical value, 50), got "
                f"{self.subsumption!r}."
            )

    def _parent_weights(self) -> np.ndarray:
        """w_i of each super-parent: 1, or I(X_i; C) with ``weighting='mutual-information'``."""
        if self.weighting == "mutual-information":
            return mutual_information(self._pairs)
        return np.ones(self._pairs.n_features)

    def _explain_lines(self, codes, names, show):
        if self._order != 1:  # the super-parent pairs of A2DE are too many to show: the terms
            return "terms", []
        from .explain import averaged_lines

        return "averaged", averaged_lines(self, codes, names, show)

    def _describe_structure(self, names: list[str]) -> list[str]:
        lines = [f"super-parents: values seen at least {self.min_count} time(s)"]
        if self.weighting == "mutual-information":
            weights = self._parent_weights()
            lines.append(
                "weights I(X_i; C): "
                + ", ".join(f"{n}: {w:.4f}" for n, w in zip(names, weights, strict=True))
            )
        if self.subsumption is not None:
            lines.append(f"subsumption resolution: critical count {self.subsumption}")
        return lines

    @property
    def parent_weights_(self) -> np.ndarray:
        """w_i, the weight of each attribute as a super-parent."""
        self._check_fitted()
        return self._parent_weights().copy()

    def _aode_tables(self) -> AODETables:
        """The tables that AODE's scores are read from, in prediction and in explanations."""
        stats = self._pairs
        pseudo = self._pseudo()
        offsets, base, _ = stats.layout()
        forward, backward = stats.conditionals(pseudo, self._hierarchical)
        freq, pair_freq = stats.frequencies()
        log_single = stats.single_log_prob(pseudo)
        return AODETables(offsets, base, log_single, forward, backward, freq, pair_freq)

    def _score_rows(self, X: np.ndarray, out: np.ndarray) -> int:
        stats = self._pairs
        pseudo = self._pseudo()
        offsets, base, log_single, forward, backward, freq, pair_freq = self._aode_tables()
        critical = -1.0 if self.subsumption is None else float(self.subsumption)
        n, d = X.shape
        K = out.shape[1]
        if self._order == 1:
            parent_weight = self._parent_weights()
            threads, parts = scoring_blocks(n, d * d * K)  # each super-parent with each child

            def aode(start: int, stop: int) -> int:
                return _scoring_kernels.aode_scores(
                    X, offsets, stats.n_values, base, log_single, forward, backward, freq,
                    float(self.min_count), parent_weight, critical, pair_freq, out, start, stop,
                )  # fmt: skip

            return int(sum(_threads.run(aode, parts, threads)))
        v = np.maximum(stats.n_values, 1).astype(np.float64)
        alpha = float(self.alpha)
        pseudo_pair = (
            np.full((v.shape[0], v.shape[0]), alpha)
            if self.smoothing == "lidstone"
            else alpha / np.outer(v, v)
        )
        joint = stats.joints(pseudo_pair)
        first, middle, last = stats.triple_conditionals(pseudo)
        _, triple_list = stats.lists()
        triple_base = stats.layout()[2]
        columns = np.empty((d, n), dtype=np.int32)
        unseen = column_codes(X, stats.n_values, columns)
        pair_index = stats.pair_index()
        block_rows = a2de_block_rows(d, K)
        # each triple adds to three super-parent pairs; each pair is set up once
        threads, parts = scoring_blocks(
            n, (3 * triple_list.shape[0] + d * d) * K, minimum=max(64, block_rows // 2)
        )

        def a2de(start: int, stop: int) -> None:
            _scoring_kernels.a2de_scores(
                columns, offsets, stats.n_values, base, pair_index, triple_base, triple_list,
                log_single, forward, backward, joint, first, middle, last, freq, pair_freq,
                float(self.min_count), critical, out, block_rows, start, stop,
            )  # fmt: skip

        _threads.run(a2de, parts, threads)
        return unseen


class AODE(_Averaged):
    """Averaged one-dependence estimators (Webb, Boughton & Wang 2005) over integer codes.

        P(c, x) = (1 / Σ_{i∈S} w_i) Σ_{i∈S} w_i P(c) P(x_i | c) Π_{j≠i} P(x_j | c, x_i)

    See :mod:`nbayes.semi_naive.averaged` for S, the weights and subsumption resolution.

    Parameters
    ----------
    alpha : float, default 1.0
        Pseudo-count of every estimate: Lidstone λ (1 = Laplace, Weka's AODE default) or the m
        of an m-estimate, per ``smoothing``.
    smoothing : {"lidstone", "m-estimate", "hierarchical"}, default "lidstone"
        (N + λ) / (N' + v λ), or (N + m / v) / (N' + m), or P̂(x_j | c, x_i) shrunk towards
        P̂(x_j | c): (N + v λ P̂(x_j | c)) / (N' + v λ) (:mod:`nbayes.semi_naive.classifier`;
        A2DE's two-parent estimates stay Lidstone's).
    min_count : float, default 1
        A value is a super-parent only if it occurred at least this often in fitting (Weka -F).
    weighting : None or "mutual-information", default None
        Super-parent weights w_i: equal, or I(X_i; C) (weighted AODE, Jiang & Zhang 2006).
    subsumption : None or float, default None
        Critical count of lazy subsumption resolution (Zheng & Webb 2006; Weka's AODEsr uses 50).
    class_prior : None, "mle", "smoothed", "uniform" or sequence, default None ("mle")
        P(c); ``prior_alpha`` is λ of the smoothed prior (default 1).
    loss : (K, K) array-like, optional
        ``loss[i][j]`` = cost of deciding class i when the truth is j.
    max_memory : int or str, default "1GiB"
        Budget of the count and prediction tables (:mod:`nbayes.semi_naive.memory`).
    """

    __init__ = structure_constructor(
        alpha=1.0, smoothing="lidstone", min_count=1, weighting=None, subsumption=None
    )


class WAODE(AODE):
    """Weighted AODE (Jiang & Zhang 2006), Weka's defaults: super-parent weights I(X_i; C), every
    observed attribute a super-parent, m-estimates with m = 1. Same parameters as :class:`AODE`,
    but ``weighting`` must be ``"mutual-information"`` (unweighted, it is :class:`AODE`)."""

    __init__ = structure_constructor(
        alpha=1.0,
        smoothing="m-estimate",
        min_count=0,
        weighting="mutual-information",
        subsumption=None,
    )

    def _check_params(self) -> None:
        super()._check_params()
        if self.weighting != "mutual-information":
            raise ValueError(
                f"WAODE weights its super-parents by I(X_i; C): weighting must be "
                f"'mutual-information', got {self.weighting!r} (unweighted, use AODE)."
            )


class AODEsr(AODE):
    """AODE with lazy subsumption resolution (Zheng & Webb 2006), Weka's defaults: critical count
    50, m-estimates with m = 1, frequency limit 1. Same parameters as :class:`AODE`, but
    ``subsumption`` must be a count (without it, it is :class:`AODE`)."""

    __init__ = structure_constructor(
        alpha=1.0, smoothing="m-estimate", min_count=1, weighting=None, subsumption=50
    )

    def _check_params(self) -> None:
        super()._check_params()
        if self.subsumption is None:
            raise ValueError(
                "AODEsr resolves subsumptions: subsumption must be a count >= 0 (Weka's critical "
                "value, 50), got None (without it, use AODE)."
            )


class AnDE(_Averaged):
    """Averaged n-dependence estimators (Webb et al. 2012) for n = 1 (AODE) or n = 2 (A2DE):

        P(c, x) = (1 / |S₂|) Σ_{(i,j)∈S₂} P(c) P(x_i, x_j | c) Π_{l∉{i,j}} P(x_l | c, x_i, x_j)

    for n = 2, with back-off to AODE and naive Bayes for rows without eligible parents (see
    :mod:`nbayes.semi_naive.averaged`). n = 2 counts N(c, x_i, x_j, x_l): about K · (Σ v_j)³ / 6
    cells, checked against ``max_memory`` first. Parameters as :class:`AODE`, plus ``n``.
    """

    __init__ = structure_constructor(
        "n", n=2, alpha=1.0, smoothing="lidstone", min_count=1, weighting=None, subsumption=None
    )

    @property
    def _order(self) -> int:  # type: ignore[override]
        return int(self.n)

    def _check_params(self) -> None:
        if self.n not in (1, 2) or isinstance(self.n, bool):
            raise ValueError(f"n must be 1 (AODE) or 2 (A2DE), got {self.n!r}.")
        if self.n == 2 and self.weighting is not None:
            raise ValueError(
                "weighting applies to n=1 (weighted AODE); use weighting=None for A2DE."
            )
        super()._check_params()
