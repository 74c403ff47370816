"""Send a method call to :mod:`nbayes.distributed` when it is given a Dask collection.

Recognising a Dask collection must not import Dask (``import nbayes`` never does): a Dask Array,
DataFrame or Series is an object whose class has ``__dask_graph__`` and comes from a ``dask``
module. Only then is :mod:`nbayes.distributed` (and with it Dask) imported.

This is the one door from the estimators to :mod:`nbayes.distributed`, and the one circle of
imports in nbayes: distributed → ``_base`` → ``_dispatch`` ⇢ distributed, the last step taken
inside :func:`dask_aware`'s wrapper, on the first Dask input (checked by
``tests/test_partitions.py``).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any


def is_dask_collection(obj: Any) -> bool:
    """True for Dask collections (Array, DataFrame, Series, Delayed), without importing Dask."""
    kind = type(obj)
    return (
        kind.__module__.partition(".")[0] in ("dask", "dask_expr")
        and getattr(kind, "__dask_graph__", None) is not None
    )


def dask_aware(method: Callable) -> Callable:
    """Decorate an estimator method so that Dask inputs go to ``nbayes.distributed.<name>``.

    The distributed function receives the estimator and the call's arguments by name (bound to
    the method's own signature), so positional and keyword calls behave alike.
    """
    signature = inspect.signature(method)
    name = method.__name__

    @functools.wraps(method)
    def wrapper(self, *args: Any, **kwargs: Any) -> Any:
        if any(is_dask_collection(a) for a in args) or any(
            is_dask_collection(v) for v in kwargs.values()
        ):
            from . import distributed

            arguments = signature.bind(self, *args, **kwargs).arguments
            arguments.pop(next(iter(signature.parameters)))
            return getattr(distributed, name)(self, **arguments)
        return method(self, *args, **kwargs)

    return wrapper
