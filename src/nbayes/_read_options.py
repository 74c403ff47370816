"""What a data file is: its format and compression (from its name, else its content), the
separator of delimited text, and column names given apart (``--names``)."""

from __future__ import annotations

import csv
import gzip
import os
import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ._read_common import MODEL_FILE_MAGIC, DataError

FORMATS = ("csv", "tsv", "parquet", "jsonl")
#: Bytes of the start of a file read to tell its format and separator.
SNIFF_BYTES = 64 * 1024
_EXTENSIONS = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
}
_COMPRESSIONS = {".gz": "gzip", ".gzip": "gzip", ".zst": "zstd", ".zstd": "zstd"}
#: Separators tried when the content decides, in order of preference.
_SEPARATORS = ("\t", ",", ";", "|")


#: The first bytes of a gzip member and of a Zstandard frame.
_MAGIC = ((b"\x1f\x8b", "gzip"), (b"\x28\xb5\x2f\xfd", "zstd"))


def _compression_in_content(path: str) -> str | None:
    """The compression ("gzip" or "zstd") whose magic number the file (or standard input,
    peeked without consuming it) starts with, else None."""
    try:
        if path == "-":
            head = sys.stdin.buffer.peek(4)[:4]
        else:
            with open(path, "rb") as raw:
                head = raw.read(4)
    except (OSError, ValueError, AttributeError):  # unreadable here: the reader will say why
        return None
    return next((name for magic, name in _MAGIC if head.startswith(magic)), None)


def _compression(path: str) -> tuple[str | None, list[str]]:
    """(compression, the other suffixes of the name): the last suffix's (``.gz``, ``.zst``),
    else the content's (gzip or Zstandard data named ``data.csv``, or piped in)."""
    suffixes = [s.lower() for s in Path(path).suffixes] if path != "-" else []
    compression = _COMPRESSIONS.get(suffixes[-1]) if suffixes else None
    if compression is not None:
        return compression, suffixes[:-1]
    # a regular file or standard input (peeked): reading a named pipe's first bytes here
    # would take them from the reader
    regular = path == "-" or os.path.isfile(path)
    return (_compression_in_content(path) if regular else None), suffixes


def detect(path: str, format: str | None = None) -> tuple[str, str | None]:
    """(format, compression) of ``path``: ``format`` if given, else from the extension, else
    from the content (:func:`sniff`); standard input is CSV unless told otherwise; the
    compression as :func:`_compression` finds it."""
    compression, suffixes = _compression(path)
    if format is None:
        format = _EXTENSIONS.get(suffixes[-1]) if suffixes else None
        if format is None:
            format = "csv" if path == "-" else sniff(path, compression)[0]
    if format not in FORMATS:
        raise DataError(path, f"unknown format {format!r}; use one of {FORMATS}.")
    return format, compression


def _head(path: str, compression: str | None, size: int = SNIFF_BYTES) -> bytes:
    try:
        with open(path, "rb") as raw:
            if compression == "gzip":
                return gzip.GzipFile(fileobj=raw).read(size)
            if compression == "zstd":
                import zstandard

                reader = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)
                return reader.read(size)
            return raw.read(size)
    except IsADirectoryError as exc:
        raise DataError(path, "is a folder, not a data file.") from exc
    except OSError as exc:
        raise DataError(path, f"cannot open: {exc.strerror or exc}") from exc


def _is_idx(head: bytes) -> bool:
    """Whether ``head`` starts as an IDX file does: two zero bytes, a type code (0x08 unsigned
    byte … 0x0E double) and the number of dimensions (1 to 4), then a 4-byte size for each."""
    return (
        len(head) >= 8
        and head[:2] == b"\x00\x00"
        and head[2] in (0x08, 0x09, 0x0B, 0x0C, 0x0D, 0x0E)
        and 1 <= head[3] <= 4
        and len(head) >= 4 + 4 * head[3]
    )


def sniff(path: str, compression: str | None = None) -> tuple[str, str | None]:
    """(format, separator) read from the first bytes of a file whose name says nothing.

    Parquet starts with ``PAR1``; JSON lines with ``{``. Otherwise the file is delimited text,
    and the separator is the first of tab, comma, semicolon and bar that cuts every complete
    sampled line into the same number (> 1) of fields, quotes respected (Python's csv module);
    failing that, the one with the most fields per line. A file that is none of these (binary
    bytes) is an error asking for ``--format``.
    """
    head = _head(path, compression)
    if head.startswith(b"PAR1"):
        return "parquet", None
    if head.lstrip().startswith(b"{"):
        return "jsonl", None
    if head.startswith(MODEL_FILE_MAGIC):
        raise DataError(
            path,
            "is an nbayes model file, not data: fit, cv and read_table take data (a table, "
            "or documents); predict, evaluate, explain and report take the model first (MODEL "
            "DATA); nbayes.load reads it in Python.",
        )
    if _is_idx(head):
        raise DataError(
            path,
            "is an IDX array file (MNIST's format), not a table; nbayes reads "
            f"{'/'.join(FORMATS)}. Write it as a table first: one row per image with its pixel "
            "values as columns (the bytes after the header, numpy.frombuffer), and the labels "
            "file's values as the target column.",
        )
    if b"\x00" in head:
        raise DataError(
            path, f"cannot tell the format from the content; pass --format ({'/'.join(FORMATS)})."
        )
    text = head.decode("utf-8", errors="replace")
    lines = [line for line in text.splitlines()[:100] if line.strip()]
    if len(head) == SNIFF_BYTES and len(lines) > 1:
        lines = lines[:-1]  # the last one may be cut
    return "csv", sniff_separator(lines)


def sniff_separator(lines: Sequence[str]) -> str:
    """The separator that splits ``lines`` most consistently (see :func:`sniff`)."""
    best, most = ",", 1.0
    for separator in _SEPARATORS:
        counts = [len(row) for row in csv.reader(lines, delimiter=separator)]
        if not counts:
            continue
        common = max(set(counts), key=counts.count)
        agree = counts.count(common) / len(counts)
        if common > 1 and agree >= 0.9:
            return separator
        if np.median(counts) > most:
            best, most = separator, float(np.median(counts))
    return best


def read_names(spec: str) -> list[str]:
    """Column names from ``--names``: ``a,b,c``, or a file with one name per line (or names
    separated by commas); blank lines and lines starting with ``#`` or ``|`` are skipped."""
    if os.path.isfile(spec):
        with open(spec, encoding="utf-8", errors="replace") as handle:
            lines = [
                line.strip() for line in handle if line.strip() and line.lstrip()[0] not in "#|"
            ]
        names = [name.strip() for line in lines for name in line.split(",") if name.strip()]
    else:
        names = [name.strip() for name in spec.split(",")]
    if not names or any(not name for name in names):
        raise ValueError(f"--names: expected comma-separated column names, got {spec!r}.")
    repeated = sorted(n for n, count in Counter(names).items() if count > 1)
    if repeated:
        raise ValueError(f"--names repeats the names {repeated}.")
    return names
