"""The public tuples of nbayes' model classes: what tests iterate over and model files may hold."""

from __future__ import annotations

from .estimators import (
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianNB,
    MultinomialNB,
    PoissonNB,
)
from .model import NaiveBayes
from .semi_naive import ESTIMATORS as SEMI_NAIVE
from .semi_naive import SemiNaiveBayes
from .text.classifier import TextClassifier

#: The per-family estimators, drop-in replacements for ``sklearn.naive_bayes``'s.
ESTIMATORS: tuple[type, ...] = (
    GaussianNB,
    MultinomialNB,
    ComplementNB,
    BernoulliNB,
    CategoricalNB,
    PoissonNB,
)

#: Every class a model file may hold (:func:`nbayes.save` / :func:`nbayes.load`).
MODELS: tuple[type, ...] = (*ESTIMATORS, NaiveBayes, TextClassifier, *SEMI_NAIVE, SemiNaiveBayes)
