"""``NaiveBayes.explain`` (Han & Kamber's buys_computer computation) and ``summary()`` /
``print(model)``.

The buys_computer figures are checked against exact fractions from the 14 training rows; the
printed table must show the textbook's rounded figures.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import polars as pl
import pytest
from scipy.stats import norm

import nbayes
from nbayes.datasets import load_buys_computer

QUERY = {"age": "youth", "income": "medium", "student": "yes", "credit_rating": "fair"}

# Han & Kamber's buys_computer example, λ = 0: P(x_j | c) for the query, in the table's column order
YES = [Fraction(2, 9), Fraction(4, 9), Fraction(6, 9), Fraction(6, 9)]
NO = [Fraction(3, 5), Fraction(2, 5), Fraction(1, 5), Fraction(2, 5)]
PRIOR_YES, PRIOR_NO = Fraction(9, 14), Fraction(5, 14)


def buys_computer() -> tuple[pd.DataFrame, np.ndarray]:
    table = load_buys_computer()
    return pd.DataFrame(table.X, columns=table.feature_names), table.y


def product(fractions: list[Fraction]) -> Fraction:
    out = Fraction(1)
    for f in fractions:
        out *= f
    return out


@pytest.fixture(scope="module")
def explained():
    X, y = buys_computer()
    model = nbayes.NaiveBayes(alpha=0).fit(X, y)
    return model, model.explain(QUERY)


def test_buys_computer_numbers_are_the_seeds_exact_fractions(explained):
    model, e = explained
    assert list(e.classes) == ["no", "yes"]
    assert e.features == ["age", "income", "student", "credit_rating"]
    assert e.values == ["youth", "medium", "yes", "fair"]
    np.testing.assert_allclose(e.prior, [float(PRIOR_NO), float(PRIOR_YES)], rtol=1e-14)
    np.testing.assert_allclose(e.likelihood[:, 1], [float(f) for f in YES], rtol=1e-14)
    np.testing.assert_allclose(e.likelihood[:, 0], [float(f) for f in NO], rtol=1e-14)
    assert [round(float(v), 3) for v in e.likelihood[:, 1]] == [0.222, 0.444, 0.667, 0.667]
    assert [round(float(v), 3) for v in e.likelihood[:, 0]] == [0.600, 0.400, 0.200, 0.400]
    p_yes, p_no = product(YES), product(NO)
    np.testing.assert_allclose(e.product, [float(p_no), float(p_yes)], rtol=1e-14)
    assert round(e.product[1], 3) == 0.044 and round(e.product[0], 3) == 0.019
    np.testing.assert_allclose(e.log_evidence, [math.log(p_no), math.log(p_yes)], rtol=1e-14)
    joint_yes, joint_no = p_yes * PRIOR_YES, p_no * PRIOR_NO
    np.testing.assert_allclose(e.joint, [float(joint_no), float(joint_yes)], rtol=1e-14)
    assert round(e.joint[1], 3) == 0.028 and round(e.joint[0], 3) == 0.007
    posterior_yes = joint_yes / (joint_yes + joint_no)
    np.testing.assert_allclose(
        e.posterior, [float(1 - posterior_yes), float(posterior_yes)], rtol=1e-14
    )
    assert round(e.posterior[1], 3) == 0.805
    assert e.decision == "yes"
    # and the explanation agrees with the model's own prediction
    row = pd.DataFrame([QUERY])
    np.testing.assert_allclose(model.predict_proba(row)[0], e.posterior, rtol=1e-14)


def test_buys_computer_printed_table(explained):
    _, e = explained
    text = str(e)
    lines = text.splitlines()

    def line(start: str) -> str:
        found = [ln for ln in lines if ln.startswith(start)]
        assert len(found) == 1, (start, text)
        return found[0]

    assert line("P(age=youth | c)").split()[-2:] == ["0.600", "0.222"]
    assert line("P(income=medium | c)").split()[-2:] == ["0.400", "0.444"]
    assert line("P(student=yes | c)").split()[-2:] == ["0.200", "0.667"]
    assert line("P(credit_rating=fair | c)").split()[-2:] == ["0.400", "0.667"]
    assert line("P(x | c) = ").split()[-2:] == ["0.019", "0.044"]
    assert line("P(x | c) P(c)").split()[-2:] == ["0.007", "0.028"]
    assert line("P(c | x)").split()[-2:] == ["0.195", "0.805"]
    assert line("P(c) ").split()[-2:] == ["0.357", "0.643"]
    assert "decision: yes" in text
    header = lines[0].split()
    assert header == ["no", "yes"]


def test_contributions_sum_to_the_log_odds_and_are_sorted(explained):
    _, e = explained
    terms = e.contributions
    log_odds = math.log(product(YES) * PRIOR_YES) - math.log(product(NO) * PRIOR_NO)
    assert sum(v for _, v in terms) == pytest.approx(log_odds, rel=1e-13)
    sizes = [abs(v) for _, v in terms]
    assert sizes == sorted(sizes, reverse=True)
    by_term = dict(terms)
    assert set(by_term) == {
        "prior",
        "age=youth",
        "income=medium",
        "student=yes",
        "credit_rating=fair",
    }
    # each term is log P(x_j | yes) − log P(x_j | no), by hand
    for (name, value), yes, no in zip(QUERY.items(), YES, NO, strict=True):
        assert by_term[f"{name}={value}"] == pytest.approx(math.log(yes / no), rel=1e-13)
    assert by_term["prior"] == pytest.approx(math.log(PRIOR_YES / PRIOR_NO), rel=1e-13)
    assert terms[0][0] == "student=yes"  # log(10/3) = 1.204 decided the case
    text = str(e)
    assert "+1.204" in text and "-0.993" in text


def test_a_missing_feature_is_shown_as_missing_and_left_out():
    X, y = buys_computer()
    model = nbayes.NaiveBayes(alpha=0).fit(X, y)
    query = dict(QUERY, income=None)
    e = model.explain(query)
    assert e.values[1] == "missing"
    assert np.isnan(e.log_likelihood[1]).all()
    income_line = next(ln for ln in str(e).splitlines() if ln.startswith("income is missing"))
    assert income_line.split()[-2:] == ["skipped", "skipped"]
    assert all(not term.startswith("income") for term, _ in e.contributions)
    # the posterior is that of the other three features alone (exact fractions)
    joint_yes = product([YES[0], YES[2], YES[3]]) * PRIOR_YES
    joint_no = product([NO[0], NO[2], NO[3]]) * PRIOR_NO
    expected = float(joint_yes / (joint_yes + joint_no))
    np.testing.assert_allclose(e.posterior, [1 - expected, expected], rtol=1e-14)
    # the same row through pandas (NaN) and a one-row Polars table
    series = pd.Series({**QUERY, "income": np.nan})
    np.testing.assert_allclose(model.explain(series).posterior, e.posterior, rtol=1e-14)
    one_row = pl.DataFrame(
        {k: [v] for k, v in query.items()}, schema=dict.fromkeys(query, pl.String)
    )
    np.testing.assert_allclose(model.explain(one_row).posterior, e.posterior, rtol=1e-14)
    with pytest.raises(ValueError, match="one row"):
        model.explain(pl.concat([one_row, one_row]))


def test_an_identifier_column_is_shown_as_left_out_not_missing():
    X, y = buys_computer()
    frame = pl.DataFrame(X).with_columns(pl.Series("id", [f"r{i}" for i in range(len(y))]))
    model = nbayes.NaiveBayes(alpha=0, families={"id": "ignore"}).fit(frame, y)
    e = model.explain({**QUERY, "id": "r999"})
    line = next(ln for ln in str(e).splitlines() if ln.startswith("id "))
    assert line.split()[:4] == ["id", "is", "left", "out"] and line.split()[-1] == "ignored"
    assert "id is left out" in e._repr_html_() and "id is missing" not in str(e)
    # it takes no part: the posterior is that of the four features (exact fractions)
    joint_yes, joint_no = product(YES) * PRIOR_YES, product(NO) * PRIOR_NO
    assert e.posterior[1] == pytest.approx(float(joint_yes / (joint_yes + joint_no)), rel=1e-14)


def test_a_weighted_text_column_is_shown_as_a_score_not_a_probability():
    """A text column weighted as complement naive Bayes weights it contributes Σ_t w_ct x_t,
    which is no log-probability: its line and the product lines say so, and the numbers are
    still those the posterior is made of."""
    spam = ["cheap pills buy now", "buy cheap now", "win cheap prize now"]
    ham = ["meeting at noon", "lunch at noon today", "notes from the meeting"]
    frame = pl.DataFrame(
        {"txt": (spam + ham) * 5, "n": [1.0, 1.5, 1.2, 2.0, 2.5, 2.2] * 5}
    )
    y = (["spam"] * 3 + ["ham"] * 3) * 5
    model = nbayes.NaiveBayes(families={"txt": "text"}, calibration=None).fit(frame, y)
    e = model.explain({"txt": "cheap lunch now", "n": 1.1})
    assert e.weight_scores == ("txt",)
    text = str(e)
    assert "P(txt=" not in text and "P(x | c) = ∏" not in text
    line = next(ln for ln in text.splitlines() if ln.startswith("exp Σ w_ct x_t (txt="))
    assert [float(v) for v in line.split()[-2:]] == pytest.approx(
        np.exp(e.log_likelihood[0]), rel=1e-3
    )
    assert "exp Σ w_ct x_t (txt=" in e._repr_html_() and "a score" in e._repr_html_()
    # the worked numbers are the model's: softmax of log P(c) + the column terms
    joint = e.log_prior + e.log_likelihood.sum(axis=0)
    posterior = np.exp(joint - joint.max()) / np.exp(joint - joint.max()).sum()
    assert e.posterior == pytest.approx(posterior, rel=1e-12)
    assert e.posterior == pytest.approx(
        model.predict_proba(pl.DataFrame({"txt": ["cheap lunch now"], "n": [1.1]}))[0]
    )
    # calibrated, its line is of the same score
    shown = str(dataclasses.replace(e, calibration=(0.5, np.zeros(2))))
    assert "a [log P(c) + Σ of their logs] + b_c" in shown and "Σ log P(x_j" not in shown
    # a column of words modelled as probabilities keeps the textbook labels
    plain = nbayes.NaiveBayes(calibration=None).fit(frame, y).explain({"txt": "x", "n": 1.1})
    assert plain.weight_scores == () and "P(x | c) = ∏ P(x_j | c)" in str(plain)


def mixed_model():
    rng = np.random.default_rng(0)
    n = 200
    y = rng.choice(["p", "q"], n)
    frame = pl.DataFrame(
        {
            "colour": rng.choice(["red", "blue"], n),
            "height": rng.normal(np.where(y == "p", 170.0, 160.0), 8.0),
            "weight": rng.normal(np.where(y == "p", 70.0, 60.0), 6.0),
            "reach": rng.normal(np.where(y == "p", 180.0, 150.0), 10.0),
        }
    )
    model = nbayes.NaiveBayes(
        families={"height": "gaussian", "weight": "kde", "reach": "mdl"}
    ).fit(frame, y)
    return model, frame, y


def test_a_gaussian_feature_shows_its_density():
    model, frame, y = mixed_model()
    e = model.explain({"colour": "red", "height": 165.0, "weight": 65.0, "reach": 200.0})
    assert e.densities == [False, True, True, False]
    text = str(e)
    assert "p(height=165 | c)" in text and "p(weight=65 | c)" in text
    assert "P(colour=red | c)" in text and "P(reach=200 | c)" in text
    heights = frame["height"].to_numpy()
    epsilon = 1e-9 * heights.var()
    for k, c in enumerate(["p", "q"]):
        values = heights[y == c]
        expected = norm.pdf(165.0, values.mean(), math.sqrt(values.var() + epsilon))
        assert e.likelihood[0 + 1, k] == pytest.approx(expected, rel=1e-10)


def test_every_column_of_a_family_missing_is_explained():
    model, _, _ = mixed_model()
    e = model.explain({"colour": "red", "height": None, "weight": None, "reach": None})
    assert e.values == ["red", "missing", "missing", "missing"]
    assert e.log_likelihood.shape == (4, 2)
    assert np.isnan(e.log_likelihood[1:]).all()
    only_colour = model.predict_proba(
        pl.DataFrame({"colour": ["red"], "height": [None], "weight": [None], "reach": [None]})
    )
    np.testing.assert_allclose(e.posterior, only_colour[0], rtol=1e-14)
    e = model.explain({"colour": None, "height": None, "weight": None, "reach": None})
    np.testing.assert_allclose(e.posterior, np.exp(model.class_log_prior_), rtol=1e-14)
    assert [term for term, _ in e.contributions] == ["prior"]


# ---------------------------------------------------------------------- summary
def test_summary_shows_the_conditional_tables():
    X, y = buys_computer()
    model = nbayes.NaiveBayes(alpha=0).fit(X, y)
    text = model.summary()
    assert str(model) == text
    assert "14 training rows" in text and "2 classes" in text
    # Weka-style per-class conditional table: value rows, one column per class
    block = text.split("age  (categorical")[1].split("\n\n")[0].splitlines()
    rows = {ln.split()[0]: ln.split()[1:] for ln in block[2:]}
    assert rows == {
        "middle_aged": ["0.000", "0.444"],  # 0/5, 4/9
        "senior": ["0.400", "0.333"],  # 2/5, 3/9
        "youth": ["0.600", "0.222"],  # 3/5, 2/9
    }
    prior = text.split("class prior")[1].split("\n\n")[0]
    assert prior.splitlines()[-1].split() == ["P(c)", "0.357", "0.643"]


def test_summary_shows_means_sds_bandwidths_and_cut_points():
    model, frame, y = mixed_model()
    text = str(model)
    assert "4 columns" in text
    height = text.split("height  (gaussian)")[1].split("\n\n")[0].splitlines()
    heights = frame["height"].to_numpy()
    means = [f"{heights[y == c].mean():.3f}" for c in ("p", "q")]
    sds = [f"{heights[y == c].std():.3f}" for c in ("p", "q")]
    assert height[2].split() == ["mean", *means]
    assert height[3].split() == ["sd", *sds]
    assert "weight  (kernel density" in text
    kde = text.split("weight  (kernel density")[1].split("\n\n")[0].splitlines()
    counts = [f"{np.sum(y == c):,}" for c in ("p", "q")]  # counts: printed as integers
    assert kde[2].split() == ["kernels", *counts]
    reach = text.split("reach  (mdl intervals")[1].split("\n\n")[0]
    cuts = model_cuts(model, "reach")
    assert len(cuts) >= 1
    assert "cut points: " + ", ".join(f"{c:.3f}" for c in cuts) in reach
    # one row per interval, labelled by its bounds, probabilities per class summing to 1
    rows = reach.splitlines()[2:]
    assert len(rows) == len(cuts) + 1
    assert rows[0].split()[0].startswith("(-∞,") and rows[-1].split()[1].endswith("∞)")
    for k in range(2):
        assert sum(float(r.split()[-2 + k]) for r in rows) == pytest.approx(1.0, abs=2e-3)


def model_cuts(model, name: str) -> np.ndarray:
    for group in model._stats.groups:
        if name in group.names:
            return group.cuts(model._settings())[group.names.index(name)]
    raise KeyError(name)


def test_tables_give_the_probabilities_prediction_uses_with_missing_as_a_category():
    """A column whose missing values are a category of their own: tables() lists them as a
    null value with the probability print(model) and prediction use (it renormalised the other
    values without them), and the HTML view names the row (missing), apart from a value "None"."""
    rng = np.random.default_rng(0)
    n = 400
    a = np.array(["None", "x", "y", None], dtype=object)[rng.integers(0, 4, n)]
    frame = pd.DataFrame({"a": a, "b": rng.choice(["u", "v"], n), "y": rng.choice(["p", "q"], n)})
    model = nbayes.NaiveBayes(missing="category", alpha=1.0, calibration=None).fit(
        frame, target="y"
    )
    table = model.tables()["a"]
    for c in ("p", "q"):
        rows = table.filter(pl.col("class") == c)
        got = dict(zip(rows["value"].to_list(), rows["probability"].to_list(), strict=True))
        rows_c = frame[frame["y"] == c]["a"]
        counts = {v: int((rows_c == v).sum()) for v in ("None", "x", "y")}
        counts[None] = int(rows_c.isna().sum())
        for v, k in counts.items():  # Lidstone λ = 1 over the three values and missing
            assert got[v] == pytest.approx((k + 1) / (len(rows_c) + 4), rel=1e-12)
    html = model._repr_html_()
    assert "(missing)" in html
