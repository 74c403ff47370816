"""Shared fixtures: where the real data sets live, and model comparison helpers."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture
def shared_data() -> Path:
    """../shared/data, or skip the test when this checkout has no such folder."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present in this checkout")
    return SHARED_DATA


def assert_same_statistics(a, b, rtol: float = 1e-12) -> None:
    """Two fitted models hold the same classes and sufficient statistics (to ``rtol``)."""
    np.testing.assert_array_equal(a.classes_, b.classes_)
    np.testing.assert_allclose(a.class_count_, b.class_count_, rtol=rtol)
    state_a, state_b = a._stats.state(), b._stats.state()
    assert state_a.keys() == state_b.keys()
    for name in state_a:
        x, y = np.asarray(state_a[name], dtype=float), np.asarray(state_b[name], dtype=float)
        assert x.shape == y.shape, name
        scale = max(1.0, float(np.max(np.abs(x), initial=0.0)))
        np.testing.assert_allclose(x, y, rtol=rtol, atol=rtol * scale, err_msg=name)


# The same examples on every run: CI must not fail on an example no earlier run saw. (Run with
# HYPOTHESIS_PROFILE=explore to draw fresh examples.)
settings.register_profile("repeatable", derandomize=True, deadline=None)
settings.register_profile("explore", deadline=None, max_examples=300)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))
