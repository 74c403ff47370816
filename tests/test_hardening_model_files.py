"""Model files that cannot hurt: each forged file found by the security review is refused with
one ModelFileError naming the file, without a crash, a hang, or an allocation far beyond the
file's size. The files are forged as an attacker would (checksum recomputed: it is no defence).

Where the bug being guarded against was a segmentation fault or a huge allocation, the load runs
in a child process under a memory limit (tests/isolated.py), so that a regression fails the test
instead of killing the test run.
"""

from __future__ import annotations

import json
import os
import stat
import warnings
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from forging import edit_header, forge, nested, parts, raw_header, set_param
from hypothesis import given, settings
from hypothesis import strategies as st
from isolated import run_python

import nbayes
from nbayes import persist
from nbayes.exceptions import ModelFileError

RNG = np.random.default_rng(11)
CODES = RNG.integers(0, 4, (60, 3))
REALS = RNG.normal(size=(60, 3))
LABELS = RNG.integers(0, 2, 60)


def load_in_child(path: Path, *, then: str = "", extra: int = 2**30) -> str:
    """Load ``path`` in a child process limited to its warm size plus ``extra`` bytes (and run
    ``then`` on the loaded ``model``); returns what it printed: "refused: <message>", or
    "loaded" followed by what ``then`` printed. A crash or a MemoryError fails the test."""
    outcome = run_python(
        f"""
        try:
            model = nbayes.load({str(path)!r})
        except nbayes.ModelFileError as exc:
            print("refused:", exc)
        else:
            print("loaded")
            {then or "pass"}
        """,
        extra=extra,
    )
    assert outcome.returncode == 0, (outcome.returncode, outcome.stderr[-2000:])
    return outcome.stdout.strip()


def write(tmp_path: Path, payload: bytes, name: str = "forged.nbm") -> Path:
    path = tmp_path / name
    path.write_bytes(payload)
    return path


def refused(payload: bytes, match: str | None = None) -> str:
    with pytest.raises(ModelFileError, match=match) as info:
        persist.loads(payload, source="forged.nbm")
    message = str(info.value)
    assert message.startswith("forged.nbm") and "\n" not in message
    return message


# ---------------------------------------------------------------------- finding 1: memory safety
def test_wrapped_category_counts_are_refused_without_touching_memory(tmp_path: Path):
    """Σ_j S_j wrapping around int64 to the real width passed the check, and the compiled
    kernels then wrote partial_fit counts and read predict scores outside the array."""
    meta, arrays = parts(nbayes.CategoricalNB().fit(CODES, LABELS))
    arrays["stats.n_categories"] = np.array([4, 2**63 - 1, 2**63 - 1], dtype=np.int64)
    arrays["stats.counts"] = np.ones((2, 2))  # 4 + 2 (2^63 - 1) ≡ 2 (mod 2^64)
    path = write(tmp_path, forge(meta, arrays))
    out = load_in_child(path, then="model.partial_fit(np.ones((5, 3), int), np.zeros(5, int))")
    assert out.startswith("refused:") and "n_categories" in out


def test_token_offsets_whose_differences_wrap_are_refused(tmp_path: Path):
    model = nbayes.TextClassifier(mode="vocabulary").fit(["a b c", "d e", "f"] * 3, [0, 1, 0] * 3)
    meta, arrays = parts(model)
    offsets = arrays["vectorizer.vocabulary.offsets"].astype(np.int64)
    # three steps of about 2^64 / 3 each: every int64 difference is positive (they wrap
    # around), yet entries 1 and 2 start far outside the arena
    end = int(offsets[3])
    step = (2**64 + end) // 3
    offsets[1] = step
    offsets[2] = 2 * step - 2**64
    arrays["vectorizer.vocabulary.offsets"] = offsets
    assert np.all(np.diff(offsets) >= 0)
    assert offsets[-1] == arrays["vectorizer.vocabulary.arena"].size
    path = write(tmp_path, forge(meta, arrays))
    out = load_in_child(path, then="print(model.top_features(0, 3))")
    assert out.startswith("refused:") and "offsets" in out


# ---------------------------------------------------------------------- finding 2: allocations
def test_bins_of_a_billion_are_refused_before_allocating(tmp_path: Path):
    frame = {"x": REALS[:, 0], "y": LABELS}
    meta, arrays = parts(nbayes.NaiveBayes(continuous="equal-width").fit(frame, target="y"))
    set_param(meta, "bins", 10**9)
    path = write(tmp_path, forge(meta, arrays))
    out = load_in_child(path, then="print(model.summary())", extra=2**28)
    assert out.startswith("refused:") and "bins" in out
    with pytest.raises(ValueError, match="bins must be at most"):
        nbayes.NaiveBayes(continuous="equal-width", bins=10**9).fit(frame, target="y")


def test_a_text_dtype_of_half_a_billion_characters_allocates_nothing(tmp_path: Path):
    meta, arrays = parts(nbayes.CategoricalNB().fit(CODES, LABELS))
    set_param(meta, "class_prior", {"__array__": ["0.5", "0.5"], "dtype": "<U500000000"})
    path = write(tmp_path, forge(meta, arrays))
    # 2 GB per element would not fit in the child; the width comes from the values instead
    out = load_in_child(path, then="print(model.class_prior.dtype)", extra=2**28)
    assert out.split() == ["loaded", "<U3"]


def test_classes_times_columns_from_metadata_are_not_allocated(tmp_path: Path):
    """100,000 classes × 100,000 Gaussian columns asked for 74.5 GiB before any check."""
    base = nbayes.NaiveBayes().fit({"x": REALS[:, 0], "y": LABELS}, target="y")
    meta, arrays = parts(base)
    k, d = 100_000, 100_000
    meta["classes"] = {"kind": "int", "values": list(range(k))}
    meta["n_features_in"] = d
    meta["feature_names"] = None
    meta["schema"] = [[f"c{j}", "gaussian", "Float64"] for j in range(d)]
    meta["fit_columns"] = [f"c{j}" for j in range(d)]
    meta["groups"] = [{"family": "gaussian", "names": [f"c{j}" for j in range(d)]}]
    arrays["class_count"] = np.ones(k)
    path = write(tmp_path, forge(meta, arrays))
    assert path.stat().st_size < 10 * 2**20
    out = load_in_child(path, extra=2**29)
    assert out.startswith("refused:")


def test_an_ngram_range_of_a_million_is_refused(tmp_path: Path):
    model = nbayes.TextClassifier(n_features=2**10).fit(["a b c", "d e f"] * 3, [0, 1] * 3)
    meta, arrays = parts(model)
    set_param(meta, "ngram_range", [1, 10**6])
    message = refused(forge(meta, arrays), "ngram_range")
    assert "32" in message
    with pytest.raises(ValueError, match="ngram_range"):
        nbayes.TextClassifier(ngram_range=(1, 10**6)).fit(["a b"], [0])


def test_declared_shapes_larger_than_the_file_are_refused():
    payload = persist.dumps(nbayes.GaussianNB().fit(REALS, LABELS))

    def empty_but_huge(header):
        header["stats.mean"]["shape"] = [0, 10**15]
        header["stats.mean"]["data_offsets"][1] = header["stats.mean"]["data_offsets"][0]

    refused(edit_header(payload, empty_but_huge), "impossible shape")


# ---------------------------------------------------------------------- finding 6: one line
@pytest.mark.parametrize(
    "header_text, match",
    [
        (b'{"a": ' + nested(100_000).encode() + b"}", "nested"),
        (
            b'{"__metadata__": {"nbayes": "{}"}, "x": {"dtype": "F64", "shape": [1e400], '
            b'"data_offsets": [0, 8]}}',
            "beyond the float range",
        ),
        (
            b'{"__metadata__": {"nbayes": "{}"}, "x": {"dtype": "F64", "shape": [NaN], '
            b'"data_offsets": [0, 8]}}',
            "NaN",
        ),
        (b'{"__metadata__": {"nbayes": "{}"}, "__metadata__": {}}', "repeated key"),
        (
            b'{"__metadata__": {"nbayes": "{}"}, "x": {"dtype": "F64", "shape": '
            b'[100000000000000000000000000], "data_offsets": [0, 8]}}',
            "digits",
        ),
        (
            b'{"__metadata__": {"nbayes": "{}"}, "x": {"dtype": "O", "shape": [1], '
            b'"data_offsets": [0, 8]}}',
            "dtype",
        ),
        (b"[1, 2]", "not a JSON object"),
        (b"\xff\xfe", "not valid JSON"),
    ],
    ids=["deep", "1e400", "nan", "repeated", "huge-int", "object-dtype", "list", "not-utf8"],
)
def test_a_forged_array_header_is_one_clean_error(header_text: bytes, match: str):
    refused(raw_header(header_text, b"\0" * 8), match)


@pytest.mark.parametrize(
    "edit, match",
    [
        (lambda m: m.__setitem__("classes", {"kind": "int", "values": [10**19, 2]}), "64 bits"),
        (lambda m: m.__setitem__("classes", {"kind": "float", "values": ["0x1p99999", "0x1p0"]}),
         "float class label"),
        (lambda m: m.__setitem__("classes", {"kind": "int", "values": ["1", "2"]}), "kind"),
        (lambda m: set_param(m, "alpha", {"__array__": [10**19], "dtype": "<i8"}), "does not fit"),
        (lambda m: set_param(m, "alpha", {"__array__": [1], "dtype": "|O"}), "not allowed"),
        (lambda m: set_param(m, "alpha", {"__dict__": [[{"a": 1}, 2]]}), "object"),
        (lambda m: m.__setitem__("n_features_in", 10**18), "n_categories"),
        (lambda m: m.__setitem__("n_features_in", True), "n_features_in"),
        (lambda m: m.__setitem__("feature_names", [1, 2, 3]), "feature_names"),
        (lambda m: m.__setitem__("class", ["CategoricalNB"]), "unknown model class"),
        (lambda m: set_param(m, "bogus", 1), "bogus"),
    ],
    ids=["int-overflow", "float-overflow", "label-type", "array-overflow",
         "object-array", "dict-key", "huge-features", "bool-features", "names", "class",
         "unknown-param"],
)  # fmt: skip
def test_forged_metadata_is_one_clean_error(edit, match: str):
    """Metadata that raised OverflowError, RecursionError or MemoryError deep inside the loader."""
    meta, arrays = parts(nbayes.CategoricalNB().fit(CODES, LABELS))
    edit(meta)
    refused(forge(meta, arrays), match)


@pytest.mark.parametrize(
    "value, match",
    [("1e400", "beyond the float range"), ("-Infinity", "not a JSON number"),
     (nested(100_000), "nested"), (nested(40), "nested more than")],
    ids=["1e400", "infinity", "deep", "deeper-than-allowed"],
)  # fmt: skip
def test_json_values_beyond_what_json_allows_are_refused(value: str, match: str):
    meta, arrays = parts(nbayes.CategoricalNB().fit(CODES, LABELS))
    text = json.dumps(meta).replace('["alpha", 1.0]', f'["alpha", {value}]')
    assert value in text
    refused(forge(text, arrays), match)


# ---------------------------------------------------------------------- finding 7: arrays
def test_missing_and_extra_arrays_are_refused_at_load():
    meta, arrays = parts(nbayes.PoissonNB().fit(CODES, LABELS))
    without = {k: v for k, v in arrays.items() if k != "stats.counts"}
    refused(forge(meta, without), "counts")
    extra = {**arrays, "stats.observed": np.zeros_like(arrays["stats.counts"])}
    refused(forge(meta, extra), "expected \\['counts'\\]")
    extra = {**arrays, "surprise": np.zeros(3)}
    refused(forge(meta, extra), "unexpected arrays")


def test_a_sketch_range_that_is_not_a_range_is_refused():
    frame = {"x": REALS[:, 0], "y": LABELS}
    meta, arrays = parts(nbayes.NaiveBayes(continuous="kde").fit(frame, target="y"))
    name = next(k for k in arrays if k.endswith(".range"))
    for value in ([np.nan, 1.0], [2.0, 1.0], [-np.inf, np.inf]):
        refused(forge(meta, {**arrays, name: np.array(value)}), "range")


def test_gaussian_means_whose_squares_overflow_are_refused():
    meta, arrays = parts(nbayes.GaussianNB().fit(REALS, LABELS))
    arrays["stats.mean"] = arrays["stats.mean"] + 1e200
    refused(forge(meta, arrays), "beyond")


def test_counts_whose_sums_overflow_are_refused():
    meta, arrays = parts(nbayes.MultinomialNB().fit(CODES, LABELS))
    arrays["stats.counts"] = np.full_like(arrays["stats.counts"], 1e308)
    refused(forge(meta, arrays), "sum to")
    meta, arrays = parts(nbayes.MultinomialNB().fit(CODES, LABELS))
    arrays["class_count"] = np.array([1e308, 1e308])
    refused(forge(meta, arrays), "class_count")


# ---------------------------------------------------------------------- finding 5: the path
def test_a_fifo_is_refused_without_blocking(tmp_path: Path):
    fifo = tmp_path / "model.nbm"
    os.mkfifo(fifo)
    out = load_in_child(fifo)  # opening a FIFO for reading would block without O_NONBLOCK
    assert out.startswith("refused:") and "FIFO" in out


def test_dev_zero_and_folders_are_refused_without_reading():
    """/dev/zero was read until memory ran out (8.8 GB in 20 s)."""
    for path, kind in (("/dev/zero", "character device"), ("/", "folder")):
        out = load_in_child(Path(path), extra=2**28)
        assert out.startswith("refused:") and kind in out


def test_files_over_the_size_limit_are_refused(tmp_path: Path):
    path = nbayes.save(nbayes.GaussianNB().fit(REALS, LABELS), tmp_path / "m.nbm")
    with pytest.raises(ModelFileError, match="more than the 100 allowed"):
        nbayes.load(path, max_bytes=100)
    assert isinstance(nbayes.load(path, max_bytes=path.stat().st_size), nbayes.GaussianNB)


def test_a_pickle_is_named_from_its_first_bytes(tmp_path: Path):
    path = write(tmp_path, b"\x80\x04" + b"\0" * 10_000_000)
    with pytest.raises(ModelFileError, match="pickle"):
        nbayes.load(path)


# ---------------------------------------------------------------------- saving
def fitted() -> nbayes.GaussianNB:
    return nbayes.GaussianNB().fit(REALS, LABELS)


def test_save_refuses_to_replace_what_is_not_a_regular_file(tmp_path: Path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    folder = tmp_path / "folder"
    folder.mkdir()
    for target in (fifo, folder):
        kind = stat.S_IFMT(os.lstat(target).st_mode)
        with pytest.raises(ValueError, match="not a regular file"):
            nbayes.save(fitted(), target)
        assert stat.S_IFMT(os.lstat(target).st_mode) == kind  # left as it was
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "pipe"]


def test_save_through_a_symlink_writes_its_target(tmp_path: Path):
    real = tmp_path / "models" / "v1.nbm"
    real.parent.mkdir()
    nbayes.save(nbayes.GaussianNB(var_smoothing=1e-3).fit(REALS, LABELS), real)
    link = tmp_path / "latest.nbm"
    link.symlink_to(real)
    written = nbayes.save(fitted(), link)
    assert written == real.resolve()
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert nbayes.load(real).var_smoothing == 1e-9  # the target holds the new model
    dangling = tmp_path / "next.nbm"
    dangling.symlink_to(tmp_path / "models" / "v2.nbm")
    nbayes.save(fitted(), dangling)
    assert dangling.is_symlink() and (tmp_path / "models" / "v2.nbm").is_file()


def test_save_keeps_the_mode_of_the_file_it_replaces_and_new_files_follow_the_umask(
    tmp_path: Path,
):
    path = tmp_path / "shared.nbm"
    nbayes.save(fitted(), path)
    os.chmod(path, 0o640)
    nbayes.save(fitted(), path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    old = os.umask(0o027)
    try:
        nbayes.save(fitted(), tmp_path / "new.nbm")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "new.nbm").st_mode) == 0o640


def test_a_failing_save_leaves_the_old_model_and_no_temporary(tmp_path: Path, monkeypatch):
    path = tmp_path / "m.nbm"
    nbayes.save(fitted(), path)
    before = path.read_bytes()

    def full_disk(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(persist.os, "fsync", full_disk)
    with pytest.raises(OSError, match="No space"):
        nbayes.save(nbayes.GaussianNB(var_smoothing=0.5).fit(REALS, LABELS), path)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["m.nbm"]


def test_a_save_killed_while_writing_leaves_no_temporary(tmp_path: Path):
    path = tmp_path / "m.nbm"
    nbayes.save(fitted(), path)
    before = path.read_bytes()
    code = f"""
        import os, signal
        model = nbayes.GaussianNB(var_smoothing=0.5).fit(np.random.rand(50, 3), np.arange(50) % 2)
        def killed(fd):
            os.kill(os.getpid(), signal.SIGKILL)  # the bytes are written, not yet renamed
        persist.os.fsync = killed
        nbayes.save(model, {str(path)!r})
    """
    outcome = run_python(code, extra=0)
    assert outcome.returncode == -9
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["m.nbm"]


def test_a_model_that_would_not_load_is_never_written(tmp_path: Path):
    path = tmp_path / "m.nbm"
    nbayes.save(fitted(), path)
    before = path.read_bytes()
    broken = fitted()
    broken._stats.mean[0, 0] = 1e300  # beyond what fitting accepts and loading allows
    with pytest.raises(ValueError, match="cannot be saved"):
        nbayes.save(broken, path)
    assert path.read_bytes() == before


def test_save_during_partial_fit_writes_a_consistent_snapshot(tmp_path: Path, monkeypatch):
    """A partial_fit started while a save reads the statistics waits for the save: the file
    holds the model before that batch, with class counts and moments that agree."""
    import threading

    model = fitted()
    original = type(model)._to_state
    intruders = []

    def state_with_intruder(self):
        meta, arrays = original(self)
        if self is not model:  # the check that loads the written bytes back
            return meta, arrays
        thread = threading.Thread(target=self.partial_fit, args=(REALS, LABELS))
        thread.start()
        thread.join(timeout=0.5)  # without the lock, the batch lands in the middle of the save
        intruders.append(thread)
        return meta, arrays

    monkeypatch.setattr(type(model), "_to_state", state_with_intruder)
    payload = persist.dumps(model)
    monkeypatch.undo()
    intruders[0].join()
    loaded = persist.loads(payload)
    np.testing.assert_array_equal(loaded.class_count_, np.bincount(LABELS))
    np.testing.assert_array_equal(loaded._stats.weight[:, 0], loaded.class_count_)
    assert model.class_count_.sum() == 2 * len(LABELS)  # the batch was added after the save


def test_every_model_type_round_trips_through_the_checks(tmp_path: Path):
    """The loader's checks accept every model nbayes writes (nothing legitimate is refused)."""
    table = pl.DataFrame(
        {"c": ["a", "b", None] * 20, "x": REALS[:, 0], "n": CODES[:, 0] * 10,
         "t": ["free prize", "lunch at noon", None] * 20, "y": LABELS}
    )  # fmt: skip
    models = [cls().fit(CODES, LABELS) for cls in nbayes.ESTIMATORS]
    models.append(nbayes.NaiveBayes(families={"n": "poisson", "t": "text"}).fit(table, target="y"))
    models.append(nbayes.TextClassifier(mode="vocabulary").fit(["a b", "c d"] * 5, [0, 1] * 5))
    semi_naive = [
        "AODE", "WAODE", "AODEsr", "AnDE", "HNB", "TAN", "KDB", "SelectiveKDB",
        "SelectiveKDBEnsemble",
    ]  # fmt: skip
    models += [getattr(nbayes, name)().fit(CODES, LABELS) for name in semi_naive]
    models.append(nbayes.SemiNaiveBayes().fit(table.drop("t"), target="y"))
    assert {type(m) for m in models} == set(nbayes.MODELS)
    for model in models:
        loaded = nbayes.load(nbayes.save(model, tmp_path / "m.nbm"))
        assert type(loaded) is type(model)


def test_the_command_line_reports_a_forged_model_in_one_line(tmp_path: Path, capsys):
    from nbayes.cli import main

    meta, arrays = parts(nbayes.CategoricalNB().fit(CODES, LABELS))
    arrays["stats.n_categories"] = np.array([4, 2**63 - 1, 2**63 - 1], dtype=np.int64)
    arrays["stats.counts"] = np.ones((2, 2))
    path = write(tmp_path, forge(meta, arrays))
    data = tmp_path / "data.csv"
    pl.DataFrame({f"x{j}": CODES[:, j] for j in range(3)}).write_csv(data)
    for command in (["inspect", path], ["predict", path, data]):
        assert main([str(a) for a in command]) == 1
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "forged.nbm" in err and "n_categories" in err


def test_a_semi_naive_files_fitted_columns_must_be_its_schemas_left_out_and_text_ones():
    """feature_names_in_ is read from the file's fitted columns: one they do not account for
    (or one missing) is refused, not reported as a feature."""
    rng = np.random.default_rng(0)
    table = {"id": [f"r{i}" for i in range(200)], "a": rng.integers(0, 3, 200).astype(str),
             "label": rng.choice(["p", "q"], 200)}  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the identifier's warning
        model = nbayes.SemiNaiveBayes("aode", discriminative=False).fit(table, target="label")
    assert list(model.feature_names_in_) == ["id", "a"]
    meta, arrays = parts(model)
    assert list(persist.loads(forge(meta, arrays)).feature_names_in_) == ["id", "a"]
    for columns in (["id", "a", "ghost"], ["a"]):
        refused(forge({**meta, "fit_columns": columns}, arrays), "the fitted columns are not")


# ---------------------------------------------------------------------- strict JSON
def _refused_by_walking(text: str) -> str | None:
    """What the strict reading must refuse, found the slow way: the parsed values walked for
    their depth, and every float token parsed for its range (a pattern of the reasons that
    apply, either of which may be given)."""
    floats: list[str] = []
    value = json.loads(text, parse_float=lambda token: floats.append(token) or float(token))
    reasons = []
    if any(not np.isfinite(float(token)) for token in floats):
        reasons.append("beyond the float range")
    stack, deepest = [(value, 1)], 0
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, depth)
            children = item.values() if isinstance(item, dict) else item
            stack.extend((c, depth + 1) for c in children)
    if deepest > persist.MAX_JSON_DEPTH:
        reasons.append("nested more than")
    return "|".join(reasons) or None


_JSON_FLOATS = st.sampled_from(
    ["1e400", "-2.5E+308", "1.7e308", "1e-400", "12.5", "3e99", "9" * 320 + ".5",
     "1" + "0" * 210 + "e99", "1" + "0" * 250 + ".5e60", "1" + "0" * 208 + "e99",
     "0." + "0" * 300 + "1e99", "1E0400", "-0e999"]
)  # fmt: skip
_JSON_TEXT = st.text(alphabet='ab"\\[]{}:,e9 \né\u2028\U0001f600', max_size=8)
_JSON = st.recursive(
    st.one_of(st.integers(-10**6, 10**6), _JSON_TEXT, st.booleans(), st.none(), _JSON_FLOATS.map(
        lambda token: ("raw", token))),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(_JSON_TEXT, inner, max_size=3)),
    max_leaves=40,
)  # fmt: skip


def _dump(value, ascii_only: bool = True) -> str:
    """JSON text of ``value``, with ("raw", token) written as the number token itself (and
    non-ASCII characters as \\u escapes, or as themselves without ``ascii_only``)."""
    if isinstance(value, tuple):
        return value[1]
    if isinstance(value, list):
        return "[" + ", ".join(_dump(v, ascii_only) for v in value) + "]"
    if isinstance(value, dict):
        return (
            "{"
            + ", ".join(
                f"{json.dumps(k, ensure_ascii=ascii_only)}: {_dump(v, ascii_only)}"
                for k, v in value.items()
            )
            + "}"
        )
    return json.dumps(value, ensure_ascii=ascii_only)


@settings(max_examples=300, deadline=None)
@given(
    value=_JSON,
    wrapping=st.integers(0, 36),
    encoding=st.sampled_from([None, "utf-8", "utf-8-sig", "utf-16", "utf-32-be"]),
    ascii_only=st.booleans(),
)
def test_the_strict_json_reading_refuses_what_walking_the_values_would(
    value, wrapping, encoding, ascii_only
):
    """The strict reading refuses exactly the nesting beyond MAX_JSON_DEPTH and the floats
    beyond the float range that walking the parsed values and parsing every float token finds,
    whatever the strings hold (brackets, quotes, escapes), however deep the values are
    wrapped and in whichever encoding json.loads reads bytes, and reads everything else as
    json.loads does. (The depth is counted on the text's bytes: persist._nesting.)"""
    text = "[" * wrapping + _dump(value, ascii_only) + "]" * wrapping
    given = text if encoding is None else text.encode(encoding)
    expected = _refused_by_walking(text)
    if expected is None:
        assert persist._strict_json(given, "t") == json.loads(text)
    else:
        with pytest.raises(ModelFileError, match=expected):
            persist._strict_json(given, "t")


@pytest.mark.parametrize(
    "text",
    ['{"a": "\\ud800"}', '{"a": "\ud800"}', b'{"a": "\xed\xa0\x80"}',
     '["\ud800"]'.encode("utf-16", "surrogatepass")],
)  # fmt: skip
def test_a_lone_surrogate_in_a_string_is_read_as_json_reads_it(text):
    """json.loads lets a string hold a lone surrogate (escaped, or as raw bytes it decodes with
    "surrogatepass"); the strict reading gives the same value, not a UnicodeError."""
    assert persist._strict_json(text, "t") == json.loads(text)
