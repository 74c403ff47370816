"""Results never depend on the units of a column: multiplying X (or one column of a table) by
1e-10 or 1e10 leaves every prediction unchanged (scikit-learn's
``test_gnb_naive_bayes_scale_invariance``, extended to every estimator that reads measurements and
to every continuous family of the table model)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from sklearn.datasets import load_iris

import nbayes

SCALES = [1e-10, 1e10]


def iris() -> tuple[np.ndarray, np.ndarray]:
    X, y = load_iris(return_X_y=True)
    return X, y


def test_gaussian_nb_iris_scaled_predicts_alike():
    """scikit-learn's own test: GaussianNB on iris, iris × 1e-10 and iris × 1e10."""
    X, y = iris()
    labels = [nbayes.GaussianNB().fit(X * s, y).predict(X * s) for s in (1.0, *SCALES)]
    np.testing.assert_array_equal(labels[0], labels[1])
    np.testing.assert_array_equal(labels[0], labels[2])


@pytest.mark.parametrize("ddof", [0, 1])
@pytest.mark.parametrize("var_smoothing", [0.0, 1e-9, 1e-2])
def test_gaussian_nb_posteriors_do_not_depend_on_units(var_smoothing, ddof):
    X, y = iris()
    reference = nbayes.GaussianNB(var_smoothing=var_smoothing, ddof=ddof).fit(X, y)
    for s in SCALES:
        scaled = nbayes.GaussianNB(var_smoothing=var_smoothing, ddof=ddof).fit(X * s, y)
        np.testing.assert_allclose(
            scaled.predict_proba(X * s), reference.predict_proba(X), rtol=1e-7, atol=1e-12
        )
        np.testing.assert_allclose(scaled.var_, reference.var_ * s * s, rtol=1e-9)


@pytest.mark.parametrize("estimator", nbayes.ESTIMATORS, ids=lambda e: e.__name__)
def test_every_estimator_reading_measurements_is_scale_free(estimator):
    """GaussianNB reads measurements; BernoulliNB's threshold is in the data's units; the count
    models (multinomial, complement, Poisson) and CategoricalNB read counts and codes, whose unit
    (one event, one code) is part of the data: scaling them is not a change of units."""
    X, y = iris()
    if estimator is nbayes.GaussianNB:
        make = [lambda s: nbayes.GaussianNB() for _ in SCALES]
    elif estimator is nbayes.BernoulliNB:
        make = [lambda s: nbayes.BernoulliNB(binarize=3.0 * s) for _ in SCALES]
    else:
        pytest.skip(f"{estimator.__name__} reads counts or codes, not measurements")
    reference = make[0](1.0).fit(X, y)
    for s, factory in zip(SCALES, make, strict=True):
        scaled = factory(s).fit(X * s, y)
        np.testing.assert_array_equal(scaled.predict(X * s), reference.predict(X))
        np.testing.assert_allclose(
            scaled.predict_proba(X * s), reference.predict_proba(X), rtol=1e-7, atol=1e-12
        )


def mixed_table(seed: int = 0, n: int = 400) -> tuple[pl.DataFrame, np.ndarray]:
    """Columns of very different scales, one zero-inflated, one of few integers, some missing."""
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b", "c"], n, p=[0.5, 0.3, 0.2])
    shift = (y == "b") + 2.0 * (y == "c")
    gain = np.where(rng.random(n) < 0.8 - 0.2 * shift, 0.0, rng.lognormal(8 + shift, 1.0, n))
    frame = pl.DataFrame(
        {
            "tiny": rng.normal(1e-6 * (1 + shift), 1e-6, n).round(9),
            "huge": rng.normal(1e9 * (1 + 0.3 * shift), 2e8, n).round(-3),
            "gain": gain.round(0),
            "codes": rng.integers(0, 4, n) + (shift > 1),
            "colour": rng.choice(["red", "green"], n),
        }
    ).with_columns(
        pl.when(pl.Series(rng.random(n) < 0.1)).then(None).otherwise(pl.col("huge")).alias("huge")
    )
    return frame, y


def scaled(frame: pl.DataFrame, factors: dict[str, float]) -> pl.DataFrame:
    return frame.with_columns(
        (pl.col(name).cast(pl.Float64) * factor).alias(name) for name, factor in factors.items()
    )


@pytest.mark.parametrize(
    "params",
    [
        {},  # the default: each column's family chosen from the data
        {"continuous": "gaussian"},
        {"continuous": "gaussian", "ddof": 1, "var_smoothing": 1e-3},
        {"continuous": "kde"},
        {"continuous": "kde", "bandwidth": "scott-pooled"},
        {"continuous": "kde", "point_masses": None},
        {"continuous": "mdl"},
        {"continuous": "equal-frequency"},
        {"continuous": "equal-width"},
    ],
    ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "auto",
)
@pytest.mark.parametrize("factor", SCALES)
def test_table_model_does_not_depend_on_a_columns_units(params, factor):
    """Each numeric column scaled on its own (the others untouched): same families, same
    predictions, same probabilities (the sketches hold every value exactly here). The
    calibration is left out: its row sample is chosen by a hash of the rows' values, which a
    new unit changes (docs/calibration.md)."""
    frame, y = mixed_table()
    params = {**params, "calibration": None}
    reference = nbayes.NaiveBayes(**params).fit(frame, y)
    expected = reference.predict_proba(frame)
    for name in ("tiny", "huge", "gain"):
        other = scaled(frame, {name: factor})
        model = nbayes.NaiveBayes(**params).fit(other, y)
        assert model.families_ == reference.families_, name
        np.testing.assert_allclose(
            model.predict_proba(other), expected, rtol=1e-6, atol=1e-12, err_msg=name
        )
        np.testing.assert_array_equal(model.predict(other), reference.predict(frame))
