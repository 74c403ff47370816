"""Rows spilled to a temporary folder (:class:`SpilledBatches`, :func:`replayed`), so that passes
over a source too large for memory read the source once and the spill after that.

A model fitted from a re-readable source (``fit_passes``, the command line's streamed files)
makes several passes over the same rows. Each pass needs the rows in a form that does not
change from pass to pass, and computing that form means reading the source again, parsing it and
encoding it — for a CSV most of a pass's time:

* the passes after the table's own read the rows as it read them: the labelled frames
  (:mod:`nbayes.semi_naive.table_passes`), spilled as Arrow IPC files (LZ4-compressed: a
  table of categories shrinks several times, and its columns come back without a parse);
* the structure's passes after its first (k-DB's parent counts, selective k-DB's leave-one-out
  losses) read the rows as the table model encoded them: their codes (NaN missing), class and
  weight (:mod:`nbayes.semi_naive.table_passes`), and, for the discriminative correction's first
  pass where the table has no text column, whether each row is held out;
* every later pass of the discriminative correction reads
  :class:`~nbayes.semi_naive.discriminative.CorrectionRows`: slots, the structure's scores,
  class, weight and whether the row is held out (:mod:`nbayes.semi_naive.table_correction`).

So the first such pass writes them, batch by batch, to a folder of the system's temporary
directory (``TMPDIR``), and every later pass reads them back in the same batches and order: the
same numbers, so the same sums and the same model. The folder is removed when the passes end,
however they end. Where the spill cannot be written (the disk full, no temporary directory), it
is dropped and the passes read the source again, as they would without it.

Arrays are stored as compactly as they stay exact: codes as 32-bit floats when every code is an
integer below 2²⁴ (4 d bytes a row for d columns, against the 8 d of the codes in memory), a
correction's slots as 32-bit integers when they fit.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import numpy as np
import polars as pl

Item = TypeVar("Item")

#: What a spilled batch may hold: arrays (NumPy's .npy files) and tables (Arrow IPC files).
Piece = np.ndarray | pl.DataFrame


class SpilledBatches:
    """Batches of arrays and tables written once and read back in order (module docstring)."""

    def __init__(self, prefix: str = "nbayes-rows-") -> None:
        self._prefix = prefix
        self._folder: Path | None = None
        self._batches = 0
        self._kinds: tuple[bool, ...] = ()  # per piece of a batch: a table (else an array)
        self.complete = False
        self.failed = False

    def __enter__(self) -> SpilledBatches:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def write(self, arrays: Sequence[Piece] | None) -> None:
        """Add a batch; None (a batch that cannot be stored) drops the spill, as a failed write
        does (a no-op once writing has failed)."""
        if self.failed:
            return
        if arrays is None:
            self._abandon()
            return
        try:
            if self._folder is None:
                self._folder = Path(tempfile.mkdtemp(prefix=self._prefix))
            kinds = tuple(isinstance(piece, pl.DataFrame) for piece in arrays)
            if self._batches and kinds != self._kinds:
                raise ValueError("every batch of a spill holds the same kinds of pieces")
            for index, piece in enumerate(arrays):
                path = self._path(self._batches, index, kinds[index])
                if isinstance(piece, pl.DataFrame):
                    piece.write_ipc(path, compression="lz4")
                else:
                    np.save(path, piece, allow_pickle=False)
            self._kinds = kinds
            self._batches += 1
        except (OSError, ValueError, pl.exceptions.PolarsError):
            # no room, no temporary folder, an object array, or a column Arrow cannot hold
            self._abandon()

    def _abandon(self) -> None:
        """Stop spilling: every pass reads the source."""
        self.failed = True
        self._remove()

    def start(self) -> None:
        """A pass that writes begins: anything an unfinished one wrote is dropped."""
        self._remove()
        self._batches = 0
        self.complete = False

    def finish(self) -> None:
        """The first pass is over: later passes may read the batches back."""
        self.complete = not self.failed

    def read(self) -> Iterator[list[Piece]]:
        """The batches, in the order written."""
        for b in range(self._batches):
            yield [
                pl.read_ipc(self._path(b, i, table)) if table
                else np.load(self._path(b, i, table), allow_pickle=False)
                for i, table in enumerate(self._kinds)
            ]  # fmt: skip

    def _path(self, batch: int, index: int, table: bool) -> Path:
        assert self._folder is not None
        return self._folder / f"{batch}-{index}.{'arrow' if table else 'npy'}"

    def close(self) -> None:
        self._remove()
        self.complete = False

    def _remove(self) -> None:
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None


@contextmanager
def replayed(
    batches: Callable[[], Iterable[Item]],
    pack: Callable[[Item], Sequence[Piece] | None],
    unpack: Callable[[list[Piece]], Item],
    prefix: str,
) -> Iterator[Callable[[], Iterable[Item]]]:
    """``again()``, which gives ``batches()``'s items: the first complete pass reads them from
    ``batches()`` and spills each as ``pack(item)``; every later pass reads the spill back
    through ``unpack``. A ``pack`` that returns None (a batch it cannot store exactly) stops
    the spilling: every pass then reads ``batches()``. The spill is removed on leaving."""
    with SpilledBatches(prefix) as spill:

        def again() -> Iterable[Item]:
            if spill.complete:
                for arrays in spill.read():
                    yield unpack(arrays)
                return
            spill.start()
            for item in batches():
                if not spill.failed:
                    spill.write(pack(item))
                yield item
            spill.finish()

        yield again


def compact_codes(codes: np.ndarray) -> np.ndarray:
    """Codes as 32-bit floats when that keeps every one exact (integer codes below 2²⁴ do; NaN,
    missing, stays NaN), else as they are."""
    narrow = codes.astype(np.float32)
    return narrow if np.array_equal(narrow, codes, equal_nan=True) else codes


def compact_slots(slots: np.ndarray) -> np.ndarray:
    """Slots as 32-bit integers when they fit (−1: no term)."""
    if slots.size and slots.max() > np.iinfo(np.int32).max:
        return slots
    return slots.astype(np.int32)
