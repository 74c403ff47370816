"""Reading data and models for a command: the table reader from the options, the progress bar,
the target column check, errors located in the file, and the markers a saved model reads with."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ..readers import Batch, DataError, TableReader, read_ahead


def open_reader(
    args: argparse.Namespace, missing: list[str] | None = None, *, quick: bool = False
) -> TableReader:
    """The reader of ``args.data`` with the data options (``missing`` overrides ``--missing``)."""
    return TableReader(
        args.data,
        format=args.format,
        separator=args.separator,
        missing=args.missing if missing is None else missing,
        chunk_bytes=args.chunk_mb * 2**20,
        skip_bad_rows=args.skip_bad_rows,
        quick=quick,
    )


@contextmanager
def progress(reader: TableReader, verb: str) -> Iterator[Iterator[Batch]]:
    """A progress bar on stderr (only when it is a terminal), fed from the reader's batches."""
    from tqdm import tqdm

    bar = tqdm(
        total=reader.size,
        unit="B",
        unit_scale=True,
        unit_divisor=1024,
        desc=verb,
        file=sys.stderr,
        disable=not sys.stderr.isatty(),
        leave=False,
    )

    def batches() -> Iterator[Batch]:
        # Polars' streaming engine reads ahead by itself; the careful reader needs a thread
        source = iter(reader) if reader.quick else read_ahead(iter(reader))
        for batch in source:
            bar.update(max(0, batch.bytes_read - bar.n))
            bar.set_postfix(rows=f"{batch.first_row + batch.frame.height:,}", refresh=False)
            yield batch

    try:
        yield batches()
    finally:
        bar.close()


def require_target(source: str, target: str, columns: Sequence[str] | None) -> str:
    """``target`` if it is one of ``columns``; otherwise a DataError naming the columns."""
    if columns is not None and target not in columns:
        raise DataError(
            source, f"there is no target column {target!r}; the columns are {list(columns)}."
        )
    return target


def located(error: Exception, reader: TableReader, batch: Batch) -> Exception:
    """Add the file and the line span of a batch to a model error raised while using it."""
    if isinstance(error, DataError):
        return error
    line = batch.first_line
    where = f"rows from line {line:,}" if line is not None else f"rows from row {batch.first_row:,}"
    return DataError(reader.path, f"{error} (in the {where})")


def fitted_markers(model: Any) -> list[str]:
    """The missing-value markers a fitted model was fitted with, as strings."""
    return [str(m) for m in getattr(model, "missing_markers_", [])]


def markers_for(args: argparse.Namespace, model: Any) -> list[str]:
    """Missing-value markers for reading data for a saved model: those given now, else the
    ones it was fitted with (so that "?" in a numeric column reads as missing, not as text)."""
    return list(args.missing) if args.missing else fitted_markers(model)


def load_model(path: str) -> Any:
    from ..persist import load

    return load(path)
