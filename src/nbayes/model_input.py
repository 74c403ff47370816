"""A ``NaiveBayes``'s input: a table read with the model's missing-value markers, its labels
split off, the schema inferred and the column groups built, and the columns encoded into one
block per group (``PreparedTable``) for the groups' statistics (``TableStats``)."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl
import scipy.sparse as sp

from . import families
from ._state import nest
from .exceptions import UnseenCategoryWarning, caller_stacklevel, suggest_names
from .families._group import ColumnGroup
from .labels import (
    labelled_rows,
    split_target,
)
from .row_sample import RowSample
from .schema import ColumnSpec, lacking_columns, schema_for
from .tables import apply_missing, fitted_array_columns, missing_markers, to_frame

if TYPE_CHECKING:
    pass


class PreparedTable:
    """A table encoded for the families: one float block per column group, sliceable by rows."""

    def __init__(self, blocks: list[Any], n_rows: int) -> None:
        self.blocks = blocks
        # the width sizes prediction chunks: a sparse (text) block weighs like 16 dense columns
        self.shape = (n_rows, sum(16 if sp.issparse(b) else b.shape[1] for b in blocks))

    def __getitem__(self, rows: slice) -> PreparedTable:
        start, stop, _ = rows.indices(self.shape[0])
        return PreparedTable([b[rows] for b in self.blocks], stop - start)

    def take(self, rows: np.ndarray) -> PreparedTable:
        """The rows at the positions ``rows``, in that order."""
        return PreparedTable([b[rows] for b in self.blocks], len(rows))


class TableStats:
    """The statistics of every column group of a model, merged group by group."""

    def __init__(self, column_groups: list[ColumnGroup], sample: RowSample | None = None) -> None:
        self.groups = column_groups
        #: the rows the calibration is derived from (:mod:`nbayes.model_calibration`)
        self.sample = sample

    def accumulate(self, table: PreparedTable, cls: np.ndarray, weight: np.ndarray) -> None:
        if np.any(weight == 0):  # a row of weight 0 is a row left out (scikit-learn's meaning)
            keep = weight != 0
            table = PreparedTable([b[keep] for b in table.blocks], int(keep.sum()))
            cls, weight = cls[keep], weight[keep]
        for group, block in zip(self.groups, table.blocks, strict=True):
            group.accumulate(block, cls, weight)

    def merge(self, other: TableStats, positions: np.ndarray) -> None:
        for mine, theirs in zip(self.groups, other.groups, strict=True):
            mine.merge(theirs, positions)
        if self.sample is not None and other.sample is not None:
            self.sample.merge(other.sample, positions)

    def reindex_classes(self, positions: np.ndarray, n_classes: int) -> None:
        for group in self.groups:
            group.reindex_classes(positions, n_classes)
        if self.sample is not None:
            self.sample.reindex_classes(positions)

    def state(self) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        for g, group in enumerate(self.groups):
            out.update(nest(f"g{g}", group.state()))
        return out



class TableInput:
    """The input methods of :class:`~nbayes.NaiveBayes` (a mixin)."""

    def _markers(self) -> list[Any]:
        """The missing-value markers: the fitted model's (``missing_markers_``), or, before a fit,
        the ``missing_values`` parameter normalised to a list."""
        fitted = getattr(self, "missing_markers_", None)
        return missing_markers(self.missing_values) if fitted is None else fitted

    def _frame(self, X: Any, columns: Any = None) -> pl.DataFrame:
        if columns is None and isinstance(X, np.ndarray):
            columns = fitted_array_columns(X, getattr(self, "_fit_columns", None), "NaiveBayes")
        markers = self._markers()
        return apply_missing(to_frame(X, columns=columns, markers=markers), markers)

    def _split_target(
        self, frame: pl.DataFrame, y: Any, target: str | None
    ) -> tuple[pl.DataFrame, pl.Series]:
        """The feature columns and the labels, by the rules of :mod:`nbayes.labels`."""
        return split_target(frame, y, target, self._markers(), "NaiveBayes", self.families)

    def _drop_missing_target(
        self, frame: pl.DataFrame, labels: pl.Series, weight: np.ndarray
    ) -> tuple[pl.DataFrame, pl.Series, np.ndarray]:
        """The labelled rows of a table with rows, their labels and weights; warns when rows
        were dropped, raises when none is labelled."""
        # the warning at the caller's line, past the wrappers of fit and partial_fit (lock, Dask)
        rows = labelled_rows(frame, labels, weight, stacklevel=caller_stacklevel())
        return rows.frame, rows.labels, rows.weight

    def _build(self, frame: pl.DataFrame, n_classes: int, *, require_observed: bool) -> None:
        specs = schema_for(self, frame, require_observed=require_observed)
        for option in ("alpha", "point_masses"):  # a misspelt name would silently be ignored
            value = getattr(self, option)
            unknown = (
                sorted(set(value) - {s.name for s in specs}, key=str)
                if isinstance(value, dict)
                else []
            )
            if unknown:
                raise ValueError(
                    f"{option} names columns that are not in the data: {unknown}"
                    f"{suggest_names(unknown, [s.name for s in specs])}"
                )
        self._make_groups(specs, n_classes)

    def _make_groups(self, specs: list[ColumnSpec], n_classes: int) -> None:
        """Create the (empty) column groups of a schema: one group per family (or per column,
        for families that keep state per column), each built from the family registry."""
        self.schema_ = specs
        by_family: dict[str, list[ColumnSpec]] = {}
        for spec in self.schema_:
            by_family.setdefault(spec.family, []).append(spec)
        column_groups: list[ColumnGroup] = []
        for name, members in by_family.items():
            family = families.get(name)
            parts = [[m] for m in members] if family.per_column else [members]
            for part in parts:
                column_groups.append(
                    family.group(
                        [m.name for m in part],
                        n_classes,
                        family=name,
                        dtypes=[m.dtype for m in part],
                        max_bins=self.max_bins,
                    )
                )
        self._stats = TableStats(column_groups)
        self.feature_names_in_ = np.asarray([s.name for s in self.schema_], dtype=object)
        self.n_features_in_ = len(self.schema_)

    def _encode(self, frame: pl.DataFrame, *, fitting: bool) -> PreparedTable:
        """Select the model's columns by name (any order, extra columns ignored) and encode them.
        A column the model leaves out (family "ignore": an identifier) may be absent when
        predicting, as it is never read."""
        groups = self._stats.groups
        # when predicting, the data may lack the left-out columns (a few groups to look at: a
        # table of 100,000 columns without any pays nothing more per chunk)
        ignored = [] if fitting else [g for g in groups if g.family == "ignore"]
        left_out = {name for group in ignored for name in group.names}
        needed = [s for s in self.schema_ if s.name not in left_out] if left_out else self.schema_
        lacking_columns(frame, needed, self.schema_)
        present = set(frame.columns) if left_out else None
        blocks = [
            # frame[names], not frame.select(names): the same frame, without Polars' expression
            # machinery, whose time per column tells on a table of 100,000 columns
            group.encode(
                frame[group.names]
                if present is None or present.issuperset(group.names)
                else _absent(group.names, frame.height),
                fitting=fitting,
            )
            for group in groups
        ]
        return PreparedTable(blocks, frame.height)

    def _input(self, X: Any) -> PreparedTable:
        self._check_fitted()
        frame = self._frame(X)
        table = self._encode(frame, fitting=False)
        unseen: dict[str, int] = {}
        settings = self._settings()
        for group, block in zip(self._stats.groups, table.blocks, strict=True):
            unseen.update(group.unseen_counts(block, settings))
        if unseen:
            detail = ", ".join(f"{name!r}: {count}" for name, count in unseen.items())
            if self.unknown == "error":
                raise ValueError(f"categories not seen in fitting, per column: {detail}.")
            action = (
                "skipped"
                if self.unknown == "ignore"
                else "given the smoothed mass of an unseen value"
            )
            warnings.warn(
                f"values not seen in fitting were {action}; per column: {detail}.",
                UnseenCategoryWarning,
                stacklevel=caller_stacklevel(),
            )
        return table


def _absent(names: list[str], height: int) -> pl.DataFrame:
    """Columns of nulls standing in for left-out columns the data does not have."""
    return pl.DataFrame([pl.Series(name, [None] * height, dtype=pl.String) for name in names])
