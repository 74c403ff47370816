"""Argument groups shared by several commands, their value types, and the usage error."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from typing import Any

from ..exceptions import did_you_mean as did_you_mean  # the one spelling helper


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


class LazyNames:
    """Names got from ``load()`` only when first looked at (then kept).

    Given as an option's ``choices``, argparse looks at them only to check a value (``in``) and
    to list them in usage, help and an invalid-choice error (iteration), so building the parser
    — and ``nbayes --help`` — imports no family module, nor NumPy, SciPy, Numba or Polars,
    while the family registry stays the one list of names. ``str()`` lists them for help texts.
    Give it to an action after ``add_argument``, which would otherwise list the choices at once
    (to check the metavar).
    """

    def __init__(self, load: Callable[[], tuple[str, ...]]) -> None:
        self._load = load
        self._names: tuple[str, ...] | None = None

    @property
    def names(self) -> tuple[str, ...]:
        if self._names is None:
            self._names = tuple(self._load())
        return self._names

    def __contains__(self, name: object) -> bool:
        return name in self.names

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)

    def __str__(self) -> str:
        return ", ".join(self.names)

    def __repr__(self) -> str:
        return f"LazyNames({self._load.__name__})"


TEXT_MODELS = ("complement", "multinomial", "bernoulli")

#: ``--model``: naive Bayes, or a semi-naive model of :mod:`nbayes.semi_naive` (its names in
#: ``nbayes.semi_naive.table.MODEL_NAMES``; listed here so that ``--help`` imports nothing).
TABLE_MODELS = ("naive", "aode", "waode", "aodesr", "a2de", "hnb", "tan", "kdb", "skdb", "eskdb")

#: ``--discriminative``: a semi-naive model's discriminative correction, or the counts alone.
DISCRIMINATIVE_CHOICES = ("on", "off", "refit")

#: ``--calibration``: NaiveBayes' own calibration (``calibration="auto"``), or the textbook scores.
CALIBRATION_CHOICES = ("auto", "none")


def column_family(text: str) -> tuple[str, str]:
    """``COL=FAMILY`` → (column, family)."""
    name, sep, family = text.rpartition("=")
    if not sep or not name or not family:
        raise argparse.ArgumentTypeError(f"expected COLUMN=FAMILY, got {text!r}")
    return name, family


class FamilyOption(argparse.Action):
    """``--family COL=FAMILY`` (repeatable): each (column, family) appended, the family checked
    against the registry when the option is parsed (as argparse checks ``--continuous``), so a
    misspelt one is a usage error that suggests the closest name."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        column, family = values
        names = family_names()
        if family not in names:
            hint = did_you_mean(family, names)
            raise argparse.ArgumentError(
                self,
                f"unknown family {family!r} for column {column!r}"
                f"{'; ' + hint if hint else ''} (choose from {', '.join(map(repr, names))})",
            )
        setattr(namespace, self.dest, [*(getattr(namespace, self.dest, None) or []), values])


def _number(text: str, kind: type, wanted: str) -> Any:
    """``text`` read as an int or float; else argparse's error saying what was wanted (not
    "invalid positive_int value", the name of this module's function)."""
    try:
        return kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {wanted}, got {text!r}") from None


def positive_int(text: str) -> int:
    value = _number(text, int, "a positive integer")
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def at_least_two(text: str) -> int:
    value = _number(text, int, "an integer >= 2")
    if value < 2:
        raise argparse.ArgumentTypeError(f"expected an integer >= 2, got {text!r}")
    return value


def non_negative_float(text: str) -> float:
    value = _number(text, float, "a number >= 0")
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {text!r}")
    return value


def int_range(text: str) -> tuple[int, int]:
    """``1,2`` (or ``2``) → (1, 2) (or (2, 2))."""
    parts = text.split(",")
    try:
        low, high = (int(parts[0]), int(parts[-1])) if len(parts) <= 2 else (0, -1)
    except ValueError:
        low, high = 0, -1
    if not 1 <= low <= high:
        raise argparse.ArgumentTypeError(f"expected MIN,MAX with 1 <= MIN <= MAX, got {text!r}")
    return low, high


def memory_size(text: str) -> int:
    """``--max-memory``: bytes, from a number of bytes or a size such as ``4GiB``."""
    from ..semi_naive.memory import parse_memory  # only when given: --help imports nothing

    try:
        return parse_memory(text, "--max-memory")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


#: The default ``--max-memory`` for the rows a command holds in memory (``cv``, ``report``,
#: the scores ``evaluate`` keeps for the ROC and PR areas): a fixed
#: size, so that a command on a file succeeds or stops alike on every machine, large enough for
#: millions of rows, and with room on a 16 GB machine for the copies the work makes of them.
TABLE_MAX_BYTES = 4 * 2**30


def load_options(parser: argparse.ArgumentParser, *, rows: str | None = None) -> None:
    """MODEL, the saved model, and the memory its tables may take (every command that loads
    one); ``rows``: what else of the data the command holds, bounded by the same option."""
    parser.add_argument("model", metavar="MODEL")
    held = (
        f"; also bounds {rows} (default {TABLE_MAX_BYTES // 2**30}GiB), stopping with an error "
        "before they take more"
        if rows
        else ""
    )
    parser.add_argument(
        "--max-memory",
        type=memory_size,
        metavar="SIZE",
        help="the most memory the model's tables (and those its predictions build) may take, "
        f"e.g. 4GiB; checked before they are built (default 1GiB, as nbayes.load){held}",
    )


def memory_option(parser: argparse.ArgumentParser, rows: str) -> None:
    """``--max-memory`` of a command that holds rows of its data but loads no model."""
    parser.add_argument(
        "--max-memory",
        type=memory_size,
        metavar="SIZE",
        help=f"the most memory {rows} may take, e.g. 8GiB (default "
        f"{TABLE_MAX_BYTES // 2**30}GiB); the command stops with an error before they take more",
    )


def column_list(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"expected comma-separated column names, got {text!r}")
    return names


def data_options(parser: argparse.ArgumentParser) -> None:
    """DATA and how to read it (every command that reads a data file)."""
    parser.add_argument(
        "data",
        metavar="DATA",
        help="a table (CSV, TSV, Parquet or JSON lines; gzip/zstd ok; - for stdin), a folder of "
        "documents with one subfolder per class, or label<TAB>text lines (--format lines)",
    )
    group = parser.add_argument_group("reading the data")
    group.add_argument(
        "--format",
        choices=["csv", "tsv", "parquet", "jsonl", "lines"],
        help="data format (default: from the file name, else from the content; csv for -); "
        "lines: one label<SEPARATOR>text document per line",
    )
    group.add_argument(
        "--separator",
        help="field separator, one or more characters (default: from the file name or the "
        "content; tab for --format lines)",
    )
    group.add_argument(
        "--no-header",
        action="store_true",
        help="the file has no header line: columns are named by --names, else 1, 2, 3, …",
    )
    group.add_argument(
        "--names",
        metavar="A,B,C|FILE",
        help="column names, comma-separated or in a file (one per line); with a header line, "
        "they replace its names",
    )
    group.add_argument(
        "--no-strip",
        action="store_true",
        help="keep the whitespace around fields (by default ' ?' reads as '?', ' 39' as 39)",
    )
    quoting = group.add_mutually_exclusive_group()
    quoting.add_argument("--quote", default='"', metavar="CHAR", help='quote character (")')
    quoting.add_argument(
        "--no-quote",
        action="store_true",
        help="quote characters are ordinary text (e.g. in free-text TSV files)",
    )
    group.add_argument(
        "--missing",
        action="append",
        default=[],
        metavar="MARKER",
        help='a value meaning "missing", e.g. "?" (repeatable)',
    )
    group.add_argument(
        "--skip-bad-rows",
        action="store_true",
        help="drop rows that cannot be read (wrong number of fields, broken quoting, a value "
        "not fitting its column's type), counted, instead of stopping",
    )
    group.add_argument(
        "--chunk-mb",
        type=positive_int,
        default=16,
        help="chunk size in MiB (memory is bounded by it; default 16)",
    )


def target_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--target",
        metavar="COL",
        help="the column holding the class labels, by name or 1-based position (required for "
        "tables; documents are labelled by their folder or line)",
    )


def model_options(parser: argparse.ArgumentParser) -> None:
    """The model's settings (``fit`` and ``cv``): a NaiveBayes for tables, a TextClassifier
    when the only feature is free text."""
    target_option(parser)
    group = parser.add_argument_group("the model")
    family = group.add_argument(
        "--family",
        action=FamilyOption,
        type=column_family,
        default=[],
        metavar="COL=FAMILY",
        help="family for a column (by name or position): %(families)s (repeatable)",
    )
    family.families = LazyNames(family_names)  # listed only when the help is shown
    group.add_argument(
        "--model",
        choices=TABLE_MODELS,
        default="naive",
        help="naive Bayes (default), or a semi-naive model whose attributes depend on each "
        "other: aode, waode, aodesr, a2de, hnb, tan, kdb (--k parents), skdb (selective k-DB, "
        "k' <= --k: SemiNaiveBayes()'s default), eskdb (5 selective k-DBs ranking the "
        "attributes differently, averaged); numeric columns are then cut into MDL intervals",
    )
    group.add_argument(
        "--missing-as",
        choices=("auto", "category", "skip"),
        default=None,
        help='what a missing value means: a value of its own ("category"), ignored ("skip": '
        'missing at random), or chosen per column from the data ("auto"); default: auto for '
        "naive Bayes, category for semi-naive models",
    )
    group.add_argument(
        "--discriminative",
        choices=DISCRIMINATIVE_CHOICES,
        default=None,  # "on"; None tells that it was not given (see _models.check_options)
        help="semi-naive models: correct the structure's scores by weights learnt for the "
        "decision, as many L-BFGS passes as held-out rows choose, the first reading the file "
        "and spilling what the others read to TMPDIR (on, the default); the same, then the "
        "weights learnt again on every row for as many iterations (refit); or keep the counts' "
        "scores (off)",
    )
    group.add_argument(
        "--k",
        type=positive_int,
        help="parents per attribute of --model kdb (default 1) and the largest of skdb and eskdb "
        "(default 3)",
    )
    group.add_argument(
        "--max-intervals",
        type=at_least_two,
        default=None,  # 32
        help="semi-naive models: the most MDL intervals of a numeric column, the most "
        "informative splits first (default 32; a column's intervals multiply the tables where "
        "it is a parent)",
    )
    continuous = group.add_argument(
        "--continuous",
        default=None,
        metavar="FAMILY",  # the usage line of an error then lists no family (no import)
        help="family for numeric columns: %(choices)s (default auto: chosen per column from "
        "the data; mdl for semi-naive models)",
    )
    continuous.choices = LazyNames(continuous_family_names)  # after add_argument: see LazyNames
    group.add_argument(
        "--alpha",
        type=non_negative_float,
        help="smoothing λ: Lidstone's for tables (1 = Laplace; 0 = maximum likelihood; "
        "default: chosen per categorical column from the data, 1 for semi-naive models), "
        "δ for text (default 0.1)",
    )
    group.add_argument(
        "--prior",
        choices=["mle", "smoothed", "uniform"],
        default="mle",
        help="class prior (default mle: N_c/N)",
    )
    group.add_argument(
        "--calibration",
        choices=CALIBRATION_CHOICES,
        default=None,  # "auto"
        help="NaiveBayes' calibrated scores (a temperature and offsets per class, chosen on "
        "held-out scores of a hashed sample of the rows, as NaiveBayes() fits them, whatever "
        "the file's size): auto (default), or none for the textbook scores",
    )
    group.add_argument(
        "--bins",
        type=positive_int,
        default=10,
        help="intervals for equal-width/equal-frequency (default 10)",
    )
    group.add_argument(
        "--loss",
        metavar="FILE",
        help="loss matrix CSV: header 'decision,<class>,...'; one row per decided class",
    )
    text = parser.add_argument_group("text (documents, or a table whose only feature is free text)")
    text.add_argument(
        "--text",
        metavar="COL",
        help="the free-text column of a table (default: detected — a column of mostly "
        "distinct values of 4 or more words)",
    )
    text.add_argument(
        "--text-model",
        choices=TEXT_MODELS,
        default="complement",
        help="complement (Rennie et al. 2003; default), multinomial or bernoulli",
    )
    text.add_argument(
        "--ngrams",
        type=int_range,
        default=(1, 2),
        metavar="MIN,MAX",
        help="word n-grams counted (default 1,2)",
    )
    text.add_argument(
        "--stop-words",
        choices=["english", "none"],
        default="none",
        help="drop scikit-learn's English stop words (default none)",
    )
    text.add_argument(
        "--min-df",
        type=non_negative_float,
        default=1,
        metavar="N",
        help="use words in at least N documents (or a fraction < 1 of them; default 1)",
    )
    text.add_argument(
        "--vocabulary",
        action="store_true",
        help="count words in a vocabulary instead of hashing them into 2^20 columns",
    )
