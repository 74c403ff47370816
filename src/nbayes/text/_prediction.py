"""What a fitted :class:`~nbayes.text.TextClassifier` predicts with (:class:`TextPrediction`):
the count model of its statistics restricted to the columns ``min_df``, ``max_df`` and
``max_features`` keep, multiplied by idf (derived when a prediction needs it, cached until the
statistics or the options change), applied to the documents a chunk at a time."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.sparse as sp

from ..families.counts import FeatureSums
from .vectorizer import DERIVED

if TYPE_CHECKING:
    from ..estimators import BernoulliNB, ComplementNB, MultinomialNB
    from .vectorizer import TextVectorizer


class TextPrediction:
    """A text classifier's predictions, from its derived count model."""

    def _synced_vectorizer(self) -> TextVectorizer:
        """The fitted vectorizer with the current lazy options (min_df, max_df, max_features,
        idf) of this classifier."""
        self._check_fitted()
        vectorizer = self.vectorizer_
        lazy = self._vectorizer_params(DERIVED)
        if any(getattr(vectorizer, k) != v for k, v in lazy.items()):
            vectorizer.set_params(**lazy)
        return vectorizer

    def prediction_model(self) -> MultinomialNB | ComplementNB | BernoulliNB:
        """The count model predictions use: the fitted statistics restricted to the selected
        columns and multiplied by idf (cached until the statistics or options change)."""
        vectorizer = self._synced_vectorizer()
        params = repr(sorted(self.get_params(deep=False).items()))
        key = (self._version, vectorizer._version, params)
        cached = getattr(self, "_prediction_cache", None)
        if cached is not None and cached[0] == key:
            return cached[1]
        columns = vectorizer.selected_columns()
        idf = vectorizer.idf_weights(columns)
        counts = self.model_.feature_count_
        if columns.shape[0] != counts.shape[1] or (
            columns.shape[0] and columns[-1] != columns.shape[0] - 1
        ):
            counts = counts[:, columns]
            if idf is not None:
                counts *= idf
        elif idf is not None:
            counts = counts * idf
        # (all columns kept and no idf: the fitted sums are shared, not copied)
        derived = self._make_model()
        derived.classes_ = self.model_.classes_
        derived.class_count_ = self.model_.class_count_.copy()
        derived.n_features_in_ = int(columns.shape[0])
        derived._stats = FeatureSums.from_state({"counts": counts})
        self._prediction_cache = (key, derived)
        return derived

    def _feature_chunks(self, texts: Any):
        derived = self.prediction_model()
        vectorizer = self.vectorizer_
        for X in vectorizer.iter_counts(texts):
            yield derived, vectorizer.features(X, weigh=self._weighs())

    def _collect(self, texts: Any, method: str, **kwargs: Any) -> np.ndarray:
        parts = [getattr(m, method)(X, **kwargs) for m, X in self._feature_chunks(texts)]
        if not parts:
            return getattr(self.prediction_model(), method)(
                sp.csr_array((1, self.prediction_model().n_features_in_)), **kwargs
            )[:0]
        return np.concatenate(parts)

    def predict(self, texts: Any, *, priors: Any = None, loss: Any = None) -> np.ndarray:
        """The class of each document: MAP, or the minimum conditional risk under ``loss``."""
        return self._collect(texts, "predict", priors=priors, loss=loss)

    def predict_proba(self, texts: Any, *, priors: Any = None) -> np.ndarray:
        """P(k | document), shape (n, K), columns in ``classes_`` order."""
        return self._collect(texts, "predict_proba", priors=priors)

    def predict_log_proba(self, texts: Any, *, priors: Any = None) -> np.ndarray:
        """log P(k | document)."""
        return self._collect(texts, "predict_log_proba", priors=priors)

    def predict_joint_log_proba(self, texts: Any, *, priors: Any = None) -> np.ndarray:
        """log P(k) + Σ_t x_t log P(x_t | k) (complement model: its scores, without prior)."""
        return self._collect(texts, "predict_joint_log_proba", priors=priors)
