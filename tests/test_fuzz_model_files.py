"""Fuzzing the model-file loader with forged files for every model type (``nbayes.MODELS``).

Each forged file carries a correct checksum (an attacker recomputes it), so only the loader's
own checks stand between it and the model code. Whatever is forged — wrapped, negative, NaN and
huge values, arrays of the wrong shape or dtype, missing or extra arrays, hostile metadata values,
deep JSON, flipped bytes, truncation — the loader must either refuse the file with one
ModelFileError, or return a model that predicts (never NaN) and describes itself. It must never
crash, hang, or allocate far beyond the file's size: the examples run in a child process under a
memory limit (resource.setrlimit), and each load is measured with tracemalloc.
"""

from __future__ import annotations

import os
import tracemalloc
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from forging import forge, parts, sign
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from isolated import run_python

import nbayes
from nbayes import persist
from nbayes.exceptions import ModelFileError

CHILD = os.environ.get("NBAYES_FUZZ_CHILD") == "1"
child_only = pytest.mark.skipif(not CHILD, reason="runs in the memory-limited child process")

RNG = np.random.default_rng(5)
N = 40
CODES = RNG.integers(0, 3, (N, 3))
LABELS = np.array(["a", "b"])[RNG.integers(0, 2, N)]
TABLE = pl.DataFrame(
    {
        "colour": RNG.choice(["red", "green", "blue"], N).tolist(),
        "height": RNG.normal(170, 10, N),
        "income": RNG.lognormal(3, 1, N),
        "score": RNG.normal(size=N),
        "visits": RNG.poisson(3, N),
        "y": LABELS.tolist(),
    }
)
DOCS = ["free prize now", "lunch at noon", "win cash", "see you soon"] * 5
DOC_LABELS = ["spam", "ham", "spam", "ham"] * 5


def base_models() -> dict[str, tuple[Any, Any]]:
    """name → (fitted model, data to predict on): one small model of every type."""
    models = {cls.__name__: (cls().fit(CODES, LABELS), CODES) for cls in nbayes.ESTIMATORS}
    table = nbayes.NaiveBayes(
        families={"income": "kde", "score": "mdl", "visits": "poisson"}, max_bins=8
    ).fit(TABLE, target="y")
    models["NaiveBayes"] = (table, TABLE.drop("y"))
    text = nbayes.TextClassifier(n_features=2**8, max_names=50).fit(DOCS, DOC_LABELS)
    models["TextClassifier"] = (text, DOCS[:4])
    vocabulary = nbayes.TextClassifier(mode="vocabulary").fit(DOCS, DOC_LABELS)
    models["TextClassifier-vocabulary"] = (vocabulary, DOCS[:4])
    for name in [
        "AODE", "WAODE", "AODEsr", "AnDE", "HNB", "TAN", "KDB", "SelectiveKDB",
        "SelectiveKDBEnsemble",
    ]:  # fmt: skip
        models[name] = (getattr(nbayes, name)().fit(CODES, LABELS), CODES)
    semi_naive = nbayes.SemiNaiveBayes(max_bins=8).fit(TABLE, target="y")
    models["SemiNaiveBayes"] = (semi_naive, TABLE.drop("y"))
    return models


BASES = base_models() if CHILD else {}
assert not CHILD or {type(m).__name__ for m, _ in BASES.values()} == {
    cls.__name__ for cls in nbayes.MODELS
}


def budget(size: int) -> int:
    """What one load and one prediction may allocate: a small multiple of the file's size."""
    return 32 * size + 48 * 2**20


def check(payload: bytes, data: Any) -> str:
    """Load ``payload``: a clean refusal, or a model that predicts and describes itself.
    Returns "refused" or "accepted"."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        try:
            model = persist.loads(payload, source="forged.nbm")
        except ModelFileError as exc:
            message = str(exc)
            assert message.startswith("forged.nbm") and "\n" not in message, message
            return "refused"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                probabilities = model.predict_proba(data)
            except ValueError:
                probabilities = None  # e.g. forged column names the data does not have
            if probabilities is not None:
                assert not np.isnan(probabilities).any()
            if hasattr(model, "summary"):
                model.summary()
            else:
                repr(model), model.classes_, model.class_count_
        return "accepted"
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert peak <= budget(len(payload)), (peak, len(payload))


# ---------------------------------------------------------------------- forging strategies
HOSTILE_VALUES = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, -1, 1, 2**31, 2**63 - 1, 10**9, 10**18]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([1e308, -1e308, 1e-308, 0.5]),
    st.text(max_size=4),
    st.none(),
    st.booleans(),
    st.sampled_from(
        [[], {}, [1, 10**6], [[[[[[[[[[[]]]]]]]]]]], {"__array__": [1], "dtype": "<f8"}]
    ),
)


def json_paths(value: Any, path: tuple = ()) -> list[tuple]:
    """Every position in a JSON value (dict keys and list indices)."""
    out = [path]
    if isinstance(value, dict):
        for key, item in value.items():
            out += json_paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out += json_paths(item, (*path, index))
    return out


def replace_at(value: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[head] = replace_at(value[head], rest, new)
    return copy


def delete_at(value: Any, path: tuple) -> Any:
    if len(path) == 1:
        copy = dict(value) if isinstance(value, dict) else list(value)
        del copy[path[0]]
        return copy
    head = path[0]
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[head] = delete_at(value[head], path[1:])
    return copy


ARRAY_EDITS = ("shape", "negative", "nan", "inf", "huge", "wrap", "dtype", "drop", "extra", "one")
DTYPES = (np.float64, np.float32, np.int64, np.int32, np.uint8, np.uint64, np.bool_)


@st.composite
def forged_array(draw, arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``arrays`` with one array edited."""
    name = draw(st.sampled_from(sorted(arrays)))
    edit = draw(st.sampled_from(ARRAY_EDITS))
    array = arrays[name]
    out = dict(arrays)
    if edit == "shape":
        shape = draw(st.lists(st.integers(0, 6), min_size=0, max_size=3))
        out[name] = np.zeros(shape, dtype=array.dtype)
    elif edit == "drop":
        del out[name]
    elif edit == "extra":
        out[name.rsplit(".", 1)[0] + ".extra"] = np.zeros(3)
    elif edit == "dtype":
        out[name] = array.astype(draw(st.sampled_from(DTYPES)))
    elif array.size == 0:
        out[name] = np.ones((1,) * max(array.ndim, 1), dtype=array.dtype)
    else:
        if edit in ("nan", "inf") or (edit == "negative" and array.dtype.kind == "f"):
            values = array.astype(np.float64)
        elif edit == "negative" or array.dtype.kind == "b":
            values = array.astype(np.int64)  # a negative value needs a signed type
        else:
            values = array.copy()
        flat = values.reshape(-1)
        where = draw(st.integers(0, flat.size - 1))
        if edit == "negative":
            flat[where] = -1
        elif edit == "nan":
            flat[where] = np.nan
        elif edit == "inf":
            flat[where] = np.inf
        elif edit == "huge":
            flat[where] = 1e308 if values.dtype.kind == "f" else np.iinfo(values.dtype).max
        elif edit == "wrap":
            if values.dtype.kind in "iu":
                flat[where] = np.iinfo(values.dtype).max
                flat[(where + 1) % flat.size] = np.iinfo(values.dtype).max
            else:
                flat[where] = 2.0**63
        else:  # "one": any value of the array's kind
            if values.dtype.kind == "f":
                flat[where] = draw(st.floats(allow_nan=False, allow_infinity=False, width=64))
            elif values.dtype.kind in "iu":
                info = np.iinfo(values.dtype)
                flat[where] = draw(st.integers(int(info.min), int(info.max)))
        out[name] = values
    return out


@st.composite
def forged_meta(draw, meta: dict) -> dict:
    """``meta`` with one value replaced or removed."""
    paths = [p for p in json_paths(meta) if p]
    path = draw(st.sampled_from(paths))
    if draw(st.booleans()):
        return delete_at(meta, path)
    return replace_at(meta, path, draw(HOSTILE_VALUES))


#: Examples per model type and kind of forgery: few in CI (seconds); NBAYES_FUZZ_EXAMPLES=2000
#: HYPOTHESIS_PROFILE=explore for a long hunt.
FUZZ = settings(
    max_examples=int(os.environ.get("NBAYES_FUZZ_EXAMPLES", "15")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@child_only
@pytest.mark.parametrize("name", sorted(BASES) if CHILD else ["-"])
@FUZZ
@given(data=st.data())
def test_child_forged_arrays(name: str, data) -> None:
    model, X = BASES[name]
    meta, arrays = parts(model)
    check(forge(meta, data.draw(forged_array(arrays))), X)


@child_only
@pytest.mark.parametrize("name", sorted(BASES) if CHILD else ["-"])
@FUZZ
@given(data=st.data())
def test_child_forged_metadata(name: str, data) -> None:
    model, X = BASES[name]
    meta, arrays = parts(model)
    check(forge(data.draw(forged_meta(meta)), arrays), X)


@child_only
@pytest.mark.parametrize("name", sorted(BASES) if CHILD else ["-"])
def test_child_flipped_bytes_and_truncations_with_a_recomputed_checksum(name: str) -> None:
    """Bytes flipped (two ways) at 30 places of the JSON header and 10 of the arrays, and 12
    cuts, each re-signed; a truncated document can never load."""
    model, X = BASES[name]
    document = persist.dumps(model)[len(persist.MAGIC) : -32]
    header_end = 8 + int.from_bytes(document[:8], "little")
    places = np.concatenate(
        [
            np.linspace(0, header_end - 1, 30).astype(int),
            np.linspace(header_end, len(document) - 1, 10).astype(int),
        ]
    )
    outcomes = {"refused": 0, "accepted": 0}
    for position in places:
        for change in (0x01, 0x24):
            damaged = bytearray(document)
            damaged[position] ^= change
            outcomes[check(sign(bytes(damaged)), X)] += 1
    for cut in np.linspace(0, len(document) - 1, 12).astype(int):
        assert check(sign(document[:cut]), X) == "refused"
    assert outcomes["refused"] > 0


def test_forged_files_of_every_model_type_under_a_memory_limit() -> None:
    """Runs the tests above in a child process whose address space is limited to what it uses
    after warming up plus 1 GiB: an allocation sized by a forged value fails there."""
    if CHILD:
        pytest.skip("this is the child")
    here = Path(__file__)
    outcome = run_python(
        f"""
        import pytest
        sys.exit(pytest.main([{str(here)!r}, "-q", "-x", "-p", "no:cacheprovider",
                              "-k", "child", "--rootdir", {str(here.parents[1])!r}]))
        """,
        extra=2**30,
        timeout=600,
        env={"NBAYES_FUZZ_CHILD": "1", "NUMBA_NUM_THREADS": "1"},
    )
    assert outcome.returncode == 0, outcome.stdout[-4000:] + outcome.stderr[-2000:]
    assert " passed" in outcome.stdout and "failed" not in outcome.stdout
