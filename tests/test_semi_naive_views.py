"""SemiNaiveBayes has the views NaiveBayes has: the same parameter names (alpha, class_prior,
loss, priors per call), tables(), explain (text and HTML) with each attribute's term, influence,
the notebook view, plot_features and every report section — each checked against an
independent computation."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

import nbayes
from nbayes.influence import influence
from nbayes.semi_naive import AODE, SemiNaiveBayes


def table(n: int = 400, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    a = rng.choice(["lo", "hi"], n)
    b = np.where(rng.random(n) < 0.75, a, rng.choice(["lo", "hi"], n))
    c = rng.choice(["x", "y", "z"], n)
    x = rng.normal(size=n) + (a == "hi")
    label = np.where(rng.random(n) < 0.8, np.where(a == "hi", "p", "q"), rng.choice(["p", "q"], n))
    return pl.DataFrame({"a": a, "b": b, "c": c, "x": x, "label": label})


@pytest.fixture(scope="module")
def fitted():
    return SemiNaiveBayes("tan").fit(table(), target="label")


def test_shared_parameters_reach_the_structure():
    data = table()
    named = SemiNaiveBayes("aode", alpha=0.5, class_prior="uniform").fit(data, target="label")
    configured = SemiNaiveBayes(AODE(alpha=0.5, class_prior="uniform")).fit(data, target="label")
    np.testing.assert_array_equal(named.predict_proba(data), configured.predict_proba(data))
    assert named.model_.alpha == 0.5 and named.alpha_ == dict.fromkeys("abcx", 0.5)
    # None keeps the structure's own value
    assert SemiNaiveBayes(AODE(alpha=0.25)).fit(data, target="label").model_.alpha == 0.25


def test_loss_in_the_constructor_and_priors_per_call(fitted):
    data = table()
    # a loss that makes deciding q (class 1) cost 100 when the truth is p: q only when sure
    loss = [[0, 1], [100, 0]]
    cautious = SemiNaiveBayes("tan", loss=loss).fit(data, target="label")
    proba = cautious.predict_proba(data)
    risk = proba @ np.asarray(loss, dtype=float).T
    np.testing.assert_array_equal(cautious.predict(data), cautious.classes_[risk.argmin(axis=1)])
    assert (cautious.predict(data) == "q").sum() < (fitted.predict(data) == "q").sum()
    # priors per call: Bayes' rule with the given prior over the model's likelihoods
    joint = fitted.predict_joint_log_proba(data, priors=[0.5, 0.5])
    expected = np.exp(joint - np.logaddexp.reduce(joint, axis=1, keepdims=True))
    np.testing.assert_allclose(fitted.predict_proba(data, priors=[0.5, 0.5]), expected)


def test_tables_hold_the_counts_and_the_smoothed_estimates(fitted):
    data = table()
    tables = fitted.tables()
    assert list(tables) == ["a", "b", "c", "x"]
    frame = tables["c"]
    for cls in ("p", "q"):
        rows = data.filter(pl.col("label") == cls)
        part = frame.filter(pl.col("class") == cls)
        counts = {v: rows.filter(pl.col("c") == v).height for v in ("x", "y", "z")}
        assert dict(zip(part["value"], part["count"], strict=True)) == counts
        # Lidstone with TAN's λ = 0.5: (n_{c,v} + λ) / (N_c + 3 λ)
        assert fitted.alpha_["c"] == 0.5
        expected = [(counts[v] + 0.5) / (rows.height + 1.5) for v in part["value"]]
        np.testing.assert_allclose(part["probability"].to_numpy(), expected)
    intervals = tables["x"]
    assert {"interval", "lower", "upper", "count", "probability"} <= set(intervals.columns)
    cuts = fitted.cut_points_["x"]
    assert intervals.filter(pl.col("class") == "p")["upper"].to_list()[:-1] == cuts.tolist()
    assert fitted.families_ == {"a": "categorical", "b": "categorical", "c": "categorical",
                                "x": "mdl"}  # fmt: skip
    assert "interval" in fitted.family_reasons_["x"]
    assert fitted.missing_ == dict.fromkeys("abcx", "skip")
    assert fitted.calibration_ is None


def test_tables_show_missing_as_a_value_where_it_is_one():
    # missing values kept as a value of their own: the table's last row, with null bounds
    data = pl.DataFrame({
        "a": ["x", "y", None, "x", "y", "x"] * 5,
        "n": [1.5, None, 2.5, 3.5, 4.5, 5.5] * 5,  # (fractions: numbers cut into intervals)
        "label": ["p", "q", "p", "q", "p", "q"] * 5,
    })  # fmt: skip
    model = SemiNaiveBayes(missing="category", discriminative=False).fit(data, target="label")
    tables = model.tables()
    for name in ("a", "n"):
        frame = tables[name]
        for cls in ("p", "q"):
            rows = data.filter(pl.col("label") == cls)
            part = frame.filter(pl.col("class") == cls)
            # the missing row counts the class's rows without a value; the estimates sum to 1
            assert part["count"][-1] == rows[name].null_count()
            assert part["count"].sum() == rows.height
            assert part["probability"].sum() == pytest.approx(1.0)
    assert tables["a"]["value"].to_list()[:3] == ["x", "y", None]
    assert tables["n"]["lower"][-1] is None and tables["n"]["upper"][-1] is None
    # and an explanation calls that value missing (not "unseen value", nor an interval)
    explanation = model.explain({"a": None, "n": None})
    text = str(explanation)
    assert "a = missing" in text and "n = missing" in text and "unseen" not in text
    # a value of its own is evidence: each has its term, the log-odds less the log-odds with
    # the attribute left out (here AODE's ensemble of naive structures makes the terms add up)
    terms = dict(explanation.contributions)
    assert set(terms) == {"prior", "a=missing", "n=missing"}
    joint = model.predict_joint_log_proba(pl.DataFrame({"a": [None], "n": [None]}))[0]
    a, b = explanation.top_two
    lone = {"a": SemiNaiveBayes(missing="category", discriminative=False),
            "n": SemiNaiveBayes(missing="category", discriminative=False)}  # fmt: skip
    for name, other in lone.items():
        without = other.fit(data.drop(name), target="label")  # the attribute left out
        rest = without.predict_joint_log_proba(data.drop(name, "label")[:0].clear(1))[0]
        expected = (joint[a] - joint[b]) - (rest[a] - rest[b])
        assert terms[f"{name}=missing"] == pytest.approx(expected, abs=1e-9)


def test_a_term_is_the_change_in_log_odds_when_the_attribute_is_missing(fitted):
    data = table()
    row = data.row(3, named=True)
    explanation = fitted.explain(row)
    a, b = explanation.top_two
    joint = fitted.predict_joint_log_proba(pl.DataFrame([row]).drop("label"))[0]
    for term, value in explanation.contributions:
        if term == "prior":
            prior = np.log(fitted.class_count_ / fitted.class_count_.sum())
            assert value == pytest.approx(prior[a] - prior[b])
            continue
        name = term.split("=")[0]
        without = dict(row, **{name: None})
        other = fitted.predict_joint_log_proba(pl.DataFrame([without]).drop("label"))[0]
        assert value == pytest.approx((joint[a] - joint[b]) - (other[a] - other[b]), abs=1e-9)
    assert "with each attribute minus without it (left out of the evidence)" in str(explanation)
    html = explanation._repr_html_()
    assert "<table>" in html and "contribution" in html
    # influence averages the same terms over rows
    found = influence(fitted, data, max_rows=None)
    assert set(found["feature"]) == {"a", "b", "c", "x"}
    assert found["influence"].to_list() == sorted(found["influence"].to_list(), reverse=True)


def test_naive_structure_terms_equal_naive_bayes_terms():
    """For a structure without dependencies the term of a column is log P(x_j|a) − log P(x_j|b):
    AODE over one attribute is naive Bayes, so its terms must equal NaiveBayes's."""
    data = table().select("c", "label")
    semi = SemiNaiveBayes("aode").fit(data, target="label")
    naive = nbayes.NaiveBayes(alpha=1.0, missing="skip", calibration=None).fit(data, target="label")
    row = data.row(0, named=True)
    semi_terms = dict(semi.explain(row).contributions)
    naive_terms = dict(naive.explain(row).contributions)
    assert semi_terms == pytest.approx(naive_terms, abs=1e-9)


def test_terms_that_do_not_add_up_are_said_so_with_both_figures():
    """Two attributes that each alone decide the class (a parent and its child in k-DB) leave
    each other to carry the evidence when one is taken out: the terms then do not add up to
    the log-odds, and the explanation says so with both figures; where they add up (one
    attribute), it says nothing."""
    rng = np.random.default_rng(4)
    n = 400
    label = rng.choice(["p", "q"], n)
    key = np.where(label == "p", "k1", "k2")
    data = pl.DataFrame({"a": key, "b": key, "c": rng.choice(["u", "v"], n), "label": label})
    model = SemiNaiveBayes("kdb", discriminative=False).fit(data, target="label")
    row = data.row(0, named=True)
    explanation = model.explain(row)
    a, b = explanation.top_two
    proba = model.predict_proba(pl.DataFrame([row]).drop("label"))[0]
    log_odds = np.log(proba[a]) - np.log(proba[b])
    total = sum(value for _, value in explanation.contributions)
    assert abs(total - log_odds) > 0.5
    assert f"the terms add up to {total:+.3f}, the log-odds is {log_odds:+.3f}" in str(explanation)
    assert "carry the same evidence" in explanation._repr_html_()
    single = SemiNaiveBayes("aode", discriminative=False).fit(data.select("c", "label"), "label")
    assert "the terms add up" not in str(single.explain(data.select("c").row(0, named=True)))


def test_hnb_explains_with_its_terms():
    data = table()
    explanation = SemiNaiveBayes("hnb").fit(data, target="label").explain(data.row(0, named=True))
    assert explanation.kind == "terms" and len(explanation.contributions) == 5


def test_notebook_view_plot_and_report(fitted, tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from nbayes.plot import plot_features

    data = table()
    html = fitted._repr_html_()
    assert "TAN" in html and "P(value | c)" in html
    display = plot_features(fitted)
    assert set(display.axes) == {"a", "b", "c", "x"}
    page = nbayes.report(fitted, data, target="label", path=tmp_path / "r.html")
    for section in ("id='data'", "id='metrics'", "id='influence'", "id='conditionals'",
                    "id='explained'"):  # fmt: skip
        assert section in page


def test_missing_and_continuous_are_named_as_in_naive_bayes_and_refused_in_one_sentence():
    data = table()
    skipped = SemiNaiveBayes("tan", missing="skip").fit(data, target="label")
    assert skipped.missing_ == dict.fromkeys("abcx", "skip")
    missing = data.select([pl.exclude("label").is_null().any()]).row(0, named=True)
    by_column = SemiNaiveBayes("tan", missing={"a": "skip"}).fit(data, target="label")
    assert by_column.missing_["a"] == "skip"
    assert {c: m == "category" for c, m in by_column.missing_.items() if c != "a"} == {
        c: missing[c] for c in "bcx"
    }  # the others: the default, a value of their own where the training rows miss some
    for mode in ("drop", {"a": "impute"}):
        with pytest.raises(ValueError, match=r"missing must be one of"):
            SemiNaiveBayes(missing=mode).fit(data, target="label")
    for family in ("gaussian", "kde", "poisson", "auto"):
        with pytest.raises(ValueError, match=r"continuous must be one of .* discrete"):
            SemiNaiveBayes(continuous=family).fit(data, target="label")
        with pytest.raises(ValueError, match=r"column 'x' has family .* need discrete columns"):
            SemiNaiveBayes(families={"x": family}).fit(data, target="label")
    # a misspelt family is named as unknown, with the closest name, before what it could do
    with pytest.raises(ValueError, match=r"unknown family 'gausian' for column 'x'; did you "
                       r"mean 'gaussian'\? Semi-naive models take \('categorical'"):  # fmt: skip
        SemiNaiveBayes(families={"x": "gausian"}).fit(data, target="label")
    with pytest.raises(ValueError, match=r"unknown family 'xyz' for column 'x'\. Semi-naive "
                       r"models take \('categorical'"):  # fmt: skip
        SemiNaiveBayes(families={"x": "xyz"}).fit(data, target="label")


def _with_text(n: int, seed: int) -> tuple[pl.DataFrame, np.ndarray]:
    """A strong attribute, a weak one copied five times (evidence the correction undoes), and
    a free-text column with a weak hint of the class."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    strong = np.where(rng.random(n) < 0.8, y, 1 - y)
    weak = np.where(rng.random(n) < 0.6, y, 1 - y)
    columns = {"strong": strong.astype(str)}
    columns.update({f"weak{j}": weak.astype(str) for j in range(5)})
    hint = np.where(rng.random(n) < 0.6, y, 1 - y)
    columns["msg"] = [
        f"w{rng.integers(0, 20)} w{rng.integers(0, 20)} {'offer' if h else 'hello'} there"
        for h in hint
    ]
    return pl.DataFrame(columns), np.where(y == 1, "yes", "no")


def _factors_make_the_posterior(model, row: dict) -> list[str]:
    e = model.explain(row)
    assert e.factors[0][0] == "the structure's P(c | x)"
    product = np.prod([values for _, values in e.factors], axis=0)
    np.testing.assert_allclose(product / product.sum(), e.posterior, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(e.posterior, model.predict_proba(pl.DataFrame([row]))[0])
    structure = model.model_.predict_proba(model._codes(pl.DataFrame([row])))[0]
    np.testing.assert_allclose(e.factors[0][1], structure, rtol=1e-12)
    labels = [label for label, _ in e.factors]
    from html import escape

    for shown, written in ((str(e), str), (e._repr_html_(), escape)):
        assert all(written(label) in shown for label in labels)
    return labels


def test_an_explanation_shows_what_the_table_adds_to_the_structure():
    """With a text column, or the discriminative correction, the worked table shows the
    structure's P(c | x) and a factor for each addition, and P(c | x) is proportional to their
    product (the text was left out, so the lines contradicted the posterior printed)."""
    from nbayes.semi_naive import KDB

    frame, y = _with_text(3000, 2)
    row = {**frame.row(0, named=True), "msg": "offer offer now"}
    texts = SemiNaiveBayes(KDB(0), discriminative=False, families={"msg": "text"}).fit(frame, y)
    labels = _factors_make_the_posterior(texts, row)
    assert labels[1:] == ["∝ exp Σ_t w_ct x_t (msg=offer offer now)"]
    from test_semi_naive_discriminative import _doubled_evidence

    frame, y = _doubled_evidence(3000, 2)
    corrected = SemiNaiveBayes(KDB(0)).fit(frame, y)
    assert corrected.correction_.iterations > 0
    row = frame.row(0, named=True)
    assert _factors_make_the_posterior(corrected, row)[1:] == ["∝ exp correction b_c + Σ δ"]
    # a structure alone shows no such lines
    alone = SemiNaiveBayes(KDB(0), discriminative=False).fit(frame, y)
    assert alone.explain(row).factors == []


def test_a_network_explanation_lists_the_skipped_and_unseen_values_with_a_factor_of_one():
    data = pl.DataFrame({
        "a": ["x", "y", "x", "y", "x", "z"] * 5,
        "b": ["u", "v", "v", "u", "u", "v"] * 5,
        "c": ["s", "t", "s", "s", "t", "t"] * 5,
        "label": ["p", "q", "p", "q", "p", "q"] * 5,
    })  # fmt: skip
    model = SemiNaiveBayes("tan", missing="skip", discriminative=False).fit(data, target="label")
    explanation = model.explain({"a": None, "b": "never", "c": "s"})
    text = str(explanation)
    assert "a = missing (skipped: adds nothing)" in text
    assert "b = unseen value (skipped: adds nothing)" in text
    skipped = [line for line in explanation.lines if line.get("skipped")]
    assert [line["attribute"] for line in skipped] == ["a", "b"]
    assert all(np.all(line["log_p"] == 0.0) for line in skipped)
    # the factors still multiply to the model's P(x | c) P(c): the skipped ones add nothing
    with pytest.warns(UserWarning, match="not seen in fitting"):  # (prediction says so)
        joint = model.predict_joint_log_proba(
            pl.DataFrame({"a": [None], "b": ["never"], "c": ["s"]})
        )
    total = np.log(explanation.prior) + sum(line["log_p"] for line in explanation.lines)
    np.testing.assert_allclose(total, joint[0], rtol=1e-12)
