"""The columns of delimited text: a record split into fields (the header line, or a first row)
and the names of the columns, from ``names``, the header or the positions."""

from __future__ import annotations

import csv
import warnings
from collections import Counter
from typing import Any

import polars as pl

from ._read_common import DataError


class ColumnNames:
    """:class:`~nbayes.readers.TableReader`'s header line and column names (they read its
    ``path``, ``quote``, ``names`` and ``strip``)."""

    def _split_line(self, record: bytes, line: int) -> list[str]:
        """The fields of one record (the header, or a first row), by Python's csv module."""
        text = record.decode("utf-8", errors="replace").rstrip("\r\n")
        if line == 1:
            text = text.removeprefix("\ufeff")  # a byte-order mark is no part of a name
        options: dict[str, Any] = {"delimiter": self._sep.decode()}
        if self.quote is None:
            options["quoting"] = csv.QUOTE_NONE
        else:
            options["quotechar"] = self.quote
        try:
            return next(csv.reader([text], **options), [])
        except csv.Error as exc:
            raise DataError(
                self.path, f"cannot split this line into fields: {exc}", line=line
            ) from exc

    def _column_names(
        self, header: list[str] | None, line: int, count: int | None = None
    ) -> list[str]:
        """The names of the columns: ``names`` if given (their number must be the rows'),
        else the header's (stripped with ``strip``), else the 1-based positions."""
        width = len(header) if header is not None else count
        if self.names is not None:
            if len(self.names) != width:
                # a first line that is a note, not a header (UCI adult's test file opens with
                # "|1x3 Cross validator"), reads as a header of the wrong width
                note = (
                    f" ({_shown(header)}); if it is a note rather than the names of the "
                    "columns, pass --no-header and --skip-bad-rows (header=False, "
                    "skip_bad_rows=True in Python) to drop it"
                    if header is not None
                    else ""
                )
                raise DataError(
                    self.path,
                    f"--names (names= in Python) gives {len(self.names)} names but the "
                    + ("header has" if header is not None else "rows have")
                    + f" {width} field{'' if width == 1 else 's'}{note}.",
                    line=line,
                )
            return list(self.names)
        if header is None:
            return [str(k + 1) for k in range(width or 0)]
        names = [name.strip() for name in header] if self.strip else header
        advice = "; if the file has no header line, pass --no-header"
        repeated = sorted(n for n, count in Counter(names).items() if count > 1)
        if repeated:
            raise DataError(
                self.path, f"duplicate column names in the header: {repeated}{advice}.", line=line
            )
        numbers = [name for name in names if _is_number(name)]
        self._header_doubted = bool(numbers)  # said once: the values' check then keeps quiet
        if numbers:
            warnings.warn(
                f"{self.path}: the header line has names that are numbers ({numbers[:3]}"
                f"{', …' if len(numbers) > 3 else ''}): it looks like data{advice}.",
                UserWarning,
                stacklevel=2,
            )
        return names

    def _check_header_not_data(self, frame: pl.DataFrame) -> None:
        """Warn when, in the first batch of a file read with its first line as the header, a
        text column holds its own name as a value: a name recurring among the values is the
        mark of a first row of data taken for a header (a file with no header line, such as
        ``label<TAB>message`` lines), whose row would be lost and whose values would name the
        columns."""
        if not self.header or self.names is not None or self.rows or self._header_doubted:
            return
        # a one-character name (``y``, ``x``) may well be one of its column's codes too
        text = [n for n, kind in frame.schema.items() if kind == pl.String and len(n) > 1]
        if not text:
            return
        hits = frame.select([pl.col(n).eq(pl.lit(n)).any() for n in text]).row(0)
        found = [n for n, hit in zip(text, hits, strict=True) if hit]
        if found:
            warnings.warn(
                f"{self.path}: the header line names a column {found[0]!r}, which is also one "
                "of that column's values: the line looks like data; if the file has no header "
                "line, pass --no-header (header=False in Python).",
                UserWarning,
                stacklevel=2,
            )


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _shown(fields: list[str], limit: int = 60) -> str:
    """A record's fields as they read, rejoined and cut to ``limit`` characters."""
    text = repr(", ".join(fields))
    return text if len(text) <= limit else text[: limit - 1] + "…"
