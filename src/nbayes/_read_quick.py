"""The quick reading of a CSV or TSV file on disk: Polars' streaming engine over the whole file,
abandoned (:class:`~nbayes._read_common.QuickReadAbandoned`) at the first sign of what only the
careful reader can report or repair. Before Polars reads the file, its records are checked
against ``max_record_bytes`` and, once a batch has text columns, the file is searched for
whitespace to strip: in memory-mapped windows, or block by block."""

from __future__ import annotations

import mmap
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

import polars as pl

from ._read_common import _BOM, Batch, QuickReadAbandoned, infer_rows, untyped_columns
from ._read_values import _padded, _padded_strings

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


class QuickReading:
    """:class:`~nbayes.readers.TableReader` with ``quick=True`` (see its doc): it reads the
    reader's ``path``, ``separator``, ``header``, ``names``, ``quote``, ``missing``, ``strip``,
    ``chunk_bytes`` and ``max_record_bytes``."""

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
        if self._first_row_padded(sample.removeprefix(_BOM)):
            # a file as UCI publishes it (", " between fields): the first batch would show
            # the padding, after a pass over the file for its record lengths
            raise QuickReadAbandoned("whitespace around values, to be stripped")
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
                if self.rows == 0 and untyped_columns(frame, infer_rows(len(self.columns))):
                    # the careful reader types it from the values further on in the file
                    raise QuickReadAbandoned("a column with no value in the first rows")
                if padded is None and pl.String in frame.schema.values():
                    padded = self._file_padded()
                if padded and _padded_strings(frame):
                    raise QuickReadAbandoned("whitespace around values, to be stripped")
                self._check_near_misses(frame, None)
                self._check_header_not_data(frame)
                batch = Batch(frame, None, self.rows, 0)
                self.rows += frame.height
                if not self.compression:  # progress: an estimate from the first MiB's rows
                    batch.bytes_read = min(self.size or 0, int(self.rows * per_row))
                yield batch
        except (pl.exceptions.PolarsError, OSError) as exc:  # OSError: bad compressed data
            raise QuickReadAbandoned(str(exc)) from exc

    def _first_row_padded(self, sample: bytes) -> bool:
        """Whether the first row of data (the sample's first or second line, complete and
        without a quote character) has a field that begins or ends with a blank, which the
        careful reader strips (with ``strip``): Polars would read that field's column as
        text with the blank kept, and the quick reading would be abandoned at its first
        batch."""
        first = 1 if self.header else 0  # the first row's line, counted from 0
        lines = sample.split(b"\n", first + 1)
        if not self.strip or len(lines) <= first + 1:  # no line end after it: incomplete
            return False
        row = lines[first].removesuffix(b"\r")
        if not row or (self.quote is not None and self.quote.encode() in row):
            return False
        return _padded(row + b"\n", self._sep)

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
