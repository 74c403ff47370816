"""TextVectorizer against scikit-learn's CountVectorizer / HashingVectorizer / TfidfTransformer,
its lazy selection, merging, and the scikit-learn transformer protocol."""

from __future__ import annotations

import itertools
import pickle

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer, TfidfTransformer
from sklearn.preprocessing import normalize

import nbayes

CORPUS = [
    "the quick brown fox jumps over the lazy dog",
    "the lazy dog sleeps; the fox runs",
    "A quick movie: awesome, brilliant, awesome!",
    "boring and awful, an awful boring film",
    "Brilliant acting, great film, the best",
    "dog food is not fox food",
    "",
    "café naïve ΟΔΟΣ δρόμος",
]


def dense_by_name(X, names) -> dict[str, np.ndarray]:
    X = X.toarray() if sp.issparse(X) else X
    return {str(n): X[:, j] for j, n in enumerate(names)}


def assert_same_columns(ours, our_names, theirs, their_names, rtol=1e-12):
    a, b = dense_by_name(ours, our_names), dense_by_name(theirs, their_names)
    assert a.keys() == b.keys()
    for name in a:
        np.testing.assert_allclose(a[name], b[name], rtol=rtol, atol=1e-15, err_msg=name)


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"ngram_range": (1, 2)},
        {"min_df": 2},
        {"max_df": 0.3},
        {"min_df": 0.2, "max_df": 4},
        {"max_features": 5},
        {"stop_words": "english", "ngram_range": (1, 2), "max_features": 12},
    ],
)
def test_vocabulary_mode_equals_countvectorizer(params):
    ours = nbayes.TextVectorizer(mode="vocabulary", **params).fit(CORPUS)
    theirs = CountVectorizer(**params).fit(CORPUS)
    if "max_features" in params:
        k = params["max_features"]
        unlimited = {p: v for p, v in params.items() if p != "max_features"}
        totals = np.asarray(CountVectorizer(**unlimited).fit_transform(CORPUS).sum(axis=0))
        totals = np.sort(totals.ravel())[::-1]
        if totals[k - 1] == totals[k]:  # a tie at the cut: scikit-learn's choice is arbitrary
            assert len(ours.get_feature_names_out()) == k
            return
    assert set(ours.get_feature_names_out()) == set(theirs.get_feature_names_out())
    assert_same_columns(
        ours.transform(CORPUS),
        ours.get_feature_names_out(),
        theirs.transform(CORPUS),
        theirs.get_feature_names_out(),
    )


def test_max_features_keeps_the_most_frequent_terms_ties_by_first_appearance():
    vec = nbayes.TextVectorizer(mode="vocabulary", max_features=3).fit(
        ["bb aa aa cc cc cc", "dd dd dd dd bb"]
    )
    # totals: aa 2, bb 2, cc 3, dd 4 -> dd, cc, then the aa/bb tie: bb appeared first
    assert sorted(vec.get_feature_names_out()) == ["bb", "cc", "dd"]


def test_tf_idf_equal_scikit_learns_transformers():
    counts = CountVectorizer().fit(CORPUS)
    X = counts.transform(CORPUS).astype(float)
    logged = X.copy()
    logged.data = np.log1p(logged.data)
    smooth = TfidfTransformer(norm=None, smooth_idf=True).fit(X)
    expected = logged @ sp.diags(smooth.idf_)
    ours = nbayes.TextVectorizer(mode="vocabulary", tf=True, idf=True).fit(CORPUS)
    assert_same_columns(
        ours.transform(CORPUS),
        ours.get_feature_names_out(),
        expected,
        counts.get_feature_names_out(),
    )
    # norm before idf (see nbayes.text.weighting), and Rennie's log(N / df)
    df = np.asarray((X > 0).sum(axis=0)).ravel()
    expected = normalize(logged) @ sp.diags(np.log(X.shape[0] / df))
    ours = nbayes.TextVectorizer(mode="vocabulary", tf=True, norm=True, idf="rennie").fit(CORPUS)
    assert_same_columns(
        ours.transform(CORPUS),
        ours.get_feature_names_out(),
        expected,
        counts.get_feature_names_out(),
    )
    binary = nbayes.TextVectorizer(mode="vocabulary", tf="binary", norm=True).fit(CORPUS)
    expected = normalize((X > 0).astype(float))
    assert_same_columns(
        binary.transform(CORPUS),
        binary.get_feature_names_out(),
        expected,
        counts.get_feature_names_out(),
    )


def test_hashing_is_stateless_until_fitted():
    vec = nbayes.TextVectorizer(n_features=2**12)
    theirs = HashingVectorizer(n_features=2**12, alternate_sign=False, norm=None)
    assert abs(vec.transform(CORPUS) - theirs.transform(CORPUS)).max() == 0
    vec.fit(CORPUS[:3])
    seen = vec.transform(CORPUS)  # min_df=1: the columns seen in fitting
    assert seen.shape[1] == np.count_nonzero(theirs.transform(CORPUS[:3]).sum(axis=0))
    vec.set_params(min_df=0)  # lazily: every hash column again, no refit
    assert abs(vec.transform(CORPUS) - theirs.transform(CORPUS)).max() == 0
    with pytest.raises(nbayes.NotFittedError):
        nbayes.TextVectorizer(idf=True).transform(CORPUS)


def test_names_of_hashed_columns_are_the_tokens_seen():
    vec = nbayes.TextVectorizer(n_features=2**18).fit(CORPUS)
    names = vec.get_feature_names_out()
    assert "awesome" in names and "fox" in names
    # a column is named by the first n-gram met in it; later ones sharing it are not recorded
    tokens = ["aa", "bb", "cc", "dd", "ee", "ff", "gg"]
    vec2 = nbayes.TextVectorizer(n_features=4).fit([" ".join(tokens)])
    names = vec2.get_feature_names_out()
    columns = nbayes.TextVectorizer(n_features=4).transform(tokens).indices
    first = {}
    for token, column in zip(tokens, columns, strict=True):
        first.setdefault(int(column), token)
    assert list(names) == [first[c] for c in sorted(first)]


@settings(max_examples=40, deadline=None)
@given(
    cut=st.lists(st.integers(0, len(CORPUS)), min_size=1, max_size=3),
    mode=st.sampled_from(["hashing", "vocabulary"]),
)
def test_merged_vectorizers_equal_one_fit(cut, mode):
    bounds = [0, *sorted(cut), len(CORPUS)]
    parts = [CORPUS[a:b] for a, b in itertools.pairwise(bounds) if b > a]
    params = {"mode": mode, "n_features": 2**10, "ngram_range": (1, 2), "min_df": 2, "idf": True}
    whole = nbayes.TextVectorizer(**params).fit(CORPUS)
    pieces = [nbayes.TextVectorizer(**params).fit(p) for p in parts]
    merged = pieces[0].merge(*pieces[1:])
    assert merged.n_documents_ == whole.n_documents_
    np.testing.assert_array_equal(merged.document_frequency_, whole.document_frequency_)
    np.testing.assert_array_equal(merged.term_count_, whole.term_count_)
    assert list(merged.get_feature_names_out()) == list(whole.get_feature_names_out())
    assert abs(merged.transform(CORPUS) - whole.transform(CORPUS)).max() < 1e-12


def test_partial_fit_equals_fit():
    whole = nbayes.TextVectorizer(mode="vocabulary").fit(CORPUS)
    parts = nbayes.TextVectorizer(mode="vocabulary")
    for doc in CORPUS:
        parts.partial_fit([doc])
    assert list(parts.get_feature_names_out()) == list(whole.get_feature_names_out())
    np.testing.assert_array_equal(parts.document_frequency_, whole.document_frequency_)


def test_merging_different_tokenizers_is_refused():
    a = nbayes.TextVectorizer(mode="vocabulary").fit(CORPUS)
    b = nbayes.TextVectorizer(mode="vocabulary", ngram_range=(1, 2)).fit(CORPUS)
    with pytest.raises(ValueError, match="tokenise differently"):
        a.merge(b)


def test_pickle_round_trip():
    vec = nbayes.TextVectorizer(mode="vocabulary", idf=True, min_df=2).fit(CORPUS)
    again = pickle.loads(pickle.dumps(vec))
    assert abs(again.transform(CORPUS) - vec.transform(CORPUS)).max() == 0
    again.partial_fit(["a brand new token"])  # the vocabulary keeps growing after loading
    assert again.vocabulary_.find("brand") == len(vec.vocabulary_)


def test_scikit_learn_protocol():
    vec = nbayes.TextVectorizer(mode="vocabulary", ngram_range=(1, 2), stop_words="english")
    copy = clone(vec)
    assert copy.get_params() == vec.get_params()
    X = vec.fit_transform(CORPUS)
    assert abs(X - vec.transform(CORPUS)).max() == 0
    assert X.shape == (len(CORPUS), len(vec.get_feature_names_out()))


@pytest.mark.parametrize(
    "params, message",
    [
        ({"mode": "bag"}, "mode must be"),
        ({"n_features": 0}, "n_features"),
        ({"min_df": -1}, "min_df"),
        ({"max_df": 1.5}, "max_df"),
        ({"max_features": 0}, "max_features"),
        ({"idf": "yes"}, "idf must be"),
        ({"tf": "sqrt"}, "tf must be"),
        ({"ngram_range": (2, 1)}, "ngram_range"),
        ({"stop_words": "klingon"}, "stop_words"),
        ({"stop_words": "englsh"}, "stop_words .* did you mean 'english'"),
        ({"min_token_length": 0}, "min_token_length"),
    ],
)
def test_bad_parameters_name_themselves(params, message):
    with pytest.raises(ValueError, match=message):
        nbayes.TextVectorizer(**params).fit(CORPUS)


def test_pruning_everything_is_an_error():
    vec = nbayes.TextVectorizer(mode="vocabulary", min_df=0.9).fit(CORPUS)
    with pytest.raises(ValueError, match="no terms remain"):
        vec.transform(CORPUS)
    vec.set_params(min_df=5, max_df=2)
    with pytest.raises(ValueError, match="max_df corresponds to < documents than min_df"):
        vec.transform(CORPUS)


def test_dataframe_and_series_columns():
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    expected = nbayes.TextVectorizer().transform(CORPUS)
    for texts in (pd.Series(CORPUS), pd.DataFrame({"body": CORPUS}), pl.Series(CORPUS),
                  np.array(CORPUS, dtype=object)):  # fmt: skip
        assert abs(nbayes.TextVectorizer().transform(texts) - expected).max() == 0
    with pytest.raises(ValueError, match="2 columns"):
        nbayes.TextVectorizer().transform(pd.DataFrame({"a": CORPUS, "b": CORPUS}))


@pytest.mark.parametrize("mode", ["hashing", "vocabulary"])
def test_threads_and_chunking_do_not_change_anything(mode):
    docs = [f"{CORPUS[i % len(CORPUS)]} token{i} shared{i % 7}" for i in range(400)]
    one = nbayes.TextVectorizer(mode=mode, n_features=2**10, n_threads=1).fit(docs)
    many = nbayes.TextVectorizer(mode=mode, n_features=2**10, n_threads=3, chunk_bytes=1024)
    many.fit(docs)
    table = "names_" if mode == "hashing" else "vocabulary_"
    assert getattr(many, table).tokens() == getattr(one, table).tokens()
    np.testing.assert_array_equal(many.document_frequency_, one.document_frequency_)
    assert abs(many.transform(docs) - one.transform(docs)).max() == 0


def test_a_growing_vocabulary_with_threads_is_deterministic():
    rng = np.random.default_rng(0)
    words = np.array([f"w{i}" for i in range(30_000)])
    docs = [" ".join(rng.choice(words, 60)) for _ in range(3_000)]  # many new words per chunk
    reference = nbayes.TextVectorizer(mode="vocabulary", n_threads=1, chunk_bytes=4096).fit(docs)
    for _ in range(3):
        again = nbayes.TextVectorizer(mode="vocabulary", n_threads=4, chunk_bytes=4096).fit(docs)
        assert again.vocabulary_.tokens() == reference.vocabulary_.tokens()
        np.testing.assert_array_equal(again.term_count_, reference.term_count_)


def test_the_text_family_reads_text_as_a_default_text_classifier():
    """The "text" family of table models builds its vectorizer from CLASSIFIER_DEFAULTS, not
    from TextClassifier (a lower layer may not import a model): the two must agree."""
    from nbayes.text import TextClassifier
    from nbayes.text.vectorizer import CLASSIFIER_DEFAULTS, TextVectorizer

    assert (
        TextVectorizer(**CLASSIFIER_DEFAULTS).get_params()
        == TextClassifier()._make_vectorizer().get_params()
    )
