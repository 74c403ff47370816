"""Input checking shared by every estimator.

Each check raises an exception whose message names the parameter, feature (column) or row at
fault, so that a user never has to read a NumPy traceback to learn what was wrong with the data.
Nothing here modifies the caller's objects: conversions return new arrays or read-only views.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

from .exceptions import DataConversionWarning, caller_stacklevel, sklearn_compatible

#: The largest magnitude a continuous (Gaussian) value may have: beyond it x² overflows float64
#: (about 1.8e308) once summed over rows, and a density would come out NaN. Such values are
#: refused, naming the column and row; rescale the column instead.
MAX_ABS_VALUE = 1e150
#: The largest total weight (Σ sample_weight over every fitted row) a model accepts; beyond it
#: sums of weights, and of weights times values, overflow float64.
MAX_TOTAL_WEIGHT = 1e300


def is_int(value: Any) -> bool:
    """Whether ``value`` is an integer (of any integral type), booleans excluded."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_magnitude(
    X: np.ndarray,
    *,
    estimator: str,
    names: Sequence[str] | None,
    limit: float = MAX_ABS_VALUE,
) -> None:
    """Refuse a dense float block holding a value beyond ±``limit`` (NaN is left alone),
    naming the first such column and row."""
    if X.dtype.kind != "f" or not X.size or largest_magnitude(X) <= limit:
        return
    with np.errstate(invalid="ignore"):
        big = np.abs(X) > limit
    if big.any():
        i, j = _first_bad(big)
        raise ValueError(
            f"{estimator}: {feature_label(j, names)} has {float(X[i, j])!r} at row {i}; values "
            f"beyond ±{limit:g} are refused because their squares overflow. Rescale the column."
        )


def largest_magnitude(X: np.ndarray) -> float:
    """max |x| over a float array, NaN left out (0 when every value is NaN): reductions that
    allocate nothing, so checking a batch costs far less than building a mask of it (one
    compiled pass over a contiguous float64 array, two NumPy ones otherwise)."""
    if not X.size:
        return 0.0
    if X.dtype == np.float64 and (X.flags.c_contiguous or X.flags.f_contiguous):
        from ._kernels import largest_magnitude_flat  # Numba: only for the models' checks

        return float(largest_magnitude_flat(X.ravel(order="K")))
    high, low = X.max(), X.min()  # vectorised; NaN propagates, and then NaN is left out
    if high != high or low != low:
        high, low = np.fmax.reduce(X, axis=None), np.fmin.reduce(X, axis=None)
    largest = max(abs(float(high)), abs(float(low)))
    return largest if largest == largest else 0.0


def check_total_weight(total: float, *, estimator: str) -> None:
    """Refuse a total fitted weight that is not finite or beyond MAX_TOTAL_WEIGHT."""
    if not total <= MAX_TOTAL_WEIGHT:  # also NaN
        raise ValueError(
            f"{estimator}: the sample weights sum to {total:g} over the fitted rows, beyond "
            f"{MAX_TOTAL_WEIGHT:g}; sums of weights would overflow. Rescale sample_weight."
        )


def check_finite_sums(values: np.ndarray, what: str, *, estimator: str) -> None:
    """Refuse weighted sums that overflowed (sample weights × values beyond the float range)."""
    if not np.all(np.isfinite(values)):
        raise ValueError(
            f"{estimator}: the sums of {what} overflow the float range (the values, times their "
            "sample weights where weights were given, are too large); rescale the values (or "
            "sample_weight). The batch was not added."
        )


def feature_label(j: int, names: Sequence[str] | None) -> str:
    """``feature 3 ('age')`` when names are known, ``feature 3`` otherwise."""
    if names is not None and j < len(names):
        return f"feature {j} ({names[j]!r})"
    return f"feature {j}"


def feature_names_of(X: Any) -> np.ndarray | None:
    """Column names of a DataFrame-like ``X`` if every name is a string, else None.

    This follows scikit-learn's rule for ``feature_names_in_``.
    """
    columns = getattr(X, "columns", None)
    if columns is None or sp.issparse(X):
        return None
    names = list(columns)
    if names and all(isinstance(c, str) for c in names):
        return np.asarray(names, dtype=object)
    return None


def _dataframe_to_numpy(X: Any) -> np.ndarray:
    """Convert a pandas or Polars DataFrame to NumPy, missing values becoming NaN."""
    to_numpy = X.to_numpy
    array = np.asarray(to_numpy())
    if array.dtype == object:
        try:  # pandas nullable columns (Int64 with pd.NA) convert cleanly to float with NaN
            array = np.asarray(to_numpy(dtype="float64", na_value=np.nan))
        except (TypeError, ValueError):
            pass
    return array


def as_2d(X: Any, *, estimator: str, accept_sparse: bool) -> np.ndarray | sp.csr_array:
    """Turn ``X`` into a 2-D ndarray or a CSR matrix, without copying when it already is one."""
    if X is None:
        raise ValueError(
            f"{estimator}: X is None; expected an array of shape (n_samples, n_features)."
        )
    if sp.issparse(X):
        if not accept_sparse:
            raise TypeError(
                f"{estimator}: sparse data was passed for X, but dense data is required. "
                "Convert it with X.toarray(), or use MultinomialNB, ComplementNB, BernoulliNB or "
                "PoissonNB, which take sparse input."
            )
        X = X.tocsr() if X.format != "csr" else X
        if np.issubdtype(X.dtype, np.complexfloating):
            raise ValueError(f"{estimator}: Complex data not supported in X.")
        if X.ndim != 2:
            raise ValueError(f"{estimator}: expected a 2-D sparse matrix for X.")
        return X
    if hasattr(X, "to_numpy") and hasattr(X, "columns"):
        array = _dataframe_to_numpy(X)
    elif hasattr(X, "__arrow_c_stream__") and hasattr(X, "column_names"):
        array = np.column_stack([np.asarray(c.to_numpy(zero_copy_only=False)) for c in X.columns])
    else:
        try:
            array = np.asarray(X)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{estimator}: X could not be read as an array: {exc}") from exc
    if np.issubdtype(array.dtype, np.complexfloating):
        raise ValueError(f"{estimator}: Complex data not supported in X.")
    if array.ndim == 0:
        raise ValueError(
            f"{estimator}: expected 2D array, got scalar array instead: X={array!r}. "
            "Reshape your data: X must have shape (n_samples, n_features)."
        )
    if array.ndim == 1:
        raise ValueError(
            f"{estimator}: expected 2D array, got 1D array instead (shape {array.shape}). "
            "Reshape your data either using array.reshape(-1, 1) if your data has a single "
            "feature or array.reshape(1, -1) if it contains a single sample."
        )
    if array.ndim > 2:
        raise ValueError(
            f"{estimator}: X must be 2-D (n_samples, n_features); got shape {array.shape}."
        )
    if array.dtype == object or array.dtype.kind in "US":
        try:
            array = array.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise type(exc)(
                f"{estimator}: X holds values that are not numbers ({exc}). Encode them first, or "
                "use nbayes.NaiveBayes, which takes string columns directly. Original error: "
                f"{exc}"
            ) from exc
    return array


def check_shape(X: np.ndarray | sp.csr_array, *, estimator: str) -> None:
    """Reject empty inputs with scikit-learn's wording (its conformance checks match on it)."""
    n, d = X.shape
    if n == 0:
        raise ValueError(
            f"{estimator}: Found array with 0 sample(s) (shape={X.shape}) while a minimum of 1 is "
            "required."
        )
    if d == 0:
        raise ValueError(
            f"{estimator}: Found array with 0 feature(s) (shape={X.shape}) while a minimum of 1 is "
            "required."
        )


def _first_bad(mask: np.ndarray) -> tuple[int, int]:
    i, j = np.unravel_index(int(np.argmax(mask)), mask.shape)
    return int(i), int(j)


def first_negative(block: np.ndarray) -> tuple[int, int] | None:
    """(row, column) of the first negative value of a 2-D array, row by row (NaN is not
    negative), or None when there is none."""
    with np.errstate(invalid="ignore"):
        negative = block < 0
    return _first_bad(negative) if negative.any() else None


def float_array(values: Any, error: str) -> np.ndarray:
    """``values`` as a new float64 array; ValueError ``"<error>: <why>"`` when they are not
    numbers."""
    try:
        return np.array(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        why = str(exc)
        if "inhomogeneous" in why:  # NumPy's words for nested lists of unequal lengths
            why = "it is ragged (its rows, or its entries, are not all of one length)"
        elif why.startswith("could not convert string to float: "):
            why = f"{why.removeprefix('could not convert string to float: ')} is not a number"
        raise ValueError(f"{error}: {why}") from exc


def first_not_finite_nonnegative(values: np.ndarray) -> int | None:
    """Flat index of the first entry of ``values`` that is not a finite number >= 0 (NaN, ±inf
    or negative), or None when there is none."""
    bad = ~(np.isfinite(values) & (values >= 0))
    return int(np.argmax(bad)) if bad.any() else None


def _sparse_position(X: sp.csr_array, k: int) -> tuple[int, int]:
    row = int(np.searchsorted(X.indptr, k, side="right") - 1)
    return row, int(X.indices[k])


def check_values(
    X: np.ndarray | sp.csr_array,
    *,
    estimator: str,
    names: Sequence[str] | None,
    allow_nan: bool,
    nonnegative: bool,
) -> None:
    """Check finiteness and sign of every value, naming the first offending feature and row.

    ``allow_nan`` lets NaN through as a missing value; infinities are always rejected.
    """
    if sp.issparse(X):
        values = X.data
        where = lambda k: _sparse_position(X, k)  # noqa: E731
    else:
        values = X
        where = None
    if values.dtype.kind == "f":
        finite = np.isfinite(values)
        if not finite.all():
            bad = ~finite if not allow_nan else np.isinf(values)
            if bad.any():
                if where is None:
                    i, j = _first_bad(bad)
                else:
                    i, j = where(int(np.argmax(bad)))
                value = values[i, j] if where is None else X[i, j]
                kind = "NaN" if np.isnan(value) else "inf"
                hint = (
                    f" {estimator} does not take missing values: impute them, or use GaussianNB, "
                    "CategoricalNB or NaiveBayes, which skip NaN."
                    if kind == "NaN"
                    else ""
                )
                raise ValueError(
                    f"{estimator}: Input X contains {kind} in {feature_label(j, names)}, first at "
                    f"row {i}.{hint}"
                )
    if nonnegative and values.dtype.kind in "fi" and values.size:
        negative = values < 0
        if negative.any():
            if where is None:
                i, j = _first_bad(negative)
            else:
                i, j = where(int(np.argmax(negative)))
            raise ValueError(
                f"Negative values in data passed to {estimator} (input X): "
                f"{feature_label(j, names)} is negative at row {i}; this model needs counts or "
                "frequencies (values >= 0)."
            )


def check_n_features(n_features: int, expected: int, *, estimator: str) -> None:
    if n_features != expected:
        raise ValueError(
            f"X has {n_features} features, but {estimator} is expecting {expected} features as "
            "input."
        )


def check_feature_names(
    fitted: np.ndarray | None, given: np.ndarray | None, *, estimator: str
) -> None:
    """scikit-learn's rule: names seen at fit must match names seen later, in order."""
    if fitted is None and given is None:
        return
    if fitted is None:
        warnings.warn(
            f"X has feature names, but {estimator} was fitted without feature names",
            UserWarning,
            stacklevel=caller_stacklevel(),
        )
        return
    if given is None:
        warnings.warn(
            f"X does not have valid feature names, but {estimator} was fitted with feature names",
            UserWarning,
            stacklevel=caller_stacklevel(),
        )
        return
    if len(fitted) != len(given) or np.any(fitted != given):
        unexpected = sorted(set(given) - set(fitted))
        missing = sorted(set(fitted) - set(given))
        parts = ["The feature names should match those that were passed during fit."]
        if unexpected:
            parts.append(f"Feature names unseen at fit time: {unexpected}.")
        if missing:
            parts.append(f"Feature names seen at fit time, yet now missing: {missing}.")
        if not unexpected and not missing:
            parts.append("Feature names must be in the same order as they were in fit.")
        raise ValueError(f"{estimator}: " + " ".join(parts))


def check_target(y: Any, n_samples: int, *, estimator: str) -> np.ndarray:
    """Validate class labels ``y`` and return them as a 1-D array (never the caller's object)."""
    if y is None:
        raise ValueError(
            f"{estimator} requires y to be passed, but the target y is None. Pass the class labels."
        )
    if hasattr(y, "to_numpy"):
        y = y.to_numpy()
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn(
            "A column-vector y was passed when a 1d array was expected. Please change the shape "
            "of y to (n_samples, ), for example using ravel().",
            sklearn_compatible(DataConversionWarning),
            stacklevel=caller_stacklevel(),
        )
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(
            f"{estimator}: y should be a 1d array of class labels, got an array of shape "
            f"{y.shape} instead. Multi-output targets are not supported."
        )
    if y.shape[0] != n_samples:
        raise ValueError(
            f"{estimator}: X has {n_samples} rows but y has {y.shape[0]} labels; Found input "
            f"variables with inconsistent numbers of samples: [{n_samples}, {y.shape[0]}]."
        )
    if y.dtype.kind == "f":
        if not np.all(np.isfinite(y)):
            row = int(np.argmax(~np.isfinite(y)))
            raise ValueError(
                f"{estimator}: y contains NaN or inf at row {row}; labels must be given."
            )
        if np.any(y != np.round(y)):
            raise ValueError(
                f"{estimator}: Unknown label type: continuous. Naive Bayes is a classifier: y must "
                "hold class labels (strings, integers or booleans), not real-valued targets."
            )
    elif y.dtype.kind == "c":
        raise ValueError(f"{estimator}: Unknown label type: complex values in y.")
    elif y.dtype == object:
        missing = [i for i, v in enumerate(y) if v is None or (isinstance(v, float) and v != v)]
        if missing:
            raise ValueError(f"{estimator}: y has a missing label at row {missing[0]}.")
        kinds = {type(v) for v in y}
        if len(kinds) > 1 and not all(issubclass(k, numbers.Number) for k in kinds):
            raise ValueError(
                f"{estimator}: y mixes label types "
                f"{sorted(k.__name__ for k in kinds)}; use one type."
            )
    return y


def is_missing(value: object) -> bool:
    """None, a float NaN, or pandas' NA / NaT (recognised by type, without importing pandas)."""
    if value is None:
        return True
    if isinstance(value, (float, np.floating)):
        return value != value
    return type(value).__name__ in ("NAType", "NaTType")


def value_kind(value: object) -> str:
    """The kind of one Python value: ``"bool"``, ``"number"``, ``"string"``, or its type's name."""
    if isinstance(value, (bool, np.bool_)):
        return "bool"
    if isinstance(value, (int, float, np.integer, np.floating)):
        return "number"
    if isinstance(value, str):
        return "string"
    return type(value).__name__


def mixed_kinds_error(name: str, present: Sequence[Any]) -> ValueError:
    """The error for a column (or the labels, ``name`` ``'y'``) holding values of several
    kinds, with one example of each: NumPy would silently make text of them all."""
    examples: dict[str, Any] = {}
    for value in present:
        examples.setdefault(value_kind(value), value)
    shown = ", ".join(f"{k} (e.g. {examples[k]!r})" for k in sorted(examples))
    return ValueError(f"column {name!r} mixes types: {shown}. Make it one type (e.g. all strings).")


def warn_dropped(count: int, first: int = -1, *, stacklevel: int = 2) -> None:
    """Warn that ``count`` rows were dropped for a missing label (``first``: the first one's row,
    when known). ``stacklevel`` counts from the caller of this function."""
    where = f" (first at row {first})" if first >= 0 else ""
    warnings.warn(
        f"{count} row(s) with a missing target were dropped{where}.",
        UserWarning,
        stacklevel=stacklevel + 1,
    )


def no_labelled_rows() -> ValueError:
    """The error for a fit whose labels are all missing."""
    return ValueError("the target is entirely missing: there are no labelled rows to learn from.")


def no_rows() -> ValueError:
    """The error for a fit given a table without rows."""
    return ValueError("there are no rows to learn from.")


def check_labels(y: Any, n_samples: int, *, estimator: str) -> tuple[np.ndarray, np.ndarray | None]:
    """Class labels read by the table models' rule (:mod:`nbayes.labels`), without Polars:
    ``(labels, missing)``, where a missing label (None, NaN, pandas' NA) drops its row —
    ``missing`` marks those rows, None when there are none — and labels of several kinds
    (``[1, "h"]``) are refused rather than turned into text. The labels kept are checked as
    :func:`check_target` checks them. The caller warns (:func:`warn_dropped`) and refuses a
    fit with no labelled row (:func:`no_labelled_rows`)."""
    values = y.to_numpy() if hasattr(y, "to_numpy") and not isinstance(y, np.ndarray) else y
    if isinstance(values, (list, tuple)):
        values = np.asarray(values, dtype=object)  # NumPy would make text of [1, "h"] or NaN
    if not isinstance(values, np.ndarray) or values.ndim != 1 or values.shape[0] != n_samples:
        return check_target(y, n_samples, estimator=estimator), None  # its errors, its way
    if values.dtype == object:
        missing = np.fromiter((is_missing(v) for v in values), bool, values.shape[0])
        present = values[~missing].tolist()
        if len({value_kind(v) for v in present}) > 1:
            raise mixed_kinds_error("y", present)
        kept = np.asarray(present) if present else np.empty(0, dtype=object)
    elif values.dtype.kind == "f":
        missing = np.isnan(values)
        kept = values[~missing]
    else:
        missing = np.zeros(values.shape[0], dtype=bool)
        kept = values
    labels = check_target(kept, kept.shape[0], estimator=estimator)
    return labels, (missing if missing.any() else None)


def check_sample_weight(sample_weight: Any, n_samples: int, *, estimator: str) -> np.ndarray:
    """Validate ``sample_weight`` and return it as a new float64 array of length ``n_samples``."""
    if sample_weight is None:
        return np.ones(n_samples)
    if isinstance(sample_weight, numbers.Number):
        weights = np.full(n_samples, float(sample_weight))
    else:
        weights = float_array(sample_weight, f"{estimator}: sample_weight must be numbers")
    if weights.ndim != 1:
        raise ValueError(
            f"{estimator}: sample_weight must be 1D array or scalar, got shape {weights.shape}."
        )
    if weights.shape[0] != n_samples:
        raise ValueError(
            f"{estimator}: sample_weight.shape == ({weights.shape[0]},), expected ({n_samples},)!"
        )
    if not np.all(np.isfinite(weights)):
        row = int(np.argmax(~np.isfinite(weights)))
        raise ValueError(f"{estimator}: sample_weight is NaN or infinite at row {row}.")
    if weights.size and not np.any(weights):
        raise ValueError(
            f"{estimator}: Sample weights must contain at least one non-zero number (all "
            f"{n_samples} weights are zero)."
        )
    if np.any(weights < 0):
        row = int(np.argmax(weights < 0))
        raise ValueError(
            f"{estimator}: sample_weight must be non-negative; row {row} has {weights[row]}."
        )
    return weights


def check_alpha(alpha: Any, n_features: int | None, *, name: str = "alpha") -> float | np.ndarray:
    """Validate a Lidstone λ: a number ≥ 0, or one per feature."""
    if isinstance(alpha, numbers.Real) and not isinstance(alpha, bool):
        if not np.isfinite(alpha) or alpha < 0:
            raise ValueError(
                f"{name} must be a finite number >= 0 (the Lidstone λ; 1 is Laplace smoothing), "
                f"got {alpha!r}."
            )
        return float(alpha)
    values = float_array(alpha, f"{name} must be a number >= 0 or one number per feature")
    if values.ndim != 1:
        raise ValueError(f"{name} must be a number or a 1-D array, got shape {values.shape}.")
    if n_features is not None and values.shape[0] != n_features:
        raise ValueError(
            f"When {name} is an array, it should contains `n_features` values, one value per "
            f"feature: got {values.shape[0]} values for {n_features} features."
        )
    if (j := first_not_finite_nonnegative(values)) is not None:
        raise ValueError(
            f"All values in {name} must be greater than 0 or equal to it: {name} must be >= 0; "
            f"entry {j} is {values[j]}."
        )
    return values


def check_positive_number(
    value: Any, name: str, *, allow_zero: bool = True, allow_negative: bool = False
) -> float:
    """``value`` as a float: a finite real number, > 0 (or >= 0, or any with allow_negative)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}.")
    if allow_negative:
        return float(value)
    if value < 0 or (value == 0 and not allow_zero):
        raise ValueError(f"{name} must be {'>=' if allow_zero else '>'} 0, got {value!r}.")
    return float(value)


def check_ddof(value: Any) -> int:
    """``ddof``, the variance's divisor W − ddof: 0 (maximum likelihood) or 1 (sample)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value not in (0, 1):
        raise ValueError(
            f"ddof must be 0 (variance M2 / W) or 1 (sample variance M2 / (W − 1)), got {value!r}."
        )
    return int(value)


def partial_fit_classes(fitted: np.ndarray | None, classes: Any, *, estimator: str) -> np.ndarray:
    """The classes of a ``partial_fit`` call, scikit-learn's rule: ``classes`` (every label that
    may occur) is required on the first call (``fitted`` None) and, when given later, must equal
    the classes already fitted."""
    if fitted is None:
        if classes is None:
            raise ValueError(
                f"{estimator}: classes must be passed on the first call to partial_fit "
                "(the list of every label that may occur)."
            )
        return np.unique(np.asarray(classes))
    if classes is not None:
        given = np.unique(np.asarray(classes))
        if given.shape != fitted.shape or np.any(given != fitted):
            raise ValueError(
                f"{estimator}: `classes={given!r}` is not the same as on last call to "
                f"partial_fit, was: {fitted!r}"
            )
    return fitted
