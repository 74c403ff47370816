"""``nbayes fit --scheduler``: the command line's reading rules given to Dask's ``read_csv``, so
that the cluster's workers read a file as ``nbayes fit`` reads it on one machine (the separator
sniffed, ``--no-header`` and ``--names``, whitespace stripped, ``--missing`` markers, the quote
character, the column types of nbayes' reader, compression known by its first bytes) and
``--target`` may name the column by position."""

from __future__ import annotations

import argparse
import csv
import glob
import os
import re
from typing import Any

import polars as pl

from ..readers import TableReader
from ._args import UsageError
from ._reading import column, open_reader

#: Formats the workers read (Dask's read_csv or read_parquet).
CLUSTER_FORMATS = ("csv", "tsv", "parquet")


def cluster_reading(args: argparse.Namespace) -> tuple[str, dict[str, Any], str]:
    """(file format, options for :func:`nbayes.distributed.fit_files`, the target's name) for
    ``args.data``, a file, a glob or a folder of Parquet files; the first file is read by nbayes'
    own reader to find the separator and the column names."""
    first = _first_file(args.data)
    reader = open_reader(argparse.Namespace(**{**vars(args), "data": first}))
    assert isinstance(reader, TableReader)  # documents were refused before
    if reader.format not in CLUSTER_FORMATS:
        raise UsageError(
            f"--scheduler has the workers read CSV, TSV or Parquet files, not {reader.format}; "
            "convert the data, or fit without --scheduler."
        )
    if reader.format == "parquet":
        columns = list(pl.read_parquet_schema(first))
        return "parquet", {}, column(first, args.target, columns, "target column")
    if args.skip_bad_rows:
        raise UsageError(
            "--skip-bad-rows cannot be given with --scheduler: the workers' reader (pandas) "
            "pads a row that lacks fields instead of finding it; fit without --scheduler."
        )
    batches = iter(reader)
    try:
        batch = next(batches, None)
    finally:
        batches.close()
    columns = list(reader.columns or [])
    types = dict(batch.frame.schema) if batch is not None else {}
    options: dict[str, Any] = {
        "header": 0 if reader.header else None,
        "names": columns,
        # the types nbayes' reader gives the first rows (a column without a value there typed
        # by its first values further on), not pandas' guess from each partition's rows
        "dtype": {name: _pandas_type(types.get(name, pl.String)) for name in columns},
        # only the empty field and the markers given are missing, as for nbayes' reader
        "keep_default_na": False,
        "na_values": ["", *reader.missing],
        "skipinitialspace": reader.strip,
        "strip": reader.strip,
        "on_bad_lines": "error",
        # nullable integers and strings: Polars' types, so each column gets the same family
        "dtype_backend": "numpy_nullable",
    }
    if len(reader.separator) > 1:  # pandas reads a longer separator as a regular expression
        options.update(sep=re.escape(reader.separator), engine="python")
    else:
        options["sep"] = reader.separator
    if reader.quote is None:
        options["quoting"] = csv.QUOTE_NONE
    else:
        options["quotechar"] = reader.quote
    if reader.compression:  # known by its first bytes, whatever the name; one partition
        options.update(compression=reader.compression, blocksize=None)
    elif reader.quote is not None and _quoted_line_ends(first, reader.quote):
        # Dask cuts a file into partitions at line ends: not where one is inside quotes
        options["blocksize"] = None
    else:
        options["blocksize"] = args.chunk_mb * 2**20
    return "csv", options, column(first, args.target, columns, "target column")


def _pandas_type(dtype: pl.DataType) -> str:
    """pandas' nullable type for a column nbayes' reader reads as ``dtype``."""
    if dtype.is_integer():
        return "Int64"
    if dtype.is_float():
        return "Float64"
    if dtype == pl.Boolean:
        return "boolean"
    return "string"


def _quoted_line_ends(path: str, quote: str, sample: int = 2**20) -> bool:
    """Whether a quoted value holds a line end in the file's first ``sample`` bytes (quotes
    there are balanced only if a value spans lines)."""
    with open(path, "rb") as handle:
        head = handle.read(sample)
    mark = quote.encode()
    if mark not in head:
        return False
    head = head[: head.rfind(b"\n") + 1]  # whole lines only
    return any(line.count(mark) % 2 for line in head.splitlines())


def _first_file(data: str) -> str:
    """The file whose columns stand for all of ``data``'s: itself, the first match of a glob,
    or the first Parquet file of a folder."""
    if os.path.isdir(data):
        found = sorted(glob.glob(os.path.join(data, "*.parquet")))
    elif glob.has_magic(data):
        found = sorted(glob.glob(data))
    else:
        return data
    if not found:
        raise UsageError(f"{data}: no file to read (a folder of .parquet files, or a glob).")
    return found[0]
