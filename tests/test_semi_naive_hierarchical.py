"""Hierarchical smoothing (smoothing="hierarchical") of the network structures and of the
one-dependence ones (AODE, WAODE, AODEsr, HNB): each estimate shrunk towards the one with a parent
fewer, checked against a hand computation from counts, and selective k-DB's leave-one-out losses
against refits without each row."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nbayes.semi_naive import AODE, HNB, KDB, WAODE, AODEsr, SelectiveKDB


def _codes(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n)
    b = np.where(rng.random(n) < 0.7, a, rng.integers(0, 3, n))
    c = rng.integers(0, 2, n)
    y = np.where(rng.random(n) < 0.8, (a + c) % 2, rng.integers(0, 2, n))
    return np.column_stack([a, b, c]).astype(float), y


def _by_hand(X: np.ndarray, y: np.ndarray, child: int, parent: int, alpha: float) -> np.ndarray:
    """log P̂(x_child | c, x_parent) for every row: Lidstone's P̂(x | c) at the first level,
    then (N(c, u, x) + v λ P̂(x | c)) / (N(c, u) + v λ)."""
    v = int(X[:, child].max()) + 1
    out = np.empty((X.shape[0], 2))
    for r in range(X.shape[0]):
        x, u = X[r, child], X[r, parent]
        for c in range(2):
            in_class = y == c
            base = ((X[in_class, child] == x).sum() + alpha) / (in_class.sum() + v * alpha)
            config = in_class & (X[:, parent] == u)
            shrunk = ((X[config, child] == x).sum() + v * alpha * base) / (
                config.sum() + v * alpha
            )
            out[r, c] = np.log(shrunk)
    return out


def test_the_estimate_backs_off_to_the_parent_level():
    X, y = _codes(300, 0)
    model = KDB(1, smoothing="hierarchical", alpha=0.5).fit(X, y)
    plain = KDB(0, smoothing="lidstone", alpha=0.5).fit(X, y)
    structure = model._structure()
    parents = {j: list(structure.parents[j]) for j in range(3)}
    joint = model.predict_joint_log_proba(X)
    expected = np.log(model.class_count_ / model.class_count_.sum()) + np.zeros((300, 2))
    for j in range(3):
        if parents[j]:
            expected += _by_hand(X, y, j, parents[j][0], 0.5)
        else:  # the root: Lidstone's, as naive Bayes'
            v = int(X[:, j].max()) + 1
            for c in range(2):
                in_class = y == c
                counts = np.array([(X[in_class, j] == x).sum() for x in range(v)])
                expected[:, c] += np.log(
                    (counts[X[:, j].astype(int)] + 0.5) / (in_class.sum() + v * 0.5)
                )
    np.testing.assert_allclose(joint, expected, rtol=1e-10)
    assert not np.allclose(joint, plain.predict_joint_log_proba(X))


@pytest.mark.parametrize("structure", [AODE, WAODE, AODEsr, HNB])
def test_one_dependence_estimates_back_off_to_the_single_estimate(structure):
    X, y = _codes(300, 2)
    model = structure(smoothing="hierarchical", alpha=0.5).fit(X, y)
    tables = model._pairs.conditionals(model._pseudo(), model._hierarchical)
    _, base, _ = model._pairs.layout()
    v = model._pairs.n_values
    for i, j in [(0, 1), (0, 2), (1, 2)]:
        cells = base[i, j] + X[:, i].astype(int) * v[j] + X[:, j].astype(int)
        # forward: x_j given (c, x_i); backward: x_i given (c, x_j)
        np.testing.assert_allclose(tables[0][cells], _by_hand(X, y, j, i, 0.5), rtol=1e-10)
        np.testing.assert_allclose(tables[1][cells], _by_hand(X, y, i, j, 0.5), rtol=1e-10)
    plain = structure(smoothing="lidstone", alpha=0.5).fit(X, y)
    assert not np.allclose(model.predict_joint_log_proba(X), plain.predict_joint_log_proba(X))


def test_leave_one_out_losses_equal_refits_without_each_row():
    X, y = _codes(60, 1)
    model = SelectiveKDB(2, smoothing="hierarchical", min_count=0).fit(X, y)
    losses = model.leave_one_out_losses_[:, :, 0]
    s, k = 3, 2
    total = sum(-np.log(_loo_proba(model, X, y, r)) for r in range(60))
    assert losses[s, k] == pytest.approx(total, rel=1e-9)


def _loo_proba(model: SelectiveKDB, X: np.ndarray, y: np.ndarray, r: int) -> float:
    """P(y_r | x_r) by the full model's structure with row r's counts taken out, computed from
    the counts of the other rows directly (class prior: Laplace, as the kernel's)."""
    structure = model._structure()
    keep = np.arange(X.shape[0]) != r
    Xk, yk = X[keep], y[keep]
    scores = np.log((np.bincount(yk, minlength=2) + 1.0) / (keep.sum() + 2))
    for j in range(3):
        parents = list(structure.parents[j])
        v = int(model.n_values_[j])
        x = X[r, j]
        for c in range(2):
            in_class = yk == c
            estimate = ((Xk[in_class, j] == x).sum() + 1.0) / (in_class.sum() + v)
            config = in_class
            for p in parents:
                config = config & (Xk[:, p] == X[r, p])
                estimate = ((Xk[config, j] == x).sum() + v * estimate) / (config.sum() + v)
            scores[c] += np.log(estimate)
    scores -= np.logaddexp.reduce(scores)
    return float(np.exp(scores[y[r]]))


@settings(max_examples=15, deadline=None)
@given(
    structure=st.sampled_from([AODE, WAODE, AODEsr, HNB]),
    cuts=st.lists(st.integers(1, 239), min_size=1, max_size=3, unique=True),
    seed=st.integers(0, 3),
)
def test_hierarchical_one_pass_structures_merge_and_take_batches_exactly(structure, cuts, seed):
    X, y = _codes(240, seed)
    order = np.random.default_rng(seed).permutation(240)
    X, y = X[order], y[order]
    one = structure(smoothing="hierarchical", alpha=0.5).fit(X, y)
    edges = [0, *sorted(cuts), 240]
    parts = [
        structure(smoothing="hierarchical", alpha=0.5).partial_fit(
            X[a:b], y[a:b], classes=[0, 1]
        )
        for a, b in itertools.pairwise(edges)
    ]
    merged = parts[0]
    for part in parts[1:]:
        merged = merged.merge(part)
    batched = structure(smoothing="hierarchical", alpha=0.5)
    for a, b in itertools.pairwise(edges):
        batched.partial_fit(X[a:b], y[a:b], classes=[0, 1])
    expected = one.predict_proba(X)
    np.testing.assert_allclose(merged.predict_proba(X), expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(batched.predict_proba(X), expected, rtol=0, atol=1e-12)
