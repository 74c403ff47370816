"""Scoring on partitions: each task counts the weight of its correct decisions, the sums divide.

    accuracy = Σ_partitions Σ_rows w·[decision = label] / Σ_partitions Σ_rows w

over the labelled rows, labels read and compared as the model's own ``score`` does (a
``NaiveBayes`` through its partition protocol and :func:`nbayes.labels.matches`); a table
model's rows whose label is none of its classes are counted too, and warned of, as its own
``score`` warns.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import check_target
from ..labels import label_source, matches, shown_unknown, unknown_labels, warn_unknown_labels
from ._partitions import Estimator, collections, is_table_model, map_partitions, model_handle
from ._reduce import SPLIT_EVERY, sum_arrays, tree_reduce


def score(
    model: Estimator,
    X: Any,
    y: Any = None,
    sample_weight: Any = None,
    *,
    target: str | None = None,
    split_every: int = SPLIT_EVERY,
) -> float:
    """``model.score`` on Dask collections: the (weighted) accuracy, computed now."""
    model._check_fitted()
    table = is_table_model(model)
    if table:
        y, target = label_source(y, target)
    elif y is None:
        check_target(None, 0, estimator=model._name)  # raises scikit-learn's message
    kind, X, extras = collections(model, X, y, sample_weight, table=table)
    leaves = map_partitions(
        score_part,
        kind,
        X,
        extras,
        model=model_handle(model),
        target=target,
        has_y=y is not None,
        has_w=sample_weight is not None,
    )
    sums, unknown_shown = tree_reduce(leaves, add_scores, split_every, "nbayes-score")
    correct, total, unknown, rows = sums
    if total <= 0:
        raise ValueError(f"{model._name}.score: there are no labelled rows with weight.")
    if unknown:  # as a table model's own score says it (nbayes.labels.scored_matches)
        warn_unknown_labels(model._name, int(unknown), int(rows), unknown_shown, model.classes_)
    return float(correct / total)


def add_scores(*parts: tuple[np.ndarray, list[str]]) -> tuple[np.ndarray, list[str]]:
    """The partitions' (sums, unknown labels shown) added: the sums element-wise, the labels
    as one sorted list of at most SHOWN_UNKNOWN (the same whatever the tree's shape)."""
    return (
        sum_arrays(*(sums for sums, _ in parts)),
        shown_unknown(label for _, labels in parts for label in labels),
    )


def score_part(
    X: Any,
    *extras: Any,
    model: Estimator,
    target: str | None,
    has_y: bool,
    has_w: bool,
) -> tuple[np.ndarray, list[str]]:
    """One partition's labelled rows: (Σ weight of correct decisions, Σ weight, rows whose
    label is none of the model's classes, rows), and the first of those labels, sorted
    (:func:`~nbayes.labels.shown_unknown`), for the warning's hint. The weights are taken as
    given (a partition may weigh nothing)."""
    weight = np.asarray(extras[int(has_y)], dtype=np.float64) if has_w else None
    if is_table_model(model):
        rows = model._read_partition(X, extras[0] if has_y else None, target=target)
        if rows.frame.height == 0:
            return np.zeros(4), []
        correct = matches(model.predict(rows.frame), rows.values)
        # the table models' own score warns of labels none of their classes: counted for it
        unknown_rows = unknown_labels(rows.values, model.classes_)
        shown = shown_unknown(np.unique(rows.values[unknown_rows].astype(str)).tolist())
        if weight is None:
            weight = rows.weight
        elif rows.missing is not None:
            weight = weight[~rows.missing]
    else:
        if X.shape[0] == 0:
            return np.zeros(4), []
        predicted = model.predict(X)
        labels = check_target(extras[0], predicted.shape[0], estimator=model._name)
        correct = predicted == labels
        if weight is None:
            weight = np.ones(X.shape[0])
        unknown_rows, shown = np.zeros(len(correct), dtype=bool), []
    sums = [float(np.dot(weight, correct)), float(weight.sum()), unknown_rows.sum(), len(correct)]
    return np.array(sums), shown
