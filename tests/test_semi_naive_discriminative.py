"""The discriminative correction of SemiNaiveBayes (nbayes.semi_naive.discriminative): its
objective against an independent computation, what it learns, and the same model whatever the
row order, the batches or the engine."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nbayes
from nbayes.semi_naive import KDB, TAN, SemiNaiveBayes
from nbayes.semi_naive.discriminative import (
    L2,
    CorrectionRows,
    FixedPoint,
    _Passes,
    batch_sums,
    fit_correction,
    lbfgs,
    slots_of,
)


def _doubled_evidence(n: int, seed: int) -> tuple[pl.DataFrame, np.ndarray]:
    """A weak attribute copied five times (naive counting counts its evidence five times over)
    beside a strong one: the conditional likelihood has weights to undo that."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    strong = np.where(rng.random(n) < 0.8, y, 1 - y)
    weak = np.where(rng.random(n) < 0.6, y, 1 - y)
    columns = {"strong": strong.astype(str)}
    for j in range(5):
        columns[f"weak{j}"] = weak.astype(str)
    columns["noise"] = rng.integers(0, 3, n).astype(str)
    return pl.DataFrame(columns), np.where(y == 1, "yes", "no")


def _threshold_concept(n: int, seed: int) -> tuple[pl.DataFrame, np.ndarray]:
    """y = [at least three of eight attributes are "2"], 5 % of labels flipped: a concept
    linear in the values' indicators that counting in any structure renders only roughly."""
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 3, (n, 8))
    y = (values == 2).sum(axis=1) >= 3
    y ^= rng.random(n) < 0.05
    frame = pl.DataFrame({f"a{j}": values[:, j].astype(str) for j in range(8)})
    return frame, np.where(y, "yes", "no")


def _log_loss(model, X, y) -> float:
    proba = model.predict_proba(X)
    return float(-np.mean(np.log(proba[np.arange(len(y)), np.searchsorted(model.classes_, y)])))


#: The integers the tests' passes add up in: for rows weighing up to 10⁴ in all.
FIXED = FixedPoint.for_weight(1e4)


def _random_rows(rng, slots: np.ndarray, K: int, held_share: float) -> CorrectionRows:
    """Rows with the given slots, random offsets, classes and weights, a share held out."""
    n = slots.shape[0]
    return CorrectionRows(
        slots,
        rng.normal(size=(n, K)),
        rng.integers(0, K, n).astype(np.int64),
        rng.uniform(0.5, 2, n),
        rng.random(n) < held_share,
    )


def _two_attribute_concept() -> tuple[CorrectionRows, int]:
    """900 rows of four attributes whose class follows two of them (10 % noise), with zero
    offsets and a fifth held out at random: (rows, number of slots)."""
    rng = np.random.default_rng(5)
    n, n_values = 900, np.array([3, 3, 4, 2])
    codes = np.column_stack([rng.integers(0, v, n) for v in n_values]).astype(float)
    y = ((codes[:, 0] == 2) + (codes[:, 2] >= 2) + rng.random(n) < 0.9).astype(np.int64)
    rows = CorrectionRows(
        slots_of(codes, n_values), np.zeros((n, 2)), y, np.ones(n), rng.random(n) < 0.2
    )
    return rows, int(n_values.sum() + len(n_values))


@pytest.mark.parametrize("K", [2, 3, 4, 5, 6, 7, 9])  # classes by four per sweep, then 3, 2, 1
def test_the_objective_and_gradient_match_a_direct_computation(K):
    rng = np.random.default_rng(0)
    n, d = 60, 3
    n_values = np.array([2, 3, 4])
    codes = np.column_stack([rng.integers(0, v, n) for v in n_values]).astype(float)
    codes[rng.random((n, d)) < 0.1] = np.nan
    codes[0, 1] = 7  # a value unseen in fitting: no term
    slots = slots_of(codes, n_values)
    rows = _random_rows(rng, slots, K, 0.3)
    n_slots = int(n_values.sum() + d)
    passes = _Passes(batch_sums(lambda: [rows], n_slots, K, FIXED), n_slots, K)
    theta = rng.normal(scale=0.3, size=n_slots * K + K)
    loss, gradient = passes.objective()(theta)

    delta, bias = theta[: n_slots * K].reshape(n_slots, K), theta[n_slots * K :]

    def direct(delta, bias):
        scores = rows.offsets + bias
        for j in range(d):
            for r in range(n):
                if slots[r, j] >= 0:
                    scores[r] += delta[slots[r, j]]
        log_p = scores - np.log(np.exp(scores).sum(axis=1, keepdims=True))
        ell = -log_p[np.arange(n), rows.cls] * rows.weight
        train = ~rows.held_out
        value = ell[train].sum() / rows.weight[train].sum() + 0.5 * L2 * np.sum(delta**2)
        held = ell[~train].sum() / rows.weight[~train].sum()
        return value, held

    value, held = direct(delta, bias)
    assert loss == pytest.approx(value, rel=1e-12)
    assert passes.held_out(theta)[0] == pytest.approx(held, rel=1e-12)
    # the standard error of the held-out rows' change in loss from the offsets' alone
    def row_losses(scores):
        log_p = scores - np.log(np.exp(scores).sum(axis=1, keepdims=True))
        return -log_p[np.arange(n), rows.cls]

    scores = rows.offsets + bias + np.array(
        [sum(delta[slots[r, j]] for j in range(d) if slots[r, j] >= 0) for r in range(n)]
    )
    out = rows.held_out
    change = (row_losses(scores) - row_losses(rows.offsets))[out]
    w = rows.weight[out]
    mean = np.sum(w * change) / w.sum()
    error = np.sqrt((np.sum(w * change**2) / w.sum() - mean**2) / out.sum())
    assert passes.held_out(theta)[1] == pytest.approx(error, rel=1e-9)
    assert slots[0, 1] == -1
    # the whole gradient: Σ over training rows of w (p_c − [c = y]) for each slot the row
    # has, over the training weight, plus λ δ
    train = ~out
    p = np.exp(scores - scores.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    residual = (p - np.eye(K)[rows.cls]) * (rows.weight / rows.weight[train].sum())[:, None]
    expected = np.zeros((n_slots, K))
    for r in np.flatnonzero(train):
        for j in range(d):
            if slots[r, j] >= 0:
                expected[slots[r, j]] += residual[r]
    expected += L2 * delta
    np.testing.assert_allclose(gradient[: n_slots * K].reshape(n_slots, K), expected, atol=1e-12)
    np.testing.assert_allclose(gradient[n_slots * K :], residual[train].sum(axis=0), atol=1e-12)
    step = 1e-6
    for i in rng.choice(theta.size, 12, replace=False):
        up, down = theta.copy(), theta.copy()
        up[i] += step
        down[i] -= step
        numeric = (
            direct(up[: n_slots * K].reshape(n_slots, K), up[n_slots * K :])[0]
            - direct(down[: n_slots * K].reshape(n_slots, K), down[n_slots * K :])[0]
        ) / (2 * step)
        assert gradient[i] == pytest.approx(numeric, abs=1e-7)


@pytest.mark.parametrize("partial_bytes", [64 << 20, 1])
def test_a_pass_over_many_blocks_and_waves_sums_every_row_once(monkeypatch, partial_bytes):
    # blocks of 100 rows; PARTIAL_BYTES = 1 runs them in waves of one block per thread
    from nbayes.semi_naive import discriminative

    monkeypatch.setattr(discriminative, "BLOCK_ROWS", 100)
    monkeypatch.setattr(discriminative, "PARTIAL_BYTES", partial_bytes)
    rng = np.random.default_rng(3)
    n, K, n_values = 1234, 4, np.array([3, 5, 2])
    codes = np.column_stack([rng.integers(0, v, n) for v in n_values]).astype(float)
    slots = slots_of(codes, n_values)
    rows = _random_rows(rng, slots, K, 0.2)
    n_slots = int(n_values.sum() + len(n_values))
    theta = rng.normal(scale=0.3, size=n_slots * K + K)
    totals, gradient = batch_sums(lambda: [rows], n_slots, K, FIXED)(theta)
    delta, bias = theta[: n_slots * K].reshape(n_slots, K), theta[n_slots * K :]
    scores = rows.offsets + bias + delta[slots].sum(axis=1)
    p = np.exp(scores - scores.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    train = ~rows.held_out
    w = rows.weight * train
    loss = -np.log(p[np.arange(n), rows.cls])
    residual = (p - np.eye(K)[rows.cls]) * w[:, None]
    expected = np.zeros((n_slots, K))
    np.add.at(expected, slots, residual[:, None, :])
    assert totals[0] == pytest.approx(np.sum(w * loss), rel=1e-12)
    assert totals[1] == pytest.approx(w.sum(), rel=1e-12)
    assert totals[2] == pytest.approx(np.sum((rows.weight * loss)[~train]), rel=1e-12)
    np.testing.assert_allclose(gradient[: n_slots * K], expected.ravel(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gradient[n_slots * K :], residual.sum(axis=0), atol=1e-10)
    # a batch without rows adds nothing, beside others or alone
    empty = CorrectionRows(
        slots[:0], rows.offsets[:0], rows.cls[:0], rows.weight[:0], rows.held_out[:0]
    )
    again = batch_sums(lambda: [empty, rows, empty], n_slots, K, FIXED)(theta)
    np.testing.assert_array_equal(again[0], totals)
    np.testing.assert_array_equal(again[1], gradient)
    nothing = batch_sums(lambda: [empty], n_slots, K, FIXED)(theta)
    assert not nothing[0].any() and not nothing[1].any()


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), sizes=st.lists(st.integers(1, 400), min_size=1, max_size=5))
def test_a_pass_gives_the_same_sums_to_the_last_bit_in_any_order_and_batches(seed, sizes):
    # the sums are of integers (FixedPoint): floating-point sums taken in another order would
    # differ in their last bits, which L-BFGS amplifies iteration after iteration
    rng = np.random.default_rng(seed)
    n, K, n_values = 1000, 3, np.array([3, 5, 2])
    codes = np.column_stack([rng.integers(0, v, n) for v in n_values]).astype(float)
    rows = _random_rows(rng, slots_of(codes, n_values), K, 0.2)  # weights in [0.5, 2)
    n_slots = int(n_values.sum() + len(n_values))
    theta = rng.normal(scale=0.3, size=n_slots * K + K)
    order = rng.permutation(n)
    pieces = np.split(order, np.cumsum(sizes)[np.cumsum(sizes) < n])
    batches = [
        CorrectionRows(rows.slots[p], rows.offsets[p], rows.cls[p], rows.weight[p],
                       rows.held_out[p])
        for p in pieces
    ]  # fmt: skip
    once = batch_sums(lambda: [rows], n_slots, K, FIXED)(theta)
    again = batch_sums(lambda: batches, n_slots, K, FIXED)(theta)
    np.testing.assert_array_equal(again[0], once[0])
    np.testing.assert_array_equal(again[1], once[1])


@pytest.mark.parametrize("total", [0.0, 1e-310, 1e-6, 1.0, 3e4, 2.0**40, 1e15])
def test_the_fixed_point_scale_keeps_every_sum_in_64_bits(total):
    fixed = FixedPoint.for_weight(total)
    assert np.isfinite(fixed.fine) and np.isfinite(fixed.coarse)
    assert total * fixed.fine <= 2.0**62  # no sum of |g| ≤ w can overflow
    assert fixed.fine == fixed.coarse * 2.0**31


def test_a_pass_counts_the_held_out_rows_whatever_the_weights_scale():
    rng = np.random.default_rng(4)
    n, K, n_values = 300, 2, np.array([3, 2])
    codes = np.column_stack([rng.integers(0, v, n) for v in n_values]).astype(float)
    rows = _random_rows(rng, slots_of(codes, n_values), K, 0.3)
    n_slots = int(n_values.sum() + len(n_values))
    theta = np.zeros(n_slots * K + K)
    for scale in (1e-15, 1.0, 1e6):
        scaled = CorrectionRows(rows.slots, rows.offsets, rows.cls, rows.weight * scale,
                                rows.held_out)  # fmt: skip
        fixed = FixedPoint.for_weight(float(scaled.weight.sum()))
        totals, _ = batch_sums(lambda scaled=scaled: [scaled], n_slots, K, fixed)(theta)
        assert totals[6] == rows.held_out.sum()  # a count of rows, not of weight
        assert totals[3] == pytest.approx(scaled.weight[rows.held_out].sum(), rel=1e-12)


def test_large_losses_are_summed_exactly_in_two_words_and_absurd_ones_clipped():
    rng = np.random.default_rng(6)
    n, K, n_values = 200, 2, np.array([2])
    rows = _random_rows(rng, slots_of(rng.integers(0, 2, (n, 1)).astype(float), n_values), K, 0.0)
    # the true class scored far below the other: a loss of about 10⁶ nats a row (beyond the
    # one-word range of 2^31 / 2^S per unit weight), and for the first row 10¹² (clipped)
    offsets = np.zeros((n, K))
    offsets[np.arange(n), 1 - rows.cls] = rng.uniform(0.5e6, 1.5e6, n)
    offsets[0, 1 - rows.cls[0]] = 1e12
    rows = CorrectionRows(rows.slots, offsets, rows.cls, rows.weight, rows.held_out)
    n_slots = 3
    totals, _ = batch_sums(lambda: [rows], n_slots, K, FIXED)(np.zeros(n_slots * K + K))
    loss = offsets[np.arange(n), 1 - rows.cls]  # log Σ exp(s) − s_y, to round-off
    expected = np.sum(rows.weight[1:] * loss[1:]) + rows.weight[0] * 2.0**30
    assert totals[0] == pytest.approx(expected, rel=1e-12)


def _four_class_interactions(n: int, seed: int) -> tuple[pl.DataFrame, np.ndarray]:
    """Four classes from a score with a product and an equality of attributes (3 % of labels
    redrawn): a concept whose correction takes many L-BFGS iterations."""
    rng = np.random.default_rng(seed)
    v = rng.integers(0, 4, (n, 6))
    score = v[:, 0] * v[:, 1] + (v[:, 2] == v[:, 3]) * 3 + v[:, 4] - v[:, 5]
    y = np.digitize(score, [2, 5, 8])
    flip = rng.random(n) < 0.03
    y[flip] = rng.integers(0, 4, flip.sum())
    return pl.DataFrame({f"a{j}": v[:, j].astype(str) for j in range(6)}), y.astype(str)


@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), sizes=st.lists(st.integers(1, 300), min_size=1, max_size=4))
def test_many_iterations_learn_the_same_weights_to_the_last_bit_in_any_order(seed, sizes):
    X, y = _four_class_interactions(600, 1)
    reference = SemiNaiveBayes("kdb").fit(X, y)
    assert reference.correction_.iterations >= 20
    order = np.random.default_rng(seed).permutation(len(y))
    frame = X[order].with_columns(pl.Series("label", y[order]))
    cuts = np.cumsum(sizes)[np.cumsum(sizes) < len(y)]

    def source():
        for part in np.split(np.arange(len(y)), cuts):
            yield frame[part]

    passes = SemiNaiveBayes("kdb").fit_passes(source, target="label")
    np.testing.assert_array_equal(passes.correction_.delta, reference.correction_.delta)
    np.testing.assert_array_equal(
        passes.correction_.held_out_losses, reference.correction_.held_out_losses
    )
    assert np.abs(passes.predict_proba(X) - reference.predict_proba(X)).max() < 1e-12


@pytest.mark.parametrize(
    "structure", ["aode", "waode", "aodesr", "a2de", "hnb", "tan", "kdb", "skdb", "eskdb"]
)
def test_every_structure_with_its_correction_is_the_same_model_in_another_order(structure):
    X, y = _four_class_interactions(600, 2)
    order = np.random.default_rng(7).permutation(len(y))
    reference = SemiNaiveBayes(structure).fit(X, y)
    shuffled = SemiNaiveBayes(structure).fit(X[order], y[order])
    assert reference.correction_.iterations == shuffled.correction_.iterations
    np.testing.assert_array_equal(
        shuffled.correction_.held_out_losses, reference.correction_.held_out_losses
    )
    assert np.abs(shuffled.predict_proba(X) - reference.predict_proba(X)).max() < 1e-12


def test_the_iteration_count_is_the_held_out_minimum():
    X, y = _threshold_concept(800, 1)
    model = SemiNaiveBayes().fit(X, y)
    losses = model.correction_.held_out_losses
    t = model.correction_.iterations
    assert t == int(np.argmin(losses)) or losses[t] <= losses.min() + 1e-9 * (1 + losses.min())
    assert losses[t] < losses[0]  # the held-out rows preferred some correction here


def test_the_weights_kept_are_those_of_iteration_t_on_the_rows_not_held_out():
    rows, n_slots = _two_attribute_concept()
    n, y = rows.cls.shape[0], rows.cls
    correction = fit_correction(batch_sums(lambda: [rows], n_slots, 2, FIXED), n_slots, 2)
    t = correction.iterations
    assert t > 0 and correction.held_out_losses.shape[0] > t
    # an independent run of t iterations on the same objective (held-out rows left out)
    passes = _Passes(batch_sums(lambda: [rows], n_slots, 2, FIXED), n_slots, 2)
    theta = lbfgs(passes.objective(), np.zeros(n_slots * 2 + 2), t)
    delta, bias = passes.split(theta)
    np.testing.assert_array_equal(correction.delta, delta)
    np.testing.assert_array_equal(correction.bias, bias)
    # not the weights of a fit on all the rows
    every_row = CorrectionRows(rows.slots, rows.offsets, y, rows.weight, np.zeros(n, bool))
    on_all = _Passes(batch_sums(lambda: [every_row], n_slots, 2, FIXED), n_slots, 2)
    everything = lbfgs(on_all.objective(), np.zeros(n_slots * 2 + 2), t)
    assert not np.allclose(on_all.split(everything)[0], delta)


def test_the_correction_undoes_double_counted_evidence():
    X, y = _doubled_evidence(3000, 2)
    X_test, y_test = _doubled_evidence(3000, 3)
    generative = SemiNaiveBayes(KDB(0), discriminative=False).fit(X, y)
    corrected = SemiNaiveBayes(KDB(0)).fit(X, y)
    assert corrected.correction_.iterations > 0
    assert _log_loss(corrected, X_test, y_test) < _log_loss(generative, X_test, y_test) - 0.02
    assert "discriminative correction" in str(corrected)


def test_without_the_correction_the_structure_alone_scores():
    X, y = _doubled_evidence(400, 4)
    model = SemiNaiveBayes("kdb", discriminative=False).fit(X, y)
    assert not hasattr(model, "correction_")
    inner = model.model_.predict_proba(model._codes(X))
    assert np.array_equal(model.predict_proba(X), inner)


def test_a_threshold_concept_is_learnt_by_the_default():
    X, y = _threshold_concept(1500, 14)
    X_test, y_test = _threshold_concept(3000, 15)
    generative = SemiNaiveBayes(discriminative=False).fit(X, y)
    corrected = SemiNaiveBayes().fit(X, y)
    accuracy = np.mean(corrected.predict(X_test) == y_test)
    assert accuracy > np.mean(generative.predict(X_test) == y_test) + 0.02
    assert _log_loss(corrected, X_test, y_test) < _log_loss(generative, X_test, y_test)


def test_the_default_is_selective_kdb_with_the_correction():
    X, y = _doubled_evidence(400, 5)
    model = SemiNaiveBayes().fit(X, y)
    assert type(model.model_).__name__ == "SelectiveKDB" and model.model_.k == 3
    assert hasattr(model, "correction_")


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), sizes=st.lists(st.integers(1, 300), min_size=1, max_size=5))
def test_the_same_model_in_any_order_and_any_batches(seed, sizes):
    X, y = _threshold_concept(800, 1)
    reference = SemiNaiveBayes().fit(X, y)
    order = np.random.default_rng(seed).permutation(len(y))
    shuffled = SemiNaiveBayes().fit(X[order], y[order])
    frame = X[order].with_columns(pl.Series("label", y[order]))
    cuts = np.cumsum(sizes)
    cuts = cuts[cuts < len(y)]

    def source():
        for part in np.split(np.arange(len(y)), cuts):
            yield frame[part]

    passes = SemiNaiveBayes().fit_passes(source, target="label")
    expected = reference.predict_proba(X)
    assert reference.correction_.iterations > 0
    assert np.abs(shuffled.predict_proba(X) - expected).max() < 1e-9
    assert np.abs(passes.predict_proba(X) - expected).max() < 1e-9


def _counted_source(frame: pl.DataFrame, rows_per_batch: int):
    reads = []

    def source():
        reads.append(1)
        for start in range(0, frame.height, rows_per_batch):
            yield frame[start : start + rows_per_batch]

    return source, reads


@pytest.fixture
def spill_folders(tmp_path, monkeypatch) -> list:
    """The temporary folders made while a test runs (made under tmp_path, recorded)."""
    import tempfile

    folders = []

    def made_here(prefix: str) -> str:
        folders.append(tmp_path / f"{prefix}{len(folders)}")
        folders[-1].mkdir()
        return str(folders[-1])

    monkeypatch.setattr(tempfile, "mkdtemp", made_here)
    return folders


def test_the_correction_reads_the_source_once_then_its_spill(spill_folders, monkeypatch):
    X, y = _threshold_concept(800, 1)
    reference = SemiNaiveBayes().fit(X, y)
    frame = X.with_columns(pl.Series("label", y))
    source, reads = _counted_source(frame, 150)
    spilled = SemiNaiveBayes().fit_passes(source, target="label")
    evaluations = spilled.correction_.held_out_losses.shape[0]
    assert evaluations > 2
    # the table's pass alone (which spills the rows as read: the structure's first pass reads
    # them and spills their codes for its later passes; the correction's first evaluation reads
    # those codes and spills the rows the others read)
    assert spilled.passes == 4 and len(reads) == 1
    assert spill_folders and not any(f.exists() for f in spill_folders)  # removed when done
    expected = reference.predict_proba(X)
    assert np.abs(spilled.predict_proba(X) - expected).max() < 1e-9

    def no_room(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "save", no_room)
    source, reads = _counted_source(frame, 150)
    unspilled = SemiNaiveBayes().fit_passes(source, target="label")
    assert len(reads) >= spilled.passes + evaluations  # every pass read the source again
    np.testing.assert_array_equal(unspilled.predict_proba(X), spilled.predict_proba(X))


@pytest.mark.parametrize("text", [False, True])
def test_the_correction_reads_the_encoded_rows_unless_a_text_column_needs_the_rows_read(
    spill_folders, monkeypatch, text
):
    """The correction's first evaluation reads the rows the structure's first pass encoded
    (each with its held-out flag, from its content): the table's spill is read once, by that
    pass. A table with a text column, whose terms need the rows as read, has the correction
    read the table's spill again. Either way the model is the one fit makes."""
    X, y = _threshold_concept(800, 1)
    if text:  # distinct notes of several words: a text column by the schema's rules
        notes = [f"note {i} about {'ab'[i % 2]} and {i % 7}" for i in range(len(y))]
        X = X.with_columns(pl.Series("notes", notes))
    reference = SemiNaiveBayes().fit(X, y)
    assert (reference.text_columns_ == ["notes"]) is text
    reads_of_the_table_spill = []
    read_ipc = pl.read_ipc
    monkeypatch.setattr(
        pl, "read_ipc", lambda *a, **k: reads_of_the_table_spill.append(1) or read_ipc(*a, **k)
    )
    source, reads = _counted_source(X.with_columns(pl.Series("label", y)), 150)
    spilled = SemiNaiveBayes().fit_passes(source, target="label")
    batches = -(-len(y) // 150)
    assert len(reads) == 1 and len(reads_of_the_table_spill) == batches * (2 if text else 1)
    assert np.abs(spilled.predict_proba(X) - reference.predict_proba(X)).max() < 1e-9


@pytest.mark.parametrize("labels", ["strings", "objects", "integers"])
def test_the_structure_passes_after_the_first_read_its_spill(spill_folders, labels):
    """The source is read once, by the table's pass, which spills the rows as read; selective
    k-DB's pair pass reads that spill, and its parent and leave-one-out passes the encoded rows
    the pair pass spilled. The model is the one fit makes, and the spills are gone when
    fit_passes returns."""
    X, y = _threshold_concept(800, 2)
    y = {"strings": y, "objects": y.astype(object), "integers": (y == "yes").astype(int)}[labels]
    frame = X.with_columns(pl.Series("label", y))
    source, reads = _counted_source(frame, 150)
    model = SemiNaiveBayes(discriminative=False).fit_passes(source, target="label")
    assert model.passes == 4 and len(reads) == 1
    assert len(spill_folders) == 2 and not any(f.exists() for f in spill_folders)
    reference = SemiNaiveBayes(discriminative=False).fit(X, y)
    np.testing.assert_array_equal(model.predict_proba(X), reference.predict_proba(X))


def test_a_dask_fit_is_the_same_model():
    dd = pytest.importorskip("dask.dataframe")
    X, y = _threshold_concept(800, 1)
    reference = SemiNaiveBayes().fit(X, y)
    frame = X.with_columns(pl.Series("label", y)).to_pandas()
    fitted = SemiNaiveBayes().fit(dd.from_pandas(frame, npartitions=3), target="label")
    assert fitted.correction_.iterations == reference.correction_.iterations
    assert np.abs(fitted.predict_proba(X) - reference.predict_proba(X)).max() < 1e-9


def test_a_model_file_keeps_the_correction(tmp_path):
    X, y = _threshold_concept(500, 8)
    model = SemiNaiveBayes().fit(X, y)
    path = tmp_path / "model.nbayes"
    nbayes.save(model, path)
    loaded = nbayes.load(path)
    assert loaded.correction_.iterations == model.correction_.iterations
    assert np.array_equal(loaded.predict_proba(X), model.predict_proba(X))


def test_a_forged_correction_is_refused(tmp_path):
    from nbayes.semi_naive import table_files

    X, y = _doubled_evidence(300, 9)
    model = SemiNaiveBayes("aode").fit(X, y)
    meta, arrays = table_files.table_state(model)
    arrays["correction.delta"] = arrays["correction.delta"][:-1]
    with pytest.raises(ValueError, match="correction's weights have shapes"):
        table_files.table_from_state(SemiNaiveBayes, meta, arrays)
    meta, arrays = table_files.table_state(model)
    arrays["correction.bias"] = np.array([np.inf, 0.0])
    with pytest.raises(ValueError, match="finite"):
        table_files.table_from_state(SemiNaiveBayes, meta, arrays)
    meta, arrays = table_files.table_state(model)
    meta["correction"]["iterations"] = arrays["correction.held_out_losses"].shape[0]
    with pytest.raises(ValueError, match="lack their held-out losses"):
        table_files.table_from_state(SemiNaiveBayes, meta, arrays)


def test_a_file_from_before_the_correction_loads_without_one():
    from nbayes._json import from_json, to_json
    from nbayes.semi_naive import table_files

    X, y = _doubled_evidence(300, 10)
    model = SemiNaiveBayes("aode", discriminative=False).fit(X, y)
    meta, arrays = table_files.table_state(model)
    params = from_json(meta["params"])
    del params["discriminative"]
    meta["params"] = to_json(params)
    loaded = table_files.table_from_state(SemiNaiveBayes, meta, arrays)
    assert loaded.discriminative is False
    assert np.array_equal(loaded.predict_proba(X), model.predict_proba(X))


def test_merge_and_partial_fit_are_refused_naming_the_option():
    X, y = _doubled_evidence(300, 11)
    a = SemiNaiveBayes("aode").fit(X[:150], y[:150])
    b = SemiNaiveBayes("aode").fit(X[150:], y[150:])
    with pytest.raises(ValueError, match="discriminative=False") as refused:
        a.merge(b)
    # one sentence, naming the way that does merge: the staged protocol's passes
    assert "staged protocol" in str(refused.value) and str(refused.value).count(". ") == 0
    with pytest.raises(ValueError, match="discriminative=False"):
        nbayes.merge(a, b)
    with pytest.raises(AttributeError, match=r"staged protocol.*discriminative=False"):
        SemiNaiveBayes("aode").partial_fit(X, y)
    assert not hasattr(SemiNaiveBayes("aode"), "partial_fit")


def test_discriminative_must_be_a_boolean():
    X, y = _doubled_evidence(100, 12)
    with pytest.raises(ValueError, match="discriminative must be True or False"):
        SemiNaiveBayes(discriminative="yes").fit(X, y)


def test_the_explanation_adds_up_to_the_corrected_posterior():
    X, y = _threshold_concept(800, 13)
    model = SemiNaiveBayes().fit(X, y)
    assert model.correction_.iterations > 0
    row = X.row(0, named=True)
    explanation = model.explain(row)
    proba = model.predict_proba(X[:1])[0]
    assert np.allclose(explanation.posterior, proba)
    assert explanation.decision == model.predict(X[:1])[0]


def test_fit_correction_on_no_rows_is_the_generative_model():
    correction = fit_correction(lambda theta: (np.zeros(4), np.zeros(theta.size)), 3, 2)
    assert correction.iterations == 0 and not correction.active


@pytest.mark.parametrize("edges", [[], [[1, 0], [2, 1], [2, 0]]])
def test_an_attribute_term_is_the_change_in_scores_were_its_value_missing(edges):
    from nbayes.semi_naive.discriminative import Correction, slot_bases

    rng = np.random.default_rng(16)
    n_values = np.array([2, 3, 4])
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    n_slots = int(slot_bases(n_values, edges)[-1])
    correction = Correction(
        rng.normal(size=(n_slots, 3)), rng.normal(size=3), 1, np.zeros(2), edges
    )
    codes = np.column_stack([rng.integers(0, v, 40) for v in n_values]).astype(float)
    codes[rng.random(codes.shape) < 0.2] = np.nan
    codes[0, 2] = 9  # unseen: no term of its own
    terms = correction.terms(codes, n_values)
    scores = correction.scores(codes, n_values)
    for j in range(3):
        blank = codes.copy()
        blank[:, j] = np.nan
        expected = scores - correction.scores(blank, n_values)
        expected[np.isnan(codes[:, j])] = 0.0
        np.testing.assert_allclose(terms[j], expected, atol=1e-12)


def test_an_edge_slot_is_one_weight_per_pair_of_values():
    """slots_of with edges against a count of the pairs by hand: each edge's block holds
    (v_j + 1)(v_p + 1) slots, one per (child value, parent value) with missing as a value,
    distinct pairs get distinct slots, and an unseen value gets no edge term."""
    from nbayes.semi_naive.discriminative import slot_bases

    n_values = np.array([2, 3, 4])
    edges = np.array([[1, 0], [2, 1]])
    bases = slot_bases(n_values, edges)
    assert list(np.diff(bases)) == [3, 4, 5, 4 * 3, 5 * 4]
    codes = np.array([[0, 2, 3], [1, np.nan, 0], [np.nan, 0, 9]], dtype=float)
    slots = slots_of(codes, n_values, edges)
    # edge (1, 0): child x_1 (missing = 3), parent x_0 (missing = 2), width v_0 + 1 = 3
    assert list(slots[:, 3]) == [bases[3] + 2 * 3 + 0, bases[3] + 3 * 3 + 1, bases[3] + 0 + 2]
    # edge (2, 1): x_2 = 9 is unseen in row 2, so no term there
    assert list(slots[:, 4]) == [bases[4] + 3 * 4 + 2, bases[4] + 0 * 4 + 3, -1]
    assert list(slots[:, :3].ravel()) == list(slots_of(codes, n_values).ravel())


def test_the_correction_weighs_the_structure_edges():
    """k-DB's correction has a weight per value pair of each edge its structure uses; averaged
    models have no edges; the file keeps them and gives the same probabilities."""
    X, y = _threshold_concept(600, 21)
    model = SemiNaiveBayes(KDB(2)).fit(X, y)
    structure = model.model_.structure_
    expected = sorted(
        (j, int(structure.parents[j][level]))
        for j in range(len(structure.parents))
        for level in range(len(structure.parents[j]))
    )
    assert sorted(map(tuple, model.correction_.edges.tolist())) == expected
    assert len(expected) > 0
    aode = SemiNaiveBayes("aode").fit(X, y)
    assert aode.correction_.edges.shape == (0, 2)
    from nbayes.semi_naive import table_files

    meta, arrays = table_files.table_state(model)
    loaded = table_files.table_from_state(SemiNaiveBayes, meta, arrays)
    assert np.array_equal(loaded.correction_.edges, model.correction_.edges)
    assert np.array_equal(loaded.predict_proba(X), model.predict_proba(X))
    arrays["correction.edges"] = np.array([[0, 0]])
    with pytest.raises(ValueError, match="edges must be pairs of distinct attribute"):
        table_files.table_from_state(SemiNaiveBayes, meta, arrays)
    # a file from before the edges: a correction over the values alone
    meta, arrays = table_files.table_state(aode)
    del arrays["correction.edges"]
    earlier = table_files.table_from_state(SemiNaiveBayes, meta, arrays)
    assert earlier.correction_.edges.shape == (0, 2)
    assert np.array_equal(earlier.predict_proba(X), aode.predict_proba(X))


def test_edge_weights_learn_an_interaction_the_values_alone_cannot():
    """y = a XOR b with a and b independent of y one by one: the values' weights see nothing,
    but a correction over the edge (b, a) is logistic regression on the pair, which can. The
    structure is held naive (KDB(1) with its counts smoothed flat by a huge α would be a
    contrivance): the correction alone is fitted on the slots directly."""
    rng = np.random.default_rng(22)
    n = 2000
    codes = rng.integers(0, 2, (n, 2)).astype(float)
    y = (codes[:, 0] != codes[:, 1]).astype(np.int64)
    flip = rng.random(n) < 0.05
    y[flip] = 1 - y[flip]
    n_values = np.array([2, 2])
    held = rng.random(n) < 0.2
    results = {}
    for name, edges in [("values", np.zeros((0, 2), np.int64)), ("edge", np.array([[1, 0]]))]:
        from nbayes.semi_naive.discriminative import slot_bases

        rows = CorrectionRows(
            slots_of(codes, n_values, edges), np.zeros((n, 2)), y, np.ones(n), held
        )
        n_slots = int(slot_bases(n_values, edges)[-1])
        correction = fit_correction(
            batch_sums(lambda rows=rows: [rows], n_slots, 2, FIXED), n_slots, 2, edges
        )
        scores = correction.scores(codes, n_values)
        results[name] = np.mean(np.argmax(scores, axis=1)[held] == y[held])
    assert results["values"] < 0.6
    assert results["edge"] > 0.9


# --------------------------------------------------------------------------- refit=True
def test_the_refit_learns_t_iterations_from_zero_on_every_row():
    rows, n_slots = _two_attribute_concept()
    n, y = rows.cls.shape[0], rows.cls
    plain = fit_correction(batch_sums(lambda: [rows], n_slots, 2, FIXED), n_slots, 2)
    refitted = fit_correction(
        batch_sums(lambda: [rows], n_slots, 2, FIXED), n_slots, 2,
        refit=batch_sums(lambda: [rows], n_slots, 2, FIXED, everything=True),
    )  # fmt: skip
    t = plain.iterations
    assert t > 0 and refitted.iterations == t and refitted.refitted and not plain.refitted
    np.testing.assert_array_equal(refitted.held_out_losses, plain.held_out_losses)
    # an independent run of t iterations on rows none of which is held out
    every_row = CorrectionRows(rows.slots, rows.offsets, y, rows.weight, np.zeros(n, bool))
    on_all = _Passes(batch_sums(lambda: [every_row], n_slots, 2, FIXED), n_slots, 2)
    delta, bias = on_all.split(lbfgs(on_all.objective(), np.zeros(n_slots * 2 + 2), t))
    np.testing.assert_allclose(refitted.delta, delta, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(refitted.bias, bias, rtol=1e-12, atol=1e-15)
    assert not np.allclose(refitted.delta, plain.delta)


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), sizes=st.lists(st.integers(1, 300), min_size=1, max_size=4))
def test_a_refitted_model_is_the_same_in_any_order_and_any_batches(seed, sizes):
    X, y = _threshold_concept(800, 1)
    reference = SemiNaiveBayes(refit=True).fit(X, y)
    assert reference.correction_.refitted
    order = np.random.default_rng(seed).permutation(len(y))
    shuffled = SemiNaiveBayes(refit=True).fit(X[order], y[order])
    frame = X[order].with_columns(pl.Series("label", y[order]))
    cuts = np.cumsum(sizes)
    cuts = cuts[cuts < len(y)]

    def source():  # re-readable: the passes read the spill of the rows
        for part in np.split(np.arange(len(y)), cuts):
            yield frame[part]

    passes = SemiNaiveBayes(refit=True).fit_passes(source, target="label")
    expected = reference.predict_proba(X)
    assert np.abs(shuffled.predict_proba(X) - expected).max() < 1e-9
    assert np.abs(passes.predict_proba(X) - expected).max() < 1e-9
    plain = SemiNaiveBayes().fit(X, y)
    assert np.abs(plain.predict_proba(X) - expected).max() > 1e-6  # another model


def test_a_refitted_dask_fit_is_the_same_model():
    dd = pytest.importorskip("dask.dataframe")
    X, y = _threshold_concept(800, 1)
    reference = SemiNaiveBayes(refit=True).fit(X, y)
    frame = X.with_columns(pl.Series("label", y)).to_pandas()
    fitted = SemiNaiveBayes(refit=True).fit(dd.from_pandas(frame, npartitions=3), target="label")
    assert fitted.correction_.refitted
    assert np.abs(fitted.predict_proba(X) - reference.predict_proba(X)).max() < 1e-9


def test_refit_is_kept_in_the_file_said_in_the_summary_and_reached_from_the_cli(tmp_path):
    from nbayes.cli import main

    X, y = _threshold_concept(800, 1)
    model = SemiNaiveBayes(refit=True).fit(X, y)
    assert model.correction_.iterations > 0
    loaded = nbayes.load(nbayes.save(model, tmp_path / "m.nbm"))
    assert loaded.refit and loaded.correction_.refitted
    assert np.array_equal(loaded.predict_proba(X), model.predict_proba(X))
    assert "then learnt again on every row" in str(loaded)
    data = tmp_path / "data.csv"
    X.with_columns(pl.Series("label", y)).write_csv(data)
    out = tmp_path / "cli.nbm"
    args = ["fit", str(data), "--target", "label", "--model", "skdb", "--discriminative",
            "refit", "--chunk-mb", "1", "-o", str(out)]  # fmt: skip
    assert main(args) == 0
    streamed = nbayes.load(out)
    table = nbayes.read_table(data)  # as the command line reads it: the codes as integers
    in_memory = SemiNaiveBayes(refit=True).fit(table, target="label")
    assert streamed.refit and streamed.correction_.refitted
    features = table.drop("label")
    assert np.abs(streamed.predict_proba(features) - in_memory.predict_proba(features)).max() < 1e-9


def test_refit_must_be_a_boolean_and_needs_the_correction():
    X, y = _doubled_evidence(100, 12)
    with pytest.raises(ValueError, match="refit must be True or False"):
        SemiNaiveBayes(refit="yes").fit(X, y)
    with pytest.raises(ValueError, match=r"refit=True .* needs discriminative=True"):
        SemiNaiveBayes(refit=True, discriminative=False).fit(X, y)


# ------------------------------------------------------------- leave-one-out held-out scores
@pytest.mark.parametrize(
    ("make", "prior"),
    [(lambda p: KDB(1, class_prior=p), None), (lambda p: KDB(1, class_prior=p), "smoothed"),
     (lambda p: KDB(2, min_count=3, class_prior=p), None), (lambda p: TAN(class_prior=p), None)],
)  # fmt: skip
def test_a_held_out_rows_shift_is_its_score_from_the_counts_without_it(make, prior):
    """The shift of a row's own-class score equals what a model fitted without the row says,
    relative to the other classes (whose counts never held the row): a direct refit."""
    rng = np.random.default_rng(3)
    n = 300
    y = rng.integers(0, 3, n)
    X = np.column_stack([
        np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n)),
        rng.integers(0, 4, n),
        np.where(rng.random(n) < 0.8, y % 2, 1 - y % 2),
    ]).astype(float)  # fmt: skip
    X[rng.random(n) < 0.05, 1] = np.nan  # a missing value: no factor
    full = make(prior).fit(X, y)
    for i in (0, 7, 42):
        without = make(prior).fit(np.delete(X, i, axis=0), np.delete(y, i))
        # the same network (parents and order), fewer counts
        assert without.structure_.parents == full.structure_.parents
        assert without.structure_.order == full.structure_.order
        before = full.predict_joint_log_proba(X[i : i + 1])[0]
        after = without.predict_joint_log_proba(X[i : i + 1])[0]
        other = (y[i] + 1) % 3
        expected = (after[y[i]] - before[y[i]]) - (after[other] - before[other])
        shift = full._held_out_shifts(X[i : i + 1], y[i : i + 1], np.ones(1))[0]
        assert shift == pytest.approx(expected, abs=1e-12)
        assert shift < 0  # a row makes its own class likelier


def test_held_out_rows_are_scored_without_their_own_counts_and_the_refit_with_them():
    """The search judges its iterations on held-out rows scored as rows the counts never held
    (their own-class score moved by the shift); the refit trains on every row as counted."""
    X, y = _threshold_concept(600, 2)
    model = SemiNaiveBayes().fit(X, y)
    encoded = model._encode(X, fitting=False)
    labels = np.asarray(y)
    rows = model._correction_rows(X, labels, np.ones(len(labels)), encoded)
    held = rows.held_out
    assert held.any() and rows.counted_own is not None
    counted, _ = model._joint_of(X, encoded, None, corrected=False)
    own = np.arange(len(labels)), rows.cls
    np.testing.assert_array_equal(rows.full_offsets, counted)
    np.testing.assert_array_equal(rows.offsets[~held], counted[~held])
    shifts = model.model_._held_out_shifts(encoded.codes[held], rows.cls[held], np.ones(held.sum()))
    np.testing.assert_array_equal(rows.offsets[own][held], counted[own][held] + shifts)
    assert (shifts < 0).all()
