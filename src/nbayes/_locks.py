"""One lock per fitted model, so that saving never reads statistics half-way through an update.

``fit``, ``partial_fit`` and ``merge`` hold their model's lock while they change its statistics,
and :func:`nbayes.save` holds it while it reads them: a save running beside a ``partial_fit`` in
another thread writes the model as it was before or after that batch, never a mixture. Prediction
does not take the lock. The locks live here, keyed by the model object (weakly), so that models
keep no lock attribute: they still pickle, deep-copy and clone as before.
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections.abc import Callable
from typing import Any

_LOCKS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_GUARD = threading.Lock()


def model_lock(model: Any) -> threading.RLock:
    """The (re-entrant) lock of ``model``, created on first use."""
    with _GUARD:
        lock = _LOCKS.get(model)
        if lock is None:
            lock = threading.RLock()
            _LOCKS[model] = lock
        return lock


def synchronized(method: Callable) -> Callable:
    """Run a model method that changes the statistics while holding the model's lock."""

    @functools.wraps(method)
    def locked(self: Any, *args: Any, **kwargs: Any) -> Any:
        with model_lock(self):
            return method(self, *args, **kwargs)

    return locked
