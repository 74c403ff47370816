"""The reading of JSON lines: block by block, each block parsed by Polars (the types of the first
kept), and line by line where Polars refuses one, so that a line that is not a JSON object is
an error naming it (or, with ``skip_bad_rows``, dropped)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import IO

import polars as pl

from ._read_common import INFER_ROWS, Batch, DataError


class JsonLinesReading:
    """:class:`~nbayes.readers.TableReader`'s reading of JSON lines (it cuts records with
    :class:`~nbayes._read_records.RecordCutting` and nulls markers with
    :class:`~nbayes._read_values.ValueRules`)."""

    def _jsonl(self, stream: IO[bytes]) -> Iterator[Batch]:
        pending = b""
        schema: dict | None = None
        line = 1
        for data, at_end in self._blocks(stream):
            buffer = pending + data
            cut = len(buffer) if at_end else buffer.rfind(b"\n") + 1
            body, pending = buffer[:cut], buffer[cut:]
            self._hold(pending, cut, line + body.count(b"\n"))
            if body.strip():
                try:
                    frame = pl.read_ndjson(
                        io.BytesIO(body), schema=schema, infer_schema_length=INFER_ROWS
                    )
                except pl.exceptions.PolarsError as exc:
                    frame = self._jsonl_slow(body, line, schema, exc)
                if schema is None:
                    schema = dict(frame.schema)
                    self.columns = list(frame.columns)
                frame = self._markers_as_null(frame)
                self._check_near_misses(frame, line)
                yield self._batch(frame, line)
            line += body.count(b"\n")
            if at_end:
                break
        if self.columns is None:
            raise DataError(self.path, "the file is empty (no JSON records).")

    def _jsonl_slow(
        self, body: bytes, line: int, schema: dict | None, exc: Exception
    ) -> pl.DataFrame:
        """Find (or, with skip_bad_rows, drop) the lines that are not JSON objects, then those
        with a value that does not fit its column's type."""
        import json

        good: list[tuple[int, bytes]] = []  # (its line, the line)
        for offset, text in enumerate(body.split(b"\n")):
            if not text.strip():
                continue
            try:
                try:
                    value = json.loads(text)
                except RecursionError:
                    raise ValueError("nested too deeply") from None
                if not isinstance(value, dict):
                    raise ValueError("not a JSON object")
                good.append((line + offset, text))
            except ValueError as error:
                if not self.skip_bad_rows:
                    raise DataError(
                        self.path,
                        f"not a JSON object: {error}; pass --skip-bad-rows (skip_bad_rows=True "
                        "in Python) to drop such lines.",
                        line=line + offset,
                    ) from exc
                self._skip([line + offset])
        if not good:
            return pl.DataFrame(schema=schema) if schema else pl.DataFrame()
        try:
            return _read_lines(good, schema)
        except pl.exceptions.PolarsError:
            pass  # a value that does not fit its column's type: found below
        if schema is None:  # the types, from the first rows (as a CSV file's)
            try:
                schema = dict(_read_lines(good[:INFER_ROWS], None).schema)
            except pl.exceptions.PolarsError as error:
                raise DataError(
                    self.path, f"cannot read the JSON lines from line {line:,}: {error}"
                ) from error
        parts = self._fitting(good, schema)
        return pl.concat(parts) if parts else pl.DataFrame(schema=schema)

    def _fitting(self, good: list[tuple[int, bytes]], schema: dict) -> list[pl.DataFrame]:
        """The lines of ``good`` read with ``schema``, in order; a line with a value that does
        not fit its column's type is an error naming it (or, with skip_bad_rows, dropped).
        Found by halving: a few Polars reads per such line, not one read per line."""
        try:
            return [_read_lines(good, schema)]
        except pl.exceptions.PolarsError as error:
            if len(good) > 1:
                half = len(good) // 2
                return self._fitting(good[:half], schema) + self._fitting(good[half:], schema)
            if not self.skip_bad_rows:
                raise DataError(
                    self.path,
                    f"a value does not fit its column's type, which was inferred from the first "
                    f"rows ({error}); pass --skip-bad-rows (skip_bad_rows=True in Python) to "
                    "drop such lines.",
                    line=good[0][0],
                ) from error
            self._skip([good[0][0]])
            return []


def _read_lines(lines: list[tuple[int, bytes]], schema: dict | None) -> pl.DataFrame:
    """Polars' reading of JSON lines (given with their line numbers), with ``schema`` or the
    types of the first INFER_ROWS."""
    body = io.BytesIO(b"\n".join(text for _, text in lines))
    return pl.read_ndjson(body, schema=schema, infer_schema_length=INFER_ROWS)
