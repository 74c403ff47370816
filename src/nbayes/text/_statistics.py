"""The mergeable document statistics of a :class:`~nbayes.text.TextVectorizer`
(:class:`DocumentStatistics`): N, df and tf, the vocabulary and the hash columns' names, added
from vectorizers fitted on other documents and kept in model files."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from .vectorizer import TextVectorizer


class DocumentStatistics:
    """A vectorizer's statistics merged, and as (JSON counters, arrays) of a model file."""

    def _state(self) -> tuple[dict, dict[str, np.ndarray]]:
        """(JSON counters, arrays) of the fitted statistics; see :mod:`nbayes.persist`."""
        self._check_fitted()
        meta = {
            "n_documents": int(self.n_documents_),
            "n_invalid_utf8": int(self.n_invalid_utf8_),
            "n_missing": int(self.n_missing_),
        }
        width = self._width
        arrays = {"df": self._df[:width], "tf": self._tf[:width]}
        for name in ("vocabulary_", "names_"):
            table = getattr(self, name, None)
            if table is not None:
                arrays.update({f"{name[:-1]}.{k}": v for k, v in table.arrays_state().items()})
        if self._named is not None:
            arrays["named"] = self._named
        return meta, arrays

    def _load_state(self, meta: dict, arrays: dict[str, np.ndarray]) -> None:
        """Restore :meth:`_state` into a vectorizer built with the same parameters."""
        from .bytetable import ByteTable

        df, tf = (
            np.asarray(arrays["df"], dtype=np.float64),
            np.asarray(arrays["tf"], dtype=np.float64),
        )
        if df.ndim != 1 or df.shape != tf.shape or np.any(df < 0) or np.any(tf < 0):
            raise ValueError("document statistics must be two equal 1-D arrays of counts >= 0.")
        # checked before _reset, which allocates n_features columns: a forged file's
        # parameters must not size anything that its arrays do not already hold
        if self.mode == "hashing" and df.shape[0] != int(self.n_features):
            raise ValueError(f"hashing mode needs {self.n_features} columns, got {df.shape[0]}.")
        self._reset()
        self._df, self._tf = df.copy(), tf.copy()
        for name in ("vocabulary", "names"):
            if getattr(self, f"{name}_") is not None:
                table = ByteTable.from_arrays(arrays[f"{name}.offsets"], arrays[f"{name}.arena"])
                setattr(self, f"{name}_", table)
        if self.mode == "vocabulary" and len(self.vocabulary_) > df.shape[0]:
            raise ValueError("the vocabulary is larger than its statistics.")
        if self._named is not None:
            named = np.asarray(arrays["named"])
            if named.shape != (df.shape[0],) or named.dtype != np.uint8 or np.any(named > 1):
                raise ValueError("named must mark each hash column with 0 or 1.")
            self._named = named.copy()
        counters = [meta["n_documents"], meta["n_invalid_utf8"], meta["n_missing"]]
        if not all(isinstance(c, int) and not isinstance(c, bool) for c in counters):
            raise ValueError("document counters must be integers.")
        self.n_documents_, self.n_invalid_utf8_, self.n_missing_ = counters
        if min(self.n_documents_, self.n_invalid_utf8_, self.n_missing_) < 0:
            raise ValueError("document counters must be >= 0.")

    def merge(self, *others: TextVectorizer) -> TextVectorizer:
        """Add the statistics (and vocabularies) of vectorizers fitted on other documents;
        returns ``self``. The result equals fitting on all their documents."""
        self.merge_statistics(*others)
        return self

    def merge_statistics(self, *others: TextVectorizer) -> list[np.ndarray | None]:
        """As :meth:`merge`; returns, per other vectorizer, where its internal columns went here
        (None in hashing mode: the same columns)."""
        self._check_fitted()
        moves: list[np.ndarray | None] = []
        for other in others:
            if not isinstance(other, DocumentStatistics):  # a TextVectorizer
                raise TypeError(f"cannot merge a {type(other).__name__} into a {self._name}.")
            other._check_fitted()
            if other._fit_key != self._fit_key:
                raise ValueError(
                    f"cannot merge {self._name}s that tokenise differently: {self._fit_key} vs "
                    f"{other._fit_key}."
                )
            width = other.n_columns_
            if self.mode == "vocabulary":
                where = self.vocabulary_.union(other.vocabulary_)
                self._ensure_width(self.n_columns_)
            else:
                where = None
                if self.names_ is not None and other.names_ is not None:
                    self.names_.add_new_columns(
                        other.names_, self._named, int(self.n_features), int(self.max_names)
                    )
            target = slice(None, width) if where is None else where
            self._df[target] += other._df[:width]
            self._tf[target] += other._tf[:width]
            self.n_documents_ += other.n_documents_
            self.n_invalid_utf8_ += other.n_invalid_utf8_
            self.n_missing_ += other.n_missing_
            self._version += 1
            self._cache.clear()
            moves.append(where)
        return moves
