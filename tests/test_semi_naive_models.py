"""The semi-naive models against hand-worked fractions and against an independent reference
(tests/semi_naive_reference.py: every probability counted straight from the rows)."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction as F

import numpy as np
import pytest
import semi_naive_reference as ref
from hypothesis import given, settings
from hypothesis import strategies as st

from nbayes import CategoricalNB, UnseenCategoryWarning
from nbayes.datasets import load_buys_computer
from nbayes.persist import loads
from nbayes.semi_naive import AODE, HNB, KDB, TAN, WAODE, AnDE, AODEsr, SelectiveKDB


# --------------------------------------------------------------------------- hand-worked
def test_aode_on_buys_computer_equals_the_fractions_worked_by_hand():
    """Han & Kamber's 14 rows, the query X = (youth, medium, student, fair); Laplace estimates
    P(x_i | c) = (N(c, x_i) + 1) / (N_c + v_i), P(x_j | c, x_i) = (N(c, x_i, x_j) + 1) /
    (N(c, x_i) + v_j); v = 3, 3, 2, 2. The counts were read off the table by hand."""
    table = load_buys_computer()
    X, values = table.codes()
    query = [
        list(values[0]).index("youth"),
        list(values[1]).index("medium"),
        list(values[2]).index("yes"),
        list(values[3]).index("fair"),
    ]
    # class yes (9 rows): youth 2, medium 4, student 6, fair 6; youth&medium 1,
    # youth&student 2, youth&fair 1, medium&student 2, medium&fair 2, student&fair 4
    yes = [
        F(3, 12) * F(2, 5) * F(3, 4) * F(2, 4),  # parent youth
        F(5, 12) * F(2, 7) * F(3, 6) * F(3, 6),  # parent medium
        F(7, 11) * F(3, 9) * F(3, 9) * F(5, 8),  # parent student
        F(7, 11) * F(2, 9) * F(3, 9) * F(5, 8),  # parent fair
    ]
    # class no (5 rows): youth 3, medium 2, student 1, fair 2; youth&medium 1,
    # youth&student 0, youth&fair 2, medium&student 0, medium&fair 1, student&fair 0
    no = [
        F(4, 8) * F(2, 6) * F(1, 5) * F(3, 5),
        F(3, 8) * F(2, 5) * F(1, 4) * F(2, 4),
        F(2, 7) * F(1, 4) * F(1, 4) * F(1, 3),
        F(3, 7) * F(3, 5) * F(2, 5) * F(1, 4),
    ]
    joint = {"no": F(5, 14) * sum(no) / 4, "yes": F(9, 14) * sum(yes) / 4}
    assert joint["yes"] == F(9, 14) * (F(3, 80) + F(5, 168) + F(35, 792) + F(35, 1188)) / 4
    model = AODE().fit(X, table.y)
    assert list(model.classes_) == ["no", "yes"]
    got = model.predict_joint_log_proba(np.array([query], dtype=float))[0]
    np.testing.assert_allclose(got, [math.log(joint["no"]), math.log(joint["yes"])], rtol=1e-12)
    posterior = float(joint["yes"] / (joint["yes"] + joint["no"]))
    np.testing.assert_allclose(
        model.predict_proba(np.array([query]))[0], [1 - posterior, posterior], rtol=1e-12
    )
    assert model.predict(np.array([query]))[0] == "yes"


def _tree_table():
    """Binary A, B, D, E and class C: given C, A is uniform, B = A, D is uniform and independent
    of A, and E = D in 3 of 4 rows. Enumerated exactly (32 rows), so the empirical conditional
    mutual informations are the exact ones: I(A;B|C) = ln 2,
    I(D;E|C) = ln 2 + ¾ ln ¾ + ¼ ln ¼, every other pair 0, and I(X;C) = 0 for all."""
    rows, labels = [], []
    for c in (0, 1):
        for a in (0, 1):
            for d in (0, 1):
                for e in (d, d, d, 1 - d):
                    rows.append([a, a, d, e])
                    labels.append(c)
    return np.array(rows, dtype=float), np.array(labels)


def test_tan_tree_on_a_table_with_known_conditional_mutual_informations():
    X, y = _tree_table()
    strong = math.log(2)
    weak = math.log(2) + 0.75 * math.log(0.75) + 0.25 * math.log(0.25)
    model = TAN().fit(X, y)
    # every I(X; C) is 0: the root is the lowest index, A. Prim joins B (ln 2) via A; then D
    # and E tie at weight 0: the lower index, D, joins, its parent the earlier-joined A; E then
    # joins via D (weight `weak` > 0).
    edges = model.edges()
    assert [(e["parent"], e["child"]) for e in edges] == [(0, 1), (0, 2), (2, 3)]
    np.testing.assert_allclose([e["cmi"] for e in edges], [strong, 0.0, weak], atol=1e-15)
    assert model.structure_.order == (0, 1, 2, 3)
    # rooted at E instead: D joins via E; A and B tie at 0: A joins (parent E); B via A
    rooted = TAN(root=3).fit(X, y)
    assert [(e["parent"], e["child"]) for e in rooted.edges()] == [(3, 2), (3, 0), (0, 1)]

    rows = ref.Rows(X, y)
    parents = {0: [], 1: [0], 2: [0], 3: [2]}
    queries = np.array([[0, 0, 1, 1], [1, 0, 0, 1], [1, np.nan, 1, 0]])
    for q, got in zip(queries, model.predict_joint_log_proba(queries), strict=True):
        expected = [
            math.log(0.5) + ref.network_log_likelihood(rows, list(q), c, parents, alpha=0.5)
            for c in (0, 1)
        ]
        np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_kdb_structure_follows_the_documented_rule():
    rng = np.random.default_rng(11)
    n = 300
    y = rng.integers(0, 2, n)
    x0 = np.where(rng.random(n) < 0.1, 1 - y, y)
    x1 = np.where(rng.random(n) < 0.3, 1 - y, y)
    x2 = (x1 + rng.integers(0, 2, n) * (rng.random(n) < 0.2)) % 2
    x3 = rng.integers(0, 3, n)
    X = np.column_stack([x3, x2, x1, x0]).astype(float)
    rows = ref.Rows(X, y)
    mi = [rows.mutual_information(j) for j in range(4)]
    order = sorted(range(4), key=lambda j: (-mi[j], j))
    for k in (1, 2, 3):
        model = KDB(k).fit(X, y)
        assert model.structure_.order == tuple(order)
        for rank, j in enumerate(order):
            earlier = sorted(order[:rank])
            cmi = {p: rows.conditional_mutual_information(j, p) for p in earlier}
            expected = sorted(earlier, key=lambda p: (-cmi[p], p))[: min(k, rank)]
            assert list(model.structure_.parents[j]) == expected
            np.testing.assert_allclose(model.structure_.weights[j], [cmi[p] for p in expected])


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_equal_informations_give_one_structure_in_any_row_order(seed):
    """c is a per-class relabelling of b, so I(a; b | C) = I(a; c | C) exactly; the row order
    changes the codes, hence the order of the sums and their last bits, never the structure."""
    import polars as pl

    from nbayes.semi_naive import SemiNaiveBayes

    rng = np.random.default_rng(0)
    n = 600
    y = rng.integers(0, 3, n)
    a = (y + rng.integers(0, 2, n)) % 4
    b = np.where(rng.random(n) < 0.6, a, rng.integers(0, 4, n))
    c = np.array([[0, 1, 2, 3], [2, 3, 0, 1], [3, 0, 1, 2]])[y, b]
    d = np.where(rng.random(n) < 0.6, a, rng.integers(0, 4, n))
    frame = pl.DataFrame({"a": a, "b": b, "c": c, "d": d, "y": y}).with_columns(
        pl.exclude("y").cast(pl.String)
    )
    order = np.random.default_rng(seed).permutation(n)
    for name in ("tan", "kdb"):
        first = SemiNaiveBayes(name, discriminative=False).fit(frame, target="y")
        other = SemiNaiveBayes(name, discriminative=False).fit(frame[order], target="y")
        assert other.model_.structure_.parents == first.model_.structure_.parents
        np.testing.assert_allclose(
            other.predict_proba(frame), first.predict_proba(frame), rtol=0, atol=1e-12
        )


# --------------------------------------------------------------------------- the reference
def _problem(seed, n=30, d=4, K=3, values=3, missing=0.15):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, values, (n, d)).astype(float)
    X[:, 1] = (X[:, 0] + rng.integers(0, 2, n)) % values  # some dependence
    X[rng.random((n, d)) < missing] = np.nan
    y = rng.integers(0, K, n)
    w = rng.uniform(0.5, 2.0, n)
    queries = rng.integers(0, values + 1, (12, d)).astype(float)  # code `values`: unseen
    queries[rng.random((12, d)) < 0.2] = np.nan
    return X, y, w, queries


AVERAGED = {
    "aode": (AODE(), {}),
    "aode-m-estimate-limit": (
        AODE(alpha=0.5, smoothing="m-estimate", min_count=3),
        {"alpha": 0.5, "smoothing": "m-estimate", "min_count": 3},
    ),
    "waode": (
        WAODE(),
        {"smoothing": "m-estimate", "min_count": 0, "weighting": "mutual-information"},
    ),
    "aodesr": (AODEsr(subsumption=2), {"smoothing": "m-estimate", "subsumption": 2}),
}


@pytest.mark.parametrize("name", sorted(AVERAGED))
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_averaged_models_equal_the_reference(name, seed):
    X, y, w, queries = _problem(seed)
    model, options = AVERAGED[name]
    model.fit(X, y, sample_weight=w)
    rows = ref.Rows(X, y, w)
    log_prior = np.log(model.class_count_ / model.class_count_.sum())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnseenCategoryWarning)
        got = model.predict_joint_log_proba(queries)
    for q, row in zip(queries, got, strict=True):
        expected = [ref.aode_log_likelihood(rows, list(q), c, **options) for c in range(3)]
        np.testing.assert_allclose(row - log_prior, expected, rtol=1e-10, atol=1e-12)


def test_subsumption_drops_the_generalisation():
    # x1 = 1 whenever x0 = 0 (60 rows): x1 = 1 generalises x0 = 0, and is dropped for rows with
    # x0 = 0, x1 = 1 — the prediction then equals AODE without attribute 1 on those rows
    rng = np.random.default_rng(3)
    x0 = rng.integers(0, 2, 200)
    x1 = np.where(x0 == 0, 1, rng.integers(0, 2, 200))
    x2 = rng.integers(0, 3, 200)
    y = (x0 + x2 + rng.integers(0, 2, 200)) % 2
    X = np.column_stack([x0, x1, x2]).astype(float)
    sr = AODEsr(smoothing="lidstone").fit(X, y)
    query = np.array([[0, 1, 2]], dtype=float)
    rows = ref.Rows(X, y)
    assert ref.subsumed(rows, [0, 1, 2], [0, 1, 2], 50) == {1}
    without = AODE().fit(X[:, [0, 2]], y)
    np.testing.assert_allclose(
        sr.predict_proba(query), without.predict_proba(query[:, [0, 2]]), rtol=1e-12
    )
    assert not np.allclose(AODE().fit(X, y).predict_proba(query), sr.predict_proba(query))


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("smoothing", ["lidstone", "m-estimate"])
def test_a2de_equals_the_reference(seed, smoothing):
    X, y, w, queries = _problem(seed, n=25, d=5)
    model = AnDE(2, smoothing=smoothing, min_count=2).fit(X, y, sample_weight=w)
    rows = ref.Rows(X, y, w)
    log_prior = np.log(model.class_count_ / model.class_count_.sum())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnseenCategoryWarning)
        got = model.predict_joint_log_proba(queries)
    for q, row in zip(queries, got, strict=True):
        expected = [
            ref.a2de_log_likelihood(rows, list(q), c, smoothing=smoothing, min_count=2)
            for c in range(3)
        ]
        np.testing.assert_allclose(row - log_prior, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_hnb_equals_the_reference(seed):
    X, y, w, queries = _problem(seed)
    model = HNB().fit(X, y, sample_weight=w)
    rows = ref.Rows(X, y, w)
    log_prior = np.log(model.class_count_ / model.class_count_.sum())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnseenCategoryWarning)
        got = model.predict_joint_log_proba(queries)
    for q, row in zip(queries, got, strict=True):
        expected = [ref.hnb_log_likelihood(rows, list(q), c) for c in range(3)]
        np.testing.assert_allclose(row - log_prior, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("model", [TAN(min_count=2), KDB(1), KDB(2, min_count=2), KDB(3)])
@pytest.mark.parametrize("seed", [0, 1])
def test_networks_equal_the_reference(model, seed):
    X, y, w, queries = _problem(seed, d=5)
    model.fit(X, y, sample_weight=w)
    rows = ref.Rows(X, y, w)
    parents = {j: list(p) for j, p in enumerate(model.structure_.parents)}
    log_prior = np.log(model.class_count_ / model.class_count_.sum())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnseenCategoryWarning)
        got = model.predict_joint_log_proba(queries)
    for q, row in zip(queries, got, strict=True):
        expected = [
            ref.network_log_likelihood(
                rows, list(q), c, parents, alpha=model.alpha, min_count=model.min_count
            )
            for c in range(3)
        ]
        np.testing.assert_allclose(row - log_prior, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("structure", [TAN(), KDB(2), SelectiveKDB(2)])
def test_tiny_weights_learn_the_structure_of_unit_weights(structure):
    """I(X_i; X_j | C) is a function of count ratios, so weights of 1e-300 (whose products
    underflow) give the structure of weights of 1."""
    rng = np.random.default_rng(3)
    X = rng.integers(0, 3, (80, 5)).astype(float)
    X[:, 1] = (X[:, 0] + (rng.random(80) < 0.2)) % 3
    y = (X[:, 0] + rng.integers(0, 2, 80)) % 2
    unit = structure.fit(X, y).structure_.parents
    tiny = structure.fit(X, y, sample_weight=np.full(80, 1e-300))
    assert tiny.structure_.parents == unit
    assert np.all(np.isfinite(tiny.predict_proba(X)))


def test_selective_kdb_leave_one_out_losses_keep_posteriors_far_below_the_smallest_double():
    """500 attributes, each agreeing with the class 9 times in 10: every class's joint
    probability falls far below 2^-1022 (the kernel keeps it as mantissa and exponent), and the
    rows whose attributes all disagree have P(y | x) near e^-1000 (loss capped at 745) or
    e^-600. Checked at k' = 0 (naive Bayes on the first s attributes) against log-space sums."""
    rng = np.random.default_rng(7)
    n, d = 40, 500
    y = np.arange(n) % 2
    X = np.where(rng.random((n, d)) < 0.9, y[:, None], 1 - y[:, None]).astype(float)
    X[0] = 1 - y[0]  # every attribute against its class
    X[1, :300] = 1 - y[1]
    model = SelectiveKDB(1).fit(X, y)
    order = list(model.structure_.order)
    N = np.array([np.sum(y == c) for c in range(2)], dtype=float)
    match = np.stack([(X == c).astype(float) for c in range(2)], axis=2)  # (row, j, value)
    count = np.stack([match[y == c].sum(axis=0) for c in range(2)], axis=2)  # (j, value, c)
    losses = np.zeros(d + 1)
    squares = np.zeros(d + 1)
    for r in range(n):
        own = np.eye(2)[y[r]]
        terms = np.empty((d, 2))
        for j in range(d):
            x = int(X[r, j])
            terms[j] = np.log((count[j, x] - own + 1.0) / (N - own + 2.0))
        prior = np.log((N - own + 1.0) / (n - 1 + 2.0))
        jll = prior + np.vstack([np.zeros(2), np.cumsum(terms[order], axis=0)])
        log_post = jll[:, y[r]] - np.logaddexp(jll[:, 0], jll[:, 1])
        losses += np.minimum(-log_post, 745.0)
        squares += np.minimum(-log_post, 745.0) ** 2
    assert losses[d] > 745.0  # row 0 alone reaches the cap
    np.testing.assert_allclose(model.leave_one_out_losses_[:, 0, 0], losses, rtol=1e-9)
    np.testing.assert_allclose(model.leave_one_out_squares_[:, 0, 0], squares, rtol=1e-9)


def test_selective_kdb_leave_one_out_losses_equal_refitting_without_each_row():
    X, _, w, _ = _problem(4, n=30, d=4, K=2)
    w = np.round(w * 2) / 2
    rng = np.random.default_rng(4)
    y = np.where(rng.random(30) < 0.2, 1, np.nan_to_num(X[:, 1], nan=1) % 2).astype(int)
    model = SelectiveKDB(2, min_count=2).fit(X, y, sample_weight=w)
    parents = {j: list(p) for j, p in enumerate(model.structure_.parents)}
    order = list(model.structure_.order)
    full = ref.Rows(X, y, w)
    expected = np.zeros((5, 3, 3))
    squares = np.zeros((5, 3, 3))
    assert model.n_attributes_ > 0  # the data has signal: the prior alone is not chosen
    for i in range(len(y)):
        keep = np.arange(len(y)) != i
        rows = ref.Rows(X[keep], y[keep], w[keep])
        rows.v = full.v  # the model's value counts come from all rows
        rows.K = 2
        n_c = [sum(w[keep][y[keep] == c]) for c in range(2)]
        for s in range(5):
            for kk in range(3):
                use = {j: kk for j in order[:s]}
                jll = [
                    math.log((n_c[c] + 1) / (sum(n_c) + 2))
                    + ref.network_log_likelihood(rows, list(X[i]), c, parents, min_count=2, use=use)
                    for c in range(2)
                ]
                top = max(jll)
                post = np.exp(np.array(jll) - top)
                post /= post.sum()
                row = [
                    -math.log(post[y[i]]),
                    float(int(np.argmax(post)) != y[i]),
                    sum((post[c] - (c == y[i])) ** 2 for c in range(2)),
                ]
                expected[s, kk] += w[i] * np.array(row)
                squares[s, kk] += w[i] * np.array(row) ** 2
    np.testing.assert_allclose(model.leave_one_out_losses_, expected, rtol=1e-10)
    np.testing.assert_allclose(model.leave_one_out_squares_, squares, rtol=1e-10)
    # the one-standard-error rule: the fewest parents whose best total is within one standard
    # error of the lowest, sqrt(Q - L^2 / N) over the rows' total weight N
    lowest = expected[:, :, 0].min()
    Q = squares[:, :, 0].flat[np.argmin(expected[:, :, 0])]
    bound = lowest + math.sqrt(Q - lowest**2 / w.sum())
    depth = next(kk for kk in range(3) if expected[:, kk, 0].min() <= bound)
    assert (model.n_attributes_, model.k_) == (int(np.argmin(expected[:, depth, 0])), depth)
    # prediction uses the chosen attributes and parents
    rows = ref.Rows(X, y, w)
    use = {j: model.k_ for j in order[: model.n_attributes_]}
    q = X[0]
    log_prior = np.log(model.class_count_ / model.class_count_.sum())
    expected_row = [
        ref.network_log_likelihood(rows, list(q), c, parents, min_count=2, use=use)
        for c in range(2)
    ]
    np.testing.assert_allclose(
        model.predict_joint_log_proba(q[None, :])[0] - log_prior,
        expected_row,
        rtol=1e-10,
        atol=1e-12,
    )


def test_selective_kdb_takes_the_simplest_of_near_tied_losses():
    # totals whose last bits depend on the order rows were summed in must not decide: within
    # 1e-9 (relative) of the lowest, fewer parents win, then fewer attributes
    X, y, w, _ = _problem(4, n=30, d=4, K=2)
    model = SelectiveKDB(2).fit(X, y, sample_weight=w)
    losses = np.full((5, 3, 3), 50.0)
    losses[4, 2, 0] = 10.0
    losses[3, 2, 0] = 10.0 * (1 + 1e-12)  # fewer attributes, same parents: a tie
    losses[4, 1, 0] = 10.0 * (1 + 5e-10)  # fewer parents: a tie, and simpler still
    losses[1, 0, 0] = 10.0 * (1 + 1e-6)  # simplest, but truly worse
    model.leave_one_out_losses_ = losses
    model.leave_one_out_squares_ = np.zeros_like(losses)  # a standard error of 0
    model._select()
    assert (model.n_attributes_, model.k_) == (4, 1)
    losses[4, 1, 0] = 10.0 * (1 + 1e-8)  # no longer a tie
    model._select()
    assert (model.n_attributes_, model.k_) == (3, 2)
    losses[0, 0, 0] = np.nan  # a total that is not a number is no candidate
    model._select()
    assert (model.n_attributes_, model.k_) == (3, 2)
    losses[:] = np.nan  # none at all: the prior alone
    model._select()
    assert (model.n_attributes_, model.k_) == (0, 0)


def test_selective_kdb_keeps_fewer_parents_within_one_standard_error():
    # Breiman et al.'s rule: a deeper model must beat the shallower by more than the standard
    # error of the lowest total, sqrt(Q - L^2 / N)
    X, y, w, _ = _problem(4, n=30, d=4, K=2)
    model = SelectiveKDB(2).fit(X, y, sample_weight=w)
    rows = model.class_count_.sum()
    losses = np.full((5, 3, 3), 50.0)
    losses[4, 2, 0] = 10.0  # the lowest, with two parents
    losses[2, 1, 0] = 10.8  # one parent, two attributes
    losses[3, 1, 0] = 10.9
    losses[4, 0, 0] = 11.2  # naive Bayes
    squares = np.zeros_like(losses)
    squares[4, 2, 0] = 1.0 + 100.0 / rows  # a standard error of 1
    model.leave_one_out_losses_, model.leave_one_out_squares_ = losses, squares
    model._select()
    assert (model.n_attributes_, model.k_) == (2, 1)
    squares[4, 2, 0] = 0.25 + 100.0 / rows  # 0.5: one parent is no longer close enough
    model._select()
    assert (model.n_attributes_, model.k_) == (4, 2)
    squares[4, 2, 0] = 1.44 + 100.0 / rows  # 1.2: naive Bayes is
    model._select()
    assert (model.n_attributes_, model.k_) == (4, 0)


def test_priors_and_loss_apply_to_semi_naive_models():
    X, y, _, queries = _problem(5, K=2)
    queries = np.nan_to_num(np.minimum(queries, 2), nan=0)
    model = AODE().fit(X, y)
    uniform = model.predict_proba(queries, priors=[0.5, 0.5])
    jll = model.predict_joint_log_proba(queries) - model.class_log_prior_
    expected = np.exp(jll - np.logaddexp(jll[:, 0], jll[:, 1])[:, None])
    np.testing.assert_allclose(uniform, expected, rtol=1e-12)
    # a loss that makes deciding class 0 when the truth is 1 100 times as bad
    loss = [[0, 100], [1, 0]]
    post = model.predict_proba(queries)
    risky = model.predict(queries, loss=loss)
    np.testing.assert_array_equal(risky, np.where(100 * post[:, 1] > post[:, 0], 1, 0))


# --------------------------------------------------------------------------- bad input
def test_k_larger_than_the_attributes_is_an_error():
    X = np.array([[0, 1, 0], [1, 0, 1]])
    with pytest.raises(ValueError, match="k=5 is larger than the number of other attributes"):
        KDB(5).fit(X, [0, 1])
    # the selective variant chooses k' ≤ k, so it caps k at d − 1 instead
    model = SelectiveKDB(5).fit(X, [0, 1])
    assert model.k_ <= 2


def test_a_single_attribute():
    rng = np.random.default_rng(8)
    X = rng.integers(0, 4, (50, 1))
    y = rng.integers(0, 2, 50)
    naive = CategoricalNB().fit(X, y).predict_proba(X)
    for model in (AODE(), TAN(alpha=1.0), HNB(smoothing="lidstone"), AnDE(2), KDB(0)):
        np.testing.assert_allclose(model.fit(X, y).predict_proba(X), naive, rtol=1e-12)
    with pytest.raises(ValueError, match="at most 0 parent"):
        KDB(1).fit(X, y)


def test_a_column_that_is_entirely_missing_contributes_nothing():
    X, y, _, _ = _problem(6)
    with_empty = np.column_stack([X[:, :2], np.full(len(y), np.nan), X[:, 2:]])
    for factory in (AODE, HNB, lambda: AnDE(2)):
        a = factory().fit(with_empty, y)
        b = factory().fit(X, y)
        query = np.nan_to_num(X[:5], nan=0)
        np.testing.assert_allclose(
            a.predict_proba(np.column_stack([query[:, :2], np.full(5, np.nan), query[:, 2:]])),
            b.predict_proba(query),
            rtol=1e-12,
        )
    assert AODE().fit(with_empty, y).n_values_[2] == 0
    TAN().fit(with_empty, y).predict(with_empty)  # fits and predicts


def test_a_class_with_one_row():
    X, y, _, _ = _problem(7, K=2)
    y = y.copy()
    y[3] = 2
    for model in (AODE(), WAODE(), HNB(), TAN(), KDB(2), SelectiveKDB(2), AnDE(2)):
        model.fit(X, y)
        proba = model.predict_proba(X)
        assert np.all(np.isfinite(proba)) and proba.shape == (len(y), 3)
    assert np.all(np.isfinite(model.leave_one_out_losses_)) if hasattr(model, "k_") else True


def test_unseen_codes_are_treated_as_missing_with_one_warning():
    X, y, _, _ = _problem(9)
    model = AODE().fit(X, y)
    query = np.array([[0, 1, 7, 2], [0, 1, np.nan, 2], [9, 9, 9, 9]], dtype=float)
    with pytest.warns(UnseenCategoryWarning, match="feature 0: 1, feature 1: 1, feature 2: 2"):
        got = model.predict_proba(query)
    np.testing.assert_allclose(got[0], got[1])


@pytest.mark.parametrize(
    ("model", "message"),
    [
        (AODE(alpha=-1), "alpha must be >= 0"),
        (AODE(smoothing="add-one"), "smoothing must be one of"),
        (AODE(min_count=-2), "min_count must be >= 0"),
        (AODE(weighting="chi2"), "weighting must be one of"),
        (AODE(subsumption=-1), "subsumption must be None or a count"),
        (AnDE(3), "n must be 1 \\(AODE\\) or 2"),
        (KDB(-1), "k must be an integer >= 0"),
        (SelectiveKDB(2, criterion="auc"), "criterion must be one of"),
        (TAN(root=9), "root=9 is not an attribute index"),
        (TAN(root="a"), "root must be None or an attribute index"),
    ],
)
def test_bad_parameters_name_themselves(model, message):
    with pytest.raises(ValueError, match=message):
        model.fit(np.array([[0, 1], [1, 0]]), [0, 1]).predict(np.array([[0, 1]]))


def test_bad_codes_name_the_feature_and_row():
    with pytest.raises(ValueError, match=r"feature 1 has 0\.5 at row 1"):
        AODE().fit(np.array([[0, 1], [1, 0.5]]), [0, 1])
    with pytest.raises(ValueError, match=r"Negative values.*feature 0"):
        TAN().fit(np.array([[0, 1], [-1, 0]]), [0, 1])


def test_summary_says_rows_for_unit_weights_and_weight_otherwise():
    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]] * 3)
    y = np.array([0, 1, 1, 0] * 3)
    plain = AODE().fit(X, y).summary()
    assert plain.startswith("AODE: 12 training rows,")
    weighted = AODE().fit(X, y, sample_weight=np.full(12, 0.3)).summary()
    assert weighted.startswith("AODE: weight 3.600 (weighted),")


def test_a_selective_kdb_file_without_the_squares_loads_with_its_selection():
    # files written before the squared losses were kept: the squares load as zeros (a
    # standard error of 0, the smallest-total rule those files' selections were made by)
    from forging import forge, parts

    X, y, w, queries = _problem(4, n=30, d=4, K=2)
    model = SelectiveKDB(2).fit(X, y, sample_weight=w)
    meta, arrays = parts(model)
    del arrays["leave_one_out_squares"]
    loaded = loads(forge(meta, arrays))
    assert (loaded.n_attributes_, loaded.k_) == (model.n_attributes_, model.k_)
    np.testing.assert_array_equal(loaded.leave_one_out_squares_, 0.0)
    np.testing.assert_array_equal(loaded.predict_proba(queries), model.predict_proba(queries))


def _chained_table(seed: int, n: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    """Noise attributes but the first three: x0 follows the class, x1 is x0 XOR the class
    (it needs its parent: k' ≥ 1), x2 is x0 XOR x1; each with a little noise."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = rng.integers(0, 3, (n, d)).astype(float)
    X[:, 0] = (y + (rng.random(n) < 0.2)) % 2
    X[:, 1] = (X[:, 0] + y + (rng.random(n) < 0.1)) % 2
    X[:, 2] = (X[:, 1] + X[:, 0] + (rng.random(n) < 0.1)) % 2
    return X, y


def test_selective_kdb_marks_the_edges_its_predictions_use():
    # noise attributes: the selection keeps fewer parents (or attributes) than the k = 3
    # structure it learnt; an edge is used when its child is among the selected attributes
    # and its parent's rank is below the chosen depth k'
    X, y = _chained_table(3, 600, 8)
    model = SelectiveKDB(k=3).fit(X, y)
    edges = model.edges()
    selected = set(model.structure_.order[: model.n_attributes_])
    expected = [e["child"] in selected and e["rank"] < model.k_ for e in edges]
    assert [e["used"] for e in edges] == expected
    assert any(expected) and not all(expected)  # the case this test is for
    lines = [line for line in model.summary().splitlines() if line.startswith("  x")]
    shown = [f"  x{e['parent']} -> x{e['child']}: {e['cmi']:.4f}" for e in edges if e["used"]]
    assert lines == shown  # the summary names the array's columns x0, x1, …
    used_names = ", ".join(f"x{j}" for j in model.selected_)
    assert f"attributes used: {used_names}\n" in model.summary()
    unused = sum(not used for used in expected)
    assert f"and {unused} learnt edge(s) the predictions do not use" in model.summary()
    # a k-DB uses every edge it learnt
    assert all(e["used"] for e in KDB(k=2).fit(X, y).edges())


def test_selective_kdb_summary_shows_the_standard_error_its_rule_used():
    # SE = √(Q* − L*² / N) of the smallest leave-one-out total L*, computed here from the
    # model's totals and squares; the depth kept is the first within L* + SE
    X, y = _chained_table(1, 300, 6)
    n = len(y)
    model = SelectiveKDB(k=3).fit(X, y)
    totals = model.leave_one_out_losses_[:, :, 0]  # log-loss, the default criterion
    best = np.unravel_index(int(np.argmin(totals)), totals.shape)
    lowest = totals[best]
    error = math.sqrt(model.leave_one_out_squares_[(*best, 0)] - lowest**2 / n)
    assert f"lowest {lowest:.4f}, its standard error {error:.4f}" in model.summary()
    within = [d for d in range(totals.shape[1]) if totals[:, d].min() <= lowest + error]
    assert model.k_ == within[0]
