"""What every reader of data files shares: its errors, the batch it yields, its limits.

The limits are the chunk size, the longest record, and how many rows (and values) the column
types are inferred from.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

CHUNK_BYTES = 16 * 2**20
#: The longest record (row, or JSON line) a reader accepts, unless told otherwise.
MAX_RECORD_BYTES = 64 * 2**20
_BOM = b"\xef\xbb\xbf"
#: The first bytes of an nbayes model file (:mod:`nbayes.persist`): the readers name such a
#: file given as data.
MODEL_FILE_MAGIC = b"NBAYES\x00\x01"
#: Rows of the first block from which the column types are inferred (all rows would be slow).
INFER_ROWS = 20_000
#: At most about this many values are looked at to infer the types: Polars spends time on each,
#: and 20,000 rows of a table of 100,000 columns would take seconds more than its reading.
INFER_VALUES = 2_000_000


def infer_rows(n_columns: int) -> int:
    """Rows the quick reader infers the column types from: ``INFER_ROWS``, or fewer (not under
    20) for a table of more than ``INFER_VALUES / INFER_ROWS`` columns. A later value that does
    not fit an inferred type abandons the quick reading, and the careful reader, inferring from
    ``INFER_ROWS`` rows, reads the file again."""
    return max(20, min(INFER_ROWS, INFER_VALUES // max(1, n_columns)))


def untyped_columns(frame: pl.DataFrame, rows: int) -> list[str]:
    """The text columns of ``frame`` without a value in its first ``rows`` (those Polars inferred
    the types from): Polars reads a column of nulls as text, whatever its later values."""
    rows = min(rows, frame.height)
    return [
        name
        for name, dtype in frame.schema.items()
        if dtype in (pl.String, pl.Null) and frame.get_column(name).head(rows).null_count() == rows
    ]


#: The byte a separator of several bytes is replaced by before parsing (ASCII unit separator).
_UNIT_SEPARATOR = b"\x1f"


#: How many skipped rows a reader names by their lines (the count goes on past them).
NAMED_BAD_LINES = 10


def bad_rows_skipped(count: int, lines: Sequence[int] = ()) -> str:
    """The note of rows skipped as unreadable, naming the lines of the first ones (``lines``):
    "1 bad row skipped (line 4)", "12 bad rows skipped (lines 3, 7, …; the first 10 named)"."""
    note = f"{count:,} bad row{'' if count == 1 else 's'} skipped"
    if not lines:
        return note
    named = ", ".join(str(line) for line in lines)  # (a thousands comma would read as a list's)
    more = f", …; the first {len(lines)} named" if count > len(lines) else ""
    return f"{note} (line{'' if len(lines) == 1 else 's'} {named}{more})"


class SkipsBadRows:
    """A reader's count of the rows it dropped as unreadable (``skip_bad_rows``), ``bad_rows``,
    and the lines of the first NAMED_BAD_LINES of them, ``bad_lines`` (the file's line numbers,
    from 1), so that whoever reports the count can say which rows are missing."""

    bad_rows: int
    bad_lines: list[int]

    def _skip(self, lines: Iterable[int]) -> None:
        """Count the rows at ``lines`` as dropped. A block's rows are dropped cause by cause
        (their fields, their quoting, their values' types), not in the order of their lines:
        the smallest lines are kept, not the first given."""
        lines = np.fromiter(lines, dtype=np.int64)
        self.bad_rows += int(lines.size)
        if lines.size > NAMED_BAD_LINES:
            lines = np.partition(lines, NAMED_BAD_LINES - 1)[:NAMED_BAD_LINES]
        self.bad_lines = sorted({*self.bad_lines, *lines.tolist()})[:NAMED_BAD_LINES]


class QuickReadAbandoned(Exception):
    """The quick reading of a file met something only the careful reader can report or repair
    (a malformed row, a type mismatch, bytes that are not UTF-8, whitespace to strip). Whoever
    consumed the quick batches starts over with ``quick=False``."""


class DataError(ValueError):
    """A problem with the data, located: file, line (1-based, counting the header) and column."""

    def __init__(
        self, source: str, message: str, *, line: int | None = None, column: str | None = None
    ):
        self.source, self.line, self.column = source, line, column
        where = [source]
        if line is not None:
            where.append(f"line {line:,}")
        if column is not None:
            where.append(f"column {column!r}")
        super().__init__(f"{': '.join(where)}: {message}")


@dataclass
class Batch:
    """One chunk of rows: the frame, the file line of its first row, and progress counters."""

    frame: pl.DataFrame
    first_line: int | None
    first_row: int
    bytes_read: int


def _snippet(text: str, limit: int = 60) -> str:
    text = text.rstrip("\r\n")
    return repr(text if len(text) <= limit else text[:limit] + "…")
