"""Compiled (Numba) passes over the CSR counts the scan produces: the document statistics of
fitting, and the per-document weighting and column selection of :mod:`nbayes.text.weighting`.
"""

from __future__ import annotations

import numpy as np

from .._jit import kernel


@kernel
def add_columns(indices, data, df, tf):  # pragma: no cover - compiled
    """df[j] += 1 and tf[j] += x for each stored entry (j, x) of a CSR chunk (one per row and
    column): document frequencies and total counts, in place."""
    for p in range(indices.shape[0]):
        j = indices[p]
        df[j] += 1.0
        tf[j] += data[p]


@kernel
def transform_rows(indptr, indices, data, tf_mode, norm, position, scale):  # pragma: no cover
    """Rennie's per-document steps and the column selection in one pass over CSR counts:
    v = log(1 + x) (tf_mode 1) or 1 (tf_mode 2) or x (0); v / sqrt(Σ_row v²) if ``norm``; then
    column j → ``position[j]`` (dropped if -1; identity if ``position`` is empty) and
    v · ``scale[new column]`` (if ``scale`` is not empty)."""
    n = indptr.shape[0] - 1
    out_ptr = np.empty(n + 1, dtype=np.int64)
    out_idx = np.empty(indices.shape[0], dtype=np.int64)
    out_val = np.empty(indices.shape[0], dtype=np.float64)
    remap = position.shape[0] > 0
    scaled = scale.shape[0] > 0
    q = 0
    for i in range(n):
        out_ptr[i] = q
        inverse = 1.0
        if norm:
            total = 0.0
            for p in range(indptr[i], indptr[i + 1]):
                x = data[p]
                v = np.log1p(x) if tf_mode == 1 else (1.0 if x > 0 else 0.0) if tf_mode == 2 else x
                total += v * v
            if total > 0.0:
                inverse = 1.0 / np.sqrt(total)
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            if remap:
                j = position[j]
                if j < 0:
                    continue
            x = data[p]
            v = np.log1p(x) if tf_mode == 1 else (1.0 if x > 0 else 0.0) if tf_mode == 2 else x
            v *= inverse
            if scaled:
                v *= scale[j]
            out_idx[q] = j
            out_val[q] = v
            q += 1
    out_ptr[n] = q
    return out_ptr, out_idx[:q], out_val[:q]
