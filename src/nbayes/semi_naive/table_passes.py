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

from .._dispatch import dask_aware
from .._pass_log import logged_pass
from .._validation import check_sample_weight
from ..decision import validate_loss
from ..encoding import CategoricalEncoder
from ..families.intervals import cut_points
from ..families.sketch import FeatureSketch, ValueSketches
from ..labels import LabelledRows, check_classes, keep_labelled, split_target
from ..model import NaiveBayes
from ..schema import ColumnSpec, StringSummary, infer_schema, unobserved_column
from ..tables import missing_markers, warn_near_missing_marker
from .classifier import Encoded
from .discriminative import held_out_rows
from .first_pass import FirstPass
from .integer_columns import FewValues
from .missing import missing_modes
from .spill import compact_codes, replayed

if TYPE_CHECKING:
    from .table import SemiNaiveBayes


class TablePasses:
    """A table model's passes over its rows (:meth:`fit` over rows in memory,
    :meth:`fit_passes` from a re-readable source, :meth:`partial_fit` batch by batch for one-pass
    structures), and the partition protocol (module docstring)."""

    #: Whether a numeric column is counted or cut is decided at the end of the table's pass,
    #: from all the rows (:meth:`_count_few_integers`): Dask's schema pass and the command
    #: line's settling leave numeric columns to it.
    counts_numbers_itself = True

    @dask_aware
    def fit(
        self,
        X: Any,
        y: Any = None,
        *,
        target: str | None = None,
        sample_weight: Any = None,
        columns: Any = None,
    ) -> SemiNaiveBayes:
        """Fit on a table; the labels are ``y`` or the column ``target``. Every pass
        (:meth:`fit_passes`) reads the same rows."""
        self._check_params()
        self._forget()
        frame, labels, weight = self._labelled(X, y, target, sample_weight, columns)
        warn_near_missing_marker(frame, self._markers(), "missing_values")
        return self._passes(lambda: [(frame, labels, weight)], in_memory=True)

    def fit_passes(
        self,
        source: Callable[[], Iterable[Any]] | list[Any] | tuple[Any, ...],
        *,
        target: str | None = None,
    ) -> SemiNaiveBayes:
        """Fit from a re-readable source of table batches, making :attr:`passes` passes over it.

        ``source()`` returns an iterable of batches, the same rows every time: tables holding
        the ``target`` column, or ``(X, y)`` / ``(X, y, sample_weight)`` tuples. The first pass
        learns the columns' types and values and sketches the numeric columns (their cut points
        follow), and spills the rows as read; then the model makes its own passes over that
        spill: the first spills the encoded rows, which the later ones read, as the correction's
        passes do with theirs (:mod:`nbayes.semi_naive.spill`; where a spill cannot be written,
        the passes that would read it read the source again). A list (or tuple) of batches is a
        source too, read again rather than spilled; a read that gives another number of rows
        than the first is a ValueError.
        """
        self._check_params()
        in_a_list = isinstance(source, (list, tuple))
        if in_a_list:
            given = source
            source = lambda: given  # noqa: E731 - a list is read again as it is
        elif not callable(source):
            raise TypeError(
                "fit_passes may read its source again (each pass, where no spill can be "
                "written): give a function that returns the batches, or a list of them, not a "
                f"{type(source).__name__}."
            )
        self._forget()
        reads: list[int] = []  # the rows of each complete read of the source

        def labelled() -> Iterable[tuple[pl.DataFrame, np.ndarray, np.ndarray]]:
            for batch in source():
                if isinstance(batch, tuple):
                    X, y, weight = (*batch, None)[:3]
                    yield self._labelled(X, y, None, weight, None)
                else:
                    yield self._labelled(batch, None, target, None, None)

        def batches() -> Iterable[tuple[pl.DataFrame, np.ndarray, np.ndarray]]:
            rows = 0
            for batch in labelled():
                rows += batch[0].height
                yield batch
            reads.append(rows)
            if rows != reads[0]:
                raise ValueError(
                    f"fit_passes: the source gave {reads[0]:,} labelled rows on its first read "
                    f"and {rows:,} on read {len(reads)}: it must give the same rows every time."
                )

        return self._passes(batches, in_memory=False, spill_source=not in_a_list)

    @property
    def partial_fit(self) -> Callable[..., SemiNaiveBayes]:
        """Add one batch: ``partial_fit(X, y=None, *, target=None, classes=None,
        sample_weight=None, columns=None)``, for one-pass structures over categorical columns
        (a numeric column is counted where the first batch shows at most
        ``max_int_categories`` distinct integers; others need their cut points before anything
        is counted: use :meth:`fit_passes`, or name them ``"categorical"``). Classes may grow
        from batch to batch. A structure of several passes has no ``partial_fit``
        (AttributeError, so that ``hasattr`` tells, as scikit-learn expects): it is fitted by
        the staged protocol."""
        model = getattr(self, "model_", None)
        (model if model is not None else self._new_model())._check_one_pass(
            "SemiNaiveBayes.partial_fit"
        )
        # AttributeError, so that hasattr tells, as for a structure of several passes
        self._refuse_correction("SemiNaiveBayes.partial_fit", AttributeError)
        self._refuse_missing_choice("SemiNaiveBayes.partial_fit", AttributeError)
        return self._partial_fit

    def _partial_fit(
        self,
        X: Any,
        y: Any = None,
        *,
        target: str | None = None,
        classes: Any = None,
        sample_weight: Any = None,
        columns: Any = None,
    ) -> SemiNaiveBayes:
        first = not hasattr(self, "model_")
        if first:
            self._check_params()
            model = self._new_model()
        frame, labels, weight = self._labelled(X, y, target, sample_weight, columns)
        if first:
            self.missing_markers_ = missing_markers(self.missing_values)
            self._start(frame, from_this_batch=True)  # (partial_fit has no end to decide at)
            numeric = [s.name for s in self.schema_ if s.family != "categorical"]
            if numeric:
                del self.schema_
                raise ValueError(
                    f"partial_fit cannot cut numeric columns into intervals batch by batch "
                    f"({numeric}): their cut points come from all rows. Use fit, or fit_passes "
                    "over a re-readable source, or families={column: 'categorical'}."
                )
            self.cut_points_ = {}
            self._take_missing_modes(["skip"] * len(self.schema_))  # batches need "skip"
            start = np.unique(labels if classes is None else np.concatenate([classes, labels]))
            self._words = self._new_words()
            self._add_words(frame, labels, weight, classes=start)
            model.partial_fit(
                self._encode(frame, fitting=True), labels, classes=start, sample_weight=weight
            )
            self.model_ = model
            return self
        new = np.setdiff1d(np.unique(labels), self.model_.classes_)
        if new.size:
            self.model_._union_classes(new)
        self._add_words(frame, labels, weight)
        self.model_.partial_fit(self._encode(frame, fitting=True), labels, sample_weight=weight)
        return self

    def _add_words(
        self, frame: pl.DataFrame, labels: np.ndarray, weight: np.ndarray, classes: Any = None
    ) -> None:
        if self._words is not None:
            self._words.partial_fit(
                frame.select(self.text_columns_), labels, classes=classes, sample_weight=weight
            )

    def _passes(
        self,
        source: Callable[[], Iterable[tuple[pl.DataFrame, np.ndarray, np.ndarray]]],
        *,
        in_memory: bool,
        spill_source: bool = True,
    ) -> SemiNaiveBayes:
        """Fit from ``source()``, labelled frames (the same rows each call, ``in_memory`` or
        read again each time): the table's pass, then the structure's passes over the encoded
        rows, then the discriminative correction's (``discriminative=True``). A source read
        again each time is read once with ``spill_source``: the table's pass spills its frames
        for the later passes."""
        if in_memory or not spill_source:
            return self._passes_over(source, in_memory=in_memory)
        spill = _LabelledSpill()
        with replayed(source, spill.pack, spill.unpack, "nbayes-table-") as rows:
            return self._passes_over(rows, in_memory=False, spill=spill)

    def _passes_over(
        self,
        source: Callable[[], Iterable[tuple[pl.DataFrame, np.ndarray, np.ndarray]]],
        *,
        in_memory: bool,
        spill: _LabelledSpill | None = None,
    ) -> SemiNaiveBayes:
        self.missing_markers_ = missing_markers(self.missing_values)
        first = None
        with logged_pass("the table's pass (types, values, numeric sketches)"):
            for frame, labels, weight in source():
                if first is None:
                    self._start(frame)
                    first = self._first_pass()
                first.add(frame, labels, weight)
            if first is None:
                raise ValueError("SemiNaiveBayes: the source gave no rows.")
            self._finish_first_pass(first)
        if spill is not None:
            spill.classes = np.asarray(first.classes)

        model = self._new_model()
        if in_memory:  # encoded once: each of the structure's passes reads the same codes
            encoded = [
                (self._encode(frame, fitting=False), labels, weight)
                for frame, labels, weight in source()
            ]
            model.fit_passes(lambda: encoded, classes=first.classes)
            self.model_ = model
            if self.discriminative:
                self._fit_correction_over(source, in_memory=True, encoded=encoded)
            return self
        # the structure's first pass spills the encoded rows, which its later passes read; the
        # correction's first pass reads them too (with each row's held-out flag, taken from
        # its content when it was encoded) where the table has no text column, whose terms
        # need the rows as read
        held_out = self.discriminative and self._words is None

        def coded() -> Iterable[Coded]:
            for frame, labels, weight in source():
                held = None
                if held_out:
                    cls = np.searchsorted(first.classes, labels)
                    held = held_out_rows(self._content_hashes(frame, cls, first.classes))
                yield self._encode(frame, fitting=False), labels, weight, held

        pack, unpack = _encoded_spill(first.classes, [s.name for s in self.schema_])
        with replayed(coded, pack, unpack, "nbayes-rows-") as again:
            model.fit_passes(lambda: (batch[:3] for batch in again()), classes=first.classes)
            self.model_ = model
            if self.discriminative:
                self._fit_correction_over(
                    source, in_memory=False, coded=again if held_out else None
                )
        return self

    def _first_pass(self) -> FirstPass:
        """The empty statistics of the table's own pass (the schema known)."""
        numeric = [s for s in self.schema_ if s.family != "categorical"]
        encoder = CategoricalEncoder(self._encoder.names, self._encoder.dtypes)
        undecided = [s.name for s in numeric if s.name not in (self.families or {})]
        few = FewValues(undecided, self.max_int_categories) if undecided else None
        return FirstPass(encoder, numeric, self.max_bins, self._new_words(), few)

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
        numeric = self._count_few_integers(first)
        self._encoder.sort_vocabularies()  # codes in an order the rows' order cannot change
        self.cut_points_ = {
            spec.name: cut_points(sketch, spec.family, self.bins, self.max_intervals)
            for spec, sketch in numeric
        }
        names = [*first.encoder.names, *(spec.name for spec in first.numeric)]
        modes = missing_modes(self.missing, names, first.missing_weight, first.class_weight)
        chosen = dict(zip(names, modes, strict=True))
        self._take_missing_modes([chosen[spec.name] for spec in self.schema_])

    def _count_few_integers(self, first: FirstPass) -> list[tuple[ColumnSpec, FeatureSketch]]:
        """Turn categorical the numeric columns the user did not name whose values over all
        the rows are at most ``max_int_categories`` distinct integers
        (:mod:`~nbayes.semi_naive.integer_columns`); returns the other numeric columns, with
        their sketches, to be cut into intervals."""
        categories = dict(zip(first.encoder.names, first.encoder.vocabularies, strict=True))
        counted: dict[str, ColumnSpec] = {}
        numeric = []
        for spec, sketch in zip(first.numeric, first.sketches.features, strict=True):
            found = first.few_values.categories(spec) if first.few_values else None
            if found is None:
                numeric.append((spec, sketch))
            else:
                counted[spec.name], categories[spec.name] = found
        if not counted:
            return numeric
        self.schema_ = [counted.get(spec.name, spec) for spec in self.schema_]
        specs = [spec for spec in self.schema_ if spec.family == "categorical"]
        self._encoder = CategoricalEncoder([s.name for s in specs], [s.dtype for s in specs])
        self._encoder.vocabularies = [list(categories[spec.name]) for spec in specs]
        return numeric

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
        template = type(self)(**copy.deepcopy(self.get_params(deep=False)))
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
        self,
        frame: pl.DataFrame,
        strings: dict[str, StringSummary] | None = None,
        *,
        from_this_batch: bool = False,
    ) -> list[ColumnSpec]:
        """The schema of every column of ``frame`` (identifiers and text included). A numeric
        column the user did not name is cut into intervals until the table's pass has read
        every row and :meth:`_count_few_integers` decides; ``from_this_batch``: decided now,
        on ``frame``'s values (:mod:`~nbayes.semi_naive.integer_columns`)."""
        counting = self.max_int_categories if from_this_batch else None
        return infer_schema(
            frame,
            self.families,
            self.continuous,
            counting,
            require_observed=False,
            strings=strings,
        )

    def _encode_rows(self, rows: LabelledRows) -> tuple[Encoded, np.ndarray, np.ndarray]:
        """A piece's codes (the table pass finished), labels and weights."""
        return self._encode(rows.frame, fitting=False), rows.values, rows.weight

    def _start(self, frame: pl.DataFrame, *, from_this_batch: bool = False) -> None:
        """The schema and the (empty) encoder, from the first batch."""
        schema = self._infer_schema(frame, from_this_batch=from_this_batch)
        self._start_schema(schema, list(frame.columns))

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
        # scikit-learn's meaning, as NaiveBayes's: every column fitted on, left out ones too
        self.feature_names_in_ = np.asarray(columns, dtype=object)
        self.n_features_in_ = len(columns)
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
            raise unobserved_column(empty[0])


#: An encoded batch: codes, labels, weights, and each row's held-out flag for the correction
#: (None where the correction does not read the batch).
Coded = tuple[Encoded, np.ndarray, np.ndarray, np.ndarray | None]


class _LabelledSpill:
    """How a labelled batch of the table's pass (frame, labels, weights) is spilled
    (:mod:`~nbayes.semi_naive.spill`) and read back: the frame as it is, each label as its
    index among the distinct labels spilled so far (labels may be objects, which a spill
    does not store), read back as its class among ``classes`` — set once the table's pass has
    seen every label, before any pass reads the spill — as :func:`_encoded_spill` gives them."""

    def __init__(self) -> None:
        self.seen: dict[Any, int] = {}
        self.classes: np.ndarray | None = None
        self._labels: np.ndarray | None = None  # the class of each index in ``seen``

    def pack(self, batch: tuple[pl.DataFrame, np.ndarray, np.ndarray]) -> list | None:
        frame, labels, weight = batch
        try:
            distinct, inverse = np.unique(np.asarray(labels), return_inverse=True)
        except TypeError:  # labels that do not sort together: read the source
            return None
        index = [self.seen.setdefault(value, len(self.seen)) for value in distinct.tolist()]
        return [frame, np.asarray(index, dtype=np.int64)[inverse], np.asarray(weight)]

    def unpack(self, pieces: list) -> tuple[pl.DataFrame, np.ndarray, np.ndarray]:
        frame, index, weight = pieces
        if self._labels is None:
            assert self.classes is not None, "the table's pass sets the classes first"
            values = np.asarray(list(self.seen), dtype=self.classes.dtype)
            self._labels = self.classes[np.searchsorted(self.classes, values)]
        return frame, self._labels[index], weight


def _encoded_spill(
    classes: np.ndarray, names: list[str]
) -> tuple[Callable[[Coded], list[np.ndarray] | None], Callable[[list[np.ndarray]], Coded]]:
    """How an encoded batch (codes, labels, weights, held-out flags or None) is spilled
    (:mod:`~nbayes.semi_naive.spill`) and read back: the codes compacted, each label as its
    index among ``classes`` (labels may be objects, which a spill does not store); None for a
    batch whose labels ``classes`` does not give back exactly."""
    classes = np.asarray(classes)

    def pack(batch: Coded) -> list[np.ndarray] | None:
        encoded, labels, weight, held = batch
        try:
            index = np.searchsorted(classes, labels)
            exact = index.size == 0 or (
                index.max() < classes.size and np.array_equal(classes[index], labels)
            )
        except TypeError:  # labels that do not compare with the classes: read the source
            return None
        if not exact:
            return None
        flags = [] if held is None else [held]
        return [compact_codes(encoded.codes), index.astype(np.int64), np.asarray(weight), *flags]

    def unpack(arrays: list[np.ndarray]) -> Coded:
        codes, index, weight, *flags = arrays
        held = flags[0] if flags else None
        return Encoded(codes.astype(np.float64), names), classes[index], weight, held

    return pack, unpack
