"""The passes of a :class:`~nbayes.semi_naive.SemiNaiveBayes` over its table
(:class:`TablePasses`): the schema from the first batch, the table's own pass (vocabularies, text
words, value sketches, then cut points; :class:`~nbayes.semi_naive.first_pass.FirstPass`), then
the structure's passes over the encoded rows.

The same steps are the *partition protocol* by which :mod:`nbayes.distributed` fits a table held
in pieces (Dask partitions), each pass a map over the pieces and a tree reduction of its
statistics, so that only statistics travel and the result is the model of fit on all the rows:

0. ``template = model._partition_template(reset=True)``, its schema from
   ``template._infer_schema(stand_in)`` (``nbayes.distributed._tables.resolve_schema``), set by
   ``template._start_schema(specs, columns)``;
1. the table pass: per piece ``template._first_pass()`` filled by ``FirstPass.add`` with the
   piece's rows (``template._read_partition``), merged (``FirstPass.merge``), then
   ``template._finish_first_pass(total)``: vocabularies and cut points;
2. the structure's passes: each piece encoded by ``template._encode_rows(rows)``, pass 1 (the
   structure's ``_fit_first_pass``) merged as models are, passes 2, 3, … as
   :mod:`nbayes.distributed._passes` runs them.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl

from .._validation import check_sample_weight
from ..decision import validate_loss
from ..encoding import CategoricalEncoder
from ..families.intervals import cut_points
from ..families.sketch import ValueSketches
from ..labels import LabelledRows, check_classes, keep_labelled, split_target
from ..model import NaiveBayes
from ..schema import ColumnSpec, StringSummary, schema_for
from ..tables import missing_markers
from .classifier import Encoded
from .first_pass import FirstPass
from .missing import missing_modes
from .spill import compact_codes, replayed

if TYPE_CHECKING:
    from .table import SemiNaiveBayes


class TablePasses:
    """A table model's passes over its rows, and the partition protocol (module docstring)."""

    def _passes(
        self,
        source: Callable[[], Iterable[tuple[pl.DataFrame, np.ndarray, np.ndarray]]],
        *,
        in_memory: bool,
    ) -> SemiNaiveBayes:
        """Fit from ``source()``, labelled frames (the same rows each call, ``in_memory`` or
        read again each time): the table's pass, then the structure's passes over the encoded
        rows, then the discriminative correction's (``discriminative=True``)."""
        self.missing_markers_ = missing_markers(self.missing_values)
        first = None
        for frame, labels, weight in source():  # pass 1: types, values, numeric sketches
            if first is None:
                self._start(frame)
                first = self._first_pass()
            first.add(frame, labels, weight)
        if first is None:
            raise ValueError("SemiNaiveBayes: the source gave no rows.")
        self._finish_first_pass(first)

        def coded() -> Iterable[tuple[Encoded, np.ndarray, np.ndarray]]:
            for frame, labels, weight in source():
                yield self._encode(frame, fitting=False), labels, weight

        model = self._new_model()
        if in_memory:
            model.fit_passes(coded, classes=first.classes)
        else:  # the structure's first pass spills the encoded rows; its later passes read them
            pack, unpack = _encoded_spill(first.classes, [s.name for s in self.schema_])
            with replayed(coded, pack, unpack, "nbayes-rows-") as again:
                model.fit_passes(again, classes=first.classes)
        self.model_ = model
        if self.discriminative:
            self._fit_correction_over(source, in_memory=in_memory)
        return self

    def _first_pass(self) -> FirstPass:
        """The empty statistics of the table's own pass (the schema known)."""
        numeric = [s for s in self.schema_ if s.family != "categorical"]
        encoder = CategoricalEncoder(self._encoder.names, self._encoder.dtypes)
        return FirstPass(encoder, numeric, self.max_bins, self._new_words())

    def _finish_first_pass(self, first: FirstPass) -> None:
        """Take the table pass's statistics (over all rows): the vocabularies, and the cut points
        of the numeric columns, derived from their sketches. A single class is refused, as
        :meth:`NaiveBayes.fit <nbayes.NaiveBayes.fit>` refuses it (``partial_fit``, as there,
        may start with one)."""
        check_classes(first.classes)
        if self.loss is not None:  # its shape, before any prediction (else the structure's)
            validate_loss(self.loss, len(first.classes), name="loss")
        self._encoder = first.encoder
        self._words = first.words
        self._check_observed(first.sketches, first.numeric)
        self.cut_points_ = {
            spec.name: cut_points(sketch, spec.family, self.bins, self.max_intervals)
            for spec, sketch in zip(first.numeric, first.sketches.features, strict=True)
        }
        names = [*self._encoder.names, *(spec.name for spec in first.numeric)]
        modes = missing_modes(self.missing, names, first.missing_weight, first.class_weight)
        chosen = dict(zip(names, modes, strict=True))
        self._take_missing_modes([chosen[spec.name] for spec in self.schema_])

    def _take_missing_modes(self, modes: list[str]) -> None:
        """Each column's missing mode, in the schema's order, and the code "missing" has in
        the columns where it is a value: one beyond the column's values."""
        self.missing_modes_ = modes
        sizes = dict(zip(self._encoder.names, self._encoder.sizes(), strict=True))
        self._missing_codes = {
            j: float(sizes[spec.name] if spec.family == "categorical"
                     else len(self.cut_points_[spec.name]) + 1)
            for j, (spec, mode) in enumerate(zip(self.schema_, modes, strict=True))
            if mode == "category"
        }  # fmt: skip

    # ------------------------------------------------------------------ partition protocol
    def _partition_template(self, *, reset: bool = True) -> SemiNaiveBayes:
        """An unfitted model with this one's parameters, which reads pieces as :meth:`fit`."""
        template = type(self)(**copy.deepcopy(self.get_params()))
        template._check_params()
        template.missing_markers_ = missing_markers(self.missing_values)
        return template

    def _read_partition(
        self, X: Any, y: Any = None, *, target: str | None = None, sample_weight: Any = None
    ) -> LabelledRows:
        """One piece read as :meth:`fit` reads a table; no error for a piece without rows."""
        frame, labels = split_target(
            self._frame(X), y, target, self._markers(), "SemiNaiveBayes", self.families
        )
        weight = check_sample_weight(sample_weight, frame.height, estimator="SemiNaiveBayes")
        return keep_labelled(frame, labels, weight)

    def _array_columns(self, n_columns: int) -> list[str]:
        """The names the columns of a 2-D array are read by (x0, x1, …)."""
        return list(self._frame(np.empty((0, n_columns))).columns)

    def _infer_schema(
        self, frame: pl.DataFrame, strings: dict[str, StringSummary] | None = None
    ) -> list[ColumnSpec]:
        """The schema of every column of ``frame`` (identifiers and text included)."""
        return schema_for(self, frame, require_observed=False, strings=strings)

    def _encode_rows(self, rows: LabelledRows) -> tuple[Encoded, np.ndarray, np.ndarray]:
        """A piece's codes (the table pass finished), labels and weights."""
        return self._encode(rows.frame, fitting=False), rows.values, rows.weight

    def _start(self, frame: pl.DataFrame) -> None:
        """The schema and the (empty) encoder, from the first batch."""
        self._start_schema(self._infer_schema(frame), list(frame.columns))

    def _start_schema(self, inferred: list[ColumnSpec], columns: list[str]) -> None:
        """Take the schema ``inferred`` for a table of ``columns``: identifiers left out
        (``ignored_``), free text modelled as a bag of words beside the structure
        (``text_columns_``), the others counted by the structure; the (empty) encoder of the
        categories."""
        self._fit_columns = columns
        self.ignored_ = [s.name for s in inferred if s.family == "ignore"]
        self.text_columns_ = [s.name for s in inferred if s.family == "text"]
        specs = [s for s in inferred if s.family not in ("ignore", "text")]
        if not specs:
            raise ValueError(
                f"no column is left for the structure: {self.ignored_ + self.text_columns_} are "
                "identifiers or free text. Name a column's family to keep it (e.g. "
                "families={column: 'categorical'}), or use NaiveBayes or TextClassifier."
            )
        self.schema_: list[ColumnSpec] = specs
        self.feature_names_in_ = np.asarray([s.name for s in specs], dtype=object)
        self.n_features_in_ = len(specs)
        categorical = [s for s in specs if s.family == "categorical"]
        self._encoder = CategoricalEncoder(
            [s.name for s in categorical], [s.dtype for s in categorical]
        )

    def _new_words(self) -> NaiveBayes | None:
        """The empty bag-of-words model of the text columns (None without any): naive Bayes's
        ``"text"`` family, each text column independent of the others given the class."""
        if not self.text_columns_:
            return None
        return NaiveBayes(
            families=dict.fromkeys(self.text_columns_, "text"),
            missing_values=list(self.missing_markers_),
            calibration=None,
        )

    def _check_observed(self, sketches: ValueSketches, numeric: list[ColumnSpec]) -> None:
        empty = [
            name
            for name, size in zip(self._encoder.names, self._encoder.sizes(), strict=True)
            if size == 0
        ]
        empty += [
            s.name
            for s, sketch in zip(numeric, sketches.features, strict=True)
            if sketch.weight.sum() == 0
        ]
        if empty:
            raise ValueError(
                f"column {empty[0]!r} is entirely missing: there is nothing to learn from it. "
                "Drop it, or check the missing-value markers."
            )


Coded = tuple[Encoded, np.ndarray, np.ndarray]


def _encoded_spill(
    classes: np.ndarray, names: list[str]
) -> tuple[Callable[[Coded], list[np.ndarray] | None], Callable[[list[np.ndarray]], Coded]]:
    """How an encoded batch (codes, labels, weights) is spilled (:mod:`~nbayes.semi_naive.spill`)
    and read back: the codes compacted, each label as its index among ``classes`` (labels may be
    objects, which a spill does not store); None for a batch whose labels ``classes`` does not
    give back exactly."""
    classes = np.asarray(classes)

    def pack(batch: Coded) -> list[np.ndarray] | None:
        encoded, labels, weight = batch
        try:
            index = np.searchsorted(classes, labels)
            exact = index.size == 0 or (
                index.max() < classes.size and np.array_equal(classes[index], labels)
            )
        except TypeError:  # labels that do not compare with the classes: read the source
            return None
        if not exact:
            return None
        return [compact_codes(encoded.codes), index.astype(np.int64), np.asarray(weight)]

    def unpack(arrays: list[np.ndarray]) -> Coded:
        codes, index, weight = arrays
        return Encoded(codes.astype(np.float64), names), classes[index], weight

    return pack, unpack
