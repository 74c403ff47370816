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

from .._params import ParamsMixin
from ..exceptions import NotFittedError, caller_stacklevel, sklearn_compatible
from . import _transform, weighting
from .bytetable import ByteTable
from .tokenizer import CHUNK_BYTES, Counted, Hashing, Tokenizer, Vocabulary

MODES = ("hashing", "vocabulary")

#: The parameters that decide which n-gram lands in which column: statistics counted with
#: different values do not add up (merging and partial_fit refuse them).
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


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


class TextVectorizer(ParamsMixin):
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

    def __init__(
        self,
        *,
        mode: str = "hashing",
        n_features: int = 2**20,
        lowercase: bool = True,
        ngram_range: tuple[int, int] = (1, 1),
        stop_words: str | Iterable[str] | None = None,
        min_token_length: int = 2,
        min_df: float = 1,
        max_df: float = 1.0,
        max_features: int | None = None,
        tf: bool | str = False,
        idf: bool | str = False,
        norm: bool = False,
        max_names: int = 2**20,
        chunk_bytes: int = CHUNK_BYTES,
        n_threads: int | None = None,
    ) -> None:
        self.mode = mode
        self.n_features = n_features
        self.lowercase = lowercase
        self.ngram_range = ngram_range
        self.stop_words = stop_words
        self.min_token_length = min_token_length
        self.min_df = min_df
        self.max_df = max_df
        self.max_features = max_features
        self.tf = tf
        self.idf = idf
        self.norm = norm
        self.max_names = max_names
        self.chunk_bytes = chunk_bytes
        self.n_threads = n_threads

    # ----------------------------------------------------------------- parameters
    @property
    def _name(self) -> str:
        return type(self).__name__

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
        if self.mode == "hashing" and (not _is_int(self.n_features) or self.n_features < 1):
            raise ValueError(f"n_features must be an int >= 1, got {self.n_features!r}.")
        if self.mode == "hashing" and self.n_features > 2**31:
            raise ValueError(f"n_features must be at most 2**31, got {self.n_features}.")
        for name in ("min_df", "max_df"):
            value = getattr(self, name)
            if _is_int(value):
                if value < 0:
                    raise ValueError(f"{name} must be >= 0, got {value}.")
            elif not isinstance(value, numbers.Real) or isinstance(value, bool):
                raise ValueError(f"{name} must be an int or a float in [0.0, 1.0], got {value!r}.")
            elif not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} as a proportion must be in [0.0, 1.0], got {value}.")
        if self.max_features is not None and (
            not _is_int(self.max_features) or self.max_features < 1
        ):
            raise ValueError(
                f"max_features must be None or an int >= 1, got {self.max_features!r}."
            )
        weighting.check_idf(self.idf)
        weighting.check_tf(self.tf)
        if not _is_int(self.max_names) or self.max_names < 0:
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

    # ----------------------------------------------------------------- lazy selection
    def _selecting(self) -> bool:
        """Whether columns are chosen from the statistics (else: all columns, stateless)."""
        return self.fitted

    def selected_columns(self) -> np.ndarray:
        """Internal columns that ``min_df`` / ``max_df`` / ``max_features`` keep, ascending."""
        self._check_params()
        if not self._selecting():
            if self.mode == "vocabulary":
                self._check_fitted()
            if (
                self.max_features is not None
                or (_is_int(self.min_df) and self.min_df > 1)
                or (not _is_int(self.min_df) and self.min_df > 0)
                or self.max_df != 1.0
            ):
                self._check_fitted()
            return np.arange(self.n_columns_)
        key = ("columns", self.min_df, self.max_df, self.max_features, self._version)
        if key not in self._cache:
            self._cache[key] = self._select()
        return self._cache[key]

    def _select(self) -> np.ndarray:
        n = self.n_documents_
        width = self.n_columns_
        df = self._df[:width]
        low = self.min_df if _is_int(self.min_df) else self.min_df * n
        high = self.max_df if _is_int(self.max_df) else self.max_df * n
        if high < low:
            raise ValueError("max_df corresponds to < documents than min_df")
        keep = np.flatnonzero((df >= low) & (df <= high))
        if self.max_features is not None and keep.shape[0] > self.max_features:
            order = np.lexsort((keep, -self._tf[keep]))
            keep = np.sort(keep[order[: self.max_features]])
        if keep.shape[0] == 0:
            raise ValueError(
                f"{self._name}: after pruning, no terms remain (min_df={self.min_df}, "
                f"max_df={self.max_df}, N={n}). Try a lower min_df or a higher max_df."
            )
        return keep

    def _positions(self, columns: np.ndarray) -> np.ndarray:
        """position[j] = where internal column j is among ``columns`` (-1: not selected)."""
        cached = self._cache.get("positions") if self.fitted else None
        if cached is not None and cached[0] is columns:
            return cached[1]
        position = np.full(max(self.n_columns_, 1), -1, dtype=np.int64)
        position[columns] = np.arange(columns.shape[0])
        if self.fitted:
            self._cache["positions"] = (columns, position)
        return position

    def idf_weights(self, columns: np.ndarray | None = None) -> np.ndarray | None:
        """idf_j of the selected columns (None when ``idf`` is off)."""
        mode = weighting.check_idf(self.idf)
        if mode is None:
            return None
        self._check_fitted()
        columns = self.selected_columns() if columns is None else columns
        return weighting.idf_weights(self._df[columns], self.n_documents_, mode)

    @property
    def n_features_out_(self) -> int:
        return int(self.selected_columns().shape[0])

    def select(self, X: sp.csr_array, columns: np.ndarray) -> sp.csr_array:
        """X restricted to ``columns`` (internal ids) and renumbered 0..len(columns)-1."""
        return weighting.transform(
            X, tf=False, norm=False, position=self._positions(columns), width=columns.shape[0]
        )

    def features(self, X: sp.csr_array, *, weigh: bool = True) -> sp.csr_array:
        """Raw counts (internal numbering) → the output features: tf and norm on the whole
        document, then the selected columns, then × idf (one compiled pass)."""
        columns = self.selected_columns()
        everything = columns.shape[0] == X.shape[1] and (
            columns.shape[0] == 0 or columns[-1] == columns.shape[0] - 1
        )
        idf = self.idf_weights(columns) if weigh else None
        return weighting.transform(
            X,
            tf=self.tf if weigh else False,
            norm=bool(self.norm) and weigh,
            position=None if everything else self._positions(columns),
            width=columns.shape[0],
            scale=idf,
        )

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

    # ----------------------------------------------------------------- model files
    def _state(self) -> tuple[dict, dict[str, np.ndarray]]:
        """(JSON counters, arrays) of the fitted statistics; see :mod:`nbayes.persist`."""
        self._check_fitted()
        meta = {
            "n_documents": int(self.n_documents_),
            "n_invalid_utf8": int(self.n_invalid_utf8_),
            "n_missing": int(self.n_missing_),
        }
        width = self._width
        arrays = {"df": self._df[:width], "tf": self._tf[:width]}
        for name in ("vocabulary_", "names_"):
            table = getattr(self, name, None)
            if table is not None:
                arrays.update({f"{name[:-1]}.{k}": v for k, v in table.arrays_state().items()})
        if self._named is not None:
            arrays["named"] = self._named
        return meta, arrays

    def _load_state(self, meta: dict, arrays: dict[str, np.ndarray]) -> None:
        """Restore :meth:`_state` into a vectorizer built with the same parameters."""
        from .bytetable import ByteTable

        df, tf = (
            np.asarray(arrays["df"], dtype=np.float64),
            np.asarray(arrays["tf"], dtype=np.float64),
        )
        if df.ndim != 1 or df.shape != tf.shape or np.any(df < 0) or np.any(tf < 0):
            raise ValueError("document statistics must be two equal 1-D arrays of counts >= 0.")
        # checked before _reset, which allocates n_features columns: a forged file's
        # parameters must not size anything that its arrays do not already hold
        if self.mode == "hashing" and df.shape[0] != int(self.n_features):
            raise ValueError(f"hashing mode needs {self.n_features} columns, got {df.shape[0]}.")
        self._reset()
        self._df, self._tf = df.copy(), tf.copy()
        for name in ("vocabulary", "names"):
            if getattr(self, f"{name}_") is not None:
                table = ByteTable.from_arrays(arrays[f"{name}.offsets"], arrays[f"{name}.arena"])
                setattr(self, f"{name}_", table)
        if self.mode == "vocabulary" and len(self.vocabulary_) > df.shape[0]:
            raise ValueError("the vocabulary is larger than its statistics.")
        if self._named is not None:
            named = np.asarray(arrays["named"])
            if named.shape != (df.shape[0],) or named.dtype != np.uint8 or np.any(named > 1):
                raise ValueError("named must mark each hash column with 0 or 1.")
            self._named = named.copy()
        counters = [meta["n_documents"], meta["n_invalid_utf8"], meta["n_missing"]]
        if not all(isinstance(c, int) and not isinstance(c, bool) for c in counters):
            raise ValueError("document counters must be integers.")
        self.n_documents_, self.n_invalid_utf8_, self.n_missing_ = counters
        if min(self.n_documents_, self.n_invalid_utf8_, self.n_missing_) < 0:
            raise ValueError("document counters must be >= 0.")

    # ----------------------------------------------------------------- merging
    def merge(self, *others: TextVectorizer) -> TextVectorizer:
        """Add the statistics (and vocabularies) of vectorizers fitted on other documents;
        returns ``self``. The result equals fitting on all their documents."""
        self.merge_statistics(*others)
        return self

    def merge_statistics(self, *others: TextVectorizer) -> list[np.ndarray | None]:
        """As :meth:`merge`; returns, per other vectorizer, where its internal columns went here
        (None in hashing mode: the same columns)."""
        self._check_fitted()
        moves: list[np.ndarray | None] = []
        for other in others:
            if not isinstance(other, TextVectorizer):
                raise TypeError(f"cannot merge a {type(other).__name__} into a {self._name}.")
            other._check_fitted()
            if other._fit_key != self._fit_key:
                raise ValueError(
                    f"cannot merge {self._name}s that tokenise differently: {self._fit_key} vs "
                    f"{other._fit_key}."
                )
            width = other.n_columns_
            if self.mode == "vocabulary":
                where = self.vocabulary_.union(other.vocabulary_)
                self._ensure_width(self.n_columns_)
            else:
                where = None
                if self.names_ is not None and other.names_ is not None:
                    self.names_.add_new_columns(
                        other.names_, self._named, int(self.n_features), int(self.max_names)
                    )
            target = slice(None, width) if where is None else where
            self._df[target] += other._df[:width]
            self._tf[target] += other._tf[:width]
            self.n_documents_ += other.n_documents_
            self.n_invalid_utf8_ += other.n_invalid_utf8_
            self.n_missing_ += other.n_missing_
            self._version += 1
            self._cache.clear()
            moves.append(where)
        return moves


def _warn_invalid(count: int, estimator: str) -> None:
    if count:
        warnings.warn(
            f"{estimator}: {count} byte sequence(s) that are not valid UTF-8 were replaced by "
            "U+FFFD (they separate tokens and are never part of one).",
            UnicodeWarning,
            stacklevel=caller_stacklevel(),
        )
