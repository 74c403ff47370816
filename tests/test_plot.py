"""nbayes.plot: the numbers each display plots, checked against scikit-learn's metrics and
against the model's statistics computed here by hand — never against pixels."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import polars as pl
import pytest
from scipy.stats import norm

import nbayes

matplotlib = pytest.importorskip("matplotlib", reason="the plot extra (matplotlib) is absent")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from sklearn import metrics  # noqa: E402
from sklearn.calibration import calibration_curve  # noqa: E402
from sklearn.datasets import load_breast_cancer, load_iris  # noqa: E402

from nbayes import plot  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_import_nbayes_never_imports_matplotlib():
    code = (
        "import sys, nbayes, nbayes.plot, nbayes.conditionals\n"
        "assert 'matplotlib' not in sys.modules, 'matplotlib was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.fixture(scope="module")
def binary():
    X, y = load_breast_cancer(return_X_y=True)
    names = np.array(["benign", "malignant"])[1 - y]  # classes_ sorted: benign, malignant
    model = nbayes.GaussianNB().fit(X[::2], names[::2])
    return model, X[1::2], names[1::2]


@pytest.fixture(scope="module")
def multiclass():
    X, y = load_iris(return_X_y=True)
    model = nbayes.GaussianNB().fit(X[::2], y[::2])
    return model, X[1::2], y[1::2]


def test_roc_binary_matches_sklearn(binary):
    model, X, y = binary
    display = plot.plot_roc(model, X, y)
    score = model.predict_proba(X)[:, 1]
    fpr, tpr, thresholds = metrics.roc_curve(
        y, score, pos_label="malignant", drop_intermediate=False
    )
    assert display.classes == ["malignant"]
    np.testing.assert_allclose(display.fpr["malignant"], fpr)
    np.testing.assert_allclose(display.tpr["malignant"], tpr)
    np.testing.assert_allclose(display.thresholds["malignant"], thresholds)
    assert display.auc["malignant"] == pytest.approx(metrics.roc_auc_score(y == "malignant", score))
    line = display.lines["malignant"]
    np.testing.assert_array_equal(line.get_xdata(), fpr)
    np.testing.assert_array_equal(line.get_ydata(), tpr)
    assert display.figure is display.ax.figure


def test_roc_and_pr_one_vs_rest_match_sklearn(multiclass):
    model, X, y = multiclass
    proba = model.predict_proba(X)
    roc = plot.plot_roc(model, X, y)
    pr = plot.plot_precision_recall(model, X, y)
    assert roc.classes == pr.classes == [0, 1, 2]
    for k in range(3):
        fpr, tpr, _ = metrics.roc_curve(y == k, proba[:, k], drop_intermediate=False)
        np.testing.assert_allclose(roc.fpr[k], fpr)
        np.testing.assert_allclose(roc.tpr[k], tpr)
        assert roc.auc[k] == pytest.approx(metrics.roc_auc_score(y == k, proba[:, k]))
        precision, recall, thresholds = metrics.precision_recall_curve(y == k, proba[:, k])
        np.testing.assert_allclose(pr.precision[k], precision)
        np.testing.assert_allclose(pr.recall[k], recall)
        np.testing.assert_allclose(pr.thresholds[k], thresholds)
        expected = metrics.average_precision_score(y == k, proba[:, k])
        assert pr.average_precision[k] == pytest.approx(expected)
        np.testing.assert_array_equal(pr.lines[k].get_xdata(), recall)


def test_precision_recall_binary_with_ties():
    truth = np.array([1, 0, 1, 1, 0, 0, 1, 0])
    score = np.array([0.9, 0.9, 0.6, 0.6, 0.6, 0.2, 0.1, 0.1])
    proba = np.column_stack([1 - score, score])
    display = plot.PrecisionRecallDisplay.from_predictions(truth, proba, ["a", "b"])
    precision, recall, _ = metrics.precision_recall_curve(truth, score)
    np.testing.assert_allclose(display.precision["b"], precision)
    np.testing.assert_allclose(display.recall["b"], recall)
    roc = plot.RocCurveDisplay.from_predictions(truth, proba, ["a", "b"])
    assert roc.auc["b"] == pytest.approx(metrics.roc_auc_score(truth, score))


def test_reliability_matches_sklearn(binary, multiclass):
    model, X, y = binary
    display = plot.plot_reliability(model, X, y, n_bins=8)
    score = model.predict_proba(X)[:, 1]
    observed, predicted = calibration_curve(y == "malignant", score, n_bins=8)
    np.testing.assert_allclose(display.mean_predicted["malignant"], predicted)
    np.testing.assert_allclose(display.fraction_positive["malignant"], observed)
    assert display.rows["malignant"].sum() == len(y)
    assert display.brier == pytest.approx(metrics.brier_score_loss(y == "malignant", score))
    np.testing.assert_array_equal(display.lines["malignant"].get_ydata(), observed)
    assert f"{display.brier:.4f}" in display.ax.get_title()

    model, X, y = multiclass
    display = plot.plot_reliability(model, X, y)
    proba = model.predict_proba(X)
    assert display.brier == pytest.approx(metrics.brier_score_loss(y, proba, labels=[0, 1, 2]))
    for k in range(3):
        observed, predicted = calibration_curve(y == k, proba[:, k], n_bins=10)
        np.testing.assert_allclose(display.mean_predicted[k], predicted)
        np.testing.assert_allclose(display.fraction_positive[k], observed)


@pytest.mark.parametrize("normalize", [None, "true", "pred", "all"])
def test_confusion_matrix_matches_sklearn(multiclass, normalize):
    model, X, y = multiclass
    display = plot.plot_confusion_matrix(model, X, y, normalize=normalize)
    predicted = model.predict(X)
    counts = metrics.confusion_matrix(y, predicted, labels=[0, 1, 2])
    np.testing.assert_array_equal(display.confusion, counts)
    expected = metrics.confusion_matrix(y, predicted, labels=[0, 1, 2], normalize=normalize)
    np.testing.assert_allclose(display.values, expected)
    np.testing.assert_allclose(display.image.get_array(), expected)
    shown = [t.get_text() for t in display.ax.texts]
    if normalize is None:
        assert shown == [str(v) for v in counts.ravel()]


def test_target_column_and_given_axes():
    frame = pd.DataFrame({"x": [1.0, 2.0, 1.5, 5.0, 6.0, 5.5, 1.2, 5.2], "label": list("aaabbbab")})
    model = nbayes.NaiveBayes().fit(frame, target="label")
    figure, ax = plt.subplots()
    display = plot.plot_confusion_matrix(model, frame, target="label", ax=ax)
    assert display.ax is ax and display.figure is figure
    np.testing.assert_array_equal(display.confusion, [[4, 0], [0, 4]])
    with pytest.raises(ValueError, match="once"):
        plot.plot_roc(model, frame, frame["label"], target="label")
    with pytest.raises(ValueError, match="target column 'nope'"):
        plot.plot_roc(model, frame, target="nope")
    with pytest.raises(ValueError, match="labels the model does not know"):
        plot.plot_roc(model, frame.drop(columns="label"), ["a"] * 7 + ["zzz"])


@pytest.fixture(scope="module")
def table_model():
    rng = np.random.default_rng(3)
    n = 150
    y = rng.choice(np.array(["no", "yes"]), n)
    frame = pd.DataFrame(
        {
            "colour": np.where(y == "yes", rng.choice(["red", "blue"], n), "green"),
            "height": rng.normal(170, 10, n) + 8 * (y == "yes"),
            "spread": np.round(rng.normal(0, 1, n), 2),
            "cut": rng.uniform(0, 10, n),
            "visits": rng.poisson(2, n),
            "note": rng.choice(["free prize now", "lunch at noon", "prize draw"], n),
        }
    )
    model = nbayes.NaiveBayes(
        families={"spread": "kde", "cut": "equal-width", "visits": "poisson", "note": "text"},
        bins=3,
        bandwidth=0.4,
        alpha=1.0,  # Laplace, the estimates checked by hand below
    ).fit(frame, y)
    return model, frame, y


def test_feature_panels_plot_the_fitted_conditionals(table_model):
    model, frame, y = table_model
    display = plot.plot_features(model, grid=60)
    assert list(display.data) == ["colour", "height", "spread", "cut", "visits", "note"]
    assert display.families["cut"] == "equal-width"

    # Gaussian: N(x; mean, sd) with the class moments computed here
    height = display.data["height"]
    for k, c in enumerate(("no", "yes")):
        values = frame.height[y == c]
        sd = np.sqrt(values.var(ddof=0) + 1e-9 * frame.height.var(ddof=0))
        part = height.filter(pl.col("class") == c)
        xs = part.get_column("x").to_numpy()
        expected = norm.pdf(xs, values.mean(), sd)
        np.testing.assert_allclose(part.get_column("density").to_numpy(), expected, rtol=1e-9)
        line = display.axes["height"].get_lines()[k]
        np.testing.assert_allclose(line.get_ydata(), expected, rtol=1e-9)

    # categorical: bar heights are the Laplace estimates (n + 1) / (N_c + 3), values sorted
    bars = display.axes["colour"].patches
    heights = np.array([b.get_height() for b in bars]).reshape(2, 3)  # class × value
    for k, c in enumerate(("no", "yes")):
        column = frame.colour[y == c]
        expected = [(np.sum(column == v) + 1) / (len(column) + 3) for v in ("blue", "green", "red")]
        np.testing.assert_allclose(heights[k], expected, rtol=1e-12)

    # kernel density: the mean of N(x; x_i, 0.4²)
    spread = display.data["spread"].filter(pl.col("class") == "yes")
    xs = spread.get_column("x").to_numpy()
    values = frame.spread[y == "yes"].to_numpy()
    expected = norm.pdf(xs[:, None], values[None, :], 0.4).mean(axis=1)
    np.testing.assert_allclose(spread.get_column("density").to_numpy(), expected, rtol=1e-9)

    # intervals: a step per interval, at the hand-counted Laplace estimates
    cut = display.data["cut"].filter(pl.col("class") == "no")
    cuts = frame.cut.min() + (frame.cut.max() - frame.cut.min()) * np.array([1, 2]) / 3
    np.testing.assert_allclose(cut.get_column("right").to_numpy()[:2], cuts, rtol=1e-12)
    n = np.bincount(np.searchsorted(cuts, frame.cut[y == "no"]), minlength=3)
    np.testing.assert_allclose(cut.get_column("probability").to_numpy(), (n + 1) / (n.sum() + 3))
    stairs = display.axes["cut"].patches[0]
    np.testing.assert_allclose(stairs.get_data().values, (n + 1) / (n.sum() + 3))

    # Poisson: the pmf with rate (Σx + 1) / (N + 1)
    visits = display.data["visits"].filter(pl.col("class") == "no")
    counts = frame.visits[y == "no"]
    rate = (counts.sum() + 1) / (len(counts) + 1)
    ks = visits.get_column("x").to_numpy()
    from scipy.stats import poisson

    np.testing.assert_allclose(visits.get_column("density").to_numpy(), poisson.pmf(ks, rate))


def test_feature_panels_for_some_columns(table_model):
    model, _, _ = table_model
    display = plot.plot_features(model, ["note", "height"], n_cols=1)
    assert list(display.data) == ["height", "note"]
    assert len(display.figure.axes) == 2


def test_explanation_chart_is_the_log_odds_by_term(table_model):
    model, frame, _ = table_model
    row = frame.iloc[0]
    explanation = model.explain(row)
    display = plot.plot_explanation(explanation)
    tables = model.tables()
    a, b = display.decided, display.against
    assert {a, b} == {"no", "yes"}
    # each feature's term recomputed from the tables: log P(x_j | a) − log P(x_j | b)
    colour = tables["colour"].filter(pl.col("value") == row["colour"])
    p = dict(zip(colour.get_column("class"), colour.get_column("probability"), strict=True))
    term = dict(zip(display.terms, display.contributions, strict=True))
    assert term[f"colour={row['colour']}"] == pytest.approx(np.log(p[a]) - np.log(p[b]))
    height = tables["height"]
    mean = dict(zip(height.get_column("class"), height.get_column("mean"), strict=True))
    sd = dict(zip(height.get_column("class"), height.get_column("sd"), strict=True))
    expected = norm.logpdf(row["height"], mean[a], sd[a]) - norm.logpdf(
        row["height"], mean[b], sd[b]
    )
    height_term = next(t for t in display.terms if t.startswith("height="))
    assert term[height_term] == pytest.approx(expected, rel=1e-9)
    prior = model.class_count_ / model.class_count_.sum()
    index = {c: i for i, c in enumerate(model.classes_)}
    assert term["prior"] == pytest.approx(np.log(prior[index[a]]) - np.log(prior[index[b]]))
    # largest first, and the bars are these numbers; a calibration is the last bar, its own
    # step after the features
    values = list(display.contributions)
    if display.terms[-1].startswith("then calibration"):
        values = values[:-1]
    assert list(np.abs(values)) == sorted(np.abs(values))[::-1]
    widths = [bar.get_width() for bar in display.bars]
    np.testing.assert_allclose(widths, display.contributions)


def test_explanation_chart_of_a_text_classifier():
    texts = ["free prize now", "win a free prize", "lunch at noon", "see you at lunch"] * 3
    labels = ["spam", "spam", "ham", "ham"] * 3
    model = nbayes.TextClassifier(model="multinomial").fit(texts, labels)
    explanation = model.explain("free lunch prize")
    display = plot.plot_explanation(explanation)
    assert display.decided == explanation.predicted
    assert sum(display.contributions) == pytest.approx(explanation.log_odds)
    assert "prior" in display.terms


def test_zero_probability_is_drawn_at_the_edge():
    frame = pd.DataFrame({"c": ["a", "a", "b", "b"], "y": ["p", "p", "q", "q"]})
    model = nbayes.NaiveBayes(alpha=0).fit(frame, target="y")
    display = plot.plot_explanation(model.explain({"c": "a"}))
    assert np.isinf(display.contributions).any()
    assert all(np.isfinite(bar.get_width()) for bar in display.bars)


def test_a_chosen_gaussian_panel_is_its_density_alone():
    # the panel of a column whose family was chosen from the data shows its own p(x | c), not
    # scaled by P(observed | c) or by other columns' P(missing | c)
    rng = np.random.default_rng(6)
    n = 400
    y = rng.choice(np.array(["a", "b"]), n)
    h = rng.normal(size=n)
    h[(y == "a") & (rng.random(n) < 0.5)] = np.nan
    frame = pl.DataFrame({"g": rng.normal(size=n) + (y == "a"), "h": h})
    model = nbayes.NaiveBayes(missing="category").fit(frame, y)
    assert model.families_["g"] == "gaussian" and model.missing_["h"] == "category"
    table = model.tables("g")["g"]
    display = plot.plot_features(model, columns=["g"], grid=50)
    for c in ("a", "b"):
        row = table.filter(pl.col("class") == c)
        part = display.data["g"].filter(pl.col("class") == c)
        xs = part.get_column("x").to_numpy()
        expected = norm.pdf(xs, row.get_column("mean").item(), row.get_column("sd").item())
        np.testing.assert_allclose(part.get_column("density").to_numpy(), expected, rtol=1e-9)
