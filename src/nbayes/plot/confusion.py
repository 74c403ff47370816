"""The confusion matrix: rows are the true classes, columns the predicted ones, each cell the
number of rows (or, with ``normalize="true"``, the fraction of the true class's rows) — counted
by the same code as ``nbayes evaluate``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ._common import axes, labelled


@dataclass
class ConfusionMatrixDisplay:
    """A drawn confusion matrix: ``confusion`` (K × K counts, rows true, columns predicted,
    in the order of ``classes``), ``values`` (what the cells show: the counts, or rates), and
    the matplotlib ``figure``, ``ax`` and ``image``."""

    classes: np.ndarray
    confusion: np.ndarray
    values: np.ndarray
    figure: Any
    ax: Any
    image: Any

    @classmethod
    def from_predictions(
        cls,
        y_true: Any,
        y_pred: Any,
        classes: Any,
        *,
        normalize: str | None = None,
        ax: Any = None,
        cmap: str = "Blues",
    ) -> ConfusionMatrixDisplay:
        """Count and draw the matrix of ``y_true`` against ``y_pred`` over ``classes``."""
        from ..evaluation import Accumulator

        if normalize not in (None, "true", "pred", "all"):
            raise ValueError(f"normalize must be None, 'true', 'pred' or 'all', got {normalize!r}.")
        counter = Accumulator(np.asarray(classes))
        counter.update(np.asarray(y_true), np.asarray(y_pred))
        confusion = counter.confusion
        # a true label the model does not know becomes a class of its own (as in evaluate)
        classes = np.asarray(counter.classes)
        values = confusion.astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            if normalize == "true":
                values = values / values.sum(axis=1, keepdims=True)
            elif normalize == "pred":
                values = values / values.sum(axis=0, keepdims=True)
            elif normalize == "all":
                values = values / values.sum()
        values = np.nan_to_num(values)
        k = len(classes)
        figure, ax = axes(ax, (max(3.6, 1.2 + 0.7 * k), max(3.2, 1.0 + 0.7 * k)))
        image = ax.imshow(values, cmap=cmap, vmin=0)
        names = [str(c) for c in classes]
        ax.set_xticks(range(len(names)), names, rotation=45 if len(names) > 4 else 0)
        ax.set_yticks(range(len(names)), names)
        ax.set_xlabel("predicted class")
        ax.set_ylabel("true class")
        top = values.max() if values.size else 0
        for i in range(values.shape[0]):
            for j in range(values.shape[1]):
                text = f"{int(confusion[i, j]):d}" if normalize is None else f"{values[i, j]:.2f}"
                dark = top > 0 and values[i, j] > top / 2
                ax.text(j, i, text, ha="center", va="center", color="white" if dark else "black")
        ax.set_title("confusion matrix")
        return cls(classes, confusion, values, figure, ax, image)

    @classmethod
    def from_estimator(
        cls,
        model: Any,
        X: Any,
        y: Any = None,
        *,
        target: str | None = None,
        normalize: str | None = None,
        ax: Any = None,
        cmap: str = "Blues",
    ) -> ConfusionMatrixDisplay:
        """Predict X with a fitted model and draw its confusion matrix against the true labels
        (``y``, or the column ``target`` of X)."""
        X, labels = labelled(X, y, target)
        predicted = model.predict(X)
        return cls.from_predictions(
            labels, predicted, model.classes_, normalize=normalize, ax=ax, cmap=cmap
        )


def plot_confusion_matrix(
    model: Any, X: Any, y: Any = None, *, target: str | None = None, **options: Any
) -> ConfusionMatrixDisplay:
    """:meth:`ConfusionMatrixDisplay.from_estimator`."""
    return ConfusionMatrixDisplay.from_estimator(model, X, y, target=target, **options)
