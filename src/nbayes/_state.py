"""Names of the arrays in a model file: one helper builds them and one parses them.

A model's arrays are a flat ``{name: array}`` mapping (safetensors). A part of a model (a column
group, the statistics of an inner model, a vectorizer) keeps its own names, and the model nests
them under a prefix: ``nest("g0", {"counts": a})`` → ``{"g0.counts": a}``, and
``section("g0", arrays)`` gives back ``{"counts": a}``.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

SEPARATOR = "."


def nest(prefix: str, arrays: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``arrays`` with every name put under ``prefix``."""
    if not prefix or SEPARATOR in prefix:
        raise ValueError(f"an array prefix is one non-empty name without {SEPARATOR!r}: {prefix!r}")
    return {f"{prefix}{SEPARATOR}{name}": array for name, array in arrays.items()}


def section(prefix: str, arrays: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The arrays named under ``prefix``, with the prefix taken off their names."""
    head = f"{prefix}{SEPARATOR}"
    return {name[len(head) :]: array for name, array in arrays.items() if name.startswith(head)}


def outside(prefix: str, arrays: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The arrays not named under ``prefix``."""
    head = f"{prefix}{SEPARATOR}"
    return {name: array for name, array in arrays.items() if not name.startswith(head)}
