"""``SemiNaiveBayes``: a semi-naive model over a real table (pandas, Polars, PyArrow, NumPy,
dicts of columns), with missing values.

The semi-naive models count attribute *values* together, so every column must be discrete:

* string, boolean and small-integer columns are categories (coded by
  :class:`nbayes.encoding.CategoricalEncoder`, as in ``NaiveBayes``);
* numeric columns are cut into intervals, by default supervised (Fayyad & Irani's MDL, as Weka's
  semi-naive models are used; ``continuous="equal-width"`` or ``"equal-frequency"`` with
  ``bins``), from the mergeable value sketch of :mod:`nbayes.families.sketch`;
* ``families={"column": "categorical" | "mdl" | "equal-width" | "equal-frequency" | "ignore"}``
  overrides the inferred choice per column;
* a string column that reads as an identifier (nearly a distinct value per row) is left out
  (``ignored_``), and one that reads as free text is a bag of words beside the structure
  (``text_columns_``: naive Bayes's ``"text"`` family, independent of the other columns given
  the class, log P(x | c) = log P_structure(x_d | c) + Σ_t log P(x_t | c)), each with a warning
  naming it and the override, by the rules of :mod:`nbayes.schema` that ``NaiveBayes`` follows.

Cut points must be known before values are counted together, so a table with discretised
columns takes one more pass than the model (the sketch pass); ``fit`` makes it over the rows it
is given. Missing values (None, NaN, null, markers such as ``"?"``) are skipped: a missing child
adds nothing, a missing super-parent does not vote, a missing parent is backed off from.
"""

from __future__ import annotations

import copy
import functools
import warnings
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import polars as pl

from .. import decision
from .._dispatch import dask_aware
from .._params import ParamsMixin
from .._validation import check_sample_weight, no_rows
from ..encoding import CategoricalEncoder
from ..exceptions import NotFittedError, UnseenCategoryWarning, sklearn_compatible
from ..families.intervals import cut_points, interval_of
from ..families.sketch import ValueSketches
from ..influence import feature_log_likelihoods
from ..labels import (
    LabelledRows,
    check_classes,
    keep_labelled,
    matches,
    no_labelled_rows,
    split_target,
    warn_dropped,
)
from ..model import NaiveBayes
from ..schema import ColumnSpec, infer_schema, lacking_columns
from ..tables import apply_missing, missing_markers, to_frame
from . import table_files, views
from .averaged import AODE, WAODE, AnDE, AODEsr
from .classifier import Encoded, SemiNaiveClassifier
from .first_pass import FirstPass
from .hidden import HNB
from .network import KDB, TAN
from .selective import SelectiveKDB
from .table_files import DISCRETE

#: Names of the models a table model (and the command line) can be asked for.
MODEL_NAMES = {
    "aode": AODE,
    "waode": WAODE,
    "aodesr": AODEsr,
    "a2de": lambda: AnDE(2),
    "hnb": HNB,
    "tan": TAN,
    "kdb": KDB,
    "skdb": SelectiveKDB,
}

class SemiNaiveBayes(ParamsMixin):
    """A semi-naive Bayes model over a table (see :mod:`nbayes.semi_naive.table`).

    Parameters
    ----------
    model : str or estimator, default "aode"
        ``"aode"``, ``"waode"``, ``"aodesr"``, ``"a2de"``, ``"hnb"``, ``"tan"``, ``"kdb"``,
        ``"skdb"``, or a configured estimator of :mod:`nbayes.semi_naive` (e.g. ``KDB(3)``),
        which is cloned, never fitted in place.
    families : dict, optional
        Per column: ``"categorical"``, ``"mdl"``, ``"equal-width"`` or ``"equal-frequency"``.
    continuous : str, default "mdl"
        How numeric columns that are not inferred categorical are cut into intervals.
    missing : "skip" or dict, default "skip"
        What a missing value means, named as in ``NaiveBayes``: ``"skip"`` (missing at random:
        a missing child adds nothing, a missing super-parent does not vote, a missing parent is
        backed off from), for every column or per column in a dict. ``"category"`` and
        ``"auto"`` (a value of its own, chosen from the data) are ``NaiveBayes``'s only, for now:
        they are refused in one sentence.
    bins : int, default 10
        Intervals of equal-width and equal-frequency discretisation.
    missing_values : str, number or list, optional
        Markers that mean "missing" besides None/NaN/null (e.g. ``"?"``), target included.
    max_int_categories : int, default 20
        Integer columns with at most this many distinct values are categorical.
    max_bins : int, default 2048
        Distinct values a numeric column's sketch keeps exactly (see
        :mod:`nbayes.families.sketch`); cut points are exact below it.
    alpha, class_prior, prior_alpha, loss, max_memory : optional
        The structure's own parameters, named as ``NaiveBayes`` names them (the Lidstone λ or
        m of its estimates, the class prior and the λ of a smoothed prior, the loss matrix of
        the decision, the memory budget of its tables, e.g. ``"8GB"``); None keeps the
        structure's (``model``'s) value.
    """

    _name = "SemiNaiveBayes"

    def __init__(
        self,
        model: Any = "aode",
        *,
        families: dict[str, str] | None = None,
        continuous: str = "mdl",
        missing: str | dict[str, str] = "skip",
        bins: int = 10,
        missing_values: Any = None,
        max_int_categories: int = 20,
        max_bins: int = 2048,
        alpha: float | None = None,
        class_prior: Any = None,
        prior_alpha: float | None = None,
        loss: Any = None,
        max_memory: Any = None,
    ) -> None:
        self.model = model
        self.families = families
        self.continuous = continuous
        self.missing = missing
        self.bins = bins
        self.missing_values = missing_values
        self.max_int_categories = max_int_categories
        self.max_bins = max_bins
        self.alpha = alpha
        self.class_prior = class_prior
        self.prior_alpha = prior_alpha
        self.loss = loss
        self.max_memory = max_memory

    # ------------------------------------------------------------------ parameters
    #: The structure's parameters a table model may set (None: the structure's own).
    SHARED = ("alpha", "class_prior", "prior_alpha", "loss", "max_memory")

    def _new_model(self) -> SemiNaiveClassifier:
        """A new, unfitted structure: ``model``'s, with the shared parameters that are set."""
        chosen = {
            name: getattr(self, name)
            for name in self.SHARED
            if getattr(self, name, None) is not None
        }
        return self._structure().set_params(**chosen)

    def _structure(self) -> SemiNaiveClassifier:
        if isinstance(self.model, str):
            factory = MODEL_NAMES.get(self.model)
            if factory is None:
                raise ValueError(
                    f"model must be one of {sorted(MODEL_NAMES)} or a semi-naive estimator, got "
                    f"{self.model!r}."
                )
            return factory()
        if isinstance(self.model, SemiNaiveClassifier):
            return type(self.model)(**self.model.get_params())
        raise ValueError(
            f"model must be one of {sorted(MODEL_NAMES)} or a semi-naive estimator, got "
            f"{type(self.model).__name__}."
        )

    def _check_params(self) -> None:
        modes = self.missing.values() if isinstance(self.missing, dict) else [self.missing]
        if any(mode != "skip" for mode in modes):
            raise ValueError(
                f"missing={self.missing!r}: semi-naive structures skip missing values (missing="
                "'skip'); a missing value as a value of its own ('category', or chosen from the "
                "data with 'auto') is NaiveBayes's only, for now."
            )
        if self.continuous not in DISCRETE[1:]:
            raise ValueError(
                f"continuous must be one of {DISCRETE[1:]} (semi-naive models need discrete "
                f"attributes), got {self.continuous!r}."
            )
        for name, family in (self.families or {}).items():
            if family not in (*DISCRETE, "ignore", "text"):
                raise ValueError(
                    f"column {name!r} has family {family!r}, but semi-naive models count values "
                    "together and need discrete columns: choose one of "
                    f"{(*DISCRETE, 'ignore', 'text')}."
                )
        if isinstance(self.bins, bool) or not isinstance(self.bins, int) or self.bins < 1:
            raise ValueError(f"bins must be a positive integer, got {self.bins!r}.")
        if (
            isinstance(self.max_bins, bool)
            or not isinstance(self.max_bins, int)
            or self.max_bins < 2
        ):
            raise ValueError(f"max_bins must be an integer >= 2, got {self.max_bins!r}.")

    def _check_fitted(self) -> None:
        if not hasattr(self, "model_"):
            raise sklearn_compatible(NotFittedError)(
                "This SemiNaiveBayes instance is not fitted yet. Call 'fit' with appropriate "
                "arguments before using this estimator."
            )

    # ------------------------------------------------------------------ input
    def _markers(self) -> list[Any]:
        fitted = getattr(self, "missing_markers_", None)
        return missing_markers(self.missing_values) if fitted is None else fitted

    def _frame(self, X: Any, columns: Any = None) -> pl.DataFrame:
        if columns is None and isinstance(X, np.ndarray):
            columns = getattr(self, "_fit_columns", None)
        markers = self._markers()
        return apply_missing(to_frame(X, columns=columns, markers=markers), markers)

    def _labelled(
        self, X: Any, y: Any, target: str | None, sample_weight: Any, columns: Any
    ) -> tuple[pl.DataFrame, np.ndarray, np.ndarray]:
        """The feature frame, the labels and the weights of the rows whose label is known (the
        rules of :mod:`nbayes.labels`)."""
        frame, labels = split_target(self._frame(X, columns), y, target, self._markers())
        weight = check_sample_weight(sample_weight, frame.height, estimator="SemiNaiveBayes")
        if frame.height == 0:
            raise no_rows()
        rows = keep_labelled(frame, labels, weight)
        if rows.frame.height == 0:
            raise no_labelled_rows()
        if rows.dropped:
            warn_dropped(rows.dropped, rows.first_dropped, stacklevel=3)
        return rows.frame, rows.values, rows.weight

    def _encode(self, frame: pl.DataFrame, *, fitting: bool) -> Encoded:
        """Codes of every column, in the schema's order: categories in their vocabulary,
        numbers as interval indices; NaN where missing, a code beyond v_j where unseen."""
        lacking_columns(frame, self.schema_)  # naming them, and a close column of the data
        codes = np.empty((frame.height, len(self.schema_)))
        categorical = [j for j, s in enumerate(self.schema_) if s.family == "categorical"]
        if categorical:
            codes[:, categorical] = self._encoder.encode(
                frame.select(self._encoder.names), fitting=fitting
            )
        for j, spec in enumerate(self.schema_):
            if spec.family != "categorical":
                values = frame.get_column(spec.name).cast(pl.Float64).to_numpy()
                codes[:, j] = interval_of(values.astype(np.float64), self.cut_points_[spec.name])
        return Encoded(codes, [s.name for s in self.schema_])

    # ------------------------------------------------------------------ fitting
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
        return self._passes(lambda: [(frame, labels, weight)])

    def fit_passes(
        self, source: Callable[[], Iterable[Any]], *, target: str | None = None
    ) -> SemiNaiveBayes:
        """Fit from a re-readable source of table batches, reading it once per pass.

        ``source()`` returns an iterable of batches, the same rows every time: tables holding
        the ``target`` column, or ``(X, y)`` / ``(X, y, sample_weight)`` tuples. The first pass
        learns the columns' types and values and sketches the numeric columns (their cut points
        follow); then the model makes its own passes (:attr:`passes` in all).
        """
        self._check_params()
        self._forget()

        def batches() -> Iterable[tuple[pl.DataFrame, np.ndarray, np.ndarray]]:
            for batch in source():
                if isinstance(batch, tuple):
                    X, y, weight = (*batch, None)[:3]
                    yield self._labelled(X, y, None, weight, None)
                else:
                    yield self._labelled(batch, None, target, None, None)

        return self._passes(batches)

    @property
    def partial_fit(self) -> Callable[..., SemiNaiveBayes]:
        """Add one batch: ``partial_fit(X, y=None, *, target=None, classes=None,
        sample_weight=None, columns=None)``, for one-pass structures over categorical columns
        (numeric columns need their cut points before anything is counted: use
        :meth:`fit_passes`, or name them ``"categorical"``). Classes may grow from batch to
        batch. A structure of several passes has no ``partial_fit`` (AttributeError, so that
        ``hasattr`` tells, as scikit-learn expects): it is fitted by the staged protocol."""
        model = getattr(self, "model_", None)
        (model if model is not None else self._new_model())._check_one_pass(
            "SemiNaiveBayes.partial_fit"
        )
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
            self._start(frame)
            numeric = [s.name for s in self.schema_ if s.family != "categorical"]
            if numeric:
                del self.schema_
                raise ValueError(
                    f"partial_fit cannot cut numeric columns into intervals batch by batch "
                    f"({numeric}): their cut points come from all rows. Use fit, or fit_passes "
                    "with a source read once per pass, or families={column: 'categorical'}."
                )
            self.cut_points_ = {}
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
        for other in others:
            self._check_mergeable(other)
        merged = copy.deepcopy(self)
        for other in others:
            mappings = merged._encoder.absorb(other._encoder)
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
            merged.model_.merge(inner)
            if merged._words is not None:
                merged._words.merge(other._words)
        self.__dict__.update(merged.__dict__)
        return self

    def _check_mergeable(self, other: Any) -> None:
        """Raise, naming the reason, unless ``other``'s counts can be added to this model's."""
        if not isinstance(other, SemiNaiveBayes):
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
                "source once per pass; a Dask collection merges each pass's statistics)."
            )
        numeric = [s.name for s in self.schema_ if s.family != "categorical"]
        if numeric:
            raise ValueError(
                f"column {numeric[0]!r} is cut into intervals whose cut points come from all "
                "rows, so two finished models cannot be merged exactly: fit by the staged "
                "protocol instead (fit_passes(source) reads a source once per pass; a Dask "
                "collection merges each pass's statistics), or name the column 'categorical'."
            )
        mine = [(s.name, s.family, s.dtype) for s in self.schema_] + self.text_columns_
        theirs = [(s.name, s.family, s.dtype) for s in other.schema_] + other.text_columns_
        if mine != theirs:
            raise ValueError(
                "cannot merge table models whose columns differ: "
                f"{[m[:2] for m in mine]} vs {[t[:2] for t in theirs]}."
            )
        if list(self.missing_markers_) != list(other.missing_markers_):
            raise ValueError(
                "cannot merge table models read with different missing-value markers: "
                f"{self.missing_markers_} vs {other.missing_markers_}."
            )

    @property
    def passes(self) -> int:
        """Passes over the data a fit makes: the sketch pass, then the model's."""
        return 1 + self._new_model().passes

    def _forget(self) -> None:
        for name in ("missing_markers_", "_fit_columns", "model_", "schema_", "ignored_",
                     "text_columns_", "_words"):  # fmt: skip
            self.__dict__.pop(name, None)

    def _passes(
        self, source: Callable[[], Iterable[tuple[pl.DataFrame, np.ndarray, np.ndarray]]]
    ) -> SemiNaiveBayes:
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
        model.fit_passes(coded, classes=first.classes)
        self.model_ = model
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
        self._encoder = first.encoder
        self._words = first.words
        self._check_observed(first.sketches, first.numeric)
        self.cut_points_ = {
            spec.name: cut_points(sketch, spec.family, self.bins)
            for spec, sketch in zip(first.numeric, first.sketches.features, strict=True)
        }

    # ------------------------------------------------------------------ partition protocol
    # How nbayes.distributed fits a SemiNaiveBayes on a table held in pieces (Dask partitions),
    # each pass a map over the pieces and a tree reduction of its statistics, so that only
    # statistics travel and the result is the model of fit on all the rows:
    #
    #   0. template = model._partition_template(reset=True), its schema from
    #      template._infer_schema(stand_in) (nbayes.distributed._tables.resolve_schema), set
    #      by template._start_schema(specs, columns);
    #   1. the table pass: per piece template._first_pass() filled by FirstPass.add with the
    #      piece's rows (template._read_partition), merged (FirstPass.merge), then
    #      template._finish_first_pass(total): vocabularies and cut points;
    #   2. the structure's passes: each piece encoded by template._encode_rows(rows), pass 1
    #      (the structure's _fit_first_pass) merged as models are, passes 2, 3, … as
    #      nbayes.distributed._passes runs them.
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
        frame, labels = split_target(self._frame(X), y, target, self._markers())
        weight = check_sample_weight(sample_weight, frame.height, estimator="SemiNaiveBayes")
        return keep_labelled(frame, labels, weight)

    def _array_columns(self, n_columns: int) -> list[str]:
        """The names the columns of a 2-D array are read by (x0, x1, …)."""
        return list(self._frame(np.empty((0, n_columns))).columns)

    def _infer_schema(self, frame: pl.DataFrame) -> list[ColumnSpec]:
        """The schema of every column of ``frame`` (identifiers and text included)."""
        return infer_schema(
            frame, self.families, self.continuous, self.max_int_categories, require_observed=False
        )

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

    # ------------------------------------------------------------------ prediction
    def _codes(self, X: Any) -> Encoded:
        self._check_fitted()
        return self._encode(self._frame(X), fitting=False)

    def _joint(self, X: Any, priors: Any) -> tuple[np.ndarray, np.ndarray]:
        """(log P(c) + log P(x | c) per row and class, log P(c)): the structure's joint, plus
        the text columns' Σ_t log P(x_t | c) (each text column independent of the rest given the
        class)."""
        frame = self._frame(X)
        codes = self._encode(frame, fitting=False)
        joint = self.model_.predict_joint_log_proba(codes, priors=priors)
        if self._words is not None:
            joint = joint + self._text_terms(frame)[1].sum(axis=0)
        return joint, self.model_._class_log_prior(priors)

    def _text_terms(self, frame: pl.DataFrame) -> tuple[list[str], np.ndarray]:
        """(text column names, log P(x_t | c) of shape (t, n, K) in ``classes_`` order; 0 where
        a text is missing)."""
        self._check_fitted()
        names, terms = feature_log_likelihoods(self._words, frame.select(self.text_columns_))
        positions = np.searchsorted(self.model_.classes_, self._words.classes_)
        out = np.zeros((*terms.shape[:2], len(self.model_.classes_)))
        out[:, :, positions] = terms  # a class the texts never saw: no evidence from them
        return names, out

    @dask_aware
    def predict(self, X: Any, *, priors: Any = None, loss: Any = None) -> np.ndarray:
        """The Bayes decision per row (MAP, or minimum risk under ``loss``)."""
        self._check_fitted()
        if self._words is None:
            return self.model_.predict(self._codes(X), priors=priors, loss=self._loss(loss))
        joint, log_prior = self._joint(X, priors)
        matrix = decision.validate_loss(self._loss(loss), len(self.classes_), name="loss")
        return self.classes_[decision.decide(joint, log_prior, matrix)]

    @dask_aware
    def predict_proba(self, X: Any, *, priors: Any = None) -> np.ndarray:
        """P(c | x) per row, columns in ``classes_`` order."""
        self._check_fitted()
        if self._words is None:
            return self.model_.predict_proba(self._codes(X), priors=priors)
        return decision.posterior(*self._joint(X, priors))

    @dask_aware
    def predict_log_proba(self, X: Any, *, priors: Any = None) -> np.ndarray:
        self._check_fitted()
        if self._words is None:
            return self.model_.predict_log_proba(self._codes(X), priors=priors)
        return decision.posterior(*self._joint(X, priors), log=True)

    @dask_aware
    def predict_joint_log_proba(self, X: Any, *, priors: Any = None) -> np.ndarray:
        """log P(c) + log P(x | c) per row and class."""
        self._check_fitted()
        if self._words is None:
            return self.model_.predict_joint_log_proba(self._codes(X), priors=priors)
        return self._joint(X, priors)[0]

    @dask_aware
    def predict_risk(self, X: Any, *, priors: Any = None, loss: Any = None) -> np.ndarray:
        self._check_fitted()
        if self._words is None:
            return self.model_.predict_risk(self._codes(X), priors=priors, loss=self._loss(loss))
        matrix = decision.validate_loss(self._loss(loss), len(self.classes_), name="loss")
        return decision.conditional_risk(decision.posterior(*self._joint(X, priors)), matrix)

    def _loss(self, loss: Any) -> Any:
        """The loss matrix of a call: its own, else this model's, else the structure's."""
        if loss is not None:
            return loss
        return self.loss if self.loss is not None else self.model_.loss

    def score(
        self, X: Any, y: Any = None, *, target: str | None = None, sample_weight: Any = None
    ) -> float:
        """Accuracy on a table (labels as ``y`` or the column ``target``)."""
        self._check_fitted()
        frame, labels, weight = self._labelled(X, y, target, sample_weight, None)
        predicted = self.predict(frame)
        return float(np.average(matches(predicted, labels), weights=weight))

    @property
    def classes_(self) -> np.ndarray:
        self._check_fitted()
        return self.model_.classes_

    @property
    def class_count_(self) -> np.ndarray:
        """N_c, the weighted rows of each class."""
        self._check_fitted()
        return self.model_.class_count_


    # ------------------------------------------------------------------ explanation
    def explain(self, row: Any, *, priors: Any = None):
        """The computation for one row (a dict, a pandas Series or a one-row table): per
        attribute P(x_j | c, parents) with the parents used (TAN, k-DB), or per super-parent its
        share of P(c, x) (AODE family); values shown as categories and intervals."""
        self._check_fitted()
        if hasattr(row, "to_frame") and hasattr(row, "index") and not hasattr(row, "columns"):
            row = row.to_frame().T
        frame = self._frame(row)
        codes = self._encode(frame, fitting=False)
        if codes.codes.shape[0] != 1:
            raise ValueError(f"explain takes one row; got {codes.codes.shape[0]}.")
        explanation = self.model_.explain(
            codes, priors=priors, _names=[s.name for s in self.schema_],
            _show=functools.partial(views.shown_value, self),
        )
        _, _, joint = views.attribute_terms(self, frame)
        explanation.top_two, explanation.contributions = views.contributions(self, frame, joint)
        if self._words is not None:  # the posterior of the whole model, text columns included
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UnseenCategoryWarning)
                explanation.posterior = self.predict_proba(frame, priors=priors)[0]
                explanation.decision = self.predict(frame, priors=priors)[0]
        return explanation

    # ------------------------------------------------------------------ views
    @property
    def families_(self) -> dict[str, str]:
        """Each column's family: categorical, an interval method, or "ignore" (left out)."""
        self._check_fitted()
        return views.column_families(self)

    @property
    def family_reasons_(self) -> dict[str, str]:
        """Why each column has its family (:mod:`nbayes.semi_naive.views`)."""
        self._check_fitted()
        return views.column_reasons(self)

    @property
    def missing_(self) -> dict[str, str]:
        """How each modelled column's missing values count: always "skip" (a missing child adds
        nothing, a missing super-parent does not vote, a missing parent is backed off from)."""
        self._check_fitted()
        return {s.name: "skip" for s in self.schema_}

    @property
    def alpha_(self) -> dict[str, float]:
        """The pseudo-count p_j of each modelled column's estimates."""
        self._check_fitted()
        pseudo = self.model_._pseudo()
        return {s.name: float(p) for s, p in zip(self.schema_, pseudo, strict=True)}

    @property
    def calibration_(self) -> None:
        """None: a semi-naive model's scores are its own joint log-likelihoods."""
        self._check_fitted()
        return None

    def tables(
        self, columns: list[str] | None = None, *, grid: int = 200, to: str = "polars"
    ) -> dict[str, Any]:
        """P̂(x_j | c) of every modelled column as tidy frames, in the layout of
        ``NaiveBayes.tables()`` (see :mod:`nbayes.semi_naive.views`; ``grid`` is accepted for
        that call's sake: no column here is a density)."""
        self._check_fitted()
        return views.conditional_tables(self, columns, to=to)

    def _attribute_terms(self, X: Any) -> tuple[list[str], np.ndarray, np.ndarray]:
        """Each attribute's term in the joint log-likelihood of each row of X (influence)."""
        self._check_fitted()
        return views.attribute_terms(self, self._frame(X))

    def _repr_html_(self) -> str | None:
        """The fitted model as HTML (a notebook's view): the summary, then each column."""
        return views.model_html(self) if hasattr(self, "model_") else None

    def summary(self) -> str:
        """The fitted model: the inner model's summary, then the cut points of numeric columns."""
        self._check_fitted()
        lines = [self.model_.summary()]
        if self.text_columns_:
            lines.append(
                f"text, as a bag of words beside the structure: {', '.join(self.text_columns_)}"
            )
        if self.ignored_:
            lines.append(f"left out (identifiers): {', '.join(self.ignored_)}")
        for name, cuts in self.cut_points_.items():
            shown = ", ".join(f"{c:.6g}" for c in cuts) or "none (one interval)"
            lines.append(f"cut points of {name}: {shown}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary() if hasattr(self, "model_") else repr(self)

    # ------------------------------------------------------------------ model files
    def _to_state(self) -> tuple[dict, dict[str, np.ndarray]]:
        """(JSON metadata, arrays) of a model file (:mod:`nbayes.semi_naive.table_files`)."""
        return table_files.table_state(self)

    @classmethod
    def _from_state(cls, meta: dict, arrays: dict[str, np.ndarray]) -> SemiNaiveBayes:
        return table_files.table_from_state(cls, meta, arrays)

    def edges(self) -> list[dict]:
        """The learnt structure as data (TAN, k-DB): parent, child, I(X_child; X_parent | C)."""
        self._check_fitted()
        if not hasattr(self.model_, "edges"):
            raise ValueError(f"{type(self.model_).__name__} has no learnt edges.")
        return self.model_.edges()

