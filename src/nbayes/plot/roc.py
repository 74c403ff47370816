"""ROC and precision–recall curves of a fitted model, one class against the rest.

With two classes one curve is drawn, for the second class of ``classes_`` (scikit-learn's
positive class); with more, one curve per class (one-vs-rest). The formulas are in
:mod:`nbayes.plot.curves`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from . import curves
from ._common import ProbabilityDisplay, axes, one_vs_rest, unit_square


@dataclass(kw_only=True)
class _OneVsRestDisplay(ProbabilityDisplay):
    """Curves of each class against the rest (module docstring): per class shown (by label)
    ``thresholds``, and the curve's own arrays and summary; the matplotlib ``figure``, ``ax``
    and ``lines``. A subclass names its per-class fields (``_per_class``), draws one class's
    curve (:meth:`_draw_class`) and labels the axes (:meth:`_finish`)."""

    classes: list[Any]
    thresholds: dict[Any, np.ndarray]
    figure: Any
    ax: Any
    lines: dict[Any, Any] = field(default_factory=dict)

    #: the per-class fields besides ``thresholds``
    _per_class: ClassVar[tuple[str, ...]] = ()
    #: whether a class's curve needs rows of other classes too (a false-positive rate does)
    _needs_other_classes: ClassVar[bool] = False

    @classmethod
    def from_predictions(cls, truth_index: Any, proba: Any, classes: Any, *, ax: Any = None):
        """Curves from each row's true class (its index in ``classes``) and P(c | x)."""
        figure, ax = axes(ax)
        empty = {name: {} for name in cls._per_class}
        out = cls(classes=[], thresholds={}, figure=figure, ax=ax, **empty)
        for label, truth, score in one_vs_rest(truth_index, proba, classes):
            if truth.any() and not (cls._needs_other_classes and truth.all()):
                out.classes.append(label)
                out.lines[label] = out._draw_class(label, truth, score)
        out._finish(len(classes))
        return out

    def _draw_class(self, label: Any, truth: np.ndarray, score: np.ndarray) -> Any:
        raise NotImplementedError

    def _finish(self, n_classes: int) -> None:
        raise NotImplementedError


@dataclass(kw_only=True)
class RocCurveDisplay(_OneVsRestDisplay):
    """Drawn ROC curves: per class shown (by label), ``fpr``, ``tpr``, ``thresholds`` and
    ``auc``; the matplotlib ``figure``, ``ax`` and ``lines``. A class with no rows in the data,
    or only such rows, has no curve."""

    fpr: dict[Any, np.ndarray]
    tpr: dict[Any, np.ndarray]
    auc: dict[Any, float]

    _per_class = ("fpr", "tpr", "auc")
    _needs_other_classes = True

    def _draw_class(self, label: Any, truth: np.ndarray, score: np.ndarray) -> Any:
        fpr, tpr, thresholds = curves.roc_curve(truth, score)
        self.fpr[label], self.tpr[label], self.thresholds[label] = fpr, tpr, thresholds
        self.auc[label] = curves.auc(fpr, tpr)
        label_text = f"{label} (AUC = {self.auc[label]:.3f})"
        return self.ax.plot(fpr, tpr, drawstyle="default", label=label_text)[0]

    def _finish(self, n_classes: int) -> None:
        self.ax.plot([0, 1], [0, 1], linestyle=":", color="grey", linewidth=1)
        title = "ROC curve" + (" (one vs rest)" if n_classes > 2 else "")
        unit_square(self.ax, "false-positive rate", "true-positive rate", title, "lower right")


@dataclass(kw_only=True)
class PrecisionRecallDisplay(_OneVsRestDisplay):
    """Drawn precision–recall curves: per class shown (by label), ``precision``, ``recall``,
    ``thresholds`` and ``average_precision``; the matplotlib ``figure``, ``ax`` and ``lines``."""

    precision: dict[Any, np.ndarray]
    recall: dict[Any, np.ndarray]
    average_precision: dict[Any, float]

    _per_class = ("precision", "recall", "average_precision")

    def _draw_class(self, label: Any, truth: np.ndarray, score: np.ndarray) -> Any:
        precision, recall, thresholds = curves.precision_recall_curve(truth, score)
        self.precision[label], self.recall[label] = precision, recall
        self.thresholds[label] = thresholds
        self.average_precision[label] = curves.average_precision(precision, recall)
        label_text = f"{label} (AP = {self.average_precision[label]:.3f})"
        return self.ax.plot(recall, precision, drawstyle="steps-post", label=label_text)[0]

    def _finish(self, n_classes: int) -> None:
        title = "precision–recall" + (" (one vs rest)" if n_classes > 2 else "")
        unit_square(self.ax, "recall", "precision", title, "lower left")


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
