"""The counts behind the semi-naive models: what they hold, that they merge exactly, and that
their memory is estimated (and refused) before anything is allocated."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import assert_same_statistics
from hypothesis import given, settings
from hypothesis import strategies as st
from semi_naive_reference import Rows

import nbayes
from nbayes.semi_naive import (
    AODE,
    HNB,
    KDB,
    TAN,
    WAODE,
    AnDE,
    AODEsr,
    MemoryBudgetError,
    SelectiveKDB,
    SelectiveKDBEnsemble,
)
from nbayes.semi_naive.memory import pair_cells, parse_memory, triple_cells
from nbayes.semi_naive.pairs import PairCounts


def random_codes(rng, n, d, values=4, missing=0.2):
    X = rng.integers(0, values, (n, d)).astype(float)
    X[rng.random((n, d)) < missing] = np.nan
    return X


# --------------------------------------------------------------------------- what is counted
# 40 rows: every block (values × classes: 12 singles, 48 pairs, 192 triples) too large beside
# the rows, added to the table row by row; 1,603 rows: every block small beside the rows,
# counted in interleaved copies (a number of rows that is not a multiple of the copies) and
# then summed into the table (_kernels._add_block)
@pytest.mark.parametrize("rows", [40, 1603])
@pytest.mark.parametrize("order", [1, 2])
def test_counts_equal_a_direct_count_of_the_rows(order, rows):
    rng = np.random.default_rng(1)
    X = random_codes(rng, rows, 4)
    y = rng.integers(0, 3, rows)
    w = rng.uniform(0.5, 2.0, rows)
    stats = PairCounts(3, 4, order=order)
    stats.accumulate(X, y, w)
    rows = Rows(X, y, w)
    offsets, base, triple_base = stats.layout()
    np.testing.assert_array_equal(stats.n_values, rows.v)
    for c in range(3):
        for i in range(4):
            for a in range(rows.v[i]):
                assert stats.singles[offsets[i] + a, c] == pytest.approx(rows.count(c, {i: a}))
                for j in range(i + 1, 4):
                    for b in range(rows.v[j]):
                        cell = base[i, j] + a * rows.v[j] + b
                        expected = rows.count(c, {i: a, j: b})
                        assert stats.pairs[cell, c] == pytest.approx(expected)
                        if order == 1:
                            continue
                        for l_ in range(j + 1, 4):
                            for e in range(rows.v[l_]):
                                cell = triple_base[i, j, l_] + (a * rows.v[j] + b) * rows.v[l_] + e
                                expected = rows.count(c, {i: a, j: b, l_: e})
                                assert stats.triples[cell, c] == pytest.approx(expected)


def test_growing_codes_relayout_keeps_every_count():
    rng = np.random.default_rng(2)
    X = random_codes(rng, 60, 3, values=6)
    y = rng.integers(0, 2, 60)
    whole = PairCounts(2, 3, order=2)
    whole.accumulate(X, y, np.ones(60))
    grown = PairCounts(2, 3, order=2)
    small = np.all(np.nan_to_num(X, nan=0) < 2, axis=1)  # first the rows with small codes only
    grown.accumulate(X[small], y[small], np.ones(small.sum()))
    grown.accumulate(X[~small], y[~small], np.ones((~small).sum()))
    for name in ("n_values", "singles", "pairs", "triples"):
        np.testing.assert_allclose(getattr(grown, name), getattr(whole, name), err_msg=name)


def test_counting_in_chunks_of_rows_equals_one_chunk(monkeypatch):
    from nbayes.semi_naive import pairs

    rng = np.random.default_rng(3)
    X = random_codes(rng, 3000, 5)
    y = rng.integers(0, 3, 3000)
    one = PairCounts(3, 5, order=2)
    one.accumulate(X, y, np.ones(3000))
    monkeypatch.setattr(pairs, "CHUNK_ROWS", 97)
    many = PairCounts(3, 5, order=2)
    many.accumulate(X, y, np.ones(3000))
    for name in ("singles", "pairs", "triples"):
        np.testing.assert_array_equal(getattr(many, name), getattr(one, name))


# --------------------------------------------------------------------------- merging
ONE_PASS = {
    "aode": lambda: AODE(),
    "aode-weighted-m": lambda: WAODE(),
    "aodesr": lambda: AODEsr(subsumption=2),
    "a2de": lambda: AnDE(2, alpha=0.5),
    "hnb": lambda: HNB(),
    "tan": lambda: TAN(),
    "kdb1": lambda: KDB(1, min_count=2),
}


@st.composite
def split_problems(draw):
    n = draw(st.integers(2, 40))
    d = draw(st.integers(2, 4))
    k = draw(st.integers(1, 4))
    groups = draw(st.integers(1, 5))
    seed = draw(st.integers(0, 2**31 - 1))
    weighted = draw(st.booleans())
    return n, d, k, groups, seed, weighted


def split(n: int, groups: int, rng: np.random.Generator) -> list[np.ndarray]:
    labels = rng.integers(0, groups, n)
    parts = [np.flatnonzero(labels == g) for g in range(groups)]
    parts = [p for p in parts if p.size]
    return [parts[i] for i in rng.permutation(len(parts))]


@pytest.mark.parametrize("name", sorted(ONE_PASS))
@settings(max_examples=40, deadline=None)
@given(problem=split_problems())
def test_merge_and_partial_fit_equal_one_fit(name, problem):
    n, d, k, groups, seed, weighted = problem
    rng = np.random.default_rng(seed)
    factory = ONE_PASS[name]
    X = random_codes(rng, n, d)
    y = rng.integers(0, k, n)
    w = rng.uniform(0.1, 5.0, n) if weighted else None
    whole = factory().fit(X, y, sample_weight=w)
    parts = split(n, groups, rng)

    pieces = [factory().fit(X[p], y[p], sample_weight=None if w is None else w[p]) for p in parts]
    merged = nbayes.merge(*pieces)
    assert_same_statistics(whole, merged)

    streamed = factory()
    for p in parts:
        streamed.partial_fit(
            X[p], y[p], classes=np.unique(y), sample_weight=None if w is None else w[p]
        )
    assert_same_statistics(whole, streamed)

    expected = whole.predict_joint_log_proba(X)
    finite = np.isfinite(expected)
    for other in (merged, streamed):
        got = other.predict_joint_log_proba(X)
        np.testing.assert_array_equal(np.isfinite(got), finite)
        np.testing.assert_allclose(got[finite], expected[finite], rtol=1e-9, atol=1e-9)


def test_fit_passes_equals_fit_for_every_model():
    rng = np.random.default_rng(4)
    X = random_codes(rng, 120, 5)
    y = rng.choice(["a", "b", "c"], 120)
    w = rng.uniform(0.5, 2.0, 120)
    batches = [slice(0, 50), slice(50, 51), slice(51, 120)]
    for factory in [*ONE_PASS.values(), lambda: KDB(3), lambda: SelectiveKDB(2),
                    lambda: SelectiveKDBEnsemble(3, k=2)]:  # fmt: skip
        whole = factory().fit(X, y, sample_weight=w)
        passes = factory().fit_passes(lambda: [(X[b], y[b], w[b]) for b in batches])
        assert_same_statistics(whole, passes)
        np.testing.assert_allclose(
            passes.predict_proba(X), whole.predict_proba(X), rtol=1e-9, atol=1e-12
        )


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**16), cuts=st.lists(st.integers(1, 79), max_size=4))
def test_selective_kdb_losses_and_choice_equal_fit_over_any_batches_and_order(seed, cuts):
    # pass 3's totals and squared losses are sums over rows: any batching and any row order
    # gives them to round-off, and so the same one-standard-error choice
    rng = np.random.default_rng(seed)
    X = random_codes(rng, 80, 5, values=3)
    y = np.where(rng.random(80) < 0.7, np.nan_to_num(X[:, 0], nan=0) % 2, rng.integers(0, 2, 80))
    w = rng.uniform(0.5, 2.0, 80)
    whole = SelectiveKDB(2).fit(X, y, sample_weight=w)
    order = rng.permutation(80)
    bounds = [0, *sorted(set(cuts)), 80]
    batches = [order[a:b] for a, b in itertools.pairwise(bounds)]
    passes = SelectiveKDB(2).fit_passes(lambda: [(X[b], y[b], w[b]) for b in batches])
    np.testing.assert_allclose(passes.leave_one_out_losses_, whole.leave_one_out_losses_)
    np.testing.assert_allclose(passes.leave_one_out_squares_, whole.leave_one_out_squares_)
    assert (passes.n_attributes_, passes.k_) == (whole.n_attributes_, whole.k_)
    np.testing.assert_allclose(passes.predict_proba(X), whole.predict_proba(X), rtol=1e-9)


def test_two_pass_models_refuse_partial_fit_and_say_why():
    X = np.array([[0, 1, 0], [1, 0, 1]])
    with pytest.raises(AttributeError, match=r"2 passes.*fit_passes"):
        KDB(2).partial_fit(X, [0, 1], classes=[0, 1])
    with pytest.raises(AttributeError, match="3 passes"):
        SelectiveKDB(1).partial_fit(X, [0, 1], classes=[0, 1])
    # so that hasattr tells (scikit-learn's checks and pipelines look for it)
    assert not hasattr(KDB(2), "partial_fit") and hasattr(KDB(1), "partial_fit")


def test_kdb2_merge_is_exact_when_the_structure_agrees_and_refused_otherwise():
    rng = np.random.default_rng(5)
    n = 2000
    y = rng.integers(0, 2, n)

    def noisy(x, p):
        return np.where(rng.random(n) < p, 1 - x, x)

    x0 = noisy(y, 0.1)
    x1 = noisy(y, 0.25)
    x2 = noisy(x1, 0.05)
    x3 = noisy(x2 ^ x0, 0.05)
    X = np.column_stack([x0, x1, x2, x3]).astype(float)
    whole = KDB(2).fit(X, y)
    halves = [KDB(2).fit(X[:1000], y[:1000]), KDB(2).fit(X[1000:], y[1000:])]
    assert all(h.structure_.parents == whole.structure_.parents for h in halves)  # the premise
    merged = halves[0].merge(halves[1])
    assert merged.structure_.parents == whole.structure_.parents
    np.testing.assert_allclose(
        [e["cmi"] for e in merged.edges()], [e["cmi"] for e in whole.edges()], rtol=1e-12
    )
    assert_same_statistics(whole, merged)
    np.testing.assert_allclose(merged.predict_proba(X), whole.predict_proba(X), rtol=1e-12)

    # models whose parts counted with different structures
    other = KDB(2).fit(X[:, [3, 2, 1, 0]], y)
    with pytest.raises(ValueError, match="different structures"):
        KDB(2).fit(X, y).merge(other)


def test_selective_kdb_merge_is_refused():
    X = np.array([[0, 1], [1, 0], [1, 1]])
    model = SelectiveKDB(1).fit(X, [0, 1, 1])
    with pytest.raises(ValueError, match="cannot be merged exactly"):
        model.merge(SelectiveKDB(1).fit(X, [0, 1, 1]))


def test_merge_of_models_with_different_settings_is_an_error():
    X = np.array([[0, 1, 1], [1, 0, 2], [1, 1, 0]])
    y = [0, 1, 1]
    with pytest.raises(TypeError, match="cannot merge a TAN into a AODE"):
        AODE().fit(X, y).merge(TAN().fit(X, y))
    with pytest.raises(ValueError, match="different parameters"):
        AnDE(1).fit(X, y).merge(AnDE(2).fit(X, y))
    with pytest.raises(ValueError, match="different parameters"):
        KDB(1).fit(X, y).merge(KDB(2).fit(X, y))
    # smoothing does not change the counts: the merged model keeps the first one's settings,
    # and says so
    with pytest.warns(UserWarning, match=r"\(alpha: 0\.5 here, 2\.0 in the other\)"):
        merged = AODE(alpha=0.5).fit(X, y).merge(AODE(alpha=2.0).fit(X, y))
    assert merged.alpha == 0.5
    np.testing.assert_allclose(merged.class_count_, [2, 4])


# --------------------------------------------------------------------------- memory
def test_cell_counts_are_the_documented_sums():
    v = np.array([3, 1, 4, 2])
    assert pair_cells(v) == sum(v[i] * v[j] for i in range(4) for j in range(i + 1, 4))
    assert triple_cells(v) == sum(
        v[i] * v[j] * v[l_] for i in range(4) for j in range(i + 1, 4) for l_ in range(j + 1, 4)
    )
    stats = PairCounts(2, 4, order=2)
    stats.grow(v)
    assert stats.count_bytes(v) == stats.singles.nbytes + stats.pairs.nbytes + stats.triples.nbytes


@pytest.mark.parametrize(
    ("text", "expected"),
    [(1000, 1000), ("512MiB", 512 * 2**20), ("2 GB", 2 * 10**9), ("1.5GiB", int(1.5 * 2**30))],
)
def test_parse_memory(text, expected):
    assert parse_memory(text) == expected


@pytest.mark.parametrize("bad", ["lots", -1, 0, "3 parsecs", True])
def test_parse_memory_rejects_nonsense(bad):
    with pytest.raises(ValueError, match="max_memory"):
        AODE(max_memory=bad).fit(np.zeros((2, 2)), [0, 1])


def test_memory_over_budget_is_refused_before_allocating_naming_cost_and_remedies():
    X = np.tile(np.arange(300), (2, 1)).T.astype(float)  # two attributes of 300 values
    X = np.column_stack([X, np.zeros(300)])
    y = np.arange(300) % 2
    with pytest.raises(MemoryBudgetError) as info:
        AODE(max_memory="1MiB").fit(X, y)
    message = str(info.value)
    assert "pair counts" in message and "1.0 MiB" in message
    assert "column 0 (300 values)" in message
    assert "coarser intervals" in message and "fewer attributes" in message
    assert "raise max_memory" in message
    with pytest.raises(MemoryBudgetError, match="AODE \\(n=1\\) instead of A2DE"):
        AnDE(2, max_memory="8MiB").fit(X, y)
    AnDE(1, max_memory="8MiB").fit(X, y)  # the same data fits as AODE


def test_a_column_with_a_million_values_is_refused_clearly():
    n = 1_000_000
    rng = np.random.default_rng(6)
    X = np.column_stack([np.arange(n), rng.permutation(n), rng.integers(0, 3, n)])
    import pandas as pd

    frame = pd.DataFrame(X, columns=["id", "zip", "colour"])
    with pytest.raises(MemoryBudgetError, match="'id' \\(1,000,000 values\\)"):
        AODE().fit(frame, np.arange(n) % 2)


def test_parent_counts_of_a_high_k_are_refused_before_allocating():
    rng = np.random.default_rng(7)
    X = rng.integers(0, 40, (500, 6))
    with pytest.raises(MemoryBudgetError, match="a smaller k"):
        KDB(5, max_memory="64MiB").fit(X, rng.integers(0, 2, 500))
