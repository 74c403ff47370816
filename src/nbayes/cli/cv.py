"""``nbayes cv``: (repeated) stratified k-fold cross-validation of the model the options
describe, with figures per fold, the pooled report, out-of-fold predictions (``--oof``) and a
paired comparison of other settings on the same folds (``--compare``)."""

from __future__ import annotations

import argparse
import copy
import json
import shlex
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from ..evaluation import SCALARS, Accumulator, Report, corrected_resampled_t, stratified_folds
from ..readers import DataError
from ._args import UsageError, model_options
from ._models import learner_for
from ._output import write_frames
from ._parser import closest_option, long_options
from ._reading import open_reader, read_bounded, require_target, say_skipped

#: Figures printed per fold, with their headings (the JSON output has them all).
_FOLD_COLUMNS = {
    "accuracy": "accuracy",
    "balanced_accuracy": "balanced",
    "kappa": "kappa",
    "macro_f1": "macro F1",
    "log_loss": "log loss",
    "roc_auc": "ROC AUC",
}


@dataclass
class Setting:
    """One model setting evaluated on every fold: its options, the figures of each fold, the
    pooled report and (for --oof) the out-of-fold rows."""

    name: str
    args: argparse.Namespace
    folds: list[dict] = field(default_factory=list)
    pooled: Accumulator | None = None
    oof: list[pl.DataFrame] = field(default_factory=list)


def run(args: argparse.Namespace) -> int:
    reader = open_reader(args)
    frame = read_bounded(reader, args, "cross-validate a sample of the rows")
    target = require_target(args, reader.path, frame.columns)
    labelled = frame.get_column(target).is_not_null()
    rows = np.flatnonzero(labelled.to_numpy())  # data row (0-based) of each labelled row
    frame = frame.filter(labelled)
    if frame.height == 0:
        raise DataError(reader.path, "there are no labelled rows.")
    labels = frame.get_column(target).to_numpy()
    classes = np.unique(labels)
    loss = _loss(args, classes)
    settings = [Setting("base", args)] + [
        Setting(text, _variant(args, text)) for text in args.compare
    ]
    for setting in settings:
        setting.pooled = Accumulator(classes, loss)
        learner_for(setting.args, reader.path, frame, target, quiet=setting.name != "base")
    ratios = []
    for repeat in range(args.repeats):
        seed = args.seed + repeat
        try:
            folds = stratified_folds(labels, args.folds, seed=seed)
        except ValueError as error:
            raise DataError(reader.path, str(error)) from error
        for k, test in enumerate(folds):
            train = np.setdiff1d(np.arange(frame.height), test)
            ratios.append(len(test) / len(train))
            for setting in settings:
                _fold(setting, reader.path, frame, target, classes, loss, train, test, rows)
                setting.folds[-1].update(repeat=repeat + 1, fold=k + 1, seed=seed)
    comparisons = _comparisons(settings, args.metric, float(np.mean(ratios)))
    if args.oof:
        write_frames(_oof_frames(settings), args.oof, "row")
    reports = {s.name: s.pooled.report() for s in settings}
    if args.json:
        print(json.dumps(_as_json(args, frame.height, settings, reports, comparisons), indent=2))
    else:
        _print(args, frame.height, settings, reports, comparisons)
    say_skipped(reader)
    return 0


def _loss(args: argparse.Namespace, classes: np.ndarray) -> np.ndarray | None:
    if not args.loss:
        return None
    from .fit import read_loss

    return read_loss(args.loss, classes)


#: What NaiveBayes(missing=...) takes, which the command line calls --missing-as (its --missing
#: names the markers of a missing value).
MISSING_MODES = ("auto", "category", "skip")


def _variant(args: argparse.Namespace, text: str) -> argparse.Namespace:
    """The options of ``--compare TEXT``: the base options changed by TEXT, written as
    ``KEY=VALUE`` words (``continuous=mdl alpha=0.5 family=age=kde``) or as the options
    themselves (``--continuous mdl``); ``--family`` adds to the base's families."""
    words = shlex.split(text)
    if not any(word.startswith("-") for word in words):
        words = []
        for word in shlex.split(text):
            key, sep, value = word.partition("=")
            if key == "missing" and value in MISSING_MODES:  # the model's parameter name
                key = "missing-as"
            words += ["--" + key.replace("_", "-"), *([value] if sep else [])]
    # no abbreviations: "missing=?" is the reading option --missing, not --missing-as
    parser = argparse.ArgumentParser(
        prog=f"nbayes cv --compare {text!r}",
        add_help=False,
        exit_on_error=False,
        allow_abbrev=False,
    )
    model_options(parser)
    defaults = vars(parser.parse_args([]))
    try:
        given, unknown = parser.parse_known_args(words)
    except argparse.ArgumentError as error:
        raise UsageError(f"--compare {text!r}: {error}") from error
    if unknown:
        if unknown[0].startswith("--") and unknown[0][2:].replace("-", "_") in vars(args):
            raise UsageError(
                f"--compare {text!r}: {unknown[0]} is an option of nbayes cv itself, not of the "
                f"model: give it once, outside --compare (every setting reads the same data)."
            )
        hint = closest_option(unknown[0], long_options(parser))
        raise UsageError(
            f"--compare {text!r}: {' '.join(unknown)} is not a model option"
            + (f"; {hint}" if hint else ".")
        )
    given = vars(given)
    # the options the text names, even at their default value ("model=naive" against a base of
    # --model tan); an abbreviated one is known by its value differing from the default
    actions = parser._option_string_actions
    named = {actions[w.split("=")[0]].dest for w in words if w.split("=")[0] in actions}
    variant = copy.copy(args)
    for key, value in given.items():
        if key in named or value != defaults[key]:
            setattr(variant, key, args.family + value if key == "family" else value)
    if variant.model != args.model:  # the base's options of another model are not inherited
        semi = variant.model != "naive"
        kept_k = variant.model in ("kdb", "skdb", "eskdb")
        for key, applies in (("k", kept_k), ("discriminative", semi), ("max_intervals", semi),
                             ("calibration", not semi)):  # fmt: skip
            if not applies and given[key] == defaults[key]:
                setattr(variant, key, None)
    return variant


def _fold(
    setting: Setting,
    source: str,
    frame: pl.DataFrame,
    target: str,
    classes: np.ndarray,
    loss: np.ndarray | None,
    train: np.ndarray,
    test: np.ndarray,
    rows: np.ndarray,
) -> None:
    learner = learner_for(setting.args, source, frame, target, quiet=True)
    if loss is not None:
        learner.model.set_params(loss=loss)
    learner.fit(frame[train])
    test_frame = frame[test]
    predicted, proba = learner.predict_both(test_frame)
    full = np.zeros((len(test), len(classes)))
    full[:, np.searchsorted(classes, learner.classes_)] = proba
    truth = test_frame.get_column(target).to_numpy()
    accumulator = Accumulator(classes, loss)
    accumulator.update(truth, predicted, full)
    setting.pooled.update(truth, predicted, full)
    setting.folds.append({"rows": len(test), **accumulator.report().scalars})
    if setting.args.oof:
        columns = {"row": rows[test], "truth": truth, "prediction": predicted}
        columns.update({f"P({c})": full[:, k] for k, c in enumerate(classes)})
        setting.oof.append(pl.DataFrame(columns))


def _oof_frames(settings: list[Setting]):
    """Out-of-fold rows: ``row`` (the data row, 0-based as ``explain --row``), ``repeat``,
    ``fold``, the truth, the prediction and P(c | x) of every class (and ``setting`` with
    --compare)."""
    several = len(settings) > 1
    for setting in settings:
        for index, part in enumerate(setting.oof):
            info = setting.folds[index]
            part = part.select(
                "row",
                pl.lit(info["repeat"]).alias("repeat"),
                pl.lit(info["fold"]).alias("fold"),
                pl.exclude("row"),
            )
            if several:
                part = part.with_columns(pl.lit(setting.name).alias("setting")).select(
                    "setting", pl.exclude("setting")
                )
            yield part


def _comparisons(settings: list[Setting], metric: str, ratio: float) -> list[dict]:
    """Each other setting against the base: the mean difference of ``metric`` over the paired
    folds and the corrected resampled t-test (Nadeau & Bengio 2003)."""
    base = settings[0]
    out = []
    for setting in settings[1:]:
        pairs = [
            (other[metric], mine[metric])
            for mine, other in zip(base.folds, setting.folds, strict=True)
            if mine[metric] is not None and other[metric] is not None
        ]
        if len(pairs) < 2:
            out.append({"setting": setting.name, "metric": metric, "mean_difference": None})
            continue
        values = np.array(pairs, dtype=float)
        test = corrected_resampled_t(values[:, 0] - values[:, 1], ratio)
        better = SCALARS[metric]
        significant = test["p"] < 0.05
        verdict = "same"
        if significant:
            verdict = "better" if (test["mean_difference"] > 0) == better else "worse"
        out.append(
            {
                "setting": setting.name,
                "metric": metric,
                "base_mean": float(values[:, 1].mean()),
                "mean": float(values[:, 0].mean()),
                **test,
                "test_train_ratio": ratio,
                "verdict": verdict,
            }
        )
    return out


def _summary(folds: list[dict]) -> tuple[dict, dict]:
    means, stds = {}, {}
    for name in SCALARS:
        values = [f[name] for f in folds if f[name] is not None]
        means[name] = float(np.mean(values)) if values else None
        stds[name] = float(np.std(values, ddof=1)) if len(values) > 1 else None
    return means, stds


def _as_json(args, rows, settings, reports: dict[str, Report], comparisons) -> dict:
    out = {
        "folds": args.folds,
        "repeats": args.repeats,
        "seed": args.seed,
        "rows": rows,
        "settings": [],
        "comparisons": comparisons,
    }
    for setting in settings:
        means, stds = _summary(setting.folds)
        out["settings"].append(
            {
                "name": setting.name,
                "per_fold": setting.folds,
                "mean": means,
                "std": stds,
                "pooled": reports[setting.name].as_dict(),
            }
        )
    return out


def _print(args, rows, settings, reports: dict[str, Report], comparisons) -> None:
    repeats = f", {args.repeats} repeats (seeds {args.seed}…{args.seed + args.repeats - 1})"
    print(
        f"{args.folds}-fold stratified cross-validation on {rows:,} rows "
        + (repeats if args.repeats > 1 else f"(seed {args.seed})")
    )
    base = settings[0]
    names = "  ".join(f"{heading:>10}" for heading in _FOLD_COLUMNS.values())
    print(f"repeat  fold   rows  {names}")
    for fold in base.folds:
        cells = "  ".join(
            f"{fold[n]:>10.4f}" if fold[n] is not None else f"{'–':>10}" for n in _FOLD_COLUMNS
        )
        print(f"{fold['repeat']:>6}  {fold['fold']:>4}  {fold['rows']:>5,}  {cells}")
    means, stds = _summary(base.folds)
    spread = f" ± {stds['accuracy']:.4f}" if stds["accuracy"] is not None else ""
    print(f"mean accuracy over folds {means['accuracy']:.4f}{spread}\n")
    print("pooled over all folds:")
    print(reports["base"].format())
    if comparisons:
        print(
            f"\npaired comparison with the base on the same folds: {args.metric}, corrected "
            "resampled t-test (Nadeau & Bengio 2003), p < 0.05"
        )
        for result in comparisons:
            if result["mean_difference"] is None:
                print(f"  {result['setting']}: {args.metric} not available on every fold")
                continue
            print(
                f"  {result['setting']}: {result['mean']:.4f} vs {result['base_mean']:.4f}, "
                f"difference {result['mean_difference']:+.4f}, t = {result['t']:.3f} "
                f"(df {result['df']}), p = {result['p']:.4f}: {result['verdict']}"
            )
