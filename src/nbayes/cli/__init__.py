"""The ``nbayes`` command line: fit, predict, evaluate, explain, inspect, cv, report, demo.

One module per command (``fit.py``, ``predict.py``, …, each with ``run(args) -> int``), imported
only when its command runs; the parser (``_parser.py``, built from the argument groups in
``_args.py``) imports nothing heavy, so ``nbayes --help`` stays quick. Shared parts: reading data
for a command (``_reading.py``), building a model from the options (``_models.py``), writing
results (``_output.py``).

``fit``, ``predict`` and ``evaluate`` stream the data in chunks through the model's mergeable
statistics, so memory is bounded by the chunk size, not the file size. A progress bar (rows,
MB/s, ETA) goes to standard error when it is a terminal; results go to standard output or files.

Exit codes: 0 success; 2 usage error (with "did you mean …?" for a misspelt command, option or
choice); 1 data or model error, reported on one line that names the file, line and column, a
file that cannot be read or written (``cannot read 'x.csv': no such file``), or a missing
optional dependency (the line names the ``pip install`` that adds it). ``--debug`` shows the
traceback instead. Every file written (``-o``, ``--oof``) is replaced only once it is complete.
"""

from __future__ import annotations

import errno
import importlib
import os
import re
import sys
import warnings
from collections.abc import Sequence

from .._first_compile import on_first_compile
from ..exceptions import MissingDependencyError, ModelFileError, os_reason
from ._args import UsageError
from ._parser import COMMANDS, build_parser

__all__ = ["COMMANDS", "UsageError", "build_parser", "main"]


class _Warnings:
    """Warnings of one command, printed once each at the end with a count, as one plain line
    on stderr (without Python's file:line prefix). Warnings that differ only in their figures
    (one per fold or chunk) count as one, shown with the first one's figures."""

    def __init__(self) -> None:
        self.groups: dict[str, list] = {}  # template → [first text, count, distinct texts]

    def show(self, message, category, filename, lineno, file=None, line=None) -> None:
        text = " ".join(str(message).split())
        # figures vary from fold to fold; a quoted name ('2', a headerless file's column) is
        # what the warning is about, and two names are two warnings
        parts = re.split(r"('[^']*')", text)
        template = "".join(
            part if i % 2 else re.sub(r"\d[\d,.]*", "#", part) for i, part in enumerate(parts)
        )
        group = self.groups.setdefault(template, [text, 0, set()])
        group[1] += 1
        group[2].add(text)

    def flush(self) -> None:
        for first, count, texts in self.groups.values():
            times = ""
            if count > 1:
                varying = "; the figures are the first one's" if len(texts) > 1 else ""
                times = f" ({count:,} times{varying})"
            print(f"nbayes: warning: {first}{times}", file=sys.stderr)
        self.groups.clear()


def main(argv: list[str] | None = None) -> int:
    """Run one command; returns the exit code (0, 1 data or model error, 2 usage error)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if sys.stderr.isatty():  # a person waiting: say why the first run after an install pauses
        on_first_compile(_compile_notice)
    collected = _Warnings()
    with warnings.catch_warnings():
        if not args.debug:
            warnings.simplefilter("always")
            warnings.showwarning = collected.show
        try:
            return _run(parser, args)
        finally:
            collected.flush()


def _compile_notice() -> None:
    print(
        "nbayes: compiling its kernels for this machine, once per install (about a minute; "
        "`python -m nbayes.compile` does it ahead of time)",
        file=sys.stderr,
        flush=True,
    )


def _run(parser, args) -> int:
    try:
        _refuse_writing_over_inputs(args)
        command = importlib.import_module(f"{__name__}.{COMMANDS[args.command]}")
        return command.run(args)
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
    except ImportError as error:
        hint = _missing_dependency(error)
        if args.debug or hint is None:
            raise
        print(f"nbayes: error: {hint}", file=sys.stderr)
        return 1
    except (ValueError, TypeError, OSError, KeyError, ModelFileError) as error:
        if args.debug:
            raise
        if isinstance(error, OSError):
            message = os_error_words(error, _outputs(args))
        else:
            message = " ".join(str(error).split())
        print(f"nbayes: error: {message}", file=sys.stderr)
        return 1
    except MemoryError as error:
        if args.debug:
            raise
        words = " ".join(str(error).split()) or "no details"
        print(
            f"nbayes: error: out of memory ({words}). A smaller model (fewer columns, values or "
            "parents), smaller batches, or a --max-memory within this machine's memory.",
            file=sys.stderr,
        )
        return 1
    except KeyboardInterrupt:
        print("nbayes: interrupted", file=sys.stderr)
        return 130
    except BaseException as error:
        # a Rust panic in Polars (or another extension) arrives as pyo3's PanicException, a
        # BaseException: one line, not a traceback from Rust (--debug shows it)
        if args.debug or type(error).__name__ != "PanicException":
            raise
        words = " ".join(str(error).split()) or "no message"
        print(f"nbayes: error: the data library failed (a Rust panic): {words}", file=sys.stderr)
        return 1


#: Optional dependencies (top-level module → the command that installs it), for an import of
#: one that fails where nbayes did not catch it itself.
OPTIONAL = {
    "matplotlib": "pip install 'nbayes[plot]'",
    "dask": "pip install 'nbayes[dask]'",
    "distributed": "pip install 'nbayes[dask]'",
    "pyarrow": "pip install pyarrow",
    "pandas": "pip install pandas",
    "sklearn": "pip install scikit-learn",
}


def _missing_dependency(error: ImportError) -> str | None:
    """One line saying what to install, for a missing optional dependency; None for any other
    import error (a bug, shown as a traceback)."""
    if isinstance(error, MissingDependencyError):
        return " ".join(str(error).split())
    module = (error.name or "").split(".")[0]
    if isinstance(error, ModuleNotFoundError) and module in OPTIONAL:
        return f"this needs {module}, which is not installed: {OPTIONAL[module]}"
    return None


def os_error_words(error: OSError, outputs: Sequence[str] = ()) -> str:
    """``cannot read 'x.csv': no such file`` (or ``cannot write …`` for a path in ``outputs``)
    for an OSError that names its file; what is wrong, in words, for one that names none."""
    if error.filename is None or not isinstance(error.filename, (str, bytes, os.PathLike)):
        return os_reason(error)
    name = os.fsdecode(error.filename)
    writing = os.path.normpath(name) in {os.path.normpath(path) for path in outputs}
    reason = "no such folder" if writing and error.errno == errno.ENOENT else os_reason(error)
    return f"cannot {'write' if writing else 'read'} {name!r}: {reason}"


#: The arguments that name files a command reads.
_INPUTS = ("data", "model", "names", "loss")


def _refuse_writing_over_inputs(args) -> None:
    """A UsageError where an output names a file the command reads (``-o car.csv`` for the
    data it predicts, say): the output would replace what is still to be read; where a table
    of results is named for a format it is not written in (before any work); and where
    ``--oof -`` would mix the out-of-fold rows with the report on standard output."""
    for output in _outputs(args):
        for name in _INPUTS:
            source = getattr(args, name, None)
            if not isinstance(source, str) or source == "-":
                continue
            try:
                same = os.path.samefile(output, source)
            except OSError:  # either is not (yet) a file: nothing to overwrite
                continue
            if same:
                option = "-o" if output == str(getattr(args, "output", None)) else "--oof"
                raise UsageError(
                    f"{option} {output} is the file given as {name.upper()} ({source}): writing "
                    "it would replace what the command reads; choose another path."
                )
    from ._output import unwritable

    if getattr(args, "oof", None) == "-":
        raise UsageError(
            "--oof -: the report goes to standard output; name a file for the out-of-fold rows."
        )
    tables = {"-o": getattr(args, "output", None), "--oof": getattr(args, "oof", None)}
    for option, path in tables.items():
        why = unwritable(str(path)) if path and args.command in ("predict", "cv") else None
        if why:
            raise UsageError(f"{option} {why}")


def _outputs(args) -> list[str]:
    """The files a command writes (their OSErrors are about writing)."""
    paths = (getattr(args, "output", None), getattr(args, "oof", None))
    return [str(path) for path in paths if path]
