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
from ._common import axes, predictions


def _shown_classes(classes: np.ndarray) -> list[int]:
    return [1] if len(classes) == 2 else list(range(len(classes)))


@dataclass
class RocCurveDisplay:
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
        classes = np.asarray(classes)
        truth_index, proba = np.asarray(truth_index), np.asarray(proba, dtype=np.float64)
        figure, ax = axes(ax)
        out = cls([], {}, {}, {}, {}, figure, ax)
        for k in _shown_classes(classes):
            truth = truth_index == k
            if truth.all() or not truth.any():
                continue
            label = classes[k].item() if hasattr(classes[k], "item") else classes[k]
            fpr, tpr, thresholds = curves.roc_curve(truth, proba[:, k])
            out.classes.append(label)
            out.fpr[label], out.tpr[label], out.thresholds[label] = fpr, tpr, thresholds
            out.auc[label] = curves.auc(fpr, tpr)
            (out.lines[label],) = ax.plot(
                fpr, tpr, drawstyle="default", label=f"{label} (AUC = {out.auc[label]:.3f})"
            )
        ax.plot([0, 1], [0, 1], linestyle=":", color="grey", linewidth=1)
        ax.set_xlim(-0.01, 1.01)
        ax.set_ylim(-0.01, 1.01)
        ax.set_xlabel("false-positive rate")
        ax.set_ylabel("true-positive rate")
        ax.set_title("ROC curve" + (" (one vs rest)" if len(classes) > 2 else ""))
        ax.legend(loc="lower right", fontsize="small")
        return out

    @classmethod
    def from_estimator(
        cls, model: Any, X: Any, y: Any = None, *, target: str | None = None, ax: Any = None
    ) -> RocCurveDisplay:
        """Curves of a fitted model's P(c | x) on X against the true labels (``y`` or the
        column ``target`` of X)."""
        truth_index, proba = predictions(model, X, y, target)
        return cls.from_predictions(truth_index, proba, model.classes_, ax=ax)


@dataclass
class PrecisionRecallDisplay:
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
        classes = np.asarray(classes)
        truth_index, proba = np.asarray(truth_index), np.asarray(proba, dtype=np.float64)
        figure, ax = axes(ax)
        out = cls([], {}, {}, {}, {}, figure, ax)
        for k in _shown_classes(classes):
            truth = truth_index == k
            if not truth.any():
                continue
            label = classes[k].item() if hasattr(classes[k], "item") else classes[k]
            precision, recall, thresholds = curves.precision_recall_curve(truth, proba[:, k])
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
        ax.set_xlim(-0.01, 1.01)
        ax.set_ylim(-0.01, 1.01)
        ax.set_xlabel("recall")
        ax.set_ylabel("precision")
        ax.set_title("precision–recall" + (" (one vs rest)" if len(classes) > 2 else ""))
        ax.legend(loc="lower left", fontsize="small")
        return out

    @classmethod
    def from_estimator(
        cls, model: Any, X: Any, y: Any = None, *, target: str | None = None, ax: Any = None
    ) -> PrecisionRecallDisplay:
        """Curves of a fitted model's P(c | x) on X against the true labels."""
        truth_index, proba = predictions(model, X, y, target)
        return cls.from_predictions(truth_index, proba, model.classes_, ax=ax)


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
