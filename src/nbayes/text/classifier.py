"""Raw text → a naive Bayes text classifier in one call: :class:`TextClassifier`.

The multinomial event model (McCallum & Nigam 1998): a document is a bag of words
x = (x_1, …, x_|V|) (x_t = N(x_t, document)), and with the smoothing δ

    P(y = k | x) ∝ P(y = k) ∏_t P(x_t | y = k)^{x_t}

    P(x_t | y = k) = (δ + N(x_t, y = k)) / (δ|V| + Σ_t' N(x_t', y = k))

computed in logs: log P(y = k) + Σ_t x_t log P(x_t | y = k). Words such as "awesome" and
"brilliant" then carry the positive class and "awful" and "boring" the negative one
(:meth:`TextClassifier.top_features`, :meth:`TextClassifier.explain`).

The classifier is the composition of a :class:`~nbayes.text.TextVectorizer` (tokens → columns,
document statistics) and one of nbayes' count models, whose fitted statistic is the per-class
sum of the documents' (weighted) counts, :class:`~nbayes.families.counts.FeatureSums`:

* ``model="multinomial"``: :class:`nbayes.MultinomialNB` (the formula above);
* ``model="complement"``: :class:`nbayes.ComplementNB` (Rennie et al. 2003; ``weight_norm``
  is their weight normalisation);
* ``model="bernoulli"``: :class:`nbayes.BernoulliNB` on word presence (the weighting options do
  not apply to it: presence is presence).

With ``tf``/``norm``/``idf`` (Rennie's transforms, :mod:`nbayes.text.weighting`) the counts x_t are
replaced by log(1 + x_t) / ||log(1 + x)|| · idf_t in training and in prediction.

Everything fitted is a sum: class counts, per-class feature sums, N, df and tf (and the
vocabulary, a set). ``partial_fit`` adds documents, ``merge`` adds classifiers fitted on other
documents (vocabularies united, columns re-indexed) — both exactly equal to one fit on all the
documents. What depends on the whole corpus (``min_df``, ``max_df``, ``max_features``, IDF, δ,
priors) is derived when predicting, and may be changed after fitting without refitting.

The classifier's other jobs live beside it: :mod:`~nbayes.text._prediction` (the count model
predictions use, and the predictions), :mod:`~nbayes.text.explanation` (indicative words,
:class:`~nbayes.text.TextExplanation`), :mod:`~nbayes.text._persist` (model files) and
:mod:`~nbayes.text._resize` (columns added or moved as a vocabulary grows or merges).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from .._base import InnerModel, check_label_kinds, class_index
from .._locks import synchronized
from .._params import ParamsMixin, constructor
from .._validation import (
    check_labels,
    check_sample_weight,
    no_labelled_rows,
    partial_fit_classes,
    warn_dropped,
)
from ..estimators import BernoulliNB, ComplementNB, MultinomialNB
from ..exceptions import NotFittedError, caller_stacklevel, sklearn_compatible
from . import _persist, explanation, weighting
from ._prediction import TextPrediction
from ._resize import reindexed, resize, widen
from .explanation import TextExplanation
from .tokenizer import CHUNK_BYTES
from .vectorizer import PARAMETER_TYPES as VECTORIZER_TYPES
from .vectorizer import TOKENIZING, TextVectorizer, as_documents

MODELS = ("multinomial", "complement", "bernoulli")

#: Parameters that change what is counted; the statistics of fitted models must agree on them.
_COUNTING = ("model", *TOKENIZING, "tf", "norm")


# the type of each parameter: the model's, then TextVectorizer's
PARAMETER_TYPES = {
    "model": "str",
    "alpha": "float",
    "weight_norm": "bool",
    **VECTORIZER_TYPES,
    "fit_prior": "bool",
    "class_prior": "Any",
    "loss": "Any",
}


class TextClassifier(TextPrediction, InnerModel, ParamsMixin):
    """Naive Bayes on raw text: tokenising, counting, weighting and the model, in one estimator.

    ``fit(texts, y)``, ``partial_fit``, ``merge``, ``predict``, ``predict_proba``,
    ``predict_log_proba``, ``score``, ``top_features(cls, n)`` and ``explain(doc)``. ``texts``
    is a list (or array, Series, one-column DataFrame, or any iterable, consumed once in chunks)
    of ``str`` or ``bytes`` documents; ``None`` is an empty document; bytes that are not UTF-8 are
    replaced by U+FFFD (counted, with a warning) — see :mod:`nbayes.text.tokenizer`.

    The defaults are the most accurate settings measured on 20 Newsgroups and the SMS Spam
    Collection (benchmarks/README.md): complement NB, δ = 0.1, word 1- and 2-grams, tokens of
    one or more word characters (``min_token_length=1``: "u", "2", "4" matter in text messages;
    scikit-learn's rule is 2), binary TF with length normalisation, no IDF, hashed into 2**20
    columns. ``TextClassifier(model="multinomial", tf=False, norm=False, ngram_range=(1, 1),
    min_token_length=2, alpha=1.0)`` is the plain multinomial model on word counts (above);
    ``mode="vocabulary", alpha=0.03`` is the most accurate option measured on 20 Newsgroups.

    Parameters
    ----------
    model : "complement" (default), "multinomial" or "bernoulli".
    alpha : the smoothing δ (λ): P(x_t|k) = (δ + N(x_t, k)) / (δ|V| + Σ_t N(x_t, k)).
    weight_norm : complement model: Rennie's weight normalisation w_kt / Σ_t |w_kt|.
    fit_prior, class_prior, loss : as in the count models (priors; Bayes decision with a loss
        matrix).
    vectorizer parameters
        ``mode``, ``n_features``, ``lowercase``, ``ngram_range``, ``stop_words``,
        ``min_token_length``, ``min_df``, ``max_df``, ``max_features``, ``tf``, ``norm``, ``idf``,
        ``max_names``, ``chunk_bytes``, ``n_threads``: how documents become
        features: the parameters of :class:`TextVectorizer` (described there), with the defaults
        above. As there, ``min_df``, ``max_df``, ``max_features`` and ``idf`` are applied when
        predicting, from document frequencies kept as statistics (so merges stay exact, and they
        can be changed after fitting). With ``model="bernoulli"``, ``tf``, ``norm`` and ``idf``
        do not apply.
    """

    __init__ = constructor(
        annotations=PARAMETER_TYPES,
        model="complement", alpha=0.1, weight_norm=False,
        # how documents become counts: TextVectorizer's parameters (other defaults)
        mode="hashing", n_features=2**20, lowercase=True, ngram_range=(1, 2), stop_words=None,
        min_token_length=1, min_df=1, max_df=1.0, max_features=None, tf="binary", norm=True,
        idf=False, fit_prior=True, class_prior=None, loss=None, max_names=2**20,
        chunk_bytes=CHUNK_BYTES, n_threads=None,
    )  # fmt: skip

    # ----------------------------------------------------------------- parts
    def __sklearn_tags__(self):
        from sklearn.utils import ClassifierTags, InputTags, Tags, TargetTags

        return Tags(
            estimator_type="classifier",
            target_tags=TargetTags(required=True),
            classifier_tags=ClassifierTags(),
            input_tags=InputTags(one_d_array=True, two_d_array=False, string=True),
        )

    def _weighs(self) -> bool:
        return self.model != "bernoulli"

    def _vectorizer_params(self, names: Iterable[str] | None = None) -> dict[str, Any]:
        """This classifier's values of the :class:`TextVectorizer` parameters (all, or
        ``names``); the Bernoulli model weighs nothing (presence is presence)."""
        chosen = TextVectorizer._param_names() if names is None else names
        params = {name: getattr(self, name) for name in chosen}
        if not self._weighs():
            params.update({name: False for name in ("tf", "idf", "norm") if name in params})
        if "norm" in params:
            params["norm"] = bool(params["norm"])
        return params

    def _make_vectorizer(self) -> TextVectorizer:
        return TextVectorizer(**self._vectorizer_params())

    def _make_model(self) -> MultinomialNB | ComplementNB | BernoulliNB:
        common = {
            "alpha": self.alpha,
            "fit_prior": self.fit_prior,
            "class_prior": self.class_prior,
            "loss": self.loss,
        }
        if self.model == "multinomial":
            return MultinomialNB(**common)
        if self.model == "complement":
            return ComplementNB(norm=bool(self.weight_norm), **common)
        if self.model == "bernoulli":
            return BernoulliNB(binarize=0.0, **common)
        raise ValueError(f"model must be one of {MODELS}, got {self.model!r}.")

    def _counting_key(self) -> tuple:
        return tuple(repr(getattr(self, name)) for name in _COUNTING)

    def _check_params(self) -> None:
        self._make_model()._check_params()
        self._make_vectorizer()._check_params()

    def _check_fitted(self) -> None:
        if not hasattr(self, "model_"):
            raise sklearn_compatible(NotFittedError)(
                f"This {self._name} instance is not fitted yet. Call 'fit' or 'partial_fit' with "
                "appropriate arguments before using this estimator."
            )

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "model_")

    @property
    def feature_count_(self) -> np.ndarray:
        """Σ over class-k documents of their (tf/norm-transformed) counts, per internal column
        (Bernoulli: the number of class-k documents containing the column), shape (K, columns)."""
        self._check_fitted()
        return self.model_.feature_count_[:, : self.vectorizer_.n_columns_]

    # ----------------------------------------------------------------- fitting
    @synchronized
    def fit(self, texts: Any, y: Any, sample_weight: Any = None) -> TextClassifier:
        """Fit from scratch on documents ``texts`` with labels ``y``.

        As in the table models (:mod:`nbayes.labels`), a document whose label is missing (None,
        NaN) is dropped, with a warning, and labels of several kinds (``[1, "h"]``) are refused."""
        self._check_params()
        labels, missing = check_labels(y, _length(y), estimator=self._name)
        for name in ("model_", "vectorizer_"):
            if hasattr(self, name):
                delattr(self, name)
        try:
            self._add(texts, labels, sample_weight, np.unique(labels), missing)
        except BaseException:
            for name in ("model_", "vectorizer_"):
                if hasattr(self, name):
                    delattr(self, name)
            raise
        return self

    @synchronized
    def partial_fit(
        self, texts: Any, y: Any, classes: Any = None, sample_weight: Any = None
    ) -> TextClassifier:
        """Add documents. ``classes`` (every label that may occur) is required on the first call."""
        first = not hasattr(self, "model_")
        labels, missing = check_labels(y, _length(y), estimator=self._name)
        if first:
            self._check_params()
        elif self._fit_key != self._counting_key():
            raise ValueError(
                f"{self._name}: counting parameters changed since fitting; call fit instead."
            )
        fitted = None if first else self.model_.classes_
        all_classes = partial_fit_classes(fitted, classes, estimator=self._name)
        if labels.shape[0]:
            check_label_kinds(all_classes, np.unique(labels), estimator=self._name)
        class_index(all_classes, labels, estimator=self._name)  # unknown labels: fail early
        self._add(texts, labels, sample_weight, all_classes, missing)
        return self

    def _add(
        self,
        texts: Any,
        labels: np.ndarray,
        sample_weight: Any,
        classes: np.ndarray,
        missing: np.ndarray | None = None,
    ) -> None:
        """Count ``texts`` into the statistics; ``missing`` marks the documents whose label was
        missing (``labels`` holds the others'): they are dropped before anything is counted."""
        total = labels.shape[0] if missing is None else missing.shape[0]
        weight = check_sample_weight(sample_weight, total, estimator=self._name)
        documents = as_documents(texts, estimator=self._name)
        if hasattr(documents, "__len__") and len(documents) != total:
            raise ValueError(
                f"{self._name}: got {len(documents)} documents but {total} labels; Found input "
                f"variables with inconsistent numbers of samples: [{len(documents)}, {total}]."
            )
        if total == 0:
            raise ValueError(f"{self._name}: Found 0 documents; at least 1 is required.")
        if missing is not None:
            if not labels.shape[0]:
                raise no_labelled_rows()
            weight = weight[~missing]
            documents = _labelled(documents, missing, self._name)
        n = labels.shape[0]
        if not hasattr(self, "model_"):
            self.vectorizer_ = self._make_vectorizer()
            self.model_ = self._make_model()
            self._fit_key = self._counting_key()
            self._version = 0
        vectorizer, model = self.vectorizer_, self.model_
        done = 0
        for counted in vectorizer.learn_counts(documents):
            X = counted.X
            rows = X.shape[0]
            if done + rows > n:
                raise ValueError(
                    f"{self._name}: texts has more documents than the {n} labels in y."
                )
            X = widen(X, vectorizer._width)
            if self._weighs():
                X = weighting.weigh(X, tf=vectorizer.tf, norm=bool(vectorizer.norm))
            if hasattr(model, "classes_") and model.n_features_in_ < X.shape[1]:
                resize(model, X.shape[1])
            model.partial_fit(
                X,
                labels[done : done + rows],
                classes=classes if not hasattr(model, "classes_") else None,
                sample_weight=weight[done : done + rows],
            )
            done += rows
            self._version += 1
        if done != n:
            raise ValueError(f"{self._name}: texts has {done} documents but y has {n} labels.")
        if missing is not None:
            warn_dropped(
                int(missing.sum()), int(np.argmax(missing)), stacklevel=caller_stacklevel()
            )

    @synchronized
    def merge(self, *others: TextClassifier) -> TextClassifier:
        """Add classifiers fitted on other documents; returns ``self``, equal to the fit on all of
        them (vocabularies united and columns re-indexed in vocabulary mode)."""
        self._check_fitted()
        for other in others:
            if not isinstance(other, TextClassifier):
                raise TypeError(f"cannot merge a {type(other).__name__} into a {self._name}.")
            other._check_fitted()
            check_label_kinds(self.classes_, other.classes_, estimator=self._name)
            if other._fit_key != self._fit_key:
                raise ValueError(
                    f"cannot merge {self._name}s fitted with different counting parameters: "
                    f"{dict(zip(_COUNTING, self._fit_key, strict=True))} vs "
                    f"{dict(zip(_COUNTING, other._fit_key, strict=True))}."
                )
        for other in others:
            (where,) = self.vectorizer_.merge_statistics(other.vectorizer_)
            width = self.vectorizer_._width
            if self.model_.n_features_in_ < width:
                resize(self.model_, width)
            theirs = other.model_
            if where is not None or theirs.n_features_in_ != width:
                theirs = reindexed(theirs, where, width)
            self.model_.merge(theirs)
            self._version += 1
        return self

    def score(self, texts: Any, y: Any, sample_weight: Any = None) -> float:
        """Mean accuracy on ``texts`` against labels ``y``; documents whose label is missing are
        left out, with a warning (as :meth:`fit` and the table models do)."""
        predicted = self.predict(texts)
        labels, missing = check_labels(y, predicted.shape[0], estimator=self._name)
        weight = check_sample_weight(sample_weight, predicted.shape[0], estimator=self._name)
        if missing is not None:
            if not labels.shape[0]:
                raise no_labelled_rows()
            predicted, weight = predicted[~missing], weight[~missing]
            warn_dropped(
                int(missing.sum()), int(np.argmax(missing)), stacklevel=caller_stacklevel()
            )
        return float(np.average(predicted == labels, weights=weight))

    # ----------------------------------------------------------------- indicative words
    def _class_position(self, cls: Any) -> int:
        classes = self.classes_
        matches = np.flatnonzero(classes == cls)
        if matches.shape[0] != 1:
            raise ValueError(f"{self._name}: unknown class {cls!r}; classes are {list(classes)}.")
        return int(matches[0])

    def log_ratio(self, cls: Any) -> np.ndarray:
        """log P(t | cls) − log P(t | not cls) for every selected column, the model's estimates
        with δ, the other classes pooled:

            multinomial, complement: P(t | S) = (δ + Σ_{k∈S} N(t, k)) / (δ|V| + Σ_{k∈S} Σ_t N(t, k))
            Bernoulli:               P(t | S) = (δ + Σ_{k∈S} df(t, k)) / (2δ + Σ_{k∈S} N_k)
        """
        return explanation.log_ratio(self, cls)

    def top_features(self, cls: Any, n: int = 10) -> list[tuple[str, float]]:
        """The n words (n-grams) most indicative of class ``cls``: largest
        log P(t | cls) − log P(t | other classes) (see :meth:`log_ratio`), as (token, ratio)."""
        return explanation.top_features(self, cls, n)

    def explain(
        self, doc: str | bytes | None, *, n: int = 10, against: Any = None
    ) -> TextExplanation:
        """Which words of ``doc`` pushed the decision, and by how much (see
        :class:`TextExplanation`): the ``n`` largest contributions to the score of the predicted
        class against ``against`` (default: the runner-up)."""
        return explanation.explain(self, doc, n=n, against=against)

    # ----------------------------------------------------------------- model files
    def _to_state(self) -> tuple[dict, dict[str, np.ndarray]]:
        """(JSON metadata, arrays) for a model file (:mod:`nbayes.text._persist`)."""
        return _persist.classifier_state(self)

    @classmethod
    def _from_state(cls, meta: dict, arrays: dict[str, np.ndarray]) -> TextClassifier:
        return _persist.classifier_from_state(cls, meta, arrays)

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state.pop("_prediction_cache", None)
        return state


def _labelled(documents: Any, missing: np.ndarray, estimator: str) -> Any:
    """The documents whose label is not ``missing``: a list for a sequence, else a generator
    (an iterable is consumed once) that refuses more documents than labels."""
    if hasattr(documents, "__len__"):
        return [doc for doc, lost in zip(documents, missing.tolist(), strict=True) if not lost]

    def kept() -> Any:
        lost = missing.tolist()
        for i, doc in enumerate(documents):
            if i >= len(lost):
                raise ValueError(
                    f"{estimator}: texts has more documents than the {len(lost)} labels in y."
                )
            if not lost[i]:
                yield doc

    return kept()


def _length(y: Any) -> int:
    try:
        return len(y)
    except TypeError as exc:
        raise ValueError(f"y must be a sequence of labels: {exc}") from exc
