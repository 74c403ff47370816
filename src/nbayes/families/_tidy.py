"""Helpers for the families' ``tables()``: fitted conditionals as tidy (long) frames.

The columns each family's frames hold are documented in :mod:`nbayes.conditionals`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import polars as pl


def tidy_frame(
    name: str,
    classes: np.ndarray,
    rows: int,
    shared: dict[str, Any] | None = None,
    per_class: dict[str, np.ndarray] | None = None,
) -> pl.DataFrame:
    """A frame of K × ``rows`` rows, class by class, with the columns ``feature`` and ``class``,
    then ``shared`` columns (``rows`` values repeated for every class) and ``per_class``
    columns ((K, rows) arrays)."""
    k = len(classes)
    data: dict[str, Any] = {
        "feature": [name] * (k * rows),
        "class": np.repeat(np.asarray(classes), rows).tolist(),
    }
    for key, values in (shared or {}).items():
        data[key] = list(values) * k
    for key, array in (per_class or {}).items():
        array = np.asarray(array, dtype=np.float64)
        if array.shape != (k, rows):
            raise ValueError(f"{key}: shape {array.shape}, expected {(k, rows)}.")
        data[key] = array.reshape(k * rows)
    import polars as pl  # the conditionals' tables only: not imported with the estimators

    return pl.DataFrame(data, strict=False)


def column_log_likelihood(group: Any, j: int, values: np.ndarray, settings: Any) -> np.ndarray:
    """log P(x_j = v | c) for each value v of column j of a group, shape (len(values), K): the
    group's own log-likelihood with every other column missing, so it cannot disagree with
    prediction."""
    block = np.full((len(values), len(group.names)), np.nan)
    block[:, j] = values
    return group.log_likelihood(block, settings)
