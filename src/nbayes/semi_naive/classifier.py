"""What the semi-naive estimators share: integer-code input, smoothing, memory budget, unseen
codes, and fitting in passes.

Every model scores a row chunk with a log-likelihood log P(x | c) computed from counts; the base
:class:`nbayes._base.NaiveBayesClassifier` adds log P(c) (``class_prior``, or ``priors=`` per
call) and turns the (rows, K) scores into posteriors and decisions (with ``loss``), chunk by
chunk.

**Input.** X holds integer codes 0 … v_j − 1 per attribute (as scikit-learn's CategoricalNB),
NaN (or a negative code) where a value is missing. v_j grows with the largest code seen. At
prediction a code never seen in fitting is treated as missing, with one
:class:`~nbayes.exceptions.UnseenCategoryWarning` per call.

**Smoothing.** Every conditional estimate has the form

    P̂(x | c, u) = (N(c, u, x) + p) / (N(c, u) + v p)

with v the child's number of values and the pseudo-count p = λ (``smoothing="lidstone"``:
λ = ``alpha``, 1 = Laplace) or p = m / v (``smoothing="m-estimate"``, m = ``alpha``: Weka's
m-estimate with a uniform prior, (N(c, u, x) + m/v) / (N(c, u) + m)). N(c, u) counts only the rows
where the child is observed too; an empty N(c, u) gives 1/v. ``smoothing="hierarchical"`` (TAN,
k-DB, selective k-DB; AODE, WAODE, AODEsr and HNB for their one-parent estimates) shrinks each
estimate towards the one with one parent fewer instead of towards the uniform:
P̂(x | c, u) = (N(c, u, x) + v λ P̂(x | c, u⁻)) / (N(c, u) + v λ), u⁻ the first L − 1 of the L
parents' values and P̂(x | c) Lidstone's — the posterior mean of a hierarchy of Dirichlet priors
with concentration v λ at every level, the closed form (with the concentrations fixed rather
than sampled) of the hierarchical Dirichlet smoothing of Petitjean, Buntine, Webb & Zaidi (2018,
Machine Learning 107). A2DE's two-parent estimates read it as Lidstone's.

**Passes.** A model is one pass (``partial_fit``, ``merge`` exact) when its statistics are the
pair (or triple) counts: AODE, AnDE, WAODE, AODEsr, HNB, TAN, k-DB with k = 1. k-DB with k ≥ 2
counts each attribute with its parents once the structure is known (2 passes); selective k-DB
adds a leave-one-out pass (3). :meth:`SemiNaiveClassifier.fit_passes` reads a re-readable
source once per pass.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from .. import _threads
from .._base import NaiveBayesClassifier, class_index
from .._dispatch import dask_aware
from .._json import from_json
from .._params import constructor
from .._pass_log import logged_pass
from .._state import section
from .._validation import check_positive_number, check_sample_weight, check_target
from ..estimators import category_codes
from ..exceptions import UnseenCategoryWarning, caller_stacklevel
from .memory import DEFAULT_MAX_MEMORY, parse_memory
from .pairs import PairCounts

SMOOTHING = ("lidstone", "m-estimate", "hierarchical")

# the type of every parameter a structure may take (each structure documents its meaning)
PARAMETER_TYPES = {
    "n": "int",
    "members": "int",
    "k": "int",
    "criterion": "str",
    "alpha": "float",
    "smoothing": "str",
    "root": "int | None",
    "min_count": "float",
    "weighting": "str | None",
    "subsumption": "float | None",
    "class_prior": "Any",
    "prior_alpha": "float | None",
    "loss": "Any",
    "max_memory": "int | str",
}


def structure_constructor(*positional: str, **defaults: Any) -> Callable[..., None]:
    """The ``__init__`` of a structure: its own parameters (``defaults``, in order; those named
    in ``positional`` may be passed by position), then the ones every structure takes:
    ``class_prior``, ``prior_alpha``, ``loss`` and ``max_memory``."""
    return constructor(
        *positional,
        annotations=PARAMETER_TYPES,
        **defaults,
        class_prior=None,
        prior_alpha=None,
        loss=None,
        max_memory=DEFAULT_MAX_MEMORY,
    )


def check_min_count(value: Any) -> None:
    """``min_count`` (how often a parent's value must have been seen to be used): a number >= 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"min_count must be a number >= 0, got {value!r}.")
    if value < 0:
        raise ValueError(f"min_count must be >= 0, got {value!r}.")


class Encoded:
    """Codes a table model has already encoded (a float array, NaN missing), with the names of
    its columns: the estimators take them without checking the codes again."""

    def __init__(self, codes: np.ndarray, names: list[str]) -> None:
        self.codes = codes
        self.names = np.asarray(names, dtype=object)


def scoring_blocks(
    n_rows: int, work_per_row: float, *, minimum: int = 64
) -> tuple[int, list[tuple[int, int]]]:
    """Threads for a scoring kernel whose rows cost about ``work_per_row`` inner-loop steps each,
    and the blocks of rows (at least ``minimum`` each) they share (:mod:`nbayes._threads`)."""
    threads = _threads.plan(n_rows * work_per_row)
    return threads, _threads.blocks(n_rows, threads, minimum=minimum)


class SemiNaiveClassifier(NaiveBayesClassifier):
    """Base of the semi-naive estimators (see the module docstring)."""

    _allows_nan = True
    _positive_only = True
    _categorical_input = True
    #: 1 for the pair statistics, 2 for the triples of A2DE.
    _order = 1
    #: Passes over the data a fit needs (1: partial_fit and merge are exact).
    passes = 1

    # ------------------------------------------------------------------ parameters
    def _check_params(self) -> None:
        super()._check_params()
        if isinstance(self.alpha, bool) or not isinstance(self.alpha, numbers.Real):
            raise ValueError(f"alpha must be a number >= 0, got {self.alpha!r}.")
        check_positive_number(self.alpha, "alpha")
        if self.smoothing not in SMOOTHING:
            raise ValueError(f"smoothing must be one of {SMOOTHING}, got {self.smoothing!r}.")
        if self.prior_alpha is not None:
            check_positive_number(self.prior_alpha, "prior_alpha")
        parse_memory(self.max_memory)

    def _prior_spec(self) -> str | np.ndarray:
        return "mle" if self.class_prior is None else self.class_prior

    def _prior_alpha(self) -> float:
        return 1.0 if self.prior_alpha is None else float(self.prior_alpha)

    def _merge_key(self) -> tuple:
        return (("order", self._order),)

    def _budget(self) -> int:
        return parse_memory(self.max_memory)

    def _new_stats(self, n_classes: int, n_features: int) -> Any:
        stats = PairCounts(
            n_classes, n_features, order=self._order, max_memory=self._budget(),
            names=self._names(),
        )  # fmt: skip
        stats._check_memory(stats.n_values)  # the index tables of d attributes, before any value
        return stats

    def _memory_needed(self) -> int:
        """Bytes the fitted statistics and the tables a prediction builds from them take: the
        larger of the pair (or triple) counts' estimate and the parent counts' (fitting checks
        each against ``max_memory``). Computed from the sizes alone; :func:`nbayes.load` checks
        it against its own bound before any of those tables is built."""
        pairs = self._pairs
        needed = pairs.estimate(pairs.n_values)
        parents = getattr(self._stats, "parents", None)
        if parents is not None:
            needed = max(needed, parents.bytes_needed())
        return needed

    @property
    def _pairs(self) -> PairCounts:
        return self._stats

    def _pseudo(self) -> np.ndarray:
        """Pseudo-count p_j of each attribute: λ, or m / v_j for the m-estimate."""
        v = np.maximum(self._pairs.n_values, 1).astype(np.float64)
        alpha = float(self.alpha)
        return alpha / v if self.smoothing == "m-estimate" else np.full(v.shape, alpha)

    @property
    def _hierarchical(self) -> bool:
        return self.smoothing == "hierarchical"

    # ------------------------------------------------------------------ input
    def _validate_X(self, X: Any, *, reset: bool) -> np.ndarray:
        if not isinstance(X, Encoded):
            return super()._validate_X(X, reset=reset)
        if reset:
            self._feature_names_seen = X.names
        elif X.codes.shape[1] != self.n_features_in_ or np.any(X.names != self.feature_names_in_):
            raise ValueError(f"{self._name}: the encoded columns differ from those fitted.")
        return X.codes

    def _prepare(self, X: np.ndarray, *, fitting: bool) -> np.ndarray:
        return category_codes(X, estimator=self._name, names=self._names())

    # ------------------------------------------------------------------ prediction
    def _score_rows(self, X: np.ndarray, out: np.ndarray) -> int:
        """Write log P(x | c) of each row of X into ``out``; return the unseen codes met."""
        raise NotImplementedError

    def _log_likelihood(self, X: np.ndarray) -> np.ndarray:
        return self._log_likelihood_in_one_chunk(X)

    def _chunk_log_likelihood(self, X: np.ndarray, start: int, notes: dict) -> np.ndarray:
        out = np.zeros((X.shape[0], len(self.classes_)))
        if X.shape[0]:
            unseen = int(self._score_rows(X, out))
            if unseen:
                with np.errstate(invalid="ignore"):
                    per_feature = (X >= self._pairs.n_values).sum(axis=0)
                notes["unseen"] = notes.get("unseen", 0) + per_feature
        return out

    def _report(self, notes: dict) -> None:
        if "unseen" not in notes:
            return
        names = self._feature_names
        detail = ", ".join(
            f"{names[j]!r}: {int(n)}" if names is not None else f"feature {j}: {int(n)}"
            for j, n in enumerate(notes["unseen"])
            if n
        )
        # a table's columns are named (the words NaiveBayes uses); an array's are its features
        # and its values category codes
        values, per = ("values", "column") if names is not None else ("category codes", "feature")
        warnings.warn(
            f"{self._name}: {values} not seen in fitting were treated as missing; per "
            f"{per}: {detail}.",
            UnseenCategoryWarning,
            stacklevel=caller_stacklevel(),
        )

    # ------------------------------------------------------------------ model files
    @classmethod
    def _stats_from_state(cls, state: dict[str, np.ndarray]) -> Any:
        return PairCounts.from_state(state)

    @classmethod
    def _from_state(cls, meta: dict, arrays: dict[str, np.ndarray]) -> SemiNaiveClassifier:
        """Rebuild a fitted model from :meth:`_to_state`'s output, checking every array.

        The file's parameters must be exactly this class's (a file of one model never loads as
        another: HNB's parameters are a subset of AODE's), and valid for it (a WAODE weights its
        super-parents; a TAN's root is one of its attributes)."""
        params = from_json(meta["params"])
        if not isinstance(params, dict) or sorted(params) != sorted(cls._param_names()):
            names = sorted(params) if isinstance(params, dict) else type(params).__name__
            raise ValueError(
                f"the parameters {str(names)[:200]} are not {cls.__name__}'s "
                f"({sorted(cls._param_names())})."
            )
        model = cls(**params)
        model._check_params()
        model._restore_common(meta, arrays)
        # (on the model: an ensemble checks its members' counts against its parameters)
        stats = model._stats_from_state(section("stats", arrays))
        stats.check(len(model.classes_), model.n_features_in_)
        pairs = stats if isinstance(stats, PairCounts) else stats.pairs
        if pairs.order != model._order:
            raise ValueError(f"the counts are of order {pairs.order}, the model's {model._order}.")
        pairs.max_memory = model._budget()
        pairs.names = model._feature_names
        model._stats = stats
        model._restore_fitted(meta, arrays)
        return model

    def _restore_fitted(self, meta: dict, arrays: dict[str, np.ndarray]) -> None:
        """Fitted attributes beyond the counts (selective k-DB's choice)."""

    # ------------------------------------------------------------------ explanation
    def _explain_lines(self, codes: np.ndarray, names: list[str], show) -> tuple[str, list]:
        """(kind, lines) of the worked table; a structure without factors to show (HNB, whose
        hidden parents are mixtures) gives none: its explanation is the posterior and each
        attribute's term."""
        return "terms", []

    def explain(self, row: Any, *, priors: Any = None, _names=None, _show=None):
        """The computation for one row of codes: per attribute P(x_j | c, parents) with the
        parents used (TAN, k-DB), or per super-parent its share of P(c, x) (AODE family).
        ``print()`` it for a table; its ``lines`` hold the numbers."""
        from .explain import SemiNaiveExplanation

        self._check_fitted()
        codes = np.asarray(row.codes if isinstance(row, Encoded) else row, dtype=np.float64)
        codes = codes.reshape(1, -1) if codes.ndim == 1 else codes
        if codes.shape != (1, self.n_features_in_):
            raise ValueError(f"explain takes one row of {self.n_features_in_} codes.")
        names = _names or self._feature_names or [f"x{j}" for j in range(self.n_features_in_)]
        show = _show or (lambda j, v: str(int(v)))
        kind, lines = self._explain_lines(codes[0], names, show)
        given = row if isinstance(row, Encoded) else codes
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnseenCategoryWarning)
            posterior = self.predict_proba(given, priors=priors)[0]
            decision = self.predict(given, priors=priors)[0]
        prior = np.exp(self._class_log_prior(priors))
        return SemiNaiveExplanation(kind, self.classes_, lines, prior, posterior, decision)

    def summary(self) -> str:
        """The fitted model: classes and prior, attributes and their values, the structure."""
        self._check_fitted()
        names = self._feature_names or [f"x{j}" for j in range(self.n_features_in_)]
        prior = np.exp(self._class_log_prior())
        values = ", ".join(f"{n} ({v})" for n, v in zip(names, self.n_values_, strict=True))
        total = self.class_count_.sum()
        # whole class counts: rows (unit weights); others are sums of sample weights
        whole = bool(np.all(self.class_count_ == np.round(self.class_count_)))
        rows = f"{round(total):,} training rows" if whole else f"weight {total:,.3f} (weighted)"
        parts = [
            f"{self._name}: {rows}, "
            f"{len(self.classes_)} classes, {self.n_features_in_} attributes, "
            f"{self.passes} pass(es) over the data",
            "class prior: "
            + ", ".join(f"{c}: {p:.4f}" for c, p in zip(self.classes_, prior, strict=True)),
            f"values per attribute: {values}",
        ]
        parts += self._describe_structure(names)
        return "\n".join(parts)

    def _describe_structure(self, names: list[str]) -> list[str]:
        return []

    def __str__(self) -> str:
        return self.summary() if hasattr(self, "classes_") else repr(self)

    @property
    def n_values_(self) -> np.ndarray:
        """v_j, the number of values (codes 0 … v_j − 1) of each attribute seen in fitting."""
        self._check_fitted()
        return self._pairs.n_values.copy()

    # ------------------------------------------------------------------ passes
    def _later_passes(self, source: Callable[[], Iterable[tuple]]) -> None:
        """Passes 2, 3, … over ``source`` (batches of prepared codes, class index, weight), once
        the pair counts of pass 1 are complete. One-pass models have none."""
        for number in range(2, self.passes + 1):
            with logged_pass(f"{self._name}'s pass {number} of {self.passes}"):
                statistics = self._pass_statistics(number)
                for X, cls, weight in source():
                    self._pass_accumulate(number, statistics, X, cls, weight)
                self._pass_finish(number, statistics)

    # The passes after the first, one protocol for batches here and for Dask partitions
    # (nbayes.distributed._passes): empty statistics, filled from batches, added, then taken.
    def _pass_statistics(self, number: int) -> Any:
        """The empty statistics of pass ``number`` (they have ``add(other)``)."""
        raise NotImplementedError

    def _pass_accumulate(
        self, number: int, statistics: Any, X: np.ndarray, cls: np.ndarray, weight: np.ndarray
    ) -> None:
        """Add a batch of prepared codes to pass ``number``'s statistics."""
        raise NotImplementedError

    def _pass_finish(self, number: int, statistics: Any) -> None:
        """Take pass ``number``'s statistics, summed over all the rows."""
        raise NotImplementedError

    def _pass_batch(self, X: Any, y: Any, sample_weight: Any) -> tuple:
        """A raw batch as the later passes read it: (codes, class indices, weights)."""
        array = self._validate_X(X, reset=False)
        labels = check_target(y, array.shape[0], estimator=self._name)
        weight = check_sample_weight(sample_weight, array.shape[0], estimator=self._name)
        codes = self._prepare(array, fitting=True)
        return codes, class_index(self.classes_, labels, estimator=self._name), weight

    def _check_one_pass(self, action: str) -> None:
        if self.passes > 1:
            raise AttributeError(
                f"{self._name} needs {self.passes} passes over the data (the structure is learnt "
                f"from all rows before it is counted), so {action} cannot build it batch by "
                "batch. Use fit(X, y) on all rows, or the staged protocol: fit_passes(source) "
                "with a source that can be read once per pass, or a Dask collection."
            )

    @dask_aware
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> SemiNaiveClassifier:
        """Fit from scratch on all rows: every pass reads the same (X, y). On Dask collections
        each pass is a map over the partitions and a tree reduction
        (:mod:`nbayes.distributed._passes`)."""
        with logged_pass(f"{self._name}'s pass 1 of {self.passes}"):
            batch = self._fit_first_pass(X, y, sample_weight)
        self._later_passes(lambda: [batch])
        return self

    def _fit_first_pass(self, X: Any, y: Any, sample_weight: Any) -> tuple:
        """Pass 1 of ``fit``: validate, reset and count the pairs; returns the prepared batch
        (codes, class indices, weights) for the passes that follow."""
        return self._fit_batch(X, y, sample_weight)

    @property
    def partial_fit(self) -> Callable:
        """Add one batch to the counts: ``partial_fit(X, y, classes=None, sample_weight=None)``.

        One-pass models only: a model of more passes has no ``partial_fit`` (AttributeError, so
        that ``hasattr`` tells); it reads its data with :meth:`fit` or :meth:`fit_passes`."""
        self._check_one_pass("partial_fit")
        return super().partial_fit

    def fit_passes(
        self, source: Callable[[], Iterable[tuple]], *, classes: Any = None
    ) -> SemiNaiveClassifier:
        """Fit from a re-readable source of batches, reading it once per pass.

        ``source()`` must return an iterable of ``(X, y)`` or ``(X, y, sample_weight)`` batches,
        the same rows every time it is called. The classes are the union of the labels of the
        first pass (or ``classes``). The result equals ``fit`` on the concatenated batches.
        """
        self._check_params()
        for key in ("classes_", "_feature_names_seen"):
            if hasattr(self, key):
                delattr(self, key)
        fixed = None if classes is None else np.unique(np.asarray(classes))
        first = True
        with logged_pass(f"{self._name}'s pass 1 of {self.passes}"):
            for batch in source():
                X, y, weight = _unpack(batch)
                array = self._validate_X(X, reset=first)
                labels = check_target(y, array.shape[0], estimator=self._name)
                weight = check_sample_weight(weight, array.shape[0], estimator=self._name)
                prepared = self._prepare(array, fitting=True)
                if first:
                    start = np.unique(labels) if fixed is None else fixed
                    self._reset(start, array.shape[1])
                    first = False
                elif fixed is None:
                    self._union_classes(np.unique(labels))
                self._accumulate(
                    prepared, class_index(self.classes_, labels, estimator=self._name), weight
                )
        if first:
            raise ValueError(f"{self._name}.fit_passes: the source gave no batches.")

        def again() -> Iterable[tuple]:
            for batch in source():
                yield self._pass_batch(*_unpack(batch))

        self._later_passes(again)
        return self


def _unpack(batch: tuple) -> tuple[Any, Any, Any]:
    if not isinstance(batch, tuple) or len(batch) not in (2, 3):
        raise ValueError(
            "fit_passes: each batch must be a tuple (X, y) or (X, y, sample_weight), got "
            f"{type(batch).__name__}."
        )
    return batch[0], batch[1], batch[2] if len(batch) == 3 else None
