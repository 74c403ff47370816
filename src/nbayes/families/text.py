"""A text column of a table as a bag of words: the multinomial model on its token counts,

    log P(text | c) = Σ_t x_t log P(t | c),   P(t | c) = (λ + N(t, c)) / (λ|V| + Σ_t' N(t', c))

with tokens as :class:`~nbayes.text.TextVectorizer`'s defaults count them (Unicode words of two or
more characters, lowercased, hashed into 2^20 columns: nothing to learn, so batches, merges and
clusters agree exactly). A missing text is an empty document: it contributes nothing. For
weighting, n-grams or the complement model, use :class:`~nbayes.TextClassifier` on the text alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl
import scipy.sparse as sp

from .._state import nest, outside, section
from . import multinomial
from ._group import ColumnGroup, Settings, format_table
from ._registry import Family, register
from ._tidy import tidy_frame
from .counts import FeatureSums


class TextEncoder:
    """A text column as a sparse (rows × 2^20) matrix of token counts."""

    def __init__(self, name: str) -> None:
        # the text package is large: it is imported when a model first has a text column
        from ..text.vectorizer import TextVectorizer

        self.name = name
        self.vectorizer = TextVectorizer()

    @property
    def n_features(self) -> int:
        return int(self.vectorizer.n_features)

    def encode(self, frame: pl.DataFrame, *, fitting: bool) -> sp.csr_array:
        column = frame.get_column(self.name)
        if column.dtype != pl.String:
            raise ValueError(f"column {self.name!r} must hold text for family 'text'.")
        texts = column.to_list()
        if fitting:
            chunks = [counted.X for counted in self.vectorizer.learn_counts(texts)]
        else:
            chunks = list(self.vectorizer.iter_counts(texts))
        if not chunks:
            return sp.csr_array((0, self.n_features))
        return sp.vstack(chunks, format="csr") if len(chunks) > 1 else sp.csr_array(chunks[0])

    def meta(self) -> dict:
        return {"vectorizer": self.vectorizer._state()[0]}

    def load_meta(self, meta: dict) -> None:
        pass  # the vectorizer's state needs its arrays too: see TextColumns.load_state


class TextColumns(ColumnGroup):
    """One text column (the family ``"text"`` makes one group per column)."""

    family = "text"

    def __init__(self, names: list[str], n_classes: int, **options: Any) -> None:
        super().__init__(names, n_classes, **options)
        self.encoder = TextEncoder(self.names[0])
        self.stats = FeatureSums(n_classes, self.encoder.n_features)

    @property
    def vectorizer(self) -> Any:
        return self.encoder.vectorizer

    def merge(self, other: TextColumns, positions: np.ndarray) -> None:
        self.vectorizer.merge_statistics(other.vectorizer)
        self.stats.merge(other.stats, positions)

    def _alpha(self, settings: Settings) -> float:
        alpha = settings.alpha_for(self.names)
        return float(alpha if np.ndim(alpha) == 0 else alpha[0])

    def log_likelihood(self, block: sp.csr_array, settings: Settings) -> np.ndarray:
        return multinomial.log_likelihood(self.stats, block, self._alpha(settings))

    def explain_row(
        self, block: sp.csr_array, settings: Settings
    ) -> list[tuple[str, str, np.ndarray]]:
        words = int(block.sum())
        shown = f"<{words} word{'s' if words != 1 else ''}>"
        return [(self.names[0], shown, self.log_likelihood(block, settings)[0])]

    def describe(self, classes: np.ndarray, settings: Settings) -> str:
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
        head = (
            f"{self.names[0]}  (text, bag of words, multinomial, λ = {self._alpha(settings):g})\n"
        )
        rows = [[int(v) if v.is_integer() else v for v in self.stats.counts.sum(axis=1).tolist()]]
        return head + format_table(["tokens"], classes, rows) + "".join("\n" + x for x in lines)

    def state(self) -> dict[str, np.ndarray]:
        _, arrays = self.vectorizer._state()
        return {**self.stats.state(), **nest("vectorizer", arrays)}

    def check(self, n_classes: int) -> None:
        self.stats.check(n_classes, self.encoder.n_features)

    def load_state(self, state: dict[str, np.ndarray], meta: dict) -> None:
        super().load_state(outside("vectorizer", state), meta)
        self.vectorizer._load_state(meta["vectorizer"], section("vectorizer", state))

    def tables(
        self, classes: np.ndarray, settings: Settings, *, grid: int = 200
    ) -> dict[str, pl.DataFrame]:
        """token (seen in fitting), count N(t, c), probability P(t | c)."""
        table = multinomial.log_prob(self.stats, self._alpha(settings))  # (K, V)
        seen = np.flatnonzero(self.stats.counts.sum(axis=0) > 0)
        name = self.names[0]
        frame = tidy_frame(
            name,
            classes,
            len(seen),
            shared={"token": self.vectorizer.column_names(seen)},
            per_class={
                "count": self.stats.counts[:, seen],
                "probability": np.exp(table[:, seen]),
            },
        )
        return {name: frame}


register(
    Family(
        "text",
        rank=90,
        reads=frozenset({"string"}),
        group=TextColumns,
        per_column=True,
        summary="a bag of words (multinomial on hashed token counts)",
    )
)
