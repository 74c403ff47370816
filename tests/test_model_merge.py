"""NaiveBayes statistics form a commutative monoid, for every column family.

Any split of the rows, in any order, with sample weights and missing values, fitted separately
and merged with ``nbayes.merge`` or fed batch by batch to ``partial_fit``, gives the model of
one fit on all the rows: the same statistics (to 1e-12 relative), the same category
vocabularies (after remapping each part's codes), the same cut points and sketch grids, and the
same predictions.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import nbayes
from nbayes.families.categorical import CategoricalColumns
from nbayes.families.intervals import IntervalColumns
from nbayes.families.sketch import EXACT, SketchColumns

FAMILIES = {
    "colour": "categorical",  # strings
    "rating": "categorical",  # integers
    "flag": "categorical",  # booleans
    "gauss": "gaussian",
    "visits": "poisson",
    "kde": "kde",
    "width": "equal-width",
    "freq": "equal-frequency",
    "mdl": "mdl",
}
CONTINUOUS = ["kde", "width", "freq", "mdl"]


def make_table(n: int, seed: int, missing: bool, distinct: bool) -> tuple[pl.DataFrame, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.choice(np.array(["a", "b", "c"]), n, p=[0.5, 0.3, 0.2])
    shift = (y == "b") + 2.0 * (y == "c")
    scale = 10.0 ** rng.uniform(-3, 3)
    columns = {
        "colour": rng.choice(["red", "green", "blue", "grey", "pink"], n),
        "rating": rng.integers(-2, 4, n),
        "flag": rng.random(n) < 0.3 + 0.2 * shift,
        "gauss": rng.normal(1e3 + shift, 2.0, n),
        "visits": rng.poisson(1.0 + shift, n).astype(float),
    }
    for name in CONTINUOUS:
        values = rng.normal(shift, 1.0, n) * scale
        columns[name] = values if distinct else np.round(values / scale, 1)
    frame = pl.DataFrame(columns)
    if missing:
        frame = frame.with_columns(
            pl.when(pl.Series(rng.random(n) < 0.2)).then(None).otherwise(pl.col(c)).alias(c)
            for c in frame.columns
        )
    return frame, y


def split(n: int, parts: int, rng: np.random.Generator) -> list[np.ndarray]:
    """A random partition of the rows into at most ``parts`` groups, in random order, each
    group's rows shuffled too."""
    labels = rng.integers(0, parts, n)
    groups = [rng.permutation(np.flatnonzero(labels == g)) for g in range(parts)]
    groups = [g for g in groups if g.size]
    return [groups[i] for i in rng.permutation(len(groups))]


def fit_part(params: dict, frame: pl.DataFrame, y: np.ndarray, w: np.ndarray | None):
    """fit() when it can (two classes, every column observed), else partial_fit on a new model,
    which takes a batch with one class or an empty column."""
    model = nbayes.NaiveBayes(**params, calibration=None)
    fittable = len(np.unique(y)) >= 2 and all(
        frame[c].null_count() < frame.height for c in frame.columns
    )
    if fittable:
        return model.fit(frame, y, sample_weight=w)
    return model.partial_fit(frame, y, sample_weight=w)


def canonical(model: nbayes.NaiveBayes) -> dict[str, object]:
    """The model's statistics with every categorical column's values in sorted order, so that
    models whose parts met the values in different orders compare equal."""
    out: dict[str, object] = {"classes": model.classes_, "class_count": model.class_count_}
    settings = model._settings()
    for group in model._stats.groups:
        if isinstance(group, CategoricalColumns):
            offsets = group.stats.offsets
            for j, name in enumerate(group.names):
                vocabulary = group.vocabularies[j]
                order = sorted(range(len(vocabulary)), key=lambda i: vocabulary[i])
                out[f"{name}.vocabulary"] = [vocabulary[i] for i in order]
                out[f"{name}.counts"] = group.stats.counts[:, offsets[j] + np.array(order, int)]
            continue
        for key, value in group.state().items():
            out[f"{group.family}.{key}"] = value
        if isinstance(group, IntervalColumns):
            for name, cuts in zip(group.names, group.cuts(settings), strict=True):
                out[f"{name}.cuts"] = cuts
    return out


EXACT_KEYS = (".vocabulary", ".cuts", ".keys", ".meta", ".range", "classes")


def assert_same(a: nbayes.NaiveBayes, b: nbayes.NaiveBayes, rtol: float = 1e-12) -> None:
    left, right = canonical(a), canonical(b)
    assert left.keys() == right.keys()
    for key in left:
        x, y = left[key], right[key]
        if key.endswith(EXACT_KEYS):  # values, grids and cut points: identical
            if isinstance(x, list):
                assert x == y, key
            else:
                np.testing.assert_array_equal(x, y, err_msg=key)
            continue
        x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
        assert x.shape == y.shape, key
        scale = max(1.0, float(np.max(np.abs(x), initial=0.0)))
        np.testing.assert_allclose(x, y, rtol=rtol, atol=rtol * scale, err_msg=key)


def assert_same_predictions(a, b, frame: pl.DataFrame) -> None:
    # statistics equal to round-off give scores equal up to the conditioning of the formulas:
    # compare joint log-likelihoods relative to their size, and posteriors absolutely
    expected, got = a.predict_joint_log_proba(frame), b.predict_joint_log_proba(frame)
    finite = np.isfinite(expected)
    np.testing.assert_array_equal(np.isfinite(got), finite)
    scale = max(1.0, float(np.max(np.abs(expected[finite]), initial=0.0)))
    np.testing.assert_allclose(got[finite], expected[finite], rtol=1e-9, atol=1e-9 * scale)
    np.testing.assert_allclose(a.predict_proba(frame), b.predict_proba(frame), rtol=0, atol=1e-9)


@st.composite
def problems(draw):
    return {
        "n": draw(st.integers(2, 60)),
        "parts": draw(st.integers(1, 5)),
        "seed": draw(st.integers(0, 2**32 - 1)),
        "weighted": draw(st.booleans()),
        "missing": draw(st.booleans()),
    }


def run(problem: dict, params: dict, distinct: bool) -> tuple[nbayes.NaiveBayes, ...]:
    frame, y = make_table(problem["n"], problem["seed"], problem["missing"], distinct)
    assume(len(np.unique(y)) >= 2)
    assume(all(frame[c].null_count() < frame.height for c in frame.columns))
    rng = np.random.default_rng(problem["seed"] + 1)
    w = rng.uniform(0.1, 5.0, problem["n"]) if problem["weighted"] else None
    whole = nbayes.NaiveBayes(**params, calibration=None).fit(frame, y, sample_weight=w)
    parts = split(problem["n"], problem["parts"], rng)

    def take(rows):
        return frame[rows], y[rows], None if w is None else w[rows]

    pieces = [fit_part(params, *take(rows)) for rows in parts]
    merged = nbayes.merge(*pieces)
    streamed = nbayes.NaiveBayes(**params, calibration=None)
    for rows in parts:
        part, labels, weights = take(rows)
        streamed.partial_fit(part, labels, sample_weight=weights)
    # merging in place, in the other order, gives the same model too
    in_place = fit_part(params, *take(parts[-1]))
    for piece in reversed(pieces[:-1]):
        in_place.merge(piece)
    for model in (merged, streamed, in_place):
        assert_same(whole, model)
    # the same statistics derive the same parameters; one prediction check shows it end to end
    assert_same_predictions(whole, merged, frame)
    return whole, merged, streamed


@settings(max_examples=30, deadline=None)
@given(problem=problems())
def test_merge_and_partial_fit_equal_one_fit_for_every_family(problem):
    run(problem, {"families": FAMILIES, "alpha": 0.5, "bins": 4}, distinct=False)


@settings(max_examples=15, deadline=None)
@given(problem=problems())
def test_sketches_that_coarsen_land_on_the_same_grid(problem):
    assume(problem["n"] >= 20)
    whole, merged, streamed = run(
        problem, {"families": FAMILIES, "max_bins": 8, "bins": 3}, distinct=True
    )
    for model in (whole, merged, streamed):
        for group in model._stats.groups:
            if isinstance(group, SketchColumns):
                for sketch in group.stats.features:
                    assert sketch.keys.shape[0] <= 8
    # with this many distinct values the single fit itself had to pool on a grid
    levels = [
        s.level
        for g in whole._stats.groups
        if isinstance(g, SketchColumns)
        for s in g.stats.features
    ]
    assert all(level != EXACT for level in levels)


def test_merge_keeps_the_inputs_unchanged_and_unions_classes_and_vocabularies():
    frame, y = make_table(80, 7, missing=True, distinct=False)
    first = frame.filter(pl.Series(y != "c"))
    second = frame.filter(pl.Series(y != "a"))
    params = {"families": FAMILIES, "calibration": None}
    a = nbayes.NaiveBayes(**params).fit(first, y[y != "c"])
    b = nbayes.NaiveBayes(**params).fit(second, y[y != "a"])
    before_a, before_b = canonical(a), canonical(b)
    merged = nbayes.merge(a, b)
    for model, before in ((a, before_a), (b, before_b)):
        after = canonical(model)
        assert after.keys() == before.keys()
        for key in before:
            np.testing.assert_array_equal(np.asarray(after[key]), np.asarray(before[key]))
    np.testing.assert_array_equal(merged.classes_, ["a", "b", "c"])
    both = pl.concat([first, second])
    labels = np.concatenate([y[y != "c"], y[y != "a"]])
    assert_same(merged, nbayes.NaiveBayes(**params).fit(both, labels))


def test_models_whose_sketches_pool_differently_do_not_merge():
    frame, y = make_table(60, 8, missing=False, distinct=True)
    coarse = nbayes.NaiveBayes(families=FAMILIES, max_bins=8).fit(frame[:30], y[:30])
    fine = nbayes.NaiveBayes(families=FAMILIES).fit(frame[30:], y[30:])
    # the merged sketch would be pooled on the coarse grid yet claim max_bins=2048: neither
    # model's single fit on all the rows
    with pytest.raises(ValueError, match="max_bins"):
        nbayes.merge(fine, coarse)
    with pytest.raises(ValueError, match="max_bins"):
        coarse.merge(fine)
