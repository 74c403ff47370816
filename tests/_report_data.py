"""A small labelled table, its CSV file, and the metrics ``nbayes evaluate --json`` prints for a
model fitted on it by the command line: shared by the report tests."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import polars as pl

from nbayes.cli import main


def table(n: int = 400, seed: int = 5) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.choice(["high", "low", "mid"], n, p=[0.3, 0.5, 0.2])
    return pl.DataFrame(
        {
            "colour": np.where(
                y == "high", rng.choice(["red", "blue"], n), rng.choice(["red", "green", "blue"], n)
            ).tolist(),
            "weight": (rng.normal(60, 8, n) + 10 * (y == "high") - 5 * (y == "low")).round(3),
            "rooms": rng.integers(1, 5, n),
            "age": rng.integers(18, 90, n),
            "grade": y.tolist(),
        }
    )


def fitted_by_the_cli(tmp_path: Path, capsys) -> tuple[Path, Path, dict]:
    """(model file, test CSV, the JSON of ``nbayes evaluate --json``)."""
    data = table()
    train, test = tmp_path / "train.csv", tmp_path / "test.csv"
    data[:300].write_csv(train)
    data[300:].write_csv(test)
    model = tmp_path / "model.nbm"
    assert main(["fit", str(train), "--target", "grade", "-o", str(model)]) == 0
    capsys.readouterr()
    assert main(["evaluate", str(model), str(test), "--target", "grade", "--json"]) == 0
    return model, test, json.loads(capsys.readouterr().out)
