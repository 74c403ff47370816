"""What every plot shares: importing matplotlib on demand, axes, and the labelled data to plot."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypeVar

import numpy as np

from ..exceptions import MissingDependencyError
from ..labels import MISSING_LIKE, near_labels

_Display = TypeVar("_Display", bound="ProbabilityDisplay")

INSTALL_HINT = 'plotting needs matplotlib: pip install "nbayes[plot]" (or pip install matplotlib)'


def pyplot() -> Any:
    """``matplotlib.pyplot``, imported only when a plot is drawn (``import nbayes`` never
    imports matplotlib)."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingDependencyError(INSTALL_HINT) from exc
    return plt


def axes(ax: Any = None, figsize: tuple[float, float] = (5.0, 4.0)) -> tuple[Any, Any]:
    """(figure, axes): the given axes and its figure, or a new figure with one axes."""
    if ax is not None:
        return ax.figure, ax
    figure, ax = pyplot().subplots(figsize=figsize, layout="constrained")
    return figure, ax


def labelled(X: Any, y: Any, target: str | None) -> tuple[Any, np.ndarray]:
    """(features, labels): ``y`` as given, or the column ``target`` taken out of the table X
    (rows whose label is missing are left out)."""
    if target is None:
        if y is None:
            raise ValueError("give the true labels: y, or target='column name'.")
        labels = np.asarray(y)
        if labels.ndim != 1:
            raise ValueError(f"y must be one label per row; got shape {labels.shape}.")
        return X, labels
    if y is not None:
        raise ValueError("give the true labels once: as y or as target='column', not both.")

    from ..tables import to_frame

    frame = to_frame(X)
    if target not in frame.columns:
        raise ValueError(f"target column {target!r} is not in the data (columns: {frame.columns}).")
    keep = frame.get_column(target).is_not_null()
    frame = frame.filter(keep)
    labels = frame.get_column(target).to_numpy()
    return frame.drop(target), labels if labels.dtype != object else labels.astype(str)


def class_positions(
    classes: np.ndarray, labels: np.ndarray, target: str | None = None
) -> np.ndarray:
    """Index of each label in ``classes`` (compared as text, as ``nbayes evaluate`` does); a
    label the model does not know raises, naming it and where the labels came from (``y``, or
    the column ``target``)."""
    lookup = {str(c): k for k, c in enumerate(np.asarray(classes).tolist())}
    text = np.asarray(labels).astype(str)
    index = np.fromiter((lookup.get(t, -1) for t in text), dtype=np.intp, count=len(text))
    if np.any(index < 0):
        unknown = np.unique(np.asarray(labels)[index < 0].astype(str)).tolist()
        hint = near_labels(unknown, list(lookup))
        source = "y" if target is None else f"column {target!r}"
        marker = [u for u in unknown if u.strip().casefold() in MISSING_LIKE]
        if marker:
            hint += (
                f" If {marker[0]!r} means a missing label, name it missing (missing_values="
                f"{marker[0]!r}; --missing {marker[0]!r} on the command line): such rows are "
                "left out."
            )
        raise ValueError(
            f"{source} holds labels the model does not know: {unknown[:5]} (its classes: "
            f"{list(lookup)[:10]}).{hint}"
        )
    return index


def predictions(model: Any, X: Any, y: Any, target: str | None) -> tuple[np.ndarray, np.ndarray]:
    """(index of each row's true class in ``model.classes_``, P(c | x) of each row)."""
    X, labels = labelled(X, y, target)
    proba = np.asarray(model.predict_proba(X))
    if proba.shape[0] != labels.shape[0]:
        raise ValueError(f"X has {proba.shape[0]} rows but y has {labels.shape[0]} labels.")
    return class_positions(model.classes_, labels, target), proba


class ProbabilityDisplay:
    """What the displays drawn from P(c | x) share (ROC, precision–recall, reliability): drawing
    them for a fitted model."""

    @classmethod
    def from_predictions(
        cls: type[_Display],
        truth_index: Any,
        proba: Any,
        classes: Any,
        *,
        ax: Any = None,
        **options: Any,
    ) -> _Display:
        """The display from each row's true class (its index in ``classes``) and P(c | x)."""
        raise NotImplementedError

    @classmethod
    def from_estimator(
        cls: type[_Display],
        model: Any,
        X: Any,
        y: Any = None,
        *,
        target: str | None = None,
        ax: Any = None,
        **options: Any,
    ) -> _Display:
        """The display of a fitted model's P(c | x) on X against the true labels (``y`` or the
        column ``target`` of X); ``options`` go to :meth:`from_predictions` (the reliability
        diagram's ``n_bins``)."""
        truth_index, proba = predictions(model, X, y, target)
        return cls.from_predictions(truth_index, proba, model.classes_, ax=ax, **options)


def one_vs_rest(
    truth_index: Any, proba: Any, classes: Any
) -> Iterator[tuple[Any, np.ndarray, np.ndarray]]:
    """(label, whether each row is of the class, P(c | x) of each row) of every class a
    one-vs-rest figure shows: the second of two classes (scikit-learn's positive class), else
    each class."""
    classes = np.asarray(classes)
    truth_index, proba = np.asarray(truth_index), np.asarray(proba, dtype=np.float64)
    for k in [1] if len(classes) == 2 else range(len(classes)):
        label = classes[k].item() if hasattr(classes[k], "item") else classes[k]
        yield label, truth_index == k, proba[:, k]


def unit_square(ax: Any, xlabel: str, ylabel: str, title: str, legend: str) -> None:
    """Finish axes over [0, 1] × [0, 1] (with a margin of 0.01): the axis labels, the title and
    the legend, placed at ``legend``."""
    ax.set_xlim(-0.01, 1.01)
    ax.set_ylim(-0.01, 1.01)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if ax.get_legend_handles_labels()[0]:  # (no curve, no legend: matplotlib would warn)
        ax.legend(loc=legend, fontsize="small")
