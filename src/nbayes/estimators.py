"""The per-family classifiers, drop-in replacements for ``sklearn.naive_bayes``.

Constructor parameters, fitted attributes and methods follow scikit-learn 1.9's classes of the
same names, so switching is one changed import. On top of them every class has:

* ``class_prior`` (``priors`` for GaussianNB) also accepts ``"mle"`` (N_c/N), ``"smoothed"``
  ((N_c+λ)/(N+Kλ), λ = ``prior_alpha``, by default the model's ``alpha``, or 1 when ``alpha``
  is one value per feature) and ``"uniform"``; and
  ``predict*(X, priors=...)`` overrides the prior for one call;
* ``loss`` (K × K, ``loss[i][j]`` = cost of deciding class i when the truth is j): ``predict``
  then returns the minimum-conditional-risk decision, and ``predict_risk`` the risks;
* ``merge`` (and :func:`nbayes.merge`) to add models fitted on disjoint rows;
* fitted state that is only the counts: smoothing (``alpha``, ``var_smoothing``) can be changed
  after fitting and applies at the next prediction, and ``partial_fit`` never recomputes tables.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np
import scipy.sparse as sp

from ._base import NaiveBayesClassifier
from ._params import constructor
from ._validation import (
    MAX_ABS_VALUE,
    _sparse_position,
    check_alpha,
    check_ddof,
    check_magnitude,
    check_positive_number,
    check_values,
    feature_label,
    first_negative,
    largest_magnitude,
)
from .exceptions import UnseenCategoryWarning, caller_stacklevel
from .families import bernoulli, complement, multinomial, poisson
from .families.category_counts import UNKNOWN_MODES, CategoricalCounts
from .families.counts import FeatureSums
from .families.gaussian import GaussianMoments, chan_merge

_ALPHA_FLOOR = 1e-10

# the parameters of the count models: scikit-learn's, then the prior's λ and the loss matrix
COUNT_PARAMETER_TYPES = {
    "alpha": "float | Any",
    "force_alpha": "bool",
    "fit_prior": "bool",
    "class_prior": "Any",
    "norm": "bool",
    "binarize": "float | None",
    "min_categories": "int | Any",
    "unknown": "str",
    "prior_alpha": "float | None",
    "loss": "Any",
}


class _DiscreteNB(NaiveBayesClassifier):
    """Shared parameters of the count-based models (scikit-learn's _BaseDiscreteNB)."""

    _poor_score = True

    # the parameters of MultinomialNB and PoissonNB; the other count models add theirs
    __init__ = constructor(
        annotations=COUNT_PARAMETER_TYPES,
        alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None, prior_alpha=None, loss=None,
    )  # fmt: skip

    def _prior_spec(self) -> str | np.ndarray:
        if self.class_prior is not None:
            return self.class_prior
        return "mle" if self.fit_prior else "uniform"

    def _prior_alpha(self) -> float:
        if self.prior_alpha is not None:
            return check_positive_number(self.prior_alpha, "prior_alpha")
        alpha = self._alpha(warn=False)  # the likelihood's use of alpha warns, once
        return float(alpha) if np.ndim(alpha) == 0 else 1.0

    def _alpha(self, *, warn: bool = True) -> float | np.ndarray:
        """λ, validated; below 1e-10 it is raised to 1e-10 unless ``force_alpha`` (as sklearn)."""
        n_features = getattr(self, "n_features_in_", None)
        alpha = check_alpha(self.alpha, n_features)
        if np.min(alpha) < _ALPHA_FLOOR and not self.force_alpha:
            if warn:
                warnings.warn(
                    "alpha too small will result in numeric errors, setting alpha = "
                    f"{_ALPHA_FLOOR:.1e}. "
                    "Use `force_alpha=True` to keep alpha unchanged.",
                    UserWarning,
                    stacklevel=caller_stacklevel(),
                )
            return np.maximum(alpha, _ALPHA_FLOOR)
        return alpha

    def _reset(self, classes: np.ndarray, n_features: int) -> None:
        check_alpha(self.alpha, n_features)  # a per-feature λ must match the data's features
        super()._reset(classes, n_features)

    def _accumulate(self, X: Any, cls: np.ndarray, weight: np.ndarray) -> None:
        super()._accumulate(X, cls, weight)
        self._alpha(warn=True)  # scikit-learn warns about a too small λ at every fit

    def _check_alpha(self) -> float | np.ndarray:
        """λ as the model uses it (scikit-learn's private helper of the same name)."""
        return self._alpha(warn=True)

    def _check_params(self) -> None:
        super()._check_params()
        check_alpha(self.alpha, None)
        if self.prior_alpha is not None:
            check_positive_number(self.prior_alpha, "prior_alpha")

    @property
    def feature_count_(self) -> np.ndarray:
        """Σ_i w_i x_it per class, shape (K, n_features)."""
        self._check_fitted()
        return self._stats.counts


class _CountsNB(_DiscreteNB):
    """Models whose statistic is the per-class feature sum (multinomial, complement, Poisson)."""

    _stats_type = FeatureSums

    _accepts_sparse = True
    _positive_only = True

    def _new_stats(self, n_classes: int, n_features: int) -> FeatureSums:
        return FeatureSums(n_classes, n_features)

    def _prepare(self, X: np.ndarray | sp.csr_array, *, fitting: bool) -> np.ndarray | sp.csr_array:
        check_values(
            X, estimator=self._name, names=self._names(), allow_nan=False, nonnegative=True
        )
        if sp.issparse(X):
            return X
        return X if X.dtype == np.float64 else X.astype(np.float64)


class MultinomialNB(_CountsNB):
    """Multinomial naive Bayes for counts (word counts; Manning, Raghavan & Schütze, §13.2): see
    :mod:`nbayes.families.multinomial` for the formulas. ``alpha`` is the smoothing δ (λ)."""

    def _log_likelihood(self, X: np.ndarray | sp.csr_array) -> np.ndarray:
        return multinomial.log_likelihood(self._stats, X, self._alpha())

    @property
    def feature_log_prob_(self) -> np.ndarray:
        """log P(t | c), shape (K, n_features)."""
        self._check_fitted()
        return multinomial.log_prob(self._stats, self._alpha())


class ComplementNB(_CountsNB):
    """Complement naive Bayes (Rennie et al. 2003), with (``norm=True``) or without weight
    normalisation: see :mod:`nbayes.families.complement`. The prior does not enter decisions."""

    __init__ = constructor(
        annotations=COUNT_PARAMETER_TYPES,
        alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None, norm=False,
        prior_alpha=None, loss=None,
    )  # fmt: skip

    def _uses_prior(self) -> bool:
        return False

    def _log_likelihood(self, X: np.ndarray | sp.csr_array) -> np.ndarray:
        return complement.log_likelihood(self._stats, X, self._alpha(), self.norm)

    @property
    def feature_all_(self) -> np.ndarray:
        """Σ_c n_{c,t}: the counts of each feature over all classes."""
        self._check_fitted()
        return self._stats.counts.sum(axis=0)

    @property
    def feature_log_prob_(self) -> np.ndarray:
        """The complement weights w_{c,t}, shape (K, n_features)."""
        self._check_fitted()
        return complement.weights(self._stats, self._alpha(), self.norm)


class BernoulliNB(_DiscreteNB):
    """Bernoulli naive Bayes for present/absent features: see :mod:`nbayes.families.bernoulli`.
    ``binarize`` is the threshold above which a value counts as present (None: X is binary)."""

    _accepts_sparse = True
    _stats_type = FeatureSums

    __init__ = constructor(
        annotations=COUNT_PARAMETER_TYPES,
        alpha=1.0, force_alpha=True, binarize=0.0, fit_prior=True, class_prior=None,
        prior_alpha=None, loss=None,
    )  # fmt: skip

    def _merge_key(self) -> tuple:
        return (("binarize", self.binarize),)

    def _check_params(self) -> None:
        super()._check_params()
        if self.binarize is not None:
            check_positive_number(self.binarize, "binarize", allow_zero=True, allow_negative=True)

    def _new_stats(self, n_classes: int, n_features: int) -> FeatureSums:
        return FeatureSums(n_classes, n_features)

    def _prepare(self, X: np.ndarray | sp.csr_array, *, fitting: bool) -> np.ndarray | sp.csr_array:
        check_values(
            X, estimator=self._name, names=self._names(), allow_nan=False, nonnegative=False
        )
        if self.binarize is None:
            check_binary(X, estimator=self._name, names=self._names())
            return X if sp.issparse(X) else np.asarray(X, dtype=np.float64)
        threshold = float(self.binarize)
        if sp.issparse(X):
            # shares the caller's index arrays read-only: stored values at or below the threshold
            # become explicit zeros, which add nothing to counts or products
            return sp.csr_array(
                ((X.data > threshold).astype(np.float64), X.indices, X.indptr), shape=X.shape
            )
        return (X > threshold).astype(np.float64)

    def _log_likelihood(self, X: np.ndarray | sp.csr_array) -> np.ndarray:
        return bernoulli.log_likelihood(self._stats, X, self.class_count_, self._alpha())

    @property
    def feature_log_prob_(self) -> np.ndarray:
        """log P(x_t = 1 | c), shape (K, n_features)."""
        self._check_fitted()
        return bernoulli.log_prob(self._stats, self.class_count_, self._alpha())


class PoissonNB(_CountsNB):
    """Poisson naive Bayes for count features (not in scikit-learn; R's poisson_naive_bayes):
    see :mod:`nbayes.families.poisson`. ``alpha`` adds α pseudo-rows of count 1 per class."""

    def _log_likelihood(self, X: np.ndarray | sp.csr_array) -> np.ndarray:
        return poisson.log_likelihood(self._stats, X, self.class_count_, self._alpha())

    @property
    def rate_(self) -> np.ndarray:
        """λ_{c,j}, the Poisson rate of each feature in each class, shape (K, n_features)."""
        self._check_fitted()
        return poisson.rates(self._stats, self.class_count_, self._alpha())


class CategoricalNB(_DiscreteNB):
    """Categorical naive Bayes by counting (Lidstone-smoothed frequencies): features are integer
    codes 0 … S_j − 1; see :mod:`nbayes.families.categorical` for the estimate

        P_λ(X^(j) = a_jl | c) = (n_{c,j,l} + λ) / (N_{c,j} + S_j λ).

    Beyond scikit-learn: NaN is a missing value (skipped in fitting and prediction), and a code
    never seen in fitting is handled by ``unknown``: ``"ignore"`` (default: that feature is left
    out for that row, with one :class:`UnseenCategoryWarning` per call), ``"smooth"`` (every
    feature gets one extra value: unseen codes take its mass λ / (N_{c,j} + (S_j+1)λ), and the
    seen values' denominators become N_{c,j} + (S_j+1)λ too, so each conditional still sums to
    1) or ``"error"``.
    ``alpha`` may be one λ per feature.
    """

    _allows_nan = True
    _positive_only = True
    _categorical_input = True
    _stats_type = CategoricalCounts

    __init__ = constructor(
        annotations=COUNT_PARAMETER_TYPES,
        alpha=1.0, force_alpha=True, fit_prior=True, class_prior=None, min_categories=None,
        unknown="ignore", prior_alpha=None, loss=None,
    )  # fmt: skip

    def _check_params(self) -> None:
        super()._check_params()
        if self.unknown not in UNKNOWN_MODES:
            raise ValueError(f"unknown must be one of {UNKNOWN_MODES}, got {self.unknown!r}.")

    def _new_stats(self, n_classes: int, n_features: int) -> CategoricalCounts:
        stats = CategoricalCounts(n_classes, n_features)
        if self.min_categories is not None:
            stats.grow(self._min_categories(n_features))
        return stats

    def _min_categories(self, n_features: int) -> np.ndarray:
        value = self.min_categories
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):
            if value < 1:
                raise ValueError(f"min_categories must be >= 1, got {value}.")
            return np.full(n_features, int(value))
        array = np.asarray(value)
        if array.shape != (n_features,) or array.dtype.kind not in "iu":
            raise ValueError(
                f"'min_categories' should have shape ({n_features},) when an array-like is "
                f"provided. Got {array.shape} instead."
            )
        return array.astype(np.int64)

    def _prepare(self, X: np.ndarray, *, fitting: bool) -> np.ndarray:
        return category_codes(X, estimator=self._name, names=self._names())

    def _chunk_columns(self, prepared: np.ndarray) -> int:
        # a chunk of codes is a view, scored in place, and unseen codes are counted in slices
        # (report_unseen): a chunk holds only its (rows, K) scores. Long chunks let the gather
        # reuse its table and start fewer parallel runs.
        return 0

    def _log_likelihood(self, X: np.ndarray) -> np.ndarray:
        return self._log_likelihood_in_one_chunk(X)

    def _chunk_log_likelihood(self, X: np.ndarray, start: int, notes: dict) -> np.ndarray:
        stats: CategoricalCounts = self._stats
        mode = "smooth" if self.unknown == "smooth" else "ignore"
        if self.unknown == "error":
            report_unseen(
                X,
                stats.n_categories,
                self._feature_names,
                self._name,
                raise_error=True,
                first_row=start,
            )
        out, unseen = stats.log_likelihood(X, self._alpha(), mode)
        if unseen and self.unknown == "ignore":
            per_feature = report_unseen(
                X, stats.n_categories, self._feature_names, self._name, raise_error=False
            )
            notes["unseen"] = notes.get("unseen", 0) + per_feature
        return out

    def _report(self, notes: dict) -> None:
        if "unseen" in notes:
            warn_unseen(notes["unseen"], self._feature_names, self._name)

    @property
    def n_categories_(self) -> np.ndarray:
        """S_j, the number of values of each feature."""
        self._check_fitted()
        return self._stats.n_categories.copy()

    @property
    def category_count_(self) -> list[np.ndarray]:
        """n_{c,j,l}: for each feature j a (K, S_j) array of weighted counts."""
        self._check_fitted()
        return [self._stats.category_count(j) for j in range(self.n_features_in_)]

    @property
    def feature_log_prob_(self) -> list[np.ndarray]:
        """log P_λ(X^(j) = a_jl | c): for each feature j a (K, S_j) array."""
        self._check_fitted()
        table, _ = self._stats.log_prob(self._alpha())
        offsets = self._stats.offsets
        return [table[offsets[j] : offsets[j + 1]].T.copy() for j in range(self.n_features_in_)]


def check_binary(X: np.ndarray | sp.csr_array, *, estimator: str, names: Any) -> None:
    """With ``binarize=None`` X must already be binary: a value outside [0, 1] would make
    P(x_t = 1 | c) exceed 1 and the log-likelihood NaN, so it is rejected, naming where it is."""
    values = X.data if sp.issparse(X) else X
    outside = (values < 0) | (values > 1)
    if not outside.any():
        return
    k = int(np.argmax(outside.ravel()))
    if sp.issparse(X):
        i, j = _sparse_position(X, k)
    else:
        i, j = (int(v) for v in np.unravel_index(k, X.shape))
    raise ValueError(
        f"{estimator} with binarize=None takes binary features (values in [0, 1]): "
        f"{feature_label(j, names)} has {float(values.ravel()[k])!r} at row {i}. Set binarize to "
        "the threshold above which a value counts as present (binarize=0.0 for counts)."
    )


def category_codes(X: np.ndarray, *, estimator: str, names: Any) -> np.ndarray:
    """Check that X holds category codes (integers ≥ 0, NaN = missing); never copies ints."""
    if X.dtype == bool:
        return X.view(np.uint8)
    if X.dtype.kind == "u":
        return X
    if X.dtype.kind == "i":
        if X.size and X.min() < 0:
            i, j = np.unravel_index(int(np.argmax(X < 0)), X.shape)
            raise ValueError(
                f"Negative values in data passed to {estimator} (input X): "
                f"{feature_label(int(j), names)} has code {X[i, j]} at row {int(i)}; categories "
                "are coded 0, 1, 2, …"
            )
        return X
    check_values(X, estimator=estimator, names=names, allow_nan=True, nonnegative=False)
    if (at := first_negative(X)) is not None:
        i, j = at
        raise ValueError(
            f"Negative values in data passed to {estimator} (input X): "
            f"{feature_label(int(j), names)} has code {float(X[i, j])!r} at row {int(i)}; "
            "categories are coded 0, 1, 2, …"
        )
    with np.errstate(invalid="ignore"):
        fractional = X != np.floor(X)
    fractional &= ~np.isnan(X)
    if fractional.any():
        i, j = np.unravel_index(int(np.argmax(fractional)), X.shape)
        raise ValueError(
            f"Non-integer category codes in data passed to {estimator} (input X): "
            f"{feature_label(int(j), names)} has {float(X[i, j])!r} at row {int(i)}. "
            f"{estimator} needs integer codes 0, 1, 2, … (NaN for missing); encode strings with "
            "an OrdinalEncoder, or use nbayes.NaiveBayes, which takes them directly."
        )
    return X


#: Bytes of the boolean mask of unseen codes that :func:`report_unseen` builds at a time.
UNSEEN_MASK_BYTES = 4 * 2**20


def report_unseen(
    X: np.ndarray,
    n_categories: np.ndarray,
    names: Any,
    estimator: str,
    *,
    raise_error: bool,
    first_row: int = 0,
) -> np.ndarray:
    """Count the codes ≥ S_j per feature; with ``raise_error`` raise if there are any, naming
    each feature, how often, and the first row (X's row 0 being row ``first_row`` of the call).

    The rows are compared in slices of at most ``UNSEEN_MASK_BYTES`` of mask, so that a long
    chunk of codes (scored in place, with no copy) never needs a mask of its whole size."""
    n, d = X.shape
    per_feature = np.zeros(d, dtype=np.int64)
    first = -1
    step = max(1, UNSEEN_MASK_BYTES // max(1, d))
    for start in range(0, n, step):
        with np.errstate(invalid="ignore"):
            unseen = X[start : start + step] >= n_categories
        per_feature += unseen.sum(axis=0)
        if raise_error and first < 0 and unseen.any():
            first = start + int(np.argmax(unseen.any(axis=1)))
    if raise_error and first >= 0:
        i = first_row + first
        raise ValueError(
            f"{estimator}: category codes not seen in fitting (first at row {i}); per feature: "
            f"{_unseen_detail(per_feature, names)}. Set unknown='ignore' or 'smooth' to accept "
            "them."
        )
    return per_feature


def warn_unseen(per_feature: np.ndarray, names: Any, estimator: str) -> None:
    """The one UnseenCategoryWarning of a prediction call, with its counts per feature."""
    warnings.warn(
        f"{estimator}: category codes not seen in fitting were skipped (their feature left out "
        f"for that row); per feature: {_unseen_detail(per_feature, names)}.",
        UnseenCategoryWarning,
        stacklevel=caller_stacklevel(),
    )


def _unseen_detail(per_feature: np.ndarray, names: Any) -> str:
    return ", ".join(
        f"{feature_label(int(j), names)}: {int(per_feature[j])}"
        for j in np.flatnonzero(per_feature)
    )


class GaussianNB(NaiveBayesClassifier):
    """Gaussian naive Bayes for continuous features: see :mod:`nbayes.families.gaussian`. NaN
    is a missing value, skipped in fitting and prediction.

    ``var_smoothing`` adds ε = var_smoothing · max_j Var(x_j) to every variance (scikit-learn).
    ``ddof`` is the variance's divisor W − ddof: 0 (maximum likelihood, scikit-learn) or 1 (the
    sample variance of R's e1071 and naivebayes; with sample weights, M2 / (W − 1), weights
    counted as repeated rows). A variance that is still zero is floored at machine epsilon times
    the feature's variance (never an absolute number), so multiplying X by any factor leaves
    every prediction unchanged; on data where scikit-learn's ε is above that floor (any
    var_smoothing ≥ 1e-15 and a non-constant feature) the results are scikit-learn's."""

    _allows_nan = True
    _stats_type = GaussianMoments

    def __init__(
        self,
        *,
        priors: Any = None,
        var_smoothing: float = 1e-9,
        ddof: int = 0,
        prior_alpha: float = 1.0,
        loss: Any = None,
    ) -> None:
        self._store_params(locals())

    def _prior_param_name(self) -> str:
        return "priors"

    def _prior_spec(self) -> str | np.ndarray:
        return "mle" if self.priors is None else self.priors

    def _prior_alpha(self) -> float:
        return check_positive_number(self.prior_alpha, "prior_alpha")

    def _check_params(self) -> None:
        super()._check_params()
        check_positive_number(self.var_smoothing, "var_smoothing")
        check_ddof(self.ddof)
        check_positive_number(self.prior_alpha, "prior_alpha")

    def _new_stats(self, n_classes: int, n_features: int) -> GaussianMoments:
        return GaussianMoments(n_classes, n_features)

    def _reset(self, classes: np.ndarray, n_features: int) -> None:
        super()._reset(classes, n_features)
        # the fitted attributes come out in float32 for float32 data, as in scikit-learn (the
        # statistics themselves are kept in float64)
        self._dtype = getattr(self, "_incoming_dtype", np.dtype(np.float64))

    def _output(self, values: np.ndarray) -> np.ndarray:
        return values.astype(getattr(self, "_dtype", np.float64), copy=False)

    @staticmethod
    def _update_mean_variance(
        n_past: float, mu: np.ndarray, var: np.ndarray, X: np.ndarray, sample_weight: Any = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Mean and variance of n_past rows (``mu``, ``var``) updated with the rows of X, by
        Chan et al.'s merge (scikit-learn's private helper of the same name)."""
        X = np.asarray(X, dtype=np.float64)
        if X.shape[0] == 0:
            return mu, var
        weight = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight)
        total = weight.sum()
        batch_mean = weight @ X / total
        batch_m2 = weight @ (X - batch_mean) ** 2
        _, mean, m2 = chan_merge(
            np.asarray(float(n_past)), np.asarray(mu), np.asarray(var) * n_past,
            np.asarray(total), batch_mean, batch_m2,
        )  # fmt: skip
        return mean, m2 / (n_past + total)

    def _prepare(self, X: np.ndarray, *, fitting: bool) -> np.ndarray:
        if fitting:
            self._incoming_dtype = np.dtype(np.float32 if X.dtype == np.float32 else np.float64)
        X = X if X.dtype == np.float64 else X.astype(np.float64)
        if fitting and largest_magnitude(X) <= MAX_ABS_VALUE:
            return X  # one look: no inf (it would exceed the limit) and nothing too large
        check_values(
            X, estimator=self._name, names=self._names(), allow_nan=True, nonnegative=False
        )
        if fitting:
            check_magnitude(X, estimator=self._name, names=self._names())
        return X

    def _log_likelihood(self, X: np.ndarray) -> np.ndarray:
        var_smoothing = check_positive_number(self.var_smoothing, "var_smoothing")
        return self._stats.log_likelihood(X, var_smoothing, ddof=check_ddof(self.ddof))

    @property
    def theta_(self) -> np.ndarray:
        """μ_{c,j}, the mean of each feature per class, shape (K, n_features)."""
        self._check_fitted()
        return self._output(self._stats.theta_var(self.var_smoothing, ddof=self.ddof)[0])

    @property
    def var_(self) -> np.ndarray:
        """σ²_{c,j} + ε, the smoothed variance of each feature per class, shape (K, n_features)."""
        self._check_fitted()
        return self._output(self._stats.theta_var(self.var_smoothing, ddof=self.ddof)[1])

    @property
    def epsilon_(self) -> float:
        """ε = var_smoothing · max_j Var(x_j), added to every variance."""
        self._check_fitted()
        return self._stats.epsilon(self.var_smoothing)

    @property
    def class_prior_(self) -> np.ndarray:
        """P(c), shape (K,)."""
        self._check_fitted()
        return self._output(np.exp(self._class_log_prior()))


#: The per-family estimators, drop-in replacements for ``sklearn.naive_bayes``'s.
ESTIMATORS: tuple[type, ...] = (
    GaussianNB,
    MultinomialNB,
    ComplementNB,
    BernoulliNB,
    CategoricalNB,
    PoissonNB,
)
