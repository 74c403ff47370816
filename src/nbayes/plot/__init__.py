"""Pictures of a naive Bayes model, drawn with matplotlib (``pip install "nbayes[plot]"``).

Each function draws on a new figure (or the ``ax`` given) and returns a *display*: an object
holding the matplotlib ``figure`` and axes (to restyle or save) and the numbers it plotted (to
check or reuse), in scikit-learn's ``Display`` manner.

* :func:`plot_features` — each feature's class-conditional distribution, one panel per feature;
* :func:`plot_confusion_matrix` — true against predicted classes;
* :func:`plot_roc`, :func:`plot_precision_recall` — one class against the rest;
* :func:`plot_reliability` — calibration, with the Brier score;
* :func:`plot_explanation` — one row's contributions to the log-odds.

matplotlib is imported when the first plot is drawn, never by ``import nbayes``.
"""

from .confusion import ConfusionMatrixDisplay, plot_confusion_matrix
from .explanation import ExplanationDisplay, plot_explanation
from .features import FeaturesDisplay, plot_features
from .reliability import ReliabilityDisplay, plot_reliability
from .roc import PrecisionRecallDisplay, RocCurveDisplay, plot_precision_recall, plot_roc

__all__ = [
    "ConfusionMatrixDisplay",
    "ExplanationDisplay",
    "FeaturesDisplay",
    "PrecisionRecallDisplay",
    "ReliabilityDisplay",
    "RocCurveDisplay",
    "plot_confusion_matrix",
    "plot_explanation",
    "plot_features",
    "plot_precision_recall",
    "plot_reliability",
    "plot_roc",
]
