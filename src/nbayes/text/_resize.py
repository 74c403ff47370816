"""Columns added to counts and to fitted count models: while a vocabulary grows, later chunks
have more columns than the model fitted so far, and a merge moves the other model's columns to
where the united vocabulary has them.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..families.counts import FeatureSums


def widen(X: sp.csr_array, width: int) -> sp.csr_array:
    """X with ``width`` columns (the new ones empty)."""
    if X.shape[1] == width:
        return X
    return sp.csr_array((X.data, X.indices, X.indptr), shape=(X.shape[0], width))


def resize(model: Any, width: int) -> None:
    """Give a fitted count model ``width`` columns (new ones with zero statistics)."""
    counts = model._stats.counts
    grown = np.zeros((counts.shape[0], width))
    grown[:, : counts.shape[1]] = counts
    model._stats = FeatureSums.from_state({"counts": grown})
    model.n_features_in_ = width


def reindexed(model: Any, where: np.ndarray | None, width: int) -> Any:
    """A copy of a fitted count model whose column j moved to ``where[j]``, with ``width``
    columns."""
    counts = model._stats.counts
    moved = np.zeros((counts.shape[0], width))
    if where is None:
        moved[:, : counts.shape[1]] = counts
    else:
        moved[:, where] = counts[:, : where.shape[0]]
    out = copy.copy(model)
    out._stats = FeatureSums.from_state({"counts": moved})
    out.n_features_in_ = width
    return out
