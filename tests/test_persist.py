"""Model files: round trips for every family and option, and a loader that refuses damage."""

from __future__ import annotations

import hashlib
import json
import pickle
import struct
from pathlib import Path

import numpy as np
import polars as pl
import pytest
import scipy.sparse as sp

import nbayes
from nbayes import persist
from nbayes.exceptions import ModelFileError

RNG = np.random.default_rng(7)
X_CODES = RNG.integers(0, 4, (80, 3))
X_REAL = RNG.normal(size=(80, 3)) * [1, 10, 100]
X_COUNTS = RNG.poisson(2.0, (80, 5)).astype(float)
Y = np.array(["spam", "ham", "eggs"])[RNG.integers(0, 3, 80)]

ESTIMATORS = [
    (
        nbayes.CategoricalNB(alpha=0.5, class_prior="smoothed", min_categories=5, unknown="smooth"),
        X_CODES,
    ),
    (nbayes.CategoricalNB(alpha=[0.1, 1.0, 2.0], loss=[[0, 1, 4], [1, 0, 1], [2, 1, 0]]), X_CODES),
    (nbayes.GaussianNB(priors=[0.2, 0.3, 0.5], var_smoothing=1e-6), X_REAL),
    (nbayes.MultinomialNB(alpha=np.full(5, 0.3), fit_prior=False), X_COUNTS),
    (nbayes.MultinomialNB(), sp.csr_array(X_COUNTS)),
    (nbayes.ComplementNB(norm=True), X_COUNTS),
    (nbayes.BernoulliNB(binarize=1.5, class_prior="uniform"), X_COUNTS),
    (nbayes.PoissonNB(alpha=0.0), X_COUNTS),
]


def table() -> pl.DataFrame:
    n = 120
    rng = np.random.default_rng(3)
    return pl.DataFrame(
        {
            "colour": rng.choice(["red", "green", None], n).tolist(),
            "flag": rng.choice([True, False], n).tolist(),
            "code": rng.integers(0, 5, n),
            "ratio": rng.choice([0.5, 1.5, 2.5], n),
            "height": rng.normal(170, 10, n),
            "visits": rng.poisson(3, n),
            "income": rng.lognormal(10, 1, n),
            "score": rng.normal(size=n),
            "age": rng.integers(18, 90, n).astype(float),
            "weight": rng.normal(70, 15, n),
            "label": rng.choice(["a", "b"], n).tolist(),
        }
    )


NAIVE_BAYES = [
    nbayes.NaiveBayes(),
    nbayes.NaiveBayes(
        families={
            "ratio": "categorical",
            "visits": "poisson",
            "income": "kde",
            "score": "mdl",
            "age": "equal-width",
            "weight": "equal-frequency",
        },
        alpha={"colour": 0.5, "code": 2.0},
        class_prior="smoothed",
        unknown="smooth",
        loss=[[0, 3], [1, 0]],
        bins=4,
        bandwidth=0.8,
        max_bins=16,
    ),
]


def predictions(model, X) -> tuple:
    return model.predict_proba(X), model.predict(X), model.predict_joint_log_proba(X)


@pytest.mark.parametrize("model, X", ESTIMATORS, ids=lambda v: repr(v)[:40])
def test_estimator_round_trip(tmp_path: Path, model, X):
    model.fit(X, Y)
    path = nbayes.save(model, tmp_path / "model.nbm")
    loaded = nbayes.load(path)
    assert type(loaded) is type(model)
    assert repr(loaded) == repr(model)
    for before, after in zip(predictions(model, X), predictions(loaded, X), strict=True):
        np.testing.assert_array_equal(before, after)
    np.testing.assert_array_equal(loaded.classes_, model.classes_)


@pytest.mark.parametrize("model", NAIVE_BAYES, ids=["default", "every-family"])
def test_naive_bayes_round_trip(tmp_path: Path, model):
    frame = table()
    model.fit(frame, target="label")
    loaded = nbayes.load(nbayes.save(model, tmp_path / "nb.nbm"))
    features = frame.drop("label")
    for before, after in zip(
        predictions(model, features), predictions(loaded, features), strict=True
    ):
        np.testing.assert_array_equal(before, after)
    assert loaded.summary() == model.summary()
    assert [(s.name, s.family) for s in loaded.schema_] == [
        (s.name, s.family) for s in model.schema_
    ]
    # the loaded model keeps learning exactly like the original
    more = frame.head(30)
    model.partial_fit(more, target="label")
    loaded.partial_fit(more, target="label")
    np.testing.assert_array_equal(model.predict_proba(features), loaded.predict_proba(features))


def test_save_is_atomic_and_keeps_the_old_model(tmp_path: Path, monkeypatch):
    path = tmp_path / "model.nbm"
    good = nbayes.CategoricalNB().fit(X_CODES, Y)
    nbayes.save(good, path)
    before = path.read_bytes()
    with pytest.raises(nbayes.NotFittedError):
        nbayes.save(nbayes.CategoricalNB(), path)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(persist.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        nbayes.save(nbayes.CategoricalNB(alpha=2.0).fit(X_CODES, Y), path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.nbm"]  # no temporary left


def _rewrap(document: bytes) -> bytes:
    return persist.MAGIC + document + hashlib.sha256(document).digest()


def _with_header(payload: bytes, edit) -> bytes:
    """A re-signed file whose safetensors header JSON was edited by ``edit``."""
    document = payload[len(persist.MAGIC) : -32]
    (length,) = struct.unpack("<Q", document[:8])
    header = json.loads(document[8 : 8 + length])
    edit(header)
    raw = json.dumps(header).encode()
    return _rewrap(struct.pack("<Q", len(raw)) + raw + document[8 + length :])


@pytest.fixture
def payload() -> bytes:
    return persist.dumps(nbayes.NaiveBayes().fit(table(), target="label"))


def test_truncated_files_are_refused(payload: bytes):
    for cut in (0, 3, 8, 20, len(payload) // 2, len(payload) - 1):
        with pytest.raises(ModelFileError):
            persist.loads(payload[:cut])


def test_flipped_bytes_are_refused(payload: bytes):
    for position in range(0, len(payload), max(1, len(payload) // 97)):
        damaged = bytearray(payload)
        damaged[position] ^= 0x5A
        with pytest.raises(ModelFileError):
            persist.loads(bytes(damaged))


def test_wrong_versions_are_refused(payload: bytes):
    def version(number):
        def edit(header):
            meta = json.loads(header["__metadata__"]["nbayes"])
            meta["version"] = number
            header["__metadata__"]["nbayes"] = json.dumps(meta)

        return edit

    for number in (0, 2, "1", None):
        with pytest.raises(ModelFileError, match="version"):
            persist.loads(_with_header(payload, version(number)))


def test_huge_declared_shapes_are_refused(payload: bytes):
    def huge(header):
        name = next(k for k in header if k != "__metadata__")
        header[name]["shape"] = [10**12, 10**6]

    with pytest.raises(ModelFileError):
        persist.loads(_with_header(payload, huge))


def test_inconsistent_arrays_are_refused():
    model = nbayes.CategoricalNB().fit(X_CODES, Y)
    meta, arrays = model._to_state()
    arrays["stats.n_categories"] = np.array([4, 4, 10**9])
    header = {"format": "nbayes-model", "version": 1, "class": "CategoricalNB", **meta}
    from safetensors.numpy import save as save_arrays

    document = save_arrays(arrays, metadata={"nbayes": json.dumps(header)})
    with pytest.raises(ModelFileError, match="consistent"):
        persist.loads(_rewrap(document))
    arrays["stats.n_categories"] = np.array([4, 4, 4])
    arrays["stats.counts"] = arrays["stats.counts"] * np.nan
    document = save_arrays(arrays, metadata={"nbayes": json.dumps(header)})
    with pytest.raises(ModelFileError, match="NaN"):
        persist.loads(_rewrap(document))


class Trap:
    """Unpickling this would create a file: the loader must never get that far."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        return (Path(self.path).write_text, ("pwned",))


def test_a_pickle_renamed_to_nbm_is_refused_without_running_it(tmp_path: Path):
    marker = tmp_path / "executed"
    path = tmp_path / "model.nbm"
    path.write_bytes(pickle.dumps(Trap(str(marker))))
    with pytest.raises(ModelFileError, match="pickle"):
        nbayes.load(path)
    assert not marker.exists()
    with pytest.raises(ModelFileError, match="cannot read"):
        nbayes.load(tmp_path / "absent.nbm")


def test_unknown_class_is_refused(payload: bytes):
    def rename(header):
        meta = json.loads(header["__metadata__"]["nbayes"])
        meta["class"] = "os.system"
        header["__metadata__"]["nbayes"] = json.dumps(meta)

    with pytest.raises(ModelFileError, match="unknown model class"):
        persist.loads(_with_header(payload, rename))


def test_only_nbayes_models_and_fitted_ones_are_saved(tmp_path: Path):
    with pytest.raises(TypeError):
        nbayes.save(object(), tmp_path / "x.nbm")
    with pytest.raises(nbayes.NotFittedError):
        nbayes.save(nbayes.GaussianNB(), tmp_path / "x.nbm")


TEXTS = ["win a free prize now", "lunch at noon?", "free entry claim prize", "see you at lunch",
         "call now to claim", "meeting moved to 3pm", None, "café crème"]  # fmt: skip
LABELS = ["spam", "ham", "spam", "ham", "spam", "ham", "ham", "ham"]


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"mode": "vocabulary", "alpha": 0.03},
        {"model": "multinomial", "idf": True},
        {"model": "bernoulli", "ngram_range": (1, 1)},
        {"max_names": 0},
    ],
    ids=["default", "vocabulary", "multinomial-idf", "bernoulli", "no-names"],
)
def test_text_classifier_round_trip(tmp_path: Path, params):
    model = nbayes.TextClassifier(**params).fit(TEXTS, LABELS)
    loaded = nbayes.load(nbayes.save(model, tmp_path / "text.nbm"))
    # the same parameters, of the same types (a tuple stays a tuple, though JSON has none)
    assert repr(loaded) == repr(model) and loaded.get_params() == model.get_params()
    query = ["claim your free prize", "lunch tomorrow?", ""]
    np.testing.assert_array_equal(loaded.predict_proba(query), model.predict_proba(query))
    assert loaded.top_features("spam", 3) == model.top_features("spam", 3)
    model.partial_fit(["free free free"], ["spam"])
    loaded.partial_fit(["free free free"], ["spam"])
    np.testing.assert_array_equal(loaded.predict_proba(query), model.predict_proba(query))


def test_damaged_token_tables_are_refused():
    model = nbayes.TextClassifier(mode="vocabulary").fit(TEXTS, LABELS)
    meta, arrays = model._to_state()
    from safetensors.numpy import save as save_arrays

    header = {"format": "nbayes-model", "version": 1, "class": "TextClassifier", **meta}
    for name, value in [
        ("vectorizer.vocabulary.offsets", np.array([0, 5, 3, 10**9])),  # decreasing, too far
        ("vectorizer.vocabulary.arena", np.zeros(3, dtype=np.uint8)),  # shorter than offsets say
        ("vectorizer.df", np.zeros(2)),  # fewer columns than the vocabulary
    ]:
        damaged = {**arrays, name: value}
        document = save_arrays(damaged, metadata={"nbayes": json.dumps(header)})
        with pytest.raises(ModelFileError):
            persist.loads(_rewrap(document))
