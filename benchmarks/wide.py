"""A table of very many columns from the command line: ``nbayes fit`` and ``nbayes predict``.

The file is generated: ``--rows`` rows (default 200) of ``--columns`` small-integer columns
(default 100,000) and a two-class target, as a CSV of about 40 MB. ``nbayes fit`` (the default
model: each column's family chosen from the data) and then ``nbayes predict`` on 20 rows run in
fresh processes, ``--runs`` times each; the table gives the median and the worst wall time and
the peak resident memory of the worst run. ``nbayes fit`` makes every column's choices (the
leave-one-out criterion of ``families/_selection.py``) and the calibration, and saves them;
``nbayes predict`` reads them from the file.

    python benchmarks/wide.py                   # 3 runs of each command
    python benchmarks/wide.py --columns 20000   # a smaller table
    python benchmarks/wide.py --write           # also record the table in benchmarks/README.md
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _report

NBAYES = [sys.executable, "-c", "import sys; from nbayes.cli import main; sys.exit(main())"]


def write_table(path: Path, rows: int, columns: int, *, target: bool, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 10, size=(rows, columns))
    y = rng.integers(0, 2, size=rows)
    with open(path, "w") as handle:
        names = [f"c{j}" for j in range(columns)] + (["label"] if target else [])
        handle.write(",".join(names) + "\n")
        for i in range(rows):
            values = [str(v) for v in X[i]] + ([str(y[i])] if target else [])
            handle.write(",".join(values) + "\n")


def timed(command: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS MiB) of one fresh process running ``command``."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(command[3:])} failed:\n{err.decode()}")
    return seconds, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=200)
    parser.add_argument("--columns", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--predict-runs", type=int, default=None, help="processes for predict (default: --runs)"
    )
    parser.add_argument("--write", action="store_true", help="record in benchmarks/README.md")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as folder:
        data, test = Path(folder, "wide.csv"), Path(folder, "wide_test.csv")
        model, out = Path(folder, "wide.nbm"), Path(folder, "predictions.csv")
        write_table(data, args.rows, args.columns, target=True)
        write_table(test, 20, args.columns, target=False, seed=1)
        size = data.stat().st_size
        commands = {
            # the yardstick: pandas reading the same file (issue target: fit + save + load +
            # first prediction at most 3 times this)
            "pandas read_csv": [
                sys.executable, "-c", "import pandas, sys; pandas.read_csv(sys.argv[1])", str(data)
            ],
            "nbayes fit": [*NBAYES, "fit", str(data), "--target", "label", "-o", str(model)],
            "nbayes predict (20 rows)": [*NBAYES, "predict", str(model), str(test), "-o", str(out)],
        }
        table = []
        counts = {
            "pandas read_csv": args.runs,
            "nbayes fit": args.runs,
            "nbayes predict (20 rows)": args.predict_runs or args.runs,
        }
        for name, command in commands.items():
            runs = [timed(command) for _ in range(counts[name])]
            times = [seconds for seconds, _ in runs]
            print(f"{name}: {', '.join(f'{t:.1f}' for t in times)} s", flush=True)
            table.append(
                [
                    name,
                    str(len(times)),
                    f"{statistics.median(times):.1f} s",
                    f"{max(times):.1f} s",
                    f"{max(peak for _, peak in runs):,.0f} MiB",
                ]
            )
        medians = {row[0]: float(row[2].split()[0]) for row in table}
        ratio = (medians["nbayes fit"] + medians["nbayes predict (20 rows)"]) / max(
            medians["pandas read_csv"], 1e-9
        )
    body = (
        f"Command: `python benchmarks/wide.py --rows {args.rows} --columns {args.columns} "
        f"--runs {args.runs}"
        + (f" --predict-runs {args.predict_runs}" if args.predict_runs else "")
        + f"{' --write' if args.write else ''}` — {_report.machine()}; "
        f"1-minute load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end. "
        f"File: {args.rows} rows × {args.columns:,} integer columns and a two-class target, "
        f"{size / 2**20:.0f} MiB of CSV; each command in fresh processes, as many as the runs "
        "column says (peak RSS: the largest of the command's processes). `nbayes fit` (which "
        "saves) and `nbayes predict` (which loads and predicts) together take "
        f"{ratio:.0f}× pandas' read of the same file (medians).\n\n"
        + _report.markdown_table(["command", "runs", "median", "worst", "peak RSS"], table)
    )
    _report.publish("wide", body, args.write)


if __name__ == "__main__":
    main()
