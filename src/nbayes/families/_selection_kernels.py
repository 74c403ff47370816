"""Compiled part of the leave-one-out criterion (:mod:`nbayes.families._selection`): the kernel
density candidate, whose per-key arithmetic would otherwise be some thirty small NumPy calls
for each column — most of the choice's time on a table of many columns."""

from __future__ import annotations

import math

import numpy as np

from .._jit import kernel
from .kde import _density_parts, _grid, _log_densities

_LOG_2PI = math.log(2.0 * math.pi)


@kernel
def kernel_leave_one_out(
    x, centres, weight, delta, at_atom, position, kernel_part, log_mass, bandwidth, alpha,
    full, own,
):  # pragma: no cover - compiled  # fmt: skip
    """Fill (full, own) (m, K) of a kernel density column (see
    :func:`nbayes.families._selection.kernels` for the formulas): ``x`` the values the sketch's
    keys stand for, ``centres`` and ``weight`` (m, K) its per-class centres and weights,
    ``delta`` the weight one row takes away; ``at_atom`` which keys are the density's point
    masses and ``position`` their index among them, ``log_mass`` (K, A + 1) the masses;
    ``kernel_part`` (the keys that are no point mass, in order) log f_c(x) of the kernels,
    ``bandwidth`` (K,) theirs."""
    m, K = weight.shape
    A = log_mass.shape[1] - 1
    size = A + 1
    class_total = np.zeros(K)
    kernel_total = np.zeros(K)
    for b in range(m):
        for c in range(K):
            class_total[c] += weight[b, c]
            if not at_atom[b]:
                kernel_total[c] += weight[b, c]
    everything = max(class_total.sum(), 1e-300)
    rest = np.flatnonzero(~at_atom)
    for b in range(m):
        if not at_atom[b]:
            continue
        for c in range(K):
            full[b, c] = log_mass[c, position[b]]
            left_total = class_total[c] - delta[b, c]
            if left_total > 0:
                own[b, c] = math.log(weight[b, c] - delta[b, c] + alpha) - math.log(
                    left_total + size * alpha
                )
            else:
                own[b, c] = -math.log(size)
    for i in range(rest.shape[0]):
        b = rest[i]
        for c in range(K):
            full[b, c] = kernel_part[i, c] + log_mass[c, A]
        # a class with nothing left: the density pooled over the classes
        top = -np.inf
        for c in range(K):
            top = max(top, full[b, c] + math.log(class_total[c] / everything)
                      if class_total[c] > 0 else -np.inf)  # fmt: skip
        pooled = -np.inf
        if top > -np.inf:
            sum_exp = 0.0
            for c in range(K):
                if class_total[c] > 0:
                    sum_exp += math.exp(full[b, c] + math.log(class_total[c] / everything) - top)
            pooled = math.log(sum_exp) + top
        for c in range(K):
            left = kernel_total[c] - delta[b, c]
            if not left > 0:
                own[b, c] = pooled
                continue
            rest_mass = 0.0
            if A:
                left_total = class_total[c] - delta[b, c]
                if left_total > 0:
                    rest_mass = math.log(kernel_total[c] - delta[b, c] + alpha) - math.log(
                        left_total + size * alpha
                    )
                else:
                    rest_mass = -math.log(size)
            h = bandwidth[c]
            z = (x[b] - centres[b, c]) / h
            own_kernel = (
                math.log(max(delta[b, c], 1e-300)) - 0.5 * z * z - math.log(h) - 0.5 * _LOG_2PI
            )
            # the row's own kernel as a share r of the class's kernel sum W_c f_c(x)
            log_sum = kernel_part[i, c] + math.log(kernel_total[c])
            share = math.exp(min(own_kernel - log_sum, 700.0))
            loo = log_sum + math.log1p(-min(share, 1.0 - 1e-14)) - math.log(left)
            own[b, c] = loo + rest_mass


@kernel
def kernel_columns(
    keys, weight, total, x, delta, offsets, use, share, alpha, floor, exact, rule, scott,
    per_class, fixed_h, first, last, full, own,
):  # pragma: no cover - compiled  # fmt: skip
    """Fill (full, own) of the kernel density candidate of the columns k with ``use[k]`` among
    ``first`` … ``last`` − 1 of a block whose keys lie end to end (column k: rows
    ``offsets[k]`` … ``offsets[k + 1]`` − 1 of ``keys``, ``weight``, ``total`` (the sketches),
    ``x`` (the values they stand for) and ``delta``): per column, a
    :class:`~nbayes.families.kde.KernelDensity` made and scored by the same compiled functions
    (the formulas: :func:`nbayes.families._selection.kernels`), all in one call (a table of
    20,000 columns would otherwise pay some ten small calls' overheads for each). ``share``,
    ``alpha``, ``floor``, ``exact``: per column (:func:`~nbayes.families.kde.density_inputs`);
    the bandwidth flags: :func:`~nbayes.families.kde.bandwidth_flags`."""
    K = weight.shape[1]
    for k in range(first, last):
        lo, hi = offsets[k], offsets[k + 1]
        m = hi - lo
        if m == 0 or not use[k]:
            continue
        column_keys = keys[lo:hi]
        column_weight = weight[lo:hi]
        atoms, log_mass, centres, weights, kernel_offsets, widths, norms = _density_parts(
            column_keys, column_weight, total[lo:hi], share[k], alpha[k], rule, scott,
            per_class, fixed_h, floor[k], exact[k],
        )  # fmt: skip
        position = np.searchsorted(atoms, column_keys)
        at_atom = np.zeros(m, np.bool_)
        if atoms.shape[0]:  # both sorted: a key is a point mass where the search lands on it
            for b in range(m):
                at_atom[b] = atoms[min(position[b], atoms.shape[0] - 1)] == column_keys[b]
        column_x = x[lo:hi]
        rest = column_x[~at_atom]
        kernel_part = np.zeros((rest.shape[0], K))
        if rest.shape[0]:
            scale, steps, tables, table_offsets = _grid(centres, kernel_offsets, widths)
            _log_densities(
                rest, centres, weights, kernel_offsets, widths, norms, scale, steps, tables,
                table_offsets, kernel_part,
            )  # fmt: skip
        # each key's centre per class: the key while exact, else its bin mean in the class
        key_centres = np.empty((m, K))
        for b in range(m):
            for c in range(K):
                w = column_weight[b, c]
                key_centres[b, c] = total[lo + b, c] / w if w > 0 and not exact[k] else keys[lo + b]
        kernel_leave_one_out(
            column_x, key_centres, column_weight, delta[lo:hi], at_atom, position, kernel_part,
            log_mass, widths, alpha[k], full[lo:hi], own[lo:hi],
        )  # fmt: skip
