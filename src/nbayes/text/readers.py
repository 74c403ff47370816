"""Reading labelled documents from the two common file layouts.

* :func:`read_text_folder`: one subfolder per class, one document per file (20 Newsgroups,
  scikit-learn's ``load_files``);
* :func:`read_labeled_lines`: one document per line, ``label<sep>text`` (the SMS Spam
  Collection: ``ham<TAB>Go until jurong point, ...``).

Files are read as bytes, never decoded with a guessed encoding: documents are returned as
``bytes`` and the tokenizer decodes them as UTF-8, replacing ill-formed sequences with U+FFFD and
counting them (``decode=True`` returns ``str`` decoded the same way). Labels are decoded the same
way and stripped of surrounding whitespace. With ``chunksize`` the functions return an iterator of
``(documents, labels)`` chunks instead, so that inputs larger than memory stream into
``partial_fit``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from .._labelled import class_documents, labelled_lines

Documents = tuple[list, np.ndarray]


def _doc(raw: bytes, decode: bool) -> bytes | str:
    return raw.decode("utf-8", "replace") if decode else raw


def _chunks(pairs: Iterator[tuple[bytes | str, str]], chunksize: int) -> Iterator[Documents]:
    texts: list = []
    labels: list[str] = []
    for text, label in pairs:
        texts.append(text)
        labels.append(label)
        if len(texts) >= chunksize:
            yield texts, np.asarray(labels)
            texts, labels = [], []
    if texts:
        yield texts, np.asarray(labels)


def _collect(pairs: Iterator[tuple[bytes | str, str]]) -> Documents:
    texts: list = []
    labels: list[str] = []
    for text, label in pairs:
        texts.append(text)
        labels.append(label)
    return texts, np.asarray(labels)


def _check_chunksize(chunksize: int | None) -> None:
    if chunksize is not None and (
        isinstance(chunksize, bool) or not isinstance(chunksize, int) or chunksize < 1
    ):
        raise ValueError(f"chunksize must be None or an int >= 1, got {chunksize!r}.")


def _folder_pairs(root: Path, decode: bool) -> Iterator[tuple[bytes | str, str]]:
    classes = sorted(
        entry.name
        for entry in os.scandir(root)
        if entry.is_dir() and not entry.name.startswith(".")
    )
    if not classes:
        raise ValueError(f"{root}: no class subfolders (expected one folder per class).")
    for name in classes:
        empty = (
            "class folder with no documents; the class is left out unless given in classes= "
            "to partial_fit."
        )
        for file in class_documents(root / name, empty, stacklevel=4):
            yield _doc((root / name / file).read_bytes(), decode), name


def read_text_folder(
    path: str | os.PathLike, *, decode: bool = False, chunksize: int | None = None
) -> Documents | Iterator[Documents]:
    """Documents and labels from a folder with one subfolder per class and one file per
    document. Classes and files are taken in sorted order; hidden entries are skipped.

    Returns ``(documents, labels)`` (documents are ``bytes``, or ``str`` with ``decode=True``),
    or an iterator of such chunks of ``chunksize`` documents.
    """
    root = Path(path)
    if not root.is_dir():
        raise FileNotFoundError(f"{root} is not a folder.")
    _check_chunksize(chunksize)
    pairs = _folder_pairs(root, decode)
    return _collect(pairs) if chunksize is None else _chunks(pairs, chunksize)


def _line_pairs(path: Path, sep: bytes, decode: bool) -> Iterator[tuple[bytes | str, str]]:
    for number, line, label, text in labelled_lines(path, sep):
        if label is None:
            raise ValueError(
                f"{path}, line {number}: no {sep!r} separating a label from the text: {line[:60]!r}"
            )
        yield _doc(text, decode), label.decode("utf-8", "replace").strip()


def read_labeled_lines(
    path: str | os.PathLike,
    sep: str = "\t",
    *,
    decode: bool = False,
    chunksize: int | None = None,
) -> Documents | Iterator[Documents]:
    """Documents and labels from a file with one ``label<sep>text`` per line (the label is
    before the first ``sep``; line ends ``\\n`` or ``\\r\\n``; blank lines are skipped). A line
    without ``sep`` raises ValueError naming the line.

    Returns ``(documents, labels)`` (documents are ``bytes``, or ``str`` with ``decode=True``),
    or an iterator of such chunks of ``chunksize`` documents.
    """
    file = Path(path)
    if not file.is_file():
        raise FileNotFoundError(f"{file} is not a file.")
    if not isinstance(sep, str) or not sep:
        raise ValueError(f"sep must be a non-empty string, got {sep!r}.")
    _check_chunksize(chunksize)
    pairs = _line_pairs(file, sep.encode("utf-8"), decode)
    return _collect(pairs) if chunksize is None else _chunks(pairs, chunksize)
