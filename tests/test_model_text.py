"""A text column inside NaiveBayes: families={"body": "text-multinomial"} is the multinomial bag
of words on counts, checked against scikit-learn's HashingVectorizer + MultinomialNB; the default
text family ("text") is TextClassifier's default model, checked against TextClassifier."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from conftest import assert_same_statistics
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.naive_bayes import GaussianNB as SkGaussianNB
from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB

import nbayes

SPAM = ["win a free prize now", "call now to claim your prize", "free entry, claim today",
        "urgent: your prize awaits", "cheap meds free shipping"]  # fmt: skip
HAM = ["lunch at noon?", "see you at lunch", "meeting moved to 3pm", "are we still on tonight",
       "thanks for the notes"]  # fmt: skip


def table(seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    n = 60
    label = rng.choice(["spam", "ham"], n)
    body = [rng.choice(SPAM if lab == "spam" else HAM) for lab in label]
    return pl.DataFrame(
        {
            "body": body,
            "length": rng.normal(20, 4, n) + 8 * (label == "spam"),
            "label": label.tolist(),
        }
    )


def sklearn_text(frame: pl.DataFrame, query: list[str], alpha: float = 1.0) -> np.ndarray:
    vectorizer = HashingVectorizer(n_features=2**20, alternate_sign=False, norm=None)
    model = SkMultinomialNB(alpha=alpha).fit(
        vectorizer.transform(frame.get_column("body").to_list()),
        frame.get_column("label").to_numpy(),
    )
    return model.predict_joint_log_proba(vectorizer.transform(query))


@pytest.mark.parametrize("alpha", [1.0, 0.1])
def test_text_column_is_scikit_learns_hashed_multinomial(alpha):
    frame = table()
    query = ["claim your free prize", "lunch tonight?", "nothing known here", ""]
    model = nbayes.NaiveBayes(
        calibration=None, families={"body": "text-multinomial"}, alpha=alpha
    ).fit(frame.drop("length"), target="label")
    ours = model.predict_joint_log_proba(pl.DataFrame({"body": query}))
    np.testing.assert_allclose(ours, sklearn_text(frame, query, alpha), rtol=1e-10)


def test_text_with_a_numeric_column_adds_the_gaussian_log_density():
    frame = table(1)
    query = pl.DataFrame({"body": ["free prize", "see you at lunch"], "length": [25.0, 18.0]})
    model = nbayes.NaiveBayes(calibration=None, families={"body": "text-multinomial"}).fit(
        frame, target="label"
    )
    gaussian = SkGaussianNB().fit(
        frame.select("length").to_numpy(), frame.get_column("label").to_numpy()
    )
    expected = (
        sklearn_text(frame, query.get_column("body").to_list())
        + gaussian.predict_joint_log_proba(query.select("length").to_numpy())
        - np.log(gaussian.class_prior_)
    )
    np.testing.assert_allclose(model.predict_joint_log_proba(query), expected, rtol=1e-9)


def test_missing_text_contributes_nothing():
    frame = table(2)
    model = nbayes.NaiveBayes(calibration=None, families={"body": "text-multinomial"}).fit(
        frame, target="label"
    )
    without = nbayes.NaiveBayes(calibration=None).fit(frame.drop("body"), target="label")
    rows = pl.DataFrame(
        {"body": [None, None], "length": [15.0, 30.0]},
        schema={"body": pl.String, "length": pl.Float64},
    )
    np.testing.assert_allclose(
        model.predict_joint_log_proba(rows),
        without.predict_joint_log_proba(rows.drop("body")),
        rtol=1e-12,
    )


def test_text_merges_and_streams_exactly():
    frame = table(3)
    whole = nbayes.NaiveBayes(families={"body": "text-multinomial"}).fit(frame, target="label")
    families = {"body": "text-multinomial"}
    parts = [nbayes.NaiveBayes(families=families).fit(frame[a:b], target="label")
             for a, b in ((0, 20), (20, 45), (45, 60))]  # fmt: skip
    assert_same_statistics(whole, nbayes.merge(*parts))
    # in another order the counts are the same; only which n-gram names a shared hash column
    # (display only) may differ
    reverse = nbayes.merge(*parts[::-1])
    np.testing.assert_allclose(
        reverse._stats.groups[0].stats.counts, whole._stats.groups[0].stats.counts
    )
    streamed = nbayes.NaiveBayes(families={"body": "text-multinomial"})
    for a in range(0, 60, 7):
        streamed.partial_fit(frame[a : a + 7], target="label")
    assert_same_statistics(whole, streamed)


def test_text_explains_and_prints_indicative_words(tmp_path):
    frame = table(4)
    model = nbayes.NaiveBayes(families={"body": "text-multinomial"}).fit(frame, target="label")
    explanation = model.explain({"body": "claim your free prize", "length": 25.0})
    assert explanation.values[0] == "<4 words>"
    np.testing.assert_allclose(
        explanation.log_likelihood[0],
        sklearn_text(frame, ["claim your free prize"])[0]
        - np.log(model.class_count_ / model.class_count_.sum()),
        rtol=1e-10,
    )
    summary = model.summary()
    assert "words most indicative of spam" in summary and "prize" in summary
    loaded = nbayes.load(nbayes.save(model, tmp_path / "text.nbm"))
    query = frame.drop("label")
    np.testing.assert_array_equal(loaded.predict_proba(query), model.predict_proba(query))


def test_text_family_needs_strings():
    frame = table(5).with_columns(pl.col("length").alias("body2"))
    with pytest.raises(ValueError, match="family 'text' needs strings, but column 'body2'"):
        nbayes.NaiveBayes(families={"body2": "text"}).fit(frame, target="label")


# ---------------------------------------------------------------------- the default text family
@pytest.mark.parametrize("alpha", [None, 0.5])
def test_text_family_is_text_classifiers_default_model_plus_the_prior(alpha):
    """ "text": TextClassifier's features (binary 1-2-grams, unit length) and complement weights,
    with λ = 0.03 unless alpha names the column; the table adds log P(c) (Rennie et al.'s eq. 6)."""
    frame = table(6)
    query = ["claim your free prize", "lunch tonight?", "nothing known here", ""]
    params = {} if alpha is None else {"alpha": {"body": alpha}}
    model = nbayes.NaiveBayes(calibration=None, families={"body": "text"}, **params).fit(
        frame.drop("length"), target="label"
    )
    reference = nbayes.TextClassifier(alpha=0.03 if alpha is None else alpha).fit(
        frame.get_column("body").to_list(), frame.get_column("label").to_numpy()
    )
    expected = reference.predict_joint_log_proba(query) + model.class_log_prior_
    ours = model.predict_joint_log_proba(pl.DataFrame({"body": query}))
    np.testing.assert_allclose(ours, expected, rtol=1e-10)


def test_text_family_merges_streams_and_saves(tmp_path):
    frame = table(7)
    whole = nbayes.NaiveBayes(families={"body": "text"}).fit(frame, target="label")
    parts = [nbayes.NaiveBayes(families={"body": "text"}).fit(frame[a:b], target="label")
             for a, b in ((0, 25), (25, 60))]  # fmt: skip
    assert_same_statistics(whole, nbayes.merge(*parts))
    loaded = nbayes.load(nbayes.save(whole, tmp_path / "text.nbm"))
    query = frame.drop("label")
    np.testing.assert_array_equal(loaded.predict_proba(query), whole.predict_proba(query))
    assert "complement" in whole.summary() and "<" in str(whole.explain(query.row(0, named=True)))
