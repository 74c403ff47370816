"""Discriminative parameters on top of a structure: a log-linear correction of the generative
scores, learnt by maximising the conditional likelihood of the class.

    log P(c | x) = z_c(x) − log Σ_c' exp z_c'(x),
    z_c(x) = s_c(x) + b_c + Σ_j δ_{c, j, x_j} + Σ_{(j, p) ∈ E} δ_{c, jp, x_j, x_p}

where s_c(x) = log P̂(c) + log P̂(x | c) is the structure's generative score (its counts and
smoothing), E the structure's edges (each attribute j with each parent p it uses, in TAN and
k-DB; none for the averaged and hidden-parent models), and b and δ (one weight per class and
value of each attribute, and per class and pair of values of each edge, a missing value being a
value of its own) start at 0, the generative model. Maximising the conditional log-likelihood

    ℓ(b, δ) = Σ_i w_i log P(y_i | x_i) − (λ/2) W ‖δ‖²,   W = Σ_i w_i,

is logistic regression on the one-hot attribute values and edge value pairs with the
generative scores as a fixed offset: the discriminative learning of Bayesian-network-classifier
parameters of Zaidi, Webb, Carman, Petitjean, Buntine et al. (2017, "Efficient parameter learning
of Bayesian network classifiers", Machine Learning 106), here over the attributes' own values and
the structure's pairwise interactions (one weight per value pair of an edge, rather than one per
cell of an attribute's full parent configuration, which on small tables has too few rows per
cell to learn a weight), started from (so preconditioned by) the generative estimate. Counts
cannot express a concept such as "three in a row" on a tic-tac-toe board; weights learnt for the
decision can.

**How far to go is chosen from held-out rows.** The rows whose content hash
(:func:`nbayes.row_sample.row_hashes`) is 0 modulo 5 are held out: L-BFGS maximises ℓ on the
other rows, and after each iteration t the held-out rows' mean log loss L(t) is measured (L(0)
is the generative model's). The held-out rows are in the structure's counts: where the structure
can (TAN, k-DB, selective k-DB: ``_held_out_shifts``) each is scored leave-one-out, its own
class's score s_y(x) taken with its weight out of every count it touched, so that L is the loss
of rows the counts never saw (else L(0) is a training loss, and t* = 0 wins where the correction
helps). The iteration count is t* = the smallest t with
L(t) ≤ min L + 10⁻⁹ (1 + |min L|), searched until 10 iterations bring no L better than that or
200 are run;
t* = 0 (the generative model) unless L(0) − L(t*) exceeds one standard error of the held-out
rows' mean change in log loss (the simpler model wins what the held-out rows cannot tell
apart). The weights kept are those of iteration t*, learnt on the rows not held out, with no
refit on all the rows: early stopping as scikit-learn's HistGradientBoosting, MLP and SGD
estimators do it, which saves t* passes (the structure's counts still use every row). With
``refit`` (``SemiNaiveBayes(refit=True)``) the weights are learnt again from 0 on every row,
held-out ones included and scored by all the counts, for t* iterations, as a search that
chooses by validation then refits on all the data does: t* more passes, weights learnt from a
fifth more rows.

Everything is a function of the rows' contents: the held-out rows by hash, each L-BFGS step by
sums over rows (one pass each, :func:`nbayes.semi_naive._correction_kernels.correction_pass`),
so a fit on the rows in any order, or read batch by batch, gives the same correction. Those sums
are of integers (:class:`FixedPoint`), so they are exactly the same in any order: L-BFGS would
otherwise amplify the last bits that floating-point sums taken in another order differ by
(about tenfold every eight iterations) up to 10⁻⁴ in probability after a hundred iterations.
(With fractional sample weights the structure's counts, and so the scores the correction starts
from, are floating-point sums: the same only to round-off.)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .. import _threads
from .._pass_log import logged_pass
from ._correction_kernels import correction_pass, value_slots

#: λ of the Gaussian prior on δ, per unit of training weight: weak (it keeps ℓ strictly
#: concave); the early stopping is the regularisation that matters.
L2 = 1e-4
#: One row in HELD_OUT_FOLDS (by content hash) is held out to choose the iteration count.
HELD_OUT_FOLDS = 5
#: The search for the iteration count stops after this many iterations without a better
#: held-out loss, or after MAX_ITERATIONS.
PATIENCE = 10
MAX_ITERATIONS = 200
#: Held-out losses this close (relative) count as equal: the fewer iterations win.
TIE = 1e-9
#: Rows per block of a pass (fixed, so that the sums do not depend on the number of threads).
BLOCK_ROWS = 1024
#: Memory for the blocks' partial gradients of a batch, added up a wave of blocks at a time.
PARTIAL_BYTES = 64 << 20
#: The sums a pass adds up (see :func:`~nbayes.semi_naive._correction_kernels.correction_pass`).
TOTALS = 7


@dataclass(frozen=True)
class FixedPoint:
    """The sums of a pass kept as integers, so that adding them up in any order (rows, blocks,
    batches, Dask partitions) gives the same numbers to the last bit.

    With W the total weight of the rows, 2^(e−1) ≤ W < 2^e and S = 62 − e (W < 2^(62 − S)), a
    gradient
    term g = w (p_c − [c = y]), |g| ≤ w, is kept as trunc(g 2^S) (rounded toward zero): no sum of
    them can overflow
    a 64-bit integer, and each is exact to 2^−S W ≈ 2·10⁻¹⁹ W. A total (the losses and their
    squares, which have no bound) is kept in two words, h = trunc(t 2^(S−31)) and
    trunc((t − h 2^(31−S)) 2^S), as exact as a gradient term and with 2^31 times its range
    (each row's term clipped to ±2^30 w; the low words, below 2^31 a row, add up safely to
    about 4·10⁹ rows in one pass); the count of held-out rows is kept as a count. Kept on the
    model's total weight, so the same for every piece of a pass."""

    fine: float
    coarse: float

    @classmethod
    def for_weight(cls, total_weight: float) -> FixedPoint:
        _, exponent = math.frexp(max(float(total_weight), 0.0))  # W < 2^exponent
        exponent = max(exponent, -900)  # a weight below 2^−900 in all: 2^S stays a number
        return cls(math.ldexp(1.0, 62 - exponent), math.ldexp(1.0, 31 - exponent))

    def empty(self, n_gradient: int) -> tuple[np.ndarray, np.ndarray]:
        """Zeroed integer (totals, gradient) to add passes into."""
        return np.zeros(2 * TOTALS, dtype=np.int64), np.zeros(n_gradient, dtype=np.int64)

    def values(self, totals: np.ndarray, gradient: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The integer sums as the numbers they stand for (the last total, a count of rows,
        is kept unscaled)."""
        high, low = totals[:TOTALS].astype(np.float64), totals[TOTALS:].astype(np.float64)
        values = high / self.coarse + low / self.fine
        values[-1] = high[-1]
        return values, gradient.astype(np.float64) / self.fine


@dataclass
class CorrectionRows:
    """A batch as the correction reads it: each attribute's slot (−1: no term), the structure's
    scores s_c(x), class indices, weights, and whether each row is held out. Where the
    structure gives leave-one-out scores, ``offsets`` holds them for the held-out rows' own
    classes (the search's scores) and ``counted_own`` each row's own-class score with every row
    counted, which :attr:`full_offsets` puts back (the refit's scores: every row trains)."""

    slots: np.ndarray
    offsets: np.ndarray
    cls: np.ndarray
    weight: np.ndarray
    held_out: np.ndarray
    counted_own: np.ndarray | None = None

    @cached_property
    def full_offsets(self) -> np.ndarray:
        """The structure's scores with every row counted."""
        if self.counted_own is None:
            return self.offsets
        full = self.offsets.copy()
        full[np.arange(full.shape[0]), self.cls] = self.counted_own
        return full

    @cached_property
    def generative_loss(self) -> np.ndarray:
        """Each row's loss under the structure's scores alone, log Σ_c exp s_c(x) − s_y(x): what
        a held-out row's loss is compared with, the same at every step."""
        top = self.offsets.max(axis=1, initial=-np.inf, keepdims=True)
        top = np.where(np.isfinite(top), top, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            normaliser = top[:, 0] + np.log(np.exp(self.offsets - top).sum(axis=1))
            own = np.take_along_axis(self.offsets, self.cls[:, None], axis=1)[:, 0]
            return normaliser - own


def no_edges() -> np.ndarray:
    """An empty (0, 2) array of edges: a correction over the attributes' own values only."""
    return np.zeros((0, 2), dtype=np.int64)


def slot_bases(n_values: np.ndarray, edges: np.ndarray | None = None) -> np.ndarray:
    """Where each block of weights starts: attribute j has v_j + 1 slots, the last for a missing
    value; then edge (j, p) has (v_j + 1)(v_p + 1), one per pair of values."""
    sizes = np.asarray(n_values, dtype=np.int64) + 1
    if edges is not None and len(edges):
        edges = np.asarray(edges, dtype=np.int64)
        sizes = np.concatenate([sizes, sizes[edges[:, 0]] * sizes[edges[:, 1]]])
    return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)


def _local_values(codes: np.ndarray, n_values: np.ndarray) -> np.ndarray:
    """Each value's index within its attribute's block: v_j for a missing value, −1 for a value
    unseen in fitting (NaN codes are missing, codes ≥ v_j unseen)."""
    limit = np.asarray(n_values, dtype=np.float64)
    missing = np.isnan(codes)
    unseen = ~missing & (codes >= limit)
    local = np.where(missing, limit, np.where(unseen, 0.0, codes)).astype(np.int64)
    local[unseen] = -1
    return local


def _edge_slots(
    local: np.ndarray,
    n_values: np.ndarray,
    edges: np.ndarray,
    bases: np.ndarray,
    blank: int | None = None,
) -> np.ndarray:
    """(n, m): each row's slot in each edge's block (−1 where either value is unseen); with
    ``blank`` 0 or 1, the slot were the edges' child (0) or parent (1) missing."""
    if not len(edges):
        return np.zeros((local.shape[0], 0), dtype=np.int64)
    n_values = np.asarray(n_values, dtype=np.int64)
    child, parent = edges[:, 0], edges[:, 1]
    a, b = local[:, child], local[:, parent]
    if blank == 0:
        a = np.broadcast_to(n_values[child], a.shape)
    elif blank == 1:
        b = np.broadcast_to(n_values[parent], b.shape)
    first = bases[n_values.shape[0] : -1]
    return np.where((a < 0) | (b < 0), -1, first + a * (n_values[parent] + 1) + b)


def slots_of(
    codes: np.ndarray, n_values: np.ndarray, edges: np.ndarray | None = None
) -> np.ndarray:
    """(n, d + m): the slot of each value, then of each edge's value pair (−1: no term, for a
    value unseen in fitting)."""
    n_values = np.asarray(n_values, dtype=np.int64)
    edges = no_edges() if edges is None else np.asarray(edges, dtype=np.int64)
    bases = slot_bases(n_values, edges)
    codes = np.ascontiguousarray(codes, dtype=np.float64)
    out = np.empty((codes.shape[0], n_values.shape[0] + edges.shape[0]), dtype=np.int64)
    value_slots(codes, n_values, bases, np.ascontiguousarray(edges), out)
    return out


def held_out_rows(hashes: np.ndarray) -> np.ndarray:
    """The rows held out to choose the iteration count: content hash ≡ 0 (mod 5)."""
    return (hashes % np.uint64(HELD_OUT_FOLDS)) == 0


@dataclass
class Correction:
    """b and δ (module docstring), the edges E whose value pairs have weights, the iteration
    count t* and the held-out losses L(t) that chose it."""

    delta: np.ndarray
    bias: np.ndarray
    iterations: int
    held_out_losses: np.ndarray
    edges: np.ndarray = field(default_factory=no_edges)
    #: whether the weights were learnt again on every row for the t* iterations (``refit``)
    refitted: bool = False

    @property
    def active(self) -> bool:
        return self.iterations > 0

    def _padded(self) -> np.ndarray:
        return np.vstack([self.delta, np.zeros((1, self.delta.shape[1]))])  # slot −1: zeros

    def scores(self, codes: np.ndarray, n_values: np.ndarray) -> np.ndarray:
        """b_c + Σ_j δ_{c, j, x_j} + Σ_E δ_{c, jp, x_j, x_p} per row and class."""
        return self._padded()[slots_of(codes, n_values, self.edges)].sum(axis=1) + self.bias

    def terms(self, codes: np.ndarray, n_values: np.ndarray) -> np.ndarray:
        """(d, n, K): each attribute's share of the correction, the change in the scores were its
        value missing (0 where it is): δ_{c, j, x_j} − δ_{c, j, missing}, plus the same change
        of every edge's term the attribute takes part in."""
        n_values = np.asarray(n_values, dtype=np.int64)
        d = n_values.shape[0]
        padded = self._padded()
        bases = slot_bases(n_values, self.edges)
        local = _local_values(codes, n_values)
        slots = slots_of(codes, n_values, self.edges)
        terms = padded[slots[:, :d].T] - padded[bases[1 : d + 1] - 1][:, None, :]
        for end in (0, 1):  # each edge's child, then its parent, missing
            without = _edge_slots(local, n_values, self.edges, bases, blank=end)
            change = padded[slots[:, d:].T] - padded[without.T]  # (m, n, K)
            np.add.at(terms, self.edges[:, end], change)
        terms[np.isnan(codes).T] = 0.0
        return terms

    def state(self) -> tuple[dict, dict[str, np.ndarray]]:
        meta = {"iterations": self.iterations, "refitted": self.refitted}
        arrays = {
            "delta": self.delta,
            "bias": self.bias,
            "held_out_losses": self.held_out_losses,
            "edges": self.edges,
        }
        return meta, arrays

    @classmethod
    def from_state(
        cls, meta: dict, arrays: dict[str, np.ndarray], n_values: np.ndarray, n_classes: int
    ) -> Correction:
        """Checked: the shapes fit the model's attributes and classes, the numbers are finite."""
        iterations = meta.get("iterations")
        if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 0:
            raise ValueError(f"the correction's iteration count is invalid: {iterations!r}.")
        refitted = meta.get("refitted", False)  # earlier files: never refitted
        if not isinstance(refitted, bool):
            raise ValueError(f"the correction's refitted flag is invalid: {refitted!r}.")
        delta = np.asarray(arrays["delta"], dtype=np.float64)
        bias = np.asarray(arrays["bias"], dtype=np.float64)
        losses = np.asarray(arrays["held_out_losses"], dtype=np.float64)
        edges = np.asarray(arrays.get("edges", no_edges()))  # earlier files: values only
        d = np.asarray(n_values).shape[0]
        if not (
            edges.ndim == 2 and edges.shape[1] == 2 and np.issubdtype(edges.dtype, np.integer)
            and np.all((edges >= 0) & (edges < d)) and np.all(edges[:, 0] != edges[:, 1])
        ):  # fmt: skip
            raise ValueError(
                f"the correction's edges must be pairs of distinct attribute indices below {d}."
            )
        edges = edges.astype(np.int64)
        n_slots = int(slot_bases(n_values, edges)[-1])
        if delta.shape != (n_slots, n_classes) or bias.shape != (n_classes,):
            raise ValueError(
                f"the correction's weights have shapes {delta.shape} and {bias.shape}, not "
                f"{(n_slots, n_classes)} and {(n_classes,)}."
            )
        if losses.ndim != 1 or not (np.all(np.isfinite(delta)) and np.all(np.isfinite(bias))):
            raise ValueError("the correction's weights must be finite numbers.")
        if iterations and iterations >= losses.shape[0]:
            raise ValueError(
                f"the correction's {iterations} iterations lack their held-out losses "
                f"({losses.shape[0]} given)."
            )
        return cls(delta, bias, iterations, losses, edges, refitted)


Sums = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


def batch_sums(
    batches: Callable[[], Iterable[CorrectionRows]],
    n_slots: int,
    n_classes: int,
    fixed: FixedPoint,
    *,
    everything: bool = False,
) -> Sums:
    """``sums(θ)``: one pass over ``batches()`` adding up (totals, gradient) as
    :func:`~nbayes.semi_naive._correction_kernels.correction_pass` defines them (with
    ``everything``, the held-out rows as training rows: the refit's sums)."""

    evaluations = itertools.count(1)
    what = "the correction's refit" if everything else "the correction's search"

    def sums(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        totals, gradient = fixed.empty(n_slots * n_classes + n_classes)
        with logged_pass(f"{what}, evaluation {next(evaluations)}"):
            for rows in batches():
                add_batch(rows, theta, totals, gradient, fixed, everything=everything)
        return fixed.values(totals, gradient)

    return sums


def add_batch(
    rows: CorrectionRows,
    theta: np.ndarray,
    totals: np.ndarray,
    gradient: np.ndarray,
    fixed: FixedPoint,
    *,
    everything: bool = False,
) -> None:
    """Add one batch's (totals, gradient) at θ = (δ flattened, b), as integers
    (:class:`FixedPoint`), into the arrays given (with
    ``everything``, every row a training row, none held out): blocks
    of BLOCK_ROWS rows on threads, each into its own partial sums, added in block order (the
    same numbers on any number of threads). The blocks run in waves whose partial sums fit in
    PARTIAL_BYTES (and at least one block per thread), so their memory does not grow with the
    batch."""
    n, n_classes = rows.offsets.shape
    if n == 0:
        return
    size = gradient.shape[0] - n_classes
    delta_t = np.ascontiguousarray(theta[:size].reshape(-1, n_classes).T)  # class-major
    bias = np.ascontiguousarray(theta[size:])
    held_out = np.zeros_like(rows.held_out) if everything else rows.held_out
    generative_loss = rows.generative_loss if not everything else np.zeros(n)
    offsets = rows.full_offsets if everything else rows.offsets
    # per row: for each slot, K reads of its index and K score and K gradient adds; for each
    # class, an exponential
    per_row = rows.slots.shape[1] * 3 * n_classes + n_classes * _threads.EXP_STEPS
    threads = _threads.plan(n * per_row)
    parts = [(a, min(n, a + BLOCK_ROWS)) for a in range(0, n, BLOCK_ROWS)]
    wave = min(len(parts), max(threads, PARTIAL_BYTES // (8 * (size + n_classes))))
    # each block's small sums padded to a cache line of their own: threads adding to
    # neighbouring ones row after row would otherwise contend for the same line
    pad = 8
    words = 2 * TOTALS
    part_totals = np.empty((wave, words + pad), np.int64)[:, :words]  # each zeroed by its block
    part_gradient = np.empty((wave, n_classes, size // n_classes), np.int64)
    part_bias = np.empty((wave, n_classes + pad), np.int64)[:, :n_classes]
    gradient_t = np.zeros((n_classes, size // n_classes), np.int64)

    def block(start: int, stop: int) -> None:
        i = start // BLOCK_ROWS % wave  # its place in its wave
        correction_pass(
            rows.slots, offsets, rows.cls, rows.weight, held_out, generative_loss,
            start, stop, delta_t, bias, part_gradient[i], part_bias[i], part_totals[i],
            fixed.fine, fixed.coarse,
        )  # fmt: skip

    for first in range(0, len(parts), wave):
        chunk = parts[first : first + wave]
        _threads.run(block, chunk, threads)
        for i in range(len(chunk)):
            totals += part_totals[i]
            gradient_t += part_gradient[i]
            gradient[size:] += part_bias[i]
    gradient[:size] += gradient_t.T.ravel()


class _Passes:
    """ℓ's value and gradient at a point, and the held-out loss, each one pass of ``sums``."""

    def __init__(self, sums: Sums, n_slots: int, n_classes: int) -> None:
        self.sums = sums
        self.shape = (n_slots, n_classes)
        self.last: tuple[np.ndarray, tuple[float, float]] | None = None
        self.trained_weight = 0.0

    def split(self, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        size = self.shape[0] * self.shape[1]
        return theta[:size].reshape(self.shape), theta[size:]

    def objective(self) -> Callable[[np.ndarray], tuple[float, np.ndarray]]:
        """ℓ (value, gradient) over the rows not held out."""

        def value(theta: np.ndarray) -> tuple[float, np.ndarray]:
            totals, gradient = self.sums(theta)
            self.trained_weight = totals[1]
            weight = max(totals[1], np.finfo(float).tiny)
            delta = self.split(theta)[0]
            loss = totals[0] / weight + 0.5 * L2 * float(np.sum(delta * delta))
            gradient = gradient / weight
            gradient[: delta.size] += L2 * delta.ravel()
            self.last = (theta.copy(), held_out(totals))
            return loss, gradient

        return value

    def held_out(self, theta: np.ndarray) -> tuple[float, float]:
        """(held-out mean log loss, standard error of its change from the generative model's)."""
        if self.last is not None and np.array_equal(self.last[0], theta):
            return self.last[1]
        totals, _ = self.sums(theta)
        return held_out(totals)


def held_out(totals: np.ndarray) -> tuple[float, float]:
    """(L, s): the held-out rows' mean log loss, and the standard error of the mean of their
    change Δ from the generative model's loss, s² = (mean(Δ²) − mean(Δ)²) / rows."""
    if totals[3] <= 0:
        return np.nan, np.nan
    mean = totals[4] / totals[3]
    variance = max(totals[5] / totals[3] - mean * mean, 0.0)
    return totals[2] / totals[3], float(np.sqrt(variance / totals[6]))


#: Corrections L-BFGS remembers, and Armijo's sufficient-decrease constant of its line search.
MEMORY = 10
ARMIJO = 1e-4


def lbfgs(
    objective: Callable[[np.ndarray], tuple[float, np.ndarray]],
    start: np.ndarray,
    iterations: int,
    after: Callable[[np.ndarray], bool] | None = None,
    first: tuple[float, np.ndarray] | None = None,
) -> np.ndarray:
    """Minimise ``objective`` (value, gradient) from ``start`` by L-BFGS (Nocedal & Wright 2006,
    algorithm 7.4: the two-loop recursion over the last MEMORY steps, H₀ = (sᵀy / yᵀy) I) with a
    backtracking line search from step 1 (Armijo's condition), for ``iterations`` iterations or
    until ``after(x)`` after an iteration returns True or no step decreases the value.

    It stops on nothing else: a tolerance test could flip on the last bits of sums whose order
    follows the rows'. One value-and-gradient per iteration when the step 1 is accepted;
    ``first`` is the objective at ``start`` when the caller has it already."""
    x = start.copy()
    value, gradient = objective(x) if first is None else first
    steps: list[tuple[np.ndarray, np.ndarray, float]] = []
    for _ in range(iterations):
        direction = -gradient
        alphas = []
        for s, y, rho in reversed(steps):
            alpha = rho * float(s @ direction)
            direction = direction - alpha * y
            alphas.append(alpha)
        if steps:
            s, y, _ = steps[-1]
            direction = direction * (float(s @ y) / float(y @ y))
        else:  # the first step: at most unit length
            direction = direction / max(1.0, float(np.linalg.norm(gradient)))
        for (s, y, rho), alpha in zip(steps, reversed(alphas), strict=True):
            beta = rho * float(y @ direction)
            direction = direction + (alpha - beta) * s
        slope = float(gradient @ direction)
        if not slope < 0:  # not a descent direction: forget the curvature pairs
            steps.clear()
            direction = -gradient / max(1.0, float(np.linalg.norm(gradient)))
            slope = float(gradient @ direction)
            if not slope < 0:
                break
        step = 1.0
        while True:
            candidate = x + step * direction
            new_value, new_gradient = objective(candidate)
            if new_value <= value + ARMIJO * step * slope:
                break
            step *= 0.5
            if step < 1e-10:
                return x
        s, y = candidate - x, new_gradient - gradient
        if float(s @ y) > 1e-12:
            steps.append((s, y, 1.0 / float(s @ y)))
            del steps[:-MEMORY]
        x, value, gradient = candidate, new_value, new_gradient
        if after is not None and after(x):
            break
    return x


def fit_correction(
    sums: Sums,
    n_slots: int,
    n_classes: int,
    edges: np.ndarray | None = None,
    refit: Sums | None = None,
) -> Correction:
    """The correction of the module docstring over the attributes' values and ``edges``' value
    pairs (``n_slots`` of them: :func:`slot_bases`); ``sums`` makes the passes over the rows
    (:func:`batch_sums`, or a map over Dask partitions), and ``refit``, where given, the passes
    over every row (``everything``) that learn the weights again for the t* iterations."""
    edges = no_edges() if edges is None else np.asarray(edges, dtype=np.int64)
    passes = _Passes(sums, n_slots, n_classes)
    start = np.zeros(n_slots * n_classes + n_classes)
    objective = passes.objective()
    first = objective(start)
    generative, _ = passes.held_out(start)  # L(0), from the same pass
    if passes.trained_weight <= 0 or np.isnan(generative):  # nothing to learn, or to choose with
        return Correction(
            np.zeros((n_slots, n_classes)), np.zeros(n_classes), 0, np.zeros(0), edges
        )
    losses, errors = [generative], [0.0]
    # the weights of the iterations that may still turn out to be t*: those within TIE of the
    # lowest loss so far (as it only falls, one that leaves this set never comes back)
    candidates: dict[int, np.ndarray] = {0: start}

    def after_iteration(theta: np.ndarray) -> bool:
        loss, error = passes.held_out(theta)
        losses.append(loss)
        errors.append(error)
        floor = _tie_floor(losses)
        candidates[len(losses) - 1] = theta.copy()
        for t in [t for t in candidates if not losses[t] <= floor]:
            del candidates[t]
        last_better = int(np.flatnonzero(np.asarray(losses) <= floor)[0])  # ties: the earliest
        return len(losses) - 1 - last_better >= PATIENCE

    lbfgs(objective, start, MAX_ITERATIONS, after_iteration, first)
    trace = np.asarray(losses)
    iterations = int(np.flatnonzero(trace <= _tie_floor(losses))[0])
    if trace[0] - trace[iterations] <= errors[iterations]:  # within one standard error
        iterations = 0
    theta = candidates[iterations] if iterations else start
    if refit is not None and iterations:
        theta = lbfgs(_Passes(refit, n_slots, n_classes).objective(), start, iterations)
    delta, bias = passes.split(theta)
    return Correction(
        delta.copy(), bias.copy(), iterations, trace, edges,
        refitted=refit is not None and iterations > 0,
    )  # fmt: skip


def _tie_floor(losses: list[float]) -> float:
    """The held-out losses that count as the lowest: within TIE (relative) of it."""
    lowest = float(np.min(losses))
    return lowest + TIE * (1 + abs(lowest))
