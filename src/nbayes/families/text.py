"""A text column of a table as a bag of words. Two families:

* ``"text"`` (the default for text): the model of :class:`~nbayes.TextClassifier`'s defaults,
  which suits 2^20 hashed columns — Unicode words and word pairs (1–2-grams), lowercased, hashed
  into 2^20 columns; each document's term counts made binary and scaled to unit length (L2);
  Rennie et al.'s (2003) complement naive Bayes on those features,

      score(text | c) = Σ_t x_t w_{c,t},   w_{c,t} = −log θ̃_{c,t},
      θ̃_{c,t} = (λ + Σ_{k≠c} n_{k,t}) / (λ|V| + Σ_{k≠c} Σ_t' n_{k,t'}),

  over the columns seen in fitting (|V| = the hashed columns some training document filled, as
  ``TextClassifier`` in hashing mode), with λ = 0.03 unless ``alpha={"column": λ}`` names the
  column: the λ of ``TextClassifier``'s documented option ``mode="vocabulary", alpha=0.03``,
  whose V is also the columns seen (on 20 Newsgroups' test set, as that option was chosen, the
  table gives 0.8506 with it and 0.8500 (6,402 of 7,532) with ``TextClassifier``'s default
  λ = 0.1). Two things suit 2^20 hashed columns: V counts only
  the columns seen, not 2^20 that would each add λ to every denominator, and the complement
  estimate describes each class by the far more plentiful text of the *other* classes. With λ = 1
  on all 2^20 columns the multinomial below gives 0.64 on 20 Newsgroups, this 0.85. The table
  adds log P(c), as Rennie et al.'s rule (their eq. 6) does and ``TextClassifier`` does not
  (with ``class_prior="uniform"`` the table gives ``TextClassifier``'s 0.857). Complement scores
  are not log-probabilities: they add to the other columns' log-likelihoods as the text's
  evidence.
* ``"text-multinomial"``: the multinomial model on raw token counts,

      log P(text | c) = Σ_t x_t log P(t | c),   P(t | c) = (λ + N(t, c)) / (λ|V| + Σ_t' N(t', c)),

  with tokens as :class:`~nbayes.text.TextVectorizer`'s defaults count them (Unicode words of two
  or more characters, lowercased, hashed into 2^20 columns) and λ = ``alpha`` (model files of
  the first release hold this model under the name ``"text"``, and still load as it).

Hashing has nothing to learn, so batches, merges and clusters agree exactly. A missing text is
an empty document: it contributes nothing. For other weightings, n-grams or models, use
:class:`~nbayes.TextClassifier` on the text alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import scipy.sparse as sp

from .._state import nest, outside, section
from . import complement, multinomial
from ._group import ColumnGroup, Settings, format_table, zero_round_off
from ._registry import Family, register
from ._tidy import tidy_frame
from .counts import FeatureSums

#: λ of a ``"text"`` column unless ``alpha`` names the column (see the module docstring).
TEXT_ALPHA = 0.03


class TextEncoder:
    """A text column as a sparse (rows × 2^20) matrix: the classifier's weighted features
    (``weighted``) or raw token counts."""

    def __init__(self, name: str, *, weighted: bool = True) -> None:
        # the text package is large: it is imported when a model first has a text column
        from ..text.vectorizer import CLASSIFIER_DEFAULTS, TextVectorizer

        self.name = name
        self.weighted = weighted
        self.vectorizer = TextVectorizer(**CLASSIFIER_DEFAULTS) if weighted else TextVectorizer()

    @property
    def n_features(self) -> int:
        return int(self.vectorizer.n_features)

    def _features(self, X: sp.csr_array) -> sp.csr_array:
        if not self.weighted:
            return X
        from ..text import weighting

        return weighting.weigh(X, tf=self.vectorizer.tf, norm=bool(self.vectorizer.norm))

    def encode(self, frame: pl.DataFrame, *, fitting: bool) -> sp.csr_array:
        column = frame.get_column(self.name)
        if column.dtype != pl.String:
            raise ValueError(f"column {self.name!r} must hold text for a text family.")
        texts = column.to_list()
        if fitting:
            chunks = [self._features(counted.X) for counted in self.vectorizer.learn_counts(texts)]
        else:
            chunks = [self._features(X) for X in self.vectorizer.iter_counts(texts)]
        if not chunks:
            return sp.csr_array((0, self.n_features))
        return sp.vstack(chunks, format="csr") if len(chunks) > 1 else sp.csr_array(chunks[0])

    def meta(self) -> dict:
        return {"vectorizer": self.vectorizer._state()[0], "weighted": self.weighted}

    def load_meta(self, meta: dict) -> None:
        pass  # the vectorizer's state needs its arrays too: see TextColumns.load_state


class TextColumns(ColumnGroup):
    """One text column (the text families make one group per column)."""

    family = "text"

    def __init__(self, names: list[str], n_classes: int, **options: Any) -> None:
        super().__init__(names, n_classes, **options)
        self.encoder = TextEncoder(self.names[0], weighted=self.family == "text")
        self.stats = FeatureSums(n_classes, self.encoder.n_features)

    @property
    def weighted(self) -> bool:
        """The classifier's features and complement model (else counts and the multinomial)."""
        return self.encoder.weighted

    @property
    def vectorizer(self) -> Any:
        return self.encoder.vectorizer

    def merge(self, other: TextColumns, positions: np.ndarray) -> None:
        self.vectorizer.merge_statistics(other.vectorizer)
        self.stats.merge(other.stats, positions)

    def remove(self, block: sp.csr_array, cls: np.ndarray, weight: np.ndarray) -> None:
        """Take counted documents back out; a term's sum that they took to zero is zero (its
        features are fractional, so the round-off left would otherwise decide, by its sign,
        whether the term is still in the vocabulary of the complement model)."""
        before = self.stats.counts.copy()
        super().remove(block, cls, weight)
        zero_round_off(self.stats.counts, before)
        np.maximum(self.stats.counts, 0.0, out=self.stats.counts)

    def _alpha(self, settings: Settings) -> float:
        if self.weighted and not (
            isinstance(settings.alpha, dict) and self.names[0] in settings.alpha
        ):
            return TEXT_ALPHA
        alpha = settings.alpha_for(self.names)
        return float(alpha if np.ndim(alpha) == 0 else alpha[0])

    def seen(self) -> tuple[np.ndarray, FeatureSums]:
        """The columns seen in fitting and their sums: V of the complement model (a hashed
        column no document filled carries no evidence, and would only add λ to every
        denominator 2^20 times)."""

        def compute() -> tuple[np.ndarray, FeatureSums]:
            columns = np.flatnonzero(self.stats.counts.sum(axis=0) > 0)
            return columns, FeatureSums.from_state({"counts": self.stats.counts[:, columns]})

        return self.stats.cached(("seen",), compute)

    def log_likelihood(self, block: sp.csr_array, settings: Settings) -> np.ndarray:
        if self.weighted:
            columns, sums = self.seen()
            part = sp.csr_array(block)[:, columns]
            return complement.log_likelihood(sums, part, self._alpha(settings), False)
        return multinomial.log_likelihood(self.stats, block, self._alpha(settings))

    def explain_row(
        self, block: sp.csr_array, settings: Settings
    ) -> list[tuple[str, str, np.ndarray]]:
        if self.weighted:
            terms = int(block.nnz)
            shown = f"<{terms} term{'s' if terms != 1 else ''}>"
        else:
            words = int(block.sum())
            shown = f"<{words} word{'s' if words != 1 else ''}>"
        return [(self.names[0], shown, self.log_likelihood(block, settings)[0])]

    def describe(self, classes: np.ndarray, settings: Settings) -> str:
        if self.weighted:  # w_{c,t}: the larger, the more t speaks for c
            columns, sums = self.seen()
            table = np.zeros(self.stats.counts.shape)
            table[:, columns] = complement.weights(sums, self._alpha(settings), False)
        else:
            table = multinomial.log_prob(self.stats, self._alpha(settings))
        seen = np.flatnonzero(self.stats.counts.sum(axis=0) > 0)
        lines = []
        for k, c in enumerate(classes):
            if seen.size == 0:
                break
            others = np.delete(table[:, seen], k, axis=0)
            ratio = table[k, seen] - (others.max(axis=0) if others.size else 0.0)
            best = seen[np.argsort(-ratio, kind="stable")[:5]]
            lines.append(
                f"  words most indicative of {c}: " + ", ".join(self.vectorizer.column_names(best))
            )
        model = (
            "binary 1-2-gram features, complement NB" if self.weighted else "multinomial on counts"
        )
        head = f"{self.names[0]}  (text, bag of words, {model}, λ = {self._alpha(settings):g})\n"
        rows = [[int(v) if v.is_integer() else v for v in self.stats.counts.sum(axis=1).tolist()]]
        return head + format_table(["tokens"], classes, rows) + "".join("\n" + x for x in lines)

    def state(self) -> dict[str, np.ndarray]:
        _, arrays = self.vectorizer._state()
        return {**self.stats.state(), **nest("vectorizer", arrays)}

    def check(self, n_classes: int) -> None:
        self.stats.check(n_classes, self.encoder.n_features)

    def load_state(self, state: dict[str, np.ndarray], meta: dict) -> None:
        # a file of the first release: "text" was the multinomial on counts
        weighted = bool(meta.get("weighted", False))
        if weighted != self.weighted:
            if self.family != "text":
                raise ValueError(f"column group {self.names} does not match the schema.")
            self.encoder = TextEncoder(self.names[0], weighted=weighted)
        super().load_state(outside("vectorizer", state), meta)
        self.vectorizer._load_state(meta["vectorizer"], section("vectorizer", state))

    def tables(
        self, classes: np.ndarray, settings: Settings, *, grid: int = 200
    ) -> dict[str, pl.DataFrame]:
        """token (seen in fitting), count N(t, c), and the term prediction uses: the
        complement weight w_{c,t} (``"text"``) or the probability P(t | c)
        (``"text-multinomial"``)."""
        name = self.names[0]
        if self.weighted:
            seen, sums = self.seen()
            values = {"weight": complement.weights(sums, self._alpha(settings), False)}
        else:
            seen = np.flatnonzero(self.stats.counts.sum(axis=0) > 0)
            table = multinomial.log_prob(self.stats, self._alpha(settings))  # (K, V)
            values = {"probability": np.exp(table[:, seen])}
        frame = tidy_frame(
            name,
            classes,
            len(seen),
            shared={"token": self.vectorizer.column_names(seen)},
            per_class={"count": self.stats.counts[:, seen], **values},
        )
        return {name: frame}


# the two models of text columns, one group class
for _name, _rank, _summary in (
    ("text", 90, "a bag of words (TextClassifier's default: complement NB on binary 1-2-grams)"),
    ("text-multinomial", 91, "a bag of words (multinomial on hashed token counts)"),
):
    register(
        Family(
            _name,
            rank=_rank,
            reads=frozenset({"string"}),
            group=TextColumns,
            per_column=True,
            summary=_summary,
        )
    )
