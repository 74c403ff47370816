"""A prediction worked out as by hand (the layout of Han, Kamber & Pei's buys_computer example).

For one row x and each class c:

    P(c),  P(x_j | c) for every feature,  P(x | c) = ∏_j P(x_j | c)  (and Σ_j log P(x_j | c)),
    P(x | c) P(c),  and  P(c | x) = P(x | c) P(c) / Σ_k P(x | k) P(k).

and, for the two most probable classes a and b, each feature's contribution to the log-odds

    log P(a | x) − log P(b | x) = [log P(a) − log P(b)] + Σ_j [log P(x_j | a) − log P(x_j | b)]

sorted by size, so the features that decided the case come first. A missing feature contributes
nothing and is listed as such. For a continuous feature P(x_j | c) is a density, marked p(·).
A text column weighted as complement naive Bayes weights it (Rennie et al. 2003) contributes a
score, Σ_t w_{c,t} x_t, not a log-probability: its line shows exp(Σ_t w_{c,t} x_t), marked as
such, and the product lines below it are then scores of the same kind.

A calibrated model (temperature a, offsets b_c; see :mod:`nbayes.calibration`) scores
a · [log P(c) + Σ_j log P(x_j | c)] + b_c: the table shows that line too, and the contributions
end with the calibration's own step, after the features' terms (not sorted among them):
(a − 1) · [the textbook log-odds of a against b] + b_a − b_b.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .families._group import LEFT_OUT
from .families._group import format_figure as _number


@dataclass(frozen=True)
class Explanation:
    """The worked computation for one row; ``print()`` it for the table."""

    classes: np.ndarray
    features: list[str]
    values: list[str]
    densities: list[bool]
    log_prior: np.ndarray
    log_likelihood: np.ndarray  # (d, K): log P(x_j | c); NaN where x_j is missing
    posterior: np.ndarray
    decision: object
    calibration: tuple[float, np.ndarray] | None = None  # (a, b): temperature and offsets
    weight_scores: tuple[str, ...] = ()  # features whose term is Σ_t w_{c,t} x_t, not log P

    @property
    def prior(self) -> np.ndarray:
        """P(c)."""
        return np.exp(self.log_prior)

    @property
    def likelihood(self) -> np.ndarray:
        """P(x_j | c) per feature and class (NaN where the feature is missing)."""
        return np.exp(self.log_likelihood)

    @property
    def log_evidence(self) -> np.ndarray:
        """Σ_j log P(x_j | c), over the observed features."""
        return np.nansum(self.log_likelihood, axis=0)

    @property
    def product(self) -> np.ndarray:
        """P(x | c) = ∏_j P(x_j | c)."""
        return np.exp(self.log_evidence)

    @property
    def joint(self) -> np.ndarray:
        """P(x | c) P(c)."""
        return np.exp(self.log_evidence + self.log_prior)

    @property
    def calibrated_log_joint(self) -> np.ndarray:
        """a · [log P(c) + Σ_j log P(x_j | c)] + b_c (the textbook log P(x | c) P(c) when the
        model is not calibrated)."""
        textbook = self.log_evidence + self.log_prior
        if self.calibration is None:
            return textbook
        weight, offset = self.calibration
        return weight * textbook + offset

    @property
    def top_two(self) -> tuple[int, int]:
        order = np.argsort(-self.posterior, kind="stable")
        return int(order[0]), int(order[min(1, len(order) - 1)])

    @property
    def contributions(self) -> list[tuple[str, float]]:
        """(term, log P(x_j|a) − log P(x_j|b)) for the prior and each observed feature, largest
        first, where a and b are the two most probable classes; then, for a calibrated model,
        the calibration's term as the step that follows them (it is no feature's evidence)."""
        a, b = self.top_two
        with np.errstate(invalid="ignore"):
            terms = [("prior", float(self.log_prior[a] - self.log_prior[b]))]
            for name, value, row in zip(
                self.features, self.values, self.log_likelihood, strict=True
            ):
                if not np.isnan(row[a]):
                    terms.append((f"{name}={value}", float(row[a] - row[b])))
            terms.sort(key=lambda t: -abs(t[1]) if np.isfinite(t[1]) else -np.inf)
            if self.calibration is not None:  # its own step, after the features
                weight, offset = self.calibration
                joint = self.log_evidence + self.log_prior
                term = (weight - 1.0) * (joint[a] - joint[b]) + offset[a] - offset[b]
                terms.append((f"then calibration (a = {weight:.3g})", float(term)))
        return terms

    def __repr__(self) -> str:
        best = int(np.argmax(self.posterior)) if len(self.posterior) else 0
        shown = (
            f", P({self.classes[best]} | x) = {_number(float(self.posterior[best]))}"
            if len(self.posterior)
            else ""
        )
        return (
            f"<Explanation: decision {self.decision}{shown}, {len(self.features)} features; "
            "print() it for the worked table>"
        )

    def _repr_html_(self) -> str:
        """The worked table as HTML (what a notebook shows for an explanation)."""
        from .html import explanation_html

        return explanation_html(self)

    def feature_rows(self) -> list[tuple[str, np.ndarray | list[str]]]:
        """Each column's line of the worked table: P(x_j = value | c) (p for a density; for a
        weighted text column exp Σ_t w_{c,t} x_t), or why it has none (a missing value is
        skipped; an identifier is left out)."""
        out: list[tuple[str, np.ndarray | list[str]]] = []
        for name, value, density, row in zip(
            self.features, self.values, self.densities, self.log_likelihood, strict=True
        ):
            if np.isnan(row).all() and value == LEFT_OUT:
                out.append((f"{name} is left out", ["ignored"] * len(self.classes)))
            elif np.isnan(row).all():
                out.append((f"{name} is missing", ["skipped"] * len(self.classes)))
            elif name in self.weight_scores:
                out.append((f"exp Σ w_ct x_t ({name}={value})", np.exp(row)))
            else:
                out.append((f"{'p' if density else 'P'}({name}={value} | c)", np.exp(row)))
        return out

    def table_rows(self) -> list[tuple[str, np.ndarray | list[str]]]:
        """Every line of the worked table, P(c) to P(c | x) (shared by the text and HTML
        views). With a weighted text column the product lines are scores, and say so."""
        if self.weight_scores:
            product = ("∏ of the column lines (a score)", "Σ of their logs", "× P(c)")
            calibrated = "a [log P(c) + Σ of their logs] + b_c"
        else:
            product = ("P(x | c) = ∏ P(x_j | c)", "Σ log P(x_j | c)", "P(x | c) P(c)")
            calibrated = "a [log P(c) + Σ log P(x_j | c)] + b_c"
        rows: list[tuple[str, np.ndarray | list[str]]] = [("P(c)", self.prior)]
        rows.extend(self.feature_rows())
        rows.extend(zip(product, (self.product, self.log_evidence, self.joint), strict=True))
        if self.calibration is not None:
            rows.append((calibrated, self.calibrated_log_joint))
        rows.append(("P(c | x)", self.posterior))
        return rows

    def __str__(self) -> str:
        classes = [str(c) for c in self.classes]
        rows = self.table_rows()
        width = max([len(label) for label, _ in rows] + [22])
        column = max([len(c) for c in classes] + [10])

        def line(label: str, values: np.ndarray | list[str]) -> str:
            cells = [v if isinstance(v, str) else _number(float(v)) for v in values]
            return f"{label:<{width}}" + "".join(f"  {c:>{column}}" for c in cells)

        out = [f"{'':<{width}}" + "".join(f"  {c:>{column}}" for c in classes)]
        out.extend(line(label, cells) for label, cells in rows)
        out.append("")
        out.append(f"decision: {self.decision}")
        if len(classes) > 1:
            a, b = self.top_two
            out.append(
                f"contributions to log P({classes[a]} | x) − log P({classes[b]} | x), "
                "largest first:"
            )
            name_width = max(len(t) for t, _ in self.contributions)
            for term, value in self.contributions:
                out.append(
                    f"  {term:<{name_width}}  {value:+.3f}"
                    if np.isfinite(value)
                    else f"  {term:<{name_width}}  {value}"
                )
        return "\n".join(out)
