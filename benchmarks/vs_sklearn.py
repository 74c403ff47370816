"""nbayes against scikit-learn's naive Bayes on the same generated data, in one process.

For each workload: scikit-learn's time, nbayes' time, the ratio (how many times faster nbayes
is), and the peak memory each allocates during the call (tracemalloc, a separate run).

    python benchmarks/vs_sklearn.py            # full sizes (a few minutes on 2 cores)
    python benchmarks/vs_sklearn.py --quick    # small sizes, a smoke test
    python benchmarks/vs_sklearn.py --write    # also record the table in benchmarks/README.md
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp
import sklearn
import sklearn.naive_bayes as skl

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _report

import nbayes


@dataclass
class Workload:
    name: str
    target: float
    sklearn_call: Callable[[], object]
    nbayes_call: Callable[[], object]
    repeat: int = 3


def gaussian(n: int, d: int, k: int, rng: np.random.Generator) -> list[Workload]:
    y = rng.integers(0, k, n)
    X = rng.normal(size=(n, d)) + rng.normal(scale=2.0, size=(k, d))[y]
    theirs = skl.GaussianNB().fit(X, y)
    ours = nbayes.GaussianNB().fit(X, y)
    shape = f"n={n:,}, d={d}, K={k}"
    return [
        Workload(
            f"Gaussian fit ({shape})",
            2.0,
            lambda: skl.GaussianNB().fit(X, y),
            lambda: nbayes.GaussianNB().fit(X, y),
        ),
        Workload(
            f"Gaussian predict_proba ({shape})",
            10.0,
            lambda: theirs.predict_proba(X),
            lambda: ours.predict_proba(X),
            repeat=2,
        ),
    ]


def categorical(
    n: int, d: int, levels: int, k: int, rng: np.random.Generator, label: str
) -> list[Workload]:
    y = rng.integers(0, k, n)
    X = rng.integers(0, levels, (n, d), dtype=np.uint8)
    theirs = skl.CategoricalNB().fit(X, y)
    ours = nbayes.CategoricalNB().fit(X, y)
    shape = f"{label}n={n:,}, d={d}, {levels} levels, K={k}, uint8"
    return [
        Workload(
            f"Categorical fit ({shape})",
            5.0,
            lambda: skl.CategoricalNB().fit(X, y),
            lambda: nbayes.CategoricalNB().fit(X, y),
            repeat=2,
        ),
        Workload(
            f"Categorical predict_proba ({shape})",
            3.0,
            lambda: theirs.predict_proba(X),
            lambda: ours.predict_proba(X),
            repeat=2,
        ),
    ]


def sparse_counts(n: int, v: int, nnz_row: int, rng: np.random.Generator) -> sp.csr_matrix:
    """A CSR matrix of word counts, about ``nnz_row`` distinct columns per row: 60% of the
    tokens from a Zipf head (repeated words), 40% spread over the vocabulary."""
    draws = int(nnz_row * 1.33)
    m = n * draws
    columns = np.where(rng.random(m) < 0.6, (rng.zipf(1.2, m) - 1) % v, rng.integers(0, v, m))
    rows = np.repeat(np.arange(n), draws)
    X = sp.csr_matrix((np.ones(m), (rows, columns)), shape=(n, v))
    X.sum_duplicates()
    return X


def text_models(n: int, v: int, nnz_row: int, k: int, rng: np.random.Generator) -> list[Workload]:
    X = sparse_counts(n, v, nnz_row, rng)
    y = rng.integers(0, k, n)
    shape = f"CSR n={n:,}, V={v:,}, {X.nnz / n:.0f} nnz/row, K={k}"
    out = []
    for name in ("MultinomialNB", "ComplementNB"):
        theirs_cls, ours_cls = getattr(skl, name), getattr(nbayes, name)
        theirs, ours = theirs_cls().fit(X, y), ours_cls().fit(X, y)
        out.append(
            Workload(
                f"{name} fit ({shape})",
                1.0,
                lambda c=theirs_cls: c().fit(X, y),
                lambda c=ours_cls: c().fit(X, y),
            )
        )
        out.append(
            Workload(
                f"{name} predict ({shape})",
                1.0,
                lambda m=theirs: m.predict(X),
                lambda m=ours: m.predict(X),
            )
        )
    return out


def partial_fit_stream(
    n: int, v: int, nnz_row: int, k: int, chunk: int, rng: np.random.Generator
) -> list[Workload]:
    X = sparse_counts(n, v, nnz_row, rng)
    y = rng.integers(0, k, n)
    classes = np.arange(k)

    def run(model: object) -> object:
        for start in range(0, n, chunk):
            model.partial_fit(X[start : start + chunk], y[start : start + chunk], classes=classes)
        return model

    shape = f"CSR n={n:,} in chunks of {chunk:,}, V=2^{int(np.log2(v))}, K={k}"
    return [
        Workload(
            f"MultinomialNB partial_fit ({shape})",
            2.0,
            lambda: run(skl.MultinomialNB()),
            lambda: run(nbayes.MultinomialNB()),
            repeat=1,
        )
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (smoke test)")
    parser.add_argument(
        "--write", action="store_true", help="record the table in benchmarks/README.md"
    )
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    scale = 10 if args.quick else 1

    workloads: list[Workload] = []
    workloads += gaussian(200_000 // scale, 50, 100, rng)
    workloads += categorical(60_000 // scale, 784, 256, 10, rng, "MNIST-shaped, ")
    workloads += categorical(1_000_000 // scale, 20, 10, 5, rng, "")
    workloads += text_models(100_000 // scale, 200_000, 150, 20, rng)
    workloads += partial_fit_stream(100_000 // scale, 2**20, 150, 20, 10_000 // scale, rng)

    # warm up nbayes' compiled kernels so that compilation is not timed
    for w in workloads:
        w.nbayes_call()

    header = [
        "workload",
        "scikit-learn",
        "nbayes",
        "speed-up",
        "target",
        "peak mem sklearn",
        "peak mem nbayes",
    ]
    rows = []
    for w in workloads:
        t_sk = _report.best_time(w.sklearn_call, w.repeat)
        t_nb = _report.best_time(w.nbayes_call, w.repeat)
        m_sk = _report.peak_bytes(w.sklearn_call)
        m_nb = _report.peak_bytes(w.nbayes_call)
        ratio = t_sk / t_nb
        met = "met" if ratio >= w.target else "NOT met"
        row = [
            w.name,
            f"{t_sk:.3f} s",
            f"{t_nb:.3f} s",
            f"{ratio:.1f}×",
            f"≥ {w.target:g}× ({met})",
            _report.mib(m_sk),
            _report.mib(m_nb),
        ]
        rows.append(row)
        print(" | ".join(row), flush=True)

    table = _report.markdown_table(header, rows)
    print()
    print(table)
    if args.write and not args.quick:
        body = (
            f"Command: `python benchmarks/vs_sklearn.py --write` — {_report.machine()}, "
            f"scikit-learn {sklearn.__version__}, nbayes {nbayes.__version__}. Times are the best "
            "of 1–3 runs; peak memory is what each library allocates during the call "
            "(tracemalloc).\n\n" + table
        )
        _report.write_section("vs_sklearn", body)


if __name__ == "__main__":
    main()
