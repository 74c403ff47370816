"""``nbayes inspect``: a saved model as a readable summary."""

from __future__ import annotations

import argparse
from typing import Any

from ._reading import load_model


def run(args: argparse.Namespace) -> int:
    model = load_model(args.model, args.max_memory)
    if hasattr(model, "summary"):
        print(model.summary())
        return 0
    print(repr(model))
    print(f"classes: {model.classes_.tolist()}")
    print(f"class counts: {model.class_count_.tolist()}")
    vectorizer = getattr(model, "vectorizer_", None)
    if vectorizer is None:
        print(f"features: {model.n_features_in_}")
        return 0
    _describe_text(model, vectorizer)
    return 0


def _describe_text(model: Any, vectorizer: Any) -> None:
    """A TextClassifier: its documents, columns, and the words most indicative of each class."""
    print(f"documents: {vectorizer.n_documents_:,}")
    print(f"columns: {vectorizer.n_columns_:,} ({vectorizer.mode})")
    for cls in model.classes_:
        words = ", ".join(token for token, _ in model.top_features(cls, 8))
        print(f"most indicative of {cls}: {words}")
