"""Delimited text and JSON lines cut into whole records: the byte stream read in blocks (a
separator of several bytes replaced by one byte), an unfinished record held for the next block
(within ``max_record_bytes``), the record ends and field counts of a block (a compiled scan), and
the records whose number of fields is wrong refused or dropped."""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO

import numpy as np

from ._read_common import _BOM, _UNIT_SEPARATOR, DataError


class RecordCutting:
    """How :class:`~nbayes.readers.TableReader` cuts its input into records (they read its
    ``path``, ``separator``, ``quote``, ``chunk_bytes``, ``max_record_bytes``, ``header`` and
    ``skip_bad_rows``)."""

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
                    "row, or pass --skip-bad-rows (skip_bad_rows=True in Python) to drop such "
                    "rows.",
                    line=int(lines[k]),
                )
            self._skip(lines[bad])
        good = ~(bad | blank)
        if good.all():
            return buffer[int(starts[0]) : int(ends[-1])] if len(starts) else b"", lines
        # the good records as runs of neighbours: one slice per run, not one per record
        edges = np.flatnonzero(np.diff(np.concatenate(([False], good, [False]))))
        first, last = edges[0::2], edges[1::2] - 1
        pieces = [buffer[int(starts[a]) : int(ends[b])] for a, b in zip(first, last, strict=True)]
        if pieces and not pieces[-1].endswith(b"\n"):
            pieces[-1] += b"\n"
        return b"".join(pieces), lines[good]
