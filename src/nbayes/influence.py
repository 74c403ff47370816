"""Which features decide a table model's predictions, over many rows.

For row i let a_i be the most probable class and b_i the runner-up. Feature j's term in the
log-odds of a_i against b_i (the quantity :meth:`~nbayes.NaiveBayes.explain` lists for one row) is

    δ_ij = log P(x_ij | a_i) − log P(x_ij | b_i)

(0 when x_ij is missing and skipped; the terms of log P(missing | c) when missing values are a
value of their own, see ``NaiveBayes.missing_``)

and over the n rows the feature's **influence** is the mean absolute term (1/n) Σ_i |δ_ij|, in
nats of log-odds; ``toward_decision`` is the fraction of rows whose term favours a_i
(δ_ij > 0), and ``largest`` the fraction of rows where feature j had the largest |δ_ij| of all
features. Each log P(x_ij | c) is the model's own (its column scored alone), so the terms add up,
with the prior's, to each row's log-odds exactly.

A semi-naive model (:class:`~nbayes.semi_naive.SemiNaiveBayes`) gives δ_ij as the log-odds with
feature j minus the log-odds with feature j treated as missing (:mod:`nbayes.semi_naive.views`),
which is the term above for naive Bayes with missing values skipped.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import polars as pl
import scipy.sparse as sp

from .exceptions import UnseenCategoryWarning
from .families._group import column_terms


def feature_log_likelihoods(model: Any, X: Any) -> tuple[list[str], np.ndarray]:
    """(feature names in the model's order, log P(x_ij | c) of shape (d, n, K)); 0 where x_ij
    is missing (or an unseen category skipped)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnseenCategoryWarning)
        table = model._input(X)
    settings = model._settings()
    n, k = table.shape[0], len(model.classes_)
    by_name: dict[str, np.ndarray] = {}
    for group, block in zip(model._stats.groups, table.blocks, strict=True):
        if sp.issparse(block):  # a text column: one per group
            by_name[group.names[0]] = group.log_likelihood(block, settings)
            continue
        if block.shape[1] != len(group.names):  # left-out columns: no block, no evidence
            by_name.update((name, np.zeros((n, k))) for name in group.names)
            continue
        # each column alone, without the other columns' missing-value terms (0 where skipped)
        terms = column_terms(group, block, settings)
        terms = np.where(np.isnan(terms), 0.0, terms)
        by_name.update(zip(group.names, terms, strict=True))
    names = [s.name for s in model.schema_]
    out = np.zeros((len(names), n, k))
    for i, name in enumerate(names):
        out[i] = by_name[name]
    return names, out


def influence(model: Any, X: Any, *, max_rows: int | None = 2000, seed: int = 0) -> pl.DataFrame:
    """Each feature's influence on the decisions over the rows of X (a random sample of
    ``max_rows`` of them when there are more), most influential first: a frame with ``feature``,
    ``family``, ``influence``, ``toward_decision`` and ``largest`` (see the module docstring)."""
    model._check_fitted()
    if len(model.classes_) < 2:
        raise ValueError("influence needs a model with at least two classes.")
    frame = model._frame(X)
    if max_rows is not None and frame.height > max_rows:
        rows = np.sort(np.random.default_rng(seed).choice(frame.height, max_rows, replace=False))
        frame = frame[rows]
    if hasattr(model, "_attribute_terms"):  # a semi-naive model: the terms need not add up
        names, per_feature, joint = model._attribute_terms(frame)
    else:
        names, per_feature = feature_log_likelihoods(model, frame)
        per_feature = np.where(np.isfinite(per_feature) | np.isinf(per_feature), per_feature, 0)
        joint = model._class_log_prior() + per_feature.sum(axis=0)
    order = np.argsort(-joint, axis=1, kind="stable")
    a, b = order[:, 0], order[:, 1]
    rows = np.arange(joint.shape[0])
    with np.errstate(invalid="ignore"):
        delta = per_feature[:, rows, a] - per_feature[:, rows, b]  # (d, n)
    delta = np.nan_to_num(delta, nan=0.0)
    magnitude = np.abs(delta)
    largest = np.bincount(np.argmax(magnitude, axis=0), minlength=len(names)) / max(len(rows), 1)
    families = model.families_
    result = pl.DataFrame(
        {
            "feature": names,
            "family": [families[n] for n in names],
            "influence": magnitude.mean(axis=1),
            "toward_decision": (delta > 0).mean(axis=1),
            "largest": largest,
        }
    )
    return result.sort("influence", descending=True, maintain_order=True)


__all__ = ["feature_log_likelihoods", "influence"]
