"""``nbayes.report``: one self-contained HTML page about a model and how it does on data.

The page holds, for a fitted model and optionally labelled data (a test set, or the data to
cross-validate on with ``cv=k``):

* the data: rows, classes, and for each column its family and why it got it;
* the metrics of ``nbayes evaluate`` (accuracy, log loss, per-class precision, recall, F1 and
  support, the confusion matrix), computed by the same code, and the Brier score;
* the plots of :mod:`nbayes.plot` — confusion matrix, ROC and precision–recall curves,
  reliability diagram, each feature's class-conditional distributions;
* the most influential features (:mod:`nbayes.influence`);
* a few rows explained term by term: the most confident mistakes first, then correct rows.

Self-contained: no scripts at all, no network, no external fonts (the figures are inline SVG with
text drawn as paths), so the file can be mailed, archived or opened offline.
Without matplotlib the page is written with every table and no figure (a warning says so).
"""

from __future__ import annotations

import io
import re
import warnings
from html import escape
from pathlib import Path
from typing import Any

import numpy as np

from ._atomic import replacing
from .exceptions import caller_stacklevel
from .html import STYLE, feature_html, table

PAGE_STYLE = (
    "<style>"
    "body{font-family:sans-serif;max-width:1100px;margin:1em auto;padding:0 1em;color:#222}"
    "h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ddd;margin-top:1.6em}"
    "figure{margin:0.5em 0;display:inline-block;vertical-align:top}"
    "figure svg{max-width:100%;height:auto}"
    ".metrics td{font-variant-numeric:tabular-nums}"
    ".note{color:#555;font-size:0.9em}"
    "</style>"
)


#: Said (in the page, where the figures would be) when matplotlib is not installed.
NO_FIGURES = (
    "<p class='note no-figures'>No figures: matplotlib is not installed "
    "(pip install 'nbayes[plot]' adds them).</p>"
)


def _can_draw() -> bool:
    """Whether matplotlib can draw the figures; without it the report is written with every
    table but no figure, and one warning says so."""
    from .plot._common import pyplot

    try:
        pyplot()
    except ImportError:
        warnings.warn(
            "matplotlib is not installed: the report has no figures "
            "(pip install 'nbayes[plot]' adds them).",
            UserWarning,
            stacklevel=caller_stacklevel(),
        )
        return False
    return True


def svg(figure: Any, name: str) -> str:
    """A matplotlib figure as inline SVG (text as paths, element ids unique to ``name``, no
    date), and the figure closed."""
    import matplotlib
    import matplotlib.pyplot as plt

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": f"nbayes-{name}"}):
        figure.savefig(buffer, format="svg", metadata={"Date": None})
    plt.close(figure)
    text = buffer.getvalue()
    text = text[text.index("<svg") :]
    # every figure defines the same glyphs (ids like DejaVuSans-30): make the ids of each
    # figure its own, so that the page's ids stay unique
    prefix = re.sub(r"[^A-Za-z0-9_-]", "-", name)
    text = re.sub(r'\bid="([^"]+)"', rf'id="{prefix}-\1"', text)
    text = re.sub(r'href="#([^"]+)"', rf'href="#{prefix}-\1"', text)
    return re.sub(r"url\(#([^)]+)\)", rf"url(#{prefix}-\1)", text)


def _figure(figure: Any, name: str, caption: str) -> str:
    return (
        f'<figure class="plot" id="fig-{escape(name)}">{svg(figure, name)}'
        f"<figcaption>{escape(caption)}</figcaption></figure>"
    )


def _column_summary(column: Any) -> str:
    """A column's values in a few words: the range and mean of numbers, else the number of
    distinct values and the most common one."""
    values = column.drop_nulls()
    if values.len() == 0:
        return "no values"
    if values.dtype.is_numeric():
        mean = values.cast(float).mean()
        return f"{values.min():.4g} … {values.max():.4g} (mean {mean:.4g})"
    counts = values.cast(str).value_counts(sort=True)
    top, count = counts.row(0)
    shown = top if len(top) <= 40 else top[:39] + "…"
    return f"{counts.height:,} distinct; most common {shown!r} ({count:,})"


def _take(X: Any, rows: np.ndarray) -> Any:
    """The given rows of a pandas or Polars table, an array, or a list of documents."""
    if hasattr(X, "iloc"):
        return X.iloc[rows]
    if hasattr(X, "shape"):
        return X[rows]
    return [X[i] for i in rows]


def _cross_validated(
    model: Any, X: Any, labels: np.ndarray, folds: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(classes, out-of-fold predictions, out-of-fold P(c | x)) of a fresh copy of ``model``
    per stratified fold (the folds of ``nbayes cv``)."""
    from .evaluation import stratified_folds

    classes = np.unique(labels)
    predicted = np.empty(len(labels), dtype=classes.dtype)
    proba = np.zeros((len(labels), len(classes)))
    for test in stratified_folds(labels, folds):
        train = np.setdiff1d(np.arange(len(labels)), test)
        fold_model = type(model)(**model.get_params(deep=False)).fit(_take(X, train), labels[train])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            part = fold_model.predict_proba(_take(X, test))
            predicted[test] = fold_model.predict(_take(X, test))
        proba[np.ix_(test, np.searchsorted(classes, fold_model.classes_))] = part
    return classes, predicted, proba


def _metrics_section(evaluation: Any) -> str:
    """The figures of :class:`nbayes.evaluation.Report` as ``nbayes evaluate`` prints them (to 4
    decimals), in tables whose cells have ids (``metric-accuracy``, ``precision-0``, …)."""
    from .evaluation import _LABELS

    rows, ids = [], []
    for name, value in evaluation.scalars.items():
        if value is not None:
            rows.append([_LABELS.get(name, name), f"{value:.4f}"])
            ids.append([None, f"metric-{name}"])
    parts = ['<div class="metrics">', table(["metric", "value"], rows, cell_ids=ids)]
    per_class, class_ids = [], []
    for i, c in enumerate(evaluation.classes):
        per_class.append(
            [
                str(c),
                f"{evaluation.precision[i]:.4f}",
                f"{evaluation.recall[i]:.4f}",
                f"{evaluation.f1[i]:.4f}",
                f"{int(evaluation.support[i]):d}",
            ]
        )
        class_ids.append([None, *(f"{m}-{i}" for m in ("precision", "recall", "f1", "support"))])
    parts.append(
        table(["class", "precision", "recall", "F1", "support"], per_class, cell_ids=class_ids)
    )
    confusion = [
        [str(c), *(f"{int(v):d}" for v in evaluation.confusion[i])]
        for i, c in enumerate(evaluation.classes)
    ]
    parts.append(
        table(
            ["true \\ predicted", *(str(c) for c in evaluation.classes)],
            confusion,
            caption="confusion matrix (rows: true class, columns: predicted class)",
        )
    )
    parts.extend(f"<p class='note'>note: {escape(note)}</p>" for note in evaluation.notes)
    parts.append("</div>")
    return "".join(parts)


def _explained_rows(
    labels: np.ndarray, predicted: np.ndarray, proba: np.ndarray, n: int
) -> list[int]:
    """Up to n rows: the most confident mistakes first, then the most confident correct rows."""
    confidence = proba.max(axis=1)
    wrong = np.flatnonzero(predicted.astype(str) != labels.astype(str))
    right = np.flatnonzero(predicted.astype(str) == labels.astype(str))
    wrong = wrong[np.argsort(-confidence[wrong], kind="stable")]
    right = right[np.argsort(-confidence[right], kind="stable")]
    chosen = list(wrong[: (n + 1) // 2]) + list(right[: n - min(len(wrong), (n + 1) // 2)])
    return [int(i) for i in chosen[:n]]


def report(
    model: Any,
    X: Any = None,
    y: Any = None,
    path: str | Path | None = None,
    *,
    target: str | None = None,
    cv: int | None = None,
    explain_rows: int = 3,
    influence_rows: int = 2000,
    title: str | None = None,
) -> str:
    """Write one self-contained HTML page about ``model`` (and how it does on X, y) to ``path``
    (when given) and return it.

    ``X``, ``y`` (or ``target="column"`` of X) are labelled rows: a test set for the fitted
    ``model``, or, with ``cv=k``, the rows to cross-validate a fresh copy of ``model`` on with k
    stratified folds (the page then describes ``model`` fitted on all of them). Without data the
    page describes the model alone. ``explain_rows`` rows are explained term by term;
    influence is measured on ``influence_rows`` rows at most. Without matplotlib (the ``plot``
    extra) the page has every table but no figure, and one UserWarning says so. The file at
    ``path`` is replaced only once the whole page is written.
    """
    from ._version import __version__
    from .evaluation import Accumulator
    from .model import NaiveBayes
    from .plot import (
        ConfusionMatrixDisplay,
        ExplanationDisplay,
        FeaturesDisplay,
        PrecisionRecallDisplay,
        ReliabilityDisplay,
        RocCurveDisplay,
    )
    from .plot._common import class_positions, labelled
    from .semi_naive.table import SemiNaiveBayes

    is_table = isinstance(model, (NaiveBayes, SemiNaiveBayes))
    if cv is not None and (not isinstance(cv, int) or isinstance(cv, bool) or cv < 2):
        raise ValueError(f"cv must be an integer >= 2 (the number of folds), got {cv!r}.")
    if X is None and (y is not None or target is not None or cv is not None):
        raise ValueError("y, target and cv need the data X.")
    if not isinstance(explain_rows, int) or explain_rows < 0:
        raise ValueError(f"explain_rows must be an integer >= 0, got {explain_rows!r}.")

    drawing = _can_draw()
    labels = None
    if X is not None:
        X, labels = labelled(X, y, target)
        labels = np.asarray(labels)
        if labels.shape[0] == 0:
            raise ValueError("there are no labelled rows to report on.")
    if cv is not None:
        classes, predicted, proba = _cross_validated(model, X, labels, cv)
        if not hasattr(model, "classes_"):
            model = type(model)(**model.get_params(deep=False)).fit(X, labels)
        how = f"{cv}-fold stratified cross-validation on {len(labels):,} rows"
    elif X is not None:
        model._check_fitted()
        classes = np.asarray(model.classes_)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            proba = np.asarray(model.predict_proba(X))
            predicted = np.asarray(model.predict(X))
        how = f"the fitted model on {len(labels):,} labelled rows"
    else:
        model._check_fitted()
        how = "the fitted model alone (no data given)"

    name = type(model).__name__
    heading = title or f"{name} report"
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>{escape(heading)}</title>",
        PAGE_STYLE,
        STYLE,
        "</head><body><div class='nbayes'>",
        f"<h1>{escape(heading)}</h1>",
        f"<p class='note'>nbayes {escape(__version__)}; {escape(name)} with "
        f"{len(model.classes_)} classes; evaluated by {escape(how)}.</p>",
    ]

    # ------------------------------------------------------------------ data
    if labels is not None or is_table:
        parts.append("<h2 id='data'>Data</h2>")
    if labels is not None:
        values, counts = np.unique(labels.astype(str), return_counts=True)
        rows = [
            [v, f"{c:,}", f"{c / counts.sum():.1%}"] for v, c in zip(values, counts, strict=True)
        ]
        parts.append(table(["class", "rows", "share"], rows, caption=f"{len(labels):,} rows"))
    if is_table:
        frame = model._frame(X) if X is not None else None
        rows = []
        families = model.families_
        reasons = model.family_reasons_
        for spec in model.schema_:
            row = [spec.name, families[spec.name], reasons[spec.name]]
            if frame is not None and spec.name in frame.columns:
                column = frame.get_column(spec.name)
                row += [f"{column.null_count():,}", _column_summary(column)]
            rows.append(row)
        header = ["column", "family", "why"] + (["missing", "values"] if frame is not None else [])
        parts.append(table(header, rows, caption="columns"))

    # ------------------------------------------------------------------ metrics and curves
    if labels is not None:
        accumulator = Accumulator(classes)
        accumulator.update(labels, predicted, proba)
        evaluation = accumulator.report()
        truth = class_positions(classes, labels, target)
        parts.append("<h2 id='metrics'>Metrics</h2>")
        parts.append(_metrics_section(evaluation))
        parts.append("<h2 id='plots'>Plots</h2>")
    if labels is not None and not drawing:
        parts.append(NO_FIGURES)
    if labels is not None and drawing:
        reliability = ReliabilityDisplay.from_predictions(truth, proba, classes)
        confusion = ConfusionMatrixDisplay.from_predictions(labels, predicted, classes)
        parts.append(_figure(confusion.figure, "confusion", "confusion matrix"))
        roc = RocCurveDisplay.from_predictions(truth, proba, classes)
        parts.append(_figure(roc.figure, "roc", "ROC curve"))
        pr = PrecisionRecallDisplay.from_predictions(truth, proba, classes)
        parts.append(_figure(pr.figure, "pr", "precision–recall curve"))
        parts.append(
            _figure(
                reliability.figure,
                "reliability",
                "reliability diagram (see the calibration page of the documentation)",
            )
        )

    # ------------------------------------------------------------------ the model
    if is_table:
        if X is not None:
            from .influence import influence

            found = influence(model, X, max_rows=influence_rows)
            parts.append("<h2 id='influence'>Influential features</h2>")
            parts.append(
                "<p class='note'>mean |log P(x_j | a) − log P(x_j | b)| over the rows, a and b "
                "being each row's two most probable classes (nats of log-odds); how often the "
                "feature favoured the decision, and how often its term was the largest.</p>"
            )
            rows = [
                [f, fam, f"{v:.4f}", f"{t:.1%}", f"{g:.1%}"]
                for f, fam, v, t, g in found.iter_rows()
            ]
            parts.append(
                table(["feature", "family", "influence", "toward decision", "largest"], rows)
            )
        parts.append("<h2 id='conditionals'>Class-conditional distributions</h2>")
        if drawing:
            features = FeaturesDisplay.from_estimator(model)
            caption = "P(x_j | c), one panel per feature"
            parts.append(_figure(features.figure, "features", caption))
        else:
            parts.append(NO_FIGURES)
        tables = model.tables(grid=2)
        classes_list = list(model.classes_)
        families = model.families_
        for name, frame in tables.items():
            parts.append(feature_html(name, families[name], frame, classes_list))

        if labels is not None and explain_rows:
            parts.append("<h2 id='explained'>Explained rows</h2>")
            frame = model._frame(X)
            for i in _explained_rows(labels, predicted, proba, explain_rows):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    explanation = model.explain(frame[i : i + 1])
                verdict = "correct" if str(predicted[i]) == str(labels[i]) else "wrong"
                parts.append(
                    f"<h3>row {i:,}: true class {escape(str(labels[i]))}, predicted "
                    f"{escape(str(predicted[i]))} ({verdict})</h3>"
                )
                parts.append(explanation._repr_html_())
                if drawing:
                    chart = ExplanationDisplay.from_explanation(explanation)
                    caption = f"row {i:,}: contributions"
                    parts.append(_figure(chart.figure, f"explain-{i}", caption))

    parts.append("</div></body></html>\n")
    page = "".join(parts)
    if path is not None:
        with replacing(
            path, text=True, what="a report", special=True
        ) as handle:  # whole or not at all
            handle.write(page)
    return page


__all__ = ["report", "svg"]
