"""Reading data and models for a command: the reader from the options, the progress bar,
columns named by name or position, the target check, errors located in the file, and the
markers a saved model reads with."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..exceptions import close_match
from ..readers import (
    Batch,
    DataError,
    DocumentReader,
    RowsOverBound,
    TableReader,
    bad_rows_skipped,
    read_ahead,
    read_all,
    read_names,
)
from ._args import TABLE_MAX_BYTES, UsageError

if TYPE_CHECKING:
    import polars as pl

Reader = TableReader | DocumentReader

#: The label column of documents (folders and label<TAB>text lines).
DOCUMENT_LABEL = "label"


def is_documents(args: argparse.Namespace) -> bool:
    """Whether DATA is documents (a folder, or ``--format lines``) rather than a table."""
    return args.format == "lines" or (args.data != "-" and os.path.isdir(args.data))


def open_reader(
    args: argparse.Namespace, missing: list[str] | None = None, *, quick: bool = False
) -> Reader:
    """The reader of ``args.data`` with the data options (``missing`` overrides ``--missing``)."""
    if is_documents(args):
        tables = _table_files(args.data) if os.path.isdir(args.data) else []
        if tables:
            raise UsageError(_folder_is_not_a_table(args.data, tables, args))
        return DocumentReader(
            args.data,
            separator=args.separator or "\t",
            chunk_bytes=args.chunk_mb * 2**20,
            skip_bad_rows=args.skip_bad_rows,
        )
    try:
        names = read_names(args.names) if args.names else None
    except ValueError as error:
        raise UsageError(str(error)) from error
    return TableReader(
        args.data,
        format=args.format,
        separator=args.separator,
        missing=args.missing if missing is None else missing,
        chunk_bytes=args.chunk_mb * 2**20,
        skip_bad_rows=args.skip_bad_rows,
        quick=quick,
        header=not args.no_header,
        names=names,
        strip=not args.no_strip,
        quote=None if args.no_quote else args.quote,
    )


#: Names of files that hold a table rather than a document.
_TABLE_SUFFIXES = (".csv", ".tsv", ".tab", ".parquet", ".pq", ".jsonl", ".ndjson", ".data")


def _table_files(folder: str) -> list[str]:
    """The files of ``folder`` when it has no subfolder and every file is named as a table
    (sorted); else none."""
    entries = [e for e in os.scandir(folder) if e.name[0] != "."]
    if not all(
        e.is_file() and _uncompressed(e.name.lower()).endswith(_TABLE_SUFFIXES) for e in entries
    ):
        return []
    return sorted(e.name for e in entries)


def _folder_is_not_a_table(folder: str, tables: list[str], args: argparse.Namespace) -> str:
    """Why a folder holding only data files (``tables``) is refused: a folder is read as
    documents."""
    target = ", but --target names a table's column." if getattr(args, "target", None) else "."
    shown = ", ".join(tables[:3]) + (", …" if len(tables) > 3 else "")
    scheduler = (
        ", or, with --scheduler, a folder of .parquet files that Dask workers read"
        if args.command == "fit"
        else ""
    )
    return (
        f"{folder} is a folder, which nbayes reads as documents (one subfolder per class, one "
        f"file per document; no --target){target} Its files ({shown}) look like tables: give "
        f"one file (a command reads one table){scheduler}."
    )


def _uncompressed(name: str) -> str:
    return name.removesuffix(".gz").removesuffix(".zst")


@contextmanager
def progress(reader: Reader, verb: str) -> Iterator[Iterator[Batch]]:
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


def memory_bound(args: argparse.Namespace) -> int:
    """Bytes the rows a command holds may take: ``--max-memory``, else ``TABLE_MAX_BYTES``."""
    given = getattr(args, "max_memory", None)
    return TABLE_MAX_BYTES if given is None else int(given)


def _mib(size: int) -> str:
    return f"{size / 2**20:,.0f} MiB" if size >= 2**20 else f"{size / 2**20:.2f} MiB"


def over_bound(source: str, what: str, size: int, bound: int, instead: str) -> DataError:
    """The one-line error of a command whose held data (``what``, ``size`` bytes) would pass
    ``--max-memory`` (``bound``): it names both and the ways out (``instead``)."""
    return DataError(
        source,
        f"{what} take {_mib(size)}, above --max-memory {_mib(bound)}; raise --max-memory, "
        f"or {instead}.",
    )


def read_bounded(reader: Reader, args: argparse.Namespace, instead: str) -> pl.DataFrame:
    """Every row of ``reader`` in one frame (for the commands that need them all), the bytes
    held bounded by :func:`memory_bound` (:func:`nbayes.readers.read_all`): past it the read
    stops with one line naming the bound, ``--max-memory`` and ``instead``."""
    try:
        return read_all(reader, max_bytes=memory_bound(args))
    except RowsOverBound as over:
        what = "the rows read so far"
        raise over_bound(over.path, what, over.size, over.bound, instead) from None


def column(source: str, spec: str, columns: Sequence[str], what: str = "column") -> str:
    """The column ``spec`` names: a column of that name, else the column at that 1-based
    position; otherwise a DataError naming the columns."""
    if spec in columns:
        return spec
    if spec.isdigit() and 1 <= int(spec) <= len(columns):
        return columns[int(spec) - 1]
    shown = list(columns) if len(columns) <= 30 else [*columns[:30], "…"]
    # a misspelt name gets the close one (a position out of range is no spelling)
    close = None if spec.isdigit() else close_match(spec, columns)
    hint = f"; did you mean {close!r}? The" if close is not None else "; the"
    raise DataError(
        source,
        f"there is no {what} {spec!r} (by name, or by position 1 to {len(columns)}){hint} "
        f"columns are {shown}.",
    )


def require_target(args: argparse.Namespace, source: str, columns: Sequence[str]) -> str:
    """The name of the target column: ``--target`` by name or position, ``label`` for
    documents; a table without ``--target`` is a usage error."""
    spec = args.target
    if spec is None:
        if is_documents(args):
            return DOCUMENT_LABEL
        raise UsageError("--target is required for a table (a column name or 1-based position).")
    return column(source, spec, columns, "target column")


def say_skipped(reader: Reader) -> None:
    """Say on stderr how many rows ``--skip-bad-rows`` dropped, and on which lines (nothing when
    none were)."""
    if reader.bad_rows:
        print(f"nbayes: {bad_rows_skipped(reader.bad_rows, reader.bad_lines)}", file=sys.stderr)


def located(error: Exception, reader: Reader, batch: Batch) -> Exception:
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


def load_model(path: str, max_memory: int | None = None, data: str | None = None) -> Any:
    """The model file ``path``, its tables bounded by ``max_memory`` (``--max-memory``).
    Where ``path`` is no model file but ``data``, the command's data argument, is one, the
    two were given the wrong way round: said so, with the order the command wants."""
    from ..exceptions import ModelFileError
    from ..persist import MAGIC, load

    try:
        return load(path, max_memory=max_memory)
    except ModelFileError as error:
        if data is not None and "wrong magic bytes" in str(error) and _starts_with(data, MAGIC):
            raise UsageError(
                f"{path} is not a model file but {data} is: the model comes first (MODEL DATA)."
            ) from error
        raise


def _starts_with(path: str, prefix: bytes) -> bool:
    """Whether the file ``path`` begins with ``prefix`` (False for standard input, or a path
    that cannot be read)."""
    if path == "-":
        return False
    try:
        with open(path, "rb") as handle:
            return handle.read(len(prefix)) == prefix
    except OSError:
        return False
