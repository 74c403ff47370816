"""``nbayes fit``: fit a model on a data file, streamed in chunks (or on a Dask cluster), and
save it."""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import Any

import numpy as np
import polars as pl

from ..persist import save
from ..readers import DataError, QuickReadAbandoned, TableReader
from ._args import UsageError
from ._models import model_from
from ._reading import located, open_reader, progress, require_target


def run(args: argparse.Namespace) -> int:
    model = model_from(args)
    skipped = ""
    if args.scheduler:
        model = _fit_on_cluster(args, model)
    else:
        model, reader = _fit_streaming(args, model)
        skipped = f", {reader.bad_rows:,} bad rows skipped" if reader.bad_rows else ""
    if len(model.classes_) < 2:
        raise DataError(
            args.data,
            f"the target has a single class ({model.classes_[0]!r}); a classifier needs at "
            "least two.",
        )
    if args.loss:
        model.set_params(loss=read_loss(args.loss, model.classes_))
    save(model, args.output)
    print(
        f"fitted {model.class_count_.sum():,.0f} rows, {len(model.classes_)} classes, "
        f"{model.n_features_in_} columns{skipped} → {args.output}",
        file=sys.stderr,
    )
    return 0


def _fit_streaming(args: argparse.Namespace, model: Any) -> tuple[Any, TableReader]:
    """partial_fit batch by batch: memory stays bounded by the chunk size.

    A CSV file on disk is first read quickly by Polars' streaming engine; if that meets
    anything it cannot locate or repair, the fit starts over with the careful reader (which
    names lines, skips bad rows, replaces bad bytes). Warnings of an abandoned pass are dropped.
    """
    reader = open_reader(args, quick=True)
    if reader.quick:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                _fit_batches(args, model, reader)
            except QuickReadAbandoned:
                caught = None
        if caught is not None:
            for warning in caught:
                warnings.showwarning(
                    warning.message, warning.category, warning.filename, warning.lineno
                )
            return _checked_fit(args, model, reader)
        model = model_from(args)
        reader = open_reader(args)
    _fit_batches(args, model, reader)
    return _checked_fit(args, model, reader)


def _fit_batches(args: argparse.Namespace, model: Any, reader: TableReader) -> None:
    with progress(reader, "fit") as batches:
        for batch in batches:
            target = require_target(reader.path, args.target, batch.frame.columns)
            try:
                model.partial_fit(batch.frame, target=target)
            except ValueError as error:
                raise located(error, reader, batch) from error


def _checked_fit(args: argparse.Namespace, model: Any, reader: TableReader) -> tuple[Any, Any]:
    require_target(reader.path, args.target, reader.columns)
    if not hasattr(model, "classes_"):
        message = (
            "the file has no data rows."
            if reader.rows == 0
            else f"the target column {args.target!r} is entirely missing."
        )
        raise DataError(reader.path, message)
    return model, reader


def _fit_on_cluster(args: argparse.Namespace, model: Any) -> Any:
    """Each Dask worker fits its partitions of the files; only the statistics travel."""
    if args.data == "-":
        raise UsageError("--scheduler has the workers read the files; it cannot read stdin.")
    from ..distributed import fit_files

    try:
        return fit_files(model, args.data, args.target, args.scheduler)
    except ImportError as error:
        raise UsageError(str(error)) from error


def read_loss(path: str, classes: np.ndarray) -> np.ndarray:
    """A loss matrix file → a (K, K) array in the order of ``classes``."""
    try:
        table = pl.read_csv(path, infer_schema=False)
    except (OSError, pl.exceptions.PolarsError) as exc:
        raise UsageError(f"cannot read the loss file {path}: {exc}") from exc
    names = [str(c) for c in classes]
    decided = table.get_column(table.columns[0]).to_list()
    truths = table.columns[1:]
    if sorted(decided) != sorted(names) or sorted(truths) != sorted(names):
        raise UsageError(
            f"{path}: the loss matrix must name every class once as a row and as a column; "
            f"classes are {names}, rows {decided}, columns {truths}."
        )
    matrix = np.empty((len(names), len(names)))
    for i, name in enumerate(decided):
        row = table.row(i)
        for j, truth in enumerate(truths):
            try:
                matrix[names.index(name), names.index(truth)] = float(row[j + 1])
            except (TypeError, ValueError) as exc:
                raise UsageError(
                    f"{path}: loss[{name}][{truth}] is not a number: {row[j + 1]!r}"
                ) from exc
    return matrix
