"""Columns left out of a table model (the family ``"ignore"``).

A column of this family is read (so that tables keep their shape) but contributes nothing:
log P(x_j | c) = 0 for every class. ``families={"column": "ignore"}`` drops a column without
editing the data; the schema gives it to a string column that looks like an identifier (see
:mod:`nbayes.schema`), whose values would almost all be new at prediction.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from ._group import LEFT_OUT, ColumnGroup, Settings
from ._registry import Family, register


class NoStatistics:
    """The statistics of columns that are left out: none."""

    def accumulate(self, block: Any, cls: np.ndarray, weight: np.ndarray) -> None:
        pass

    def merge(self, other: Any, positions: np.ndarray) -> None:
        pass

    def reindex_classes(self, positions: np.ndarray, n_classes: int) -> None:
        pass

    def state(self) -> dict[str, np.ndarray]:
        return {}

    def check(self, n_classes: int, n_features: int) -> None:
        pass

    @classmethod
    def from_state(cls, state: dict[str, np.ndarray]) -> NoStatistics:
        return cls()


class NoEncoder:
    """Reads nothing: the block of a left-out column is an empty (rows × 0) array."""

    def encode(self, frame: pl.DataFrame, *, fitting: bool) -> np.ndarray:
        return np.zeros((frame.height, 0))

    def meta(self) -> dict:
        return {}

    def load_meta(self, meta: dict) -> None:
        pass


class IgnoredColumns(ColumnGroup):
    """Columns that contribute nothing to the model."""

    family = "ignore"

    def __init__(self, names: list[str], n_classes: int, **options: Any) -> None:
        super().__init__(names, n_classes, family="ignore")
        self.encoder = NoEncoder()
        self.stats = NoStatistics()
        self.n_classes = n_classes

    def reindex_classes(self, positions: np.ndarray, n_classes: int) -> None:
        self.n_classes = n_classes

    def check(self, n_classes: int) -> None:
        self.n_classes = n_classes  # a loaded model's groups learn K here

    def log_likelihood(self, block: Any, settings: Settings) -> np.ndarray:
        return np.zeros((block.shape[0], self.n_classes))

    def explain_row(self, block: Any, settings: Settings) -> list[tuple[str, str, np.ndarray]]:
        return [(name, LEFT_OUT, np.full(self.n_classes, np.nan)) for name in self.names]

    def tables(
        self, classes: np.ndarray, settings: Settings, *, grid: int = 200
    ) -> dict[str, pl.DataFrame]:
        """None: a left-out column has no conditional distribution."""
        return {}

    def describe(self, classes: np.ndarray, settings: Settings) -> str:
        return "\n\n".join(f"{name}  (left out: contributes nothing)" for name in self.names)


register(
    Family(
        "ignore",
        rank=95,
        reads=frozenset({"string", "bool", "int", "float"}),
        group=IgnoredColumns,
        summary="left out of the model (contributes nothing)",
    )
)
