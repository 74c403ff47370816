"""``nbayes evaluate``: a saved model's figures on labelled data, streamed. The rows are not
kept, but each row's class and posteriors are (the ROC and PR areas need every score): their
bytes are bounded by ``--max-memory`` (default ``TABLE_MAX_BYTES``)."""

from __future__ import annotations

import argparse
import json
import sys

from ..evaluation import Accumulator
from ..readers import DataError
from ._models import Learner, learner_of
from ._reading import (
    load_model,
    located,
    markers_for,
    memory_bound,
    open_reader,
    over_bound,
    progress,
    require_target,
    say_skipped,
)


def run(args: argparse.Namespace) -> int:
    model = load_model(args.model, args.max_memory, args.data)
    reader = open_reader(args, missing=markers_for(args, model))
    accumulator = Accumulator(model.classes_, getattr(model, "loss", None))
    bound = memory_bound(args)
    learner: Learner | None = None
    unlabelled = 0
    with progress(reader, "evaluate") as batches:
        for batch in batches:
            target = require_target(args, reader.path, batch.frame.columns)
            if learner is None:
                learner = learner_of(model, args, batch.frame.columns)
            truth = batch.frame.get_column(target)
            labelled = truth.is_not_null()
            unlabelled += truth.null_count()
            frame = batch.frame.filter(labelled)
            try:
                predicted, proba = learner.predict_both(frame)
            except ValueError as error:
                raise located(error, reader, batch) from error
            accumulator.update(truth.filter(labelled).to_numpy(), predicted, proba)
            if accumulator.nbytes > bound:
                raise over_bound(
                    reader.path,
                    "the scores kept so far for the ROC and PR areas",
                    accumulator.nbytes,
                    bound,
                    "evaluate a sample of the rows",
                )
    if accumulator.n == 0:
        raise DataError(reader.path, "there are no labelled rows to evaluate on.")
    report = accumulator.report()
    print(json.dumps(report.as_dict(), indent=2) if args.json else report.format())
    say_skipped(reader)
    if unlabelled:
        print(
            f"nbayes: {unlabelled:,} rows without a label (missing in {target!r}) were left out; "
            f"the figures are over the {accumulator.n:,} labelled rows",
            file=sys.stderr,
        )
    return 0
