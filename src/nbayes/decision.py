"""From joint log-likelihoods to posteriors and decisions (Bayes decision theory: Duda, Hart &
Stork, *Pattern Classification*, 2nd ed., §2.2).

For a row x the model gives, per class c, the joint log-likelihood

    jll(c) = log P(c) + Σ_j log P(x_j | c)

Posterior (Bayes' rule, the denominator by total probability, computed with log-sum-exp):

    P(c | x) = exp(jll(c) − log Σ_k exp(jll(k)))

Conditional risk of deciding c_i when the loss of deciding c_i for a true c_j is λ_ij:

    R(c_i | x) = Σ_j λ_ij P(c_j | x)

and the Bayes decision is argmin_i R(c_i | x). Under 0-1 loss R(c_i | x) = 1 − P(c_i | x), so the
decision is the MAP class argmax_c P(c | x); nbayes takes that path directly for a 0-1 loss
(λ_ij = a > 0 off the diagonal, 0 on it), which makes the two agree exactly rather than up to
rounding.

Rows whose likelihood is exactly 0 for every class (possible only with λ = 0, when each class
has some feature value it never saw with that class) carry no usable evidence: they get the
prior as posterior, MAP picks the most probable class a priori, and one
:class:`~nbayes.exceptions.ZeroLikelihoodWarning` per call says how many rows. The result is
never NaN.
"""

from __future__ import annotations

import warnings

import numpy as np

from . import _kernels
from ._validation import first_not_finite_nonnegative, float_array
from .exceptions import ZeroLikelihoodWarning, caller_stacklevel


def _warn_dead(count: int) -> None:
    if count:
        warnings.warn(
            f"{count} row(s) had likelihood 0 under every class (alpha=0 and values never seen "
            "with any class); they were given the class prior as posterior.",
            ZeroLikelihoodWarning,
            stacklevel=caller_stacklevel(),
        )


def posterior(
    jll: np.ndarray,
    log_prior: np.ndarray,
    *,
    log: bool = False,
    out: np.ndarray | None = None,
    warn: bool = True,
) -> np.ndarray:
    """P(c | x) (or log P(c | x) with ``log=True``) for each row of ``jll``, into ``out``.

    ``warn=False`` leaves the warning about zero-likelihood rows to the caller (who may see the
    rows in several chunks and should warn once).
    """
    out = np.empty(jll.shape) if out is None else out
    dead = _kernels.normalize_rows(
        np.ascontiguousarray(jll, dtype=np.float64),
        np.asarray(log_prior, dtype=np.float64),
        log,
        out,
    )
    if warn:
        _warn_dead(int(dead))
    return out


def validate_loss(loss: object, n_classes: int, *, name: str = "loss") -> np.ndarray | None:
    """Check a loss matrix λ (``loss[i][j]`` = cost of deciding class i when the truth is j).

    Returns ``None`` for ``None`` or ``"0-1"`` (MAP), else a float (K, K) array.
    """
    if loss is None or (isinstance(loss, str) and loss == "0-1"):
        return None
    matrix = float_array(loss, f"{name} must be a (n_classes, n_classes) matrix of numbers")
    if matrix.shape != (n_classes, n_classes):
        raise ValueError(
            f"{name} must have shape (n_classes, n_classes) = ({n_classes}, {n_classes}), in the "
            f"order of classes_; got shape {matrix.shape}."
        )
    if (k := first_not_finite_nonnegative(matrix)) is not None:
        i, j = np.unravel_index(k, matrix.shape)
        raise ValueError(
            f"{name} entries must be finite and >= 0; {name}[{i}][{j}] = {matrix[i, j]}."
        )
    return matrix


def is_zero_one(loss: np.ndarray | None) -> bool:
    """True for MAP-equivalent losses: λ_ij = a for i ≠ j and 0 on the diagonal, a > 0."""
    if loss is None:
        return True
    off = loss[~np.eye(loss.shape[0], dtype=bool)]
    if off.size == 0:
        return bool(np.all(np.diag(loss) == 0))
    return bool(np.all(np.diag(loss) == 0) and np.all(off == off[0]) and off[0] > 0)


def conditional_risk(proba: np.ndarray, loss: np.ndarray | None) -> np.ndarray:
    """R(c_i | x) = Σ_j λ_ij P(c_j | x) for every row and every decision i."""
    if loss is None:
        return 1.0 - proba
    return proba @ loss.T


def decide(
    jll: np.ndarray, log_prior: np.ndarray, loss: np.ndarray | None, *, warn: bool = True
) -> np.ndarray:
    """Index of the Bayes decision per row: MAP for 0-1 loss, minimum conditional risk otherwise."""
    if is_zero_one(loss):
        choice = np.argmax(jll, axis=1)
        dead = jll[np.arange(jll.shape[0]), choice] == -np.inf  # the best class is impossible
        if dead.any():
            choice[dead] = int(np.argmax(log_prior))
            if warn:
                _warn_dead(int(dead.sum()))
        return choice
    return np.argmin(conditional_risk(posterior(jll, log_prior, warn=warn), loss), axis=1)
