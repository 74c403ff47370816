"""How many times faster ``SemiNaiveBayes()`` fits and predicts than a random forest, measured
in fresh processes.

For adult (its given split), spambase and nursery (stratified 10-fold cross-validation, the
folds of benchmarks/accuracy.py), each run is a fresh Python process that times, on the same
folds, ``SemiNaiveBayes()`` fit + predict_proba summed over the folds and then scikit-learn's
``RandomForestClassifier(n_estimators=300, n_jobs=2)`` (benchmarks/peers.py, the forest of the
accuracy tables) the same way. nbayes' compiled kernels are loaded by a small untimed fit first,
as any earlier fit in a session would have loaded them. The ratio is the forest's time over
nbayes' in the same process; the table gives the median over ``--runs`` processes and the worst
(the smallest ratio).

    python benchmarks/default_speed.py            # print the table
    python benchmarks/default_speed.py --write    # and record it in benchmarks/README.md
"""

from __future__ import annotations

import os
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import _report  # noqa: E402

SETS = ("adult", "spambase", "nursery")

#: One run, in a fresh process: prints "nbayes seconds, forest seconds".
RUN = """
import sys, warnings
sys.path.insert(0, {benchmarks!r})
warnings.simplefilter("ignore")
from pathlib import Path
import accuracy, uci
from nbayes.semi_naive import SemiNaiveBayes

name, data = {name!r}, Path({data!r})
loader = {{**uci.CROSS_VALIDATED, **uci.GIVEN_SPLIT}}[name]
given = name in uci.GIVEN_SPLIT
data_set = loader(data=data)
X, y = data_set[0] if given else data_set
SemiNaiveBayes().fit(X[:2000], y[:2000]).predict_proba(X[:100])  # load the kernels, untimed
nbayes_seconds = accuracy._protocol(data_set, given, lambda X, y: SemiNaiveBayes().fit(X, y))[2]
forest_seconds = accuracy._protocol(data_set, given, accuracy._peer_fit("RandomForest"))[2]
print(nbayes_seconds, forest_seconds)
"""


def one_run(name: str, data: Path) -> tuple[float, float]:
    """(nbayes seconds, forest seconds) from a fresh process."""
    code = RUN.format(benchmarks=str(HERE), name=name, data=str(data))
    nbayes_seconds, forest_seconds = _report.fresh_run(code).split()
    return float(nbayes_seconds), float(forest_seconds)


def main() -> None:
    parser = _report.data_parser(__doc__, runs=5, runs_help="fresh processes per data set")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    rows = []
    for name in SETS:
        runs = [one_run(name, args.data) for _ in range(args.runs)]
        mine, forest = ([run[i] for run in runs] for i in (0, 1))
        ratios = [f / m for m, f in runs]
        worst = min(ratios)
        rows.append(
            [
                name,
                f"{statistics.median(mine):.2f} s ({max(mine):.2f} s)",
                f"{statistics.median(forest):.2f} s ({min(forest):.2f} s)",
                f"{statistics.median(ratios):.1f}× ({worst:.1f}×)",
                "≥ 10× (met)" if worst >= 10 else "≥ 10× (NOT met)",
            ]
        )
        print(" | ".join(rows[-1]), flush=True)
    header = [
        "data set",
        "`SemiNaiveBayes()` fit + predict, median (worst)",
        "RandomForest (300 trees, 2 jobs), median (fastest)",
        "forest / nbayes, median (worst run)",
        "target (worst run)",
    ]
    body = (
        "Command: `python benchmarks/default_speed.py --write` — "
        f"{_report.machine()}; {args.runs} fresh processes per data set, each timing both "
        "models on the same folds (adult: the given split; spambase, nursery: the 10 folds of "
        "the accuracy tables), fit + predict_proba summed over the folds; 1-minute load "
        f"average {load:.1f} at the start and {os.getloadavg()[0]:.1f} at the end.\n\n"
        + _report.markdown_table(header, rows)
    )
    _report.publish("default-speed", body, args.write)


if __name__ == "__main__":
    main()
