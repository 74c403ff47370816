"""The numbers behind the performance plots, for one class against the rest (no matplotlib).

For a class c, each row i has a truth o_i = [y_i = c] and a score s_i = P(c | x_i). Lowering a
threshold t through the distinct scores, from the highest, gives at each t the counts of rows
with s_i ≥ t that are positive (TP) and negative (FP), out of P positives and N negatives:

* ROC curve: false-positive rate FP/N against true-positive rate TP/P, from (0, 0) to (1, 1);
  its area by the trapezoidal rule is the AUC (the probability that a random positive row scores
  above a random negative one, ties counting one half).
* Precision–recall curve: precision TP/(TP + FP) against recall TP/P. Average precision is
  AP = Σ_n (R_n − R_{n−1}) P_n over the thresholds (a step sum, not an interpolation).
* Reliability (calibration) diagram: the scores are cut into ``n_bins`` equal bins of [0, 1];
  in each non-empty bin, the mean score against the fraction of positives. A calibrated model
  lies on the diagonal.
* Brier score: the mean squared distance between the probabilities and the truth,
  (1/n) Σ_i Σ_c (P(c | x_i) − o_ic)² over the K classes, halved for two classes so that it
  equals the usual (1/n) Σ_i (P(positive | x_i) − o_i)². 0 is perfect.

The conventions (threshold order, the points added at the ends, empty bins dropped) are those of
scikit-learn's ``roc_curve(drop_intermediate=False)``, ``precision_recall_curve``,
``average_precision_score``, ``calibration_curve`` and ``brier_score_loss``, against which they
are tested.
"""

from __future__ import annotations

import numpy as np


def _counts(truth: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, ...]:
    """(TP, FP, threshold) at each distinct score, highest threshold first."""
    truth = np.asarray(truth, dtype=bool)
    score = np.asarray(score, dtype=np.float64)
    if truth.shape != score.shape or truth.ndim != 1:
        raise ValueError(
            f"truth and score must be 1-D of one length; got {truth.shape}, {score.shape}."
        )
    if truth.size == 0:
        raise ValueError("there are no rows to draw a curve from.")
    order = np.argsort(-score, kind="mergesort")
    score, truth = score[order], truth[order]
    last = np.r_[np.flatnonzero(np.diff(score)), truth.size - 1]
    tps = np.cumsum(truth)[last].astype(np.float64)
    fps = 1.0 + last - tps
    return tps, fps, score[last]


def roc_curve(truth: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(false-positive rate, true-positive rate, thresholds), starting at (0, 0) with threshold
    +inf. A rate whose denominator is 0 (no positive or no negative rows) is NaN."""
    tps, fps, thresholds = _counts(truth, score)
    tps, fps = np.r_[0.0, tps], np.r_[0.0, fps]
    with np.errstate(invalid="ignore", divide="ignore"):
        fpr = fps / fps[-1] if fps[-1] > 0 else np.full_like(fps, np.nan)
        tpr = tps / tps[-1] if tps[-1] > 0 else np.full_like(tps, np.nan)
    return fpr, tpr, np.r_[np.inf, thresholds]


def auc(x: np.ndarray, y: np.ndarray) -> float:
    """Area under the curve y(x) by the trapezoidal rule (x monotone)."""
    return float(np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2.0))


def precision_recall_curve(
    truth: np.ndarray, score: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(precision, recall, thresholds): one point per distinct score, thresholds rising, and a
    last point (precision 1, recall 0) with no threshold, as scikit-learn returns them."""
    tps, fps, thresholds = _counts(truth, score)
    if tps[-1] == 0:
        raise ValueError("precision-recall needs at least one positive row.")
    precision = tps / (tps + fps)
    recall = tps / tps[-1]
    rising = slice(None, None, -1)
    return np.r_[precision[rising], 1.0], np.r_[recall[rising], 0.0], thresholds[rising]


def average_precision(precision: np.ndarray, recall: np.ndarray) -> float:
    """AP = Σ_n (R_n − R_{n−1}) P_n for a curve as :func:`precision_recall_curve` returns it."""
    return float(-np.sum(np.diff(recall) * precision[:-1]))


def reliability(
    truth: np.ndarray, probability: np.ndarray, n_bins: int = 10
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mean predicted probability, fraction of positives, rows) in each non-empty bin of
    [0, 1] cut into ``n_bins`` equal parts (a value on an inner edge goes to the lower bin)."""
    if not isinstance(n_bins, (int, np.integer)) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer, got {n_bins!r}.")
    truth = np.asarray(truth, dtype=np.float64)
    probability = np.asarray(probability, dtype=np.float64)
    if np.any((probability < 0) | (probability > 1)):
        raise ValueError("probabilities must lie in [0, 1].")
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    bins = np.searchsorted(edges[1:-1], probability)
    rows = np.bincount(bins, minlength=n_bins).astype(np.float64)
    predicted = np.bincount(bins, weights=probability, minlength=n_bins)
    observed = np.bincount(bins, weights=truth, minlength=n_bins)
    full = rows > 0
    return predicted[full] / rows[full], observed[full] / rows[full], rows[full]


def brier_score(truth_index: np.ndarray, proba: np.ndarray) -> float:
    """(1/n) Σ_i Σ_c (P(c | x_i) − o_ic)², halved when there are two classes."""
    proba = np.asarray(proba, dtype=np.float64)
    onehot = np.zeros_like(proba)
    onehot[np.arange(proba.shape[0]), np.asarray(truth_index)] = 1.0
    score = float(np.mean(np.sum((proba - onehot) ** 2, axis=1)))
    return score / 2.0 if proba.shape[1] == 2 else score


__all__ = [
    "auc",
    "average_precision",
    "brier_score",
    "precision_recall_curve",
    "reliability",
    "roc_curve",
]
