"""``SemiNaiveBayes``: a semi-naive model over a real table (pandas, Polars, PyArrow, NumPy,
dicts of columns), with missing values.

The semi-naive models count attribute *values* together, so every column must be discrete:

* string and boolean columns are categories (coded by
  :class:`nbayes.encoding.CategoricalEncoder`, as in ``NaiveBayes``), and so is a numeric column
  whose values over all the rows are at most ``max_int_categories`` distinct integers, whatever
  type holds them (:mod:`~nbayes.semi_naive.integer_columns`);
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

The class's other jobs live beside it: :mod:`~nbayes.semi_naive.table_passes` (its passes and
the partition protocol), :mod:`~nbayes.semi_naive.table_merge` (merging),
:mod:`~nbayes.semi_naive.views` (what it shows) and :mod:`~nbayes.semi_naive.table_files` (its
model file).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from .. import decision
from .. import families as registry
from .._base import InnerModel
from .._dispatch import dask_aware
from .._params import ParamsMixin
from .._validation import check_sample_weight
from ..encoding import check_no_infinite, uncastable
from ..exceptions import NotFittedError, choice_hint, sklearn_compatible
from ..families.intervals import interval_of
from ..influence import feature_log_likelihoods
from ..labels import labelled_rows, scored_matches, split_target
from ..schema import lacking_columns
from ..tables import (
    apply_missing,
    fitted_array_columns,
    missing_markers,
    to_frame,
)
from . import table_files
from .averaged import AODE, WAODE, AnDE, AODEsr
from .classifier import Encoded, SemiNaiveClassifier
from .ensemble import SelectiveKDBEnsemble
from .hidden import HNB
from .missing import check_missing
from .network import KDB, TAN
from .selective import SelectiveKDB
from .table_correction import TableCorrection
from .table_files import DISCRETE
from .table_merge import TableMerge
from .table_passes import TablePasses
from .views import TableViews

#: Names of the models a table model (and the command line) can be asked for.
MODEL_NAMES = {
    "aode": AODE,
    "waode": WAODE,
    "aodesr": AODEsr,
    "a2de": lambda: AnDE(2),
    "hnb": HNB,
    "tan": TAN,
    "kdb": KDB,
    "skdb": lambda: SelectiveKDB(smoothing="hierarchical"),
    "eskdb": SelectiveKDBEnsemble,
}

class SemiNaiveBayes(
    TablePasses, TableMerge, TableCorrection, TableViews, InnerModel, ParamsMixin
):
    """A semi-naive Bayes model over a table (see :mod:`nbayes.semi_naive.table`).

    Parameters
    ----------
    model : str or estimator, default "skdb"
        ``"skdb"`` (selective k-DB with k up to 3: the attributes used and their number of
        parents chosen by leave-one-out log loss, :class:`~nbayes.semi_naive.SelectiveKDB`,
        with hierarchical smoothing: each estimate shrunk towards the one with a parent fewer),
        ``"aode"``, ``"waode"``, ``"aodesr"``, ``"a2de"``, ``"hnb"``, ``"tan"``, ``"kdb"``, or a
        configured estimator of :mod:`nbayes.semi_naive` (e.g. ``KDB(3)``), which is cloned,
        never fitted in place.
    discriminative : bool, default True
        Correct the structure's scores by weights learnt for the decision (logistic regression
        on the attributes' values and the value pairs of the structure's edges, with the
        structure's scores as offset; the number of
        iterations chosen on held-out rows, none when they prefer the generative model: see
        :mod:`nbayes.semi_naive.discriminative`). ``correction_`` holds it.
    refit : bool, default False
        Learn the correction's weights again on every row, held-out ones included, for the
        number of iterations the held-out rows chose (as a search that chooses by validation
        and then refits on all the data does): as many more passes, weights from a fifth more
        rows. Needs ``discriminative=True``.
    families : dict, optional
        Per column: ``"categorical"``, ``"mdl"``, ``"equal-width"`` or ``"equal-frequency"``.
    continuous : str, default "mdl"
        How numeric columns that are not inferred categorical are cut into intervals.
    missing : "category", "skip", "auto" or dict, default "category"
        What a missing value means, named as in ``NaiveBayes``: ``"category"`` (a value of its
        own, in every column whose training rows miss some), ``"skip"`` (missing at random: a
        missing child adds nothing, a missing super-parent does not vote, a missing parent is
        backed off from), or ``"auto"``: a category where whether a value is missing depends on
        the class (a G test on the table pass's counts, :mod:`nbayes.semi_naive.missing`); for
        every column or per column in a dict (``missing_modes_`` holds the choices).
    bins : int, default 10
        Intervals of equal-width and equal-frequency discretisation.
    max_intervals : int or None, default 32
        The most intervals MDL may cut a numeric column into (None: no bound). MDL's criterion
        accepts ever finer cuts as rows grow (its threshold falls like log N / N), and a
        column's intervals multiply the size of every table where it is a parent (B^k
        configurations for k such parents), so the splits it accepts are taken best first, by
        the class-coding bits they save, up to this many intervals
        (:func:`nbayes.families.intervals.mdl`).
    missing_values : str, number or list, optional
        Markers that mean "missing" besides None/NaN/null (e.g. ``"?"``), target included.
    max_int_categories : int, default 20
        A numeric column the user does not name whose values, over all the labelled rows,
        are at most this many distinct integers is categorical (an integer column, or floats
        such as pandas gives integers with a missing value); the others are cut into intervals.
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
        model: Any = "skdb",
        *,
        discriminative: bool = True,
        refit: bool = False,
        families: dict[str, str] | None = None,
        continuous: str = "mdl",
        missing: str | dict[str, str] = "category",
        bins: int = 10,
        max_intervals: int | None = 32,
        missing_values: Any = None,
        max_int_categories: int = 20,
        max_bins: int = 2048,
        alpha: float | None = None,
        class_prior: Any = None,
        prior_alpha: float | None = None,
        loss: Any = None,
        max_memory: Any = None,
    ) -> None:
        self._store_params(locals())

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
                    f"{self.model!r}{choice_hint(self.model, MODEL_NAMES)}"
                )
            return factory()
        if isinstance(self.model, SemiNaiveClassifier):
            return type(self.model)(**self.model.get_params(deep=False))
        raise ValueError(
            f"model must be one of {sorted(MODEL_NAMES)} or a semi-naive estimator, got "
            f"{type(self.model).__name__}."
        )

    def _check_params(self) -> None:
        for name in ("discriminative", "refit"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be True or False, got {getattr(self, name)!r}.")
        if self.refit and not self.discriminative:
            raise ValueError(
                "refit=True learns the discriminative correction again on every row; it needs "
                "discriminative=True."
            )
        check_missing(self.missing)
        if self.continuous not in DISCRETE[1:]:
            raise ValueError(
                f"continuous must be one of {DISCRETE[1:]} (semi-naive models need discrete "
                f"attributes), got {self.continuous!r}."
            )
        for name, family in (self.families or {}).items():
            if family not in registry.names():  # misspelt: the name, before what it can do
                raise ValueError(
                    f"unknown family {family!r} for column {name!r}"
                    f"{choice_hint(family, registry.names())} Semi-naive models take "
                    f"{(*DISCRETE, 'ignore', 'text')}."
                )
            if family not in (*DISCRETE, "ignore", "text"):
                raise ValueError(
                    f"column {name!r} has family {family!r}, but semi-naive models count values "
                    "together and need discrete columns: choose one of "
                    f"{(*DISCRETE, 'ignore', 'text')}."
                )
        if isinstance(self.bins, bool) or not isinstance(self.bins, int) or self.bins < 1:
            raise ValueError(f"bins must be a positive integer, got {self.bins!r}.")
        if self.max_intervals is not None and (
            isinstance(self.max_intervals, bool)
            or not isinstance(self.max_intervals, int)
            or self.max_intervals < 2
        ):
            raise ValueError(
                f"max_intervals must be an integer >= 2 or None, got {self.max_intervals!r}."
            )
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
            columns = fitted_array_columns(
                X, getattr(self, "_fit_columns", None), "SemiNaiveBayes"
            )
        markers = self._markers()
        return apply_missing(to_frame(X, columns=columns, markers=markers), markers)

    def _labelled(
        self, X: Any, y: Any, target: str | None, sample_weight: Any, columns: Any
    ) -> tuple[pl.DataFrame, np.ndarray, np.ndarray]:
        """The feature frame, the labels and the weights of the rows whose label is known (the
        rules of :mod:`nbayes.labels`)."""
        frame, labels = split_target(
            self._frame(X, columns), y, target, self._markers(), "SemiNaiveBayes", self.families
        )
        weight = check_sample_weight(sample_weight, frame.height, estimator="SemiNaiveBayes")
        rows = labelled_rows(frame, labels, weight, stacklevel=3)
        return rows.frame, rows.values, rows.weight

    def _encode(self, frame: pl.DataFrame, *, fitting: bool) -> Encoded:
        """Codes of every column, in the schema's order: categories in their vocabulary,
        numbers as interval indices; NaN where missing, a code beyond v_j where unseen."""
        lacking_columns(frame, self.schema_)  # naming them, and a close column of the data
        # filled a column at a time: column-major while filling, row-major for the kernels
        codes = np.empty((frame.height, len(self.schema_)), order="F")
        categorical = [j for j, s in enumerate(self.schema_) if s.family == "categorical"]
        if categorical:
            codes[:, categorical] = self._encoder.encode(
                frame.select(self._encoder.names), fitting=fitting
            )
        for j, spec in enumerate(self.schema_):
            if spec.family != "categorical":
                column = frame.get_column(spec.name)
                try:
                    values = column.cast(pl.Float64).to_numpy()
                except pl.exceptions.PolarsError:
                    wanted = {spec.name: pl.Float64}
                    then = "it is cut into intervals of numbers"
                    raise ValueError(uncastable(frame, wanted, "numbers", then)) from None
                check_no_infinite(values[:, None], [spec.name])  # as fitting refuses it
                codes[:, j] = interval_of(values.astype(np.float64), self.cut_points_[spec.name])
        for j, code in self._missing_codes.items():  # missing as a value
            column = codes[:, j]
            column[np.isnan(column)] = code
        return Encoded(np.ascontiguousarray(codes), [s.name for s in self.schema_])

    @property
    def passes(self) -> int:
        """Passes over the data a fit makes: the sketch pass, then the model's."""
        return 1 + self._new_model().passes

    def _forget(self) -> None:
        for name in ("missing_markers_", "_fit_columns", "model_", "schema_", "ignored_",
                     "text_columns_", "_words", "correction_", "missing_modes_",
                     "_missing_codes"):  # fmt: skip
            self.__dict__.pop(name, None)

    # ------------------------------------------------------------------ prediction
    def _codes(self, X: Any) -> Encoded:
        self._check_fitted()
        return self._encode(self._frame(X), fitting=False)

    def _joint(self, X: Any, priors: Any) -> tuple[np.ndarray, np.ndarray]:
        """(log P(c) + log P(x | c) per row and class, log P(c)): the structure's joint, plus
        the text columns' Σ_t log P(x_t | c) (each text column independent of the rest given the
        class), plus the discriminative correction b_c + Σ_j δ_{c,j,x_j} + Σ_E δ_{c,jp,x_j,x_p}
        when there is one (then a score whose softmax is P(c | x), no longer a joint
        probability)."""
        frame = self._frame(X)
        return self._joint_of(frame, self._encode(frame, fitting=False), priors, corrected=True)

    def _joint_of(
        self, frame: pl.DataFrame | None, codes: Encoded, priors: Any, corrected: bool
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`_joint` of a table already read and encoded (``codes``); ``frame`` is read for
        the text columns' terms alone (None: a model without text columns)."""
        joint = self.model_.predict_joint_log_proba(codes, priors=priors)
        if self._words is not None:
            joint = joint + self._text_terms(frame)[1].sum(axis=0)
        if corrected and self._corrected() is not None:
            joint = joint + self._correction_scores(codes.codes)
        return joint, self.model_._class_log_prior(priors)

    def _structure_only(self) -> bool:
        """Whether the structure's own predictions are the model's (no text, no correction)."""
        return self._words is None and self._corrected() is None

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
        if self._structure_only():
            return self.model_.predict(self._codes(X), priors=priors, loss=self._loss(loss))
        joint, log_prior = self._joint(X, priors)
        matrix = decision.validate_loss(self._loss(loss), len(self.classes_), name="loss")
        return self.classes_[decision.decide(joint, log_prior, matrix)]

    @dask_aware
    def predict_proba(self, X: Any, *, priors: Any = None) -> np.ndarray:
        """P(c | x) per row, columns in ``classes_`` order."""
        self._check_fitted()
        if self._structure_only():
            return self.model_.predict_proba(self._codes(X), priors=priors)
        return decision.posterior(*self._joint(X, priors))

    @dask_aware
    def predict_log_proba(self, X: Any, *, priors: Any = None) -> np.ndarray:
        self._check_fitted()
        if self._structure_only():
            return self.model_.predict_log_proba(self._codes(X), priors=priors)
        return decision.posterior(*self._joint(X, priors), log=True)

    @dask_aware
    def predict_joint_log_proba(self, X: Any, *, priors: Any = None) -> np.ndarray:
        """log P(c) + log P(x | c) per row and class."""
        self._check_fitted()
        if self._structure_only():
            return self.model_.predict_joint_log_proba(self._codes(X), priors=priors)
        return self._joint(X, priors)[0]

    @dask_aware
    def predict_risk(self, X: Any, *, priors: Any = None, loss: Any = None) -> np.ndarray:
        self._check_fitted()
        if self._structure_only():
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
        right = scored_matches(predicted, labels, self.classes_, "SemiNaiveBayes")
        return float(np.average(right, weights=weight))

    # ------------------------------------------------------------------ model files
    def _to_state(self) -> tuple[dict, dict[str, np.ndarray]]:
        """(JSON metadata, arrays) of a model file (:mod:`nbayes.semi_naive.table_files`)."""
        return table_files.table_state(self)

    @classmethod
    def _from_state(cls, meta: dict, arrays: dict[str, np.ndarray]) -> SemiNaiveBayes:
        return table_files.table_from_state(cls, meta, arrays)
