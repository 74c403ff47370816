"""Merging finished :class:`~nbayes.semi_naive.SemiNaiveBayes` models (:class:`TableMerge`):
their vocabularies unioned, the other models' codes translated, their counts added; refused,
naming the reason, where the result could not equal one fit on all the rows."""

from __future__ import annotations

import copy
import warnings
from typing import TYPE_CHECKING, Any

from .._base import warn_parameter_differences
from ..schema import check_counted_sizes, merged_type

if TYPE_CHECKING:
    from .table import SemiNaiveBayes


class TableMerge:
    """``merge`` of a table model fitted in one pass (see :meth:`merge`)."""

    def merge(self, *others: SemiNaiveBayes) -> SemiNaiveBayes:
        """Add the counts of models fitted on other rows; returns ``self``, which then equals the
        model one fit on the union of their rows gives (to round-off in sums).

        For one-pass structures (AODE, WAODE, AODEsr, AnDE, HNB, TAN, k-DB with k = 1) over
        categorical columns: their vocabularies are unioned and the other models' codes
        translated (:meth:`PairCounts.recoded`). A structure learnt before it is counted (k-DB
        with k >= 2, selective k-DB) or numeric columns cut into intervals (their cut points
        come from all rows) are refused: such a model is fitted by the staged protocol
        (:meth:`fit_passes`, or a Dask collection), which merges each pass's statistics. Nothing
        of either model changes when the merge is refused."""
        self._check_fitted()
        for model in (self, *others):
            if isinstance(model, TableMerge):
                model._refuse_correction("SemiNaiveBayes.merge")
                if not model._nothing_was_missing():
                    model._refuse_missing_choice("SemiNaiveBayes.merge")
        for other in others:
            self._check_mergeable(other)
        for other in others:  # the structures inside share these: said once, here
            warn_parameter_differences(self, other)
        merged = copy.deepcopy(self)
        for other in others:
            mappings = merged._encoder.absorb(other._encoder)
            encoder = merged._encoder  # (a copy: the models stay as they were if refused)
            check_counted_sizes(
                encoder.names, encoder.dtypes, encoder.sizes().tolist(), self.families,
                self.max_int_categories,
            )  # fmt: skip
            by_column = dict(zip(other._encoder.names, mappings, strict=True))
            inner = copy.deepcopy(other.model_)
            counts = inner._pairs
            recoded = counts.recoded(
                [by_column[s.name] for s in self.schema_], merged.model_._pairs.n_values
            )
            if counts is inner._stats:
                inner._stats = recoded
            else:
                inner._stats.pairs = recoded
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                merged.model_.merge(inner)
            if merged._words is not None:
                merged._words.merge(other._words)
        self.__dict__.update(merged.__dict__)
        return self

    def _nothing_was_missing(self) -> bool:
        """Whether ``missing="category"`` found no missing value in any column (each column's
        mode is then "skip"): the fit on the union of the models' rows finds none either, so
        the models merge as with ``missing="skip"``. (Under "auto" a column may be skipped
        although values were missing, by a test the union's rows could decide otherwise.)"""
        return self.missing == "category" and all(m == "skip" for m in self.missing_modes_)

    def _check_mergeable(self, other: Any) -> None:
        """Raise, naming the reason, unless ``other``'s counts can be added to this model's."""
        if not isinstance(other, TableMerge):  # a SemiNaiveBayes, the one model merged so
            raise TypeError(f"cannot merge a {type(other).__name__} into a SemiNaiveBayes.")
        other._check_fitted()
        name = type(self.model_).__name__
        if type(other.model_) is not type(self.model_):
            raise ValueError(
                f"cannot merge a {type(other.model_).__name__} table model into a {name} one."
            )
        if self.model_.passes > 1:
            raise ValueError(
                f"{name} learns its structure from all rows before it counts them "
                f"({self.model_.passes} passes), so two finished models cannot be merged "
                "exactly: fit it by the staged protocol instead (fit_passes(source) reads a "
                "re-readable source in passes; a Dask collection merges each pass's statistics)."
            )
        numeric = [s.name for s in self.schema_ if s.family != "categorical"]
        if numeric:
            raise ValueError(
                f"column {numeric[0]!r} is cut into intervals whose cut points come from all "
                "rows, so two finished models cannot be merged exactly: fit by the staged "
                "protocol instead (fit_passes(source) reads a re-readable source in passes; a Dask "
                "collection merges each pass's statistics), or name the column 'categorical'."
            )
        mine = [(s.name, s.family, s.dtype) for s in self.schema_] + self.text_columns_
        theirs = [(s.name, s.family, s.dtype) for s in other.schema_] + other.text_columns_
        if list(map(_merged, mine)) != list(map(_merged, theirs)):
            differ = [
                (m, t) for m, t in zip(mine, theirs, strict=False) if _merged(m) != _merged(t)
            ]
            first = (
                f"first {differ[0][0]} vs {differ[0][1]} (name, family, type)"
                if differ
                else f"{len(mine)} vs {len(theirs)} columns"
            )
            raise ValueError(f"cannot merge table models whose columns differ: {first}.")
        if list(self.feature_names_in_) != list(other.feature_names_in_):  # the left-out ones
            raise ValueError(
                "cannot merge table models fitted on different columns: "
                f"{list(self.feature_names_in_)} vs {list(other.feature_names_in_)} (the "
                f"left-out ones: {self.ignored_} vs {other.ignored_})."
            )
        if list(self.missing_markers_) != list(other.missing_markers_):
            raise ValueError(
                "cannot merge table models read with different missing-value markers: "
                f"{self.missing_markers_} vs {other.missing_markers_}."
            )
        self._encoder.check_absorbable(other._encoder)


def _merged(column: Any) -> Any:
    """A (name, family, type) column as merging compares it: its type as a kind
    (:func:`nbayes.schema.merged_type`: pandas' floats and Polars' integers of one table
    merge); a text column's name as it is."""
    if isinstance(column, tuple):
        name, family, dtype = column
        return name, family, merged_type(dtype)
    return column
