"""``nbayes predict``: the classes (and posteriors) of a data file's rows, streamed."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import Any

import numpy as np
import polars as pl

from ..readers import TableReader
from ._output import write_frames
from ._reading import load_model, located, markers_for, open_reader, progress


def run(args: argparse.Namespace) -> int:
    model = load_model(args.model)
    reader = open_reader(args, missing=markers_for(args, model))
    write_frames(_predicted(model, reader, args.proba), args.output, "prediction")
    return 0


def _predicted(model: Any, reader: TableReader, proba: bool) -> Iterator[pl.DataFrame]:
    with progress(reader, "predict") as batches:
        for batch in batches:
            try:
                if proba:
                    p = model.predict_proba(batch.frame)
                    labels = (
                        model.classes_[np.argmax(p, axis=1)]
                        if model.loss is None
                        else model.predict(batch.frame)
                    )
                    columns = {"prediction": labels}
                    columns.update({f"P({c})": p[:, k] for k, c in enumerate(model.classes_)})
                else:
                    columns = {"prediction": model.predict(batch.frame)}
            except ValueError as error:
                raise located(error, reader, batch) from error
            yield pl.DataFrame(columns)
