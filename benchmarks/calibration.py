"""What NaiveBayes's default calibration costs: ``NaiveBayes().fit`` and its first prediction
against ``NaiveBayes(calibration=None)``'s, on the same rows, each in a fresh process, the two
interleaved, ``--runs`` processes each (the table shows the median and the worst).

The first prediction is timed with the fit because a model derives its parameters (each
column's choices and, when it calibrates, the calibration) when a prediction first needs them;
later predictions cost the same with and without calibration (a · J + b per chunk).

Tables: UCI adult's training file (32,561 rows, 14 columns) and spambase (4,601 rows, 57
numeric columns; both need ../shared/data, or ``--data``) and a synthetic table of 1,000,000
rows (10 categorical, 4 numeric columns, 3 classes).

    python benchmarks/calibration.py            # print
    python benchmarks/calibration.py --write    # and record it in benchmarks/README.md
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _report

ROOT = Path(__file__).resolve().parents[1]

#: One timed fit, in a fresh process: prints the seconds of ``fit`` alone.
FIT = """
import sys, time, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, {benchmarks!r})
import numpy as np, polars as pl, nbayes
if {table!r} == "adult":
    import uci
    from pathlib import Path
    (X, y), _ = uci.adult(data=Path({data!r}))
elif {table!r} == "spambase":
    import uci
    from pathlib import Path
    X, y = uci.spambase(data=Path({data!r}))
else:
    rng = np.random.default_rng(0)
    n = 1_000_000
    y = rng.integers(0, 3, n)
    columns = {{
        f"c{{j}}": (rng.integers(0, 5, n) + y * (j % 3 == 0)).astype(str) for j in range(10)
    }}
    columns.update({{f"x{{j}}": rng.normal(y * 0.3, 1.0, n) for j in range(4)}})
    X = pl.DataFrame(columns)
nbayes.NaiveBayes().fit(X[:2000], y[:2000]).predict(X[:1])  # compiled kernels loaded
start = time.perf_counter()
nbayes.NaiveBayes(calibration={calibration!r}).fit(X, y).predict_proba(X[:1])
print(time.perf_counter() - start)
"""


def fit_seconds(table: str, calibration: str | None, data: Path) -> float:
    code = FIT.format(
        benchmarks=str(ROOT / "benchmarks"), table=table, data=str(data), calibration=calibration
    )
    return float(_report.fresh_run(code))


def main() -> None:
    args = _report.data_parser(__doc__, runs=3, runs_help="fresh processes per figure").parse_args()
    tables = {"1,000,000 synthetic rows × 14 columns": "synthetic"}
    if (args.data / "spambase" / "spambase.data").exists():
        tables = {"UCI spambase, 4,601 rows × 57 columns": "spambase", **tables}
    if (args.data / "adult" / "adult.data").exists():
        tables = {"UCI adult, 32,561 rows × 14 columns": "adult", **tables}
    load = os.getloadavg()[0]
    rows = []
    for label, table in tables.items():
        fit = functools.partial(fit_seconds, table, data=args.data)
        times = _report.interleaved(args.runs, (None, "auto"), fit)
        ratios = [c / t for c, t in zip(times["auto"], times[None], strict=True)]
        rows.append(
            [
                label,
                *(_report.median_worst(v) for v in (times[None], times["auto"])),
                _report.median_worst(ratios, "×"),
            ]
        )
        print(" | ".join(rows[-1]), flush=True)
    header = [
        "table",
        "`NaiveBayes(calibration=None)`: fit + first prediction, median (worst)",
        "`NaiveBayes()` (calibrated): fit + first prediction",
        "ratio, median (worst pair)",
    ]
    body = (
        "Command: `python benchmarks/calibration.py"
        + ("" if args.runs == 3 else f" --runs {args.runs}")
        + " --write` — "
        f"{_report.machine()}; each fit in a fresh process, {args.runs} per figure, the two "
        f"interleaved; 1-minute load average {load:.1f} at the start and "
        f"{os.getloadavg()[0]:.1f} at the end. The calibrated model also keeps a hashed sample "
        "of up to 4,096 distinct rows, and derives its calibration at the first prediction: "
        "each sample row scored by the statistics minus its fold of the sample, then the form "
        "chosen and fitted (nbayes.model_calibration).\n\n" + _report.markdown_table(header, rows)
    )
    _report.publish("calibration-cost", body, args.write)


if __name__ == "__main__":
    main()
