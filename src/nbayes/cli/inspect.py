"""``nbayes inspect``: a saved model as a readable summary."""

from __future__ import annotations

import argparse

from ._reading import load_model


def run(args: argparse.Namespace) -> int:
    model = load_model(args.model)
    if hasattr(model, "summary"):
        print(model.summary())
        return 0
    print(repr(model))
    print(f"classes: {list(model.classes_)}")
    print(f"class counts: {model.class_count_.tolist()}")
    print(f"features: {model.n_features_in_}")
    return 0
