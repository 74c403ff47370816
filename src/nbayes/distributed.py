"""Training and prediction on Dask collections, on one machine or a cluster (``nbayes[dask]``).

Naive Bayes statistics merge exactly (:func:`nbayes.merge`), so fitting on a cluster is a map and a
small reduce:

* **map**: every partition of a Dask DataFrame (or row block of a Dask Array) is fitted, on the
  worker that holds it, by a fresh copy of the estimator with the same parameters;
* **reduce**: the fitted models are merged ``split_every`` at a time in a tree, in partition
  order, so the client receives one small model. Only fitted statistics travel, never rows.

The result equals the single-machine fit on the same rows, to floating-point round-off in the
sums: class sets are unioned, categorical vocabularies are unioned in the order in which values
first appear (so counts line up as in one fit), and value sketches merge exactly, which gives the
same kernel densities and the same interval cut points (see :mod:`nbayes.families.sketch`).

Every estimator calls into this module by itself when it is given a Dask collection, so the usual
methods are the API::

    model = nbayes.NaiveBayes().fit(frame, target="label")    # frame: a dask.dataframe
    labels = model.predict(frame)                             # lazy: a Dask Series
    nbayes.GaussianNB().fit(X, y)                             # X, y: Dask Arrays

Computations run on the current Dask scheduler: a ``distributed.Client`` when one is active,
otherwise Dask's local threads. :func:`fit_files` fits a model on files through a running cluster
(the ``--scheduler`` option of ``nbayes fit``).

**Schema.** :class:`~nbayes.NaiveBayes` infers each column's family from the data; partitions
could disagree (an integer column with few distinct values in one partition, many in another). The
schema is therefore resolved once, on the client, before fitting: from the collection's dtypes
where they decide it, otherwise from one pass over just the columns that need data — integer
columns (at most ``max_int_categories`` distinct values in all the labelled rows, as a
single-machine ``fit`` counts them) and object or category columns (which type their values have).
Naming such columns in ``families=`` skips that pass. Every partition is then encoded with the
same families and types, and so merges.

**Inputs.** X is a Dask DataFrame or a 2-D Dask Array (dense or scipy.sparse blocks; column chunks
are joined). Labels are a Dask Series partitioned like X, a 1-D Dask Array chunked like X's rows,
or, for ``NaiveBayes``, ``target="column"``. ``sample_weight`` is a Dask Series or Array aligned
the same way; every partition needs a non-zero weight.

**Prediction** on a Dask collection is lazy: ``predict`` returns a Dask Series (Dask DataFrame
input, same index) or a 1-D Dask Array (Dask Array input); ``predict_proba``,
``predict_log_proba``, ``predict_joint_log_proba`` and ``predict_risk`` return a Dask DataFrame
with one column per class (named by ``classes_``) or a (n, K) Dask Array. The model is copied
when the collection is built, so refitting it later does not change the result. Warnings raised on
workers (e.g. unseen categories) stay in the workers' logs. ``score`` computes at once and
returns a float.

This module imports Dask only inside its functions, and ``import nbayes`` never imports it.
"""

from __future__ import annotations

import copy
import uuid
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from ._base import NaiveBayesClassifier, merge, partial_fit_classes
from ._validation import check_sample_weight, check_target
from .model import NaiveBayes
from .schema import ColumnSpec, column_kind, infer_schema
from .tables import missing_markers

#: Models merged per task in the tree reduction.
SPLIT_EVERY = 8

__all__ = [
    "SPLIT_EVERY",
    "fit",
    "fit_files",
    "partial_fit",
    "predict",
    "predict_joint_log_proba",
    "predict_log_proba",
    "predict_proba",
    "predict_risk",
    "score",
]


# ---------------------------------------------------------------------- partial results
class Partial:
    """What one partition (or one merge of several) sends on: a fitted model (None when it had no
    labelled rows), the number of rows dropped for a missing target, and per column the number
    of observed values (``NaiveBayes`` only)."""

    def __init__(
        self, model: Any = None, dropped: int = 0, observed: np.ndarray | None = None
    ) -> None:
        self.model = model
        self.dropped = dropped
        self.observed = observed

    def __sizeof__(self) -> int:
        # Dask's memory accounting and transfer metrics read sys.getsizeof: report the bytes of
        # the statistics, which are what travels
        size = 256
        if self.model is not None:
            size += self.model.class_count_.nbytes
            size += sum(a.nbytes for a in self.model._stats.state().values())
        if self.observed is not None:
            size += self.observed.nbytes
        return size


def _combine_partials(*partials: Partial) -> Partial:
    """Merge in order (the first model's vocabulary order and classes come first); inputs are
    left unchanged, as Dask requires of task inputs."""
    models = [p.model for p in partials if p.model is not None]
    observed = [p.observed for p in partials if p.observed is not None]
    return Partial(
        merge(*models) if models else None,
        sum(p.dropped for p in partials),
        np.sum(observed, axis=0) if observed else None,
    )


def _sum_arrays(*parts: np.ndarray) -> np.ndarray:
    return np.sum(parts, axis=0)


def _reduce(leaves: list[Any], combine: Callable, split_every: int, prefix: str) -> Any:
    """Combine the leaves' results in a tree, ``split_every`` at a time, keeping their order, and
    compute it on the current scheduler; returns the root's value."""
    import dask
    from dask.base import tokenize

    if isinstance(split_every, bool) or not isinstance(split_every, int) or split_every < 2:
        raise ValueError(f"split_every must be an integer >= 2, got {split_every!r}.")
    token = tokenize(*(leaf.key for leaf in leaves))
    level, depth = list(leaves), 0
    while True:
        level = [
            dask.delayed(combine)(
                *level[i : i + split_every],
                dask_key_name=f"{prefix}-{depth}-{token}-{i // split_every}",
            )
            for i in range(0, len(level), split_every)
        ]
        depth += 1
        if len(level) == 1:
            break
    (result,) = dask.compute(level[0])
    return result


# ---------------------------------------------------------------------- inputs
def _is_table_model(model: Any) -> bool:
    return isinstance(model, NaiveBayes)


def _fresh(model: NaiveBayesClassifier) -> NaiveBayesClassifier:
    """An unfitted copy with the same parameters (what every partition starts from)."""
    return copy.deepcopy(type(model)(**model.get_params()))


def _adopt(model: NaiveBayesClassifier, fitted: NaiveBayesClassifier) -> None:
    """Make ``model`` the fitted one: its parameters stay, its fitted state is replaced."""
    params = set(model._param_names())
    for name in [n for n in vars(model) if n not in params]:
        delattr(model, name)
    for name, value in vars(fitted).items():
        if name not in params:
            setattr(model, name, value)


def _collections(
    model: NaiveBayesClassifier, X: Any, y: Any, sample_weight: Any, *, table: bool
) -> tuple[str, Any, list[Any]]:
    """Check the inputs and return (kind, X, [y, sample_weight present]) with kind "array" or
    "frame"; a ``NaiveBayes`` always gets a frame (a Dask Array is given its column names)."""
    from ._dispatch import is_dask_collection

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
        names = getattr(model, "_fit_columns", None) or [f"x{j}" for j in range(X.shape[1])]
        frame = dd.from_dask_array(X, columns=list(names))
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


def _map(func: Callable, kind: str, X: Any, extras: list[Any], **kwargs: Any) -> list[Any]:
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


def _model_handle(model: NaiveBayesClassifier) -> Any:
    """A snapshot of the fitted model as one graph key (sent once per worker, not per task)."""
    import dask

    return dask.delayed(
        copy.deepcopy(model), name=f"nbayes-model-{uuid.uuid4().hex}", traverse=False
    )


# ---------------------------------------------------------------------- per-partition work
def _fit_estimator_part(
    X: Any, y: Any, *weight: Any, template: NaiveBayesClassifier, classes: Any
) -> Partial:
    if X.shape[0] == 0:
        return Partial()
    model = copy.deepcopy(template)
    w = weight[0] if weight else None
    if classes is None:
        model.fit(X, y, sample_weight=w)
    else:
        model.partial_fit(X, y, classes=classes, sample_weight=w)
    return Partial(model)


def _labelled(
    model: NaiveBayes, X: Any, extras: tuple, target: str | None, has_y: bool, has_w: bool
) -> tuple[pl.DataFrame, pl.Series, np.ndarray, int]:
    """A partition as a Polars frame, its labels and weights, rows without a label dropped."""
    y = extras[0] if has_y else None
    w = extras[int(has_y)] if has_w else None
    frame, labels = model._split_target(model._frame(X), y, target)
    weight = check_sample_weight(w, frame.height, estimator="NaiveBayes")
    keep = labels.is_not_null()
    dropped = frame.height - int(keep.sum())
    if dropped:
        frame, labels, weight = frame.filter(keep), labels.filter(keep), weight[keep.to_numpy()]
    return frame, labels, weight, dropped


def _conform(frame: pl.DataFrame, dtypes: dict[str, pl.DataType]) -> pl.DataFrame:
    """The schema's columns, in its order, with its types (so all partitions encode alike)."""
    missing = [name for name in dtypes if name not in frame.columns]
    if missing:
        raise ValueError(f"the data lacks column(s) the model was fitted on: {missing}.")
    columns = []
    for name, dtype in dtypes.items():
        column = pl.col(name)
        columns.append(column if frame.schema[name] == dtype else column.cast(dtype))
    try:
        return frame.select(columns)
    except pl.exceptions.PolarsError as exc:
        raise ValueError(
            f"a partition's columns could not be read as the schema's types {dtypes}: {exc}"
        ) from exc


def _fit_table_part(
    X: Any,
    *extras: Any,
    template: NaiveBayes,
    target: str | None,
    dtypes: dict[str, pl.DataType],
    has_y: bool,
    has_w: bool,
) -> Partial:
    model = copy.deepcopy(template)
    frame, labels, weight, dropped = _labelled(model, X, extras, target, has_y, has_w)
    if frame.height == 0:
        return Partial(None, dropped, np.zeros(len(dtypes), dtype=np.int64))
    frame = _conform(frame, dtypes)
    observed = np.array(frame.select(pl.all().count()).row(0), dtype=np.int64)
    model.partial_fit(frame, labels, sample_weight=weight)
    return Partial(model, dropped, observed)


def _summarise_part(
    X: Any, *extras: Any, template: NaiveBayes, target: str | None, has_y: bool, cap: int
) -> dict[str, tuple]:
    """Per column of a partition (labelled rows): the types of its values, and up to ``cap``
    distinct values of an integer column."""
    frame, _, _, _ = _labelled(template, X, extras, target, has_y, False)
    out = {}
    for name, dtype in frame.schema.items():
        present = frame.get_column(name).drop_nulls()
        values = set(present.unique().head(cap).to_list()) if dtype.is_integer() else set()
        out[name] = ({dtype} if present.len() else set(), values)
    return out


def _combine_summaries(*summaries: dict[str, tuple]) -> dict[str, tuple]:
    out: dict[str, tuple] = {}
    for summary in summaries:
        for name, (dtypes, values) in summary.items():
            seen = out.get(name, (set(), set()))
            out[name] = (seen[0] | dtypes, seen[1] | values)
    return out


def _predict_part(X: Any, model: NaiveBayesClassifier, method: str, options: dict) -> Any:
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


def _score_part(
    X: Any,
    *extras: Any,
    model: NaiveBayesClassifier,
    target: str | None,
    has_y: bool,
    has_w: bool,
) -> np.ndarray:
    """(Σ weight of correct decisions, Σ weight) of one partition."""
    if _is_table_model(model):
        y = extras[0] if has_y else None
        w = extras[int(has_y)] if has_w else None
        frame, labels = model._split_target(model._frame(X), y, target)
        weight = np.ones(frame.height) if w is None else np.asarray(w, dtype=np.float64)
        keep = labels.is_not_null().to_numpy()
        if not keep.any():
            return np.zeros(2)
        values = labels.filter(pl.Series(keep)).to_numpy()
        predicted = model.predict(frame.filter(pl.Series(keep)))
        correct = predicted.astype(str) == values.astype(str)
        weight = weight[keep]
    else:
        if X.shape[0] == 0:
            return np.zeros(2)
        predicted = model.predict(X)
        labels = check_target(extras[0], predicted.shape[0], estimator=model._name)
        weight = np.ones(X.shape[0]) if not has_w else np.asarray(extras[1], dtype=np.float64)
        correct = predicted == labels
    return np.array([float(np.dot(weight, correct)), float(weight.sum())])


# ---------------------------------------------------------------------- NaiveBayes schema
def _resolve_schema(
    model: NaiveBayes,
    X: Any,
    extras: list[Any],
    target: str | None,
    has_y: bool,
    *,
    require_observed: bool,
    split_every: int,
) -> list[ColumnSpec]:
    """The schema a single-machine fit on all of X's labelled rows would infer (see the module
    docstring), computed from X's dtypes and, for the columns that need it, one pass."""
    import pandas as pd

    meta = X._meta
    labels = {str(c): c for c in meta.columns}
    frame = model._frame(meta)  # the Polars types every partition converts to
    families = dict(model.families or {})
    needed = []
    for name, dtype in frame.schema.items():
        if name == target:
            continue
        source = meta[labels[name]].dtype
        string = isinstance(source, pd.StringDtype) or str(source).startswith(
            ("string[", "large_string[")
        )
        if (dtype == pl.String and not string) or (dtype.is_integer() and name not in families):
            needed.append(name)
    found: dict[str, tuple] = {}
    if needed:
        columns = [labels[n] for n in needed] + ([labels[target]] if target is not None else [])
        leaves = _map(
            _summarise_part,
            "frame",
            X[columns],
            extras[:1] if has_y else [],
            template=_fresh(model),
            target=target,
            has_y=has_y,
            cap=int(model.max_int_categories) + 1,
        )
        found = _reduce(leaves, _combine_summaries, split_every, "nbayes-schema")
    series = []
    for name, dtype in frame.schema.items():
        if name == target:
            continue
        values: list[Any] = []
        if name in found:
            dtype = _common_type(name, found[name][0])
            if dtype == pl.Null and require_observed:
                raise ValueError(
                    f"column {name!r} is entirely missing: there is nothing to learn from it. "
                    "Drop it, or check the missing-value markers."
                )
            if dtype.is_integer():
                values = sorted(found[name][1])
        series.append((name, dtype, values))
    # a stand-in table with the same types and the same distinct values (up to the cap) as all
    # the rows: infer_schema decides on exactly that, so it decides as a single-machine fit would
    height = 1 + max((len(v) for _, _, v in series), default=0)
    stand_in = pl.DataFrame(
        [pl.Series(n, v + [None] * (height - len(v)), dtype=d) for n, d, v in series]
    )
    return infer_schema(
        stand_in, families, model.continuous, model.max_int_categories, require_observed=False
    )


def _common_type(name: str, dtypes: set[pl.DataType]) -> pl.DataType:
    """One type for a column whose partitions converted to ``dtypes`` (empty: never observed)."""
    if not dtypes:
        return pl.Null
    if len(dtypes) == 1:
        return next(iter(dtypes))
    kinds = {column_kind(d) for d in dtypes}
    if kinds == {"int"}:
        return pl.Int64
    if kinds <= {"int", "float"}:
        return pl.Float64
    shown = ", ".join(sorted(str(d) for d in dtypes))
    raise ValueError(
        f"column {name!r} mixes types across partitions ({shown}). Make it one type (e.g. all "
        "strings)."
    )


def _fit_table(
    model: NaiveBayes,
    X: Any,
    y: Any,
    sample_weight: Any,
    target: str | None,
    *,
    reset: bool,
    require_observed: bool,
    split_every: int,
) -> NaiveBayes:
    """A NaiveBayes fitted on the Dask collection (a new object; ``model`` gives parameters and,
    when ``reset`` is false, the schema)."""
    if target is None and isinstance(y, str):
        target, y = y, None
    if target is None and y is None:
        raise ValueError("NaiveBayes needs the class labels: pass y, or target='column name'.")
    _, X, extras = _collections(model, X, y, sample_weight, table=True)
    has_y, has_w = y is not None, sample_weight is not None
    columns = [str(c) for c in X.columns]
    if target is not None and target not in columns:
        raise ValueError(f"target column {target!r} is not in the data (columns: {columns}).")
    if reset:
        specs = _resolve_schema(
            model,
            X,
            extras,
            target,
            has_y,
            require_observed=require_observed,
            split_every=split_every,
        )
    else:
        specs = model.schema_
    template = _fresh(model)
    template.families = {s.name: s.family for s in specs}
    dtypes = {s.name: s.dtype for s in specs}
    leaves = _map(
        _fit_table_part,
        "frame",
        X,
        extras,
        template=template,
        target=target,
        dtypes=dtypes,
        has_y=has_y,
        has_w=has_w,
    )
    result = _reduce(leaves, _combine_partials, split_every, "nbayes-merge")
    if result.dropped:
        warnings.warn(
            f"{result.dropped} row(s) with a missing target were dropped.",
            UserWarning,
            stacklevel=4,
        )
    if result.model is None:
        raise ValueError(
            "the target is entirely missing: there are no labelled rows to learn from."
        )
    if require_observed:
        for spec, count in zip(specs, result.observed, strict=True):
            if count == 0:
                raise ValueError(
                    f"column {spec.name!r} is entirely missing: there is nothing to learn from "
                    "it. Drop it, or check the missing-value markers."
                )
    fitted = result.model
    fitted.set_params(**model.get_params())
    return fitted


def _fit_estimator(
    model: NaiveBayesClassifier,
    X: Any,
    y: Any,
    sample_weight: Any,
    classes: Any,
    split_every: int,
) -> NaiveBayesClassifier:
    if y is None:
        check_target(None, 0, estimator=model._name)  # raises scikit-learn's message
    kind, X, extras = _collections(model, X, y, sample_weight, table=False)
    leaves = _map(_fit_estimator_part, kind, X, extras, template=_fresh(model), classes=classes)
    result = _reduce(leaves, _combine_partials, split_every, "nbayes-merge")
    if result.model is None:
        raise ValueError(
            f"{model._name}: Found array with 0 sample(s) (shape={X.shape}) while a minimum of 1 "
            "is required."
        )
    return result.model


# ---------------------------------------------------------------------- the estimator methods
def fit(
    model: NaiveBayesClassifier,
    X: Any,
    y: Any = None,
    sample_weight: Any = None,
    *,
    target: str | None = None,
    split_every: int = SPLIT_EVERY,
) -> NaiveBayesClassifier:
    """``model.fit`` on Dask collections: fit every partition where it lies, merge in a tree.

    Returns ``model``, fitted: equal (to round-off) to ``model.fit`` on the computed data.
    ``target`` names the label column (``NaiveBayes`` only); ``split_every`` is the number of
    models merged per task.
    """
    model._check_params()
    if _is_table_model(model):
        fitted = _fit_table(
            model,
            X,
            y,
            sample_weight,
            target,
            reset=True,
            require_observed=True,
            split_every=split_every,
        )
        if fitted.classes_.shape[0] < 2:
            raise ValueError(
                f"the target has a single class ({fitted.classes_[0]!r}); a classifier needs at "
                "least two."
            )
    else:
        if target is not None:
            raise TypeError(f"{model._name}.fit takes labels as y, not target=.")
        fitted = _fit_estimator(model, X, y, sample_weight, None, split_every)
    _adopt(model, fitted)
    return model


def partial_fit(
    model: NaiveBayesClassifier,
    X: Any,
    y: Any = None,
    classes: Any = None,
    sample_weight: Any = None,
    *,
    target: str | None = None,
    split_every: int = SPLIT_EVERY,
) -> NaiveBayesClassifier:
    """``model.partial_fit`` on Dask collections: the collection is one more batch.

    On a model not yet fitted the schema (``NaiveBayes``) comes from the whole collection; on a
    fitted one its schema and classes are kept, as in ``partial_fit``.
    """
    first = not hasattr(model, "classes_")
    if first:
        model._check_params()
    if _is_table_model(model):
        fitted = _fit_table(
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
        fitted = _fit_estimator(model, X, y, sample_weight, known, split_every)
    if first:
        _adopt(model, fitted)
    else:
        model.merge(fitted)
    return model


def _lazy(model: NaiveBayesClassifier, X: Any, method: str, options: dict) -> Any:
    """``model.<method>(X)`` as a lazy Dask collection, one task per partition or row block."""
    model._check_fitted()
    import dask.array as da
    import dask.dataframe as dd
    import pandas as pd

    classes = model.classes_
    k = classes.shape[0]
    handle = _model_handle(model)
    if isinstance(X, da.Array):
        if X.ndim != 2:
            raise ValueError(f"{model._name}: X must be a 2-D Dask Array, got {X.ndim}-D.")
        if X.numblocks[1] > 1:
            X = X.rechunk({1: -1})
        if method == "predict":
            return X.map_blocks(
                _predict_part,
                handle,
                method,
                options,
                drop_axis=1,
                dtype=classes.dtype,
                meta=np.empty((0,), dtype=classes.dtype),
            )
        return X.map_blocks(
            _predict_part,
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
        return X.map_partitions(_predict_part, handle, method, options, meta=meta)
    raise TypeError(
        f"{model._name}: X must be a Dask DataFrame or a 2-D Dask Array, got {type(X).__name__}."
    )


def predict(model: NaiveBayesClassifier, X: Any, *, priors: Any = None, loss: Any = None) -> Any:
    """Lazy ``model.predict(X)``: a Dask Series (DataFrame input) or 1-D Dask Array."""
    return _lazy(model, X, "predict", {"priors": priors, "loss": loss})


def predict_proba(model: NaiveBayesClassifier, X: Any, *, priors: Any = None) -> Any:
    """Lazy ``model.predict_proba(X)``: a Dask DataFrame (one column per class) or Dask Array."""
    return _lazy(model, X, "predict_proba", {"priors": priors})


def predict_log_proba(model: NaiveBayesClassifier, X: Any, *, priors: Any = None) -> Any:
    """Lazy ``model.predict_log_proba(X)`` (see :func:`predict_proba`)."""
    return _lazy(model, X, "predict_log_proba", {"priors": priors})


def predict_joint_log_proba(model: NaiveBayesClassifier, X: Any, *, priors: Any = None) -> Any:
    """Lazy ``model.predict_joint_log_proba(X)`` (see :func:`predict_proba`)."""
    return _lazy(model, X, "predict_joint_log_proba", {"priors": priors})


def predict_risk(
    model: NaiveBayesClassifier, X: Any, *, priors: Any = None, loss: Any = None
) -> Any:
    """Lazy ``model.predict_risk(X)`` (see :func:`predict_proba`)."""
    return _lazy(model, X, "predict_risk", {"priors": priors, "loss": loss})


def score(
    model: NaiveBayesClassifier,
    X: Any,
    y: Any = None,
    sample_weight: Any = None,
    *,
    target: str | None = None,
    split_every: int = SPLIT_EVERY,
) -> float:
    """``model.score`` on Dask collections: the (weighted) accuracy, computed now."""
    model._check_fitted()
    table = _is_table_model(model)
    if table and target is None and isinstance(y, str):
        target, y = y, None
    if y is None and target is None:
        raise ValueError(f"{model._name}.score needs the class labels: pass y (or target=).")
    kind, X, extras = _collections(model, X, y, sample_weight, table=table)
    leaves = _map(
        _score_part,
        kind,
        X,
        extras,
        model=_model_handle(model),
        target=target,
        has_y=y is not None,
        has_w=sample_weight is not None,
    )
    correct, total = _reduce(leaves, _sum_arrays, split_every, "nbayes-score")
    if total <= 0:
        raise ValueError(f"{model._name}.score: there are no labelled rows with weight.")
    return float(correct / total)


# ---------------------------------------------------------------------- files and clusters
PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")
CSV_SUFFIXES = (".csv", ".csv.gz", ".csv.bz2", ".csv.xz", ".csv.zst", ".tsv", ".tsv.gz", ".txt")


def _file_format(paths: str | Path | Sequence[str | Path]) -> str:
    first = str(paths if isinstance(paths, (str, Path)) else next(iter(paths), "")).rstrip("/")
    lowered = first.lower()
    if lowered.endswith(PARQUET_SUFFIXES) or ("://" not in first and Path(first).is_dir()):
        return "parquet"
    if lowered.endswith(CSV_SUFFIXES):
        return "csv"
    raise ValueError(
        f"cannot tell the format of {first!r} from its name; pass file_format='parquet' or 'csv'."
    )


def fit_files(
    model: NaiveBayesClassifier,
    paths: str | Path | Sequence[str | Path],
    target: str,
    scheduler_address: str | None = None,
    *,
    file_format: str | None = None,
    split_every: int = SPLIT_EVERY,
    **read_options: Any,
) -> NaiveBayesClassifier:
    """Fit ``model`` (a :class:`~nbayes.NaiveBayes`) on Parquet or CSV files with Dask.

    ``paths``: a file, a glob, a directory of Parquet files, or a list; on a multi-machine
    cluster every worker must reach them (shared storage, or URLs such as ``s3://…`` with
    ``storage_options=``). ``target``: the label column. ``scheduler_address``: a running Dask
    scheduler (``tcp://host:8786``), connected to for this fit; None uses the current scheduler
    (a ``distributed.Client`` if one is active, else local threads). ``read_options`` go to
    ``dask.dataframe.read_parquet`` or ``read_csv`` (for CSV the model's ``missing_values`` are
    passed as ``na_values`` unless given). Returns ``model``, fitted.

    Raises ImportError, saying what to install, when Dask (or ``distributed``, for a
    ``scheduler_address``) is not installed.
    """
    try:
        import dask.dataframe as dd

        if scheduler_address is not None:
            import distributed  # noqa: F401
    except ImportError as exc:
        raise ImportError(
            f"fitting with Dask needs the optional dependencies: pip install 'nbayes[dask]' "
            f"({exc})."
        ) from exc

    fmt = file_format or _file_format(paths)
    files = [str(p) for p in paths] if not isinstance(paths, (str, Path)) else str(paths)
    if fmt == "parquet":
        frame = dd.read_parquet(files, **read_options)
    elif fmt == "csv":
        markers = missing_markers(getattr(model, "missing_values", None))
        if markers and "na_values" not in read_options:
            read_options["na_values"] = markers
        lowered = (files if isinstance(files, str) else files[0]).lower()
        if ".tsv" in lowered and "sep" not in read_options:
            read_options["sep"] = "\t"
        frame = dd.read_csv(files, **read_options)
    else:
        raise ValueError(f"file_format must be 'parquet' or 'csv', got {fmt!r}.")
    if _is_table_model(model):
        inputs: dict[str, Any] = {"X": frame, "target": target}
    else:
        inputs = {"X": frame.drop(columns=[target]), "y": frame[target]}
    if scheduler_address is None:
        return fit(model, **inputs, split_every=split_every)
    import dask
    from distributed import Client

    # this fit only: a Client made default here would outlive the call for other code
    with Client(scheduler_address, set_as_default=False) as client:
        with dask.config.set(scheduler=client):
            return fit(model, **inputs, split_every=split_every)
