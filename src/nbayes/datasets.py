"""Small data sets bundled with nbayes: two textbook-size worked examples and one real UCI table.

Each loader returns a :class:`Table`: string-valued columns (``X``, with ``None`` where a value is
missing), the class labels ``y`` and the column names. They are read with the standard library's
``csv`` module, since the files are a few kilobytes.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from importlib import resources

import numpy as np

MUSHROOM_COLUMNS = [
    "cap-shape",
    "cap-surface",
    "cap-color",
    "bruises",
    "odor",
    "gill-attachment",
    "gill-spacing",
    "gill-size",
    "gill-color",
    "stalk-shape",
    "stalk-root",
    "stalk-surface-above-ring",
    "stalk-surface-below-ring",
    "stalk-color-above-ring",
    "stalk-color-below-ring",
    "veil-type",
    "veil-color",
    "ring-number",
    "ring-type",
    "spore-print-color",
    "population",
    "habitat",
]


@dataclass(frozen=True)
class Table:
    """Rows of string values (``None`` = missing), their labels and the column names."""

    X: np.ndarray
    y: np.ndarray
    feature_names: list[str]
    target_name: str

    def frame(self):
        """The table as a Polars DataFrame, the target as its last column."""
        import polars as pl

        columns = {name: self.X[:, j].tolist() for j, name in enumerate(self.feature_names)}
        return pl.DataFrame({**columns, self.target_name: self.y.tolist()})

    def codes(self) -> tuple[np.ndarray, list[np.ndarray]]:
        """Integer codes 0 … S_j − 1 per column (NaN where missing), and each column's values."""
        columns, values = [], []
        for j in range(self.X.shape[1]):
            column = self.X[:, j]
            present = np.array([v is not None for v in column])
            levels = np.unique(column[present].astype(str))
            codes = np.full(column.shape[0], np.nan)
            codes[present] = np.searchsorted(levels, column[present].astype(str))
            columns.append(codes)
            values.append(levels)
        return np.column_stack(columns), values


def _read(name: str) -> list[list[str]]:
    with resources.files("nbayes.data").joinpath(name).open(newline="") as handle:
        return [row for row in csv.reader(handle) if row]


def _table(rows: list[list[str]], names: list[str], target: int, missing: str | None) -> Table:
    body = np.array(rows, dtype=object)
    y = body[:, target].astype(str)
    X = np.delete(body, target, axis=1)
    if missing is not None:
        X[X == missing] = None
    return Table(X, y, [n for i, n in enumerate(names) if i != target], names[target])


def load_buys_computer() -> Table:
    """Han & Kamber's buys_computer table (14 rows; Data Mining: Concepts and Techniques,
    3rd ed., table 8.1), their worked example of naive Bayes classification."""
    header, *rows = _read("buys_computer.csv")
    return _table(rows, header, target=len(header) - 1, missing=None)


def load_programmers() -> Table:
    """15 employees: plaid shirt, bald, glasses (1/0) → programmer (1/0): a table small enough
    to count by hand, with a zero count (no non-programmer is bald) that Laplace smoothing
    repairs."""
    header, *rows = _read("programmers.csv")
    return _table(rows, header, target=len(header) - 1, missing=None)


def load_mushroom() -> Table:
    """UCI Mushroom (8,124 rows; class ``e`` edible or ``p`` poisonous; ``?`` is missing)."""
    rows = _read("mushroom.data")
    return _table(rows, ["class", *MUSHROOM_COLUMNS], target=0, missing="?")
