"""Recognising a Dask collection without importing Dask (``import nbayes`` never does): a Dask
Array, DataFrame or Series is an object whose class has ``__dask_graph__`` and comes from a
``dask`` module. Both the estimators' door (:mod:`nbayes._dispatch`) and
:mod:`nbayes.distributed` ask it, so neither imports the other for it.
"""

from __future__ import annotations

from typing import Any


def is_dask_collection(obj: Any) -> bool:
    """True for Dask collections (Array, DataFrame, Series, Delayed), without importing Dask."""
    kind = type(obj)
    return (
        kind.__module__.partition(".")[0] in ("dask", "dask_expr")
        and getattr(kind, "__dask_graph__", None) is not None
    )
