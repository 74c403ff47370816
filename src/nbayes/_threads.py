"""How many threads nbayes' compiled kernels may use, and running a kernel on them.

A kernel call is split into blocks of rows (or of features) that threads take one at a time
until none is left (dynamic scheduling); independent tasks (the statistics of a batch's
columns, :func:`run_tasks`) are shared the same way. A thread slowed by another process on its
core then simply takes fewer blocks, instead of the whole call waiting for its fixed share, as
it would under a static split (Numba's ``prange``, OpenMP's default): the busy-neighbour case on
a shared machine, in ``GridSearchCV(n_jobs=2)`` or in a Dask worker.

The number of threads for one call is

    threads = min(limit(), work // WORK_PER_THREAD), at least 1

where ``work`` is the call's estimated number of inner-loop steps (for example rows × features ×
classes for a table gather), so that no thread is started for less than about half a millisecond
of work, and ``limit()`` is the smallest of

* ``NUMBA_NUM_THREADS`` (read by Numba when it is imported; by default the CPUs this process may
  run on) and, once Numba's own thread pool is running, ``numba.get_num_threads()`` (so a
  caller's ``numba.set_num_threads(n)`` counts);
* ``OMP_NUM_THREADS`` (its first entry);
* the thread limits that threadpoolctl reports for the OpenMP and BLAS libraries loaded in this
  process, when threadpoolctl has been imported (``with threadpool_limits(1): ...`` makes every
  nbayes kernel serial);
* the CPUs in this process's affinity mask and the container's CPU quota (cgroup ``cpu.max``);
* 1 while another nbayes kernel is already running on several threads in this process: the
  caller is parallel already (joblib's threading backend, Dask's threaded workers, a thread pool),
  and splitting again would only oversubscribe the cores.

Inside scikit-learn or Dask: joblib's process workers (``GridSearchCV(n_jobs=k)``, the default
"loky" backend) get ``OMP_NUM_THREADS`` and ``NUMBA_NUM_THREADS`` = cores // k, and Dask's nanny
starts workers with ``OMP_NUM_THREADS=1``; both are read here, so nbayes uses cores // k threads
(or one) per worker without anything to set. Threaded workers (joblib's "threading" backend, a
Dask worker with several threads) fall under the last rule. To pin nbayes to one thread
anywhere: ``threadpoolctl.threadpool_limits(1)`` around the calls, or ``OMP_NUM_THREADS=1`` in
the environment.
"""

from __future__ import annotations

import itertools
import math
import os
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

#: Inner-loop steps (one multiply-add over a class, one table read) below which one more thread
#: does not pay for its wake-up and the cache lines it must bring in: about half a millisecond
#: (waking a pooled thread costs tens of microseconds; a discriminative correction's pass over
#: 4,000 rows, about a millisecond of work repeated some thirty times, then takes both cores).
WORK_PER_THREAD = 1 << 19

#: Inner-loop steps one exponential or logarithm counts for in a call's ``work``.
EXP_STEPS = 8

#: Blocks per thread in a parallel call, so that a thread slowed by a busy core takes fewer.
BLOCKS_PER_THREAD = 4

_lock = threading.Lock()
_active = 0  # parallel runs in progress in this process
_pool: ThreadPoolExecutor | None = None
_pool_size = 0
_controller: object = None
_controller_modules = -1


def _reset_after_fork() -> None:
    """A forked child has none of the parent's threads: forget the pool (and its count)."""
    global _pool, _pool_size, _active, _lock, _cpus_checked
    _pool, _pool_size, _active = None, 0, 0
    _cpus_checked = (-1.0, 1)
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


def _env_threads(name: str) -> int | None:
    """A positive thread count from an environment variable ("4" or "4,2": the first entry)."""
    value = os.environ.get(name, "").split(",")[0].strip()
    try:
        count = int(value)
    except ValueError:
        return None
    return count if count >= 1 else None


def _cpu_quota() -> int | None:
    """CPUs allowed by a cgroup v2 quota (``cpu.max`` = "quota period"), rounded up."""
    try:
        with open("/sys/fs/cgroup/cpu.max") as f:
            quota, period = f.read().split()[:2]
    except (OSError, ValueError):
        return None
    if quota == "max":
        return None
    try:
        return max(1, math.ceil(int(quota) / int(period)))
    except (ValueError, ZeroDivisionError):
        return None


_cpus_checked = (-1.0, 1)  # (when, count): the affinity mask and quota, read at most once a second


def _available_cpus() -> int:
    """CPUs in this process's affinity mask, capped by the cgroup quota (re-read each second)."""
    global _cpus_checked
    now = time.monotonic()
    if now - _cpus_checked[0] < 1.0:
        return _cpus_checked[1]
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    quota = _cpu_quota()
    count = max(1, min(cpus, quota) if quota else cpus)
    _cpus_checked = (now, count)
    return count


def _numba_threads() -> int:
    """Numba's thread count: NUMBA_NUM_THREADS, or the caller's ``numba.set_num_threads``."""
    numba = sys.modules.get("numba")
    if numba is None:
        return _env_threads("NUMBA_NUM_THREADS") or _available_cpus()
    count = int(numba.config.NUMBA_NUM_THREADS)
    parallel = sys.modules.get("numba.np.ufunc.parallel")
    if parallel is not None and getattr(parallel, "_is_initialized", False):
        # the pool is running, so a caller may have masked threads; reading it starts nothing
        count = min(count, int(numba.get_num_threads()))
    return count


def _threadpoolctl_limit() -> int | None:
    """The lowest thread limit threadpoolctl sees on a loaded OpenMP or BLAS library.

    Only when threadpoolctl has been imported (nobody can have set a limit through it
    otherwise). The library list is read once and again only when modules were imported since.
    """
    global _controller, _controller_modules
    threadpoolctl = sys.modules.get("threadpoolctl")
    if threadpoolctl is None:
        return None
    if _controller is None or _controller_modules != len(sys.modules):
        try:
            _controller = threadpoolctl.ThreadpoolController()
        except Exception:  # a broken library scan must never stop a prediction
            return None
        _controller_modules = len(sys.modules)
    counts = []
    for library in getattr(_controller, "lib_controllers", []):
        if library.user_api in ("openmp", "blas"):
            try:
                counts.append(int(library.num_threads))
            except Exception:
                continue
    counts = [c for c in counts if c >= 1]
    return min(counts) if counts else None


def limit() -> int:
    """The most threads a kernel may use now (see the module's docstring for the rules)."""
    counts = [_numba_threads(), _available_cpus()]
    omp = _env_threads("OMP_NUM_THREADS")
    if omp is not None:
        counts.append(omp)
    pool_limit = _threadpoolctl_limit()
    if pool_limit is not None:
        counts.append(pool_limit)
    return max(1, min(counts))


def plan(work: float) -> int:
    """Threads for a call of ``work`` inner-loop steps: 1 when the work is too small to share,
    when another nbayes kernel is running on several threads, or when a limit says so."""
    if work < 2 * WORK_PER_THREAD or _active:
        return 1
    return max(1, min(limit(), int(work // WORK_PER_THREAD)))


def blocks(n: int, threads: int, *, minimum: int = 1) -> list[tuple[int, int]]:
    """Split range(n) into about ``BLOCKS_PER_THREAD × threads`` contiguous blocks, each of at
    least ``minimum`` items (one block when ``threads`` is 1)."""
    if n <= 0:
        return []
    count = 1 if threads <= 1 else max(1, min(n // max(1, minimum), BLOCKS_PER_THREAD * threads))
    edges = [n * b // count for b in range(count + 1)]
    return [(edges[b], edges[b + 1]) for b in range(count) if edges[b + 1] > edges[b]]


def run(body: Callable[[int, int], object], parts: list[tuple[int, int]], threads: int) -> list:
    """Call ``body(start, stop)`` for every part, on ``threads`` threads (this one included),
    each taking the next part as it finishes; returns the results in the order of ``parts``.

    ``body`` should release the GIL (a ``nogil`` Numba kernel) for the threads to run at once.
    """
    threads = min(threads, len(parts))
    if threads <= 1:
        return [body(start, stop) for start, stop in parts]
    global _active
    results: list = [None] * len(parts)
    taken = itertools.count()
    take = threading.Lock()

    def work() -> None:
        while True:
            with take:
                b = next(taken)
            if b >= len(parts):
                return
            results[b] = body(*parts[b])

    with _lock:
        _active += 1
        pool = _get_pool(threads - 1)
    helpers = []
    try:
        helpers = [pool.submit(work) for _ in range(threads - 1)]
        work()
    finally:
        # wait for every helper even when this thread failed: they write into the caller's arrays
        errors = [h.exception() for h in helpers]
        with _lock:
            _active -= 1
    for error in errors:
        if error is not None:
            raise error
    return results


def run_tasks(tasks: list[Callable[[], object]], work: float) -> None:
    """Run independent ``tasks`` (each spending most of its time in ``nogil`` kernels) on
    ``plan(work)`` threads, each taking the next task as it finishes: the statistics of the
    columns of one batch, for example, which share nothing. The first error is raised once
    every task that started has finished."""
    parts = [(t, t + 1) for t in range(len(tasks))]
    run(lambda start, stop: [task() for task in tasks[start:stop]], parts, plan(work))


def _get_pool(size: int) -> ThreadPoolExecutor:
    """The shared helper threads (started on first use, grown when more are needed)."""
    global _pool, _pool_size
    if _pool is None or _pool_size < size:
        if _pool is not None:
            _pool.shutdown(wait=False)
        _pool = ThreadPoolExecutor(max_workers=size, thread_name_prefix="nbayes")
        _pool_size = size
    return _pool
