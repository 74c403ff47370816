"""What a semi-naive model did with one row, as data and as a table.

* Networks (TAN, k-DB, selective k-DB): one line per attribute with its factor
  P(x_j | c, parents) for every class and the parents it was conditioned on (after back-off:
  the parents actually used). The factors multiply: their logs add up to log P(x | c). An
  attribute whose value is missing and skipped, or unseen in fitting, has a line saying so
  (a factor of 1).
* Averaged models (AODE, WAODE, AODEsr): one line per super-parent x_i with its weight w_i and
  its share of each class's average, w_i P(x_i | c) Π_j P(x_j | c, x_i) / Σ_i' (…): the shares of
  a class sum to 1.

The numbers are read from the same tables prediction uses; the posterior is the model's own.
A table model whose scores add more than the structure's (text columns, each
Σ_t w_{c,t} x_t beside the structure; the discriminative correction b_c + Σ_j δ_{c,j,x_j} + …)
shows, after the structure's lines, the structure's own P(c | x) and one factor per addition,
each exp(term) scaled so that its largest class is 1 (a common factor changes no posterior):
P(c | x) is proportional to their product.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..families._group import format_table
from . import _scoring_kernels


@dataclass
class SemiNaiveExplanation:
    """One row's computation (see :mod:`nbayes.semi_naive.explain`)."""

    kind: str  # "network", "averaged" or "terms" (no factors shown)
    classes: np.ndarray
    lines: list[dict]  # per attribute (network) or super-parent (averaged)
    prior: np.ndarray
    posterior: np.ndarray
    decision: object
    #: the two most probable classes (positions in ``classes``) and each term of the log-odds
    #: between them, largest first (:func:`nbayes.semi_naive.views.contributions`)
    top_two: tuple[int, int] = (0, 0)
    contributions: list[tuple[str, float]] = field(default_factory=list)
    #: what the table model adds to the structure's scores (module docstring): (label, one
    #: number per class), shown between the structure's lines and P(c | x)
    factors: list[tuple[str, list[float]]] = field(default_factory=list)

    def _rows(self) -> tuple[str, list[str], list[list[float]]]:
        """(header, row labels, per row one number per class) of the worked table."""
        if self.kind == "terms":  # a table model's explanation lists the terms below
            header = "prior and posterior" + (
                " (the terms below say what each attribute did)" if self.contributions else ""
            )
            labels, values = [], []
        elif self.kind == "network":
            header = "attribute = value | parents used: P(x_j | c, parents)"
            labels = [
                f"{line['attribute']} = {line['value']}"
                + (" | " + ", ".join(line["parents"]) if line["parents"] else "")
                + (" (skipped: adds nothing)" if line.get("skipped") else "")
                for line in self.lines
            ]
            values = [np.exp(line["log_p"]).tolist() for line in self.lines]
        else:
            header = "super-parent = value (weight): share of P(c, x)"
            labels = [
                f"{line['attribute']} = {line['value']} (w = {line['weight']:.3g})"
                for line in self.lines
            ]
            values = [list(line["share"]) for line in self.lines]
        return (
            header,
            ["P(c)", *labels, *(label for label, _ in self.factors), "P(c | x)"],
            [self.prior.tolist(), *values, *(row for _, row in self.factors),
             self.posterior.tolist()],
        )  # fmt: skip

    def _caption(self) -> str:
        a, b = self.top_two
        return (
            f"log P({self.classes[a]} | x) − log P({self.classes[b]} | x) with each attribute "
            "minus without it (left out of the evidence), largest first"
        )

    def _shared_evidence(self) -> str | None:
        """Where the terms do not add up to the log-odds, the sentence that says so and why
        (None where they do, or where either is not finite)."""
        a, b = self.top_two
        with np.errstate(divide="ignore", invalid="ignore"):
            log_odds = float(np.log(self.posterior[a]) - np.log(self.posterior[b]))
        total = float(sum(value for _, value in self.contributions))
        if not (np.isfinite(log_odds) and np.isfinite(total)):
            return None
        if abs(total - log_odds) <= 1e-6 * (1.0 + abs(log_odds)):
            return None
        return (
            f"the terms add up to {total:+.3f}, the log-odds is {log_odds:+.3f}: where "
            "attributes carry the same evidence (a parent and its child, say), taking one out "
            "leaves the others to carry it, so a decisive value can show a small or negative term"
        )

    def __str__(self) -> str:
        header, labels, values = self._rows()
        lines = [header, format_table(labels, self.classes, values), f"decision: {self.decision}"]
        if self.contributions and len(self.classes) > 1:
            lines.append(self._caption() + ":")
            width = max(len(term) for term, _ in self.contributions)
            lines += [f"  {term:<{width}}  {value:+.3f}" for term, value in self.contributions]
            note = self._shared_evidence()
            if note is not None:
                lines.append(f"({note})")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """The worked table and the terms as HTML (what a notebook shows)."""
        from html import escape

        from ..html import STYLE, table

        header, labels, values = self._rows()
        rows = [[label, *row] for label, row in zip(labels, values, strict=True)]
        parts = [STYLE, '<div class="nbayes">', table([header, *map(str, self.classes)], rows)]
        parts.append(f'<p>decision: <span class="decided">{escape(str(self.decision))}</span>')
        if self.contributions and len(self.classes) > 1:
            terms = [[t, f"{v:+.3f}" if np.isfinite(v) else str(v)] for t, v in self.contributions]
            parts.append(table(["term", "contribution"], terms, caption=self._caption()))
            note = self._shared_evidence()
            if note is not None:
                parts.append(f"<p>{escape(note[0].upper() + note[1:])}.</p>")
        parts.append("</div>")
        return "".join(parts)


def network_lines(
    model, codes: np.ndarray, names: list[str], show: Callable[[int, float], str]
) -> list[dict]:
    """Each used attribute's log P(x_j | c, parents) with the parents the row reached."""
    counts = model._parent_counts()
    log_table, _, config_count = counts.tables(model._pseudo(), model._hierarchical)
    depth = model._depth(counts)
    lines = []
    for j, value in enumerate(codes):
        if depth[j] < 0:  # an attribute the structure does not use
            continue
        if value != value or value >= counts.n_values[j]:  # missing (skipped), or unseen
            lines.append(_skipped(names[j], show(j, value), len(model.classes_)))
            continue
        x = int(value)
        cell = counts.level_base[j, 0] + x
        config, used = 0, []
        for L in range(1, int(depth[j]) + 1):
            p = int(counts.parents[j, L - 1])
            pv = codes[p]
            if pv != pv or pv >= counts.n_values[p]:
                break
            config = config * int(counts.n_values[p]) + int(pv)
            if config_count[counts.config_base[j, L] + config] < model.min_count:
                break
            cell = counts.level_base[j, L] + config * int(counts.n_values[j]) + x
            used.append(f"{names[p]} = {show(p, pv)}")
        lines.append(
            {"attribute": names[j], "value": show(j, value), "parents": used,
             "log_p": log_table[cell].copy()}
        )  # fmt: skip
    return lines


def _skipped(attribute: str, value: str, n_classes: int) -> dict:
    """The line of an attribute whose value adds no factor: missing and skipped, or unseen in
    fitting (then treated as missing): a factor of 1 for every class."""
    return {"attribute": attribute, "value": value, "parents": [], "skipped": True,
            "log_p": np.zeros(n_classes)}  # fmt: skip


def averaged_lines(
    model, codes: np.ndarray, names: list[str], show: Callable[[int, float], str]
) -> list[dict]:
    """Each super-parent's weight and share of every class's average (AODE family, n = 1)."""
    offsets, base, log_single, forward, backward, freq, pair_freq = model._aode_tables()
    weights = model._parent_weights()
    v = model._pairs.n_values
    observed = [j for j, a in enumerate(codes) if a == a and a < v[j]]
    if model.subsumption is not None and observed:  # drop the generalisations, as prediction
        attr = np.array(observed, dtype=np.int64)
        keep = np.ones(len(observed), dtype=bool)
        _scoring_kernels._subsume(
            attr, codes[attr].astype(np.int64), len(observed), offsets, v, base, freq,
            pair_freq, float(model.subsumption), keep,
        )  # fmt: skip
        observed = [j for j, k in zip(observed, keep, strict=True) if k]
    eligible = [j for j in observed if freq[offsets[j] + int(codes[j])] >= model.min_count]
    if sum(weights[j] for j in eligible) <= 0:
        weights = np.ones_like(weights)
    terms, lines = [], []
    for i in observed:
        a = int(codes[i])
        if freq[offsets[i] + a] < model.min_count or weights[i] <= 0:
            continue
        term = np.log(weights[i]) + log_single[offsets[i] + a].copy()
        for j in observed:
            if j == i:
                continue
            b = int(codes[j])
            if i < j:
                term += forward[base[i, j] + a * v[j] + b]
            else:
                term += backward[base[j, i] + b * v[i] + a]
        terms.append(term)
        lines.append({"attribute": names[i], "value": show(i, a), "weight": float(weights[i])})
    if terms:
        stacked = np.array(terms)
        shares = np.exp(stacked - np.logaddexp.reduce(stacked, axis=0))
        for line, share in zip(lines, shares, strict=True):
            line["share"] = share
    return lines
