"""The reliability (calibration) diagram with the Brier score.

For each class shown (the second class when there are two, else every class, one against the
rest), the predicted P(c | x) are cut into equal bins of [0, 1] and each bin's mean prediction
is plotted against the fraction of its rows that truly are c; a calibrated model follows the
diagonal. Naive Bayes multiplies likelihoods as if the features were independent, so its
probabilities are usually too close to 0 and 1 (points below the diagonal on the right, above
it on the left). Formulas in :mod:`nbayes.plot.curves`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import curves
from ._common import ProbabilityDisplay, axes, one_vs_rest, unit_square


@dataclass
class ReliabilityDisplay(ProbabilityDisplay):
    """A drawn reliability diagram: per class shown (by label) the bins' ``mean_predicted``,
    ``fraction_positive`` and ``rows``; the ``brier`` score of all the probabilities; the
    matplotlib ``figure``, ``ax`` and ``lines``."""

    classes: list[Any]
    mean_predicted: dict[Any, np.ndarray]
    fraction_positive: dict[Any, np.ndarray]
    rows: dict[Any, np.ndarray]
    brier: float
    n_bins: int
    figure: Any
    ax: Any
    lines: dict[Any, Any] = field(default_factory=dict)

    @classmethod
    def from_predictions(
        cls, truth_index: Any, proba: Any, classes: Any, *, n_bins: int = 10, ax: Any = None
    ) -> ReliabilityDisplay:
        """The diagram from each row's true class (its index in ``classes``) and P(c | x)."""
        truth_index, proba = np.asarray(truth_index), np.asarray(proba, dtype=np.float64)
        brier = curves.brier_score(truth_index, proba)
        figure, ax = axes(ax)
        out = cls([], {}, {}, {}, brier, n_bins, figure, ax)
        for label, truth, score in one_vs_rest(truth_index, proba, classes):
            predicted, observed, rows = curves.reliability(truth, score, n_bins)
            out.classes.append(label)
            out.mean_predicted[label] = predicted
            out.fraction_positive[label] = observed
            out.rows[label] = rows
            (out.lines[label],) = ax.plot(predicted, observed, marker="o", label=str(label))
        ax.plot([0, 1], [0, 1], linestyle=":", color="grey", linewidth=1, label="calibrated")
        title = f"reliability (Brier score {brier:.4f})"
        unit_square(ax, "mean predicted probability", "fraction of positives", title, "upper left")
        return out


def plot_reliability(
    model: Any,
    X: Any,
    y: Any = None,
    *,
    target: str | None = None,
    n_bins: int = 10,
    ax: Any = None,
) -> ReliabilityDisplay:
    """:meth:`ReliabilityDisplay.from_estimator`."""
    return ReliabilityDisplay.from_estimator(model, X, y, target=target, n_bins=n_bins, ax=ax)
