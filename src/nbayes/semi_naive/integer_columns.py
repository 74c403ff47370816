"""Which numeric columns of a semi-naive table are counted as categories: those whose values
are at most ``max_int_categories`` distinct integers (a code, a rating, a count of legs), cut
into intervals otherwise.

The rule reads the values, not their type: pandas holds a column of integers with a missing
value as floats (NaN has no integer), Polars and the command line's reader as integers with
nulls, and the same rows must give the same model either way. It also reads *all* the rows:
a fit over batches, passes or Dask partitions decides at the end of the table's pass, from each
column's distinct values gathered over every piece (:class:`FewValues`: at most
``max_int_categories`` + 1 of them, so a column of many values costs nothing once it has shown
more). ``partial_fit``, which has no end, decides on its first batch
(:func:`nbayes.schema.few_integers_in`, the rule ``NaiveBayes`` follows).
"""

from __future__ import annotations

from dataclasses import replace

import polars as pl

from ..families.sketch import FeatureSketch
from ..schema import ColumnSpec, column_kind, few_integers, few_integers_in, present

__all__ = ["FewValues", "few_integers_in"]


class FewValues:
    """The distinct present values of a table's numeric columns over the rows added so far, per
    column until it shows more than ``cap`` (then None); batches add (:meth:`add`) and pieces
    merge (:meth:`merge`) to those of all the rows."""

    def __init__(self, names: list[str], cap: int) -> None:
        self.cap = cap
        self.values: dict[str, set | None] = {name: set() for name in names}

    def add(self, frame: pl.DataFrame, sketches: dict[str, FeatureSketch]) -> None:
        """Add a batch's values; ``sketches``: the columns' value sketches with the batch
        added, which close at no cost a column that already shows more than ``cap`` values
        (a sketch holds no more keys than the values of the rows of positive weight)."""
        for name, sketch in sketches.items():
            if name in self.values and sketch.keys.shape[0] > self.cap:
                self.values[name] = None
        for name, seen in self.values.items():
            if seen is not None:
                values = present(frame.get_column(name)).unique().head(self.cap + 1)
                self._take(name, seen, values.to_list())

    def merge(self, other: FewValues) -> None:
        for name, seen in self.values.items():
            theirs = other.values[name]
            if seen is not None:
                self._take(name, seen, theirs)

    def _take(self, name: str, seen: set, new: list | set | None) -> None:
        if new is None:
            self.values[name] = None
            return
        seen.update(new)
        if len(seen) > self.cap:
            self.values[name] = None

    def categories(self, spec: ColumnSpec) -> tuple[ColumnSpec, list] | None:
        """The categorical column ``spec`` becomes, with its categories (ascending; integers
        in an integer column, floats in a floating-point one), where its values over all the
        rows are at most ``cap`` distinct integers; None where it is cut into intervals."""
        seen = self.values.get(spec.name)
        # (a column typed as integers in its first batch may hold fractions in a later one)
        if seen is None or not few_integers(seen, self.cap):
            return None
        if column_kind(spec.dtype) == "int":
            return replace(spec, family="categorical", dtype=pl.Int64), sorted(int(v) for v in seen)
        return replace(spec, family="categorical", dtype=pl.Float64), sorted(map(float, seen))
