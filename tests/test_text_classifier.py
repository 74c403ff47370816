"""TextClassifier: the same probabilities as scikit-learn pipelines of the same model, the
indicative words of a small sentiment example by hand, exact merging, bad input, and the
scikit-learn protocol."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.naive_bayes import BernoulliNB as SkBernoulli
from sklearn.naive_bayes import ComplementNB as SkComplement
from sklearn.naive_bayes import MultinomialNB as SkMultinomial
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, normalize

import nbayes

COUNTS = {"tf": False, "norm": False, "idf": False, "min_token_length": 2, "ngram_range": (1, 1)}

TRAIN = [
    "free entry win a prize now, text WIN to 80082",
    "are we still meeting for lunch today?",
    "WINNER! claim your free prize call now",
    "ok see you at home, bring the keys",
    "urgent: your account won a free cash prize",
    "can you call me when you get home",
    "lunch was great, see you tomorrow",
    "free free free ringtones, text now",
]
LABELS = np.array(["spam", "ham", "spam", "ham", "spam", "ham", "ham", "spam"])
TEST = ["free prize, call now", "see you at lunch", "keys at home", "won cash", "free lunch"]

# sentiment: "awesome, brilliant" vs "awful, boring"
SENTIMENT = [
    "awesome brilliant film",
    "brilliant awesome great",
    "awful boring film",
    "boring awful bad",
]
SENTIMENT_Y = np.array(["pos", "pos", "neg", "neg"])


def log1p(X):
    X = sp.csr_matrix(X, dtype=np.float64, copy=True)
    X.data = np.log1p(X.data)
    return X


# ----------------------------------------------------------------- the same model as scikit-learn
@pytest.mark.parametrize("alpha", [1.0, 0.1])
def test_hashing_multinomial_equals_hashingvectorizer_pipeline(alpha):
    ours = nbayes.TextClassifier(model="multinomial", alpha=alpha, min_df=0, **COUNTS)
    theirs = make_pipeline(
        HashingVectorizer(alternate_sign=False, norm=None), SkMultinomial(alpha=alpha)
    )
    ours.fit(TRAIN, LABELS)
    theirs.fit(TRAIN, LABELS)
    np.testing.assert_allclose(ours.predict_proba(TEST), theirs.predict_proba(TEST), rtol=1e-9)
    np.testing.assert_array_equal(ours.predict(TEST), theirs.predict(TEST))


def test_default_model_equals_its_scikit_learn_pipeline():
    """The defaults are: words of one or more characters, 1-2-grams, binary TF, L2 length
    normalisation, hashing into 2**20 columns, complement NB with α = 0.1 (min_df=0 here, so
    that the never-seen hash columns are kept as scikit-learn keeps them)."""
    ours = nbayes.TextClassifier(min_df=0).fit(TRAIN, LABELS)
    theirs = make_pipeline(
        HashingVectorizer(
            token_pattern=r"(?u)\b\w+\b",
            ngram_range=(1, 2),
            binary=True,
            norm="l2",
            alternate_sign=False,
        ),
        SkComplement(alpha=0.1),
    ).fit(TRAIN, LABELS)
    np.testing.assert_allclose(ours.predict_proba(TEST), theirs.predict_proba(TEST), rtol=1e-9)


@pytest.mark.parametrize("weight_norm", [False, True])
def test_vocabulary_complement_with_tf_idf_equals_scikit_learn(weight_norm):
    counts = CountVectorizer().fit(TRAIN)
    X = counts.transform(TRAIN)
    n, df = X.shape[0], np.asarray((X > 0).sum(axis=0)).ravel()
    idf = np.log((1 + n) / (1 + df)) + 1
    theirs = make_pipeline(
        CountVectorizer(),
        FunctionTransformer(lambda M: log1p(M) @ sp.diags(idf), accept_sparse=True),
        SkComplement(alpha=0.3, norm=weight_norm),
    ).fit(TRAIN, LABELS)
    ours = nbayes.TextClassifier(
        model="complement", mode="vocabulary", alpha=0.3, weight_norm=weight_norm,
        **dict(COUNTS, tf=True, idf=True),
    ).fit(TRAIN, LABELS)  # fmt: skip
    np.testing.assert_allclose(ours.predict_proba(TEST), theirs.predict_proba(TEST), rtol=1e-9)


def test_vocabulary_multinomial_with_norm_and_min_df_equals_scikit_learn():
    # the length norm counts every token of a document, so compare on documents whose tokens
    # were all seen in training
    theirs = make_pipeline(
        CountVectorizer(min_df=2),
        SkMultinomial(alpha=0.5),
    ).fit(TRAIN, LABELS)
    ours = nbayes.TextClassifier(model="multinomial", mode="vocabulary", alpha=0.5, min_df=2,
                                 **COUNTS).fit(TRAIN, LABELS)  # fmt: skip
    np.testing.assert_allclose(ours.predict_proba(TEST), theirs.predict_proba(TEST), rtol=1e-9)
    normed = make_pipeline(
        CountVectorizer(),
        FunctionTransformer(lambda M: normalize(log1p(M)), accept_sparse=True),
        SkMultinomial(alpha=0.5),
    ).fit(TRAIN, LABELS)
    ours = nbayes.TextClassifier(model="multinomial", mode="vocabulary", alpha=0.5,
                                 **dict(COUNTS, tf=True, norm=True)).fit(TRAIN, LABELS)  # fmt: skip
    np.testing.assert_allclose(ours.predict_proba(TRAIN), normed.predict_proba(TRAIN), rtol=1e-9)


def test_vocabulary_bernoulli_equals_scikit_learn():
    theirs = make_pipeline(CountVectorizer(), SkBernoulli(alpha=1.0)).fit(TRAIN, LABELS)
    ours = nbayes.TextClassifier(model="bernoulli", mode="vocabulary", alpha=1.0,
                                 **COUNTS).fit(TRAIN, LABELS)  # fmt: skip
    np.testing.assert_allclose(ours.predict_proba(TEST), theirs.predict_proba(TEST), rtol=1e-9)


def test_pipeline_of_vectorizer_and_core_model_equals_text_classifier():
    params = {"mode": "vocabulary", "tf": True, "norm": True, "idf": True, "min_df": 2,
              "ngram_range": (1, 2), "min_token_length": 2}  # fmt: skip
    pipeline = make_pipeline(nbayes.TextVectorizer(**params), nbayes.ComplementNB(alpha=0.5))
    pipeline.fit(TRAIN, LABELS)
    ours = nbayes.TextClassifier(model="complement", alpha=0.5, **params).fit(TRAIN, LABELS)
    np.testing.assert_allclose(ours.predict_proba(TEST), pipeline.predict_proba(TEST), rtol=1e-9)
    np.testing.assert_allclose(
        ours.predict_proba(TEST), clone(pipeline).fit(TRAIN, LABELS).predict_proba(TEST)
    )


# ----------------------------------------------------------------- indicative words
def sentiment_model(**params) -> nbayes.TextClassifier:
    defaults = dict(COUNTS, model="multinomial", mode="vocabulary", alpha=1.0)
    return nbayes.TextClassifier(**{**defaults, **params}).fit(SENTIMENT, SENTIMENT_Y)


def test_top_features_by_hand():
    """|V| = 7 (awesome brilliant film great awful boring bad), 6 tokens per class, δ = 1:
    P(awesome | pos) = (1 + 2) / (7 + 6) = 3/13 and P(awesome | neg) = 1/13: ratio log 3;
    great: 2/13 vs 1/13, log 2; film: 2/13 in both, 0."""
    model = sentiment_model()
    top = model.top_features("pos", 4)
    assert [t for t, _ in top] == ["awesome", "brilliant", "great", "film"]
    np.testing.assert_allclose([r for _, r in top], [math.log(3), math.log(3), math.log(2), 0.0])
    assert [t for t, _ in model.top_features("neg", 3)] == ["awful", "boring", "bad"]
    np.testing.assert_allclose(model.log_ratio("neg")[:2], [-math.log(3), -math.log(3)])


def test_explain_by_hand():
    """ "awesome film boring boring": log-odds pos vs neg = log 3 + 0 + 2·(−log 3) = −log 3,
    equal priors, so P(neg | x) = 3/4."""
    model = sentiment_model()
    why = model.explain("awesome film boring boring")
    assert why.predicted == "neg" and why.against == "pos"
    np.testing.assert_allclose(why.log_odds, math.log(3))
    assert why.prior == 0.0
    words = {t: (x, c) for t, x, c in why.words}
    np.testing.assert_allclose(words["boring"], (2.0, 2 * math.log(3)))
    np.testing.assert_allclose(words["awesome"], (1.0, -math.log(3)))
    np.testing.assert_allclose(words["film"], (1.0, 0.0), atol=1e-15)
    np.testing.assert_allclose(why.proba["neg"], 0.75)
    assert "boring" in str(why)
    # one name per meaning: the table model's explanation is nbayes.Explanation
    assert type(why) is nbayes.text.TextExplanation
    assert not isinstance(why, nbayes.Explanation) and not hasattr(nbayes.text, "Explanation")


@pytest.mark.parametrize("model", ["multinomial", "complement", "bernoulli"])
@pytest.mark.parametrize("mode", ["hashing", "vocabulary"])
def test_explanations_add_up(model, mode):
    clf = nbayes.TextClassifier(model=model, mode=mode, class_prior=[0.3, 0.7]).fit(TRAIN, LABELS)
    for doc in TEST:
        why = clf.explain(doc, n=3)
        total = why.prior + sum(c for _, _, c in why.words) + why.other + why.absent
        np.testing.assert_allclose(total, why.log_odds, rtol=1e-9, atol=1e-9)
        assert why.predicted == clf.predict([doc])[0]


def test_top_features_name_hashed_columns():
    model = nbayes.TextClassifier(model="multinomial", **COUNTS).fit(SENTIMENT, SENTIMENT_Y)
    assert {t for t, _ in model.top_features("pos", 2)} == {"awesome", "brilliant"}
    with pytest.raises(ValueError, match="unknown class"):
        model.top_features("neutral")


# ----------------------------------------------------------------- merging
docs_strategy = st.lists(
    st.tuples(
        st.lists(st.sampled_from(["win", "free", "prize", "lunch", "home", "ΣΑΣ", "x", "café"]),
                 max_size=8).map(" ".join),
        st.sampled_from(["a", "b", "c"]),
    ),
    min_size=2,
    max_size=14,
)  # fmt: skip


@settings(max_examples=40, deadline=None)
@given(
    data=docs_strategy,
    groups=st.integers(1, 4),
    seed=st.integers(0, 2**16),
    model=st.sampled_from(["multinomial", "complement", "bernoulli"]),
    mode=st.sampled_from(["hashing", "vocabulary"]),
)
def test_merge_and_partial_fit_equal_one_fit(data, groups, seed, model, mode):
    texts = [t for t, _ in data]
    y = np.array([label for _, label in data])
    params = {"model": model, "mode": mode, "n_features": 2**12, "idf": True, "min_df": 2,
              "min_token_length": 1, "ngram_range": (1, 2)}  # fmt: skip
    whole = nbayes.TextClassifier(**params).fit(texts, y)
    rng = np.random.default_rng(seed)
    part = rng.integers(0, groups, len(texts))
    pieces = []
    for g in range(groups):
        rows = np.flatnonzero(part == g)
        if rows.size:
            pieces.append(nbayes.TextClassifier(**params).fit([texts[i] for i in rows], y[rows]))
    order = rng.permutation(len(pieces))
    merged = pieces[order[0]]
    merged.merge(*[pieces[i] for i in order[1:]])
    probes = [*texts, "free prize lunch", "unseen words only"]
    try:
        expected = whole.predict_proba(probes)
    except ValueError as error:  # min_df pruned every column: the same for both
        with pytest.raises(ValueError, match=str(error)[:30]):
            merged.predict_proba(probes)
        return
    np.testing.assert_allclose(merged.predict_proba(probes), expected, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(merged.classes_, whole.classes_)
    np.testing.assert_allclose(merged.class_count_, whole.class_count_)
    # partial_fit one document at a time is the same model too
    stream = nbayes.TextClassifier(**params)
    for text, label in zip(texts, y, strict=True):
        stream.partial_fit([text], [label], classes=np.unique(y))
    np.testing.assert_allclose(stream.predict_proba(probes), expected, rtol=1e-9, atol=1e-12)


def test_merge_in_vocabulary_mode_reindexes_the_counts():
    a = nbayes.TextClassifier(mode="vocabulary", **COUNTS).fit(TRAIN[:4], LABELS[:4])
    b = nbayes.TextClassifier(mode="vocabulary", **COUNTS).fit(TRAIN[4:], LABELS[4:])
    whole = nbayes.TextClassifier(mode="vocabulary", **COUNTS).fit(TRAIN, LABELS)
    merged = nbayes.merge(a, b)  # the core's merge works on text models too
    assert merged is not a
    vocabulary = merged.vectorizer_.vocabulary_
    assert vocabulary.tokens() == whole.vectorizer_.vocabulary_.tokens()
    np.testing.assert_array_equal(merged.feature_count_, whole.feature_count_)
    with pytest.raises(ValueError, match="different counting parameters"):
        a.merge(nbayes.TextClassifier(mode="vocabulary").fit(TRAIN, LABELS))


# ----------------------------------------------------------------- bad input
def test_empty_documents_and_an_empty_class():
    model = nbayes.TextClassifier(model="multinomial", alpha=1.0)
    model.partial_fit(["", "win free", "", "see you"], ["spam", "spam", "ham", "ham"],
                      classes=["ham", "spam", "unused"])  # fmt: skip
    proba = model.predict_proba(["", "win"])
    assert proba.shape == (2, 3)
    np.testing.assert_allclose(proba[:, 2], 0.0)  # MLE prior of a class with no documents
    np.testing.assert_allclose(proba[0, :2], [0.5, 0.5])  # an empty document: the prior
    model.set_params(class_prior="uniform")
    assert np.all(model.predict_proba(["win"])[:, 2] > 0)  # P(x|unused) is uniform over V
    assert model.predict([""])[0] in ("ham", "spam")


def test_none_in_a_text_column_and_invalid_bytes():
    pd = pytest.importorskip("pandas")
    texts = pd.Series(["free prize", None, b"caf\xe9 lunch", "see you", np.nan])
    y = ["spam", "ham", "ham", "ham", "spam"]
    with pytest.warns(UnicodeWarning):
        model = nbayes.TextClassifier().fit(texts, y)
    assert model.vectorizer_.n_missing_ == 2
    assert model.vectorizer_.n_invalid_utf8_ == 1
    assert model.predict(pd.DataFrame({"body": [None, "free"]})).shape == (2,)


def test_huge_document_is_counted():
    big = "free prize " * 2_000_000  # 22 MB
    model = nbayes.TextClassifier(chunk_bytes=1 << 20).fit([big, "see you"], ["spam", "ham"])
    assert model.predict(["prize"])[0] == "spam"
    counts = model.vectorizer_.term_count_
    assert counts.sum() == 2 * 2_000_000 + (2 * 2_000_000 - 1) + 2 + 1  # 1-2-grams


def test_bad_calls_name_the_problem():
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        nbayes.TextClassifier().fit(TRAIN, LABELS[:3])
    with pytest.raises(TypeError, match="single str"):
        nbayes.TextClassifier().fit("one document", ["a"])
    with pytest.raises(ValueError, match="classes must be passed"):
        nbayes.TextClassifier().partial_fit(TRAIN, LABELS)
    model = nbayes.TextClassifier().fit(TRAIN, LABELS)
    with pytest.raises(ValueError, match="do not exist"):
        model.partial_fit(["x"], ["eggs"])
    with pytest.raises(ValueError, match="model must be"):
        nbayes.TextClassifier(model="gaussian").fit(TRAIN, LABELS)
    with pytest.raises(nbayes.NotFittedError):
        nbayes.TextClassifier().predict(TEST)
    with pytest.raises(ValueError, match="more documents"):
        nbayes.TextClassifier().fit(iter(TRAIN), LABELS[:-1])


# ----------------------------------------------------------------- scikit-learn protocol
def test_scikit_learn_clone_search_and_cross_validation():
    model = nbayes.TextClassifier(alpha=0.5)
    assert clone(model).get_params() == model.get_params()
    scores = cross_val_score(model, np.array(TRAIN * 3, dtype=object), np.tile(LABELS, 3), cv=3)
    assert scores.shape == (3,)
    search = GridSearchCV(model, {"alpha": [0.1, 1.0], "model": ["multinomial", "complement"]},
                          cv=2).fit(TRAIN * 2, np.tile(LABELS, 2))  # fmt: skip
    assert search.best_params_["alpha"] in (0.1, 1.0)


def test_lazy_options_change_predictions_without_refitting():
    model = nbayes.TextClassifier(model="multinomial", **COUNTS).fit(TRAIN, LABELS)
    before = model.predict_proba(TEST)
    model.set_params(alpha=0.01, idf=True, min_df=2)
    again = nbayes.TextClassifier(model="multinomial", **dict(COUNTS, idf=True), alpha=0.01,
                                  min_df=2).fit(TRAIN, LABELS)  # fmt: skip
    np.testing.assert_allclose(model.predict_proba(TEST), again.predict_proba(TEST), rtol=1e-12)
    assert not np.allclose(before, model.predict_proba(TEST))


def test_pickle_round_trip():
    model = nbayes.TextClassifier().fit(TRAIN, LABELS)
    again = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(again.predict_proba(TEST), model.predict_proba(TEST))
    assert again.top_features("spam", 3) == model.top_features("spam", 3)


def test_score_and_generators():
    model = nbayes.TextClassifier().fit((t for t in TRAIN), LABELS)
    assert model.score(TRAIN, LABELS) == 1.0
    assert model.predict(iter(TEST)).shape == (len(TEST),)
    assert model.predict([]).shape == (0,)
