"""Class priors P(Y = c_k) from the class counts N_c.

Four ways to set the prior:

* ``"mle"`` — maximum likelihood, P(c) = N_c / N, the relative frequency of the class;
* ``"smoothed"`` — the Bayesian (Lidstone) estimate, P_λ(c) = (N_c + λ) / (N + Kλ), with λ = 1
  being Laplace smoothing (the posterior mean under a symmetric Dirichlet(λ) prior);
* ``"uniform"`` — "if the class priors are unknown, assume the classes are equally likely",
  P(c) = 1 / K (Han, Kamber & Pei, §8.3.2);
* an explicit vector of K probabilities, in the order of ``classes_``.

N_c are weighted counts when sample weights are given.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._validation import first_not_finite_nonnegative, float_array
from .exceptions import choice_hint, suggest_names

PRIOR_MODES = ("mle", "smoothed", "uniform")


def validate_prior(spec: Any, n_classes: int | None, *, name: str) -> str | np.ndarray | None:
    """Check a prior specification; returns ``None``, a mode string, or a probability vector."""
    if spec is None:
        return None
    if isinstance(spec, str):
        if spec not in PRIOR_MODES:
            raise ValueError(
                f"{name} must be one of {PRIOR_MODES} or a vector of probabilities, got "
                f"{spec!r}{choice_hint(spec, PRIOR_MODES)}"
            )
        return spec
    if isinstance(spec, dict):
        raise ValueError(
            f"{name} must be one of {PRIOR_MODES} or a vector of probabilities in the order of "
            "classes_, got a dict (priors= per call takes one by class)."
        )
    priors = float_array(spec, f"{name} must be a vector of class probabilities")
    if priors.ndim != 1:
        raise ValueError(
            f"{name} must be 1-D (one probability per class), got shape {priors.shape}."
        )
    if n_classes is not None and priors.shape[0] != n_classes:
        raise ValueError(
            f"Number of priors must match number of classes: {name} has {priors.shape[0]} "
            f"entr{'y' if priors.shape[0] == 1 else 'ies'} for {n_classes} classes."
        )
    if (k := first_not_finite_nonnegative(priors)) is not None:
        raise ValueError(f"Priors must be non-negative: {name}[{k}] = {priors[k]}.")
    if not np.isclose(priors.sum(), 1.0):
        raise ValueError(
            f"The sum of the priors should be 1: {name} sums to {float(priors.sum())!r}."
        )
    return priors


def prior_by_class(priors: dict, classes: np.ndarray) -> np.ndarray:
    """A dict of class → probability as the vector over ``classes`` (keys matched by value, or
    by their text where the labels are text); a class left out, or a key that is no class, is
    refused, naming it."""
    by_text = {str(key): value for key, value in priors.items()}
    known = [str(c) for c in np.asarray(classes).tolist()]
    unknown = [key for key in by_text if key not in known]
    if unknown:
        raise ValueError(
            f"priors names labels the model does not know: {unknown[:5]}"
            + suggest_names(unknown, known)
        )
    lacking = [c for c in known if c not in by_text]
    if lacking:
        raise ValueError(f"priors gives no probability for the class(es) {lacking[:5]}.")
    return np.asarray([by_text[c] for c in known], dtype=np.float64)


def log_prior(class_count: np.ndarray, spec: str | np.ndarray, alpha: float = 1.0) -> np.ndarray:
    """log P(c) for each class, from the counts ``class_count`` (N_c) under ``spec``.

    A class with probability exactly 0 (an unseen class under ``"mle"``, or a 0 given by the
    user) gets ``-inf``; such a class is never predicted.
    """
    class_count = np.asarray(class_count, dtype=np.float64)
    n_classes = class_count.shape[0]
    with np.errstate(divide="ignore"):
        if isinstance(spec, np.ndarray):
            return np.log(spec)
        if spec == "uniform":
            return np.full(n_classes, -np.log(n_classes))
        if spec == "smoothed":
            return np.log(class_count + alpha) - np.log(class_count.sum() + n_classes * alpha)
        if spec == "mle":
            total = class_count.sum()
            if total <= 0:
                return np.full(n_classes, -np.log(n_classes))
            return np.log(class_count) - np.log(total)
    raise ValueError(f"unknown prior {spec!r}")
