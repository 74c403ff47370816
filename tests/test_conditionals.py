"""model.tables(): the fitted conditionals as tidy frames, checked against the statistics
computed here from the training data by hand (pandas group-bys, fractions, scipy)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pandas as pd
import polars as pl
import pytest
from scipy.stats import norm

import nbayes
from nbayes.conditionals import COLUMNS, table_kind


@pytest.fixture(scope="module")
def data() -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(7)
    n = 120
    y = rng.choice(np.array(["no", "yes"]), n)
    frame = pd.DataFrame(
        {
            "colour": rng.choice(["red", "green", "blue"], n),
            "size": rng.integers(0, 3, n),
            "height": rng.normal(170, 10, n) + 5 * (y == "yes"),
            "spread": np.round(rng.normal(0, 1, n), 2),
            "cut": rng.uniform(0, 10, n),
            "visits": rng.poisson(2, n),
            "note": rng.choice(["free prize now", "lunch at noon", "prize draw"], n),
        }
    )
    frame.loc[3, "colour"] = None
    frame.loc[5, "height"] = np.nan
    return frame, y


@pytest.fixture(scope="module")
def model(data) -> nbayes.NaiveBayes:
    frame, y = data
    return nbayes.NaiveBayes(
        families={
            "size": "categorical",
            "height": "gaussian",
            "spread": "kde",
            "cut": "equal-width",
            "visits": "poisson",
            "note": "text-multinomial",
        },
        alpha=0.5,
        bins=4,
        bandwidth=0.5,
    ).fit(frame, y)


def test_every_feature_has_a_frame_with_its_documented_columns(model):
    tables = model.tables()
    assert list(tables) == ["colour", "size", "height", "spread", "cut", "visits", "note"]
    families = model.families_
    for name, frame in tables.items():
        assert isinstance(frame, pl.DataFrame)
        expected = ("feature", "class", *COLUMNS[table_kind(families[name])])
        assert tuple(frame.columns) == expected, name
        assert set(frame.get_column("feature").unique()) == {name}
        assert set(frame.get_column("class").unique()) == {"no", "yes"}


def test_categorical_counts_and_lidstone_probabilities(model, data):
    frame, y = data
    table = model.tables("colour")["colour"]
    observed = frame.assign(y=y).dropna(subset=["colour"])
    values = sorted(observed["colour"].unique())
    for c in ("no", "yes"):
        rows = observed[observed.y == c]
        n_c = len(rows)
        for v in values:
            count = int((rows.colour == v).sum())
            got = table.filter((pl.col("class") == c) & (pl.col("value") == v))
            assert got.get_column("count").item() == count
            # P_λ(v | c) = (n + λ) / (N_c + S λ), λ = 1/2, S = 3
            expected = (Fraction(count) + Fraction(1, 2)) / (n_c + 3 * Fraction(1, 2))
            assert got.get_column("probability").item() == pytest.approx(float(expected), 1e-12)


def test_integer_categories_keep_their_type(model):
    table = model.tables("size")["size"]
    assert table.schema["value"] == pl.Int64
    assert sorted(table.get_column("value").unique().to_list()) == [0, 1, 2]


def test_gaussian_mean_sd_count(model, data):
    frame, y = data
    table = model.tables("height")["height"]
    groups = frame.assign(y=y).groupby("y")["height"]
    # ε = var_smoothing · max over the Gaussian columns of the variance of all values
    epsilon = 1e-9 * frame["height"].var(ddof=0)
    for c in ("no", "yes"):
        row = table.filter(pl.col("class") == c)
        assert row.get_column("count").item() == groups.count()[c]
        assert row.get_column("mean").item() == pytest.approx(groups.mean()[c], rel=1e-12)
        sd = np.sqrt(groups.var(ddof=0)[c] + epsilon)
        assert row.get_column("sd").item() == pytest.approx(sd, rel=1e-10)


def test_poisson_rate(model, data):
    frame, y = data
    table = model.tables("visits")["visits"]
    for c in ("no", "yes"):
        counts = frame.visits[y == c]
        row = table.filter(pl.col("class") == c)
        assert row.get_column("total").item() == counts.sum()
        assert row.get_column("count").item() == len(counts)
        expected = (Fraction(int(counts.sum())) + Fraction(1, 2)) / (len(counts) + Fraction(1, 2))
        assert row.get_column("rate").item() == pytest.approx(float(expected), rel=1e-12)


def test_equal_width_intervals(model, data):
    frame, y = data
    table = model.tables("cut")["cut"]
    low, high = frame.cut.min(), frame.cut.max()
    cuts = low + (high - low) * np.arange(1, 4) / 4
    first = table.filter(pl.col("class") == "no")
    np.testing.assert_allclose(first.get_column("upper").to_numpy()[:-1], cuts, rtol=1e-12)
    np.testing.assert_allclose(first.get_column("lower").to_numpy()[1:], cuts, rtol=1e-12)
    assert first.get_column("lower")[0] == -np.inf and first.get_column("upper")[-1] == np.inf
    index = np.searchsorted(cuts, frame.cut.to_numpy(), side="left")  # t_{l-1} < x <= t_l
    for c in ("no", "yes"):
        n = np.bincount(index[y == c], minlength=4)
        rows = table.filter(pl.col("class") == c)
        np.testing.assert_array_equal(rows.get_column("count").to_numpy(), n)
        expected = (n + 0.5) / (n.sum() + 4 * 0.5)
        np.testing.assert_allclose(rows.get_column("probability").to_numpy(), expected, 1e-12)


def test_kernel_density_on_a_grid(model, data):
    frame, y = data
    table = model.tables("spread", grid=50)["spread"]
    for c in ("no", "yes"):
        rows = table.filter(pl.col("class") == c)
        xs = rows.get_column("x").to_numpy()
        assert len(xs) == 50
        values = frame.spread[y == c].to_numpy()
        # the mean of Gaussian kernels N(x; x_i, h²) with the given h = 0.5
        expected = norm.pdf(xs[:, None], loc=values[None, :], scale=0.5).mean(axis=1)
        np.testing.assert_allclose(rows.get_column("density").to_numpy(), expected, rtol=1e-9)
        assert set(rows.get_column("bandwidth").to_list()) == {0.5}
    assert xs.min() == pytest.approx(frame.spread.min() - 1.5)
    assert xs.max() == pytest.approx(frame.spread.max() + 1.5)


def test_text_word_counts_and_probabilities(model, data):
    frame, y = data
    table = model.tables("note")["note"]
    for c in ("no", "yes"):
        words = " ".join(frame.note[y == c]).split()
        rows = table.filter(pl.col("class") == c)
        counts = dict(zip(rows.get_column("token"), rows.get_column("count"), strict=True))
        for word in set(words):
            assert counts[word] == words.count(word)
        # P(t | c) = (λ + N(t, c)) / (λ |V| + Σ N), |V| = 2^20 hashed columns
        prize = rows.filter(pl.col("token") == "prize").get_column("probability").item()
        expected = (0.5 + words.count("prize")) / (0.5 * 2**20 + len(words))
        assert prize == pytest.approx(expected, rel=1e-12)


def test_text_family_tables_hold_the_complement_weights_prediction_uses(data):
    frame, y = data
    model = nbayes.NaiveBayes(families={"note": "text"}).fit(frame[["note"]], y)
    table = model.tables("note")["note"]
    assert tuple(table.columns) == ("feature", "class", *COLUMNS["text"])
    # binary 1-2-gram features scaled to unit length: "free prize now" has 5 distinct terms
    # (3 words, 2 pairs), "prize draw" 3, so each document adds 1/√5 or 1/√3 to its terms
    for c in ("no", "yes"):
        notes = frame.note[y == c]
        expected = (notes == "free prize now").sum() / np.sqrt(5) + (
            notes == "prize draw"
        ).sum() / np.sqrt(3)
        got = table.filter((pl.col("class") == c) & (pl.col("token") == "prize"))
        assert got.get_column("count").item() == pytest.approx(expected, rel=1e-12)
    # w_{c,t} = −log((λ + Σ_{k≠c} n_{k,t}) / (λ|V| + Σ_{k≠c} Σ_t' n_{k,t'})), λ = 0.03, V seen
    counts = {
        c: dict(zip(part.get_column("token"), part.get_column("count"), strict=True))
        for c, part in ((c, table.filter(pl.col("class") == c)) for c in ("no", "yes"))
    }
    vocabulary = len(counts["no"])
    for c, other in (("no", "yes"), ("yes", "no")):
        total = sum(counts[other].values())
        weight = -np.log((0.03 + counts[other]["prize"]) / (0.03 * vocabulary + total))
        got = table.filter((pl.col("class") == c) & (pl.col("token") == "prize"))
        assert got.get_column("weight").item() == pytest.approx(weight, rel=1e-12)


def test_tables_agree_with_explain(model, data):
    frame, _ = data
    row = frame.iloc[0]
    explanation = model.explain(row)
    tables = model.tables()
    for j, name in enumerate(explanation.features):
        table = tables[name]
        if name == "colour":
            got = table.filter(pl.col("value") == row["colour"]).get_column("probability")
            np.testing.assert_allclose(got.to_numpy(), explanation.likelihood[j], rtol=1e-12)
        if name == "height":
            mean, sd = table.get_column("mean").to_numpy(), table.get_column("sd").to_numpy()
            expected = norm.pdf(row["height"], mean, sd)
            np.testing.assert_allclose(explanation.likelihood[j], expected, rtol=1e-9)


def test_pandas_frames_and_selection(model):
    tables = model.tables(["height", "colour"], to="pandas")
    assert list(tables) == ["colour", "height"]  # the model's column order
    assert isinstance(tables["height"], pd.DataFrame)
    assert list(tables["height"].columns) == ["feature", "class", "count", "mean", "sd"]


def test_bad_arguments_name_themselves(model):
    with pytest.raises(ValueError, match="nope"):
        model.tables(["nope"])
    with pytest.raises(ValueError, match="to must be"):
        model.tables(to="arrow")
    with pytest.raises(ValueError, match="grid"):
        model.tables(grid=1)
    with pytest.raises(nbayes.NotFittedError):
        nbayes.NaiveBayes().tables()


def test_tables_survive_a_model_file(model, tmp_path):
    path = tmp_path / "m.nbm"
    nbayes.save(model, path)
    loaded = nbayes.load(path)
    for name, frame in model.tables().items():
        assert frame.equals(loaded.tables()[name]), name
