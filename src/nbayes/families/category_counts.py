"""The counts of categorical features (the statistics of :mod:`nbayes.families.categorical`,
of intervals and of the estimators' CategoricalNB).

Sufficient statistics, per class c, feature j and value a_jl (weighted counts):

    n_{c,j,l} = Σ_i w_i I(x_i^(j) = a_jl, y_i = c)

Conditional probabilities by the Bayesian (Lidstone) estimate, λ = 0 giving the
maximum-likelihood estimate and λ = 1 Laplace smoothing:

    P_λ(X^(j) = a_jl | Y = c) = (n_{c,j,l} + λ) / (N_{c,j} + S_j λ),   N_{c,j} = Σ_l n_{c,j,l}

S_j is the number of values of feature j. N_{c,j} counts only the rows where feature j was
observed, so a missing value contributes nothing (as in Weka and R's naivebayes). Where class c
never observed feature j (N_{c,j} = 0), the estimate is the limit λ → 0⁺ of the formula, 1/S_j.

The model holds K · Σ_j S_j such parameters (for 28 × 28 grey-level digit images:
10 · 784 · 256, not 10 · 256^784).

Values are integer codes 0 … S_j − 1. For prediction the counts are turned, once, into a table
of log P(a_jl | c) with one row per (j, l) and one column per class, and a row's log-likelihood
Σ_j log P(x^(j) | c) is a gather-and-add over that table (:func:`nbayes._kernels.gather_codes`).
"""

from __future__ import annotations

import numpy as np

from .. import _kernels

UNKNOWN_MODES = ("ignore", "smooth", "error")


class CategoricalCounts:
    """Mergeable counts n_{c,j,l}, stored as one (K, Σ_j S_j) array with per-feature offsets."""

    def __init__(self, n_classes: int, n_features: int) -> None:
        self.n_categories = np.zeros(n_features, dtype=np.int64)
        self.counts = np.zeros((n_classes, 0))
        self._cache: dict = {}

    # ------------------------------------------------------------------ layout
    @property
    def offsets(self) -> np.ndarray:
        return np.concatenate(([0], np.cumsum(self.n_categories))).astype(np.int64)

    def category_count(self, j: int) -> np.ndarray:
        """n_{c,j,l} for feature j as a (K, S_j) view."""
        offsets = self.offsets
        return self.counts[:, offsets[j] : offsets[j + 1]]

    def grow(self, n_categories: np.ndarray) -> None:
        """Make room for at least ``n_categories[j]`` values of feature j (new ones count 0)."""
        wanted = np.maximum(self.n_categories, np.asarray(n_categories, dtype=np.int64))
        if np.array_equal(wanted, self.n_categories):
            return
        new_offsets = np.concatenate(([0], np.cumsum(wanted))).astype(np.int64)
        grown = np.zeros((self.counts.shape[0], int(new_offsets[-1])))
        grown[:, self._columns_in(new_offsets)] = self.counts
        self.n_categories = wanted
        self.counts = grown
        self._cache.clear()

    def _columns_in(self, new_offsets: np.ndarray) -> np.ndarray:
        """Where each current column lands in a layout with offsets ``new_offsets``."""
        feature = np.repeat(np.arange(self.n_categories.shape[0]), self.n_categories)
        within = np.arange(self.counts.shape[1]) - self.offsets[:-1][feature]
        return new_offsets[:-1][feature] + within

    # ------------------------------------------------------------------ statistics
    def accumulate(
        self, codes: np.ndarray, cls: np.ndarray, weight: np.ndarray, *, sized: bool = False
    ) -> None:
        """Add one batch: ``codes`` (n, d) integer codes, or floats with NaN for missing.

        ``sized``: the caller has already grown the table to hold every code of the batch.
        """
        if codes.shape[0] == 0:
            return
        if not sized:
            if codes.dtype.kind == "f":
                top = np.fmax.reduce(codes, axis=0)  # ignores NaN; NaN only if all are missing
                top = np.where(np.isnan(top), -1, top)
            else:
                top = codes.max(axis=0)
            self.grow(np.asarray(top, dtype=np.int64) + 1)
        _kernels.count_codes(codes, cls, weight, self.offsets, self.counts)
        self._cache.clear()

    def merge(self, other: CategoricalCounts, positions: np.ndarray) -> None:
        """Add ``other``'s counts; its class k lands on this model's class ``positions[k]``."""
        self.grow(other.n_categories)
        columns = other._columns_in(self.offsets)
        block = self.counts[np.ix_(positions, columns)] + other.counts
        self.counts[np.ix_(positions, columns)] = block
        self._cache.clear()

    def reindex_classes(self, positions: np.ndarray, n_classes: int) -> None:
        """Move class k to row ``positions[k]`` of a table with ``n_classes`` classes."""
        counts = np.zeros((n_classes, self.counts.shape[1]))
        counts[positions] = self.counts
        self.counts = counts
        self._cache.clear()

    def state(self) -> dict[str, np.ndarray]:
        return {"n_categories": self.n_categories, "counts": self.counts}

    def check(self, n_classes: int, n_features: int) -> None:
        """Raise ValueError unless the arrays fit a model of this size (used by model files,
        which may be forged: the compiled kernels index ``counts`` by ``offsets`` unchecked).

        Σ_j S_j is summed as Python integers (an int64 sum can wrap around to the real width),
        and every S_j must itself be at most the width."""
        if self.n_categories.shape != (n_features,) or np.any(self.n_categories < 0):
            raise ValueError(f"n_categories must be {n_features} counts >= 0.")
        width = self.counts.shape[1] if self.counts.ndim == 2 else -1
        if np.any(self.n_categories > max(width, 0)):
            raise ValueError("n_categories has a feature with more values than counts has columns.")
        total = sum(int(v) for v in self.n_categories.tolist())
        if self.counts.shape != (n_classes, total):
            raise ValueError(
                f"counts has shape {self.counts.shape}, inconsistent with the categories."
            )
        if np.any(self.counts < 0):
            raise ValueError("counts must be >= 0.")

    @classmethod
    def from_state(cls, state: dict[str, np.ndarray]) -> CategoricalCounts:
        n_categories, counts = state["n_categories"], state["counts"]
        if n_categories.ndim != 1 or n_categories.dtype.kind not in "iu":
            raise ValueError("n_categories must be a 1-D integer array.")
        if counts.ndim != 2:
            raise ValueError("counts must be a 2-D array.")
        if n_categories.dtype == np.uint64 and np.any(n_categories > np.iinfo(np.int64).max):
            raise ValueError("n_categories holds a count beyond 64-bit integers.")
        stats = cls(0, 0)
        stats.n_categories = n_categories.astype(np.int64)
        stats.counts = counts.astype(np.float64)
        return stats

    # ------------------------------------------------------------------ parameters
    def observed_per_feature(self) -> np.ndarray:
        """N_{c,j} = Σ_l n_{c,j,l}, shape (K, d)."""
        sizes = self.n_categories
        observed = np.zeros((self.counts.shape[0], sizes.shape[0]))
        some = sizes > 0  # a feature with no category yet has N = 0 (reduceat cannot say so)
        if some.any():
            starts = (np.cumsum(sizes) - sizes)[some]
            observed[:, some] = np.add.reduceat(self.counts, starts, axis=1)
        return observed

    def log_prob(
        self, alpha: float | np.ndarray, extra_values: int = 0
    ) -> tuple[np.ndarray, np.ndarray]:
        """(table, unknown): log P_λ per (j, l) as rows × classes, and per feature the log
        probability of one value beyond those seen (used when ``extra_values`` is 1).

        ``extra_values`` adds that many unseen values to each S_j ("smooth" handling of
        categories unseen in fitting: the Lidstone mass of one extra value).
        """
        key = ("log_prob", _alpha_key(alpha), extra_values)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        d = self.n_categories.shape[0]
        alpha_j = np.broadcast_to(np.asarray(alpha, dtype=np.float64), (d,))
        feature = np.repeat(np.arange(d), self.n_categories)
        observed = self.observed_per_feature()  # (K, d)
        values = (self.n_categories + extra_values).astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            denominator = np.log(observed + values * alpha_j)  # (K, d)
            table = np.log(self.counts + alpha_j[feature]) - denominator[:, feature]
            unknown = np.log(alpha_j) - denominator
        # N_{c,j} = 0 (class never observed feature j): the λ → 0⁺ limit, 1 / S_j
        empty = observed == 0
        if empty.any():
            uniform = -np.log(np.maximum(values, 1.0))
            table = np.where(empty[:, feature], uniform[feature], table)
            unknown = np.where(empty, uniform, unknown)
        result = (np.ascontiguousarray(table.T), np.ascontiguousarray(unknown.T))
        self._cache[key] = result
        return result

    def log_likelihood(
        self, codes: np.ndarray, alpha: float | np.ndarray, unknown: str = "ignore"
    ) -> tuple[np.ndarray, int]:
        """Σ_j log P(x^(j) | c) for a chunk, and how many codes were unseen in fitting."""
        table, unknown_table = self.log_prob(alpha, extra_values=int(unknown == "smooth"))
        out = np.zeros((codes.shape[0], self.counts.shape[0]))
        unseen = _kernels.gather_codes(
            codes,
            self.offsets,
            self.n_categories,
            table,
            unknown_table,
            int(unknown == "smooth"),
            out,
        )
        return out, int(unseen)


def _alpha_key(alpha: float | np.ndarray) -> object:
    if isinstance(alpha, np.ndarray):
        return alpha.tobytes()
    return float(alpha)
