"""Send a method call to :mod:`nbayes.distributed` when it is given a Dask collection.

Recognising a Dask collection must not import Dask (``import nbayes`` never does): a Dask Array,
DataFrame or Series is an object whose class has ``__dask_graph__`` and comes from a ``dask``
module. Only then is :mod:`nbayes.distributed` (and with it Dask) imported.

This is the one door from the estimators to :mod:`nbayes.distributed`, and the one import in
nbayes that goes up a layer (ARCHITECTURE.md), taken inside :func:`dask_aware`'s wrapper on the
first Dask input. Nothing imports back, so it closes no circle (``tests/test_partitions.py``,
``tests/test_architecture.py``).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

from ._collections import is_dask_collection


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
