"""Model files written by nbayes 0.1.0 (tests/model_files, format version 1) still load, and the
loaded models predict exactly as the same models fitted now."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import nbayes

sys.path.insert(0, str(Path(__file__).parent / "model_files"))
import cases

CASES = cases.cases()


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_file_of_the_first_release_loads_and_predicts_as_a_fresh_fit(name):
    model, fit, X = CASES[name]
    loaded = nbayes.load(cases.HERE / f"{name}.nbm")
    assert type(loaded) is type(model)
    # the parameters the file was written with (a later release may have other defaults)
    model = type(model)(**loaded.get_params())
    fit(model)
    np.testing.assert_array_equal(loaded.classes_, model.classes_)
    np.testing.assert_allclose(loaded.predict_proba(X), model.predict_proba(X), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


FIRST_RELEASE = {
    "CategoricalNB", "GaussianNB", "MultinomialNB", "ComplementNB", "BernoulliNB", "PoissonNB",
    "NaiveBayes", "TextClassifier",
}


def test_every_model_class_of_the_first_release_has_a_file():
    kinds = {type(model).__name__ for model, _, _ in CASES.values()}
    assert kinds == FIRST_RELEASE
    assert FIRST_RELEASE <= {cls.__name__ for cls in nbayes.MODELS}


def test_a_table_model_of_the_first_release_keeps_its_missing_value_markers():
    loaded = nbayes.load(cases.HERE / "table.nbm")
    assert loaded.missing_markers_ == ["?"]
    row = {"colour": ["?"], "size": [1], "height": [170.0], "income": [2e4], "score": [0.0],
           "visits": [2]}
    without = dict(row, colour=[None])
    np.testing.assert_allclose(loaded.predict_proba(row), loaded.predict_proba(without))
