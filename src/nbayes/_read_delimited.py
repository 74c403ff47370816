"""The careful reading of delimited text (CSV, TSV): block by block, every row with its line
number, each block parsed by Polars where it can (types inferred from the first block, then
kept) and value by value where it cannot, so that a malformed row, broken quoting or a value
that does not fit its column is an error naming its line (or, with ``skip_bad_rows``, dropped)."""

from __future__ import annotations

import csv
import io
import warnings
from collections.abc import Iterator
from typing import IO, Any

import numpy as np
import polars as pl

from ._read_common import (
    _UNIT_SEPARATOR,
    INFER_ROWS,
    Batch,
    DataError,
    _snippet,
    untyped_columns,
)
from ._read_values import _cast, _infer_types, _padded, _stripped


class DelimitedReading:
    """:class:`~nbayes.readers.TableReader`'s careful reading of CSV and TSV (it cuts records
    with :class:`~nbayes._read_records.RecordCutting`, names the columns with
    :class:`~nbayes._read_header.ColumnNames` and cleans values with
    :class:`~nbayes._read_values.ValueRules`)."""

    def _csv(self, stream: IO[bytes]) -> Iterator[Batch]:
        pending = b""
        expected: int | None = None
        schema: dict | None = None
        line = 1  # file line of the first byte of ``pending``
        for data, at_end in self._blocks(stream):
            buffer = pending + data
            if not buffer:
                break
            if expected is None:
                self._check_line_ends(buffer)
                ends, fields, lines, used = self._scan(buffer, at_end, line)
                keep = np.flatnonzero(fields > 0)
                if keep.size == 0:  # only blank lines so far
                    pending, line = buffer[used:], line + buffer.count(b"\n", 0, used)
                    self._hold(pending, used, line)
                    if at_end:
                        break
                    continue
                first = int(keep[0])
                if self.header:
                    start = int(ends[first - 1]) if first else 0
                    record = buffer[start : int(ends[first])]
                    expected = int(fields[first])
                    header_line = int(lines[first])
                    self.columns = self._column_names(
                        self._split_line(record, header_line), header_line
                    )
                    offset = int(ends[first])
                    line += buffer.count(b"\n", 0, offset)
                    buffer = buffer[offset:]
                else:
                    expected = int(np.bincount(fields[keep]).argmax())  # the usual count
                    self.columns = self._column_names(None, int(lines[first]), expected)
            if not buffer:
                break
            frame, first_line, used, newlines = self._block(buffer, at_end, line, expected, schema)
            pending = buffer[used:]
            line += newlines
            self._hold(pending, used, line)
            if frame is not None:
                if schema is None:
                    frame = self._typed_further_on(frame, at_end)
                schema = schema or dict(frame.schema)
                if self._multibyte:
                    frame = self._separator_restored(frame)
                self._check_near_misses(frame, first_line)
                self._check_header_not_data(frame)
                yield self._batch(frame, first_line)
            if at_end:
                break
        if self.columns is None:
            raise DataError(self.path, "the file is empty (no header line).")

    def _separator_restored(self, frame: pl.DataFrame) -> pl.DataFrame:
        """Text values with the separator of several bytes put back where it was replaced by
        the one byte the records were cut at: inside quoted values (the input may not hold
        that byte itself: :meth:`_blocks` refuses it)."""
        text = [name for name, dtype in frame.schema.items() if dtype == pl.String]
        return frame.with_columns(
            pl.col(name).str.replace_all(_UNIT_SEPARATOR.decode(), self.separator, literal=True)
            for name in text
        )

    def _typed_further_on(self, first: pl.DataFrame, at_end: bool) -> pl.DataFrame:
        """The first block, its text columns without a value in the rows Polars inferred the
        types from (the first ``INFER_ROWS``) typed from their first values instead.

        Polars reads a column of nulls as text, and later blocks keep the first block's types,
        so numbers after a long run of missing values would each be read as a category. Such a
        column's type is inferred from its values in the rest of the first block and, when it
        holds none there, from its first ``INFER_ROWS`` values further on, which a second
        careful reading of the file collects (it stops once it has them: a column missing
        everywhere costs one more pass). Standard input cannot be read twice: there a column
        whose values all come after the first block stays text.
        """
        untyped = untyped_columns(first, INFER_ROWS)
        if not untyped:
            return first
        values = {name: first.get_column(name).drop_nulls().cast(pl.String) for name in untyped}
        further = [name for name, found in values.items() if found.is_empty()]
        if further and not at_end and self.path != "-" and self.look_ahead:
            for name, found in self._first_values(further).items():
                values[name] = pl.Series(name, found, dtype=pl.String)
        types = {
            name: _infer_types(found.to_frame(name))[name]
            for name, found in values.items()
            if not found.is_empty()
        }
        # every value of the block was among those the types came from: none is lost
        return first.with_columns(
            _cast(pl.col(name), dtype).alias(name) for name, dtype in types.items()
        )

    def _first_values(self, names: list[str]) -> dict[str, list[str]]:
        """Up to ``INFER_ROWS`` values of each of ``names``, as text, read by a second reader
        with the same rules (rows it cannot read skipped, its warnings silenced: this reading
        reports them)."""
        ahead = type(self)(
            self.path,
            format=self.format,
            separator=self.separator,
            missing=self.missing,
            chunk_bytes=self.chunk_bytes,
            skip_bad_rows=True,
            header=self.header,
            names=self.names,
            strip=self.strip,
            quote=self.quote,
            max_record_bytes=self.max_record_bytes,
        )
        ahead.look_ahead = False
        found: dict[str, list[str]] = {name: [] for name in names}
        batches = iter(ahead)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for batch in batches:
                    for name, kept in found.items():
                        column = batch.frame.get_column(name).drop_nulls().cast(pl.String)
                        kept.extend(column.head(INFER_ROWS - len(kept)).to_list())
                    if all(len(kept) >= INFER_ROWS for kept in found.values()):
                        break
        finally:
            batches.close()
        return found

    def _block(
        self,
        buffer: bytes,
        at_end: bool,
        line: int,
        expected: int,
        schema: dict | None,
    ) -> tuple[pl.DataFrame | None, int, int, int]:
        """Parse the complete records of ``buffer``: (frame or None, line of its first row,
        bytes used, newlines in them).

        Fast path, for blocks without quotes or blank lines once the types are known: cut at
        the last newline, strip the fields' whitespace in the bytes (where there is any) and let
        Polars parse, then check the field counts only if some row's last field is empty (a row
        with too few fields looks like that). Otherwise, and whenever the check fails, every
        record is scanned.
        """
        if schema is not None and not self._quoted(buffer):
            used = len(buffer) if at_end else buffer.rfind(b"\n") + 1
            body = buffer[:used]
            newlines = body.count(b"\n")
            rows = newlines + (0 if body.endswith(b"\n") else 1)
            if used == 0 or (used < 16 and not body.strip()):
                return None, line, used, newlines
            frame = None
            # a blank line is found by a byte search (it would fail the field check below)
            blank_line = body.startswith((b"\n", b"\r\n")) or b"\n\n" in body or b"\n\r\n" in body
            parsed = None
            if not blank_line:  # a padded block loses its blanks in one compiled pass
                padded = self.strip and _padded(body, self._sep)
                parsed = _stripped(body, self._sep) if padded else body
            if parsed is not None:
                try:
                    frame = self._read(parsed, np.arange(rows) + line, schema)
                except (DataError, pl.exceptions.PolarsError):
                    frame = None  # a malformed row, perhaps: look closer below
            # one row per line (no blank line was skipped), and the last field of every row
            # present (a row with too few fields would leave it empty): nothing to check
            if frame is not None and frame.height == rows:
                if frame.get_column(frame.columns[-1]).null_count() == 0:
                    return frame, line, used, newlines
                _, fields, _, _ = self._scan(body, True, line)
                if np.all(fields == expected):
                    return frame, line, used, newlines
        ends, fields, lines, used = self._scan(buffer, at_end, line)
        if not ends.size:  # no complete record yet: the caller reads more
            return None, line, 0, 0
        newlines = buffer.count(b"\n", 0, used)
        starts = np.concatenate(([0], ends[:-1]))
        body, body_lines = self._keep_good(buffer, starts, ends, fields, lines, expected)
        if not body:
            return None, line, used, newlines
        frame, kept = self._parse(body, body_lines, schema)
        if frame.height == 0:
            return None, line, used, newlines
        return frame, int(kept[0]), used, newlines

    def _decode_policy(self, body: bytes, lines: np.ndarray) -> str:
        try:
            body.decode("utf-8")
            return "utf8"
        except UnicodeDecodeError as exc:
            near = int(lines[0]) + body.count(b"\n", 0, exc.start)
            warnings.warn(
                f"{self.path}: bytes that are not UTF-8 (first near line {near:,}) were "
                "replaced by U+FFFD.",
                UserWarning,
                stacklevel=2,
            )
            return "utf8-lossy"

    def _polars_options(self) -> dict[str, Any]:
        return {
            "separator": self._sep.decode(),
            "has_header": False,
            "new_columns": self.columns,
            "quote_char": self.quote,
        }

    def _read(self, body: bytes, lines: np.ndarray, schema: dict | None) -> pl.DataFrame:
        """Polars' typed parse of whole records (types inferred, or ``schema``)."""
        options = self._polars_options()
        options["null_values"] = self.missing or None
        if schema is None:
            options["infer_schema_length"] = INFER_ROWS
        else:
            options["schema"] = schema
            del options["new_columns"]
        return self._read_csv(body, lines, options)

    def _read_csv(self, body: bytes, lines: np.ndarray, options: dict) -> pl.DataFrame:
        try:
            return pl.read_csv(body, **options)
        except pl.exceptions.ComputeError as exc:
            if "utf-8" not in str(exc).lower():
                raise
            # bytes that are not UTF-8: replace them (and say where), as the text models do
            return pl.read_csv(body, encoding=self._decode_policy(body, lines), **options)

    def _parse(
        self, body: bytes, lines: np.ndarray, schema: dict | None
    ) -> tuple[pl.DataFrame, np.ndarray]:
        """(frame, file line of each row) of the whole records in ``body``.

        Polars' typed parse when the block needs no stripping, or (types known, no quotes) once
        its blanks are stripped in the bytes, and parses; otherwise every value is read as text
        (by Polars, or record by record by Python's csv module when Polars refuses the
        quoting), stripped, nulled where it is a missing-value marker, and converted
        to the column types — which are inferred here for the first block. Records that cannot
        be read raise a :class:`DataError` naming them, or are dropped with ``skip_bad_rows``.
        """
        parsed: bytes | None = body
        if self.strip and _padded(body, self._sep):
            # once the types are known, the blanks go in one compiled pass (unquoted records)
            parsed = None if schema is None or self._quoted(body) else _stripped(body, self._sep)
        if parsed is not None:
            try:
                frame = self._read(parsed, lines, schema)
            except pl.exceptions.PolarsError:
                frame = None  # located below
            # (a record of blanks alone became a blank line, which Polars may skip: as text)
            if frame is not None and frame.height == len(lines):
                return frame, lines
        text, lines = self._read_text(body, lines)
        text = self._clean(text)
        if schema is None:
            schema = _infer_types(text.head(INFER_ROWS))
        return self._convert(text, lines, schema)

    def _read_text(self, body: bytes, lines: np.ndarray) -> tuple[pl.DataFrame, np.ndarray]:
        options = self._polars_options()
        options["infer_schema"] = False
        try:
            return self._read_csv(body, lines, options), lines
        except pl.exceptions.PolarsError:
            pass
        # Polars refused the quoting: read record by record, and locate (or drop) the bad ones
        ends, _, _, _ = self._scan(body, True, 0)
        starts = np.concatenate(([0], ends[:-1]))
        dialect: dict[str, Any] = {"delimiter": self._sep.decode(), "strict": True}
        if self.quote is None:
            dialect["quoting"] = csv.QUOTE_NONE
        else:
            dialect["quotechar"] = self.quote
        rows, kept = [], []
        for start, end, line in zip(starts, ends, lines, strict=True):
            record = body[int(start) : int(end)]
            text = record.decode("utf-8", errors="replace")
            try:
                fields = next(csv.reader(io.StringIO(text, newline=""), **dialect))
            except (csv.Error, StopIteration):
                if not self.skip_bad_rows:
                    raise DataError(
                        self.path,
                        f"a quoted field does not close where its field ends: "
                        f"{_snippet(text)}. If quotes are part of the values, pass --no-quote "
                        "(quote=None in Python), or --skip-bad-rows (skip_bad_rows=True) to "
                        "drop such rows.",
                        line=int(line),
                    ) from None
                self._skip([line])
                continue
            rows.append(fields)
            kept.append(line)
        frame = pl.DataFrame(
            rows, schema=dict.fromkeys(self.columns or [], pl.String), orient="row"
        )
        return frame, np.asarray(kept, dtype=np.int64)
