"""The reduce: partial results of partitions combined in a tree, in partition order.

A partition's result is small (a fitted model's statistics, a few counts); ``split_every`` of
them are combined per task, level by level, until one is left, which the client receives.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np

#: Results combined per task in the tree reduction.
SPLIT_EVERY = 8


class Partial:
    """What one partition (or one merge of several) sends on: a fitted model (None when it had no
    labelled rows), the number of rows dropped for a missing target, and per column the number
    of observed values (``NaiveBayes`` only)."""

    def __init__(
        self, model: Any = None, dropped: int = 0, observed: np.ndarray | None = None
    ) -> None:
        self.model = model
        self.dropped = dropped
        self.observed = observed

    def __sizeof__(self) -> int:
        # Dask's memory accounting and transfer metrics read sys.getsizeof: report the bytes of
        # the statistics, which are what travels
        size = 256
        if self.model is not None:
            size += self.model.class_count_.nbytes
            size += sum(a.nbytes for a in self.model._stats.state().values())
        if self.observed is not None:
            size += self.observed.nbytes
        return size


def combine_partials(*partials: Partial) -> Partial:
    """Merge in order (the first model's vocabulary order and classes come first); inputs are
    left unchanged, as Dask requires of task inputs."""
    models = [p.model for p in partials if p.model is not None]
    observed = [p.observed for p in partials if p.observed is not None]
    return Partial(
        copy.deepcopy(models[0]).merge(*models[1:]) if models else None,
        sum(p.dropped for p in partials),
        np.sum(observed, axis=0) if observed else None,
    )


def sum_arrays(*parts: np.ndarray) -> np.ndarray:
    """Element-wise sum of the partitions' arrays (e.g. score's weighted counts)."""
    return np.sum(parts, axis=0)


def tree_reduce(leaves: list[Any], combine: Callable, split_every: int, prefix: str) -> Any:
    """Combine the leaves' results (Delayed) in a tree, ``split_every`` at a time, keeping their
    order, and compute it on the current scheduler; returns the root's value. Task keys are
    ``prefix-depth-token-i``."""
    import dask
    from dask.base import tokenize

    if isinstance(split_every, bool) or not isinstance(split_every, int) or split_every < 2:
        raise ValueError(f"split_every must be an integer >= 2, got {split_every!r}.")
    token = tokenize(*(leaf.key for leaf in leaves))
    level, depth = list(leaves), 0
    while True:
        level = [
            dask.delayed(combine)(
                *level[i : i + split_every],
                dask_key_name=f"{prefix}-{depth}-{token}-{i // split_every}",
            )
            for i in range(0, len(level), split_every)
        ]
        depth += 1
        if len(level) == 1:
            break
    (result,) = dask.compute(level[0])
    return result
