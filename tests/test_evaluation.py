"""Stratified folds and the streamed evaluation report, against direct computations."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import confusion_matrix, log_loss, precision_recall_fscore_support

from nbayes.evaluation import Accumulator, stratified_folds


def test_stratified_folds_partition_the_rows_and_keep_the_class_shares():
    rng = np.random.default_rng(0)
    y = rng.choice(["a", "b", "c"], 1003, p=[0.6, 0.3, 0.1])
    folds = stratified_folds(y, 10, seed=4)
    together = np.sort(np.concatenate(folds))
    np.testing.assert_array_equal(together, np.arange(y.size))
    sizes = [f.size for f in folds]
    assert max(sizes) - min(sizes) <= 1
    for label in "abc":
        per_fold = [np.sum(y[f] == label) for f in folds]
        assert max(per_fold) - min(per_fold) <= 1
    assert all(
        np.array_equal(a, b) for a, b in zip(folds, stratified_folds(y, 10, seed=4), strict=True)
    )
    with pytest.raises(ValueError, match="rarest class has only"):
        stratified_folds(np.array(["a"] * 20 + ["b"] * 3), 5)


def test_accumulated_report_equals_scikit_learns_metrics():
    rng = np.random.default_rng(1)
    classes = np.array(["eggs", "ham", "spam"])  # sorted, as a model's classes_ (log_loss wants it)
    truth = rng.choice(classes, 500)
    proba = rng.dirichlet(np.ones(3), 500)
    predicted = classes[np.argmax(proba, axis=1)]
    accumulator = Accumulator(classes)
    for start in range(0, 500, 120):  # batch by batch, as the command line streams
        accumulator.update(
            truth[start : start + 120], predicted[start : start + 120], proba[start : start + 120]
        )
    report = accumulator.report()
    assert report.accuracy == pytest.approx(np.mean(truth == predicted))
    np.testing.assert_array_equal(
        report.confusion, confusion_matrix(truth, predicted, labels=classes)
    )
    precision, recall, f1, support = precision_recall_fscore_support(
        truth, predicted, labels=classes
    )
    np.testing.assert_allclose(report.precision, precision)
    np.testing.assert_allclose(report.recall, recall)
    np.testing.assert_allclose(report.f1, f1)
    np.testing.assert_array_equal(report.support, support)
    assert report.log_loss == pytest.approx(log_loss(truth, proba, labels=classes))
