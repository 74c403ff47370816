"""nbayes.report: the page's figures and numbers, checked against ``nbayes evaluate --json``,
scikit-learn and an independent cross-validation loop; the page loads nothing from outside."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import numpy as np
import polars as pl
import pytest

import nbayes

matplotlib = pytest.importorskip("matplotlib", reason="the plot extra (matplotlib) is absent")
matplotlib.use("Agg")
from _report_data import fitted_by_the_cli, table  # noqa: E402
from sklearn import metrics  # noqa: E402

from nbayes.evaluation import SCALARS  # noqa: E402


class Page(HTMLParser):
    """Text of every element with an id, all ids, and every URL-bearing attribute."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.by_id: dict[str, str] = {}
        self.ids: list[str] = []
        self.urls: list[tuple[str, str, str]] = []
        self.tags: list[str] = []
        self._open: list[str | None] = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        attributes = dict(attrs)
        if "id" in attributes:
            self.ids.append(attributes["id"])
        for key, value in attrs:
            if key in ("src", "href", "xlink:href", "action", "data") and value is not None:
                self.urls.append((tag, key, value))
        if tag not in ("path", "use", "image", "rect", "stop", "meta", "br"):
            self._open.append(attributes.get("id"))
            if attributes.get("id"):
                self.by_id[attributes["id"]] = ""

    def handle_endtag(self, tag):
        if tag not in ("path", "use", "image", "rect", "stop", "meta", "br") and self._open:
            self._open.pop()

    def handle_data(self, data):
        for element in self._open:
            if element:
                self.by_id[element] += data


def assert_self_contained(page: str) -> Page:
    parsed = Page(page)
    assert "script" not in parsed.tags
    assert "link" not in parsed.tags
    assert "@import" not in page
    assert re.findall(r"url\((?!#)", page) == []  # url(#id) only: references inside the page
    for tag, key, value in parsed.urls:  # only links inside the page, and inline images
        assert value.startswith("#") or value.startswith("data:image/"), (tag, key, value[:60])
    assert len(parsed.ids) == len(set(parsed.ids)), "element ids repeat across figures"
    return parsed


def test_metrics_are_those_of_nbayes_evaluate(tmp_path, capsys):
    model_file, test_csv, evaluated = fitted_by_the_cli(tmp_path, capsys)
    model = nbayes.load(model_file)
    page = nbayes.report(model, pl.read_csv(test_csv), target="grade", path=tmp_path / "r.html")
    assert (tmp_path / "r.html").read_text(encoding="utf-8") == page
    parsed = assert_self_contained(page)
    shown = [key for key in SCALARS if evaluated.get(key) is not None]
    assert {"accuracy", "log_loss", "brier", "roc_auc", "pr_auc", "kappa"} <= set(shown)
    for key in shown:
        assert parsed.by_id[f"metric-{key}"] == f"{evaluated[key]:.4f}", key
    for i in range(len(evaluated["classes"])):
        for name in ("precision", "recall", "f1"):
            assert parsed.by_id[f"{name}-{i}"] == f"{evaluated[name][i]:.4f}"
        assert parsed.by_id[f"support-{i}"] == str(evaluated["support"][i])
    # the Brier score, independently
    test = pl.read_csv(test_csv)
    proba = model.predict_proba(test.drop("grade"))
    expected = metrics.brier_score_loss(test["grade"].to_numpy(), proba, labels=model.classes_)
    assert parsed.by_id["metric-brier"] == f"{expected:.4f}"
    # every figure is there, as inline SVG
    for name in ("confusion", "roc", "pr", "reliability", "features"):
        assert f"fig-{name}" in parsed.ids
    assert page.count("<svg") >= 5 + 3  # and three explained rows, each with a chart
    assert len(re.findall(r"<h3>row [\d,]+: true class", page)) == 3


def test_columns_families_and_reasons():
    data = table()
    model = nbayes.NaiveBayes(families={"age": "kde"}).fit(data, target="grade")
    page = nbayes.report(model, data, target="grade", explain_rows=0)
    text = html.unescape(re.sub(r"(<[^>]+>)+", "|", page))
    # each column's row: its name, the family it got, and why (model.family_reasons_)
    for name, family in model.families_.items():
        assert f"|{name}|{family}|{model.family_reasons_[name]}|" in text, name
    assert model.families_["colour"] == "categorical"
    assert model.families_["age"] == "kde"
    assert "named in families=" in model.family_reasons_["age"]
    assert "chosen from the data" in model.family_reasons_["weight"]
    assert "Explained rows" not in page


def test_cross_validation_equals_an_independent_loop():
    from nbayes.evaluation import stratified_folds

    data = table()
    labels = data["grade"].to_numpy()
    predicted = np.empty(len(labels), dtype=object)
    for test in stratified_folds(labels, 4):
        train = np.setdiff1d(np.arange(len(labels)), test)
        fold = nbayes.NaiveBayes().fit(data[train], target="grade")
        predicted[test] = fold.predict(data[test].drop("grade"))
    page = nbayes.report(nbayes.NaiveBayes(), data, target="grade", cv=4)
    parsed = assert_self_contained(page)
    expected = metrics.accuracy_score(labels, predicted.astype(str))
    assert parsed.by_id["metric-accuracy"] == f"{expected:.4f}"
    assert "4-fold stratified cross-validation on 400 rows" in page


def test_any_estimator_and_a_model_alone():
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    model = nbayes.GaussianNB().fit(X, y)
    page = nbayes.report(model, X, y)
    parsed = assert_self_contained(page)
    assert parsed.by_id["metric-accuracy"] == f"{metrics.accuracy_score(y, model.predict(X)):.4f}"
    assert "fig-roc" in parsed.ids and "fig-features" not in parsed.ids

    alone = nbayes.report(nbayes.NaiveBayes().fit(table(), target="grade"))
    assert "metric-accuracy" not in alone and "fig-features" in alone


def test_bad_arguments():
    data = table()
    model = nbayes.NaiveBayes().fit(data, target="grade")
    with pytest.raises(ValueError, match="cv must be"):
        nbayes.report(model, data, target="grade", cv=1)
    with pytest.raises(ValueError, match="need the data X"):
        nbayes.report(model, cv=3)
    with pytest.raises(ValueError, match="explain_rows"):
        nbayes.report(model, data, target="grade", explain_rows=-1)
    with pytest.raises(nbayes.NotFittedError):
        nbayes.report(nbayes.NaiveBayes(), data, target="grade")


def test_notebook_views_are_html_and_the_plain_repr_short():
    data = table()
    model = nbayes.NaiveBayes().fit(data, target="grade")
    explanation = model.explain(data.drop("grade")[0])
    shown = explanation._repr_html_()
    assert_self_contained(shown)
    posterior = re.search(r"<th>P\(c \| x\)</th>(.*?)</tr>", shown).group(1)
    cells = re.findall(r"<td>([^<]*)</td>", posterior)
    assert cells == [f"{p:.3f}" for p in explanation.posterior]
    assert f'decision: <span class="decided">{explanation.decision}</span>' in shown
    assert len(repr(explanation)) < 120 and "decision" in repr(explanation)

    model_html = model._repr_html_()
    assert_self_contained(model_html)
    prior = model.class_count_ / model.class_count_.sum()
    row = re.search(r"<th>P\(c\)</th>(.*?)</tr>", model_html).group(1)
    assert re.findall(r"<td>([^<]*)</td>", row) == [f"{p:.3f}" for p in prior]
    for name in ("colour", "weight", "rooms", "age"):
        assert f"<summary>{name} <small>" in model_html
    assert nbayes.NaiveBayes()._repr_html_() is None
    assert len(repr(model)) < 200


def test_command_line_report(tmp_path, capsys):
    from nbayes.cli import main

    model_file, test_csv, evaluated = fitted_by_the_cli(tmp_path, capsys)
    out = tmp_path / "cli.html"
    code = main(["report", str(model_file), str(test_csv), "--target", "grade", "-o", str(out)])
    assert code == 0
    assert capsys.readouterr().out.startswith(f"wrote {out} (")
    parsed = assert_self_contained(out.read_text(encoding="utf-8"))
    for key in SCALARS:
        if evaluated.get(key) is not None:
            assert parsed.by_id[f"metric-{key}"] == f"{evaluated[key]:.4f}", key

    cv_out = tmp_path / "cv.html"
    args = ["report", str(model_file), str(test_csv), "--target", "grade", "-o", str(cv_out)]
    assert main([*args, "--cv", "3", "--explain-rows", "1", "--title", "three folds"]) == 0
    page = cv_out.read_text(encoding="utf-8")
    assert "<title>three folds</title>" in page
    assert "3-fold stratified cross-validation on 100 rows" in page
    assert main([*args[:3], "--target", "nope", "-o", str(cv_out)]) == 1
    assert "nope" in capsys.readouterr().err


def test_text_explanation_html():
    texts = ["free prize now", "win a free prize", "lunch at noon", "see you at lunch"] * 3
    labels = ["spam", "spam", "ham", "ham"] * 3
    model = nbayes.TextClassifier(model="multinomial").fit(texts, labels)
    explanation = model.explain("free lunch prize")
    shown = explanation._repr_html_()
    assert_self_contained(shown)
    cells = dict(re.findall(r"<tr><th>([^<]*)</th><td[^>]*>[^<]*</td><td>([^<]*)</td>", shown))
    assert cells["prior"] == f"{explanation.prior:+.4f}"
    for token, _, contribution in explanation.words:
        assert cells[token] == f"{contribution:+.4f}"
    assert f"{explanation.log_odds:+.4f}" in shown


def test_command_line_report_of_documents(tmp_path, capsys):
    import json

    from nbayes.cli import main

    lines = tmp_path / "sms.txt"
    spam, ham = ["win a free prize now", "claim free cash"], ["see you at lunch", "call me later"]
    lines.write_text(
        "".join(f"spam\t{spam[i % 2]}\nham\t{ham[i % 2]}\n" for i in range(30)), encoding="utf-8"
    )
    model = tmp_path / "sms.nbm"
    assert main(["fit", str(lines), "--format", "lines", "-o", str(model)]) == 0
    capsys.readouterr()
    assert main(["evaluate", str(model), str(lines), "--format", "lines", "--json"]) == 0
    evaluated = json.loads(capsys.readouterr().out)
    out = tmp_path / "sms.html"
    assert main(["report", str(model), str(lines), "--format", "lines", "-o", str(out)]) == 0
    parsed = assert_self_contained(out.read_text(encoding="utf-8"))
    for key in SCALARS:
        if evaluated.get(key) is not None:
            assert parsed.by_id[f"metric-{key}"] == f"{evaluated[key]:.4f}", key
