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
