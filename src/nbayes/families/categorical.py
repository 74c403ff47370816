"""Categorical columns of a table model: their column group (``CategoricalColumns``), which
codes each column's values (:class:`nbayes.encoding.CategoricalEncoder`), counts them
(:class:`~nbayes.families.category_counts.CategoricalCounts`, where the Lidstone estimate
P_λ(X^(j) = a_jl | Y = c) = (n_{c,j,l} + λ) / (N_{c,j} + S_j λ) is written out), chooses each
column's λ and the meaning of its missing values from the data (``alpha="auto"``,
``missing="auto"``: :mod:`nbayes.families._selection`), and gives its ``tables()``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ._group import ColumnGroup, Settings, format_table, zero_round_off
from ._registry import Family, register
from ._tidy import tidy_frame
from .category_counts import CategoricalCounts

if TYPE_CHECKING:  # Polars comes with the table models, not with the estimators
    import polars as pl

# ---------------------------------------------------------------------- table columns
class CategoricalColumns(ColumnGroup):
    """Categorical columns of a table: counting, values of any type, each column with its own
    vocabulary (kept by a :class:`~nbayes.encoding.CategoricalEncoder`).

    Missing values: besides the counts, the group keeps each class's weight of missing values
    per column, M_{c,j} (and the number of rows), so that a column's missing values can be
    skipped (missing at random: N_{c,j} counts observed values only) or be one more value,

        P(missing | c) = (M_{c,j} + λ) / (N_{c,j} + M_{c,j} + (S_j + 1) λ),

    the observed values' denominators growing alike. Settings' ``missing`` chooses: "skip",
    "category", or "auto" — per column, the larger leave-one-out conditional log-likelihood of
    the class given the column (:mod:`nbayes.families._selection`), computed from these counts,
    so it merges like them; a category must win by Bonferroni's bar over the group's columns
    that have missing values (one standard error for the group, not for each column).

    λ: the settings' (``alpha=`` a number or {column: λ}), or with ``alpha="auto"`` each
    column's own, chosen from the same counts by the same criterion among 1, 1/2, …, 1/16 (the
    best, where it beats λ = 1 by Bonferroni's bar over the group's columns, as for missing
    values; :meth:`alpha_choices`), missing values skipped; the missing-value choice then uses
    it.
    """

    family = "categorical"

    def __init__(
        self,
        names: list[str],
        n_classes: int,
        *,
        family: str = "categorical",
        dtypes: list[pl.DataType] | None = None,
        max_bins: int = 2048,
    ) -> None:
        import polars as pl

        from ..encoding import CategoricalEncoder

        super().__init__(names, n_classes, family=family)
        self.encoder = CategoricalEncoder(self.names, list(dtypes or [pl.String] * len(names)))
        self.stats = CategoricalCounts(n_classes, len(names))
        self.missing = np.zeros((n_classes, len(names)))  # M_{c,j}
        self.rows = np.zeros(1)  # rows seen (unweighted): the mean row weight is Σ w / rows

    @property
    def dtypes(self) -> list[pl.DataType]:
        return self.encoder.dtypes

    @property
    def vocabularies(self) -> list[list[Any]]:
        return self.encoder.vocabularies

    def unseen_counts(self, block: np.ndarray, settings: Settings | None = None) -> dict[str, int]:
        return self.encoder.unseen_counts(block)

    def accumulate(self, block: np.ndarray, cls: np.ndarray, weight: np.ndarray) -> None:
        absent = np.isnan(block)
        for j in np.flatnonzero(absent.any(axis=0)):
            self.missing[:, j] += np.bincount(
                cls[absent[:, j]], weights=weight[absent[:, j]], minlength=self.missing.shape[0]
            )
        self.rows += block.shape[0]
        # every code of a fitting batch is below its vocabulary's size: grow to that, no scan
        self.stats.grow(self.encoder.sizes())
        self.stats.accumulate(block, cls, weight, sized=True)

    def reindex_classes(self, positions: np.ndarray, n_classes: int) -> None:
        missing = np.zeros((n_classes, self.missing.shape[1]))
        missing[positions] = self.missing
        self.missing = missing
        self.stats.reindex_classes(positions, n_classes)

    def merge(self, other: CategoricalColumns, positions: np.ndarray) -> None:
        """Add ``other``'s counts, translating its category codes into this group's."""
        self.missing[positions] += other.missing
        self.rows += other.rows
        mappings = self.encoder.absorb(other.encoder)
        remapped = CategoricalCounts(other.stats.counts.shape[0], len(self.names))
        sizes = self.encoder.sizes()
        self.stats.grow(sizes)
        remapped.grow(sizes)
        offsets, other_offsets = remapped.offsets, other.stats.offsets
        for j, mapping in enumerate(mappings):
            used = min(mapping.shape[0], int(other.stats.n_categories[j]))
            remapped.counts[:, offsets[j] + mapping[:used]] = other.stats.counts[
                :, other_offsets[j] : other_offsets[j] + used
            ]
        self.stats.merge(remapped, positions)

    # ------------------------------------------------------------------ λ
    def alphas(self, settings: Settings) -> float | np.ndarray:
        """λ of each column: the settings' (``alpha_for``), or with ``alpha="auto"`` each
        column's choice (:meth:`alpha_choices`)."""
        if not settings.choose_alpha:
            return settings.alpha_for(self.names)
        return np.array([alpha for alpha, _ in self.alpha_choices()])

    def remove(self, block: np.ndarray, cls: np.ndarray, weight: np.ndarray) -> None:
        absent = np.isnan(block)
        self.missing = self.missing.copy()  # a held-out copy shares the rest with its model
        for j in np.flatnonzero(absent.any(axis=0)):
            self.missing[:, j] -= np.bincount(
                cls[absent[:, j]], weights=weight[absent[:, j]], minlength=self.missing.shape[0]
            )
        before = self.stats.counts.copy()
        self.stats.accumulate(block, cls, -weight, sized=True)
        zero_round_off(self.stats.counts, before)
        np.maximum(self.stats.counts, 0.0, out=self.stats.counts)
        np.maximum(self.missing, 0.0, out=self.missing)

    def frozen_choices(self, settings: Settings) -> dict:
        self.missing_choices(settings)  # computed (λ first, where chosen) and cached
        return {
            key: value
            for key, value in self.stats._cache.items()
            if key == "alpha-choices" or (isinstance(key, tuple) and key[0] == "missing-choices")
        }

    def alpha_choices(self) -> list[tuple[float, float]]:
        """Per column, (λ, the leave-one-out gain per row of that λ over λ = 1): the λ of
        ``ALPHAS`` with the largest leave-one-out conditional log-likelihood of the class given
        the column, missing values skipped, where it beats λ = 1 by Bonferroni's bar over the
        group's observed columns (:func:`nbayes.families._selection.choose_alpha`); derived
        from the counts, so it merges like them."""
        cached = self.stats._cache.get("alpha-choices")
        if cached is None:
            from . import _selection

            observed = self.stats.observed_per_feature().sum(axis=0) > 0
            bar = _selection.group_standard_errors(int(observed.sum()))
            cached = [self._alpha_choice(j, bar) for j in range(len(self.names))]
            self.stats._cache["alpha-choices"] = cached
        return cached

    def _alpha_choice(self, j: int, bar: float) -> tuple[float, float]:
        from . import _selection

        table = self.stats.category_count(j).T  # (S, K)
        totals = table.sum(axis=0) + self.missing[:, j]
        if table.sum() <= 0:
            return (1.0, 0.0)
        row_weight = _selection.one_row(totals.sum(), self.rows[0])
        delta = _selection.removed_weight(table, row_weight)
        codes = np.arange(table.shape[0])

        def cells(alpha: float) -> np.ndarray:
            full, own = _selection.counted(table, codes, delta, alpha)
            return _selection.scores(full, own, delta, totals)

        return _selection.choose_alpha(cells, table, row_weight, bar)

    # ------------------------------------------------------------------ missing values
    def missing_choices(self, settings: Settings) -> list[tuple[str, float]]:
        """Per column: ("skip" or "category", the leave-one-out gain per row of a missing
        category over skipping; NaN when the column has no missing value)."""
        modes = settings.missing_for(self.names)
        alpha = np.broadcast_to(self.alphas(settings), (len(self.names),))
        key = ("missing-choices", tuple(modes), alpha.tobytes())
        cached = self.stats._cache.get(key)
        if cached is None:
            from . import _selection

            bar = _selection.missing_bar(modes, self.missing)
            # most columns of a wide table miss nothing: one test for all of them
            has_missing = (self.missing.sum(axis=0) > 0).tolist()
            cached = [
                self._missing_choice(j, modes[j], float(alpha[j]), bar)
                if has_missing[j]
                else ("skip", float("nan"))
                for j in range(len(modes))
            ]
            self.stats._cache[key] = cached
        return cached

    def _missing_choice(self, j: int, mode: str, alpha: float, bar: float) -> tuple[str, float]:
        from . import _selection

        missing = self.missing[:, j]
        if missing.sum() <= 0:
            return ("skip", float("nan"))
        table = self.stats.category_count(j).T  # (S, K)
        totals = table.sum(axis=0) + missing
        row_weight = _selection.one_row(totals.sum(), self.rows[0])
        # every row's score, the rows missing this column as the last "value"
        extended = np.vstack([table, missing])
        delta = _selection.removed_weight(extended, row_weight)
        codes = np.arange(extended.shape[0])
        full, own = _selection.counted(table, codes[:-1], delta[:-1], alpha)
        skipped = np.vstack(
            [
                _selection.scores(full, own, delta[:-1], totals),
                _selection.missing_scores(missing, totals, row_weight),
            ]
        )
        full, own = _selection.counted(extended, codes, delta, alpha)
        category = _selection.scores(full, own, delta, totals)
        gain, error = _selection.margin(category, skipped, extended, row_weight)
        rows = totals.sum() / row_weight
        if mode == "auto":
            mode = "category" if _selection.beats(gain, error, rows, bar) else "skip"
        return (mode, float(gain / rows))

    def _with_missing(self, settings: Settings) -> tuple[CategoricalCounts, list[int]]:
        """The counts with one more value, "missing", in the columns that count it, and those
        columns."""
        choices = self.missing_choices(settings)
        columns = [j for j, (mode, _) in enumerate(choices) if mode == "category"]
        if not columns:
            return self.stats, columns
        key = ("with-missing", tuple(columns))
        cached = self.stats._cache.get(key)
        if cached is None:
            counts = CategoricalCounts(self.missing.shape[0], len(self.names))
            counts.grow(self.stats.n_categories)
            counts.counts = self.stats.counts.copy()
            sizes = self.stats.n_categories.copy()
            sizes[columns] += 1
            counts.grow(sizes)
            for j in columns:
                counts.counts[:, counts.offsets[j + 1] - 1] = self.missing[:, j]
            cached = counts
            self.stats._cache[key] = cached
        return cached, columns

    def log_likelihood(
        self, block: np.ndarray, settings: Settings, *, missing_terms: bool = True
    ) -> np.ndarray:
        mode = "smooth" if settings.unknown == "smooth" else "ignore"
        counts, columns = self._with_missing(settings)
        if columns and missing_terms:
            block = block.copy()
            for j in columns:  # a missing value is the extra value S_j
                block[np.isnan(block[:, j]), j] = self.stats.n_categories[j]
        return counts.log_likelihood(block, self.alphas(settings), mode)[0]

    def missing_terms(self, settings: Settings) -> np.ndarray | None:
        counts, columns = self._with_missing(settings)
        if not columns:
            return None
        mode = "smooth" if settings.unknown == "smooth" else "ignore"
        alpha = self.alphas(settings)
        out = np.full((len(self.names), counts.counts.shape[0]), np.nan)
        for j in columns:  # the extra value S_j alone: log P(missing | c)
            row = np.full((1, len(self.names)), np.nan)
            row[0, j] = self.stats.n_categories[j]
            out[j] = counts.log_likelihood(row, alpha, mode)[0][0]
        return out

    def display(self, j: int, value: float) -> str:
        return self.encoder.display(j, value)

    def check(self, n_classes: int) -> None:
        super().check(n_classes)
        if self.encoder.sizes().tolist() != self.stats.n_categories.tolist():
            raise ValueError("category vocabularies do not match the counts.")
        if self.missing.shape != (n_classes, len(self.names)) or np.any(self.missing < 0):
            raise ValueError("missing weights must be (classes, columns) values >= 0.")
        if self.rows.shape != (1,) or self.rows[0] < 0:
            raise ValueError("rows must be one count >= 0.")

    def state(self) -> dict[str, np.ndarray]:
        return {**self.stats.state(), "missing": self.missing, "rows": self.rows}

    def load_state(self, state: dict[str, np.ndarray], meta: dict) -> None:
        super().load_state(state, meta)
        # files written before missing values were counted: none counted, so all are skipped
        n_classes = self.stats.counts.shape[0]
        self.missing = np.asarray(
            state.get("missing", np.zeros((n_classes, len(self.names)))), dtype=np.float64
        )
        self.rows = np.asarray(state.get("rows", np.zeros(1)), dtype=np.float64).reshape(-1)

    def missing_reason(self, j: int, settings: Settings) -> str:
        """How column j's missing values are treated, and why, in words."""
        mode, gain = self.missing_choices(settings)[j]
        if gain != gain:
            return "no missing values in fitting"
        verb = "a category" if mode == "category" else "skipped"
        how = "chosen" if settings.missing_for(self.names)[j] == "auto" else "as set"
        return (
            f"missing values {verb} ({how}; leave-one-out log P(class | column) per row "
            f"{gain:+.4f} as a category)"
        )

    def describe(self, classes: np.ndarray, settings: Settings) -> str:
        counts, columns = self._with_missing(settings)
        table, _ = counts.log_prob(self.alphas(settings))
        offsets = counts.offsets
        parts = []
        for j, name in enumerate(self.names):
            values = self.vocabularies[j]
            order = sorted(range(len(values)), key=lambda i: _in_order(values[i]))
            labels = [str(values[i]) for i in order]
            if j in columns:
                order.append(len(values))
                labels.append("(missing)")
            rows = [np.exp(table[offsets[j] + i]).tolist() for i in order]
            lam = self.alphas(settings)
            lam = lam if np.ndim(lam) == 0 else lam[j]
            head = f"{name}  (categorical, P(value | class), λ = {lam:g}"
            head += ", chosen from the data)" if settings.choose_alpha else ")"
            if self.missing[:, j].sum() > 0:
                head += f"\n  {self.missing_reason(j, settings)}"
            parts.append(head + "\n" + format_table(labels, classes, rows))
        return "\n\n".join(parts)

    def tables(
        self, classes: np.ndarray, settings: Settings, *, grid: int = 200
    ) -> dict[str, pl.DataFrame]:
        """value, count n_{c,v}, probability P_λ(v | c); values in the order first seen, then
        (where missing values are a category of their own) a null value for them: the numbers
        prediction uses."""
        import polars as pl

        counts, missing_as_value = self._with_missing(settings)
        table, _ = counts.log_prob(self.alphas(settings))
        offsets = counts.offsets
        out = {}
        for j, name in enumerate(self.names):
            size = int(counts.n_categories[j])
            columns = slice(offsets[j], offsets[j] + size)
            values = list(self.vocabularies[j])
            if j in missing_as_value:
                values.append(None)
            frame = tidy_frame(
                name,
                classes,
                size,
                shared={"value": values},
                per_class={
                    "count": counts.counts[:, columns],
                    "probability": np.exp(table[columns]).T,
                },
            )
            out[name] = frame.with_columns(pl.col("value").cast(self.dtypes[j]))
        return out


def _in_order(value: object) -> tuple:
    """Sort key of a category in a summary: numbers by value (1, 2, 10), then text."""
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        return (0, float(value), "")
    return (1, 0.0, str(value))


register(
    Family(
        "categorical",
        rank=0,
        reads=frozenset({"string", "bool", "int", "float"}),
        group=CategoricalColumns,
        summary="counting: P(value | class) with Lidstone smoothing",
    )
)
