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
from .integer_columns import FewValues


class FirstPass:
    """The statistics of a table model's own pass, before the structure counts anything: the
    classes, every categorical column's values (its vocabulary, in order of first appearance;
    sorted when the pass is finished), the counts of the text columns' words (a naive Bayes
    text model) and each numeric column's value sketch (:mod:`nbayes.families.sketch`), from
    which the cut points follow, the few distinct values of the numeric columns that may be
    counted instead (:mod:`~nbayes.semi_naive.integer_columns`), and each class's weight and
    weight of missing values per column (categorical columns in the encoder's order, then the
    numeric ones), from which what a missing value means follows
    (:mod:`nbayes.semi_naive.missing`). Batches add (:meth:`add`) and pieces merge
    (:meth:`merge`, in row order) to the statistics of all the rows."""

    def __init__(
        self,
        encoder: CategoricalEncoder,
        numeric: list[ColumnSpec],
        max_bins: int,
        words: Any = None,
        few_values: FewValues | None = None,
    ) -> None:
        self.encoder = encoder
        self.numeric = numeric
        self.max_bins = max_bins
        #: the bag-of-words model of the text columns (a ``NaiveBayes``), or None
        self.words = words
        #: the distinct values of the numeric columns that may yet be counted, or None
        self.few_values = few_values
        self.classes = np.zeros(0)
        self.sketches: ValueSketches | None = None
        width = len(encoder.names) + len(numeric)
        self.class_weight = np.zeros(0)
        self.missing_weight = np.zeros((0, width))

    def _grow_classes(self, new: np.ndarray) -> np.ndarray:
        """Take the classes ``new`` into the union; returns their positions in it."""
        union = np.union1d(self.classes, new) if self.classes.size else new
        if self.sketches is None:
            self.sketches = ValueSketches(len(union), len(self.numeric), self.max_bins)
        elif union.shape != self.classes.shape:
            self.sketches.reindex_classes(np.searchsorted(union, self.classes), len(union))
        if union.shape != self.classes.shape:
            old = np.searchsorted(union, self.classes)
            class_weight = np.zeros(len(union))
            missing_weight = np.zeros((len(union), self.missing_weight.shape[1]))
            class_weight[old] = self.class_weight
            missing_weight[old] = self.missing_weight
            self.class_weight, self.missing_weight = class_weight, missing_weight
        self.classes = union
        return np.searchsorted(union, new)

    def add(self, frame: pl.DataFrame, labels: np.ndarray, weight: np.ndarray) -> None:
        """Add a batch of labelled rows."""
        self._grow_classes(np.unique(labels))
        cls = np.searchsorted(self.classes, labels)
        categories = frame.select(self.encoder.names)
        # the vocabularies are all this pass learns of the categorical columns: no codes
        missing = self.encoder.learn(categories)
        if missing is None:  # a column whose missing values may be NaN: learnt by coding
            missing = np.isnan(self.encoder.encode(categories, fitting=True))
        missing = missing.reshape(frame.height, len(self.encoder.names))
        if self.words is not None:
            texts = frame.select(list(self.words.families))
            self.words.partial_fit(texts, labels, sample_weight=weight)
        if self.numeric:
            block = frame.select([pl.col(s.name).cast(pl.Float64) for s in self.numeric])
            values = np.asarray(block.to_numpy(), dtype=np.float64).reshape(frame.height, -1)
            check_no_infinite(values, [s.name for s in self.numeric])  # the column at fault
            self.sketches.accumulate(values, cls, weight)
            if self.few_values is not None:
                names = (spec.name for spec in self.numeric)
                self.few_values.add(frame, dict(zip(names, self.sketches.features, strict=True)))
            missing = np.hstack([missing, np.isnan(values)])
        self.class_weight += np.bincount(cls, weights=weight, minlength=len(self.classes))
        for j in np.flatnonzero(missing.any(axis=0)):
            self.missing_weight[:, j] += np.bincount(
                cls[missing[:, j]], weights=weight[missing[:, j]], minlength=len(self.classes)
            )

    def merge(self, other: FirstPass) -> None:
        """Add the statistics of the rows that follow (another piece's)."""
        if other.sketches is None:
            return
        self.encoder.absorb(other.encoder)
        positions = self._grow_classes(other.classes)
        self.sketches.merge(other.sketches, positions)
        if self.few_values is not None:
            self.few_values.merge(other.few_values)
        self.class_weight[positions] += other.class_weight
        self.missing_weight[positions] += other.missing_weight
        if other.words is not None:
            fitted = hasattr(self.words, "classes_")
            self.words = self.words.merge(other.words) if fitted else copy.deepcopy(other.words)
