"""``nbayes explain``: the worked computation of a saved model for one row of a data file."""

from __future__ import annotations

import argparse

from ..readers import DataError
from ._args import UsageError
from ._models import learner_of
from ._reading import load_model, markers_for, open_reader


def run(args: argparse.Namespace) -> int:
    model = load_model(args.model, args.max_memory, args.data)
    if not hasattr(model, "explain"):
        raise UsageError(
            f"explain needs a NaiveBayes or TextClassifier model; {args.model} holds a "
            f"{type(model).__name__}."
        )
    if args.row < 0:
        raise UsageError("--row must be >= 0.")
    reader = open_reader(args, missing=markers_for(args, model))
    for batch in reader:
        if batch.first_row <= args.row < batch.first_row + batch.frame.height:
            row = batch.frame.slice(args.row - batch.first_row, 1)
            line = (
                f", line {batch.first_line + args.row - batch.first_row:,}"
                if batch.first_line
                else ""
            )
            print(f"{reader.path}, row {args.row:,}{line}\n")
            learner = learner_of(model, args, row.columns)
            features = learner.features(row)
            print(model.explain(features[0] if learner.text is not None else features))
            return 0
    raise DataError(
        reader.path, f"there is no row {args.row:,}; the file has {reader.rows:,} data rows."
    )
