"""The semi-naive models on one thread and on two: their counting and scoring kernels run on
:mod:`nbayes._threads` (ranges of attributes, pairs, triples or rows, each table cell or score
written by one range), and give the same numbers bit for bit whatever the number of threads."""

from __future__ import annotations

import warnings

import numba
import numpy as np
import pytest
import threadpoolctl

from nbayes import _threads
from nbayes.semi_naive import AODE, HNB, KDB, TAN, WAODE, AnDE, AODEsr, SelectiveKDB, _kernels

COUNT_PAIRS = "PairCounts._count.<locals>.pairs"
COUNT_TRIPLES = "PairCounts._count.<locals>.triples"
COUNT_PARENTS = "ParentCounts._count.<locals>.count"
COLUMN_CODES = "column_codes.<locals>.body"
#: the leave-one-out shifts of the correction's held-out rows (networks)
SHIFTS = "_Network._held_out_shifts.<locals>.shifts"

#: Each model, and the kernel bodies (qualified names) its fit and prediction must run on
#: :func:`nbayes._threads.run`.
MODELS = {
    "aode": (AODE, {COUNT_PAIRS, COLUMN_CODES, "_Averaged._score_rows.<locals>.aode"}),
    "waode": (WAODE, {COUNT_PAIRS, "_Averaged._score_rows.<locals>.aode"}),
    "aodesr": (
        lambda: AODEsr(subsumption=2),
        {COUNT_PAIRS, "_Averaged._score_rows.<locals>.aode"},
    ),
    "a2de": (
        lambda: AnDE(2),
        {COUNT_PAIRS, COUNT_TRIPLES, COLUMN_CODES, "_Averaged._score_rows.<locals>.a2de"},
    ),
    "hnb": (HNB, {COUNT_PAIRS, "HNB._score_rows.<locals>.hnb"}),
    "tan": (TAN, {COUNT_PAIRS, "_Network._score_rows.<locals>.score", SHIFTS}),
    "kdb2": (
        lambda: KDB(2),
        {COUNT_PAIRS, COUNT_PARENTS, "_Network._score_rows.<locals>.score", SHIFTS},
    ),
    "selective-kdb": (
        lambda: SelectiveKDB(2),
        {COUNT_PAIRS, COUNT_PARENTS, "SelectiveKDB._add_losses.<locals>.block", SHIFTS},
    ),
}


def _problem(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Codes 0 … 3 with 3 % missing, three classes that depend on pairs of attributes, and a
    test table of 2n rows (A2DE's row blocks are large) with codes 4 and 5 never seen in
    fitting."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, (n, d)).astype(np.float64)
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.integers(0, 3, n)) % 3
    X[rng.random((n, d)) < 0.03] = np.nan
    test = rng.integers(0, 6, (2 * n, d)).astype(np.float64)
    test[rng.random(test.shape) < 0.03] = np.nan
    return X, y, test


def _record(monkeypatch) -> list[tuple[str, int]]:
    """Record (kernel body, threads it ran on) of every :func:`_threads.run` call."""
    calls: list[tuple[str, int]] = []
    real_run = _threads.run

    def run(body, parts, threads):
        calls.append((body.__qualname__, min(threads, len(parts))))
        return real_run(body, parts, threads)

    monkeypatch.setattr(_threads, "run", run)
    return calls


def _fit_predict(make, X, y, test) -> dict[str, np.ndarray]:
    """Everything a fit counted and everything a prediction gave, as arrays."""
    model = make().fit(X, y)
    result = {f"stats.{k}": np.asarray(v) for k, v in model._stats.state().items()}
    if hasattr(model, "leave_one_out_losses_"):
        result["leave_one_out_losses"] = model.leave_one_out_losses_
        result["leave_one_out_squares"] = model.leave_one_out_squares_
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the unseen codes of the test table
        result["proba"] = model.predict_proba(test)
        result["joint"] = model.predict_joint_log_proba(test)
    out = np.empty((test.shape[0], len(model.classes_)))
    result["unseen"] = np.array(model._score_rows(test, out))
    if hasattr(model, "_held_out_shifts"):
        cls = np.searchsorted(model.classes_, y)
        result["shifts"] = model._held_out_shifts(X, cls, np.ones(X.shape[0]))
    return result


def _assert_identical(one: dict, two: dict) -> None:
    assert one.keys() == two.keys()
    for name in one:
        np.testing.assert_array_equal(one[name], two[name], err_msg=name)


@pytest.mark.parametrize("name", MODELS)
def test_one_and_two_threads_give_the_same_bits(monkeypatch, name):
    """With 256 inner-loop steps per thread a small table is enough work for two threads in
    every kernel (the limit set to 2, so even on a one-CPU machine)."""
    make, bodies = MODELS[name]
    X, y, test = _problem(3000, 8)
    monkeypatch.setattr(_threads, "WORK_PER_THREAD", 256)
    calls = _record(monkeypatch)
    with threadpoolctl.threadpool_limits(limits=1):
        assert _threads.plan(1e12) == 1
        serial = _fit_predict(make, X, y, test)
    assert calls and all(threads == 1 for _, threads in calls)
    calls.clear()
    monkeypatch.setattr(_threads, "limit", lambda: 2)
    parallel = _fit_predict(make, X, y, test)
    on_two = {body for body, threads in calls if threads == 2}
    assert bodies <= on_two, bodies - on_two
    _assert_identical(serial, parallel)


def test_a_large_enough_table_is_counted_and_scored_on_two_threads(monkeypatch):
    """No lowered threshold: 8,000 rows × 24 attributes is work enough for two threads."""
    with threadpoolctl.threadpool_limits(limits=1):
        assert _threads.plan(1e12) == 1
    # a Dask LocalCluster started earlier in this process (its nannies run here) left
    # OMP_NUM_THREADS=1 in os.environ (distributed.nanny.pre-spawn-environ)
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    if _threads.limit() < 2:
        pytest.skip("the CPUs or thread limits of this process allow one thread only")
    X, y, test = _problem(8000, 24, seed=1)
    calls = _record(monkeypatch)
    with threadpoolctl.threadpool_limits(limits=1):
        serial = _fit_predict(AODE, X, y, test)
    assert all(threads == 1 for _, threads in calls)
    calls.clear()
    parallel = _fit_predict(AODE, X, y, test)
    on_two = {body for body, threads in calls if threads >= 2}
    assert {COUNT_PAIRS, "_Averaged._score_rows.<locals>.aode"} <= on_two
    _assert_identical(serial, parallel)


def test_no_semi_naive_kernel_is_compiled_parallel():
    """Threads come from :mod:`nbayes._threads` only: no kernel uses Numba's prange."""
    dispatchers = [
        value
        for value in vars(_kernels).values()
        if isinstance(value, numba.core.registry.CPUDispatcher)
    ]
    assert len(dispatchers) > 10
    assert not [d.py_func.__name__ for d in dispatchers if d.targetoptions.get("parallel")]
