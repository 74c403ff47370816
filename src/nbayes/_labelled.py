"""The two layouts of labelled documents, listed and split once for both document readers
(:func:`nbayes.read_text_folder` and :func:`nbayes.read_labeled_lines`, and the command line's):
a folder with one subfolder per class, and a file of ``label<separator>text`` lines."""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path


def class_documents(folder: Path, empty: str, stacklevel: int) -> list[str]:
    """The names of the files of ``folder`` in sorted order, hidden ones (``.name``) left out;
    where there are none, the warning ``"<folder>: <empty>"`` (``stacklevel`` as seen from the
    caller)."""
    files = sorted(
        entry.name
        for entry in os.scandir(folder)
        if entry.is_file() and not entry.name.startswith(".")
    )
    if not files:
        warnings.warn(f"{folder}: {empty}", UserWarning, stacklevel=stacklevel + 1)
    return files


def labelled_lines(
    path: str | os.PathLike, separator: bytes
) -> Iterator[tuple[int, bytes, bytes | None, bytes]]:
    """(line number, line, label, text) of each line of the file (``"-"``: standard input)
    that is not blank, its line end removed: the label is before the first ``separator``, None
    where there is none."""
    if str(path) == "-":
        yield from _split_lines(sys.stdin.buffer, separator)
        return
    with open(path, "rb") as handle:
        yield from _split_lines(handle, separator)


def _split_lines(
    handle: Iterable[bytes], separator: bytes
) -> Iterator[tuple[int, bytes, bytes | None, bytes]]:
    for number, line in enumerate(handle, start=1):
        line = line.rstrip(b"\r\n")
        if not line.strip():
            continue
        label, found, text = line.partition(separator)
        yield number, line, label if found else None, text
