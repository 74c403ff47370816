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
    ``token`` (the word or word pair, or the first one seen for a hashed column), ``count``
    (n_{c,t}: the sum of class c's binary, unit-length feature values) and ``weight``, the
    complement weight w_{c,t} = −log θ̃_{c,t} that prediction adds per unit of feature (the larger,
    the more t speaks for c; see :mod:`nbayes.families.text`), for the tokens seen in fitting.
``text-multinomial``
    ``token``, ``count`` (N(t, c), raw token counts) and ``probability``
    (P(t | c) = (λ + N(t, c)) / (λ|V| + Σ_t' N(t', c))), for the tokens seen in fitting.

The numbers are read from the model's statistics through the same code that prediction uses, so a
table can never disagree with the model's decisions.
"""

from __future__ import annotations

from typing import Any

from .families._tidy import column_log_likelihood

#: The columns of each family's table, after ``feature`` and ``class``.
COLUMNS: dict[str, tuple[str, ...]] = {
    "categorical": ("value", "count", "probability"),
    "gaussian": ("count", "mean", "sd"),
    "poisson": ("count", "total", "rate"),
    "intervals": ("interval", "lower", "upper", "count", "probability"),
    "kde": ("x", "density", "bandwidth"),
    "text": ("token", "count", "weight"),
    "text-multinomial": ("token", "count", "probability"),
}

INTERVAL_FAMILIES = ("equal-width", "equal-frequency", "mdl")


def table_kind(family: str) -> str:
    """The key of :data:`COLUMNS` for a family name (the interval methods share one layout)."""
    return "intervals" if family in INTERVAL_FAMILIES else family


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
    if not isinstance(grid, int) or isinstance(grid, bool) or grid < 2:
        raise ValueError(f"grid must be an integer >= 2, got {grid!r}.")
    names = [s.name for s in model.schema_]
    if columns is not None:
        if isinstance(columns, str):
            columns = [columns]
        unknown = [c for c in columns if c not in names]
        if unknown:
            raise ValueError(f"columns names features the model does not have: {unknown}.")
    wanted = set(names if columns is None else columns)
    settings = model._settings()
    found: dict[str, Any] = {}
    for group in model._stats.groups:
        if wanted.intersection(group.names):
            found.update(group.tables(model.classes_, settings, grid=grid))
    # a left-out column (family "ignore") has no table
    ordered = {name: found[name] for name in names if name in wanted and name in found}
    if to == "pandas":
        return {name: frame.to_pandas() for name, frame in ordered.items()}
    return ordered


__all__ = ["COLUMNS", "column_log_likelihood", "conditional_tables", "table_kind"]
