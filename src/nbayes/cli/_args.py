"""Argument groups shared by several commands, their value types, and the usage error."""

from __future__ import annotations

import argparse


class UsageError(Exception):
    """A command-line mistake detected after argument parsing (exit code 2)."""


def family_names() -> tuple[str, ...]:
    """Every likelihood family a column may be given (``--family COL=FAMILY``)."""
    from .. import families

    return families.names()


def continuous_family_names() -> tuple[str, ...]:
    """The families that ``--continuous`` may give every numeric column."""
    from .. import families

    return families.continuous_names()


def column_family(text: str) -> tuple[str, str]:
    """``COL=FAMILY`` → (column, family)."""
    name, sep, family = text.rpartition("=")
    if not sep or not name or not family:
        raise argparse.ArgumentTypeError(f"expected COLUMN=FAMILY, got {text!r}")
    return name, family


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text}")
    return value


def data_options(parser: argparse.ArgumentParser) -> None:
    """DATA and how to read it (every command that reads a data file)."""
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
        type=positive_int,
        default=16,
        help="chunk size in MiB (memory is bounded by it; default 16)",
    )


def target_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--target", required=True, metavar="COL", help="the column holding the class labels"
    )


def model_options(parser: argparse.ArgumentParser) -> None:
    """The NaiveBayes settings (``fit`` and ``cv``)."""
    target_option(parser)
    parser.add_argument(
        "--family",
        action="append",
        type=column_family,
        default=[],
        metavar="COL=FAMILY",
        help=f"family for a column: {', '.join(family_names())} (repeatable)",
    )
    parser.add_argument(
        "--continuous",
        default="gaussian",
        choices=continuous_family_names(),
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
        type=positive_int,
        default=10,
        help="intervals for equal-width/equal-frequency (default 10)",
    )
