"""The argument parser of every command (imports nothing heavy: ``nbayes --help`` is quick).

``COMMANDS`` maps each command to the module that runs it (imported only when it runs). A
misspelt command, option or choice is refused with the closest name (``did you mean
'--target'?``, :func:`~nbayes.cli._args.did_you_mean`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from .. import __version__
from ._args import (
    column_list,
    data_options,
    did_you_mean,
    load_options,
    memory_option,
    memory_size,
    model_options,
    positive_int,
    target_option,
)

COMMANDS = {
    "fit": "fit",
    "predict": "predict",
    "evaluate": "evaluate",
    "explain": "explain",
    "inspect": "inspect",
    "cv": "cv",
    "report": "report",
    "demo": "demo",
}

#: The figures --metric may compare (those of nbayes.evaluation.SCALARS).
METRICS = (
    "accuracy",
    "balanced_accuracy",
    "kappa",
    "mcc",
    "macro_precision",
    "macro_recall",
    "macro_f1",
    "weighted_precision",
    "weighted_recall",
    "weighted_f1",
    "log_loss",
    "brier",
    "roc_auc",
    "pr_auc",
    "total_cost",
    "mean_cost",
)


def _text_column(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--text", metavar="COL", help="for a text model: the table's text column (default text)"
    )


def _fit(fit: argparse.ArgumentParser) -> None:
    data_options(fit)
    model_options(fit)
    fit.add_argument(
        "-o", "--output", required=True, metavar="MODEL", help="model file to write (.nbm)"
    )
    fit.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="fit on a running Dask cluster (tcp://host:8786), every pass of a --model too",
    )
    fit.add_argument(
        "--max-memory",
        dest="table_memory",
        type=memory_size,
        metavar="SIZE",
        help="semi-naive models: the most memory the structure's tables may take, e.g. 8GiB; "
        "checked before they are built (default 1GiB)",
    )
    fit.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="report each pass over the data (a semi-naive model makes several), then the "
        "derived values and the model file, each with its seconds, on standard error",
    )


def _predict(predict: argparse.ArgumentParser) -> None:
    load_options(predict)
    data_options(predict)
    _text_column(predict)
    predict.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="output file (.csv, .tsv, .parquet or .jsonl); default: CSV on stdout",
    )
    predict.add_argument(
        "--proba", action="store_true", help="also write the posterior P(c|x) of every class"
    )
    keep = predict.add_mutually_exclusive_group()
    keep.add_argument(
        "--keep",
        type=column_list,
        metavar="COL,COL",
        help="input columns written before the prediction (by name or position), e.g. an ID",
    )
    keep.add_argument(
        "--keep-all", action="store_true", help="write every input column before the prediction"
    )


def _evaluate(evaluate: argparse.ArgumentParser) -> None:
    load_options(evaluate, rows="the scores kept for the ROC and PR areas (K numbers a row)")
    data_options(evaluate)
    target_option(evaluate)
    _text_column(evaluate)
    evaluate.add_argument("--json", action="store_true", help="print the report as JSON")


def _explain(explain: argparse.ArgumentParser) -> None:
    load_options(explain)
    data_options(explain)
    _text_column(explain)
    explain.add_argument(
        "--row",
        type=int,
        required=True,
        metavar="N",
        help="data row to explain (0 = first row after the header)",
    )


def _inspect(inspect: argparse.ArgumentParser) -> None:
    load_options(inspect)


def _cv(cv: argparse.ArgumentParser) -> None:
    data_options(cv)
    model_options(cv)
    memory_option(cv, "the rows read (cross-validation holds them all)")
    group = cv.add_argument_group("cross-validation")
    group.add_argument(
        "--folds", type=positive_int, default=10, help="number of folds (default 10)"
    )
    group.add_argument(
        "--repeats",
        type=positive_int,
        default=1,
        help="repeat with seeds SEED, SEED+1, … (default 1)",
    )
    group.add_argument("--seed", type=int, default=0, help="shuffling seed (default 0)")
    group.add_argument("--json", action="store_true", help="print the results as JSON")
    group.add_argument(
        "--oof",
        metavar="FILE",
        help="write the out-of-fold predictions and probabilities (.csv, .tsv, .parquet, .jsonl)",
    )
    group.add_argument(
        "--compare",
        action="append",
        default=[],
        metavar="OPTIONS",
        help="another setting evaluated on the same folds, as changes to the model options, "
        'e.g. "continuous=mdl" or "alpha=0.5 prior=uniform" (repeatable); reported with the '
        "corrected resampled t-test (Nadeau & Bengio 2003)",
    )
    group.add_argument(
        "--metric",
        choices=METRICS,
        default="accuracy",
        help="the figure --compare tests (default accuracy)",
    )


def _report(report: argparse.ArgumentParser) -> None:
    load_options(report, rows="the rows read (the report holds them all)")
    data_options(report)
    target_option(report)
    _text_column(report)
    report.add_argument(
        "-o", "--output", required=True, metavar="HTML", help="the HTML file to write"
    )
    report.add_argument(
        "--cv",
        type=positive_int,
        metavar="K",
        help="cross-validate the model's settings on DATA with K stratified folds instead",
    )
    report.add_argument(
        "--explain-rows",
        type=int,
        default=3,
        metavar="N",
        help="rows explained term by term (default 3)",
    )
    report.add_argument("--title", help="the page's title")


def _demo(demo: argparse.ArgumentParser) -> None:
    pass


_SUBCOMMANDS = [
    (
        "fit",
        "fit a model on a data file or documents (streamed) and save it",
        "Fit a NaiveBayes model (a TextClassifier for documents or a table of free text), "
        "streaming DATA in chunks, and save it as a model file.",
        _fit,
    ),
    (
        "predict",
        "predict the classes of a data file",
        "Predict with a saved model, streaming DATA; writes CSV to stdout or -o, in the "
        "input's row order.",
        _predict,
    ),
    (
        "evaluate",
        "accuracy, kappa, MCC, P/R/F1, log loss, Brier, ROC/PR AUC, confusion matrix, cost",
        "Evaluate a saved model on labelled data (streamed).",
        _evaluate,
    ),
    (
        "explain",
        "the worked computation for one row",
        "Show P(c), every P(x_j|c), their product and the posterior for one row.",
        _explain,
    ),
    (
        "inspect",
        "the fitted model as a readable summary",
        "Print a saved model: priors and each column's conditionals.",
        _inspect,
    ),
    (
        "cv",
        "(repeated) stratified k-fold cross-validation, and paired comparisons",
        "Stratified cross-validation of a model (reads DATA into memory): figures per fold "
        "and pooled, out-of-fold predictions, other settings compared on the same folds.",
        _cv,
    ),
    (
        "report",
        "one self-contained HTML page: data, metrics, plots, explained rows",
        "Write an HTML report of a saved model on labelled DATA (read into memory).",
        _report,
    ),
    (
        "demo",
        "the buys_computer worked example (Han & Kamber) and a real data set, on bundled data",
        "Run the README's main job on the bundled data.",
        _demo,
    ),
]


class Parser(argparse.ArgumentParser):
    """argparse's parser, which names the closest command, option or choice to a misspelt one
    (``did you mean 'fit'?``). Its subcommands' parsers are of this class too."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: The parser of each command (set on the top-level parser by build_parser).
        self.commands: dict[str, argparse.ArgumentParser] = {}

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: Any = None
    ) -> Any:
        """Parse ``args`` (default ``sys.argv[1:]``); a misspelt long option is refused with
        the closest one before argparse's own checks (which would report a missing argument
        or the top-level usage instead)."""
        argv = list(sys.argv[1:] if args is None else args)
        self._check_options(argv)
        return super().parse_args(argv, namespace)

    def _check_options(self, argv: list[str]) -> None:
        """Refuse (exit 2) the long options of ``argv`` that neither the top-level parser nor
        the command's knows, when one has a close match (the others are left to argparse)."""
        parser: argparse.ArgumentParser = self
        problems: list[tuple[argparse.ArgumentParser, str]] = []
        for token in argv:
            if token == "--":
                break
            if not token.startswith("-") and parser is self:
                if token not in self.commands:
                    return  # argparse refuses the command itself, suggesting the closest
                parser = self.commands[token]
                continue
            name = token.split("=", 1)[0]
            if not token.startswith("--") or _knows(parser, name) or " " in name:
                continue  # (argparse reads "--a b", with a space, as a value, not an option)
            if parser is not self and _knows(self, name):
                problems.append((parser, f"{name} goes before the command (nbayes {name} …)"))
                continue
            hint = closest_option(name, long_options(parser))
            if hint:
                problems.append((parser, f"unrecognized argument {name!r}: {hint}"))
        if problems:
            problems[0][0].error("; ".join(message for _, message in problems))

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        """argparse's check of a value against ``choices``, with the closest choice added."""
        try:
            super()._check_value(action, value)  # type: ignore[misc]
        except argparse.ArgumentError as error:
            hint = did_you_mean(value, action.choices) if isinstance(value, str) else ""
            if hint and action.choices is not None:
                error.message = f"{error.message}; {hint}"
            raise


def closest_option(name: str, options: Sequence[str]) -> str:
    """``did you mean '--target'?`` for the long option closest to ``name`` (compared without
    the ``--`` they all share), or ``""``."""
    hint = did_you_mean(name.lstrip("-"), [option[2:] for option in options])
    return hint.replace("mean '", "mean '--", 1)


def long_options(parser: argparse.ArgumentParser) -> list[str]:
    """The long option strings of ``parser``."""
    return [name for a in parser._actions for name in a.option_strings if name.startswith("--")]


def _knows(parser: argparse.ArgumentParser, name: str) -> bool:
    """Whether ``parser`` reads ``name``: one of its options, or an abbreviation of some."""
    options = long_options(parser)
    return name in options or (parser.allow_abbrev and any(o.startswith(name) for o in options))


def build_parser() -> argparse.ArgumentParser:
    """The parser of the ``nbayes`` command and of each of its commands."""
    parser = Parser(
        prog="nbayes", description="Naive Bayes classification: y = argmax_c P(c) ∏ P(x_j|c)."
    )
    parser.add_argument("--version", action="version", version=f"nbayes {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, short, description, arguments in _SUBCOMMANDS:
        command = commands.add_parser(name, help=short, description=description)
        arguments(command)
        parser.commands[name] = command
    return parser
