"""``nbayes predict``: the classes (and posteriors) of a data file's rows, streamed, beside the
input columns asked for (``--keep``, ``--keep-all``), in the input's row order."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import polars as pl

from ..readers import DataError, bad_rows_skipped
from ._models import Learner, learner_of
from ._output import write_frames
from ._reading import (
    Reader,
    column,
    load_model,
    located,
    markers_for,
    open_reader,
    progress,
    say_skipped,
)


def run(args: argparse.Namespace) -> int:
    model = load_model(args.model, args.max_memory, args.data)
    reader = open_reader(args, missing=markers_for(args, model))
    write_frames(_predicted(model, args, reader), args.output, "prediction")
    say_skipped(reader)
    return 0


def _predicted(model, args: argparse.Namespace, reader: Reader) -> Iterator[pl.DataFrame]:
    learner: Learner | None = None
    kept: list[str] = []
    with progress(reader, "predict") as batches:
        for batch in batches:
            frame = batch.frame
            if learner is None:
                learner = learner_of(model, args, frame.columns)
                if args.keep_all:
                    kept = list(frame.columns)
                elif args.keep:
                    kept = [column(reader.path, name, frame.columns) for name in args.keep]
            try:
                if args.proba:
                    labels, p = learner.predict_both(frame)
                else:
                    labels = learner.predict(frame)
            except ValueError as error:
                raise located(error, reader, batch) from error
            out = frame.select(kept)
            if "prediction" in kept:
                out = out.rename({"prediction": "input prediction"})
            columns = [pl.Series("prediction", labels)]
            if args.proba:
                columns += [pl.Series(f"P({c})", p[:, k]) for k, c in enumerate(model.classes_)]
            yield out.with_columns(columns) if kept else pl.DataFrame(columns)
    if reader.rows == 0 and reader.bad_rows:
        # not an empty file of predictions: the rows were there, and none could be read
        raise DataError(
            reader.path,
            f"every row was dropped as bad ({bad_rows_skipped(reader.bad_rows, reader.bad_lines)})"
            ": nothing to predict. If the file has no header line, pass --no-header; otherwise "
            "run without --skip-bad-rows to see what is wrong with the first bad row.",
        )
