"""Numeric columns whose representation is chosen from the data (``continuous="auto"``).

Naive Bayes is very sensitive to how each column is represented: a Gaussian suits a bell-shaped
column, a kernel density a skewed or multi-modal one, intervals a column whose class signal is a
threshold (the capital gains of adult), counting a column of a few codes. The family ``"auto"``
keeps the statistics every candidate needs — the column's value sketch
(:mod:`~nbayes.families.sketch`), its Gaussian moments (:mod:`~nbayes.families.gaussian`) and the
weight of each class's missing values — and derives, when a prediction first needs it, each
column's representation:

* the family, among ``"gaussian"``, ``"kde"`` (with point masses), ``"mdl"`` and
  ``"equal-frequency"`` intervals — or, for a column of a few integer codes (at most
  ``max_int_categories`` distinct integers, each seen twice on average), among ``"categorical"``
  (the usual one), ``"gaussian"``, ``"kde"`` and, with three codes or more, ``"kde"`` without
  point masses: intervals would only merge neighbouring codes. On codes, a kernel density's
  point masses are the codes that hold at least ``point_masses`` of the weight, counted like
  categories, and its kernels smooth only the rare codes; without point masses it smooths every
  code across its neighbours (a count such as zoo's legs, where 5 and 8 legs are rare and 6 sits
  at 10 % of the rows, a point mass in one fold and not in the next), the alternative that
  differs in kind from counting. Two codes have no neighbour but each other: smoothing between
  them is additive smoothing, which counting has already. Such a column has ``families_``
  "kde" and is reproduced by ``families={name: "kde"}, point_masses={name: None}``;
* its missing values: skipped (missing at random), or one more outcome (P(missing | c) =
  (M_c + λ) / (N_c + 2λ), and P(x | c) times (O_c + λ) / (N_c + 2λ) for an observed x, where
  M_c, O_c and N_c are class c's missing, observed and total weight in the column).

Both are chosen by the leave-one-out conditional log-likelihood of the class given the column
(:mod:`nbayes.families._selection`): first the family, with missing values skipped, then the
missing values for that family. The usual representation (the Gaussian, or counting for a few
integer codes; missing values skipped) stays unless the best candidate beats it by more than one
standard error of the difference (the one-standard-error rule) and by more than round-off; a
missing category must beat skipping by Bonferroni's bar over the group's columns that have
missing values, one standard error for the group rather than for each column (see
:mod:`nbayes.families._selection` for both). With ``alpha="auto"``, a column chosen as
categorical then gets its own Lidstone λ by the same criterion (as a categorical column does,
:class:`~nbayes.families.categorical.CategoricalColumns`; the bar is Bonferroni's over the
group's columns of few integer codes), and its missing values are chosen with that λ; the
family itself is chosen with λ = 1.

The choice is derived from the statistics like cut points, so fitting stays one mergeable pass:
``partial_fit``, ``merge``, streaming and Dask give the statistics of one fit, and so the same
choice. A column chosen as family F is then modelled by F's own column group on those statistics
(the same numbers as ``families={"column": F}``), and ``NaiveBayes.families_`` and ``summary()``
show each column's choice and the scores behind it.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
import polars as pl

from .. import _threads
from .._state import nest, section
from ..encoding import UNSEEN
from . import _auto_choice

# the choice's names, as this module's too (the choice itself is made in _auto_choice)
from ._auto_choice import CANDIDATES as CANDIDATES
from ._auto_choice import COUNTED as COUNTED
from ._auto_choice import SMOOTH as SMOOTH
from ._auto_choice import SMOOTH_MIN_CODES as SMOOTH_MIN_CODES
from ._auto_choice import Choice, _choice_from_json, choices_from_json, choices_json
from ._auto_choice import alpha_reason as alpha_reason
from ._group import ColumnGroup, Memo, Settings, zero_round_off
from ._registry import Family, register
from ._sketch_kernels import _positions
from .categorical import CategoricalColumns
from .category_counts import CategoricalCounts
from .gaussian import GaussianColumns, GaussianMoments
from .intervals import IntervalColumns
from .kde import KernelColumns
from .sketch import ValueSketches

MISSING_MODES = ("auto", "skip", "category")


class AutoStatistics(Memo):
    """Mergeable value sketches, Gaussian moments and per-class missing weights of d columns."""

    def __init__(self, n_classes: int, n_features: int, max_bins: int = 2048) -> None:
        self.sketches = ValueSketches(n_classes, n_features, max_bins)
        self.moments = GaussianMoments(n_classes, n_features)
        self.missing = np.zeros((n_classes, n_features))
        self._cache: dict = {}

    def accumulate(self, X: np.ndarray, cls: np.ndarray, weight: np.ndarray) -> None:
        if X.shape[0] == 0:
            return
        counted = self.moments.pooled_count  # replaced, not written into, by accumulate
        # the moments and each column's sketch share nothing: threads may take them at once
        # (the work: two passes over the block for each)
        tasks = [functools.partial(self.moments.accumulate, X, cls, weight)]
        _threads.run_tasks(tasks + self.sketches.tasks(X, cls, weight), 2 * X.size)
        # the values each column observed in the batch, as the moments counted them (exact
        # whole numbers): a batch without missing values needs no pass to find them
        lacking = np.flatnonzero(self.moments.pooled_count - counted < X.shape[0])
        if lacking.size:  # M_{c,j} += Σ_i w_i [y_i = c][x_ij missing], those columns at once
            by_class = np.zeros((X.shape[0], self.missing.shape[0]))
            by_class[np.arange(X.shape[0]), cls] = weight
            self.missing[:, lacking] += by_class.T @ np.isnan(X[:, lacking])
        self._cache.clear()

    def remove(self, X: np.ndarray, cls: np.ndarray, weight: np.ndarray) -> None:
        """Take counted rows back out: the sketches' sums and the missing weights are linear
        in the weights (subtracted: :meth:`ValueSketches.remove`), the moments are not
        (:meth:`GaussianMoments.remove`)."""
        if X.shape[0] == 0:
            return
        self.moments.remove(X, cls, weight)
        self.sketches.remove(X, cls, weight)
        by_class = np.zeros((X.shape[0], self.missing.shape[0]))
        by_class[np.arange(X.shape[0]), cls] = weight
        before = self.missing.copy()
        self.missing -= by_class.T @ np.isnan(X)
        zero_round_off(self.missing, before)
        np.maximum(self.missing, 0.0, out=self.missing)
        self._cache.clear()

    def merge(self, other: AutoStatistics, positions: np.ndarray) -> None:
        self.sketches.merge(other.sketches, positions)
        self.moments.merge(other.moments, positions)
        self.missing[positions] += other.missing
        self._cache.clear()

    def reindex_classes(self, positions: np.ndarray, n_classes: int) -> None:
        self.sketches.reindex_classes(positions, n_classes)
        self.moments.reindex_classes(positions, n_classes)
        missing = np.zeros((n_classes, self.missing.shape[1]))
        missing[positions] = self.missing
        self.missing = missing
        self._cache.clear()

    def state(self) -> dict[str, np.ndarray]:
        return {
            **nest("sketch", self.sketches.packed_state()),
            **nest("moments", self.moments.state()),
            "missing": self.missing,
        }

    def check(self, n_classes: int, n_features: int) -> None:
        self.sketches.check(n_classes, n_features)
        self.moments.check(n_classes, n_features)
        if self.missing.shape != (n_classes, n_features) or np.any(self.missing < 0):
            raise ValueError(f"missing must be ({n_classes}, {n_features}) weights >= 0.")

    @classmethod
    def from_state(cls, state: dict[str, np.ndarray]) -> AutoStatistics:
        stats = cls.__new__(cls)
        stats.sketches = ValueSketches.from_packed_state(section("sketch", state))
        stats.moments = GaussianMoments.from_state(section("moments", state))
        stats.missing = np.asarray(state["missing"], dtype=np.float64)
        stats._cache = {}
        return stats


def _settings_key(settings: Settings, names: list[str]) -> tuple:
    alpha = np.broadcast_to(settings.alpha_for(names), (len(names),))
    return (
        alpha.tobytes(),
        settings.choose_alpha,
        float(settings.var_smoothing),
        settings.ddof,
        settings.bandwidth,
        settings.bins,
        tuple(settings.point_masses_for(names)),
        settings.max_int_categories,
        str(settings.missing_for(names)),
    )


class AutoColumns(ColumnGroup):
    """Numeric columns of a table, each modelled by the family its data chose (see the module
    docstring)."""

    family = "auto"

    def __init__(self, names: list[str], n_classes: int, *, max_bins: int = 2048, **options: Any):
        super().__init__(names, n_classes, **options)
        self.max_bins = max_bins
        self.stats = AutoStatistics(n_classes, len(names), max_bins)

    # ------------------------------------------------------------------ the choice
    def choices(self, settings: Settings) -> list[Choice]:
        """Each column's :class:`Choice`, derived from the statistics (cached until they
        change)."""
        return self.stats.cached(
            ("choices", *_settings_key(settings, self.names)), lambda: self._choose_all(settings)
        )

    def remove(self, block: np.ndarray, cls: np.ndarray, weight: np.ndarray) -> None:
        self.stats.remove(block, cls, weight)

    def frozen_choices(self, settings: Settings) -> dict:
        """Each column's choice, and the cut points of the columns it cut into intervals
        without the labels (MDL's are placed with them: a held-out model places its own)."""
        out: dict = {("choices", *_settings_key(settings, self.names)): self.choices(settings)}
        view_settings = self.view_settings(settings)
        for group, columns in self.views(settings):
            # the interval views' own rule: which cut points a held-out copy keeps
            if isinstance(group, IntervalColumns) and group.frozen_choices(view_settings):
                out[("cuts", *columns)] = group.cuts(view_settings)
        return out

    def saved_choices(self, settings: Settings) -> dict:
        return choices_json(self.choices(settings))

    def restore_choices(self, saved: Any, settings: Settings) -> None:
        if isinstance(saved, dict):
            choices = choices_from_json(saved, len(self.names))
        elif isinstance(saved, list) and len(saved) == len(self.names):
            # a file written before the choices were saved as lists of fields: one object each
            choices = [_choice_from_json(item) for item in saved]
        else:
            raise ValueError(f"the saved choices of {self.names[:5]} must be one per column.")
        self.stats._cache[("choices", *_settings_key(settings, self.names))] = choices

    def _choose_all(self, settings: Settings) -> list[Choice]:
        return _auto_choice.choose(self, settings)

    def view_settings(self, settings: Settings) -> Settings:
        """The settings the views predict with: the columns chosen as a kernel density without
        point masses get none, and each column its λ."""
        choices = self.choices(settings)
        smooth = {n: None for n, c in zip(self.names, choices, strict=True) if not c.point_masses}
        out = settings.with_point_masses(smooth) if smooth else settings
        if settings.choose_alpha:  # each column's λ, as chosen (1 where none is chosen)
            out = out.with_alpha({n: c.alpha for n, c in zip(self.names, choices, strict=True)})
        return out

    # ------------------------------------------------------------------ the chosen families
    def views(self, settings: Settings) -> list[tuple[ColumnGroup, list[int]]]:
        """Column groups of the chosen families over these statistics, each with the indices
        of its columns here."""
        return self.stats.cached(
            ("views", *_settings_key(settings, self.names)), lambda: self._views(settings)
        )

    def _views(self, settings: Settings) -> list[tuple[ColumnGroup, list[int]]]:
        choices = self.choices(settings)
        n_classes = self.stats.missing.shape[0]
        by_family: dict[str, list[int]] = {}
        for j, choice in enumerate(choices):
            by_family.setdefault(choice.family, []).append(j)
        out = []
        for family, columns in by_family.items():
            names = [self.names[j] for j in columns]
            sketches = [self.stats.sketches.features[j] for j in columns]
            if family == "gaussian":
                group = GaussianColumns(names, n_classes)
                group.stats = GaussianMoments.from_state(
                    {
                        name: (array[:, columns] if array.ndim == 2 else array[columns])
                        for name, array in self.stats.moments.state().items()
                    }
                )
            elif family == "categorical":
                group = CategoricalColumns(names, n_classes, dtypes=[pl.Float64] * len(names))
                group.encoder.vocabularies = [s.keys.tolist() for s in sketches]
                counts = CategoricalCounts(n_classes, len(names))
                counts.grow(np.array([s.keys.shape[0] for s in sketches]))
                counts.counts = np.concatenate([s.weight.T for s in sketches], axis=1)
                group.stats = counts
            else:
                kind = KernelColumns if family == "kde" else IntervalColumns
                group = kind(names, n_classes, family=family, max_bins=self.max_bins)
                group.stats.features = sketches
                frozen = self.stats._cache.get(("cuts", *columns))  # a held-out copy's
                if frozen is not None:
                    group.stats._cache[("cuts", family, settings.bins)] = frozen
            out.append((group, columns))
        return out

    def _block_for(self, group: ColumnGroup, block: np.ndarray, columns: list[int]) -> np.ndarray:
        """The view's columns of a float block (codes in the sketch's keys for categories)."""
        part = block[:, columns]
        if not isinstance(group, CategoricalColumns):
            return part
        features = self.stats.sketches.features
        keys = [features[j].keys for j in columns]
        offsets = np.zeros(len(keys) + 1, dtype=np.int64)
        np.cumsum([k.shape[0] for k in keys], out=offsets[1:])
        values = np.ascontiguousarray(part, dtype=np.float64)
        return _positions(values, np.concatenate(keys), offsets, True, UNSEEN)

    def unseen_counts(self, block: np.ndarray, settings: Settings | None = None) -> dict[str, int]:
        """Per column counted as categories, how many values were never seen in fitting."""
        if settings is None:
            return {}
        out: dict[str, int] = {}
        for group, columns in self.views(settings):
            if isinstance(group, CategoricalColumns):
                out.update(group.unseen_counts(self._block_for(group, block, columns)))
        return out

    def explain_row(
        self, block: np.ndarray, settings: Settings
    ) -> list[tuple[str, str, np.ndarray]]:
        rows = super().explain_row(block, settings)
        unseen = self.unseen_counts(block, settings)
        return [(n, f"{v} (unseen)" if n in unseen else v, p) for n, v, p in rows]

    def log_likelihood(
        self, block: np.ndarray, settings: Settings, *, missing_terms: bool = True
    ) -> np.ndarray:
        n_classes = self.stats.missing.shape[0]
        out = np.zeros((block.shape[0], n_classes))
        view_settings = self.view_settings(settings)
        for group, columns in self.views(settings):
            out += group.log_likelihood(self._block_for(group, block, columns), view_settings)
        for j, choice in enumerate(self.choices(settings)):
            if choice.missing == "category":
                log_missing, log_observed = self.missing_tables(j, settings)
                absent = np.isnan(block[:, j])
                if missing_terms:
                    out[absent] += log_missing
                out[~absent] += log_observed
        return out

    def tables(
        self, classes: np.ndarray, settings: Settings, *, grid: int = 200
    ) -> dict[str, pl.DataFrame]:
        """Each column's table in the layout of the family chosen for it (``families_``)."""
        out: dict[str, pl.DataFrame] = {}
        view_settings = self.view_settings(settings)
        for group, _ in self.views(settings):
            out.update(group.tables(classes, view_settings, grid=grid))
        return out

    def missing_terms(self, settings: Settings) -> np.ndarray | None:
        choices = self.choices(settings)
        columns = [j for j, c in enumerate(choices) if c.missing == "category"]
        if not columns:
            return None
        out = np.full((len(self.names), self.stats.missing.shape[0]), np.nan)
        for j in columns:
            out[j] = self.missing_tables(j, settings)[0]
        return out

    def missing_tables(self, j: int, settings: Settings) -> tuple[np.ndarray, np.ndarray]:
        """(log P(missing | c), log P(observed | c)) of column j, missing as an outcome."""
        alpha = self.choices(settings)[j].alpha
        missing = self.stats.missing[:, j]
        observed = self.stats.sketches.features[j].weight.sum(axis=0)
        total = missing + observed
        with np.errstate(divide="ignore", invalid="ignore"):
            log_missing = np.where(
                total > 0, np.log(missing + alpha) - np.log(total + 2 * alpha), -math.log(2)
            )
            log_observed = np.where(
                total > 0, np.log(observed + alpha) - np.log(total + 2 * alpha), -math.log(2)
            )
        return log_missing, log_observed

    def describe(self, classes: np.ndarray, settings: Settings) -> str:
        blocks: dict[int, str] = {}
        choices = self.choices(settings)
        view_settings = self.view_settings(settings)
        for group, columns in self.views(settings):
            for k, text in enumerate(group.describe(classes, view_settings).split("\n\n")):
                j = columns[k]
                head, _, rest = text.partition("\n")
                lines = [f"{head}, chosen from the data", f"  why: {choices[j].reason()}"]
                if choices[j].missing == "category":
                    log_missing, _ = self.missing_tables(j, settings)
                    lines.append(
                        "  P(missing | class): "
                        + ", ".join(f"{v:.3f}" for v in np.exp(log_missing))
                    )
                blocks[j] = "\n".join(lines) + ("\n" + rest if rest else "")
        return "\n\n".join(blocks[j] for j in range(len(self.names)))


register(
    Family(
        "auto",
        rank=10,
        reads=frozenset({"int", "float"}),
        group=AutoColumns,
        continuous=True,
        density=True,
        summary="chosen from the data per column (gaussian, kde, mdl, equal-frequency, "
        "categorical) by leave-one-out conditional likelihood",
    )
)
