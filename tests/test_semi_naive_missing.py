"""What a missing value means to SemiNaiveBayes (nbayes.semi_naive.missing): a value of its own
by default, skipped, or chosen by a test of independence from the class."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import nbayes
from nbayes.semi_naive import AODE, SemiNaiveBayes
from nbayes.semi_naive.missing import independence_p_value, missing_modes


def _table(n: int = 400, seed: int = 0) -> tuple[pl.DataFrame, np.ndarray]:
    """'told' is missing mostly in class "b" (informative); 'noise' is missing at random."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b"], n)
    told = rng.choice(["x", "y"], n).astype(object)
    told[(y == "b") & (rng.random(n) < 0.6)] = None
    noise = rng.choice(["u", "v", "w"], n).astype(object)
    noise[rng.random(n) < 0.2] = None
    other = np.where(rng.random(n) < 0.7, y, rng.choice(["a", "b"], n))
    columns = {"told": list(told), "noise": list(noise), "other": list(other)}
    return pl.DataFrame(columns, schema=dict.fromkeys(columns, pl.String)), y


def test_the_g_test_is_the_textbook_statistic():
    from scipy.stats import chi2

    missing = np.array([30.0, 5.0, 12.0, 0.0])
    totals = np.array([100.0, 80.0, 60.0, 0.0])  # a class without weight takes no part
    m, n = missing[:3], totals[:3]
    expected = n * m.sum() / n.sum()
    g = 2 * np.sum(m * np.log(m / expected) + (n - m) * np.log((n - m) / (n - expected)))
    assert independence_p_value(missing, totals) == pytest.approx(chi2.sf(g, 2), rel=1e-9)
    assert independence_p_value(np.array([0.0, 0.0]), np.array([5.0, 5.0])) == 1.0


def test_auto_makes_informative_missingness_a_category_and_skips_the_rest():
    X, y = _table()
    model = SemiNaiveBayes("aode", missing="auto", discriminative=False).fit(X, y)
    assert model.missing_ == {"told": "category", "noise": "skip", "other": "skip"}
    default = SemiNaiveBayes("aode", discriminative=False).fit(X, y)
    assert default.missing_ == {"told": "category", "noise": "category", "other": "skip"}
    skipped = SemiNaiveBayes("aode", missing="skip", discriminative=False).fit(X, y)
    assert set(skipped.missing_.values()) == {"skip"}


def test_missing_modes_read_a_dict_and_skip_columns_with_nothing_missing():
    weight = np.array([[3.0, 0.0, 1.0], [0.0, 0.0, 1.0]])
    modes = missing_modes({"a": "skip"}, ["a", "b", "c"], weight, np.array([10.0, 10.0]))
    assert modes == ["skip", "skip", "category"]  # unnamed: the default; 'b' misses nothing
    modes = missing_modes({"c": "auto"}, ["a", "b", "c"], weight, np.array([10.0, 10.0]))
    assert modes == ["category", "skip", "skip"]  # 'c' is missing alike in both classes
    modes = missing_modes("category", ["a", "b", "c"], weight, np.array([10.0, 10.0]))
    assert modes == ["category", "skip", "category"]


def test_a_category_column_is_the_structure_on_codes_with_missing_as_one_more_value():
    X, y = _table()
    model = SemiNaiveBayes("aode", discriminative=False).fit(X, y)
    codes = model._codes(X).codes
    assert not np.isnan(codes[:, :2]).any()  # 'told' and 'noise' hold a code for "missing"
    for j, name in enumerate(["told", "noise"]):
        missing = X.get_column(name).is_null().to_numpy()
        assert np.all(codes[missing, j] == len(model._encoder.vocabularies[j]))
    by_hand = AODE().fit(codes, y)
    np.testing.assert_allclose(model.predict_proba(X), by_hand.predict_proba(codes), rtol=1e-12)


def test_informative_missingness_helps_on_new_rows():
    X, y = _table(1500, 1)
    X_test, y_test = _table(3000, 2)

    def accuracy(missing):
        model = SemiNaiveBayes("aode", missing=missing, discriminative=False).fit(X, y)
        return np.mean(model.predict(X_test) == y_test)

    assert accuracy("category") > accuracy("skip") + 0.03


def test_the_choice_is_the_same_in_any_order_and_on_dask(tmp_path):
    X, y = _table(600, 3)
    reference = SemiNaiveBayes(missing="auto").fit(X, y)
    order = np.random.default_rng(4).permutation(len(y))
    shuffled = SemiNaiveBayes(missing="auto").fit(X[order], y[order])
    assert shuffled.missing_ == reference.missing_
    assert np.abs(shuffled.predict_proba(X) - reference.predict_proba(X)).max() < 1e-9
    path = tmp_path / "m.nbm"
    nbayes.save(reference, path)
    loaded = nbayes.load(path)
    assert loaded.missing_ == reference.missing_
    assert np.array_equal(loaded.predict_proba(X), reference.predict_proba(X))
    dd = pytest.importorskip("dask.dataframe")
    frame = X.with_columns(pl.Series("label", y)).to_pandas()
    fitted = SemiNaiveBayes(missing="auto").fit(
        dd.from_pandas(frame, npartitions=3), target="label"
    )
    assert fitted.missing_ == reference.missing_
    assert np.abs(fitted.predict_proba(X) - reference.predict_proba(X)).max() < 1e-9


def test_batches_and_merges_need_missing_values_skipped():
    X, y = _table(200, 5)
    with pytest.raises(AttributeError, match="missing='skip'"):
        SemiNaiveBayes("aode", discriminative=False).partial_fit(X, y)
    a = SemiNaiveBayes("aode", discriminative=False).fit(X[:100], y[:100])
    b = SemiNaiveBayes("aode", discriminative=False).fit(X[100:], y[100:])
    with pytest.raises(ValueError, match="missing='skip'"):
        nbayes.merge(a, b)


def test_models_that_found_nothing_missing_merge_under_the_default():
    # missing="category" on rows without a missing value skips every column (the union's rows
    # miss nothing either): the models merge to the one fit, as with missing="skip"
    X, y = _table(200, 5)
    complete = X.drop_nulls()
    labels = y[np.flatnonzero(~X.select(pl.any_horizontal(pl.all().is_null())).to_series())]
    half = complete.height // 2
    make = lambda: SemiNaiveBayes("aode", discriminative=False)  # noqa: E731
    merged = nbayes.merge(
        make().fit(complete[:half], labels[:half]), make().fit(complete[half:], labels[half:])
    )
    whole = make().fit(complete, labels)
    assert whole.missing_modes_ == ["skip"] * complete.width
    assert np.abs(merged.predict_proba(X) - whole.predict_proba(X)).max() <= 1e-12
    # one part that saw a missing value: refused, naming the way out
    with pytest.raises(ValueError, match="missing='skip'"):
        nbayes.merge(make().fit(X[:100], y[:100]), make().fit(complete[half:], labels[half:]))
    with pytest.raises(ValueError, match="missing='skip'"):  # "auto" may skip what was missing
        nbayes.merge(
            SemiNaiveBayes("aode", discriminative=False, missing="auto").fit(complete, labels),
            make().fit(complete, labels),
        )


def test_an_unknown_mode_is_refused():
    X, y = _table(50, 6)
    with pytest.raises(ValueError, match="missing must be one of"):
        SemiNaiveBayes(missing="drop").fit(X, y)


def test_a_dict_leaves_the_columns_it_does_not_name_to_the_default():
    X, y = _table(300, 7)
    model = SemiNaiveBayes("aode", missing={"told": "skip"}, discriminative=False).fit(X, y)
    assert model.missing_ == {"told": "skip", "noise": "category", "other": "skip"}
    with pytest.raises(AttributeError, match="missing='skip'"):
        SemiNaiveBayes("aode", missing={"told": "skip"}, discriminative=False).partial_fit(X, y)
