"""Independent reference implementations of the semi-naive models, for the tests.

Each probability is computed straight from the training rows by the formula in the model's
docstring (a weighted count over the rows that match), with Python loops and no shared code with
nbayes.semi_naive. Slow, obvious, and only for a few dozen rows.
"""

from __future__ import annotations

import math

import numpy as np


def observed(value: float) -> bool:
    return not (isinstance(value, float) and math.isnan(value)) and value >= 0


class Rows:
    """Training rows (codes with NaN for missing), labels as class indices, weights."""

    def __init__(self, X: np.ndarray, cls: np.ndarray, w: np.ndarray | None = None) -> None:
        self.X = [[float(v) for v in row] for row in np.asarray(X, dtype=float)]
        self.cls = [int(c) for c in cls]
        self.w = [1.0] * len(self.cls) if w is None else [float(v) for v in w]
        self.d = len(self.X[0]) if self.X else 0
        self.K = max(self.cls) + 1
        self.v = []
        for j in range(self.d):
            seen = [row[j] for row in self.X if observed(row[j])]
            self.v.append(int(max(seen)) + 1 if seen else 0)

    def count(self, c: int | None, fixed: dict[int, int], observe: tuple[int, ...] = ()) -> float:
        """Σ w over rows of class c (any class if None) with x_j = fixed[j] and x_o observed."""
        total = 0.0
        for row, k, w in zip(self.X, self.cls, self.w, strict=True):
            if c is not None and k != c:
                continue
            if any(not observed(row[j]) or int(row[j]) != a for j, a in fixed.items()):
                continue
            if any(not observed(row[o]) for o in observe):
                continue
            total += w
        return total

    def pseudo(self, j: int, alpha: float, smoothing: str) -> float:
        return alpha if smoothing == "lidstone" else alpha / max(self.v[j], 1)

    def conditional(
        self, c: int, j: int, a: int, given: dict[int, int], alpha: float, smoothing: str
    ) -> float:
        """P̂(x_j = a | c, given) = (N(c, given, a) + p) / (N(c, given, j observed) + v_j p)."""
        p = self.pseudo(j, alpha, smoothing)
        numerator = self.count(c, {**given, j: a}) + p
        denominator = self.count(c, given, observe=(j,)) + self.v[j] * p
        if denominator == 0:
            return 1.0 / max(self.v[j], 1)
        return numerator / denominator

    def mutual_information(self, j: int) -> float:
        total = self.count(None, {}, observe=(j,))
        info = 0.0
        for c in range(self.K):
            nc = self.count(c, {}, observe=(j,))
            for a in range(self.v[j]):
                n = self.count(c, {j: a})
                if n > 0:
                    info += n / total * math.log(n * total / (nc * self.count(None, {j: a})))
        return info

    def conditional_mutual_information(self, i: int, j: int) -> float:
        total = self.count(None, {}, observe=(i, j))
        info = 0.0
        for c in range(self.K):
            nc = self.count(c, {}, observe=(i, j))
            for a in range(self.v[i]):
                for b in range(self.v[j]):
                    n = self.count(c, {i: a, j: b})
                    if n > 0:
                        na = self.count(c, {i: a}, observe=(j,))
                        nb = self.count(c, {j: b}, observe=(i,))
                        info += n / total * math.log(n * nc / (na * nb))
        return info


def present(rows: Rows, x: list[float]) -> list[int]:
    """Observed attributes of a query row whose codes were seen in fitting."""
    return [j for j in range(rows.d) if observed(x[j]) and int(x[j]) < rows.v[j]]


def naive_log_likelihood(rows: Rows, x, c: int, alpha: float, smoothing: str) -> float:
    return sum(
        math.log(rows.conditional(c, j, int(x[j]), {}, alpha, smoothing)) for j in present(rows, x)
    )


def subsumed(rows: Rows, x, attributes: list[int], critical: float) -> set[int]:
    """Attributes whose value another value of the row specialises (Zheng & Webb 2006, as
    Weka's AODEsr): x_i is dropped if some x_j with N(x_j) > critical has N(x_i, x_j) = N(x_j);
    when the two imply each other only the higher index is dropped."""
    general: dict[int, int] = {}
    for i in attributes:
        for j in attributes:
            if j == i or general.get(j) == i:
                continue
            nj = rows.count(None, {j: int(x[j])})
            if nj > critical and nj == rows.count(None, {i: int(x[i]), j: int(x[j])}):
                if nj == rows.count(None, {i: int(x[i])}) and i < j:
                    continue
                general[i] = j
                break
    return set(general)


def aode_log_likelihood(
    rows: Rows,
    x,
    c: int,
    *,
    alpha: float = 1.0,
    smoothing: str = "lidstone",
    min_count: float = 1,
    weighting: str | None = None,
    subsumption: float | None = None,
) -> float:
    """log [ Σ_i w_i P(x_i | c) Π_{j≠i} P(x_j | c, x_i) / Σ_i w_i ] (naive Bayes if no parent)."""
    attributes = present(rows, x)
    kept = attributes
    if subsumption is not None:
        dropped = subsumed(rows, x, attributes, subsumption)
        kept = [j for j in attributes if j not in dropped]
    parents = [i for i in kept if rows.count(None, {i: int(x[i])}) >= min_count]
    if not parents:
        return naive_log_likelihood(rows, x, c, alpha, smoothing)
    weights = {i: 1.0 for i in parents}
    if weighting == "mutual-information":
        weights = {i: rows.mutual_information(i) for i in parents}
        if sum(weights.values()) <= 0:
            weights = {i: 1.0 for i in parents}
    total = 0.0
    for i in parents:
        if weights[i] <= 0:
            continue
        term = weights[i] * rows.conditional(c, i, int(x[i]), {}, alpha, smoothing)
        for j in kept:
            if j != i:
                term *= rows.conditional(c, j, int(x[j]), {i: int(x[i])}, alpha, smoothing)
        total += term
    return math.log(total / sum(weights.values())) if total > 0 else -math.inf


def a2de_log_likelihood(
    rows: Rows, x, c: int, *, alpha: float = 1.0, smoothing: str = "lidstone", min_count=1
) -> float:
    attributes = present(rows, x)
    pairs = [
        (i, j)
        for a, i in enumerate(attributes)
        for j in attributes[a + 1 :]
        if rows.count(None, {i: int(x[i]), j: int(x[j])}) >= min_count
    ]
    if not pairs:
        return aode_log_likelihood(
            rows, x, c, alpha=alpha, smoothing=smoothing, min_count=min_count
        )
    total = 0.0
    for i, j in pairs:
        q = alpha if smoothing == "lidstone" else alpha / (max(rows.v[i], 1) * max(rows.v[j], 1))
        cells = rows.v[i] * rows.v[j]
        denominator = rows.count(c, {}, observe=(i, j)) + cells * q
        joint = (
            (rows.count(c, {i: int(x[i]), j: int(x[j])}) + q) / denominator
            if denominator > 0
            else 1.0 / cells
        )
        term = joint
        for l_ in attributes:
            if l_ not in (i, j):
                term *= rows.conditional(
                    c, l_, int(x[l_]), {i: int(x[i]), j: int(x[j])}, alpha, smoothing
                )
        total += term
    return math.log(total / len(pairs))


def hnb_log_likelihood(rows: Rows, x, c: int, *, alpha=1.0, smoothing="m-estimate") -> float:
    attributes = present(rows, x)
    out = 0.0
    for j in attributes:
        weights = {i: rows.conditional_mutual_information(i, j) for i in attributes if i != j}
        total = sum(w for w in weights.values() if w > 0)
        if total <= 0:
            out += math.log(rows.conditional(c, j, int(x[j]), {}, alpha, smoothing))
            continue
        mix = sum(
            w * rows.conditional(c, j, int(x[j]), {i: int(x[i])}, alpha, smoothing)
            for i, w in weights.items()
            if w > 0
        )
        out += math.log(mix / total)
    return out


def network_log_likelihood(
    rows: Rows,
    x,
    c: int,
    parents: dict[int, list[int]],
    *,
    alpha: float = 1.0,
    smoothing: str = "lidstone",
    min_count: float = 1,
    use: dict[int, int] | None = None,
) -> float:
    """Σ_j log P(x_j | c, first L parents), L the deepest level whose parents are observed and
    seen, with the configuration seen ≥ min_count times (rows observing x_j too). ``use`` caps
    the parents of each attribute (and leaves out attributes not in it)."""
    out = 0.0
    for j in present(rows, x):
        if use is not None and j not in use:
            continue
        cap = len(parents[j]) if use is None else min(use[j], len(parents[j]))
        given: dict[int, int] = {}
        for p in parents[j][:cap]:
            if not observed(x[p]) or int(x[p]) >= rows.v[p]:
                break
            trial = {**given, p: int(x[p])}
            if rows.count(None, trial, observe=(j,)) < min_count:
                break
            given = trial
        out += math.log(rows.conditional(c, j, int(x[j]), given, alpha, smoothing))
    return out
