"""scikit-learn's CalibratedClassifierCV works with every nbayes model (nbayes.MODELS), and
gives the probabilities it gives the equivalent scikit-learn estimator."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn import naive_bayes as sk
from sklearn.calibration import CalibratedClassifierCV
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline

import nbayes

RNG = np.random.default_rng(11)
N = 240
Y = RNG.choice(np.array(["a", "b", "c"]), N)
SHIFT = (Y == "b") * 1.0 + (Y == "c") * 2.0


def counts() -> np.ndarray:
    return RNG.poisson(1.0 + SHIFT[:, None] * np.array([0.5, 0.0, 1.0, 0.2]), (N, 4))


DATA = {
    "GaussianNB": RNG.normal(SHIFT[:, None], 1.5, (N, 3)),
    "MultinomialNB": counts(),
    "ComplementNB": counts(),
    "PoissonNB": counts(),
    "BernoulliNB": (RNG.random((N, 5)) < 0.3 + 0.2 * SHIFT[:, None] / 2).astype(float),
    "CategoricalNB": np.minimum(RNG.poisson(1 + SHIFT[:, None], (N, 3)), 4),
}
PEERS = {
    "GaussianNB": sk.GaussianNB,
    "MultinomialNB": sk.MultinomialNB,
    "ComplementNB": sk.ComplementNB,
    "BernoulliNB": sk.BernoulliNB,
    "CategoricalNB": sk.CategoricalNB,
}
FOLDS = StratifiedKFold(3, shuffle=True, random_state=0)


def calibrated(estimator, X, y, method="sigmoid"):
    model = CalibratedClassifierCV(estimator, method=method, cv=FOLDS).fit(X, y)
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-9)
    assert np.all((proba >= 0) & (proba <= 1))
    return model, proba


SEMI_NAIVE = [
    "AODE", "WAODE", "AODEsr", "AnDE", "HNB", "TAN", "KDB", "SelectiveKDB", "SelectiveKDBEnsemble"
]  # fmt: skip


def test_every_model_is_covered():
    covered = {*DATA, "NaiveBayes", "TextClassifier", *SEMI_NAIVE, "SemiNaiveBayes"}
    assert {m.__name__ for m in nbayes.MODELS} == covered


@pytest.mark.parametrize("name", sorted(DATA))
@pytest.mark.parametrize("method", ["sigmoid", "isotonic"])
def test_family_estimators_calibrate_as_sklearns_do(name, method):
    X = DATA[name]
    ours, proba = calibrated(getattr(nbayes, name)(), X, Y, method)
    assert list(ours.classes_) == ["a", "b", "c"]
    if name in PEERS:
        _, expected = calibrated(PEERS[name](), X, Y, method)
        np.testing.assert_allclose(proba, expected, rtol=1e-6, atol=1e-9)
    else:  # scikit-learn has no PoissonNB: calibrated probabilities still improve log loss
        from sklearn.metrics import log_loss

        raw = getattr(nbayes, name)().fit(X, Y).predict_proba(X)
        assert log_loss(Y, proba) <= log_loss(Y, raw) + 0.05


def test_table_model_calibrates_as_categorical_nb():
    codes = DATA["CategoricalNB"]
    frame = pd.DataFrame({f"f{j}": [f"v{c}" for c in codes[:, j]] for j in range(3)})
    _, proba = calibrated(nbayes.NaiveBayes(calibration=None), frame, Y)
    # the textbook table model on string categories is CategoricalNB on their codes (v0 < v1 < …)
    _, expected = calibrated(sk.CategoricalNB(), codes, Y)
    np.testing.assert_allclose(proba, expected, rtol=1e-6, atol=1e-9)


def test_text_classifier_calibrates_as_a_count_pipeline():
    words = np.array(["prize", "free", "lunch", "noon", "meeting", "win", "today", "call"])
    texts = np.array([" ".join(RNG.choice(words[int(2 * s) : int(2 * s) + 4], 5)) for s in SHIFT])
    text_model = nbayes.TextClassifier(
        model="multinomial",
        tf=False,
        norm=False,
        ngram_range=(1, 1),
        min_token_length=2,
        alpha=1.0,
        mode="vocabulary",
    )
    _, proba = calibrated(text_model, texts, Y)
    pipeline = make_pipeline(CountVectorizer(), sk.MultinomialNB(alpha=1.0))
    _, expected = calibrated(pipeline, texts, Y)
    np.testing.assert_allclose(proba, expected, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("name", SEMI_NAIVE)
def test_semi_naive_estimators_calibrate(name):
    codes = DATA["CategoricalNB"]
    model, proba = calibrated(getattr(nbayes, name)(), codes, Y)
    # valid probabilities (checked in calibrated) that still carry the signal: well above chance
    assert np.mean(model.classes_[proba.argmax(axis=1)] == Y) > 0.45


def test_semi_naive_table_model_calibrates_as_its_estimator():
    codes = DATA["CategoricalNB"]
    frame = pd.DataFrame({f"f{j}": [f"v{c}" for c in codes[:, j]] for j in range(3)})
    _, proba = calibrated(nbayes.SemiNaiveBayes(), frame, Y)
    assert proba.shape == (N, 3)
