"""Models whose files are committed in this folder, written by nbayes 0.1.0 (format version 1).

``python tests/model_files/cases.py`` rewrites the files with the nbayes on the path; it was run
once with the 0.1.0 release, and the files must keep loading in later releases
(tests/test_persist_compat.py refits each model with the current code and compares).
Everything here is deterministic, and small: the files are part of the repository.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).parent


def _table() -> dict[str, Any]:
    rng = np.random.default_rng(11)
    n = 200
    colour = rng.choice(np.array(["red", "green", "blue", "?"]), n)
    return {
        "colour": colour.tolist(),
        "size": rng.integers(0, 4, n),
        "height": np.round(rng.normal(170, 10, n), 1),
        "income": np.round(rng.lognormal(10, 0.5, n), 0),
        "score": np.round(rng.normal(0, 1, n), 2),
        "visits": rng.poisson(3, n),
        "label": rng.choice(np.array(["yes", "no", "maybe"]), n).tolist(),
    }


def _texts() -> tuple[list[str], np.ndarray]:
    rng = np.random.default_rng(5)
    words = np.array("free win prize money call now meeting lunch report team cat dog".split())
    docs, labels = [], []
    for i in range(120):
        spam = i % 3 == 0
        pool = words[:6] if spam else words[6:]
        docs.append(" ".join(rng.choice(pool, 6)) + " " + " ".join(rng.choice(words, 2)))
        labels.append("spam" if spam else "ham")
    return docs, np.array(labels)


def cases() -> dict[str, tuple[Any, Any, Any]]:
    """name → (unfitted model, fit function, data to predict on)."""
    import nbayes

    rng = np.random.default_rng(3)
    codes = rng.integers(0, 4, (150, 4))
    reals = rng.normal(size=(150, 3)) * [1, 10, 100]
    counts = rng.poisson(2.0, (150, 5)).astype(float)
    y = np.array(["a", "b", "c"])[rng.integers(0, 3, 150)]
    table = _table()
    docs, labels = _texts()

    def xy(X):
        return lambda model: model.fit(X, y)

    return {
        "categorical": (nbayes.CategoricalNB(alpha=0.5), xy(codes), codes[:20]),
        "gaussian": (nbayes.GaussianNB(var_smoothing=1e-6), xy(reals), reals[:20]),
        "multinomial": (nbayes.MultinomialNB(alpha=0.3), xy(counts), counts[:20]),
        "complement": (nbayes.ComplementNB(norm=True), xy(counts), counts[:20]),
        "bernoulli": (nbayes.BernoulliNB(binarize=1.5), xy(counts), counts[:20]),
        "poisson": (nbayes.PoissonNB(alpha=0.5), xy(counts), counts[:20]),
        "table": (
            nbayes.NaiveBayes(
                missing_values="?",
                families={"income": "mdl", "score": "kde", "visits": "poisson"},
                # the first release's defaults (families chosen from the data and kernel point
                # masses came later; the file's parameters say so)
                continuous="gaussian",
                point_masses=None,
            ),
            lambda model: model.fit(table, target="label"),
            {k: v[:30] for k, v in table.items() if k != "label"},
        ),
        "text": (
            nbayes.TextClassifier(n_features=2**10, ngram_range=(1, 1)),
            lambda model: model.fit(docs, labels),
            docs[:20],
        ),
        "text-vocabulary": (
            nbayes.TextClassifier(mode="vocabulary", model="multinomial", alpha=0.5),
            lambda model: model.fit(docs, labels),
            docs[:20],
        ),
    }


def main() -> None:
    import nbayes

    for name, (model, fit, _) in cases().items():
        fit(model)
        nbayes.save(model, HERE / f"{name}.nbm")
        print(name, (HERE / f"{name}.nbm").stat().st_size, "bytes")


if __name__ == "__main__":
    sys.exit(main())
