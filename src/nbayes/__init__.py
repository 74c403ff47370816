"""nbayes: naive Bayes classification, complete, fast on a CPU, and as transparent as a textbook.

    y = argmax_c P(c) ∏_j P(x_j | c)        (computed as Σ of logs)

Every model's fitted state is its sufficient statistics (counts, sums, moments), so fitting in
batches (``partial_fit``), out of core, or on many machines and merging (:func:`merge`) give the
same model as one fit on all the rows.
"""

from ._base import merge
from ._catalog import ESTIMATORS, MODELS
from .bayes import bayes_rule, total_probability
from .estimators import (
    BernoulliNB,
    CategoricalNB,
    ComplementNB,
    GaussianNB,
    MultinomialNB,
    PoissonNB,
)
from .exceptions import (
    DataConversionWarning,
    ModelFileError,
    NotFittedError,
    UnseenCategoryWarning,
    ZeroLikelihoodWarning,
)
from .explain import Explanation
from .model import NaiveBayes
from .persist import load, save
from .reporting import report
from .text import (
    TextClassifier,
    TextVectorizer,
    read_labeled_lines,
    read_text_folder,
)

__version__ = "0.1.0"

__all__ = [
    "ESTIMATORS",
    "MODELS",
    "BernoulliNB",
    "CategoricalNB",
    "ComplementNB",
    "DataConversionWarning",
    "Explanation",
    "GaussianNB",
    "ModelFileError",
    "MultinomialNB",
    "NaiveBayes",
    "NotFittedError",
    "PoissonNB",
    "TextClassifier",
    "TextVectorizer",
    "UnseenCategoryWarning",
    "ZeroLikelihoodWarning",
    "__version__",
    "bayes_rule",
    "load",
    "merge",
    "read_labeled_lines",
    "read_text_folder",
    "report",
    "save",
    "total_probability",
]
