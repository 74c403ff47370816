"""What to do when a kernel must be compiled: the first use after an install that did not run
``python -m nbayes.compile`` pauses about a minute to compile the kernels (once per install,
:mod:`nbayes._jit`). The command line registers a notice for a person at a terminal
(:func:`on_first_compile`); :mod:`nbayes._jit` calls :func:`first_compile` before a kernel found
in no cache is compiled. Imports nothing, so the command line can register it without loading
Numba."""

from __future__ import annotations

from collections.abc import Callable

_hooks: list[Callable[[], None]] = []


def on_first_compile(hook: Callable[[], None]) -> None:
    """Call ``hook()`` once, before the next kernel this process must compile."""
    _hooks.append(hook)


def first_compile() -> None:
    """A kernel is about to be compiled: run (and forget) the hooks registered so far."""
    while _hooks:
        _hooks.pop()()
