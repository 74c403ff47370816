"""The ``nbayes`` command line: fit, predict, evaluate, explain, inspect, cv, demo.

``fit``, ``predict`` and ``evaluate`` stream the data in chunks through the model's mergeable
statistics, so memory is bounded by the chunk size, not the file size. A progress bar (rows,
MB/s, ETA) goes to standard error when it is a terminal; results go to standard output or files.

Exit codes: 0 success; 2 usage error; 1 data or model error, reported on one line that names the
file, line and column. ``--debug`` shows the traceback instead.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from .exceptions import ModelFileError


class UsageError(Exception):
    """A command-line mistake detected after argument parsing (exit code 2)."""


# ---------------------------------------------------------------------- arguments
def _family(text: str) -> tuple[str, str]:
    name, sep, family = text.rpartition("=")
    if not sep or not name or not family:
        raise argparse.ArgumentTypeError(f"expected COLUMN=FAMILY, got {text!r}")
    return name, family


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text}")
    return value


def _data_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "data",
        metavar="DATA",
        help="CSV, TSV, Parquet or JSON lines file (.gz/.zst ok), or - for stdin",
    )
    parser.add_argument(
        "--format",
        choices=["csv", "tsv", "parquet", "jsonl"],
        help="data format (default: from the file name; csv for -)",
    )
    parser.add_argument(
        "--separator", help="field separator for CSV (default: ',' or tab for .tsv)"
    )
    parser.add_argument(
        "--missing",
        action="append",
        default=[],
        metavar="MARKER",
        help='a value meaning "missing", e.g. "?" (repeatable)',
    )
    parser.add_argument(
        "--skip-bad-rows",
        action="store_true",
        help="drop CSV rows with the wrong number of fields (counted) instead of stopping",
    )
    parser.add_argument(
        "--chunk-mb",
        type=_positive_int,
        default=16,
        help="chunk size in MiB (memory is bounded by it; default 16)",
    )


def _model_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--target", required=True, metavar="COL", help="the column holding the class labels"
    )
    parser.add_argument(
        "--family",
        action="append",
        type=_family,
        default=[],
        metavar="COL=FAMILY",
        help="family for a column: categorical, gaussian, kde, poisson, equal-width, "
        "equal-frequency, mdl, text (repeatable)",
    )
    parser.add_argument(
        "--continuous",
        default="gaussian",
        choices=["gaussian", "kde", "mdl", "equal-width", "equal-frequency"],
        help="family for numeric columns (default gaussian)",
    )
    parser.add_argument(
        "--alpha",
        type=float,
        default=1.0,
        help="Lidstone smoothing λ (1 = Laplace, 0 = maximum likelihood)",
    )
    parser.add_argument(
        "--prior",
        choices=["mle", "smoothed", "uniform"],
        default="mle",
        help="class prior (default mle: N_c/N)",
    )
    parser.add_argument(
        "--bins",
        type=_positive_int,
        default=10,
        help="intervals for equal-width/equal-frequency (default 10)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nbayes", description="Naive Bayes classification: y = argmax_c P(c) ∏ P(x_j|c)."
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    fit = commands.add_parser(
        "fit",
        help="fit a model on a data file (streamed) and save it",
        description="Fit a NaiveBayes model, streaming DATA in chunks, and save it as a "
        "model file.",
    )
    _data_options(fit)
    _model_options(fit)
    fit.add_argument(
        "-o", "--output", required=True, metavar="MODEL", help="model file to write (.nbm)"
    )
    fit.add_argument(
        "--loss",
        metavar="FILE",
        help="loss matrix CSV: header 'decision,<class>,...'; one row per decided class",
    )
    fit.add_argument(
        "--scheduler", metavar="ADDRESS", help="fit on a running Dask cluster (tcp://host:8786)"
    )

    predict = commands.add_parser(
        "predict",
        help="predict the classes of a data file",
        description="Predict with a saved model, streaming DATA; writes CSV to stdout or -o.",
    )
    predict.add_argument("model", metavar="MODEL")
    _data_options(predict)
    predict.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="output file (.csv, .tsv or .parquet); default: CSV on stdout",
    )
    predict.add_argument(
        "--proba", action="store_true", help="also write the posterior P(c|x) of every class"
    )

    evaluate = commands.add_parser(
        "evaluate",
        help="accuracy, precision/recall/F1, log loss, confusion matrix",
        description="Evaluate a saved model on labelled data (streamed).",
    )
    evaluate.add_argument("model", metavar="MODEL")
    _data_options(evaluate)
    evaluate.add_argument("--target", required=True, metavar="COL")
    evaluate.add_argument("--json", action="store_true", help="print the report as JSON")

    explain = commands.add_parser(
        "explain",
        help="the worked computation for one row",
        description="Show P(c), every P(x_j|c), their product and the posterior for one row.",
    )
    explain.add_argument("model", metavar="MODEL")
    _data_options(explain)
    explain.add_argument(
        "--row",
        type=int,
        required=True,
        metavar="N",
        help="data row to explain (0 = first row after the header)",
    )

    inspect = commands.add_parser(
        "inspect",
        help="the fitted model as a readable summary",
        description="Print a saved model: priors and each column's conditionals.",
    )
    inspect.add_argument("model", metavar="MODEL")

    cv = commands.add_parser(
        "cv",
        help="stratified k-fold cross-validation",
        description="Stratified cross-validation of a NaiveBayes model (reads DATA into memory).",
    )
    _data_options(cv)
    _model_options(cv)
    cv.add_argument("--folds", type=_positive_int, default=10, help="number of folds (default 10)")
    cv.add_argument("--seed", type=int, default=0, help="shuffling seed (default 0)")

    commands.add_parser(
        "demo",
        help="the seeds' worked example and a real data set, on bundled data",
        description="Run the README's main job on the bundled data.",
    )
    return parser


# ---------------------------------------------------------------------- helpers
def _reader(
    args: argparse.Namespace, missing: list[str] | None = None, *, quick: bool = False
) -> Any:
    from .readers import TableReader

    return TableReader(
        args.data,
        format=args.format,
        separator=args.separator,
        missing=args.missing if missing is None else missing,
        chunk_bytes=args.chunk_mb * 2**20,
        skip_bad_rows=args.skip_bad_rows,
        quick=quick,
    )


@contextmanager
def _progress(reader: Any, verb: str) -> Iterator[Any]:
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

    def batches() -> Iterator[Any]:
        from .readers import read_ahead

        # Polars' streaming engine reads ahead by itself; the careful reader needs a thread
        source = iter(reader) if getattr(reader, "quick", False) else read_ahead(iter(reader))
        for batch in source:
            bar.update(max(0, batch.bytes_read - bar.n))
            bar.set_postfix(rows=f"{batch.first_row + batch.frame.height:,}", refresh=False)
            yield batch

    try:
        yield batches()
    finally:
        bar.close()


def _model_from(args: argparse.Namespace):
    from .model import NaiveBayes

    return NaiveBayes(
        families=dict(args.family) or None,
        continuous=args.continuous,
        alpha=args.alpha,
        class_prior=args.prior,
        missing_values=args.missing or None,
        bins=args.bins,
    )


def _located(error: Exception, reader: Any, batch: Any) -> Exception:
    """Add the file and the line span of a batch to a model error raised while fitting it."""
    from .readers import DataError

    if isinstance(error, DataError):
        return error
    line = batch.first_line
    where = f"rows from line {line:,}" if line is not None else f"rows from row {batch.first_row:,}"
    return DataError(reader.path, f"{error} (in the {where})")


def _read_loss(path: str, classes: np.ndarray) -> np.ndarray:
    """A loss matrix file → a (K, K) array in the order of ``classes``."""
    import polars as pl

    try:
        table = pl.read_csv(path, infer_schema=False)
    except (OSError, pl.exceptions.PolarsError) as exc:
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


# ---------------------------------------------------------------------- commands
def _fit_streaming(args: argparse.Namespace, model: Any) -> tuple[Any, Any]:
    """partial_fit batch by batch: memory stays bounded by the chunk size.

    A CSV file on disk is first read quickly by Polars' streaming engine; if that meets
    anything it cannot locate or repair, the fit starts over with the careful reader (which
    names lines, skips bad rows, replaces bad bytes). Warnings of an abandoned pass are dropped.
    """
    from .readers import QuickReadAbandoned

    reader = _reader(args, quick=True)
    if reader.quick:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                _fit_batches(args, model, reader)
            except QuickReadAbandoned:
                caught = None
        if caught is not None:
            for warning in caught:
                warnings.showwarning(
                    warning.message, warning.category, warning.filename, warning.lineno
                )
            return _checked_fit(args, model, reader)
        model = _model_from(args)
        reader = _reader(args)
    _fit_batches(args, model, reader)
    return _checked_fit(args, model, reader)


def _fit_batches(args: argparse.Namespace, model: Any, reader: Any) -> None:
    from .readers import DataError

    with _progress(reader, "fit") as batches:
        for batch in batches:
            if args.target not in batch.frame.columns:
                raise DataError(
                    reader.path,
                    f"there is no target column {args.target!r}; the columns are "
                    f"{batch.frame.columns}.",
                )
            try:
                model.partial_fit(batch.frame, target=args.target)
            except ValueError as error:
                raise _located(error, reader, batch) from error


def _checked_fit(args: argparse.Namespace, model: Any, reader: Any) -> tuple[Any, Any]:
    from .readers import DataError

    if reader.columns is not None and args.target not in reader.columns:
        raise DataError(
            reader.path,
            f"there is no target column {args.target!r}; the columns are {reader.columns}.",
        )
    if not hasattr(model, "classes_"):
        message = (
            "the file has no data rows."
            if reader.rows == 0
            else f"the target column {args.target!r} is entirely missing."
        )
        raise DataError(reader.path, message)
    return model, reader


def _fit_on_cluster(args: argparse.Namespace, model: Any) -> Any:
    """Each Dask worker fits its partitions of the files; only the statistics travel."""
    if args.data == "-":
        raise UsageError("--scheduler has the workers read the files; it cannot read stdin.")
    from .distributed import fit_files

    try:
        return fit_files(model, args.data, args.target, args.scheduler)
    except ImportError as error:
        raise UsageError(str(error)) from error


def command_fit(args: argparse.Namespace) -> int:
    from .persist import save
    from .readers import DataError

    model = _model_from(args)
    skipped = ""
    if args.scheduler:
        model = _fit_on_cluster(args, model)
    else:
        model, reader = _fit_streaming(args, model)
        skipped = f", {reader.bad_rows:,} bad rows skipped" if reader.bad_rows else ""
    if len(model.classes_) < 2:
        raise DataError(
            args.data,
            f"the target has a single class ({model.classes_[0]!r}); a classifier needs at "
            "least two.",
        )
    if args.loss:
        model.set_params(loss=_read_loss(args.loss, model.classes_))
    save(model, args.output)
    print(
        f"fitted {model.class_count_.sum():,.0f} rows, {len(model.classes_)} classes, "
        f"{model.n_features_in_} columns{skipped} → {args.output}",
        file=sys.stderr,
    )
    return 0


def _markers(args: argparse.Namespace, model: Any) -> list[str]:
    """Missing-value markers for reading data for a saved model: those given now, else the
    ones it was fitted with (so that "?" in a numeric column reads as missing, not as text)."""
    from .tables import missing_markers

    if args.missing:
        return list(args.missing)
    return [str(m) for m in missing_markers(getattr(model, "missing_values", None))]


def _load(path: str) -> Any:
    from .persist import load

    return load(path)


def _predict_frames(model: Any, reader: Any, proba: bool) -> Iterator[Any]:
    import polars as pl

    with _progress(reader, "predict") as batches:
        for batch in batches:
            try:
                if proba:
                    p = model.predict_proba(batch.frame)
                    labels = (
                        model.classes_[np.argmax(p, axis=1)]
                        if model.loss is None
                        else model.predict(batch.frame)
                    )
                    columns = {"prediction": labels}
                    columns.update({f"P({c})": p[:, k] for k, c in enumerate(model.classes_)})
                else:
                    columns = {"prediction": model.predict(batch.frame)}
            except ValueError as error:
                raise _located(error, reader, batch) from error
            yield pl.DataFrame(columns)


def command_predict(args: argparse.Namespace) -> int:
    model = _load(args.model)
    reader = _reader(args, missing=_markers(args, model))
    frames = _predict_frames(model, reader, args.proba)
    out = args.output
    if out and Path(out).suffix.lower() in (".parquet", ".pq"):
        _write_parquet(frames, out)
    else:
        separator = "\t" if out and Path(out).suffix.lower() in (".tsv", ".tab") else ","
        handle = open(out, "w", newline="") if out else sys.stdout
        try:
            first = True
            for frame in frames:
                frame.write_csv(handle, separator=separator, include_header=first)
                first = False
            if first:
                handle.write("prediction\n")
        finally:
            if out:
                handle.close()
    return 0


def _write_parquet(frames: Iterator[Any], path: str) -> None:
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


def command_evaluate(args: argparse.Namespace) -> int:
    from .evaluation import Accumulator
    from .readers import DataError

    model = _load(args.model)
    reader = _reader(args, missing=_markers(args, model))
    accumulator = Accumulator(model.classes_)
    with _progress(reader, "evaluate") as batches:
        for batch in batches:
            if args.target not in batch.frame.columns:
                raise DataError(
                    reader.path,
                    f"there is no target column {args.target!r}; the columns are "
                    f"{batch.frame.columns}.",
                )
            truth = batch.frame.get_column(args.target)
            labelled = truth.is_not_null()
            frame = batch.frame.filter(labelled)
            try:
                proba = model.predict_proba(frame)
                predicted = model.predict(frame)
            except ValueError as error:
                raise _located(error, reader, batch) from error
            accumulator.update(truth.filter(labelled).to_numpy(), predicted, proba)
    if accumulator.n == 0:
        raise DataError(reader.path, "there are no labelled rows to evaluate on.")
    report = accumulator.report()
    print(json.dumps(report.as_dict(), indent=2) if args.json else report.format())
    return 0


def command_explain(args: argparse.Namespace) -> int:
    from .readers import DataError

    model = _load(args.model)
    if not hasattr(model, "explain"):
        raise UsageError(
            f"explain needs a NaiveBayes model; {args.model} holds a {type(model).__name__}."
        )
    if args.row < 0:
        raise UsageError("--row must be >= 0.")
    reader = _reader(args, missing=_markers(args, model))
    for batch in reader:
        if batch.first_row <= args.row < batch.first_row + batch.frame.height:
            row = batch.frame.slice(args.row - batch.first_row, 1)
            line = (
                f", line {batch.first_line + args.row - batch.first_row:,}"
                if batch.first_line
                else ""
            )
            print(f"{reader.path}, row {args.row:,}{line}\n")
            print(model.explain(row))
            return 0
    raise DataError(
        reader.path, f"there is no row {args.row:,}; the file has {reader.rows:,} data rows."
    )


def command_inspect(args: argparse.Namespace) -> int:
    model = _load(args.model)
    if hasattr(model, "summary"):
        print(model.summary())
        return 0
    print(repr(model))
    print(f"classes: {list(model.classes_)}")
    print(f"class counts: {model.class_count_.tolist()}")
    print(f"features: {model.n_features_in_}")
    return 0


def command_cv(args: argparse.Namespace) -> int:
    from .evaluation import Accumulator, stratified_folds
    from .readers import DataError, read_all

    reader = _reader(args)
    frame = read_all(reader)
    if args.target not in frame.columns:
        raise DataError(
            reader.path,
            f"there is no target column {args.target!r}; the columns are {frame.columns}.",
        )
    frame = frame.filter(frame.get_column(args.target).is_not_null())
    if frame.height == 0:
        raise DataError(reader.path, "there are no labelled rows.")
    labels = frame.get_column(args.target).to_numpy()
    try:
        folds = stratified_folds(labels, args.folds, seed=args.seed)
    except ValueError as error:
        raise DataError(reader.path, str(error)) from error
    classes = np.unique(labels)
    accumulator = Accumulator(classes)
    scores = []
    for k, test in enumerate(folds):
        train = np.setdiff1d(np.arange(frame.height), test)
        model = _model_from(args).fit(frame[train], target=args.target)
        test_frame = frame[test]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            proba = model.predict_proba(test_frame)
            predicted = model.predict(test_frame)
        truth = test_frame.get_column(args.target).to_numpy()
        scores.append(float(np.mean(predicted.astype(str) == truth.astype(str))))
        full = np.zeros((len(test), len(classes)))
        full[:, np.searchsorted(classes, model.classes_)] = proba
        accumulator.update(truth, predicted, full)
        print(f"fold {k + 1:>2}: accuracy {scores[-1]:.4f}", file=sys.stderr)
    print(
        f"{args.folds}-fold stratified cross-validation on {frame.height:,} rows (seed {args.seed})"
    )
    print(f"mean accuracy over folds {np.mean(scores):.4f} ± {np.std(scores):.4f}\n")
    print(accumulator.report().format())
    return 0


def command_demo(args: argparse.Namespace) -> int:
    from .demo import run

    sys.stdout.write(run())
    return 0


COMMANDS = {
    "fit": command_fit,
    "predict": command_predict,
    "evaluate": command_evaluate,
    "explain": command_explain,
    "inspect": command_inspect,
    "cv": command_cv,
    "demo": command_demo,
}


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Warnings as one plain line on stderr, without Python's file:line prefix."""
    print(f"nbayes: warning: {message}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.debug:
        warnings.showwarning = _show_warning
    try:
        return COMMANDS[args.command](args)
    except UsageError as error:
        if args.debug:
            raise
        parser.print_usage(sys.stderr)
        print(f"nbayes: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader of our output went away (e.g. `| head`): stop quietly, like other tools
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except (ValueError, TypeError, OSError, KeyError, ModelFileError) as error:
        if args.debug:
            raise
        message = " ".join(str(error).split())
        print(f"nbayes: error: {message}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("nbayes: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
