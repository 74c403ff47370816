"""Memory of the semi-naive statistics, estimated before anything is allocated.

With v_j the number of values of attribute j, V = Σ_j v_j and K classes, the tables hold one
float64 (8 bytes) per cell:

=====================================  ==============================================
table                                  cells
=====================================  ==============================================
N(c, x_j)                              K · V
N(c, x_i, x_j), i < j (AODE, TAN, …)   K · Σ_{i<j} v_i v_j  = K · (V² − Σ_j v_j²) / 2
N(c, x_i, x_j, x_l), i < j < l (A2DE)  K · Σ_{i<j<l} v_i v_j v_l  ≈ K · V³ / 6
N(c, u_j, x_j) (k-DB, k ≥ 2)           K · Σ_j v_j Σ_{L ≤ k} Π_{r<L} v_{π_j(r)}
=====================================  ==============================================

Prediction derives log tables from them (AODE: two per pair cell, one per direction; A2DE:
three per triple cell); the estimate includes them, and the index tables that find a block of
cells whatever the attributes' values (:func:`index_bytes`: d² entries for the pairs, d³ for
the triples of A2DE, one per attribute tuple even when an attribute has no value, as an
attribute missing in every row has). Counting needs no copy of the tables: each
thread owns whole blocks (an attribute, a pair, a triple) and reads the rows' codes, 16,384 rows
at a time, by attribute. A model whose estimate exceeds ``max_memory`` refuses to allocate, with
an error naming the cost, the attributes that drive it, and the remedies.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

#: The default budget: 1 GiB.
DEFAULT_MAX_MEMORY = 2**30

#: Bytes of the per-thread buffer of A2DE's scores (one per super-parent pair, row and class):
#: the more rows share a visit of each triple's table blocks, the fewer times they come from
#: memory (4,096 rows at most, 64 at least).
A2DE_BLOCK_BYTES = 32 * 2**20

_UNITS = {
    "": 1,
    "b": 1,
    "kb": 10**3,
    "mb": 10**6,
    "gb": 10**9,
    "tb": 10**12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "tib": 2**40,
}


class MemoryBudgetError(ValueError):
    """The statistics a model needs would exceed its ``max_memory``."""


def parse_memory(value: Any, name: str = "max_memory") -> int:
    """Bytes from a number of bytes or a string such as ``"512MiB"``, ``"2 GB"``, ``"1.5GiB"``."""
    if isinstance(value, bool):
        raise ValueError(
            f"{name} must be a number of bytes or a size such as '2GiB', got {value!r}."
        )
    if isinstance(value, (int, float, np.integer, np.floating)):
        number, unit = float(value), ""
    elif isinstance(value, str):
        match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:e[0-9]+)?)\s*([a-zA-Z]*)\s*", value)
        if match is None or match.group(2).lower() not in _UNITS:
            raise ValueError(
                f"{name} must be a number of bytes or a size such as '512MiB' or '2GB', got "
                f"{value!r}."
            )
        number, unit = float(match.group(1)), match.group(2).lower()
    else:
        raise ValueError(
            f"{name} must be a number of bytes or a size such as '2GiB', got {value!r}."
        )
    if not np.isfinite(number) or number <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r}.")
    return int(number * _UNITS[unit])


def format_bytes(n: float) -> str:
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{int(n)} B"


def pair_cells(n_values: np.ndarray) -> int:
    """Σ_{i<j} v_i v_j, exactly (Python integers: no overflow)."""
    values = [int(v) for v in n_values]
    total = sum(values)
    return (total * total - sum(v * v for v in values)) // 2


def triple_cells(n_values: np.ndarray) -> int:
    """Σ_{i<j<l} v_i v_j v_l = (S₁³ − 3 S₁ S₂ + 2 S₃) / 6 with S_p = Σ_j v_j^p."""
    values = [int(v) for v in n_values]
    s1 = sum(values)
    s2 = sum(v * v for v in values)
    s3 = sum(v**3 for v in values)
    return (s1**3 - 3 * s1 * s2 + 2 * s3) // 6


def a2de_block_rows(n_features: int, n_classes: int) -> int:
    """Rows of one block of A2DE's scoring buffer (see :data:`A2DE_BLOCK_BYTES`)."""
    pairs = max(n_features * (n_features - 1) // 2, 1)
    return int(np.clip(A2DE_BLOCK_BYTES // (8 * pairs * max(n_classes, 1)), 64, 4096))


def index_bytes(n_features: int, order: int, n_classes: int) -> int:
    """Bytes of the index tables a prediction over ``n_features`` attributes builds, whatever
    their numbers of values (exact Python integers; an upper bound of the peak).

    Pairs: the first cell of each pair's block and each pair's row (d × d int64 each), the list
    of pairs, I(X_i; X_j | C) (d × d), and the temporaries that build them. Triples (order 2): the
    first cell of each triple's block (d³ int64), the list of triples (3 per triple), the d³
    mask and temporaries that build them, and one thread's scoring buffer (a block of rows × the
    super-parent pairs × the classes)."""
    d = n_features
    pairs = d * (d - 1) // 2
    words = 3 * d * d + 6 * pairs
    if order == 2:
        triples = d * (d - 1) * (d - 2) // 6
        rows = a2de_block_rows(d, n_classes)
        words += d**3 + 9 * triples + d**3 // 8 + rows * max(pairs, 1) * (n_classes + 1)
    return 8 * words


def check_budget(
    what: str,
    needed: int,
    budget: int,
    *,
    n_values: np.ndarray,
    n_classes: int,
    names: Sequence[str] | None,
    remedies: Sequence[str],
) -> None:
    """Raise :class:`MemoryBudgetError` when ``needed`` bytes exceed ``budget``, naming the
    attributes with the most values (what drives the cost) and the remedies."""
    if needed <= budget:
        return
    order = np.argsort(-np.asarray(n_values), kind="stable")[:3]
    label = (lambda j: repr(names[j])) if names is not None else (lambda j: f"column {j}")
    largest = ", ".join(f"{label(int(j))} ({int(n_values[j]):,} values)" for j in order)
    raise MemoryBudgetError(
        f"{what} needs about {format_bytes(needed)} (K = {n_classes} classes, "
        f"{len(n_values)} attributes with Σ v_j = {int(np.sum(n_values)):,} values; the largest: "
        f"{largest}), above max_memory = {format_bytes(budget)}. Remedies: "
        + "; ".join(remedies)
        + "; or raise max_memory (--max-memory of nbayes fit)."
    )
