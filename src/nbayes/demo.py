"""``nbayes demo``: a textbook worked example and one real data set, on bundled data.

1. Han & Kamber's buys_computer table, fitted by maximum likelihood (λ = 0): the worked computation
   for X = (youth, medium, student, fair), P(X|yes) = 0.044 against P(X|no) = 0.019.
2. The UCI Mushroom data (8,124 rows, 22 categorical attributes, 2,480 missing values):
   10-fold stratified cross-validation of the default model, ``NaiveBayes()`` with no
   arguments (each column's λ and the meaning of its missing values chosen from the data,
   calibrated scores), and one mushroom explained.
"""

from __future__ import annotations

import numpy as np

from .datasets import load_buys_computer, load_mushroom
from .evaluation import Accumulator, stratified_folds
from .model import NaiveBayes


def _worked_example() -> str:
    table = load_buys_computer()
    # the textbook computation: no calibration (see nbayes.calibration)
    model = NaiveBayes(alpha=0.0, calibration=None).fit(table.frame(), target=table.target_name)
    query = {"age": "youth", "income": "medium", "student": "yes", "credit_rating": "fair"}
    return "\n".join(
        [
            "1. buys_computer (Han, Kamber & Pei, §8.3.2), maximum likelihood (λ = 0)",
            "   X = (" + ", ".join(f"{k}={v}" for k, v in query.items()) + ")",
            "",
            _indent(str(model.explain(query))),
        ]
    )


def _mushroom() -> str:
    table = load_mushroom()
    frame = table.frame()
    folds = stratified_folds(table.y, 10, seed=0)
    accumulator = Accumulator(np.unique(table.y))
    for test in folds:
        train = np.setdiff1d(np.arange(frame.height), test)
        model = NaiveBayes().fit(frame[train], target="class")
        test_frame = frame[test]
        accumulator.update(
            table.y[test], model.predict(test_frame), model.predict_proba(test_frame)
        )
    report = accumulator.report()
    model = NaiveBayes().fit(frame, target="class")
    row = int(np.flatnonzero(frame.get_column("stalk-root").is_null().to_numpy())[0])
    truth = {"e": "edible", "p": "poisonous"}[table.y[row]]
    missing = sum(v is None for v in table.X.ravel())
    as_value = model.missing_["stalk-root"] == "category"
    treated = "a value of their own, chosen from the data" if as_value else "skipped"
    return "\n".join(
        [
            f"2. UCI Mushroom: {frame.height:,} rows, {len(table.feature_names)} categorical "
            f"attributes, {missing:,} missing values ({treated}); the default model, "
            "NaiveBayes() with no arguments: each column's λ chosen from the data, scores "
            "calibrated from the data",
            "   10-fold stratified cross-validation:",
            _indent(report.format(), "   "),
            "",
            f"   row {row} ({truth}; its stalk-root is missing, "
            + ("which counts as a value of its own" if as_value else "so it is left out")
            + "), explained:",
            _indent(str(model.explain(frame.drop("class").slice(row, 1))), "   "),
        ]
    )


def _indent(text: str, prefix: str = "   ") -> str:
    return "\n".join(prefix + line if line else line for line in text.splitlines())


def run() -> str:
    return "\n\n".join(["nbayes demo", _worked_example(), _mushroom()]) + "\n"
