"""What ``NaiveBayes()``'s calibration does on tables of many columns, beside the textbook scores.

* MNIST's test set (../shared/data, or ``--data``): 7,000 images to fit and 3,000 held out (a fixed
  permutation), 784 pixel columns whose families the model chooses;
* tables of pure noise: 200 training rows and 2,000 test rows of d independent normal columns
  and a label independent of them (the ideal log loss is log 2 = 0.6931), d = 100, 1,000, 3,000
  (and 3,000 cut into MDL intervals); then 2,000 integer columns of 10 codes, their families
  chosen, and given.

For each: the held-out accuracy the calibration judged its forms by (from ``calibration_.reason``)
and the test accuracy and log loss of ``NaiveBayes()`` and of ``NaiveBayes(calibration=None)``.
On the noise tables the held-out estimate is optimistic: the held-out models keep the choices the
full model made with every row's label (docs/calibration.md).

    python benchmarks/calibration_wide.py            # print
    python benchmarks/calibration_wide.py --write    # and record it in benchmarks/README.md
"""

from __future__ import annotations

import gzip
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _report

import nbayes


def mnist(data: Path) -> tuple[pl.DataFrame, np.ndarray]:
    """The 10,000 test images as 784 float columns, and their digits."""
    with gzip.open(data / "mnist" / "t10k-images-idx3-ubyte.gz") as handle:
        pixels = np.frombuffer(handle.read()[16:], dtype=np.uint8).reshape(-1, 784)
    with gzip.open(data / "mnist" / "t10k-labels-idx1-ubyte.gz") as handle:
        digits = np.frombuffer(handle.read()[8:], dtype=np.uint8)
    frame = pl.DataFrame(pixels.astype(np.float64), schema=[f"p{j}" for j in range(784)])
    return frame, digits.astype(np.int64)


def log_loss(model: nbayes.NaiveBayes, X: pl.DataFrame, y: np.ndarray) -> float:
    proba = model.predict_proba(X)
    p = proba[np.arange(len(y)), np.searchsorted(model.classes_, y)]
    return float(-np.mean(np.log(np.clip(p, 1e-15, 1.0))))


def row(name: str, train, test, **options) -> list[str]:
    (X, y), (X_test, y_test) = train, test
    calibrated = nbayes.NaiveBayes(**options).fit(X, y)
    textbook = nbayes.NaiveBayes(calibration=None, **options).fit(X, y)
    judged = re.search(r"held-out accuracy (\d\.\d+)", calibrated.calibration_.reason)
    cells = [name, judged.group(1) if judged else "–", f"{calibrated.calibration_.weight:.4g}"]
    for model in (calibrated, textbook):
        accuracy = float(np.mean(model.predict(X_test) == y_test))
        cells += [f"{accuracy:.4f}", f"{log_loss(model, X_test, y_test):.4f}"]
    return cells


def main() -> None:
    args = _report.data_parser(__doc__).parse_args()
    warnings.simplefilter("ignore")
    rows = []
    if (args.data / "mnist").is_dir():
        X, y = mnist(args.data)
        order = np.random.default_rng(0).permutation(len(y))
        fit, held = order[:7000], order[7000:]
        rows.append(row("MNIST, 7,000 → 3,000", (X[fit], y[fit]), (X[held], y[held])))
    rng = np.random.default_rng(0)
    for d in (100, 1000, 3000):
        names = [f"x{j}" for j in range(d)]
        train = (pl.DataFrame(rng.normal(size=(200, d)), schema=names), rng.integers(0, 2, 200))
        test = (pl.DataFrame(rng.normal(size=(2000, d)), schema=names), rng.integers(0, 2, 2000))
        rows.append(row(f"noise, 200 rows × {d:,} columns", train, test))
        if d == 3000:  # intervals alone: their cut points were placed with every label
            rows.append(row('the same, `continuous="mdl"`', train, test, continuous="mdl"))
    # integer codes: the families chosen, then given (no choice made with the labels)
    names = [f"c{j}" for j in range(2000)]
    train = (pl.DataFrame(rng.integers(0, 10, (200, 2000)), schema=names), rng.integers(0, 2, 200))
    test = (pl.DataFrame(rng.integers(0, 10, (2000, 2000)), schema=names), rng.integers(0, 2, 2000))
    rows.append(row("noise, 200 rows × 2,000 integer columns of 10 codes", train, test))
    given = {"families": dict.fromkeys(names, "categorical")}
    rows.append(row("the same, every family given (`families=`)", train, test, **given))
    header = [
        "table",
        "calibration's held-out accuracy",
        "a",
        "`NaiveBayes()` test accuracy",
        "log loss",
        "`calibration=None` test accuracy",
        "log loss",
    ]
    body = (
        "Command: `python benchmarks/calibration_wide.py --write` — "
        f"{_report.machine()}. Noise tables: the label is independent of every column (ideal "
        "log loss 0.6931); their held-out accuracy above 0.5 is the optimism of held-out models "
        "that keep the full model's choices (an open fault, docs/calibration.md): with every "
        "family given there is no choice to leak.\n\n"
        + _report.markdown_table(header, rows)
    )
    _report.publish("calibration-wide", body, args.write)


if __name__ == "__main__":
    main()
