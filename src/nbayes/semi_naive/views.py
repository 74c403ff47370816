"""What a fitted :class:`~nbayes.semi_naive.SemiNaiveBayes` shows, through the same views as
``NaiveBayes``: each column's family and why (``families_``, ``family_reasons_``), its
class-conditional distribution as a tidy table (``tables()``, which ``nbayes.plot`` and the
report draw), and each attribute's term in a decision (explanations, influence); they are the
properties and methods of :class:`TableViews`.

**Tables.** Every structure keeps the counts N(c, x_j = a) of each attribute with the class, so
``tables()`` gives, for every modelled column, the estimate prediction uses for an attribute
that has no parent:

    P̂(x_j = a | c) = (N(c, x_j = a) + p_j) / (N_c^(j) + v_j p_j)

(p_j the structure's pseudo-count, N_c^(j) the class-c rows where x_j is observed), in the
layout of ``NaiveBayes``'s tables: ``value``, ``count``, ``probability`` for a categorical column;
``interval``, ``lower``, ``upper``, ``count``, ``probability`` for a column cut into intervals.
Where a column's missing values are a value of their own (``missing_modes_`` ``"category"``),
that value is the table's last row, with a null ``value`` (or null bounds).
The conditionals given the parents are in :meth:`SemiNaiveBayes.explain` (per row) and
``summary()`` (the structure).

Text columns (a bag of words beside the structure) have ``NaiveBayes``'s text tables.

**Terms.** A semi-naive log-likelihood is not a sum over attributes, so an attribute's term in
the log-odds of class a against class b is the log-odds with it minus the log-odds with it left
out of the evidence (skipped, as a missing value is where missing values are skipped; where they
are a value of their own, that value is evidence too, and has its term):

    δ_j = [log P(a, x) − log P(b, x)] − [log P(a, x_−j) − log P(b, x_−j)]

For naive Bayes with missing values skipped this is exactly log P(x_j | a) − log P(x_j | b), the
term ``NaiveBayes`` reports; here the terms need not add up to the log-odds.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

import numpy as np
import polars as pl

from ..exceptions import UnseenCategoryWarning

#: Why a column has the family it has, by family (interval methods name their rule).
REASONS = {
    "categorical": "its values are counted as categories",
    "mdl": "numbers cut into intervals by Fayyad & Irani's MDL criterion (supervised)",
    "equal-width": "numbers cut into intervals of equal width",
    "equal-frequency": "numbers cut into intervals of equal frequency",
    "ignore": "left out: an identifier (or named so in families=)",
    "text": "free text as a bag of words (naive Bayes's text family), independent of the other "
    "columns given the class",
}


def column_families(model: Any) -> dict[str, str]:
    """Family of every column read: the schema's, then ``"ignore"`` for those left out."""
    out = {s.name: s.family for s in model.schema_}
    out.update(dict.fromkeys(model.text_columns_, "text"))
    out.update(dict.fromkeys(model.ignored_, "ignore"))
    return {name: out[name] for name in model._fit_columns if name in out}


def column_reasons(model: Any) -> dict[str, str]:
    """Why each column has its family, with the number of intervals of a numeric column."""
    out = {}
    for name, family in column_families(model).items():
        reason = REASONS[family]
        if name in model.cut_points_:
            reason += f": {len(model.cut_points_[name]) + 1} interval(s)"
        out[name] = reason
    return out


def conditional_tables(
    model: Any, columns: list[str] | None = None, *, to: str = "polars"
) -> dict[str, Any]:
    """P̂(x_j | c) of every modelled column (or of ``columns``) as tidy frames, by name, in the
    model's order (see the module docstring)."""
    if to not in ("polars", "pandas"):
        raise ValueError(f"to must be 'polars' or 'pandas', got {to!r}.")
    names = [s.name for s in model.schema_]
    if isinstance(columns, str):
        columns = [columns]
    known = names + model.text_columns_ + model.ignored_
    unknown = [c for c in columns or [] if c not in known]
    if unknown:
        raise ValueError(f"columns names features the model does not have: {unknown}.")
    wanted = set(names if columns is None else columns)
    structure = model.model_
    counts = structure._pairs
    offsets, _, _ = counts.layout()
    probability = np.exp(counts.single_log_prob(structure._pseudo()))
    classes = list(structure.classes_)
    out = {}
    for j, spec in enumerate(model.schema_):
        if spec.name not in wanted:
            continue
        v = int(counts.n_values[j])
        rows = slice(int(offsets[j]), int(offsets[j]) + v)
        # a column whose missing values are a value of their own: its last code, shown as null
        missing = [None] if j in model._missing_codes else []
        seen = v - len(missing)
        frame = {
            "feature": [spec.name] * (v * len(classes)),
            "class": np.repeat(np.asarray(classes, dtype=object), v).tolist(),
        }
        if spec.family == "categorical":
            vocabulary = model._encoder.vocabularies[model._encoder.names.index(spec.name)]
            frame["value"] = (list(vocabulary[:seen]) + missing) * len(classes)
        else:
            edges = np.r_[-np.inf, model.cut_points_[spec.name], np.inf].tolist()
            frame["interval"] = list(range(v)) * len(classes)
            frame["lower"] = (edges[:seen] + missing) * len(classes)
            frame["upper"] = (edges[1 : seen + 1] + missing) * len(classes)
        frame["count"] = counts.singles[rows].T.reshape(-1)
        frame["probability"] = probability[rows].T.reshape(-1)
        out[spec.name] = pl.DataFrame(frame, strict=False)
    texts = [t for t in model.text_columns_ if columns is None or t in columns]
    if texts:
        out.update(model._words.tables(texts))
    ordered = {name: out[name] for name in model._fit_columns if name in out}
    if to == "pandas":
        return {name: frame.to_pandas() for name, frame in ordered.items()}
    return ordered


def attribute_terms(model: Any, frame: pl.DataFrame) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(modelled column names, δ of shape (d, n, K), log P(c, x) of shape (n, K)): δ[j] is the
    joint log-likelihood of the row less that of the row with attribute j missing (see the
    module docstring; a log-odds term is a difference of two classes' δ)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnseenCategoryWarning)
        encoded = model._encode(frame, fitting=False)
        joint = model.model_.predict_joint_log_proba(encoded)
        terms = np.empty((encoded.codes.shape[1], *joint.shape))
        original = encoded.codes
        for j in range(original.shape[1]):
            encoded.codes = original.copy()
            encoded.codes[:, j] = np.nan
            without = model.model_.predict_joint_log_proba(encoded)
            with np.errstate(invalid="ignore"):
                terms[j] = np.where(np.isnan(original[:, j])[:, None], 0.0, joint - without)
        encoded.codes = original
    correction = model._corrected()
    if correction is not None:  # each attribute's weight, less that of its value missing
        terms += model._correction_terms(original)
        joint = joint + model._correction_scores(original)
    names = [s.name for s in model.schema_]
    if model._words is not None:  # a text column's term is its own log P(x_t | c)
        texts, text_terms = model._text_terms(frame)
        names += texts
        terms = np.concatenate([terms, text_terms])
        joint = joint + text_terms.sum(axis=0)
    return names, terms, joint


def contributions(
    model: Any, frame: pl.DataFrame, joint: np.ndarray
) -> tuple[tuple[int, int], list[tuple[str, float]]]:
    """For one row: the two most probable classes (a, b) and each term of log P(a | x) −
    log P(b | x), largest first: the prior's, then each observed attribute's δ_j(a) − δ_j(b)."""
    names, terms, _ = attribute_terms(model, frame)
    order = np.argsort(-joint[0], kind="stable")
    a, b = int(order[0]), int(order[-1] if order.shape[0] == 1 else order[1])
    prior = model.model_._class_log_prior()
    correction = model._corrected()
    if correction is not None:  # the correction's class weights b_c join the prior's term
        prior = prior + correction.bias
    found = [("prior", float(prior[a] - prior[b]))]
    for j, name in enumerate(names):
        value = frame.get_column(name)[0] if name in frame.columns else None
        if value is None or value != value:
            if j >= len(model.schema_) or j not in model._missing_codes:
                continue  # skipped: no evidence, no term
            value = "missing"  # a value of its own ("category"): evidence like any other
        shown = f"{value:.6g}" if isinstance(value, float) else value
        if isinstance(shown, str) and len(shown) > 30:
            shown = shown[:29] + "…"
        found.append((f"{name}={shown}", float(terms[j, 0, a] - terms[j, 0, b])))
    found.sort(key=lambda term: -abs(term[1]) if np.isfinite(term[1]) else -np.inf)
    return (a, b), found


def shown_value(model: Any, j: int, code: float) -> str:
    """What code ``code`` of modelled column j stands for: a category, or an interval."""
    spec = model.schema_[j]
    if code != code or model._missing_codes.get(j) == code:  # missing, or missing as a value
        return "missing"
    if spec.family == "categorical":
        return model._encoder.display(model._encoder.names.index(spec.name), code)
    edges = [-np.inf, *model.cut_points_[spec.name].tolist(), np.inf]
    low, high = edges[int(code)], edges[int(code) + 1]
    return f"({low:.6g}, {high:.6g}]".replace("(-inf", "(-∞").replace("inf]", "∞)")


def model_html(model: Any) -> str:
    """A fitted model as HTML: its summary, then each column's table."""
    from html import escape

    from ..html import STYLE, feature_html

    classes = list(model.classes_)
    families = column_families(model)
    parts = [STYLE, '<div class="nbayes">', f"<pre>{escape(model.summary())}</pre>"]
    parts += [
        feature_html(name, families[name], frame, classes)
        for name, frame in conditional_tables(model).items()
    ]
    parts.append("</div>")
    return "".join(parts)


class TableViews:
    """What a fitted table model shows: explanations, families, tables, its summary."""

    def explain(self, row: Any, *, priors: Any = None):
        """The computation for one row (a dict, a pandas Series or a one-row table): per
        attribute P(x_j | c, parents) with the parents used (TAN, k-DB), or per super-parent its
        share of P(c, x) (AODE family); values shown as categories and intervals."""
        self._check_fitted()
        if hasattr(row, "to_frame") and hasattr(row, "index") and not hasattr(row, "columns"):
            row = row.to_frame().T
        frame = self._frame(row)
        codes = self._encode(frame, fitting=False)
        if codes.codes.shape[0] != 1:
            raise ValueError(f"explain takes one row; got {codes.codes.shape[0]}.")
        explanation = self.model_.explain(
            codes, priors=priors, _names=[s.name for s in self.schema_],
            _show=functools.partial(shown_value, self),
        )
        _, _, joint = attribute_terms(self, frame)
        explanation.top_two, explanation.contributions = contributions(self, frame, joint)
        if not self._structure_only():  # the whole model's posterior: text, correction
            explanation.factors = self._added_factors(frame, codes, explanation.posterior)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UnseenCategoryWarning)
                explanation.posterior = self.predict_proba(frame, priors=priors)[0]
                explanation.decision = self.predict(frame, priors=priors)[0]
        return explanation

    def _added_factors(
        self, frame: pl.DataFrame, codes: Any, structure_posterior: np.ndarray
    ) -> list[tuple[str, list[float]]]:
        """The explanation's lines for what the table adds to the structure's scores: the
        structure's P(c | x), then exp of each text column's term and of the correction, each
        scaled to a largest class of 1 (:mod:`nbayes.semi_naive.explain`)."""

        def factor(term: np.ndarray) -> list[float]:
            return np.exp(term - np.max(term)).tolist()

        out = [("the structure's P(c | x)", structure_posterior.tolist())]
        if self._words is not None:
            names, terms = self._text_terms(frame)
            for name, term in zip(names, terms[:, 0], strict=True):
                value = frame.get_column(name)[0]
                shown = "missing" if value is None else str(value)
                shown = shown if len(shown) <= 30 else shown[:29] + "…"
                out.append((f"∝ exp Σ_t w_ct x_t ({name}={shown})", factor(term)))
        if self._corrected() is not None:
            out.append(
                ("∝ exp correction b_c + Σ δ", factor(self._correction_scores(codes.codes)[0]))
            )
        return out

    @property
    def families_(self) -> dict[str, str]:
        """Each column's family: categorical, an interval method, or "ignore" (left out)."""
        self._check_fitted()
        return column_families(self)

    @property
    def family_reasons_(self) -> dict[str, str]:
        """Why each column has its family (:mod:`nbayes.semi_naive.views`)."""
        self._check_fitted()
        return column_reasons(self)

    @property
    def missing_(self) -> dict[str, str]:
        """How each modelled column's missing values count: "skip" (a missing child adds
        nothing, a missing super-parent does not vote, a missing parent is backed off from) or
        "category" (a value of its own; :mod:`nbayes.semi_naive.missing`)."""
        self._check_fitted()
        return dict(zip((s.name for s in self.schema_), self.missing_modes_, strict=True))

    @property
    def alpha_(self) -> dict[str, float]:
        """The pseudo-count p_j of each modelled column's estimates."""
        self._check_fitted()
        pseudo = self.model_._pseudo()
        return {s.name: float(p) for s, p in zip(self.schema_, pseudo, strict=True)}

    @property
    def calibration_(self) -> None:
        """None: a semi-naive model's scores are its own joint log-likelihoods."""
        self._check_fitted()
        return None

    def tables(
        self, columns: list[str] | None = None, *, grid: int = 200, to: str = "polars"
    ) -> dict[str, Any]:
        """P̂(x_j | c) of every modelled column as tidy frames, in the layout of
        ``NaiveBayes.tables()`` (see :mod:`nbayes.semi_naive.views`; ``grid`` is accepted for
        that call's sake: no column here is a density)."""
        self._check_fitted()
        return conditional_tables(self, columns, to=to)

    def _attribute_terms(self, X: Any) -> tuple[list[str], np.ndarray, np.ndarray]:
        """Each attribute's term in the joint log-likelihood of each row of X (influence)."""
        self._check_fitted()
        return attribute_terms(self, self._frame(X))

    def _repr_html_(self) -> str | None:
        """The fitted model as HTML (a notebook's view): the summary, then each column."""
        return model_html(self) if hasattr(self, "model_") else None

    def summary(self) -> str:
        """The fitted model: the inner model's summary, then the cut points of numeric columns."""
        self._check_fitted()
        lines = [self.model_.summary()]
        if self.text_columns_:
            lines.append(
                f"text, as a bag of words beside the structure: {', '.join(self.text_columns_)}"
            )
        if self.ignored_:
            lines.append(f"left out (identifiers): {', '.join(self.ignored_)}")
        for name, cuts in self.cut_points_.items():
            shown = ", ".join(f"{c:.6g}" for c in cuts) or "none (one interval)"
            lines.append(f"cut points of {name}: {shown}")
        lines += self._describe_correction()
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary() if hasattr(self, "model_") else repr(self)

    def edges(self) -> list[dict]:
        """The learnt structure as data (TAN, k-DB; an ensemble's, each edge with its member):
        parent, child, the parent's rank, I(X_child; X_parent | C), and whether the
        predictions use the edge (selective k-DB: only the selected attributes, and their
        parents up to the depth it chose)."""
        self._check_fitted()
        if not hasattr(self.model_, "edges"):
            raise ValueError(f"{type(self.model_).__name__} has no learnt edges.")
        return self.model_.edges()
