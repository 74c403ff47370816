"""Raw documents → sparse token counts: :class:`TextVectorizer`.

Two ways to number the columns:

* **hashing** (default): column = |MurmurHash3_x86_32(UTF-8 bytes of the n-gram, seed 0)| mod
  ``n_features``, the function and rule of scikit-learn's ``HashingVectorizer`` (so the columns
  are the same as its, for the same tokens). MurmurHash3 is a fixed, published function: a model
  fitted today predicts the same on another machine or library version. Nothing is learned to
  count, so transforming is stateless and any number of processes can count in parallel.
* **vocabulary**: column = the id of the n-gram in a vocabulary grown while fitting (ids in order
  of first appearance; unknown n-grams are skipped when transforming).

Fitting also keeps, as mergeable statistics, N (documents seen), df_j (documents containing
column j) and tf_j (total count of column j). ``min_df``, ``max_df``, ``max_features`` and IDF are
derived from them *lazily*, when features are produced, never while counting: two vectorizers
fitted on different documents merge (vocabularies united, counts re-indexed, statistics added)
into exactly the vectorizer fitted on all of them, and changing ``min_df`` after fitting needs no
refit. (Applying the thresholds while counting, as scikit-learn does, would make a merge depend
on where the data was split.)
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._params import ParamsMixin, constructor
from .._validation import is_int
from ..exceptions import NotFittedError, caller_stacklevel, sklearn_compatible
from . import _transform, weighting
from ._selection import ColumnSelection
from ._statistics import DocumentStatistics
from .bytetable import ByteTable
from .tokenizer import CHUNK_BYTES, Counted, Hashing, Tokenizer, Vocabulary

MODES = ("hashing", "vocabulary")

#: The parameters that decide which n-gram lands in which column: statistics counted with
#: different values do not add up (merging and partial_fit refuse them).
# the type of each parameter of TextVectorizer (TextClassifier takes them too)
PARAMETER_TYPES = {
    "mode": "str",
    "n_features": "int",
    "lowercase": "bool",
    "ngram_range": "tuple[int, int]",
    "stop_words": "str | Iterable[str] | None",
    "min_token_length": "int",
    "min_df": "float",
    "max_df": "float",
    "max_features": "int | None",
    "tf": "bool | str",
    "idf": "bool | str",
    "norm": "bool",
    "max_names": "int",
    "chunk_bytes": "int",
    "n_threads": "int | None",
}
TOKENIZING = ("mode", "n_features", "lowercase", "ngram_range", "stop_words", "min_token_length")
#: The parameters applied when features are produced, from the statistics: they may change after
#: fitting without a refit.
DERIVED = ("min_df", "max_df", "max_features", "idf")

#: How a default :class:`~nbayes.text.TextClassifier` reads text (binary, normalised word and
#: word-pair features), where it differs from :class:`TextVectorizer`'s defaults: the "text"
#: family of table models reads its columns the same way (checked by the text tests).
CLASSIFIER_DEFAULTS = {"ngram_range": (1, 2), "tf": "binary", "norm": True, "min_token_length": 1}


def as_documents(texts: Any, *, estimator: str) -> Iterable[Any]:
    """The documents of ``texts``: a list/array/Series of str or bytes (None = missing), a
    one-column DataFrame, or any iterable (consumed once, in chunks)."""
    if isinstance(texts, str | bytes):
        raise TypeError(
            f"{estimator}: expected a list of documents, got a single {type(texts).__name__}; "
            "wrap it in a list: [text]."
        )
    if texts is None:
        raise ValueError(f"{estimator}: texts is None; expected a list of documents.")
    columns = getattr(texts, "columns", None)
    if columns is not None and not sp.issparse(texts):
        names = list(columns)
        if len(names) != 1:
            raise ValueError(
                f"{estimator}: got a DataFrame with {len(names)} columns {names!r}; pass the text "
                "column (df['body']), or use nbayes.NaiveBayes with families={'body': 'text'} "
                "to combine text with other columns."
            )
        texts = texts[names[0]]
    if isinstance(texts, np.ndarray):
        if texts.ndim == 2 and texts.shape[1] == 1:
            texts = texts[:, 0]
        if texts.ndim != 1:
            raise ValueError(
                f"{estimator}: expected a 1-D sequence of documents, got shape {texts.shape}."
            )
    if hasattr(texts, "to_list") and not isinstance(texts, list):
        try:  # pandas / Polars Series: one conversion to Python objects, not one per element
            return texts.to_list()
        except TypeError:
            pass
    if not isinstance(texts, Iterable):
        raise TypeError(f"{estimator}: texts must be an iterable of documents, got {type(texts)}.")
    return texts


class TextVectorizer(ColumnSelection, DocumentStatistics, ParamsMixin):
    """Documents → sparse counts, in bounded memory: a scikit-learn transformer, and the text
    column type of :class:`nbayes.NaiveBayes`.

    Interface (what a mixed-table model needs):

    * ``transform(texts) -> scipy.sparse.csr_array`` of shape (n_documents, n_features_out_),
      float64. In hashing mode with default options and before any fit this is stateless: the raw
      counts N(x_t, document) in all ``n_features`` columns, exactly scikit-learn's
      ``HashingVectorizer(n_features, alternate_sign=False, norm=None)`` output (row entries may
      come unsorted). ``None`` (or NaN) is an empty document.
    * ``fit(texts)`` / ``partial_fit(texts)``: learn the vocabulary (vocabulary mode) and the
      document statistics (N, df, tf). After fitting, ``transform`` returns the columns that
      ``min_df`` / ``max_df`` / ``max_features`` keep — by default (``min_df=1``) those seen in
      at least one fitted document; ``min_df=0`` keeps every column.
    * ``merge(*others)``: add vectorizers fitted on other documents (exact).
    * ``iter_counts(texts)``: the raw counts a chunk at a time (internal column numbering: hash
      columns, or vocabulary ids), for streaming consumers.

    Parameters
    ----------
    (:class:`~nbayes.text.TextClassifier` takes the same ones, with its own defaults.)

    mode : "hashing" (|MurmurHash3| mod ``n_features``) or "vocabulary" (ids of the n-grams seen
        in fitting).
    n_features : columns in hashing mode (2**20, scikit-learn's default).
    lowercase, ngram_range, stop_words, min_token_length : the token rule of
        :mod:`nbayes.text.tokenizer` (scikit-learn's defaults; ``stop_words="english"`` is its
        list; ``min_token_length`` counts code points).
    min_df, max_df : keep columns with min_df ≤ df_j ≤ max_df; an int is a number of documents,
        a float in [0, 1] a proportion of N (scikit-learn's rule). The default ``min_df=1``
        keeps the columns seen in fitting; ``min_df=0`` keeps all ``n_features`` hash columns,
        as scikit-learn's HashingVectorizer.
    max_features : keep only the columns with the largest tf_j (ties: lower column first).
    tf, norm, idf : Rennie et al.'s transforms (:mod:`nbayes.text.weighting`): ``tf`` True
        (log(1 + x)), "binary" (1 if x > 0) or False; ``norm`` length normalisation (x / ||x||);
        ``idf`` True (smooth, scikit-learn's), "rennie" (log(N/df_j)) or False — applied in the
        order tf, norm, idf. Off by default: ``transform`` gives counts.
    max_names : in hashing mode, record the first n-gram met in each column (for up to this
        many columns) to name columns (``top_features``); 0 records none.
    chunk_bytes : bytes of text tokenised at a time (bounds memory).
    n_threads : chunks tokenised in parallel (None: the number of cores, at most 8); the
        results do not depend on it.

    ``min_df``, ``max_df``, ``max_features`` and ``idf`` (:data:`DERIVED`) are applied when
    features are produced, from the statistics: they may be changed after fitting. The others
    of :data:`TOKENIZING` decide the columns: fitting again is needed after changing them.
    """

    _estimator_type = "transformer"

    __init__ = constructor(
        annotations=PARAMETER_TYPES,
        mode="hashing", n_features=2**20, lowercase=True, ngram_range=(1, 1), stop_words=None,
        min_token_length=2, min_df=1, max_df=1.0, max_features=None, tf=False, idf=False,
        norm=False, max_names=2**20, chunk_bytes=CHUNK_BYTES, n_threads=None,
    )  # fmt: skip

    # ----------------------------------------------------------------- parameters
    def _tokenizer_key(self) -> tuple:
        """The :data:`TOKENIZING` parameters, normalised (n_features only counts in hashing
        mode; a list of stop words is a set)."""
        normal = {
            "n_features": int(self.n_features) if self.mode == "hashing" else None,
            "lowercase": bool(self.lowercase),
            "ngram_range": tuple(self.ngram_range),
        }
        stop = self.stop_words
        if not (stop is None or isinstance(stop, str)):
            normal["stop_words"] = tuple(sorted(stop))
        return tuple(normal.get(name, getattr(self, name)) for name in TOKENIZING)

    def _check_params(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {self.mode!r}.")
        if self.mode == "hashing" and (not is_int(self.n_features) or self.n_features < 1):
            raise ValueError(f"n_features must be an int >= 1, got {self.n_features!r}.")
        if self.mode == "hashing" and self.n_features > 2**31:
            raise ValueError(f"n_features must be at most 2**31, got {self.n_features}.")
        for name in ("min_df", "max_df"):
            value = getattr(self, name)
            if is_int(value):
                if value < 0:
                    raise ValueError(f"{name} must be >= 0, got {value}.")
            elif not isinstance(value, numbers.Real) or isinstance(value, bool):
                raise ValueError(f"{name} must be an int or a float in [0.0, 1.0], got {value!r}.")
            elif not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} as a proportion must be in [0.0, 1.0], got {value}.")
        if self.max_features is not None and (
            not is_int(self.max_features) or self.max_features < 1
        ):
            raise ValueError(
                f"max_features must be None or an int >= 1, got {self.max_features!r}."
            )
        weighting.check_idf(self.idf)
        weighting.check_tf(self.tf)
        if not is_int(self.max_names) or self.max_names < 0:
            raise ValueError(f"max_names must be an int >= 0, got {self.max_names!r}.")

    def _make_tokenizer(self) -> Tokenizer:
        self._check_params()
        return Tokenizer(
            lowercase=bool(self.lowercase),
            ngram_range=tuple(self.ngram_range),
            stop_words=self.stop_words,
            min_token_length=self.min_token_length,
            chunk_bytes=self.chunk_bytes,
            n_threads=self.n_threads,
        )

    @property
    def tokenizer(self) -> Tokenizer:
        """The tokenizer (the one used in fitting, once fitted)."""
        fitted = getattr(self, "tokenizer_", None)
        if fitted is not None:
            fitted.chunk_bytes, fitted.n_threads = self.chunk_bytes, self.n_threads
            return fitted
        key = self._tokenizer_key()
        cached = getattr(self, "_tokenizer_cache", None)
        if cached is None or cached[0] != key:
            cached = (key, self._make_tokenizer())
            self._tokenizer_cache = cached
        return cached[1]

    def __sklearn_tags__(self):
        from sklearn.utils import InputTags, Tags, TargetTags, TransformerTags

        return Tags(
            estimator_type=None,
            target_tags=TargetTags(required=False),
            transformer_tags=TransformerTags(),
            requires_fit=self.mode != "hashing",
            input_tags=InputTags(one_d_array=True, two_d_array=False, string=True),
        )

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "n_documents_") or self.mode == "hashing"

    # ----------------------------------------------------------------- fitting
    @property
    def fitted(self) -> bool:
        return hasattr(self, "n_documents_")

    def _reset(self) -> None:
        self.tokenizer_ = self._make_tokenizer()
        self._fit_key = self._tokenizer_key()
        width = self.n_features if self.mode == "hashing" else 1024
        self.vocabulary_ = ByteTable() if self.mode == "vocabulary" else None
        self.names_ = ByteTable() if self.mode == "hashing" and self.max_names > 0 else None
        self._named = np.zeros(width, dtype=np.uint8) if self.names_ is not None else None
        self.n_documents_ = 0
        self.n_invalid_utf8_ = 0
        self.n_missing_ = 0
        self._df = np.zeros(width)
        self._tf = np.zeros(width)
        self._version = 0
        self._cache: dict = {}

    @property
    def n_columns_(self) -> int:
        """Columns in the internal numbering: ``n_features``, or the vocabulary size."""
        if self.mode == "hashing":
            return int(self.n_features)
        return len(self.vocabulary_) if self.fitted else 0

    @property
    def _width(self) -> int:
        """Allocated columns (≥ n_columns_; vocabulary arrays grow by doubling)."""
        return self._df.shape[0]

    @property
    def document_frequency_(self) -> np.ndarray:
        """df_j: fitted documents containing column j (unweighted)."""
        self._check_fitted()
        return self._df[: self.n_columns_].copy()

    @property
    def term_count_(self) -> np.ndarray:
        """tf_j: total count of column j over the fitted documents."""
        self._check_fitted()
        return self._tf[: self.n_columns_].copy()

    def _check_fitted(self) -> None:
        if not self.fitted:
            raise sklearn_compatible(NotFittedError)(
                f"This {self._name} instance is not fitted yet. Call 'fit' or 'partial_fit' first."
            )

    def _ensure_width(self, width: int) -> None:
        old = self._width
        if width > old:
            size = old
            while size < width:
                size *= 2
            for name in ("_df", "_tf"):
                grown = np.zeros(size)
                grown[:old] = getattr(self, name)
                setattr(self, name, grown)

    def _indexer(self, *, learn: bool) -> Hashing | Vocabulary:
        if self.mode == "hashing":
            names = self.names_ if learn and self.fitted else None
            limit = int(self.max_names) if names is not None else 0
            return Hashing(int(self.n_features), names, limit, self._named if limit else None)
        if not self.fitted:
            if learn:
                raise AssertionError("reset before learning")
            self._check_fitted()
        return Vocabulary(self.vocabulary_, grow=learn)

    def learn_counts(self, texts: Any) -> Iterator[Counted]:
        """Count ``texts`` a chunk at a time, adding them to the statistics (and the vocabulary):
        the raw counts, in the internal numbering, with the width of the vocabulary so far."""
        if not self.fitted:
            self._reset()
        elif self._fit_key != self._tokenizer_key():
            raise ValueError(
                f"{self._name}: the tokenizing parameters changed since fitting "
                f"({self._fit_key} → {self._tokenizer_key()}); fit again instead of partial_fit."
            )
        documents = as_documents(texts, estimator=self._name)
        for counted in self.tokenizer_.count(documents, self._indexer(learn=True)):
            X = counted.X
            width = self.n_columns_
            self._ensure_width(width)
            if X.shape[1] != width:
                X = sp.csr_array((X.data, X.indices, X.indptr), shape=(X.shape[0], width))
            self.n_documents_ += X.shape[0]
            self.n_invalid_utf8_ += counted.n_invalid
            self.n_missing_ += counted.n_missing
            if X.nnz:
                _transform.add_columns(X.indices, X.data, self._df, self._tf)
            self._version += 1
            self._cache.clear()
            _warn_invalid(counted.n_invalid, self._name)
            yield Counted(X, counted.n_invalid, counted.n_missing)

    def iter_counts(self, texts: Any) -> Iterator[sp.csr_array]:
        """Raw counts of ``texts``, a chunk at a time, in the internal numbering (hash columns,
        or vocabulary ids; unknown n-grams skipped). Needs no fit in hashing mode."""
        tokenizer = self.tokenizer
        documents = as_documents(texts, estimator=self._name)
        for counted in tokenizer.count(documents, self._indexer(learn=False)):
            _warn_invalid(counted.n_invalid, self._name)
            X = counted.X
            if self.mode == "vocabulary" and X.shape[1] != self.n_columns_:
                X = sp.csr_array((X.data, X.indices, X.indptr), shape=(X.shape[0], self.n_columns_))
            yield X

    def partial_fit(self, texts: Any, y: Any = None) -> TextVectorizer:
        """Add documents to the statistics (and vocabulary)."""
        for _ in self.learn_counts(texts):
            pass
        return self

    def fit(self, texts: Any, y: Any = None) -> TextVectorizer:
        """Learn the statistics (and vocabulary) of ``texts`` from scratch."""
        if self.fitted:
            del self.n_documents_
        return self.partial_fit(texts)

    def fit_transform(self, texts: Any, y: Any = None) -> sp.csr_array:
        """``fit(texts).transform(texts)``, tokenising once."""
        if self.fitted:
            del self.n_documents_
        chunks = [counted.X for counted in self.learn_counts(texts)]
        return self._stack([self.features(X) for X in chunks])

    def transform(self, texts: Any) -> sp.csr_array:
        """Features of ``texts``: counts, or weighted by tf / norm / idf; the selected columns."""
        return self._stack([self.features(X) for X in self.iter_counts(texts)])

    def _stack(self, chunks: list[sp.csr_array]) -> sp.csr_array:
        if not chunks:
            return sp.csr_array((0, self.n_features_out_))
        return sp.vstack(chunks, format="csr") if len(chunks) > 1 else chunks[0]

    # ----------------------------------------------------------------- names
    def column_names(self, columns: np.ndarray) -> list[str]:
        """A label for each internal column: its token (vocabulary mode), or the first n-gram met
        in fitting that hashes to it (hashing mode; other n-grams may share the column; "#j" if
        none was recorded). Merged vectorizers may each have named a column: both names show,
        joined by " | "."""
        columns = np.asarray(columns, dtype=np.int64)
        if self.mode == "vocabulary":
            self._check_fitted()
            return self.vocabulary_.tokens(columns)
        names = getattr(self, "names_", None)
        labels: dict[int, list[str]] = {int(c): [] for c in columns}
        if names is not None and len(names):
            hashed = names.hashes[: names.n]
            index = np.where(hashed >= 0, hashed, -hashed) % int(self.n_features)
            for entry in np.flatnonzero(np.isin(index, columns)):
                labels[int(index[entry])].append(names.token(int(entry)))
        return [" | ".join(sorted(labels[int(c)])) or f"#{int(c)}" for c in columns]

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """Names of the output columns (vocabulary mode: the tokens)."""
        return np.asarray(self.column_names(self.selected_columns()), dtype=object)


def _warn_invalid(count: int, estimator: str) -> None:
    if count:
        warnings.warn(
            f"{estimator}: {count} byte sequence(s) that are not valid UTF-8 were replaced by "
            "U+FFFD (they separate tokens and are never part of one).",
            UnicodeWarning,
            stacklevel=caller_stacklevel(),
        )
