"""Calibrated naive Bayes scores: a temperature on the log joint, and an offset per class.

Naive Bayes multiplies the columns' likelihoods as if they were independent given the class. When
columns carry the same evidence (adult's education and education-num, or relationship and
marital-status), it is counted more than once: the log-odds come out too large (probabilities too
close to 0 and 1), and, as the prior is counted once, their zero lies in the wrong place. The
calibrated score of class c is

    s_c(x) = a · [log P(c) + Σ_j log P(x_j | c)] + b_c,          P(c | x) = exp s_c / Σ_k exp s_k

with a > 0 a temperature (a < 1: the evidence was overstated) and b_c an offset per class (b of
the first class 0). a alone changes no decision under the model's own prior, only how sure the
model is; with the offsets it moves the decision boundary too. a and b maximise the conditional
log-likelihood Σ_i w_i log P(y_i | x_i) of the scores the model gives rows it was not fitted on
(Platt 1999, and Zadrozny & Elkan 2002 for naive Bayes: a logistic fit on held-out scores).
a = 1, b = 0 is the textbook classifier.

The choice (:func:`choose_calibration`) is made like the columns' representations: among "none",
"weight" (a alone) and "weight and offsets" (a and b), a candidate is kept when its held-out
conditional log-likelihood beats the simpler one's by more than one standard error (the rule of
:mod:`nbayes.families._selection`), two for the offsets, which move decisions (and they may not
lower the held-out accuracy: with scores of wild tails, such as kernel densities on spambase, the
likelihood can prefer offsets that give every row the larger class). Held out means twice: every
row's scores come from a model fitted without that row's fold, and each candidate's (a, b) is
judged on the rows of a fold it was not fitted on. Which rows are held out, and how their scores
are had without refitting, is the table model's business (:mod:`nbayes.model_calibration`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._jit import kernel
from .families._selection import STANDARD_ERRORS, beats, margin, one_row

#: Folds of the cross-fitting.
FOLDS = 5
#: Distinct rows below which no calibration is tried: twenty per fold, for the held-out
#: comparison's normal approximation to mean something.
MIN_ROWS = 100
#: The forms, simplest first.
FORMS = ("none", "weight", "weight and offsets")
#: Bounds of a and of each b_c (a far outside them is a symptom, not a calibration).
WEIGHT_BOUNDS = (1e-3, 1e3)
OFFSET_BOUNDS = (-50.0, 50.0)
#: Standard errors the offsets must add by: they move decisions, which wants clearer evidence
#: than a change of confidence (the temperature: one standard error, the columns' rule). On the
#: UCI sets of benchmarks/accuracy.py the offsets' margins (each training fold's
#: ``calibration_.reason``) fall either at 1.5 standard errors or below (breast-cancer, splice,
#: spambase) or at 4.4 and above (car, mushroom, nursery, adult): any bar between gives the same
#: choices there.
OFFSET_STANDARD_ERRORS = 2.0


@dataclass(frozen=True)
class Calibration:
    """s_c(x) = ``weight`` · [log P(c) + Σ_j log P(x_j | c)] + ``offset[c]``; ``reason`` says
    why (the held-out criterion of each form)."""

    weight: float
    offset: np.ndarray
    reason: str = ""

    @property
    def is_identity(self) -> bool:
        """a = 1 and b = 0: the textbook scores."""
        return self.weight == 1.0 and not self.offset.any()

    def apply(self, log_joint: np.ndarray) -> np.ndarray:
        """a · log_joint + b_c, in place, from the textbook log P(c) + Σ_j log P(x_j | c)
        ((n, K))."""
        log_joint *= self.weight
        log_joint += self.offset
        return log_joint

    def under_prior(
        self, evidence: np.ndarray, own: np.ndarray, given: np.ndarray
    ) -> np.ndarray:
        """The calibrated scores moved by Bayes' rule to another prior π' (Saerens, Latinne &
        Decaestecker 2002): a · [log P(c) + Σ_j log P(x_j | c)] + b_c + log π'(c) − log P(c),
        from the evidence Σ_j log P(x_j | c) (``evidence``, (..., K)), the model's own log P(c)
        (``own``) and log π'(c) (``given``). A class the own prior rules out (log P(c) = −inf)
        takes a · Σ_j log P(x_j | c) + b_c + log π'(c), as the textbook model gives it
        Σ_j log P(x_j | c) + log π'(c)."""
        known = np.where(np.isfinite(own), own, 0.0)
        scores = self.apply(evidence + known)
        scores += given - known
        return scores

    def to_json(self) -> dict:
        return {"weight": self.weight, "offset": self.offset.tolist(), "reason": self.reason}

    @classmethod
    def from_json(cls, data: dict, n_classes: int) -> Calibration:
        weight = data.get("weight") if isinstance(data, dict) else None
        offset = np.asarray(data.get("offset", []), dtype=float) if isinstance(data, dict) else None
        if (
            not isinstance(weight, (int, float))
            or not WEIGHT_BOUNDS[0] <= weight <= WEIGHT_BOUNDS[1]
            or offset is None
            or offset.shape != (n_classes,)
            or not np.isfinite(offset).all()
        ):
            raise ValueError(
                "the calibration must hold a weight in "
                f"[{WEIGHT_BOUNDS[0]}, {WEIGHT_BOUNDS[1]}] and one finite offset per class."
            )
        return cls(float(weight), offset, str(data.get("reason", "")))


class _Scores:
    """The rows' textbook log joint log P(c) + Σ_j log P(x_j | c), held class by class ((K, n):
    the sums over classes of each row are then K − 1 vector operations, not n short
    reductions)."""

    def __init__(
        self,
        log_joint: np.ndarray,
        truth: np.ndarray,
        weight: np.ndarray,
        free: np.ndarray | None = None,
    ) -> None:
        self.joint = np.ascontiguousarray(log_joint.T)
        #: the classes whose offset is fitted (b of the others stays 0; class 0's always does)
        self.free = np.arange(1, log_joint.shape[1]) if free is None else free
        # −inf where a class is impossible for a row: there P = 0 and P · J counts as 0
        self.finite = np.where(np.isfinite(self.joint), self.joint, 0.0)
        self.truth = truth
        self.scale = weight / weight.sum()
        self._one_fold = np.zeros(truth.shape[0], dtype=np.intp)

    def objective(self, theta: np.ndarray, offsets: bool) -> tuple[float, np.ndarray]:
        """−Σ w_i log P(y_i | x_i) / Σ w_i and its gradient in (a, b of the ``free`` classes)."""
        value, grad, _ = self.derivatives(theta, offsets, hessian=False)
        return value, grad

    def derivatives(
        self, theta: np.ndarray, offsets: bool, *, hessian: bool = True
    ) -> tuple[float, np.ndarray, np.ndarray]:
        """The mean objective, its gradient and (``hessian``) its Hessian in (a, b of the
        ``free`` classes), from one compiled pass over the rows."""
        value, grad, full = self._sums(theta, offsets, self._one_fold, 1, hessian)
        return float(value[0]), grad[0], full[0]

    def fold_derivatives(
        self, theta: np.ndarray, offsets: bool, fold: np.ndarray, n_folds: int
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`derivatives`' three terms summed over each fold's rows apart (the first axis:
        the fold), from one compiled pass. ``fold``: each row's fold, 0 to ``n_folds`` − 1."""
        if fold.shape != self.truth.shape or (
            fold.size and (fold.min() < 0 or fold.max() >= n_folds)
        ):
            raise ValueError(f"fold must give each row a fold number from 0 to {n_folds - 1}.")
        return self._sums(theta, offsets, fold, n_folds, hessian=True)

    def _sums(
        self, theta: np.ndarray, offsets: bool, fold: np.ndarray, n_folds: int, hessian: bool
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`fold_derivatives` of valid fold numbers."""
        b = np.zeros(self.joint.shape[0])
        if offsets:
            b[self.free] = theta[1:]
        value, grad, full = _objective(
            self.joint, self.finite, self.truth, self.scale, fold, n_folds, float(theta[0]), b,
            hessian,
        )  # fmt: skip
        # the full (a, b_0 … b_{K−1}) problem, restricted to a and the free offsets
        keep = np.concatenate(([0], self.free + 1)) if offsets else np.array([0])
        return value, grad[:, keep], full[:, keep[:, None], keep]

    def held_out(self, a: float, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """log P(y_i | x_i) per row under (a, b), and whether the row's decision
        (argmax_c a J_ci + b_c) is its class."""
        return _row_scores(self.joint, self.truth, a, b)


#: Rows summed apart before their sums are added (the objective's round-off then grows with
#: the number of blocks, not of rows).
ROWS_PER_SUM = 1024


@kernel
def _objective(
    joint, finite, truth, scale, fold, n_folds, a, b, hessian
):  # pragma: no cover - compiled
    """One pass over the rows: L = Σ_i w_i [log Σ_k exp z_ki − z_{y_i, i}] with
    z_ki = a J_ki + b_k (w summing to 1), its gradient dL/da = Σ_i w_i [E_i(J) − J_{y_i, i}],
    dL/db_k = Σ_i w_i [P_ki − (k = y_i)], and (``hessian``) its Hessian Σ_i w_i Cov_{P_i}(φ)
    over θ = (a, b_0 … b_{K−1}), where class k's features are φ_k = (J_ki, e_k) and
    P_ki = exp z_ki / Σ_l exp z_li. J is taken as 0 where it is −inf in the derivatives (P is
    0 there). Each of the three is summed over each ``fold``'s rows apart (first axis: the
    fold, of ``n_folds``)."""
    n_classes, n = joint.shape
    size = n_classes + 1
    value = np.zeros(n_folds)
    grad = np.zeros((n_folds, size))
    full = np.zeros((n_folds, size, size))
    part_value = np.zeros(n_folds)
    part_grad = np.zeros((n_folds, size))
    part_full = np.zeros((n_folds, size, size))
    p = np.zeros(n_classes)
    for first in range(0, n, ROWS_PER_SUM):
        part_value[:] = 0.0
        part_grad[:, :] = 0.0
        part_full[:, :, :] = 0.0
        for i in range(first, min(n, first + ROWS_PER_SUM)):
            f = fold[i]
            top, best = -np.inf, 0
            for k in range(n_classes):
                z = a * joint[k, i] + b[k]
                if z > top:
                    top, best = z, k
            # J relative to the largest class's: P depends on J's differences alone, and the
            # differences of log joints of 10⁶ or 10⁹ (narrow kernels over many columns) are
            # exact where a J_k would round to 10⁻⁹ and E J − J_y to round-off (the objective
            # would then be too rough in a for Newton's line search)
            reference = finite[best, i]
            total = 1.0  # exp(0) for the largest: one exp fewer per row
            for k in range(n_classes):
                if k != best:
                    p[k] = np.exp(a * (joint[k, i] - reference) + b[k] - b[best])
                    total += p[k]
            p[best] = 1.0
            y = truth[i]
            w = scale[i]
            part_value[f] += w * (a * (reference - joint[y, i]) + b[best] - b[y] + np.log(total))
            expected = 0.0
            for k in range(n_classes):
                p[k] /= total
                expected += p[k] * (finite[k, i] - reference)
                part_grad[f, k + 1] += w * p[k]
            part_grad[f, 0] += w * (expected - (finite[y, i] - reference))
            part_grad[f, y + 1] -= w
            if hessian:
                # Var_P(J) as Σ_k P_k (J_k − E J)², not E J² − (E J)², which would leave
                # large log joints' curvature to round-off
                second = 0.0
                for k in range(n_classes):
                    centred = (finite[k, i] - reference) - expected
                    second += p[k] * centred * centred
                    part_full[f, 0, k + 1] += w * p[k] * centred
                    part_full[f, k + 1, k + 1] += w * p[k]
                    for m in range(k + 1):
                        part_full[f, k + 1, m + 1] -= w * p[k] * p[m]
                part_full[f, 0, 0] += w * second
        for f in range(n_folds):
            value[f] += part_value[f]
            for r in range(size):
                grad[f, r] += part_grad[f, r]
                for c in range(size):
                    full[f, r, c] += part_full[f, r, c]
    if hessian:  # the blocks above filled one triangle of the symmetric matrix
        for f in range(n_folds):
            for k in range(1, size):
                full[f, k, 0] = full[f, 0, k]
                for m in range(1, k):
                    full[f, m, k] = full[f, k, m]
    return value, grad, full


@kernel
def _row_scores(joint, truth, a, b):  # pragma: no cover - compiled
    """Per row: log P(y_i | x_i) = z_{y_i, i} − log Σ_k exp z_ki with z_ki = a J_ki + b_k, and
    whether argmax_k z_ki (the first of equals) is y_i."""
    n_classes, n = joint.shape
    scores = np.empty(n)
    right = np.empty(n, dtype=np.bool_)
    for i in range(n):
        top = -np.inf
        best = 0
        for k in range(n_classes):
            z = a * joint[k, i] + b[k]
            if z > top:
                top, best = z, k
        total = 0.0
        for k in range(n_classes):
            total += np.exp(a * joint[k, i] + b[k] - top)
        y = truth[i]
        scores[i] = a * joint[y, i] + b[y] - top - np.log(total)
        right[i] = best == y
    return scores, right


#: Newton's method stops when no gradient component of the mean objective exceeds this (the
#: objective is convex and smooth, so the optimum is then found to round-off: the same (a, b)
#: from any start, whatever the order the rows' statistics were summed in), or after
#: ``NEWTON_STEPS`` steps.
GRADIENT_TOLERANCE = 1e-12
NEWTON_STEPS = 100
#: Where no gradient component exceeds this, nor any component of the Newton step
#: FINAL_STEP, the step is taken without evaluating the objective again: Newton's error
#: then squares (‖θ − θ*‖ falls to the order of ‖step‖², below 1e-12), and the evaluation that
#: would only confirm it is saved.
FINAL_GRADIENT = 1e-7
FINAL_STEP = 1e-6
#: The same for the folds' fits, which only judge the forms, on the step alone (the gradient's
#: size depends on the scores' scale, the step's error does not): a last Newton step of at most
#: 1e-3 leaves an error of the order of its square (held-out scores to about 1e-6, far below
#: the standard errors the forms are compared by), and the folds' one-step starts are usually
#: that close; the calibration kept is the fit on every row, to the bounds above.
FOLD_GRADIENT = np.inf
FOLD_STEP = 1e-3
#: The temperature's fit starts with at most LOG_STEPS Newton steps, until one changes log a by
#: under LOG_STEP (a by under 22 %: from there Newton's steps in a do not overshoot).
LOG_STEPS = 4
LOG_STEP = 0.2
#: The relative round-off of the objective, a mean over rows.
ROUND_OFF = 1e-13


def _start(
    scores: _Scores, offsets: bool, start: tuple[float, np.ndarray] | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """θ = (a, b of the free classes) at ``start`` (default (1, 0)), and its bounds."""
    n_free = len(scores.free) if offsets else 0
    low = np.array([WEIGHT_BOUNDS[0]] + [OFFSET_BOUNDS[0]] * n_free)
    high = np.array([WEIGHT_BOUNDS[1]] + [OFFSET_BOUNDS[1]] * n_free)
    theta = np.zeros(low.shape[0])
    theta[0] = 1.0
    if start is not None:
        theta[0] = start[0]
        if offsets:
            theta[1:] = start[1][scores.free]
    return theta, low, high


def _unpack(scores: _Scores, theta: np.ndarray, offsets: bool) -> tuple[float, np.ndarray]:
    """(a, b) from θ = (a, b of the free classes)."""
    b = np.zeros(scores.joint.shape[0])
    if offsets:
        b[scores.free] = theta[1:]
    return float(theta[0]), b


def _fit(
    scores: _Scores,
    form: str,
    start: tuple[float, np.ndarray] | None = None,
    final: tuple[float, float] = (FINAL_GRADIENT, FINAL_STEP),
) -> tuple[float, np.ndarray]:
    """(a, b) of ``form`` minimising the mean negative log-likelihood, by Newton's method with
    backtracking from ``start`` (default (1, 0)), each step kept within the bounds:
    deterministic, and converged to round-off (see ``GRADIENT_TOLERANCE``), so the start
    changes the steps taken, not the optimum found. ``final``: the gradient and step below
    which the last Newton step is taken unchecked (``FINAL_GRADIENT``, ``FINAL_STEP``)."""
    if form == "none":
        return 1.0, np.zeros(scores.joint.shape[0])
    offsets = form == "weight and offsets"
    theta, low, high = _start(scores, offsets, start)
    value, grad, hessian = scores.derivatives(theta, offsets)
    for _ in range(NEWTON_STEPS):
        if np.max(np.abs(grad)) <= GRADIENT_TOLERANCE:
            break
        hessian[np.diag_indices_from(hessian)] += 1e-12
        try:
            step = np.linalg.solve(hessian, grad)
        except np.linalg.LinAlgError:
            step = grad
        if np.dot(step, grad) <= 0:  # not a descent direction (round-off): the gradient's
            step = grad
        elif np.max(np.abs(grad)) <= final[0] and np.max(np.abs(step)) <= final[1]:
            theta = np.clip(theta - step, low, high)
            break
        t = 1.0
        while True:
            trial = np.clip(theta - t * step, low, high)
            trial_value, trial_grad, trial_hessian = scores.derivatives(trial, offsets)
            decrease = trial_value <= value - 1e-4 * np.dot(grad, theta - trial)
            # near the optimum the objective's change is below its round-off: the step is
            # judged by the gradient it leaves instead
            flat = trial_value <= value + ROUND_OFF * (1.0 + abs(value)) and np.max(
                np.abs(trial_grad)
            ) < np.max(np.abs(grad))
            if decrease or flat or t < 1e-10:
                break
            t /= 2
        if not (decrease or flat) or np.array_equal(trial, theta):  # no progress: converged
            break
        theta, value, grad, hessian = trial, trial_value, trial_grad, trial_hessian
    return _unpack(scores, theta, offsets)


def _temperature_start(scores: _Scores) -> tuple[float, np.ndarray]:
    """Where the temperature's fit starts: Newton's steps from a = 1 until one changes a by a
    factor under e^``LOG_STEP`` (at most ``LOG_STEPS`` of them); with g = dL/da and
    H = d²L/da², a step in u = log a, Δu = −a g / (a² H + a g), where g > 0 (the scores too
    sure: a* ≈ 0.5 on adult, 0.18 on spambase, where Newton's step in a itself lands below 0
    and the fit would climb back from the bound a step at a time), and a step in a,
    Δa = −g / H, where g < 0 (the scores too timid: there a step in log a overshoots far
    above a*, and one in a, from below a* on a curvature that falls as a grows, does not)."""
    a = 1.0
    for _ in range(LOG_STEPS):
        _, grad, hessian = scores.derivatives(np.array([a]), False)
        slope, curvature = grad[0], hessian[0, 0]
        if slope > 0:
            new = a * np.exp(-a * slope / (a * a * curvature + a * slope))
        elif curvature > 0:
            new = a - slope / curvature
        else:
            break
        if not np.isfinite(new):
            break
        new = float(np.clip(new, *WEIGHT_BOUNDS))
        step, a = abs(np.log(new / a)), new
        if step < LOG_STEP:
            break
    return a, np.zeros(scores.joint.shape[0])


def _fold_starts(
    scores: _Scores, form: str, start: tuple[float, np.ndarray], fold: np.ndarray
) -> list[tuple[float, np.ndarray]]:
    """Where each fold's fit of ``form`` on the other folds' rows starts: one Newton step from
    ``start``, the fit on every row, θ_f = θ̂ − H_{−f}⁻¹ g_{−f}, with the gradient and Hessian
    summed over the rows outside fold f at θ̂ (all folds' sums from one pass over the rows).
    The fit on four fifths of the rows usually lies near θ̂, and the step's error is then of
    the order of its square, so the fit that follows takes a step or two; it is that fit, not
    this start, that scores the fold (a start far off, such as one from θ̂ at a bound, only
    costs it more steps)."""
    if form == "none":
        return [(1.0, np.zeros(scores.joint.shape[0]))] * FOLDS
    offsets = form == "weight and offsets"
    theta, low, high = _start(scores, offsets, start)
    _, grad, hessian = scores.fold_derivatives(theta, offsets, fold, FOLDS)
    starts = []
    for f in range(FOLDS):
        others = np.arange(FOLDS) != f
        g, h = grad[others].sum(axis=0), hessian[others].sum(axis=0)
        h[np.diag_indices_from(h)] += 1e-12
        try:
            step = np.linalg.solve(h, g)
        except np.linalg.LinAlgError:
            step = np.zeros_like(g)
        if not np.dot(step, g) > 0:  # not a descent direction (round-off): no step
            step = np.zeros_like(g)
        starts.append(_unpack(scores, np.clip(theta - step, low, high), offsets))
    return starts


def fit(
    log_joint: np.ndarray, truth: np.ndarray, weight: np.ndarray, form: str
) -> tuple[float, np.ndarray]:
    """(a, b) of ``form`` maximising Σ w_i log P(y_i | x_i) over the given rows' textbook log
    joints ((n, K))."""
    return _fit(_Scores(log_joint, truth, weight), form)


def choose_calibration(
    log_joint: np.ndarray,
    truth: np.ndarray,
    weight: np.ndarray,
    fold: np.ndarray,
    *,
    offsets: bool | np.ndarray = True,
    rows: str = "cross-fitted",
) -> Calibration:
    """The calibration the held-out rows support (a = 1, b = 0 when none beats the textbook).

    ``log_joint`` ((n, K)) is each row's log P(c) + Σ_j log P(x_j | c) under the model fitted
    without the row's ``fold``; ``truth`` its class index. ``offsets`` False: the temperature
    alone (the class prior was given, not estimated: no decision changes); a boolean mask over
    the classes: only theirs are fitted (the others' stay 0: a class with too few rows to judge
    its offset by). ``rows`` names the
    rows at the head of the reason. Rows without weight,
    and rows their fold's model finds impossible, take no part."""
    if fold.size and (fold.min() < 0 or fold.max() >= FOLDS):
        raise ValueError(f"fold must hold fold numbers 0 to {FOLDS - 1}.")
    keep = (
        (weight > 0)
        & np.isfinite(log_joint[np.arange(len(truth)), truth])
        & ~np.isnan(log_joint).any(axis=1)
    )
    if keep.sum() < MIN_ROWS:
        reason = (
            f"only {int(keep.sum())} rows are possible under their fold's model (fewer than "
            f"{MIN_ROWS}): the textbook scores stay"
        )
        return Calibration(1.0, np.zeros(log_joint.shape[1]), reason)
    log_joint, truth, weight, fold = log_joint[keep], truth[keep], weight[keep], fold[keep]
    mask = np.broadcast_to(np.asarray(offsets, dtype=bool), (log_joint.shape[1],))
    free = np.flatnonzero(mask[1:]) + 1
    offsets = free.size > 0
    forms = FORMS if offsets else FORMS[:2]
    held_out = {form: np.zeros(len(truth)) for form in forms}
    right = {form: np.zeros(len(truth), dtype=bool) for form in forms}  # held-out decisions
    # each form fitted on every row first: the folds' fits start there (fewer Newton steps)
    everyone = _Scores(log_joint, truth, weight, free)
    whole: dict[str, tuple[float, np.ndarray]] = {}
    # each form fitted from where the simpler one ended (the temperature from its own start)
    for simpler, form in zip((None, *forms[:-1]), forms, strict=True):
        start = _temperature_start(everyone) if form == "weight" else whole.get(simpler)
        whole[form] = _fit(everyone, form, start)

    starts = {form: _fold_starts(everyone, form, whole[form], fold) for form in forms}
    for f in range(FOLDS):
        fitted_on, judged = fold != f, fold == f
        if not judged.any() or not fitted_on.any():
            continue
        fitting = _Scores(log_joint[fitted_on], truth[fitted_on], weight[fitted_on], free)
        judging = _Scores(log_joint[judged], truth[judged], weight[judged], free)
        for form in forms:
            a, b = _fit(fitting, form, starts[form][f], (FOLD_GRADIENT, FOLD_STEP))
            held_out[form][judged], right[form][judged] = judging.held_out(a, b)
    delta = one_row(weight.sum(), len(weight))
    accuracy = {form: float(np.dot(weight, right[form]) / weight.sum()) for form in forms}
    chosen = "none"
    steps = []
    for form in forms[1:]:
        gain, error = margin(held_out[form], held_out[chosen], weight, delta)
        steps.append(f"{form} vs {chosen}: {gain / error if error > 0 else np.inf:+.1f} SE")
        bar = OFFSET_STANDARD_ERRORS if form == "weight and offsets" else STANDARD_ERRORS
        # the offsets move decisions: on the held-out rows they may not make more of them wrong
        keeps_decisions = form != "weight and offsets" or accuracy[form] >= accuracy[chosen]
        if beats(gain, error, weight.sum() / delta, bar) and keeps_decisions:
            chosen = form
    per_row = {form: float(np.dot(weight, held_out[form]) / weight.sum()) for form in forms}
    verdict = {
        "none": "the textbook scores stay: no form beats them by its bar",
        "weight": "the temperature beats the textbook scores by more than one standard error",
        "weight and offsets": (
            "the offsets add more than two standard errors, and no held-out accuracy lost"
        ),
    }[chosen]
    reason = (
        f"{rows} ({FOLDS} folds) log P(class | x) per row: "
        + ", ".join(
            f"{form} {per_row[form]:+.4f}" + (" (chosen)" if form == chosen else "")
            for form in forms
        )
        + (
            f"; held-out accuracy {accuracy[forms[0]]:.4f}, with the offsets "
            f"{accuracy['weight and offsets']:.4f}"
            if offsets
            else ""
        )
        + f" ({', '.join(steps)}); {verdict}"
    )
    if chosen == "none":
        return Calibration(1.0, np.zeros(log_joint.shape[1]), reason)
    a, b = whole[chosen]
    return Calibration(a, b, reason)
