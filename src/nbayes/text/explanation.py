"""Why a :class:`~nbayes.text.TextClassifier` decides as it does: the words most indicative of a
class (:func:`log_ratio`, :func:`top_features`) and the contribution of each word of one document
to its decision (:func:`explain`, a :class:`TextExplanation`). The classifier's methods of the same
names call these.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._hashing import hash_index, murmur3_32


@dataclass
class TextExplanation:
    """Why a document got its class: the log-odds of ``predicted`` against ``against``,

        log P(predicted | x) − log P(against | x) = prior + Σ_t contribution_t  (+ absent)

    where contribution_t = x_t (w_{predicted,t} − w_{against,t}) for each word (n-gram) t of the
    document, with w the model's log-probabilities (multinomial), complement weights (complement;
    no prior term and the scores are not log-probabilities) or presence log-odds (Bernoulli, with
    ``absent`` the evidence of every vocabulary word the document lacks).
    """

    predicted: Any
    against: Any
    log_odds: float
    prior: float
    words: list[tuple[str, float, float]]
    other: float
    absent: float = 0.0
    proba: dict = field(default_factory=dict)

    def _repr_html_(self) -> str:
        """The contributions as an HTML table (what a notebook shows)."""
        from ..html import text_explanation_html

        return text_explanation_html(self)

    def __str__(self) -> str:
        lines = [
            f"predicted {self.predicted!r} over {self.against!r}: score difference "
            f"{self.log_odds:+.4f}"
            + (f" (P = {self.proba.get(self.predicted, float('nan')):.4f})" if self.proba else "")
        ]
        width = max([len(t) for t, _, _ in self.words] + [12])
        lines.append(f"  {'prior':<{width}}          {self.prior:+.4f}")
        for token, value, contribution in self.words:
            lines.append(f"  {token:<{width}}  x={value:<6.3g} {contribution:+.4f}")
        if self.other:
            lines.append(f"  {'(other words)':<{width}}          {self.other:+.4f}")
        if self.absent:
            lines.append(f"  {'(absent words)':<{width}}          {self.absent:+.4f}")
        return "\n".join(lines)


def log_ratio(classifier: Any, cls: Any) -> np.ndarray:
    """:meth:`TextClassifier.log_ratio <nbayes.text.TextClassifier.log_ratio>` (the formula is
    there)."""
    derived = classifier.prediction_model()
    k = classifier._class_position(cls)
    counts = derived.feature_count_
    alpha = derived._alpha()
    mine = counts[k]
    rest = counts.sum(axis=0) - mine
    with np.errstate(divide="ignore", invalid="ignore"):
        if classifier.model == "bernoulli":
            n_k = derived.class_count_[k]
            n_rest = derived.class_count_.sum() - n_k
            p_k = (mine + alpha) / (n_k + 2 * alpha)
            p_rest = (rest + alpha) / (n_rest + 2 * alpha)
        else:
            size = counts.shape[1]
            total_alpha = alpha * size if np.ndim(alpha) == 0 else np.sum(alpha)
            p_k = (mine + alpha) / (mine.sum() + total_alpha)
            p_rest = (rest + alpha) / (rest.sum() + total_alpha)
        return np.log(p_k) - np.log(p_rest)


def top_features(classifier: Any, cls: Any, n: int = 10) -> list[tuple[str, float]]:
    """:meth:`TextClassifier.top_features <nbayes.text.TextClassifier.top_features>`."""
    ratio = log_ratio(classifier, cls)
    order = np.lexsort((np.arange(ratio.shape[0]), -np.nan_to_num(ratio, nan=-np.inf)))
    top = order[: max(0, int(n))]
    columns = classifier.vectorizer_.selected_columns()[top]
    names = classifier.vectorizer_.column_names(columns)
    return [(name, float(ratio[j])) for name, j in zip(names, top, strict=True)]


def explain(
    classifier: Any, doc: str | bytes | None, *, n: int = 10, against: Any = None
) -> TextExplanation:
    """:meth:`TextClassifier.explain <nbayes.text.TextClassifier.explain>`."""
    derived = classifier.prediction_model()
    vectorizer = classifier.vectorizer_
    (counts,) = list(vectorizer.iter_counts([doc]))
    X = vectorizer.features(counts, weigh=classifier._weighs())
    predicted = derived.predict(X)[0]
    proba = derived.predict_proba(X)[0]
    jll = derived.predict_joint_log_proba(X)[0]
    c = classifier._class_position(predicted)
    if against is None:
        ranked = [k for k in np.argsort(-jll, kind="stable") if k != c]
        a = int(ranked[0]) if ranked else c
    else:
        a = classifier._class_position(against)
    lp = derived._class_log_prior() if classifier.model != "complement" else np.zeros(len(proba))
    if classifier.model == "bernoulli":
        log_p = derived.feature_log_prob_
        with np.errstate(divide="ignore"):
            log_q = np.log1p(-np.exp(log_p))
        weights = log_p - log_q
        absent = float(np.sum(log_q[c]) - np.sum(log_q[a]))
        values = (X.data > 0).astype(np.float64)
    else:
        weights = derived.feature_log_prob_
        absent = 0.0
        values = X.data
    contributions = values * (weights[c, X.indices] - weights[a, X.indices])
    labels = document_labels(classifier.vectorizer_, doc, X.indices)
    order = np.argsort(-np.abs(contributions), kind="stable")
    shown = order[: max(0, int(n))]
    words = [(labels[int(X.indices[i])], float(values[i]), float(contributions[i])) for i in shown]
    return TextExplanation(
        predicted=_plain(predicted),
        against=_plain(classifier.classes_[a]),
        log_odds=float(jll[c] - jll[a]),
        prior=float(lp[c] - lp[a]) if len(proba) > 1 else 0.0,
        words=words,
        other=float(np.sum(contributions[order[len(shown) :]])),
        absent=absent,
        proba=dict(zip(classifier.classes_.tolist(), proba.tolist(), strict=True)),
    )


def document_labels(vectorizer: Any, doc: Any, positions: np.ndarray) -> dict[int, str]:
    """A label for each selected column position in ``positions``: the document's own n-grams
    that fall in it, joined by " | " (hash columns are shared), or "#position"."""
    tokens = vectorizer.tokenizer.analyze(doc)
    columns = vectorizer.selected_columns()
    where: dict[int, list[str]] = {}
    for token in tokens:
        if vectorizer.mode == "hashing":
            raw = np.frombuffer(token.encode("utf-8", "surrogatepass"), dtype=np.uint8)
            h = murmur3_32(raw, 0, raw.shape[0], 0)
            column = int(hash_index(h, int(vectorizer.n_features)))
        else:
            column = vectorizer.vocabulary_.find(token)
        i = int(np.searchsorted(columns, column))
        if 0 <= column and i < columns.shape[0] and columns[i] == column:
            where.setdefault(i, []).append(token)
    return {int(p): " | ".join(where.get(int(p), [f"#{p}"])) for p in positions}


def _plain(value: Any) -> Any:
    """A NumPy scalar as the Python value (for printing)."""
    return value.item() if isinstance(value, np.generic) else value
