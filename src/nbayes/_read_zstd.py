"""Zstandard input read as a stream that reports a truncated or corrupt file."""

from __future__ import annotations

import io
import sys
from typing import IO, Any

from ._read_common import DataError


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
