"""The compiled kernels of prediction against independent NumPy / SciPy computations: the
vectorised exp, the log-sum-exp normalisation, the blocked table gather, the sparse product and
the expanded Gaussian log-likelihood."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.special import logsumexp
from scipy.stats import norm
from sklearn import naive_bayes as skl

import nbayes
from nbayes import _kernels


def test_exp_within_one_ulp_of_numpy():
    rng = np.random.default_rng(0)
    x = np.concatenate(
        (
            -rng.random(20_000) * 708.0,
            -rng.random(2_000) * 1e-6,
            [0.0, -0.0, -np.log(2) / 2, -np.log(2), -1e-300, -707.99],
        )
    )
    out, scratch = np.empty_like(x), np.empty_like(x)
    _kernels.exp_nonpositive(x, out, scratch)
    expected = np.exp(x)
    ulps = np.abs(out - expected) / np.spacing(expected)
    assert ulps.max() <= 1.0


def test_exp_of_very_negative_infinite_and_nan_is_zero():
    x = np.array([-708.5, -745.2, -1e308, -np.inf, np.nan])
    out, scratch = np.empty_like(x), np.empty_like(x)
    _kernels.exp_nonpositive(x, out, scratch)
    np.testing.assert_array_equal(out, 0.0)


def _jll_cases(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    jll = rng.normal(scale=300.0, size=(n, k)) - 5000.0
    jll[0] = -np.inf  # no evidence: the prior
    jll[1, : k // 2] = -np.inf
    jll[2, 0] = np.nan  # NaN counts as −inf
    jll[3] = [np.nan] + [-np.inf] * (k - 1)  # nothing usable: the prior
    return jll


@pytest.mark.parametrize("k", [1, 2, 7, 80, 300])
@pytest.mark.parametrize("as_log", [False, True])
def test_normalize_rows_is_softmax(k, as_log):
    rng = np.random.default_rng(k)
    jll = _jll_cases(rng, 500, k) if k > 1 else rng.normal(size=(500, 1))
    log_prior = np.log(rng.dirichlet(np.ones(k)))
    usable = np.where(np.isnan(jll), -np.inf, jll)
    dead = ~np.any(usable > -np.inf, axis=1)
    usable[dead] = log_prior
    with np.errstate(divide="ignore", invalid="ignore"):
        shifted = usable - usable.max(axis=1, keepdims=True)  # exact for the leading classes
        expected = shifted - logsumexp(shifted, axis=1, keepdims=True)
    out = np.empty_like(jll)
    assert _kernels.normalize_rows(jll, log_prior, as_log, out) == int(dead.sum())
    if as_log:
        np.testing.assert_allclose(out, expected, rtol=1e-13, atol=1e-12)
    else:
        np.testing.assert_allclose(out, np.exp(expected), rtol=1e-13, atol=1e-300)
        np.testing.assert_allclose(out.sum(axis=1), 1.0, rtol=1e-13)


def test_normalize_rows_in_place():
    rng = np.random.default_rng(3)
    jll = _jll_cases(rng, 5000, 9)
    log_prior = np.log(np.full(9, 1 / 9))
    expected = np.empty_like(jll)
    _kernels.normalize_rows(jll, log_prior, True, expected)
    _kernels.normalize_rows(jll, log_prior, True, jll)
    np.testing.assert_array_equal(jll, expected)


def _gather_reference(X, offsets, sizes, table, unknown, mode):
    n, d = X.shape
    out = np.zeros((n, table.shape[1]))
    unseen = 0
    for j in range(d):
        column = X[:, j].astype(np.float64)
        observed = ~np.isnan(column) & (column >= 0)
        codes = np.where(observed, column, 0).astype(np.int64)
        seen = observed & (codes < sizes[j])
        out[seen] += table[offsets[j] + codes[seen]]
        beyond = observed & (codes >= sizes[j])
        unseen += int(beyond.sum())
        if mode == 1:
            out[beyond] += unknown[j]
    return out, unseen


@pytest.mark.parametrize("levels", [3, 300])  # a table in L1 (row loop), one far larger (blocks)
@pytest.mark.parametrize("dtype", [np.uint8, np.int64, np.float64])
@pytest.mark.parametrize("mode", [0, 1])
def test_gather_codes_equals_a_numpy_gather(levels, dtype, mode):
    rng = np.random.default_rng(levels)
    n, d, k = 2500, 30, 6  # three groups of eight features and a group of six
    sizes = rng.integers(1, levels + 1, d).astype(np.int64)
    offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    table = np.log(rng.random((int(offsets[-1]), k)))
    unknown = np.log(rng.random((d, k)))
    X = rng.integers(0, min(levels + 2, 255), (n, d)).astype(dtype)  # some codes unseen
    if dtype == np.float64:
        X[rng.random((n, d)) < 0.1] = np.nan
    expected, unseen = _gather_reference(X, offsets, sizes, table, unknown, mode)
    out = np.zeros((n, k))
    assert _kernels.gather_codes(X, offsets, sizes, table, unknown, mode, out) == unseen
    # eight features are summed in registers, left to right: the same roundings as adding the
    # features one at a time (as the reference does), so the same bits, whatever the mix of
    # seen, unseen and missing codes in each group of eight and in the last, shorter group
    np.testing.assert_array_equal(out, expected)


def test_gather_codes_gives_the_same_bits_in_blocks_of_any_length(monkeypatch):
    """Blocks of rows change the order in which rows are visited, never the order in which a
    score adds its features: one block of 2,500 rows and 40 blocks of 64 agree bit for bit."""
    rng = np.random.default_rng(9)
    n, d, levels, k = 2500, 30, 300, 6  # a table of 432 KB: the blocked loop
    offsets = np.arange(d + 1, dtype=np.int64) * levels
    sizes = np.full(d, levels, dtype=np.int64)
    table = np.log(rng.random((d * levels, k)))
    unknown = np.log(rng.random((d, k)))
    X = rng.integers(0, levels + 2, (n, d)).astype(np.float64)
    X[rng.random((n, d)) < 0.05] = np.nan

    def gathered() -> np.ndarray:
        out = np.zeros((n, k))
        _kernels.gather_codes(X, offsets, sizes, table, unknown, 1, out)
        return out

    one_block = gathered()
    monkeypatch.setattr(_kernels, "BLOCK_SCORE_BYTES", 1)  # the floor: blocks of 64 rows
    np.testing.assert_array_equal(gathered(), one_block)
    expected, _ = _gather_reference(X, offsets, sizes, table, unknown, 1)
    np.testing.assert_array_equal(one_block, expected)


def test_csr_times_table_equals_scipy():
    rng = np.random.default_rng(4)
    X = sp.random(3000, 2000, density=0.02, format="csr", random_state=5)
    X.data = np.round(X.data * 5)
    table = np.log(rng.random((2000, 11)))
    out = np.zeros((3000, 11))
    _kernels.csr_times_table(X.indptr, X.indices, X.data, table, out)
    np.testing.assert_allclose(out, X @ table, rtol=1e-12, atol=1e-9)


def test_categorical_with_a_large_table_matches_scikit_learn():
    """Enough features and levels that the gather runs blocked (table ≫ L1)."""
    rng = np.random.default_rng(6)
    n, d, levels, k = 3000, 60, 40, 5
    y = rng.integers(0, k, n)
    X = rng.integers(0, levels, (n, d))
    ours = nbayes.CategoricalNB().fit(X, y)
    theirs = skl.CategoricalNB().fit(X, y)
    assert ours._stats.log_prob(1.0)[0].nbytes > _kernels.SMALL_TABLE_BYTES
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), rtol=0, atol=1e-9)
    np.testing.assert_allclose(
        ours.predict_joint_log_proba(X), theirs.predict_joint_log_proba(X), rtol=1e-12
    )


@pytest.mark.parametrize("missing", [False, True])
def test_gaussian_log_likelihood_is_the_sum_of_normal_log_densities(missing):
    rng = np.random.default_rng(7)
    n, d, k = 400, 12, 9
    y = rng.integers(0, k, n)
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 10, d) + rng.normal(scale=50, size=(k, d))[y]
    X += 1e4  # far from zero: the centring must keep the digits
    model = nbayes.GaussianNB().fit(X, y)
    X_test = X[:50].copy()
    if missing:
        X_test[rng.random(X_test.shape) < 0.2] = np.nan
    theta, var = model.theta_, model.var_
    expected = np.zeros((50, k))
    for c in range(k):
        densities = norm.logpdf(X_test, theta[c], np.sqrt(var[c]))
        expected[:, c] = np.nansum(densities, axis=1)
    got = model._stats.log_likelihood(X_test, model.var_smoothing)
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-8)


def test_normalize_rows_shares_the_posterior_among_infinite_scores():
    jll = np.array([[np.inf, 0.0, np.inf, -np.inf], [1.0, 2.0, 3.0, 4.0]])
    log_prior = np.log(np.full(4, 0.25))
    out = np.empty_like(jll)
    assert _kernels.normalize_rows(jll, log_prior, False, out) == 0
    np.testing.assert_array_equal(out[0], [0.5, 0.0, 0.5, 0.0])
    _kernels.normalize_rows(jll, log_prior, True, out)
    np.testing.assert_array_equal(out[0], [np.log(0.5), -np.inf, np.log(0.5), -np.inf])


def test_gaussian_rows_near_the_float_limit_are_never_nan():
    """Near the float limit x'² and x'·μ'/σ² overflow; depending on the order in which they
    are added the expanded form may give inf − inf = NaN, and such rows are then summed term by
    term (``_direct``). Either way the result is −inf, never NaN, and ``_direct`` agrees with
    the densities on ordinary rows."""
    rng = np.random.default_rng(8)
    X = rng.normal(size=(60, 3)) + np.where(np.arange(60) % 2, 3.0, -3.0)[:, None]
    y = np.arange(60) % 2
    model = nbayes.GaussianNB().fit(X, y)
    X_test = np.array([[1.7e308, 0.0, 0.0], [-1.7e308, 1.7e308, np.nan], [0.5, -0.2, np.nan]])
    expected = np.array(
        [
            [np.nansum(norm.logpdf(row, model.theta_[c], np.sqrt(model.var_[c]))) for c in range(2)]
            for row in X_test[2:]
        ]
    )
    for got in (
        model._stats.log_likelihood(X_test, model.var_smoothing),
        model._stats._direct(X_test, model.var_smoothing),
    ):
        assert not np.isnan(got).any()
        assert np.all(got[:2] == -np.inf)
        np.testing.assert_allclose(got[2:], expected, rtol=1e-10)


def test_gaussian_rows_are_the_sum_of_the_densities_of_their_observed_values():
    """The expanded kernel scores rows four at a time; a row's result is the sum of its
    observed features' log densities whatever its place in a group of four (rows with and
    without missing values side by side, a last group of fewer than four) and is bit for bit
    the same when the rows are scored one by one."""
    from nbayes.families.gaussian import _expanded_rows

    rng = np.random.default_rng(11)
    n, d, k = 11, 6, 5
    model = nbayes.GaussianNB().fit(rng.normal(size=(300, d)) * 50 + 1e4, rng.integers(0, k, 300))
    X = rng.normal(size=(n, d)) * 50 + 1e4
    X[[1, 4, 10], [0, 5, 2]] = np.nan
    X[6] = np.nan  # nothing observed: every class scores 0
    expected = np.array(
        [
            [np.nansum(norm.logpdf(row, model.theta_[c], np.sqrt(model.var_[c]))) for c in range(k)]
            for row in X
        ]
    )
    coefficients = model._stats._coefficients(model.var_smoothing)
    together = np.empty((n, k))
    assert _expanded_rows(X, *coefficients, together, 0, n) == 0
    np.testing.assert_allclose(together, expected, rtol=1e-11)
    np.testing.assert_array_equal(together[6], 0.0)
    alone = np.empty((n, k))
    for i in range(n):
        _expanded_rows(X, *coefficients, alone, i, i + 1)
    np.testing.assert_array_equal(alone, together)


def _magnitude_by_numpy(X: np.ndarray) -> float:
    finite_or_inf = np.abs(X[~np.isnan(X)])
    return float(finite_or_inf.max()) if finite_or_inf.size else 0.0


@pytest.mark.parametrize(
    "X",
    [
        np.zeros((0, 3)),
        np.full((3, 3), np.nan),
        np.array([[np.nan, -5.0], [2.0, np.nan]]),
        np.array([-np.inf, 1.0]),
        np.array([np.nan, np.inf]),
        np.array([-0.0]),
        np.array([1.0, 2.0, 3.0, 4.0, -7.0]),  # the tail after the groups of four
        np.random.default_rng(0).normal(size=(1001, 7)),
        np.asfortranarray(np.random.default_rng(1).normal(size=(513, 9))),
        np.random.default_rng(2).normal(size=(100, 10))[:, ::2],  # not contiguous: NumPy
        np.arange(12, dtype=np.float32).reshape(3, 4) - 20,
    ],
)
def test_largest_magnitude_leaves_out_nan_in_one_pass(X):
    from nbayes._validation import largest_magnitude

    got = largest_magnitude(X)
    assert type(got) is float
    assert got == _magnitude_by_numpy(X)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.int8, np.uint8, np.uint64])
def test_known_class_indices_by_table_equal_the_binary_search(dtype):
    import polars as pl

    from nbayes.model import _known_class_indices

    rng = np.random.default_rng(3)
    signed = np.dtype(dtype).kind == "i"
    for classes in ([0, 1, 2, 3, 4], [2, 7, 100], [5], [-100, 0, 100] if signed else [0, 120]):
        classes = np.array(classes, dtype=dtype)
        for values in (
            rng.choice(classes, 1000),
            np.array([], dtype=dtype),
            np.append(rng.choice(classes, 10), classes[0] + 1).astype(dtype),  # a new label
        ):
            got = _known_class_indices(classes, pl.Series(values))
            at = np.minimum(np.searchsorted(classes, values), classes.size - 1)
            if not np.array_equal(classes[at], values):
                assert got is None
            else:
                assert got is not None and got.dtype == np.intp
                np.testing.assert_array_equal(got, at)


@pytest.mark.parametrize("copy_limit", [0, None])  # never copied; copied when small (default)
def test_gaussian_moments_are_the_same_bits_in_either_memory_layout(monkeypatch, copy_limit):
    """The per-class moments of a column-major block (Polars' layout, copied to row-major
    below ROW_MAJOR_COPY_BYTES) are those of the row-major block, bit for bit, and those of
    a two-pass computation in NumPy to rounding."""
    from nbayes.families import gaussian

    if copy_limit is not None:
        monkeypatch.setattr(gaussian, "ROW_MAJOR_COPY_BYTES", copy_limit)
    rng = np.random.default_rng(5)
    n, d, k = 3000, 7, 4
    X = rng.normal(size=(n, d)) * 5 + 100
    X[rng.random((n, d)) < 0.05] = np.nan
    cls = rng.integers(0, k, n)
    weight = rng.random(n) + 0.5
    row_major, column_major = gaussian.GaussianMoments(k, d), gaussian.GaussianMoments(k, d)
    row_major.accumulate(np.ascontiguousarray(X), cls, weight)
    before = np.asfortranarray(X)
    column_major.accumulate(before, cls, weight)
    assert before.flags.f_contiguous  # the caller's array is left as it was
    for name in ("weight", "mean", "m2", "pooled_count", "pooled_mean", "pooled_m2"):
        np.testing.assert_array_equal(getattr(column_major, name), getattr(row_major, name))
    observed = ~np.isnan(X)
    for c in range(k):
        w = np.where(observed & (cls == c)[:, None], weight[:, None], 0.0)
        mean = (w * np.nan_to_num(X)).sum(0) / w.sum(0)
        m2 = (w * np.nan_to_num(X - mean) ** 2).sum(0)
        np.testing.assert_allclose(row_major.weight[c], w.sum(0), rtol=1e-12)
        np.testing.assert_allclose(row_major.mean[c], mean, rtol=1e-12)
        np.testing.assert_allclose(row_major.m2[c], m2, rtol=1e-9)


def _padded_by_numpy(body: bytes, separator: int) -> bool:
    """A blank (space, tab) at either end of the body, or beside a separator or a line end."""
    array = np.frombuffer(body, dtype=np.uint8)
    blank = (array == 32) | (array == 9)
    edge = (array == separator) | (array == 10) | (array == 13)
    blank &= array != separator
    return bool(
        blank[0] or blank[-1] or np.any(blank[:-1] & edge[1:]) or np.any(edge[:-1] & blank[1:])
    )


def _random_bodies(seed: int, count: int, alphabet: list[str], separator: str = ","):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        rows = [
            separator.join(
                "".join(rng.choice(alphabet, size=rng.integers(0, 6))) for _ in range(3)
            )
            for _ in range(rng.integers(1, 7))
        ]
        yield ("\n".join(rows) + "\n").encode()


@pytest.mark.parametrize("separator", [",", "\t"])
def test_padded_field_finds_every_blank_beside_an_edge(separator):
    alphabet = ["a", "1", " ", "\t", ",", "\r"]
    for body in _random_bodies(0, 1000, alphabet, separator):
        blanks = [b for b in (32, 9) if b != ord(separator)]
        found = _kernels.padded_field(
            np.frombuffer(body, dtype=np.uint8), ord(separator), blanks[0], blanks[-1]
        )
        assert found == _padded_by_numpy(body, ord(separator)), body


@pytest.mark.parametrize("separator", [",", "\t"])
def test_strip_fields_strips_as_polars_strips_each_value(separator):
    """The bytes with their fields' blanks removed read as the values of the padded bytes,
    each stripped by Polars (``str.strip_chars``); a field that begins or ends beyond ASCII
    (perhaps Unicode whitespace, as U+00A0) is refused."""
    import polars as pl

    ascii_only = ["a", "1", "?", " ", "\t", "\x0b", "\x0c", "\r"]
    alphabet = [c for c in ascii_only if c != separator] * 12 + ["é", "\u00a0"]
    compared = refused = 0
    for body in _random_bodies(1, 1200, alphabet, separator):
        array = np.frombuffer(body, dtype=np.uint8)
        out = np.empty_like(array)
        length = _kernels.strip_fields(array, ord(separator), out)
        options = {"has_header": False, "infer_schema": False, "separator": separator}
        raw = pl.read_csv(body, **options)
        expected = raw.with_columns(pl.all().str.strip_chars())
        values = [[v or None for v in row] for row in expected.rows()]  # "" reads as missing
        if length < 0:
            refused += 1
            ascii_stripped = [v.strip(" \t\x0b\x0c\r") for row in raw.rows() for v in row if v]
            assert any(v and (ord(v[0]) > 127 or ord(v[-1]) > 127) for v in ascii_stripped)
            continue
        stripped = out[:length].tobytes()
        if not stripped.replace(b"\n", b""):
            continue  # only empty fields left: Polars reads no row at all
        got = pl.read_csv(stripped, **options)
        assert got.rows() == [tuple(row) for row in values], body
        compared += 1
    assert compared > 400 and refused > 100, (compared, refused)  # both outcomes tried


def test_key_codes_are_each_values_position_among_its_columns_keys():
    """An integer column counted as categories reads a value as its key's position (np.unique's
    inverse), any other value (between keys, beyond them, in a column without keys) as
    UNSEEN, and NaN as NaN, every column of a block at once."""
    from nbayes.encoding import UNSEEN
    from nbayes.families._sketch_kernels import _positions

    rng = np.random.default_rng(4)
    keys = [np.unique(rng.integers(-5, 6, size)).astype(float) for size in (1, 4, 9)]
    keys.append(np.zeros(0))
    block = rng.integers(-7, 8, size=(300, 4)).astype(float)
    block[rng.random(block.shape) < 0.1] = np.nan
    block[rng.random(block.shape) < 0.05] = 0.5
    offsets = np.concatenate([[0], np.cumsum([k.shape[0] for k in keys])])
    codes = _positions(block, np.concatenate(keys), offsets, True, UNSEEN)
    for j, column_keys in enumerate(keys):
        for i, x in enumerate(block[:, j]):
            if np.isnan(x):
                assert np.isnan(codes[i, j])
            elif x in column_keys:
                assert codes[i, j] == np.flatnonzero(column_keys == x)[0]
            else:
                assert codes[i, j] == UNSEEN
