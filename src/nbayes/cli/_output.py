"""Writing a command's table of results: CSV on stdout, or a .csv, .tsv or .parquet file."""

from __future__ import annotations

import errno
import sys
from collections.abc import Iterable
from pathlib import Path

import polars as pl

from ._args import UsageError


def write_frames(frames: Iterable[pl.DataFrame], out: str | None, empty_header: str) -> None:
    """Write ``frames`` one after the other (a streamed table) to ``out`` or to stdout.

    ``empty_header`` is the header line written when there are no frames at all. A reader of
    stdout that went away (``| head``) surfaces as BrokenPipeError, whoever noticed it."""
    if out and Path(out).suffix.lower() in (".parquet", ".pq"):
        write_parquet(frames, out)
        return
    separator = "\t" if out and Path(out).suffix.lower() in (".tsv", ".tab") else ","
    handle = open(out, "w", newline="") if out else sys.stdout
    try:
        first = True
        for frame in frames:
            frame.write_csv(handle, separator=separator, include_header=first)
            first = False
        if first:
            handle.write(empty_header + "\n")
        handle.flush()
    except (OSError, pl.exceptions.PolarsError) as error:
        if _broken_pipe(error):
            raise BrokenPipeError(errno.EPIPE, "the reader of the output went away") from error
        raise
    finally:
        if out:
            handle.close()


def _broken_pipe(error: BaseException) -> bool:
    return isinstance(error, BrokenPipeError) or "Broken pipe" in str(error)


def write_parquet(frames: Iterable[pl.DataFrame], path: str) -> None:
    try:
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise UsageError(
            "writing Parquet needs pyarrow (pip install pyarrow); or write .csv"
        ) from exc
    writer = None
    try:
        for frame in frames:
            table = frame.to_arrow()
            if writer is None:
                writer = pq.ParquetWriter(path, table.schema)
            writer.write_table(table)
    finally:
        if writer is not None:
            writer.close()
