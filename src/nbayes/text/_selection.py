"""Which columns a fitted :class:`~nbayes.text.TextVectorizer` gives, and how they are weighed
(:class:`ColumnSelection`): ``min_df``, ``max_df`` and ``max_features`` choose columns from the
document statistics, and ``idf`` weighs them, *lazily*, when features are produced (never while
counting, so that merges stay exact and the options may change after fitting)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._validation import is_int
from . import weighting


class ColumnSelection:
    """The lazy selection and weighting of a vectorizer's columns (module docstring)."""

    def _selecting(self) -> bool:
        """Whether columns are chosen from the statistics (else: all columns, stateless)."""
        return self.fitted

    def selected_columns(self) -> np.ndarray:
        """Internal columns that ``min_df`` / ``max_df`` / ``max_features`` keep, ascending."""
        self._check_params()
        if not self._selecting():
            if self.mode == "vocabulary":
                self._check_fitted()
            if (
                self.max_features is not None
                or (is_int(self.min_df) and self.min_df > 1)
                or (not is_int(self.min_df) and self.min_df > 0)
                or self.max_df != 1.0
            ):
                self._check_fitted()
            return np.arange(self.n_columns_)
        key = ("columns", self.min_df, self.max_df, self.max_features, self._version)
        if key not in self._cache:
            self._cache[key] = self._select()
        return self._cache[key]

    def _select(self) -> np.ndarray:
        n = self.n_documents_
        width = self.n_columns_
        df = self._df[:width]
        low = self.min_df if is_int(self.min_df) else self.min_df * n
        high = self.max_df if is_int(self.max_df) else self.max_df * n
        if high < low:
            raise ValueError("max_df corresponds to < documents than min_df")
        keep = np.flatnonzero((df >= low) & (df <= high))
        if self.max_features is not None and keep.shape[0] > self.max_features:
            order = np.lexsort((keep, -self._tf[keep]))
            keep = np.sort(keep[order[: self.max_features]])
        if keep.shape[0] == 0:
            raise ValueError(
                f"{self._name}: after pruning, no terms remain (min_df={self.min_df}, "
                f"max_df={self.max_df}, N={n}). Try a lower min_df or a higher max_df."
            )
        return keep

    def _positions(self, columns: np.ndarray) -> np.ndarray:
        """position[j] = where internal column j is among ``columns`` (-1: not selected)."""
        cached = self._cache.get("positions") if self.fitted else None
        if cached is not None and cached[0] is columns:
            return cached[1]
        position = np.full(max(self.n_columns_, 1), -1, dtype=np.int64)
        position[columns] = np.arange(columns.shape[0])
        if self.fitted:
            self._cache["positions"] = (columns, position)
        return position

    def idf_weights(self, columns: np.ndarray | None = None) -> np.ndarray | None:
        """idf_j of the selected columns (None when ``idf`` is off)."""
        mode = weighting.check_idf(self.idf)
        if mode is None:
            return None
        self._check_fitted()
        columns = self.selected_columns() if columns is None else columns
        return weighting.idf_weights(self._df[columns], self.n_documents_, mode)

    @property
    def n_features_out_(self) -> int:
        return int(self.selected_columns().shape[0])

    def select(self, X: sp.csr_array, columns: np.ndarray) -> sp.csr_array:
        """X restricted to ``columns`` (internal ids) and renumbered 0..len(columns)-1."""
        return weighting.transform(
            X, tf=False, norm=False, position=self._positions(columns), width=columns.shape[0]
        )

    def features(self, X: sp.csr_array, *, weigh: bool = True) -> sp.csr_array:
        """Raw counts (internal numbering) → the output features: tf and norm on the whole
        document, then the selected columns, then × idf (one compiled pass)."""
        columns = self.selected_columns()
        everything = columns.shape[0] == X.shape[1] and (
            columns.shape[0] == 0 or columns[-1] == columns.shape[0] - 1
        )
        idf = self.idf_weights(columns) if weigh else None
        return weighting.transform(
            X,
            tf=self.tf if weigh else False,
            norm=bool(self.norm) and weigh,
            position=None if everything else self._positions(columns),
            width=columns.shape[0],
            scale=idf,
        )
