"""The backbone property: statistics form a commutative monoid.

Any split of the rows, in any order, with weights, merged or fed to partial_fit, gives the model
that one fit on all the rows gives (to 1e-12 relative), for every family.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import assert_same_statistics
from hypothesis import given, settings
from hypothesis import strategies as st

import nbayes

FACTORIES = {
    "categorical": (lambda: nbayes.CategoricalNB(), "codes"),
    "categorical-missing": (lambda: nbayes.CategoricalNB(alpha=0.5), "codes-nan"),
    "gaussian": (lambda: nbayes.GaussianNB(), "real"),
    "gaussian-missing": (lambda: nbayes.GaussianNB(), "real-nan"),
    "multinomial": (lambda: nbayes.MultinomialNB(), "counts"),
    "multinomial-sparse": (lambda: nbayes.MultinomialNB(alpha=0.3), "counts-sparse"),
    "complement": (lambda: nbayes.ComplementNB(norm=True), "counts"),
    "bernoulli": (lambda: nbayes.BernoulliNB(binarize=1.0), "counts"),
    "poisson": (lambda: nbayes.PoissonNB(), "counts-sparse"),
}


def make_data(kind: str, n: int, d: int, rng: np.random.Generator):
    if kind.startswith("codes"):
        X = rng.integers(0, 5, (n, d)).astype(float)
    elif kind.startswith("real"):
        X = rng.normal(loc=rng.uniform(-1e3, 1e3, d), scale=rng.uniform(0.1, 10, d), size=(n, d))
    else:
        X = rng.poisson(1.5, (n, d)).astype(float)
    if kind.endswith("nan"):
        X[rng.random((n, d)) < 0.2] = np.nan
    if kind.endswith("sparse"):
        X = sp.csr_array(X)
    return X


@st.composite
def split_problems(draw):
    n = draw(st.integers(2, 40))
    d = draw(st.integers(1, 4))
    k = draw(st.integers(1, 4))
    groups = draw(st.integers(1, 5))
    seed = draw(st.integers(0, 2**31 - 1))
    weighted = draw(st.booleans())
    return n, d, k, groups, seed, weighted


def split(n: int, groups: int, rng: np.random.Generator) -> list[np.ndarray]:
    labels = rng.integers(0, groups, n)
    parts = [np.flatnonzero(labels == g) for g in range(groups)]
    parts = [p for p in parts if p.size]
    order = rng.permutation(len(parts))
    return [parts[i] for i in order]


@pytest.mark.parametrize("name", sorted(FACTORIES))
@settings(max_examples=50, deadline=None)
@given(problem=split_problems())
def test_merge_and_partial_fit_equal_one_fit(name, problem):
    n, d, k, groups, seed, weighted = problem
    rng = np.random.default_rng(seed)
    factory, kind = FACTORIES[name]
    X = make_data(kind, n, d, rng)
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

    # equal statistics give equal scores, up to the conditioning of the formulas (a variance
    # known to 1e-12 can move a large (x - μ)²/σ² by more than 1e-12)
    expected = whole.predict_joint_log_proba(X)
    finite = np.isfinite(expected)
    scale = max(1.0, float(np.max(np.abs(expected[finite]), initial=0.0)))
    for other in (merged, streamed):
        got = other.predict_joint_log_proba(X)
        np.testing.assert_array_equal(np.isfinite(got), finite)
        np.testing.assert_allclose(got[finite], expected[finite], rtol=1e-9, atol=1e-9 * scale)


def test_merge_leaves_inputs_unchanged_and_unions_classes():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, (30, 2))
    a = nbayes.CategoricalNB().fit(X[:10], np.array(["a", "b"] * 5))
    b = nbayes.CategoricalNB().fit(X[10:] + 1, np.array(["b", "c"] * 10))
    before = (a.class_count_.copy(), a._stats.counts.copy(), list(a.classes_))
    merged = nbayes.merge(a, b)
    assert list(merged.classes_) == ["a", "b", "c"]
    np.testing.assert_array_equal(a.class_count_, before[0])
    np.testing.assert_array_equal(a._stats.counts, before[1])
    assert list(a.classes_) == before[2]
    whole = nbayes.CategoricalNB().fit(
        np.vstack([X[:10], X[10:] + 1]), np.array(["a", "b"] * 5 + ["b", "c"] * 10)
    )
    assert_same_statistics(whole, merged)
    np.testing.assert_array_equal(merged.n_categories_, [4, 4])


def test_merge_method_is_in_place_and_checks_compatibility():
    X = np.arange(12).reshape(6, 2) % 3
    y = np.array([0, 1] * 3)
    a = nbayes.CategoricalNB().fit(X, y)
    assert a.merge(nbayes.CategoricalNB().fit(X, y)) is a
    np.testing.assert_array_equal(a.class_count_, [6, 6])
    with pytest.raises(TypeError, match="cannot merge a GaussianNB into a CategoricalNB"):
        a.merge(nbayes.GaussianNB().fit(X, y))
    with pytest.raises(ValueError, match="2 and 3 features"):
        a.merge(nbayes.CategoricalNB().fit(np.hstack([X, X[:, :1]]), y))
    # the message names what differs, not the whole key
    with pytest.raises(ValueError, match=r"different parameters: this model has \('binarize', "
                       r"0\.5\) where the other has \('binarize', 1\.5\)"):  # fmt: skip
        nbayes.BernoulliNB(binarize=0.5).fit(X, y).merge(nbayes.BernoulliNB(binarize=1.5).fit(X, y))
    with pytest.raises(nbayes.NotFittedError):
        a.merge(nbayes.CategoricalNB())


def test_merging_models_of_other_parameters_warns_and_keeps_the_first_models():
    """Smoothing and priors apply to the summed statistics, so models made with different
    ones still add up; but merge(a, b) then differs from merge(b, a): said, naming them."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, (60, 2))
    y = rng.integers(0, 2, 60)
    a = nbayes.CategoricalNB(alpha=1.0).fit(X[:30], y[:30])
    b = nbayes.CategoricalNB(alpha=0.1, fit_prior=False).fit(X[30:], y[30:])
    with pytest.warns(UserWarning, match=r"different parameters \(alpha: 1\.0 here, 0\.1 in the "
                      r"other; fit_prior: True here, False in the other\)"):  # fmt: skip
        merged = nbayes.merge(a, b)
    expected = nbayes.CategoricalNB(alpha=1.0).fit(X, y)
    np.testing.assert_allclose(merged.predict_proba(X), expected.predict_proba(X), rtol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the same parameters: no warning
        nbayes.merge(a, nbayes.CategoricalNB(alpha=1.0).fit(X[30:], y[30:]))


def test_merging_models_of_other_columns_names_them():
    import polars as pl

    rng = np.random.default_rng(1)
    frame = pl.DataFrame(
        {c: rng.choice(["u", "v"], 40) for c in ("a", "b", "c")} | {"y": rng.choice(["p", "q"], 40)}
    )
    full = nbayes.NaiveBayes().fit(frame, target="y")
    with pytest.raises(ValueError, match=r"3 and 2 features \(only this model has \['b'\]\)\."):
        full.merge(nbayes.NaiveBayes().fit(frame.drop("b"), target="y"))
    renamed = nbayes.NaiveBayes().fit(frame.rename({"b": "d"}), target="y")
    with pytest.raises(ValueError, match=r"this model has \('b', .* where the other has \('d', "):
        full.merge(renamed)


def test_a_table_model_refuses_an_unfitted_model_and_other_missing_markers():
    import polars as pl

    frame = pl.DataFrame({"a": ["x", "?", "y", "x"] * 10, "y": ["p", "q", "p", "q"] * 10})
    fitted = nbayes.NaiveBayes().fit(frame, target="y")
    for unfitted in ((fitted, nbayes.NaiveBayes()), (nbayes.NaiveBayes(), fitted)):
        with pytest.raises(nbayes.NotFittedError):
            nbayes.merge(*unfitted)
    # '?' a value in one model and missing in the other: counts of different things
    skipping = nbayes.NaiveBayes(missing_values="?").fit(frame, target="y")
    with pytest.raises(ValueError, match=r"different missing-value markers.*\[\] vs \['\?'\]"):
        nbayes.merge(fitted, skipping)
    assert nbayes.merge(skipping, nbayes.NaiveBayes(missing_values="?").fit(frame, target="y"))


def test_partial_fit_does_not_rebuild_tables_each_call():
    """Tables are derived lazily: many partial_fit calls leave no cached parameters behind."""
    rng = np.random.default_rng(1)
    model = nbayes.MultinomialNB()
    for _ in range(5):
        model.partial_fit(rng.poisson(1, (20, 50)), rng.integers(0, 3, 20), classes=[0, 1, 2])
        assert model._stats._cache == {}
    model.predict(rng.poisson(1, (3, 50)))
    assert model._stats._cache != {}


def test_a_sketch_fed_in_row_blocks_equals_one_sketch_of_all_the_rows(monkeypatch):
    """``fit`` adds a long column to its value sketch ROWS_PER_ADD rows at a time: the same
    grid, keys and per-class weights and sums (to round-off) as one add of every row."""
    from nbayes.families import sketch

    rng = np.random.default_rng(5)
    n = 40_000
    X = np.column_stack(
        [
            rng.normal(size=n),  # distinct values: pooled on a grid
            rng.integers(0, 7, n).astype(float),  # codes: exact
            np.round(rng.exponential(size=n), 3),  # repeated values, some pooling
        ]
    )
    X[rng.random(n) < 0.05, 0] = np.nan
    cls, weight = rng.integers(0, 3, n), rng.random(n) + 0.5
    sketches = {}
    for rows in (3000, n):
        monkeypatch.setattr(sketch, "ROWS_PER_ADD", rows)
        sketches[rows] = sketch.ValueSketches(3, 3, max_bins=512)
        sketches[rows].accumulate(X, cls, weight)
    for blocks, whole in zip(sketches[3000].features, sketches[n].features, strict=True):
        assert blocks.level == whole.level
        np.testing.assert_array_equal(blocks.keys, whole.keys)
        np.testing.assert_allclose(blocks.weight, whole.weight, rtol=1e-12)
        np.testing.assert_allclose(blocks.total, whole.total, rtol=1e-12, atol=1e-9)
        assert (blocks.minimum, blocks.maximum) == (whole.minimum, whole.maximum)
    assert sketches[n].features[0].level != sketch.EXACT  # the grid case was exercised


def test_taking_rows_out_of_a_sketch_leaves_the_sums_of_the_other_rows():
    """The held-out copies of calibration take a fold's rows out of the value sketches in
    place: the same keys, grid, W and T (to round-off) as adding them with weight −w, and W
    and T those of a sketch of the remaining rows on the same keys (removed keys keep W = 0).
    A row whose key the sketch lacks (never counted) falls back to adding with −w."""
    import copy

    from nbayes.families import sketch

    rng = np.random.default_rng(11)
    n = 3000
    X = np.column_stack(
        [
            rng.normal(size=n),  # pooled on a grid
            rng.integers(0, 7, n).astype(float),  # exact codes
            np.round(rng.exponential(size=n), 2),  # repeated values
        ]
        + [rng.normal(j, 1.0, n) for j in range(17)]  # a wide block
    )
    X[rng.random(X.shape) < 0.05] = np.nan
    cls, weight = rng.integers(0, 3, n), rng.random(n) + 0.5
    weight[:10] = 0.0  # rows of weight 0 were never counted
    full = sketch.ValueSketches(3, X.shape[1], max_bins=256)
    full.accumulate(X, cls, weight)
    out = rng.random(n) < 0.2
    snapshot = [(f.weight.copy(), f.total.copy()) for f in full.features]
    removed = copy.deepcopy(full)
    removed.remove(X[out], cls[out], weight[out])
    added = copy.deepcopy(full)
    added.accumulate(X[out], cls[out], -weight[out])
    rest = sketch.ValueSketches(3, X.shape[1], max_bins=256)
    rest.accumulate(X[~out], cls[~out], weight[~out])
    for mine, negative, theirs, before in zip(
        removed.features, added.features, rest.features, full.features, strict=True
    ):
        assert mine.level == before.level and mine.level == negative.level
        np.testing.assert_array_equal(mine.keys, before.keys)
        np.testing.assert_array_equal(mine.keys, negative.keys)
        np.testing.assert_allclose(mine.weight, negative.weight, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(mine.total, negative.total, rtol=1e-12, atol=1e-9)
        # on the remaining rows' keys (pooled on the full sketch's grid), the same sums
        pooled, where = np.unique(sketch.pool(theirs.keys, mine.level), return_inverse=True)
        rest_weight = np.zeros((pooled.size, 3))
        np.add.at(rest_weight, where, theirs.weight)
        on_rest = np.isin(mine.keys, pooled)
        np.testing.assert_array_equal(on_rest, mine.weight.sum(axis=1) > 1e-9)
        np.testing.assert_allclose(mine.weight[on_rest], rest_weight, rtol=1e-9, atol=1e-9)
        assert (mine.minimum, mine.maximum) == (before.minimum, before.maximum)
    assert full.features[0].level != sketch.EXACT  # the grid case was exercised
    assert full.features[1].level == sketch.EXACT
    # the original's arrays are untouched by the copy's removal
    for kept, (weight_before, total_before) in zip(full.features, snapshot, strict=True):
        np.testing.assert_array_equal(kept.weight, weight_before)
        np.testing.assert_array_equal(kept.total, total_before)
    stranger = copy.deepcopy(full)
    values = X[:5].copy()
    values[:, 1] = 0.5  # not a code the exact sketch holds
    stranger.remove(values, cls[:5], weight[:5] + 1.0)
    fallback = copy.deepcopy(full)
    fallback.accumulate(values, cls[:5], -(weight[:5] + 1.0))
    for mine, theirs in zip(stranger.features, fallback.features, strict=True):
        np.testing.assert_array_equal(mine.keys, theirs.keys)
        np.testing.assert_allclose(mine.weight, theirs.weight, rtol=1e-12, atol=1e-12)
