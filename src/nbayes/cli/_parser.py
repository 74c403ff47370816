"""The argument parser of every command (imports nothing heavy: ``nbayes --help`` is quick).

``COMMANDS`` maps each command to the module that runs it (imported only when it runs).
"""

from __future__ import annotations

import argparse

from ._args import data_options, model_options, positive_int, target_option

COMMANDS = {
    "fit": "fit",
    "predict": "predict",
    "evaluate": "evaluate",
    "explain": "explain",
    "inspect": "inspect",
    "cv": "cv",
    "demo": "demo",
}


def _fit(fit: argparse.ArgumentParser) -> None:
    data_options(fit)
    model_options(fit)
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


def _predict(predict: argparse.ArgumentParser) -> None:
    predict.add_argument("model", metavar="MODEL")
    data_options(predict)
    predict.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="output file (.csv, .tsv or .parquet); default: CSV on stdout",
    )
    predict.add_argument(
        "--proba", action="store_true", help="also write the posterior P(c|x) of every class"
    )


def _evaluate(evaluate: argparse.ArgumentParser) -> None:
    evaluate.add_argument("model", metavar="MODEL")
    data_options(evaluate)
    target_option(evaluate)
    evaluate.add_argument("--json", action="store_true", help="print the report as JSON")


def _explain(explain: argparse.ArgumentParser) -> None:
    explain.add_argument("model", metavar="MODEL")
    data_options(explain)
    explain.add_argument(
        "--row",
        type=int,
        required=True,
        metavar="N",
        help="data row to explain (0 = first row after the header)",
    )


def _inspect(inspect: argparse.ArgumentParser) -> None:
    inspect.add_argument("model", metavar="MODEL")


def _cv(cv: argparse.ArgumentParser) -> None:
    data_options(cv)
    model_options(cv)
    cv.add_argument("--folds", type=positive_int, default=10, help="number of folds (default 10)")
    cv.add_argument("--seed", type=int, default=0, help="shuffling seed (default 0)")


def _demo(demo: argparse.ArgumentParser) -> None:
    pass


_SUBCOMMANDS = [
    (
        "fit",
        "fit a model on a data file (streamed) and save it",
        "Fit a NaiveBayes model, streaming DATA in chunks, and save it as a model file.",
        _fit,
    ),
    (
        "predict",
        "predict the classes of a data file",
        "Predict with a saved model, streaming DATA; writes CSV to stdout or -o.",
        _predict,
    ),
    (
        "evaluate",
        "accuracy, precision/recall/F1, log loss, confusion matrix",
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
        "stratified k-fold cross-validation",
        "Stratified cross-validation of a NaiveBayes model (reads DATA into memory).",
        _cv,
    ),
    (
        "demo",
        "the buys_computer worked example (Han & Kamber) and a real data set, on bundled data",
        "Run the README's main job on the bundled data.",
        _demo,
    ),
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nbayes", description="Naive Bayes classification: y = argmax_c P(c) ∏ P(x_j|c)."
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, short, description, arguments in _SUBCOMMANDS:
        arguments(commands.add_parser(name, help=short, description=description))
    return parser
