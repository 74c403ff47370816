"""The rules for values read from a data file: whitespace around a field stripped (in the bytes
or in the text), missing-value markers read as null (and near misses of them pointed out), and
values read as text converted to the column types, a value that does not fit located."""

from __future__ import annotations

import io
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl

from ._read_common import DataError


def _padded(body: bytes, separator: bytes) -> bool:
    """Whether some field of ``body`` may begin or end with a space or tab: a blank next to a
    separator or a line end (a quick byte test that may say yes for a blank inside a quoted
    field, never no for a padded field). Bodies without blanks are answered by one memchr,
    others by a compiled scan that stops at the first padded field."""
    blanks = [ord(b) for b in (b" ", b"\t") if b != separator and b in body]
    if not blanks:
        return False
    from . import _kernels  # Numba: only for a body that holds blanks

    array = np.frombuffer(body, dtype=np.uint8)
    return bool(_kernels.padded_field(array, separator[0], blanks[0], blanks[-1]))


def _stripped(body: bytes, separator: bytes) -> bytes | None:
    """``body`` (records without quote characters) with the whitespace at either end of every
    field removed, as the text path strips each value; None where a field begins or ends with
    a byte beyond ASCII (perhaps Unicode whitespace: the text path strips those)."""
    from . import _kernels

    array = np.frombuffer(body, dtype=np.uint8)
    out = np.empty_like(array)
    length = _kernels.strip_fields(array, separator[0], out)
    return None if length < 0 else out[:length].tobytes()


def _padded_strings(frame: pl.DataFrame) -> bool:
    """Whether a text column of ``frame`` has a value with whitespace at either end."""
    strings = [n for n, t in frame.schema.items() if t == pl.String]
    if not strings:
        return False
    padded = frame.select(
        pl.any_horizontal(
            (
                pl.col(n).str.starts_with(" ")
                | pl.col(n).str.ends_with(" ")
                | pl.col(n).str.starts_with("\t")
                | pl.col(n).str.ends_with("\t")
            ).any()
            for n in strings
        )
    )
    return bool(padded.item())


def _infer_types(text: pl.DataFrame) -> dict:
    """The column types Polars infers for text values (they were read as text to be stripped
    first): the values are written out as CSV and read back with Polars' inference."""
    if text.height == 0:
        return dict(text.schema)
    buffer = io.BytesIO()
    text.write_csv(buffer)
    inferred = pl.read_csv(buffer.getvalue(), infer_schema_length=None)
    return dict(zip(text.columns, inferred.dtypes, strict=True))


def _cast(column: pl.Expr, dtype: pl.DataType) -> pl.Expr:
    """Text → ``dtype``, null where a value does not fit (so the caller can find it)."""
    if dtype == pl.Boolean:
        lowered = column.str.to_lowercase()
        return (
            pl.when(lowered == "true")
            .then(True)
            .when(lowered == "false")
            .then(False)
            .otherwise(None)
        )
    return column.cast(dtype, strict=False)


def near_missing_marker(
    frame: pl.DataFrame, markers: Sequence[Any]
) -> tuple[str, str, int, int] | None:
    """(column, value, times, first row) of the first text value that is one of the text
    ``markers`` but for whitespace or letter case (``" ?"`` for ``"?"``, ``"na"`` for ``"NA"``):
    such a value is read as a value, not as missing. None when there is none."""
    text = [m for m in markers if isinstance(m, str)]
    strings = [name for name, dtype in frame.schema.items() if dtype == pl.String]
    if not text or not strings:
        return None
    wanted = list({m.strip().casefold() for m in text})

    def near(values: pl.Expr) -> pl.Expr:
        return values.str.strip_chars().str.to_lowercase().is_in(wanted) & ~values.is_in(text)

    # two queries tell which text columns hold a near miss, each column judged by its distinct
    # values (far fewer than its rows, and found once), the columns side by side: this runs on
    # every batch a reader reads
    distinct = frame.select(pl.col(n).unique().implode() for n in strings)
    flagged = distinct.select(near(pl.col(n).explode()).any() for n in strings).row(0)
    for name, found in zip(strings, flagged, strict=True):
        if not found:
            continue
        column = frame.get_column(name)
        near_values = column.unique().to_frame().filter(near(pl.col(name))).to_series()
        hits = column.is_in(near_values.to_list())
        row = int(hits.arg_true()[0])
        return name, column[row], int(hits.sum()), row
    return None


class ValueRules:
    """:class:`~nbayes.readers.TableReader`'s rules for values, applied to a block's frame
    (they read its ``path``, ``strip``, ``missing`` and ``skip_bad_rows``)."""

    def _clean(self, text: pl.DataFrame) -> pl.DataFrame:
        """Strip (with ``strip``), then null the empty values and the missing-value markers."""
        missing = ["", *self.missing]
        columns = []
        for name in text.columns:
            values = pl.col(name).str.strip_chars() if self.strip else pl.col(name)
            columns.append(pl.when(values.is_in(missing)).then(None).otherwise(values).alias(name))
        return text.with_columns(columns)

    def _convert(
        self, text: pl.DataFrame, lines: np.ndarray, schema: dict
    ) -> tuple[pl.DataFrame, np.ndarray]:
        """The text columns converted to ``schema``; a value that does not fit its type is an
        error naming its line and column (or its row is dropped, with ``skip_bad_rows``)."""
        converted = text.with_columns(
            _cast(pl.col(name), dtype).alias(name)  # (a when-chain is named after its literal)
            for name, dtype in schema.items()
            if dtype != pl.String
        )
        failed = np.zeros(text.height, dtype=bool)
        for name in schema:
            failed |= (
                converted.get_column(name).is_null() & text.get_column(name).is_not_null()
            ).to_numpy()
        if failed.any():
            if not self.skip_bad_rows:
                row = int(np.argmax(failed))
                for name, dtype in schema.items():
                    value = text.get_column(name)[row]
                    if value is not None and converted.get_column(name)[row] is None:
                        raise DataError(
                            self.path,
                            f"the value {value!r} does not fit the column's type {dtype}, "
                            "which was inferred from the first rows; pass --skip-bad-rows "
                            "(skip_bad_rows=True in Python) to drop such rows.",
                            line=int(lines[row]),
                            column=name,
                        )
            self._skip(lines[failed])
            converted, lines = converted.filter(pl.Series(~failed)), lines[~failed]
        return converted, lines

    def _check_near_misses(self, frame: pl.DataFrame, first_line: int | None) -> None:
        """Warn (once per file) about text values that are a missing-value marker but for
        whitespace or letter case (``" ?"`` for ``"?"``, ``"na"`` for ``"NA"``): they are read
        as values, not as missing."""
        if self._near_misses_checked:
            return
        found = near_missing_marker(frame, self.missing)
        if found is None:
            return
        name, value, times, row = found
        where = f"line {first_line + row:,}" if first_line is not None else f"row {row:,}"
        self._near_misses_checked = True
        warnings.warn(
            f"{self.path}: column {name!r} holds {value!r} ({times:,} times in a chunk, first "
            f"at {where}), which is not the missing-value marker "
            f"{self.missing if len(self.missing) > 1 else self.missing[0]!r} but nearly; it is "
            "read as a value. Pass it to --missing if it means missing.",
            UserWarning,
            stacklevel=2,
        )

    def _markers_as_null(self, frame: pl.DataFrame) -> pl.DataFrame:
        if not self.missing:
            return frame
        strings = [n for n, t in frame.schema.items() if t == pl.String]
        return frame.with_columns(
            pl.when(pl.col(n).is_in(self.missing)).then(None).otherwise(pl.col(n)).alias(n)
            for n in strings
        )
