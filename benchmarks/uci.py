"""Loaders for the UCI data sets in ../shared/data (or the folder given as ``data``), as Polars
frames with '?' as missing.

Each loader returns (features, labels) or, for the sets with a given split (adult,
soybean-large), ((train features, train labels), (test features, test labels)).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def _read(
    path: Path, names: list[str] | None = None, skip: int = 0, keep_question: bool = False
) -> pl.DataFrame:
    """A headerless comma-separated file; fields are stripped; '?' and '' become null."""
    text = path.read_text().replace("\r\n", "\n")
    lines = [line for line in text.split("\n")[skip:] if line.strip()]
    rows = [[field.strip() for field in line.split(",")] for line in lines]
    width = len(rows[0])
    names = names or [f"a{j}" for j in range(width)]
    missing = ("",) if keep_question else ("?", "")
    columns = {
        names[j]: [r[j] if r[j] not in missing else None for r in rows] for j in range(width)
    }
    frame = pl.DataFrame(columns)
    # numeric columns become numbers (ints stay ints, so small codes can be categorical)
    casts = []
    for name in frame.columns:
        column = frame.get_column(name)
        as_int = column.cast(pl.Int64, strict=False)
        as_float = column.cast(pl.Float64, strict=False)
        if as_int.null_count() == column.null_count():
            casts.append(as_int)
        elif as_float.null_count() == column.null_count():
            casts.append(as_float)
        else:
            casts.append(column)
    return pl.DataFrame(casts)


def _split(frame: pl.DataFrame, target: str) -> tuple[pl.DataFrame, np.ndarray]:
    labels = frame.get_column(target).cast(pl.String).to_numpy()
    return frame.drop(target), labels


def mushroom(data: Path = DATA):
    return _split(_read(data / "mushroom/agaricus-lepiota.data"), "a0")


def vote(question_is_value: bool = False, data: Path = DATA):
    """'?' is missing by default; per the .names file it means "neither yea nor nay", so
    ``question_is_value=True`` keeps it as a third answer."""
    frame = _read(
        data / "congressional-voting/house-votes-84.data", keep_question=question_is_value
    )
    return _split(frame, "a0")


def car(data: Path = DATA):
    return _split(_read(data / "car/car.data"), "a6")


def nursery(data: Path = DATA):
    return _split(_read(data / "nursery/nursery.data"), "a8")


def tic_tac_toe(data: Path = DATA):
    return _split(_read(data / "tic-tac-toe/tic-tac-toe.data"), "a9")


def breast_cancer(data: Path = DATA):
    return _split(_read(data / "breast-cancer/breast-cancer.data"), "a0")


ZOO = [
    "animal",
    "hair",
    "feathers",
    "eggs",
    "milk",
    "airborne",
    "aquatic",
    "predator",
    "toothed",
    "backbone",
    "breathes",
    "venomous",
    "fins",
    "legs",
    "tail",
    "domestic",
    "catsize",
    "type",
]


def zoo(data: Path = DATA):
    frame = _read(data / "zoo/zoo.data", ZOO).drop("animal")  # the animal's name: an identifier
    return _split(frame, "type")


def splice(data: Path = DATA):
    text = (data / "splice/splice.data").read_text()
    rows = [[f.strip() for f in line.split(",")] for line in text.splitlines() if line.strip()]
    labels = np.array([r[0] for r in rows])
    sequences = [r[2] for r in rows]
    frame = pl.DataFrame({f"p{j}": [s[j] for s in sequences] for j in range(60)})
    return frame, labels


def spambase(data: Path = DATA):
    return _split(_read(data / "spambase/spambase.data"), "a57")


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


def adult(data: Path = DATA):
    train = _read(data / "adult/adult.data", ADULT)
    test = _read(data / "adult/adult.test", ADULT, skip=1)
    test = test.with_columns(pl.col("income").str.strip_chars_end("."))
    return _split(train, "income"), _split(test, "income")


def soybean(data: Path = DATA):
    train = _read(data / "soybean-large/soybean-large.data")
    test = _read(data / "soybean-large/soybean-large.test")
    return _split(train, "a0"), _split(test, "a0")


CROSS_VALIDATED = {
    "mushroom": mushroom,
    "vote": vote,
    "car": car,
    "nursery": nursery,
    "tic-tac-toe": tic_tac_toe,
    "breast-cancer": breast_cancer,
    "zoo": zoo,
    "splice": splice,
    "spambase": spambase,
}
GIVEN_SPLIT = {"adult": adult, "soybean-large": soybean}
