"""Which likelihood family each column of a table gets.

Inferred from the column's type, unless ``families={"column": "family"}`` overrides it:

===============================  ====================================================
column type                      family
===============================  ====================================================
string, categorical, boolean     ``"categorical"`` (counting)
floating point                   the model's ``continuous`` setting (``"gaussian"``)
integer, ≤ ``max_int_categories``  ``"categorical"`` — a code, a rating, a count of legs
distinct values in the first
batch
integer, more distinct values    the model's ``continuous`` setting
===============================  ====================================================

Families: ``"categorical"``, ``"gaussian"``, ``"kde"`` (kernel density), ``"poisson"`` (counts),
``"equal-width"``, ``"equal-frequency"`` and ``"mdl"`` (intervals), and ``"text"`` (a bag of words,
when the text module is available). A family that cannot read the column's type (``"gaussian"``
on strings, say) is an error naming the column.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from . import families as registry


@dataclass(frozen=True)
class ColumnSpec:
    name: str
    family: str
    dtype: pl.DataType


def column_kind(dtype: pl.DataType) -> str:
    """What a column of Polars type ``dtype`` holds, as the families see it: ``"string"``
    (strings and categoricals), ``"bool"``, ``"int"``, ``"float"``, ``"null"`` (no value at all)
    or ``"other"`` (dates, lists, …: not modelled)."""
    if dtype == pl.Null:
        return "null"
    if dtype in (pl.String, pl.Categorical) or isinstance(dtype, (pl.Categorical, pl.Enum)):
        return "string"
    if dtype == pl.Boolean:
        return "bool"
    if dtype.is_integer():
        return "int"
    if dtype.is_float():
        return "float"
    return "other"


def infer_schema(
    frame: pl.DataFrame,
    families: dict[str, str] | None,
    continuous: str,
    max_int_categories: int,
    *,
    require_observed: bool,
) -> list[ColumnSpec]:
    """A :class:`ColumnSpec` per column of ``frame`` (already with missing values as null)."""
    families = dict(families or {})
    unknown = sorted(set(families) - set(frame.columns))
    if unknown:
        raise ValueError(f"families names columns that are not in the data: {unknown}.")
    specs = []
    for name, dtype in frame.schema.items():
        kind = column_kind(dtype)
        column = frame.get_column(name)
        if require_observed and column.null_count() == frame.height:
            raise unobserved_column(name)
        family = families.get(name)
        if family is not None and family not in registry.names():
            raise ValueError(
                f"unknown family {family!r} for column {name!r}; choose one of "
                f"{registry.names()}."
            )
        if kind == "other":
            raise ValueError(
                f"column {name!r} has type {dtype}, which nbayes cannot model; convert it to "
                "numbers, strings or booleans (dates: e.g. to days)."
            )
        if kind == "null" and family is None:
            raise ValueError(
                f"column {name!r} has no values in this batch, so its type is unknown; name its "
                "family in families={...}."
            )
        if family is None:
            if kind in ("string", "bool"):
                family = "categorical"
            elif (
                kind == "int"
                and column.n_unique() - (column.null_count() > 0) <= max_int_categories
            ):
                family = "categorical"
            else:
                family = continuous
        reads = registry.get(family).reads
        if kind != "null" and kind not in reads:
            if reads <= {"int", "float"}:
                raise ValueError(
                    f"family {family!r} needs numbers, but column {name!r} holds {kind} values "
                    f"(e.g. {column.drop_nulls().head(1).to_list()}); use 'categorical' for it."
                )
            wanted = "strings" if reads == {"string"} else " or ".join(sorted(reads))
            raise ValueError(
                f"family {family!r} needs {wanted}, but column {name!r} has type {dtype}."
            )
        specs.append(
            ColumnSpec(
                name, family, _categorical_dtype(dtype) if family == "categorical" else dtype
            )
        )
    return specs


def unobserved_column(name: str) -> ValueError:
    """The error for a column with no value in any labelled row of a fit."""
    return ValueError(
        f"column {name!r} is entirely missing: there is nothing to learn from it. Drop it, "
        "or check the missing-value markers."
    )


def lacking_columns(frame: pl.DataFrame, specs: list[ColumnSpec]) -> None:
    """Raise ValueError naming the schema's columns that ``frame`` lacks (extra columns are
    fine)."""
    present = set(frame.columns)  # once: frame.columns costs time linear in the columns
    missing = [s.name for s in specs if s.name not in present]
    if missing:
        raise ValueError(f"the data lacks column(s) the model was fitted on: {missing}.")


def conform(frame: pl.DataFrame, specs: list[ColumnSpec]) -> pl.DataFrame:
    """The schema's columns of ``frame``, in its order, cast to its types: pieces of one table
    read apart (batches, partitions) then encode alike. Raises ValueError naming the columns
    that are lacking or cannot be read as the schema's types."""
    lacking_columns(frame, specs)
    schema = frame.schema
    columns = [
        pl.col(s.name) if schema[s.name] == s.dtype else pl.col(s.name).cast(s.dtype)
        for s in specs
    ]
    try:
        return frame.select(columns)
    except pl.exceptions.PolarsError as exc:
        dtypes = {s.name: s.dtype for s in specs}
        raise ValueError(
            f"a partition's columns could not be read as the schema's types {dtypes}: {exc}"
        ) from exc


def _categorical_dtype(dtype: pl.DataType) -> pl.DataType:
    """The type category values are kept in: strings, booleans, integers or floats."""
    kind = column_kind(dtype)
    if kind == "string":
        return pl.String
    if kind == "bool":
        return pl.Boolean
    if kind == "int":
        return pl.Int64
    return pl.Float64
