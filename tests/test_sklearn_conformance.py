"""scikit-learn conformance: the estimator checks, and the ecosystem (pipelines, search, CV,
calibration, clone, column transformers, pandas, the classifier protocol, NotFittedError)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn.exceptions
from sklearn import naive_bayes as skl
from sklearn.base import clone, is_classifier
from sklearn.calibration import CalibratedClassifierCV
from sklearn.compose import ColumnTransformer
from sklearn.feature_extraction.text import CountVectorizer
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import FunctionTransformer, OrdinalEncoder, StandardScaler
from sklearn.utils.estimator_checks import check_estimator
from sklearn.utils.validation import check_is_fitted

import nbayes

ESTIMATORS = list(nbayes.ESTIMATORS)
NAMES = [c.__name__ for c in ESTIMATORS]

# scikit-learn feeds CategoricalNB random floats as category codes in these two checks and expects
# them silently truncated to integers; nbayes rejects non-integer codes with a clear error instead.
CATEGORICAL_REASON = (
    "passes non-integer floats as category codes, which scikit-learn truncates silently and "
    "nbayes rejects with a clear error (a deliberate choice)"
)
EXPECTED_FAILURES = {
    "CategoricalNB": {
        "check_sample_weight_equivalence_on_dense_data": CATEGORICAL_REASON,
        "check_classifiers_one_label_sample_weights": CATEGORICAL_REASON,
    }
}


# --------------------------------------------------------------------------- estimator checks
@pytest.mark.parametrize("cls", ESTIMATORS, ids=NAMES)
def test_check_estimator(cls):
    expected = EXPECTED_FAILURES.get(cls.__name__, {})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the checks provoke warnings on purpose
        results = check_estimator(cls(), expected_failed_checks=expected, on_fail=None)
    assert len(results) > 50
    failed = [f"{r['check_name']}: {r['exception']!r}" for r in results if r["status"] == "failed"]
    assert not failed, "\n".join(failed)
    # only the optional array-API check may be skipped (array_api_strict is not installed)
    skipped = {r["check_name"] for r in results if r["status"] == "skipped"}
    assert skipped <= {"check_array_api_input"}, skipped
    # the expected failures do fail, and for the stated reason
    xfailed = {r["check_name"]: r["exception"] for r in results if r["status"] == "xfail"}
    assert set(xfailed) == set(expected)
    for exception in xfailed.values():
        root = exception.__cause__ or exception
        assert isinstance(root, ValueError)
        assert "Non-integer category codes" in str(root)


# --------------------------------------------------------------------------- data per family
TEXTS = [
    "cheap pills buy now",
    "meeting at noon tomorrow",
    "buy cheap watches now now",
    "lunch meeting moved to noon",
    "win money now cheap",
    "project meeting notes attached",
    "cheap cheap offer buy",
    "notes from the project review",
    "limited offer win now",
    "review the attached notes before the meeting",
    "money back offer buy now",
    "agenda for tomorrow noon meeting",
] * 3
TEXT_LABELS = np.array(["spam", "ham"] * 18)


def dense_problem(cls, seed: int = 0, n: int = 120):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    if cls is nbayes.GaussianNB:
        X = rng.normal(y[:, None] * 0.8, 1.0, (n, 4))
    elif cls is nbayes.CategoricalNB:
        X = np.minimum(rng.poisson(0.5 + y[:, None], (n, 4)), 4)
        X[:5] = np.arange(5)[:, None]
    else:
        X = rng.poisson(0.5 + y[:, None] * np.array([1.0, 0.2, 0.5, 0.0]), (n, 4)).astype(float)
    return X, y


GRID = {
    nbayes.GaussianNB: {"var_smoothing": [1e-9, 1e-3, 1e-1, 1.0]},
    nbayes.MultinomialNB: {"alpha": [0.01, 0.1, 1.0, 10.0]},
    nbayes.ComplementNB: {"alpha": [0.01, 0.1, 1.0, 10.0], "norm": [False, True]},
    nbayes.BernoulliNB: {"alpha": [0.01, 1.0, 10.0], "binarize": [0.0, 1.0]},
    nbayes.CategoricalNB: {"alpha": [0.01, 0.5, 1.0, 5.0]},
    nbayes.PoissonNB: {"alpha": [0.0, 0.1, 1.0, 10.0]},
}


def sklearn_twin(model):
    """scikit-learn's estimator of the same name with the same parameters (None for Poisson)."""
    theirs = getattr(skl, type(model).__name__, None)
    if theirs is None:
        return None
    params = {
        k: v for k, v in model.get_params().items() if k not in ("prior_alpha", "loss", "ddof")
    }
    params.pop("unknown", None)
    return theirs(**params)


# --------------------------------------------------------------------------- ecosystem
@pytest.mark.parametrize("cls", ESTIMATORS, ids=NAMES)
def test_protocol_basics(cls):
    model = cls()
    assert is_classifier(model)
    assert model.__sklearn_tags__().estimator_type == "classifier"
    with pytest.raises(sklearn.exceptions.NotFittedError):
        check_is_fitted(model)
    X, y = dense_problem(cls)
    try:
        model.predict(X)
    except sklearn.exceptions.NotFittedError as exc:
        assert isinstance(exc, nbayes.NotFittedError)
    else:
        pytest.fail("predict on an unfitted model did not raise")
    check_is_fitted(model.fit(X, y))


@pytest.mark.parametrize("cls", ESTIMATORS, ids=NAMES)
def test_clone(cls):
    X, y = dense_problem(cls)
    params = {"loss": np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]])}
    if cls is not nbayes.GaussianNB:
        params["alpha"] = 0.5
    model = cls(**params).fit(X, y)
    copy = clone(model)
    assert not hasattr(copy, "classes_")
    assert copy.get_params().keys() == model.get_params().keys()
    np.testing.assert_array_equal(copy.get_params()["loss"], params["loss"])
    np.testing.assert_array_equal(copy.fit(X, y).predict(X), model.predict(X))
    assert repr(copy).startswith(cls.__name__ + "(")


def _pipeline(cls):
    """A pipeline whose first step is natural for the family, and its input."""
    if cls is nbayes.GaussianNB:
        X, y = dense_problem(cls)
        return make_pipeline(StandardScaler(), cls()), X, y
    if cls is nbayes.CategoricalNB:
        X, y = dense_problem(cls)
        words = np.array(["red", "green", "blue", "black", "white"], dtype=object)[X]
        return make_pipeline(OrdinalEncoder(), cls()), words, y
    vectorizer = CountVectorizer(binary=cls is nbayes.BernoulliNB)
    return make_pipeline(vectorizer, cls()), np.array(TEXTS), TEXT_LABELS


@pytest.mark.parametrize("cls", ESTIMATORS, ids=NAMES)
def test_pipeline(cls):
    pipeline, X, y = _pipeline(cls)
    pipeline.fit(X, y)
    transformed = pipeline[:-1].transform(X)
    direct = cls().fit(transformed, y)
    np.testing.assert_array_equal(pipeline.predict(X), direct.predict(transformed))
    np.testing.assert_allclose(pipeline.predict_proba(X), direct.predict_proba(transformed))
    assert pipeline.score(X, y) == direct.score(transformed, y)
    twin = sklearn_twin(cls())
    if twin is not None:
        theirs = clone(pipeline).set_params(**{pipeline.steps[-1][0]: twin}).fit(X, y)
        np.testing.assert_allclose(pipeline.predict_proba(X), theirs.predict_proba(X), atol=1e-9)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=NAMES)
def test_grid_search(cls):
    X, y = dense_problem(cls, seed=1)
    cv = StratifiedKFold(4, shuffle=True, random_state=0)
    search = GridSearchCV(cls(), GRID[cls], cv=cv, scoring="neg_log_loss").fit(X, y)
    # each candidate's score is the mean log loss of the folds, computed here by hand
    for params, score in zip(
        search.cv_results_["params"], search.cv_results_["mean_test_score"], strict=True
    ):
        losses = []
        for train, test in cv.split(X, y):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", nbayes.ZeroLikelihoodWarning)
                p = cls(**params).fit(X[train], y[train]).predict_proba(X[test])
            truth = np.searchsorted([0, 1, 2], y[test])
            losses.append(np.mean(-np.log(np.clip(p[np.arange(len(test)), truth], 1e-15, 1))))
        np.testing.assert_allclose(score, -np.mean(losses), rtol=1e-9)
    best = search.cv_results_["params"][int(np.argmax(search.cv_results_["mean_test_score"]))]
    assert search.best_params_ == best
    assert isinstance(search.best_estimator_, cls)
    twin = sklearn_twin(cls())
    if twin is not None:
        theirs = GridSearchCV(twin, GRID[cls], cv=cv, scoring="neg_log_loss").fit(X, y)
        np.testing.assert_allclose(
            search.cv_results_["mean_test_score"],
            theirs.cv_results_["mean_test_score"],
            rtol=1e-9,
        )


@pytest.mark.parametrize("cls", ESTIMATORS, ids=NAMES)
def test_cross_val_score(cls):
    X, y = dense_problem(cls, seed=2)
    cv = StratifiedKFold(5, shuffle=True, random_state=1)
    scores = cross_val_score(cls(), X, y, cv=cv)
    by_hand = [
        np.mean(cls().fit(X[train], y[train]).predict(X[test]) == y[test])
        for train, test in cv.split(X, y)
    ]
    np.testing.assert_allclose(scores, by_hand)
    twin = sklearn_twin(cls())
    if twin is not None:
        np.testing.assert_allclose(scores, cross_val_score(twin, X, y, cv=cv))


@pytest.mark.parametrize("cls", ESTIMATORS, ids=NAMES)
@pytest.mark.parametrize("method", ["sigmoid", "isotonic"])
def test_calibrated_classifier(cls, method):
    X, y = dense_problem(cls, seed=3, n=240)
    cv = StratifiedKFold(3, shuffle=True, random_state=2)
    calibrated = CalibratedClassifierCV(cls(), method=method, cv=cv).fit(X, y)
    proba = calibrated.predict_proba(X)
    assert proba.shape == (len(X), 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert all(isinstance(c.estimator, cls) for c in calibrated.calibrated_classifiers_)
    twin = sklearn_twin(cls())
    if twin is not None:
        theirs = CalibratedClassifierCV(twin, method=method, cv=cv).fit(X, y)
        np.testing.assert_allclose(proba, theirs.predict_proba(X), atol=1e-6)


def test_column_transformer_output():
    rng = np.random.default_rng(4)
    n = 150
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue"], n),
            "size": rng.choice(["S", "M", "L", "XL"], n),
            "height": rng.normal(170 + 5 * y, 8, n),
            "weight": rng.normal(70 + 4 * y, 10, n),
        }
    )
    categorical = ColumnTransformer(
        [("codes", OrdinalEncoder(), ["colour", "size"])], verbose_feature_names_out=False
    ).set_output(transform="pandas")
    model = make_pipeline(categorical, nbayes.CategoricalNB()).fit(frame, y)
    assert list(model[-1].feature_names_in_) == ["colour", "size"]
    theirs = make_pipeline(clone(categorical), skl.CategoricalNB()).fit(frame, y)
    np.testing.assert_allclose(model.predict_proba(frame), theirs.predict_proba(frame), atol=1e-9)

    numeric = ColumnTransformer(
        [("scaled", StandardScaler(), ["height", "weight"])], remainder="drop"
    )
    model = make_pipeline(numeric, nbayes.GaussianNB()).fit(frame, y)
    theirs = make_pipeline(clone(numeric), skl.GaussianNB()).fit(frame, y)
    np.testing.assert_allclose(model.predict_proba(frame), theirs.predict_proba(frame), atol=1e-9)
    assert model[-1].n_features_in_ == 2


@pytest.mark.parametrize("cls", ESTIMATORS, ids=NAMES)
def test_pandas_feature_names(cls):
    X, y = dense_problem(cls)
    columns = ["alpha", "beta", "gamma", "delta"]
    frame = pd.DataFrame(X, columns=columns)
    model = cls().fit(frame, pd.Series(y, name="label"))
    np.testing.assert_array_equal(model.feature_names_in_, columns)
    np.testing.assert_array_equal(model.predict(frame), cls().fit(X, y).predict(X))
    renamed = frame.rename(columns={"gamma": "GAMMA"})
    with pytest.raises(ValueError, match=r"unseen at fit time: \['GAMMA'\].*missing: \['gamma'\]"):
        model.predict(renamed)
    with pytest.raises(ValueError, match=r"must be in the same order"):
        model.predict_proba(frame[columns[::-1]])
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        model.predict(X)
    # a plain array fit has no feature_names_in_, like scikit-learn
    assert not hasattr(cls().fit(X, y), "feature_names_in_")
    # refitting on an array forgets the names
    assert not hasattr(model.fit(X, y), "feature_names_in_")


@pytest.mark.parametrize("cls", ESTIMATORS, ids=NAMES)
def test_set_params_and_pipeline_params(cls):
    pipeline = Pipeline([("identity", FunctionTransformer()), ("nb", cls())])
    key, values = next(iter(GRID[cls].items()))
    pipeline.set_params(**{f"nb__{key}": values[-1]})
    assert pipeline.get_params()[f"nb__{key}"] == values[-1]
    with pytest.raises(ValueError, match="Invalid parameter 'nonsense'"):
        cls().set_params(nonsense=1)


# --------------------------------------------------------------------------- declared constructors
DECLARED = [
    nbayes.MultinomialNB,
    nbayes.ComplementNB,
    nbayes.BernoulliNB,
    nbayes.CategoricalNB,
    nbayes.semi_naive.AODE,
    nbayes.semi_naive.WAODE,
    nbayes.semi_naive.AnDE,
    nbayes.semi_naive.HNB,
    nbayes.semi_naive.TAN,
    nbayes.semi_naive.KDB,
    nbayes.semi_naive.SelectiveKDB,
    nbayes.text.TextVectorizer,
    nbayes.text.TextClassifier,
]


@pytest.mark.parametrize("cls", DECLARED, ids=[c.__name__ for c in DECLARED])
def test_a_declared_constructor_behaves_as_a_written_one(cls):
    """Constructors built from a parameter list (nbayes._params.constructor) store each argument
    unchanged, report their defaults, refuse unknown names as Python would, and clone."""
    import inspect

    signature = inspect.signature(cls)
    assert "self" not in signature.parameters
    model = cls()
    for name, parameter in signature.parameters.items():
        assert getattr(model, name) is parameter.default, name
        assert parameter.annotation is not inspect.Parameter.empty, name
    name = next(iter(signature.parameters))
    marker = object()
    assert getattr(cls(**{name: marker}), name) is marker
    assert clone(cls(**{name: 7})).get_params()[name] == 7
    assert repr(cls(**{name: 7})) == f"{cls.__name__}({name}=7)"
    with pytest.raises(TypeError, match=f"{cls.__name__}.*unexpected keyword argument 'colour'"):
        cls(colour=1)
    positional = [
        p for p in signature.parameters.values() if p.kind is p.POSITIONAL_OR_KEYWORD
    ]
    with pytest.raises(TypeError, match=f"{cls.__name__}.*too many positional"):
        cls(*([1] * (len(positional) + 1)))


def test_structures_take_their_first_parameter_by_position():
    assert nbayes.semi_naive.KDB(2).k == 2
    assert nbayes.semi_naive.AnDE(1).n == 1
    assert nbayes.semi_naive.SelectiveKDB(4, alpha=0.5).get_params()["k"] == 4


def test_the_structure_of_a_table_model_is_reached_by_nested_parameters():
    """get_params(deep=True) lists a structure's parameters as model__name, and set_params and
    grid search reach them, as for any scikit-learn meta-estimator."""
    from nbayes.semi_naive import KDB, SemiNaiveBayes

    model = SemiNaiveBayes(KDB(1), discriminative=False)
    deep = model.get_params(deep=True)
    assert deep["model__k"] == 1 and deep["model__alpha"] == 1.0 and deep["model"] is model.model
    assert "model__k" not in model.get_params(deep=False)
    assert model.set_params(model__k=2, alpha=0.5) is model
    assert model.model.k == 2 and model.alpha == 0.5
    rng = np.random.default_rng(0)
    X = pd.DataFrame({f"a{j}": rng.choice(["x", "y", "z"], 120) for j in range(4)})
    y = np.where((X["a0"] == "x") ^ (X["a1"] == "y"), "p", "q")
    search = GridSearchCV(
        SemiNaiveBayes(KDB(0), discriminative=False), {"model__k": [0, 2]}, cv=3
    ).fit(X, y)
    assert search.best_params_ == {"model__k": 2}  # the interaction needs a parent
    assert search.best_estimator_.model_.k == 2
    with pytest.raises(ValueError, match="model is 'kdb', not an estimator"):
        SemiNaiveBayes("kdb").set_params(model__k=2)
    with pytest.raises(ValueError, match="Invalid parameter 'colour'"):
        model.set_params(colour__k=2)
