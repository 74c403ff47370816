"""nbayes.influence: each feature's mean absolute term in the log-odds, recomputed here from
model.explain() row by row."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import nbayes
from nbayes.influence import influence


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(2)
    n = 60
    y = rng.choice(np.array(["a", "b", "c"]), n)
    frame = pd.DataFrame(
        {
            "colour": np.where(y == "a", "red", rng.choice(["red", "blue", "green"], n)),
            "size": rng.normal(0, 1, n) + 2 * (y == "b"),
            "noise": rng.normal(0, 1, n),
        }
    )
    frame.loc[4, "colour"] = None  # a missing value contributes nothing
    model = nbayes.NaiveBayes().fit(frame, y)
    return model, frame


def test_influence_is_the_mean_absolute_term_of_explain(fitted):
    model, frame = fitted
    found = influence(model, frame, max_rows=None)
    terms = {name: [] for name in frame.columns}
    largest = dict.fromkeys(frame.columns, 0)
    for i in range(len(frame)):
        explanation = model.explain(frame.iloc[[i]])
        row = dict.fromkeys(frame.columns, 0.0)
        for term, value in explanation.contributions:
            if term != "prior":
                row[term.split("=")[0]] = value
        for name, value in row.items():
            terms[name].append(value)
        largest[max(row, key=lambda k: abs(row[k]))] += 1
    by_feature = {r["feature"]: r for r in found.iter_rows(named=True)}
    for name, values in terms.items():
        values = np.array(values)
        assert by_feature[name]["influence"] == pytest.approx(np.abs(values).mean(), rel=1e-9)
        assert by_feature[name]["toward_decision"] == pytest.approx((values > 0).mean())
        assert by_feature[name]["largest"] == pytest.approx(largest[name] / len(frame))
    assert found["feature"].to_list()[0] in ("colour", "size")  # noise decides least
    assert found["feature"].to_list()[-1] == "noise"
    assert found["influence"].is_sorted(descending=True)


def test_influence_samples_rows(fitted):
    model, frame = fitted
    sampled = influence(model, frame, max_rows=20, seed=1)
    assert sampled.height == 3
    assert not sampled.equals(influence(model, frame, max_rows=None))


def test_a_left_out_identifier_column_has_no_influence_and_breaks_nothing():
    rng = np.random.default_rng(8)
    n = 300
    y = rng.choice(np.array(["a", "b"]), n)
    frame = pd.DataFrame({"id": [f"u{i}" for i in range(n)], "g": rng.normal(size=n) + (y == "a")})
    with pytest.warns(UserWarning, match="id"):
        model = nbayes.NaiveBayes().fit(frame, y)
    assert model.families_["id"] == "ignore"
    found = influence(model, frame).to_pandas().set_index("feature")
    assert found.loc["id", "influence"] == 0.0
    assert found.loc["g", "influence"] > 0.0


def test_terms_add_up_to_the_joint_when_missing_values_are_a_category():
    # each column's term must not carry the other columns' log P(missing | c)
    rng = np.random.default_rng(9)
    n = 300
    y = rng.choice(np.array(["a", "b"]), n)
    other = rng.choice(["x", "y", "z"], n).astype(object)
    other[(y == "a") & (rng.random(n) < 0.5)] = None
    kind = np.where(y == "a", rng.choice(["p", "q"], n), rng.choice(["q", "r"], n))
    # "kind" and "o" are counted in one group: "kind"'s term must not carry "o"'s missing term
    frame = pd.DataFrame({"g": rng.normal(size=n) + (y == "a"), "o": other, "kind": kind})
    model = nbayes.NaiveBayes(missing="category").fit(frame, y)
    from nbayes.influence import feature_log_likelihoods

    _, terms = feature_log_likelihoods(model, frame)
    joint = model._class_log_prior() + terms.sum(axis=0)
    np.testing.assert_allclose(joint, model.predict_joint_log_proba(frame), rtol=1e-10)
    for i in (0, 1, 2):  # and each term is explain()'s
        explanation = model.explain(frame.iloc[[i]])
        np.testing.assert_allclose(terms[:, i, :], explanation.log_likelihood, rtol=1e-10)
