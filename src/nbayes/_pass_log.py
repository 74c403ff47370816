"""Each pass a model makes over its rows, reported to the ``nbayes`` logger at INFO: what the
pass computes and the seconds it took. A model of several passes streamed from a large file
spends minutes in them; ``nbayes fit --verbose`` shows the lines on standard error, and Python
users see them with ``logging.basicConfig(level=logging.INFO)``."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager

LOGGER = logging.getLogger("nbayes")


@contextmanager
def logged_pass(what: str) -> Iterator[None]:
    """Log ``what`` and the wall-clock seconds of the block (a pass) when it ends."""
    start = time.perf_counter()
    yield
    LOGGER.info("%s: %.2f s", what, time.perf_counter() - start)
