"""Text classification: raw documents → tokens → counts → naive Bayes.

* :class:`TextClassifier` — fit/partial_fit/merge/predict/explain on raw documents;
* :class:`TextVectorizer` — documents → sparse counts (hashing or vocabulary), a scikit-learn
  transformer and the text column type of mixed tables;
* :func:`read_text_folder`, :func:`read_labeled_lines` — the 20 Newsgroups and SMS Spam
  Collection layouts.
"""

from .classifier import TextClassifier
from .explanation import TextExplanation
from .readers import read_labeled_lines, read_text_folder
from .tokenizer import Tokenizer
from .vectorizer import TextVectorizer

__all__ = [
    "TextClassifier",
    "TextExplanation",
    "TextVectorizer",
    "Tokenizer",
    "read_labeled_lines",
    "read_text_folder",
]
