"""The scikit-learn peers of the accuracy benchmarks, fitted on the same folds as nbayes.

Each peer reads the same Polars frame: text columns one-hot encoded (a missing value a category of
its own, a category unseen in training all zeros), numeric columns as numbers with NaN where
missing (the forests and gradient boosting split on NaN natively; logistic regression has them
imputed by the training median, flagged, and standardised).
"""

from __future__ import annotations

import polars as pl

#: The peers, by the name the tables print.
PEERS = ("RandomForest", "HistGradientBoosting", "LogisticRegression")


def _pipeline(name: str, text: list[str], numbers: list[str]):
    from sklearn.compose import ColumnTransformer
    from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    one_hot = OneHotEncoder(handle_unknown="ignore", sparse_output=False)
    if name == "LogisticRegression":
        numeric = make_pipeline(
            SimpleImputer(strategy="median", add_indicator=True), StandardScaler()
        )
        model = LogisticRegression(max_iter=5000)
    else:
        numeric = "passthrough"
        model = (
            RandomForestClassifier(n_estimators=300, n_jobs=2, random_state=0)
            if name == "RandomForest"
            else HistGradientBoostingClassifier(random_state=0)
        )
    columns = ColumnTransformer([("text", one_hot, text), ("numbers", numeric, numbers)])
    return make_pipeline(columns, model)


def _pandas(frame: pl.DataFrame, text: list[str]):
    """The frame for scikit-learn: text with missing as "?", numbers as floats (NaN)."""
    return frame.with_columns(
        [pl.col(c).cast(pl.String).fill_null("?") for c in text]
        + [pl.col(c).cast(pl.Float64) for c in frame.columns if c not in text]
    ).to_pandas()


def peer(name: str, frame: pl.DataFrame):
    """The peer ``name`` as a scikit-learn pipeline that reads Polars frames with ``frame``'s
    columns (fit, predict_proba, classes_)."""
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    text = [c for c, t in frame.schema.items() if not t.is_numeric()]
    numbers = [c for c in frame.columns if c not in text]
    reader = FunctionTransformer(lambda X: _pandas(X, text), validate=False)
    return make_pipeline(reader, _pipeline(name, text, numbers))
