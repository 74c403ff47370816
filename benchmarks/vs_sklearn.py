"""nbayes against scikit-learn's naive Bayes on the same generated data, with a roofline.

Every workload runs in three configurations, each in ``--runs`` fresh processes (5 by default):

* **1 thread**: ``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS``, ``MKL_NUM_THREADS`` and
  ``NUMBA_NUM_THREADS`` set to 1 for both libraries;
* **all threads**: nothing limited;
* **all threads + busy core**: the same while a second process keeps one core busy (a "noisy
  neighbour": another job on a shared machine, a sibling worker of ``GridSearchCV(n_jobs=2)``).

A process times scikit-learn and nbayes on the same data (nbayes once warmed, so compiling its
kernels or loading them from the cache is not timed; scikit-learn has nothing to warm), then the
workload's **limit**: the machine's own rate for the work nbayes cannot avoid, measured there
and then with the same threads, each time of an equal amount of work:

* *gather*: one read of a random row of K floats per (row, feature) — or per stored entry of a
  sparse row — from a table of the workload's size (Numba loop, the same threads);
* *scatter*: one increment of a random entry of a counts table of the workload's size per
  (row, feature) or stored entry (fitting counts);
* *GEMM*: NumPy's matrix product of the workload's shape (the Gaussian log-likelihood);
* *stream*: reading the input once at the measured memory bandwidth (Gaussian fitting).

"limit" is the limit's time over nbayes' time (1.00 = as fast as the machine's plain rate for
that work; above 1 means nbayes' blocking beats a plain random gather). The table shows the
median and the worst of the runs; the header records the CPU, caches, threads and load average.

    python benchmarks/vs_sklearn.py                      # all workloads, 3 × 5 processes each
    python benchmarks/vs_sklearn.py --quick              # small sizes, 1 process each (smoke)
    python benchmarks/vs_sklearn.py --only Categorical   # workloads whose name contains this
    python benchmarks/vs_sklearn.py --write              # also record the table in README.md
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _report

CONFIGS = {
    "1 thread": {"threads": 1, "busy": False},
    "all threads": {"threads": None, "busy": False},
    "all + busy core": {"threads": None, "busy": True},
}
THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMBA_NUM_THREADS",
)


# ---------------------------------------------------------------------- workloads
@dataclass
class Workload:
    name: str
    target: float
    sklearn_call: Callable[[], object]
    nbayes_call: Callable[[], object]
    warm: Callable[[], object]
    limit: tuple  # (kind, *arguments) for limit_seconds


def sparse_counts(n: int, v: int, nnz_row: int, rng: np.random.Generator):
    """A CSR matrix of word counts, about ``nnz_row`` distinct columns per row: 60% of the
    tokens from a Zipf head (repeated words), 40% spread over the vocabulary."""
    import scipy.sparse as sp

    draws = int(nnz_row * 1.33)
    m = n * draws
    columns = np.where(rng.random(m) < 0.6, (rng.zipf(1.2, m) - 1) % v, rng.integers(0, v, m))
    rows = np.repeat(np.arange(n), draws)
    X = sp.csr_matrix((np.ones(m), (rows, columns)), shape=(n, v))
    X.sum_duplicates()
    return X


def gaussian(n: int, d: int, k: int, *, fit: bool) -> dict[str, Callable[[], list[Workload]]]:
    def build(which: str) -> Workload:
        import sklearn.naive_bayes as skl

        import nbayes

        rng = np.random.default_rng(0)
        y = rng.integers(0, k, n)
        X = rng.normal(size=(n, d)) + rng.normal(scale=2.0, size=(k, d))[y]
        if which == "fit":
            return Workload(
                "",
                2.0,
                lambda: skl.GaussianNB().fit(X, y),
                lambda: nbayes.GaussianNB().fit(X, y),
                lambda: nbayes.GaussianNB().fit(X[:100], y[:100]),
                ("stream", 2 * X.nbytes),
            )
        theirs = skl.GaussianNB().fit(X, y)
        ours = nbayes.GaussianNB().fit(X, y)
        return Workload(
            "",
            10.0,
            lambda: theirs.predict_proba(X),
            lambda: ours.predict_proba(X),
            lambda: ours.predict_proba(X[:100]),
            ("gemm", n, 2 * d + 1, k),
        )

    shape = f"n={n:,}, d={d}, K={k}"
    out = {}
    if fit:
        out[f"Gaussian fit ({shape})"] = lambda: build("fit")
    out[f"Gaussian predict_proba ({shape})"] = lambda: build("predict")
    return out


def categorical(n: int, d: int, levels: int, k: int, label: str = "") -> dict:
    def build(which: str) -> Workload:
        import sklearn.naive_bayes as skl

        import nbayes

        rng = np.random.default_rng(1)
        y = rng.integers(0, k, n)
        X = rng.integers(0, levels, (n, d), dtype=np.uint8)
        if which == "fit":
            return Workload(
                "",
                5.0,
                lambda: skl.CategoricalNB().fit(X, y),
                lambda: nbayes.CategoricalNB().fit(X, y),
                lambda: nbayes.CategoricalNB().fit(X[:100], y[:100]),
                ("scatter", n * d, k * d * levels),
            )
        theirs = skl.CategoricalNB().fit(X, y)
        ours = nbayes.CategoricalNB().fit(X, y)
        return Workload(
            "",
            3.0,
            lambda: theirs.predict_proba(X),
            lambda: ours.predict_proba(X),
            lambda: ours.predict_proba(X[:100]),
            ("gather", n * d, d * levels, k),
        )

    shape = f"{label}n={n:,}, d={d}, {levels} levels, K={k}, uint8"
    return {
        f"Categorical fit ({shape})": lambda: build("fit"),
        f"Categorical predict_proba ({shape})": lambda: build("predict"),
    }


def text_models(n: int, v: int, nnz_row: int, k: int, *, fit: bool, method: str) -> dict:
    def build(model: str, which: str) -> Workload:
        import sklearn.naive_bayes as skl

        import nbayes

        rng = np.random.default_rng(2)
        X = sparse_counts(n, v, nnz_row, rng)
        y = rng.integers(0, k, n)
        theirs_cls, ours_cls = getattr(skl, model), getattr(nbayes, model)
        if which == "fit":
            return Workload(
                "",
                1.5,
                lambda: theirs_cls().fit(X, y),
                lambda: ours_cls().fit(X, y),
                lambda: ours_cls().fit(X[:100], y[:100]),
                ("scatter", X.nnz, k * v),
            )
        theirs, ours = theirs_cls().fit(X, y), ours_cls().fit(X, y)
        return Workload(
            "",
            1.5,
            lambda: getattr(theirs, method)(X),
            lambda: getattr(ours, method)(X),
            lambda: getattr(ours, method)(X[:100]),
            ("gather", X.nnz, v, k),
        )

    shape = f"CSR n={n:,}, V={v:,}, ~{nnz_row} nnz/row, K={k}"
    out = {}
    for model in ("MultinomialNB", "ComplementNB") if fit else ("MultinomialNB",):
        if fit:
            out[f"{model} fit ({shape})"] = lambda m=model: build(m, "fit")
        out[f"{model} {method} ({shape})"] = lambda m=model: build(m, "predict")
    return out


def partial_fit_stream(n: int, v: int, nnz_row: int, k: int, chunk: int) -> dict:
    def build() -> Workload:
        import sklearn.naive_bayes as skl

        import nbayes

        rng = np.random.default_rng(3)
        X = sparse_counts(n, v, nnz_row, rng)
        y = rng.integers(0, k, n)
        classes = np.arange(k)

        def run(model: object) -> object:
            for start in range(0, n, chunk):
                model.partial_fit(
                    X[start : start + chunk], y[start : start + chunk], classes=classes
                )
            return model

        return Workload(
            "",
            5.0,
            lambda: run(skl.MultinomialNB()),
            lambda: run(nbayes.MultinomialNB()),
            lambda: nbayes.MultinomialNB().partial_fit(X[:100], y[:100], classes=classes),
            ("scatter", X.nnz, k * v),
        )

    shape = f"CSR n={n:,} in chunks of {chunk:,}, V=2^{int(np.log2(v))}, K={k}"
    return {f"MultinomialNB partial_fit ({shape})": build}


def workloads(quick: bool) -> dict[str, Callable[[], Workload]]:
    s = 10 if quick else 1
    table: dict = {}
    table.update(gaussian(200_000 // s, 50, 100, fit=True))
    table.update(gaussian(200_000 // s, 40, 80, fit=False))
    table.update(categorical(60_000 // s, 784, 256, 10, "MNIST-shaped, "))
    table.update(categorical(1_000_000 // s, 20, 10, 5))
    table.update(categorical(25_000 // s, 600, 200, 10))
    table.update(text_models(100_000 // s, 200_000, 150, 20, fit=True, method="predict"))
    table.update(text_models(40_000 // s, 120_000, 150, 15, fit=False, method="predict_proba"))
    table.update(partial_fit_stream(100_000 // s, 2**20, 150, 20, 10_000 // s))
    return table


# ---------------------------------------------------------------------- the machine's limits
def _limit_kernels():
    import numba

    @numba.njit(nogil=True)
    def gather(table, rows, start, stop):  # pragma: no cover - compiled
        K = table.shape[1]
        acc = np.zeros(K)
        for i in range(start, stop):
            r = rows[i]
            for k in range(K):
                acc[k] += table[r, k]
        return acc.sum()

    @numba.njit(nogil=True)
    def scatter(counts, rows, start, stop):  # pragma: no cover - compiled
        for i in range(start, stop):
            counts[rows[i]] += 1.0

    @numba.njit(nogil=True)
    def stream(a, start, stop):  # pragma: no cover - compiled
        total = 0.0
        for i in range(start, stop):
            total += a[i]
        return total

    return gather, scatter, stream


def limit_seconds(kind: str, *args: int) -> float:
    """Seconds the machine needs for the workload's unavoidable work (see the docstring)."""
    from nbayes import _threads

    gather, scatter, stream = _limit_kernels()
    threads = _threads.limit()
    rng = np.random.default_rng(9)
    if kind == "gemm":
        n, inner, k = args
        a, b = rng.random((min(n, 50_000), inner)), rng.random((inner, k))
        a @ b
        start = time.perf_counter()
        a @ b
        return (time.perf_counter() - start) * n / a.shape[0]
    if kind == "stream":
        (n_bytes,) = args
        a = rng.random(max(1, n_bytes // 8 // 2))  # half the bytes, twice
        job = _threads.blocks(a.shape[0], threads)
        _threads.run(lambda i, j: stream(a, i, j), job, threads)
        start = time.perf_counter()
        _threads.run(lambda i, j: stream(a, i, j), job, threads)
        return (time.perf_counter() - start) * 2
    count = min(args[0], 20_000_000)
    if kind == "gather":
        _, rows, k = args
        table = rng.random((rows, k))
        picks = rng.integers(0, rows, count)
        job = _threads.blocks(count, threads)
        _threads.run(lambda i, j: gather(table, picks, i, j), job, threads)  # compile
        start = time.perf_counter()
        _threads.run(lambda i, j: gather(table, picks, i, j), job, threads)
    else:
        _, size = args
        counts = np.zeros(size)
        picks = rng.integers(0, size, count)
        job = [(0, count)]  # one writer: fitting counts is a serial pass
        scatter(counts, picks, 0, 1)
        start = time.perf_counter()
        _threads.run(lambda i, j: scatter(counts, picks, i, j), job, 1)
    return (time.perf_counter() - start) * args[0] / count


def machine_description() -> str:
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    caches = []
    for index in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
        try:
            level = (index / "level").read_text().strip()
            kind = (index / "type").read_text().strip()
            size = (index / "size").read_text().strip()
        except OSError:
            continue
        if kind != "Instruction":
            caches.append(f"L{level} {size}")
    return f"{model}, {os.cpu_count()} cores, caches per core: {', '.join(caches) or 'unknown'}"


# ---------------------------------------------------------------------- one process
def worker(name: str, quick: bool, memory: bool) -> None:
    from nbayes import _threads

    load = os.getloadavg()[0]
    w = workloads(quick)[name]()
    w.warm()
    gc.collect()
    start = time.perf_counter()
    w.sklearn_call()
    t_sk = time.perf_counter() - start
    gc.collect()
    start = time.perf_counter()
    w.nbayes_call()
    t_nb = time.perf_counter() - start
    limit = limit_seconds(*w.limit)
    result = {
        "sklearn": t_sk,
        "nbayes": t_nb,
        "limit": limit,
        "limit_kind": w.limit[0],
        "target": w.target,
        "threads": _threads.limit(),
        "load": load,
    }
    if memory:
        for key, call in (("mem_sklearn", w.sklearn_call), ("mem_nbayes", w.nbayes_call)):
            gc.collect()
            tracemalloc.start()
            call()
            result[key] = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
    print(json.dumps(result))


#: The noisy neighbour: one core kept busy until this script ends, however it ends (a killed
#: parent leaves the loop an orphan, whose parent then changes).
BUSY_LOOP = """
import os
parent = os.getppid()
while os.getppid() == parent:
    for _ in range(1_000_000):
        pass
"""


def run_config(name: str, config: dict, runs: int, quick: bool, memory: bool) -> list[dict]:
    env = dict(os.environ)
    for variable in THREAD_VARIABLES:
        env.pop(variable, None)
        if config["threads"]:
            env[variable] = str(config["threads"])
    busy = None
    if config["busy"]:
        busy = subprocess.Popen([sys.executable, "-c", BUSY_LOOP])
    try:
        results = []
        for r in range(runs):
            command = [sys.executable, __file__, "--worker", name]
            command += ["--quick"] * quick + ["--memory"] * (memory and r == 0)
            out = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
            if out.returncode != 0:
                raise RuntimeError(f"{name}: worker failed\n{out.stderr}")
            results.append(json.loads(out.stdout.strip().splitlines()[-1]))
        return results
    finally:
        if busy is not None:
            busy.kill()
            busy.wait()


def median_worst(values: list[float], *, worst=max) -> str:
    return f"{statistics.median(values):.3f} ({worst(values):.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, 1 process each")
    parser.add_argument("--runs", type=int, default=None, help="fresh processes per row (5)")
    parser.add_argument("--only", default="", help="workloads whose name contains this")
    parser.add_argument(
        "--configs", default=",".join(CONFIGS), help=f"comma-separated, of {list(CONFIGS)}"
    )
    parser.add_argument("--write", action="store_true", help="record the table in README.md")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--memory", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.quick, args.memory)
        return
    runs = args.runs or (1 if args.quick else 5)
    chosen = [c.strip() for c in args.configs.split(",") if c.strip()]
    names = [n for n in workloads(args.quick) if args.only in n]
    load_start = os.getloadavg()
    header = [
        "workload",
        "threads",
        "scikit-learn s",
        "nbayes s",
        "speed-up",
        "target",
        "limit (kind)",
        "peak mem sklearn / nbayes",
    ]
    rows, missed = [], []
    for name in names:
        for config in chosen:
            results = run_config(name, CONFIGS[config], runs, args.quick, config == "all threads")
            ratios = [r["sklearn"] / r["nbayes"] for r in results]
            fractions = [r["limit"] / r["nbayes"] for r in results]
            target = results[0]["target"]
            met = min(ratios) >= target
            if not met:
                missed.append(f"{name}, {config}")
            memory = next((r for r in results if "mem_nbayes" in r), None)
            row = [
                name,
                f"{config} ({results[0]['threads']})",
                median_worst([r["sklearn"] for r in results]),
                median_worst([r["nbayes"] for r in results]),
                f"{statistics.median(ratios):.1f}× ({min(ratios):.1f}×)",
                f"≥ {target:g}× ({'met' if met else 'NOT met'})",
                f"{statistics.median(fractions):.2f} ({min(fractions):.2f}) "
                f"{results[0]['limit_kind']}",
                (
                    f"{_report.mib(memory['mem_sklearn'])} / {_report.mib(memory['mem_nbayes'])}"
                    if memory
                    else ""
                ),
            ]
            rows.append(row)
            print(" | ".join(row), flush=True)
    load_end = os.getloadavg()
    import sklearn

    import nbayes

    note = (
        f"Command: `python benchmarks/vs_sklearn.py{' --quick' if args.quick else ''}` — "
        f"{machine_description()}; {_report.machine()}, scikit-learn {sklearn.__version__}, "
        f"nbayes {nbayes.__version__}. Load average (1, 5, 15 min) "
        f"{', '.join(f'{x:.1f}' for x in load_start)} at the start and "
        f"{', '.join(f'{x:.1f}' for x in load_end)} at the end. Each row: {runs} fresh "
        "processes; times in seconds as median (worst); speed-up = scikit-learn / nbayes per "
        'process, median (worst); "threads" is the configuration and, in brackets, the '
        'threads nbayes may use there; "limit" is the machine\'s own time for the work '
        "nbayes cannot avoid over nbayes' time, median (worst), see the script's docstring. "
        "Targets apply to the worst run. Peak memory (tracemalloc) from the first all-threads "
        "run."
    )
    table = _report.markdown_table(header, rows)
    print()
    print(note)
    print()
    print(table)
    if missed:
        print("\nTargets not met:", "; ".join(missed))
    if args.write and not args.quick and not args.only:
        _report.write_section("vs_sklearn", note + "\n\n" + table)


if __name__ == "__main__":
    main()
