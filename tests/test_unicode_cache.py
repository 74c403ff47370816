"""The tokenizer's Unicode tables are cached like the kernels: a later process loads them, and a
cache that is damaged or cannot be written only costs the time to build them again."""

from __future__ import annotations

import numpy as np
import pytest

from nbayes.text import _unicode


@pytest.fixture
def caches(tmp_path, monkeypatch):
    paths = [tmp_path / "package" / "t.npz", tmp_path / "user" / "t.npz"]
    monkeypatch.setattr(_unicode, "_cache_files", lambda: paths)
    monkeypatch.setattr(_unicode, "_TABLES", None)
    return paths


def test_the_tables_are_built_saved_and_loaded_back_equal(caches):
    built = _unicode.build()
    props, lower = _unicode.tables()
    np.testing.assert_array_equal(props, built[0])
    np.testing.assert_array_equal(lower, built[1])
    assert caches[0].exists()  # the first writable folder
    loaded = _unicode._load()
    assert loaded is not None
    np.testing.assert_array_equal(loaded[0], built[0])
    np.testing.assert_array_equal(loaded[1], built[1])
    # spot checks against Python itself
    assert props[ord("a")] & _unicode.WORD and not props[ord(" ")] & _unicode.WORD
    assert lower[ord("Ä")] == ord("ä")


def test_a_damaged_or_foreign_cache_is_rebuilt(caches):
    caches[0].parent.mkdir(parents=True)
    caches[0].write_bytes(b"not a numpy file")
    assert _unicode._load() is None
    np.savez(caches[0], props=np.zeros(10, dtype=np.uint8), lower=np.zeros(10, dtype=np.int32))
    assert _unicode._load() is None  # wrong shape: not used
    props, _ = _unicode.tables()
    assert props[ord("a")] & _unicode.WORD


def test_an_unwritable_package_cache_falls_back_to_the_user_cache(caches):
    caches[0].parent.write_text("a file where the folder should be")  # mkdir fails
    _unicode.tables()
    assert caches[1].exists()
    assert not list(caches[1].parent.glob("*.tmp"))
