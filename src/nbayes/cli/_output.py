"""Writing a command's table of results: CSV on stdout, or a .csv, .tsv, .parquet or .jsonl
file (one JSON object per row; a .json path is refused, as a JSON document is not written, and
so is a path named for a spreadsheet, a compressed file or another format not written; any other
name gets CSV).

A file is written whole or not at all (:func:`nbayes._atomic.replacing`): the rows go to a
temporary file beside it, renamed over it once the last row is written, so a bad row late in
the input, an interrupted run or a full disk leaves the previous file as it was.
"""

from __future__ import annotations

import errno
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any

import polars as pl

from .._atomic import replacing
from ..exceptions import MissingDependencyError

#: What ``nbayes`` writes; named in the error for an output path that is a folder.
_WHAT = "an output file"
#: Suffixes of formats the results are not written in (anything else unknown is CSV).
_NOT_WRITTEN = {
    **dict.fromkeys((".xlsx", ".xls", ".xlsm", ".ods"), "spreadsheets"),
    **dict.fromkeys((".gz", ".zst", ".bz2", ".xz", ".zip"), "compressed files"),
    **dict.fromkeys((".feather", ".arrow", ".ipc", ".avro", ".orc"), "that format"),
    ".nbm": "predictions into a model file",
}


def write_frames(frames: Iterable[pl.DataFrame], out: str | None, empty_header: str) -> None:
    """Write ``frames`` one after the other (a streamed table) to ``out`` or to stdout.

    ``empty_header`` is the header line written when there are no frames at all. A reader of
    stdout that went away (``| head``) surfaces as BrokenPipeError, whoever noticed it. The
    file ``out`` is replaced only once every frame is written; ``-`` is stdout, as for DATA.
    A name :func:`unwritable` refuses was refused before the command's work began."""
    if out == "-":
        out = None
    suffix = Path(out).suffix.lower() if out else ""
    if suffix in (".parquet", ".pq"):
        write_parquet(frames, out, empty_header)
        return
    if suffix in (".jsonl", ".ndjson"):
        with replacing(out, text=True, newline="", what=_WHAT, special=True) as handle:
            for frame in frames:
                frame.write_ndjson(handle)
        return
    separator = "\t" if suffix in (".tsv", ".tab") else ","
    if out:
        with replacing(out, text=True, newline="", what=_WHAT, special=True) as handle:
            _write_csv(frames, handle, separator, empty_header)
        return
    try:
        _write_csv(frames, sys.stdout, separator, empty_header)
    except (OSError, pl.exceptions.PolarsError) as error:
        if _broken_pipe(error):
            raise BrokenPipeError(errno.EPIPE, "the reader of the output went away") from error
        raise


def unwritable(out: str) -> str | None:
    """Why a table of results is not written to the path ``out`` (None: it is)."""
    suffix = Path(out).suffix.lower()
    if suffix == ".json":
        return (
            f"{out}: results are written one JSON object per row: name the file .jsonl (or "
            ".csv, .tsv, .parquet)."
        )
    if suffix in _NOT_WRITTEN:
        return (
            f"{out}: nbayes does not write {_NOT_WRITTEN[suffix]}: name the file .csv, .tsv, "
            ".parquet or .jsonl (a CSV under this name would mislead whoever opens it)."
        )
    return None


def _write_csv(
    frames: Iterable[pl.DataFrame], handle: IO[Any], separator: str, empty_header: str
) -> None:
    first = True
    for frame in frames:
        frame.write_csv(handle, separator=separator, include_header=first)
        first = False
    if first:
        handle.write(empty_header + "\n")
    handle.flush()


def _broken_pipe(error: BaseException) -> bool:
    return isinstance(error, BrokenPipeError) or "Broken pipe" in str(error)


def write_parquet(frames: Iterable[pl.DataFrame], path: str, empty_header: str) -> None:
    """Write ``frames`` to the Parquet file ``path`` (replaced only once all are written); no
    frames at all give a table of no rows with the one column ``empty_header``."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise MissingDependencyError(
            "writing Parquet needs pyarrow: pip install pyarrow (or write .csv)"
        ) from exc
    with replacing(path, what=_WHAT, special=True) as handle:
        writer = None
        try:
            for frame in frames:
                table = frame.to_arrow()
                if writer is None:
                    writer = pq.ParquetWriter(handle, table.schema)
                writer.write_table(table)
            if writer is None:
                pq.write_table(pa.table({empty_header: pa.array([], pa.string())}), handle)
        finally:
            if writer is not None:
                writer.close()
