"""What every nbayes classifier shares: parameters, classes, priors, merging and decisions.

A fitted model is its sufficient statistics: the weighted class counts N_c (``class_count_``)
and a family's per-class statistics (``_stats``). ``fit`` = reset + accumulate one batch;
``partial_fit`` = accumulate another batch; ``merge`` = add the statistics of models fitted on
other rows. Parameters (log tables, variances) are derived from the statistics when a prediction
needs them and cached until the statistics change, so neither many small ``partial_fit`` calls
nor merges pay for re-deriving them.

Prediction works on row chunks: the joint log-likelihood

    jll(c) = log P(c) + Σ_j log P(x_j | c)

of a chunk is computed by the family (a matrix product or a table gather), then turned into
posteriors or decisions by :mod:`nbayes.decision`. No n × d × K array is ever formed.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import scipy.sparse as sp

from . import decision
from ._dispatch import dask_aware
from ._locks import synchronized
from ._model_state import ModelState
from ._params import ParamsMixin
from ._validation import (
    as_2d,
    check_feature_names,
    check_n_features,
    check_sample_weight,
    check_shape,
    check_target,
    check_total_weight,
    feature_names_of,
    partial_fit_classes,
)
from .exceptions import NotFittedError, caller_stacklevel, sklearn_compatible
from .families.counts import take_rows
from .priors import log_prior, prior_by_class, validate_prior

#: Rows per prediction chunk are chosen so that one chunk's working arrays stay near this size.
CHUNK_BYTES = 16 * 2**20


def chunk_rows(n_columns: int, n_classes: int) -> int:
    """Rows per chunk so that a chunk of inputs plus its (rows, K) scores fit in CHUNK_BYTES."""
    return max(256, CHUNK_BYTES // (8 * (2 * n_columns + 2 * n_classes)))


def row_chunks(n_rows: int, size: int) -> Iterator[tuple[int, int]]:
    for start in range(0, n_rows, size):
        yield start, min(n_rows, start + size)


class NaiveBayesClassifier(ModelState, ParamsMixin):
    """Base of every nbayes classifier (CategoricalNB, GaussianNB, …, NaiveBayes, and the
    models whose features depend on each other).

    Subclasses provide ``_new_stats``, ``_prepare`` (validated X → what the family takes),
    ``_log_likelihood``, ``_prior_spec`` and ``_merge_key``.

    The seam for models beyond the independence assumption: ``_log_likelihood(X)`` may return
    **any** log P(x | c) of each row of a chunk, shape (rows, K) — Σ_j log P(x_j | c) for naive
    Bayes, a mixture over super-parents for AODE, a product along a tree for TAN and k-DB. This
    class adds log P(c) (so ``class_prior`` and ``priors=`` work for every model), normalises by
    log-sum-exp and takes MAP or minimum-risk decisions, chunk by chunk; it never assumes the
    log-likelihood is a sum over features.
    """

    _estimator_type = "classifier"

    # ----------------------------------------------------------------- subclass hooks
    def _new_stats(self, n_classes: int, n_features: int) -> Any:
        raise NotImplementedError

    def _prepare(self, X: np.ndarray | sp.csr_array, *, fitting: bool) -> np.ndarray | sp.csr_array:
        """Validate values (NaN, sign, codes) and convert X to the family's working form."""
        raise NotImplementedError

    def _log_likelihood(self, X: np.ndarray | sp.csr_array) -> np.ndarray:
        """Σ_j log P(x_j | c) for each row of a chunk, shape (rows, K)."""
        raise NotImplementedError

    def _chunk_log_likelihood(self, X: Any, start: int, notes: dict) -> np.ndarray:
        """``_log_likelihood`` of the chunk whose first row is row ``start`` of the call's X;
        what should be reported once per call (not per chunk) goes into ``notes``."""
        return self._log_likelihood(X)

    def _report(self, notes: dict) -> None:
        """Warn once per prediction call about what the chunks put into ``notes``."""

    def _log_likelihood_in_one_chunk(self, X: Any) -> np.ndarray:
        """``_log_likelihood`` of a model that scores by ``_chunk_log_likelihood``: all of X as
        one chunk starting at row 0, then what it noted reported."""
        notes: dict = {}
        out = self._chunk_log_likelihood(X, 0, notes)
        self._report(notes)
        return out

    def _prior_spec(self) -> str | np.ndarray:
        raise NotImplementedError

    def _prior_alpha(self) -> float:
        return 1.0

    def _merge_key(self) -> tuple:
        """Parameters that change the statistics themselves, as (name, value) pairs; models must
        agree on them to merge."""
        return ()

    def _uses_prior(self) -> bool:
        return True

    def _chunk_columns(self, prepared: Any) -> int:
        """How many float64 columns of memory a chunk of ``prepared`` takes while it is scored
        (copies, conversions): sets the rows per chunk. Sparse rows are viewed, not copied."""
        return 16 if sp.issparse(prepared) else prepared.shape[1]

    # ----------------------------------------------------------------- validation
    def _check_fitted(self) -> None:
        if not hasattr(self, "classes_"):
            raise sklearn_compatible(NotFittedError)(
                f"This {self._name} instance is not fitted yet. Call 'fit' or 'partial_fit' with "
                "appropriate arguments before using this estimator."
            )

    def _validate_X(self, X: Any, *, reset: bool) -> np.ndarray | sp.csr_array:
        names = feature_names_of(X)
        array = as_2d(X, estimator=self._name, accept_sparse=self._accepts_sparse)
        check_shape(array, estimator=self._name)
        if reset:
            self._feature_names_seen = names
        else:
            check_n_features(array.shape[1], self.n_features_in_, estimator=self._name)
            check_feature_names(
                getattr(self, "feature_names_in_", None), names, estimator=self._name
            )
        return array

    @property
    def _feature_names(self) -> list[str] | None:
        names = getattr(self, "feature_names_in_", None)
        return None if names is None else list(names)

    def _names(self) -> list[str] | None:
        """Feature names of the data being validated, for error messages."""
        names = getattr(self, "_feature_names_seen", None)
        return None if names is None else list(names)

    # ----------------------------------------------------------------- fitting
    def _reset(self, classes: np.ndarray, n_features: int) -> None:
        self.classes_ = classes
        self.n_features_in_ = n_features
        names = getattr(self, "_feature_names_seen", None)
        if names is not None:
            self.feature_names_in_ = names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        self.class_count_ = np.zeros(len(classes), dtype=np.float64)
        self._stats = self._new_stats(len(classes), n_features)
        # a prior vector's length can only be checked once the classes are known; the model
        # is then reset to this call's classes with nothing counted (as in scikit-learn, a
        # later partial_fit is checked against the classes of the last call)
        validate_prior(self._prior_param(), len(classes), name=self._prior_param_name())

    def _accumulate(self, X: Any, cls: np.ndarray, weight: np.ndarray) -> None:
        added = np.bincount(cls, weights=weight, minlength=len(self.classes_))
        check_total_weight(float(self.class_count_.sum() + added.sum()), estimator=self._name)
        self._stats.accumulate(X, cls, weight)
        self.class_count_ += added

    @dask_aware
    @synchronized
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> NaiveBayesClassifier:
        """Fit from scratch: count the sufficient statistics of (X, y)."""
        self._fit_batch(X, y, sample_weight)
        return self

    def _fit_batch(self, X: Any, y: Any, sample_weight: Any) -> tuple:
        """``fit``'s work: validate, reset and count (X, y); returns the prepared batch (codes,
        class indices, weights), which models of several passes read again."""
        self._check_params()
        array = self._validate_X(X, reset=True)
        labels = check_target(y, array.shape[0], estimator=self._name)
        weight = check_sample_weight(sample_weight, array.shape[0], estimator=self._name)
        classes, cls = np.unique(labels, return_inverse=True)
        prepared = self._prepare(array, fitting=True)
        cls = cls.astype(np.intp).ravel()
        self._reset(classes, array.shape[1])
        self._accumulate(prepared, cls, weight)
        return prepared, cls, weight

    @dask_aware
    @synchronized
    def partial_fit(
        self, X: Any, y: Any, classes: Any = None, sample_weight: Any = None
    ) -> NaiveBayesClassifier:
        """Add one batch to the statistics (out-of-core / incremental training).

        ``classes`` (all labels that will ever occur) is required on the first call, as in
        scikit-learn; later calls may omit it.
        """
        first = not hasattr(self, "classes_")
        if first:
            self._check_params()
        fitted = None if first else self.classes_
        all_classes = partial_fit_classes(fitted, classes, estimator=self._name)
        array = self._validate_X(X, reset=first)
        labels = check_target(y, array.shape[0], estimator=self._name)
        weight = check_sample_weight(sample_weight, array.shape[0], estimator=self._name)
        cls = class_index(all_classes, labels, estimator=self._name)
        prepared = self._prepare(array, fitting=True)
        if first:
            self._reset(all_classes, array.shape[1])
        self._accumulate(prepared, cls, weight)
        return self

    def _check_params(self) -> None:
        """Validate constructor parameters before fitting (subclasses extend)."""
        validate_prior(self._prior_param(), None, name=self._prior_param_name())

    def _prior_param_name(self) -> str:
        return "class_prior"

    def _prior_param(self) -> Any:
        return getattr(self, self._prior_param_name())

    # ----------------------------------------------------------------- merging
    @synchronized
    def merge(self, *others: NaiveBayesClassifier) -> NaiveBayesClassifier:
        """Add the statistics of models fitted on other rows; returns ``self``.

        The result is the model that fitting on the union of all their rows would give (up to
        floating-point round-off in sums). Class sets may differ: the union is taken; class
        labels of different types (text and integers, say) are an error, raised before anything
        is merged.
        """
        self._check_fitted()
        for other in others:
            if isinstance(other, NaiveBayesClassifier) and hasattr(other, "classes_"):
                check_label_kinds(self.classes_, other.classes_, estimator=self._name)
        for other in others:
            if type(other) is not type(self):
                raise TypeError(f"cannot merge a {type(other).__name__} into a {self._name}.")
            other._check_fitted()
            if other.n_features_in_ != self.n_features_in_:
                sizes = f"{self.n_features_in_} and {other.n_features_in_} features"
                which = _column_difference(self, other)
                raise ValueError(f"cannot merge models with {sizes}{which}.")
            if other._merge_key() != self._merge_key():
                difference = _key_difference(self._merge_key(), other._merge_key())
                raise ValueError(
                    f"cannot merge {self._name} models whose statistics were computed with "
                    f"different parameters: {difference}"
                    + (" (a column as (name, family, type))." if hasattr(self, "schema_") else ".")
                )
            mine = getattr(self, "feature_names_in_", None)
            theirs = getattr(other, "feature_names_in_", None)
            if (mine is None) != (theirs is None) or (
                mine is not None and list(mine) != list(theirs)
            ):
                raise ValueError(
                    "cannot merge models fitted on different feature names"
                    f"{_column_difference(self, other)}."
                )
            warn_parameter_differences(self, other)
            positions = self._union_classes(other.classes_)
            self.class_count_[positions] += other.class_count_
            self._stats.merge(other._stats, positions)
        return self

    def _union_classes(self, other_classes: np.ndarray) -> np.ndarray:
        """Extend ``classes_`` to include ``other_classes``; return their positions in it.

        Labels of different types (text and numbers, integers and floats, booleans) are
        refused: NumPy would silently turn them all into text."""
        check_label_kinds(self.classes_, np.asarray(other_classes), estimator=self._name)
        try:
            union = np.union1d(self.classes_, other_classes)
        except TypeError as exc:
            raise ValueError(
                f"cannot merge models whose class labels have different types: {exc}"
            ) from exc
        if union.shape != self.classes_.shape:
            old_positions = np.searchsorted(union, self.classes_)
            counts = np.zeros(len(union))
            counts[old_positions] = self.class_count_
            self.class_count_ = counts
            self._stats.reindex_classes(old_positions, len(union))
            self.classes_ = union
        return np.searchsorted(self.classes_, other_classes)

    # ----------------------------------------------------------------- priors
    def _resolved_prior(self, priors: Any = None) -> str | np.ndarray:
        if isinstance(priors, dict):  # per call, by class: {"spam": 0.1, "ham": 0.9}
            priors = prior_by_class(priors, self.classes_)
        spec = priors if priors is not None else self._prior_spec()
        return validate_prior(
            spec,
            len(self.classes_),
            name="priors" if priors is not None else self._prior_param_name(),
        )

    def _class_log_prior(self, priors: Any = None) -> np.ndarray:
        return log_prior(self.class_count_, self._resolved_prior(priors), self._prior_alpha())

    # ----------------------------------------------------------------- prediction
    def _input(self, X: Any) -> Any:
        """Validate X against the fitted model and convert it to the family's working form."""
        self._check_fitted()
        return self._prepare(self._validate_X(X, reset=False), fitting=False)

    def _scores(
        self, prepared: Any, priors: Any, *, prior_for_dead: bool = True, joint: bool = False
    ) -> Iterator[tuple[int, int, np.ndarray, np.ndarray]]:
        """Yield (start, stop, jll, log prior) per row chunk (``joint``: the joint
        log-likelihood itself is wanted, not scores for posteriors; the same here, see
        ``NaiveBayes._scores``).

        Warnings are issued once, after the last chunk, with the counts of the whole call: about
        what the family noted (unseen categories) and, with ``prior_for_dead``, about the rows
        whose likelihood is 0 under every class (the caller gives them the prior).
        """
        lp = self._class_log_prior(priors)
        n_rows = prepared.shape[0]
        size = chunk_rows(self._chunk_columns(prepared), len(self.classes_))
        add_prior = self._uses_prior() or len(self.classes_) == 1
        notes: dict = {}
        dead = 0
        for start, stop in row_chunks(n_rows, size):
            jll = self._chunk_log_likelihood(take_rows(prepared, start, stop), start, notes)
            if add_prior:
                jll += lp
            if prior_for_dead:
                dead += int(np.count_nonzero(~np.any(jll > -np.inf, axis=1)))
            yield start, stop, jll, lp
        self._report(notes)
        decision._warn_dead(dead)

    def _collect(
        self, X: Any, priors: Any, transform, *, prior_for_dead: bool = True, joint: bool = False
    ) -> np.ndarray:
        prepared = self._input(X)
        out = np.empty((prepared.shape[0], len(self.classes_)))
        chunks = self._scores(prepared, priors, prior_for_dead=prior_for_dead, joint=joint)
        for start, stop, jll, lp in chunks:
            transform(jll, lp, out[start:stop])
        return out

    @dask_aware
    def predict_joint_log_proba(self, X: Any, *, priors: Any = None) -> np.ndarray:
        """log P(c) + Σ_j log P(x_j | c) for each row and class (unnormalised), shape (n, K).

        A probability exactly 0 (λ = 0 and an unseen value) shows as −inf. Always the model's
        joint log-likelihood: a calibrated NaiveBayes's posteriors are softmax(a · this + b_c)
        under its own prior (docs/calibration.md for a prior given per call).
        """

        def copy(jll: np.ndarray, lp: np.ndarray, out: np.ndarray) -> None:
            out[...] = jll

        return self._collect(X, priors, copy, prior_for_dead=False, joint=True)

    @dask_aware
    def predict_log_proba(self, X: Any, *, priors: Any = None) -> np.ndarray:
        """log P(c | x), normalised by log-sum-exp; shape (n, K), columns in ``classes_`` order."""
        return self._collect(
            X,
            priors,
            lambda jll, lp, out: decision.posterior(jll, lp, log=True, out=out, warn=False),
        )

    @dask_aware
    def predict_proba(self, X: Any, *, priors: Any = None) -> np.ndarray:
        """P(c | x) by Bayes' rule; shape (n, K), rows sum to 1, never NaN."""
        return self._collect(
            X, priors, lambda jll, lp, out: decision.posterior(jll, lp, out=out, warn=False)
        )

    @dask_aware
    def predict(self, X: Any, *, priors: Any = None, loss: Any = None) -> np.ndarray:
        """The Bayes decision per row: MAP, or the minimum conditional risk under ``loss``.

        ``loss`` (K × K, ``loss[i][j]`` = cost of deciding ``classes_[i]`` when the truth is
        ``classes_[j]``) overrides the ``loss`` given to the constructor for this call.
        """
        prepared = self._input(X)
        matrix = self._loss_matrix(loss)
        out = np.empty(prepared.shape[0], dtype=np.intp)
        for start, stop, jll, lp in self._scores(prepared, priors):
            out[start:stop] = decision.decide(jll, lp, matrix, warn=False)
        return self.classes_[out]

    @dask_aware
    def predict_risk(self, X: Any, *, priors: Any = None, loss: Any = None) -> np.ndarray:
        """Conditional risk R(c_i | x) = Σ_j λ_ij P(c_j | x) of each decision, shape (n, K)."""
        self._check_fitted()
        matrix = self._loss_matrix(loss)

        def risk(jll: np.ndarray, lp: np.ndarray, out: np.ndarray) -> None:
            out[...] = decision.conditional_risk(decision.posterior(jll, lp, warn=False), matrix)

        return self._collect(X, priors, risk)

    def _loss_matrix(self, loss: Any) -> np.ndarray | None:
        chosen = loss if loss is not None else getattr(self, "loss", None)
        return decision.validate_loss(chosen, len(self.classes_), name="loss")

    @dask_aware
    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Mean accuracy of ``predict(X)`` against ``y`` (weighted by ``sample_weight``)."""
        predicted = self.predict(X)
        labels = check_target(y, predicted.shape[0], estimator=self._name)
        weight = check_sample_weight(sample_weight, predicted.shape[0], estimator=self._name)
        return float(np.average(predicted == labels, weights=weight))

    @property
    def class_log_prior_(self) -> np.ndarray:
        """log P(c) as the model's prior setting derives it from ``class_count_``."""
        self._check_fitted()
        return self._class_log_prior()


class InnerModel:
    """A model whose class statistics are those of its fitted inner classifier, ``model_``
    (``SemiNaiveBayes``'s structure, ``TextClassifier``'s count model)."""

    @property
    def classes_(self) -> np.ndarray:
        self._check_fitted()
        return self.model_.classes_

    @property
    def class_count_(self) -> np.ndarray:
        """N_c: the weighted number of training rows (documents) of each class."""
        self._check_fitted()
        return self.model_.class_count_


def label_kind(labels: np.ndarray) -> str:
    """The type of a label array, as merging compares them: text, integer, float or boolean."""
    kind = labels.dtype.kind
    if kind in "US" or (kind == "O" and all(isinstance(v, str) for v in labels.tolist())):
        return "text"
    kinds = {"b": "boolean", "i": "integer", "u": "integer", "f": "float"}
    return kinds.get(kind, str(labels.dtype))


def check_label_kinds(mine: np.ndarray, theirs: np.ndarray, *, estimator: str) -> None:
    """Refuse to combine class labels of different types (NumPy would turn them all into
    text: the union of [0, 1] and ["a"] is ["0", "1", "a"])."""
    a, b = label_kind(mine), label_kind(theirs)
    if a != b:
        raise ValueError(
            f"{estimator}: cannot combine class labels of different types: this model's are "
            f"{a} ({mine[:3].tolist()}), the others are {b} ({theirs[:3].tolist()})."
        )


def class_index(classes: np.ndarray, labels: np.ndarray, *, estimator: str) -> np.ndarray:
    """Position of each label in the sorted ``classes``; unknown labels raise, naming them."""
    try:
        positions = np.searchsorted(classes, labels)
    except TypeError as exc:
        raise ValueError(
            f"{estimator}: labels in y are not comparable with classes: {exc}"
        ) from exc
    positions = np.minimum(positions, len(classes) - 1)
    unknown = classes[positions] != labels
    if np.any(unknown):
        raise ValueError(
            f"{estimator}: The target label(s) {np.unique(labels[unknown])!r} in y do not exist in "
            f"the initial classes {classes!r} (first at row {int(np.argmax(unknown))})."
        )
    return positions.astype(np.intp)


def warn_parameter_differences(model: Any, other: Any) -> None:
    """Warn, naming them, where ``other`` was made with parameters that differ from
    ``model``'s but leave the statistics alike (smoothing, priors, loss: those that differ in
    the statistics refuse the merge): the merged model keeps ``model``'s, so ``merge(a, b)``
    and ``merge(b, a)`` differ."""
    mine, theirs = model.get_params(deep=False), other.get_params(deep=False)
    differing = [
        f"{name}: {_shown(mine[name])} here, {_shown(theirs.get(name))} in the other"
        for name in mine
        if not _same_value(mine[name], theirs.get(name))
    ]
    if differing:
        warnings.warn(
            f"merging {type(model).__name__} models made with different parameters "
            f"({'; '.join(differing[:4])}{' …' if len(differing) > 4 else ''}): the merged "
            "model keeps the first model's, applied to the summed statistics.",
            UserWarning,
            stacklevel=caller_stacklevel(),
        )


def _same_value(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and np.array_equal(a, b)
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # values NumPy cannot compare as one truth value
        return a is b


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "…"


def _column_difference(model: Any, other: Any) -> str:
    """``" (only this model has ['doors'])"`` where both models know their columns' names."""
    mine = getattr(model, "feature_names_in_", None)
    theirs = getattr(other, "feature_names_in_", None)
    if mine is None or theirs is None:
        return ""
    only_mine = [str(n) for n in mine if n not in set(theirs)]
    only_theirs = [str(n) for n in theirs if n not in set(mine)]
    parts = [f"only this model has {only_mine[:5]}"] if only_mine else []
    parts += [f"only the other has {only_theirs[:5]}"] if only_theirs else []
    return f" ({'; '.join(parts)})" if parts else ""


def _key_difference(mine: tuple, theirs: tuple) -> str:
    """What differs between two merge keys (each a tuple of settings, such as ``("alpha",
    1.0)`` or a column's ``(name, family, dtype)``), in words: the first few entries of each
    that the other lacks."""
    only_mine = [entry for entry in mine if entry not in theirs]
    only_theirs = [entry for entry in theirs if entry not in mine]

    def shown(entries: list) -> str:
        more = f" and {len(entries) - 3} more" if len(entries) > 3 else ""
        return ", ".join(map(str, entries[:3])) + more if entries else "nothing"

    return f"this model has {shown(only_mine)} where the other has {shown(only_theirs)}"


def merge(*models: NaiveBayesClassifier) -> NaiveBayesClassifier:
    """A new model whose statistics are the sum of ``models``' (fitted on disjoint rows).

    ``merge(a, b, c)`` equals the model fitted on the union of their rows; the inputs are left
    unchanged. The parameters (smoothing, priors, loss) are those of the first model (a
    warning names those the others were made with differently).
    """
    if not models:
        raise ValueError("merge needs at least one model.")
    first = copy.deepcopy(models[0])
    return first.merge(*models[1:])
