"""Numba kernels compiled once per install, not once per process or per user.

``numba.njit(cache=True)`` keeps compiled kernels in the package's ``__pycache__`` only when that
folder is writable; otherwise it compiles again and saves into each user's own cache folder, and
a precompiled ``__pycache__`` in a read-only install (a system package, a container image, a
shared environment) is never read. Kernels made with :func:`kernel` use a two-level cache:

* **load** from the package's ``__pycache__`` whether or not it is writable (so that
  ``python -m nbayes.compile``, run once when the package is installed, serves every user and
  process), then from ``NUMBA_CACHE_DIR`` or the user's cache folder (``~/.cache/numba``);
* **save** into the package's ``__pycache__`` when it is writable, otherwise into
  ``NUMBA_CACHE_DIR`` or the user's cache folder;
* a cache that cannot be read or written never fails a computation: the kernel is compiled.

Numba keys each entry on the source file's content hash, the signature and the CPU, so a stale or
foreign entry is never used. Should Numba's cache internals change (they are not public API), the
kernels fall back to ``cache=True``.

A helper kernel called once per value of an inner loop takes scalars (``table_row(X[i, j],
offsets[j], n_categories[j])``), not the arrays to index: a call handed arrays takes a reference
on each and releases it, atomic operations that Numba's reference-count pruning leaves in place
when the helper branches, and that cost several times the work of a gather (35 ns a value in
``_kernels.gather_rows``, over 100 in the networks' scoring, before their helpers took scalars).
Whole-block helpers, called once per block of rows, may take arrays.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numba

from ._first_compile import first_compile

#: The options every nbayes kernel is compiled with (the GIL released so threads can run them).
OPTIONS: dict[str, Any] = {"nogil": True}

try:  # pragma: no branch - depends on the Numba version
    from numba.core import caching as _caching

    class _PackageLocator(_caching._SourceFileBackedLocatorMixin, _caching._CacheLocator):
        """The ``__pycache__`` beside the kernel's source, readable even when not writable."""

        def __init__(self, py_func: Callable, py_file: str) -> None:
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = os.path.join(os.path.dirname(py_file), "__pycache__")

        def get_cache_path(self) -> str:
            return self._cache_path

        @classmethod
        def from_function(cls, py_func: Callable, py_file: str) -> _PackageLocator | None:
            return cls(py_func, py_file) if os.path.exists(py_file) else None

    class _PackageImpl(_caching.CompileResultCacheImpl):
        _locator_classes = (_PackageLocator,)

    class _UserImpl(_caching.CompileResultCacheImpl):
        _locator_classes = (_caching.UserProvidedCacheLocator, _caching.UserWideCacheLocator)

    class _PackageCache(_caching.FunctionCache):
        _impl_class = _PackageImpl

    class _UserCache(_caching.FunctionCache):
        _impl_class = _UserImpl

    class KernelCache(_caching._Cache):
        """Load from the package's cache, then the user's; save to the first that is writable."""

        def __init__(self, py_func: Callable) -> None:
            self._levels = [_PackageCache(py_func)]
            try:
                self._levels.append(_UserCache(py_func))
            except RuntimeError:  # no writable user cache folder: the package's only
                pass

        @property
        def cache_path(self) -> str:
            return self._levels[0].cache_path

        def load_overload(self, sig: Any, target_context: Any) -> Any:
            for level in self._levels:
                try:
                    data = level.load_overload(sig, target_context)
                except OSError:
                    continue
                if data is not None:
                    return data
            first_compile()  # in no cache: Numba compiles it now
            return None

        def save_overload(self, sig: Any, data: Any) -> None:
            for level in self._levels:
                try:
                    level.save_overload(sig, data)
                    return
                except OSError:  # read-only or full: try the next level
                    continue

        def enable(self) -> None:
            for level in self._levels:
                level.enable()

        def disable(self) -> None:
            for level in self._levels:
                level.disable()

        def flush(self) -> None:
            for level in self._levels:
                level.flush()

except (ImportError, AttributeError):  # pragma: no cover - a Numba without these internals
    KernelCache = None  # type: ignore[assignment,misc]


def kernel(function: Callable | None = None, **options: Any) -> Any:
    """``numba.njit`` with nbayes' options and the install-wide cache described above.

    Use as ``@kernel`` or ``@kernel(parallel=True, fastmath={"contract"})``.
    """

    def compile_(fn: Callable) -> Any:
        settings = {**OPTIONS, **options}
        if KernelCache is None:  # pragma: no cover
            return numba.njit(cache=True, **settings)(fn)
        dispatcher = numba.njit(**settings)(fn)
        try:
            dispatcher._cache = KernelCache(dispatcher.py_func)
        except Exception:  # pragma: no cover - Numba internals changed: its own cache
            dispatcher.enable_caching()
        return dispatcher

    return compile_ if function is None else compile_(function)
