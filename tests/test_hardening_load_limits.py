"""Model files bounded by the loader (issue 36): a forged semi-naive file of a few kilobytes
cannot make a prediction build gigabytes of index tables, and a file of one model kind never
loads as another. The files are forged as an attacker would (checksum recomputed).

No test here allocates more than a few megabytes: each forged file is refused before the tables
it implies are built, which tracemalloc measures.
"""

from __future__ import annotations

import re
import tracemalloc
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl
import pytest
from forging import forge, parts, set_param

import nbayes
from nbayes import persist
from nbayes.exceptions import ModelFileError
from nbayes.semi_naive import MemoryBudgetError
from nbayes.semi_naive.memory import DEFAULT_MAX_MEMORY

RNG = np.random.default_rng(36)
CODES = RNG.integers(0, 3, (60, 4))
LABELS = RNG.integers(0, 2, 60)


def without_values(model: Any, d: int) -> bytes:
    """``model``'s file forged to have ``d`` attributes, each with no value (n_values = 0, as
    an attribute missing in every row has): the count tables are empty, so the file is a few
    bytes per attribute. The file's own max_memory is set as high as it goes: no defence."""
    meta, arrays = parts(model)
    meta["n_features_in"] = d
    meta["feature_names"] = None
    for name in list(arrays):
        if name.endswith("n_values"):
            arrays[name] = np.zeros(d, dtype=np.int64)
        elif name.startswith("stats.") and arrays[name].ndim == 2:
            arrays[name] = np.zeros((0, arrays[name].shape[1]))
    set_param(meta, "max_memory", 2**62)
    return forge(meta, arrays)


def refused_quickly(payload: bytes, **bounds: Any) -> str:
    """Load ``payload``: it must be refused in one line naming the file, without allocating
    more than a few megabytes (refused before the tables are built: the allocation, not the
    time, is what the test measures)."""
    tracemalloc.start()
    try:
        with pytest.raises(ModelFileError) as info:
            persist.loads(payload, source="forged.nbm", **bounds)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20, peak
    message = str(info.value)
    assert message.startswith("forged.nbm") and "\n" not in message, message
    return message


def needed_bytes(message: str) -> int:
    """The bytes a refusal says the model needs."""
    match = re.search(r"\(([\d,]+) bytes\)", message)
    assert match, message
    return int(match.group(1).replace(",", ""))


# ---------------------------------------------------------------------- finding 1: memory
@pytest.mark.parametrize(
    ("make", "d", "largest_file"),
    [(nbayes.AODE, 15_000, 130_000), (lambda: nbayes.AnDE(2), 600, 6_000)],
    ids=["AODE-d2", "A2DE-d3"],
)
def test_a_few_kilobytes_of_attributes_without_values_are_refused_before_their_index_tables(
    make, d: int, largest_file: int
):
    """Every n_values 0 passed the checks, and a prediction then built d² (AODE: 5.4 GB from
    120 KB) or d³ (A2DE: 3.6 GB from 5 KB) index tables that max_memory did not count."""
    payload = without_values(make().fit(CODES, LABELS), d)
    assert len(payload) < largest_file
    message = refused_quickly(payload)
    assert needed_bytes(message) > 3 * 2**30  # what the prediction would have built
    assert "max_memory = 1.0 GiB" in message
    assert "load(path, max_memory=...)" in message and "--max-memory" in message


def test_parent_configurations_the_file_does_not_pay_for_are_counted():
    """k-DB's parent counts: two attributes of 30,000 values each (60,000 cells in the file)
    as the parents of attributes with no value (no cell) imply 9·10⁸ parent configurations,
    whose tables a prediction built (tens of GB) unchecked: the file's budget was 2**62."""
    meta, arrays = parts(nbayes.KDB(2).fit(CODES, LABELS))
    arrays["stats.parents.n_values"] = np.array([30_000, 30_000, 0, 0])
    arrays["stats.parents.parents"] = np.array([[-1, -1], [-1, -1], [0, 1], [0, 1]])
    arrays["stats.parents.n_parents"] = np.array([0, 0, 2, 2])
    arrays["stats.parents.weights"] = np.full(4, 0.1)
    arrays["stats.parents.order"] = np.arange(4)
    arrays["stats.parents.counts"] = np.ones((60_000, 2))
    message = refused_quickly(forge(meta, arrays))
    assert needed_bytes(message) > 9 * 10**8 * 3 * 8  # the configurations' tables
    assert "this KDB's statistics" in message


def test_the_bound_is_the_loaders_not_the_files(tmp_path: Path):
    """The forged file claims max_memory = 2**62 for itself; the loader's bound decides, and a
    larger one given to load() lets a trusted file through."""
    payload = without_values(nbayes.AODE().fit(CODES, LABELS), 300)
    needed = needed_bytes(refused_quickly(payload, max_memory=2**20))
    assert needed > 300 * 300 * 8  # the d × d tables
    refused_quickly(payload, max_memory=needed - 1)
    path = tmp_path / "wide.nbm"
    path.write_bytes(payload)
    with pytest.raises(ModelFileError, match=r"above the loader's max_memory = 1\.0 KiB"):
        nbayes.load(path, max_memory="1KiB")
    model = nbayes.load(path, max_memory=needed)
    assert model._memory_needed() == needed


def test_attributes_without_values_predict_when_within_the_bound():
    """Zero-valued attributes are counted, not trusted: a file of 50 of them loads under the
    default bound and predicts (every value unseen: the class prior), never NaN."""
    for make in (nbayes.AODE, lambda: nbayes.AnDE(2), nbayes.HNB, nbayes.TAN, nbayes.WAODE):
        model = persist.loads(without_values(make().fit(CODES, LABELS), 50), source="f")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            proba = model.predict_proba(np.zeros((3, 50)))
        np.testing.assert_allclose(proba, np.tile(np.exp(model.class_log_prior_), (3, 1)))


@pytest.mark.parametrize(
    "make",
    [
        nbayes.AODE, nbayes.WAODE, nbayes.AODEsr, lambda: nbayes.AnDE(2), nbayes.HNB,
        nbayes.TAN, nbayes.KDB, lambda: nbayes.KDB(2), nbayes.SelectiveKDB,
    ],
)  # fmt: skip
def test_a_fitted_model_with_an_all_missing_column_saves_loads_and_predicts(tmp_path, make):
    X = CODES.astype(float)
    X[:, 1] = np.nan
    model = make().fit(X, LABELS)
    assert model.n_values_[1] == 0
    loaded = nbayes.load(nbayes.save(model, tmp_path / "m.nbm"))
    np.testing.assert_array_equal(loaded.predict_proba(X), model.predict_proba(X))


def test_fitting_counts_the_index_tables_of_attributes_without_values():
    """400 attributes missing in every row: their index tables take megabytes, which a budget
    of 1 MiB refuses before any of them is built."""
    X = np.full((2, 400), np.nan)
    with pytest.raises(MemoryBudgetError, match=r"max_memory = 1\.0 MiB"):
        nbayes.AODE(max_memory="1MiB").fit(X, [0, 1])
    nbayes.AODE().fit(X, [0, 1])  # within the default budget


def test_every_model_fitted_within_the_default_budget_loads_within_the_default_bound(tmp_path):
    assert persist.DEFAULT_LOAD_MEMORY == DEFAULT_MAX_MEMORY
    table = pl.DataFrame({"a": ["x", "y", "z"] * 20, "b": CODES[:, 0].tolist(), "y": LABELS})
    model = nbayes.SemiNaiveBayes("a2de").fit(table, target="y")
    assert type(nbayes.load(nbayes.save(model, tmp_path / "t.nbm"))) is nbayes.SemiNaiveBayes
    with pytest.raises(ModelFileError, match="this SemiNaiveBayes's statistics"):
        nbayes.load(tmp_path / "t.nbm", max_memory=1000)


def test_the_command_line_passes_max_memory_to_every_command_that_loads(tmp_path, capsys):
    from nbayes.cli import main

    path = nbayes.save(nbayes.AODE().fit(CODES, LABELS), tmp_path / "aode.nbm")
    data = tmp_path / "data.csv"
    pl.DataFrame({f"x{j}": CODES[:, j] for j in range(4)}).with_columns(
        y=pl.Series(LABELS)
    ).write_csv(data)
    report = tmp_path / "r.html"
    commands = {
        "inspect": [path],
        "predict": [path, data],
        "evaluate": [path, data, "--target", "y"],
        "explain": [path, data, "--row", "0"],
        "report": [path, data, "--target", "y", "-o", report],
    }
    for name, args in commands.items():
        argv = [name, *(str(a) for a in args)]
        assert main([*argv, "--max-memory", "1KiB"]) == 1, name
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "--max-memory" in err, (name, err)
        assert "max_memory = 1.0 KiB" in err, err
    assert main(["inspect", str(path), "--max-memory", "64MiB"]) == 0
    assert "AODE" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["inspect", str(path), "--max-memory", "lots"])
    assert "--max-memory must be a number of bytes" in capsys.readouterr().err


# ---------------------------------------------------------------------- finding 2: model kinds
def renamed(model: Any, cls: str) -> bytes:
    meta, arrays = parts(model)
    meta["class"] = cls
    return forge(meta, arrays)


@pytest.mark.parametrize(
    ("make", "other", "match"),
    [
        (nbayes.AODE, "WAODE", "weighting must be 'mutual-information'"),
        (nbayes.AODE, "AODEsr", "subsumption must be a count"),
        (nbayes.HNB, "AODE", "are not AODE's"),
        (nbayes.HNB, "WAODE", "are not WAODE's"),
    ],
)
def test_a_file_of_one_model_kind_never_loads_as_another(make, other: str, match: str):
    """An AODE file renamed WAODE loaded as a WAODE with no weights, an HNB file as an AODE."""
    message = refused_quickly(renamed(make().fit(CODES, LABELS), other))
    assert f"not a consistent {other}" in message
    assert match in message


@pytest.mark.parametrize("root", [-1, 4, 10**6])
def test_a_tan_file_with_an_impossible_root_is_refused_at_load(root: int):
    """root=-1 loaded, then every prediction failed."""
    meta, arrays = parts(nbayes.TAN().fit(CODES, LABELS))
    set_param(meta, "root", root)
    message = refused_quickly(forge(meta, arrays))
    assert "root" in message and "not a consistent TAN" in message


def test_the_models_whose_file_would_be_refused_are_refused_when_fitted():
    with pytest.raises(ValueError, match="unweighted, use AODE"):
        nbayes.WAODE(weighting=None).fit(CODES, LABELS)
    with pytest.raises(ValueError, match="without it, use AODE"):
        nbayes.AODEsr(subsumption=None).fit(CODES, LABELS)
    with pytest.raises(ValueError, match="root=4 is not an attribute index"):
        nbayes.TAN(root=4).fit(CODES, LABELS)
    with pytest.raises(ValueError, match="root must be None or an attribute index >= 0"):
        nbayes.TAN(root=-1).fit(CODES, LABELS)
    nbayes.TAN(root=3).fit(CODES, LABELS).predict(CODES)
