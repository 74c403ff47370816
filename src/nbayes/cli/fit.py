"""``nbayes fit``: fit a model on a data file or folder of documents, streamed in chunks (or on
a Dask cluster), and save it."""

from __future__ import annotations

import argparse
import contextlib
import copy
import io
import logging
import os
import re
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import polars as pl

from .._pass_log import logged_pass
from ..readers import DataError, QuickReadAbandoned, bad_rows_skipped
from ._args import UsageError
from ._reading import (
    Reader,
    located,
    open_reader,
    progress,
    require_target,
)

if TYPE_CHECKING:
    from ._models import Learner

#: What a fit that may read quickly returns: (learner, the reader it read with).
_Fitted = TypeVar("_Fitted")

# The models (and with them Numba, SciPy and every estimator) are not imported with this module
# but where they are used, or on a thread while Polars reads the first batch of a file
# (_prepare_models): a usage error or a missing file is reported without them.


def run(args: argparse.Namespace) -> int:
    if not args.verbose:
        return _fit_and_save(args)
    with _passes_reported():
        return _fit_and_save(args)


@contextlib.contextmanager
def _passes_reported() -> Iterator[None]:
    """Each pass's line of the ``nbayes`` logger (:mod:`nbayes._pass_log`) on standard error,
    for the time of the block."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("nbayes: %(message)s"))
    logger = logging.getLogger("nbayes")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def _fit_and_save(args: argparse.Namespace) -> int:
    if args.loss:  # a loss file that cannot be read is reported before the fit, not after it
        with open(args.loss, "rb"):
            pass
    reader = None
    if args.scheduler:
        learner = _fit_on_cluster(args)
    elif args.model != "naive":
        learner, reader = _settled(args, _fit_in_passes)
    else:
        with logged_pass("the table's pass (counts, value sketches, row sample)"):
            learner, reader = _fit_streaming(args)
    skipped = ""
    if reader is not None and reader.bad_rows:
        skipped = f", {bad_rows_skipped(reader.bad_rows, reader.bad_lines)}"
    model = learner.model
    if len(model.classes_) < 2:
        label = model.classes_[0]
        label = label.item() if hasattr(label, "item") else label  # as Python shows it
        raise DataError(
            args.data,
            f"the target has a single class ({label!r}); a classifier needs at least two.",
        )
    if args.model == "naive" and not args.scheduler:  # (the other fits warn as they fit)
        from ..labels import warn_missing_like

        warn_missing_like(model.classes_)
    from ..persist import save

    if args.loss:  # every model nbayes fit makes has NaiveBayes's parameter name for it
        model.set_params(loss=read_loss(args.loss, model.classes_))
    # a naive model derives its choices and calibration here, when they are first needed
    with logged_pass("the derived values (choices, calibration) and the model file written"):
        save(model, args.output)
    rows = model.class_count_.sum()
    what = "documents" if learner.text is not None else "rows"
    columns = "" if learner.text is not None else _columns_summary(model)
    print(
        f"fitted {rows:,.0f} {what}, {len(model.classes_)} classes{columns}{skipped} "
        f"→ {args.output}",
        file=sys.stderr,
    )
    return 0


def _columns_summary(model: Any) -> str:
    """The summary line's part ``", 14 columns"``, with how many were left out (identifiers)."""
    families = getattr(model, "families_", None)
    if not isinstance(families, dict) or not families:
        return f", {model.n_features_in_} columns"
    left_out = sum(family == "ignore" for family in families.values())
    return f", {len(families)} columns" + (f" ({left_out} left out)" if left_out else "")


def _fit_streaming(args: argparse.Namespace) -> tuple[Learner, Reader]:
    """:func:`_fit_streaming_once`, with the families settled on all the rows
    (:func:`_settled`)."""
    return _settled(args, _fit_streaming_once)


def _settled(
    args: argparse.Namespace, fit: Callable[[argparse.Namespace], tuple[Learner, Reader]]
) -> tuple[Learner, Reader]:
    """``fit(args)``; where a column's family over all the rows (a string column's by the text
    and identifier rules, a numeric column's by its distinct values) is not the one the first
    batch gave it — free text or an identifier that its first rows did not show, say — the data
    are read again with that family named, so that the model is the one ``fit`` gives on the
    whole table, and the first reading's warnings, which spoke of its families, are dropped.
    Standard input cannot be read again: the model keeps the first batch's families, with a
    warning naming the columns."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        learner, reader = fit(args)
    settle = learner.families_to_settle()
    if not settle or args.data == "-":
        for warning in caught:
            warnings.warn_explicit(
                warning.message, warning.category, warning.filename, warning.lineno
            )
    if not settle:
        return learner, reader
    shown = ", ".join(f"{name!r} as {family!r}" for name, family in settle.items())
    if args.data == "-":
        warnings.warn(
            f"over all its rows, standard input reads {shown}, not as its first rows "
            "suggested; standard input cannot be read again, so the model keeps the first "
            "rows' families. Name them with --family COL=FAMILY to fit as one fit of all the "
            "rows would.",
            UserWarning,
            stacklevel=2,
        )
        return learner, reader
    print(
        f"nbayes: over all the rows {args.data} reads {shown}, not as its first rows suggested: "
        "reading it again with those families.",
        file=sys.stderr,
    )
    again = copy.copy(args)
    again.family = [*args.family, *settle.items()]
    return fit(again)


def _fit_streaming_once(args: argparse.Namespace) -> tuple[Learner, Reader]:
    """Read the data and fit batch by batch with ``partial_fit`` (see :func:`_fit_batches`),
    memory bounded by the chunk size.

    A CSV file on disk is first read quickly by Polars' streaming engine; if that meets
    anything it cannot locate or repair, the fit starts over with the careful reader (which
    names lines, skips bad rows, replaces bad bytes). Warnings of an abandoned pass are dropped.
    """
    reader = open_reader(args, quick=True)
    if os.path.isfile(args.data):  # (a file that cannot be found is reported at once)
        _prepare_models()
    if not reader.quick:
        return _checked_fit(args, _fit_batches(args, reader, quiet=False), reader)

    def attempt(quick: bool) -> tuple[Learner | None, Reader]:
        current = reader if quick else open_reader(args)
        return _fit_batches(args, current, quiet=not quick), current

    return _checked_fit(args, *_quick_then_careful(attempt))


def _quick_then_careful(fit: Callable[[bool], _Fitted]) -> _Fitted:
    """``fit(True)`` (the quick reader), its warnings given again; where the quick reading is
    abandoned, ``fit(False)`` (the careful reader), the abandoned attempt's warnings dropped."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fitted = fit(True)
        except QuickReadAbandoned:
            caught = None
    if caught is None:
        return fit(False)
    for warning in caught:
        warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
    return fitted


def _prepare_models() -> None:
    """Import the models and set Numba up (about a second) on a thread while the first batch
    is read: Polars parses without holding the GIL, so the two overlap instead of following
    each other. The fit imports them again where it needs them (waiting for this import if it
    is still running) and reports any error itself."""

    def prepare() -> None:
        try:
            from .. import _kernels
            from . import _models  # noqa: F401

            _kernels.largest_magnitude_flat(np.zeros(1))  # the first kernel sets Numba up
        except Exception:  # raised again, and reported, by the fit itself
            pass

    threading.Thread(target=prepare, name="nbayes-prepare", daemon=True).start()


def _fit_batches(args: argparse.Namespace, reader: Reader, *, quiet: bool) -> Learner | None:
    """The learner fitted on every batch with ``partial_fit`` (None when there were none); the
    learner is chosen from the first batch. ``quiet``: its notes were given by an abandoned
    quick pass. A calibrated NaiveBayes keeps its calibration's row sample in its statistics,
    so the batches give the model ``NaiveBayes().fit`` gives on the whole table, in the memory
    of one batch."""
    learner = None
    unlabelled = _Unlabelled(skipping=args.skip_bad_rows)
    with progress(reader, "fit") as batches:
        for batch in batches:
            if learner is None:
                from ._models import learner_for  # see the imports

                target = require_target(args, reader.path, batch.frame.columns)
                learner = learner_for(args, reader.path, batch.frame, target, quiet=quiet)
            else:
                require_target(args, reader.path, batch.frame.columns)
            frame = unlabelled.labelled(batch, learner.target)
            if frame.height == 0:
                continue
            try:
                learner.partial_fit(frame)
            except ValueError as error:
                raise located(error, reader, batch) from error
            learner.summarise_columns(frame)
    unlabelled.warn()  # (a table without a labelled row: _checked_fit says so)
    return learner


class _Unlabelled:
    """The rows a streamed fit drops for a missing label, over all the batches: one warning at
    the end, naming the first one by its row in the table read (a model warns of each batch
    apart, counting from the batch's first row). Where bad rows are skipped (``skipping``),
    the rows kept no longer count the file's rows, so the first one is named by the line of
    its batch's first row instead."""

    def __init__(self, *, skipping: bool = False) -> None:
        self.count, self.first, self.labelled_rows = 0, -1, 0
        self.skipping, self.first_line = skipping, None

    def labelled(self, batch: Any, target: str) -> pl.DataFrame:
        """The batch's rows whose label is present."""
        label = batch.frame.get_column(target)
        frame = batch.frame
        if label.null_count():
            missing = label.is_null()
            if self.first < 0:
                self.first = batch.first_row + int(missing.arg_true()[0])
                self.first_line = batch.first_line
            self.count += int(missing.sum())
            frame = frame.filter(~missing)
        self.labelled_rows += frame.height
        return frame

    def warn(self) -> None:
        from ..labels import warn_dropped

        if not (self.count and self.labelled_rows):
            return
        if self.skipping and self.first_line is not None:
            warnings.warn(
                f"{self.count} row(s) with a missing target were dropped (the first in the rows "
                f"from line {self.first_line:,}).",
                UserWarning,
                stacklevel=3,
            )
        else:
            warn_dropped(self.count, self.first, stacklevel=3)


def _fit_in_passes(args: argparse.Namespace) -> tuple[Learner, Reader]:
    """A semi-naive model of several passes reads the file once, spilling the rows as read to a
    temporary folder that its later passes read (the structure's, then the correction's); where
    no spill can be written, once per pass: so a file, not standard input.

    A CSV file is read by Polars' streaming engine, as :func:`_fit_streaming_once` reads it;
    if that meets anything it cannot locate or repair, the fit starts over with the careful
    reader, and the warnings of the abandoned fit are dropped."""
    if args.data == "-":
        return _fit_one_pass(args)
    return _quick_then_careful(lambda quick: _fit_passes_reading(args, quick=quick))


def _fit_passes_reading(args: argparse.Namespace, *, quick: bool) -> tuple[Learner, Reader]:
    """:func:`_fit_in_passes` with the quick reader (where it applies) or the careful one."""
    readers: list[Reader] = []
    # counted on the first read: every read gives the same rows
    unlabelled = _Unlabelled(skipping=args.skip_bad_rows)

    def batches():
        reader = open_reader(args, quick=quick)
        readers.append(reader)
        first_pass = len(readers) == 1
        # the careful reader parses on a thread of its own while the pass takes earlier
        # batches (the quick one's Polars engine reads ahead by itself), as in a naive fit
        with progress(reader, "fit" if first_pass else f"fit (read {len(readers)})") as read:
            for batch in read:
                # the first read counts the rows without a label; the later ones drop them
                frame = (
                    unlabelled.labelled(batch, target)
                    if first_pass
                    else learner.labelled(batch.frame)
                )
                if frame.height == 0:
                    continue
                if first_pass:
                    learner.summarise_columns(frame)
                yield frame

    first = next(iter(open_reader(args)), None)
    if first is None:
        raise DataError(args.data, "the file has no data rows.")
    from ._models import learner_for

    target = require_target(args, args.data, first.frame.columns)
    learner = learner_for(args, args.data, first.frame, target)
    try:
        learner.model.fit_passes(batches, target=target)
        unlabelled.warn()
    except ValueError as error:
        if unlabelled.count and not unlabelled.labelled_rows:  # as _checked_fit says it
            missing = f"the target column {target!r} is entirely missing."
            raise DataError(args.data, missing) from None
        # the table's pass finished (its last choice, the missing modes, is taken), so the
        # first read gave every row; a later pass failed, and the first rows' families were
        # not all the rows' (a column of free text counted as categories can exhaust the table
        # budget): _settled reads the data again with those families
        if hasattr(learner.model, "missing_modes_") and learner.families_to_settle():
            return learner, readers[-1]
        if isinstance(error, DataError):  # the reader's: located already, file name included
            raise
        raise DataError(args.data, str(error)) from error
    return learner, readers[-1]


def _refuse_passes(name: str, model: Any) -> None:
    """Refuse, in one line, a model that needs more than one reading of its data: for the
    structure's own passes first (no option changes them), else naming every option that must
    change together (not one per attempt)."""
    structure = getattr(model, "_new_model", None)
    if structure is not None and structure().passes > 1:
        _refuse_structure(name)
    needs = []
    if getattr(model, "discriminative", False):
        needs.append(("learns its discriminative weights from all rows", "--discriminative off"))
    if getattr(model, "missing", "skip") != "skip" and name != "naive":
        needs.append(
            ("chooses what a missing value means knowing every value", "--missing-as skip")
        )
    if needs:
        reasons, options = (" and ".join(part) for part in zip(*needs, strict=True))
        raise UsageError(
            f"--model {name} {reasons}, reading the data once per pass; give a file, not "
            f"standard input, or {options}."
        )
    if not hasattr(model, "partial_fit"):
        _refuse_structure(name)


def _refuse_structure(name: str) -> None:
    raise UsageError(
        f"--model {name} learns its structure from all rows before it counts them, so it reads "
        "the data once per pass; give a file, not standard input."
    )


def _fit_one_pass(args: argparse.Namespace) -> tuple[Learner, Reader]:
    """Standard input is read once: a one-pass structure over categorical columns takes its
    batches with ``partial_fit``; anything that needs another pass is refused in one line."""
    from ._models import learner_for

    reader = open_reader(args)
    learner = None
    unlabelled = _Unlabelled(skipping=args.skip_bad_rows)
    for batch in reader:
        if learner is None:
            target = require_target(args, args.data, batch.frame.columns)
            learner = learner_for(args, args.data, batch.frame, target)
            _refuse_passes(args.model, learner.model)
        frame = unlabelled.labelled(batch, target)
        if frame.height == 0:
            continue
        try:
            learner.model.partial_fit(frame, target=target)
        except ValueError as error:
            numeric = re.search(r"\((\[.*?\])\)", str(error))
            if "cannot cut numeric columns" in str(error) and numeric:
                raise DataError(
                    args.data,
                    f"standard input is read once, but numeric columns {numeric.group(1)} need "
                    "their cut points from all rows first; give a file, or name them with "
                    "--family COL=categorical.",
                ) from error
            raise DataError(args.data, str(error)) from error
        learner.summarise_columns(frame)
    if learner is None:
        raise DataError(args.data, "the input has no data rows.")
    unlabelled.warn()  # (a table without a labelled row: _checked_fit says so)
    return learner, reader


def _checked_fit(args: argparse.Namespace, learner: Learner | None, reader: Reader):
    if reader.columns is not None:
        require_target(args, reader.path, reader.columns)
    if learner is None or not learner.fitted:
        message = (
            "the file has no data rows."
            if reader.rows == 0
            else f"the target column {learner.target if learner else args.target!r} is "
            "entirely missing."
        )
        if reader.format == "folder":
            message = (
                "the folder has no subfolders, so its documents have no class: to fit, put "
                "each class's documents in a subfolder named after the class (a folder of "
                "files alone is documents to predict)."
                if reader.rows
                else "the folder holds no documents."
            )
        raise DataError(reader.path, message)
    empty = learner.unobserved()
    if empty:  # as NaiveBayes.fit on the whole table
        from ..schema import unobserved_column

        raise DataError(reader.path, str(unobserved_column(empty[0])))
    return learner, reader


def _fit_on_cluster(args: argparse.Namespace) -> Learner:
    """Each Dask worker fits its partitions of the files; only the statistics travel."""
    if args.data == "-":
        raise UsageError("--scheduler has the workers read the files; it cannot read stdin.")
    if args.target is None:
        raise UsageError("--scheduler fits tables: name the --target column.")
    from ..distributed import fit_files
    from ._cluster import cluster_reading
    from ._models import Learner, check_options, table_model

    check_options(args, text=False)
    file_format, options, target = cluster_reading(args)
    # a semi-naive structure's passes each run as a map over the files' partitions and a
    # reduction of their statistics (nbayes.distributed), as NaiveBayes's one pass does
    families = dict(args.family)
    model = table_model(args, families)
    # without Dask, fit_files raises MissingDependencyError naming the install: exit 1, one line
    model = fit_files(model, args.data, target, args.scheduler, file_format=file_format, **options)
    return Learner(model, target)


def read_loss(path: str, classes: np.ndarray) -> np.ndarray:
    """A loss matrix file → a (K, K) array in the order of ``classes``."""
    with open(path, "rb") as handle:  # a missing file: "cannot read 'FILE': no such file"
        content = handle.read()
    try:
        table = pl.read_csv(io.BytesIO(content), infer_schema=False)
    except pl.exceptions.PolarsError as exc:
        raise UsageError(f"cannot read the loss file {path}: {exc}") from exc
    names = [str(c) for c in classes]
    decided = table.get_column(table.columns[0]).to_list()
    truths = table.columns[1:]
    if sorted(decided) != sorted(names) or sorted(truths) != sorted(names):
        raise UsageError(
            f"{path}: the loss matrix must name every class once as a row and as a column; "
            f"classes are {names}, rows {decided}, columns {truths}."
        )
    matrix = np.empty((len(names), len(names)))
    for i, name in enumerate(decided):
        row = table.row(i)
        for j, truth in enumerate(truths):
            try:
                matrix[names.index(name), names.index(truth)] = float(row[j + 1])
            except (TypeError, ValueError) as exc:
                raise UsageError(
                    f"{path}: loss[{name}][{truth}] is not a number: {row[j + 1]!r}"
                ) from exc
    return matrix
