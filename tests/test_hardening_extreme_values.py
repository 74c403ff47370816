"""Extreme values (issue 36): subnormal, huge and infinite numbers in kde and gaussian
columns."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import nbayes

Y = ["a", "b"] * 10
RNG = np.random.default_rng(36)


# ---------------------------------------------------------------------- finding 3: kde columns
@pytest.mark.parametrize(
    "values",
    [
        [5e-324] * 20,  # every value the smallest subnormal
        [0.0] * 10 + [5e-324] * 10,  # a subnormal spread around 0
        list(-RNG.random(20) * 1e-315),  # negative subnormals
        [5e-324, 1e-310] * 10,
        list(RNG.random(20) * 1e-310),
    ],
    ids=["5e-324", "0-and-5e-324", "negative", "two-subnormals", "subnormal-spread"],
)
@pytest.mark.parametrize("family", ["kde", "gaussian"])
def test_subnormal_values_fit_and_predict(values: list[float], family: str, tmp_path: Path):
    """A kde column of subnormals raised 'ValueError: math domain error' (its bandwidth, 10⁻⁹
    of a subnormal scale, was 0), naming no column."""
    frame = pl.DataFrame({"x": values, "y": Y})
    model = nbayes.NaiveBayes(families={"x": family}).fit(frame, target="y")
    rows = pl.DataFrame({"x": [*values[:4], 0.0, 5e-324, -1e-310, 1.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        log_proba = model.predict_log_proba(rows)
        loaded = nbayes.load(nbayes.save(model, tmp_path / "m.nbm"))
        np.testing.assert_array_equal(loaded.predict_log_proba(rows), log_proba)
    assert np.all(np.isfinite(log_proba))
    np.testing.assert_allclose(np.exp(log_proba).sum(axis=1), 1.0)
    if family == "kde":
        bandwidth = model._stats.groups[0].densities(model._settings())[0].bandwidth
        assert np.all(bandwidth >= np.finfo(np.float64).tiny)
    assert "x" in model.summary()


def test_a_subnormal_kde_column_still_tells_its_classes_apart():
    values = [0.0] * 10 + [5e-324] * 10
    model = nbayes.NaiveBayes(families={"x": "kde"}).fit(
        pl.DataFrame({"x": values, "y": ["a"] * 10 + ["b"] * 10}), target="y"
    )
    assert model.predict(pl.DataFrame({"x": [0.0, 5e-324]})).tolist() == ["a", "b"]


@pytest.mark.parametrize("family", ["kde", "gaussian"])
@pytest.mark.parametrize(
    ("value", "match"),
    [(1e308, "feature 0 \\('x'\\) has 1e\\+308"), (float("inf"), "column 'x' has the value inf")],
)
def test_huge_and_infinite_values_are_refused_naming_the_column(family, value, match):
    frame = pl.DataFrame({"x": [*RNG.normal(size=19), value], "y": Y})
    with pytest.raises(ValueError, match=match):
        nbayes.NaiveBayes(families={"x": family}).fit(frame, target="y")


@pytest.mark.parametrize("family", ["kde", "gaussian"])
def test_values_near_the_largest_accepted_fit_and_predict(family):
    values = list(RNG.normal(size=20) * 1e149)
    model = nbayes.NaiveBayes(families={"x": family}).fit(
        pl.DataFrame({"x": values, "y": Y}), target="y"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        proba = model.predict_proba(pl.DataFrame({"x": [*values[:3], 0.0, 1e150, -1e150]}))
    assert not np.isnan(proba).any()
