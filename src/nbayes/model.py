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

import warnings
from typing import Any

import numpy as np
import polars as pl

from . import families
from ._base import NaiveBayesClassifier
from ._dispatch import dask_aware
from ._locks import synchronized
from ._validation import (
    check_alpha,
    check_ddof,
    check_positive_number,
    check_sample_weight,
)
from .decision import validate_loss
from .exceptions import caller_stacklevel, choice_hint
from .families._group import Settings
from .families.auto import MISSING_MODES
from .families.categorical import CategoricalColumns
from .families.category_counts import UNKNOWN_MODES
from .families.intervals import MAX_INTERVALS
from .families.kde import BANDWIDTH_RULES
from .labels import (
    check_classes,
    class_indices,
    label_values,
    scored_matches,
    text_codes,
)
from .model_calibration import CalibratedScores, forget_calibration
from .model_files import NaiveBayesFiles
from .model_input import PreparedTable, TableInput
from .model_partitions import NaiveBayesPartitions
from .model_views import NaiveBayesViews
from .priors import validate_prior
from .schema import check_counted_sizes, merged_type
from .tables import missing_markers, warn_near_missing_marker

#: The values of the ``calibration`` parameter.
CALIBRATION_MODES = ("auto", None)


class NaiveBayes(
    TableInput,
    CalibratedScores,
    NaiveBayesPartitions,
    NaiveBayesFiles,
    NaiveBayesViews,
    NaiveBayesClassifier,
):
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
        ``"mdl"`` (Weka's -D), ``"equal-width"`` or ``"equal-frequency"``; then a numeric column
        of at most ``max_int_categories`` distinct integers is categorical, whatever its type
        (pandas holds integers with a missing value as floats).
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
        Numeric columns whose values are at most this many distinct integers (2.0 counts as 2)
        are categorical; others are continuous. Counted over the rows the schema is read from:
        all of them in ``fit``, on Dask and on the command line (which reads again where the
        first batch misled), the first batch in ``partial_fit``.
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
        :mod:`nbayes.model_calibration`). a alone changes no decision under the model's own
        prior; the offsets (fitted only with a prior estimated from the data) may. The
        calibration is derived from the statistics like every parameter, so :meth:`fit`,
        :meth:`partial_fit`, :meth:`merge`, Dask and ``nbayes fit`` give the same calibrated
        model. ``calibration_`` and
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
        self._store_params(locals())

    # ------------------------------------------------------------------ parameters
    def _check_params(self) -> None:
        super()._check_params()
        if self.continuous not in families.continuous_names():
            raise ValueError(
                f"continuous must be one of {families.continuous_names()}, got "
                f"{self.continuous!r}{choice_hint(self.continuous, families.continuous_names())}"
            )
        modes = self.missing.values() if isinstance(self.missing, dict) else [self.missing]
        if any(m not in MISSING_MODES for m in modes):
            raise ValueError(
                f"missing must be one of {MISSING_MODES} or a dict of them per column, "
                f"got {self.missing!r}{choice_hint(self.missing, MISSING_MODES)}"
            )
        if self.unknown not in UNKNOWN_MODES:
            raise ValueError(
                f"unknown must be one of {UNKNOWN_MODES}, got "
                f"{self.unknown!r}{choice_hint(self.unknown, UNKNOWN_MODES)}"
            )
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
                f"calibration must be one of {CALIBRATION_MODES}, got "
                f"{self.calibration!r}{choice_hint(self.calibration, CALIBRATION_MODES)}"
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
        # a column's type as a kind: pandas' floats and Polars' integers of one table merge
        schema = tuple((s.name, s.family, merged_type(s.dtype)) for s in self.schema_)
        # the value sketches of kde and interval columns pool on a grid chosen by max_bins
        return (*schema, ("max_bins", self.max_bins), ("calibration", self.calibration))

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
        warn_near_missing_marker(frame, self.missing_markers_, "missing_values")
        frame, labels = self._split_target(frame, y, target)
        weight = check_sample_weight(sample_weight, frame.height, estimator="NaiveBayes")
        frame, labels, weight = self._drop_missing_target(frame, labels, weight)
        classes, cls = class_indices(labels)
        check_classes(classes, batches=True)
        validate_prior(self._prior_spec(), len(classes), name="class_prior")  # its length
        validate_loss(self.loss, len(classes), name="loss")  # its shape, before any prediction
        self._fit_columns = list(frame.columns)
        self._build(frame, len(classes), require_observed=True)
        self.classes_ = classes
        self.class_count_ = np.zeros(len(classes))
        table = self._encode(frame, fitting=True)
        rows = self._sample_rows(frame)
        self._accumulate(table, cls, weight)
        self._start_sample(rows)
        self._add_to_sample(rows, labels, cls, weight)
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
        # the sample's rows read before anything is counted: a batch they refuse changes nothing
        rows = None if first else self._sample_rows(frame)
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
            rows = self._sample_rows(frame)
            positions = np.searchsorted(start, batch_classes)
        elif batch_classes is not None:
            positions = self._union_classes(batch_classes)
        if batch_classes is not None:  # the batch's class k is class positions[k] of the model
            cls = positions.astype(np.intp)[cls]
        self._accumulate(self._encode(frame, fitting=True), cls, weight)
        if first:
            self._start_sample(rows)
        self._add_to_sample(rows, labels, cls, weight)
        return self

    def merge(self, *others: NaiveBayesClassifier) -> NaiveBayes:
        """Add the statistics of models fitted on other rows (see
        :meth:`NaiveBayesClassifier.merge`), their row samples included: the calibration is
        then derived anew, as one fit of all the rows would give it."""
        self._check_fitted()
        for other in others:
            if not isinstance(other, NaiveBayes):
                continue  # the base class names what cannot be merged
            other._check_fitted()
            if list(self.missing_markers_) != list(other.missing_markers_):
                # a marker decides which values are counted at all: the counts differ in kind
                raise ValueError(
                    "cannot merge NaiveBayes models read with different missing-value markers "
                    f"(missing_values): {self.missing_markers_} vs {other.missing_markers_}."
                )
            if (other._stats.sample is None) != (self._stats.sample is None):
                raise ValueError(
                    "cannot merge a NaiveBayes model that keeps a row sample for its "
                    "calibration with one that does not (calibration=None, or a model file "
                    "written before nbayes kept one): fit both with the same calibration."
                )
        _check_categories(self, others)
        super().merge(*others)
        forget_calibration(self)
        return self

    # ------------------------------------------------------------------ prediction
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
        right = scored_matches(predicted, label_values(labels), self.classes_, "NaiveBayes")
        return float(np.average(right, weights=weight))


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


def _check_categories(model: NaiveBayes, others: tuple) -> None:
    """Before a merge changes anything: refuse where a column counted by the rule of
    ``max_int_categories`` (``continuous`` named, not ``"auto"``) holds more values over the
    models than one fit of their rows would count (:func:`nbayes.schema.check_counted_sizes`).
    Models of other columns or parameters are left to the merge's own refusals. Also refused:
    a category the model's column type cannot hold (``CategoricalEncoder.check_absorbable``)."""
    alike = [
        o for o in others if isinstance(o, NaiveBayes) and o._merge_key() == model._merge_key()
    ]
    for k, group in enumerate(model._stats.groups):
        if isinstance(group, CategoricalColumns):
            for other in alike:
                group.encoder.check_absorbable(other._stats.groups[k].encoder)
    if model.continuous == "auto":
        return
    for k, group in enumerate(model._stats.groups):
        if isinstance(group, CategoricalColumns) and alike:
            sizes = [
                len(set(values).union(*(o._stats.groups[k].vocabularies[j] for o in alike)))
                for j, values in enumerate(group.vocabularies)
            ]
            check_counted_sizes(
                group.names, group.dtypes, sizes, model.families, model.max_int_categories
            )
