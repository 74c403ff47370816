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
  ``skip_bad_rows``, is dropped and counted in ``bad_rows`` (the first lines in ``bad_lines``);
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
later blocks are read with the same types. A column with no value in those rows is typed from its
first values instead: those later in the first block, else those further on in the file, which a
second reading collects (standard input cannot be read twice: there it stays text). (The quick
reader of a table of very many columns infers from fewer rows, :func:`infer_rows`, and leaves a
later value of another type, or a column without values in those rows, to the careful reader.)

The jobs are in modules of their own, re-exported here: what every reader shares
(``_read_common``), what a file is (``_read_options``), Zstandard input (``_read_zstd``), records
cut from the bytes (``_read_records``), column names (``_read_header``), the rules for values
(``_read_values``), the quick reader (``_read_quick``), the careful reading of delimited text
(``_read_delimited``) and of JSON lines (``_read_jsonl``), and labelled documents
(``_read_documents``). This module assembles :class:`TableReader` from them and consumes the
batches: :func:`read_all` (within a byte bound) and :func:`read_ahead` (on a thread).
"""

from __future__ import annotations

import gzip
import io
import os
import sys
import zlib
from collections.abc import Iterator, Sequence
from typing import IO, Any

import polars as pl

from ._read_common import (
    _UNIT_SEPARATOR,
    CHUNK_BYTES,
    INFER_ROWS,
    INFER_VALUES,
    MAX_RECORD_BYTES,
    Batch,
    DataError,
    QuickReadAbandoned,
    SkipsBadRows,
    bad_rows_skipped,
    infer_rows,
)
from ._read_delimited import DelimitedReading
from ._read_documents import DocumentReader
from ._read_header import ColumnNames
from ._read_jsonl import JsonLinesReading
from ._read_options import (
    _EXTENSIONS,
    FORMATS,
    SNIFF_BYTES,
    _compression,
    detect,
    read_names,
    sniff,
    sniff_separator,
)
from ._read_quick import MAPPED_BYTES, QuickReading, _holds_any
from ._read_records import RecordCutting
from ._read_values import ValueRules, _padded
from ._read_zstd import ZstdFrames

__all__ = [
    "CHUNK_BYTES",
    "FORMATS",
    "INFER_ROWS",
    "INFER_VALUES",
    "MAPPED_BYTES",
    "MAX_RECORD_BYTES",
    "SNIFF_BYTES",
    "Batch",
    "DataError",
    "DocumentReader",
    "QuickReadAbandoned",
    "RowsOverBound",
    "TableReader",
    "ZstdFrames",
    "_holds_any",
    "_padded",
    "bad_rows_skipped",
    "detect",
    "infer_rows",
    "read_ahead",
    "read_all",
    "read_names",
    "sniff",
    "sniff_separator",
]


class TableReader(
    QuickReading,
    DelimitedReading,
    JsonLinesReading,
    RecordCutting,
    ColumnNames,
    ValueRules,
    SkipsBadRows,
):
    """Iterate over a data file as :class:`Batch` es of rows.

    ``missing`` markers (e.g. ``["?"]``) are read as nulls. ``skip_bad_rows`` drops rows that
    cannot be read (wrong number of fields, broken quoting, a value not fitting its column's
    type, a JSON line that is not an object), counting them in ``bad_rows`` and keeping the lines
    of the first ten in ``bad_lines``. ``header``,
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
        self.bad_lines: list[int] = []
        self.rows = 0
        self.columns: list[str] | None = None
        self._raw: IO[bytes] | None = None
        self._near_misses_checked = not self.missing
        self._header_doubted = False  # the header line already said to look like data
        #: whether a column with no value in the first block is typed from values further on
        #: (``DelimitedReading._typed_further_on``; off for the reader that finds them)
        self.look_ahead = True

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
