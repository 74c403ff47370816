"""The partition protocol of ``NaiveBayes``: how code that holds a table in pieces (Dask
partitions) reads, labels and fits each piece as :meth:`NaiveBayes.fit` reads one table."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from ._validation import check_sample_weight
from .labels import (
    LabelledRows,
    keep_labelled,
)
from .schema import ColumnSpec, StringSummary, conform, schema_for

if TYPE_CHECKING:
    from .model import NaiveBayes


class NaiveBayesPartitions:
    """The partition-protocol methods of :class:`~nbayes.NaiveBayes` (a mixin)."""

    # ------------------------------------------------------------------ partition protocol
    # How code that holds a table in pieces (nbayes.distributed: one Dask partition per task)
    # fits a NaiveBayes on all of it, reading and labelling every piece as fit() reads one table.
    # It needs nothing else of the model than these methods and the estimator API (get_params,
    # set_params, merge, predict, schema_, classes_, the parameters):
    #
    #   0. template = model._partition_template(reset=...), sent to every piece;
    #   1. rows = template._read_partition(piece, y, target=..., sample_weight=...) per piece;
    #   2. schema = template._infer_schema(stand_in), once: stand_in holds every column's type
    #      and its distinct values (up to max_int_categories + 1) over all pieces' labelled
    #      rows, so the schema is the one fit() infers from all rows (or the fitted model's
    #      schema_, when the pieces are one more batch);
    #   3. part = template._fit_partition(rows, schema) per piece with rows; merge the parts;
    #   4. over the sums, the rules of a fit: nbayes.labels.warn_dropped (Σ dropped),
    #      labels.no_labelled_rows (no part), labels.check_classes (two classes or more),
    #      schema.unobserved_column (a column with no value in any piece).
    # A NumPy-like piece (a row block of a 2-D array) is a table with _array_columns(d) names.
    def _partition_template(self, *, reset: bool) -> NaiveBayes:
        """An unfitted model that reads and fits pieces as :meth:`fit` (``reset``) or one more
        :meth:`partial_fit` of this model would: its parameters, with the missing-value markers
        of this fitted model (``missing_markers_``) when the pieces are one more batch."""
        params = copy.deepcopy(self.get_params(deep=False))
        if not reset:
            params["missing_values"] = list(self._markers())
        return type(self)(**params)

    def _read_partition(
        self, X: Any, y: Any = None, *, target: str | None = None, sample_weight: Any = None
    ) -> LabelledRows:
        """One piece of a table (with its labels ``y`` or a ``target`` column, and weights) read
        as :meth:`fit` reads a table: missing markers as null, the labels split off by the rules
        of :mod:`nbayes.labels`, the weights checked, the rows without a label dropped and
        counted. No warning and no error for a piece without (labelled) rows."""
        frame, labels = self._split_target(self._frame(X), y, target)
        weight = check_sample_weight(sample_weight, frame.height, estimator="NaiveBayes")
        return keep_labelled(frame, labels, weight)

    def _array_columns(self, n_columns: int) -> list[str]:
        """The names this model reads the columns of a 2-D array by (those it was fitted on,
        else x0, x1, …)."""
        return list(self._frame(np.empty((0, n_columns))).columns)

    def _infer_schema(
        self, frame: pl.DataFrame, strings: dict[str, StringSummary] | None = None
    ) -> list[ColumnSpec]:
        """The schema this model's settings give ``frame`` (read as by :meth:`_read_partition`;
        a column without values is allowed)."""
        return schema_for(self, frame, require_observed=False, strings=strings)

    def _fit_partition(self, rows: LabelledRows, schema: list[ColumnSpec]) -> NaiveBayes:
        """A new model with this one's parameters fitted on one piece's labelled rows (at least
        one) with ``schema``: pieces fitted with one schema merge into the model of all their
        rows. The piece's columns are cast to the schema's types (see
        :func:`nbayes.schema.conform`); extra columns are ignored."""
        model = type(self)(**copy.deepcopy(self.get_params(deep=False)))
        model.families = {s.name: s.family for s in schema}
        return model.partial_fit(
            conform(rows.frame, schema), rows.labels, sample_weight=rows.weight
        )
