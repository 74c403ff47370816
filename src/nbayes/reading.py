"""``nbayes.read_table``: a data file read into one Polars frame by the command line's rules.

The same reader ``nbayes fit`` uses (:class:`nbayes.readers.TableReader`), so a Python user's
frame is the one the CLI would fit: the format from the extension or the content (CSV, TSV,
Parquet, JSON lines; gzip or Zstandard compressed), the separator sniffed (``", "`` as UCI
publishes), whitespace around fields stripped (so ``" <=50K"`` reads as ``"<=50K"`` and
``" ?"`` matches the marker ``"?"``), markers read as nulls, numbers as numbers, and any error
naming the file, the line and the column.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence

import polars as pl

from .readers import MAX_RECORD_BYTES, TableReader, bad_rows_skipped, read_all


def read_table(
    source: str | os.PathLike,
    *,
    format: str | None = None,
    separator: str | None = None,
    missing: str | Sequence[str] = (),
    header: bool = True,
    names: Sequence[str] | None = None,
    strip: bool = True,
    quote: str | None = '"',
    skip_bad_rows: bool = False,
    max_record_bytes: int = MAX_RECORD_BYTES,
    max_bytes: int | None = None,
) -> pl.DataFrame:
    """Read ``source`` (a path, or ``"-"`` for standard input) as ``nbayes fit`` reads it.

    Parameters
    ----------
    format : {"csv", "tsv", "parquet", "jsonl"}, optional
        By default from the extension, else from the content.
    separator : str, optional
        Sniffed by default: the one of tab, comma, semicolon or bar that splits every sampled
        line into as many fields; may be several characters (``", "``).
    missing : str or list of str
        Markers read as null (``"?"``), as ``--missing``.
    header : bool, default True
        False for a file without a header line; columns are then named ``names``, or ``"1"``,
        ``"2"``, … by position (as ``--no-header``).
    strip : bool, default True
        Strip whitespace around fields (as the CLI, unless ``--no-strip``).
    quote : str or None, default '"'
        The quote character; None reads quotes as ordinary text.
    skip_bad_rows : bool, default False
        Drop rows that cannot be read instead of raising (as ``--skip-bad-rows``); a warning
        says how many were dropped and names the lines of the first ten.
    max_record_bytes : int
        The longest row accepted.
    max_bytes : int, optional
        The most bytes the rows may take in memory (as ``--max-memory``): past it the read stops
        with :class:`nbayes.readers.RowsOverBound`, whatever the file's size on disk (a small
        compressed file can expand to gigabytes). None: no bound.
    """
    markers = [missing] if isinstance(missing, str) else list(missing)
    reader = TableReader(
        source,
        format=format,
        separator=separator,
        missing=markers,
        header=header,
        names=names,
        strip=strip,
        quote=quote,
        skip_bad_rows=skip_bad_rows,
        max_record_bytes=max_record_bytes,
    )
    frame = read_all(reader, max_bytes=max_bytes)
    if reader.bad_rows:  # said, as the command line says it: rows left out are not silent
        note = bad_rows_skipped(reader.bad_rows, reader.bad_lines)
        warnings.warn(f"{source}: {note}.", stacklevel=2)
    return frame
