"""The criterion that chooses a column's representation: leave-one-out conditional log-likelihood.

For one column j and a candidate representation F (a family, or a way of treating missing
values), the criterion is the log-likelihood of every row's class given that column alone, by the
one-column naive Bayes model fitted on all the *other* rows:

    CLL_F = Σ_i w_i log P_F^(−i)(y_i | x_ij),
    P_F^(−i)(c | x) = π_c^(−i) P_F^(−i)(x | c) / Σ_c' π_c'^(−i) P_F^(−i)(x | c')

(Stone 1974's cross-validation; Kohavi & Sahami and Hsu et al. chose naive Bayes discretisations
by held-out accuracy in the same spirit). It is a proper score of the class probabilities, so it
rewards a representation that predicts the class well *and* says how sure it is; it compares
densities, interval counts and category counts on one scale (P(c | x) has no units); and leaving
each row out charges a flexible representation for the parameters it spends.

Everything is computed from the mergeable statistics (the value sketch and Gaussian moments of
:mod:`nbayes.families.auto`), never from the rows: all rows with the same value and class have the
same leave-one-out prediction, so a sketch key b and class c stand for W_{b,c} rows. Removing
"one row" removes weight δ = min(1, the column's mean row weight Σ w / number of rows) from that
key and class, and never more than W_{b,c}: one unit of weight, as weights count repeated rows
(so the criterion is exact for unweighted rows, and weights and repeated rows choose alike), or
one average row where the weights are fractions. While the sketch holds every distinct value this
is the exact leave-one-out; once it pools values on a grid, each key stands for its bin mean.

The representation a column would have without this choice (the Gaussian, or counting for a
column of few integers; missing values skipped) stays unless a candidate beats it by more than
``STANDARD_ERRORS`` standard errors of the difference of their criteria (the paired row-by-row
scores): the one-standard-error rule of Breiman et al. (1984, §3.4.3), which keeps a simpler
model when the data cannot tell it apart from the best. Naive Bayes double-counts what columns
share, so a representation that wins on one column alone by a hair can lose in the full model;
the rule changes a column only on clear evidence. Two more conditions make "clear" hold
(:func:`beats`):

* **More than round-off.** The difference must also exceed ``ROUND_OFF`` per row. Two candidates
  can be one model computed by different arithmetic — on codes, a kernel density whose point
  masses leave a single code to the kernels counts that code too (its one kernel's height is the
  same in every class and cancels from P(c | x)) — and then the difference and its standard
  error are both rounding noise (10⁻¹⁶ per row), which can pass "by one standard error"
  (soybean-large's a15 switched so, in one of its 8 such ties). A tie keeps the usual
  representation.
* **Missing values: one standard error for the group, not for each column.** Whether missing
  values are a value of their own is decided in every column that has them, and the same rows
  tend to miss several columns (vote: the 16 columns' missing-value indicators have a mean
  pairwise correlation of 0.21; 11 of the 15 rows missing vote 8 miss another vote). Each
  column's criterion sees its own missing values alone, so weak wins in several columns can be
  one piece of evidence that naive Bayes would count once per column. The bar therefore rises
  with the number m of the group's columns that have missing values (a table's string columns,
  or its numeric columns), as Bonferroni's correction of the one-standard-error rule: z_m with
  P(Z > z_m) = P(Z > 1) / m (:func:`group_standard_errors`; 1 for one column, 2.33 for 16).
  It is a guard against counting shared evidence m times, not a derivation of it. Missing
  values that carry the class stay a category (mushroom's stalk-root: 14 standard errors;
  adult's workclass and occupation: 8.5); vote's three weak wins (1.07, 1.07 and 2.03 standard
  errors) are skipped, as they were before the choice existed. (Missing values that say nothing
  rarely pass even one standard error: leaving a row out charges the category for its
  parameters, so their criterion difference lies about 2 standard errors below zero.)

**Smoothing (``alpha="auto"``).** The same criterion chooses the Lidstone λ of a column that
counts categories, among ``ALPHAS`` (1, 1/2, …, 1/16; :func:`choose_alpha`): choosing a smoothing
parameter by leave-one-out likelihood is classical (here the leave-one-out likelihood of
P(c | x) rather than of P(x | c), for the reasons above). λ is a continuous estimate, yet picking
the maximiser is not enough, for two reasons, and λ = 1 stays unless the best λ beats it by
Bonferroni's bar over the group's columns that choose (:func:`group_standard_errors`, as for
missing values: 1 standard error for one column, 2.0 for 8, 2.7 for 60):

* The criterion is often flat in λ, with a second rise toward 0: a column none of whose values
  sits alone in a class never meets a zero count when a row is left out. The maximiser of a flat
  curve is noise, and that noise lands on the grid's floor, the most extreme estimate
  (breast-cancer's tumor-size in one fold: +0.05 nats over 260 rows at λ → 0, one standard error
  0.75; taking such maximisers cost breast-cancer 0.3 points of accuracy).
* A small λ makes every (value, class) pair never counted a strong veto of the class, and naive
  Bayes adds the vetoes of all the columns: weak wins in several columns, which tend to come from
  the same rare rows, would be counted once per column. With one standard error per column
  instead of the group's bar, breast-cancer's log loss rose from 0.637 to 0.645 and zoo's
  accuracy was 0.96 instead of 0.97.

Where the evidence is clear (mushroom's near-deterministic columns, car's and nursery's) the
criterion rises steadily toward 0 and the floor is reached: 1/16 keeps an unseen (value, class)
pair at a probability of about λ / N_c, a bounded veto (floors of 1/32 to 1/256 met the same
benchmark sets, with larger log losses on breast-cancer, zoo and splice). The choice is made
with missing values skipped; the missing-value choice then uses the chosen λ. Interval columns
keep λ = 1: their cut points were placed with every row, so the leave-one-out of their counts
flatters a small λ (choosing it there cost spambase 0.04 points).

The family choice keeps one standard error. There the usual Gaussian's row scores are
heavy-tailed on skewed columns (on a spambase column where the Gaussian loses 2.3 nats a row, the
row differences have a standard deviation of 56 nats), so a larger multiple keeps Gaussians that
are far worse: a Bonferroni bar over spambase's 57 columns kept 17 of them and cut its
cross-validated accuracy from 0.90 to 0.78.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy.special import ndtr, ndtri

from .. import _threads
from ._selection_kernels import kernel_columns
from .intervals import cut_points, interval_counts
from .kde import bandwidth_flags, density_inputs
from .sketch import EXACT, FeatureSketch

_LOG_2PI = math.log(2.0 * math.pi)
#: How many standard errors a candidate must beat the usual representation by.
STANDARD_ERRORS = 1.0
#: The per-row difference below which two candidates' criteria tie (round-off, not evidence).
ROUND_OFF = 1e-9
#: The Lidstone λ among which ``alpha="auto"`` chooses (:func:`choose_alpha`): 1 (Laplace),
#: halved down to 1/16.
ALPHAS = tuple(2.0**-k for k in range(5))


def beats(
    gain: float | np.ndarray,
    error: float | np.ndarray,
    rows: float | np.ndarray,
    standard_errors: float = STANDARD_ERRORS,
) -> np.bool_ | np.ndarray:
    """Whether a criterion larger by ``gain`` (D of :func:`margin`, with standard error
    ``error``, over ``rows`` rows) is clear evidence: more than ``standard_errors`` standard
    errors, and more than ``ROUND_OFF`` per row. Numbers, or arrays (one verdict each)."""
    return np.logical_and(gain > standard_errors * error, gain > ROUND_OFF * rows)


def group_standard_errors(columns: int) -> float:
    """The bar of a choice made in each of ``columns`` columns of a group (missing values, λ):
    z with P(Z > z) = P(Z > ``STANDARD_ERRORS``) / columns (Bonferroni's correction of the
    one-standard-error rule; ``STANDARD_ERRORS`` itself for one column)."""
    if columns <= 1:
        return STANDARD_ERRORS
    return float(-ndtri(ndtr(-STANDARD_ERRORS) / columns))  # P(Z > z) = P(Z > 1) / columns


def missing_bar(modes: list[str], missing: np.ndarray) -> float:
    """The bar of a group's missing-value choices: Bonferroni's over its columns that choose
    (mode "auto") and have missing values (``missing``: (K, d) weights)."""
    has_missing = missing.sum(axis=0) > 0
    choosing = sum(mode == "auto" and has for mode, has in zip(modes, has_missing, strict=True))
    return group_standard_errors(choosing)


def values(sketch: FeatureSketch) -> np.ndarray:
    """The value each key stands for: the key itself while the sketch is exact (the weighted
    mean T/W would differ from it in the last bit), else the bin mean over all classes."""
    return sketch.keys if sketch.level == EXACT else sketch.pooled_centres()


def one_row(total_weight: float, rows: float) -> float:
    """δ, the weight of "one row" of a column: min(1, Σ w / rows) — one unit of weight, as a
    weight counts repeated rows, or one average row where the weights are fractions (1 when the
    column has no rows)."""
    return min(1.0, float(total_weight) / float(rows)) if rows > 0 else 1.0


def removed_weight(weight: np.ndarray, row_weight: float) -> np.ndarray:
    """δ_{b,c} = min(δ, W_{b,c}): the weight one row takes away from each key and class."""
    return np.minimum(weight, row_weight)


def segment_sums(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Σ of ``values`` over rows offsets[s] … offsets[s+1] − 1, for each segment s (0 for an
    empty one): many columns' keys laid end to end, each column a segment."""
    starts = offsets[:-1]
    if values.shape[0] == 0:
        return np.zeros((starts.shape[0], *values.shape[1:]))
    out = np.add.reduceat(values, np.minimum(starts, values.shape[0] - 1), axis=0)
    out[offsets[1:] == starts] = 0.0
    return out


def scores(
    full: np.ndarray, own: np.ndarray, delta: np.ndarray, class_totals: np.ndarray
) -> np.ndarray:
    """log P^(−)(c | x_b) of a row of key b and class c, shape (m, K) (−inf where no class is
    possible; anything where W_{b,c} = 0).

    ``full`` (m, K): log P(x_b | c') by the model on all rows; ``own`` (m, K): log P^(−)(x_b | c)
    for the row's own class c with weight ``delta[b, c]`` removed; ``class_totals`` (K,), or
    (m, K) for keys of several columns: N_c, every row of the class (missing in the key's column
    included).
    """
    others = _log_sum_exp_of_others(np.log(class_totals + 1.0) + full)
    left = np.maximum(class_totals - delta, 0.0)
    own_term = np.log(left + 1.0) + own  # log P^(−)(c) P^(−)(x_b | c) of the row's own class
    with np.errstate(invalid="ignore"):
        cll = own_term - np.logaddexp(others, own_term)
    return np.where(np.isnan(cll), -np.inf, cll)


def _log_sum_exp_of_others(terms: np.ndarray) -> np.ndarray:
    """log Σ_{c' ≠ c} exp(terms[:, c']) for every c, (m, K): the classes other than each, in
    O(mK) by sums of the classes before c and after c (no subtraction, so no cancellation
    when one class dominates); −inf where there is no other class with a finite term."""
    top = terms.max(axis=1, keepdims=True)
    shift = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        e = np.exp(terms - shift)
        before = np.zeros(e.shape)
        np.cumsum(e[:, :-1], axis=1, out=before[:, 1:])
        after = np.zeros(e.shape)
        after[:, :-1] = np.cumsum(e[:, :0:-1], axis=1)[:, ::-1]
        return np.log(before + after) + shift


def missing_scores(
    missing: np.ndarray,
    class_totals: np.ndarray,
    row_weight: float | np.ndarray,
    observed: np.ndarray | None = None,
    alpha: float | np.ndarray = 1.0,
) -> np.ndarray:
    """log P^(−)(c | missing) of a row of class c missing this column, shape (K,): the prior
    alone when a missing value is skipped (``observed`` None); with missing as one more outcome,
    P(missing | c) = (M_c + λ) / (N_c + 2λ), and without weight δ, (M_c − δ + λ)/(N_c − δ + 2λ)
    (``observed`` (K,): the class's observed weight O_c; N_c = O_c + M_c). For several columns
    at once: ``missing``, ``class_totals`` (d, K), ``row_weight`` and ``alpha`` (d, 1); (d, K)."""
    m = np.atleast_2d(missing)
    delta = np.minimum(m, row_weight)
    if observed is None:
        full = np.zeros(m.shape)
        own = full
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            full = np.log(m + alpha) - np.log(class_totals + 2 * alpha)
            own = np.log(m - delta + alpha) - np.log(class_totals - delta + 2 * alpha)
    out = scores(full, own, delta, class_totals)
    return out if missing.ndim == 2 else out[0]


def totals(cells: np.ndarray, weight: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Σ W log P^(−)(c | x) over each column's keys (rows offsets[s] … offsets[s+1] − 1): the
    criterion of each column (−inf where a row with weight is impossible)."""
    used = weight > 0
    with np.errstate(invalid="ignore"):
        product = np.where(used, weight * cells, 0.0).sum(axis=1)
    impossible = segment_sums((used & ~np.isfinite(cells)).sum(axis=1), offsets)
    return np.where(impossible > 0, -np.inf, segment_sums(product, offsets))


def total(cells: np.ndarray, weight: np.ndarray) -> float:
    """Σ W log P^(−)(c | x): the criterion of one column (:func:`totals`)."""
    cells, weight = (np.reshape(a, (a.shape[0], -1)) for a in (cells, weight))
    return float(totals(cells, weight, np.array([0, cells.shape[0]]))[0])


def margins(
    better: np.ndarray,
    worse: np.ndarray,
    weight: np.ndarray,
    row_weight: np.ndarray,
    offsets: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """(D, SE) of :func:`margin` for each column (``row_weight``: δ per column)."""
    used = weight > 0
    segment = np.repeat(np.arange(offsets.shape[0] - 1), np.diff(offsets))
    w = np.where(used, weight / row_weight[segment, None], 0.0)
    a_lost = segment_sums((used & ~np.isfinite(better)).sum(axis=1), offsets) > 0
    b_lost = segment_sums((used & ~np.isfinite(worse)).sum(axis=1), offsets) > 0
    with np.errstate(invalid="ignore"):
        d = np.where(used, better - worse, 0.0)
    d = np.where(np.isfinite(d), d, 0.0)  # the columns concerned are settled below
    n = segment_sums(w.sum(axis=1), offsets)
    alive = n > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(alive, segment_sums((w * d).sum(axis=1), offsets) / n, 0.0)
        spread = segment_sums((w * (d - mean[segment, None]) ** 2).sum(axis=1), offsets)
        variance = np.where(alive, spread / n, 0.0)
    gain = np.where(a_lost, -np.inf, np.where(b_lost, np.inf, mean * n))
    return gain, np.where(a_lost | b_lost, 0.0, np.sqrt(n * variance))


def margin(
    better: np.ndarray, worse: np.ndarray, weight: np.ndarray, row_weight: float
) -> tuple[float, float]:
    """(D, SE): how much larger the criterion of ``better`` is than ``worse``'s, in rows
    (D = Σ_i d_i, d_i the difference of row i's two scores), and the standard error of D,
    √(n · Var(d)) over the n = Σ W / δ rows. Infinite D when only ``worse`` has −inf."""
    better, worse, weight = (np.reshape(a, (a.shape[0], -1)) for a in (better, worse, weight))
    gain, error = margins(
        better, worse, weight, np.array([row_weight]), np.array([0, better.shape[0]])
    )
    return float(gain[0]), float(error[0])


def observed_part(
    observed: np.ndarray, class_totals: np.ndarray, delta: np.ndarray, alpha: float
) -> tuple[np.ndarray, np.ndarray]:
    """What treating missing values as an outcome adds to (full, own) of the observed keys:
    log P(observed | c) = log (O_c + λ)/(N_c + 2λ), and without weight δ,
    log (O_c − δ + λ)/(N_c − δ + 2λ)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        full = np.log(observed + alpha) - np.log(class_totals + 2 * alpha)
        own = np.log(observed - delta + alpha) - np.log(class_totals - delta + 2 * alpha)
    return np.broadcast_to(full, delta.shape), own


def choose_alphas(
    cells_for: Callable[[float], np.ndarray],
    weight: np.ndarray,
    row_weight: np.ndarray,
    offsets: np.ndarray,
    standard_errors: float = STANDARD_ERRORS,
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`choose_alpha` for each column of keys laid end to end (``offsets``, and
    ``row_weight`` δ per column): (λ, gain per row) arrays."""
    cells = {alpha: cells_for(alpha) for alpha in ALPHAS}
    best = np.full(offsets.shape[0] - 1, ALPHAS[0])
    top = totals(cells[ALPHAS[0]], weight, offsets)
    for alpha in ALPHAS[1:]:  # ties: the larger λ, the earlier one
        criterion = totals(cells[alpha], weight, offsets)
        best = np.where(criterion > top, alpha, best)
        top = np.maximum(top, criterion)
    rows = segment_sums(weight.sum(axis=1), offsets) / row_weight
    segment = np.repeat(np.arange(best.shape[0]), np.diff(offsets))
    chosen = np.empty(weight.shape)
    for alpha in ALPHAS:
        here = best[segment] == alpha
        chosen[here] = cells[alpha][here]
    gain, error = margins(chosen, cells[1.0], weight, row_weight, offsets)
    keep = (best != 1.0) & (rows > 0) & beats(gain, error, rows, standard_errors)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(keep, best, 1.0), np.where(keep, gain / rows, 0.0)


def choose_alpha(
    cells_for, weight: np.ndarray, row_weight: float, standard_errors: float = STANDARD_ERRORS
) -> tuple[float, float]:
    """(λ, its criterion's gain per row over λ = 1): the Lidstone λ of ``ALPHAS`` with the
    largest leave-one-out criterion, where it beats λ = 1 by ``standard_errors`` standard errors
    (:func:`group_standard_errors` of the group's columns) and by more than round-off; else 1.

    ``cells_for(λ)``: the (m, K) scores (:func:`scores`) of the column's keys with λ; ``weight``
    (m, K) the weight of each key and class."""
    alpha, gain = choose_alphas(
        cells_for, weight, np.array([row_weight]), np.array([0, weight.shape[0]]), standard_errors
    )
    return float(alpha[0]), float(gain[0])


# ---------------------------------------------------------------------- families
def gaussian(
    x: np.ndarray,
    delta: np.ndarray,
    moments: tuple[np.ndarray, ...],
    epsilon: float,
    ddof: int,
    floor: float,
) -> tuple[np.ndarray, np.ndarray]:
    """(full, own) of a Gaussian column. Without weight δ at x, class c's moments are Chan's
    update run backwards: W' = W − δ, μ' = (Wμ − δx)/W', M2' = M2 − δ(x − μ)² W / W'; then
    σ'² = M2' / (W' − ddof) + ε. A class left with no weight uses the pooled mean and variance,
    as the family does for a class that never observed the column."""
    W, mean, m2, pooled_mean, pooled_var = moments
    divisor = np.where(W > ddof, W - ddof, W)
    with np.errstate(invalid="ignore", divide="ignore"):
        var = np.where(W > 0, m2 / divisor, pooled_var)
    theta = np.where(W > 0, mean, pooled_mean)
    var = np.maximum(var + epsilon, floor)
    full = -0.5 * (_LOG_2PI + np.log(var) + (x[:, None] - theta) ** 2 / var)
    left = W - delta
    alive = left > 1e-9 * np.maximum(W, 1e-300)
    with np.errstate(invalid="ignore", divide="ignore"):
        mu = np.where(alive, (W * mean - delta * x[:, None]) / left, pooled_mean)
        removed = delta * (x[:, None] - mean) ** 2 * W / left
        m2_left = m2 - removed
        # what is left of M2 below round-off of the subtraction is a constant class: 0
        m2_left = np.where(m2_left > 1e-10 * np.maximum(m2, removed), m2_left, 0.0)
        div = np.where(left > ddof, left - ddof, left)
        v = np.where(alive, m2_left / div, pooled_var)
    v = np.maximum(v + epsilon, floor)
    own = -0.5 * (_LOG_2PI + np.log(v) + (x[:, None] - mu) ** 2 / v)
    return full, own


def counted(
    table: np.ndarray, code: np.ndarray, delta: np.ndarray, alpha: float
) -> tuple[np.ndarray, np.ndarray]:
    """(full, own) of a counted column (categories or intervals): ``table`` (S, K) the weight of
    each value per class, ``code`` (m,) each key's value. P(l | c) = (n_{c,l} + λ)/(N_c + Sλ);
    without weight δ, (n_{c,l} − δ + λ)/(N_c − δ + Sλ); 1/S where the class has nothing left."""
    return counted_keys(table[code], table.sum(axis=0), table.shape[0], delta, alpha)


def counted_keys(
    n: np.ndarray,
    N: np.ndarray,
    S: int | np.ndarray,
    delta: np.ndarray,
    alpha: float | np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """(full, own) of :func:`counted` from each key's counts ``n`` (m, K), its column's class
    totals N and number of values S (one column's, or per key for keys of several columns)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        uniform = -np.log(S)
        full = np.where(N > 0, np.log(n + alpha) - np.log(N + S * alpha), uniform)
        left = N - delta
        own = np.where(left > 0, np.log(n - delta + alpha) - np.log(left + S * alpha), uniform)
    return full, own


def categorical(sketch: FeatureSketch, delta: np.ndarray, alpha: float):
    """A column of few distinct numbers as categories: the sketch's keys are its values."""
    return counted(sketch.weight, np.arange(sketch.keys.shape[0]), delta, alpha)


def intervals(sketch: FeatureSketch, method: str, bins: int, delta: np.ndarray, alpha: float):
    """Intervals (``"mdl"``, ``"equal-frequency"``): counting over the cut points of all rows."""
    cuts = cut_points(sketch, method, bins)
    table = interval_counts(sketch, cuts).T  # (B, K)
    code = np.searchsorted(cuts, sketch.pooled_centres(), side="left")
    return counted(table, code, delta, alpha)


def kernels(
    sketches: list[FeatureSketch],
    offsets: np.ndarray,
    x: np.ndarray,
    delta: np.ndarray,
    use: np.ndarray,
    shares: list[float | None],
    bandwidth: str | float,
    alpha: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """(full, own) of the kernel density candidate of the columns ``use`` picks, whose keys lie
    end to end (column k: rows ``offsets[k]`` … ``offsets[k + 1]`` − 1 of ``x``, the values they
    stand for, and ``delta``), with point-mass share ``shares[k]`` and λ ``alpha[k]``; zeros for
    the others. At a point mass a: (W_{a,c} − δ + λ) / (W_c − δ + (A+1)λ). Elsewhere, the
    kernel sum without δ of the row's own kernel,

        f'_c(x) = (W_c f_c(x) − δ N(x; m_{b,c}, h_c²)) / (W_c − δ),

    times the mass of "any other value" without δ (bandwidths are those of all the rows). The
    columns are computed in one compiled call (:func:`kernel_columns`), on threads when the work
    pays for them."""
    shape = delta.shape
    full, own = np.zeros(shape), np.zeros(shape)
    if not use.any():
        return full, own
    n_classes = shape[1]
    keys = np.concatenate([s.keys for s in sketches])
    total = np.concatenate([s.total for s in sketches])
    weight = np.concatenate([s.weight for s in sketches])
    share, floor, exact = density_inputs(sketches, shares)
    arrays = (
        keys, weight, total, np.ascontiguousarray(x), np.ascontiguousarray(delta), offsets,
        np.ascontiguousarray(use), share, np.ascontiguousarray(alpha, dtype=np.float64), floor,
        exact, *bandwidth_flags(bandwidth),
    )  # fmt: skip
    # a key costs two binary searches and a few kernels' exps per class
    threads = _threads.plan(64 * keys.shape[0] * n_classes)
    _threads.run(
        lambda first, last: kernel_columns(*arrays, first, last, full, own),
        _threads.blocks(len(sketches), threads),
        threads,
    )
    return full, own
