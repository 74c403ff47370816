"""Hidden naive Bayes (Zhang, Jiang & Su 2005): each attribute has a hidden parent that mixes
the one-dependence estimates of all the others, weighted by conditional mutual information.

    P(c, x) = P(c) Π_j Σ_{i≠j} W_ij P(x_j | c, x_i),
    W_ij = I(X_i; X_j | C) / Σ_{i'≠j} I(X_i'; X_j | C)

over the observed attributes of the row; an attribute whose weights are all 0 (independent of
every other given the class) gets P(x_j | c). The estimates are the smoothed pair-count ratios of
:mod:`nbayes.semi_naive.classifier` (Weka's HNB: m-estimates with m = 1), so the model is one pass
over the pair counts, exact under ``partial_fit`` and ``merge``.
"""

from __future__ import annotations

import numpy as np

from .. import _threads
from . import _scoring_kernels
from .classifier import SemiNaiveClassifier, scoring_blocks, structure_constructor
from .information import conditional_mutual_information


class HNB(SemiNaiveClassifier):
    """Hidden naive Bayes over integer codes (see :mod:`nbayes.semi_naive.hidden`).

    Parameters
    ----------
    alpha : float, default 1.0
        Pseudo-count: the m of an m-estimate (Weka's HNB) or Lidstone λ, per ``smoothing``.
    smoothing : {"m-estimate", "lidstone", "hierarchical"}, default "m-estimate"
        As :class:`~nbayes.semi_naive.AODE`'s.
    class_prior, prior_alpha, loss, max_memory
        As :class:`~nbayes.semi_naive.AODE`.
    """

    __init__ = structure_constructor(alpha=1.0, smoothing="m-estimate")

    def _score_rows(self, X: np.ndarray, out: np.ndarray) -> int:
        stats = self._pairs
        pseudo = self._pseudo()
        offsets, base, _ = stats.layout()
        forward, backward = stats.conditionals(pseudo, self._hierarchical)
        log_single = stats.single_log_prob(pseudo)
        cmi = conditional_mutual_information(stats)
        n, d = X.shape
        threads, parts = scoring_blocks(n, d * d * out.shape[1])  # each child with each parent

        def hnb(start: int, stop: int) -> int:
            return _scoring_kernels.hnb_scores(
                X, offsets, stats.n_values, base, log_single, forward, backward, cmi, out, start,
                stop,
            )  # fmt: skip

        return int(sum(_threads.run(hnb, parts, threads)))

    def _describe_structure(self, names: list[str]) -> list[str]:
        cmi = conditional_mutual_information(self._pairs)
        lines = ["hidden parents (the strongest weight W_ij of each attribute):"]
        for j, name in enumerate(names):
            column = cmi[:, j]
            if column.sum() > 0:
                i = int(np.argmax(column))
                lines.append(f"  {name}: {names[i]} ({column[i] / column.sum():.3f})")
        return lines

    @property
    def weights_(self) -> np.ndarray:
        """I(X_i; X_j | C) (d, d): column j normalised over i ≠ j gives attribute j's W_ij."""
        self._check_fitted()
        return conditional_mutual_information(self._pairs).copy()
