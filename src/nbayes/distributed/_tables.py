"""One schema for every partition of a table, resolved on the client before fitting.

:class:`~nbayes.NaiveBayes` infers each column's family from the data, and partitions could
disagree (an integer column with few distinct values in one partition, many in another). The
schema is therefore the one a single-machine fit on all the labelled rows infers: from the
collection's dtypes where they decide it, otherwise from one pass over just the columns that need
data — integer columns, and float columns where ``continuous`` is not ``"auto"`` (at most
``max_int_categories`` distinct integers in all the labelled rows are counted, as a
single-machine ``fit`` counts them: pandas holds integers with a missing value as floats),
object columns (which type their values have) and
string and category columns (free text or identifiers, by the summary of
:class:`nbayes.schema.StringSummary`, which merges). Naming such columns in ``families=`` skips
that pass. Every partition is then read with
that schema's families and types (:meth:`NaiveBayes._fit_partition`), and so merges.
"""

from __future__ import annotations

from typing import Any

import polars as pl

from ..schema import ColumnSpec, StringSummary, column_kind, present, unobserved_column
from ._partitions import Estimator, map_partitions
from ._reduce import tree_reduce


def resolve_schema(
    template: Estimator,
    X: Any,
    extras: list[Any],
    target: str | None,
    has_y: bool,
    *,
    require_observed: bool,
    split_every: int,
) -> list[ColumnSpec]:
    """The schema a single-machine fit on all of X's labelled rows would infer (see the module
    docstring), computed from X's dtypes and, for the columns that need it, one pass.
    ``template``: the model's partition template (:meth:`NaiveBayes._partition_template`)."""
    import pandas as pd

    meta = X._meta
    by_name = {str(c): c for c in meta.columns}
    # the Polars types every partition converts to (the target column split off)
    frame = template._read_partition(meta, extras[0]._meta if has_y else None, target=target).frame
    families = dict(template.families or {})
    needed = []
    # float columns are counted, as integers are, where continuous="auto" does not choose and
    # the model does not decide from its own pass over all the rows
    counting = getattr(template, "continuous", "auto") != "auto" and not getattr(
        template, "counts_numbers_itself", False
    )
    kinds = ("int", "string", "float") if counting else ("int", "string")
    for name, dtype in frame.schema.items():
        source = meta[by_name[name]].dtype
        string = isinstance(source, pd.StringDtype) or str(source).startswith(
            ("string[", "large_string[")
        )
        kind = column_kind(dtype)
        if (dtype == pl.String and not string) or (kind in kinds and name not in families):
            needed.append(name)
    found: dict[str, tuple] = {}
    if needed:
        columns = [by_name[n] for n in needed] + ([by_name[target]] if target is not None else [])
        leaves = map_partitions(
            summarise_part,
            "frame",
            X[columns],
            extras[:1] if has_y else [],
            template=template,
            target=target,
            has_y=has_y,
            cap=int(template.max_int_categories) + 1,
        )
        found = tree_reduce(leaves, combine_summaries, split_every, "nbayes-schema")
    series = []
    strings = {}
    for name, dtype in frame.schema.items():
        values: list[Any] = []
        if name in found:
            if found[name][2] is not None:
                strings[name] = found[name][2]
            dtype = common_type(name, found[name][0])
            if dtype == pl.Null and require_observed:
                raise unobserved_column(name)
            if dtype.is_numeric():
                values = sorted(found[name][1])
        series.append((name, dtype, values))
    # a stand-in table with the same types and the same distinct values (up to the cap) as all
    # the rows: the model decides on exactly that, so it decides as a single-machine fit would
    height = 1 + max((len(v) for _, _, v in series), default=0)
    stand_in = pl.DataFrame(
        [pl.Series(n, v + [None] * (height - len(v)), dtype=d) for n, d, v in series]
    )
    # (a string column's values are summarised instead: the stand-in holds none of them)
    return template._infer_schema(stand_in, strings=strings)


def summarise_part(
    X: Any, *extras: Any, template: Estimator, target: str | None, has_y: bool, cap: int
) -> dict[str, tuple]:
    """Per column of a partition (labelled rows): the types of its values, up to ``cap``
    distinct values of a numeric column, and a string column's summary (None for others)."""
    frame = template._read_partition(X, extras[0] if has_y else None, target=target).frame
    out = {}
    for name, dtype in frame.schema.items():
        column = frame.get_column(name)
        values_present = present(column)
        values = set(values_present.unique().head(cap).to_list()) if dtype.is_numeric() else set()
        strings = StringSummary.of(column) if column_kind(dtype) == "string" else None
        out[name] = ({dtype} if values_present.len() else set(), values, strings)
    return out


def combine_summaries(*summaries: dict[str, tuple]) -> dict[str, tuple]:
    """The union, per column, of the partitions' types, distinct values and string
    summaries."""
    out: dict[str, tuple] = {}
    for summary in summaries:
        for name, (dtypes, values, strings) in summary.items():
            seen = out.get(name, (set(), set(), None))
            if seen[2] is not None and strings is not None:
                strings = seen[2].merge(strings)
            out[name] = (seen[0] | dtypes, seen[1] | values, strings or seen[2])
    return out


def common_type(name: str, dtypes: set[pl.DataType]) -> pl.DataType:
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
