"""The statistics of a table model's own pass (:class:`FirstPass`): what a
:class:`~nbayes.semi_naive.SemiNaiveBayes` learns of its columns before its structure counts
anything, mergeable so that batches, passes and Dask partitions give the statistics of all rows.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import polars as pl

from ..encoding import CategoricalEncoder, check_no_infinite
from ..families.sketch import ValueSketches
from ..schema import ColumnSpec


class FirstPass:
    """The statistics of a table model's own pass, before the structure counts anything: the
    classes, every categorical column's values (its vocabulary, in order of first appearance),
    the counts of the text columns' words (a naive Bayes text model) and each numeric column's
    value sketch (:mod:`nbayes.families.sketch`), from which the cut
    points follow. Batches add (:meth:`add`) and pieces merge (:meth:`merge`, in row order) to
    the statistics of all the rows."""

    def __init__(
        self,
        encoder: CategoricalEncoder,
        numeric: list[ColumnSpec],
        max_bins: int,
        words: Any = None,
    ) -> None:
        self.encoder = encoder
        self.numeric = numeric
        self.max_bins = max_bins
        #: the bag-of-words model of the text columns (a ``NaiveBayes``), or None
        self.words = words
        self.classes = np.zeros(0)
        self.sketches: ValueSketches | None = None

    def _grow_classes(self, new: np.ndarray) -> np.ndarray:
        """Take the classes ``new`` into the union; returns their positions in it."""
        union = np.union1d(self.classes, new) if self.classes.size else new
        if self.sketches is None:
            self.sketches = ValueSketches(len(union), len(self.numeric), self.max_bins)
        elif union.shape != self.classes.shape:
            self.sketches.reindex_classes(np.searchsorted(union, self.classes), len(union))
        self.classes = union
        return np.searchsorted(union, new)

    def add(self, frame: pl.DataFrame, labels: np.ndarray, weight: np.ndarray) -> None:
        """Add a batch of labelled rows."""
        self._grow_classes(np.unique(labels))
        self.encoder.encode(frame.select(self.encoder.names), fitting=True)
        if self.words is not None:
            texts = frame.select(list(self.words.families))
            self.words.partial_fit(texts, labels, sample_weight=weight)
        if self.numeric:
            block = frame.select([pl.col(s.name).cast(pl.Float64) for s in self.numeric])
            values = np.asarray(block.to_numpy(), dtype=np.float64).reshape(frame.height, -1)
            check_no_infinite(values, [s.name for s in self.numeric])  # the column at fault
            self.sketches.accumulate(
                values,
                np.searchsorted(self.classes, labels),
                weight,
            )

    def merge(self, other: FirstPass) -> None:
        """Add the statistics of the rows that follow (another piece's)."""
        if other.sketches is None:
            return
        self.encoder.absorb(other.encoder)
        self.sketches.merge(other.sketches, self._grow_classes(other.classes))
        if other.words is not None:
            fitted = hasattr(self.words, "classes_")
            self.words = self.words.merge(other.words) if fitted else copy.deepcopy(other.words)
