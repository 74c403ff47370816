"""Semi-naive estimators on Dask collections: every pass is a map over the partitions and a tree
reduction of what they counted (``nbayes[dask]``).

* one-pass models (AODE, WAODE, AODEsr, A2DE, HNB, TAN, k-DB with k = 1) go through
  :func:`nbayes.distributed.fit`: each partition is fitted by a copy of the model, the copies are
  merged ``split_every`` at a time, exactly as one fit;
* k-DB with k ≥ 2: pass 1 as above (the pair counts); the client learns the structure from the
  merged pair counts; pass 2 maps every partition to its parent counts of that structure and
  adds them in a tree;
* selective k-DB: pass 3 maps every partition to its leave-one-out losses (computed with the
  complete counts, which each task receives once) and sums them in a tree.

Only statistics travel; the result equals ``fit`` on the computed rows (to round-off in sums).
Dask is imported inside these functions only.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from .._base import class_index
from .._validation import check_sample_weight, check_target
from ..distributed._partitions import collections, fresh, model_handle
from ..distributed._partitions import map_partitions as map_parts
from ..distributed._reduce import SPLIT_EVERY, Partial, combine_partials, sum_arrays, tree_reduce


def fit(
    model: Any, X: Any, y: Any, sample_weight: Any = None, *, split_every: int = SPLIT_EVERY
) -> Any:
    """``model.fit`` on Dask collections, one map and one tree reduction per pass; returns
    ``model``, fitted."""
    from ..distributed import fit as fit_one_pass
    from ..distributed._fitting import adopt

    model._check_params()
    if model.passes == 1:
        return fit_one_pass(model, X, y, sample_weight, split_every=split_every)
    if y is None:
        check_target(None, 0, estimator=model._name)
    kind, X, extras = collections(model, X, y, sample_weight, table=False)
    leaves = map_parts(_first_pass, kind, X, extras, template=fresh(model))
    fitted = tree_reduce(leaves, combine_partials, split_every, "nbayes-semi-naive-pass1").model
    if fitted is None:
        raise ValueError(f"{model._name}: the collection has no rows.")
    handle = model_handle(fitted)
    leaves = map_parts(_parent_pass, kind, X, extras, template=handle)
    fitted._stats.parents = tree_reduce(
        leaves, _merge_counts, split_every, "nbayes-semi-naive-pass2"
    )
    if model.passes == 3:
        handle = model_handle(fitted)
        leaves = map_parts(_loss_pass, kind, X, extras, template=handle)
        fitted._choose(tree_reduce(leaves, sum_arrays, split_every, "nbayes-semi-naive-pass3"))
    adopt(model, fitted)
    return model


def _batch(template: Any, X: Any, y: Any, weight: tuple) -> tuple[np.ndarray, np.ndarray, Any]:
    """A partition as the passes read it: codes, class indices, weights."""
    array = template._validate_X(X, reset=False)
    labels = check_target(y, array.shape[0], estimator=template._name)
    w = check_sample_weight(weight[0] if weight else None, array.shape[0], estimator=template._name)
    codes = template._prepare(array, fitting=True)
    return codes, class_index(template.classes_, labels, estimator=template._name), w


def _first_pass(X: Any, y: Any, *weight: Any, template: Any) -> Partial:
    """The pair counts of one partition (a copy of the model fitted on it, pass 1 only)."""
    if X.shape[0] == 0:
        return Partial()
    model = copy.deepcopy(template)
    model._fit_first_pass(X, y, weight[0] if weight else None)
    return Partial(model)


def _parent_pass(X: Any, y: Any, *weight: Any, template: Any) -> Any:
    counts = template._empty_parent_counts()
    if X.shape[0]:
        counts.accumulate(*_batch(template, X, y, weight))
    return counts


def _merge_counts(*parts: Any) -> Any:
    total = copy.deepcopy(parts[0])
    positions = np.arange(total.n_classes)
    for part in parts[1:]:
        total.merge(part, positions)
    return total


def _loss_pass(X: Any, y: Any, *weight: Any, template: Any) -> np.ndarray:
    losses = template._empty_losses()
    if X.shape[0]:
        template._add_losses(losses, *_batch(template, X, y, weight))
    return losses
