"""The choice of ``continuous="auto"`` (:mod:`nbayes.families.auto`), made for many columns at once.

Each column's candidates are scored by the leave-one-out criterion of
:mod:`nbayes.families._selection` on its sketch keys. Here the keys of many columns are laid end
to end — column s owns rows offsets[s] … offsets[s+1] − 1 of (M, K) arrays — so that every
step that is the same arithmetic for each column (the Gaussian and counting candidates, the
scores log P^(−)(c | x), the criteria, the one-standard-error comparisons, λ, the missing values)
runs once over all of them, and only what depends on a column's own shape (its cut points, its
kernel density) is computed column by column. A table of 100,000 columns chooses in one pass
of array operations instead of 100,000 small ones; the columns go in blocks of about
``BLOCK_CELLS`` keys × classes, which bounds the memory.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _selection
from .sketch import EXACT, FeatureSketch

if TYPE_CHECKING:
    from ._group import Settings
    from .auto import AutoColumns

#: About how many (key, class) cells a block of columns holds: some thirty (M, K) arrays are
#: alive at once, so a block takes about 30 MB whatever the table.
BLOCK_CELLS = 1 << 17
#: The kernel density without point masses, a candidate for a column of few integer codes.
SMOOTH = "kde without point masses"
#: The fewest codes a column needs for that candidate: two codes have no neighbour to smooth
#: toward but each other, which is additive smoothing, the categorical candidate's own.
SMOOTH_MIN_CODES = 3
#: The candidates (families, and that kernel density), in the order that breaks ties.
CANDIDATES = ("gaussian", "categorical", "equal-frequency", "mdl", "kde", SMOOTH)
#: The chosen family whose λ ``alpha="auto"`` chooses: counting codes. (Not intervals: their cut
#: points were placed with every row, so leaving a row out of their counts flatters a small λ.)
COUNTED = ("categorical",)


@dataclass(frozen=True)
class Choice:
    """One column's representation and why: its family, how its missing values are treated,
    and the criterion of each candidate (leave-one-out conditional log-likelihood per row)."""

    family: str
    missing: str = "skip"
    scores: dict[str, float] = field(default_factory=dict)
    missing_gain: float = math.nan
    note: str = ""
    usual: str = "gaussian"
    candidate: str = ""  # the name in ``scores`` when it is not the family's (SMOOTH)
    alpha: float = 1.0  # λ of a counted family (chosen with alpha="auto")
    alpha_gain: float = math.nan  # its criterion's gain per row over λ = 1; NaN: not chosen

    @property
    def point_masses(self) -> bool:
        """False for a kernel density chosen without point masses."""
        return self.candidate != SMOOTH

    def reason(self) -> str:
        """The choice in words, for ``summary()`` and ``families_reasons_``."""
        if self.note:
            return self.note
        shown = ", ".join(
            f"{name} {value:.4f}" + (" (chosen)" if name == (self.candidate or self.family) else "")
            for name, value in self.scores.items()
        )
        verdict = (
            f"the usual {self.usual} stays: no candidate beats it by one standard error"
            if self.family == self.usual
            else f"beats the usual {self.usual} by more than one standard error"
        )
        text = f"leave-one-out log P(class | column) per row: {shown}; {verdict}"
        if self.alpha_gain == self.alpha_gain:
            text += f"; {alpha_reason(self.alpha, self.alpha_gain)}"
        if self.missing_gain == self.missing_gain:
            verb = "a category" if self.missing == "category" else "skipped"
            text += f"; missing values {verb} (as a category: {self.missing_gain:+.4f} per row)"
        return text


_CHOICE_FIELDS = dataclasses.fields(Choice)


#: The fields of a choice saved as one list per field (``scores``: one list per candidate).
_LISTED = ("family", "missing", "note", "usual", "candidate", "alpha", "missing_gain", "alpha_gain")


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _choice_from_json(data: Any) -> Choice:
    """One column's choice as files written before :func:`choices_json` saved it: an object of
    the choice's fields, NaN as None and the scores as [candidate, number] pairs; ValueError
    unless every field is of its kind (a family among the candidates, a known treatment of
    missing values, λ > 0)."""
    fields = {f.name for f in _CHOICE_FIELDS}
    if not isinstance(data, dict) or set(data) != fields:
        raise ValueError("a saved column choice must hold the fields of a choice.")
    scores = data["scores"]
    if not isinstance(scores, list) or not all(
        isinstance(p, list) and len(p) == 2 and isinstance(p[0], str)
        and isinstance(p[1], (int, float)) for p in scores
    ):
        raise ValueError("a saved column choice's scores must be [candidate, number] pairs.")
    gains = [data[name] for name in ("missing_gain", "alpha_gain")]
    if (
        data["family"] not in CANDIDATES[:-1]  # SMOOTH is a candidate of the family "kde"
        or data["candidate"] not in ("", SMOOTH)
        or (data["candidate"] == SMOOTH and data["family"] != "kde")
        or data["usual"] not in CANDIDATES
        or data["missing"] not in ("skip", "category")
        or not isinstance(data["note"], str)
        or not _number(data["alpha"])
        or not 0 < data["alpha"] < math.inf
        or not all(g is None or isinstance(g, (int, float)) for g in gains)
    ):
        raise ValueError(f"a saved column choice is malformed: {data!r:.200}")
    return Choice(
        data["family"],
        data["missing"],
        {name: float(value) for name, value in scores},
        math.nan if gains[0] is None else float(gains[0]),
        data["note"],
        data["usual"],
        data["candidate"],
        float(data["alpha"]),
        math.nan if gains[1] is None else float(gains[1]),
    )


def choices_json(choices: list[Choice]) -> dict:
    """The choices of a group's columns as JSON, one list per field (column k's value at k; NaN,
    which JSON lacks, and a candidate a column did not score, as None): a table of 100,000
    columns writes and reads a few long lists instead of 100,000 objects."""
    out: dict[str, Any] = {name: [getattr(c, name) for c in choices] for name in _LISTED}
    for name in ("missing_gain", "alpha_gain"):
        out[name] = [None if math.isnan(v) else v for v in out[name]]
    out["scores"] = {
        name: [c.scores.get(name) for c in choices]
        for name in CANDIDATES
        if any(name in c.scores for c in choices)
    }
    return out


def choices_from_json(data: Any, columns: int) -> list[Choice]:
    """The ``columns`` choices :func:`choices_json` wrote; ValueError unless every field holds
    one value of its kind per column (a family among the candidates, a known treatment of
    missing values, λ > 0, numbers or None where numbers belong)."""
    if not isinstance(data, dict) or set(data) != {*_LISTED, "scores"}:
        raise ValueError("saved column choices must hold the fields of a choice.")
    scores = data["scores"]
    lists = [data[name] for name in _LISTED]
    if not isinstance(scores, dict) or not set(scores) <= set(CANDIDATES):
        raise ValueError("saved column choices' scores must be lists named by candidates.")
    lists += scores.values()
    if not all(isinstance(v, list) and len(v) == columns for v in lists):
        raise ValueError(f"saved column choices must hold {columns} values of each field.")
    family, missing, note, usual, candidate, alpha, missing_gain, alpha_gain = lists[:8]

    def kinds(*values: list) -> set[type]:  # the types present, without a Python loop
        return set().union(*(map(type, v) for v in values))

    numbers = {int, float, type(None)}
    # (field, what it must hold, whether it does), checked in turn: a later check may assume
    # the earlier ones (the texts before they go into sets)
    checks: list[tuple[str, str, Any]] = [
        (
            "the text fields",
            "texts",
            lambda: kinds(family, missing, note, usual, candidate) <= {str},
        ),
        # SMOOTH is a candidate of the family "kde", not a family
        ("family", ", ".join(CANDIDATES[:-1]), lambda: set(family) <= set(CANDIDATES[:-1])),
        ("candidate", f"'' or {SMOOTH!r}", lambda: set(candidate) <= {"", SMOOTH}),
        (
            "candidate",
            f"{SMOOTH!r} only for the family 'kde'",
            lambda: all(f == "kde" for f, c in zip(family, candidate, strict=True) if c == SMOOTH),
        ),
        ("usual", ", ".join(CANDIDATES), lambda: set(usual) <= set(CANDIDATES)),
        ("missing", "'skip' or 'category'", lambda: set(missing) <= {"skip", "category"}),
        (
            "alpha",
            "numbers > 0",
            lambda: kinds(alpha) <= {int, float} and all(0 < v < math.inf for v in alpha),
        ),
        ("the gains", "numbers or None", lambda: kinds(missing_gain, alpha_gain) <= numbers),
        ("scores", "numbers or None", lambda: kinds(*scores.values()) <= numbers),
    ]
    for name, what, holds in checks:
        if not holds():
            raise ValueError(f"saved column choices are malformed: {name} must hold only {what}.")
    named = [(name, scores[name]) for name in CANDIDATES if name in scores]

    def real(value: Any) -> float:
        return math.nan if value is None else float(value)

    return [
        Choice(
            family[k],
            missing[k],
            {name: float(values[k]) for name, values in named if values[k] is not None},
            real(missing_gain[k]),
            note[k],
            usual[k],
            candidate[k],
            float(alpha[k]),
            real(alpha_gain[k]),
        )
        for k in range(columns)
    ]


def alpha_reason(alpha: float, gain: float) -> str:
    """λ chosen from the data (``alpha="auto"``), in words."""
    if alpha == 1.0:
        return "λ = 1: no smaller λ beats it by the group's standard-error bar"
    return f"λ = {alpha:g} chosen (beats λ = 1 by {gain:+.4f} per row)"


def few_integers(
    sketches: list[FeatureSketch], max_int_categories: int, rows: np.ndarray
) -> np.ndarray:
    """Which columns hold at most ``max_int_categories`` distinct values, all integers, each
    seen twice on average (at most rows / 2 of them), while their sketch is exact: a code, a
    rating, a count of legs."""
    n = len(sketches)
    sizes = np.fromiter((s.keys.shape[0] for s in sketches), np.int64, n)
    exact = np.fromiter((s.level == EXACT for s in sketches), bool, n)
    keys = np.concatenate([s.keys for s in sketches]) if n else np.zeros(0)
    non_integers = np.bincount(
        np.repeat(np.arange(n), sizes), weights=keys != np.round(keys), minlength=n
    )
    return exact & (sizes <= max_int_categories) & (2 * sizes <= rows) & (non_integers == 0)




@dataclass
class Keys:
    """The sketch keys of a block of columns, laid end to end."""

    columns: np.ndarray  # (s,) the block's columns, as indices into the group
    offsets: np.ndarray  # (s + 1,) column k owns rows offsets[k] … offsets[k+1] − 1
    segment: np.ndarray  # (M,) each key's column in the block
    weight: np.ndarray  # (M, K) W_{b,c}
    x: np.ndarray  # (M,) the value each key stands for

    @property
    def sizes(self) -> np.ndarray:
        """(s,) how many keys each column has."""
        return np.diff(self.offsets)

    def of(self, k: int) -> slice:
        """The rows of the block's column k."""
        return slice(int(self.offsets[k]), int(self.offsets[k + 1]))


def blocks(sketches: list[FeatureSketch], n_classes: int) -> list[np.ndarray]:
    """The columns in blocks of about ``BLOCK_CELLS`` cells (at least one column each)."""
    sizes = np.array([s.keys.shape[0] for s in sketches]) * max(n_classes, 1)
    out, start, held = [], 0, 0
    for j, size in enumerate(sizes):
        if held and held + size > BLOCK_CELLS:
            out.append(np.arange(start, j))
            start, held = j, 0
        held += size
    if start < len(sketches):
        out.append(np.arange(start, len(sketches)))
    return out


def lay_out(sketches: list[FeatureSketch], columns: np.ndarray, n_classes: int) -> Keys:
    """The keys of ``columns``' sketches, end to end."""
    chosen = [sketches[j] for j in columns]
    sizes = np.array([s.keys.shape[0] for s in chosen], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    weight = (
        np.concatenate([s.weight for s in chosen]) if chosen else np.zeros((0, n_classes))
    )
    x = np.concatenate([_selection.values(s) for s in chosen]) if chosen else np.zeros(0)
    return Keys(columns, offsets, np.repeat(np.arange(len(chosen)), sizes), weight, x)


def choose(group: AutoColumns, settings: Settings) -> list[Choice]:
    """Every column's :class:`~nbayes.families.auto.Choice` (see :mod:`nbayes.families.auto`)."""
    names, stats = group.names, group.stats
    sketches, moments = stats.sketches.features, stats.moments
    n_classes = stats.missing.shape[0]
    d = len(names)
    alphas = np.broadcast_to(settings.alpha_for(names), (d,)).astype(np.float64)
    codes = few_integers(sketches, settings.max_int_categories, moments.pooled_count)
    context = _Context(
        group,
        settings,
        alphas,
        codes,
        _selection.missing_bar(settings.missing_for(names), stats.missing),
        _selection.group_standard_errors(int(codes.sum())),
    )
    out: list[Choice] = []
    for columns in blocks(sketches, n_classes):
        out.extend(context.block(lay_out(sketches, columns, n_classes)))
    note = "no values observed: gaussian, the first candidate"
    return [
        Choice("gaussian", note=note, alpha=float(alphas[j])) if choice is None else choice
        for j, choice in enumerate(out)
    ]


@dataclass
class _Context:
    """What every block's choice reads: the group, its settings and the group-wide bars."""

    group: AutoColumns
    settings: Settings
    alphas: np.ndarray  # (d,) λ of each column (1 with alpha="auto")
    codes: np.ndarray  # (d,) which columns are a few integer codes
    missing_bar: float
    alpha_bar: float

    def block(self, keys: Keys) -> list[Choice | None]:
        """The choice of each column of a block (None for a column that observed nothing)."""
        stats, settings = self.group.stats, self.settings
        columns, offsets, segment, weight = keys.columns, keys.offsets, keys.segment, keys.weight
        observed = _selection.segment_sums(weight, offsets)  # (s, K) O_c
        missing = stats.missing[:, columns].T  # (s, K) M_c
        class_totals = observed + missing
        rows = stats.moments.pooled_count[columns]
        live = (observed.sum(axis=1) > 0) & (rows > 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            row_weight = np.where(rows > 0, np.minimum(1.0, observed.sum(axis=1) / rows), 1.0)
        delta = np.minimum(weight, row_weight[segment, None])
        per_key = class_totals[segment]
        alpha = self.alphas[columns]
        codes = self.codes[columns]

        found = self._candidates(keys, observed, delta, alpha, codes, row_weight, live)
        cells = {
            name: _selection.scores(full, own, delta, per_key)
            for name, (_, full, own) in found.items()
        }
        criteria = {name: _selection.totals(cells[name], weight, offsets) for name in found}
        # the best candidate, ties to the earlier one in CANDIDATES (absent ones never win)
        best = np.full(columns.shape[0], -1)
        top = np.full(columns.shape[0], -np.inf)
        for index, name in enumerate(CANDIDATES):
            if name in found:
                take = found[name][0] & ((best < 0) | (criteria[name] > top))
                best = np.where(take, index, best)
                top = np.where(take, criteria[name], top)
        usual = np.where(codes, CANDIDATES.index("categorical"), CANDIDATES.index("gaussian"))
        usual_present = np.where(codes, True, found["gaussian"][0])
        chosen = np.where(usual_present, usual, best)
        gain, error = _selection.margins(
            _pick(cells, best, segment), _pick(cells, chosen, segment), weight, row_weight, offsets
        )
        total_weight = observed.sum(axis=1)
        switch = (best != chosen) & _selection.beats(gain, error, total_weight / row_weight)
        chosen = np.where(switch, best, chosen)

        # λ of the columns chosen as counts (alpha="auto"), by the same criterion
        alpha_gain = np.full(columns.shape[0], math.nan)
        counting = np.isin(chosen, [CANDIDATES.index(n) for n in COUNTED]) & live
        if settings.choose_alpha and counting.any():
            n_values = keys.sizes[segment][:, None]

            def counted_cells(a: float) -> np.ndarray:
                full, own = _selection.counted_keys(
                    weight, observed[segment], n_values, delta, a
                )
                return _selection.scores(full, own, delta, per_key)

            lam, lam_gain = _selection.choose_alphas(
                counted_cells, weight, row_weight, offsets, self.alpha_bar
            )
            alpha = np.where(counting, lam, alpha)
            alpha_gain = np.where(counting, lam_gain, alpha_gain)
            a = alpha[segment][:, None]
            full, own = _selection.counted_keys(weight, observed[segment], n_values, delta, a)
            for name in COUNTED:
                present, _, _ = found[name]
                mine = counting & present
                rows_mine = mine[segment]
                found[name][1][rows_mine] = full[rows_mine]
                found[name][2][rows_mine] = own[rows_mine]
                cells[name][rows_mine] = _selection.scores(full, own, delta, per_key)[rows_mine]

        missing_mode, missing_gain = self._missing(
            keys, found, cells, chosen, alpha, delta, observed, missing, row_weight
        )
        out: list[Choice | None] = []
        for k in range(columns.shape[0]):
            if not live[k]:
                out.append(None)
                continue
            scores = {
                name: float(criteria[name][k] / total_weight[k])
                for name in CANDIDATES
                if name in found and found[name][0][k]
            }
            name = CANDIDATES[chosen[k]]
            family, candidate = ("kde", SMOOTH) if name == SMOOTH else (name, "")
            out.append(
                Choice(
                    family,
                    missing_mode[k],
                    scores,
                    float(missing_gain[k]),
                    usual=CANDIDATES[usual[k]],
                    candidate=candidate,
                    alpha=float(alpha[k]),
                    alpha_gain=float(alpha_gain[k]) if settings.choose_alpha else math.nan,
                )
            )
        return out

    def _candidates(
        self,
        keys: Keys,
        observed: np.ndarray,
        delta: np.ndarray,
        alpha: np.ndarray,
        codes: np.ndarray,
        row_weight: np.ndarray,
        live: np.ndarray,
    ) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Each candidate's (present (s,), full (M, K), own (M, K)) log-likelihoods."""
        stats, settings = self.group.stats, self.settings
        moments, sketches = stats.moments, stats.sketches.features
        columns, offsets, segment, weight = keys.columns, keys.offsets, keys.segment, keys.weight
        shape = weight.shape
        found: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

        # a class with two or more rows all of one value would get a Gaussian of variance ~ε, a
        # point mass that no held-out row of that class can contradict: no Gaussian then
        spread = _selection.segment_sums((weight > 0).astype(np.float64), offsets)
        degenerate = np.any((spread == 1) & (observed >= 2 * row_weight[:, None]), axis=1)
        pick = (columns[segment],)
        per_column = (moments.weight.T, moments.mean.T, moments.m2.T)
        full, own = _selection.gaussian(
            keys.x,
            delta,
            (
                *(array[pick] for array in per_column),
                moments.pooled_mean[pick][:, None],
                moments.pooled_variance()[pick][:, None],
            ),
            moments.epsilon(settings.var_smoothing, "per-column")[pick][:, None],
            settings.ddof,
            moments.variance_floor()[pick][:, None],
        )
        found["gaussian"] = (live & ~degenerate, full, own)

        # a column of a few integer codes: each code its own value; intervals would only
        # merge neighbouring codes, a coarser count of the same values
        n_values = keys.sizes[segment][:, None]
        full, own = _selection.counted_keys(
            weight, observed[segment], n_values, delta, alpha[segment][:, None]
        )
        found["categorical"] = (live & codes, full, own)
        for method in ("equal-frequency", "mdl"):
            found[method] = (live & ~codes, np.zeros(shape), np.zeros(shape))
        # the kernel densities of the block's columns in one call (a table may have 100,000)
        chosen = [sketches[j] for j in columns]
        shares = settings.point_masses_for([self.group.names[j] for j in columns])
        densities = (keys.offsets, keys.x, delta)
        found["kde"] = (
            live.copy(),
            *_selection.kernels(chosen, *densities, live, shares, settings.bandwidth, alpha),
        )
        # on codes, point masses are the codes of ≥ share of the weight, counted as categories,
        # and the kernels smooth only the rare ones; the density that smooths every code across
        # its neighbours is the alternative that differs from counting (with three codes or
        # more: two have no neighbour but each other)
        has_share = np.array([share is not None for share in shares], dtype=bool)
        smooth = live & codes & has_share & (keys.sizes >= SMOOTH_MIN_CODES)
        found[SMOOTH] = (
            smooth,
            *_selection.kernels(
                chosen, *densities, smooth, [None] * len(chosen), settings.bandwidth, alpha
            ),
        )
        for k in np.flatnonzero(live & ~codes):
            # what depends on a column's own shape: its cut points
            sketch, rows, a = sketches[columns[k]], keys.of(k), float(alpha[k])
            for method in ("equal-frequency", "mdl"):
                full, own = _selection.intervals(sketch, method, settings.bins, delta[rows], a)
                found[method][1][rows] = full
                found[method][2][rows] = own
        return {name: found[name] for name in CANDIDATES}

    def _missing(
        self,
        keys: Keys,
        found: dict,
        cells: dict,
        chosen: np.ndarray,
        alpha: np.ndarray,
        delta: np.ndarray,
        observed: np.ndarray,
        missing: np.ndarray,
        row_weight: np.ndarray,
    ) -> tuple[list[str], np.ndarray]:
        """Each column's treatment of missing values and the criterion's gain per row of
        missing as a category over skipping them (NaN for a column without missing values):
        every row's score, the rows missing the column last."""
        offsets, segment, weight = keys.offsets, keys.segment, keys.weight
        modes = self.settings.missing_for([self.group.names[j] for j in keys.columns])
        has = missing.sum(axis=1) > 0
        out_gain = np.full(keys.columns.shape[0], math.nan)
        if not has.any():
            return ["skip"] * len(modes), out_gain
        class_totals = observed + missing
        full = _pick({n: v[1] for n, v in found.items()}, chosen, segment)
        own = _pick({n: v[2] for n, v in found.items()}, chosen, segment)
        a = alpha[segment][:, None]
        extra_full, extra_own = _selection.observed_part(
            observed[segment], class_totals[segment], delta, a
        )
        rw = row_weight[:, None]
        skipped = _append_rows(
            _pick(cells, chosen, segment),
            _selection.missing_scores(missing, class_totals, rw),
            offsets,
        )
        as_category = _append_rows(
            _selection.scores(full + extra_full, own + extra_own, delta, class_totals[segment]),
            _selection.missing_scores(missing, class_totals, rw, observed, alpha[:, None]),
            offsets,
        )
        both = _append_rows(weight, missing, offsets)
        gain, error = _selection.margins(
            as_category, skipped, both, row_weight, offsets + np.arange(offsets.shape[0])
        )
        rows = class_totals.sum(axis=1) / row_weight
        category = _selection.beats(gain, error, rows, self.missing_bar)

        def treatment(k: int, mode: str) -> str:
            if not has[k]:  # nothing missing: nothing to treat
                return "skip"
            if mode != "auto":
                return mode
            return "category" if category[k] else "skip"

        out_modes = [treatment(k, mode) for k, mode in enumerate(modes)]
        with np.errstate(invalid="ignore", divide="ignore"):
            out_gain = np.where(has, gain / rows, math.nan)
        return out_modes, out_gain


def _pick(arrays: dict[str, np.ndarray], index: np.ndarray, segment: np.ndarray) -> np.ndarray:
    """Each key's row from the candidate ``index[its column]`` (indices into CANDIDATES)."""
    first = next(iter(arrays.values()))
    out = np.full(first.shape, -np.inf)
    for position, name in enumerate(CANDIDATES):
        if name in arrays:
            here = index[segment] == position
            out[here] = arrays[name][here]
    return out


def _append_rows(keys: np.ndarray, extra: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Each column's key rows followed by its row of ``extra`` ((s, K)): the layout of
    ``offsets + arange``."""
    s = offsets.shape[0] - 1
    out = np.empty((keys.shape[0] + s, keys.shape[1]))
    sizes = np.diff(offsets)
    position = np.arange(keys.shape[0]) + np.repeat(np.arange(s), sizes)
    out[position] = keys
    out[offsets[1:] + np.arange(s)] = extra
    return out
