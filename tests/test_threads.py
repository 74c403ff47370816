"""The number of threads nbayes' kernels choose (not their speed): limits from the environment,
Numba, threadpoolctl and the caller's own parallelism, and no thread for small work."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np
import pytest
import scipy.sparse as sp
import threadpoolctl

import nbayes
from nbayes import _kernels, _threads

BIG = 1e12  # work large enough that only limits, never the size, decide


def test_small_work_runs_on_one_thread():
    assert _threads.plan(0) == 1
    assert _threads.plan(_threads.WORK_PER_THREAD) == 1
    assert _threads.plan(2 * _threads.WORK_PER_THREAD - 1) == 1


def test_threads_grow_with_work_up_to_the_limit():
    limit = _threads.limit()
    assert _threads.plan(BIG) == limit
    assert _threads.plan(3 * _threads.WORK_PER_THREAD) == min(limit, 3)


def test_limit_never_exceeds_the_cpus_this_process_may_use():
    assert 1 <= _threads.limit() <= len(os.sched_getaffinity(0))


@pytest.mark.parametrize("value, expected", [("1", 1), ("1,4", 1), ("", None), ("x", None)])
def test_omp_num_threads_is_a_limit(monkeypatch, value, expected):
    monkeypatch.setenv("OMP_NUM_THREADS", value)
    if expected is None:
        assert _threads._env_threads("OMP_NUM_THREADS") is None
    else:
        assert _threads.limit() == expected
        assert _threads.plan(BIG) == expected


def test_threadpoolctl_limits_are_followed():
    before = _threads.plan(BIG)
    with threadpoolctl.threadpool_limits(limits=1):
        assert _threads.limit() == 1
        assert _threads.plan(BIG) == 1
    assert _threads.plan(BIG) == before


def test_threadpoolctl_blas_only_limit_is_followed():
    with threadpoolctl.threadpool_limits(limits=1, user_api="blas"):
        assert _threads.plan(BIG) == 1


def test_numba_set_num_threads_is_followed():
    numba.get_num_threads()  # start Numba's pool, as a caller of set_num_threads would have
    previous = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        assert _threads.plan(BIG) == 1
    finally:
        numba.set_num_threads(previous)


def test_numba_num_threads_from_the_environment():
    code = "from nbayes import _threads; print(_threads.limit(), _threads.plan(1e12))"
    env = {**os.environ, "NUMBA_NUM_THREADS": "1"}
    env.pop("OMP_NUM_THREADS", None)
    result = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == ["1", "1"]


def test_a_call_inside_a_running_parallel_kernel_stays_serial():
    """The caller is parallel already (threads running nbayes kernels): no second split."""
    seen = []

    def body(start: int, stop: int) -> None:
        seen.append(_threads.plan(BIG))

    _threads.run(body, [(0, 1), (1, 2), (2, 3), (3, 4)], 2)
    assert seen == [1, 1, 1, 1]
    assert _threads.plan(BIG) == _threads.limit()  # and the count is released afterwards


def test_a_second_thread_plans_serial_while_another_runs_in_parallel():
    """Two threads predicting at once (joblib's threading backend, Dask's threaded workers):
    while one runs a kernel on several threads, the other plans one thread."""
    inside = threading.Event()
    release = threading.Event()

    def body(start: int, stop: int) -> None:
        inside.set()
        release.wait(10)

    with ThreadPoolExecutor(1) as caller:
        running = caller.submit(_threads.run, body, [(0, 1), (1, 2)], 2)
        assert inside.wait(10)
        try:
            assert _threads.plan(BIG) == 1
        finally:
            release.set()
        running.result()
    assert _threads.plan(BIG) == _threads.limit()


def test_blocks_cover_the_range_in_order():
    for n in (0, 1, 7, 1000):
        for threads in (1, 2, 8):
            parts = _threads.blocks(n, threads, minimum=3)
            assert [p for part in parts for p in range(*part)] == list(range(n))
            if threads == 1:
                assert len(parts) <= 1
            assert len(parts) <= max(1, _threads.BLOCKS_PER_THREAD * threads)


def test_run_returns_results_in_order_and_uses_at_most_the_threads_asked():
    names = set()

    def body(start: int, stop: int) -> int:
        names.add(threading.current_thread().name)
        return start

    parts = [(i, i + 1) for i in range(50)]
    assert _threads.run(body, parts, 2) == list(range(50))
    assert len(names) <= 2


def test_run_raises_a_helpers_error_after_every_helper_finished():
    done = []

    def body(start: int, stop: int) -> None:
        if start == 3:
            raise ValueError("part 3")
        done.append(start)

    with pytest.raises(ValueError, match="part 3"):
        _threads.run(body, [(i, i + 1) for i in range(8)], 2)
    assert sorted(done) == [i for i in range(8) if i != 3]


def _forced(monkeypatch, threads: int) -> list[int]:
    """Make every kernel plan ``threads`` threads; returns the list of counts it ran with."""
    used: list[int] = []
    real_run = _threads.run

    def run(body, parts, count):
        used.append(min(count, len(parts)))
        return real_run(body, parts, count)

    monkeypatch.setattr(_threads, "plan", lambda work: threads)
    monkeypatch.setattr(_threads, "run", run)
    return used


def test_kernels_give_the_same_numbers_on_any_number_of_threads(monkeypatch):
    rng = np.random.default_rng(1)
    n, d, levels, k = 3000, 40, 50, 7  # a table larger than the L1 size: the blocked gather
    X = rng.integers(0, levels + 2, (n, d)).astype(np.float64)  # codes ≥ levels are unseen
    X[rng.random((n, d)) < 0.05] = np.nan
    offsets = np.arange(d + 1, dtype=np.int64) * levels
    sizes = np.full(d, levels, dtype=np.int64)
    table = np.log(rng.random((d * levels, k)))
    unknown = np.log(rng.random((d, k)))
    csr = sp.random(n, 500, density=0.05, format="csr", random_state=2)
    wide = np.log(rng.random((500, k)))
    lp = np.log(rng.dirichlet(np.ones(k)))
    gaussian = nbayes.GaussianNB().fit(rng.normal(size=(200, d)), rng.integers(0, k, 200))
    measured = rng.normal(size=(n, d))
    measured[rng.random((n, d)) < 0.05] = np.nan

    def compute() -> list:
        gathered = np.zeros((n, k))
        unseen = _kernels.gather_codes(X, offsets, sizes, table, unknown, 1, gathered)
        product = np.zeros((n, k))
        _kernels.csr_times_table(csr.indptr, csr.indices, csr.data, wide, product)
        posterior = np.empty((n, k))
        _kernels.normalize_rows(gathered, lp, False, posterior)
        densities = gaussian._stats.log_likelihood(measured, gaussian.var_smoothing)
        return [gathered, unseen, product, posterior, densities]

    serial = compute()
    used = _forced(monkeypatch, 2)
    parallel = compute()
    assert used and max(used) == 2
    for a, b in zip(serial, parallel, strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_batchs_column_statistics_are_the_same_on_any_number_of_threads(monkeypatch):
    """The "auto" family adds a batch's moments and each column's value sketch as tasks that
    threads share: the same sketches (keys, grids, sums), moments and missing weights, bit for
    bit, on one thread or two, for a first batch (sorted) and a second (counted on the grid),
    and for a wide batch of few rows (columns summarised a block at a time)."""
    from nbayes.families.auto import AutoStatistics
    from nbayes.families.sketch import EXACT

    rng = np.random.default_rng(4)

    def batches(n, d):
        out = []
        for _ in range(2):
            X = np.round(rng.normal(size=(n, d)) * 3, 4)
            X[:, ::3] = rng.integers(0, 6, (n, (d + 2) // 3))  # whole numbers: exact keys
            X[rng.random((n, d)) < 0.03] = np.nan
            out.append((X, rng.integers(0, 4, n).astype(np.intp), rng.random(n) + 0.5))
        return out

    def fit(data, d, threads):
        if threads > 1:
            used = _forced(monkeypatch, threads)
        stats = AutoStatistics(4, d, max_bins=256)
        for X, cls, weight in data:
            stats.accumulate(X, cls, weight)
        if threads > 1:
            assert used and max(used) == threads
            monkeypatch.undo()
        return stats

    for n, d in ((6000, 7), (300, 40)):  # narrow: a column a task; wide: blocks of columns
        data = batches(n, d)
        serial, parallel = fit(data, d, 1), fit(data, d, 2)
        for name in ("weight", "mean", "m2", "pooled_count", "pooled_mean", "pooled_m2"):
            np.testing.assert_array_equal(
                getattr(serial.moments, name), getattr(parallel.moments, name)
            )
        np.testing.assert_array_equal(serial.missing, parallel.missing)
        for a, b in zip(serial.sketches.features, parallel.sketches.features, strict=True):
            assert (a.level, a.minimum, a.maximum) == (b.level, b.minimum, b.maximum)
            for name in ("keys", "weight", "total"):
                np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
        assert any(f.level != EXACT for f in serial.sketches.features)  # grids were used


def test_fork_child_starts_its_own_threads():
    """After fork the child has none of the parent's helper threads; a parallel run must not
    wait for them."""
    if not hasattr(os, "fork"):
        pytest.skip("no fork on this platform")
    _threads.run(lambda a, b: None, [(0, 1), (1, 2)], 2)  # the parent's pool exists
    code = (
        "import os, sys\n"
        "from nbayes import _threads\n"
        "_threads.run(lambda a, b: None, [(0, 1), (1, 2)], 2)\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    r = _threads.run(lambda a, b: a, [(0, 1), (1, 2), (2, 3)], 2)\n"
        "    os._exit(0 if r == [0, 1, 2] else 3)\n"
        "_, status = os.waitpid(pid, 0)\n"
        "sys.exit(os.waitstatus_to_exitcode(status))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], timeout=60)
    assert result.returncode == 0
