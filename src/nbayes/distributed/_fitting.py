"""Fitting on partitions: what each task does with its partition, and what follows the reduce.

A family estimator fits each partition with its own ``fit`` (or ``partial_fit`` with the known
classes). A :class:`~nbayes.NaiveBayes` is fitted through its partition protocol (the
"partition protocol" block of :mod:`nbayes.model`): each partition read and labelled as ``fit``
reads a table, fitted with the schema resolved for all of them (:mod:`._tables`), the parts
merged; then the rules of a fit are applied to the sums, with the messages of
:mod:`nbayes.labels` and :mod:`nbayes.schema`.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import polars as pl

from .._validation import check_target, partial_fit_classes
from ..labels import (
    check_classes,
    no_labelled_rows,
    warn_dropped,
)
from ..schema import ColumnSpec, unobserved_column
from ._partitions import Estimator, collections, fresh, is_table_model, map_partitions, table_inputs
from ._passes import fit_in_passes
from ._reduce import SPLIT_EVERY, Partial, combine_partials, tree_reduce
from ._staged import fit_staged_table, is_staged_table_model
from ._tables import resolve_schema


# ---------------------------------------------------------------------- NaiveBayes tables
def fit_table(
    model: Estimator,
    X: Any,
    y: Any,
    sample_weight: Any,
    target: str | None,
    *,
    reset: bool,
    require_observed: bool,
    split_every: int,
) -> Estimator:
    """A NaiveBayes fitted on the Dask collection (a new object; ``model`` gives parameters and,
    when ``reset`` is false, the schema). Warns with the number of rows dropped for a missing
    label, as ``fit`` does (stack level: the caller of the public function)."""
    X, extras, target, has_y, has_w = table_inputs(model, X, y, sample_weight, target)
    template = model._partition_template(reset=reset)
    if reset:
        schema = resolve_schema(
            template,
            X,
            extras,
            target,
            has_y,
            require_observed=require_observed,
            split_every=split_every,
        )
    else:
        schema = model.schema_
    leaves = map_partitions(
        fit_table_part,
        "frame",
        X,
        extras,
        template=template,
        target=target,
        schema=schema,
        has_y=has_y,
        has_w=has_w,
    )
    result = tree_reduce(leaves, combine_partials, split_every, "nbayes-merge")
    if result.dropped:
        warn_dropped(result.dropped, stacklevel=4)
    if result.model is None:
        raise no_labelled_rows()
    if require_observed:
        for spec, count in zip(schema, result.observed, strict=True):
            if count == 0 and spec.family != "ignore":
                raise unobserved_column(spec.name)
    fitted = result.model
    fitted.set_params(**model.get_params(deep=False))
    return fitted


def fit_table_part(
    X: Any,
    *extras: Any,
    template: Estimator,
    target: str | None,
    schema: list[ColumnSpec],
    has_y: bool,
    has_w: bool,
) -> Partial:
    """One partition fitted with ``schema``, the rows it dropped, and per schema column the
    number of values it observed."""
    y = extras[0] if has_y else None
    w = extras[int(has_y)] if has_w else None
    rows = template._read_partition(X, y, target=target, sample_weight=w)
    if rows.frame.height == 0:
        return Partial(None, rows.dropped, np.zeros(len(schema), dtype=np.int64))
    model = template._fit_partition(rows, schema)
    names = [s.name for s in schema]
    observed = np.array(rows.frame.select(pl.col(names).count()).row(0), dtype=np.int64)
    return Partial(model, rows.dropped, observed)


# ---------------------------------------------------------------------- family estimators
def fit_estimator(
    model: Estimator,
    X: Any,
    y: Any,
    sample_weight: Any,
    classes: Any,
    split_every: int,
) -> Estimator:
    """A family estimator fitted on the Dask collection (a new object): ``partial_fit`` with
    ``classes`` on every partition when they are given, else ``fit``."""
    if y is None:
        check_target(None, 0, estimator=model._name)  # raises scikit-learn's message
    kind, X, extras = collections(model, X, y, sample_weight, table=False)
    leaves = map_partitions(
        fit_estimator_part, kind, X, extras, template=fresh(model), classes=classes
    )
    result = tree_reduce(leaves, combine_partials, split_every, "nbayes-merge")
    if result.model is None:
        raise ValueError(
            f"{model._name}: Found array with 0 sample(s) (shape={X.shape}) while a minimum of 1 "
            "is required."
        )
    return result.model


def fit_estimator_part(
    X: Any, y: Any, *weight: Any, template: Estimator, classes: Any
) -> Partial:
    """One partition (or row block) fitted by a copy of ``template``."""
    if X.shape[0] == 0:
        return Partial()
    model = copy.deepcopy(template)
    w = weight[0] if weight else None
    if classes is None:
        model.fit(X, y, sample_weight=w)
    else:
        model.partial_fit(X, y, classes=classes, sample_weight=w)
    return Partial(model)


# ---------------------------------------------------------------------- the estimator methods
def fit(
    model: Estimator,
    X: Any,
    y: Any = None,
    sample_weight: Any = None,
    *,
    target: str | None = None,
    columns: Any = None,
    split_every: int = SPLIT_EVERY,
) -> Estimator:
    """``model.fit`` on Dask collections: fit every partition where it lies, merge in a tree.

    Returns ``model``, fitted: equal (to round-off) to ``model.fit`` on the computed data.
    ``target`` names the label column (table models only); ``split_every`` is the number of
    models merged per task; ``columns`` (names for a NumPy array's columns) is refused: a Dask
    Array's columns are named as the model names an array's.
    """
    if columns is not None:
        raise TypeError(f"{model._name}.fit: columns= names a NumPy array's columns, not Dask's.")
    model._check_params()
    if is_staged_table_model(model):
        fitted = fit_staged_table(model, X, y, sample_weight, target, split_every)
    elif is_table_model(model):
        fitted = fit_table(
            model,
            X,
            y,
            sample_weight,
            target,
            reset=True,
            require_observed=True,
            split_every=split_every,
        )
        check_classes(fitted.classes_)
    else:
        if target is not None:
            raise TypeError(f"{model._name}.fit takes labels as y, not target=.")
        if getattr(model, "passes", 1) > 1:  # models read in several passes (k-DB, k >= 2)
            fitted = fit_in_passes(model, X, y, sample_weight, split_every)
        else:
            fitted = fit_estimator(model, X, y, sample_weight, None, split_every)
    adopt(model, fitted)
    return model


def partial_fit(
    model: Estimator,
    X: Any,
    y: Any = None,
    classes: Any = None,
    sample_weight: Any = None,
    *,
    target: str | None = None,
    split_every: int = SPLIT_EVERY,
) -> Estimator:
    """``model.partial_fit`` on Dask collections: the collection is one more batch.

    On a model not yet fitted the schema (``NaiveBayes``) comes from the whole collection; on a
    fitted one its schema and classes are kept, as in ``partial_fit``.
    """
    first = not hasattr(model, "classes_")
    if first:
        model._check_params()
    if is_table_model(model):
        fitted = fit_table(
            model,
            X,
            y,
            sample_weight,
            target,
            reset=first,
            require_observed=False,
            split_every=split_every,
        )
        if first and classes is not None:
            fitted._union_classes(np.unique(np.asarray(classes)))
    else:
        if target is not None:
            raise TypeError(f"{model._name}.partial_fit takes labels as y, not target=.")
        fitted_classes = None if first else model.classes_
        known = partial_fit_classes(fitted_classes, classes, estimator=model._name)
        fitted = fit_estimator(model, X, y, sample_weight, known, split_every)
    if first:
        adopt(model, fitted)
    else:
        model.merge(fitted)
    return model


def adopt(model: Estimator, fitted: Estimator) -> None:
    """Make ``model`` the fitted one: its parameters stay, its fitted state is replaced."""
    params = set(model.get_params(deep=False))
    for name in [n for n in vars(model) if n not in params]:
        delattr(model, name)
    for name, value in vars(fitted).items():
        if name not in params:
            setattr(model, name, value)
