"""Column groups: how :class:`~nbayes.NaiveBayes` feeds table columns to the likelihood families.

Columns of the same family are handled together, so that encoding, counting and the
log-likelihood of a chunk are each one vectorised step per family. Every group does five things:

* ``encode`` the group's columns of a Polars frame into a float block (n, d) — category codes,
  numbers or interval indices, with NaN for a missing value;
* ``accumulate`` a block into its family's mergeable statistics, ``merge`` and
  ``reindex_classes`` them;
* ``log_likelihood`` of a block: Σ_j log P(x_j | c) over the group's observed columns, (n, K);
* ``describe`` the fitted conditionals for ``summary()``;
* ``state`` / ``from_state`` for model files.

A missing value contributes nothing to fitting or prediction in every family (as in Weka and R's
naivebayes), so a row whose every value is missing gets the class prior.
"""

from __future__ import annotations

import itertools
import math
import warnings
from typing import Any

import numpy as np
import polars as pl
import scipy.sparse as sp

from . import _kernels
from .exceptions import UnseenCategoryWarning
from .families import intervals, multinomial, poisson
from .families.categorical import CategoricalCounts
from .families.counts import FeatureSums
from .families.gaussian import GaussianMoments
from .families.kde import KernelDensity
from .families.sketch import EXACT, ValueSketches

UNSEEN = float(2**40)  # code of a category not seen in fitting: beyond every S_j


class Settings:
    """The model parameters the families read when deriving their parameters."""

    def __init__(
        self,
        alpha: float | dict[str, float],
        var_smoothing: float,
        bandwidth: str | float,
        bins: int,
        unknown: str,
    ) -> None:
        self.alpha = alpha
        self.var_smoothing = var_smoothing
        self.bandwidth = bandwidth
        self.bins = bins
        self.unknown = unknown

    def alpha_for(self, names: list[str]) -> float | np.ndarray:
        """λ for each column: one number, or per column from a {name: λ} mapping (default 1)."""
        if isinstance(self.alpha, dict):
            return np.array([float(self.alpha.get(n, 1.0)) for n in names])
        return float(self.alpha)


def _fmt(value: float) -> str:
    return f"{value:.3f}" if abs(value) < 1e5 else f"{value:.4g}"


def _value(value: float) -> str:
    """A data value as a person would write it: 35, 2.5, 1e+07."""
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else f"{value:.6g}"


def _table(
    row_names: list[str], classes: np.ndarray, rows: list[list[float]], indent: str = "  "
) -> str:
    width = max([len(str(c)) for c in classes] + [9])
    label_width = max([len(r) for r in row_names] + [1])
    lines = [indent + " " * label_width + "".join(f"  {c!s:>{width}}" for c in classes)]
    for name, values in zip(row_names, rows, strict=True):
        lines.append(
            indent + f"{name:<{label_width}}" + "".join(f"  {_fmt(v):>{width}}" for v in values)
        )
    return "\n".join(lines)


class ColumnGroup:
    """Base: the columns ``names`` of one ``family``."""

    family = ""

    def __init__(self, names: list[str], n_classes: int) -> None:
        self.names = list(names)

    def numeric_block(self, frame: pl.DataFrame) -> np.ndarray:
        try:
            casts = [pl.col(n).cast(pl.Float64) for n in self.names]
            return (
                frame.select(casts)
                .to_numpy()
                .astype(np.float64, copy=False)
                .reshape(frame.height, len(self.names))
            )
        except (pl.exceptions.InvalidOperationError, pl.exceptions.ComputeError) as exc:
            raise ValueError(
                f"columns {self.names} must hold numbers for family {self.family!r}: {exc}"
            ) from exc

    def encode(self, frame: pl.DataFrame, *, fitting: bool) -> np.ndarray:
        return self.numeric_block(frame)

    def display(self, j: int, value: float) -> str:
        return "missing" if value != value else _value(value)

    def explain_row(
        self, block: np.ndarray, settings: Settings
    ) -> list[tuple[str, str, np.ndarray]]:
        """(column, value as shown, log P(x_j | c) per class; NaN if missing) for a one-row
        block, column by column."""
        per_feature = feature_log_likelihoods(self, block, settings)
        return [
            (name, self.display(j, block[0, j]), per_feature[j])
            for j, name in enumerate(self.names)
        ]

    # model files: the arrays of the group's statistics, and JSON for the rest
    def state(self) -> dict[str, np.ndarray]:
        return self.stats.state()

    def meta(self) -> dict:
        return {"family": self.family, "names": list(self.names)}

    def load_state(self, state: dict[str, np.ndarray], meta: dict) -> None:
        if meta.get("family") != self.family or list(meta.get("names", [])) != self.names:
            raise ValueError(f"column group {self.names} does not match the schema.")
        self.stats = type(self.stats).from_state(state)

    def check(self, n_classes: int) -> None:
        self.stats.check(n_classes, len(self.names))


# ---------------------------------------------------------------------- categorical
class CategoricalColumns(ColumnGroup):
    """Counting (seeds 000–004); values of any type, each column with its own vocabulary."""

    family = "categorical"

    def __init__(self, names: list[str], n_classes: int, dtypes: list[pl.DataType]) -> None:
        super().__init__(names, n_classes)
        self.dtypes = list(dtypes)
        self.vocabularies: list[list[Any]] = [[] for _ in names]
        self.stats = CategoricalCounts(n_classes, len(names))
        self._tables: dict[int, tuple[int, tuple[int, np.ndarray]]] = {}

    def _cast(self, frame: pl.DataFrame, j: int) -> pl.Expr:
        name, dtype = self.names[j], self.dtypes[j]
        source = frame.schema[name]
        if source == dtype:
            return pl.col(name)
        if dtype == pl.String:
            return pl.col(name).cast(pl.String)
        return pl.col(name).cast(dtype, strict=True)

    def encode(self, frame: pl.DataFrame, *, fitting: bool) -> np.ndarray:
        # a fractional number in an integer category column is no category of it: casting
        # would truncate 2.5 to 2, so such values are refused in fitting and unseen afterwards
        fractional = {}
        for j, name in enumerate(self.names):
            if self.dtypes[j] == pl.Int64 and frame.schema[name].is_float():
                values = frame.get_column(name).to_numpy()
                with np.errstate(invalid="ignore"):
                    inexact = np.isfinite(values) & (values != np.floor(values))
                if inexact.any():
                    if fitting:
                        i = int(np.argmax(inexact))
                        raise ValueError(
                            f"column {name!r} holds the fractional value {values[i]!r} (row {i}), "
                            "but its categories are integers."
                        )
                    fractional[j] = inexact
                    frame = frame.with_columns(
                        pl.when(pl.Series(inexact)).then(None).otherwise(pl.col(name)).alias(name)
                    )
        try:
            casted = frame.select([self._cast(frame, j).alias(n) for j, n in enumerate(self.names)])
        except (pl.exceptions.InvalidOperationError, pl.exceptions.ComputeError) as exc:
            raise ValueError(
                f"a categorical column could not be read as it was in fitting "
                f"({dict(zip(self.names, self.dtypes, strict=True))}): {exc}"
            ) from exc
        if fitting:  # a column's first batch: learn its values before coding (one pass, not two)
            for j, name in enumerate(self.names):
                if not self.vocabularies[j]:
                    values = casted.get_column(name).drop_nulls().unique(maintain_order=True)
                    self.vocabularies[j].extend(values.to_list())
        block = self._codes(casted, range(len(self.names)))
        if fitting:
            # values new to a vocabulary come out UNSEEN: add them (in order of appearance)
            # and code those columns again; batches with nothing new need no extra pass
            grown = np.flatnonzero((block == UNSEEN).any(axis=0))
            for j in grown:
                name = self.names[j]
                new = casted.get_column(name).filter(pl.Series(block[:, j] == UNSEEN))
                self.vocabularies[j].extend(new.unique(maintain_order=True).to_list())
            if grown.size:
                block[:, grown] = self._codes(casted, grown)
        for j, inexact in fractional.items():
            block[inexact, j] = UNSEEN
        return block

    def _codes(self, casted: pl.DataFrame, columns: Any) -> np.ndarray:
        """The code of every value of the chosen columns in their vocabularies; NaN for a
        missing value, UNSEEN for a value not in the vocabulary."""
        columns = list(columns)
        out = np.empty((casted.height, len(columns)))
        general = []
        for k, j in enumerate(columns):
            table = self._lookup_table(j)
            if table is None:
                general.append(k)
                continue
            low, lut = table
            values = casted.get_column(self.names[j]).to_numpy()  # int64, or float with NaN
            _kernels.lookup_codes(values, low, lut, UNSEEN, out, k)
        if general:
            out[:, general] = self._codes_by_polars(casted, [columns[k] for k in general])
        return out

    def _lookup_table(self, j: int) -> tuple[int, np.ndarray] | None:
        """For an integer column with a compact vocabulary: (smallest value, code of each value
        from there on, UNSEEN for the gaps). An array lookup codes such a column much faster
        than a hash join; other columns return None."""
        vocabulary = self.vocabularies[j]
        if self.dtypes[j] != pl.Int64 or not vocabulary:
            return None
        cached = self._tables.get(j)
        if cached is not None and cached[0] == len(vocabulary):
            return cached[1]
        low, high = min(vocabulary), max(vocabulary)
        if high - low >= 2**16:
            return None
        lut = np.full(high - low + 1, UNSEEN)
        lut[np.asarray(vocabulary, dtype=np.int64) - low] = np.arange(len(vocabulary))
        self._tables[j] = (len(vocabulary), (low, lut))
        return low, lut

    def _codes_by_polars(self, casted: pl.DataFrame, columns: list[int]) -> np.ndarray:
        codes = []
        for j in columns:
            name, vocabulary = self.names[j], self.vocabularies[j]
            coded = (
                pl.col(name).replace_strict(
                    vocabulary,
                    list(range(len(vocabulary))),
                    default=UNSEEN,
                    return_dtype=pl.Float64,
                )
                if vocabulary
                else pl.lit(UNSEEN, dtype=pl.Float64)
            )
            # replace_strict would send null to the default too: keep missing values missing
            codes.append(pl.when(pl.col(name).is_null()).then(None).otherwise(coded).alias(name))
        out = casted.select(codes).to_numpy()
        return np.asarray(out, dtype=np.float64).reshape(casted.height, len(codes))

    def unseen_counts(self, block: np.ndarray) -> dict[str, int]:
        counts = (block == UNSEEN).sum(axis=0)
        return {self.names[j]: int(counts[j]) for j in np.flatnonzero(counts)}

    def accumulate(self, block: np.ndarray, cls: np.ndarray, weight: np.ndarray) -> None:
        # every code of a fitting batch is below its vocabulary's size: grow to that, no scan
        self.stats.grow(np.array([len(v) for v in self.vocabularies]))
        self.stats.accumulate(block, cls, weight, sized=True)

    def merge(self, other: CategoricalColumns, positions: np.ndarray) -> None:
        """Add ``other``'s counts, translating its category codes into this group's."""
        remapped = CategoricalCounts(other.stats.counts.shape[0], len(self.names))
        mappings = []
        for j in range(len(self.names)):
            index = {v: i for i, v in enumerate(self.vocabularies[j])}
            for value in other.vocabularies[j]:
                if value not in index:
                    index[value] = len(self.vocabularies[j])
                    self.vocabularies[j].append(value)
            mappings.append(np.array([index[v] for v in other.vocabularies[j]], dtype=np.int64))
        sizes = np.array([len(v) for v in self.vocabularies])
        self.stats.grow(sizes)
        remapped.grow(sizes)
        offsets, other_offsets = remapped.offsets, other.stats.offsets
        for j, mapping in enumerate(mappings):
            used = min(mapping.shape[0], int(other.stats.n_categories[j]))
            remapped.counts[:, offsets[j] + mapping[:used]] = other.stats.counts[
                :, other_offsets[j] : other_offsets[j] + used
            ]
        self.stats.merge(remapped, positions)

    def reindex_classes(self, positions: np.ndarray, n_classes: int) -> None:
        self.stats.reindex_classes(positions, n_classes)

    def log_likelihood(self, block: np.ndarray, settings: Settings) -> np.ndarray:
        mode = "smooth" if settings.unknown == "smooth" else "ignore"
        return self.stats.log_likelihood(block, settings.alpha_for(self.names), mode)[0]

    def display(self, j: int, value: float) -> str:
        if value != value:
            return "missing"
        if value >= len(self.vocabularies[j]):
            return "unseen value"
        return str(self.vocabularies[j][int(value)])

    def meta(self) -> dict:
        def encode(value: Any, dtype: pl.DataType) -> Any:
            return float(value).hex() if dtype == pl.Float64 else value

        vocabularies = [
            [encode(v, dtype) for v in values]
            for values, dtype in zip(self.vocabularies, self.dtypes, strict=True)
        ]
        return {**super().meta(), "vocabularies": vocabularies}

    def load_state(self, state: dict[str, np.ndarray], meta: dict) -> None:
        super().load_state(state, meta)
        vocabularies = meta["vocabularies"]
        if len(vocabularies) != len(self.names):
            raise ValueError("one vocabulary per categorical column is required.")
        expected = {pl.String: str, pl.Boolean: bool, pl.Int64: int, pl.Float64: str}
        decoded = []
        for values, dtype, name in zip(vocabularies, self.dtypes, self.names, strict=True):
            kind = expected.get(dtype)
            if kind is None or not all(type(v) is kind for v in values):
                raise ValueError(f"the categories of column {name!r} are not of type {dtype}.")
            decoded.append(
                [float.fromhex(v) for v in values] if dtype == pl.Float64 else list(values)
            )
            if len(set(decoded[-1])) != len(decoded[-1]):
                raise ValueError(f"the categories of column {name!r} repeat.")
        self.vocabularies = decoded

    def check(self, n_classes: int) -> None:
        super().check(n_classes)
        if [len(v) for v in self.vocabularies] != self.stats.n_categories.tolist():
            raise ValueError("category vocabularies do not match the counts.")

    def describe(self, classes: np.ndarray, settings: Settings) -> str:
        table, _ = self.stats.log_prob(settings.alpha_for(self.names))
        offsets = self.stats.offsets
        parts = []
        for j, name in enumerate(self.names):
            values = self.vocabularies[j]
            order = sorted(range(len(values)), key=lambda i: str(values[i]))
            rows = [np.exp(table[offsets[j] + i]).tolist() for i in order]
            lam = settings.alpha_for(self.names)
            lam = lam if np.ndim(lam) == 0 else lam[j]
            parts.append(
                f"{name}  (categorical, P(value | class), λ = {lam:g})\n"
                + _table([str(values[i]) for i in order], classes, rows)
            )
        return "\n\n".join(parts)


# ---------------------------------------------------------------------- gaussian
class GaussianColumns(ColumnGroup):
    """Gaussian densities (seeds 001, 004): per class mean and variance, Chan-merged."""

    family = "gaussian"

    def __init__(self, names: list[str], n_classes: int) -> None:
        super().__init__(names, n_classes)
        self.stats = GaussianMoments(n_classes, len(names))

    def accumulate(self, block: np.ndarray, cls: np.ndarray, weight: np.ndarray) -> None:
        self.stats.accumulate(block, cls, weight)

    def merge(self, other: GaussianColumns, positions: np.ndarray) -> None:
        self.stats.merge(other.stats, positions)

    def reindex_classes(self, positions: np.ndarray, n_classes: int) -> None:
        self.stats.reindex_classes(positions, n_classes)

    def log_likelihood(self, block: np.ndarray, settings: Settings) -> np.ndarray:
        return self.stats.log_likelihood(block, settings.var_smoothing)

    def describe(self, classes: np.ndarray, settings: Settings) -> str:
        theta, var = self.stats.theta_var(settings.var_smoothing)
        parts = []
        for j, name in enumerate(self.names):
            parts.append(
                f"{name}  (gaussian)\n"
                + _table(
                    ["mean", "sd"], classes, [theta[:, j].tolist(), np.sqrt(var[:, j]).tolist()]
                )
            )
        return "\n\n".join(parts)


# ---------------------------------------------------------------------- poisson
class PoissonColumns(ColumnGroup):
    """Poisson counts: rate λ_{c,j} = (Σ x + α) / (N_{c,j} + α) over observed values."""

    family = "poisson"

    def __init__(self, names: list[str], n_classes: int) -> None:
        super().__init__(names, n_classes)
        self.stats = FeatureSums(n_classes, len(names), track_observed=True)

    def encode(self, frame: pl.DataFrame, *, fitting: bool) -> np.ndarray:
        block = self.numeric_block(frame)
        with np.errstate(invalid="ignore"):
            negative = block < 0
        if negative.any():
            i, j = np.unravel_index(int(np.argmax(negative)), negative.shape)
            raise ValueError(
                f"column {self.names[j]!r} has the negative value {block[i, j]} at row {i}; "
                "family 'poisson' needs counts (values >= 0)."
            )
        return block

    def accumulate(self, block: np.ndarray, cls: np.ndarray, weight: np.ndarray) -> None:
        self.stats.accumulate(block, cls, weight)

    def merge(self, other: PoissonColumns, positions: np.ndarray) -> None:
        self.stats.merge(other.stats, positions)

    def reindex_classes(self, positions: np.ndarray, n_classes: int) -> None:
        self.stats.reindex_classes(positions, n_classes)

    def log_likelihood(self, block: np.ndarray, settings: Settings) -> np.ndarray:
        alpha = settings.alpha_for(self.names)
        return poisson.log_likelihood(self.stats, block, np.zeros(0), alpha)

    def describe(self, classes: np.ndarray, settings: Settings) -> str:
        rate = poisson.rates(self.stats, np.zeros(0), settings.alpha_for(self.names))
        return "\n\n".join(
            f"{name}  (poisson)\n" + _table(["rate"], classes, [rate[:, j].tolist()])
            for j, name in enumerate(self.names)
        )


# ---------------------------------------------------------------------- sketch-based
class SketchColumns(ColumnGroup):
    """Columns summarised by value sketches (kernel densities, intervals)."""

    def __init__(self, names: list[str], n_classes: int, max_bins: int) -> None:
        super().__init__(names, n_classes)
        self.stats = ValueSketches(n_classes, len(names), max_bins)

    def accumulate(self, block: np.ndarray, cls: np.ndarray, weight: np.ndarray) -> None:
        self.stats.accumulate(block, cls, weight)

    def merge(self, other: SketchColumns, positions: np.ndarray) -> None:
        self.stats.merge(other.stats, positions)

    def reindex_classes(self, positions: np.ndarray, n_classes: int) -> None:
        self.stats.reindex_classes(positions, n_classes)

    def resolution(self, j: int) -> str:
        level = self.stats.features[j].level
        if level == EXACT:
            return "exact values"
        return f"values pooled on a grid of width {math.ldexp(1.0, int(level)):g}"


class KernelColumns(SketchColumns):
    """Kernel density estimates (Weka's -K), see :mod:`nbayes.families.kde`."""

    family = "kde"

    def densities(self, settings: Settings) -> list[KernelDensity]:
        return self.stats.cached(
            ("kde", settings.bandwidth),
            lambda: [KernelDensity(f, settings.bandwidth) for f in self.stats.features],
        )

    def log_likelihood(self, block: np.ndarray, settings: Settings) -> np.ndarray:
        out = np.zeros((block.shape[0], self.stats.features[0].n_classes))
        for j, density in enumerate(self.densities(settings)):
            density.add_log_density(block[:, j], out)
        return out

    def describe(self, classes: np.ndarray, settings: Settings) -> str:
        parts = []
        for j, (name, density) in enumerate(zip(self.names, self.densities(settings), strict=True)):
            kernels = np.diff(density.offsets).astype(float).tolist()
            parts.append(
                f"{name}  (kernel density, {settings.bandwidth} bandwidth, {self.resolution(j)})\n"
                + _table(["kernels", "bandwidth"], classes, [kernels, density.bandwidth.tolist()])
            )
        return "\n\n".join(parts)


class IntervalColumns(SketchColumns):
    """Discretisation into intervals (equal-width, equal-frequency, MDL), see
    :mod:`nbayes.families.intervals`."""

    def __init__(self, names: list[str], n_classes: int, max_bins: int, method: str) -> None:
        super().__init__(names, n_classes, max_bins)
        self.family = method

    def cuts(self, settings: Settings) -> list[np.ndarray]:
        return self.stats.cached(
            ("cuts", self.family, settings.bins),
            lambda: [
                intervals.cut_points(f, self.family, settings.bins) for f in self.stats.features
            ],
        )

    def counts(self, settings: Settings) -> CategoricalCounts:
        def build() -> CategoricalCounts:
            cuts = self.cuts(settings)
            tables = [
                intervals.interval_counts(f, c)
                for f, c in zip(self.stats.features, cuts, strict=True)
            ]
            stats = CategoricalCounts(tables[0].shape[0], len(tables))
            stats.grow(np.array([t.shape[1] for t in tables]))
            stats.counts = np.concatenate(tables, axis=1)
            return stats

        return self.stats.cached(("interval-counts", self.family, settings.bins), build)

    def codes(self, block: np.ndarray, settings: Settings) -> np.ndarray:
        cuts = self.cuts(settings)
        return np.column_stack([intervals.interval_of(block[:, j], c) for j, c in enumerate(cuts)])

    def log_likelihood(self, block: np.ndarray, settings: Settings) -> np.ndarray:
        codes = self.codes(block, settings)
        return self.counts(settings).log_likelihood(codes, settings.alpha_for(self.names))[0]

    def describe(self, classes: np.ndarray, settings: Settings) -> str:
        counts = self.counts(settings)
        table, _ = counts.log_prob(settings.alpha_for(self.names))
        offsets = counts.offsets
        parts = []
        for j, (name, cuts) in enumerate(zip(self.names, self.cuts(settings), strict=True)):
            edges = [-np.inf, *cuts.tolist(), np.inf]
            labels = [
                f"({_fmt(a)}, {_fmt(b)}]".replace("(-inf", "(-∞").replace("inf]", "∞)")
                for a, b in itertools.pairwise(edges)
            ]
            rows = [np.exp(table[offsets[j] + i]).tolist() for i in range(len(labels))]
            shown_cuts = ", ".join(_fmt(c) for c in cuts) or "none (one interval)"
            parts.append(
                f"{name}  ({self.family} intervals, {self.resolution(j)}); "
                f"cut points: {shown_cuts}\n" + _table(labels, classes, rows)
            )
        return "\n\n".join(parts)


# ---------------------------------------------------------------------- text
class TextColumns(ColumnGroup):
    """One text column as a bag of words (seed 003): the multinomial model on its token counts,

        log P(text | c) = Σ_t x_t log P(t | c),   P(t | c) = (λ + N(t, c)) / (λ|V| + Σ_t' N(t', c))

    with tokens as :class:`~nbayes.text.TextVectorizer`'s defaults count them (Unicode words of
    two or more characters, lowercased, hashed into 2^20 columns: nothing to learn, so batches,
    merges and clusters agree exactly). A missing text is an empty document: it contributes
    nothing. For weighting, n-grams or the complement model, use :class:`~nbayes.TextClassifier`
    on the text alone.
    """

    family = "text"

    def __init__(self, names: list[str], n_classes: int) -> None:
        from .text import TextVectorizer

        super().__init__(names, n_classes)
        self.vectorizer = TextVectorizer()
        self.stats = FeatureSums(n_classes, int(self.vectorizer.n_features))

    def encode(self, frame: pl.DataFrame, *, fitting: bool) -> sp.csr_array:
        column = frame.get_column(self.names[0])
        if column.dtype != pl.String:
            raise ValueError(f"column {self.names[0]!r} must hold text for family 'text'.")
        texts = column.to_list()
        if fitting:
            chunks = [counted.X for counted in self.vectorizer.learn_counts(texts)]
        else:
            chunks = list(self.vectorizer.iter_counts(texts))
        if not chunks:
            return sp.csr_array((0, self.stats.counts.shape[1]))
        return sp.vstack(chunks, format="csr") if len(chunks) > 1 else sp.csr_array(chunks[0])

    def accumulate(self, block: sp.csr_array, cls: np.ndarray, weight: np.ndarray) -> None:
        self.stats.accumulate(block, cls, weight)

    def merge(self, other: TextColumns, positions: np.ndarray) -> None:
        self.vectorizer.merge_statistics(other.vectorizer)
        self.stats.merge(other.stats, positions)

    def reindex_classes(self, positions: np.ndarray, n_classes: int) -> None:
        self.stats.reindex_classes(positions, n_classes)

    def _alpha(self, settings: Settings) -> float:
        alpha = settings.alpha_for(self.names)
        return float(alpha if np.ndim(alpha) == 0 else alpha[0])

    def log_likelihood(self, block: sp.csr_array, settings: Settings) -> np.ndarray:
        return multinomial.log_likelihood(self.stats, block, self._alpha(settings))

    def explain_row(
        self, block: sp.csr_array, settings: Settings
    ) -> list[tuple[str, str, np.ndarray]]:
        words = int(block.sum())
        shown = f"<{words} word{'s' if words != 1 else ''}>"
        return [(self.names[0], shown, self.log_likelihood(block, settings)[0])]

    def describe(self, classes: np.ndarray, settings: Settings) -> str:
        table = multinomial.log_prob(self.stats, self._alpha(settings))
        seen = np.flatnonzero(self.stats.counts.sum(axis=0) > 0)
        lines = []
        for k, c in enumerate(classes):
            if seen.size == 0:
                break
            others = np.delete(table[:, seen], k, axis=0)
            ratio = table[k, seen] - (others.max(axis=0) if others.size else 0.0)
            best = seen[np.argsort(-ratio, kind="stable")[:5]]
            lines.append(
                f"  words most indicative of {c}: " + ", ".join(self.vectorizer.column_names(best))
            )
        head = (
            f"{self.names[0]}  (text, bag of words, multinomial, λ = {self._alpha(settings):g})\n"
        )
        rows = [self.stats.counts.sum(axis=1).tolist()]
        return head + _table(["tokens"], classes, rows) + "".join("\n" + line for line in lines)

    def state(self) -> dict[str, np.ndarray]:
        _, arrays = self.vectorizer._state()
        return {**self.stats.state(), **{f"vectorizer.{k}": v for k, v in arrays.items()}}

    def meta(self) -> dict:
        return {**super().meta(), "vectorizer": self.vectorizer._state()[0]}

    def check(self, n_classes: int) -> None:
        self.stats.check(n_classes, int(self.vectorizer.n_features))

    def load_state(self, state: dict[str, np.ndarray], meta: dict) -> None:
        own = {k: v for k, v in state.items() if not k.startswith("vectorizer.")}
        super().load_state(own, meta)
        vectorizer = {k[11:]: v for k, v in state.items() if k.startswith("vectorizer.")}
        self.vectorizer._load_state(meta["vectorizer"], vectorizer)


def feature_log_likelihoods(
    group: ColumnGroup, block: np.ndarray, settings: Settings
) -> np.ndarray:
    """log P(x_j | c) of one row for each column j of a group, shape (d, K); NaN where missing.

    Each column is scored alone (the others set missing), which reuses the group's own
    log-likelihood and so cannot disagree with it.
    """
    d = block.shape[1]
    rows = []
    for j in range(d):
        if block[0, j] != block[0, j]:
            rows.append(None)
            continue
        alone = np.full((1, d), np.nan)
        alone[0, j] = block[0, j]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnseenCategoryWarning)
            rows.append(group.log_likelihood(alone, settings)[0])
    # K columns even when every value is missing (the log-likelihood of an empty row is 0 · K)
    width = group.log_likelihood(np.full((1, d), np.nan), settings).shape[1]
    out = np.full((d, width), np.nan)
    for j, r in enumerate(rows):
        if r is not None:
            out[j] = r
    return out


__all__ = [
    "UNSEEN",
    "CategoricalColumns",
    "ColumnGroup",
    "GaussianColumns",
    "IntervalColumns",
    "KernelColumns",
    "PoissonColumns",
    "Settings",
    "TextColumns",
    "feature_log_likelihoods",
]
