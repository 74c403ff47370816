"""Calibrating naive Bayes probabilities with scikit-learn's CalibratedClassifierCV, measured on
UCI Adult and Spambase (from ../shared/data; the figures are in docs/calibration.md).

    python examples/calibration.py [DATA_FOLDER]      (default: ../shared/data)

Naive Bayes multiplies the features' likelihoods as if they were independent given the class, so
correlated features count several times and the probabilities crowd towards 0 and 1: decisions
are often right, probabilities over-confident. CalibratedClassifierCV refits the model on k − 1
folds, learns a map from its scores to probabilities on the held-out fold (Platt's sigmoid, or
isotonic regression), and averages the k calibrated models. NaiveBayes's own default
calibration (nbayes.calibration: a temperature and an offset per class, fitted on cross-fitted
scores) is shown beside them; the others wrap the textbook model, NaiveBayes(calibration=None).
Log loss and the Brier score (lower is better) are measured on rows no model saw.
"""

import sys
import warnings
from pathlib import Path

import numpy as np
import polars as pl
from scipy.special import log_softmax
from sklearn.calibration import CalibratedClassifierCV
from sklearn.metrics import accuracy_score, brier_score_loss, log_loss

import nbayes
from nbayes.evaluation import stratified_folds

root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parents[2] / "shared" / "data"
ADULT = [
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
    "income",
]
NUMERIC = ["age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week"]


def adult(name: str, skip: int) -> pl.DataFrame:
    frame = pl.read_csv(
        root / "adult" / name,
        has_header=False,
        new_columns=ADULT,
        skip_rows=skip,
        truncate_ragged_lines=True,
        infer_schema=False,
    )
    frame = frame.with_columns(pl.all().str.strip_chars()).filter(pl.col("income").is_not_null())
    frame = frame.with_columns(
        pl.col("income").str.strip_chars_end("."),
        *(pl.col(c).cast(pl.Int64) for c in NUMERIC),
        *(
            pl.when(pl.col(c) == "?").then(None).otherwise(pl.col(c)).alias(c)
            for c in ADULT
            if c not in NUMERIC and c != "income"
        ),
    )
    return frame


def spambase() -> tuple[pl.DataFrame, pl.DataFrame]:
    data = pl.read_csv(
        root / "spambase" / "spambase.data", has_header=False, infer_schema_length=None
    )
    data = data.rename({data.columns[-1]: "spam"}).with_columns(
        pl.exclude("spam").cast(pl.Float64), pl.col("spam").cast(pl.String)
    )
    test = stratified_folds(data["spam"].to_numpy(), 3, seed=0)[0]
    mask = np.zeros(data.height, dtype=bool)
    mask[test] = True
    return data.filter(~pl.Series(mask)), data.filter(pl.Series(mask))


class TemperatureScaled:
    """Temperature scaling (Guo et al. 2017) of the joint log-likelihoods, for comparison:
    P(c | x) ∝ exp(jll(c) / T), with T minimising the log loss of out-of-fold predictions
    (5 stratified folds); the model itself is then fitted on all the rows."""

    def fit(self, X, y):
        from scipy.optimize import minimize_scalar

        self.classes_ = np.unique(y)
        truth = np.searchsorted(self.classes_, y)
        jll = np.zeros((len(y), len(self.classes_)))
        for fold in stratified_folds(y, 5, seed=0):
            train = np.setdiff1d(np.arange(len(y)), fold)
            model = nbayes.NaiveBayes(calibration=None).fit(X.iloc[train], y[train])
            jll[fold] = model.predict_joint_log_proba(X.iloc[fold])
        jll = np.maximum(jll, -1e300)

        def loss(log_t: float) -> float:
            scores = log_softmax(jll / np.exp(log_t), axis=1)
            return -scores[np.arange(len(y)), truth].mean()

        self.temperature_ = float(np.exp(minimize_scalar(loss, bounds=(-5, 8)).x))
        self.model_ = nbayes.NaiveBayes(calibration=None).fit(X, y)
        return self

    def predict_proba(self, X):
        jll = self.model_.predict_joint_log_proba(X)
        return np.exp(log_softmax(jll / self.temperature_, axis=1))


def measure(name: str, train: pl.DataFrame, test: pl.DataFrame, target: str) -> None:
    X, y = train.drop(target).to_pandas(), train[target].to_numpy()
    test_X, test_y = test.drop(target).to_pandas(), test[target].to_numpy()
    print(f"{name}: {len(y):,} training rows, {len(test_y):,} test rows")
    print(f"  {'model':<28} {'accuracy':>8} {'log loss':>9} {'Brier':>7}")
    textbook = nbayes.NaiveBayes(calibration=None)
    candidates = {
        "NaiveBayes(calibration=None)": textbook,
        "+ sigmoid (Platt), 5 folds": CalibratedClassifierCV(textbook, method="sigmoid", cv=5),
        "+ isotonic, 5 folds": CalibratedClassifierCV(textbook, method="isotonic", cv=5),
        "+ temperature, 5 folds": TemperatureScaled(),
        "NaiveBayes() (its own)": nbayes.NaiveBayes(),
    }
    for label, model in candidates.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(X, y)
            proba = model.predict_proba(test_X)
        classes = list(model.classes_)
        positive = proba[:, 1]
        truth = test_y == classes[1]
        print(
            f"  {label:<28} {accuracy_score(test_y, np.asarray(classes)[proba.argmax(1)]):8.4f} "
            f"{log_loss(test_y, proba, labels=classes):9.4f} "
            f"{brier_score_loss(truth, positive):7.4f}"
        )
        if isinstance(model, TemperatureScaled):
            temperature = model.temperature_
        if label.startswith("NaiveBayes()"):
            own = model.calibration_
    print(f"  (temperature T = {temperature:.2f}; NaiveBayes()'s: a = {own.weight:.3f}, ", end="")
    print(f"b = {own.offset.round(3).tolist()})")
    print()


measure(
    "UCI Adult (adult.data → adult.test)", adult("adult.data", 0), adult("adult.test", 1), "income"
)
spam_train, spam_test = spambase()
measure("UCI Spambase (2/3 → 1/3, stratified)", spam_train, spam_test, "spam")
