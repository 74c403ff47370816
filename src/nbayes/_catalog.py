"""The public tuples of nbayes' model classes: what tests iterate over and model files may hold.

``ESTIMATORS`` (the per-family estimators) is defined beside them, in :mod:`nbayes.estimators`.
"""

from __future__ import annotations

from .estimators import ESTIMATORS
from .model import NaiveBayes
from .semi_naive import ESTIMATORS as SEMI_NAIVE
from .semi_naive import SemiNaiveBayes
from .text.classifier import TextClassifier

#: Every class a model file may hold (:func:`nbayes.save` / :func:`nbayes.load`).
MODELS: tuple[type, ...] = (*ESTIMATORS, NaiveBayes, TextClassifier, *SEMI_NAIVE, SemiNaiveBayes)
