"""Extreme values (issue 36): subnormal, huge and infinite numbers in kde and gaussian columns,
and a category value too long for a model file."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import nbayes
from nbayes import persist
from nbayes.encoding import MAX_CATEGORY_BYTES

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


# ---------------------------------------------------------------------- finding 4: long values
def long_value_model(value: str, column: str = "colour") -> nbayes.NaiveBayes:
    frame = pl.DataFrame({column: [value, "red", "blue", "red"], "y": [0, 1, 0, 1]})
    return nbayes.NaiveBayes().fit(frame, target="y")


@pytest.mark.parametrize(
    "value",
    ["x" * (MAX_CATEGORY_BYTES + 1), "\x01" * (MAX_CATEGORY_BYTES // 6 + 1)],
    ids=["long", "escaped"],
)
def test_a_category_value_too_long_for_a_model_file_is_refused_before_writing(
    tmp_path: Path, value: str
):
    """One 100 MB category value fitted, then saving failed with safetensors' traceback. Now it
    is refused in one line naming the column and the limit; nothing is written, and a file the
    save would have replaced is untouched. (The control characters of 'escaped' take 6 bytes
    each in the file's JSON.)"""
    model = long_value_model(value)
    old = nbayes.save(long_value_model("green"), tmp_path / "old.nbm")
    before = old.read_bytes()
    for path in (tmp_path / "new.nbm", old):
        with pytest.raises(ValueError) as info:
            nbayes.save(model, path)
        message = str(info.value)
        assert "\n" not in message and "'colour'" in message
        assert f"{MAX_CATEGORY_BYTES:,} bytes" in message
    assert not (tmp_path / "new.nbm").exists()
    assert old.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.nbm"]  # no temporary left


def test_a_semi_naive_table_model_refuses_a_long_category_value_too(tmp_path: Path):
    frame = pl.DataFrame({"c": ["x" * (MAX_CATEGORY_BYTES + 1), "a", "b", "a"], "y": [0, 1, 0, 1]})
    model = nbayes.SemiNaiveBayes().fit(frame, target="y")
    with pytest.raises(ValueError, match="column 'c' has a category value of 1,048,577 bytes"):
        nbayes.save(model, tmp_path / "m.nbm")
    assert not (tmp_path / "m.nbm").exists()


def test_a_category_value_at_the_limit_is_saved(tmp_path: Path):
    value = "y" * MAX_CATEGORY_BYTES
    loaded = nbayes.load(nbayes.save(long_value_model(value), tmp_path / "m.nbm"))
    assert loaded.predict(pl.DataFrame({"colour": [value]})).tolist() == [0]


def test_metadata_beyond_a_model_files_header_is_one_line(monkeypatch, tmp_path: Path):
    """Whatever makes the header too large (names, labels): one line, not safetensors' error."""
    from safetensors import SafetensorError

    def too_large(*args, **kwargs):
        raise SafetensorError("Error while serializing: header too large")

    monkeypatch.setattr(persist, "save_arrays", too_large)
    with pytest.raises(ValueError, match="cannot be saved: its metadata") as info:
        nbayes.save(long_value_model("green"), tmp_path / "m.nbm")
    assert "\n" not in str(info.value)
    assert not (tmp_path / "m.nbm").exists()
