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

from typing import Any

import numpy as np
import polars as pl

from . import _kernels
from ._validation import check_magnitude

UNSEEN = float(2**40)  # code of a category not seen in fitting: beyond every S_j


class NumericEncoder:
    """Columns of numbers as one float block; ``nonnegative`` refuses negative values (counts)."""

    def __init__(self, names: list[str], family: str, *, nonnegative: bool = False) -> None:
        self.names = list(names)
        self.family = family
        self.nonnegative = nonnegative

    def encode(self, frame: pl.DataFrame, *, fitting: bool) -> np.ndarray:
        try:
            casts = [pl.col(n).cast(pl.Float64) for n in self.names]
            block = (
                frame.select(casts)
                .to_numpy()
                .astype(np.float64, copy=False)
                .reshape(frame.height, len(self.names))
            )
        except (pl.exceptions.InvalidOperationError, pl.exceptions.ComputeError) as exc:
            raise ValueError(
                f"columns {self.names} must hold numbers for family {self.family!r}: {exc}"
            ) from exc
        infinite = np.isinf(block)
        if infinite.any():
            i, j = np.unravel_index(int(np.argmax(infinite)), infinite.shape)
            raise ValueError(
                f"column {self.names[j]!r} has the value {block[i, j]} at row {i}; infinite "
                "values are refused (use null or a missing-value marker for a missing value)."
            )
        if fitting:  # squares (Gaussian), spreads (kernels) and sums must stay finite
            check_magnitude(block, estimator="NaiveBayes", names=self.names)
        if self.nonnegative:
            with np.errstate(invalid="ignore"):
                negative = block < 0
            if negative.any():
                i, j = np.unravel_index(int(np.argmax(negative)), negative.shape)
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

    def sizes(self) -> np.ndarray:
        """S_j, the number of values each column has seen."""
        return np.array([len(v) for v in self.vocabularies], dtype=np.int64)

    def _cast(self, frame: pl.DataFrame, j: int) -> pl.Expr:
        name, dtype = self.names[j], self.dtypes[j]
        source = frame.schema[name]
        if source == dtype:
            return pl.col(name)
        if dtype == pl.String:
            return pl.col(name).cast(pl.String)
        return pl.col(name).cast(dtype, strict=True)

    def encode(self, frame: pl.DataFrame, *, fitting: bool) -> np.ndarray:
        """Codes (rows × columns) of ``frame``'s columns; while ``fitting``, new values join
        their column's vocabulary first."""
        fractional = {}
        for j, name in enumerate(self.names):
            if self.dtypes[j] == pl.Int64 and frame.schema[name].is_float():
                values = frame.get_column(name).to_numpy()
                with np.errstate(invalid="ignore"):
                    inexact = np.isfinite(values) & (values != np.floor(values))
                if inexact.any():
                    if fitting:
                        i = int(np.argmax(inexact))
                        raise ValueError(
                            f"column {name!r} holds the fractional value {values[i]!r} (row {i}), "
                            "but its categories are integers."
                        )
                    fractional[j] = inexact
                    frame = frame.with_columns(
                        pl.when(pl.Series(inexact)).then(None).otherwise(pl.col(name)).alias(name)
                    )
        try:
            casted = frame.select([self._cast(frame, j).alias(n) for j, n in enumerate(self.names)])
        except (pl.exceptions.InvalidOperationError, pl.exceptions.ComputeError) as exc:
            raise ValueError(
                f"a categorical column could not be read as it was in fitting "
                f"({dict(zip(self.names, self.dtypes, strict=True))}): {exc}"
            ) from exc
        if fitting:  # a column's first batch: learn its values before coding (one pass, not two)
            for j, name in enumerate(self.names):
                if not self.vocabularies[j]:
                    values = casted.get_column(name).drop_nulls().unique(maintain_order=True)
                    self.vocabularies[j].extend(values.to_list())
        block = self._codes(casted, range(len(self.names)))
        if fitting:
            # values new to a vocabulary come out UNSEEN: add them (in order of appearance)
            # and code those columns again; batches with nothing new need no extra pass
            grown = np.flatnonzero((block == UNSEEN).any(axis=0))
            for j in grown:
                name = self.names[j]
                new = casted.get_column(name).filter(pl.Series(block[:, j] == UNSEEN))
                self.vocabularies[j].extend(new.unique(maintain_order=True).to_list())
            if grown.size:
                block[:, grown] = self._codes(casted, grown)
        for j, inexact in fractional.items():
            block[inexact, j] = UNSEEN
        return block

    def _codes(self, casted: pl.DataFrame, columns: Any) -> np.ndarray:
        """The code of every value of the chosen columns in their vocabularies; NaN for a
        missing value, UNSEEN for a value not in the vocabulary."""
        columns = list(columns)
        out = np.empty((casted.height, len(columns)))
        general = []
        for k, j in enumerate(columns):
            table = self._lookup_table(j)
            if table is None:
                general.append(k)
                continue
            low, lut = table
            values = casted.get_column(self.names[j]).to_numpy()  # int64, or float with NaN
            _kernels.lookup_codes(values, low, lut, UNSEEN, out, k)
        if general:
            out[:, general] = self._codes_by_polars(casted, [columns[k] for k in general])
        return out

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

    def _codes_by_polars(self, casted: pl.DataFrame, columns: list[int]) -> np.ndarray:
        codes = []
        for j in columns:
            name, vocabulary = self.names[j], self.vocabularies[j]
            coded = (
                pl.col(name).replace_strict(
                    vocabulary,
                    list(range(len(vocabulary))),
                    default=UNSEEN,
                    return_dtype=pl.Float64,
                )
                if vocabulary
                else pl.lit(UNSEEN, dtype=pl.Float64)
            )
            # replace_strict would send null to the default too: keep missing values missing
            codes.append(pl.when(pl.col(name).is_null()).then(None).otherwise(coded).alias(name))
        out = casted.select(codes).to_numpy()
        return np.asarray(out, dtype=np.float64).reshape(casted.height, len(codes))

    def unseen_counts(self, block: np.ndarray) -> dict[str, int]:
        """Per column, how many values of an encoded block were never seen in fitting."""
        counts = (block == UNSEEN).sum(axis=0)
        return {self.names[j]: int(counts[j]) for j in np.flatnonzero(counts)}

    def absorb(self, other: CategoricalEncoder) -> list[np.ndarray]:
        """Add ``other``'s values to these vocabularies; for each column, the code here of each
        of ``other``'s codes."""
        mappings = []
        for j in range(len(self.names)):
            index = {v: i for i, v in enumerate(self.vocabularies[j])}
            for value in other.vocabularies[j]:
                if value not in index:
                    index[value] = len(self.vocabularies[j])
                    self.vocabularies[j].append(value)
            mappings.append(np.array([index[v] for v in other.vocabularies[j]], dtype=np.int64))
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
        def encode(value: Any, dtype: pl.DataType) -> Any:
            return float(value).hex() if dtype == pl.Float64 else value

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
