"""Stratified folds and the streamed evaluation report, against direct computations."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.metrics import confusion_matrix, log_loss, precision_recall_fscore_support

import nbayes
from nbayes.evaluation import Accumulator, stratified_folds


def test_stratified_folds_partition_the_rows_and_keep_the_class_shares():
    rng = np.random.default_rng(0)
    y = rng.choice(["a", "b", "c"], 1003, p=[0.6, 0.3, 0.1])
    folds = stratified_folds(y, 10, seed=4)
    together = np.sort(np.concatenate(folds))
    np.testing.assert_array_equal(together, np.arange(y.size))
    sizes = [f.size for f in folds]
    assert max(sizes) - min(sizes) <= 1
    for label in "abc":
        per_fold = [np.sum(y[f] == label) for f in folds]
        assert max(per_fold) - min(per_fold) <= 1
    assert all(
        np.array_equal(a, b) for a, b in zip(folds, stratified_folds(y, 10, seed=4), strict=True)
    )
    # a class rarer than the folds: as scikit-learn's StratifiedKFold, a warning naming it, and
    # folds that still partition the rows, each training on every class
    y = np.array(["a"] * 20 + ["b"] * 3)
    with pytest.warns(UserWarning, match=r"rarest class \('b'\) has only 3 rows, fewer than "
                      r"the 5 folds: 2 folds test none.*at most 3 folds"):  # fmt: skip
        folds = stratified_folds(y, 5)
    np.testing.assert_array_equal(np.sort(np.concatenate(folds)), np.arange(y.size))
    assert sorted(int(np.sum(y[f] == "b")) for f in folds) == [0, 0, 1, 1, 1]
    assert all(np.sum(np.delete(y, f) == "b") >= 2 for f in folds)
    # no class as many rows as folds: a fold would test nothing
    with pytest.raises(ValueError, match=r"cannot make 5 stratified folds: no class has that "
                       r"many rows \(the largest has 4\); use at most 4 folds"):  # fmt: skip
        stratified_folds(np.array(["a"] * 4 + ["b"] * 3), 5)
    # one row: the fold testing it would not know the class
    with pytest.raises(ValueError, match=r"\('b'\) has one row.*classes with a single row"):
        stratified_folds(np.array(["a"] * 20 + ["b"]), 5)


def test_accumulated_report_equals_scikit_learns_metrics():
    rng = np.random.default_rng(1)
    classes = np.array(["eggs", "ham", "spam"])  # sorted, as a model's classes_ (log_loss wants it)
    truth = rng.choice(classes, 500)
    proba = rng.dirichlet(np.ones(3), 500)
    predicted = classes[np.argmax(proba, axis=1)]
    accumulator = Accumulator(classes)
    for start in range(0, 500, 120):  # batch by batch, as the command line streams
        accumulator.update(
            truth[start : start + 120], predicted[start : start + 120], proba[start : start + 120]
        )
    report = accumulator.report()
    assert report.accuracy == pytest.approx(np.mean(truth == predicted))
    np.testing.assert_array_equal(
        report.confusion, confusion_matrix(truth, predicted, labels=classes)
    )
    precision, recall, f1, support = precision_recall_fscore_support(
        truth, predicted, labels=classes
    )
    np.testing.assert_allclose(report.precision, precision)
    np.testing.assert_allclose(report.recall, recall)
    np.testing.assert_allclose(report.f1, f1)
    np.testing.assert_array_equal(report.support, support)
    assert report.log_loss == pytest.approx(log_loss(truth, proba, labels=classes))


def _streamed(classes, truth, predicted, proba, loss=None, batch=97):
    accumulator = Accumulator(classes, loss)
    for start in range(0, len(truth), batch):
        part = slice(start, start + batch)
        accumulator.update(truth[part], predicted[part], proba[part])
    return accumulator.report()


@pytest.mark.parametrize("k", [2, 3, 5])
def test_every_figure_equals_scikit_learns(k: int):
    from sklearn import metrics

    rng = np.random.default_rng(k)
    classes = np.array([f"c{i}" for i in range(k)])
    truth = rng.choice(classes, 700, p=np.r_[0.5, np.full(k - 1, 0.5 / (k - 1))])
    # informative posteriors, with ties (rounded) so that the AUCs must handle them
    logits = rng.normal(size=(700, k)) + 1.5 * (truth[:, None] == classes)
    proba = np.round(np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True), 2)
    proba = proba / proba.sum(axis=1, keepdims=True)
    predicted = classes[np.argmax(proba, axis=1)]
    predicted[:5] = classes[-1]  # some errors for sure
    loss = rng.integers(0, 5, (k, k)).astype(float)
    np.fill_diagonal(loss, 0)
    report = _streamed(classes, truth, predicted, proba, loss)
    assert report.accuracy == pytest.approx(metrics.accuracy_score(truth, predicted))
    assert report.balanced_accuracy == pytest.approx(
        metrics.balanced_accuracy_score(truth, predicted)
    )
    assert report.kappa == pytest.approx(metrics.cohen_kappa_score(truth, predicted))
    assert report.mcc == pytest.approx(metrics.matthews_corrcoef(truth, predicted))
    for average in ("macro", "weighted"):
        p, r, f, _ = metrics.precision_recall_fscore_support(
            truth, predicted, average=average, zero_division=0
        )
        assert report.scalars[f"{average}_precision"] == pytest.approx(p)
        assert report.scalars[f"{average}_recall"] == pytest.approx(r)
        assert report.scalars[f"{average}_f1"] == pytest.approx(f)
    assert report.log_loss == pytest.approx(metrics.log_loss(truth, proba, labels=classes))
    assert report.brier == pytest.approx(
        metrics.brier_score_loss(truth, proba[:, 1], pos_label=classes[1])
        if k == 2
        else metrics.brier_score_loss(truth, proba, labels=classes)
    )
    if k == 2:
        positive = truth == classes[1]
        assert report.roc_auc == pytest.approx(metrics.roc_auc_score(positive, proba[:, 1]))
        assert report.pr_auc == pytest.approx(
            metrics.average_precision_score(positive, proba[:, 1])
        )
    else:
        assert report.roc_auc == pytest.approx(
            metrics.roc_auc_score(truth, proba, multi_class="ovr", labels=classes)
        )
        binary = truth[:, None] == classes
        assert report.pr_auc == pytest.approx(
            metrics.average_precision_score(binary, proba, average="macro")
        )
    index = {c: i for i, c in enumerate(classes)}
    cost = sum(loss[index[d], index[t]] for d, t in zip(predicted, truth, strict=True))
    assert report.total_cost == pytest.approx(cost)
    assert report.mean_cost == pytest.approx(cost / 700)


def test_figures_on_a_degenerate_and_a_small_hand_example():
    from fractions import Fraction

    # 2 × 2 by hand: C = [[3, 1], [2, 4]], n = 10
    truth = np.array(["n"] * 4 + ["y"] * 6)
    predicted = np.array(["n", "n", "n", "y", "n", "n", "y", "y", "y", "y"])
    proba = np.where((predicted == "y")[:, None], [0.3, 0.7], [0.8, 0.2])
    report = _streamed(np.array(["n", "y"]), truth, predicted, proba)
    po, pe = Fraction(7, 10), Fraction(4 * 5 + 6 * 5, 100)
    assert report.kappa == pytest.approx(float((po - pe) / (1 - pe)))
    mcc = (7 * 10 - (4 * 5 + 6 * 5)) / np.sqrt((100 - 50) * (100 - (16 + 36)))
    assert report.mcc == pytest.approx(mcc)
    assert report.balanced_accuracy == pytest.approx((3 / 4 + 4 / 6) / 2)
    # every row the same prediction: MCC is 0, not NaN; AUCs of a constant score are 1/2
    constant = _streamed(
        np.array(["n", "y"]), truth, np.array(["y"] * 10), np.tile([0.4, 0.6], (10, 1))
    )
    assert constant.mcc == 0.0 and constant.roc_auc == pytest.approx(0.5)
    assert constant.pr_auc == pytest.approx(0.6)


@pytest.mark.parametrize(
    ("known", "unknown", "hint"),
    [
        ([">50K", "<=50K"], ["<=50K.", ">50K."], "a trailing period ('<=50K.' for '<=50K'"),
        (["yes", "no"], [" yes", "no "], "surrounding spaces (' yes' for 'yes', 'no ' for 'no')"),
        (["Spam", "Ham"], ["spam"], "letter case ('spam' for 'Spam')"),
        (["a", "b"], ["c"], None),  # not a spelling of a known label
        (["ab", "AB", "x"], ["Ab"], None),  # two known labels fit: no guess
        (["a", "b"], ["a.", "c"], None),  # one of them fits no known label
    ],
)
def test_unknown_labels_that_spell_known_ones_are_pointed_out(known, unknown, hint):
    from nbayes.labels import near_labels

    text = near_labels(unknown, known)
    if hint is None:
        assert text == ""
    else:
        assert hint in text


def test_labels_the_model_does_not_know_are_errors_and_named():
    from sklearn import metrics

    classes = np.array(["a", "b"])
    truth = np.array(["a", "b", "b.", "a", "b."])
    predicted = np.array(["a", "b", "b", "b", "a"])
    proba = np.array([[0.9, 0.1], [0.2, 0.8], [0.3, 0.7], [0.4, 0.6], [0.6, 0.4]])
    report = _streamed(classes, truth, predicted, proba, batch=2)
    assert report.accuracy == pytest.approx(2 / 5)
    assert report.classes.tolist() == ["a", "b", "b."]
    np.testing.assert_array_equal(
        report.confusion, metrics.confusion_matrix(truth, predicted, labels=["a", "b", "b."])
    )
    assert report.macro_f1 == pytest.approx(
        metrics.f1_score(truth, predicted, average="macro", zero_division=0)
    )
    assert "2 rows have labels the model does not know (['b.'])" in report.notes[0]
    assert "only by a trailing period ('b.' for 'b')" in report.notes[0]
    known = np.isin(truth, classes)
    assert report.log_loss == pytest.approx(
        metrics.log_loss(truth[known], proba[known], labels=classes)
    )


def test_corrected_resampled_t_equals_a_hand_computation():
    """Nadeau & Bengio (2003) on J = 5 paired differences with n_test/n_train = 1/9, by hand:
    d̄ = 1/100, s² = (0 + 4 + 4 + 1 + 1)/10⁴ / 4 = 1/4000, t = d̄ / √((1/5 + 1/9) s²)."""
    from fractions import Fraction

    from scipy.stats import t as student

    from nbayes.evaluation import corrected_resampled_t

    d = [Fraction(1, 100), Fraction(3, 100), Fraction(-1, 100), Fraction(2, 100), Fraction(0)]
    mean = sum(d) / 5
    variance = sum((x - mean) ** 2 for x in d) / 4
    assert (mean, variance) == (Fraction(1, 100), Fraction(1, 4000))
    t = float(mean) / np.sqrt(float((Fraction(1, 5) + Fraction(1, 9)) * variance))
    result = corrected_resampled_t(np.array([float(x) for x in d]), 1 / 9)
    assert result["t"] == pytest.approx(t, rel=1e-12)
    assert result["df"] == 4 and result["mean_difference"] == pytest.approx(0.01)
    assert result["p"] == pytest.approx(2 * student.sf(t, 4), rel=1e-12)
    # the correction only ever widens: the plain paired t (ratio 0) is larger
    assert corrected_resampled_t(np.array([float(x) for x in d]), 0.0)["t"] > t
    same = corrected_resampled_t(np.zeros(10), 0.1)
    assert (same["t"], same["p"]) == (0.0, 1.0)
    assert corrected_resampled_t(np.full(10, 0.25), 0.1)["p"] == 0.0  # s² = 0, d̄ ≠ 0


def test_a_test_file_whose_labels_are_all_unknown_asks_whether_it_is_the_class_column():
    accumulator = Accumulator(np.array(["acc", "unacc"]))
    truth = np.array(["low", "high", "low"])
    accumulator.update(truth, np.array(["acc"] * 3), np.full((3, 2), 0.5))
    (note,) = accumulator.report().notes
    assert "3 rows have labels the model does not know" in note
    assert "is the class column the one the model was fitted on (--target)?" in note
    # one known label: no such question (the unknown ones are then new classes)
    accumulator.update(np.array(["acc"]), np.array(["acc"]), np.full((1, 2), 0.5))
    labels_note, auc_note = accumulator.report().notes
    assert "3 rows have labels the model does not know" in labels_note
    assert "--target" not in labels_note
    # (and the one known row, of one class, gives no AUC, which a note says)
    assert auc_note.startswith("no ROC or PR AUC: every labelled row is of one class")


def test_evaluate_and_predict_say_how_many_bad_rows_they_skipped(tmp_path, capsys):
    from nbayes.cli import main

    rng = np.random.default_rng(0)
    rows = [f"{a},{b},{'yes' if a == 'x' else 'no'}" for a, b in
            zip(rng.choice(["x", "y"], 200), rng.choice(["p", "q"], 200), strict=True)]  # fmt: skip
    train, test = tmp_path / "train.csv", tmp_path / "test.csv"
    train.write_text("\n".join(rows) + "\n")
    test.write_text("a broken line\n" + "\n".join(rows[:20]) + "\n")
    model = tmp_path / "m.nbm"
    assert main(["fit", str(train), "--no-header", "--target", "3", "-o", str(model)]) == 0
    capsys.readouterr()
    output = str(tmp_path / "p.csv")
    for command in (["evaluate", str(model), str(test), "--no-header", "--target", "3"],
                    ["predict", str(model), str(test), "--no-header", "-o", output]):  # fmt: skip
        assert main([*command, "--skip-bad-rows"]) == 0
        assert "nbayes: 1 bad row skipped" in capsys.readouterr().err, command[0]


@pytest.mark.parametrize("model", ["naive", "semi-naive"])
def test_score_warns_where_labels_are_none_of_the_classes_and_says_how_they_differ(model):
    """A test file whose labels end with a period (UCI adult's) scores 0 with every model:
    score says so, with the same hint as the evaluation report, instead of a silent 0.0."""
    import polars as pl

    from nbayes.semi_naive import SemiNaiveBayes

    rng = np.random.default_rng(0)
    y = rng.choice(["<=50K", ">50K"], 200)
    frame = pl.DataFrame({"a": np.where(rng.random(200) < 0.8, y, "x"), "y": y})
    fitted = (nbayes.NaiveBayes() if model == "naive" else SemiNaiveBayes()).fit(frame, "y")
    dotted = frame.with_columns(pl.col("y") + ".")
    with pytest.warns(UserWarning, match=r"200 of 200 rows have labels the model does not know.*"
                      r"only by a trailing period"):  # fmt: skip
        assert fitted.score(dotted, target="y") == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # known labels: no warning, the plain accuracy
        right = np.mean(fitted.predict(frame.drop("y")) == frame["y"].to_numpy())
        assert fitted.score(frame, target="y") == pytest.approx(right)


def test_plots_name_unknown_labels_with_the_same_hint():
    from nbayes.plot._common import class_positions

    pattern = r"does not know: \['a\.'\] \(its classes: \['a', 'b'\]\)\. They differ .* trailing"
    with pytest.raises(ValueError, match=pattern):
        class_positions(np.array(["a", "b"]), np.array(["a.", "b"]))
