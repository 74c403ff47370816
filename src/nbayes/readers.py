"""Reading data files in chunks, with memory bounded by the chunk size.

Formats: CSV, TSV, Parquet and JSON lines, optionally gzip (``.gz``) or Zstandard (``.zst``)
compressed, from a path or ``-`` (standard input). Parsing is Polars'; this module only cuts the
byte stream into blocks of whole records, so that

* memory holds one block (``chunk_bytes``, 16 MiB by default), whatever the file size;
* every row keeps its line number, so errors can name it;
* a CSV row with too many or too few fields is an error naming its line — or, with
  ``skip_bad_rows``, is dropped and counted;
* bytes that are not UTF-8 are replaced by U+FFFD, and a warning names the first line where it
  happened (the same policy as the text models).

Column types are those Polars infers from the first block; later blocks are read with the same
types, and a value that does not fit is an error naming its line and column.
"""

from __future__ import annotations

import csv
import gzip
import io
import os
import sys
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np
import polars as pl

from . import _kernels

FORMATS = ("csv", "tsv", "parquet", "jsonl")
CHUNK_BYTES = 16 * 2**20
#: Rows of the first block from which Polars infers the column types (all rows would be slow).
INFER_ROWS = 20_000
_EXTENSIONS = {
    ".csv": "csv",
    ".txt": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
}
_COMPRESSIONS = {".gz": "gzip", ".gzip": "gzip", ".zst": "zstd", ".zstd": "zstd"}


class QuickReadAbandoned(Exception):
    """The quick reading of a file met something only the careful reader can report or repair
    (a malformed row, a type mismatch, bytes that are not UTF-8). Whoever consumed the quick
    batches starts over with ``quick=False``."""


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


def detect(path: str, format: str | None = None) -> tuple[str, str | None]:
    """(format, compression) of ``path`` from its extension, or from ``format``."""
    suffixes = [s.lower() for s in Path(path).suffixes] if path != "-" else []
    compression = _COMPRESSIONS.get(suffixes[-1]) if suffixes else None
    if compression:
        suffixes = suffixes[:-1]
    if format is None:
        format = _EXTENSIONS.get(suffixes[-1]) if suffixes else None
        if format is None:
            if path == "-":
                format = "csv"
            else:
                raise DataError(
                    path,
                    f"cannot tell the format from the name; pass --format ({'/'.join(FORMATS)}).",
                )
    if format not in FORMATS:
        raise DataError(path, f"unknown format {format!r}; use one of {FORMATS}.")
    return format, compression


class TableReader:
    """Iterate over a data file as :class:`Batch` es of rows.

    ``missing`` markers (e.g. ``["?"]``) are read as nulls; ``skip_bad_rows`` drops CSV rows
    with the wrong number of fields, counting them in ``bad_rows``.

    ``quick=True`` (for a CSV/TSV file on disk) lets Polars' streaming engine read the whole
    file, about twice as fast as cutting blocks here. It knows no line numbers, so at the first
    sign of trouble — a Polars error, or a batch whose last column has an empty value (which is
    what a row with too few fields looks like) — it raises :class:`QuickReadAbandoned`, and the
    caller reads again carefully. Quick batches carry no line numbers (``first_line`` None).
    """

    def __init__(
        self,
        path: str | os.PathLike,
        *,
        format: str | None = None,
        separator: str | None = None,
        missing: Sequence[str] = (),
        chunk_bytes: int = CHUNK_BYTES,
        skip_bad_rows: bool = False,
        quick: bool = False,
    ) -> None:
        self.path = str(path)
        self.format, self.compression = detect(self.path, format)
        self.separator = separator or ("\t" if self.format == "tsv" else ",")
        if len(self.separator.encode()) != 1:
            raise DataError(self.path, f"the separator must be one byte, got {self.separator!r}.")
        self.missing = [str(m) for m in missing]
        self.chunk_bytes = max(int(chunk_bytes), 1024)
        self.skip_bad_rows = skip_bad_rows
        self.quick = (
            quick and self.format in ("csv", "tsv") and self.path != "-" and not skip_bad_rows
        )
        self.bad_rows = 0
        self.rows = 0
        self.columns: list[str] | None = None
        self._raw: IO[bytes] | None = None

    @property
    def size(self) -> int | None:
        """Bytes of the file on disk (None for standard input)."""
        return None if self.path == "-" else os.path.getsize(self.path)

    def _bytes_read(self) -> int:
        try:
            return self._raw.tell() if self._raw is not None else 0
        except (OSError, ValueError):
            return 0

    def _open(self) -> IO[bytes]:
        if self.path == "-":
            raw = sys.stdin.buffer
        else:
            try:
                raw = open(self.path, "rb")
            except OSError as exc:
                raise DataError(self.path, f"cannot open: {exc.strerror}") from exc
        self._raw = raw
        if self.compression == "gzip":
            return gzip.GzipFile(fileobj=raw)
        if self.compression == "zstd":
            try:
                import zstandard
            except ImportError as exc:  # pragma: no cover - zstandard is a dependency
                raise DataError(
                    self.path, "reading .zst files needs the zstandard package."
                ) from exc
            return zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)
        return raw

    def __iter__(self) -> Iterator[Batch]:
        if self.quick:
            yield from self._csv_quick()
            return
        if self.format == "parquet":
            yield from self._parquet()
            return
        stream = self._open()
        try:
            if self.format == "jsonl":
                yield from self._jsonl(stream)
            else:
                yield from self._csv(stream)
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            raise DataError(self.path, f"cannot read the (compressed) data: {exc}") from exc
        finally:
            if self.path != "-":
                stream.close()
                if self._raw is not None:
                    self._raw.close()

    # ------------------------------------------------------------------ CSV / TSV
    def _csv_quick(self) -> Iterator[Batch]:
        """Polars' streaming CSV engine over the whole file (see ``quick`` in the class doc)."""
        stream = self._open()
        try:
            sample = stream.read(2**20)
        finally:
            stream.close()
            if self._raw is not None:
                self._raw.close()
        if not sample.strip():
            raise QuickReadAbandoned("empty file")
        header = sample[: sample.find(b"\n") + 1] if b"\n" in sample else sample
        self.columns = self._header_names(header, 1)
        per_row = max(1.0, len(sample) / max(1, sample.count(b"\n")))
        rows = max(1000, int(self.chunk_bytes / per_row))
        lazy = pl.scan_csv(
            self.path,
            separator=self.separator,
            null_values=self.missing or None,
            infer_schema_length=INFER_ROWS,
        )
        try:
            for frame in lazy.collect_batches(chunk_size=rows):
                if frame.width and frame.get_column(frame.columns[-1]).null_count():
                    raise QuickReadAbandoned("an empty last field: perhaps a row lacks fields")
                batch = Batch(frame, None, self.rows, 0)
                self.rows += frame.height
                if not self.compression:  # progress: an estimate from the first MiB's rows
                    batch.bytes_read = min(self.size or 0, int(self.rows * per_row))
                yield batch
        except pl.exceptions.PolarsError as exc:
            raise QuickReadAbandoned(str(exc)) from exc

    def _blocks(self, stream: IO[bytes]) -> Iterator[tuple[bytes, bool]]:
        while True:
            data = stream.read(self.chunk_bytes)
            yield data, len(data) == 0

    def _csv(self, stream: IO[bytes]) -> Iterator[Batch]:
        pending = b""
        header: bytes | None = None
        expected = 0
        schema: dict | None = None
        line = 1  # file line of the first byte of ``pending``
        for data, at_end in self._blocks(stream):
            buffer = pending + data
            if not buffer:
                break
            if header is None:
                ends, fields, lines, used = self._scan(buffer, at_end, line)
                keep = np.flatnonzero(fields > 0)
                if keep.size == 0:  # only blank lines so far
                    pending, line = buffer[used:], line + buffer.count(b"\n", 0, used)
                    if at_end:
                        break
                    continue
                first = int(keep[0])
                header = buffer[int(ends[first - 1]) if first else 0 : int(ends[first])]
                header = header if header.endswith(b"\n") else header + b"\n"
                expected = int(fields[first])
                self.columns = self._header_names(header, int(lines[first]))
                offset = int(ends[first])
                line += buffer.count(b"\n", 0, offset)
                buffer = buffer[offset:]
            if not buffer:
                break
            frame, first_line, used, newlines = self._block(
                header, buffer, at_end, line, expected, schema
            )
            pending = buffer[used:]
            line += newlines
            if frame is not None:
                schema = schema or dict(frame.schema)
                yield self._batch(frame, first_line)
            if at_end:
                break
        if header is None:
            raise DataError(self.path, "the file is empty (no header line).")

    def _scan(self, buffer: bytes, at_end: bool, line: int) -> tuple[np.ndarray, ...]:
        """Record ends, field counts and file lines of the complete records in ``buffer``."""
        array = np.frombuffer(buffer, dtype=np.uint8)
        capacity = buffer.count(b"\n") + 2
        ends = np.empty(capacity, dtype=np.int64)
        fields = np.empty(capacity, dtype=np.int64)
        lines = np.empty(capacity, dtype=np.int64)
        separator = ord(self.separator)
        if buffer.find(b'"') < 0:  # no quoting anywhere: every newline ends a record
            count, used = _kernels.scan_plain_records(array, separator, at_end, ends, fields)
            lines[:count] = np.arange(count)
        else:
            count, used = _kernels.scan_records(
                array, separator, ord('"'), at_end, ends, fields, lines
            )
        return ends[:count], fields[:count], lines[:count] + line, used

    def _block(
        self,
        header: bytes,
        buffer: bytes,
        at_end: bool,
        line: int,
        expected: int,
        schema: dict | None,
    ) -> tuple[pl.DataFrame | None, int, int, int]:
        """Parse the complete records of ``buffer``: (frame or None, line of its first row,
        bytes used, newlines in them).

        Fast path, for blocks without quotes or blank lines once the types are known: cut at
        the last newline and let Polars parse, then check the field counts only if Polars
        complained or some row's last field is empty (a row with too few fields looks like
        that). Otherwise, and whenever the check is needed, every record is scanned.
        """
        if schema is not None and buffer.find(b'"') < 0:
            used = len(buffer) if at_end else buffer.rfind(b"\n") + 1
            body = buffer[:used]
            newlines = body.count(b"\n")
            rows = newlines + (0 if body.endswith(b"\n") else 1)
            if used == 0 or (used < 16 and not body.strip()):
                return None, line, used, newlines
            try:
                frame = self._parse(header, body, np.arange(rows) + line, schema)
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
        newlines = buffer.count(b"\n", 0, used)
        starts = np.concatenate(([0], ends[:-1]))
        body, body_lines = self._keep_good(buffer, starts, ends, fields, lines, expected)
        if not body:
            return None, line, used, newlines
        return self._parse(header, body, body_lines, schema), int(body_lines[0]), used, newlines

    def _header_names(self, header: bytes, line: int) -> list[str]:
        # the standard library splits the one header line; Polars would silently rename
        # repeated names (a, a_duplicated_0), and a repeated name is an error here
        text = header.decode("utf-8", errors="replace").rstrip("\r\n")
        names = next(csv.reader([text], delimiter=self.separator))
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise DataError(
                self.path, f"duplicate column names in the header: {repeated}.", line=line
            )
        return names

    def _keep_good(
        self, buffer: bytes, starts, ends, fields, lines, expected: int
    ) -> tuple[bytes, np.ndarray]:
        """The bytes of the records with the header's number of fields; others raise or count."""
        blank = fields == 0
        bad = (fields != expected) & ~blank
        if bad.any():
            if not self.skip_bad_rows:
                k = int(np.argmax(bad))
                raise DataError(
                    self.path,
                    f"this row has {int(fields[k])} fields but the header has {expected}; fix the "
                    "row, or pass --skip-bad-rows to drop such rows.",
                    line=int(lines[k]),
                )
            self.bad_rows += int(bad.sum())
        good = ~(bad | blank)
        if good.all():
            return buffer[int(starts[0]) : int(ends[-1])] if len(starts) else b"", lines
        pieces = [buffer[int(s) : int(e)] for s, e in zip(starts[good], ends[good], strict=True)]
        if pieces and not pieces[-1].endswith(b"\n"):
            pieces[-1] += b"\n"
        return b"".join(pieces), lines[good]

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

    def _parse(
        self, header: bytes, body: bytes, lines: np.ndarray, schema: dict | None
    ) -> pl.DataFrame:
        options: dict[str, Any] = {"separator": self.separator, "null_values": self.missing or None}
        if schema is None:  # the first block: the header names the columns, types are inferred
            options["infer_schema_length"] = INFER_ROWS
            source = header + body
        else:  # later blocks: the schema names and types the columns (no header copy)
            options["schema"] = schema
            options["has_header"] = False
            source = body
        try:
            try:
                return pl.read_csv(source, **options)
            except pl.exceptions.ComputeError as exc:
                if "utf-8" not in str(exc).lower():
                    raise
                # bytes that are not UTF-8: replace them (and say where), as the text models do
                return pl.read_csv(source, encoding=self._decode_policy(body, lines), **options)
        except pl.exceptions.PolarsError as exc:
            if schema is None:
                raise DataError(self.path, f"cannot parse: {exc}") from exc
            raise self._locate(header, body, lines, schema, exc) from exc

    def _locate(
        self, header: bytes, body: bytes, lines: np.ndarray, schema: dict, exc: Exception
    ) -> DataError:
        """Find the line and column of a value that does not fit the column's type."""
        text = pl.read_csv(
            io.BytesIO(header + body),
            separator=self.separator,
            infer_schema=False,
            null_values=self.missing or None,
            encoding="utf8-lossy",
        )
        for name, dtype in schema.items():
            column = text.get_column(name)
            converted = column.cast(dtype, strict=False)
            failed = converted.is_null() & column.is_not_null()
            if failed.any():
                row = int(failed.arg_true()[0])
                return DataError(
                    self.path,
                    f"the value {column[row]!r} does not fit the column's type {dtype}, which was "
                    "inferred from the first block of rows.",
                    line=int(lines[row]),
                    column=name,
                )
        return DataError(self.path, f"cannot parse: {exc}", line=int(lines[0]))

    # ------------------------------------------------------------------ JSON lines
    def _jsonl(self, stream: IO[bytes]) -> Iterator[Batch]:
        pending = b""
        schema: dict | None = None
        line = 1
        for data, at_end in self._blocks(stream):
            buffer = pending + data
            cut = len(buffer) if at_end else buffer.rfind(b"\n") + 1
            body, pending = buffer[:cut], buffer[cut:]
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
                yield self._batch(frame, line)
            line += body.count(b"\n")
            if at_end:
                break
        if self.columns is None:
            raise DataError(self.path, "the file is empty (no JSON records).")

    def _jsonl_slow(
        self, body: bytes, line: int, schema: dict | None, exc: Exception
    ) -> pl.DataFrame:
        """Find (or, with skip_bad_rows, drop) the lines that are not JSON objects."""
        import json

        good = []
        for offset, text in enumerate(body.split(b"\n")):
            if not text.strip():
                continue
            try:
                if not isinstance(json.loads(text), dict):
                    raise ValueError("not a JSON object")
                good.append(text)
            except ValueError as error:
                if not self.skip_bad_rows:
                    raise DataError(
                        self.path, f"not a JSON object: {error}", line=line + offset
                    ) from exc
                self.bad_rows += 1
        if not good:
            return pl.DataFrame(schema=schema) if schema else pl.DataFrame()
        return pl.read_ndjson(
            io.BytesIO(b"\n".join(good)), schema=schema, infer_schema_length=INFER_ROWS
        )

    # ------------------------------------------------------------------ Parquet
    def _parquet(self) -> Iterator[Batch]:
        if self.compression:
            raise DataError(
                self.path, "Parquet is compressed inside the file; do not gzip/zstd it."
            )
        if self.path == "-":
            source: Any = io.BytesIO(sys.stdin.buffer.read())  # Parquet needs random access
        else:
            source = self.path
        try:
            lazy = pl.scan_parquet(source)
            self.columns = list(lazy.collect_schema().names())
            rows = max(1, self.chunk_bytes // 256)
            for frame in lazy.collect_batches(chunk_size=rows):
                frame = self._parquet_missing(frame)
                yield self._batch(frame, None)
        except pl.exceptions.PolarsError as exc:
            raise DataError(self.path, f"cannot read Parquet: {exc}") from exc

    def _parquet_missing(self, frame: pl.DataFrame) -> pl.DataFrame:
        if not self.missing:
            return frame
        strings = [n for n, t in frame.schema.items() if t == pl.String]
        return frame.with_columns(
            pl.when(pl.col(n).is_in(self.missing)).then(None).otherwise(pl.col(n)).alias(n)
            for n in strings
        )

    def _batch(self, frame: pl.DataFrame, first_line: int | None) -> Batch:
        batch = Batch(frame, first_line, self.rows, self._bytes_read())
        self.rows += frame.height
        return batch


def read_ahead(batches: Iterator[Batch], depth: int = 2) -> Iterator[Batch]:
    """Produce batches in a background thread while the caller consumes earlier ones.

    Reading, splitting and parsing (Polars and the Numba scan release the GIL) then overlap
    with fitting. At most ``depth`` parsed batches wait in memory.
    """
    import queue
    import threading

    pipe: queue.Queue = queue.Queue(maxsize=depth)
    done = object()
    stop = threading.Event()

    def produce() -> None:
        try:
            for batch in batches:
                while not stop.is_set():
                    try:
                        pipe.put(batch, timeout=0.1)
                        break
                    except queue.Full:
                        continue
                if stop.is_set():
                    return
            pipe.put(done)
        except BaseException as error:  # handed to the consumer, raised there
            pipe.put(error)

    worker = threading.Thread(target=produce, name="nbayes-reader", daemon=True)
    worker.start()
    try:
        while True:
            item = pipe.get()
            if item is done:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        worker.join(timeout=5)


def read_all(reader: TableReader) -> pl.DataFrame:
    """Every batch of ``reader`` concatenated (for cross-validation, which needs all rows)."""
    frames = [batch.frame for batch in reader]
    if not frames:
        return pl.DataFrame(schema=dict.fromkeys(reader.columns or [], pl.String))
    return pl.concat(frames, how="vertical_relaxed")
