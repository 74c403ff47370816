"""A :class:`~nbayes.text.TextClassifier` in a model file (:mod:`nbayes.persist`): its
parameters, its count model's statistics and its vectorizer's (document frequencies, vocabulary or
hashed-column names), as (JSON metadata, arrays). The classifier's ``_to_state`` and
``_from_state`` call these.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._json import from_json, to_json
from .._state import nest, section
from ..families.counts import FeatureSums


def classifier_state(classifier: Any) -> tuple[dict, dict[str, np.ndarray]]:
    """(JSON metadata, arrays): parameters, the count model's statistics and the
    vectorizer's (document frequencies, vocabulary or hashed-column names)."""
    classifier._check_fitted()
    model_meta, model_arrays = classifier.model_._to_state()
    vector_meta, vector_arrays = classifier.vectorizer_._state()
    meta = {
        "params": to_json(classifier.get_params(deep=False)),
        "model": model_meta,
        "vectorizer": vector_meta,
    }
    arrays = {**nest("model", model_arrays), **nest("vectorizer", vector_arrays)}
    return meta, arrays


def classifier_from_state(
    cls: type, meta: dict, arrays: dict[str, np.ndarray]
) -> Any:
    """The fitted classifier of class ``cls`` that :func:`classifier_state` describes (checked:
    a model file is read from outside)."""
    params = from_json(meta["params"])
    if isinstance(params.get("ngram_range"), list):  # JSON has no tuple: given as one
        params["ngram_range"] = tuple(params["ngram_range"])
    classifier = cls(**params)
    classifier._check_params()
    vectorizer = classifier._make_vectorizer()
    vectorizer._load_state(meta["vectorizer"], section("vectorizer", arrays))
    model = classifier._make_model()
    model_arrays = section("model", arrays)
    model._restore_common(meta["model"], model_arrays)
    stats = FeatureSums.from_state(section("stats", model_arrays))
    stats.check(len(model.classes_), model.n_features_in_)
    if stats.observed is not None:
        raise ValueError("a text model's statistics hold no observed weights.")
    if model.n_features_in_ != vectorizer._width:
        raise ValueError("the model's columns do not match the vectorizer's.")
    model._stats = stats
    classifier.vectorizer_, classifier.model_ = vectorizer, model
    classifier._fit_key = classifier._counting_key()
    classifier._version = 0
    return classifier
