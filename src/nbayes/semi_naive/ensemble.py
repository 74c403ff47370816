"""An ensemble of selective k-DB models whose members rank the attributes differently (ESKDB:
Zhang, Petitjean & Buntine 2020, "Bayesian network classifiers using ensembles and smoothing",
Knowledge and Information Systems 62), averaged:

    P(c | x) = (1/M) Σ_m P_m(c | x)

where P_m is a selective k-DB (:mod:`nbayes.semi_naive.selective`) whose attributes are ranked
by member m's order. Member 0 ranks them by I(X_j; C), as selective k-DB does; member m ≥ 1
draws its ranking without replacement, each next attribute with probability proportional to
its I(X_j; C) among those left (:func:`~nbayes.semi_naive.structure.sampled_order`). Each member
then gives every attribute its k parents among the attributes ranked before it, by
I(X_j; X_p | C), and chooses its own number of attributes s and depth k' by leave-one-out loss
and the one-standard-error rule. So members differ in which attributes may be parents of which
and in which attributes they keep: an attribute that member 0 ranks late (and perhaps drops)
is ranked early by some other member, with other parents.

The draws are seeded by the member's index and the attributes' numbers of values, so the
ensemble is a deterministic function of the counts: one fit, any row order, batches read by
``fit_passes`` and Dask partitions give the same members. Three passes, as selective k-DB: the
pair counts (shared by the members), then each member's parent counts, then each member's
leave-one-out losses; ``merge`` refuses once the members have chosen.

With ``priors`` given per call, the ensemble's posterior is reweighted by π_c / P̂(c), P̂ the
fitted class prior: the prior shift of a posterior (Saerens, Latinne & Decaestecker 2002).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .._base import NaiveBayesClassifier
from .._state import SEPARATOR, nest, section
from .classifier import SemiNaiveClassifier, check_min_count, structure_constructor
from .memory import check_budget
from .network import StagedCounts
from .pairs import PairCounts
from .parents import ParentCounts, layout_bytes
from .selective import CRITERIA, SelectiveKDB, SummedLosses, merge_before_choosing


class EnsembleCounts:
    """The pair counts of pass 1, shared by the members, and once pass 2 has run each member's
    parent counts. Merges add the pair counts (pass 1 on Dask partitions)."""

    def __init__(self, pairs: PairCounts, parents: list[ParentCounts] | None = None) -> None:
        self.pairs = pairs
        self.parents = parents

    def accumulate(self, X: np.ndarray, cls: np.ndarray, weight: np.ndarray) -> None:
        self.pairs.accumulate(X, cls, weight)

    def merge(self, other: EnsembleCounts, positions: np.ndarray) -> None:
        if self.parents is not None or other.parents is not None:
            raise ValueError(
                "cannot merge ensemble members' parent counts: each member's structure is "
                "learnt from all rows' pair counts. Fit on all rows (fit_passes reads a source "
                "once per pass)."
            )
        self.pairs.merge(other.pairs, positions)

    def reindex_classes(self, positions: np.ndarray, n_classes: int) -> None:
        self.pairs.reindex_classes(positions, n_classes)
        for counts in self.parents or []:
            counts.reindex_classes(positions, n_classes)

    def state(self) -> dict[str, np.ndarray]:
        out = nest("pairs", self.pairs.state())
        for m, counts in enumerate(self.parents or []):
            out.update(nest(f"parents{m}", counts.state()))
        return out

    @classmethod
    def from_state(cls, state: dict[str, np.ndarray], members: int) -> EnsembleCounts:
        """Checked: the parent counts, when there are any, of exactly ``members`` members,
        numbered 0 … M − 1 (the arrays are grouped in one pass, and counted before any member
        is built)."""
        groups: dict[str, dict[str, np.ndarray]] = {}
        for name, array in state.items():
            head, _, rest = name.partition(SEPARATOR)
            if head != "pairs":
                groups.setdefault(head, {})[rest] = array
        expected = [f"parents{m}" for m in range(members)]
        if groups and sorted(groups) != sorted(expected):
            shown = sorted(groups)[:5]
            raise ValueError(
                f"an ensemble of {members} members holds the parent counts {shown}"
                f"{' …' if len(groups) > 5 else ''}, not those of members 0 to {members - 1}."
            )
        parents = [ParentCounts.from_state(groups[name]) for name in expected] if groups else None
        return cls(PairCounts.from_state(section("pairs", state)), parents)

    def check(self, n_classes: int, n_features: int) -> None:
        self.pairs.check(n_classes, n_features)
        for counts in self.parents or []:
            counts.check(n_classes, n_features)


def _log_ratio_to_evidence(scores: np.ndarray, log_prior: np.ndarray) -> np.ndarray:
    """ℓ(c) = log P(x | c) − log Σ_c' P̂(c') P(x | c') per row of ``scores`` (log P(x | c));
    0 for every class of a row whose evidence is 0 under the prior."""
    joint = scores + log_prior
    top = joint.max(axis=1, keepdims=True)
    possible = np.isfinite(top)
    shift = np.where(possible, top, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        evidence = shift + np.log(np.exp(joint - shift).sum(axis=1, keepdims=True))
        return np.where(possible, scores - evidence, 0.0)


def _log_mean_exp(values: np.ndarray) -> np.ndarray:
    """log (1/M) Σ_m exp values[m], over the first axis, −∞ where every value is."""
    top = values.max(axis=0)
    shift = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return shift + np.log(np.exp(values - shift).sum(axis=0) / values.shape[0])


class MemberStatistics:
    """One pass's statistics of every member (parent counts, or leave-one-out losses); they
    add member by member."""

    def __init__(self, parts: list[Any]) -> None:
        self.parts = parts

    def add(self, other: MemberStatistics) -> None:
        for mine, theirs in zip(self.parts, other.parts, strict=True):
            mine.add(theirs)


#: The fitted attributes a member shares with its ensemble.
_SHARED = ("classes_", "n_features_in_", "feature_names_in_", "_feature_names_seen", "class_count_")


class SelectiveKDBEnsemble(SemiNaiveClassifier):
    """An ensemble of selective k-DB models (see :mod:`nbayes.semi_naive.ensemble`) over
    integer codes.

    Parameters
    ----------
    members : int, default 5
        M, the number of selective k-DB models averaged (ESKDB's default). 1 is selective k-DB.
    k, criterion, alpha, min_count
        Each member's, as :class:`~nbayes.semi_naive.SelectiveKDB`.
    smoothing : {"lidstone", "m-estimate", "hierarchical"}, default "hierarchical"
        As :class:`~nbayes.semi_naive.SelectiveKDB`; hierarchical, as ESKDB's members are
        (there with the concentrations sampled, here fixed).
    class_prior, prior_alpha, loss, max_memory
        As :class:`~nbayes.semi_naive.KDB`; ``max_memory`` bounds the members' parent counts
        together.

    Attributes
    ----------
    selections_ : list of (int, int)
        Each member's (attributes used, k').
    leave_one_out_losses_, leave_one_out_squares_ : ndarray of shape (M, d + 1, k + 1, 3)
        The members' leave-one-out tables.
    """

    __init__ = structure_constructor(
        "members", members=5, k=3, criterion="log-loss", alpha=1.0, smoothing="hierarchical",
        min_count=1,
    )  # fmt: skip

    passes = 3  # type: ignore[assignment]

    def _check_params(self) -> None:
        super()._check_params()
        for name, least in (("members", 1), ("k", 0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < least:
                raise ValueError(f"{name} must be an integer >= {least}, got {value!r}.")
        if self.criterion not in CRITERIA:
            raise ValueError(f"criterion must be one of {CRITERIA}, got {self.criterion!r}.")
        check_min_count(self.min_count)

    def _merge_key(self) -> tuple:
        return (*super()._merge_key(), ("k", int(self.k)), ("members", int(self.members)))

    def _reset(self, classes: np.ndarray, n_features: int) -> None:
        for name in ("selections_", "leave_one_out_losses_", "leave_one_out_squares_"):
            self.__dict__.pop(name, None)
        super()._reset(classes, n_features)

    def _new_stats(self, n_classes: int, n_features: int) -> EnsembleCounts:
        return EnsembleCounts(super()._new_stats(n_classes, n_features))

    def _stats_from_state(self, state: dict[str, np.ndarray]) -> EnsembleCounts:  # type: ignore[override]
        return EnsembleCounts.from_state(state, int(self.members))

    @property
    def _pairs(self) -> PairCounts:
        return self._stats.pairs

    # ------------------------------------------------------------------ members
    def _member(self, m: int) -> SelectiveKDB:
        """Member m as a selective k-DB sharing this model's pair counts (and, once passes 2
        and 3 have run, holding its parent counts and choice)."""
        member = SelectiveKDB(
            k=self.k, criterion=self.criterion, alpha=self.alpha, smoothing=self.smoothing,
            min_count=self.min_count, class_prior=self.class_prior,
            prior_alpha=self.prior_alpha, max_memory=self.max_memory,
        )  # fmt: skip
        member._member = m
        for name in _SHARED:
            if hasattr(self, name):
                setattr(member, name, getattr(self, name))
        parents = self._stats.parents
        member._stats = StagedCounts(self._stats.pairs, None if parents is None else parents[m])
        if hasattr(self, "selections_"):
            member.n_attributes_, member.k_ = self.selections_[m]
            member.leave_one_out_losses_ = self.leave_one_out_losses_[m]
            member.leave_one_out_squares_ = self.leave_one_out_squares_[m]
        return member

    def _members(self) -> list[SelectiveKDB]:
        return [self._member(m) for m in range(int(self.members))]

    @property
    def members_(self) -> list[SelectiveKDB]:
        """The fitted members, member 0 first (the attributes ranked by I(X_j; C))."""
        self._check_fitted()
        self._check_chosen()
        return self._members()

    # ------------------------------------------------------------------ passes
    def _pass_statistics(self, number: int) -> MemberStatistics:
        members = self._members()
        if number == 2:
            self._check_parent_budget(members)
            return MemberStatistics([m._pass_statistics(2) for m in members])
        return MemberStatistics([SummedLosses(m._empty_losses()) for m in members])

    def _check_parent_budget(self, members: list[SelectiveKDB]) -> None:
        """The members' parent counts together, against ``max_memory``, before any is built."""
        pairs = self._pairs
        k, K = int(self.k), pairs.n_classes
        needed = sum(
            layout_bytes(pairs.n_values, *m._learnt_structure().arrays(k), K) for m in members
        )
        check_budget(
            f"the parent counts of {len(members)} ensemble members",
            needed,
            self._budget(),
            n_values=pairs.n_values,
            n_classes=pairs.n_classes,
            names=self._names(),
            remedies=[
                "fewer members (members=)",
                "a smaller k (each parent multiplies an attribute's table by its number of values)",
                "fewer values per attribute (coarser intervals, rare categories merged)",
            ],
        )

    def _pass_accumulate(
        self, number: int, statistics: Any, X: np.ndarray, cls: np.ndarray, weight: np.ndarray
    ) -> None:
        for member, part in zip(self._members(), statistics.parts, strict=True):
            member._pass_accumulate(number, part, X, cls, weight)

    def _pass_finish(self, number: int, statistics: Any) -> None:
        if number == 2:
            self._stats.parents = list(statistics.parts)
            return
        members = self._members()
        for member, part in zip(members, statistics.parts, strict=True):
            member._choose(part.table)
        self.selections_ = [(m.n_attributes_, m.k_) for m in members]
        self.leave_one_out_losses_ = np.stack([m.leave_one_out_losses_ for m in members])
        self.leave_one_out_squares_ = np.stack([m.leave_one_out_squares_ for m in members])

    # ------------------------------------------------------------------ prediction
    def _score_rows(self, X: np.ndarray, out: np.ndarray) -> int:
        """log P(x | c) := log (1/M) Σ_m exp ℓ_m(c), with ℓ_m(c) = log P_m(x | c) − log P_m(x)
        and P_m(x) = Σ_c' P̂(c') P_m(x | c'): where P̂(c) > 0, exp ℓ_m(c) = P_m(c | x) / P̂(c),
        so the base's log P̂(c) (or the log of ``priors``) added gives the members' averaged
        (prior-shifted) posterior up to a constant per row; one member gives its own scores,
        up to that constant. Averaged in logarithms (no exp that underflows), and a row that a
        member finds impossible for every class takes no evidence from that member (its prior,
        as its own prediction falls back to)."""
        self._check_chosen()
        log_prior = self._class_log_prior()
        ratios = np.empty((int(self.members), *out.shape))
        unseen = 0
        for m, member in enumerate(self._members()):
            scores = np.zeros_like(out)
            found = member._score_rows(X, scores)
            unseen = found if m == 0 else unseen  # every member meets the same unseen codes
            ratios[m] = _log_ratio_to_evidence(scores, log_prior)
        out[:] = _log_mean_exp(ratios)
        return unseen

    def _check_chosen(self) -> None:
        """A clear error where the passes did not all run (a fit that failed part way)."""
        if not hasattr(self, "selections_"):
            raise ValueError(
                f"{self._name}: its passes did not all run (a fit stopped before its members "
                "chose their attributes); fit it again."
            )

    def _used_edges(self) -> np.ndarray:
        """Every member's edges (child, parent) among the attributes and depth it selected,
        each once, sorted."""
        edges = np.concatenate([m._used_edges() for m in self._members()])
        return np.unique(edges, axis=0) if len(edges) else edges

    def _memory_needed(self) -> int:
        pairs = self._pairs
        return pairs.estimate(pairs.n_values) + sum(
            p.bytes_needed() for p in self._stats.parents or []
        )

    # ------------------------------------------------------------------ model files
    def _to_state(self) -> tuple[dict, dict[str, np.ndarray]]:
        meta, arrays = super()._to_state()
        meta["selections"] = [[int(s), int(k)] for s, k in self.selections_]
        # model files hold arrays of at most 3 dimensions: the members' tables one after another
        for name in ("leave_one_out_losses", "leave_one_out_squares"):
            table = getattr(self, name + "_")
            arrays[name] = table.reshape(-1, *table.shape[2:])
        return meta, arrays

    def _restore_fitted(self, meta: dict, arrays: dict[str, np.ndarray]) -> None:
        M, d, k = int(self.members), self.n_features_in_, int(self.k)
        parents = self._stats.parents
        if parents is None or len(parents) != M:
            raise ValueError(f"an ensemble file must hold the parent counts of its {M} members.")
        shape = (M * (d + 1), k + 1, len(CRITERIA))
        tables = {}
        for name in ("leave_one_out_losses", "leave_one_out_squares"):
            table = np.asarray(arrays[name], dtype=np.float64)
            if table.shape != shape:
                raise ValueError(f"{name} has shape {table.shape}, not {shape}.")
            tables[name] = table.reshape(M, d + 1, k + 1, len(CRITERIA)).copy()
        selections = meta.get("selections")
        if not (
            isinstance(selections, list) and len(selections) == M
            and all(
                isinstance(pair, list) and len(pair) == 2
                and all(isinstance(v, int) and not isinstance(v, bool) for v in pair)
                and 0 <= pair[0] <= d and 0 <= pair[1] <= k
                for pair in selections
            )
        ):  # fmt: skip
            raise ValueError(f"the members' selections are invalid: {str(selections)[:200]}.")
        self.selections_ = [tuple(pair) for pair in selections]
        self.leave_one_out_losses_ = tables["leave_one_out_losses"]
        self.leave_one_out_squares_ = tables["leave_one_out_squares"]

    def edges(self) -> list[dict]:
        """Every member's learnt edges as data (:meth:`KDB.edges`), each record with its
        ``member``."""
        self._check_fitted()
        self._check_chosen()
        return [
            {"member": m, **edge}
            for m, member in enumerate(self._members())
            for edge in member.edges()
        ]

    # ------------------------------------------------------------------ description
    def _describe_structure(self, names: list[str]) -> list[str]:
        self._check_chosen()
        lines = [
            f"{int(self.members)} selective k-DB members, averaged (member 0 ranks the "
            "attributes by I(X; C); the others draw their rankings in proportion to it):"
        ]
        for m, member in enumerate(self._members()):
            order = member._structure().order
            kept = ", ".join(names[j] for j in order[: member.n_attributes_]) or "none"
            lines.append(
                f"  member {m}: {member.n_attributes_} attributes, at most {member.k_} "
                f"parent(s) each: {kept}"
            )
        return lines

    def merge(self, *others: NaiveBayesClassifier) -> SelectiveKDBEnsemble:
        """Refused once the members have chosen (see :class:`SelectiveKDB`); models holding
        only the pair counts of pass 1 add, as Dask's passes do."""
        return merge_before_choosing(
            self, others, hasattr(self, "selections_"), "each member's structure and choice of "
            "attributes and k come from all rows' counts and leave-one-out predictions",
        )  # fmt: skip
