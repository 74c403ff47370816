"""Labelled documents read in chunks (:class:`DocumentReader`): a folder with one subfolder per
class, or a file of ``label<separator>text`` lines."""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterator
from pathlib import Path

import polars as pl

from ._labelled import class_documents, labelled_lines
from ._read_common import CHUNK_BYTES, Batch, DataError, SkipsBadRows, _snippet


class DocumentReader(SkipsBadRows):
    """Labelled documents as :class:`Batch` es of a table with the columns ``label`` and
    ``text`` (and ``file`` for a folder), in chunks of about ``chunk_bytes`` of text.

    Two layouts (those of :func:`nbayes.read_text_folder` and :func:`nbayes.read_labeled_lines`):

    * a folder with one subfolder per class and one document per file (20 Newsgroups); a folder
      of files without subfolders gives documents without a label (for prediction). Classes
      and files are taken in sorted order; hidden entries are skipped; ``file`` is the path
      relative to the folder;
    * a file with one ``label<separator>text`` per line (the SMS Spam Collection): the label is
      before the first separator; blank lines are skipped; a line without the separator is an
      error naming it (or, with ``skip_bad_rows``, is dropped and counted).

    Bytes that are not UTF-8 are replaced by U+FFFD, with one warning per reader that counts the
    documents concerned.
    """

    def __init__(
        self,
        path: str | os.PathLike,
        *,
        separator: str = "\t",
        chunk_bytes: int = CHUNK_BYTES,
        skip_bad_rows: bool = False,
    ) -> None:
        self.path = str(path)
        self.folder = self.path != "-" and os.path.isdir(self.path)
        if not self.folder and self.path != "-" and not os.path.isfile(self.path):
            raise DataError(self.path, "cannot open: no such file or folder.")
        if not separator:
            raise DataError(self.path, "the separator cannot be empty.")
        self.separator = separator
        self.chunk_bytes = max(int(chunk_bytes), 1024)
        self.skip_bad_rows = skip_bad_rows
        self.format = "folder" if self.folder else "lines"
        self.columns: list[str] | None = ["file", "label", "text"] if self.folder else None
        self.quick = False
        self.bad_rows = 0
        self.bad_lines: list[int] = []
        self.rows = 0
        self._bytes = 0
        self._undecodable = 0
        self._first_undecodable: str | None = None

    @property
    def size(self) -> int | None:
        return None if self.folder or self.path == "-" else os.path.getsize(self.path)

    def _decode(self, raw: bytes, where: str) -> str:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            self._undecodable += 1
            self._first_undecodable = self._first_undecodable or where
            return raw.decode("utf-8", errors="replace")

    def _documents(self) -> Iterator[tuple[str | None, str | None, str, int]]:
        """(file, label, text, size in bytes) of every document."""
        if not self.folder:
            for number, line, label, text in labelled_lines(self.path, self.separator.encode()):
                if label is None:
                    if not self.skip_bad_rows:
                        raise DataError(
                            self.path,
                            f"no {self.separator!r} separating a label from the text: "
                            f"{_snippet(line.decode('utf-8', 'replace'))}; pass "
                            "--skip-bad-rows (skip_bad_rows=True in Python) to drop such lines.",
                            line=number,
                        )
                    self._skip([number])
                    continue
                text_ = self._decode(text, f"line {number:,}")
                yield None, label.decode("utf-8", "replace").strip(), text_, len(line) + 1
            return
        root = Path(self.path)
        entries = sorted(
            (e for e in os.scandir(root) if not e.name.startswith(".")), key=lambda e: e.name
        )
        classes = [e.name for e in entries if e.is_dir()]
        if not classes:
            for entry in entries:
                if entry.is_file():
                    raw = Path(entry.path).read_bytes()
                    yield entry.name, None, self._decode(raw, entry.name), len(raw)
            return
        for name in sorted(classes):
            empty = "a class folder with no documents; the class is left out."
            files = class_documents(root / name, empty, stacklevel=2)
            for file in files:
                relative = f"{name}/{file}"
                raw = (root / name / file).read_bytes()
                yield relative, name, self._decode(raw, relative), len(raw)

    def __iter__(self) -> Iterator[Batch]:
        files: list[str | None] = []
        labels: list[str | None] = []
        texts: list[str] = []
        size = 0
        for file, label, text, length in self._documents():
            files.append(file)
            labels.append(label)
            texts.append(text)
            size += length
            self._bytes += length
            if size >= self.chunk_bytes:
                yield self._batch(files, labels, texts)
                files, labels, texts, size = [], [], [], 0
        if texts:
            yield self._batch(files, labels, texts)
        if self.rows == 0 and self.bad_rows == 0:
            raise DataError(self.path, "there are no documents.")
        if self._undecodable:
            warnings.warn(
                f"{self.path}: {self._undecodable:,} documents hold bytes that are not UTF-8 "
                f"(first: {self._first_undecodable}); they were replaced by U+FFFD.",
                UserWarning,
                stacklevel=2,
            )

    def _batch(self, files: list, labels: list, texts: list) -> Batch:
        columns: dict[str, pl.Series] = {}
        if self.folder:
            columns["file"] = pl.Series("file", files, dtype=pl.String)
        columns["label"] = pl.Series("label", labels, dtype=pl.String)
        columns["text"] = pl.Series("text", texts, dtype=pl.String)
        frame = pl.DataFrame(columns)
        self.columns = frame.columns
        batch = Batch(frame, None, self.rows, self._bytes)
        self.rows += frame.height
        return batch
