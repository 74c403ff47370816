"""NaiveBayes on the table types users hold, targets given three ways, columns found by name,
family inference (the table in ``nbayes.schema``) and overrides, and equivalence with
scikit-learn's CategoricalNB and GaussianNB on the columns of each family.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from sklearn.naive_bayes import CategoricalNB, GaussianNB

import nbayes

N = 120


def mixed_data(seed: int = 0, n: int = N) -> tuple[dict, np.ndarray]:
    """Python columns of every kind, with missing values, and string labels."""
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue"], n).astype(object)
    colour[rng.random(n) < 0.1] = None
    height = rng.normal(170, 10, n)
    height[rng.random(n) < 0.1] = np.nan
    rating = [int(v) for v in rng.integers(1, 6, n)]  # 5 distinct integers: categorical
    for i in np.flatnonzero(rng.random(n) < 0.1):
        rating[i] = None
    flag = [bool(v) for v in rng.random(n) < 0.4]
    for i in np.flatnonzero(rng.random(n) < 0.1):
        flag[i] = None
    y = rng.choice(["no", "yes"], n)
    columns = {
        "colour": list(colour),
        "height": [None if np.isnan(v) else float(v) for v in height],
        "rating": rating,
        "flag": flag,
    }
    return columns, y


def as_pandas(columns: dict) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "colour": pd.Series(columns["colour"], dtype="category"),
            "height": pd.Series([np.nan if v is None else v for v in columns["height"]]),
            "rating": pd.array(columns["rating"], dtype="Int64"),
            "flag": pd.array(columns["flag"], dtype="boolean"),
        }
    )


def as_polars(columns: dict) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "colour": pl.Series(columns["colour"], dtype=pl.String),
            "height": pl.Series(columns["height"], dtype=pl.Float64),
            "rating": pl.Series(columns["rating"], dtype=pl.Int64),
            "flag": pl.Series(columns["flag"], dtype=pl.Boolean),
        }
    )


def as_numpy(columns: dict) -> np.ndarray:
    array = np.empty((len(columns["colour"]), 4), dtype=object)
    for j, name in enumerate(["colour", "height", "rating", "flag"]):
        array[:, j] = columns[name]
    return array


def test_every_table_type_gives_the_same_model():
    columns, y = mixed_data()
    names = ["colour", "height", "rating", "flag"]
    tables = {
        "pandas": as_pandas(columns),
        "pandas-object": pd.DataFrame({k: pd.Series(v, dtype=object) for k, v in columns.items()}),
        "polars": as_polars(columns),
        "polars-categorical": as_polars(columns).with_columns(
            pl.col("colour").cast(pl.Categorical)
        ),
        "pyarrow": as_polars(columns).to_arrow(),
        "pyarrow-dictionary": pa.table(
            {
                "colour": pa.array(columns["colour"]).dictionary_encode(),
                "height": pa.array(columns["height"], type=pa.float64()),
                "rating": pa.array(columns["rating"], type=pa.int64()),
                "flag": pa.array(columns["flag"], type=pa.bool_()),
            }
        ),
        "dict": columns,
    }
    reference = nbayes.NaiveBayes().fit(as_polars(columns), y)
    assert [(s.name, s.family) for s in reference.schema_] == [
        ("colour", "categorical"),
        ("height", "auto"),  # numbers: the family is chosen from the data (the default)
        ("rating", "auto"),
        ("flag", "categorical"),
    ]
    expected = reference.predict_proba(as_polars(columns))
    for label, table in tables.items():
        model = nbayes.NaiveBayes().fit(table, y)
        assert [(s.name, s.family) for s in model.schema_] == [
            (s.name, s.family) for s in reference.schema_
        ], label
        np.testing.assert_array_equal(model.predict_proba(table), expected, err_msg=label)
        # and predicting across types: a model fitted on one type reads any other
        np.testing.assert_array_equal(
            reference.predict_proba(table), expected, err_msg=f"predict on {label}"
        )
    # NumPy needs the column names, given with columns=...
    model = nbayes.NaiveBayes().fit(as_numpy(columns), y, columns=names)
    assert list(model.feature_names_in_) == names
    np.testing.assert_array_equal(model.predict_proba(as_numpy(columns)), expected)
    np.testing.assert_array_equal(model.predict_proba(as_polars(columns)), expected)


def test_numpy_without_names_gets_positional_names_and_a_refit_forgets_old_names():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 2))
    y = rng.integers(0, 2, 40)
    model = nbayes.NaiveBayes().fit(X, y)
    assert list(model.feature_names_in_) == ["x0", "x1"]
    frame = pl.DataFrame({"a": X[:, 0], "b": X[:, 1], "c": X[:, 0]})
    model.fit(frame, y)
    # a second fit on a NumPy array of another width is a new model, not the old names
    model.fit(X, y)
    assert list(model.feature_names_in_) == ["x0", "x1"]
    np.testing.assert_allclose(
        model.predict_proba(X), nbayes.NaiveBayes().fit(X, y).predict_proba(X), rtol=1e-15
    )


def test_target_as_array_column_name_or_positional_string():
    columns, y = mixed_data(1)
    frame = as_polars(columns)
    expected = nbayes.NaiveBayes().fit(frame, y).predict_proba(frame)
    with_target = frame.with_columns(pl.Series("label", y))
    for model in (
        nbayes.NaiveBayes().fit(with_target, target="label"),
        nbayes.NaiveBayes().fit(with_target, "label"),
        nbayes.NaiveBayes().fit(as_pandas(columns).assign(label=y), "label"),
        nbayes.NaiveBayes().fit(frame, pd.Series(y)),
        nbayes.NaiveBayes().fit(frame, list(y)),
    ):
        assert "label" not in list(model.feature_names_in_)
        np.testing.assert_array_equal(model.classes_, ["no", "yes"])
        # predicting on the table that still holds the target column: extra columns are ignored
        np.testing.assert_array_equal(model.predict_proba(with_target), expected)
    model = nbayes.NaiveBayes().fit(with_target, target="label")
    assert model.score(with_target, target="label") == np.mean(model.predict(frame) == y)


def test_columns_are_found_by_name_in_any_order_with_extras():
    columns, y = mixed_data(2)
    frame = as_polars(columns)
    model = nbayes.NaiveBayes().fit(frame, y)
    expected = model.predict_proba(frame)
    shuffled = frame.select(["flag", "height", "colour", "rating"]).with_columns(
        pl.lit("ignored").alias("notes"), pl.lit(1.0).alias("extra")
    )
    np.testing.assert_array_equal(model.predict_proba(shuffled), expected)
    np.testing.assert_array_equal(model.predict_proba(shuffled.to_pandas()), expected)
    np.testing.assert_array_equal(model.predict(shuffled), model.predict(frame))


def test_a_missing_required_column_is_named():
    columns, y = mixed_data(2)
    frame = as_polars(columns)
    model = nbayes.NaiveBayes().fit(frame, y)
    with pytest.raises(ValueError, match="rating"):
        model.predict(frame.drop("rating"))
    with pytest.raises(ValueError, match="height"):
        model.predict_proba(frame.drop("height").to_pandas())


# ---------------------------------------------------------------------- family inference
def test_family_inference_follows_the_schema_table():
    n = 60
    rng = np.random.default_rng(4)
    frame = pl.DataFrame(
        {
            "string": rng.choice(["a", "b"], n),
            "categorical": pl.Series(rng.choice(["a", "b"], n)).cast(pl.Categorical),
            "boolean": rng.random(n) < 0.5,
            "float": rng.normal(size=n),
            # whole numbers held as floats are counted as integers are (pandas holds integers
            # with a missing value as floats); a few fractions are not
            "float-few-values": rng.integers(0, 3, n).astype(float),
            "float-few-fractions": rng.integers(0, 3, n) / 2,
            "int-20": np.arange(n) % 20,  # exactly max_int_categories distinct values
            "int-21": np.arange(n) % 21,
            "int-20-and-null": pl.Series([None if i % 7 == 0 else i % 20 for i in range(n)]),
            "int8": (np.arange(n) % 3).astype(np.int8),
            "uint-many": np.arange(n, dtype=np.uint32),
        }
    )
    y = rng.integers(0, 2, n)
    # the default: every numeric column's family is chosen from the data
    auto = {s.name: s.family for s in nbayes.NaiveBayes().fit(frame, y).schema_}
    assert auto == {
        "string": "categorical",
        "categorical": "categorical",
        "boolean": "categorical",
        **{name: "auto" for name in frame.columns[3:]},
    }
    # with one family for numbers, integers of few values are categorical by the rule
    families = {
        s.name: s.family for s in nbayes.NaiveBayes(continuous="gaussian").fit(frame, y).schema_
    }
    assert families == {
        "string": "categorical",
        "categorical": "categorical",
        "boolean": "categorical",
        "float": "gaussian",
        "float-few-values": "categorical",
        "float-few-fractions": "gaussian",
        "int-20": "categorical",
        "int-21": "gaussian",
        "int-20-and-null": "categorical",  # a missing value is not a 21st category
        "int8": "categorical",
        "uint-many": "gaussian",
    }
    # the same table from pandas (NumPy bool, int and float dtypes, category, str) infers alike
    from_pandas = nbayes.NaiveBayes(continuous="gaussian").fit(
        frame.to_pandas().astype({"categorical": "category", "int-20-and-null": "Int64"}), y
    )
    assert {s.name: s.family for s in from_pandas.schema_} == families
    # the threshold is max_int_categories; continuous= names the family of numeric columns
    model = nbayes.NaiveBayes(max_int_categories=2, continuous="kde").fit(frame, y)
    families = {s.name: s.family for s in model.schema_}
    assert families["int8"] == "kde" and families["int-20"] == "kde"
    assert families["float"] == "kde" and families["string"] == "categorical"
    model = nbayes.NaiveBayes(max_int_categories=21, continuous="mdl").fit(frame, y)
    families = {s.name: s.family for s in model.schema_}
    assert families["int-21"] == "categorical" and families["uint-many"] == "mdl"
    for method in ("equal-width", "equal-frequency", "gaussian"):
        model = nbayes.NaiveBayes(continuous=method).fit(frame, y)
        assert {s.name: s.family for s in model.schema_}["float"] == method


def test_family_overrides():
    rng = np.random.default_rng(5)
    n = 80
    frame = pl.DataFrame(
        {
            "age": rng.normal(40, 10, n),
            "zip": rng.integers(10000, 10030, n),  # 30 distinct codes: continuous by the rule
            "n_visits": rng.poisson(3, n),  # few distinct integers: categorical by the rule
            "sex": rng.choice(["f", "m"], n),
        }
    )
    y = rng.integers(0, 2, n)
    model = nbayes.NaiveBayes(
        families={"age": "kde", "zip": "categorical", "n_visits": "poisson"}
    ).fit(frame, y)
    assert {s.name: s.family for s in model.schema_} == {
        "age": "kde",
        "zip": "categorical",
        "n_visits": "poisson",
        "sex": "categorical",
    }
    # the override decides the arithmetic: zip as categorical gives CategoricalNB's numbers
    codes = np.unique(frame["zip"].to_numpy(), return_inverse=True)[1]
    zip_only = nbayes.NaiveBayes(calibration=None, families={"zip": "categorical"}).fit(
        frame.select("zip"), y
    )
    reference = CategoricalNB(alpha=1.0).fit(codes[:, None], y)
    np.testing.assert_allclose(
        zip_only.predict_proba(frame), reference.predict_proba(codes[:, None]), rtol=1e-12
    )
    # n_visits as Poisson: rate (Σx + α)/(N_c + α), the log-likelihood by hand
    visits = frame["n_visits"].to_numpy().astype(float)
    poisson = nbayes.NaiveBayes(calibration=None, families={"n_visits": "poisson"}, alpha=1.0)
    poisson.fit(frame.select("n_visits"), y)
    from scipy.stats import poisson as poisson_dist

    rates = [(visits[y == c].sum() + 1.0) / ((y == c).sum() + 1.0) for c in (0, 1)]
    expected = np.column_stack([poisson_dist.logpmf(visits, r) for r in rates])
    expected += np.log(np.bincount(y) / n)
    np.testing.assert_allclose(poisson.predict_joint_log_proba(frame), expected, rtol=1e-12)


# ---------------------------------------------------------------------- scikit-learn equivalence
def test_categorical_columns_match_sklearn_categoricalnb():
    rng = np.random.default_rng(6)
    n, d = 400, 4
    codes = rng.integers(0, 5, (n, d))
    codes[:5] = np.arange(5)[:, None]  # every code occurs, so both models see S_j = 5
    labels = np.array(["alpha", "beta", "gamma", "delta", "eps"])
    frame = pl.DataFrame({f"c{j}": labels[codes[:, j]] for j in range(d)})
    y = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
    weight = rng.uniform(0.5, 2.0, n)
    for alpha in (1.0, 0.5, 0.01):
        ours = nbayes.NaiveBayes(calibration=None, alpha=alpha).fit(frame, y, sample_weight=weight)
        theirs = CategoricalNB(alpha=alpha).fit(codes, y, sample_weight=weight)
        np.testing.assert_array_equal(ours.classes_, theirs.classes_)
        np.testing.assert_allclose(
            ours.predict_joint_log_proba(frame), theirs.predict_joint_log_proba(codes), rtol=1e-12
        )
        np.testing.assert_allclose(
            ours.predict_proba(frame), theirs.predict_proba(codes), rtol=1e-10, atol=1e-15
        )


def test_gaussian_columns_match_sklearn_gaussiannb():
    """Each Gaussian column is smoothed on its own scale (ε_j = var_smoothing · Var(x_j)): the
    model is scikit-learn's GaussianNB fitted on each column alone, the prior counted once."""
    rng = np.random.default_rng(7)
    n = 300
    X = rng.normal(loc=[0.0, 1e4, -3.0], scale=[1.0, 50.0, 0.01], size=(n, 3))
    y = rng.integers(0, 3, n)
    frame = pl.DataFrame({f"g{j}": X[:, j] for j in range(3)})
    weight = rng.uniform(0.5, 2.0, n)
    for var_smoothing in (1e-9, 1e-2):
        ours = nbayes.NaiveBayes(
            calibration=None, continuous="gaussian", var_smoothing=var_smoothing
        )
        ours.fit(frame, y, sample_weight=weight)
        alone = [
            GaussianNB(var_smoothing=var_smoothing).fit(X[:, [j]], y, sample_weight=weight)
            for j in range(3)
        ]
        log_prior = np.log(alone[0].class_prior_)
        joint = sum(m.predict_joint_log_proba(X[:, [j]]) for j, m in enumerate(alone))
        joint -= 2 * log_prior
        np.testing.assert_allclose(ours.predict_joint_log_proba(frame), joint, rtol=1e-9)
        expected = np.exp(joint - joint.max(axis=1, keepdims=True))
        expected /= expected.sum(axis=1, keepdims=True)
        np.testing.assert_allclose(ours.predict_proba(frame), expected, rtol=1e-9, atol=1e-15)


def test_mixed_table_is_the_sum_of_the_two_sklearn_models_minus_one_prior():
    rng = np.random.default_rng(8)
    n = 500
    codes = rng.integers(0, 3, (n, 2))
    codes[:3] = np.arange(3)[:, None]
    real = rng.normal(size=(n, 2)) * [1.0, 3.0] + [0.0, 20.0]
    y = rng.choice(["p", "q", "r"], n)
    frame = pl.DataFrame(
        {
            "k0": np.array(["x", "y", "z"])[codes[:, 0]],
            "r0": real[:, 0],
            "k1": codes[:, 1],  # small integers: categorical by the rule
            "r1": real[:, 1],
        }
    )
    ours = nbayes.NaiveBayes(calibration=None, alpha=0.5, continuous="gaussian").fit(frame, y)
    categorical = CategoricalNB(alpha=0.5).fit(codes, y)
    # each Gaussian column smoothed on its own scale: GaussianNB on that column alone
    gaussian = [GaussianNB().fit(real[:, [j]], y) for j in range(2)]
    log_prior = np.log(np.unique(y, return_counts=True)[1] / n)
    expected = (
        categorical.predict_joint_log_proba(codes)
        + sum(m.predict_joint_log_proba(real[:, [j]]) for j, m in enumerate(gaussian))
        - 2 * log_prior
    )
    np.testing.assert_allclose(ours.predict_joint_log_proba(frame), expected, rtol=1e-12)
    # and the posterior is that sum normalised
    posterior = np.exp(expected - expected.max(axis=1, keepdims=True))
    posterior /= posterior.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(ours.predict_proba(frame), posterior, rtol=1e-10, atol=1e-15)
    np.testing.assert_array_equal(ours.predict(frame), ours.classes_[expected.argmax(axis=1)])


def test_a_table_with_no_rows_gives_empty_results():
    columns, y = mixed_data(10)
    frame = as_polars(columns)
    model = nbayes.NaiveBayes(families={"height": "kde"}).fit(frame, y)
    empty = frame.head(0)
    assert model.predict_proba(empty).shape == (0, 2)
    assert model.predict(empty).shape == (0,)
    assert model.predict_joint_log_proba(as_pandas(columns).head(0)).shape == (0, 2)


@pytest.mark.parametrize(
    ("values", "at_once"),
    [
        (["a", None, "b", "?"], True),
        (["a", float("nan"), "b"], False),
        ([1, None, 3], True),
        ([1, "?", 2], False),
        ([1.5, None, 2, float("nan")], True),
        ([True, None, np.bool_(False)], True),
        ([np.int64(3), 4], True),
        ([np.float32(1.5), 2.0], False),
        (["?", "?"], False),
        ([float("nan")], False),
        ([None, None], False),
        ([True, 1], False),
        ([1, 0, True, False], False),  # Polars: Int64 [1, 0, 1, 0]
        ([float("nan"), 1, 2], False),  # Polars: Float64; whole numbers are Int64 here
        ([float("nan"), 1.5], True),
        ([2.5, True], False),
        ([1, np.bool_(True)], False),
        ([1, "a"], False),
        ([1j, 2j], False),
        ([b"raw"], False),
    ],
    ids=lambda value: repr(value)[:40],
)
def test_an_object_column_built_at_once_is_the_column_built_value_by_value(
    values, at_once, monkeypatch
):
    """Python objects of one kind become a Series in one Polars call; the result (or the error)
    is that of the value-by-value check, which still names what is wrong in mixed columns."""
    from nbayes import tables

    def build():
        try:
            series = tables._object_series("c", list(values), ["?"])
        except (TypeError, ValueError) as error:
            return type(error), str(error)
        return series.name, series.dtype, series.to_list()

    assert (tables._uniform_series("c", list(values), ["?"]) is not None) == at_once
    built = build()
    monkeypatch.setattr(tables, "_uniform_series", lambda *args: None)
    assert built == build()


@pytest.mark.parametrize(
    "table",
    [
        pytest.param(lambda: {"x": [1, 2**64, 3]}, id="dict of lists"),
        pytest.param(lambda: {"x": [1, None, -(2**63) - 1]}, id="below the range, with a gap"),
        pytest.param(lambda: pd.DataFrame({"x": [1, 2**64, 3]}), id="pandas object column"),
        pytest.param(
            lambda: pd.DataFrame({"x": pd.array([1, 2**63 + 5, None], dtype="UInt64")}),
            id="pandas nullable UInt64",
        ),
    ],
)
def test_an_integer_beyond_64_bits_is_refused_naming_its_column_and_row(table):
    """Whole-number columns are kept as 64-bit integers: a larger one is named, with a way out,
    not left to a Polars error that suggests an option nbayes does not have."""
    data = table()
    with pytest.raises(ValueError, match=r"column 'x' holds the integer -?\d+ \(row [12]\)") as e:
        nbayes.NaiveBayes().fit(data, [0, 1, 0])
    assert "floats" in str(e.value) and "strings" in str(e.value)


def test_integers_at_the_edges_of_64_bits_are_kept():
    model = nbayes.NaiveBayes(calibration=None).fit(
        {"x": [-(2**63), 0, 2**63 - 1, None]}, [0, 1, 0, 1]
    )
    assert (model.schema_[0].name, model.schema_[0].dtype) == ("x", pl.Int64)
