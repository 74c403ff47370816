"""Semi-naive estimators on Dask (a LocalCluster with two worker processes): every pass a map
and a tree reduction, the result equal to one fit on the computed rows."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import assert_same_statistics

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")
import cloudpickle  # noqa: E402  (installed with distributed)

from nbayes.semi_naive import (  # noqa: E402
    AODE,
    KDB,
    TAN,
    AnDE,
    SelectiveKDB,
    SelectiveKDBEnsemble,
)

cloudpickle.register_pickle_by_value(sys.modules[__name__])

SRC = str(Path(__file__).resolve().parents[1] / "src")


@pytest.fixture(scope="module")
def client():
    path = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (SRC, path) if p)
    try:
        with distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.CRITICAL,
        ) as cluster, distributed.Client(cluster) as c:
            yield c
    finally:
        os.environ["PYTHONPATH"] = path


def codes(n=3000, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, (n, d)).astype(float)
    X[:, 1] = (X[:, 0] + rng.integers(0, 2, n)) % 4
    X[n // 2 :, 2] += 2  # values that only the later partitions hold
    X[rng.random((n, d)) < 0.1] = np.nan
    y = np.where(rng.random(n) < 0.8, (X[:, 1] > 1).astype(int), rng.integers(0, 3, n))
    w = rng.uniform(0.5, 2.0, n)
    return X, y, w


@pytest.mark.parametrize(
    "factory",
    [AODE, lambda: AnDE(2), TAN, lambda: KDB(2), lambda: KDB(3), lambda: SelectiveKDB(2),
     lambda: SelectiveKDBEnsemble(3, k=2)],
    ids=["aode", "a2de", "tan", "kdb2", "kdb3", "skdb", "eskdb"],
)
def test_each_pass_on_dask_equals_one_fit(client, factory):
    X, y, w = codes()
    whole = factory().fit(X, y, sample_weight=w)
    chunks = (700, 800, 900, 600)
    lazy = factory().fit(
        da.from_array(X, chunks=(chunks, 5)),
        da.from_array(y, chunks=(chunks,)),
        sample_weight=da.from_array(w, chunks=(chunks,)),
    )
    assert_same_statistics(whole, lazy)
    if hasattr(whole, "k_"):
        np.testing.assert_allclose(lazy.leave_one_out_losses_, whole.leave_one_out_losses_)
        np.testing.assert_allclose(lazy.leave_one_out_squares_, whole.leave_one_out_squares_)
        assert (lazy.n_attributes_, lazy.k_) == (whole.n_attributes_, whole.k_)
    if hasattr(whole, "selections_"):  # an ensemble: every member's choice
        np.testing.assert_allclose(lazy.leave_one_out_losses_, whole.leave_one_out_losses_)
        assert lazy.selections_ == whole.selections_
    np.testing.assert_allclose(lazy.predict_proba(X), whole.predict_proba(X), rtol=1e-9)
    predicted = lazy.predict(da.from_array(X, chunks=(chunks, 5))).compute()
    np.testing.assert_array_equal(predicted, whole.predict(X))


def test_dask_dataframe_of_codes(client):
    X, y, _ = codes(seed=1)
    frame = pd.DataFrame(X, columns=[f"c{j}" for j in range(5)])
    whole = KDB(2).fit(frame, y)
    parts = dd.from_pandas(frame, npartitions=3)
    labels = dd.from_pandas(pd.Series(y), npartitions=3)
    lazy = KDB(2).fit(parts, labels)
    assert list(lazy.feature_names_in_) == list(frame.columns)
    assert_same_statistics(whole, lazy)


def weather_table(n=1200, seed=0):
    """A table as SemiNaiveBayes reads it: strings with a '?' marker, a numeric column cut into
    intervals, an identifier, labels with a few missing."""
    rng = np.random.default_rng(seed)
    outlook = rng.choice(["sunny", "rain", "overcast"], n).astype(object)
    windy = rng.choice(["yes", "no"], n)
    humidity = rng.normal(70, 12, n).round(1)
    play = np.where((outlook == "overcast") | ((humidity < 70) & (windy == "no")), "y", "n")
    play = np.where(rng.random(n) < 0.1, rng.choice(["y", "n", "m"], n), play).astype(object)
    outlook[rng.random(n) < 0.1] = "?"
    outlook[n // 2 :][rng.random(n - n // 2) < 0.2] = "fog"  # a value only later rows hold
    play[rng.random(n) < 0.02] = None
    return pd.DataFrame(
        {
            "id": [f"r{i:06d}" for i in range(n)],
            "outlook": outlook,
            "windy": windy,
            "humidity": humidity,
            "play": play,
        }
    )


@pytest.mark.parametrize("model", ["kdb2", "skdb", "eskdb", "aode", "tan"])
def test_semi_naive_table_on_dask_equals_one_fit(client, model):
    from nbayes.semi_naive import SemiNaiveBayes

    make = {
        "kdb2": lambda: SemiNaiveBayes(KDB(2), missing_values="?"),
        "skdb": lambda: SemiNaiveBayes("skdb", missing_values="?"),
        "eskdb": lambda: SemiNaiveBayes("eskdb", missing_values="?"),
        "aode": lambda: SemiNaiveBayes("aode", missing_values="?"),
        "tan": lambda: SemiNaiveBayes("tan", missing_values="?"),
    }[model]
    # (on Dask a string column's schema comes from the collection's types, not its values, so
    # the identifier is dropped here rather than left to the schema's detection)
    table = weather_table().drop(columns="id")
    with pytest.warns(UserWarning, match="missing target"):
        local = make().fit(table, target="play")
    with pytest.warns(UserWarning, match="missing target"):  # counted over the partitions
        fitted = make().fit(dd.from_pandas(table, npartitions=4), target="play")
    features = table.drop(columns="play")
    np.testing.assert_array_equal(fitted.cut_points_["humidity"], local.cut_points_["humidity"])
    assert fitted._encoder.vocabularies == local._encoder.vocabularies
    np.testing.assert_allclose(
        fitted.predict_proba(features), local.predict_proba(features), rtol=0, atol=1e-9
    )
    lazy = fitted.predict_proba(dd.from_pandas(features, npartitions=3)).compute()
    np.testing.assert_allclose(lazy.to_numpy(), local.predict_proba(features), atol=1e-9)


def test_semi_naive_table_with_a_text_column_on_dask_equals_one_fit(client):
    from nbayes.semi_naive import SemiNaiveBayes

    rng = np.random.default_rng(3)
    table = weather_table().drop(columns="id")
    words = np.array(["calm", "gusty", "bright", "grey", "mild", "cold", "wet", "dry"])
    table["note"] = [" ".join(rng.choice(words, 4)) for _ in range(len(table))]
    make = lambda: SemiNaiveBayes("kdb", missing_values="?", families={"note": "text"})  # noqa: E731
    with pytest.warns(UserWarning, match="missing target"):
        local = make().fit(table, target="play")
    with pytest.warns(UserWarning, match="missing target"):
        fitted = make().fit(dd.from_pandas(table, npartitions=4), target="play")
    assert fitted.text_columns_ == ["note"]
    features = table.drop(columns="play")
    np.testing.assert_allclose(
        fitted.predict_proba(features), local.predict_proba(features), rtol=0, atol=1e-9
    )


def test_a_dask_fit_logs_the_passes_a_local_fit_logs(client, caplog):
    """Each pass on Dask is logged as the same pass of a local fit is, marked 'on Dask', in
    the same order (the nbayes logger at INFO)."""
    from nbayes.semi_naive import SemiNaiveBayes

    table = weather_table(600).drop(columns="id").dropna(subset=["play"])

    def passes(data) -> list[str]:
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="nbayes"):
            SemiNaiveBayes("skdb", missing_values="?").fit(data, target="play")
        return [r.getMessage().rsplit(": ", 1)[0] for r in caplog.records if r.name == "nbayes"]

    local = passes(table)
    on_dask = passes(dd.from_pandas(table, npartitions=3))
    assert local[:4] == [
        "the table's pass (types, values, numeric sketches)",
        "SelectiveKDB's pass 1 of 3",
        "SelectiveKDB's pass 2 of 3",
        "SelectiveKDB's pass 3 of 3",
    ]
    assert len(local) > 4 and on_dask == [f"{name}, on Dask" for name in local]


def test_integers_held_as_floats_on_dask_are_counted_as_one_fit_of_polars_integers(client):
    """pandas holds a column of codes with missing values as floats; on Dask, as in one fit,
    the column is counted (its values are at most max_int_categories distinct integers over
    all the partitions), as Polars' integer column with nulls is."""
    import polars as pl

    from nbayes.semi_naive import SemiNaiveBayes

    rng = np.random.default_rng(3)
    n = 1500
    rating = rng.integers(0, 6, n).astype(float)
    rating[rng.random(n) < 0.1] = np.nan
    rating[n // 2 :][rating[n // 2 :] == 5] = 7  # a code only the later partitions hold
    size = rng.normal(size=n)
    label = np.where((np.nan_to_num(rating) % 2 == 0) ^ (size > 0.3), "p", "q")
    table = pd.DataFrame({"rating": rating, "size": size, "y": label})
    polars = pl.from_pandas(table).with_columns(pl.col("rating").cast(pl.Int64))
    local = SemiNaiveBayes().fit(polars, target="y")
    fitted = SemiNaiveBayes().fit(dd.from_pandas(table, npartitions=4), target="y")
    assert [s.family for s in fitted.schema_] == [s.family for s in local.schema_]
    assert [s.family for s in local.schema_] == ["categorical", "mdl"]
    features = polars.drop("y")
    np.testing.assert_allclose(
        fitted.predict_proba(features), local.predict_proba(features), rtol=0, atol=1e-9
    )
