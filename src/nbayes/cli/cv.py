"""``nbayes cv``: stratified k-fold cross-validation of the model the options describe."""

from __future__ import annotations

import argparse
import sys
import warnings

import numpy as np

from ..evaluation import Accumulator, stratified_folds
from ..readers import DataError, read_all
from ._models import model_from
from ._reading import open_reader, require_target


def run(args: argparse.Namespace) -> int:
    reader = open_reader(args)
    frame = read_all(reader)
    target = require_target(reader.path, args.target, frame.columns)
    frame = frame.filter(frame.get_column(target).is_not_null())
    if frame.height == 0:
        raise DataError(reader.path, "there are no labelled rows.")
    labels = frame.get_column(target).to_numpy()
    try:
        folds = stratified_folds(labels, args.folds, seed=args.seed)
    except ValueError as error:
        raise DataError(reader.path, str(error)) from error
    classes = np.unique(labels)
    accumulator = Accumulator(classes)
    scores = []
    for k, test in enumerate(folds):
        train = np.setdiff1d(np.arange(frame.height), test)
        model = model_from(args).fit(frame[train], target=target)
        test_frame = frame[test]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            proba = model.predict_proba(test_frame)
            predicted = model.predict(test_frame)
        truth = test_frame.get_column(target).to_numpy()
        scores.append(float(np.mean(predicted.astype(str) == truth.astype(str))))
        full = np.zeros((len(test), len(classes)))
        full[:, np.searchsorted(classes, model.classes_)] = proba
        accumulator.update(truth, predicted, full)
        print(f"fold {k + 1:>2}: accuracy {scores[-1]:.4f}", file=sys.stderr)
    print(
        f"{args.folds}-fold stratified cross-validation on {frame.height:,} rows (seed {args.seed})"
    )
    print(f"mean accuracy over folds {np.mean(scores):.4f} ± {np.std(scores):.4f}\n")
    print(accumulator.report().format())
    return 0
