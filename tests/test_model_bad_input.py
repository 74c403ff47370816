"""Bad input to NaiveBayes: every error names the column (or parameter) at fault, and the
caller's objects are never modified."""

from __future__ import annotations

import copy
import re

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import nbayes


def good_frame(n: int = 12) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame(
        {
            "colour": rng.choice(["red", "blue"], n),
            "height": rng.normal(170, 10, n),
            "rating": rng.integers(1, 4, n),
        }
    )


Y = np.array(["p", "q"] * 6)


# ---------------------------------------------------------------------- columns
@pytest.mark.parametrize(
    "table",
    [
        pd.DataFrame({"ok": [1.0, 2.0, 3.0, 4.0], "mixed": ["a", 1, "b", 2.5]}),
        {"ok": [1.0, 2.0, 3.0, 4.0], "mixed": ["a", 1.5, "b", 2]},
        {"ok": [1.0, 2.0, 3.0, 4.0], "mixed": [True, "yes", False, "no"]},
        np.array([[1.0, "a"], [2.0, 1], [3.0, "b"], [4.0, 2]], dtype=object),
    ],
    ids=["pandas", "dict", "dict-bool-str", "numpy"],
)
def test_a_column_of_mixed_types_is_named(table):
    columns = ["ok", "mixed"] if isinstance(table, np.ndarray) else None
    with pytest.raises(ValueError, match=r"column 'mixed' mixes types"):
        nbayes.NaiveBayes().fit(table, ["p", "q", "p", "q"], columns=columns)


@pytest.mark.parametrize(
    ("values", "params"),
    [
        ([None] * 4, {}),
        ([np.nan] * 4, {}),
        (pd.array([pd.NA] * 4, dtype="Int64"), {}),
        (["?"] * 4, {"missing_values": "?"}),
        ([-1.0] * 4, {"missing_values": -1}),
    ],
    ids=["None", "NaN", "pd.NA", "marker", "numeric-marker"],
)
def test_a_column_entirely_missing_is_named(values, params):
    table = pd.DataFrame({"ok": [1.0, 2.0, 3.0, 4.0], "empty": values})
    with pytest.raises(ValueError, match=r"column 'empty' is entirely missing"):
        nbayes.NaiveBayes(**params).fit(table, ["p", "q", "p", "q"])


@pytest.mark.parametrize(
    "family", [None, "gaussian", "kde", "poisson", "equal-width", "equal-frequency", "mdl"]
)
def test_a_column_no_batch_observed_adds_nothing_and_a_whole_fit_refuses_it(family, tmp_path):
    """partial_fit takes a batch without a column's values (a later one may bring them); if
    none does, the column adds nothing to any score, whatever value a row to predict holds.
    fit, and nbayes fit (which reads the whole file), refuse such a column, naming it."""
    import warnings

    from nbayes.cli import main

    rng = np.random.default_rng(4)
    frame = pd.DataFrame({"n": rng.normal(size=40), "label": rng.choice(["p", "q"], 40)})
    frame["empty"] = np.nan
    families = {"empty": family} if family else None
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        model = nbayes.NaiveBayes(families=families).partial_fit(frame, target="label")
        without = nbayes.NaiveBayes().partial_fit(frame.drop(columns="empty"), target="label")
        rows = frame.drop(columns="label").assign(empty=rng.normal(100, 50, 40))
        np.testing.assert_allclose(
            model.predict_joint_log_proba(rows),
            without.predict_joint_log_proba(rows.drop(columns="empty")),
            rtol=1e-12,
        )
    with pytest.raises(ValueError, match=r"column 'empty' is entirely missing"):
        nbayes.NaiveBayes(families=families).fit(frame, target="label")
    frame.to_csv(tmp_path / "data.csv", index=False)
    assert main(["fit", str(tmp_path / "data.csv"), "--target", "label", "-o",
                 str(tmp_path / "m.nbm")]) == 1  # fmt: skip
    # left out by name (family 'ignore'), it is accepted, as a model without it
    left_out = nbayes.NaiveBayes(families={"empty": "ignore"}).fit(frame, target="label")
    np.testing.assert_allclose(
        left_out.predict_proba(rows),
        nbayes.NaiveBayes().fit(frame.drop(columns="empty"), target="label").predict_proba(
            rows.drop(columns="empty")
        ),
        atol=1e-12,
    )
    assert main(["fit", str(tmp_path / "data.csv"), "--target", "label", "-o",
                 str(tmp_path / "m.nbm"), "--family", "empty=ignore"]) == 0  # fmt: skip


@pytest.mark.parametrize("model", [nbayes.NaiveBayes, nbayes.SemiNaiveBayes])
def test_a_word_in_a_numeric_column_at_prediction_is_named(model):
    table = pl.DataFrame({"c": ["a", "b"] * 10, "n": np.arange(20.0), "y": ["p", "q"] * 10})
    fitted = model().fit(table, target="y")
    message = r"column 'n' holds String values \(e.g. 'seven' at row 0\)"
    with pytest.raises(ValueError, match=message):
        fitted.predict_proba(pl.DataFrame({"c": ["a"], "n": ["seven"]}))


def test_a_batch_whose_column_has_another_type_is_refused_naming_it():
    first = pl.DataFrame({"flag": [True, False] * 3, "y": ["p", "q", "q"] * 2})
    model = nbayes.NaiveBayes().partial_fit(first, target="y")
    later = first.with_columns(flag=pl.Series(["yes", "no"] * 3))
    message = r"column 'flag' holds String values \(e.g. 'yes' at row 0\)"
    with pytest.raises(ValueError, match=message):
        model.partial_fit(later, target="y")


def test_a_target_with_missing_values_drops_those_rows_with_a_counted_warning():
    X = good_frame()
    y = np.array(["p", None, "q", "p", np.nan, "q", "p", "q", None, "q", "p", "q"], dtype=object)
    keep = np.array([v is not None and v == v for v in y])
    with pytest.warns(UserWarning, match=r"3 row\(s\) with a missing target were dropped"):
        model = nbayes.NaiveBayes().fit(X, y)
    reference = nbayes.NaiveBayes().fit(X[keep], y[keep].astype(str))
    np.testing.assert_array_equal(model.class_count_, reference.class_count_)
    np.testing.assert_array_equal(model.predict_proba(X), reference.predict_proba(X))
    # the same through a target column with a marker, and a float target with NaN
    labelled = X.assign(label=["?" if not k else v for k, v in zip(keep, y, strict=True)])
    with pytest.warns(UserWarning, match=r"3 row\(s\)"):
        marked = nbayes.NaiveBayes(missing_values="?").fit(labelled, target="label")
    np.testing.assert_array_equal(marked.predict_proba(X), reference.predict_proba(X))
    numeric = np.where(keep, (np.arange(12) % 2).astype(float), np.nan)
    with pytest.warns(UserWarning, match=r"3 row\(s\)"):
        nbayes.NaiveBayes().fit(X, numeric)
    with pytest.raises(ValueError, match="entirely missing"):
        nbayes.NaiveBayes().fit(X, [None] * 12)


def test_a_target_with_one_class_is_refused():
    with pytest.raises(ValueError, match=r"single class \('p'\)"):
        nbayes.NaiveBayes().fit(good_frame(), ["p"] * 12)
    with pytest.raises(ValueError, match="single class"):
        nbayes.NaiveBayes().fit(good_frame().assign(label="only"), target="label")
    # one class left after dropping the missing labels is one class too
    with (
        pytest.raises(ValueError, match="single class"),
        pytest.warns(UserWarning, match="missing target"),
    ):
        nbayes.NaiveBayes().fit(good_frame(), ["p"] * 11 + [None])


def test_duplicate_column_names_are_named():
    values = [[1.0, 2.0], [3.0, 4.0]]
    with pytest.raises(ValueError, match=r"duplicate column names: \['height'\]"):
        nbayes.NaiveBayes().fit(pd.DataFrame(values, columns=["height", "height"]), [0, 1])
    with pytest.raises(ValueError, match=r"duplicate column names: \['height'\]"):
        table = pa.table([pa.array([1.0, 3.0]), pa.array([2.0, 4.0])], names=["height"] * 2)
        nbayes.NaiveBayes().fit(table, [0, 1])
    with pytest.raises(ValueError, match=r"duplicate column names: \['height'\]"):
        nbayes.NaiveBayes().fit(np.array(values), [0, 1], columns=["height", "height"])
    with pytest.raises(ValueError, match=r"duplicate column names: \['1'\]"):
        nbayes.NaiveBayes().fit(pd.DataFrame(values, columns=[1, "1"]), [0, 1])
    with pytest.raises(ValueError, match=r"duplicate column names: \['1'\]"):
        nbayes.NaiveBayes().fit({1: [1.0, 3.0], "1": [2.0, 4.0]}, [0, 1])


@pytest.mark.parametrize(
    ("families", "message"),
    [
        ({"colour": "gaussian"}, "family 'gaussian' needs numbers, but column 'colour'"),
        ({"colour": "poisson"}, "family 'poisson' needs numbers, but column 'colour'"),
        ({"colour": "kde"}, "family 'kde' needs numbers, but column 'colour'"),
        ({"colour": "mdl"}, "family 'mdl' needs numbers, but column 'colour'"),
        ({"colour": "equal-width"}, "family 'equal-width' needs numbers, but column 'colour'"),
        ({"flag": "gaussian"}, "family 'gaussian' needs numbers, but column 'flag'"),
        ({"height": "text"}, "family 'text' needs strings, but column 'height'"),
        ({"height": "normal"}, "unknown family 'normal' for column 'height'"),
        ({"weight": "gaussian"}, r"families names columns that are not in the data: \['weight'\]"),
    ],
)
def test_a_family_that_does_not_fit_the_column_is_named(families, message):
    X = good_frame().assign(flag=[True, False] * 6)
    with pytest.raises(ValueError, match=message):
        nbayes.NaiveBayes(families=families).fit(X, Y)


def test_other_unusable_columns_are_named():
    X = good_frame()
    with pytest.raises(ValueError, match="column 'when' holds dates"):
        nbayes.NaiveBayes().fit(X.assign(when=pd.date_range("2020-01-01", periods=12)), Y)
    with pytest.raises(ValueError, match="column 'z' holds complex"):
        nbayes.NaiveBayes().fit(X.assign(z=np.arange(12) * 1j), Y)
    with pytest.raises(ValueError, match=r"column 'rating' has the negative value -1\.0"):
        nbayes.NaiveBayes(families={"rating": "poisson"}).fit(X.assign(rating=-1), Y)
    model = nbayes.NaiveBayes(families={"rating": "poisson"}).fit(X, Y)
    with pytest.raises(ValueError, match="column 'rating' has the negative value"):
        model.predict(X.assign(rating=-3))
    with pytest.raises(ValueError, match=r"target column 'label' is not in the data"):
        nbayes.NaiveBayes().fit(X, target="label")
    with pytest.raises(ValueError, match="12 rows but y has 11"):
        nbayes.NaiveBayes().fit(X, Y[:11])


def test_prediction_with_a_column_of_the_wrong_type_names_it():
    X = good_frame()
    model = nbayes.NaiveBayes().fit(X, Y)
    with pytest.raises(ValueError, match="height"):
        model.predict(X.assign(height=["tall"] * 12))
    with pytest.raises(ValueError, match="rating"):
        model.predict(X.assign(rating=["x"] * 12))
    with pytest.raises(ValueError, match="colour"):
        model.predict(X.drop(columns="colour"))


# ---------------------------------------------------------------------- parameters
@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"continuous": "foo"}, "continuous must be one of"),
        ({"unknown": "x"}, "unknown must be one of"),
        ({"bins": 0}, "bins must be a positive integer"),
        ({"bins": 2.5}, "bins must be a positive integer"),
        ({"bandwidth": -1}, "bandwidth must be > 0"),
        ({"bandwidth": 0}, "bandwidth must be > 0"),
        ({"bandwidth": "wide"}, "bandwidth must be one of"),
        ({"alpha": {"colour": -0.5}}, r"alpha\['colour'\] must be a finite number >= 0"),
        ({"alpha": -1}, "alpha must be a finite number >= 0"),
        ({"alpha": {"colr": 0.5}}, r"alpha names columns that are not in the data: \['colr'\]"),
        ({"max_bins": 1}, "max_bins must be an integer >= 2"),
        ({"var_smoothing": -1.0}, "var_smoothing must be >= 0"),
        ({"class_prior": "flat"}, "class_prior must be one of"),
        ({"class_prior": [0.2, 0.2]}, "sum of the priors should be 1"),
        ({"max_int_categories": -1}, "max_int_categories must be an integer >= 0"),
        ({"max_int_categories": "20"}, "max_int_categories must be an integer >= 0"),
    ],
)
def test_invalid_parameters_are_named(params, message):
    with pytest.raises(ValueError, match=message):
        nbayes.NaiveBayes(**params).fit(good_frame(), Y)


@pytest.mark.parametrize(
    ("model", "params", "guess"),
    [
        (nbayes.NaiveBayes, {"continuous": "guassian"}, "'gaussian'"),
        (nbayes.NaiveBayes, {"missing": "categroy"}, "'category'"),
        (nbayes.NaiveBayes, {"calibration": "none"}, "None"),  # the value, not its text
        (nbayes.NaiveBayes, {"class_prior": "uniorm"}, "'uniform'"),
        (nbayes.SemiNaiveBayes, {"model": "skbd"}, "'skdb'"),
        (nbayes.SemiNaiveBayes, {"missing": "skp"}, "'skip'"),
    ],
)
def test_a_misspelt_choice_gets_the_close_one(model, params, guess):
    (name, given), = params.items()
    with pytest.raises(ValueError, match=rf"{name} must be one of .*, got {given!r}; did you "
                       rf"mean {re.escape(guess)}\?$"):  # fmt: skip
        model(**params).fit(good_frame(), Y)
    with pytest.raises(ValueError, match=r"got 'zzzzzz'\.$"):  # nothing close: no guess
        model(**{name: "zzzzzz"}).fit(good_frame(), Y)


def test_an_unfitted_model_says_so():
    model = nbayes.NaiveBayes()
    with pytest.raises(nbayes.NotFittedError, match="not fitted"):
        model.predict(good_frame())
    with pytest.raises(nbayes.NotFittedError):
        model.explain({"colour": "red"})
    assert str(model) == repr(model) == "NaiveBayes()"


def test_a_lazy_frame_or_a_vector_is_not_a_table():
    with pytest.raises(TypeError, match="LazyFrame"):
        nbayes.NaiveBayes().fit(pl.from_pandas(good_frame()).lazy(), Y)
    with pytest.raises(ValueError, match=re.escape("expected a table (2-D)")):
        nbayes.NaiveBayes().fit(np.arange(12.0), Y)


# ---------------------------------------------------------------------- caller's objects
@pytest.mark.filterwarnings("ignore:.*missing target:UserWarning")
def test_the_callers_objects_are_never_modified():
    rng = np.random.default_rng(1)
    n = 40
    frame = pd.DataFrame(
        {
            "colour": pd.Series(rng.choice(["red", "?", "blue"], n), dtype="category"),
            "height": np.where(rng.random(n) < 0.2, np.nan, rng.normal(170, 10, n)),
            "rating": pd.array(np.where(rng.random(n) < 0.2, None, rng.integers(1, 4, n)), "Int64"),
            "objects": pd.Series(
                np.where(rng.random(n) < 0.2, "?", rng.normal(size=n)), dtype=object
            ).map(lambda v: v if v == "?" else float(v)),
            "label": np.where(rng.random(n) < 0.1, "?", rng.choice(["p", "q"], n)),
        }
    )
    array = frame.drop(columns="label").to_numpy(dtype=object)
    y = frame["label"].to_numpy()
    weight = rng.uniform(0.5, 2.0, n)
    polars = pl.from_pandas(frame[["height", "label"]])
    columns = {name: list(frame[name]) for name in ("height", "objects")}
    snapshots = [
        frame.copy(deep=True),
        array.copy(),
        y.copy(),
        weight.copy(),
        polars.clone(),
        copy.deepcopy(columns),
    ]
    params = {"missing_values": ["?", -1], "families": {"height": "kde"}}
    model = nbayes.NaiveBayes(**params).fit(frame, target="label", sample_weight=weight)
    model.predict_proba(frame)
    model.explain(frame.iloc[0])
    nbayes.NaiveBayes(**params).fit(
        array, y, columns=["colour", "height", "rating", "objects"], sample_weight=weight
    ).predict(array)
    nbayes.NaiveBayes(missing_values="?").fit(polars, target="label").predict(polars)
    nbayes.NaiveBayes(missing_values="?").fit(columns, y).predict(columns)
    pd.testing.assert_frame_equal(frame, snapshots[0])
    assert array.shape == snapshots[1].shape
    assert all(
        a is b or a == b or (a != a and b != b)
        for a, b in zip(array.ravel(), snapshots[1].ravel(), strict=True)
    )
    np.testing.assert_array_equal(y, snapshots[2])
    np.testing.assert_array_equal(weight, snapshots[3])
    assert polars.equals(snapshots[4])
    assert columns.keys() == snapshots[5].keys()
    for name in columns:
        assert len(columns[name]) == len(snapshots[5][name])
        assert all(
            a is b or a == b or (a != a and b != b)
            for a, b in zip(columns[name], snapshots[5][name], strict=True)
        ), name


def test_labels_given_twice_is_an_error():
    frame = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": ["a", "b", "a", "b"]})
    with pytest.raises(ValueError, match="once: as y or as target"):
        nbayes.NaiveBayes().fit(frame, ["a", "b", "a", "b"], target="y")


def test_class_prior_of_the_wrong_length_fails_at_fit():
    frame = pl.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": ["a", "b", "c", "a"]})
    with pytest.raises(ValueError, match="class_prior has 2 entries for 3 classes"):
        nbayes.NaiveBayes(class_prior=[0.5, 0.5]).fit(frame, target="y")


def test_a_value_a_column_type_cannot_hold_is_named_with_its_row():
    """A prediction batch whose counted integer column holds 1e30 (no Int64 holds it) is refused
    naming that value and its row, not merely the column's first value."""
    train = pl.DataFrame({"a": [1, 2, 3, 1] * 10, "y": ["p", "q"] * 20})
    model = nbayes.NaiveBayes(continuous="gaussian").fit(train, target="y")
    batch = pl.DataFrame({"a": [2.5, 7.0, None, 1e30]})
    message = r"column 'a' holds Float64 values \(e\.g\. 1e\+30 at row 3\)"
    with pytest.raises(ValueError, match=message):
        model.predict_proba(batch)
