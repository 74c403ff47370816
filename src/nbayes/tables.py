"""Reading tables from the objects users hold: pandas, Polars, PyArrow, NumPy (+ column names),
dicts of columns. Everything becomes a Polars DataFrame with missing values as nulls.

Missing values are None, NaN, null, pandas NA and NaT, and any user marker such as ``"?"``
(``missing_values``). After this module a missing value is always a Polars null.
"""

from __future__ import annotations

import os
import warnings
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from ._read_values import near_missing_marker
from ._validation import is_missing as _is_missing
from ._validation import mixed_kinds_error
from ._validation import value_kind as _kind
from .exceptions import caller_stacklevel
from .schema import column_kind


def _pandas_column(name: str, column: Any, markers: Sequence[str] = ()) -> pl.Series:
    """One pandas column as a Polars Series, without going through pyarrow."""
    dtype = column.dtype
    kind = getattr(dtype, "kind", "O")
    if str(dtype) == "category":
        values = column.astype(object).where(column.notna(), None).tolist()
        return _object_series(name, values, markers)
    if kind in "iu" and not hasattr(dtype, "na_value"):
        return pl.Series(name, column.to_numpy())
    if kind == "b" and str(dtype) == "bool":
        return pl.Series(name, column.to_numpy())
    if kind in "iufb":  # numpy floats, or pandas nullable Int64/Float64/boolean
        if kind == "b":
            values = column.astype(object).where(column.notna(), None).tolist()
            return pl.Series(name, values, dtype=pl.Boolean)
        if kind in "iu":
            values = column.astype(object).where(column.notna(), None).tolist()
            return _int64_series(name, values)
        return pl.Series(name, column.to_numpy(dtype="float64", na_value=np.nan)).fill_nan(None)
    if kind == "M" or kind == "m":
        raise ValueError(
            f"column {name!r} holds dates or times ({dtype}); convert it to a number (e.g. days) "
            "or a category first."
        )
    values = column.astype(object).where(column.notna(), None).tolist()
    return _object_series(name, values, markers)


def _object_series(name: str, values: list, markers: Sequence[str] = ()) -> pl.Series:
    """A Series from Python objects: all strings, all bools or all numbers, else an error.

    A string in ``markers`` (e.g. ``"?"``) is missing here already, so that a column of
    numbers with ``"?"`` for the missing ones is a column of numbers."""
    uniform = _uniform_series(name, values, markers)
    if uniform is not None:
        return uniform
    if markers:
        values = [None if isinstance(v, str) and v in markers else v for v in values]
    present = [v for v in values if not _is_missing(v)]
    kinds = {_kind(v) for v in present}
    odd = next((v for v in present if _kind(v) not in ("string", "bool", "number")), None)
    if odd is not None:
        if isinstance(odd, (complex, np.complexfloating)):
            raise ValueError(
                f"column {name!r} holds complex values (e.g. {odd!r}): Complex data not supported."
            )
        raise TypeError(
            f"column {name!r} holds a {type(odd).__name__} ({odd!r}), which is neither text nor "
            "a number: each value's argument must be a string or a number (or a boolean, or "
            "missing)."
        )
    if len(kinds) > 1:
        raise mixed_kinds_error(name, present)
    cleaned = [None if _is_missing(v) else v for v in values]
    kind = kinds.pop() if kinds else "string"
    if kind not in ("string", "bool", "number"):
        raise ValueError(
            f"column {name!r} holds {kind} values (e.g. {present[0]!r}), which nbayes cannot "
            "model; convert them to numbers, strings or booleans."
        )
    dtype = {"string": pl.String, "bool": pl.Boolean, "number": pl.Float64}[kind]
    if kind == "number" and all(isinstance(v, (int, np.integer)) for v in present):
        return _int64_series(name, cleaned)
    return pl.Series(name, cleaned, dtype=dtype)


def _int64_series(name: str, values: list) -> pl.Series:
    """A column of whole numbers (None for missing) as Int64, the type nbayes keeps them in; an
    integer beyond its range is refused by row, with the conversions that would keep it (the
    values are looked at only when Polars refuses them)."""
    try:
        return pl.Series(name, values, dtype=pl.Int64)
    except (TypeError, ValueError, OverflowError, pl.exceptions.PolarsError):
        wide = ((r, v) for r, v in enumerate(values) if v is not None and not -(2**63) <= v < 2**63)
        found = next(wide, None)
        if found is None:
            raise
    row, value = found
    raise ValueError(
        f"column {name!r} holds the integer {value} (row {row}), beyond the 64-bit range of "
        "whole-number columns: convert the column to floats (if it is a measurement) or to "
        "strings (if it is a code or an identifier)."
    )


def _uniform_series(name: str, values: list, markers: Sequence[str] = ()) -> pl.Series | None:
    """The Series :func:`_object_series` makes, built by Polars alone where that is the same:
    values of one kind (strings, booleans, integers, or floats and integers without a boolean),
    with None or a float NaN for missing ones. None for anything else (mixed kinds, numbers
    with text markers, other objects), which the caller examines value by value to say what
    is wrong; Polars builds a column of 100,000 values in milliseconds, the caller in a
    second."""
    try:
        series = pl.Series(name, values, strict=True)
    except (TypeError, ValueError, OverflowError, pl.exceptions.PolarsError):
        return None
    if series.dtype == pl.String:
        if any(isinstance(m, str) for m in markers):
            series = apply_missing(series.to_frame(), markers).to_series()
    elif series.dtype in (pl.Int64, pl.Float64):
        # Polars reads True as 1 or 1.0 among numbers, which the caller refuses; and a column
        # of whole numbers with NaN for missing ones is Int64 to the caller, Float64 to Polars
        has_float = False
        for v in values:
            if isinstance(v, (bool, np.bool_)):
                return None
            has_float = has_float or (isinstance(v, (float, np.floating)) and v == v)
        if series.dtype == pl.Float64:
            if not has_float:
                return None
            series = series.fill_nan(None)
    elif series.dtype != pl.Boolean:
        return None
    if series.null_count() == series.len():  # no value to tell the kind: the caller decides
        return None
    return series


def _is_scalar(value: object) -> bool:
    """Whether a dict's value is one value (a number, a string, None), not a column of them."""
    if isinstance(value, (str, bytes, np.generic)):
        return True
    return not any(hasattr(value, name) for name in ("__len__", "__iter__", "__array__"))


def _check_unique(names: Sequence[str]) -> None:
    repeated = sorted(name for name, count in Counter(names).items() if count > 1)
    if repeated:
        raise ValueError(f"duplicate column names: {repeated}; every column needs its own name.")


def to_frame(
    X: Any, columns: Sequence[str] | None = None, markers: Sequence[Any] = ()
) -> pl.DataFrame:
    """Convert a table-like ``X`` to a Polars DataFrame (a new object; ``X`` is not modified).

    String ``markers`` of missing values are applied to columns of Python objects here (see
    :func:`_object_series`); :func:`apply_missing` applies all markers to the typed columns."""
    markers = [m for m in markers if isinstance(m, str)]
    if hasattr(X, "tocsr") and hasattr(X, "nnz"):  # a SciPy sparse matrix or array
        raise TypeError(
            "sparse input is not supported by the table model (a sparse matrix was passed, but "
            "dense data is required): convert it with X.toarray(), or use MultinomialNB, "
            "ComplementNB, BernoulliNB or PoissonNB, which take sparse input."
        )
    if isinstance(X, (str, os.PathLike)):
        raise TypeError(
            f"got a path ({os.fspath(X)!r}), not a table: read it first, e.g. "
            "nbayes.read_table(path) (the command line's reading rules)."
        )
    if isinstance(X, pl.DataFrame):
        frame = X
    elif isinstance(X, pl.LazyFrame):
        raise TypeError("got a Polars LazyFrame; collect it first (or use the streaming readers).")
    elif (
        hasattr(X, "to_numpy")
        and hasattr(X, "columns")
        and hasattr(X, "dtypes")
        and hasattr(X, "iloc")
    ):
        names = [str(c) for c in X.columns]
        _check_unique(names)
        frame = pl.DataFrame(
            [_pandas_column(n, X.iloc[:, j], markers) for j, n in enumerate(names)]
        )
    elif hasattr(X, "column_names") and hasattr(X, "schema") and hasattr(X, "num_rows"):
        _check_unique(list(X.column_names))
        frame = pl.from_arrow(X)
        if isinstance(frame, pl.Series):
            frame = frame.to_frame()
    elif isinstance(X, (list, tuple)) and X and all(isinstance(row, dict) for row in X):
        # rows as dicts (polars' rows(named=True), a JSON list): a key a row lacks is missing
        keys = list(dict.fromkeys(key for row in X for key in row))
        return to_frame({key: [row.get(key) for row in X] for key in keys}, columns, markers)
    elif isinstance(X, dict):
        _check_unique([str(k) for k in X])
        if X and all(_is_scalar(v) for v in X.values()):  # {"age": 41, "colour": "red"}: a row
            X = {k: [v] for k, v in X.items()}
        series = [_object_or_array(str(k), v, markers) for k, v in X.items()]
        lengths = {s.name: s.len() for s in series}
        if len(set(lengths.values())) > 1:
            raise ValueError(
                "the columns of the dict have different lengths "
                f"({', '.join(f'{k!r}: {n}' for k, n in lengths.items())}): give every column "
                "one value per row, or one value each (a single row)."
            )
        frame = pl.DataFrame(series)
    else:
        array = np.asarray(X)
        if array.dtype.kind in "US":  # NumPy made text of mixed values: keep the objects
            array = np.asarray(X, dtype=object)
        if array.ndim != 2:
            raise ValueError(
                f"expected a table (2-D), got an array of shape {array.shape}. Reshape your "
                "data either using array.reshape(-1, 1) if your data has a single feature or "
                "array.reshape(1, -1) if it contains a single sample."
            )
        if array.shape[1] == 0:
            raise ValueError(
                f"Found array with 0 feature(s) (shape={array.shape}) while a minimum of 1 is "
                "required."
            )
        if array.dtype.kind == "c":
            raise ValueError("Complex data not supported: convert the columns to real numbers.")
        if columns is None:
            columns = [f"x{j}" for j in range(array.shape[1])]
        columns = [str(c) for c in columns]
        if len(columns) != array.shape[1]:
            raise ValueError(f"{len(columns)} column names given for {array.shape[1]} columns.")
        _check_unique(columns)
        frame = pl.DataFrame(
            [_object_or_array(n, array[:, j], markers) for j, n in enumerate(columns)]
        )
    if (
        columns is not None
        and not isinstance(X, np.ndarray)
        and list(frame.columns) != list(columns)
    ):
        frame = frame.rename(dict(zip(frame.columns, columns, strict=True)))
    return frame


def _object_or_array(name: str, values: Any, markers: Sequence[str] = ()) -> pl.Series:
    if isinstance(values, (list, tuple)):  # Python objects: NumPy would coerce [1, "a"] to text
        return _object_series(name, list(values), markers)
    array = np.asarray(values)
    if array.dtype.kind in "iub":
        return pl.Series(name, array)
    if array.dtype.kind == "f":
        return pl.Series(name, array).fill_nan(None)
    if array.dtype.kind in "US":
        return pl.Series(name, array.astype(str).tolist(), dtype=pl.String)
    if array.dtype.kind in "Mm":
        raise ValueError(
            f"column {name!r} holds dates or times; convert it to a number or category."
        )
    return _object_series(name, list(array), markers)


def warn_near_missing_marker(frame: pl.DataFrame, markers: Sequence[Any], option: str) -> None:
    """A UserWarning naming the first near miss of a marker (:func:`near_missing_marker`) and
    the ``option`` that would make it missing."""
    found = near_missing_marker(frame, markers)
    if found is None:
        return
    name, value, times, row = found
    text = [m for m in markers if isinstance(m, str)]
    warnings.warn(
        f"column {name!r} holds {value!r} ({times:,} times, first at row {row:,}), which is not "
        f"the missing-value marker {text if len(text) > 1 else text[0]!r} but nearly; it is read "
        f"as a value. Add it to {option} if it means missing.",
        UserWarning,
        stacklevel=caller_stacklevel(),
    )


def apply_missing(frame: pl.DataFrame, markers: Sequence[Any]) -> pl.DataFrame:
    """Turn NaN and each user marker (e.g. ``"?"``) into null, column by column. Only the
    columns that can change are touched (Polars spends time on every column named in an
    expression, which a table of 100,000 columns would feel)."""
    text_markers = [m for m in markers if isinstance(m, str)]
    number_markers = [
        m
        for m in markers
        if isinstance(m, (int, float, np.integer, np.floating)) and not isinstance(m, bool)
    ]
    schema = frame.schema
    with_nan = _columns_with_nan(frame, [n for n, dtype in schema.items() if dtype.is_float()])
    expressions = []
    for name, dtype in schema.items():
        if name not in with_nan and not (number_markers or text_markers):
            continue
        column = probe = pl.col(name)
        if name in with_nan:
            column = probe = column.fill_nan(None)
        # Polars 2 compares only values of one type: each marker in the column's own type
        kind = column_kind(dtype)
        if kind == "string":  # a categorical's values are compared as strings
            chosen = text_markers
            if isinstance(dtype, (pl.Categorical, pl.Enum)):
                probe = column.cast(pl.String)
        elif kind == "int":
            chosen = [int(m) for m in number_markers if float(m).is_integer()]
        elif kind == "float":
            chosen = [float(m) for m in number_markers]
        else:
            chosen = []
        if chosen:
            column = pl.when(probe.is_in(chosen)).then(None).otherwise(column)
        if chosen or name in with_nan:
            expressions.append(column.alias(name))
    return frame.with_columns(expressions) if expressions else frame


def _columns_with_nan(frame: pl.DataFrame, names: list[str]) -> set[str]:
    """The float columns among ``names`` holding a NaN: by Polars for a few columns (no copy),
    in NumPy a slice of columns at a time (at most about 2^24 values copied at once) for many
    (Polars spends time on every column named in an expression)."""
    if len(names) <= 256:
        if not names:
            return set()
        flags = frame.select(pl.col(names).is_nan().any()).row(0)
        return {name for name, nan in zip(names, flags, strict=True) if nan}
    found: set[str] = set()
    step = max(1, 2**24 // max(1, frame.height))
    for start in range(0, len(names), step):
        part = names[start : start + step]
        block = frame[part].to_numpy()
        found.update(n for n, nan in zip(part, np.isnan(block).any(axis=0), strict=True) if nan)
    return found


def fitted_array_columns(
    X: np.ndarray, columns: list[str] | None, estimator: str
) -> list[str] | None:
    """The names a fitted model gives a NumPy array's columns (those it was fitted on, in
    order), after checking that the array has that many columns."""
    if columns is not None and X.ndim == 2 and X.shape[1] != len(columns):
        raise ValueError(
            f"X has {X.shape[1]} features, but {estimator} is expecting {len(columns)} "
            "features as input (a NumPy array's columns are taken in the fitted order)."
        )
    return columns


def missing_markers(missing_values: Any) -> list[Any]:
    """The user's ``missing_values`` as a list of markers."""
    if missing_values is None:
        return []
    if isinstance(missing_values, (str, int, float, np.generic)):
        return [missing_values]
    return list(missing_values)
