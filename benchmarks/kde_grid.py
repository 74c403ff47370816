"""What reading kernel terms from a grid's tables saves: ``NaiveBayes(calibration=None)`` (whose
family choice scores a kernel density for every numeric column) and ``continuous="kde"``, fit and
prediction with the tables (values on a grid: integers, decimals) and with every term's
exponential computed (the direct sum, the tables switched off), each in a fresh process, the
two interleaved, ``--runs`` processes each (median and worst), and the largest difference
between their probabilities.

Tables: UCI spambase (4,601 rows × 57 columns of decimals, ten folds' worth: fit on 90 %,
predict 10 %) and MNIST's test set pooled 2 × 2 (10,000 images × 196 columns of quarter
steps: fit on 8,000, predict 2,000), both from ../shared/data (or ``--data``); and a synthetic
table of 20,000 rows × 20 columns of measurements to one decimal place, 3 classes.

    python benchmarks/kde_grid.py            # print
    python benchmarks/kde_grid.py --write    # and record it in benchmarks/README.md
"""

from __future__ import annotations

import functools
import itertools
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _report

ROOT = Path(__file__).resolve().parents[1]
#: The models timed: the default (kernel densities among the candidates) and kernels alone.
CONTINUOUS = ("auto", "kde")

#: One timed fit and prediction in a fresh process: prints seconds and the probabilities' file.
RUN = """
import gzip, sys, time, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, {benchmarks!r})
from pathlib import Path
import numpy as np, polars as pl, nbayes
from nbayes.families import kde
if {table!r} == "spambase":
    import uci
    X, y = uci.spambase(data=Path({data!r}))
    order = np.random.default_rng(0).permutation(X.height)
    train, test = order[: X.height * 9 // 10], order[X.height * 9 // 10 :]
elif {table!r} == "mnist":
    mnist = Path({data!r}) / "mnist"
    images = np.frombuffer(
        gzip.open(mnist / "t10k-images-idx3-ubyte.gz").read()[16:], np.uint8
    ).reshape(-1, 14, 2, 14, 2)
    X = pl.DataFrame(images.astype(float).mean(axis=(2, 4)).reshape(-1, 196),
                     schema=[f"p{{i}}" for i in range(196)])
    y = np.frombuffer(gzip.open(mnist / "t10k-labels-idx1-ubyte.gz").read()[8:], np.uint8)
    train, test = np.arange(8000), np.arange(8000, 10000)
else:
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 20_000)
    means = {{f"x{{j}}": 50 + 2 * y * (j % 2) for j in range(20)}}
    X = pl.DataFrame({{name: rng.normal(mean, 10).round(1) for name, mean in means.items()}})
    train, test = np.arange(16_000), np.arange(16_000, 20_000)
if not {grid!r}:  # the direct sum: no density finds a grid
    kde._grid = lambda centres, offsets, bandwidth: (
        0.0, np.zeros(centres.shape[0], np.int64), np.zeros(1), np.zeros(offsets.shape[0], np.int64)
    )
model = lambda: nbayes.NaiveBayes(continuous={continuous!r}, calibration=None)
model().fit(X[train[:500]], y[train[:500]]).predict_proba(X[test[:5]])  # kernels loaded
start = time.perf_counter()
proba = model().fit(X[train], y[train]).predict_proba(X[test])
seconds = time.perf_counter() - start
np.save({out!r}, proba)
print(seconds)
"""


def probabilities(folder: Path, table: str, continuous: str, grid: bool) -> Path:
    """Where a run leaves its predicted probabilities."""
    return folder / f"{table}-{continuous}-{grid}.npy"


def timed(table: str, continuous: str, data: Path, folder: Path, grid: bool) -> float:
    code = RUN.format(
        benchmarks=str(ROOT / "benchmarks"), table=table, data=str(data), grid=grid,
        out=str(probabilities(folder, table, continuous, grid)), continuous=continuous,
    )  # fmt: skip
    return float(_report.fresh_run(code))


def main() -> None:
    import tempfile

    import numpy as np

    args = _report.data_parser(__doc__, runs=3, runs_help="fresh processes per figure").parse_args()
    tables = {}
    if (args.data / "spambase" / "spambase.data").exists():
        tables["UCI spambase, 4,141 → 460 rows × 57 columns"] = "spambase"
    if (args.data / "mnist").is_dir():
        tables["MNIST pooled 2 × 2, 8,000 → 2,000 rows × 196 columns"] = "mnist"
    tables["synthetic measurements, 16,000 → 4,000 rows × 20 columns"] = "measurements"
    load = os.getloadavg()[0]
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for (label, table), continuous in itertools.product(tables.items(), CONTINUOUS):
            run = functools.partial(timed, table, continuous, args.data, Path(folder))
            times = _report.interleaved(args.runs, (False, True), run)
            ratios = [d / g for d, g in zip(times[False], times[True], strict=True)]
            tabled, direct = (
                np.load(probabilities(Path(folder), table, continuous, grid))
                for grid in (True, False)
            )
            difference = np.abs(tabled - direct).max()
            rows.append(
                [
                    label,
                    f'`continuous="{continuous}"`',
                    *(_report.median_worst(v) for v in times.values()),
                    _report.median_worst(ratios, "×", worst=min),
                    f"{difference:.1e}",
                ]
            )
            print(" | ".join(rows[-1]), flush=True)
    header = [
        "table",
        "model",
        "direct sums: fit + predict, median (worst)",
        "grid tables: fit + predict, median (worst)",
        "speed-up, median (worst pair)",
        "largest Δ probability",
    ]
    body = (
        "Command: `python benchmarks/kde_grid.py --write` — "
        f"{_report.machine()}; `NaiveBayes(calibration=None)` (its default "
        '`continuous="auto"`: each numeric column\'s family chosen by leave-one-out scores, '
        'kernel densities among the candidates) and `continuous="kde"`, each fit and '
        f"prediction in a fresh process, {args.runs} per figure, the two interleaved; 1-minute "
        f"load average {load:.1f} at the start and {os.getloadavg()[0]:.1f} at the end. Direct "
        "sums: an exponential per kernel term; grid tables: the terms of values on a grid read "
        "from per-class tables by distance in steps (nbayes.families.kde).\n\n"
        + _report.markdown_table(header, rows)
    )
    _report.publish("kde-grid", body, args.write)


if __name__ == "__main__":
    main()
