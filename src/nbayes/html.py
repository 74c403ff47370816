"""HTML views of fitted models and explanations, for notebooks (``_repr_html_``) and reports.

Plain HTML tables with a small inline style: no scripts, no external resources. Every number
shown is the one the text views (``summary()``, ``print(explanation)``) show.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

import numpy as np

from .families._group import format_figure as _number

STYLE = (
    "<style>"
    ".nbayes table{border-collapse:collapse;margin:0.3em 0 0.8em 0;font-size:0.9em}"
    ".nbayes th,.nbayes td{border:1px solid #ccc;padding:2px 8px;text-align:right}"
    ".nbayes th:first-child,.nbayes td:first-child{text-align:left}"
    ".nbayes thead th{background:#f2f2f2}"
    ".nbayes td.t{text-align:left}.nbayes .decided{font-weight:bold}"
    ".nbayes details{margin:0.2em 0}.nbayes caption{text-align:left;white-space:nowrap}"
    ".nbayes .pos{color:#1f77b4}.nbayes .neg{color:#d62728}"
    "</style>"
)


def _numeric(text: str) -> bool:
    """Whether a cell's text is a number (right-aligned) rather than words (left-aligned)."""
    try:
        float(text.replace(",", "").rstrip("%"))
    except ValueError:
        return text in ("skipped", "ignored", "-inf", "inf")
    return True


def table(
    header: Sequence[Any],
    rows: Sequence[Sequence[Any]],
    *,
    caption: str | None = None,
    row_classes: Sequence[str | None] | None = None,
    cell_ids: Sequence[Sequence[str | None]] | None = None,
) -> str:
    """An HTML table: ``header`` cells, then ``rows`` (numbers are formatted as the text views
    format them; everything is escaped). ``cell_ids`` gives an ``id`` to body cells."""
    out = ["<table>"]
    if caption:
        out.append(f"<caption>{escape(caption)}</caption>")
    out.append("<thead><tr>" + "".join(f"<th>{escape(str(h))}</th>" for h in header))
    out.append("</tr></thead><tbody>")
    for i, row in enumerate(rows):
        css = row_classes[i] if row_classes else None
        out.append(f'<tr class="{css}">' if css else "<tr>")
        for j, cell in enumerate(row):
            text = cell if isinstance(cell, str) else _number(float(cell))
            cell_id = cell_ids[i][j] if cell_ids else None
            attribute = f' id="{escape(cell_id)}"' if cell_id else ""
            tag = "th" if j == 0 else "td"
            if j and isinstance(cell, str) and not _numeric(cell):
                attribute += ' class="t"'
            out.append(f"<{tag}{attribute}>{escape(text)}</{tag}>")
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def explanation_html(explanation: Any) -> str:
    """The worked computation of :class:`~nbayes.Explanation` as an HTML table, then the
    contributions to the log-odds of the two most probable classes."""
    classes = [str(c) for c in explanation.classes]
    rows = [[label, *cells] for label, cells in explanation.table_rows()]
    parts = [STYLE, '<div class="nbayes">', table(["", *classes], rows)]
    parts.append(f'<p>decision: <span class="decided">{escape(str(explanation.decision))}</span>')
    if len(classes) > 1:
        a, b = explanation.top_two
        terms = [
            [term, f"{value:+.3f}" if np.isfinite(value) else str(value)]
            for term, value in explanation.contributions
        ]
        caption = f"contributions to log P({classes[a]} | x) − log P({classes[b]} | x)"
        parts.append(table(["term", "contribution"], terms, caption=caption))
    parts.append("</div>")
    return "".join(parts)


def text_explanation_html(explanation: Any) -> str:
    """A text classifier's explanation (:class:`nbayes.text.TextExplanation`) as HTML: the
    score difference, then each word's contribution."""
    head = (
        f'<p>predicted <span class="decided">{escape(str(explanation.predicted))}</span> over '
        f"{escape(str(explanation.against))}: score difference {explanation.log_odds:+.4f}"
    )
    if explanation.proba:
        p = explanation.proba.get(explanation.predicted, float("nan"))
        head += f" (P = {p:.4f})"
    rows = [["prior", "", f"{explanation.prior:+.4f}"]]
    rows += [[t, f"{v:.3g}", f"{c:+.4f}"] for t, v, c in explanation.words]
    if explanation.other:
        rows.append(["(other words)", "", f"{explanation.other:+.4f}"])
    if explanation.absent:
        rows.append(["(absent words)", "", f"{explanation.absent:+.4f}"])
    body = table(["term", "x", "contribution"], rows)
    return f'{STYLE}<div class="nbayes">{head}</p>{body}</div>'


def _pivot(frame: Any, label: str, values: str, classes: list[Any]) -> list[list[Any]]:
    """Rows of a tidy table: one per ``label`` value (in order), one cell per class."""
    labels = frame.filter(frame.get_column("class") == classes[0]).get_column(label).to_list()
    columns = [
        frame.filter(frame.get_column("class") == c).get_column(values).to_list() for c in classes
    ]
    shown = ["(missing)" if v is None else str(v) for v in labels]  # missing as a value: null
    return [[v, *(column[i] for column in columns)] for i, v in enumerate(shown)]


def _interval_label(lower: float, upper: float) -> str:
    low = "(−∞" if lower == -np.inf else f"({_number(lower)}"
    high = "∞)" if upper == np.inf else f"{_number(upper)}]"
    return f"{low}, {high}"


def feature_html(name: str, family: str, frame: Any, classes: list[Any]) -> str:
    """One feature's fitted conditionals (a frame of ``model.tables()``) as an HTML table."""
    header = ["", *(str(c) for c in classes)]
    first = frame.filter(frame.get_column("class") == classes[0])
    if family == "categorical":
        rows = _pivot(frame, "value", "probability", classes)
        what = "P(value | c)"
        if len(rows) > 30:
            rows = sorted(rows, key=lambda r: -max(r[1:]))[:30]
            what += f", the 30 most probable of {len(_pivot(frame, 'value', 'count', classes))}"
        rows.sort(key=lambda r: r[0])
    elif family == "gaussian":
        rows = [_pivot(frame, "feature", v, classes)[0] for v in ("mean", "sd", "count")]
        for row, v in zip(rows, ("mean", "sd", "count"), strict=True):
            row[0] = v
        what = "normal density"
    elif family == "poisson":
        rows = [_pivot(frame, "feature", "rate", classes)[0]]
        rows[0][0] = "rate"
        what = "Poisson"
    elif family == "kde":
        per_class = [frame.filter(frame.get_column("class") == c) for c in classes]
        rows = [["bandwidth", *(part.get_column("bandwidth")[0] for part in per_class)]]
        what = "kernel density"
    elif family in ("text", "text-multinomial"):
        value = "probability" if "probability" in frame.columns else "weight"
        best = (
            frame.sort(value, descending=True)
            .get_column("token")
            .unique(maintain_order=True)
            .head(10)
            .to_list()
        )
        rows = [row for row in _pivot(frame, "token", value, classes) if row[0] in best]
        what = (
            "P(word | c), the 10 most probable words"
            if value == "probability"
            else "complement weight w(word, c), the 10 largest"
        )
    else:
        labels = [
            _interval_label(lo, hi)
            for lo, hi in zip(first.get_column("lower"), first.get_column("upper"), strict=True)
        ]
        rows = _pivot(frame, "interval", "probability", classes)
        for row, label in zip(rows, labels, strict=True):
            row[0] = label
        what = "P(interval | c)"
    summary = f"{escape(name)} <small>({escape(family)}: {escape(what)})</small>"
    return f"<details><summary>{summary}</summary>{table(header, rows)}</details>"


def model_html(model: Any) -> str:
    """A fitted :class:`~nbayes.NaiveBayes` as HTML: the class prior, then each feature's
    conditionals in a collapsible section."""
    classes = list(model.classes_)
    prior = np.exp(model._class_log_prior())
    families = list(model.families_.values())
    counts = {f: families.count(f) for f in dict.fromkeys(families)}
    head = (
        f"<p><b>NaiveBayes</b>: {round(float(model.class_count_.sum())):,} training rows "
        f"(weighted), {len(classes)} classes, {len(families)} columns ("
        + escape(", ".join(f"{n} {f}" for f, n in counts.items()))
        + ")</p>"
    )
    parts = [STYLE, '<div class="nbayes">', head]
    parts.append(table(["", *(str(c) for c in classes)], [["P(c)", *prior]]))
    fitted = getattr(model, "calibration_", None)
    if fitted is not None and not fitted.is_identity:
        parts.append(
            f"<p>calibrated scores a · [log P(c) + Σ<sub>j</sub> log P(x<sub>j</sub> | c)] + "
            f"b<sub>c</sub>, a = {fitted.weight:.4g}</p>"
        )
        parts.append(table(["", *(str(c) for c in classes)], [["b_c", *fitted.offset]]))
    tables = model.tables(grid=2)
    chosen = model.families_
    for name, frame in tables.items():
        parts.append(feature_html(name, chosen[name], frame, classes))
    parts.append("</div>")
    return "".join(parts)


__all__ = ["explanation_html", "feature_html", "model_html", "table", "text_explanation_html"]
