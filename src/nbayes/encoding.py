"""The encoding layer: table columns (a Polars frame, missing values already null) → blocks.

Every table model reads its columns through encoders, so that the statistics and maths of a family
never see a string, a dtype or a vocabulary:

* :class:`NumericEncoder` — numbers as a float block (rows × columns), NaN where missing;
* :class:`CategoricalEncoder` — each column's values as codes 0 … S_j − 1 in the column's own
  vocabulary (learnt in order of first appearance while fitting), NaN where missing and
  :data:`UNSEEN` for a value never seen in fitting.

Missing-value markers (``"?"``) are applied once, when a table is read
(:func:`nbayes.tables.apply_missing`), before any encoder sees it.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import polars as pl

from . import _kernels
from ._validation import MAX_ABS_VALUE, check_magnitude, first_negative, largest_magnitude

UNSEEN = float(2**40)  # code of a category not seen in fitting: beyond every S_j

#: The longest category value a model file keeps, in bytes of its JSON (a model file's whole
#: header holds at most 100,000,000 bytes: safetensors' limit): saving refuses a longer one,
#: naming its column, before anything is written.
MAX_CATEGORY_BYTES = 2**20

#: Up to this many text columns are coded by a cast to an Enum each, more by one join of all
#: of them (a Polars expression per column costs about 0.1 ms: the two meet near 500 columns).
ENUM_COLUMNS = 256


def check_no_infinite(block: np.ndarray, names: list[str], largest: float | None = None) -> None:
    """Refuse a float block (rows × ``names``) holding an infinite value, naming its column and
    row; ``largest`` is the block's :func:`largest_magnitude` when the caller has it."""
    if (largest_magnitude(block) if largest is None else largest) != np.inf:
        return
    infinite = np.isinf(block)
    i, j = np.unravel_index(int(np.argmax(infinite)), infinite.shape)
    raise ValueError(
        f"column {names[j]!r} has the value {block[i, j]} at row {i}; infinite "
        "values are refused (use null or a missing-value marker for a missing value)."
    )


class NumericEncoder:
    """Columns of numbers as one float block; ``nonnegative`` refuses negative values (counts)."""

    def __init__(self, names: list[str], family: str, *, nonnegative: bool = False) -> None:
        self.names = list(names)
        self.family = family
        self.nonnegative = nonnegative

    def encode(self, frame: pl.DataFrame, *, fitting: bool) -> np.ndarray:
        try:
            block = frame[self.names].to_numpy()
            if block.dtype.kind in "iuf":  # numbers already: no Polars cast per column
                block = block.astype(np.float64, copy=False)
            else:  # booleans, text (an error), mixed kinds
                casts = [pl.col(n).cast(pl.Float64) for n in self.names]
                block = frame.select(casts).to_numpy().astype(np.float64, copy=False)
            block = block.reshape(frame.height, len(self.names))
        except (pl.exceptions.InvalidOperationError, pl.exceptions.ComputeError) as exc:
            wanted = dict.fromkeys(self.names, pl.Float64)
            then = f"family {self.family!r} models numbers"
            raise ValueError(uncastable(frame, wanted, "numbers", then) or str(exc)) from exc
        largest = largest_magnitude(block)  # one look at the block for both checks
        check_no_infinite(block, self.names, largest)
        if fitting and largest > MAX_ABS_VALUE:  # squares, spreads and sums must stay finite
            check_magnitude(block, estimator="NaiveBayes", names=self.names)
        if self.nonnegative and (at := first_negative(block)) is not None:
            i, j = at
            raise ValueError(
                f"column {self.names[j]!r} has the negative value {block[i, j]} at row {i}; "
                f"family {self.family!r} needs counts (values >= 0)."
            )
        return block

    def meta(self) -> dict:
        return {}

    def load_meta(self, meta: dict) -> None:
        pass


class CategoricalEncoder:
    """Values of any type as codes in each column's vocabulary.

    ``dtypes[j]`` is the type column j's categories are kept in (String, Boolean, Int64 or
    Float64): data of another type is cast to it, and a fractional number in an integer column is
    refused in fitting (it is no category of the column) and unseen afterwards.
    """

    def __init__(self, names: list[str], dtypes: list[pl.DataType]) -> None:
        self.names = list(names)
        self.dtypes = list(dtypes)
        self.vocabularies: list[list[Any]] = [[] for _ in names]
        self._tables: dict[int, tuple[int, tuple[int, np.ndarray]]] = {}
        self._enums: dict[int, tuple[int, pl.Enum]] = {}

    def __setstate__(self, state: dict) -> None:
        # an encoder pickled by a version without the Enum cache gets an empty one
        self.__dict__.update(state)
        self.__dict__.setdefault("_enums", {})

    def sizes(self) -> np.ndarray:
        """S_j, the number of values each column has seen."""
        return np.array([len(v) for v in self.vocabularies], dtype=np.int64)

    def _cast(self, schema: pl.Schema, j: int) -> pl.Expr:
        name, dtype = self.names[j], self.dtypes[j]
        source = schema[name]
        if source == dtype:
            return pl.col(name)
        if dtype == pl.String:
            return pl.col(name).cast(pl.String)
        return pl.col(name).cast(dtype, strict=True)

    def encode(self, frame: pl.DataFrame, *, fitting: bool) -> np.ndarray:
        """Codes (rows × columns) of ``frame``'s columns; while ``fitting``, new values join
        their column's vocabulary first."""
        casted, fractional = self._casted(frame, fitting=fitting)
        if fitting:
            self._learn_first_values(casted)
        block, new = self._codes(casted, range(len(self.names)), learn=fitting)
        if fitting:
            # values new to a vocabulary (in order of appearance) join it; only the columns
            # that grew are coded again, and batches with nothing new need no extra pass
            for j, values in new.items():
                self.vocabularies[j].extend(values)
            if new:
                grown = sorted(new)
                block[:, grown], _ = self._codes(casted, grown, learn=False)
        for j, inexact in fractional.items():
            block[inexact, j] = UNSEEN
        return block

    def learn(self, frame: pl.DataFrame) -> np.ndarray | None:
        """What ``encode(frame, fitting=True)`` does to the vocabularies (each column's values
        not yet in it join it, in order of first appearance), without coding the rows; returns
        where values are missing (rows × columns, True where ``encode`` gives NaN). For columns
        of text, integers and booleans, whose only missing value is null; None for a table with
        a column of another type (``encode`` learns those)."""
        if any(dtype not in (pl.String, pl.Int64, pl.Boolean) for dtype in self.dtypes):
            return None
        if not self.names:
            return np.zeros((frame.height, 0), dtype=bool)
        casted, _ = self._casted(frame, fitting=True)
        distinct = casted.select(
            pl.col(name).drop_nulls().unique(maintain_order=True).implode() for name in self.names
        )
        for vocabulary, values in zip(self.vocabularies, distinct.row(0), strict=True):
            if not vocabulary:
                vocabulary.extend(values)
                continue
            known = set(vocabulary)
            vocabulary.extend(value for value in values if value not in known)
        missing = casted.select(pl.all().is_null()).to_numpy()
        return missing.reshape(frame.height, len(self.names))

    def _casted(
        self, frame: pl.DataFrame, *, fitting: bool
    ) -> tuple[pl.DataFrame, dict[int, np.ndarray]]:
        """``frame``'s columns cast to the vocabularies' types, and per integer column read as
        floats the rows of fractional values (refused while ``fitting``; unseen afterwards)."""
        fractional = {}
        schema = frame.schema  # built once: frame.schema costs time linear in the columns
        for j, name in enumerate(self.names):
            if self.dtypes[j] == pl.Int64 and schema[name].is_float():
                values = frame.get_column(name).to_numpy()
                with np.errstate(invalid="ignore"):
                    inexact = np.isfinite(values) & (values != np.floor(values))
                if inexact.any():
                    if fitting:
                        i = int(np.argmax(inexact))
                        raise ValueError(
                            f"column {name!r} holds the fractional value {float(values[i])!r} "
                            f"(row {i}), but its categories are integers."
                        )
                    fractional[j] = inexact
                    frame = frame.with_columns(
                        pl.when(pl.Series(inexact)).then(None).otherwise(pl.col(name)).alias(name)
                    )
        try:
            casted = frame.select(
                [self._cast(schema, j).alias(n) for j, n in enumerate(self.names)]
            )
        except (pl.exceptions.InvalidOperationError, pl.exceptions.ComputeError) as exc:
            types = dict(zip(self.names, self.dtypes, strict=True))
            raise ValueError(uncastable(frame, types, "its type in fitting") or str(exc)) from exc
        return casted, fractional

    def _codes(
        self, casted: pl.DataFrame, columns: Any, *, learn: bool
    ) -> tuple[np.ndarray, dict[int, list]]:
        """The code of every value of the chosen columns in their vocabularies (NaN for a
        missing value, UNSEEN for a value not in the vocabulary) and, with ``learn``, the
        values not in each column's vocabulary, in order of first appearance."""
        columns = list(columns)
        out = np.empty((casted.height, len(columns)))
        general = []
        new: dict[int, list] = {}
        for k, j in enumerate(columns):
            table = self._lookup_table(j)
            if table is None:
                general.append(k)
                continue
            low, lut = table
            values = casted.get_column(self.names[j]).to_numpy()  # int64, or float with NaN
            met = _kernels.lookup_codes(values, low, lut, UNSEEN, out, k)  # values unseen
            if learn and met:
                new[j] = self._unseen_values(casted, j, out[:, k])
        texts = [k for k in general if self.dtypes[columns[k]] == pl.String]
        if 0 < len(texts) <= ENUM_COLUMNS:
            out[:, texts] = casted.select([self._enum_codes(columns[k]) for k in texts]).to_numpy()
            for k in texts if learn else ():
                if (out[:, k] == UNSEEN).any():
                    new[columns[k]] = self._unseen_values(casted, columns[k], out[:, k])
            coded = set(texts)
            general = [k for k in general if k not in coded]
        if general:
            block, found = self._codes_by_join(casted, [columns[k] for k in general], learn)
            out[:, general] = block
            new.update(found)
        return out, new

    def _learn_first_values(self, casted: pl.DataFrame) -> None:
        """A column with no values yet (a first batch) takes its batch's values at once, in
        order of first appearance, as coding them all as unseen first would; for the types
        whose only missing value is null."""
        for j, name in enumerate(self.names):
            if not self.vocabularies[j] and self.dtypes[j] in (pl.String, pl.Int64, pl.Boolean):
                values = casted.get_column(name).drop_nulls().unique(maintain_order=True)
                self.vocabularies[j].extend(values.to_list())

    def _unseen_values(self, casted: pl.DataFrame, j: int, codes: np.ndarray) -> list:
        """Column j's values coded UNSEEN, once each, in order of first appearance."""
        unseen = casted.get_column(self.names[j]).filter(pl.Series(codes == UNSEEN))
        return unseen.unique(maintain_order=True).to_list()

    def _enum_codes(self, j: int) -> pl.Expr:
        """The codes of text column j as an expression: the column cast to an Enum of its
        vocabulary, whose physical values are the codes (a hash lookup per value in Polars),
        NaN where missing and UNSEEN where the value is not in the vocabulary."""
        name = self.names[j]
        cached = self._enums.get(j)
        if cached is None or cached[0] != len(self.vocabularies[j]):
            cached = (len(self.vocabularies[j]), pl.Enum(self.vocabularies[j]))
            self._enums[j] = cached
        code = pl.col(name).cast(cached[1], strict=False).to_physical().cast(pl.Float64)
        return (
            pl.when(pl.col(name).is_null())
            .then(float("nan"))
            .otherwise(code.fill_null(UNSEEN))
            .alias(name)
        )

    def _lookup_table(self, j: int) -> tuple[int, np.ndarray] | None:
        """For an integer column with a compact vocabulary: (smallest value, code of each value
        from there on, UNSEEN for the gaps). An array lookup codes such a column much faster
        than a hash join; other columns return None."""
        vocabulary = self.vocabularies[j]
        if self.dtypes[j] != pl.Int64 or not vocabulary:
            return None
        cached = self._tables.get(j)
        if cached is not None and cached[0] == len(vocabulary):
            return cached[1]
        low, high = min(vocabulary), max(vocabulary)
        if high - low >= 2**16:
            return None
        lut = np.full(high - low + 1, UNSEEN)
        lut[np.asarray(vocabulary, dtype=np.int64) - low] = np.arange(len(vocabulary))
        self._tables[j] = (len(vocabulary), (low, lut))
        return low, lut

    def _codes_by_join(
        self, casted: pl.DataFrame, columns: list[int], learn: bool
    ) -> tuple[np.ndarray, dict[int, list]]:
        """Codes of the chosen columns by one join per value type: the columns stacked into one
        long (column, value) table, joined with one table of every vocabulary. The work is
        linear in the number of values, however many columns there are (a Polars expression
        per column costs a millisecond or more each: minutes for 100,000 columns)."""
        n = casted.height
        out = np.empty((n, len(columns)))
        new: dict[int, list] = {}
        by_type: dict[Any, list[int]] = {}
        for k, j in enumerate(columns):
            by_type.setdefault(self.dtypes[j], []).append(k)
        for dtype, ks in by_type.items():
            js = [columns[k] for k in ks]
            names = [self.names[j] for j in js]
            long = casted.select(names).unpivot(on=names, variable_name="_c", value_name="_v")
            joined = long.with_columns(pl.col("_v").cast(dtype)).join(
                self._vocabulary_frame(js, dtype), on=["_c", "_v"], how="left",
                maintain_order="left",
            )  # fmt: skip
            codes = joined.select(
                pl.when(pl.col("_v").is_null())
                .then(float("nan"))
                .otherwise(pl.col("_k").fill_null(UNSEEN))
            ).to_series()
            out[:, ks] = codes.to_numpy().reshape(len(ks), n).T
            if learn:
                unknown = joined.filter(pl.col("_k").is_null() & pl.col("_v").is_not_null())
                if unknown.height:
                    firsts = unknown.select("_c", "_v").unique(keep="first", maintain_order=True)
                    position = dict(zip(names, js, strict=True))
                    for name, values in (
                        firsts.group_by("_c", maintain_order=True).agg("_v").iter_rows()
                    ):
                        new[position[name]] = values
        return out, new

    def _vocabulary_frame(self, js: list[int], dtype: Any) -> pl.DataFrame:
        """(column name, value, code) for every value of the vocabularies of columns ``js``."""
        names, values, codes = [], [], []
        for j in js:
            vocabulary = self.vocabularies[j]
            names.extend([self.names[j]] * len(vocabulary))
            values.extend(vocabulary)
            codes.extend(range(len(vocabulary)))
        return pl.DataFrame(
            {
                "_c": pl.Series(names, dtype=pl.String),
                "_v": pl.Series(values, dtype=dtype),
                "_k": pl.Series(codes, dtype=pl.Float64),
            }
        )

    def sort_vocabularies(self) -> None:
        """Put each column's values in ascending order, so that the codes (and every array laid
        out by them) do not depend on the order the rows came in."""
        self.vocabularies = [sorted(values) for values in self.vocabularies]
        self._tables = {}
        self._enums = {}

    def unseen_counts(self, block: np.ndarray) -> dict[str, int]:
        """Per column, how many values of an encoded block were never seen in fitting."""
        counts = (block == UNSEEN).sum(axis=0)
        return {self.names[j]: int(counts[j]) for j in np.flatnonzero(counts)}

    def check_absorbable(self, other: CategoricalEncoder) -> None:
        """Raise, naming the column, where ``other`` holds a number this encoder's type cannot
        hold as it is: a fraction among integer categories, or an integer a float would round
        (pandas keeps an integer column with missing values as floats, Polars as integers:
        their integer values are the same categories). Changes nothing."""
        for j, dtype in enumerate(self.dtypes):
            if other.dtypes[j] == dtype:
                continue
            for value in other.vocabularies[j]:
                if _as_type(value, dtype) is None:
                    raise ValueError(
                        f"column {self.names[j]!r}: the other model's category {value!r} "
                        f"cannot be one of this model's {dtype} categories as it is: merge "
                        f"this model into the other ({other.dtypes[j]} categories) instead, or "
                        "fit both on columns of one type."
                    )

    def absorb(self, other: CategoricalEncoder) -> list[np.ndarray]:
        """Add ``other``'s values to these vocabularies (numbers in this encoder's type:
        :meth:`check_absorbable` first); for each column, the code here of each of ``other``'s
        codes."""
        mappings = []
        for j in range(len(self.names)):
            index = {v: i for i, v in enumerate(self.vocabularies[j])}
            if other.dtypes[j] != self.dtypes[j]:  # 2.0 and 2 are one key of index
                other_values = [_as_type(v, self.dtypes[j]) for v in other.vocabularies[j]]
            else:
                other_values = other.vocabularies[j]
            for value in other_values:
                if value not in index:
                    index[value] = len(self.vocabularies[j])
                    self.vocabularies[j].append(value)
            mappings.append(np.array([index[v] for v in other_values], dtype=np.int64))
        return mappings

    def display(self, j: int, value: float) -> str:
        """Code ``value`` of column j as the value it stands for."""
        if value != value:
            return "missing"
        if value >= len(self.vocabularies[j]):
            return "unseen value"
        return str(self.vocabularies[j][int(value)])

    # ------------------------------------------------------------------ model files
    def meta(self) -> dict:
        """The vocabularies as a model file's JSON holds them; ValueError naming the column for
        a value longer than :data:`MAX_CATEGORY_BYTES`."""

        def encode(value: Any, dtype: pl.DataType) -> Any:
            return float(value).hex() if dtype == pl.Float64 else value

        for name, values, dtype in zip(self.names, self.vocabularies, self.dtypes, strict=True):
            if dtype == pl.String:
                _check_category_sizes(name, values)
        vocabularies = [
            [encode(v, dtype) for v in values]
            for values, dtype in zip(self.vocabularies, self.dtypes, strict=True)
        ]
        return {"vocabularies": vocabularies}

    def load_meta(self, meta: dict) -> None:
        vocabularies = meta["vocabularies"]
        if len(vocabularies) != len(self.names):
            raise ValueError("one vocabulary per categorical column is required.")
        expected = {pl.String: str, pl.Boolean: bool, pl.Int64: int, pl.Float64: str}
        decoded = []
        for values, dtype, name in zip(vocabularies, self.dtypes, self.names, strict=True):
            kind = expected.get(dtype)
            if kind is None or not all(type(v) is kind for v in values):
                raise ValueError(f"the categories of column {name!r} are not of type {dtype}.")
            decoded.append(
                [float.fromhex(v) for v in values] if dtype == pl.Float64 else list(values)
            )
            if len(set(decoded[-1])) != len(decoded[-1]):
                raise ValueError(f"the categories of column {name!r} repeat.")
        self.vocabularies = decoded
        self._tables = {}
        self._enums = {}


def _check_category_sizes(name: str, values: list[str]) -> None:
    """Refuse a category value whose JSON (escapes included) is over MAX_CATEGORY_BYTES."""
    for value in values:
        if len(value) <= MAX_CATEGORY_BYTES // 6:  # \uXXXX: at most 6 bytes a character
            continue
        size = len(value) if len(value) > MAX_CATEGORY_BYTES else len(json.dumps(value)) - 2
        if size > MAX_CATEGORY_BYTES:
            raise ValueError(
                f"column {name!r} has a category value of {size:,} bytes (it starts "
                f"{value[:20]!r}); a model file keeps values of at most {MAX_CATEGORY_BYTES:,} "
                "bytes (nbayes.encoding.MAX_CATEGORY_BYTES): map or drop it before fitting."
            )


def uncastable(
    frame: pl.DataFrame,
    types: dict[str, pl.DataType],
    whose: str,
    then: str = "a batch or partition must have the columns' types of the rows fitted before",
) -> str | None:
    """The sentence naming the first column of ``frame`` whose values cannot be read as its
    type in ``types`` (``whose``: what that type is, in words), with a value, and ``then``;
    None if all can."""
    for name, dtype in types.items():
        column = frame.get_column(name)
        try:
            column.cast(dtype)
        except pl.exceptions.PolarsError:
            shown = _first_lost(column, dtype)
            return (
                f"column {name!r} holds {column.dtype} values{shown}, which cannot be read as "
                f"{whose} ({dtype}): {then}."
            )
    return None


def _first_lost(column: pl.Series, dtype: pl.DataType) -> str:
    """The example of a message, ``(e.g. VALUE at row I)``: the first value of ``column`` a cast
    to ``dtype`` loses (its first value where no value can be cast: text to booleans, say);
    empty for a column of nulls."""
    try:
        lost = column.is_not_null() & column.cast(dtype, strict=False).is_null()
    except pl.exceptions.PolarsError:  # no value of this type casts to that one
        lost = column.is_not_null()
    rows = lost.arg_true()
    return f" (e.g. {column[rows[0]]!r} at row {rows[0]})" if len(rows) else ""


def _as_type(value: Any, dtype: pl.DataType) -> Any:
    """A category ``value`` as one of type ``dtype`` holds it (Int64: an integral float within
    64 bits as an int; Float64: an int a float holds exactly, as a float); None where it cannot
    be held unchanged. Values of other types are returned as they are."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if dtype == pl.Int64:
        whole = float(value).is_integer() and -(2**63) <= value < 2**63
        return int(value) if whole else None
    if dtype == pl.Float64:
        return float(value) if float(value) == value else None
    return value
