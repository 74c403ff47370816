"""The tokenizer against independent computations: scikit-learn's analyzer and HashingVectorizer,
Python's ``re`` and ``str.lower()``, ``bytes.decode(errors="replace")``, and MurmurHash3."""

from __future__ import annotations

import re
import tracemalloc
import warnings
from collections import Counter

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import CountVectorizer, HashingVectorizer
from sklearn.utils import murmurhash3_32

import nbayes
from nbayes.text import _hashing, _unicode
from nbayes.text.tokenizer import Hashing, Tokenizer

TRICKY = [
    "Hello World, hello again!",
    "",
    "   \t\n  ",
    "ΟΔΟΣ ΣΑΣ Α'Σ ΑΣ1 σΣ ΣΣ ὈΔΥΣΣΕΎΣ",  # Greek capital sigma: final or not (str.lower's rule)
    "İstanbul İ İİ xİy",  # U+0130 lowers to "i" + a combining dot, which splits the token
    "Straße STRASSE ﬁne Ǆemal ǅ ǆ ΐ",  # ligatures, titlecase digraphs
    "naïve café résumé façade 東京都 Москва 123 4 x_y __ a_",  # letters, CJK, digits, "_"
    "emoji 😀 joins no word; tab\tnew\nline\r\nend",
    "e\u0301 combining marks are not \\w in Python: e\u0301t\u0301e\u0301",
    "١٢٣ arabic-indic digits, ² superscripts, ½ fractions ⅷ",
]


def analyzer_counts(text: str, **params) -> Counter:
    return Counter(CountVectorizer(**params).build_analyzer()(text))


def test_murmurhash_equals_scikit_learn():
    rng = np.random.default_rng(0)
    for length in range(0, 40):
        for _ in range(5):
            raw = rng.integers(0, 256, length, dtype=np.uint8).tobytes()
            buf = np.frombuffer(raw, dtype=np.uint8)
            ours = _hashing.murmur3_32(buf, 0, length, 0)
            assert ours == murmurhash3_32(raw, seed=0, positive=False)


def test_hash_index_matches_sklearn_for_int32_min():
    # abs(-2**31) % n, scikit-learn's special case
    for n in (2**20, 1000, 7):
        assert _hashing.hash_index(-(2**31), n) == (2**31) % n


def test_word_table_is_pythons_re_word_class():
    props, lower = _unicode.tables()
    word = re.compile(r"\w")
    rng = np.random.default_rng(1)
    sample = np.concatenate([np.arange(0, 0x3000), rng.integers(0, 0x110000, 50_000)])
    for c in sample:
        ch = chr(int(c))
        assert bool(props[c] & _unicode.WORD) == bool(word.fullmatch(ch)), hex(c)
        if 0xD800 <= c < 0xE000:
            continue
        assert lower[c] == ord(ch.lower()[0]) or c == _unicode.CAPITAL_SIGMA, hex(c)


@pytest.mark.parametrize("text", TRICKY)
@pytest.mark.parametrize("ngram_range", [(1, 1), (1, 2), (2, 3)])
def test_tokens_equal_scikit_learn_analyzer(text, ngram_range):
    ours = Tokenizer(ngram_range=ngram_range).analyze(text)
    assert Counter(ours) == analyzer_counts(text, ngram_range=ngram_range)


@pytest.mark.parametrize("text", TRICKY)
def test_tokens_without_lowercasing_and_with_stop_words(text):
    assert Counter(Tokenizer(lowercase=False).analyze(text)) == analyzer_counts(
        text, lowercase=False
    )
    ours = Tokenizer(stop_words="english", ngram_range=(1, 2)).analyze(text + " the and of it")
    theirs = analyzer_counts(text + " the and of it", stop_words="english", ngram_range=(1, 2))
    assert Counter(ours) == theirs


def test_min_token_length_one_equals_the_single_character_pattern():
    for text in TRICKY:
        ours = Tokenizer(min_token_length=1, ngram_range=(1, 2)).analyze(text)
        assert Counter(ours) == analyzer_counts(
            text, token_pattern=r"(?u)\b\w+\b", ngram_range=(1, 2)
        )


unicode_text = st.text(
    alphabet=st.characters(codec="utf-8", categories=["L", "M", "N", "P", "Z", "S", "Cc"]),
    max_size=60,
) | st.text(alphabet="ΑΣσςΟΔ İiIı'’ .\u0301\u0345ΐ", max_size=20)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=unicode_text, ngram_max=st.integers(1, 3), lowercase=st.booleans())
def test_tokens_equal_scikit_learn_on_any_text(text, ngram_max, lowercase):
    ours = Tokenizer(ngram_range=(1, ngram_max), lowercase=lowercase).analyze(text)
    assert Counter(ours) == analyzer_counts(text, ngram_range=(1, ngram_max), lowercase=lowercase)


@pytest.mark.parametrize("n_features", [2**20, 1000, 2**18])
@pytest.mark.parametrize("ngram_range", [(1, 1), (1, 2)])
def test_hashing_columns_equal_hashingvectorizer(n_features, ngram_range):
    ours = nbayes.TextVectorizer(n_features=n_features, ngram_range=ngram_range).transform(TRICKY)
    theirs = HashingVectorizer(
        n_features=n_features, ngram_range=ngram_range, alternate_sign=False, norm=None
    ).transform(TRICKY)
    assert ours.shape == theirs.shape
    assert abs(ours - theirs).max() == 0


def replaced(raw: bytes) -> int:
    """U+FFFD that decoding with replacement introduces."""
    return raw.decode("utf-8", "replace").count("\ufffd") - raw.decode("utf-8", "ignore").count(
        "\ufffd"
    )


@settings(max_examples=300, deadline=None)
@given(raw=st.binary(max_size=40) | st.lists(
    st.sampled_from([b"ab", b" ", b"\xff", b"\xe2\x82", b"\xe2\x82\xac", b"\xed\xa0\x80",
                     b"\xf0\x9f\x98", b"\xc3\xa9", b"\xc0\xaf", b"\xf4\x90\x80\x80", b"Z"]),
    max_size=12).map(b"".join))  # fmt: skip
def test_invalid_utf8_is_replaced_exactly_as_python_does(raw):
    tokenizer = Tokenizer(ngram_range=(1, 2))
    counted = next(tokenizer.count([raw], Hashing(2**20)))
    text = raw.decode("utf-8", "replace")
    assert counted.n_invalid == replaced(raw)
    expected = HashingVectorizer(alternate_sign=False, norm=None, ngram_range=(1, 2)).transform(
        [text]
    )
    assert abs(counted.X - expected).max() == 0 if expected.nnz or counted.X.nnz else True


def test_invalid_bytes_warn_and_never_raise():
    docs = [b"caf\xe9 au lait", b"\xff\xfe\x00bad", "fine"]
    with pytest.warns(UnicodeWarning, match="not valid UTF-8"):
        X = nbayes.TextVectorizer().transform(docs)
    assert X.shape == (3, 2**20)
    tokens = Tokenizer().analyze(b"caf\xe9 au lait")
    assert tokens == {"caf": 1, "au": 1, "lait": 1}  # U+FFFD separates tokens


def test_lone_surrogates_in_str_are_invalid_not_a_crash():
    text = "abc\udcff def"  # as from os.fsdecode / errors="surrogateescape"
    counted = next(Tokenizer().count([text], Hashing(2**20)))
    assert counted.n_invalid > 0
    assert Tokenizer().analyze(text) == {"abc": 1, "def": 1}


def test_missing_documents_are_empty_rows():
    pd = pytest.importorskip("pandas")
    docs = ["one two", None, float("nan"), pd.NA, "two"]
    counted = next(Tokenizer().count(docs, Hashing(2**10)))
    assert counted.n_missing == 3
    assert np.diff(counted.X.indptr).tolist() == [2, 0, 0, 0, 1]


def test_non_text_documents_raise_naming_the_row():
    with pytest.raises(TypeError, match="document 1 is a int"):
        list(Tokenizer().count(["ok", 3], Hashing(2**10)))


@settings(max_examples=60, deadline=None)
@given(
    words=st.lists(
        st.sampled_from(["ab", "Cd", "ΣΑΣ", "x", "éé", "a_b", "ok.", "σ"]), max_size=300
    ),
    seps=st.lists(st.sampled_from([" ", "  ", "\n", ", ", "\t"]), min_size=1, max_size=5),
    ngram_max=st.integers(1, 3),
    as_bytes=st.booleans(),
)
def test_long_documents_cut_into_pieces_count_the_same(words, seps, ngram_max, as_bytes):
    text = "".join(w + seps[i % len(seps)] for i, w in enumerate(words))
    doc = text.encode() if as_bytes else text
    whole = Tokenizer(ngram_range=(1, ngram_max), chunk_bytes=1 << 24)
    small = Tokenizer(ngram_range=(1, ngram_max), chunk_bytes=1024)  # pieces of 256 chars
    a = next(whole.count([doc], Hashing(2**16))).X
    pieces = list(small.count(["before", doc, "after"], Hashing(2**16)))
    b = sp.vstack([c.X for c in pieces]).tocsr()[1:2]
    assert abs(a - b).max() == 0 if a.nnz else b.nnz == 0


def test_a_document_of_tens_of_megabytes_is_tokenised_in_bounded_pieces(monkeypatch):
    big = ("lorem ipsum dolor sit amet, consectetur adipiscing elit " * 550_000)[:30_000_000]
    assert len(big) == 30_000_000
    tokenizer = Tokenizer(ngram_range=(1, 2), chunk_bytes=1 << 20)
    seen = []
    original = Tokenizer._run

    def spy(self, data, *args, **kwargs):
        seen.append(data.shape[0])
        return original(self, data, *args, **kwargs)

    monkeypatch.setattr(Tokenizer, "_run", spy)
    list(tokenizer.count(["warm up"], Hashing(2**20)))  # tables, imports, compiled code: once
    tracemalloc.start()
    try:
        (counted,) = list(tokenizer.count([big], Hashing(2**20)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert max(seen) <= 1 << 20  # no piece larger than the chunk
    assert peak < 8 * 2**20  # a few pieces (measured: under 2 MB), never the 30 MB document
    assert counted.X.shape[0] == 1
    # the period of 8 words repeated, then a partial copy: count its tokens with Python's re
    period = "lorem ipsum dolor sit amet, consectetur adipiscing elit "
    repetitions, tail = divmod(len(big), len(period))
    n_tokens = 8 * repetitions + len(re.findall(r"\w\w+", period[:tail]))
    assert counted.X.sum() == 2 * n_tokens - 1  # unigrams and bigrams


def test_empty_input_gives_no_rows():
    X = nbayes.TextVectorizer().transform([])
    assert X.shape == (0, 2**20)
    with pytest.raises(TypeError, match="single str"):
        nbayes.TextVectorizer().transform("a single document")


def test_unicode_warning_is_the_only_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nbayes.TextVectorizer(ngram_range=(1, 3), stop_words="english").transform(TRICKY)


def test_batches_of_str_bytes_and_nul_characters():
    docs = ["xx yy", "ab\x00cd", "zz é", b"bytes too", None, "last one"]
    theirs = HashingVectorizer(alternate_sign=False, norm=None).transform(
        [d.decode() if isinstance(d, bytes) else (d or "") for d in docs]
    )
    for chunk_bytes in (1024, 1 << 20):
        ours = nbayes.TextVectorizer(chunk_bytes=chunk_bytes).transform(docs)
        assert abs(ours - theirs).max() == 0
    strings = [d for d in docs if isinstance(d, str)]
    ours = nbayes.TextVectorizer().transform(strings)  # str only: joined at NUL, then fallback
    assert (
        abs(ours - HashingVectorizer(alternate_sign=False, norm=None).transform(strings)).max() == 0
    )
