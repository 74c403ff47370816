"""``nbayes demo``: the seed's worked example and one real data set, on bundled data."""

from __future__ import annotations

import numpy as np

from .datasets import load_buys_computer, load_mushroom
from .estimators import CategoricalNB
from .evaluation import evaluate, stratified_folds


def _worked_example() -> str:
    table = load_buys_computer()
    codes, levels = table.codes()
    model = CategoricalNB(alpha=0.0).fit(codes, table.y)
    query = {"age": "youth", "income": "medium", "student": "yes", "credit_rating": "fair"}
    x = np.array(
        [[np.searchsorted(levels[j], query[n]) for j, n in enumerate(table.feature_names)]]
    )
    lines = [
        "1. buys_computer (seed 001), maximum likelihood (λ = 0)",
        "   X = (" + ", ".join(f"{k}={v}" for k, v in query.items()) + ")",
        "",
        f"   {'':<24}" + "".join(f"{c:>10}" for c in model.classes_),
        f"   {'P(c)':<24}" + "".join(f"{p:>10.3f}" for p in np.exp(model.class_log_prior_)),
    ]
    for j, name in enumerate(table.feature_names):
        p = np.exp(model.feature_log_prob_[j][:, x[0, j]])
        lines.append(
            f"   {'P(' + name + '=' + query[name] + '|c)':<24}" + "".join(f"{v:>10.3f}" for v in p)
        )
    joint = np.exp(model.predict_joint_log_proba(x)[0])
    likelihood = joint / np.exp(model.class_log_prior_)
    lines.append(f"   {'P(X|c)':<24}" + "".join(f"{v:>10.3f}" for v in likelihood))
    lines.append(f"   {'P(X|c) P(c)':<24}" + "".join(f"{v:>10.3f}" for v in joint))
    lines.append(f"   {'P(c|X)':<24}" + "".join(f"{v:>10.3f}" for v in model.predict_proba(x)[0]))
    lines.append(f"   decision: buys_computer = {model.predict(x)[0]}")
    return "\n".join(lines)


def _mushroom() -> str:
    table = load_mushroom()
    codes, _ = table.codes()
    folds = stratified_folds(table.y, 10, seed=0)
    predicted = np.empty(table.y.shape[0], dtype=table.y.dtype)
    for test in folds:
        train = np.setdiff1d(np.arange(table.y.shape[0]), test)
        model = CategoricalNB(alpha=1.0).fit(codes[train], table.y[train])
        predicted[test] = model.predict(codes[test])
    report = evaluate(table.y, predicted, np.unique(table.y))
    return "\n".join(
        [
            f"2. UCI Mushroom ({table.y.shape[0]:,} rows, {codes.shape[1]} categorical attributes, "
            f"{int(np.isnan(codes).sum()):,} missing values skipped), Laplace smoothing (λ = 1)",
            f"   10-fold stratified cross-validation accuracy: {report.accuracy:.4f}",
        ]
    )


def run() -> str:
    return "\n\n".join(["nbayes demo", _worked_example(), _mushroom()]) + "\n"
