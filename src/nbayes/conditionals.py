"""A fitted :class:`~nbayes.NaiveBayes`'s class-conditional distributions as tidy tables.

``conditional_tables(model)`` returns one frame per feature (a Polars ``DataFrame``, or pandas
with ``to="pandas"``), one row per (class, value) — long ("tidy") form, ready to filter, join or
plot. Every frame has the columns ``feature`` and ``class``; the others depend on the column's
family, and are exactly the quantities prediction uses:

``categorical``
    ``value`` (the category, in the column's own type), ``count`` (n_{c,v}: the weight of class c's
    training rows with that value) and ``probability``, the Lidstone estimate
    P_λ(v | c) = (n_{c,v} + λ) / (N_c + S λ), with N_c = Σ_v n_{c,v} over c's observed values and
    S the number of distinct values seen.
``gaussian``
    ``count`` (N_c: weight of c's observed values), ``mean`` (μ_c) and ``sd`` (√(σ²_c + ε), the
    standard deviation of the density used, ε being the variance smoothing).
``poisson``
    ``count`` (N_c), ``total`` (Σ x over class c's rows) and ``rate``,
    λ_c = (Σ x + α) / (N_c + α).
``equal-width``, ``equal-frequency``, ``mdl`` (intervals)
    ``interval`` (0, 1, …, B − 1), ``lower`` and ``upper`` (the interval is lower < x ≤ upper;
    ±inf at the ends), ``count`` and ``probability`` as for a categorical column over the B
    intervals.
``kde``
    ``x`` (a grid of ``grid`` points spanning the training values and three bandwidths either
    side), ``density`` (the class-conditional kernel density p(x | c) at x) and ``bandwidth``.
``text``
    ``token`` (the word, or the first word seen for a hashed column), ``count`` (N(t, c)) and
    ``probability`` (P(t | c) = (λ + N(t, c)) / (λ|V| + Σ_t' N(t', c))), for the tokens seen in
    fitting.

The numbers are read from the model's statistics through the same code that prediction uses, so a
table can never disagree with the model's decisions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import polars as pl

#: The columns of each family's table, after ``feature`` and ``class``.
COLUMNS: dict[str, tuple[str, ...]] = {
    "categorical": ("value", "count", "probability"),
    "gaussian": ("count", "mean", "sd"),
    "poisson": ("count", "total", "rate"),
    "intervals": ("interval", "lower", "upper", "count", "probability"),
    "kde": ("x", "density", "bandwidth"),
    "text": ("token", "count", "probability"),
}

INTERVAL_FAMILIES = ("equal-width", "equal-frequency", "mdl")


def table_kind(family: str) -> str:
    """The key of :data:`COLUMNS` for a family name (the interval methods share one layout)."""
    return "intervals" if family in INTERVAL_FAMILIES else family


def column_log_likelihood(group: Any, j: int, values: np.ndarray, settings: Any) -> np.ndarray:
    """log P(x_j = v | c) for each value v of column j of a group, shape (len(values), K): the
    group's own log-likelihood with every other column missing."""
    block = np.full((len(values), len(group.names)), np.nan)
    block[:, j] = values
    return group.log_likelihood(block, settings)


def _frame(
    name: str,
    classes: np.ndarray,
    rows: int,
    shared: dict[str, Any] | None = None,
    per_class: dict[str, np.ndarray] | None = None,
) -> pl.DataFrame:
    """A tidy frame of K × ``rows`` rows, class by class: ``shared`` columns hold ``rows``
    values repeated for every class, ``per_class`` columns are (K, rows) arrays."""
    k = len(classes)
    data: dict[str, Any] = {
        "feature": [name] * (k * rows),
        "class": np.repeat(np.asarray(classes), rows).tolist(),
    }
    for key, values in (shared or {}).items():
        data[key] = list(values) * k
    for key, array in (per_class or {}).items():
        array = np.asarray(array, dtype=np.float64)
        if array.shape != (k, rows):
            raise AssertionError(f"{key}: shape {array.shape}, expected {(k, rows)}")
        data[key] = array.reshape(k * rows)
    return pl.DataFrame(data, strict=False)


def _categorical(group: Any, classes: np.ndarray, settings: Any) -> dict[str, pl.DataFrame]:
    table, _ = group.stats.log_prob(settings.alpha_for(group.names))
    offsets = group.stats.offsets
    out = {}
    for j, name in enumerate(group.names):
        size = int(group.stats.n_categories[j])
        columns = slice(offsets[j], offsets[j] + size)
        frame = _frame(
            name,
            classes,
            size,
            shared={"value": group.vocabularies[j]},
            per_class={
                "count": group.stats.counts[:, columns],
                "probability": np.exp(table[columns]).T,
            },
        )
        out[name] = frame.with_columns(pl.col("value").cast(group.dtypes[j]))
    return out


def _gaussian(group: Any, classes: np.ndarray, settings: Any) -> dict[str, pl.DataFrame]:
    theta, var = group.stats.theta_var(settings.var_smoothing)
    return {
        name: _frame(
            name,
            classes,
            1,
            per_class={
                "count": group.stats.weight[:, j, None],
                "mean": theta[:, j, None],
                "sd": np.sqrt(var[:, j, None]),
            },
        )
        for j, name in enumerate(group.names)
    }


def _poisson(group: Any, classes: np.ndarray, settings: Any) -> dict[str, pl.DataFrame]:
    from .families import poisson

    rate = poisson.rates(group.stats, np.zeros(0), settings.alpha_for(group.names))
    return {
        name: _frame(
            name,
            classes,
            1,
            per_class={
                "count": group.stats.observed[:, j, None],
                "total": group.stats.counts[:, j, None],
                "rate": rate[:, j, None],
            },
        )
        for j, name in enumerate(group.names)
    }


def _intervals(group: Any, classes: np.ndarray, settings: Any) -> dict[str, pl.DataFrame]:
    counts = group.counts(settings)
    table, _ = counts.log_prob(settings.alpha_for(group.names))
    out = {}
    for j, (name, cuts) in enumerate(zip(group.names, group.cuts(settings), strict=True)):
        size = len(cuts) + 1
        columns = slice(counts.offsets[j], counts.offsets[j] + size)
        out[name] = _frame(
            name,
            classes,
            size,
            shared={
                "interval": range(size),
                "lower": [-np.inf, *cuts.tolist()],
                "upper": [*cuts.tolist(), np.inf],
            },
            per_class={
                "count": counts.counts[:, columns],
                "probability": np.exp(table[columns]).T,
            },
        )
    return out


def _kde(
    group: Any, classes: np.ndarray, settings: Any, grid: int = 200
) -> dict[str, pl.DataFrame]:
    out = {}
    for j, (name, density) in enumerate(zip(group.names, group.densities(settings), strict=True)):
        sketch = group.stats.features[j]
        low, high = (sketch.minimum, sketch.maximum) if np.isfinite(sketch.minimum) else (0, 1)
        margin = 3 * float(np.max(density.bandwidth, initial=0.0))
        xs = np.linspace(low - margin, high + margin, grid)
        with np.errstate(under="ignore"):
            values = np.exp(column_log_likelihood(group, j, xs, settings)).T
        out[name] = _frame(
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


def _text(group: Any, classes: np.ndarray, settings: Any) -> dict[str, pl.DataFrame]:
    from .families import multinomial

    alpha = settings.alpha_for(group.names)
    alpha = float(alpha if np.ndim(alpha) == 0 else alpha[0])
    table = multinomial.log_prob(group.stats, alpha)  # (K, V)
    seen = np.flatnonzero(group.stats.counts.sum(axis=0) > 0)
    name = group.names[0]
    return {
        name: _frame(
            name,
            classes,
            len(seen),
            shared={"token": group.vectorizer.column_names(seen)},
            per_class={
                "count": group.stats.counts[:, seen],
                "probability": np.exp(table[:, seen]),
            },
        )
    }


#: family → the function that tabulates a column group of that family.
TABULATORS: dict[str, Callable[..., dict[str, pl.DataFrame]]] = {
    "categorical": _categorical,
    "gaussian": _gaussian,
    "poisson": _poisson,
    "intervals": _intervals,
    "kde": _kde,
    "text": _text,
}


def conditional_tables(
    model: Any, columns: list[str] | None = None, *, grid: int = 200, to: str = "polars"
) -> dict[str, Any]:
    """The fitted P(x_j | c) of every feature (or of ``columns``) as tidy frames, by name, in
    the model's column order. ``to="pandas"`` returns pandas frames; ``grid`` is the number of
    points a kernel density is evaluated at. See the module docstring for each family's columns.
    """
    model._check_fitted()
    if to not in ("polars", "pandas"):
        raise ValueError(f"to must be 'polars' or 'pandas', got {to!r}.")
    if not isinstance(grid, int) or grid < 2:
        raise ValueError(f"grid must be an integer >= 2, got {grid!r}.")
    names = [s.name for s in model.schema_]
    if columns is not None:
        unknown = [c for c in columns if c not in names]
        if unknown:
            raise ValueError(f"columns names features the model does not have: {unknown}.")
    wanted = set(names if columns is None else columns)
    settings = model._settings()
    found: dict[str, pl.DataFrame] = {}
    for group in model._stats.groups:
        if not wanted.intersection(group.names):
            continue
        tabulate = TABULATORS[table_kind(group.family)]
        extra = {"grid": grid} if group.family == "kde" else {}
        found.update(tabulate(group, model.classes_, settings, **extra))
    ordered = {name: found[name] for name in names if name in wanted}
    if to == "pandas":
        return {name: frame.to_pandas() for name, frame in ordered.items()}
    return ordered


__all__ = ["COLUMNS", "conditional_tables", "table_kind"]
