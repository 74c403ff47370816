"""What a fitted :class:`~nbayes.NaiveBayes` shows: one row worked out by hand (``explain``),
each column's family, λ and treatment of missing values and why (``families_``, ``alpha_``,
``missing_``, ``family_reasons_``), the cut points, the fitted conditionals as tidy tables
(``tables()``), and the model printed as Weka and R print theirs (``summary()``, the notebook's
HTML). A mixin of ``NaiveBayes``: it reads the model's statistics through the code prediction
uses, never a copy of them.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import polars as pl

from . import families
from .calibration import Calibration
from .decision import posterior as normalise
from .exceptions import UnseenCategoryWarning
from .explain import Explanation
from .families._group import format_table
from .families.auto import COUNTED, AutoColumns, alpha_reason
from .families.categorical import CategoricalColumns
from .families.intervals import IntervalColumns


class NaiveBayesViews:
    """The views of a fitted ``NaiveBayes`` (see the module docstring)."""

    # ------------------------------------------------------------------ explanation
    def explain(self, row: Any, *, priors: Any = None) -> Explanation:
        """The worked computation for one row, as done by hand (a dict, a pandas Series, or a
        one-row table): priors, every P(x_j | c), their product, the posterior, and each
        feature's contribution to the log-odds of the two most probable classes.
        ``print()`` the result for a table."""
        self._check_fitted()
        if hasattr(row, "to_frame") and hasattr(row, "index") and not hasattr(row, "columns"):
            row = row.to_frame().T  # a pandas Series: one row
        table = self._input(row)
        if table.shape[0] != 1:
            raise ValueError(f"explain takes one row; got {table.shape[0]}.")
        settings = self._settings()
        names, values, densities, rows = [], [], [], []
        weight_scores = []  # text columns weighted as complement naive Bayes weights them
        by_name = {}
        fitted = self.families_  # a column chosen from the data: the family it chose
        for group, block in zip(self._stats.groups, table.blocks, strict=True):
            for name, shown, log_p in group.explain_row(block, settings):
                by_name[name] = (shown, families.get(fitted[name]).density, log_p)
                if getattr(group, "weighted", False):
                    weight_scores.append(name)
        for spec in self.schema_:
            shown, density, log_p = by_name[spec.name]
            names.append(spec.name)
            values.append(shown)
            densities.append(density)
            rows.append(log_p)
        log_prior = self._class_log_prior(priors)
        log_likelihood = np.array(rows) if rows else np.zeros((0, len(self.classes_)))
        fitted = getattr(self, "calibration_", None)
        calibrated = fitted is not None and not fitted.is_identity
        evidence = np.nansum(log_likelihood, axis=0)
        jll = (log_prior + evidence)[None, :]
        calibration = (fitted.weight, fitted.offset) if calibrated else None
        if calibrated and priors is not None:
            # the per-call prior exchanged by Bayes' rule, as NaiveBayes._scores does; shown as
            # a [log π'(c) + Σ_j] + b'_c, b' absorbing the exchange (−inf where π' or the
            # evidence rules the class out, whose score is −inf then)
            score = fitted.under_prior(evidence, self._class_log_prior(), log_prior)
            textbook = log_prior + evidence
            with np.errstate(invalid="ignore"):
                offset = np.where(
                    np.isfinite(textbook), score - fitted.weight * textbook, -np.inf
                )
            calibration = (fitted.weight, offset)
            jll = score[None, :]
        elif calibrated:
            jll = fitted.weight * jll + fitted.offset
        post = normalise(jll, log_prior)[0]
        with warnings.catch_warnings():  # _input above has already warned about this row
            warnings.simplefilter("ignore", UnseenCategoryWarning)
            decision = self.predict(row, priors=priors)[0]
        return Explanation(
            self.classes_,
            names,
            values,
            densities,
            log_prior,
            log_likelihood,
            post,
            decision,
            calibration,
            tuple(weight_scores),
        )

    # ------------------------------------------------------------------ display
    @property
    def cut_points_(self) -> dict[str, np.ndarray]:
        """The interval boundaries t_1 < … < t_{B−1} of every discretised column, by name
        (equal-width, equal-frequency and MDL columns, named or chosen from the data; see
        nbayes.families.intervals)."""
        self._check_fitted()
        settings = self._settings()
        out = {}
        for group in self._stats.groups:
            parts = [group]
            if isinstance(group, AutoColumns):
                parts = [view for view, _ in group.views(settings)]
            for part in parts:
                if isinstance(part, IntervalColumns):
                    cuts = (c.copy() for c in part.cuts(settings))
                    out.update(zip(part.names, cuts, strict=True))
        return {s.name: out[s.name] for s in self.schema_ if s.name in out}

    @property
    def families_(self) -> dict[str, str]:
        """Each column's family as fitted, by name: the schema's, and for a column whose family
        is chosen from the data (``"auto"``), the family chosen. ``families=model.families_``
        fixes every column's choice; edit it to override one."""
        self._check_fitted()
        settings = self._settings()
        chosen: dict[str, str] = {}
        for group in self._stats.groups:
            if isinstance(group, AutoColumns):
                chosen.update(
                    zip(group.names, (c.family for c in group.choices(settings)), strict=True)
                )
        return {s.name: chosen.get(s.name, s.family) for s in self.schema_}

    @property
    def alpha_(self) -> dict[str, float]:
        """The Lidstone λ of each column that counts (categorical and interval columns, and
        numeric columns chosen as categorical), by name: as set by ``alpha=``, or with
        ``alpha="auto"`` chosen from the data for categories (see the ``alpha`` parameter)."""
        self._check_fitted()
        settings = self._settings()
        out: dict[str, float] = {}
        for group in self._stats.groups:
            if isinstance(group, AutoColumns):
                for name, choice in zip(group.names, group.choices(settings), strict=True):
                    if choice.family in COUNTED:
                        out[name] = float(choice.alpha)
            elif isinstance(group, (CategoricalColumns, IntervalColumns)):
                alphas = (
                    group.alphas(settings)  # chosen per column with alpha="auto"
                    if isinstance(group, CategoricalColumns)
                    else settings.alpha_for(group.names)
                )
                alphas = np.broadcast_to(alphas, (len(group.names),))
                out.update(zip(group.names, (float(a) for a in alphas), strict=True))
        return {s.name: out[s.name] for s in self.schema_ if s.name in out}

    @property
    def missing_(self) -> dict[str, str]:
        """How each column's missing values are treated, by name: ``"skip"`` (left out of the
        product, as if the column were absent from that row) or ``"category"`` (a value of its
        own, counted per class), as set by ``missing=`` or chosen from the data."""
        self._check_fitted()
        settings = self._settings()
        out = {s.name: "skip" for s in self.schema_}
        for group in self._stats.groups:
            if isinstance(group, AutoColumns):
                choices = [c.missing for c in group.choices(settings)]
            elif isinstance(group, CategoricalColumns):
                choices = [mode for mode, _ in group.missing_choices(settings)]
            else:
                continue
            out.update(zip(group.names, choices, strict=True))
        return out

    @property
    def family_reasons_(self) -> dict[str, str]:
        """Why each column has its family (and, for categorical and chosen columns, how its
        missing values are treated), in words, by name."""
        self._check_fitted()
        settings = self._settings()
        named = set(self.families or {})
        out: dict[str, str] = {}
        for group in self._stats.groups:
            if isinstance(group, AutoColumns):
                for name, choice in zip(group.names, group.choices(settings), strict=True):
                    out[name] = f"{choice.family}, chosen from the data: {choice.reason()}"
                continue
            for j, name in enumerate(group.names):
                spec = self.schema_[list(self.feature_names_in_).index(name)]
                if name in named:
                    why = f"{spec.family}, named in families="
                elif spec.family == "text":
                    why = "text: its values read as free text (see nbayes.schema)"
                elif spec.family == "ignore":
                    why = "left out: it looks like an identifier (see nbayes.schema)"
                elif spec.family == "categorical" and spec.dtype in (pl.String, pl.Boolean):
                    why = "categorical: its values are strings or booleans"
                elif spec.family == "categorical":
                    why = (
                        f"categorical: at most max_int_categories={self.max_int_categories} "
                        "distinct integers in the first batch"
                    )
                else:
                    why = f"{spec.family}: the continuous={self.continuous!r} setting"
                if isinstance(group, CategoricalColumns):
                    why += "; " + group.missing_reason(j, settings)
                    if settings.choose_alpha:
                        why += "; " + alpha_reason(*group.alpha_choices()[j])
                out[name] = why
        return {s.name: out[s.name] for s in self.schema_}

    def tables(
        self, columns: list[str] | None = None, *, grid: int = 200, to: str = "polars"
    ) -> dict[str, Any]:
        """The fitted P(x_j | c) of each feature (or of ``columns``) as a tidy Polars frame (or
        pandas, ``to="pandas"``), by name: counts and probabilities of categories and intervals,
        Gaussian means and standard deviations, Poisson rates, kernel densities on a grid of
        ``grid`` points, word probabilities. The columns: :mod:`nbayes.conditionals`."""
        from .conditionals import conditional_tables

        return conditional_tables(self, columns, grid=grid, to=to)

    def summary(self) -> str:
        """The fitted model as Weka and R print theirs: priors, then each column's conditionals."""
        self._check_fitted()
        settings = self._settings()
        prior = np.exp(self._class_log_prior())
        families = {}
        for family in self.families_.values():
            families[family] = families.get(family, 0) + 1
        total = self.class_count_.sum()
        # whole class counts: rows (unit weights); others are sums of sample weights
        whole = bool(np.all(self.class_count_ == np.round(self.class_count_)))
        rows = f"{round(total):,} training rows" if whole else f"weight {total:,.3f} (weighted)"
        head = (
            f"NaiveBayes: {rows}, "
            f"{len(self.classes_)} classes, {len(self.schema_)} columns ("
            + ", ".join(f"{n} {f}" for f, n in families.items())
            + ")"
        )
        parts = [
            head,
            f"class prior ({self._prior_name()})\n"
            + format_table(["P(c)"], self.classes_, [prior.tolist()]),
        ]
        fitted = getattr(self, "calibration_", None)
        if fitted is not None:
            parts.append(_describe_calibration(fitted, self.classes_))
        order = {s.name: i for i, s in enumerate(self.schema_)}
        described = []
        for group in self._stats.groups:
            for j, block in enumerate(group.describe(self.classes_, settings).split("\n\n")):
                described.append((order[group.names[j]], block))
        parts += [block for _, block in sorted(described)]
        return "\n\n".join(parts)

    def _prior_name(self) -> str:
        spec = self._prior_spec()
        return spec if isinstance(spec, str) else "given"

    def _repr_html_(self) -> str | None:
        """The fitted model as HTML tables (what a notebook shows); None (the plain repr)
        before fitting."""
        if not hasattr(self, "classes_"):
            return None
        from .html import model_html

        return model_html(self)

    def __str__(self) -> str:
        if not hasattr(self, "classes_"):
            return repr(self)
        return self.summary()


def _describe_calibration(fitted: Calibration, classes: np.ndarray) -> str:
    if fitted.is_identity:
        head = "calibration: none, the textbook scores log P(c) + Σ_j log P(x_j | c)"
    else:
        head = (
            f"calibration: score a · [log P(c) + Σ_j log P(x_j | c)] + b_c, a = {fitted.weight:.4g}"
            + ("" if fitted.offset.any() else ", b = 0")
        )
    out = f"{head}, chosen from the data\n  why: {fitted.reason}"
    if fitted.offset.any():
        out += "\n" + format_table(["b_c"], classes, [fitted.offset.tolist()])
    return out
