"""``NaiveBayes``: one model over a real table with mixed column types and missing values.

    y = argmax_c P(c) ∏_j P(x_j | c)

where each column j has its own likelihood family, chosen from its type or named by the user
(see :mod:`nbayes.schema`): counting for categories, a Gaussian or kernel density or intervals for
numbers, Poisson for counts, a bag of words for text. Missing values (None, NaN, null, pandas NA,
or markers such as ``"?"``) are skipped in fitting and prediction, as in Weka and R's
naivebayes.

The fitted state is, per column group, the family's mergeable statistics; ``partial_fit``,
``merge`` and streaming from files all add statistics, and parameters are derived when needed.
"""

from __future__ import annotations

import copy
import functools
import warnings
from typing import Any

import numpy as np
import polars as pl
import scipy.sparse as sp

from . import families
from ._base import NaiveBayesClassifier
from ._dispatch import dask_aware
from ._json import from_json, to_json
from ._locks import synchronized
from ._state import nest, section
from ._validation import (
    check_alpha,
    check_ddof,
    check_positive_number,
    check_sample_weight,
    no_rows,
)
from .calibration import Calibration
from .exceptions import UnseenCategoryWarning, caller_stacklevel, suggest_names
from .families._group import ColumnGroup, Settings
from .families.auto import MISSING_MODES
from .families.category_counts import UNKNOWN_MODES
from .families.intervals import MAX_INTERVALS
from .families.kde import BANDWIDTH_RULES
from .labels import (
    LabelledRows,
    check_classes,
    class_indices,
    keep_labelled,
    label_values,
    matches,
    no_labelled_rows,
    split_target,
    text_codes,
    warn_dropped,
)
from .model_calibration import CalibratedScores, forget_calibration
from .model_views import NaiveBayesViews
from .priors import validate_prior
from .row_sample import RowSample
from .schema import ColumnSpec, conform, infer_schema, lacking_columns
from .tables import apply_missing, missing_markers, to_frame

#: The values of the ``calibration`` parameter.
CALIBRATION_MODES = ("auto", None)

#: Column value types a model file may name (the schema's dtype for each column).
_DTYPE_NAMES = {
    pl.String: "String",
    pl.Int64: "Int64",
    pl.Float64: "Float64",
    pl.Boolean: "Boolean",
    pl.Int32: "Int32",
    pl.Float32: "Float32",
    pl.Int16: "Int16",
    pl.Int8: "Int8",
    pl.UInt8: "UInt8",
    pl.UInt16: "UInt16",
    pl.UInt32: "UInt32",
    pl.UInt64: "UInt64",
}


@functools.lru_cache(maxsize=64)  # per column of a model file; Polars' type hashing is slow
def _dtype_name(dtype: pl.DataType) -> str:
    return _DTYPE_NAMES[dtype]


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


class NaiveBayes(CalibratedScores, NaiveBayesViews, NaiveBayesClassifier):
    """Naive Bayes over a table of mixed columns: categories, numbers, counts (and text).

    Parameters
    ----------
    families : dict, optional
        Family per column name, overriding the inferred one: ``"categorical"``, ``"gaussian"``,
        ``"kde"``, ``"poisson"``, ``"equal-width"``, ``"equal-frequency"``, ``"mdl"``,
        ``"text"``.
    continuous : str, default "auto"
        Family for numeric columns. ``"auto"``: chosen per column from the data among the
        Gaussian, the kernel density, MDL and equal-frequency intervals, and counting for a
        column of at most ``max_int_categories`` distinct integers, by the leave-one-out
        conditional log-likelihood of the class given the column (see
        :mod:`nbayes.families.auto`); ``families_`` and ``summary()`` show each choice and why.
        Or one family for all: ``"gaussian"``, ``"kde"`` (the kind of estimator of Weka's -K),
        ``"mdl"`` (Weka's -D), ``"equal-width"`` or ``"equal-frequency"``; then integer columns
        with at most ``max_int_categories`` distinct values are categorical.
    missing : "auto", "skip", "category" or dict, default "auto"
        What a missing value means, for categorical columns and columns whose family is chosen
        from the data: ``"skip"`` (missing at random: the column is left out of that row, as in
        Weka and R's naivebayes), ``"category"`` (one more value, P(missing | class), as when
        '?' is kept as a value), or ``"auto"``: per column, whichever has the larger
        leave-one-out conditional log-likelihood. A dict gives the mode per column (others
        "auto"). Other families always skip.
    alpha : "auto", float or dict, default "auto"
        Lidstone λ of the categorical, interval and Poisson estimates (1 = Laplace; 0 = maximum
        likelihood); a dict gives λ per column (others 1). ``"auto"``: λ = 1, except in the
        columns that count categories (categorical columns, and numeric columns chosen as
        categorical), where each column's λ is chosen from the data among 1, 1/2, …, 1/16: the
        one with the largest leave-one-out conditional log-likelihood of the class given the
        column, if it beats λ = 1 by one standard error for the group of columns, not for each
        (Bonferroni's bar, as for missing values; see :mod:`nbayes.families._selection`).
        ``alpha_``, ``family_reasons_`` and ``summary()`` show each column's λ.
    class_prior : None, "mle", "smoothed", "uniform" or sequence, default None ("mle")
        The class prior (see :mod:`nbayes.priors`); ``prior_alpha`` is λ of the smoothed prior
        (default: ``alpha`` when it is a number, else 1).
    loss : (K, K) array-like, optional
        ``loss[i][j]`` = cost of deciding ``classes_[i]`` when the truth is ``classes_[j]``;
        ``predict`` then minimises the conditional risk R(c_i | x) = Σ_j loss[i][j] P(c_j | x).
    unknown : {"ignore", "smooth", "error"}, default "ignore"
        A category never seen in fitting: skip that column for that row (one warning per
        call, with counts), give it the Lidstone mass of one extra value, or raise.
    missing_values : str, number or list, optional
        Markers that mean "missing" besides None/NaN/null (e.g. ``"?"``), in every column, the
        target's included (a row whose label is missing is dropped, with a warning).
    max_int_categories : int, default 20
        Integer columns with at most this many distinct values (in the first batch) are
        categorical; others are continuous.
    var_smoothing : float, default 1e-9
        Gaussian variance smoothing, per column: ε_j = var_smoothing · Var(x_j) is added to each
        class's variance of column j, so a column's units never matter (scikit-learn's
        GaussianNB uses one ε, from the largest variance, for a homogeneous array).
    ddof : {0, 1}, default 0
        Gaussian variance divisor W − ddof: 0 the maximum-likelihood variance (scikit-learn,
        Weka), 1 the sample variance (R's e1071 and naivebayes, Weka's NaiveBayesSimple); with
        sample weights W is their sum (frequency weights: M2 / (W − 1)).
    bins : int, default 10
        Number of intervals for equal-width and equal-frequency discretisation.
    bandwidth : str or float, default "silverman"
        Kernel density bandwidth: a rule per class (``"silverman"``, ``"scott"``), one rule on
        all classes together (``"silverman-pooled"``, ``"scott-pooled"``), or h itself (a
        number); see :mod:`nbayes.families.kde`.
    point_masses : float, None or dict, default 0.1
        A value holding at least this share of a numeric column's observed weight (and a weight
        of at least 5) is a point mass — the 0 of a zero-inflated column: kernel density columns
        give it a probability rather than a kernel (see :mod:`nbayes.families.kde`). None: none.
        A dict {column: share or None} sets it per column (0.1 for the others): a column of
        integer codes for which ``continuous="auto"`` chose a kernel density without point
        masses is reproduced by ``families={name: "kde"}, point_masses={name: None}``.
    max_bins : int, default 2048
        Distinct values a continuous column's sketch keeps exactly before pooling on a grid
        (see :mod:`nbayes.families.sketch`); only kde and interval columns use it.
    calibration : "auto" or None, default "auto"
        ``"auto"``: the statistics keep a sample of up to 4,096 distinct rows, chosen by a hash
        of their content (so the same whatever the order, batches or merges); each sample row
        is scored by the model of all the rows but its fold of the sample (5 folds, by hash),
        and the model chooses among the textbook scores, a temperature a, and a with an offset
        b_c per class, by held-out conditional log-likelihood (one standard error for a, as for
        the columns; two for the offsets, which move decisions): the score of class c becomes
        a · [log P(c) + Σ_j log P(x_j | c)] + b_c, which undoes evidence counted more than once
        by columns that repeat each other (see :mod:`nbayes.calibration` and
        :mod:`nbayes.model_calibration`). a alone changes no decision; the offsets (fitted only
        with a prior estimated from the data) may. The calibration is derived from the
        statistics like every parameter, so :meth:`fit`, :meth:`partial_fit`, :meth:`merge`,
        Dask and ``nbayes fit`` give the same calibrated model. ``calibration_`` and
        ``summary()`` show the choice and why. Needs 100 distinct rows or more. None: the
        textbook classifier (no sample kept).
    """

    def __init__(
        self,
        *,
        families: dict[str, str] | None = None,
        continuous: str = "auto",
        missing: str | dict[str, str] = "auto",
        alpha: str | float | dict[str, float] = "auto",
        class_prior: Any = None,
        prior_alpha: float | None = None,
        loss: Any = None,
        unknown: str = "ignore",
        missing_values: Any = None,
        max_int_categories: int = 20,
        var_smoothing: float = 1e-9,
        ddof: int = 0,
        bins: int = 10,
        bandwidth: str | float = "silverman",
        point_masses: float | dict[str, float | None] | None = 0.1,
        max_bins: int = 2048,
        calibration: str | None = "auto",
    ) -> None:
        self.families = families
        self.continuous = continuous
        self.missing = missing
        self.alpha = alpha
        self.class_prior = class_prior
        self.prior_alpha = prior_alpha
        self.loss = loss
        self.unknown = unknown
        self.missing_values = missing_values
        self.max_int_categories = max_int_categories
        self.var_smoothing = var_smoothing
        self.ddof = ddof
        self.bins = bins
        self.bandwidth = bandwidth
        self.point_masses = point_masses
        self.max_bins = max_bins
        self.calibration = calibration

    # ------------------------------------------------------------------ parameters
    def _check_params(self) -> None:
        super()._check_params()
        if self.continuous not in families.continuous_names():
            raise ValueError(
                f"continuous must be one of {families.continuous_names()}, got {self.continuous!r}."
            )
        modes = self.missing.values() if isinstance(self.missing, dict) else [self.missing]
        if any(m not in MISSING_MODES for m in modes):
            raise ValueError(
                f"missing must be one of {MISSING_MODES} or a dict of them per column, "
                f"got {self.missing!r}."
            )
        if self.unknown not in UNKNOWN_MODES:
            raise ValueError(f"unknown must be one of {UNKNOWN_MODES}, got {self.unknown!r}.")
        if isinstance(self.alpha, dict):
            for name, value in self.alpha.items():
                check_alpha(value, None, name=f"alpha[{name!r}]")
        elif isinstance(self.alpha, str):
            if self.alpha != "auto":
                raise ValueError(
                    f'alpha must be "auto", a number >= 0 or a dict {{column: number}}, '
                    f"got {self.alpha!r}."
                )
        elif not isinstance(check_alpha(self.alpha, None), float):
            raise ValueError(
                f"alpha must be a number >= 0 or a dict {{column: number}}, got {self.alpha!r}."
            )
        check_positive_number(self.var_smoothing, "var_smoothing")
        if self.prior_alpha is not None:
            check_positive_number(self.prior_alpha, "prior_alpha")
        check_ddof(self.ddof)
        if not isinstance(self.bins, int) or isinstance(self.bins, bool) or self.bins < 1:
            raise ValueError(f"bins must be a positive integer, got {self.bins!r}.")
        if self.bins > MAX_INTERVALS:
            raise ValueError(
                f"bins must be at most {MAX_INTERVALS:,} (each interval is a column of counts per "
                f"class), got {self.bins:,}."
            )
        if (
            not isinstance(self.max_int_categories, (int, np.integer))
            or isinstance(self.max_int_categories, bool)
            or self.max_int_categories < 0
        ):
            raise ValueError(
                f"max_int_categories must be an integer >= 0, got {self.max_int_categories!r}."
            )
        if self.calibration not in CALIBRATION_MODES:
            raise ValueError(
                f"calibration must be one of {CALIBRATION_MODES}, got {self.calibration!r}."
            )
        if not isinstance(self.max_bins, int) or self.max_bins < 2:
            raise ValueError(f"max_bins must be an integer >= 2, got {self.max_bins!r}.")
        if isinstance(self.bandwidth, str):
            if self.bandwidth not in BANDWIDTH_RULES:
                raise ValueError(f"bandwidth must be one of {BANDWIDTH_RULES} or a number > 0.")
        else:
            check_positive_number(self.bandwidth, "bandwidth", allow_zero=False)
        shares = self.point_masses
        shares = shares.values() if isinstance(shares, dict) else [shares]
        for share in shares:
            if share is not None and not (
                check_positive_number(share, "point_masses", allow_zero=False) <= 1.0
            ):
                raise ValueError(
                    "point_masses must be a share in (0, 1] or None, or a dict of them per "
                    f"column, got {self.point_masses!r}."
                )

    def _settings(self) -> Settings:
        return Settings(
            self.alpha,
            self.var_smoothing,
            self.bandwidth,
            self.bins,
            self.unknown,
            ddof=self.ddof,
            point_masses=self.point_masses,
            missing=self.missing,
            max_int_categories=self.max_int_categories,
        )

    def _prior_spec(self) -> str | np.ndarray:
        return "mle" if self.class_prior is None else self.class_prior

    def _prior_alpha(self) -> float:
        if self.prior_alpha is not None:
            return check_positive_number(self.prior_alpha, "prior_alpha")
        return float(self.alpha) if not isinstance(self.alpha, (dict, str)) else 1.0

    def _merge_key(self) -> tuple:
        schema = tuple((s.name, s.family, str(s.dtype)) for s in self.schema_)
        # the value sketches of kde and interval columns pool on a grid chosen by max_bins
        return (*schema, ("max_bins", self.max_bins), ("calibration", self.calibration))

    # ------------------------------------------------------------------ input
    def _markers(self) -> list[Any]:
        """The missing-value markers: the fitted model's (``missing_markers_``), or, before a fit,
        the ``missing_values`` parameter normalised to a list."""
        fitted = getattr(self, "missing_markers_", None)
        return missing_markers(self.missing_values) if fitted is None else fitted

    def _frame(self, X: Any, columns: Any = None) -> pl.DataFrame:
        if columns is None and isinstance(X, np.ndarray):
            columns = getattr(self, "_fit_columns", None)
            if columns is not None and X.ndim == 2 and X.shape[1] != len(columns):
                raise ValueError(
                    f"X has {X.shape[1]} features, but NaiveBayes is expecting {len(columns)} "
                    "features as input (a NumPy array's columns are taken in the fitted order)."
                )
        markers = self._markers()
        return apply_missing(to_frame(X, columns=columns, markers=markers), markers)

    def _split_target(
        self, frame: pl.DataFrame, y: Any, target: str | None
    ) -> tuple[pl.DataFrame, pl.Series]:
        """The feature columns and the labels, by the rules of :mod:`nbayes.labels`."""
        return split_target(frame, y, target, self._markers())

    def _drop_missing_target(
        self, frame: pl.DataFrame, labels: pl.Series, weight: np.ndarray
    ) -> tuple[pl.DataFrame, pl.Series, np.ndarray]:
        """The labelled rows of a table with rows, their labels and weights; warns when rows
        were dropped, raises when none is labelled."""
        if frame.height == 0:
            raise no_rows()
        rows = keep_labelled(frame, labels, weight)
        if rows.frame.height == 0:
            raise no_labelled_rows()
        if rows.dropped:
            # at the caller's line, past the wrappers of fit and partial_fit (lock, Dask)
            warn_dropped(rows.dropped, rows.first_dropped, stacklevel=caller_stacklevel())
        return rows.frame, rows.labels, rows.weight

    def _build(self, frame: pl.DataFrame, n_classes: int, *, require_observed: bool) -> None:
        specs = infer_schema(
            frame,
            self.families,
            self.continuous,
            self.max_int_categories,
            require_observed=require_observed,
        )
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
        """Select the model's columns by name (any order, extra columns ignored) and encode them."""
        lacking_columns(frame, self.schema_)
        blocks = [
            # frame[names], not frame.select(names): the same frame, without Polars' expression
            # machinery, whose time per column tells on a table of 100,000 columns
            group.encode(frame[group.names], fitting=fitting)
            for group in self._stats.groups
        ]
        return PreparedTable(blocks, frame.height)

    # ------------------------------------------------------------------ fitting
    @dask_aware
    @synchronized
    def fit(
        self,
        X: Any,
        y: Any = None,
        *,
        target: str | None = None,
        sample_weight: Any = None,
        columns: Any = None,
    ) -> NaiveBayes:
        """Fit on a table (pandas, Polars, PyArrow, NumPy with ``columns``, dict of columns).

        The class labels are ``y`` (an array) or the column named by ``target`` (or a string
        ``y``). Rows whose label is missing are dropped, with a warning. ``columns`` names the
        columns of a NumPy array (default ``x0``, ``x1``, …); prediction on NumPy arrays then
        uses the same names.
        """
        self._check_params()
        self._fit_columns = None  # a new fit: NumPy columns are not named after an old one's
        self.missing_markers_ = missing_markers(self.missing_values)
        frame = self._frame(X, columns)
        frame, labels = self._split_target(frame, y, target)
        weight = check_sample_weight(sample_weight, frame.height, estimator="NaiveBayes")
        frame, labels, weight = self._drop_missing_target(frame, labels, weight)
        classes, cls = class_indices(labels)
        check_classes(classes)
        validate_prior(self._prior_spec(), len(classes), name="class_prior")  # its length
        self._fit_columns = list(frame.columns)
        self._build(frame, len(classes), require_observed=True)
        self.classes_ = classes
        self.class_count_ = np.zeros(len(classes))
        table = self._encode(frame, fitting=True)
        self._accumulate(table, cls, weight)
        conformed = conform(frame, self.schema_)
        self._start_sample(conformed)
        self._add_to_sample(conformed, labels, cls, weight)
        return self

    @dask_aware
    @synchronized
    def partial_fit(
        self,
        X: Any,
        y: Any = None,
        *,
        target: str | None = None,
        classes: Any = None,
        sample_weight: Any = None,
        columns: Any = None,
    ) -> NaiveBayes:
        """Add one batch. The schema comes from the first batch; classes may grow from batch to
        batch (or be given up front with ``classes``). ``columns`` names a NumPy array's columns,
        as in :meth:`fit`."""
        first = not hasattr(self, "classes_")
        if first:
            self._check_params()
            self.missing_markers_ = missing_markers(self.missing_values)
        frame = self._frame(X, columns)
        frame, labels = self._split_target(frame, y, target)
        weight = check_sample_weight(sample_weight, frame.height, estimator="NaiveBayes")
        if labels.null_count() == frame.height:  # nothing labelled in this batch: nothing to add
            if frame.height:
                warnings.warn(
                    f"a batch of {frame.height} row(s) had no target value and was skipped.",
                    UserWarning,
                    stacklevel=caller_stacklevel(),
                )
            return self
        frame, labels, weight = self._drop_missing_target(frame, labels, weight)
        known = None if first else _known_class_indices(self.classes_, labels)
        batch_classes, cls = class_indices(labels) if known is None else (None, known)
        if first:
            start = (
                np.unique(np.concatenate([np.asarray(classes), batch_classes]))
                if classes is not None
                else batch_classes
            )
            self._fit_columns = list(frame.columns)
            self._build(frame, len(start), require_observed=False)
            self.classes_ = start
            self.class_count_ = np.zeros(len(start))
            positions = np.searchsorted(start, batch_classes)
        elif batch_classes is not None:
            positions = self._union_classes(batch_classes)
        if batch_classes is not None:  # the batch's class k is class positions[k] of the model
            cls = positions.astype(np.intp)[cls]
        self._accumulate(self._encode(frame, fitting=True), cls, weight)
        conformed = conform(frame, self.schema_)
        if first:
            self._start_sample(conformed)
        self._add_to_sample(conformed, labels, cls, weight)
        return self

    def merge(self, *others: NaiveBayesClassifier) -> NaiveBayes:
        """Add the statistics of models fitted on other rows (see
        :meth:`NaiveBayesClassifier.merge`), their row samples included: the calibration is
        then derived anew, as one fit of all the rows would give it."""
        for other in others:
            if isinstance(other, NaiveBayes) and (other._stats.sample is None) != (
                self._stats.sample is None
            ):
                raise ValueError(
                    "cannot merge a NaiveBayes model that keeps a row sample for its "
                    "calibration with one that does not (calibration=None, or a model file "
                    "written before nbayes kept one): fit both with the same calibration."
                )
        super().merge(*others)
        forget_calibration(self)
        return self

    # ------------------------------------------------------------------ prediction
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

    def _log_likelihood(self, table: PreparedTable) -> np.ndarray:
        settings = self._settings()
        out = np.zeros((table.shape[0], len(self.classes_)))
        for group, block in zip(self._stats.groups, table.blocks, strict=True):
            out += group.log_likelihood(block, settings)
        return out

    @dask_aware
    def score(
        self, X: Any, y: Any = None, *, target: str | None = None, sample_weight: Any = None
    ) -> float:
        """Accuracy on a table (labels as ``y`` or the column ``target``)."""
        frame = self._frame(X)
        frame, labels = self._split_target(frame, y, target)
        weight = check_sample_weight(sample_weight, frame.height, estimator="NaiveBayes")
        frame, labels, weight = self._drop_missing_target(frame, labels, weight)
        predicted = self.predict(frame)
        return float(np.average(matches(predicted, label_values(labels)), weights=weight))

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
        params = copy.deepcopy(self.get_params())
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

    def _infer_schema(self, frame: pl.DataFrame) -> list[ColumnSpec]:
        """The schema this model's settings give ``frame`` (read as by :meth:`_read_partition`;
        a column without values is allowed)."""
        return infer_schema(
            frame, self.families, self.continuous, self.max_int_categories, require_observed=False
        )

    def _fit_partition(self, rows: LabelledRows, schema: list[ColumnSpec]) -> NaiveBayes:
        """A new model with this one's parameters fitted on one piece's labelled rows (at least
        one) with ``schema``: pieces fitted with one schema merge into the model of all their
        rows. The piece's columns are cast to the schema's types (see
        :func:`nbayes.schema.conform`); extra columns are ignored."""
        model = type(self)(**copy.deepcopy(self.get_params()))
        model.families = {s.name: s.family for s in schema}
        return model.partial_fit(
            conform(rows.frame, schema), rows.labels, sample_weight=rows.weight
        )

    # ------------------------------------------------------------------ model files
    def _to_state(self) -> tuple[dict, dict[str, np.ndarray]]:
        meta = self._common_meta()
        meta["schema"] = [[s.name, s.family, _dtype_name(s.dtype)] for s in self.schema_]
        meta["fit_columns"] = list(getattr(self, "_fit_columns", [s.name for s in self.schema_]))
        meta["groups"] = [group.meta() for group in self._stats.groups]
        meta["missing_markers"] = to_json(list(self._markers()))
        fitted = self.calibration_
        meta["calibration"] = None if fitted is None else fitted.to_json()
        arrays = {"class_count": self.class_count_}
        arrays.update(nest("stats", self._stats.state()))
        if self._stats.sample is not None:
            meta["sample"], sample_arrays = self._stats.sample.state()
            arrays.update(nest("sample", sample_arrays))
        return meta, arrays

    @classmethod
    def _from_state(cls, meta: dict, arrays: dict[str, np.ndarray]) -> NaiveBayes:
        params = from_json(meta["params"])
        # a file from before point masses: its kernel densities had none (other new parameters'
        # defaults are the old behaviour on old statistics)
        params.setdefault("point_masses", None)
        params.setdefault("calibration", None)  # and no calibration
        model = cls(**params)
        model._check_params()
        model._restore_common(meta, arrays)
        dtypes = {name: dtype for dtype, name in _DTYPE_NAMES.items()}
        schema = meta["schema"]
        if not isinstance(schema, list) or not all(
            isinstance(s, list) and len(s) == 3 and all(isinstance(v, str) for v in s)
            for s in schema
        ):
            raise ValueError("the schema must list [name, family, dtype] for each column.")
        if len({name for name, _, _ in schema}) != len(schema) or len(schema) != (
            model.n_features_in_
        ):
            raise ValueError("the schema must name each of the n_features_in columns once.")
        specs = [ColumnSpec(name, family, dtypes[dtype]) for name, family, dtype in schema]
        # the groups start with no classes: their statistics come from the file's arrays, and
        # nothing may be sized by the metadata alone (classes × columns of a forged file)
        model._make_groups(specs, 0)
        if not isinstance(meta["fit_columns"], list) or not all(
            isinstance(c, str) for c in meta["fit_columns"]
        ):
            raise ValueError("fit_columns must be a list of column names.")
        model._fit_columns = list(meta["fit_columns"])
        # files written before the markers were carried as data: the parameter's markers
        markers = from_json(meta.get("missing_markers", to_json(model._markers())))
        if not isinstance(markers, list) or not all(
            isinstance(m, (str, int, float)) for m in markers
        ):
            raise ValueError("the missing-value markers must be a list of strings or numbers.")
        model.missing_markers_ = markers
        fitted = meta.get("calibration")
        # saved with the model, derived again only when its statistics change
        forget_calibration(
            model,
            None if fitted is None else Calibration.from_json(fitted, len(model.classes_)),
            derived=True,
        )
        if meta.get("sample") is not None:
            sample = RowSample.from_state(
                meta["sample"], section("sample", arrays), {s.name: s.dtype for s in specs}
            )
            if sample.cls.size and not 0 <= sample.cls.min() <= sample.cls.max() < len(
                model.classes_
            ):
                raise ValueError("the row sample's classes must index the model's classes.")
            model._stats.sample = sample
        if len(meta["groups"]) != len(model._stats.groups):
            raise ValueError("the column groups do not match the schema.")
        stats = section("stats", arrays)
        for g, (group, group_meta) in enumerate(
            zip(model._stats.groups, meta["groups"], strict=True)
        ):
            group.load_state(section(f"g{g}", stats), group_meta)
            group.check(len(model.classes_))
        return model

#: Integer labels spanning at most this many values are looked up in a table (one read per
#: row) rather than found by binary search.
LABEL_TABLE_SIZE = 1 << 16


def _known_class_indices(classes: np.ndarray, labels: pl.Series) -> np.ndarray | None:
    """Each label's index in the sorted ``classes`` when every label of the batch is one of
    them (most batches of a stream): text by :func:`~nbayes.labels.text_codes`, numbers by
    one binary search (or table lookup) per row, instead of finding the batch's own classes
    first. None where a label is new, or the types differ (the general path then checks and
    explains)."""
    if labels.dtype == pl.String:
        return text_codes(labels, classes)
    values = label_values(labels)
    if values.dtype != classes.dtype or values.dtype.kind not in "iufb" or not classes.size:
        return None
    if values.dtype.kind in "iu" and values.size:  # integer labels: a lookup table, not a search
        low, high = int(classes[0]), int(classes[-1])
        if high - low <= LABEL_TABLE_SIZE and low <= values.min() and values.max() <= high:
            position = np.full(high - low + 1, -1, dtype=np.intp)
            position[[int(c) - low for c in classes]] = np.arange(classes.size)
            at = position[np.subtract(values, low, dtype=np.int64)]  # in [0, high - low]
            return at if at.min() >= 0 else None
    at = np.searchsorted(classes, values)
    np.minimum(at, classes.size - 1, out=at)
    if not np.array_equal(classes[at], values):
        return None
    return at.astype(np.intp, copy=False)
