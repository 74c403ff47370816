"""Evaluating a classifier: stratified folds, accuracy, per-class precision/recall/F1, log loss
and the confusion matrix. Written here (a few lines each) so that the command line and the demo
need no scikit-learn."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def stratified_folds(y: np.ndarray, n_folds: int, seed: int = 0) -> list[np.ndarray]:
    """Split row indices into ``n_folds`` test folds with the class proportions of ``y``.

    Rows of each class are shuffled (``seed``) and dealt round-robin to the folds, continuing
    from class to class so fold sizes differ by at most one.
    """
    if n_folds < 2:
        raise ValueError(f"folds must be at least 2, got {n_folds}.")
    classes, cls = np.unique(np.asarray(y), return_inverse=True)
    smallest = np.bincount(cls).min()
    if smallest < n_folds:
        raise ValueError(
            f"cannot make {n_folds} stratified folds: the rarest class has only {smallest} rows."
        )
    rng = np.random.default_rng(seed)
    assignment = np.empty(len(cls), dtype=np.intp)
    start = 0
    for k in range(len(classes)):
        members = rng.permutation(np.flatnonzero(cls == k))
        assignment[members] = (start + np.arange(len(members))) % n_folds
        start += len(members)
    return [np.flatnonzero(assignment == f) for f in range(n_folds)]


@dataclass(frozen=True)
class Report:
    """Accuracy, per-class precision/recall/F1/support, log loss and the confusion matrix
    (rows: true class, columns: predicted class, in the order of ``classes``)."""

    classes: np.ndarray
    accuracy: float
    precision: np.ndarray
    recall: np.ndarray
    f1: np.ndarray
    support: np.ndarray
    log_loss: float | None
    confusion: np.ndarray

    def as_dict(self) -> dict:
        return {
            "accuracy": self.accuracy,
            "log_loss": self.log_loss,
            "classes": [str(c) for c in self.classes],
            "precision": self.precision.tolist(),
            "recall": self.recall.tolist(),
            "f1": self.f1.tolist(),
            "support": self.support.tolist(),
            "confusion_matrix": self.confusion.tolist(),
        }

    def format(self) -> str:
        width = max(8, *(len(str(c)) for c in self.classes))
        lines = [f"accuracy  {self.accuracy:.4f}"]
        if self.log_loss is not None:
            lines.append(f"log loss  {self.log_loss:.4f}")
        lines.append("")
        lines.append(f"{'class':<{width}}  precision  recall      f1  support")
        for i, c in enumerate(self.classes):
            lines.append(
                f"{c!s:<{width}}  {self.precision[i]:9.4f}  {self.recall[i]:6.4f}  "
                f"{self.f1[i]:6.4f}  {int(self.support[i]):7d}"
            )
        lines.append("")
        lines.append("confusion matrix (rows: true, columns: predicted)")
        header = " " * width + "  " + "  ".join(f"{c!s:>{width}}" for c in self.classes)
        lines.append(header)
        for i, c in enumerate(self.classes):
            cells = "  ".join(f"{int(v):>{width}}" for v in self.confusion[i])
            lines.append(f"{c!s:<{width}}  {cells}")
        return "\n".join(lines)


class Accumulator:
    """Evaluation counts gathered batch by batch (for streamed data): the confusion matrix
    over ``classes``, the number of rows and of correct predictions, and Σ −log P(true | x)."""

    def __init__(self, classes: np.ndarray) -> None:
        self.classes = np.asarray(classes)
        k = len(self.classes)
        self.confusion = np.zeros((k, k), dtype=np.int64)
        self.n = 0
        self.correct = 0
        self.loss_sum = 0.0
        self.loss_rows = 0
        self.has_proba = True

    def update(
        self, y_true: np.ndarray, y_pred: np.ndarray, proba: np.ndarray | None = None
    ) -> None:
        y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
        true_index = _positions(self.classes, y_true)
        pred_index = _positions(self.classes, y_pred)
        known = (true_index >= 0) & (pred_index >= 0)
        np.add.at(self.confusion, (true_index[known], pred_index[known]), 1)
        self.n += len(y_true)
        self.correct += int(np.sum(y_true.astype(str) == y_pred.astype(str)))
        if proba is None:
            self.has_proba = False
        else:
            rows = np.flatnonzero(true_index >= 0)
            chosen = np.clip(proba[rows, true_index[rows]], 1e-15, 1.0)
            self.loss_sum += float(-np.log(chosen).sum())
            self.loss_rows += rows.size

    def report(self) -> Report:
        confusion = self.confusion
        correct = np.diag(confusion).astype(float)
        predicted = confusion.sum(axis=0)
        support = confusion.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            precision = np.where(predicted > 0, correct / predicted, 0.0)
            recall = np.where(support > 0, correct / support, 0.0)
            f1 = np.where(
                precision + recall > 0, 2 * precision * recall / (precision + recall), 0.0
            )
        accuracy = self.correct / self.n if self.n else 0.0
        loss = self.loss_sum / self.loss_rows if self.has_proba and self.loss_rows else None
        return Report(self.classes, accuracy, precision, recall, f1, support, loss, confusion)


def _positions(classes: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Index of each label in ``classes``, −1 for a label the model does not know."""
    names = classes.astype(str)
    order = np.argsort(names)
    wanted = labels.astype(str)
    found = np.searchsorted(names[order], wanted).clip(0, len(names) - 1)
    index = order[found]
    return np.where(names[index] == wanted, index, -1).astype(np.intp)
