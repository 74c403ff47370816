"""Bad input gets an exception that names the culprit; the caller's arrays are never modified.

Every message is matched on the key words that identify what was wrong (the parameter, the
feature index and name, the row), not merely on the exception type.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import nbayes

ALL = list(nbayes.ESTIMATORS)
DISCRETE = [c for c in ALL if c is not nbayes.GaussianNB]
NAN_REJECTING = [nbayes.MultinomialNB, nbayes.ComplementNB, nbayes.BernoulliNB, nbayes.PoissonNB]
NAN_ACCEPTING = [nbayes.GaussianNB, nbayes.CategoricalNB]

X = np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 3.0], [2.0, 0.0, 1.0], [1.0, 1.0, 1.0]])
Y = np.array([0, 1, 0, 1])


def ids(classes):
    return [c.__name__ for c in classes]


def prior_name(cls) -> str:
    return "priors" if cls is nbayes.GaussianNB else "class_prior"


# --------------------------------------------------------------------------- shapes
@pytest.mark.parametrize("cls", ALL, ids=ids(ALL))
def test_x_y_length_mismatch(cls):
    with pytest.raises(ValueError, match=r"4 rows but y has 3 labels.*inconsistent numbers"):
        cls().fit(X, Y[:3])
    with pytest.raises(ValueError, match=r"4 rows but y has 5 labels"):
        cls().partial_fit(X, [0, 1, 0, 1, 0], classes=[0, 1])


@pytest.mark.parametrize("cls", ALL, ids=ids(ALL))
def test_empty_x(cls):
    with pytest.raises(ValueError, match=r"0 sample\(s\) \(shape=\(0, 3\)\)"):
        cls().fit(np.empty((0, 3)), [])
    with pytest.raises(ValueError, match=r"0 feature\(s\) \(shape=\(4, 0\)\)"):
        cls().fit(np.empty((4, 0)), Y)
    fitted = cls().fit(X, Y)
    with pytest.raises(ValueError, match=r"0 sample\(s\)"):
        fitted.predict(np.empty((0, 3)))


@pytest.mark.parametrize("cls", ALL, ids=ids(ALL))
def test_wrong_number_of_features_at_prediction(cls):
    model = cls().fit(X, Y)
    for method in (model.predict, model.predict_proba, model.predict_log_proba):
        with pytest.raises(
            ValueError, match=rf"X has 2 features, but {cls.__name__} is expecting 3"
        ):
            method(X[:, :2])
    with pytest.raises(ValueError, match="X has 4 features"):
        model.partial_fit(np.hstack([X, X[:, :1]]), Y)


@pytest.mark.parametrize("cls", ALL, ids=ids(ALL))
def test_one_dimensional_x_is_rejected_with_a_reshape_hint(cls):
    with pytest.raises(ValueError, match=r"expected 2D array, got 1D array.*reshape\(-1, 1\)"):
        cls().fit(X[:, 0], Y)


# --------------------------------------------------------------------------- values in X
@pytest.mark.parametrize("cls", NAN_REJECTING, ids=ids(NAN_REJECTING))
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nan_and_inf_rejected_naming_feature_and_row(cls, bad):
    data = X.copy()
    data[2, 1] = bad
    kind = "NaN" if np.isnan(bad) else "inf"
    with pytest.raises(ValueError, match=rf"contains {kind} in feature 1, first at row 2"):
        cls().fit(data, Y)
    frame = pd.DataFrame(data, columns=["apples", "pears", "plums"])
    with pytest.raises(
        ValueError, match=rf"contains {kind} in feature 1 \('pears'\), first at row 2"
    ):
        cls().fit(frame, Y)
    # at prediction, too, with the column name of the fitted frame
    model = cls().fit(pd.DataFrame(X, columns=["apples", "pears", "plums"]), Y)
    with pytest.raises(ValueError, match=rf"{kind} in feature 1 \('pears'\), first at row 2"):
        model.predict_proba(frame)


@pytest.mark.parametrize("cls", NAN_REJECTING, ids=ids(NAN_REJECTING))
def test_nan_in_sparse_input_names_feature_and_row(cls):
    data = X.copy()
    data[2, 2] = np.nan
    with pytest.raises(ValueError, match=r"NaN in feature 2, first at row 2"):
        cls().fit(sp.csr_array(data), Y)


@pytest.mark.parametrize("cls", NAN_ACCEPTING, ids=ids(NAN_ACCEPTING))
def test_inf_rejected_but_nan_accepted(cls):
    data = X.copy()
    data[1, 2] = np.inf
    with pytest.raises(ValueError, match=r"contains inf in feature 2, first at row 1"):
        cls().fit(data, Y)
    frame = pd.DataFrame(data, columns=["a", "b", "c"])
    with pytest.raises(ValueError, match=r"contains inf in feature 2 \('c'\), first at row 1"):
        cls().fit(frame, Y)
    data[1, 2] = np.nan
    model = cls().fit(data, Y)  # NaN is a missing value
    proba = model.predict_proba(data)
    assert np.all(np.isfinite(proba))
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    inf_row = X[:1].copy()
    inf_row[0, 0] = -np.inf
    with pytest.raises(ValueError, match=r"contains inf in feature 0, first at row 0"):
        model.predict(inf_row)


@pytest.mark.parametrize("cls", [nbayes.MultinomialNB, nbayes.PoissonNB, nbayes.ComplementNB])
@pytest.mark.parametrize("sparse", [False, True])
def test_negative_counts_rejected(cls, sparse):
    data = X.copy()
    data[3, 2] = -1.0
    data = sp.csr_array(data) if sparse else data
    with pytest.raises(ValueError, match=r"Negative values.*feature 2 is negative at row 3"):
        cls().fit(data, Y)
    model = cls().fit(X, Y)
    with pytest.raises(ValueError, match=r"Negative values.*feature 2 is negative at row 3"):
        model.predict(data)


def test_non_integer_category_codes_rejected():
    data = X.copy()
    data[2, 1] = 1.5
    with pytest.raises(
        ValueError, match=r"Non-integer category codes.*feature 1 has 1\.5 at row 2"
    ):
        nbayes.CategoricalNB().fit(data, Y)
    frame = pd.DataFrame(data, columns=["colour", "size", "shape"])
    with pytest.raises(ValueError, match=r"feature 1 \('size'\) has 1\.5 at row 2"):
        nbayes.CategoricalNB().fit(frame, Y)
    model = nbayes.CategoricalNB().fit(X, Y)
    with pytest.raises(ValueError, match=r"Non-integer category codes.*feature 1"):
        model.predict(data)


@pytest.mark.parametrize("dtype", [np.int64, np.float64])
def test_negative_category_codes_rejected(dtype):
    data = X.astype(dtype)
    data[1, 0] = -2
    with pytest.raises(ValueError, match=r"Negative values.*feature 0 has code -2.* at row 1"):
        nbayes.CategoricalNB().fit(data, Y)


@pytest.mark.parametrize("sparse", [False, True])
def test_bernoulli_without_binarize_needs_binary_values(sparse):
    data = np.minimum(X, 1.0)
    data[3, 2] = 4.0
    with pytest.raises(
        ValueError, match=r"binarize=None takes binary.*feature 2 has 4\.0 at row 3"
    ):
        nbayes.BernoulliNB(binarize=None).fit(sp.csr_array(data) if sparse else data, Y)
    model = nbayes.BernoulliNB(binarize=None).fit(np.minimum(X, 1.0), Y)
    frame = pd.DataFrame(-np.minimum(X, 1.0), columns=["a", "b", "c"])
    with pytest.raises(ValueError, match=r"feature 0 \('a'\) has -1\.0 at row 0"):
        nbayes.BernoulliNB(binarize=None).fit(frame.abs(), Y).predict(frame)
    assert model.predict(np.minimum(X, 1.0)).shape == (4,)


def test_strings_in_x_are_rejected_with_a_hint():
    data = np.array([["a", "b"], ["c", "d"]], dtype=object)
    with pytest.raises(ValueError, match=r"not numbers.*Encode them"):
        nbayes.CategoricalNB().fit(data, [0, 1])


def test_sparse_input_to_a_dense_only_model():
    for cls in (nbayes.GaussianNB, nbayes.CategoricalNB):
        with pytest.raises(TypeError, match=r"sparse data was passed.*dense data is required"):
            cls().fit(sp.csr_array(X), Y)


# --------------------------------------------------------------------------- partial_fit
@pytest.mark.parametrize("cls", ALL, ids=ids(ALL))
def test_partial_fit_label_outside_classes(cls):
    with pytest.raises(ValueError, match=r"label\(s\) array\(\[7\]\).*do not exist.*row 2"):
        cls().partial_fit(X, [0, 1, 7, 1], classes=[0, 1])
    model = cls().partial_fit(X, Y, classes=[0, 1])
    with pytest.raises(ValueError, match=r"label\(s\) array\(\[5\]\).*do not exist.*row 0"):
        model.partial_fit(X, [5, 1, 0, 1])


@pytest.mark.parametrize("cls", ALL, ids=ids(ALL))
def test_partial_fit_first_call_needs_classes(cls):
    with pytest.raises(ValueError, match=r"classes must be passed on the first call"):
        cls().partial_fit(X, Y)
    model = cls().partial_fit(X, Y, classes=[0, 1])
    with pytest.raises(ValueError, match=r"classes=.*not the same as on last call"):
        model.partial_fit(X, Y, classes=[0, 1, 2])


# --------------------------------------------------------------------------- loss matrices
@pytest.mark.parametrize("cls", ALL, ids=ids(ALL))
def test_loss_of_wrong_shape_or_negative(cls):
    with pytest.raises(ValueError, match=r"loss must have shape .*\(2, 2\).*got shape \(3, 3\)"):
        cls(loss=np.ones((3, 3))).fit(X, Y).predict(X)
    with pytest.raises(ValueError, match=r"loss entries must be finite and >= 0; loss\[0\]\[1\]"):
        cls(loss=[[0.0, -1.0], [1.0, 0.0]]).fit(X, Y).predict(X)
    model = cls().fit(X, Y)
    with pytest.raises(ValueError, match=r"loss must have shape .*got shape \(2,\)"):
        model.predict(X, loss=[1.0, 0.0])
    with pytest.raises(ValueError, match=r"loss\[1\]\[0\] = -0\.5"):
        model.predict(X, loss=[[0.0, 1.0], [-0.5, 0.0]])
    with pytest.raises(ValueError, match=r"loss\[1\]\[1\] = nan"):
        model.predict_risk(X, loss=[[0.0, 1.0], [1.0, np.nan]])
    # what is not a matrix of numbers is named in words, not in NumPy's
    with pytest.raises(ValueError, match=r"matrix of numbers: it is ragged") as ragged:
        model.predict(X, loss=[[0.0, 1.0], [1.0]])
    assert "inhomogeneous" not in str(ragged.value)
    with pytest.raises(ValueError, match=r"matrix of numbers: 'high' is not a number"):
        model.predict(X, loss=[[0.0, "high"], [1.0, 0.0]])


# --------------------------------------------------------------------------- priors
@pytest.mark.parametrize("cls", ALL, ids=ids(ALL))
def test_bad_priors(cls):
    name = prior_name(cls)
    with pytest.raises(ValueError, match=rf"non-negative: {name}\[1\] = -0\.5"):
        cls(**{name: [1.5, -0.5]}).fit(X, Y)
    with pytest.raises(ValueError, match=rf"sum of the priors should be 1: {name} sums to 0\.6"):
        cls(**{name: [0.3, 0.3]}).fit(X, Y)
    with pytest.raises(ValueError, match=rf"{name} has 3 entries for 2 classes"):
        cls(**{name: [0.2, 0.3, 0.5]}).fit(X, Y)
    with pytest.raises(ValueError, match=rf"{name} must be one of"):
        cls(**{name: "flat"}).fit(X, Y)
    model = cls().fit(X, Y)
    with pytest.raises(ValueError, match=r"non-negative: priors\[0\] = -0\.1"):
        model.predict_proba(X, priors=[-0.1, 1.1])
    with pytest.raises(ValueError, match=r"priors sums to 0\.6"):
        model.predict(X, priors=[0.3, 0.3])
    with pytest.raises(ValueError, match=r"priors has 1 entry for 2 classes"):
        model.predict_log_proba(X, priors=[1.0])


# --------------------------------------------------------------------------- smoothing
@pytest.mark.parametrize("cls", DISCRETE, ids=ids(DISCRETE))
def test_negative_alpha(cls):
    with pytest.raises(ValueError, match=r"alpha must be a finite number >= 0.*got -1"):
        cls(alpha=-1).fit(X, Y)
    with pytest.raises(ValueError, match=r"alpha must be >= 0; entry 1 is -1\.0"):
        cls(alpha=[1.0, -1.0, 1.0]).fit(X, Y)
    with pytest.raises(ValueError, match=r"prior_alpha must be >= 0"):
        cls(prior_alpha=-0.5).fit(X, Y)


@pytest.mark.parametrize("cls", DISCRETE, ids=ids(DISCRETE))
def test_alpha_vector_of_wrong_length(cls):
    for alpha in ([1.0, 1.0], [1.0, 1.0, 1.0, 1.0]):
        with pytest.raises(ValueError, match=rf"one value per feature: got {len(alpha)} values "):
            cls(alpha=alpha).fit(X, Y)
        with pytest.raises(ValueError, match=r"one value per feature"):
            cls(alpha=alpha).partial_fit(X, Y, classes=[0, 1])
    # changed after fitting: caught at the next prediction
    model = cls().fit(X, Y)
    model.alpha = [0.5, 0.5]
    with pytest.raises(ValueError, match=r"got 2 values for 3 features"):
        model.predict(X)


def test_negative_var_smoothing():
    with pytest.raises(ValueError, match=r"var_smoothing must be >= 0"):
        nbayes.GaussianNB(var_smoothing=-1e-9).fit(X, Y)


def test_unknown_mode_of_categorical():
    with pytest.raises(ValueError, match=r"unknown must be one of"):
        nbayes.CategoricalNB(unknown="drop").fit(X, Y)


def test_bad_min_categories():
    with pytest.raises(ValueError, match=r"min_categories must be >= 1"):
        nbayes.CategoricalNB(min_categories=0).fit(X, Y)
    with pytest.raises(ValueError, match=r"'min_categories' should have shape \(3,\)"):
        nbayes.CategoricalNB(min_categories=[2, 2]).fit(X, Y)


# --------------------------------------------------------------------------- labels
@pytest.mark.parametrize("cls", ALL, ids=ids(ALL))
def test_bad_labels(cls):
    with pytest.raises(ValueError, match=r"y contains NaN or inf at row 1"):
        cls().fit(X, [0.0, np.nan, 1.0, 0.0])
    with pytest.raises(ValueError, match=r"missing label at row 2"):
        cls().fit(X, np.array(["a", "b", None, "a"], dtype=object))
    with pytest.raises(ValueError, match=r"Unknown label type: continuous"):
        cls().fit(X, [0.5, 1.25, 0.0, 3.0])
    with pytest.raises(ValueError, match=r"y should be a 1d array.*shape \(4, 2\)"):
        cls().fit(X, np.zeros((4, 2)))
    with pytest.raises(ValueError, match=r"requires y to be passed"):
        cls().fit(X, None)


# --------------------------------------------------------------------------- sample weights
@pytest.mark.parametrize("cls", ALL, ids=ids(ALL))
def test_bad_sample_weight(cls):
    with pytest.raises(ValueError, match=r"sample_weight must be non-negative; row 1 has -1\.0"):
        cls().fit(X, Y, sample_weight=[1.0, -1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match=r"sample_weight\.shape == \(3,\), expected \(4,\)"):
        cls().fit(X, Y, sample_weight=[1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match=r"at least one non-zero.*all 4 weights are zero"):
        cls().fit(X, Y, sample_weight=np.zeros(4))
    with pytest.raises(ValueError, match=r"sample_weight is NaN or infinite at row 3"):
        cls().partial_fit(X, Y, classes=[0, 1], sample_weight=[1.0, 1.0, 1.0, np.inf])


# --------------------------------------------------------------------------- unfitted
@pytest.mark.parametrize("cls", ALL, ids=ids(ALL))
def test_unfitted_model(cls):
    for method in ("predict", "predict_proba", "predict_log_proba", "predict_risk"):
        with pytest.raises(nbayes.NotFittedError, match=rf"This {cls.__name__} instance is not"):
            getattr(cls(), method)(X)


# --------------------------------------------------------------------------- never modified
def _read_only(a):
    if sp.issparse(a):
        for part in (a.data, a.indices, a.indptr):
            part.setflags(write=False)
    elif isinstance(a, np.ndarray):
        a.setflags(write=False)
    return a


def _snapshot(a):
    if sp.issparse(a):
        return (a.data.copy(), a.indices.copy(), a.indptr.copy(), a.shape)
    return np.array(a, copy=True)


def _assert_unchanged(a, before):
    if sp.issparse(a):
        data, indices, indptr, shape = before
        assert a.shape == shape
        np.testing.assert_array_equal(a.indptr, indptr)
        np.testing.assert_array_equal(a.indices, indices)
        np.testing.assert_array_equal(a.data, data)  # NaN compares equal here
    else:
        np.testing.assert_array_equal(a, before)


def _inputs(kind: str, rng: np.random.Generator):
    n, d = 40, 5
    if kind in ("real", "real-nan"):
        X = rng.normal(3.0, 2.0, (n, d))
    elif kind in ("codes", "codes-nan"):
        X = rng.integers(0, 4, (n, d)).astype(np.float64)
    elif kind == "codes-int":
        X = rng.integers(0, 4, (n, d))
    else:
        X = rng.poisson(1.2, (n, d)).astype(np.float64)
    if kind.endswith("nan"):
        X[rng.random((n, d)) < 0.2] = np.nan
    if kind == "counts-csr":
        X = sp.csr_array(X)
    if kind == "counts-csr-matrix":
        X = sp.csr_matrix(X)
    return X


INPUTS = [
    (nbayes.GaussianNB, "real"),
    (nbayes.GaussianNB, "real-nan"),
    (nbayes.CategoricalNB, "codes"),
    (nbayes.CategoricalNB, "codes-int"),
    (nbayes.CategoricalNB, "codes-nan"),
    (nbayes.MultinomialNB, "counts"),
    (nbayes.MultinomialNB, "counts-csr"),
    (nbayes.MultinomialNB, "counts-csr-matrix"),
    (nbayes.ComplementNB, "counts"),
    (nbayes.ComplementNB, "counts-csr"),
    (nbayes.BernoulliNB, "counts"),
    (nbayes.BernoulliNB, "counts-csr"),
    (nbayes.PoissonNB, "counts"),
    (nbayes.PoissonNB, "counts-csr"),
]


@pytest.mark.parametrize(("cls", "kind"), INPUTS, ids=[f"{c.__name__}-{k}" for c, k in INPUTS])
@pytest.mark.parametrize("read_only", [True, False], ids=["read-only", "writeable"])
def test_callers_arrays_are_never_modified(cls, kind, read_only):
    rng = np.random.default_rng(7)
    X = _inputs(kind, rng)
    X2 = _inputs(kind, rng)
    y = rng.integers(0, 3, X.shape[0])
    y[:3] = [0, 1, 2]
    weight = rng.uniform(0.5, 2.0, X.shape[0])
    classes = np.array([0, 1, 2])
    loss = np.array([[0.0, 1.0, 4.0], [2.0, 0.0, 1.0], [1.0, 3.0, 0.0]])
    priors = np.array([0.2, 0.3, 0.5])
    alpha = np.array([0.5, 1.0, 2.0, 0.1, 1.0])
    arrays = [X, X2, y, weight, classes, loss, priors, alpha]
    before = [_snapshot(a) for a in arrays]
    if read_only:
        for a in arrays:
            _read_only(a)
    params = {"loss": loss}
    if cls in (nbayes.MultinomialNB, nbayes.ComplementNB, nbayes.BernoulliNB):
        params["alpha"] = alpha
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", nbayes.UnseenCategoryWarning)
        model = cls(**params).fit(X, y, sample_weight=weight)
        model.partial_fit(X2, y, sample_weight=weight)
        other = cls(**params).partial_fit(X2, y, classes=classes, sample_weight=weight)
        other.partial_fit(X, y)
        merged = nbayes.merge(model, other)
        model.merge(other)
        for m in (model, merged):
            m.predict(X2)
            m.predict(X2, priors=priors, loss=loss)
            m.predict_proba(X2, priors=priors)
            m.predict_log_proba(X2)
            m.predict_joint_log_proba(X2)
            m.predict_risk(X2, loss=loss)
            m.score(X2, y, sample_weight=weight)
    for a, b in zip(arrays, before, strict=True):
        _assert_unchanged(a, b)


def test_dataframe_is_not_modified():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(rng.normal(size=(20, 3)), columns=["a", "b", "c"])
    frame.iloc[2, 1] = np.nan
    labels = pd.Series(rng.integers(0, 2, 20))
    frame_before, labels_before = frame.copy(deep=True), labels.copy(deep=True)
    model = nbayes.GaussianNB().fit(frame, labels)
    model.predict_proba(frame)
    pd.testing.assert_frame_equal(frame, frame_before)
    pd.testing.assert_series_equal(labels, labels_before)


def test_merge_does_not_modify_the_other_model():
    rng = np.random.default_rng(4)
    a = nbayes.GaussianNB().fit(rng.normal(size=(10, 2)), [0, 1] * 5)
    b = nbayes.GaussianNB().fit(rng.normal(size=(10, 2)), [1, 2] * 5)
    b_before = copy.deepcopy(b._stats.state()), b.class_count_.copy(), b.classes_.copy()
    a.merge(b)
    for name, value in b_before[0].items():
        np.testing.assert_array_equal(b._stats.state()[name], value)
    np.testing.assert_array_equal(b.class_count_, b_before[1])
    np.testing.assert_array_equal(b.classes_, b_before[2])
