"""One panel per feature: its class-conditional distribution P(x_j | c), one colour per class
(as R's ``plot(naive_bayes_model)`` draws them).

* categorical columns: bars of P(value | c), grouped by value (the 20 values most probable in
  some class when there are more);
* Gaussian columns: the density curves N(x; μ_c, σ_c²) over μ ± 4σ of every class;
* kernel-density columns: the estimated densities on the grid of
  :func:`nbayes.conditionals.conditional_tables`;
* interval columns (equal-width, equal-frequency, MDL): a step function, the probability of each
  interval, drawn between its cut points (the two open-ended intervals are drawn one mean
  interval width wide);
* Poisson columns: P(x = k | c) at k = 0, 1, …;
* text columns: P(word | c) of the words most probable in any class (the complement weight
  w(word, c) for the ``"text"`` family, whose model is complement naive Bayes).

Every curve is evaluated by the model's own likelihood code, so the panels show exactly the
densities that decide its predictions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from ..conditionals import column_log_likelihood, table_kind
from ._common import pyplot


def _group_of(model: Any, name: str) -> tuple[Any, int, Any]:
    """The group that models column ``name``, its index there and the settings it reads: for a
    column whose family is chosen from the data, the group of the chosen family (its
    P(x_j | c) alone, without the chosen-family group's missing-value terms)."""
    from ..families.auto import AutoColumns

    settings = model._settings()
    for group in model._stats.groups:
        if name in group.names:
            j = group.names.index(name)
            if isinstance(group, AutoColumns):
                for view, columns in group.views(settings):
                    if j in columns:
                        return view, columns.index(j), group.view_settings(settings)
            return group, j, settings
    raise ValueError(f"the model has no feature {name!r}.")  # pragma: no cover


def _evaluate(model: Any, name: str, xs: np.ndarray) -> np.ndarray:
    """P(x_j = x | c) (a density, or a probability for counts) at each x, shape (len(xs), K)."""
    group, j, settings = _group_of(model, name)
    with np.errstate(under="ignore"):
        return np.exp(column_log_likelihood(group, j, xs, settings))


def _long(name: str, classes: np.ndarray, xs: np.ndarray, values: np.ndarray) -> pl.DataFrame:
    k = len(classes)
    return pl.DataFrame(
        {
            "feature": [name] * (k * len(xs)),
            "class": np.repeat(classes, len(xs)).tolist(),
            "x": np.tile(xs, k),
            "density": values.T.reshape(-1),
        },
        strict=False,
    )


def _categorical(
    ax: Any, name: str, table: pl.DataFrame, classes: np.ndarray, most: int = 20
) -> pl.DataFrame:
    values = table.filter(pl.col("class") == classes[0]).get_column("value").to_list()
    probability = table.get_column("probability").to_numpy().reshape(len(classes), len(values))
    shown = range(len(values))
    if len(values) > most:  # the values most probable in some class
        shown = np.argsort(-probability.max(axis=0), kind="stable")[:most]
        ax.set_title(f"{name} ({most} of {len(values)} values)", fontsize="medium")
    order = sorted(shown, key=lambda i: str(values[i]))
    width = 0.8 / len(classes)
    for k, c in enumerate(classes):
        ax.bar(
            np.arange(len(order)) + (k - (len(classes) - 1) / 2) * width,
            probability[k, order],
            width,
            color=f"C{k}",
            label=str(c),
        )
    ax.set_xticks(
        range(len(order)),
        [str(values[i]) for i in order],
        rotation=45 if len(order) > 5 else 0,
        fontsize="small",
    )
    ax.set_ylabel(f"P({name} | c)")
    kept = [values[i] for i in order]
    return table.filter(pl.col("value").is_in(kept)).select(
        "feature", "class", "value", "probability"
    )


def _curve(ax: Any, name: str, data: pl.DataFrame, classes: np.ndarray, label: str) -> None:
    for k, c in enumerate(classes):
        part = data.filter(pl.col("class") == c)
        ax.plot(
            part.get_column("x").to_numpy(),
            part.get_column("density").to_numpy(),
            color=f"C{k}",
            label=str(c),
        )
    ax.set_ylabel(label)
    ax.set_xlabel(name)


def _gaussian(
    model: Any, ax: Any, name: str, table: pl.DataFrame, classes: np.ndarray, grid: int
) -> pl.DataFrame:
    mean, sd = table.get_column("mean").to_numpy(), table.get_column("sd").to_numpy()
    low, high = float(np.min(mean - 4 * sd)), float(np.max(mean + 4 * sd))
    if not high > low:
        low, high = low - 1.0, high + 1.0
    xs = np.linspace(low, high, grid)
    data = _long(name, classes, xs, _evaluate(model, name, xs))
    _curve(ax, name, data, classes, f"p({name} | c)")
    return data


def _kde(ax: Any, name: str, table: pl.DataFrame, classes: np.ndarray) -> pl.DataFrame:
    data = table.select("feature", "class", "x", "density")
    _curve(ax, name, data, classes, f"p({name} | c)")
    return data


def _poisson(
    model: Any, ax: Any, name: str, table: pl.DataFrame, classes: np.ndarray
) -> pl.DataFrame:
    rate = table.get_column("rate").to_numpy()
    top = math.ceil(float(rate.max()) + 4 * math.sqrt(float(rate.max())) + 1)
    ks = np.arange(top + 1, dtype=np.float64)
    data = _long(name, classes, ks, _evaluate(model, name, ks))
    for k, c in enumerate(classes):
        part = data.filter(pl.col("class") == c)
        ax.plot(
            part.get_column("x").to_numpy(),
            part.get_column("density").to_numpy(),
            marker="o",
            markersize=3,
            linestyle="-",
            linewidth=0.8,
            color=f"C{k}",
            label=str(c),
        )
    ax.set_ylabel(f"P({name} = k | c)")
    ax.set_xlabel(name)
    return data


def _intervals(ax: Any, name: str, table: pl.DataFrame, classes: np.ndarray) -> pl.DataFrame:
    first = table.filter(pl.col("class") == classes[0])
    cuts = first.get_column("upper").to_numpy()[:-1]
    if cuts.size == 0:
        edges = np.array([0.0, 1.0])
    else:
        width = float(np.mean(np.diff(cuts))) if cuts.size > 1 else max(abs(cuts[0]), 1.0)
        edges = np.r_[cuts[0] - width, cuts, cuts[-1] + width]
    rows = []
    for k, c in enumerate(classes):
        p = table.filter(pl.col("class") == c).get_column("probability").to_numpy()
        ax.stairs(p, edges, color=f"C{k}", label=str(c), linewidth=1.5)
        rows.append(
            pl.DataFrame(
                {
                    "feature": [name] * len(p),
                    "class": [c] * len(p),
                    "left": edges[:-1],
                    "right": edges[1:],
                    "probability": p,
                },
                strict=False,
            )
        )
    ax.set_ylabel(f"P({name} in interval | c)")
    ax.set_xlabel(name)
    return pl.concat(rows)


def _text(
    ax: Any, name: str, table: pl.DataFrame, classes: np.ndarray, words: int = 10
) -> pl.DataFrame:
    value = "probability" if "probability" in table.columns else "weight"
    best = (
        table.group_by("token")
        .agg(pl.col(value).max().alias("top"))
        .sort(["top", "token"], descending=[True, False])
        .head(words)
        .get_column("token")
        .to_list()
    )
    shown = table.filter(pl.col("token").is_in(best))
    height = 0.8 / len(classes)
    for k, c in enumerate(classes):
        part = shown.filter(pl.col("class") == c)
        p = dict(
            zip(
                part.get_column("token").to_list(),
                part.get_column(value).to_list(),
                strict=True,
            )
        )
        ax.barh(
            np.arange(len(best)) + (k - (len(classes) - 1) / 2) * height,
            [p[t] for t in best],
            height,
            color=f"C{k}",
            label=str(c),
        )
    ax.set_yticks(range(len(best)), best, fontsize="small")
    ax.invert_yaxis()
    label = "P(word | c)" if value == "probability" else "complement weight w(word, c)"
    ax.set_xlabel(f"{label} in {name}")
    return shown.select("feature", "class", "token", value)


@dataclass
class FeaturesDisplay:
    """Drawn class-conditional panels: ``data`` (feature → the Polars frame of what its panel
    plots: categorical ``value, probability``; Gaussian, kernel and Poisson ``x, density``;
    intervals ``left, right, probability``; text ``token, probability``; each with ``feature``
    and ``class``), ``families`` (feature → family), the matplotlib ``figure`` and ``axes``
    (feature → its axes)."""

    data: dict[str, pl.DataFrame]
    families: dict[str, str]
    figure: Any
    axes: dict[str, Any]

    @classmethod
    def from_estimator(
        cls,
        model: Any,
        columns: list[str] | None = None,
        *,
        n_cols: int = 3,
        grid: int = 200,
        panel_size: tuple[float, float] = (4.0, 3.0),
    ) -> FeaturesDisplay:
        """Draw one panel per feature of a fitted :class:`~nbayes.NaiveBayes` (or of the
        features named in ``columns``)."""
        tables = model.tables(columns, grid=grid)
        families = {n: f for n, f in model.families_.items() if n in tables}
        classes = np.asarray(model.classes_)
        n = len(tables)
        if n == 0:
            raise ValueError("the model has no features to plot.")
        n_cols = max(1, min(n_cols, n))
        n_rows = math.ceil(n / n_cols)
        figure, grid_axes = pyplot().subplots(
            n_rows,
            n_cols,
            figsize=(panel_size[0] * n_cols, panel_size[1] * n_rows),
            layout="constrained",
            squeeze=False,
        )
        data, axes = {}, {}
        for i, (name, table) in enumerate(tables.items()):
            ax = grid_axes[i // n_cols][i % n_cols]
            family = families[name]
            kind = table_kind(family)
            if kind == "categorical":
                data[name] = _categorical(ax, name, table, classes)
            elif kind == "gaussian":
                data[name] = _gaussian(model, ax, name, table, classes, grid)
            elif kind == "kde":
                data[name] = _kde(ax, name, table, classes)
            elif kind == "poisson":
                data[name] = _poisson(model, ax, name, table, classes)
            elif kind == "intervals":
                data[name] = _intervals(ax, name, table, classes)
            else:
                data[name] = _text(ax, name, table, classes)
            if not ax.get_title():
                ax.set_title(f"{name} ({family})", fontsize="medium")
            axes[name] = ax
        for i in range(n, n_rows * n_cols):
            grid_axes[i // n_cols][i % n_cols].set_visible(False)
        handles, labels = next(iter(axes.values())).get_legend_handles_labels()
        figure.legend(handles, labels, loc="outside right upper", title="class")
        return cls(data, families, figure, axes)


def plot_features(model: Any, columns: list[str] | None = None, **options: Any) -> FeaturesDisplay:
    """:meth:`FeaturesDisplay.from_estimator`."""
    return FeaturesDisplay.from_estimator(model, columns, **options)
