"""Compiled part of the leave-one-out criterion (:mod:`nbayes.families._selection`): the kernel
density candidate, whose per-key arithmetic would otherwise be some thirty small NumPy calls
for each column — most of the choice's time on a table of many columns."""

from __future__ import annotations

import math

import numpy as np

from .._jit import kernel
from .kde import _log_density_rows

_LOG_2PI = math.log(2.0 * math.pi)


@kernel
def kernel_leave_one_out(
    keys, x, centres, weight, delta, atoms, log_mass, k_centres, k_weights, k_offsets,
    bandwidth, log_norm, alpha, full, own,
):  # pragma: no cover - compiled  # fmt: skip
    """Fill (full, own) (m, K) of a kernel density column (see
    :func:`nbayes.families._selection.kernel` for the formulas): ``keys`` and ``x`` the sketch's
    keys and the values they stand for, ``centres`` and ``weight`` (m, K) its per-class centres
    and weights, ``delta`` the weight one row takes away; the density's point masses
    ``atoms`` with ``log_mass`` (K, A + 1) and its kernels (``k_*``, ``bandwidth``,
    ``log_norm``)."""
    m, K = weight.shape
    A = atoms.shape[0]
    size = A + 1
    class_total = np.zeros(K)
    kernel_total = np.zeros(K)
    at_atom = np.zeros(m, np.bool_)
    position = np.zeros(m, np.int64)
    for b in range(m):
        if A:
            p = np.searchsorted(atoms, keys[b])
            at_atom[b] = p < A and atoms[p] == keys[b]
            position[b] = p
        for c in range(K):
            class_total[c] += weight[b, c]
            if not at_atom[b]:
                kernel_total[c] += weight[b, c]
    everything = max(class_total.sum(), 1e-300)
    rest = np.flatnonzero(~at_atom)
    kernel_part = np.zeros((rest.shape[0], K))
    values = np.ascontiguousarray(x[rest])
    _log_density_rows(
        values, k_centres, k_weights, k_offsets, bandwidth, log_norm, kernel_part, 0,
        rest.shape[0],
    )  # fmt: skip
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
