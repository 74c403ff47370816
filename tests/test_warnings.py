"""Warnings point at the caller's line (their stacklevel), whichever public method led to them."""

from __future__ import annotations

import warnings

import polars as pl
import pytest

import nbayes


def caught(call) -> list[warnings.WarningMessage]:
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        call()
    assert records, "expected a warning"
    return records


def model() -> nbayes.NaiveBayes:
    return nbayes.NaiveBayes().fit(pl.DataFrame({"c": ["a", "b"] * 5, "y": ["p", "q"] * 5}), "y")


@pytest.mark.parametrize(
    "call",
    [
        lambda: model().predict(pl.DataFrame({"c": ["z"]})),
        lambda: model().predict_proba(pl.DataFrame({"c": ["z"]})),
        lambda: model().predict_log_proba(pl.DataFrame({"c": ["z"]})),
        lambda: nbayes.NaiveBayes().fit(
            pl.DataFrame({"c": ["a", "b", "a"], "y": ["p", "q", None]}), "y"
        ),
        lambda: nbayes.TextClassifier().fit([b"caf\xe9 ok", b"fine"], ["a", "b"]),
        lambda: nbayes.TextClassifier().fit(["ok", "fine"], ["a", "b"]).predict([b"caf\xe9"]),
        lambda: nbayes.TextClassifier().fit(["ok", "fine"], ["a", "b"]).predict_proba([b"\xff"]),
    ],
    ids=[
        "predict",
        "predict_proba",
        "predict_log_proba",
        "fit",
        "text fit",
        "text predict",
        "text predict_proba",
    ],
)
def test_warnings_name_the_callers_line(call):
    for record in caught(call):
        assert record.filename == __file__, (record.filename, record.lineno, record.message)
