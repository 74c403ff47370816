"""nbayes: naive Bayes classification, complete, fast on a CPU, and as transparent as a textbook.

    y = argmax_c P(c) ∏_j P(x_j | c)        (computed as Σ of logs)

Every model's fitted state is its sufficient statistics (counts, sums, moments), so fitting in
batches (``partial_fit``), out of core, or on many machines and merging (:func:`merge`) give the
same model as one fit on all the rows.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._version import __version__

__all__ = [
    "AODE",
    "ESTIMATORS",
    "HNB",
    "KDB",
    "MODELS",
    "TAN",
    "WAODE",
    "AODEsr",
    "AnDE",
    "BernoulliNB",
    "CategoricalNB",
    "ComplementNB",
    "DataConversionWarning",
    "DataError",
    "Explanation",
    "GaussianNB",
    "ModelFileError",
    "MultinomialNB",
    "NaiveBayes",
    "NotFittedError",
    "PoissonNB",
    "SelectiveKDB",
    "SelectiveKDBEnsemble",
    "SemiNaiveBayes",
    "TextClassifier",
    "TextVectorizer",
    "UnseenCategoryWarning",
    "ZeroLikelihoodWarning",
    "__version__",
    "bayes_rule",
    "load",
    "merge",
    "read_labeled_lines",
    "read_table",
    "read_text_folder",
    "report",
    "save",
    "total_probability",
]

# Public names and the module each lives in. They are imported on first use (PEP 562), so that
# ``import nbayes`` and ``nbayes --help`` do not pay for NumPy, SciPy, Numba, Polars and the text
# machinery before anything needs them.
_LOCATIONS = {
    "ESTIMATORS": "._catalog",
    "MODELS": "._catalog",
    "BernoulliNB": ".estimators",
    "CategoricalNB": ".estimators",
    "ComplementNB": ".estimators",
    "GaussianNB": ".estimators",
    "MultinomialNB": ".estimators",
    "PoissonNB": ".estimators",
    "DataConversionWarning": ".exceptions",
    "DataError": "._read_common",
    "ModelFileError": ".exceptions",
    "NotFittedError": ".exceptions",
    "UnseenCategoryWarning": ".exceptions",
    "ZeroLikelihoodWarning": ".exceptions",
    "Explanation": ".explain",
    "NaiveBayes": ".model",
    "load": ".persist",
    "save": ".persist",
    "merge": "._base",
    "bayes_rule": ".bayes",
    "total_probability": ".bayes",
    "AODE": ".semi_naive",
    "HNB": ".semi_naive",
    "KDB": ".semi_naive",
    "TAN": ".semi_naive",
    "WAODE": ".semi_naive",
    "AnDE": ".semi_naive",
    "AODEsr": ".semi_naive",
    "SelectiveKDB": ".semi_naive",
    "SelectiveKDBEnsemble": ".semi_naive",
    "SemiNaiveBayes": ".semi_naive",
    "report": ".reporting",
    "TextClassifier": ".text",
    "TextVectorizer": ".text",
    "read_labeled_lines": ".text",
    "read_table": ".reading",
    "read_text_folder": ".text",
}


def __getattr__(name: str) -> Any:
    module = _LOCATIONS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value  # the next access is a plain module attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # for type checkers and IDEs: the names as if imported eagerly
    from ._base import merge
    from ._catalog import ESTIMATORS, MODELS
    from ._read_common import DataError
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
    from .semi_naive import (
        AODE,
        HNB,
        KDB,
        TAN,
        WAODE,
        AnDE,
        AODEsr,
        SelectiveKDB,
        SelectiveKDBEnsemble,
        SemiNaiveBayes,
    )
    from .text import TextClassifier, TextVectorizer, read_labeled_lines, read_text_folder
