"""Learning which attributes depend on which: the Chow–Liu tree of TAN and the parents of k-DB.

Both read the conditional mutual informations I(X_i; X_j | C) and the mutual informations
I(X_j; C) of :mod:`nbayes.semi_naive.information`, so the structure is a function of the merged
counts and never of the order in which rows arrived.

* **TAN** (Friedman, Geiger & Goldszmidt 1997): the maximum spanning tree of the complete graph
  whose edge (i, j) weighs I(X_i; X_j | C) (Chow & Liu 1968), directed away from a root; every
  attribute but the root has the class and one attribute as parents. The tree is grown by Prim's
  algorithm from the root (by default the attribute with the largest I(X_j; C), the lowest index
  among equals): at each step the attribute outside the tree with the largest weight to an
  attribute inside joins, with that attribute as its parent. Ties: the lowest attribute index
  joins first, and among parents of equal weight the one that joined the tree first is kept.
* **k-DB** (Sahami 1996): attributes are ranked by I(X_j; C), descending (the lowest index
  first among equals); each takes as parents the (at most) k attributes ranked before it with the
  largest I(X_j; X_p | C), listed in decreasing order of that weight (the lowest index first
  among equals). The order of the parents matters for missing values and back-off: a prediction
  uses the first L parents (see :mod:`nbayes.semi_naive.network`).

**Ties.** Two informations that are equal in exact arithmetic (an attribute and a per-class
relabelling of it, say) are sums over the same counts taken in another order (the codes follow
the order in which values were first seen), so they can differ in their last bits, and the row
order would then break the tie. Both structures therefore compare the informations on a grid
of 10⁻⁹ of the largest one (:func:`without_round_off`): differences that small are round-off,
and ties go by index as above.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Structure:
    """The parents of every attribute (ordered) with the weight I(X_j; X_p | C) of each edge,
    and the order in which attributes were placed (k-DB's ranking; TAN's joining order)."""

    parents: tuple[tuple[int, ...], ...]
    weights: tuple[tuple[float, ...], ...]
    order: tuple[int, ...]

    @property
    def max_parents(self) -> int:
        return max((len(p) for p in self.parents), default=0)

    def arrays(self, k: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(parents (d, k) with −1 padding, number of parents (d,)) for the kernels."""
        k = self.max_parents if k is None else k
        d = len(self.parents)
        table = np.full((d, max(k, 1)), -1, dtype=np.int64)
        counts = np.zeros(d, dtype=np.int64)
        for j, ps in enumerate(self.parents):
            table[j, : len(ps)] = ps
            counts[j] = len(ps)
        return table, counts

    def edges(self, names: list[str] | None = None) -> list[dict]:
        """One record per edge parent → child: names (or indices), rank of the parent among the
        child's parents, and the conditional mutual information I(X_child; X_parent | C)."""

        def label(j: int):
            return names[j] if names is not None else j

        return [
            {"parent": label(p), "child": label(j), "rank": r, "cmi": float(w)}
            for j in self.order
            for r, (p, w) in enumerate(zip(self.parents[j], self.weights[j], strict=True))
        ]


#: The grid informations are compared on, relative to the largest (module docstring, "Ties").
RESOLUTION = 1e-9


def without_round_off(information: np.ndarray) -> np.ndarray:
    """The values rounded to a multiple of RESOLUTION times the largest |value|."""
    information = np.asarray(information, dtype=np.float64)
    finite = information[np.isfinite(information)]
    scale = float(np.max(np.abs(finite))) if finite.size else 0.0
    if scale == 0.0:
        return information
    step = scale * RESOLUTION
    return np.round(information / step) * step


def chow_liu_tree(cmi: np.ndarray, root: int) -> Structure:
    """TAN's tree: Prim's maximum spanning tree on ``cmi`` from ``root`` (see the module)."""
    cmi = without_round_off(cmi)
    d = cmi.shape[0]
    if not 0 <= root < d:
        raise ValueError(f"root must be an attribute index in [0, {d}), got {root}.")
    parents: list[tuple[int, ...]] = [()] * d
    weights: list[tuple[float, ...]] = [()] * d
    inside = np.zeros(d, dtype=bool)
    inside[root] = True
    best = cmi[root].astype(np.float64).copy()
    source = np.full(d, root)
    order = [root]
    for _ in range(d - 1):
        candidate = np.where(inside, -np.inf, best)
        v = int(np.argmax(candidate))  # the first maximum: the lowest index among ties
        parents[v] = (int(source[v]),)
        weights[v] = (float(cmi[v, source[v]]),)
        inside[v] = True
        order.append(v)
        better = ~inside & (cmi[v] > best)  # strictly: an equal weight keeps the earlier parent
        best[better] = cmi[v, better]
        source[better] = v
    return Structure(tuple(parents), tuple(weights), tuple(order))


def kdb_structure(
    mi: np.ndarray, cmi: np.ndarray, k: int, order: np.ndarray | None = None
) -> Structure:
    """k-DB's parents: rank by ``mi`` (or take the ranking ``order``, a permutation of the
    attributes) and give each attribute its k best earlier ones by ``cmi``."""
    mi, cmi = without_round_off(mi), without_round_off(cmi)
    d = mi.shape[0]
    order = np.argsort(-mi, kind="stable") if order is None else np.asarray(order, np.int64)
    parents: list[tuple[int, ...]] = [()] * d
    weights: list[tuple[float, ...]] = [()] * d
    for rank, j in enumerate(order):
        earlier = np.sort(order[:rank])  # by index, so the stable sort breaks ties by index
        chosen = earlier[np.argsort(-cmi[j, earlier], kind="stable")][: min(k, rank)]
        parents[j] = tuple(int(p) for p in chosen)
        weights[j] = tuple(float(cmi[j, p]) for p in chosen)
    return Structure(tuple(parents), tuple(weights), tuple(int(j) for j in order))


def sampled_order(mi: np.ndarray, member: int, n_values: np.ndarray) -> np.ndarray:
    """An ensemble member's ranking of the attributes: drawn without replacement, each next
    attribute with probability proportional to its I(X_j; C) among those left (as the members
    of ESKDB, Zhang, Petitjean & Buntine 2020, draw theirs), by the Gumbel-top-k trick: the
    order of log I(X_j; C) + g_j, with g_j independent standard Gumbel draws (Vieira 2014;
    Kool, van Hoof & Welling 2019). Attributes of zero information come last, by index.

    Deterministic: the draws are seeded by ``member`` and each attribute's number of values,
    never by the rows' order, and the informations are compared on the grid of
    :func:`without_round_off`."""
    mi = without_round_off(mi)
    seed = [int(member), *(int(v) for v in np.asarray(n_values).ravel())]
    noise = np.random.default_rng(seed).gumbel(size=mi.shape[0])
    with np.errstate(divide="ignore"):
        key = np.where(mi > 0, np.log(np.where(mi > 0, mi, 1.0)) + noise, -np.inf)
    return np.argsort(-key, kind="stable").astype(np.int64)
