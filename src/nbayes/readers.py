"""Reading data files in chunks, with memory bounded by the chunk size, as they are published.

Formats: CSV, TSV, Parquet and JSON lines, optionally gzip (``.gz``) or Zstandard (``.zst``)
compressed, from a path or ``-`` (standard input). When the extension says nothing (``.data``,
``.test``, ``.txt``, none) the format is read from the content: Parquet's magic bytes, a ``{``
opening JSON lines, otherwise delimited text whose separator (tab, comma, semicolon or bar) is
the one that splits every sampled line into the same number of fields.

Parsing is Polars'; this module cuts the byte stream into blocks of whole records, so that

* memory holds one block (``chunk_bytes``, 16 MiB by default), whatever the file size;
* every row keeps its line number, so errors name the file, the line and the column;
* a row with too many or too few fields, a quoted field that does not close where its field
  does, or a value that does not fit its column's type is an error naming its line — or, with
  ``skip_bad_rows``, is dropped and counted in ``bad_rows``;
* bytes that are not UTF-8 are replaced by U+FFFD, and a warning names the first line where it
  happened (the same policy as the text models);
* a record longer than ``max_record_bytes`` (64 MiB by default) is an error naming its line, so
  one endless line (or a file of NUL bytes) cannot fill memory; a block with no complete record
  is read again, twice as large, so a long record costs time linear in its length;
* compressed input that is truncated or corrupt (gzip, Zstandard, each frame checked to its end)
  is an error naming the file, never read as a shorter file; a UTF-8 byte-order mark is skipped;
  a file whose lines end with CR alone is an error saying so.

Delimited text as published: ``header=False`` for files without a header line (columns are
then named by ``names`` or by their 1-based position, ``"1"``, ``"2"``, …); whitespace around
fields is stripped (``strip=True``, so ``"39, State-gov"`` reads as ``39`` and ``State-gov``
and the marker ``"?"`` matches ``" ?"``); a separator may be several bytes (``", "``,
``"::"``); ``quote=None`` reads quote characters as ordinary text.

Column types are those Polars infers from the first rows (``INFER_ROWS``) of the first block;
later blocks are read with the same types. (The quick reader of a table of very many columns
infers from fewer rows, :func:`infer_rows`, and leaves a later value of another type to the
careful reader.)
"""

from __future__ import annotations

import csv
import gzip
import io
import mmap
import os
import sys
import warnings
import zlib
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np
import polars as pl

FORMATS = ("csv", "tsv", "parquet", "jsonl")
CHUNK_BYTES = 16 * 2**20
#: The longest record (row, or JSON line) a reader accepts, unless told otherwise.
MAX_RECORD_BYTES = 64 * 2**20
_BOM = b"\xef\xbb\xbf"
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


#: Bytes of the start of a file read to tell its format and separator.
SNIFF_BYTES = 64 * 1024
_EXTENSIONS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
}
_COMPRESSIONS = {".gz": "gzip", ".gzip": "gzip", ".zst": "zstd", ".zstd": "zstd"}
#: Separators tried when the content decides, in order of preference.
_SEPARATORS = ("\t", ",", ";", "|")
#: The byte a separator of several bytes is replaced by before parsing (ASCII unit separator).
_UNIT_SEPARATOR = b"\x1f"


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


# ---------------------------------------------------------------------- format
def _compression(path: str) -> tuple[str | None, list[str]]:
    suffixes = [s.lower() for s in Path(path).suffixes] if path != "-" else []
    compression = _COMPRESSIONS.get(suffixes[-1]) if suffixes else None
    return compression, suffixes[:-1] if compression else suffixes


def detect(path: str, format: str | None = None) -> tuple[str, str | None]:
    """(format, compression) of ``path``: ``format`` if given, else from the extension, else
    from the content (:func:`sniff`); standard input is CSV unless told otherwise."""
    compression, suffixes = _compression(path)
    if format is None:
        format = _EXTENSIONS.get(suffixes[-1]) if suffixes else None
        if format is None:
            format = "csv" if path == "-" else sniff(path, compression)[0]
    if format not in FORMATS:
        raise DataError(path, f"unknown format {format!r}; use one of {FORMATS}.")
    return format, compression


def _head(path: str, compression: str | None, size: int = SNIFF_BYTES) -> bytes:
    try:
        with open(path, "rb") as raw:
            if compression == "gzip":
                return gzip.GzipFile(fileobj=raw).read(size)
            if compression == "zstd":
                import zstandard

                reader = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)
                return reader.read(size)
            return raw.read(size)
    except IsADirectoryError as exc:
        raise DataError(path, "is a folder, not a data file.") from exc
    except OSError as exc:
        raise DataError(path, f"cannot open: {exc.strerror or exc}") from exc


def sniff(path: str, compression: str | None = None) -> tuple[str, str | None]:
    """(format, separator) read from the first bytes of a file whose name says nothing.

    Parquet starts with ``PAR1``; JSON lines with ``{``. Otherwise the file is delimited text,
    and the separator is the first of tab, comma, semicolon and bar that cuts every complete
    sampled line into the same number (> 1) of fields, quotes respected (Python's csv module);
    failing that, the one with the most fields per line. A file that is none of these (binary
    bytes) is an error asking for ``--format``.
    """
    head = _head(path, compression)
    if head.startswith(b"PAR1"):
        return "parquet", None
    if head.lstrip().startswith(b"{"):
        return "jsonl", None
    if b"\x00" in head:
        raise DataError(
            path, f"cannot tell the format from the content; pass --format ({'/'.join(FORMATS)})."
        )
    text = head.decode("utf-8", errors="replace")
    lines = [line for line in text.splitlines()[:100] if line.strip()]
    if len(head) == SNIFF_BYTES and len(lines) > 1:
        lines = lines[:-1]  # the last one may be cut
    return "csv", sniff_separator(lines)


def sniff_separator(lines: Sequence[str]) -> str:
    """The separator that splits ``lines`` most consistently (see :func:`sniff`)."""
    best, most = ",", 1.0
    for separator in _SEPARATORS:
        counts = [len(row) for row in csv.reader(lines, delimiter=separator)]
        if not counts:
            continue
        common = max(set(counts), key=counts.count)
        agree = counts.count(common) / len(counts)
        if common > 1 and agree >= 0.9:
            return separator
        if np.median(counts) > most:
            best, most = separator, float(np.median(counts))
    return best


def read_names(spec: str) -> list[str]:
    """Column names from ``--names``: ``a,b,c``, or a file with one name per line (or names
    separated by commas); blank lines and lines starting with ``#`` or ``|`` are skipped."""
    if os.path.isfile(spec):
        with open(spec, encoding="utf-8", errors="replace") as handle:
            lines = [
                line.strip() for line in handle if line.strip() and line.lstrip()[0] not in "#|"
            ]
        names = [name.strip() for line in lines for name in line.split(",") if name.strip()]
    else:
        names = [name.strip() for name in spec.split(",")]
    if not names or any(not name for name in names):
        raise ValueError(f"--names: expected comma-separated column names, got {spec!r}.")
    repeated = sorted(n for n, count in Counter(names).items() if count > 1)
    if repeated:
        raise ValueError(f"--names repeats the names {repeated}.")
    return names


# ---------------------------------------------------------------------- the reader
class TableReader:
    """Iterate over a data file as :class:`Batch` es of rows.

    ``missing`` markers (e.g. ``["?"]``) are read as nulls. ``skip_bad_rows`` drops rows that
    cannot be read (wrong number of fields, broken quoting, a value not fitting its column's
    type, a JSON line that is not an object), counting them in ``bad_rows``. ``header``,
    ``names``, ``strip`` and ``quote`` are for delimited text (see the module doc).

    ``quick=True`` (for a CSV/TSV file on disk) lets Polars' streaming engine read the whole
    file, about twice as fast as cutting blocks here. It knows no line numbers, so at the first
    sign of trouble — a Polars error, a batch whose last column has an empty value (which is
    what a row with too few fields looks like), a text value with whitespace to strip — it
    raises :class:`QuickReadAbandoned`, and the caller reads again carefully. Quick batches
    carry no line numbers (``first_line`` None).
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
        header: bool = True,
        names: Sequence[str] | None = None,
        strip: bool = True,
        quote: str | None = '"',
        max_record_bytes: int = MAX_RECORD_BYTES,
    ) -> None:
        self.path = str(path)
        self.max_record_bytes = int(max_record_bytes)
        self._read_size = 0  # a bigger next read, after a block that held no complete record
        if os.path.isdir(self.path):
            raise DataError(self.path, "is a folder, not a data file.")
        compression, suffixes = _compression(self.path)
        sniffed = None
        if format is None and self.path != "-" and not (suffixes and suffixes[-1] in _EXTENSIONS):
            format, sniffed = sniff(self.path, compression)
        self.format, self.compression = detect(self.path, format)
        self.separator = separator or sniffed or ("\t" if self.format == "tsv" else ",")
        encoded = self.separator.encode()
        if not encoded or b"\n" in encoded or b"\r" in encoded:
            raise DataError(self.path, f"the separator cannot be {self.separator!r}.")
        self._multibyte = len(encoded) > 1
        self._sep = _UNIT_SEPARATOR if self._multibyte else encoded
        if quote is not None and len(quote.encode()) != 1:
            raise DataError(self.path, f"the quote must be one byte, got {quote!r}.")
        self.quote = quote
        self.header = header
        self.names = list(names) if names is not None else None
        self.strip = strip
        self.missing = [str(m) for m in missing]
        self.chunk_bytes = max(int(chunk_bytes), 1024)
        self.skip_bad_rows = skip_bad_rows
        self.quick = (
            quick
            and self.format in ("csv", "tsv")
            and self.path != "-"
            and not skip_bad_rows
            and not self._multibyte
            # compressed input is streamed by the careful reader: Polars would hold all of
            # it decompressed (a decompression bomb), and stop short of damage without a word
            and self.compression is None
        )
        self.bad_rows = 0
        self.rows = 0
        self.columns: list[str] | None = None
        self._raw: IO[bytes] | None = None
        self._near_misses_checked = not self.missing

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
            return ZstdFrames(raw, self.path)
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
        except (OSError, EOFError, gzip.BadGzipFile, zlib.error) as exc:
            what = "compressed data is truncated or corrupt" if self.compression else "data"
            raise DataError(self.path, f"cannot read: the {what}: {exc}") from exc
        finally:
            if self.path != "-":
                stream.close()
                if self._raw is not None:
                    self._raw.close()

    # ------------------------------------------------------------------ CSV / TSV: quick
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
        self._check_line_ends(sample.removeprefix(_BOM))
        first = sample[: sample.find(b"\n") + 1] if b"\n" in sample else sample
        fields = self._split_line(first, 1)
        self.columns = (
            self._column_names(fields, 1)
            if self.header
            else self._column_names(None, 1, len(self.names or fields))
        )
        # a record longer than max_record_bytes, which Polars would hold whole, abandons the
        # file before Polars reads it; whitespace to strip is looked for in the bytes once a
        # batch has text columns (fast), then per batch if present (a padded number is read
        # as text, or stops Polars, which abandons the quick read)
        self._scan_record_lengths()
        padded: bool | None = None
        per_row = max(1.0, len(sample) / max(1, sample.count(b"\n")))
        rows = max(1000, int(self.chunk_bytes / per_row))
        lazy = pl.scan_csv(
            self.path,
            separator=self.separator,
            has_header=self.header,
            new_columns=self.columns,
            quote_char=self.quote,
            null_values=self.missing or None,
            infer_schema_length=infer_rows(len(self.columns)),
        )
        try:
            for frame in lazy.collect_batches(chunk_size=rows):
                if frame.width and frame.get_column(frame.columns[-1]).null_count():
                    raise QuickReadAbandoned("an empty last field: perhaps a row lacks fields")
                if padded is None and pl.String in frame.schema.values():
                    padded = self._file_padded()
                if padded and _padded_strings(frame):
                    raise QuickReadAbandoned("whitespace around values, to be stripped")
                self._check_near_misses(frame, None)
                batch = Batch(frame, None, self.rows, 0)
                self.rows += frame.height
                if not self.compression:  # progress: an estimate from the first MiB's rows
                    batch.bytes_read = min(self.size or 0, int(self.rows * per_row))
                yield batch
        except (pl.exceptions.PolarsError, OSError) as exc:  # OSError: bad compressed data
            raise QuickReadAbandoned(str(exc)) from exc

    def _file_padded(self) -> bool:
        """Whether a space or tab may touch a separator or a line end anywhere in the file
        (with ``strip``). The record lengths were checked before Polars read the file
        (:meth:`_scan_record_lengths`).

        A file with no blank at all (the usual case, and the one where reading it costs most)
        is answered by byte searches in memory-mapped windows of MAPPED_BYTES, nothing copied
        and no more than a window resident at a time; any other file is read through
        :meth:`_padded_blocks`.
        """
        if not self.strip:
            return False
        blanks = [blank for blank in (b" ", b"\t") if blank != self._sep]
        try:
            with open(self.path, "rb") as handle:
                if not _holds_any(handle, os.fstat(handle.fileno()).st_size, blanks):
                    return False
        except (OSError, ValueError):  # a file that cannot be mapped: read it instead
            pass
        return self._padded_blocks()

    def _scan_record_lengths(self) -> None:
        """Raise QuickReadAbandoned at a run of more than max_record_bytes without a line end
        (:meth:`_check_record_lengths` on a memory map, or :meth:`_padded_blocks`)."""
        try:
            with open(self.path, "rb") as handle:
                self._check_record_lengths(handle, os.fstat(handle.fileno()).st_size)
                return
        except (OSError, ValueError):  # a file that cannot be mapped: read it instead
            pass
        self._padded_blocks()

    def _check_record_lengths(self, handle: IO[bytes], size: int) -> None:
        """Raise QuickReadAbandoned unless every run of more than max_record_bytes bytes holds
        a line end: from each line end found, the next max_record_bytes + 1 bytes must hold
        another (searched from their far end, so most of them are never looked at)."""
        limit, start = self.max_record_bytes, 0
        while size - start > limit:
            stop = start + limit + 1
            with _mapped(handle, start, stop) as (data, at):
                end = data.rfind(b"\n", at, at + stop - start)
            if end < 0:
                raise QuickReadAbandoned("a record longer than max_record_bytes")
            start += end - at + 1

    def _padded_blocks(self) -> bool:
        """:meth:`_file_padded` and the record-length check of :meth:`_scan_record_lengths`
        in one read of the file, into one reused buffer whose first byte is the previous
        block's last (a blank next to a separator may straddle two blocks): no block is
        allocated or copied. For a file that cannot be mapped, or that holds blanks."""
        padded = False
        run = 0  # bytes since the last line end
        buffer = bytearray(self.chunk_bytes + 1)
        view = memoryview(buffer)
        kept = 0  # bytes at the front of the buffer that belong to the previous block
        with open(self.path, "rb", buffering=0) as handle:
            while size := handle.readinto(view[kept:]):
                end = kept + size
                first = buffer.find(b"\n", kept, end)
                if run + (size if first < 0 else first - kept) > self.max_record_bytes:
                    raise QuickReadAbandoned("a record longer than max_record_bytes")
                run = run + size if first < 0 else end - buffer.rfind(b"\n", kept, end) - 1
                if self.strip and not padded:
                    body = buffer if end == len(buffer) else buffer[:end]  # short: the last
                    padded = _padded(body, self._sep)
                buffer[0] = buffer[end - 1]
                kept = 1
        return padded

    # ------------------------------------------------------------------ CSV / TSV: careful
    def _blocks(self, stream: IO[bytes]) -> Iterator[tuple[bytes, bool]]:
        """Blocks of ``chunk_bytes``; a separator of several bytes is replaced by one byte
        (``_UNIT_SEPARATOR``), holding back a block's tail that may begin one."""
        if not self._multibyte:
            first = True
            while True:
                data = stream.read(max(self.chunk_bytes, self._read_size))
                if first and data.startswith(_BOM):
                    data = data[len(_BOM) :]
                first = False
                yield data, len(data) == 0
        separator = self.separator.encode()
        carry = b""
        first = True
        while True:
            data = carry + stream.read(max(self.chunk_bytes, self._read_size))
            if first and data.startswith(_BOM):
                data = data[len(_BOM) :]
            first = False
            at_end = len(data) == len(carry)
            if _UNIT_SEPARATOR in data:
                raise DataError(
                    self.path,
                    "the data holds the byte 0x1F, used in place of a separator of several "
                    "bytes; use a one-byte separator.",
                )
            data, carry = data.replace(separator, _UNIT_SEPARATOR), b""
            if not at_end:  # the tail may be the start of a separator cut by the block's end
                for k in range(len(separator) - 1, 0, -1):
                    if data.endswith(separator[:k]):
                        data, carry = data[:-k], data[-k:]
                        break
            yield data, at_end
            if at_end:
                return

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
                schema = schema or dict(frame.schema)
                self._check_near_misses(frame, first_line)
                yield self._batch(frame, first_line)
            if at_end:
                break
        if self.columns is None:
            raise DataError(self.path, "the file is empty (no header line).")

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

    def _hold(self, pending: bytes, used: int, line: int) -> None:
        """Bytes of an unfinished record wait for the next block: refuse a record longer than
        ``max_record_bytes``, and when nothing of the block was used read twice as much next
        time (so a long record is scanned a number of times logarithmic in its length)."""
        if len(pending) > self.max_record_bytes:
            raise DataError(
                self.path,
                f"a record (row) longer than {self.max_record_bytes:,} bytes starts here, with no "
                "end of line: not delimited text or JSON lines, or a row far longer than any "
                "table's (max_record_bytes raises the limit).",
                line=line,
            )
        self._read_size = 2 * len(pending) if used == 0 and pending else 0

    def _check_line_ends(self, buffer: bytes) -> None:
        """Lines ended by CR alone (classic Mac OS) would read as one endless record."""
        head = buffer[: 2**20]
        if b"\n" not in head and head.rstrip(b"\r").count(b"\r") >= 1:
            raise DataError(
                self.path,
                "the lines end with a carriage return (CR) alone; convert them to LF or CR LF "
                "line ends (for example with: tr '\\r' '\\n').",
                line=1,
            )

    def _column_names(
        self, header: list[str] | None, line: int, count: int | None = None
    ) -> list[str]:
        """The names of the columns: ``names`` if given (their number must be the rows'),
        else the header's (stripped with ``strip``), else the 1-based positions."""
        width = len(header) if header is not None else count
        if self.names is not None:
            if len(self.names) != width:
                raise DataError(
                    self.path,
                    f"--names gives {len(self.names)} names but the "
                    + ("header has" if header is not None else "rows have")
                    + f" {width} fields.",
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
        if numbers:
            warnings.warn(
                f"{self.path}: the header line has names that are numbers ({numbers[:3]}"
                f"{', …' if len(numbers) > 3 else ''}): it looks like data{advice}.",
                UserWarning,
                stacklevel=2,
            )
        return names

    def _scan(self, buffer: bytes, at_end: bool, line: int) -> tuple[np.ndarray, ...]:
        """Record ends, field counts and file lines of the complete records in ``buffer``."""
        array = np.frombuffer(buffer, dtype=np.uint8)
        capacity = buffer.count(b"\n") + 2
        ends = np.empty(capacity, dtype=np.int64)
        fields = np.empty(capacity, dtype=np.int64)
        lines = np.empty(capacity, dtype=np.int64)
        separator = self._sep[0]
        from . import _kernels  # Numba, imported here: the quick reader never needs it

        if self.quote is None or buffer.find(self.quote.encode()) < 0:
            # no quoting anywhere: every newline ends a record
            count, used = _kernels.scan_plain_records(array, separator, at_end, ends, fields)
            lines[:count] = np.arange(count)
        else:
            count, used = _kernels.scan_records(
                array, separator, ord(self.quote), at_end, ends, fields, lines
            )
        return ends[:count], fields[:count], lines[:count] + line, used

    def _quoted(self, buffer: bytes) -> bool:
        return self.quote is not None and buffer.find(self.quote.encode()) >= 0

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

    def _keep_good(
        self, buffer: bytes, starts, ends, fields, lines, expected: int
    ) -> tuple[bytes, np.ndarray]:
        """The bytes of the records with the header's number of fields; others raise or count."""
        blank = fields == 0
        bad = (fields != expected) & ~blank
        if bad.any():
            if not self.skip_bad_rows:
                k = int(np.argmax(bad))
                against = "the header has" if self.header else "the rows have"
                raise DataError(
                    self.path,
                    f"this row has {int(fields[k])} fields but {against} {expected}; fix the "
                    "row, or pass --skip-bad-rows to drop such rows.",
                    line=int(lines[k]),
                )
            self.bad_rows += int(bad.sum())
        good = ~(bad | blank)
        if good.all():
            return buffer[int(starts[0]) : int(ends[-1])] if len(starts) else b"", lines
        # the good records as runs of neighbours: one slice per run, not one per record
        edges = np.flatnonzero(np.diff(np.concatenate(([False], good, [False]))))
        first, last = edges[0::2], edges[1::2] - 1
        pieces = [
            buffer[int(starts[a]) : int(ends[b])] for a, b in zip(first, last, strict=True)
        ]
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
                        f"{_snippet(text)}. If quotes are part of the values, pass --no-quote; "
                        "or --skip-bad-rows to drop such rows.",
                        line=int(line),
                    ) from None
                self.bad_rows += 1
                continue
            rows.append(fields)
            kept.append(line)
        frame = pl.DataFrame(
            rows, schema=dict.fromkeys(self.columns or [], pl.String), orient="row"
        )
        return frame, np.asarray(kept, dtype=np.int64)

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
                            "which was inferred from the first rows; pass --skip-bad-rows to "
                            "drop such rows.",
                            line=int(lines[row]),
                            column=name,
                        )
            self.bad_rows += int(failed.sum())
            converted, lines = converted.filter(pl.Series(~failed)), lines[~failed]
        return converted, lines

    def _check_near_misses(self, frame: pl.DataFrame, first_line: int | None) -> None:
        """Warn (once per file) about text values that are a missing-value marker but for
        whitespace or letter case (``" ?"`` for ``"?"``, ``"na"`` for ``"NA"``): they are read
        as values, not as missing."""
        if self._near_misses_checked:
            return
        wanted = {m.strip().casefold() for m in self.missing}
        for name, dtype in frame.schema.items():
            if dtype != pl.String:
                continue
            column = frame.get_column(name)
            # the distinct values are looked at first: a column holds far fewer of them than
            # rows, and a near miss is rare
            distinct = column.unique()
            near_values = distinct.filter(
                distinct.str.strip_chars().str.to_lowercase().is_in(list(wanted))
                & ~distinct.is_in(self.missing)
            )
            if near_values.len():
                near = column.is_in(near_values.to_list())
                row = int(near.arg_true()[0])
                where = f"line {first_line + row:,}" if first_line is not None else f"row {row:,}"
                self._near_misses_checked = True
                warnings.warn(
                    f"{self.path}: column {name!r} holds {column[row]!r} ({int(near.sum()):,} "
                    f"times in a chunk, first at {where}), which is not the missing-value "
                    f"marker {self.missing if len(self.missing) > 1 else self.missing[0]!r} but "
                    "nearly; it is read as a value. Pass it to --missing if it means missing.",
                    UserWarning,
                    stacklevel=2,
                )
                return

    # ------------------------------------------------------------------ JSON lines
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
        """Find (or, with skip_bad_rows, drop) the lines that are not JSON objects."""
        import json

        good = []
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
                good.append(text)
            except ValueError as error:
                if not self.skip_bad_rows:
                    raise DataError(
                        self.path,
                        f"not a JSON object: {error}; pass --skip-bad-rows to drop such lines.",
                        line=line + offset,
                    ) from exc
                self.bad_rows += 1
        if not good:
            return pl.DataFrame(schema=schema) if schema else pl.DataFrame()
        try:
            return pl.read_ndjson(
                io.BytesIO(b"\n".join(good)), schema=schema, infer_schema_length=INFER_ROWS
            )
        except pl.exceptions.PolarsError as error:
            raise DataError(
                self.path, f"cannot read the JSON lines from line {line:,}: {error}"
            ) from error

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
                frame = self._markers_as_null(frame)
                self._check_near_misses(frame, None)
                yield self._batch(frame, None)
        except pl.exceptions.PolarsError as exc:
            raise DataError(self.path, f"cannot read Parquet: {exc}") from exc

    def _markers_as_null(self, frame: pl.DataFrame) -> pl.DataFrame:
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


# ---------------------------------------------------------------------- helpers
def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


#: Bytes of a file mapped at a time by the quick reader's scan (the window's pages are resident
#: while it is searched, and released after).
MAPPED_BYTES = 64 * 2**20


@contextmanager
def _mapped(handle: IO[bytes], start: int, stop: int) -> Iterator[tuple[mmap.mmap, int]]:
    """Bytes ``start:stop`` of an open file, memory-mapped read-only, and where ``start`` is in
    the map (a map begins at a multiple of mmap.ALLOCATIONGRANULARITY)."""
    base = start - start % mmap.ALLOCATIONGRANULARITY
    with mmap.mmap(handle.fileno(), stop - base, offset=base, access=mmap.ACCESS_READ) as data:
        yield data, start - base


def _holds_any(handle: IO[bytes], size: int, needles: list[bytes]) -> bool:
    """Whether the file holds any of the one-byte ``needles``, searched window by window."""
    for start in range(0, size, MAPPED_BYTES):
        with _mapped(handle, start, min(size, start + MAPPED_BYTES)) as (data, _):
            if any(data.find(needle) >= 0 for needle in needles):
                return True
    return False


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


def _snippet(text: str, limit: int = 60) -> str:
    text = text.rstrip("\r\n")
    return repr(text if len(text) <= limit else text[:limit] + "…")


class ZstdFrames(io.RawIOBase):
    """Zstandard frames one after another, decompressed as a stream that reports damage.

    zstandard's own stream reader returns a truncated file's data as if it were complete; here a
    file that ends inside a frame, or corrupt data, raises :class:`DataError` naming the file.
    Compressed bytes are fed a little at a time (``FEED`` bytes), so one call decompresses at
    most FEED × 32 KiB (zstd's largest expansion, a run-length block) even from a
    decompression bomb, and ``read(n)`` holds little more than n bytes.
    """

    FEED = 2048

    def __init__(self, raw: IO[bytes], path: str) -> None:
        import zstandard

        self._zstd = zstandard
        self._raw = raw
        self._path = path
        self._decompressor = zstandard.ZstdDecompressor()
        self._frame: Any = None  # the frame being decompressed (None between frames)
        self._input = b""
        self._output = bytearray()
        self._eof = False

    def readable(self) -> bool:
        return True

    def _fill(self, wanted: int) -> None:
        while len(self._output) < wanted and not self._eof:
            if not self._input:
                self._input = self._raw.read(2**20)
                if not self._input:
                    self._eof = True
                    if self._frame is not None:
                        raise DataError(
                            self._path, "the Zstandard data is truncated (it ends inside a frame)."
                        )
                    return
            feed, self._input = self._input[: self.FEED], self._input[self.FEED :]
            while feed:
                if self._frame is None:
                    self._frame = self._decompressor.decompressobj()
                try:
                    self._output += self._frame.decompress(feed)
                except self._zstd.ZstdError as exc:
                    raise DataError(self._path, f"the Zstandard data is corrupt: {exc}") from exc
                if self._frame.eof:  # a frame ended; what follows starts the next one
                    feed = self._frame.unused_data
                    self._frame = None
                else:
                    feed = b""

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            self._fill(sys.maxsize)
            size = len(self._output)
        else:
            self._fill(size)
        out = bytes(self._output[:size])
        del self._output[:size]
        return out

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


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


class RowsOverBound(ValueError):
    """The rows :func:`read_all` holds would take more than its ``max_bytes``."""

    def __init__(self, path: str, size: int, bound: int) -> None:
        super().__init__(f"{path}: the rows read so far take {size:,} bytes, above {bound:,}.")
        self.path, self.size, self.bound = path, size, bound


def read_all(reader: Any, *, max_bytes: int | None = None) -> pl.DataFrame:
    """Every batch of ``reader`` in one frame (for the work that needs all rows). With
    ``max_bytes`` the bytes held are counted as the batches arrive (Polars'
    ``estimated_size``) and :class:`RowsOverBound` is raised, the rows dropped, once they would
    pass it — whatever the file's size on disk, so a small compressed file that expands to
    gigabytes stops early and memory stays near the bound plus one chunk."""
    frames: list[pl.DataFrame] = []
    size = 0
    for batch in reader:
        size += batch.frame.estimated_size()
        if max_bytes is not None and size > max_bytes:
            frames.clear()
            raise RowsOverBound(reader.path, size, max_bytes)
        frames.append(batch.frame)
    if not frames:
        return pl.DataFrame(schema=dict.fromkeys(reader.columns or [], pl.String))
    # no rechunk: one copy of the rows, not two at once
    return pl.concat(frames, how="vertical_relaxed", rechunk=False)


# ---------------------------------------------------------------------- documents
class DocumentReader:
    """Labelled documents as :class:`Batch` es of a table with the columns ``label`` and
    ``text`` (and ``file`` for a folder), in chunks of about ``chunk_bytes`` of text.

    Two layouts (those of :func:`nbayes.read_text_folder` and :func:`nbayes.read_labeled_lines`):

    * a folder with one subfolder per class and one document per file (20 Newsgroups); a folder
      of files without subfolders gives documents without a label (for prediction). Classes
      and files are taken in sorted order; hidden entries are skipped; ``file`` is the path
      relative to the folder;
    * a file with one ``label<separator>text`` per line (the SMS Spam Collection): the label is
      before the first separator; blank lines are skipped; a line without the separator is an
      error naming it (or, with ``skip_bad_rows``, is dropped and counted).

    Bytes that are not UTF-8 are replaced by U+FFFD, with one warning per reader that counts the
    documents concerned.
    """

    def __init__(
        self,
        path: str | os.PathLike,
        *,
        separator: str = "\t",
        chunk_bytes: int = CHUNK_BYTES,
        skip_bad_rows: bool = False,
    ) -> None:
        self.path = str(path)
        self.folder = os.path.isdir(self.path)
        if not self.folder and not os.path.isfile(self.path):
            raise DataError(self.path, "cannot open: no such file or folder.")
        if not separator:
            raise DataError(self.path, "the separator cannot be empty.")
        self.separator = separator
        self.chunk_bytes = max(int(chunk_bytes), 1024)
        self.skip_bad_rows = skip_bad_rows
        self.format = "folder" if self.folder else "lines"
        self.columns: list[str] | None = ["file", "label", "text"] if self.folder else None
        self.quick = False
        self.bad_rows = 0
        self.rows = 0
        self._bytes = 0
        self._undecodable = 0
        self._first_undecodable: str | None = None

    @property
    def size(self) -> int | None:
        return None if self.folder else os.path.getsize(self.path)

    def _decode(self, raw: bytes, where: str) -> str:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            self._undecodable += 1
            self._first_undecodable = self._first_undecodable or where
            return raw.decode("utf-8", errors="replace")

    def _documents(self) -> Iterator[tuple[str | None, str | None, str, int]]:
        """(file, label, text, size in bytes) of every document."""
        if not self.folder:
            with open(self.path, "rb") as handle:
                separator = self.separator.encode()
                for number, line in enumerate(handle, start=1):
                    line = line.rstrip(b"\r\n")
                    if not line.strip():
                        continue
                    label, found, text = line.partition(separator)
                    if not found:
                        if not self.skip_bad_rows:
                            raise DataError(
                                self.path,
                                f"no {self.separator!r} separating a label from the text: "
                                f"{_snippet(line.decode('utf-8', 'replace'))}; pass "
                                "--skip-bad-rows to drop such lines.",
                                line=number,
                            )
                        self.bad_rows += 1
                        continue
                    text_ = self._decode(text, f"line {number:,}")
                    yield None, label.decode("utf-8", "replace").strip(), text_, len(line) + 1
            return
        root = Path(self.path)
        entries = sorted(
            (e for e in os.scandir(root) if not e.name.startswith(".")), key=lambda e: e.name
        )
        classes = [e.name for e in entries if e.is_dir()]
        if not classes:
            for entry in entries:
                if entry.is_file():
                    raw = Path(entry.path).read_bytes()
                    yield entry.name, None, self._decode(raw, entry.name), len(raw)
            return
        for name in sorted(classes):
            files = sorted(
                e.name
                for e in os.scandir(root / name)
                if e.is_file() and not e.name.startswith(".")
            )
            if not files:
                warnings.warn(
                    f"{root / name}: a class folder with no documents; the class is left out.",
                    UserWarning,
                    stacklevel=2,
                )
            for file in files:
                relative = f"{name}/{file}"
                raw = (root / name / file).read_bytes()
                yield relative, name, self._decode(raw, relative), len(raw)

    def __iter__(self) -> Iterator[Batch]:
        files: list[str | None] = []
        labels: list[str | None] = []
        texts: list[str] = []
        size = 0
        for file, label, text, length in self._documents():
            files.append(file)
            labels.append(label)
            texts.append(text)
            size += length
            self._bytes += length
            if size >= self.chunk_bytes:
                yield self._batch(files, labels, texts)
                files, labels, texts, size = [], [], [], 0
        if texts:
            yield self._batch(files, labels, texts)
        if self.rows == 0 and self.bad_rows == 0:
            raise DataError(self.path, "there are no documents.")
        if self._undecodable:
            warnings.warn(
                f"{self.path}: {self._undecodable:,} documents hold bytes that are not UTF-8 "
                f"(first: {self._first_undecodable}); they were replaced by U+FFFD.",
                UserWarning,
                stacklevel=2,
            )

    def _batch(self, files: list, labels: list, texts: list) -> Batch:
        columns: dict[str, pl.Series] = {}
        if self.folder:
            columns["file"] = pl.Series("file", files, dtype=pl.String)
        columns["label"] = pl.Series("label", labels, dtype=pl.String)
        columns["text"] = pl.Series("text", texts, dtype=pl.String)
        frame = pl.DataFrame(columns)
        self.columns = frame.columns
        batch = Batch(frame, None, self.rows, self._bytes)
        self.rows += frame.height
        return batch
