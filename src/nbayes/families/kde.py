"""Continuous features by kernel density estimation, on the sketch.

This is the same kind of estimator as Weka's ``NaiveBayes -K`` (John & Langley 1995: a Gaussian
kernel on every training value, per class), not Weka's exact one: Weka's bandwidth is
range / √n with values rounded to a precision, nbayes' follows the rules below, and nbayes
treats point masses apart. Results therefore differ from Weka's in the third digit.

The class-conditional density of feature j in class c is a weighted sum of Gaussian kernels
centred on the sketch's keys (the observed values, or bin means once the sketch has pooled):

    f_c(x) = Σ_b W_{b,c} · N(x; m_{b,c}, h_c²) / Σ_b W_{b,c}

**Bandwidth** (``bandwidth``): Silverman's rule of thumb (``"silverman"``, the default)

    h_c = 0.9 · min(σ_c, IQR_c / 1.34) · W_c^(−1/5)

or Scott's (``"scott"``, h_c = 1.06 σ_c W_c^(−1/5)), with σ_c (the weighted standard deviation
with divisor W_c) and the interquartile range (quartiles as the smallest values whose cumulative
weight reaches 1/4 and 3/4) of the class's values taken from the sketch (exact while it holds the
values themselves; W_c is the class's total weight). ``"silverman-pooled"`` and
``"scott-pooled"`` apply the rule once to all classes' values together and give every class that
one bandwidth, so that classes of different sizes and spreads are smoothed alike (per-class
bandwidths that differ 20-fold make the densities' ratio at a shared value a matter of bandwidth,
not data). A class whose values are all equal gets the feature's pooled bandwidth, and a class
that never observed the feature uses the density pooled over all classes. A number given as
``bandwidth`` is used as h. Every rule scales with the data, so a column's units do not matter;
h never falls below the sketch's grid width, 10⁻⁹ of the largest |x|, or the smallest normal
float (so a column of subnormal values, such as 5e-324, is smoothed over 2.2e-308).

**Point masses** (``point_masses``): a value that holds at least that share of the column's
observed weight (and a weight of at least 5), such as the 0 of a zero-inflated column, is a
point mass, not a bump of width h. With point masses a_1 … a_A (decided on all classes together,
while the sketch holds exact values) the class-conditional is a mixture of the masses and a
kernel density over the other values, estimated like a categorical feature with A + 1 values
(the last: "any other value") and Lidstone's λ (``alpha``):

    P(x = a | c) = (W_{a,c} + λ) / (W_c + (A + 1) λ)
    p(x | c)     = (W_{rest,c} + λ) / (W_c + (A + 1) λ) · f_c^rest(x)     (x no point mass)

f_c^rest being the kernel density of class c's other values (bandwidth from those values, or,
where the other values of all classes have no spread, such as a single 13 in a column of zeros,
the rule over all the column's values; the density over every value when no other value was
seen). A row's value is compared with the point masses exactly. The share is one for every
column, or given per column (``point_masses={column: share or None}``, 0.1 for the columns it
leaves out).

The sum is taken relative to the kernel nearest to x (in log space, so it stays finite and
accurate far from every kernel), and kernels whose term is below e^{-32} times the nearest one's
are skipped: only those within √(z₀² + 64) bandwidths of x count, z₀ being the nearest kernel's
distance in bandwidths.

**Values on a grid.** Integers, and decimals of a few places, are multiples k·g of a step g
(1, 1/2, 1/4, …, 1/1000): x is on the grid when it is the float nearest to k·g (x == k / (1/g)).
When every kernel centre is on such a grid, a value x on the grid is d = |k_x − k_b| steps from
kernel b, and each term is read from a table t_c[d] = exp(−½ (d g / h_c)²), made once per class
up to the distance the sum reaches, instead of an exponential per term: the same kernels are
summed, and the density agrees with the direct sum to round-off (about 1e-15 relative; for a
decimal step, within 1e-11, see ``GRID_CONDITION``). The
tables are made where they cost at most ``GRID_CELLS`` exponentials per kernel and half those of
one sum at every kernel's centre (on sparser data they would cost more than they save). A value
off the grid, or more than 30 bandwidths from every kernel, is summed directly.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from .. import _threads
from .._jit import kernel
from ._group import Settings, format_table, format_value
from ._registry import Family, register
from ._tidy import column_log_likelihood, tidy_frame
from .sketch import EXACT, FeatureSketch, SketchColumns

BANDWIDTH_RULES = ("silverman", "scott", "silverman-pooled", "scott-pooled")
POINT_MASS_MIN_WEIGHT = 5.0  # a point mass needs at least this weight as well as its share
_DEPTH = 32.0  # kernels below e^-32 times the nearest kernel's term are skipped
_SMALLEST_NORMAL = float(np.finfo(np.float64).tiny)  # 2.2e-308: the smallest bandwidth
#: The steps a grid of kernel centres may have (as 1 / g), the coarsest tried first.
GRID_SCALES = (1.0, 2.0, 4.0, 8.0, 10.0, 16.0, 100.0, 1000.0)
#: A decimal step g (1/10, 1/100, 1/1000) is not exact in binary: a value read as k·g differs
#: from the float the data hold by up to half an ulp of x, and each term's exponent by about
#: z · 2⁻⁵³ · |x| / h. Its tables are used where |x| / h stays within this many bandwidths for
#: every value they serve (the terms then agree with the direct sum's to about 1e-11); a step
#: that is a power of two is exact, and always usable.
GRID_CONDITION = 1024.0
#: At most this many table entries per kernel, and at most half the exponentials of one sum at
#: every kernel's centre (each entry costs an exponential, once per density: the tables are
#: made where the values asked of a density soon repay them).
GRID_CELLS = 16
#: Beyond this many bandwidths from the nearest kernel the table's terms would underflow: such a
#: value is summed directly, relative to its nearest kernel.
_GRID_REACH = 30.0


@kernel
def _log_density_rows(
    x, centres, weights, offsets, bandwidth, log_norm, out, first, last, scale, steps, tables,
    table_offsets,
):  # pragma: no cover - compiled  # fmt: skip
    """out[i, c] += log Σ_b w_b N(x_i; centre_b, h_c²) / W_c over class c's kernels, for
    first <= i < last. ``scale`` > 0: the centres lie on the grid of step 1 / ``scale``,
    ``steps`` are their indices on it, and class c's terms by distance in steps are
    ``tables[table_offsets[c]:table_offsets[c + 1]]`` (:func:`_grid`); 0: no grid."""
    K = offsets.shape[0] - 1
    for i in range(first, last):
        v = x[i]
        if v != v:
            continue
        on_grid = False
        step = np.int64(0)
        if scale > 0.0:
            q = v * scale
            if abs(q) < 2.0**31:
                nearest = math.floor(q + 0.5)
                on_grid = nearest / scale == v  # x is the float nearest to k g
                step = np.int64(nearest)
        for c in range(K):
            lo, hi = offsets[c], offsets[c + 1]
            if hi <= lo:  # no kernels at all: density 0
                out[i, c] += -np.inf
                continue
            h = bandwidth[c]
            # distance (in bandwidths) to the nearest kernel: every term is taken relative to it
            p = lo + np.searchsorted(centres[lo:hi], v)
            gap = np.inf
            if p < hi:
                gap = centres[p] - v
            if p > lo:
                gap = min(gap, v - centres[p - 1])
            z0 = gap / h
            if not z0 * z0 < np.inf:  # x infinite or beyond the float range of the kernels
                out[i, c] += -np.inf
                continue
            reach = math.sqrt(z0 * z0 + 2.0 * _DEPTH) * h
            start = lo + np.searchsorted(centres[lo:hi], v - reach)
            stop = lo + np.searchsorted(centres[lo:hi], v + reach, side="right")
            if on_grid and z0 <= _GRID_REACH:
                terms = tables[table_offsets[c] : table_offsets[c + 1]]
                width = scale * h
                # two running sums, so that consecutive terms need not wait for each other
                even, odd = 0.0, 0.0
                for b in range(start, stop - 1, 2):
                    even += weights[b] * _term(terms, abs(step - steps[b]), width)
                    odd += weights[b + 1] * _term(terms, abs(step - steps[b + 1]), width)
                if (stop - start) % 2:
                    even += weights[stop - 1] * _term(terms, abs(step - steps[stop - 1]), width)
                total = even + odd
                if total > 1e-290:  # else tiny weights: summed relative to the nearest below
                    out[i, c] += math.log(total) + log_norm[c]
                    continue
            total = 0.0
            for b in range(start, stop):
                z = (v - centres[b]) / h
                total += weights[b] * math.exp(-0.5 * (z * z - z0 * z0))
            out[i, c] += math.log(total) - 0.5 * z0 * z0 + log_norm[c]


@kernel
def _term(terms, d, width):  # pragma: no cover - compiled
    """exp(−½ (d / width)²): from the table within its length, else computed."""
    if d < terms.shape[0]:
        return terms[d]
    z = d / width
    return math.exp(-0.5 * z * z)


@kernel
def _grid(centres, offsets, bandwidth):  # pragma: no cover - compiled
    """(scale, steps, tables, table_offsets): the coarsest grid of ``GRID_SCALES`` holding every
    centre, each centre's index on it, and per class c the terms t_c[d] = exp(−½ (d / (scale
    h_c))²) for the distances d a value on the grid can have to the kernels it sums (up to
    √(30² + 64) bandwidths, or the centres' range), laid end to end; scale 0 when no grid
    holds the centres within the tables' budget (``GRID_CELLS``)."""
    n = centres.shape[0]
    K = offsets.shape[0] - 1
    none = (0.0, np.zeros(n, np.int64), np.zeros(1), np.zeros(K + 1, np.int64))
    if n == 0:
        return none
    # the exponentials of one sum at each kernel's own centre: the tables may cost half of it
    work = 0.0
    for c in range(K):
        lo, hi = offsets[c], offsets[c + 1]
        own = centres[lo:hi]
        within = math.sqrt(2.0 * _DEPTH) * bandwidth[c]
        for b in range(lo, hi):
            work += np.searchsorted(own, centres[b] + within, side="right") - np.searchsorted(
                own, centres[b] - within
            )
    budget = min(GRID_CELLS * n, 0.5 * work)
    low, high = centres.min(), centres.max()
    reach = math.sqrt(_GRID_REACH * _GRID_REACH + 2.0 * _DEPTH)
    # the largest |x| / h_c of a value class c's table serves (one within the reach of a class-c
    # kernel), over the classes: the narrowest bandwidth's
    narrowest = np.inf
    for c in range(K):
        if offsets[c + 1] > offsets[c]:
            narrowest = min(narrowest, bandwidth[c])
    condition = max(abs(low), abs(high)) / narrowest + reach
    for scale in GRID_SCALES:
        if max(abs(low), abs(high)) * scale >= 2.0**31:
            return none
        if math.frexp(scale)[0] != 0.5 and not condition <= GRID_CONDITION:
            continue  # a decimal step: its values are not exact in binary (see GRID_CONDITION)
        span = (high - low) * scale + 1.0
        lengths = np.empty(K, np.int64)
        for c in range(K):
            lengths[c] = np.int64(min(span, math.floor(reach * scale * bandwidth[c]) + 2.0))
        if lengths.sum() > budget:
            return none  # a finer grid only has longer tables
        steps = np.empty(n, np.int64)
        found = True
        for b in range(n):
            nearest = math.floor(centres[b] * scale + 0.5)
            if nearest / scale != centres[b]:  # not the float nearest to k g
                found = False
                break
            steps[b] = np.int64(nearest)
        if not found:
            continue
        table_offsets = np.zeros(K + 1, np.int64)
        table_offsets[1:] = np.cumsum(lengths)
        tables = np.empty(table_offsets[K])
        for c in range(K):
            width = scale * bandwidth[c]
            for d in range(lengths[c]):
                z = d / width
                tables[table_offsets[c] + d] = math.exp(-0.5 * z * z)
        return scale, steps, tables, table_offsets
    return none


@kernel
def _distinct(x):  # pragma: no cover - compiled
    """The distinct values of x, sorted (NaN as one value, last), and each x_i's position
    among them: ``np.unique(x, return_inverse=True)`` without its per-call overhead, which a
    table of many columns pays once per column."""
    n = x.shape[0]
    order = np.argsort(x)
    values = np.empty(n)
    inverse = np.empty(n, dtype=np.intp)
    m = 0
    for r in range(n):
        v = x[order[r]]
        if m == 0 or not (v == values[m - 1] or (v != v and values[m - 1] != values[m - 1])):
            values[m] = v
            m += 1
        inverse[order[r]] = m - 1
    return values[:m], inverse


@kernel
def _rule(values, weights, scott):  # pragma: no cover - compiled
    """Scott's (``scott``) or Silverman's bandwidth of weighted values (module docstring);
    quartiles: the smallest values whose cumulative weight reaches 1/4 and 3/4."""
    total = 0.0
    for i in range(values.shape[0]):
        total += weights[i]
    mean = 0.0
    for i in range(values.shape[0]):
        mean += weights[i] * values[i]
    mean /= total
    spread = 0.0
    for i in range(values.shape[0]):
        spread += weights[i] * (values[i] - mean) ** 2
    sd = math.sqrt(max(spread / total, 0.0))
    if scott:
        return 1.06 * sd * total**-0.2
    order = np.argsort(values, kind="mergesort")
    cumulative = np.cumsum(weights[order])
    quartiles = values[order][np.searchsorted(cumulative, np.array([0.25, 0.75]) * cumulative[-1])]
    iqr = quartiles[1] - quartiles[0]
    return 0.9 * (min(sd, iqr / 1.34) if iqr > 0 else sd) * total**-0.2


@kernel
def _log_norm(weight, h):  # pragma: no cover - compiled
    """−log(W h √(2π)), the log of a class's kernel normaliser; as a sum of logs where the
    product leaves the float range (a subnormal bandwidth or weight would make it 0)."""
    product = weight * h * math.sqrt(2 * math.pi)
    if 0.0 < product < math.inf and product >= _SMALLEST_NORMAL:
        return -math.log(product)
    return -(math.log(weight) + math.log(h) + 0.5 * math.log(2 * math.pi))


@kernel
def _class_kernels(
    centres, weight, pooled_centres, pooled_weight, scott, per_class, pooled_h, floor
):  # pragma: no cover - compiled
    """Each class's kernels (centres sorted, weights), offsets, bandwidths and log
    normalisers; a class without weight takes the pooled kernels (see KernelDensity)."""
    m, K = weight.shape
    out_centres = np.empty(m * K + m)
    out_weights = np.empty(m * K + m)
    offsets = np.zeros(K + 1, np.int64)
    widths = np.empty(K)
    norms = np.empty(K)
    keep = pooled_weight > 0
    for c in range(K):
        present = weight[:, c] > 0
        if present.any():
            c_centres, c_weight = centres[present, c], weight[present, c]
        else:  # the class never observed this feature: use the pooled density
            c_centres, c_weight = pooled_centres[keep], pooled_weight[keep]
        h = pooled_h
        if per_class:
            h = _rule(c_centres, c_weight, scott) if c_weight.size else 0.0
            h = pooled_h if h <= floor else h
        order = np.argsort(c_centres, kind="mergesort")
        start = offsets[c]
        for i in range(order.shape[0]):
            out_centres[start + i] = c_centres[order[i]]
            out_weights[start + i] = c_weight[order[i]]
        offsets[c + 1] = start + order.shape[0]
        widths[c] = h
        norms[c] = _log_norm(c_weight.sum(), h) if c_weight.size else -np.inf
    return out_centres[: offsets[K]], out_weights[: offsets[K]], offsets, widths, norms


@kernel
def _density_parts(
    keys, weight, total, share, alpha, rule, scott, per_class, fixed_h, floor, exact
):  # pragma: no cover - compiled
    """A feature's point masses, their log masses and its kernels (see :class:`KernelDensity`)
    from its sketch (keys, W, T), in one compiled call: a table may have 100,000 columns, each
    with a few keys, where NumPy's per-call costs would outweigh the arithmetic.

    ``share`` NaN: no point masses. ``rule``: the bandwidth is Silverman's (or ``scott``'s)
    rule, per class (``per_class``) or pooled; otherwise ``fixed_h``. ``floor``: the smallest
    bandwidth. ``exact``: each key is one value, its kernels' centre (a mean of its copies
    would differ from it by the round-off of their sum); else the centres are bin means."""
    m, K = weight.shape
    row_weight = np.zeros(m)
    key_centre = np.empty(m)  # each key's centre over all classes: its values' mean, or itself
    for i in range(m):
        key_total = 0.0
        for c in range(K):
            row_weight[i] += weight[i, c]
            key_total += total[i, c]
        key_centre[i] = key_total / row_weight[i] if row_weight[i] > 0 and not exact else keys[i]
    atom = np.zeros(m, np.bool_)
    if share == share and m > 0:
        observed = 0.0
        for i in range(m):
            observed += row_weight[i]
        for i in range(m):
            atom[i] = row_weight[i] >= share * observed and row_weight[i] >= POINT_MASS_MIN_WEIGHT
    n_atoms = 0
    for i in range(m):
        n_atoms += atom[i]
    atoms = np.empty(n_atoms)
    if n_atoms:
        size = n_atoms + 1
        counts = np.zeros((K, size))  # each point mass, then "any other value"
        a = 0
        for i in range(m):
            if atom[i]:
                atoms[a] = keys[i]
                for c in range(K):
                    counts[c, a] = weight[i, c]
                a += 1
            else:
                for c in range(K):
                    counts[c, n_atoms] += weight[i, c]
        log_mass = np.empty((K, size))
        for c in range(K):
            class_total = 0.0
            for a in range(size):
                class_total += counts[c, a]
            for a in range(size):
                if class_total > 0:
                    log_mass[c, a] = np.log(counts[c, a] + alpha) - np.log(
                        class_total + size * alpha
                    )
                else:  # a class that never observed the feature: uniform
                    log_mass[c, a] = -np.log(size)
    else:
        log_mass = np.zeros((K, 1))
    use = ~atom if n_atoms < m else np.ones(m, np.bool_)  # all point masses: kernels on all
    n_use = 0
    for i in range(m):
        n_use += use[i]
    centres = np.empty((n_use, K))
    used_weight = np.empty((n_use, K))
    pooled_centres = np.empty(n_use)
    pooled_weight = np.empty(n_use)
    u = 0
    for i in range(m):
        if not use[i]:
            continue
        for c in range(K):
            w = weight[i, c]
            used_weight[u, c] = w
            centres[u, c] = total[i, c] / w if w > 0 and not exact else keys[i]
        pooled_weight[u] = row_weight[i]
        pooled_centres[u] = key_centre[i]
        u += 1
    if rule:
        keep = pooled_weight > 0
        pooled_h = floor
        if keep.any():
            pooled_h = max(_rule(pooled_centres[keep], pooled_weight[keep], scott), floor)
        if pooled_h <= floor and n_atoms:
            # the values besides the point masses have no spread of their own (one value, or
            # copies of one): their kernels take the width the rule gives all the column's
            # values, not the floor, whose spike would put a value a few units away 10¹⁷ nats
            # down in every class and leave the other columns' evidence to round-off
            seen = row_weight > 0
            pooled_h = max(_rule(key_centre[seen], row_weight[seen], scott), floor)
    else:
        pooled_h = fixed_h
    kernel_centres, kernel_weights, offsets, widths, norms = _class_kernels(
        centres, used_weight, pooled_centres, pooled_weight, scott, per_class, pooled_h, floor
    )
    return atoms, log_mass, kernel_centres, kernel_weights, offsets, widths, norms


@kernel
def _log_densities(
    x, centres, weights, offsets, bandwidth, log_norm, scale, steps, tables, table_offsets, out
):  # pragma: no cover - compiled
    """out[i, c] += log f_c(x_i) (:func:`_log_density_rows`), a value that repeats in x (an
    age, a count) evaluated once."""
    K = out.shape[1]
    distinct, inverse = _distinct(x)
    if distinct.shape[0] < x.shape[0]:
        once = np.zeros((distinct.shape[0], K))
        _log_density_rows(
            distinct, centres, weights, offsets, bandwidth, log_norm, once, 0,
            distinct.shape[0], scale, steps, tables, table_offsets,
        )  # fmt: skip
        for r in range(x.shape[0]):
            for c in range(K):
                out[r, c] += once[inverse[r], c]
    else:
        _log_density_rows(
            x, centres, weights, offsets, bandwidth, log_norm, out, 0, x.shape[0], scale, steps,
            tables, table_offsets,
        )  # fmt: skip


@kernel
def _log_likelihood_columns(
    block, observed, atoms, atom_offsets, log_mass, mass_offsets, centres, weights, steps,
    kernel_offsets, class_offsets, bandwidth, log_norm, scale, tables, table_offsets,
    class_tables, out, first, last,
):  # pragma: no cover - compiled  # fmt: skip
    """out[i, c] += Σ_j log P(x_ij | c) over the columns of an (n, d) block, for rows
    ``first`` … ``last`` − 1, the columns' densities packed end to end (:class:`PackedDensities`):
    log P(x = a | c) at a point mass a, log P(any other value | c) + log f_c(x) elsewhere (log
    f_c(x) alone for a column without point masses); NaN (missing) adds nothing, nor does any
    value of a column no class observed. A value that repeats in a column (an age, a count) is
    evaluated once. One call for every column: a table may have 100,000."""
    d = block.shape[1]
    K = out.shape[1]
    n = last - first
    for j in range(d):
        if not observed[j]:
            continue
        x = np.ascontiguousarray(block[first:last, j])
        column_atoms = atoms[atom_offsets[j] : atom_offsets[j + 1]]
        A = column_atoms.shape[0]
        size = A + 1
        mass = log_mass[mass_offsets[j] : mass_offsets[j + 1]]  # (K, A + 1), flattened
        lo, hi = kernel_offsets[j], kernel_offsets[j + 1]
        column_centres, column_weights, column_steps = centres[lo:hi], weights[lo:hi], steps[lo:hi]
        column_tables = tables[table_offsets[j] : table_offsets[j + 1]]
        rest = np.ones(n, np.bool_)
        if A:
            for i in range(n):
                v = x[i]
                if v != v:
                    rest[i] = False
                    continue
                p = min(np.searchsorted(column_atoms, v), A - 1)
                if column_atoms[p] == v:
                    rest[i] = False
                    for c in range(K):
                        out[first + i, c] += mass[c * size + p]
        values = x[rest]
        if values.shape[0] == 0:
            continue
        part = np.zeros((values.shape[0], K))
        _log_densities(
            values, column_centres, column_weights, class_offsets[j], bandwidth[j], log_norm[j],
            scale[j], column_steps, column_tables, class_tables[j], part,
        )  # fmt: skip
        r = 0
        for i in range(n):
            if rest[i]:
                for c in range(K):
                    out[first + i, c] += part[r, c] + mass[c * size + A] if A else part[r, c]
                r += 1


def bandwidth_flags(bandwidth: str | float) -> tuple[bool, bool, bool, float]:
    """(rule, scott, per_class, fixed h): a ``bandwidth`` setting as :func:`_density_parts`
    reads it."""
    rule = isinstance(bandwidth, str)
    scott = rule and bandwidth.startswith("scott")
    per_class = rule and not bandwidth.endswith("-pooled")
    return rule, scott, per_class, 0.0 if rule else float(bandwidth)


def density_inputs(
    sketches: list[FeatureSketch], shares: list[float | None]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(share, floor, exact) of each column's density, as :func:`_density_parts` reads them: the
    point-mass share (NaN: none, as when the sketch has pooled its values on a grid); the
    smallest bandwidth allowed, the grid width or 10⁻⁹ of the largest |x| (relative, so that the
    column's units never matter); whether each key is one value."""
    level = np.fromiter((s.level for s in sketches), np.int64, len(sketches))
    low = np.fromiter((s.minimum for s in sketches), np.float64, len(sketches))
    high = np.fromiter((s.maximum for s in sketches), np.float64, len(sketches))
    exact = level == EXACT
    given = np.array([math.nan if share is None else share for share in shares], np.float64)
    share = np.where(exact, given, math.nan)
    scale = np.where(np.isfinite(low), np.maximum(np.abs(low), np.abs(high)), 0.0)
    grid = np.where(level > -1075, np.ldexp(1.0, np.clip(level, -1075, 1024)), 0.0)
    # never a subnormal width: 10⁻⁹ of a subnormal scale would be 0
    floor = np.where(
        scale > 0,
        np.maximum(np.maximum(grid, 1e-9 * scale), _SMALLEST_NORMAL),
        np.maximum(grid, 1e-9),
    )
    return share, floor, exact


class KernelDensity:
    """Per-class point masses, kernel centres, weights and bandwidths of one feature, derived
    from its sketch (see the module docstring). Point masses are the keys of an exact sketch
    with a share of at least ``point_share`` of the observed weight and a weight of at least 5
    (none when ``point_share`` is None or the sketch has pooled its values on a grid)."""

    def __init__(
        self,
        sketch: FeatureSketch,
        bandwidth: str | float,
        point_share: float | None = None,
        alpha: float = 1.0,
        *,
        inputs: tuple[float, float, bool] | None = None,
    ) -> None:
        """``inputs``: the (share, floor, exact) of :func:`density_inputs`, when
        :meth:`of_columns` has computed them for many columns at once (``point_share`` is then
        read from them)."""
        #: whether any class observed the feature (a feature no class observed adds nothing)
        self.observed = sketch.keys.size > 0
        if inputs is None:
            share, floor, exact = density_inputs([sketch], [point_share])
            inputs = (float(share[0]), float(floor[0]), bool(exact[0]))
        (
            self.atoms, self.log_mass, self.centres, self.weights, self.offsets, self.bandwidth,
            self.log_norm,
        ) = _density_parts(
            sketch.keys, sketch.weight, sketch.total, inputs[0], float(alpha),
            *bandwidth_flags(bandwidth), inputs[1], inputs[2],
        )  # fmt: skip

    @classmethod
    def of_columns(
        cls,
        sketches: list[FeatureSketch],
        bandwidth: str | float,
        shares: list[float | None],
        alphas: np.ndarray,
    ) -> list[KernelDensity]:
        """The density of each column (its point-mass share, its λ), their settings computed
        together (a table may have 100,000 columns)."""
        share, floor, exact = density_inputs(sketches, shares)
        return [
            cls(sketch, bandwidth, alpha=float(a), inputs=(float(s), float(f), bool(e)))
            for sketch, a, s, f, e in zip(sketches, alphas, share, floor, exact, strict=True)
        ]


class PackedDensities:
    """The densities of many columns laid end to end, as :func:`_log_likelihood_columns` reads
    them: per column its point masses and their log masses, its kernels (centres, weights, grid
    steps) with each class's share of them, bandwidths, log normalisers and grid tables."""

    def __init__(self, densities: list[KernelDensity]) -> None:
        # each column's (scale, steps, tables, table offsets): the grid its centres lie on
        grids = [_grid(d.centres, d.offsets, d.bandwidth) for d in densities]
        n_classes = densities[0].bandwidth.shape[0] if densities else 0

        def joined(parts: list[np.ndarray], dtype: type = np.float64) -> np.ndarray:
            return np.concatenate(parts).astype(dtype, copy=False) if parts else np.zeros(0, dtype)

        def ends(parts: list[np.ndarray]) -> np.ndarray:
            out = np.zeros(len(parts) + 1, dtype=np.int64)
            np.cumsum([p.size for p in parts], out=out[1:])
            return out

        masses = [np.ascontiguousarray(d.log_mass).ravel() for d in densities]
        table_parts = [grid[2] for grid in grids]
        self.arrays = (
            np.array([d.observed for d in densities], dtype=bool),
            joined([d.atoms for d in densities]),
            ends([d.atoms for d in densities]),
            joined(masses),
            ends(masses),
            joined([d.centres for d in densities]),
            joined([d.weights for d in densities]),
            joined([grid[1] for grid in grids], np.int64),
            ends([d.centres for d in densities]),
            np.array([d.offsets for d in densities], dtype=np.int64).reshape(-1, n_classes + 1),
            np.array([d.bandwidth for d in densities]).reshape(-1, n_classes),
            np.array([d.log_norm for d in densities]).reshape(-1, n_classes),
            np.array([grid[0] for grid in grids], dtype=np.float64),
            joined(table_parts),
            ends(table_parts),
            np.array([grid[3] for grid in grids], dtype=np.int64).reshape(
                -1, n_classes + 1
            ),
        )

    def add_log_likelihood(self, block: np.ndarray, out: np.ndarray) -> None:
        """out[i, c] += Σ_j log P(x_ij | c) over the (n, d) block's columns, on as many threads
        as the work pays for (:mod:`nbayes._threads`), each a block of rows."""
        block = np.ascontiguousarray(block, dtype=np.float64)
        n, d = block.shape
        # a value costs two binary searches and a few kernels' exps per class
        threads = _threads.plan(64 * n * d * max(1, out.shape[1]))
        _threads.run(
            lambda first, last: _log_likelihood_columns(block, *self.arrays, out, first, last),
            _threads.blocks(n, threads, minimum=256),
            threads,
        )


# ---------------------------------------------------------------------- table columns
class KernelColumns(SketchColumns):
    """Numeric columns of a table with a kernel density per class (Weka's -K)."""

    family = "kde"

    def densities(self, settings: Settings) -> list[KernelDensity]:
        shares, alpha = self._density_settings(settings)
        return self.stats.cached(
            ("kde", settings.bandwidth, tuple(shares), alpha.tobytes()),
            lambda: KernelDensity.of_columns(
                self.stats.features, settings.bandwidth, shares, alpha
            ),
        )

    def packed(self, settings: Settings) -> PackedDensities:
        """:meth:`densities`, laid end to end for :meth:`log_likelihood`."""
        shares, alpha = self._density_settings(settings)
        return self.stats.cached(
            ("kde-packed", settings.bandwidth, tuple(shares), alpha.tobytes()),
            lambda: PackedDensities(self.densities(settings)),
        )

    def _density_settings(self, settings: Settings) -> tuple[list[float | None], np.ndarray]:
        """Each column's point-mass share and λ."""
        alpha = np.broadcast_to(settings.alpha_for(self.names), (len(self.names),))
        return settings.point_masses_for(self.names), alpha

    def log_likelihood(self, block: np.ndarray, settings: Settings) -> np.ndarray:
        out = np.zeros((block.shape[0], self.stats.features[0].n_classes))
        self.packed(settings).add_log_likelihood(block, out)
        return out

    def describe(self, classes: np.ndarray, settings: Settings) -> str:
        parts = []
        for j, (name, density) in enumerate(zip(self.names, self.densities(settings), strict=True)):
            kernels = np.diff(density.offsets).tolist()  # counts: printed as integers
            rows = [kernels, density.bandwidth.tolist()]
            labels = ["kernels", "bandwidth"]
            for a, atom in enumerate(density.atoms):
                labels.append(f"P(x = {format_value(atom)})")
                rows.append(np.exp(density.log_mass[:, a]).tolist())
            if density.atoms.size:
                labels.append("P(other x)")
                rows.append(np.exp(density.log_mass[:, -1]).tolist())
            parts.append(
                f"{name}  (kernel density, {settings.bandwidth} bandwidth, {self.resolution(j)})\n"
                + format_table(labels, classes, rows)
            )
        return "\n\n".join(parts)

    def tables(
        self, classes: np.ndarray, settings: Settings, *, grid: int = 200
    ) -> dict[str, pl.DataFrame]:
        """x on a grid over the values ± 3 bandwidths, density p(x | c), bandwidth h_c."""
        out = {}
        for j, (name, density) in enumerate(zip(self.names, self.densities(settings), strict=True)):
            sketch = self.stats.features[j]
            finite = np.isfinite(sketch.minimum)
            low, high = (sketch.minimum, sketch.maximum) if finite else (0.0, 1.0)
            margin = 3 * float(np.max(density.bandwidth, initial=0.0))
            xs = np.linspace(low - margin, high + margin, grid)
            with np.errstate(under="ignore"):
                values = np.exp(column_log_likelihood(self, j, xs, settings)).T
            out[name] = tidy_frame(
                name,
                classes,
                grid,
                shared={"x": xs.tolist()},
                per_class={
                    "density": values,
                    "bandwidth": np.repeat(density.bandwidth[:, None], grid, axis=1),
                },
            )
        return out


register(
    Family(
        "kde",
        rank=30,
        reads=frozenset({"int", "float"}),
        group=KernelColumns,
        continuous=True,
        density=True,
        summary="a kernel density per class",
    )
)
