"""ROC and precision–recall curves of a fitted model, one class against the rest.

With two classes one curve is drawn, for the second class of ``classes_`` (scikit-learn's
positive class); with more, one curve per class (one-vs-rest). The formulas are in
:mod:`nbayes.plot.curves`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import curves
from ._common import ProbabilityDisplay, axes, one_vs_rest, unit_square


@dataclass
class RocCurveDisplay(ProbabilityDisplay):
    """Drawn ROC curves: per class shown (by label), ``fpr``, ``tpr``, ``thresholds`` and
    ``auc``; the matplotlib ``figure``, ``ax`` and ``lines``. A class with no rows in the data,
    or only such rows, has no curve."""

    classes: list[Any]
    fpr: dict[Any, np.ndarray]
    tpr: dict[Any, np.ndarray]
    thresholds: dict[Any, np.ndarray]
    auc: dict[Any, float]
    figure: Any
    ax: Any
    lines: dict[Any, Any] = field(default_factory=dict)

    @classmethod
    def from_predictions(
        cls, truth_index: Any, proba: Any, classes: Any, *, ax: Any = None
    ) -> RocCurveDisplay:
        """Curves from each row's true class (its index in ``classes``) and P(c | x)."""
        figure, ax = axes(ax)
        out = cls([], {}, {}, {}, {}, figure, ax)
        for label, truth, score in one_vs_rest(truth_index, proba, classes):
            if truth.all() or not truth.any():
                continue
            fpr, tpr, thresholds = curves.roc_curve(truth, score)
            out.classes.append(label)
            out.fpr[label], out.tpr[label], out.thresholds[label] = fpr, tpr, thresholds
            out.auc[label] = curves.auc(fpr, tpr)
            (out.lines[label],) = ax.plot(
                fpr, tpr, drawstyle="default", label=f"{label} (AUC = {out.auc[label]:.3f})"
            )
        ax.plot([0, 1], [0, 1], linestyle=":", color="grey", linewidth=1)
        title = "ROC curve" + (" (one vs rest)" if len(classes) > 2 else "")
        unit_square(ax, "false-positive rate", "true-positive rate", title, "lower right")
        return out


@dataclass
class PrecisionRecallDisplay(ProbabilityDisplay):
    """Drawn precision–recall curves: per class shown (by label), ``precision``, ``recall``,
    ``thresholds`` and ``average_precision``; the matplotlib ``figure``, ``ax`` and ``lines``."""

    classes: list[Any]
    precision: dict[Any, np.ndarray]
    recall: dict[Any, np.ndarray]
    thresholds: dict[Any, np.ndarray]
    average_precision: dict[Any, float]
    figure: Any
    ax: Any
    lines: dict[Any, Any] = field(default_factory=dict)

    @classmethod
    def from_predictions(
        cls, truth_index: Any, proba: Any, classes: Any, *, ax: Any = None
    ) -> PrecisionRecallDisplay:
        """Curves from each row's true class (its index in ``classes``) and P(c | x)."""
        figure, ax = axes(ax)
        out = cls([], {}, {}, {}, {}, figure, ax)
        for label, truth, score in one_vs_rest(truth_index, proba, classes):
            if not truth.any():
                continue
            precision, recall, thresholds = curves.precision_recall_curve(truth, score)
            out.classes.append(label)
            out.precision[label], out.recall[label] = precision, recall
            out.thresholds[label] = thresholds
            out.average_precision[label] = curves.average_precision(precision, recall)
            (out.lines[label],) = ax.plot(
                recall,
                precision,
                drawstyle="steps-post",
                label=f"{label} (AP = {out.average_precision[label]:.3f})",
            )
        title = "precision–recall" + (" (one vs rest)" if len(classes) > 2 else "")
        unit_square(ax, "recall", "precision", title, "lower left")
        return out


def plot_roc(
    model: Any, X: Any, y: Any = None, *, target: str | None = None, ax: Any = None
) -> RocCurveDisplay:
    """:meth:`RocCurveDisplay.from_estimator`."""
    return RocCurveDisplay.from_estimator(model, X, y, target=target, ax=ax)


def plot_precision_recall(
    model: Any, X: Any, y: Any = None, *, target: str | None = None, ax: Any = None
) -> PrecisionRecallDisplay:
    """:meth:`PrecisionRecallDisplay.from_estimator`."""
    return PrecisionRecallDisplay.from_estimator(model, X, y, target=target, ax=ax)
