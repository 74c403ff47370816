"""The protocol every family's statistics and column group follow.

A **statistics** object (:class:`Statistics`) is a commutative monoid of per-class sufficient
statistics: ``stats(A ∪ B) = stats(A) ⊕ stats(B)``. It can

* ``accumulate(block, cls, weight)`` one batch of encoded values (rows × columns) with each
  row's class index and weight;
* ``merge(other, positions)`` another's statistics, its class k landing on ``positions[k]``;
* ``reindex_classes(positions, n_classes)`` when the class list grows;
* ``state()`` → named arrays for model files, ``from_state(arrays)`` back, and ``check``
  those arrays against the model's shape before anything is computed from them.

A **column group** (:class:`ColumnGroup`) holds the statistics of all the columns of one family in
one table model, and the maths on them: ``log_likelihood(block, settings)`` → Σ_j log P(x_j | c)
of each row over the group's observed columns, shape (rows, K); ``describe`` for ``summary()``.
Turning table columns into blocks is the job of its **encoder** (:mod:`nbayes.encoding`), so the
group itself holds only statistics and maths. A missing value (NaN in a block) contributes
nothing, in fitting and in prediction, in every family.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from ..exceptions import UnseenCategoryWarning

if TYPE_CHECKING:  # Polars comes with the table models, not with the estimators
    import polars as pl


class Statistics(Protocol):
    """Mergeable per-class sufficient statistics of one family (see the module docstring)."""

    def accumulate(self, block: Any, cls: np.ndarray, weight: np.ndarray) -> None: ...

    def merge(self, other: Any, positions: np.ndarray) -> None: ...

    def reindex_classes(self, positions: np.ndarray, n_classes: int) -> None: ...

    def state(self) -> dict[str, np.ndarray]: ...

    def check(self, n_classes: int, n_features: int) -> None: ...


class Memo:
    """Mixin of statistics that keep derived parameters: the class sets ``self._cache = {}`` and
    clears it whenever its statistics change."""

    _cache: dict

    def cached(self, key: tuple, compute: Callable[[], Any]) -> Any:
        """``compute()``, kept under ``key`` until the statistics change (the cache is cleared)."""
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]


#: The point-mass share of a column that ``point_masses={...}`` does not name (the model's default).
POINT_MASSES = 0.1


class Settings:
    """The model parameters the families read when deriving their parameters."""

    def __init__(
        self,
        alpha: float | str | dict[str, float],
        var_smoothing: float,
        bandwidth: str | float,
        bins: int,
        unknown: str,
        *,
        ddof: int = 0,
        missing: str = "skip",
        text_alpha: float | None = None,
        point_masses: float | dict[str, float | None] | None = None,
        max_int_categories: int = 20,
    ) -> None:
        self.alpha = alpha
        # the value of the columns a {name: value} mapping of these settings leaves out
        self._unnamed: dict[str, Any] = {"alpha": 1.0, "point_masses": POINT_MASSES}
        self.var_smoothing = var_smoothing
        self.bandwidth = bandwidth
        self.bins = bins
        self.unknown = unknown
        self.ddof = ddof
        self.missing = missing
        self.text_alpha = text_alpha
        self.point_masses = point_masses
        self.max_int_categories = max_int_categories

    def missing_for(self, names: list[str]) -> list[str]:
        """How each column's missing values are treated: "auto" (chosen from the data), "skip"
        or "category"; one mode, or per column from a {name: mode} mapping (default "auto")."""
        if isinstance(self.missing, dict):
            return [str(self.missing.get(n, "auto")) for n in names]
        return [self.missing] * len(names)

    def point_masses_for(self, names: list[str]) -> list[float | None]:
        """Each column's point-mass share (see :mod:`nbayes.families.kde`): one share or None,
        or per column from a {name: share or None} mapping (default ``POINT_MASSES``)."""
        if isinstance(self.point_masses, dict):
            return [self.point_masses.get(n, self._unnamed["point_masses"]) for n in names]
        return [self.point_masses] * len(names)

    def with_point_masses(self, shares: dict[str, float | None]) -> Settings:
        """A copy of these settings in which the columns named in ``shares`` have those
        point-mass shares (the other columns keep theirs)."""
        return self._with_columns("point_masses", shares, self.point_masses)

    def _with_columns(self, name: str, values: dict[str, Any], unnamed: Any) -> Settings:
        """A copy in which setting ``name`` is ``values`` for the columns they name and, for
        the others, what it was: the same mapping's values, or ``unnamed``."""
        out = copy.copy(self)
        current = getattr(self, name)
        if isinstance(current, dict):
            setattr(out, name, {**current, **values})
        else:
            setattr(out, name, dict(values))
            out._unnamed = {**self._unnamed, name: unnamed}
        return out

    @property
    def choose_alpha(self) -> bool:
        """Whether λ is chosen from the data (``alpha="auto"``) for the columns that count
        (categorical, and numeric columns chosen as categories or intervals)."""
        return isinstance(self.alpha, str) and self.alpha == "auto"

    def alpha_for(self, names: list[str]) -> float | np.ndarray:
        """λ for each column: one number, or per column from a {name: λ} mapping (default 1);
        with ``"auto"``, 1 — the λ of the families that do not choose it, and the one a
        choice starts from."""
        if isinstance(self.alpha, dict):
            return np.array([float(self.alpha.get(n, self._unnamed["alpha"])) for n in names])
        if self.choose_alpha:
            return 1.0
        return float(self.alpha)

    def with_alpha(self, alphas: dict[str, float]) -> Settings:
        """A copy of these settings in which the columns named in ``alphas`` have that λ (the
        other columns keep theirs)."""
        return self._with_columns("alpha", alphas, self.alpha_for([]))


class ColumnGroup:
    """The columns ``names`` of one family in a table model: statistics and maths.

    Subclasses set ``stats`` (a :class:`Statistics`) and implement ``log_likelihood`` and
    ``describe``; they override ``encoder`` when the columns are not plain numbers.
    """

    family = ""

    def __init__(
        self,
        names: list[str],
        n_classes: int,
        *,
        family: str = "",
        dtypes: list[pl.DataType] | None = None,
        max_bins: int = 2048,
    ) -> None:
        self.names = list(names)
        if family:
            self.family = family
        from ..encoding import NumericEncoder

        self.encoder = NumericEncoder(self.names, self.family)

    # ------------------------------------------------------------------ data → statistics
    def encode(self, frame: pl.DataFrame, *, fitting: bool) -> Any:
        """The group's columns of ``frame`` as the block its statistics read."""
        return self.encoder.encode(frame, fitting=fitting)

    def accumulate(self, block: Any, cls: np.ndarray, weight: np.ndarray) -> None:
        self.stats.accumulate(block, cls, weight)

    def merge(self, other: ColumnGroup, positions: np.ndarray) -> None:
        self.stats.merge(other.stats, positions)

    def reindex_classes(self, positions: np.ndarray, n_classes: int) -> None:
        self.stats.reindex_classes(positions, n_classes)

    def remove(self, block: Any, cls: np.ndarray, weight: np.ndarray) -> None:
        """Take rows this group has counted back out: its statistics become those of the
        other rows. Counts and sums are linear in the weights, so adding the rows with weight
        −w removes them, up to round-off; families whose statistics are not sums, or whose
        sums decide what is present (a term, a kernel, a category), override this, the latter
        with :func:`zero_round_off`."""
        self.accumulate(block, cls, -weight)

    def frozen_choices(self, settings: Settings) -> dict:
        """The choices this group derived from its statistics (each column's family, λ,
        missing values), as the entries of its statistics' cache that hold them; computed now
        if they were not."""
        return {}

    def without(
        self, block: Any, cls: np.ndarray, weight: np.ndarray, settings: Settings
    ) -> ColumnGroup:
        """A copy of this group whose statistics lack the given rows, which keeps the choices
        :meth:`frozen_choices` returns (made from all the rows; what it leaves out, the copy
        derives from its own statistics): the held-out model of a cross-fitting."""
        chosen = self.frozen_choices(settings)
        held = copy.copy(self)
        # the copy's derived parameters would be dropped at once by ``remove``: not copied
        caches = [self.stats, *getattr(self.stats, "__dict__", {}).values()]
        fresh = {id(s._cache): {} for s in caches if isinstance(s, Memo)}
        held.stats = copy.deepcopy(self.stats, fresh)
        held.remove(block, cls, weight)
        if chosen:
            held.stats._cache.update(chosen)
        return held

    # ------------------------------------------------------------------ maths
    def log_likelihood(self, block: Any, settings: Settings) -> np.ndarray:
        """Σ_j log P(x_j | c) over the group's observed columns, shape (rows, K)."""
        raise NotImplementedError

    def describe(self, classes: np.ndarray, settings: Settings) -> str:
        """The fitted conditionals of each column, as text blocks separated by blank lines."""
        raise NotImplementedError

    def tables(
        self, classes: np.ndarray, settings: Settings, *, grid: int = 200
    ) -> dict[str, pl.DataFrame]:
        """Each column's fitted P(x_j | c) as a tidy frame, by column name (the columns of each
        family's frames: :mod:`nbayes.conditionals`)."""
        raise NotImplementedError

    def unseen_counts(self, block: Any, settings: Settings | None = None) -> dict[str, int]:
        """Per column, how many values of a block were never seen in fitting (categories)."""
        return {}

    def display(self, j: int, value: float) -> str:
        """An encoded value of column j as a person would write it."""
        return "missing" if value != value else format_value(value)

    def missing_terms(self, settings: Settings) -> np.ndarray | None:
        """log P(missing | c) of each column whose missing values are a value of their own, shape
        (d, K), NaN for the columns that skip them; None when every column skips them (the
        default: a missing value contributes nothing). A group that has them also takes
        ``missing_terms=False`` in ``log_likelihood``: missing values then contribute nothing,
        so that one column can be scored alone."""
        return None

    def explain_row(self, block: Any, settings: Settings) -> list[tuple[str, str, np.ndarray]]:
        """(column, value as shown, log P(x_j | c) per class; NaN if missing) for a one-row
        block, column by column."""
        per_feature = feature_log_likelihoods(self, block, settings)
        return [
            (name, self.display(j, block[0, j]), per_feature[j])
            for j, name in enumerate(self.names)
        ]

    # ------------------------------------------------------------------ model files
    def state(self) -> dict[str, np.ndarray]:
        """The arrays of the group's statistics (model files)."""
        return self.stats.state()

    def meta(self) -> dict:
        """JSON for the rest: the family, the columns and what the encoder learnt."""
        return {"family": self.family, "names": list(self.names), **self.encoder.meta()}

    def saved_choices(self, settings: Settings) -> Any:
        """The choices this group derived from its statistics, as JSON for the model file (so
        that loading never derives them again); None: the group makes none worth keeping."""
        return None

    def restore_choices(self, saved: Any, settings: Settings) -> None:
        """Take the choices :meth:`saved_choices` wrote (checked: ValueError if malformed)."""

    def load_state(self, state: dict[str, np.ndarray], meta: dict) -> None:
        if meta.get("family") != self.family or list(meta.get("names", [])) != self.names:
            raise ValueError(f"column group {self.names} does not match the schema.")
        # arrays lacking raise here; extra ones are refused by the model file's round trip
        self.stats = type(self.stats).from_state(state)
        self.encoder.load_meta(meta)

    def check(self, n_classes: int) -> None:
        """Check loaded statistics against the model's shape before anything uses them."""
        self.stats.check(n_classes, len(self.names))


#: What is left of a sum, relative to the sum before rows were taken out of it, that is
#: round-off: the rows took it to zero.
REMOVAL_ROUND_OFF = 1e-9


def zero_round_off(after: np.ndarray, before: np.ndarray) -> np.ndarray:
    """Set to zero, in place, the sums that taking rows out took to zero (|after| at most
    ``REMOVAL_ROUND_OFF`` |before|: the round-off of fractional weights or values, whose sign
    and size depend on the order the sums were taken in), so that a held-out copy sees a value
    its rows never had as absent, whatever that order; returns where."""
    gone = np.abs(after) <= REMOVAL_ROUND_OFF * np.abs(before)
    after[gone] = 0.0
    return gone


def feature_log_likelihoods(
    group: ColumnGroup, block: np.ndarray, settings: Settings
) -> np.ndarray:
    """log P(x_j | c) of one row for each column j of a group, shape (d, K); NaN where missing.

    Each column is scored alone (the others set missing), which reuses the group's own
    log-likelihood and so cannot disagree with it. Where missing values are a value of their own
    (``missing_terms``), the others are scored without their missing terms, and a missing x_j
    gets its own term log P(missing | c).
    """
    return column_terms(group, block, settings)[:, 0, :]


def column_terms(group: ColumnGroup, block: np.ndarray, settings: Settings) -> np.ndarray:
    """log P(x_ij | c) of every row i and column j of a dense group, shape (d, rows, K): each
    column scored alone by the group's own log-likelihood; NaN where x_ij is missing and
    skipped, log P(missing | c) where missing values are a value of their own."""
    n, d = block.shape
    missing = group.missing_terms(settings)
    options = {} if missing is None else {"missing_terms": False}
    width = group.log_likelihood(np.full((1, d), np.nan), settings, **options).shape[1]
    out = np.full((d, n, width), np.nan)
    for j in range(d):
        alone = np.full((n, d), np.nan)
        alone[:, j] = block[:, j]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnseenCategoryWarning)
            score = group.log_likelihood(alone, settings, **options)
        absent = np.isnan(block[:, j])
        score[absent] = np.nan if missing is None else missing[j]
        out[j] = score
    return out


# ---------------------------------------------------------------------- display
def format_number(value: float) -> str:
    """A fitted figure in a summary table: 0.125, 1.2e+07; a count (an int) as 73 or 12,500."""
    if isinstance(value, (int, np.integer)):
        return f"{value:,}"
    return f"{value:.3f}" if abs(value) < 1e5 else f"{value:.4g}"


#: The value an explanation shows for a column the model leaves out (an identifier).
LEFT_OUT = "left out"


def format_figure(value: float) -> str:
    """A probability or log-likelihood in a worked table: 0.125, 1.234e-05, -inf."""
    if value == 0 or not np.isfinite(value):
        return f"{value:.3f}" if np.isfinite(value) else ("-inf" if value < 0 else "inf")
    if abs(value) >= 0.001 and abs(value) < 1e5:
        return f"{value:.3f}"
    return f"{value:.3e}"


def format_value(value: float) -> str:
    """A data value as a person would write it: 35, 2.5, 1e+07."""
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else f"{value:.6g}"


def format_table(
    row_names: list[str], classes: np.ndarray, rows: list[list[float]], indent: str = "  "
) -> str:
    """Rows of per-class figures under a header of class labels."""
    width = max([len(str(c)) for c in classes] + [9])
    label_width = max([len(r) for r in row_names] + [1])
    lines = [indent + " " * label_width + "".join(f"  {c!s:>{width}}" for c in classes)]
    for name, values in zip(row_names, rows, strict=True):
        lines.append(
            indent
            + f"{name:<{label_width}}"
            + "".join(f"  {format_number(v):>{width}}" for v in values)
        )
    return "\n".join(lines)
