"""Continuous columns beyond the Gaussian: kernel density estimates and intervals.

Every number is checked against an independent computation: a SciPy normal mixture over the
training values, the bandwidth rules written out with NumPy, np.linspace / np.quantile for the
unsupervised cut points, and a brute-force Fayyad–Irani MDL discretiser written here from the
criterion in ``nbayes.families.intervals``.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import polars as pl
import pytest
from scipy.special import logsumexp
from scipy.stats import norm

import nbayes


def model_cuts(model: nbayes.NaiveBayes, name: str) -> np.ndarray:
    """The fitted cut points of column ``name`` (the model keeps them per column group)."""
    for group in model._stats.groups:
        if name in group.names:
            return group.cuts(model._settings())[group.names.index(name)]
    raise KeyError(name)


def log_likelihood(model: nbayes.NaiveBayes, name: str, values: np.ndarray) -> np.ndarray:
    """log P(x | c) of a one-column model: the joint log-likelihood minus the log prior."""
    frame = pl.DataFrame({name: np.asarray(values, dtype=float)})
    return model.predict_joint_log_proba(frame) - model.class_log_prior_


def two_classes(seed: int, n: int = 120, decimals: int | None = 1):
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b"], n, p=[0.4, 0.6])
    x = np.where(y == "a", rng.normal(0.0, 1.0, n), rng.gamma(2.0, 1.5, n))
    if decimals is not None:
        x = np.round(x, decimals)  # repeated values, as real data have
    return x, y


# ---------------------------------------------------------------------- kernel density
def mixture_log_density(query, centres, weights, h):
    """log Σ_i w_i N(q; x_i, h²) / Σ_i w_i, by SciPy."""
    logs = norm.logpdf(np.asarray(query)[:, None], loc=centres[None, :], scale=h)
    return logsumexp(logs, b=weights[None, :], axis=1) - np.log(weights.sum())


@pytest.mark.parametrize("weighted", [False, True])
def test_kde_is_a_normal_mixture_over_the_training_values(weighted):
    x, y = two_classes(0)
    rng = np.random.default_rng(1)
    w = rng.uniform(0.2, 3.0, x.shape[0]) if weighted else np.ones_like(x)
    model = nbayes.NaiveBayes(families={"x": "kde"}, bandwidth=0.7)
    model.fit(pl.DataFrame({"x": x}), y, sample_weight=w if weighted else None)
    query = np.linspace(x.min() - 2.0, x.max() + 2.0, 61)
    got = log_likelihood(model, "x", query)
    for k, c in enumerate(["a", "b"]):
        expected = mixture_log_density(query, x[y == c], w[y == c], 0.7)
        np.testing.assert_allclose(got[:, k], expected, rtol=1e-10, err_msg=c)
    # the prior is the weighted class share
    np.testing.assert_allclose(
        np.exp(model.class_log_prior_), [w[y == c].sum() / w.sum() for c in ("a", "b")]
    )


def test_kde_far_from_every_kernel_is_still_the_mixture():
    x, y = two_classes(2)
    model = nbayes.NaiveBayes(families={"x": "kde"}, bandwidth=0.7, calibration=None)
    model.fit(pl.DataFrame({"x": x}), y)
    # 8 to 60 bandwidths beyond the data: every kernel term underflows in linear space
    far = np.concatenate([x.max() + 0.7 * np.array([8.0, 9.0, 20.0, 60.0]), [x.min() - 42.0]])
    got = log_likelihood(model, "x", far)
    assert np.isfinite(got).all()
    for k, c in enumerate(["a", "b"]):
        values = x[y == c]
        expected = mixture_log_density(far, values, np.ones_like(values), 0.7)
        np.testing.assert_allclose(got[:, k], expected, rtol=1e-12, err_msg=c)


def silverman(values, weights=None):
    """0.9 · min(σ, IQR / 1.34) · n^(-1/5), σ the (weighted) ML standard deviation and the
    quartiles the inverted-CDF ones (the smallest value whose cumulative weight reaches q)."""
    if weights is None:
        q1, q3 = np.quantile(values, [0.25, 0.75], method="inverted_cdf")
        sd = np.std(values)
        n = values.shape[0]
    else:
        q1, q3 = np.quantile(values, [0.25, 0.75], method="inverted_cdf", weights=weights)
        mean = np.average(values, weights=weights)
        sd = math.sqrt(np.average((values - mean) ** 2, weights=weights))
        n = weights.sum()
    spread = min(sd, (q3 - q1) / 1.34) if q3 > q1 else sd
    return 0.9 * spread * n ** (-0.2)


def scott(values, weights=None):
    weights = np.ones_like(values) if weights is None else weights
    mean = np.average(values, weights=weights)
    sd = math.sqrt(np.average((values - mean) ** 2, weights=weights))
    return 1.06 * sd * weights.sum() ** (-0.2)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("rule", ["silverman", "scott"])
def test_bandwidth_rules(rule, weighted):
    x, y = two_classes(3, n=200, decimals=2)
    w = np.random.default_rng(4).uniform(0.5, 2.0, x.shape[0]) if weighted else None
    model = nbayes.NaiveBayes(families={"x": "kde"}, bandwidth=rule)
    model.fit(pl.DataFrame({"x": x}), y, sample_weight=w)
    query = np.linspace(x.min() - 1.0, x.max() + 1.0, 41)
    got = log_likelihood(model, "x", query)
    formula = silverman if rule == "silverman" else scott
    for k, c in enumerate(["a", "b"]):
        wc = None if w is None else w[y == c]
        h = formula(x[y == c], wc)
        ones = np.ones(np.sum(y == c)) if wc is None else wc
        expected = mixture_log_density(query, x[y == c], ones, h)
        np.testing.assert_allclose(got[:, k], expected, rtol=1e-10, err_msg=c)
    # the rule's bandwidth is also what summary() reports
    bandwidth_row = next(ln for ln in str(model).splitlines() if ln.strip().startswith("bandwidth"))
    shown = [float(v) for v in bandwidth_row.split()[1:]]
    hs = [formula(x[y == c], None if w is None else w[y == c]) for c in ("a", "b")]
    np.testing.assert_allclose(shown, hs, atol=5e-4)


def test_a_class_with_a_single_value_gets_the_pooled_bandwidth():
    x, y = two_classes(5)
    x = np.where(y == "b", 3.0, x)  # class b: every value 3.0, so its own rule gives h = 0
    # (3.0 holds 60% of the weight: a point mass unless point masses are off, which this
    # pure-kernel rule needs; tests/test_defaults_kde.py covers the point mass)
    model = nbayes.NaiveBayes(calibration=None, families={"x": "kde"}, point_masses=None)
    model.fit(pl.DataFrame({"x": x}), y)
    pooled = silverman(x)
    query = np.array([2.0, 3.0, 3.5])
    got = log_likelihood(model, "x", query)
    np.testing.assert_allclose(got[:, 1], norm.logpdf(query, 3.0, pooled), rtol=1e-10)
    expected_a = mixture_log_density(
        query, x[y == "a"], np.ones(np.sum(y == "a")), silverman(x[y == "a"])
    )
    np.testing.assert_allclose(got[:, 0], expected_a, rtol=1e-10)


# ---------------------------------------------------------------------- intervals
def interval_index(values, cuts):
    """l such that t_{l-1} < x ≤ t_l, counted directly."""
    return (np.asarray(values)[:, None] > np.asarray(cuts)[None, :]).sum(axis=1)


def test_each_columns_values_fall_in_its_own_intervals():
    # the codes of a block's columns, each under its own cut points (some with none), in one
    # pass: l with t_{l-1} < x ≤ t_l (a value equal to a cut point is in the interval below),
    # infinities in the first or last interval, missing values missing
    from nbayes.families.intervals import interval_codes_of

    rng = np.random.default_rng(2)
    block = np.round(rng.normal(0, 2, (300, 4)), 1)
    block[rng.random(block.shape) < 0.1] = np.nan
    block[:3] = [np.inf, -np.inf, 0.5, 1.0]
    cuts = [np.array([-1.0, 0.5, 2.0]), np.array([]), np.array([0.0]), np.array([-3.0, 1.0])]
    codes = interval_codes_of(block, cuts)
    for j, cut in enumerate(cuts):
        seen = ~np.isnan(block[:, j])
        np.testing.assert_array_equal(codes[seen, j], interval_index(block[seen, j], cut))
        assert np.isnan(codes[~seen, j]).all()
    assert codes[0].tolist() == [3.0, 0.0, 1.0, 1.0]
    with pytest.raises(ValueError, match="a block of 4 columns"):
        interval_codes_of(block[:, :3], cuts)


def check_interval_probabilities(model, name, x, y, cuts, alpha, weights=None):
    """P(x ∈ I_l | c) = (n_{c,l} + λ) / (N_c + B λ) at a point inside every interval."""
    weights = np.ones_like(x) if weights is None else weights
    edges = np.concatenate([[x.min() - 1.0], cuts, [x.max() + 1.0]])
    points = (edges[:-1] + edges[1:]) / 2
    B = len(cuts) + 1
    got = log_likelihood(model, name, points)
    index = interval_index(x, cuts)
    for k, c in enumerate(np.unique(y)):
        in_class = y == c
        n = np.array([weights[in_class & (index == b)].sum() for b in range(B)])
        expected = np.log((n + alpha) / (weights[in_class].sum() + B * alpha))
        np.testing.assert_allclose(got[:, k], expected, rtol=1e-12, err_msg=str(c))


@pytest.mark.parametrize("bins", [2, 5, 10])
def test_equal_width_cuts_and_probabilities(bins):
    x, y = two_classes(6)
    model = nbayes.NaiveBayes(calibration=None, families={"x": "equal-width"}, bins=bins, alpha=0.5)
    model.fit(pl.DataFrame({"x": x}), y)
    cuts = model_cuts(model, "x")
    np.testing.assert_allclose(cuts, np.linspace(x.min(), x.max(), bins + 1)[1:-1], rtol=1e-15)
    check_interval_probabilities(model, "x", x, y, cuts, 0.5)
    assert "cut points: " + ", ".join(f"{c:.3f}" for c in cuts) in model.summary()


def equal_frequency_reference(x, bins):
    """Cut after the q-quantile (inverted CDF) for q = 1/B … (B−1)/B, midway to the next
    distinct value; quantiles that are the largest value give no cut."""
    distinct = np.unique(x)
    cuts = []
    for q in np.arange(1, bins) / bins:
        v = np.quantile(x, q, method="inverted_cdf")
        above = distinct[distinct > v]
        if above.size:
            cuts.append((v + above[0]) / 2)
    return np.unique(cuts)


@pytest.mark.parametrize("bins", [3, 4, 10])
def test_equal_frequency_cuts_and_probabilities(bins):
    x, y = two_classes(7, n=103, decimals=None)  # distinct values
    model = nbayes.NaiveBayes(families={"x": "equal-frequency"}, bins=bins)
    model.fit(pl.DataFrame({"x": x}), y)
    cuts = model_cuts(model, "x")
    np.testing.assert_allclose(cuts, equal_frequency_reference(x, bins), rtol=1e-15)
    counts = np.bincount(interval_index(x, cuts), minlength=bins)
    assert len(counts) == bins
    assert counts.min() >= len(x) // bins - 1 and counts.max() <= -(-len(x) // bins) + 1
    check_interval_probabilities(model, "x", x, y, cuts, 1.0)


def test_equal_frequency_with_repeated_values_is_sensible():
    x, y = two_classes(8, n=300, decimals=0)  # a handful of distinct values, many repeats
    bins = 4
    model = nbayes.NaiveBayes(families={"x": "equal-frequency"}, bins=bins)
    model.fit(pl.DataFrame({"x": x}), y)
    cuts = model_cuts(model, "x")
    np.testing.assert_allclose(cuts, equal_frequency_reference(x, bins), rtol=1e-15)
    # cuts lie between distinct values, increase, and never split a repeated value
    assert np.all(np.diff(cuts) > 0)
    assert not np.isin(cuts, x).any()
    # each cut is at (or just above) the quantile it stands for
    for cut in cuts:
        share = np.mean(x <= cut)
        assert any(
            abs(share - q) <= np.max(np.unique(x, return_counts=True)[1]) / len(x)
            for q in np.arange(1, bins) / bins
        )
    check_interval_probabilities(model, "x", x, y, cuts, 1.0)


# ---------------------------------------------------------------------- MDL
def entropy(labels) -> float:
    n = len(labels)
    return -sum(k / n * math.log2(k / n) for k in Counter(labels).values())


def accepted_split(xs, ys, lo: int, hi: int):
    """(n · Gain, i) of the best split of the sorted values xs[lo:hi] before index i — the
    candidate cuts are the midpoints between neighbouring distinct values, the best one has the
    smallest class entropy (the first of equals) — if Fayyad & Irani's criterion
    Gain > (log2(N − 1) + Δ) / N, Δ = log2(3^k − 2) − [k Ent(S) − k1 Ent(S1) − k2 Ent(S2)]
    accepts it; else None."""
    n, best = hi - lo, None
    for i in range(lo + 1, hi):
        if xs[i - 1] == xs[i]:
            continue
        left, right = ys[lo:i], ys[i:hi]
        e = (len(left) * entropy(left) + len(right) * entropy(right)) / n
        if best is None or e < best[0] - 1e-12:
            best = (e, i)
    if best is None:
        return None
    e, i = best
    whole = entropy(ys[lo:hi])
    left, right = ys[lo:i], ys[i:hi]
    k, k1, k2 = len(set(ys[lo:hi])), len(set(left)), len(set(right))
    delta = math.log2(3**k - 2) - (k * whole - k1 * entropy(left) - k2 * entropy(right))
    return (n * (whole - e), i) if whole - e > (math.log2(n - 1) + delta) / n else None


def sorted_values(x, y):
    order = np.argsort(x, kind="stable")
    return np.asarray(x)[order], list(np.asarray(y)[order])


def fayyad_irani(x, y) -> np.ndarray:
    """Brute-force recursive MDL discretisation (Fayyad & Irani 1993) on sorted values."""
    xs, ys = sorted_values(x, y)
    cuts: list[float] = []

    def split(lo: int, hi: int) -> None:
        found = accepted_split(xs, ys, lo, hi)
        if found is not None:
            i = found[1]
            cuts.append((xs[i - 1] + xs[i]) / 2)
            split(lo, i)
            split(i, hi)

    split(0, len(xs))
    return np.array(sorted(cuts))


@pytest.mark.parametrize("seed", range(8))
def test_mdl_equals_a_brute_force_fayyad_irani(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(40, 250))
    k = int(rng.integers(2, 5))
    y = rng.integers(0, k, n)
    x = rng.normal(loc=y * rng.uniform(0.5, 2.5), scale=1.0)
    x = np.round(x, int(rng.integers(0, 3)))
    model = nbayes.NaiveBayes(families={"x": "mdl"}, alpha=1.0).fit(pl.DataFrame({"x": x}), y)
    expected = fayyad_irani(x, y)
    got = model_cuts(model, "x")
    np.testing.assert_array_equal(got, expected)
    if len(got):
        check_interval_probabilities(model, "x", x, y, got, 1.0)


def best_first_fayyad_irani(x, y, max_intervals: int) -> np.ndarray:
    """Bounded MDL by brute force: of the segments made so far, split the one whose accepted
    best split saves the most class-coding bits n · Gain, until max_intervals intervals."""
    xs, ys = sorted_values(x, y)
    segments, cuts = [(0, len(xs))], []
    while len(cuts) + 1 < max_intervals:
        found = [(accepted_split(xs, ys, lo, hi), lo, hi) for lo, hi in segments]
        found = [(f[0], lo, hi, f[1]) for f, lo, hi in found if f is not None]
        if not found:
            break
        _, lo, hi, i = max(found, key=lambda f: (f[0], -f[1]))
        cuts.append((xs[i - 1] + xs[i]) / 2)
        segments.remove((lo, hi))
        segments += [(lo, i), (i, hi)]
    return np.array(sorted(cuts))


@pytest.mark.parametrize("seed", range(6))
def test_bounded_mdl_keeps_the_most_informative_splits(seed):
    from nbayes.semi_naive import SemiNaiveBayes

    rng = np.random.default_rng(300 + seed)
    n = int(rng.integers(150, 400))
    y = rng.integers(0, 5, n)
    x = np.round(rng.normal(loc=y * 2.0, scale=1.0), 1)
    frame = pl.DataFrame({"x": x})
    unbounded = fayyad_irani(x, y)
    assert len(unbounded) >= 3  # the bound below cuts some accepted splits
    for bound in (2, 3, len(unbounded)):
        model = SemiNaiveBayes(discriminative=False, max_intervals=bound).fit(frame, y)
        expected = best_first_fayyad_irani(x, y, bound)
        assert len(expected) == bound - 1
        np.testing.assert_array_equal(model.cut_points_["x"], expected)
    free = SemiNaiveBayes(discriminative=False, max_intervals=None).fit(frame, y)
    np.testing.assert_array_equal(free.cut_points_["x"], unbounded)


def test_bounded_mdl_does_not_grow_with_repeated_rows():
    from nbayes.semi_naive import SemiNaiveBayes

    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 400)
    x = rng.normal(loc=y * 0.6, scale=1.0)
    # the same rows 50 times: MDL's threshold log2(N − 1) / N falls and noise becomes cuts
    frame, labels = pl.DataFrame({"x": np.tile(x, 50)}), np.tile(y, 50)
    once = len(fayyad_irani(x, y))
    free = SemiNaiveBayes(discriminative=False, max_intervals=None).fit(frame, labels)
    bounded = SemiNaiveBayes(discriminative=False, max_intervals=8).fit(frame, labels)
    assert len(free.cut_points_["x"]) > max(once, 7)
    assert len(bounded.cut_points_["x"]) == 7
    assert set(bounded.cut_points_["x"]) <= set(free.cut_points_["x"])


@pytest.mark.parametrize("bad", [1, 0, 2.5, True, "32"])
def test_max_intervals_is_checked_by_name(bad):
    from nbayes.semi_naive import SemiNaiveBayes

    with pytest.raises(ValueError, match="max_intervals must be an integer >= 2 or None"):
        SemiNaiveBayes(max_intervals=bad).fit(pl.DataFrame({"x": [1.0, 2.0]}), [0, 1])


def test_mdl_separable_feature_has_one_cut_at_the_midpoint():
    rng = np.random.default_rng(9)
    y = np.repeat([0, 1], 50)
    x = np.where(y == 0, rng.uniform(0.0, 1.0, 100), rng.uniform(2.0, 3.0, 100))
    model = nbayes.NaiveBayes(continuous="mdl").fit(pl.DataFrame({"x": x}), y)
    cuts = model_cuts(model, "x")
    np.testing.assert_array_equal(cuts, [(x[y == 0].max() + x[y == 1].min()) / 2])
    assert f"cut points: {cuts[0]:.3f}\n" in model.summary()
    # with λ = 0 the intervals are pure: P = 1 on the class's side, 0 on the other
    exact = nbayes.NaiveBayes(continuous="mdl", alpha=0.0).fit(pl.DataFrame({"x": x}), y)
    np.testing.assert_array_equal(exact.predict_proba(pl.DataFrame({"x": [0.5, 2.5]})), np.eye(2))


def test_mdl_noise_feature_has_no_cut():
    rng = np.random.default_rng(10)
    x = rng.normal(size=300)
    y = rng.integers(0, 2, 300)
    model = nbayes.NaiveBayes(continuous="mdl", calibration=None).fit(pl.DataFrame({"x": x}), y)
    assert model_cuts(model, "x").shape == (0,)
    assert fayyad_irani(x, y).shape == (0,)
    assert "cut points: none (one interval)" in model.summary()
    # one interval: the feature does not move the posterior off the prior
    np.testing.assert_allclose(
        model.predict_proba(pl.DataFrame({"x": [-3.0, 0.0, 3.0]})),
        np.tile(np.exp(model.class_log_prior_), (3, 1)),
        rtol=1e-14,
    )


def test_integer_sample_weights_equal_repeated_rows_for_every_method():
    x, y = two_classes(11, n=80)
    repeat = np.random.default_rng(12).integers(1, 4, x.shape[0])
    for family in ("kde", "equal-width", "equal-frequency", "mdl"):
        weighted = nbayes.NaiveBayes(calibration=None, families={"x": family}).fit(
            pl.DataFrame({"x": x}), y, sample_weight=repeat.astype(float)
        )
        repeated = nbayes.NaiveBayes(calibration=None, families={"x": family}).fit(
            pl.DataFrame({"x": np.repeat(x, repeat)}), np.repeat(y, repeat)
        )
        query = pl.DataFrame({"x": np.linspace(x.min() - 1, x.max() + 1, 25)})
        if family != "kde":
            np.testing.assert_array_equal(model_cuts(weighted, "x"), model_cuts(repeated, "x"))
        np.testing.assert_allclose(
            weighted.predict_joint_log_proba(query),
            repeated.predict_joint_log_proba(query),
            rtol=1e-12,
            err_msg=family,
        )


def test_cut_points_are_public_per_column():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 400)
    frame = pl.DataFrame({"a": rng.normal(size=400) + 3 * y, "b": rng.uniform(0, 10, 400), "y": y})
    model = nbayes.NaiveBayes(families={"a": "mdl", "b": "equal-width"}, bins=5).fit(
        frame, target="y"
    )
    cuts = model.cut_points_
    assert set(cuts) == {"a", "b"}
    b = frame.get_column("b").to_numpy()
    np.testing.assert_allclose(cuts["b"], np.linspace(b.min(), b.max(), 6)[1:-1])
    assert cuts["a"].size >= 1 and np.all(np.diff(cuts["a"]) > 0)
    assert nbayes.NaiveBayes(continuous="gaussian").fit(frame, target="y").cut_points_ == {}
    # columns whose family is chosen from the data show their cut points when intervals won
    auto = nbayes.NaiveBayes().fit(frame, target="y")
    chosen = {n for n, f in auto.families_.items() if f in ("mdl", "equal-frequency")}
    assert set(auto.cut_points_) == chosen


def test_interval_counts_of_many_columns_equal_each_columns_counts():
    """The compiled counts of every column at once equal :func:`interval_counts` column by
    column: exact keys, pooled keys, a column without cut points, keys on a cut point."""
    from nbayes.families.intervals import interval_counts, interval_counts_of
    from nbayes.families.sketch import FeatureSketch

    rng = np.random.default_rng(3)
    sketches = []
    for j, values in enumerate(
        [
            rng.normal(size=500),
            rng.integers(0, 5, 500).astype(float),
            rng.exponential(size=500),
            np.repeat([1.0, 2.0], 250),
        ]
    ):
        sketch = FeatureSketch(3, max_bins=64 if j == 0 else 2048)
        sketch.add(values, rng.integers(0, 3, values.size), rng.random(values.size) + 0.1)
        sketches.append(sketch)
    cuts = [np.array([-0.5, 0.0, 0.7]), np.array([1.0, 3.0]), np.array([]), np.array([1.0])]
    together = interval_counts_of(sketches, cuts)
    alone = np.concatenate(
        [interval_counts(s, c) for s, c in zip(sketches, cuts, strict=True)], axis=1
    )
    assert sketches[0].level != sketches[1].level  # pooled and exact keys
    assert together.shape == (3, 4 + 3 + 1 + 2)
    np.testing.assert_array_equal(together, alone)
