"""Which likelihood family each column of a table gets.

Inferred from the column's type, unless ``families={"column": "family"}`` overrides it:

===============================  ====================================================
column type                      family
===============================  ====================================================
string, categorical, boolean     ``"categorical"`` (counting)
string that reads as free text   ``"text"`` (a bag of words), with a warning
string with nearly one value     ``"ignore"`` (left out), with a warning
per row (an identifier)
numbers, ``continuous="auto"``   ``"auto"``: chosen per column from the data (the default;
(the default)                    see :mod:`nbayes.families.auto`)
numbers, another ``continuous``  integers (of an integer type, or floats such as 2.0) with at
                                 most ``max_int_categories`` distinct values in the first
                                 batch: ``"categorical"``; others: ``continuous``
===============================  ====================================================

**Text and identifiers.** A string column of at least ``MIN_ROWS`` observed values is looked at
once more, from a summary of it that merges (:class:`StringSummary`: the count of its observed
values and its ``DISTINCT_SKETCH`` distinct values of smallest hash), so that ``fit`` on a whole
table and a Dask fit over its partitions decide alike (``partial_fit`` decides on its first
batch):

* *free text*: at least half of its distinct values are distinct rows (distinct / observed
  ≥ 0.5) and its distinct values have on average at least 3 words (runs of non-space
  characters): it gets the family ``"text"`` (when the text module is there), with a warning
  naming it;
* *an identifier*: nearly one distinct value per row (distinct / observed ≥ 0.9) without being
  text — a name, a key, or numbers read as text (``"1, 234"``): almost every value would be
  new at prediction, so it cannot inform a decision. It is left out (the family ``"ignore"``),
  with a warning naming it, saying how to keep it and, when its values are numbers with
  separators, how to read them as numbers.

``families={"column": "categorical"}`` (or any family) keeps a column as the user says, with
no warning. A family that cannot read the column's type (``"gaussian"`` on strings, say) is an
error naming the column.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from . import families as registry
from .encoding import uncastable
from .exceptions import caller_stacklevel, close_match, suggest_names
from .row_sample import mixed_hashes


@dataclass(frozen=True)
class ColumnSpec:
    name: str
    family: str
    dtype: pl.DataType


@functools.lru_cache(maxsize=256)  # asked per column; Polars' type comparisons are slow
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


def merged_type(dtype: pl.DataType) -> str:
    """A column's type as merging compares it: ``"number"`` for any integer or float type
    (pandas holds an integer column with a missing value as floats, Polars as integers: the
    same values, so the models of their rows merge), else the type's name."""
    return "number" if column_kind(dtype) in ("int", "float") else str(dtype)


def present(column: pl.Series) -> pl.Series:
    """The values of ``column`` that are not missing (null, or NaN in a float column)."""
    return (column.fill_nan(None) if column_kind(column.dtype) == "float" else column).drop_nulls()


def few_integers(distinct: set | list, max_categories: int) -> bool:
    """Whether ``distinct`` (a column's distinct present values) are at least one and at most
    ``max_categories`` integers (2.0 counts as 2; inf is none): the rule of
    :func:`few_integers_in` on values gathered over pieces."""
    return 0 < len(distinct) <= max_categories and all(
        isinstance(v, int) or float(v).is_integer() for v in distinct
    )


def few_integers_in(column: pl.Series, max_categories: int) -> bool:
    """Whether the present values of ``column`` (not null, not NaN) are at most
    ``max_categories`` distinct integers, of an integer or a floating-point type: pandas holds
    integers with a missing value as floats, Polars as integers with nulls, and the same
    values make the same choice."""
    if column_kind(column.dtype) == "float":
        values = column.to_numpy()  # (nulls as NaN)
        present = values[~np.isnan(values)]
        # (a column with no value yet says nothing; inf is no integer; a fraction ends it
        # before anything is sorted or hashed: the common case)
        whole = present.size > 0 and bool(np.all(present == np.round(present)))
        return (
            whole
            and bool(np.all(np.isfinite(present)))
            and (np.unique(present).size <= max_categories)
        )
    present = column.drop_nulls()
    return present.len() > 0 and present.n_unique() <= max_categories


def check_counted_sizes(
    names: list[str],
    dtypes: list[pl.DataType],
    sizes: list[int],
    families: dict[str, str] | None,
    max_int_categories: int,
) -> None:
    """Raise, for models being merged, where a numeric column the rule counted (integer or
    float categories, its family not named) holds more than ``max_int_categories`` values over
    them (``sizes``: each column's categories over all the models): one fit of all their rows
    would not count it."""
    named = families or {}
    for name, dtype, size in zip(names, dtypes, sizes, strict=True):
        if name not in named and dtype in (pl.Int64, pl.Float64) and size > max_int_categories:
            raise ValueError(
                f"column {name!r} holds {size} distinct integers over the merged models, more "
                f"than max_int_categories={max_int_categories}: one fit of all their rows would "
                "not count it as categories. Fit one model on all the rows instead (a Dask "
                "collection or `nbayes fit` of the file reads them all), or name the column: "
                f"families={{{name!r}: 'categorical'}}."
            )


#: The fewest observed values a string column needs before it is judged text or identifier.
MIN_ROWS = 50
TEXT_DISTINCT_SHARE = 0.5
TEXT_WORDS = 3.0
IDENTIFIER_DISTINCT_SHARE = 0.9


#: Distinct values a :class:`StringSummary` keeps: the count of distinct values is exact up to
#: this many, and estimated beyond (relative standard error about 1 / √(k − 2), 1.6 %).
DISTINCT_SKETCH = 4096
#: The seed of the values' hash (fixed: a hash is a property of the value, not of the run).
VALUE_SEED = 0x737472


@dataclass
class StringSummary:
    """What the text and identifier rules read of a string column, in a form that merges
    exactly whatever the rows' order or partition: ``observed``, the number of its non-null
    values, and its distinct values with the ``DISTINCT_SKETCH`` smallest 64-bit hashes
    (``hashes``, increasing, and their ``values``: a bottom-k sketch, Bar-Yossef et al. 2002).

    The number of distinct values D is the number kept while fewer than k are; beyond, the
    bottom-k estimate D̂ = (k − 1) / u_(k), where u_(k) = h_(k) / 2⁶⁴ is the k-th smallest
    hash as a fraction of the hash range. The kept values are a uniform sample of the distinct
    ones, whose mean number of words the text rule reads."""

    observed: int
    hashes: np.ndarray
    values: list[str]

    @classmethod
    def empty(cls) -> StringSummary:
        """The summary of no value."""
        return cls(0, np.zeros(0, np.uint64), [])

    @classmethod
    def of(cls, column: pl.Series) -> StringSummary:
        """The summary of one column's values (nulls left out)."""
        return cls.empty().add(column)

    def add(self, column: pl.Series) -> StringSummary:
        """The summary of this one's values and a column's (nulls left out): a batch of a
        stream. Once the sketch is full only values that hash below its largest kept hash can
        enter, so a batch costs a hash per value and little more."""
        # each distinct value once, in order of first appearance: a column of categories then
        # hashes a handful of values, and a hash collision keeps the same value as without
        present = column.drop_nulls().cast(pl.String).unique(maintain_order=True)
        return self.add_distinct(present, column.len() - column.null_count())

    @staticmethod
    def distinct_values(frame: pl.DataFrame, names: list[str]) -> dict[str, pl.Series]:
        """The distinct values (nulls left out, in order of first appearance) of each of
        ``names``, as :meth:`add` takes them from one column: found in one query, the columns
        side by side, for :meth:`add_distinct`."""
        found = frame.select(
            pl.col(name).drop_nulls().cast(pl.String).unique(maintain_order=True).implode()
            for name in names
        )
        # (exploding an empty list gives one null: no value was null before)
        return {name: found.get_column(name).explode().drop_nulls() for name in names}

    def add_distinct(self, present: pl.Series, observed: int) -> StringSummary:
        """:meth:`add` of a column whose distinct values are ``present`` (in order of first
        appearance, no null) and whose non-null values number ``observed``."""
        hashes = mixed_hashes(present.hash(VALUE_SEED).to_numpy())
        if len(self.values) >= DISTINCT_SKETCH:
            below = hashes < self.hashes[-1]
            hashes, present = hashes[below], present.filter(pl.Series(below))
        kept, first = np.unique(hashes, return_index=True)
        kept, first = kept[:DISTINCT_SKETCH], first[:DISTINCT_SKETCH]
        return self.merge(StringSummary(observed, kept, present.gather(first).to_list()))

    def merge(self, other: StringSummary) -> StringSummary:
        """The summary of both columns' values together."""
        hashes = np.concatenate([self.hashes, other.hashes])
        values = self.values + other.values
        kept, first = np.unique(hashes, return_index=True)  # the same value: the same hash
        first = first[:DISTINCT_SKETCH]
        return StringSummary(
            self.observed + other.observed, kept[:DISTINCT_SKETCH], [values[i] for i in first]
        )

    def distinct(self) -> float:
        """D, exact below ``DISTINCT_SKETCH`` distinct values, else the bottom-k estimate."""
        if len(self.values) < DISTINCT_SKETCH:
            return float(len(self.values))
        return (DISTINCT_SKETCH - 1) / (float(self.hashes[-1]) / 2.0**64)

    def mean_words(self) -> float:
        """The mean number of words (runs of non-space characters) of the kept values."""
        if not self.values:
            return 0.0
        counts = pl.Series(self.values, dtype=pl.String).str.count_matches(r"\S+")
        return float(counts.mean())


def string_family(name: str, summary: StringSummary) -> tuple[str, str | None]:
    """The family of a string column by the text and identifier rules (see the module
    docstring): "categorical", "text" or "ignore", and for the last two the warning that says
    why and how to override."""
    observed = summary.observed
    if observed < MIN_ROWS:
        return "categorical", None
    distinct = summary.distinct()
    share = min(distinct / observed, 1.0)
    if share >= TEXT_DISTINCT_SHARE and "text" in registry.names():
        words = summary.mean_words()
        if words >= TEXT_WORDS:
            return "text", (
                f"column {name!r} looks like free text ({distinct:,.0f} distinct values in "
                f"{observed:,} rows, {words:.1f} words each on average): it is modelled as "
                f"a bag of words (family 'text'). To keep it a category, pass "
                f"families={{{name!r}: 'categorical'}} (--family {name}=categorical on the "
                "command line)."
            )
    if share >= IDENTIFIER_DISTINCT_SHARE:
        kept = pl.Series(summary.values, dtype=pl.String)
        numbers = kept.str.replace_all(r"[\s,_']", "").cast(pl.Float64, strict=False)
        hint = (
            " Its values look like numbers written with separators (e.g. "
            f"{kept[0]!r}): read them as numbers and it will be modelled as one."
            if numbers.null_count() == 0
            else ""
        )
        return "ignore", (
            f"column {name!r} has a distinct value in {share:.0%} of its {observed:,} rows: it "
            "looks like an identifier, whose values would almost all be new at prediction, so it "
            f"is left out of the model (family 'ignore').{hint} To keep it, name its family, "
            f"e.g. families={{{name!r}: 'categorical'}} (--family {name}=categorical on the "
            "command line)."
        )
    return "categorical", None


def _string_family_of(
    name: str, column: pl.Series, summary: StringSummary | None
) -> tuple[str, str | None]:
    """:func:`string_family` of a column (from ``summary``, all its rows', where given). A
    column of fewer distinct values than ``DISTINCT_SKETCH`` and than ``TEXT_DISTINCT_SHARE``
    of its values is categories by the rules whatever its summary (which counts them exactly
    then): the common case, told by one count rather than by hashing every value."""
    if summary is None:
        observed = column.len() - column.null_count()
        distinct = column.n_unique() - (column.null_count() > 0)
        if distinct < min(DISTINCT_SKETCH, TEXT_DISTINCT_SHARE * observed):
            return "categorical", None
        summary = StringSummary.of(column)
    return string_family(name, summary)


def infer_schema(
    frame: pl.DataFrame,
    families: dict[str, str] | None,
    continuous: str,
    max_int_categories: int | None,
    *,
    require_observed: bool,
    strings: dict[str, StringSummary] | None = None,
) -> list[ColumnSpec]:
    """A :class:`ColumnSpec` per column of ``frame`` (already with missing values as null).
    ``max_int_categories`` None: a numeric column not named is given ``continuous`` (a model
    that counts a few integers itself, from all its rows: ``SemiNaiveBayes``).
    ``strings``: the summaries of string columns whose values ``frame`` does not hold (a Dask
    collection's, summed over its partitions); the others' are taken from ``frame``."""
    strings = strings or {}
    families = dict(families or {})
    unknown = sorted(set(families) - set(frame.columns))
    if unknown:
        raise ValueError(
            f"families names columns that are not in the data: {unknown}"
            f"{suggest_names(unknown, frame.columns)}"
        )
    specs = []
    nulls = frame.null_count().row(0) if frame.width else ()  # all columns at once: fast
    for name, dtype, null_count in zip(frame.columns, frame.dtypes, nulls, strict=True):
        kind = column_kind(dtype)
        family = families.get(name)
        if require_observed and null_count == frame.height and family != "ignore":
            raise unobserved_column(name)
        if family is not None and family not in registry.names():
            raise ValueError(
                f"unknown family {family!r} for column {name!r}; choose one of {registry.names()}."
            )
        if kind == "other":
            hint = ""
            if dtype == pl.Binary:
                hint = (
                    " Bytes (text as read by read_labeled_lines or read_text_folder) decode with "
                    "decode=True there, or pl.col(...).cast(pl.String)."
                )
            elif isinstance(dtype, pl.Decimal):
                hint = f" Decimals: pl.col({name!r}).cast(pl.Float64) (pandas: .astype(float))."
            raise ValueError(
                f"column {name!r} has type {dtype}, which nbayes cannot model; convert it to "
                f"numbers (floats or integers), strings or booleans (dates: e.g. to days).{hint}"
            )
        if kind == "null" and family is None:
            raise ValueError(
                f"column {name!r} has no values in this batch, so its type is unknown; name its "
                "family in families={...}."
            )
        if family is None:
            if kind == "string":
                family, why = _string_family_of(name, frame.get_column(name), strings.get(name))
                if why is not None:
                    warnings.warn(why, UserWarning, stacklevel=caller_stacklevel())
            elif kind == "bool":
                family = "categorical"
            elif continuous == "auto":  # every numeric column: the data choose, counting included
                family = "auto"
            elif (
                kind in ("int", "float")
                and max_int_categories is not None
                and few_integers_in(frame.get_column(name), max_int_categories)
            ):
                family = "categorical"
            else:
                family = continuous
        reads = registry.get(family).reads
        if kind != "null" and kind not in reads:
            if reads <= {"int", "float"}:
                raise ValueError(
                    f"family {family!r} needs numbers, but column {name!r} holds {kind} values "
                    f"(e.g. {frame.get_column(name).drop_nulls().head(1).to_list()}); use "
                    "'categorical' for it."
                )
            wanted = "strings" if reads == {"string"} else " or ".join(sorted(reads))
            raise ValueError(
                f"family {family!r} needs {wanted}, but column {name!r} has type {dtype}."
            )
        specs.append(
            ColumnSpec(
                name,
                family,
                _categorical_dtype(dtype) if family in ("categorical", "ignore") else dtype,
            )
        )
    if specs and all(spec.family == "ignore" for spec in specs):
        warnings.warn(
            f"no column is modelled: all {len(specs)} are left out (family 'ignore'), so the "
            "model predicts the class prior alone. Name a column's family to keep it "
            "(families={name: 'categorical'}; --family COL=categorical on the command line).",
            UserWarning,
            stacklevel=caller_stacklevel(),
        )
    return specs


def schema_for(
    model: Any,
    frame: pl.DataFrame,
    *,
    require_observed: bool,
    strings: dict[str, StringSummary] | None = None,
) -> list[ColumnSpec]:
    """:func:`infer_schema` with a table model's settings (its ``families``, ``continuous`` and
    ``max_int_categories``)."""
    return infer_schema(
        frame,
        model.families,
        model.continuous,
        model.max_int_categories,
        require_observed=require_observed,
        strings=strings,
    )


def unobserved_column(name: str) -> ValueError:
    """The error for a column with no value in any labelled row of a fit."""
    return ValueError(
        f"column {name!r} is entirely missing: there is nothing to learn from it. Drop it "
        f"(or name its family: families={{{name!r}: 'ignore'}}, --family {name}=ignore), or "
        "check the missing-value markers."
    )


def lacking_columns(
    frame: pl.DataFrame, specs: list[ColumnSpec], fitted: list[ColumnSpec] | None = None
) -> None:
    """Raise ValueError naming the columns of ``specs`` that ``frame`` lacks (extra columns are
    fine); ``fitted``, where the model knows more columns than it needs here (those it left
    out), are not named as columns it does not know."""
    present = set(frame.columns)  # once: frame.columns costs time linear in the columns
    missing = [s.name for s in specs if s.name not in present]
    if missing:
        known = {s.name for s in (specs if fitted is None else fitted)}
        raise ValueError(
            f"the data lacks column(s) the model was fitted on: {missing}"
            f"{lacking_hint(missing, present - known)}"
        )


def lacking_hint(missing: list[str], extra: Iterable[str]) -> str:
    """The end of the message about ``missing`` columns: ``"; the data has 'colr': did you mean
    'colour'?"`` where a column of the data the model does not know (``extra``) is close to a
    missing one; else those columns, where there are a few (a renamed column, likely); else
    ``"."``."""
    pairs = [(m, c) for m in missing[:20] if (c := close_match(m, extra)) is not None]
    if not pairs:
        unknown = sorted(map(str, extra))
        if unknown and len(unknown) <= 20:  # a misspelt or renamed column, most likely
            more = " …" if len(unknown) > 5 else ""
            return f"; the data has column(s) the model was not fitted on: {unknown[:5]}{more}."
        return "."
    theirs = ", ".join(repr(c) for _, c in pairs)
    ours = ", ".join(repr(m) for m, _ in pairs)
    return f"; the data has {theirs}: did you mean {ours}?"


def conform(
    frame: pl.DataFrame, specs: list[ColumnSpec], *, as_read: set[str] = frozenset()
) -> pl.DataFrame:
    """The schema's columns of ``frame``, in its order, cast to its types: pieces of one table
    read apart (batches, partitions) then encode alike. A column named in ``as_read`` that the
    batch holds as floats is kept as floats (Float64), never cut to the schema's integers.
    Raises ValueError naming the columns that are lacking or cannot be read as the schema's
    types."""
    lacking_columns(frame, specs)
    schema = frame.schema
    names = [s.name for s in specs]
    wanted = {
        s.name: pl.Float64
        if s.name in as_read and column_kind(schema[s.name]) == "float"
        else s.dtype
        for s in specs
    }
    cast = {name: dtype for name, dtype in wanted.items() if schema[name] != dtype}
    try:
        # picking columns by name, and casting only those whose type differs, costs far less
        # than one expression per column on a table of 100,000 columns (a new frame over the
        # same columns: never the caller's object itself)
        if not names:
            return frame.select()
        picked = frame.clone() if frame.columns == names else frame[names]
        return picked.cast(cast) if cast else picked
    except pl.exceptions.PolarsError as exc:
        raise ValueError(uncastable(frame, cast, "the model's type") or str(exc)) from exc


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
