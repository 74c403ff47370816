"""One row's explanation as a chart: each term's contribution to the log-odds of the decided
class a against the runner-up b,

    log P(a | x) − log P(b | x) = [log P(a) − log P(b)] + Σ_j [log P(x_j | a) − log P(x_j | b)],

one horizontal bar per term (the prior and each observed feature), largest first, as
:meth:`nbayes.NaiveBayes.explain` prints them. Bars to the right push towards a, to the left
towards b. For :meth:`nbayes.TextClassifier.explain` the terms are the prior and the document's
words (and the rest of its words together).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ._common import axes


def terms_of(explanation: Any) -> tuple[list[tuple[str, float]], Any, Any]:
    """(terms as (name, contribution), class a, class b) of a table or text explanation."""
    if hasattr(explanation, "contributions"):
        a, b = explanation.top_two
        return list(explanation.contributions), explanation.classes[a], explanation.classes[b]
    terms = [("prior", float(explanation.prior))]
    terms += [(token, float(contribution)) for token, _, contribution in explanation.words]
    if explanation.other:
        terms.append(("(other words)", float(explanation.other)))
    if explanation.absent:
        terms.append(("(absent words)", float(explanation.absent)))
    terms.sort(key=lambda t: -abs(t[1]) if np.isfinite(t[1]) else -np.inf)
    return terms, explanation.predicted, explanation.against


@dataclass
class ExplanationDisplay:
    """A drawn explanation: ``terms`` and ``contributions`` (largest |value| first; a calibration
    is the last bar, its own step after the features), the two
    classes compared (``decided``, ``against``), the matplotlib ``figure``, ``ax`` and ``bars``.
    An infinite contribution (a probability of exactly 0) is drawn at the axis edge."""

    terms: list[str]
    contributions: np.ndarray
    decided: Any
    against: Any
    figure: Any
    ax: Any
    bars: Any

    @classmethod
    def from_explanation(cls, explanation: Any, *, ax: Any = None) -> ExplanationDisplay:
        """Draw an :class:`~nbayes.Explanation` (``model.explain(row)``) or a text
        classifier's explanation."""
        terms, decided, against = terms_of(explanation)
        names = [t for t, _ in terms]
        values = np.array([v for _, v in terms], dtype=np.float64)
        finite = values[np.isfinite(values)]
        edge = 1.1 * float(np.max(np.abs(finite), initial=1.0))
        drawn = np.clip(values, -edge, edge)
        figure, ax = axes(ax, (6.0, 1.0 + 0.35 * max(len(names), 2)))
        colors = ["C0" if v >= 0 else "C3" for v in values]
        bars = ax.barh(np.arange(len(names)), drawn, color=colors)
        ax.set_yticks(range(len(names)), names, fontsize="small")
        ax.invert_yaxis()
        ax.axvline(0, color="black", linewidth=0.8)
        ax.set_xlabel(f"contribution to log P({decided} | x) − log P({against} | x)")
        ax.set_title(f"why {decided} and not {against}")
        for i, v in enumerate(values):
            if not np.isfinite(v):
                ax.text(
                    drawn[i],
                    i,
                    " ∞" if v > 0 else "−∞ ",
                    va="center",
                    ha="left" if v > 0 else "right",
                )
        return cls(names, values, decided, against, figure, ax, bars)


def plot_explanation(explanation: Any, *, ax: Any = None) -> ExplanationDisplay:
    """:meth:`ExplanationDisplay.from_explanation`."""
    return ExplanationDisplay.from_explanation(explanation, ax=ax)
