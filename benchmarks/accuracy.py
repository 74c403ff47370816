"""Accuracy of nbayes on the real data sets in ../shared/data, beside the peers' figures.

Protocol (the tables issue): stratified 10-fold cross-validation,
``StratifiedKFold(n_splits=10, shuffle=True, random_state=0)`` on file order, reporting the mean
of the ten fold accuracies (as scikit-learn's ``cross_val_score(...).mean()``); the given
train/test split for adult and soybean-large; '?' is a missing value.

    python benchmarks/accuracy.py                    # all sections, print only
    python benchmarks/accuracy.py --section tables --write   # record in benchmarks/README.md
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.model_selection import StratifiedKFold

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _report
import uci

import nbayes

#: Best peer figure on exactly this protocol (scikit-learn CategoricalNB/GaussianNB; Weka 3.6
#: NaiveBayes, -K, -D), and Kohavi (1996) for adult; from the tables issue.
PEERS = {
    "mushroom": 0.9573,
    "vote": 0.9036,
    "car": 0.8559,
    "nursery": 0.9024,
    "tic-tac-toe": 0.7046,
    "breast-cancer": 0.7314,
    "zoo": 0.9500,
    "splice": 0.9542,
    "spambase": 0.8985,
    "adult": 0.8388,
}

#: The configurations every data set is run with: the default and documented options.
CONFIGURATIONS = {
    "default": {},
    'class_prior="smoothed"': {"class_prior": "smoothed"},
    "alpha=0.5": {"alpha": 0.5},
    'continuous="mdl"': {"continuous": "mdl"},
    'continuous="kde"': {"continuous": "kde"},
}

#: Per-data-set options that follow the data's own documentation.
SPECIAL = {
    # the .names file: '?' means "neither yea nor nay", not "unknown"
    "vote": ("'?' as a value", {}, {"question_is_value": True}),
    # legs is a number (Weka's ARFF declares it numeric); nbayes' rule makes a 6-valued
    # integer column categorical unless told otherwise
    "zoo": ('families={"legs": "kde"}', {"families": {"legs": "kde"}}, {}),
}


def cross_validated(X, y, params: dict) -> float:
    folds = StratifiedKFold(n_splits=10, shuffle=True, random_state=0).split(np.zeros(len(y)), y)
    scores = []
    for train, test in folds:
        model = nbayes.NaiveBayes(**params).fit(X[train], y[train])
        scores.append(float(np.mean(model.predict(X[test]) == y[test])))
    return float(np.mean(scores))


def held_out(split, params: dict) -> float:
    (X_train, y_train), (X_test, y_test) = split
    model = nbayes.NaiveBayes(**params).fit(X_train, y_train)
    return float(np.mean(model.predict(X_test) == y_test))


def tables_section() -> str:
    header = ["data set", *CONFIGURATIONS, "data-specific option", "best peer", "target met by"]
    rows = []
    sets = list(uci.CROSS_VALIDATED.items()) + list(uci.GIVEN_SPLIT.items())
    for name, loader in sets:
        start = time.perf_counter()
        given = name in uci.GIVEN_SPLIT
        data = loader()
        scores = {
            c: (held_out(data, p) if given else cross_validated(*data, p))
            for c, p in CONFIGURATIONS.items()
        }
        special_text = ""
        if name in SPECIAL:
            label, params, loader_args = SPECIAL[name]
            special_data = loader(**loader_args) if loader_args else data
            value = (
                held_out(special_data, params) if given else cross_validated(*special_data, params)
            )
            scores[label] = value
            special_text = f"{label}: {value:.4f}"
        peer = PEERS.get(name)
        met = "no peer figure"
        if peer is not None:
            winners = [c for c, v in scores.items() if round(v, 4) >= peer]
            met = "default" if "default" in winners else (winners[0] if winners else "NOT MET")
        row = [
            name,
            *(f"{scores[c]:.4f}" for c in CONFIGURATIONS),
            special_text or "—",
            f"{peer:.4f}" if peer else "—",
            met,
        ]
        rows.append(row)
        print(" | ".join(row), f"({time.perf_counter() - start:.1f} s)", flush=True)
    return (
        "Command: `python benchmarks/accuracy.py --section tables --write` — "
        f"{_report.machine()}, nbayes {nbayes.__version__}. Stratified 10-fold CV "
        "(`StratifiedKFold(10, shuffle=True, random_state=0)`, mean of fold accuracies); adult and "
        "soybean-large on their given train/test split; '?' is missing. Peers: best of "
        "scikit-learn "
        "CategoricalNB/GaussianNB and Weka 3.6 NaiveBayes (plain, -K, -D) on the same protocol; "
        "adult: Kohavi (1996). Data-specific options: vote keeps '?' as a third answer, as its "
        ".names file defines it; zoo's legs is numeric, as in Weka's ARFF.\n\n"
        + _report.markdown_table(header, rows)
    )


SECTIONS = {"tables": tables_section}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--section", choices=[*SECTIONS, "all"], default="all")
    parser.add_argument(
        "--write", action="store_true", help="record the tables in benchmarks/README.md"
    )
    args = parser.parse_args()
    if not uci.DATA.is_dir():
        raise SystemExit(f"the data sets are not at {uci.DATA}")
    warnings.simplefilter("ignore")
    chosen = SECTIONS if args.section == "all" else {args.section: SECTIONS[args.section]}
    for name, section in chosen.items():
        body = section()
        print(body)
        if args.write:
            _report.write_section(f"accuracy-{name}", body)


if __name__ == "__main__":
    main()
