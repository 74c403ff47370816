"""The discriminative correction's rows spilled to a temporary folder (:class:`SpilledRows`), so
that its passes over a source too large for memory read them back instead of the source.

Each pass of the correction (:mod:`nbayes.semi_naive.discriminative`) needs every row as
:class:`~nbayes.semi_naive.discriminative.CorrectionRows`: its slots, the structure's scores,
its class, weight and whether it is held out. Computing them means reading the source again,
parsing it, encoding it and scoring it with the structure — for a CSV most of a pass's time. They
do not change from pass to pass, so the first pass writes them, batch by batch, to a folder of
the system's temporary directory (``TMPDIR``), and every later pass reads them back in the same
batches and order: the same numbers, so the same sums and the same model. The folder is removed
when the fit ends, however it ends. Where the spill cannot be written (the disk full, no
temporary directory), it is dropped and the passes read the source again, as before.

Slots are stored as 32-bit integers (a model's slots, every value of every attribute plus one
per attribute, are far fewer than 2³¹; a batch with a larger one keeps 64 bits), which with the
scores, class, weight and flag makes about 4 d + 8 K + 17 bytes a row for d attributes and K
classes.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from .discriminative import CorrectionRows

#: The fields of CorrectionRows, in order, and the type each is stored as.
FIELDS = (
    ("slots", np.int32),
    ("offsets", np.float64),
    ("cls", np.int64),
    ("weight", np.float64),
    ("held_out", np.bool_),
)


class SpilledRows:
    """Batches of correction rows written once and read back in order (module docstring)."""

    def __init__(self) -> None:
        self._folder: Path | None = None
        self._batches = 0
        self.complete = False
        self.failed = False

    def __enter__(self) -> SpilledRows:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def write(self, rows: CorrectionRows) -> None:
        """Add a batch (a no-op once writing has failed)."""
        if self.failed:
            return
        try:
            if self._folder is None:
                self._folder = Path(tempfile.mkdtemp(prefix="nbayes-correction-"))
            for name, dtype in FIELDS:
                array = getattr(rows, name)
                if name == "slots" and array.size and array.max() > np.iinfo(np.int32).max:
                    dtype = np.int64  # beyond what 32 bits hold: kept as they are
                array = np.asarray(array, dtype=dtype)
                np.save(self._path(self._batches, name), array, allow_pickle=False)
            self._batches += 1
        except OSError:  # no room or no temporary folder: read the source every pass instead
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

    def read(self) -> Iterator[CorrectionRows]:
        """The batches, in the order written, as the kernel reads them."""
        for b in range(self._batches):
            arrays = {
                name: np.load(self._path(b, name), allow_pickle=False) for name, _ in FIELDS
            }
            arrays["slots"] = arrays["slots"].astype(np.int64)
            yield CorrectionRows(**arrays)

    def _path(self, batch: int, name: str) -> Path:
        assert self._folder is not None
        return self._folder / f"{batch}-{name}.npy"

    def close(self) -> None:
        self._remove()
        self.complete = False

    def _remove(self) -> None:
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None
