"""The map: checking Dask collections, lining up their partitions, and running a function on each.

X is a Dask DataFrame or a 2-D Dask Array; ``y`` and ``sample_weight`` are Dask Series or 1-D
Dask Arrays aligned with its partitions (row blocks). Every function here imports Dask when it
runs, never when this module is imported.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Callable
from typing import Any

import numpy as np

from .._collections import is_dask_collection
from ..labels import check_target_column, label_source

#: An nbayes estimator. This package reaches models only through their methods (the partition
#: protocols), never by importing them: that keeps the lazily imported Dask door the one
#: circle of imports (see ARCHITECTURE.md).
Estimator = Any


def collections(
    model: Estimator,
    X: Any,
    y: Any,
    sample_weight: Any,
    *,
    table: bool,
) -> tuple[str, Any, list[Any]]:
    """Check the inputs and return (kind, X, [y, sample_weight present]) with kind "array" or
    "frame". A table model (``table``: a ``NaiveBayes``) always gets a frame: a Dask Array is
    given the column names the model reads an array's columns by (``_array_columns``)."""
    name = model._name
    if not is_dask_collection(X):
        raise TypeError(
            f"{name}: y or sample_weight is a Dask collection but X is a {type(X).__name__}; "
            "pass X as a Dask DataFrame or Array too (or compute them all)."
        )
    import dask.array as da
    import dask.dataframe as dd

    extras = [("y", y), ("sample_weight", sample_weight)]
    if isinstance(X, da.Array):
        if X.ndim != 2:
            raise ValueError(f"{name}: X must be a 2-D Dask Array, got {X.ndim} dimension(s).")
        if X.numblocks[1] > 1:
            X = X.rechunk({1: -1})
        parts = []
        for label, value in extras:
            if value is None:
                continue
            if not isinstance(value, da.Array) or value.ndim != 1:
                raise TypeError(
                    f"{name}: with a Dask Array X, {label} must be a 1-D Dask Array chunked like "
                    f"X's rows, got {type(value).__name__}."
                )
            parts.append(value)
        if not table:
            return "array", X, parts
        frame = dd.from_dask_array(X, columns=model._array_columns(X.shape[1]))
        aligned = []
        for value in parts:
            if value.chunks[0] != X.chunks[0]:
                value = value.rechunk((X.chunks[0],))
            aligned.append(dd.from_dask_array(value))
        return "frame", frame, aligned
    if isinstance(X, dd.DataFrame):
        parts = []
        for label, value in extras:
            if value is None:
                continue
            if isinstance(value, da.Array) and value.ndim == 1:
                if len(value.chunks[0]) != X.npartitions:
                    raise ValueError(
                        f"{name}: {label} has {len(value.chunks[0])} chunks but X has "
                        f"{X.npartitions} partitions; they must match row for row."
                    )
                value = dd.from_dask_array(value)
            if not isinstance(value, dd.Series):
                raise TypeError(
                    f"{name}: with a Dask DataFrame X, {label} must be a Dask Series partitioned "
                    f"like X"
                    + (" (or use target='column')" if table and label == "y" else "")
                    + f", got {type(value).__name__}."
                )
            if value.npartitions != X.npartitions:
                raise ValueError(
                    f"{name}: {label} has {value.npartitions} partitions but X has "
                    f"{X.npartitions}; repartition them alike"
                    + (" (or put the labels in X and use target=)." if table else ".")
                )
            parts.append(value)
        return "frame", X, parts
    raise TypeError(
        f"{name}: X must be a Dask DataFrame or a 2-D Dask Array, got {type(X).__name__}."
    )


def table_inputs(
    model: Estimator, X: Any, y: Any, sample_weight: Any, target: str | None
) -> tuple[Any, list[Any], str | None, bool, bool]:
    """A table model's collections, checked: (X as a frame, [y, sample_weight present], the
    target column or None, whether y and weights were given)."""
    y, target = label_source(y, target)
    _, X, extras = collections(model, X, y, sample_weight, table=True)
    if target is not None:
        check_target_column(target, [str(c) for c in X.columns])
    return X, extras, target, y is not None, sample_weight is not None


def map_partitions(
    func: Callable, kind: str, X: Any, extras: list[Any], **kwargs: Any
) -> list[Any]:
    """Apply ``func(X_part, *extra_parts, **kwargs)`` to every partition or row block; returns
    one Delayed per partition (its result is whatever ``func`` returned)."""
    if kind == "array":
        import dask.array as da

        args: list[Any] = [X, "ij"]
        for value in extras:
            args += [value, "i"]
        out = da.blockwise(
            func,
            "i",
            *args,
            dtype=object,
            concatenate=True,
            meta=np.empty((0,), dtype=object),
            adjust_chunks={"i": 1},
            **kwargs,
        )
        return list(out.to_delayed().ravel())
    import dask.dataframe as dd
    import pandas as pd

    out = dd.map_partitions(
        func,
        X,
        *extras,
        meta=pd.Series(dtype=object),
        enforce_metadata=False,
        clear_divisions=True,
        align_dataframes=False,
        **kwargs,
    )
    return list(out.to_delayed())


def model_handle(model: Estimator) -> Any:
    """A snapshot of the fitted model as one graph key (sent once per worker, not per task)."""
    import dask

    return dask.delayed(
        copy.deepcopy(model), name=f"nbayes-model-{uuid.uuid4().hex}", traverse=False
    )


# ---------------------------------------------------------------------- lazy prediction
def lazy(model: Estimator, X: Any, method: str, options: dict) -> Any:
    """``model.<method>(X, **options)`` as a lazy Dask collection, one task per partition or row
    block: a Dask Series or DataFrame (one column per class) for a Dask DataFrame, a Dask Array
    for a Dask Array."""
    model._check_fitted()
    import dask.array as da
    import dask.dataframe as dd
    import pandas as pd

    classes = model.classes_
    k = classes.shape[0]
    handle = model_handle(model)
    if isinstance(X, da.Array):
        if X.ndim != 2:
            raise ValueError(f"{model._name}: X must be a 2-D Dask Array, got {X.ndim}-D.")
        if X.numblocks[1] > 1:
            X = X.rechunk({1: -1})
        if method == "predict":
            return X.map_blocks(
                predict_part,
                handle,
                method,
                options,
                drop_axis=1,
                dtype=classes.dtype,
                meta=np.empty((0,), dtype=classes.dtype),
            )
        return X.map_blocks(
            predict_part,
            handle,
            method,
            options,
            chunks=(X.chunks[0], (k,)),
            dtype=np.float64,
            meta=np.empty((0, k)),
        )
    if isinstance(X, dd.DataFrame):
        if method == "predict":
            meta = pd.Series(classes[:1]).iloc[:0]
        else:
            meta = pd.DataFrame(np.empty((0, k)), columns=pd.Index(classes))
        return X.map_partitions(predict_part, handle, method, options, meta=meta)
    raise TypeError(
        f"{model._name}: X must be a Dask DataFrame or a 2-D Dask Array, got {type(X).__name__}."
    )


def predict_part(X: Any, model: Estimator, method: str, options: dict) -> Any:
    """One partition's predictions (a pandas object with the partition's index for pandas)."""
    classes = model.classes_
    if X.shape[0] == 0:
        out = np.empty((0,), classes.dtype) if method == "predict" else np.empty((0, len(classes)))
    else:
        out = getattr(model, method)(X, **options)
    if not hasattr(X, "iloc"):
        return out
    import pandas as pd

    if method == "predict":
        return pd.Series(out, index=X.index)
    return pd.DataFrame(out, index=X.index, columns=pd.Index(classes))


# ---------------------------------------------------------------------- models sent to tasks
def fresh(model: Estimator) -> Estimator:
    """An unfitted copy with the same parameters (what every partition starts from)."""
    return copy.deepcopy(type(model)(**model.get_params(deep=False)))


def is_table_model(model: Any) -> bool:
    """Whether ``model`` reads tables through the partition protocol of
    :class:`~nbayes.NaiveBayes` (see the "partition protocol" block of :mod:`nbayes.model`)."""
    return callable(getattr(model, "_fit_partition", None))
