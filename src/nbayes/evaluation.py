"""Evaluating a classifier: stratified folds, and the figures a Weka or scikit-learn user reads.

Written here (a few lines each, each the textbook formula) so that the command line and the demo
need no scikit-learn; the tests check every figure against ``sklearn.metrics`` on the same
predictions. With C the confusion matrix (rows: true class, columns: predicted), n rows, t_k =
Σ_j C[k, j] (support), p_k = Σ_i C[i, k] (predictions) and the averages over the classes that
occur (in the truth or the predictions):

* accuracy = Σ_k C[k, k] / n; balanced accuracy = mean over classes with t_k > 0 of recall_k;
* precision_k = C[k, k] / p_k, recall_k = C[k, k] / t_k, F1_k = 2 C[k, k] / (t_k + p_k)
  (0 where undefined), their macro (plain mean) and weighted (by t_k) averages;
* Cohen's κ = (p_o − p_e) / (1 − p_e), p_o = Σ_k C[k, k] / n, p_e = Σ_k t_k p_k / n²;
* Matthews' correlation (Gorodkin's multiclass form) = (c n − Σ_k t_k p_k) /
  √((n² − Σ_k p_k²)(n² − Σ_k t_k²)), c = Σ_k C[k, k] (0 when a factor is 0);
* log loss = −mean log P(true class | x), probabilities clipped to [ε, 1 − ε] (ε the float's
  machine epsilon);
* Brier score = mean Σ_k (P(k | x) − [y = k])², halved for two classes (then it is the mean
  squared error of P(positive | x), as in scikit-learn);
* ROC AUC (the Mann–Whitney statistic with mid-ranks for ties, equal to the trapezoidal area
  under the ROC curve) and PR AUC (average precision, Σ_n (R_n − R_{n−1}) P_n over descending
  score thresholds): for two classes those of the second class's probability; for more, the
  unweighted mean of each class against the rest over the classes present (one-vs-rest);
* with a loss matrix L[decision, truth]: total cost Σ_i L[ŷ_i, y_i] and mean cost total / n.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy.stats import rankdata

from .exceptions import caller_stacklevel
from .labels import near_labels


def stratified_folds(y: np.ndarray, n_folds: int, seed: int = 0) -> list[np.ndarray]:
    """Split row indices into ``n_folds`` test folds with the class proportions of ``y``.

    Rows of each class are shuffled (``seed``) and dealt round-robin to the folds, continuing
    from class to class so fold sizes differ by at most one.
    """
    if n_folds < 2:
        raise ValueError(f"folds must be at least 2, got {n_folds}.")
    classes, cls = np.unique(np.asarray(y), return_inverse=True)
    counts = np.bincount(cls)
    smallest = int(counts.min())
    rarest = classes[int(counts.argmin())]
    rarest = rarest.item() if isinstance(rarest, np.generic) else rarest  # 'b', not np.str_
    if int(counts.max()) < n_folds:  # some folds would test no row at all
        raise ValueError(
            f"cannot make {n_folds} stratified folds: no class has that many rows (the largest "
            f"has {int(counts.max())}); use at most {int(counts.max())} folds."
        )
    if smallest < 2:
        raise ValueError(
            f"cannot make {n_folds} stratified folds: the rarest class ({rarest!r}) has one "
            "row, so the fold that tests it would train without the class; leave out or merge "
            "the classes with a single row."
        )
    if smallest < n_folds:
        # as scikit-learn's StratifiedKFold: some folds test none of the class's rows, and
        # every fold still trains on it (it has two rows or more)
        warnings.warn(
            f"the rarest class ({rarest!r}) has only {smallest} rows, fewer than the "
            f"{n_folds} folds: {n_folds - smallest} folds test none of them (every fold trains "
            f"on the class); use at most {smallest} folds for a row of it in every fold.",
            UserWarning,
            stacklevel=caller_stacklevel(),
        )
    rng = np.random.default_rng(seed)
    assignment = np.empty(len(cls), dtype=np.intp)
    start = 0
    for k in range(len(classes)):
        members = rng.permutation(np.flatnonzero(cls == k))
        assignment[members] = (start + np.arange(len(members))) % n_folds
        start += len(members)
    return [np.flatnonzero(assignment == f) for f in range(n_folds)]


#: The single figures of a report, in the order they are printed, and whether higher is better.
SCALARS = {
    "accuracy": True,
    "balanced_accuracy": True,
    "kappa": True,
    "mcc": True,
    "macro_precision": True,
    "macro_recall": True,
    "macro_f1": True,
    "weighted_precision": True,
    "weighted_recall": True,
    "weighted_f1": True,
    "log_loss": False,
    "brier": False,
    "roc_auc": True,
    "pr_auc": True,
    "total_cost": False,
    "mean_cost": False,
}
_LABELS = {
    "accuracy": "accuracy",
    "balanced_accuracy": "balanced accuracy",
    "kappa": "Cohen's kappa",
    "mcc": "Matthews corr.",
    "macro_precision": "precision (macro)",
    "macro_recall": "recall (macro)",
    "macro_f1": "F1 (macro)",
    "weighted_precision": "precision (weighted)",
    "weighted_recall": "recall (weighted)",
    "weighted_f1": "F1 (weighted)",
    "log_loss": "log loss",
    "brier": "Brier score",
    "roc_auc": "ROC AUC",
    "pr_auc": "PR AUC (avg. precision)",
    "total_cost": "total cost",
    "mean_cost": "mean cost",
}


@dataclass(frozen=True)
class Report:
    """The figures of one evaluation: ``scalars`` (see :data:`SCALARS`; a figure that cannot be
    computed is None), per-class precision/recall/F1/support, and the confusion matrix (rows:
    true class, columns: predicted class, in the order of ``classes``)."""

    classes: np.ndarray
    n: int
    scalars: dict[str, float | None]
    precision: np.ndarray
    recall: np.ndarray
    f1: np.ndarray
    support: np.ndarray
    confusion: np.ndarray
    notes: list[str] = field(default_factory=list)

    def __getattr__(self, name: str) -> float | None:
        scalars = self.__dict__.get("scalars", {})
        if name in scalars:
            return scalars[name]
        raise AttributeError(name)

    def as_dict(self) -> dict:
        return {
            "rows": self.n,
            **self.scalars,
            "classes": [str(c) for c in self.classes],
            "precision": self.precision.tolist(),
            "recall": self.recall.tolist(),
            "f1": self.f1.tolist(),
            "support": self.support.tolist(),
            "confusion_matrix": self.confusion.tolist(),
            "notes": list(self.notes),
        }

    def format(self) -> str:
        lines = [
            f"{_LABELS[name]:<24}{value:.4f}"
            for name, value in self.scalars.items()
            if value is not None
        ]
        width = max(8, *(len(str(c)) for c in self.classes))
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
        lines.extend(f"note: {note}" for note in self.notes)
        return "\n".join(lines)


class Accumulator:
    """Evaluation data gathered batch by batch (for streamed data): the confusion matrix (its
    classes grow when the truth holds a label the model does not know), and for the
    probability figures each labelled row's class and posteriors (n × K numbers: the ROC and PR
    areas need every score).

    ``classes`` are the model's (the columns of ``proba``); ``loss`` a (K, K) matrix
    L[decision, truth] over them, for the costs.
    """

    def __init__(self, classes: np.ndarray, loss: np.ndarray | None = None) -> None:
        self.model_classes = np.asarray(classes)
        self.labels = [str(c) for c in self.model_classes]
        self.classes = list(self.model_classes)
        self.loss = None if loss is None else np.asarray(loss, dtype=float)
        k = len(self.classes)
        self.confusion = np.zeros((k, k), dtype=np.int64)
        self.n = 0
        self.has_proba = True
        self._truth: list[np.ndarray] = []
        self._proba: list[np.ndarray] = []
        self._cost = 0.0

    def _index(self, labels: np.ndarray) -> np.ndarray:
        """Index of each label among the classes (by its text); labels not yet known are added
        as classes (the truth may hold labels the model never saw)."""
        text = labels.astype(str)
        new = sorted(set(np.unique(text).tolist()) - set(self.labels))
        if new:
            self.labels.extend(new)
            self.classes.extend(new)
            size = len(self.labels)
            grown = np.zeros((size, size), dtype=np.int64)
            grown[: self.confusion.shape[0], : self.confusion.shape[1]] = self.confusion
            self.confusion = grown
        lookup = {label: k for k, label in enumerate(self.labels)}
        return np.fromiter((lookup.get(t, -1) for t in text), dtype=np.intp, count=len(text))

    def update(
        self, y_true: np.ndarray, y_pred: np.ndarray, proba: np.ndarray | None = None
    ) -> None:
        y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
        true_index = self._index(y_true)
        pred_index = self._index(y_pred)
        np.add.at(self.confusion, (true_index, pred_index), 1)
        self.n += len(y_true)
        known = true_index < len(self.model_classes)
        if self.loss is not None:
            decided = pred_index[known]
            self._cost += float(self.loss[decided, true_index[known]].sum())
        if proba is None:
            self.has_proba = False
        else:
            self._truth.append(true_index[known])
            self._proba.append(np.asarray(proba, dtype=float)[known])

    @property
    def nbytes(self) -> int:
        """Bytes of the rows' classes and posteriors kept so far (they grow with the rows)."""
        return sum(a.nbytes for a in self._truth) + sum(a.nbytes for a in self._proba)

    def report(self) -> Report:
        confusion = self.confusion
        classes = np.asarray(self.classes)
        n = int(confusion.sum())
        correct = np.diag(confusion).astype(float)
        support = confusion.sum(axis=1)
        predicted = confusion.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            precision = np.where(predicted > 0, correct / predicted, 0.0)
            recall = np.where(support > 0, correct / support, 0.0)
            f1 = np.where(support + predicted > 0, 2 * correct / (support + predicted), 0.0)
        occurs = (support > 0) | (predicted > 0)
        scalars: dict[str, float | None] = dict.fromkeys(SCALARS)
        scalars["accuracy"] = float(correct.sum() / n) if n else None
        if n:
            scalars["balanced_accuracy"] = float(recall[support > 0].mean())
            scalars["kappa"] = _kappa(confusion)
            scalars["mcc"] = _mcc(confusion)
            weights = support / support.sum()
            for name, values in (("precision", precision), ("recall", recall), ("f1", f1)):
                scalars[f"macro_{name}"] = float(values[occurs].mean())
                scalars[f"weighted_{name}"] = float(np.sum(weights * values))
        notes: list[str] = []
        unknown = [str(c) for c in self.classes[len(self.model_classes) :]]
        if unknown:
            rows = int(confusion[len(self.model_classes) :].sum())
            known = [str(c) for c in self.model_classes]
            hint = near_labels(unknown, known)
            if not hint and rows == n:  # not one label known: most likely the wrong column
                hint = (
                    f" Not one row's label is a class of the model ({known[:5]}): is the class "
                    "column the one the model was fitted on (--target)?"
                )
            notes.append(
                f"{rows:,} rows have labels the model does not know ({unknown[:5]}); they "
                "count as errors and are left out of the probability figures." + hint
            )
        if self.has_proba and self._truth:
            truth = np.concatenate(self._truth)
            proba = np.concatenate(self._proba)
            if truth.size:
                scalars.update(_probability_figures(truth, proba, notes))
        if self.loss is not None and n:
            scalars["total_cost"] = self._cost
            scalars["mean_cost"] = self._cost / n
        return Report(classes, n, scalars, precision, recall, f1, support, confusion, notes)


def _kappa(confusion: np.ndarray) -> float | None:
    n = confusion.sum()
    observed = np.trace(confusion) / n
    expected = float(confusion.sum(axis=1) @ confusion.sum(axis=0)) / n**2
    return None if expected == 1 else float((observed - expected) / (1 - expected))


def _mcc(confusion: np.ndarray) -> float:
    confusion = confusion.astype(float)
    t, p = confusion.sum(axis=1), confusion.sum(axis=0)
    c, s = np.trace(confusion), confusion.sum()
    cov_tp = c * s - t @ p
    cov_pp = s * s - p @ p
    cov_tt = s * s - t @ t
    if cov_pp * cov_tt == 0:
        return 0.0
    return float(cov_tp / np.sqrt(cov_tt * cov_pp))


def _probability_figures(
    truth: np.ndarray, proba: np.ndarray, notes: list[str]
) -> dict[str, float | None]:
    """Log loss, Brier score, ROC AUC and PR AUC of the posteriors of the labelled rows."""
    n, k = proba.shape
    rows = np.arange(n)
    eps = np.finfo(proba.dtype).eps
    clipped = np.clip(proba, eps, 1 - eps)
    clipped = clipped / clipped.sum(axis=1, keepdims=True)
    onehot = np.zeros_like(proba)
    onehot[rows, truth] = 1.0
    brier = float(np.mean(np.sum((proba - onehot) ** 2, axis=1)))
    figures: dict[str, float | None] = {
        "log_loss": float(-np.mean(np.log(clipped[rows, truth]))),
        "brier": brier / 2 if k == 2 else brier,
    }
    if k == 2:
        positive = truth == 1
        if 0 < positive.sum() < n:
            figures["roc_auc"] = roc_auc(positive, proba[:, 1])
            figures["pr_auc"] = average_precision(positive, proba[:, 1])
        else:
            notes.append(
                "no ROC or PR AUC: every labelled row is of one class, and an AUC needs rows of "
                "both classes."
            )
        return figures
    present = [c for c in range(k) if 0 < np.sum(truth == c) < n]
    if not present:  # every row of one class: no class has rows on both sides of a threshold
        notes.append(
            "no ROC or PR AUC: every labelled row is of one class, and an AUC needs rows of the "
            "class and rows of others."
        )
    elif len(present) < k:
        notes.append(
            f"ROC and PR AUC average the {len(present)} classes that occur in the truth (of {k})."
        )
    if present:
        figures["roc_auc"] = float(np.mean([roc_auc(truth == c, proba[:, c]) for c in present]))
        figures["pr_auc"] = float(
            np.mean([average_precision(truth == c, proba[:, c]) for c in present])
        )
    return figures


def roc_auc(positive: np.ndarray, score: np.ndarray) -> float:
    """Area under the ROC curve: the Mann–Whitney U of the positives' scores over the
    negatives' divided by n_pos · n_neg (ties count one half, through mid-ranks)."""
    positive = np.asarray(positive, dtype=bool)
    ranks = rankdata(score)
    n_pos = int(positive.sum())
    n_neg = positive.size - n_pos
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def average_precision(positive: np.ndarray, score: np.ndarray) -> float:
    """Average precision Σ_n (R_n − R_{n−1}) P_n, thresholds at each distinct score from the
    highest (the step-wise area under the precision–recall curve)."""
    positive = np.asarray(positive, dtype=bool)
    order = np.argsort(-np.asarray(score), kind="mergesort")
    score, positive = np.asarray(score)[order], positive[order]
    last = np.r_[np.flatnonzero(np.diff(score)), score.size - 1]  # end of each tied group
    true_positives = np.cumsum(positive)[last]
    precision = true_positives / (last + 1)
    recall = true_positives / positive.sum()
    return float(np.sum(np.diff(np.r_[0.0, recall]) * precision))


def corrected_resampled_t(differences: np.ndarray, test_train_ratio: float) -> dict[str, float]:
    """Nadeau & Bengio's (2003) corrected resampled t-test of paired differences d_1 … d_J of a
    figure between two settings on the same J = k·r cross-validation folds (Weka's
    Experimenter: ``PairedCorrectedTTester``):

        t = d̄ / √((1/J + n_test/n_train) · s²),    s² = Σ_j (d_j − d̄)² / (J − 1),

    with J − 1 degrees of freedom; p is two-sided. The n_test/n_train term corrects the
    variance for the overlap of the training sets, which makes the plain paired t-test too
    eager. With s² = 0, t is ±∞ (p = 0) for d̄ ≠ 0 and 0 (p = 1) for d̄ = 0."""
    from scipy.stats import t as student

    d = np.asarray(differences, dtype=float)
    folds = d.size
    if folds < 2:
        raise ValueError("the corrected resampled t-test needs at least 2 paired folds.")
    mean = float(d.mean())
    variance = float(d.var(ddof=1))
    scale = np.sqrt((1 / folds + test_train_ratio) * variance)
    if scale == 0:
        statistic = 0.0 if mean == 0 else float(np.copysign(np.inf, mean))
    else:
        statistic = mean / scale
    p = float(2 * student.sf(abs(statistic), folds - 1))
    return {"mean_difference": mean, "t": statistic, "df": folds - 1, "p": p}
