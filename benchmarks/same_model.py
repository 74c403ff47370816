"""One model whatever the order, the batches, the merges or the engine: max |Δp| against one fit.

On UCI adult's training rows (../shared/data, or ``--data``), each way of fitting the default
model is compared with one ``fit`` by the largest difference of any class probability on the
first 3,000 rows of adult's test file:

* ``NaiveBayes()``: ``partial_fit`` in 3 batches, ``merge`` of two random halves, the rows
  shuffled, a 2-worker Dask ``LocalCluster`` fit (one partition per 4,000 rows), and
  ``nbayes fit`` streaming adult's training file as published repeated 22 times (about 82
  MiB, read in 16 MiB chunks) against the in-memory ``fit`` of that same file;
* ``SemiNaiveBayes()``, its ensemble option ``SemiNaiveBayes("eskdb")``, its option
  ``refit=True`` and each other structure ``SemiNaiveBayes(model)`` (aode, waode, aodesr, a2de,
  hnb, tan, kdb), each with its discriminative correction: the rows shuffled, ``fit_passes``
  over 4 shuffled batches, the 2-worker Dask fit, and ``nbayes fit --model …`` streaming
  adult's training file in 1 MiB chunks against the in-memory fit of that file (A2DE's
  correction runs the most L-BFGS iterations, which would amplify the round-off of sums taken
  in another order, were those sums not of integers);
* the same rows in another type: soybean-large's codes with missing values, which pandas holds
  as floats and Polars as integers with nulls, for ``SemiNaiveBayes()``, ``"aode"`` and
  ``NaiveBayes(continuous="gaussian")`` (a column of at most ``max_int_categories`` whole
  numbers is counted whatever its type).

    python benchmarks/same_model.py            # print
    python benchmarks/same_model.py --write    # and record it in benchmarks/README.md
"""

from __future__ import annotations

import logging
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import polars as pl

HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE] + [str(HERE)]

import _report  # noqa: E402
import uci  # noqa: E402

import nbayes  # noqa: E402
from nbayes.cli import main as nbayes_main  # noqa: E402

TARGET = "income"
TEST_ROWS = 3000
REPEATS = 22


def gap(a: np.ndarray, b: np.ndarray) -> str:
    return f"{float(np.max(np.abs(a - b))):.1e}"


def main() -> None:
    args = _report.data_parser(__doc__).parse_args()
    warnings.simplefilter("ignore")
    logging.getLogger("distributed").setLevel(logging.ERROR)
    (X, y), (X_test, _) = uci.adult(data=args.data)
    train = X.with_columns(pl.Series(TARGET, y))
    X_test = X_test.head(TEST_ROWS)
    rows = []

    one = nbayes.NaiveBayes().fit(train, target=TARGET)
    expected = one.predict_proba(X_test)
    rng = np.random.default_rng(0)
    batches = nbayes.NaiveBayes()
    for part in np.array_split(np.arange(train.height), 3):
        batches.partial_fit(train[part], target=TARGET)
    halves = rng.permutation(train.height)
    merged = nbayes.merge(
        nbayes.NaiveBayes().fit(train[halves[: train.height // 2]], target=TARGET),
        nbayes.NaiveBayes().fit(train[halves[train.height // 2 :]], target=TARGET),
    )
    shuffled = nbayes.NaiveBayes().fit(train[rng.permutation(train.height)], target=TARGET)
    rows += [
        ["`NaiveBayes()`", "partial_fit, 3 batches", gap(batches.predict_proba(X_test), expected)],
        ["`NaiveBayes()`", "merge of random halves", gap(merged.predict_proba(X_test), expected)],
        ["`NaiveBayes()`", "rows shuffled", gap(shuffled.predict_proba(X_test), expected)],
    ]
    # label: (SemiNaiveBayes's options, the command line's)
    semi_models = {
        "`SemiNaiveBayes()`": ({}, ["--model", "skdb"]),
        '`SemiNaiveBayes("eskdb")`': ({"model": "eskdb"}, ["--model", "eskdb"]),
        "`SemiNaiveBayes(refit=True)`": (
            {"refit": True}, ["--model", "skdb", "--discriminative", "refit"]
        ),
        # every other structure, the correction included: A2DE's runs the most iterations
        **{
            f'`SemiNaiveBayes("{structure}")`': ({"model": structure}, ["--model", structure])
            for structure in ("aode", "waode", "aodesr", "a2de", "hnb", "tan", "kdb")
        },
    }
    semi_fits = {}
    for label, (given, _) in semi_models.items():
        expected_semi = nbayes.SemiNaiveBayes(**given).fit(train, target=TARGET)
        shuffled_semi = nbayes.SemiNaiveBayes(**given).fit(
            train[rng.permutation(train.height)], target=TARGET
        )
        parts = np.array_split(rng.permutation(train.height), 4)
        passes_semi = nbayes.SemiNaiveBayes(**given).fit_passes(
            lambda parts=parts: (train[part] for part in parts), target=TARGET
        )
        semi_fits[label] = [expected_semi, shuffled_semi, passes_semi]

    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    with (
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True) as cluster,
        Client(cluster),
    ):
        partitions = dd.from_pandas(train.to_pandas(), chunksize=4000)
        on_dask = nbayes.NaiveBayes().fit(partitions, target=TARGET)
        for label, (given, _) in semi_models.items():
            semi_fits[label].append(
                nbayes.SemiNaiveBayes(**given).fit(partitions, target=TARGET)
            )
    rows.append(
        ["`NaiveBayes()`", "Dask, 2 workers", gap(on_dask.predict_proba(X_test), expected)]
    )

    with tempfile.TemporaryDirectory() as folder:
        # adult's training file as published (", " separators, "?" missing), 22 times over
        big = Path(folder) / "adult22.data"
        published = (args.data / "adult" / "adult.data").read_bytes()
        big.write_bytes(published * REPEATS)
        size = big.stat().st_size / 2**20
        table = nbayes.read_table(big, header=False, missing="?")
        in_memory = nbayes.NaiveBayes().fit(table, target="15")
        model = Path(folder) / "m.nbm"
        options = ["--no-header", "--missing", "?", "--target", "15", "-o", str(model)]
        assert nbayes_main(["fit", str(big), *options]) == 0
        streamed = nbayes.load(model)
        test_table = X_test.rename(dict(zip(X_test.columns, table.columns[:-1], strict=True)))
        rows.append(
            [
                "`NaiveBayes()`",
                f"`nbayes fit` of a {size:.0f} MiB CSV (adult.data × {REPEATS}), streamed "
                "in 16 MiB chunks, vs the in-memory fit of that file",
                gap(streamed.predict_proba(test_table), in_memory.predict_proba(test_table)),
            ]
        )
    textbook = nbayes.NaiveBayes(calibration=None).fit(train, target=TARGET)
    rows.append(
        [
            "`NaiveBayes(calibration=None)`",
            "for scale: the textbook scores against the calibrated default",
            gap(textbook.predict_proba(X_test), expected),
        ]
    )
    for label, (given, cli) in semi_models.items():
        expected_semi, *others = (m.predict_proba(X_test) for m in semi_fits[label])
        ways = ["rows shuffled", "fit_passes over 4 shuffled batches (the staged protocol)",
                "Dask, 2 workers"]  # fmt: skip
        rows += [[label, way, gap(p, expected_semi)] for way, p in zip(ways, others, strict=True)]
        with tempfile.TemporaryDirectory() as folder:
            published = args.data / "adult" / "adult.data"
            table = nbayes.read_table(published, header=False, missing="?")
            in_memory = nbayes.SemiNaiveBayes(**given).fit(table, target="15")
            model = Path(folder) / "m.nbm"
            options = ["--no-header", "--missing", "?", "--target", "15", "--chunk-mb", "1"]
            assert nbayes_main(["fit", str(published), *options, *cli, "-o", str(model)]) == 0
            streamed = nbayes.load(model)
            test_table = X_test.rename(
                dict(zip(X_test.columns, table.columns[:-1], strict=True))
            )
            rows.append(
                [
                    label,
                    f"`nbayes fit {' '.join(cli)}` of adult.data as published, streamed in 1 MiB "
                    "chunks (read once, by the table's pass, whose spill of the rows as read "
                    "the structure's first pass and the correction's first read, each spilling "
                    "what its later passes read), vs the in-memory fit of that file",
                    gap(streamed.predict_proba(test_table), in_memory.predict_proba(test_table)),
                ]
            )
    rows += same_rows_in_pandas(args.data)
    for row in rows:  # the textbook row is there for scale, not held to the target
        if not row[1].startswith("for scale") and float(row[2]) > 1e-9:
            row[1] += " (NOT within 1e-9)"
    largest = f"largest difference of a probability on {TEST_ROWS:,} adult test rows vs one fit"
    header = ["model", "fitted by", largest]
    body = (
        "Command: `python benchmarks/same_model.py --write` — "
        f"{_report.machine()}. Target (issue: mergeable choices): at most 1e-9 each. "
        f"`NaiveBayes()` calibration: {one.calibration_.reason}\n\n"
        + _report.markdown_table(header, rows)
    )
    _report.publish("same-model", body, args.write)


def same_rows_in_pandas(data: Path) -> list[list[str]]:
    """soybean-large's training rows as Polars reads them (integer codes, nulls where '?')
    and as pandas holds them (floats, NaN where '?'): the same values, one model, whether
    all the rows come from one or the other, or a half from each, fitted apart and merged."""
    (X, y), (X_test, _) = uci.soybean(data=data)
    as_polars = X.with_columns(pl.Series("class", y))
    as_pandas = as_polars.to_pandas()
    half = as_polars.height // 2

    def from_pandas(make):  # all the rows from pandas
        return make().fit(as_pandas, target="class")

    def merged_halves(make):  # the first half from pandas, the second from Polars
        first = make().fit(as_pandas[:half], target="class")
        return nbayes.merge(first, make().fit(as_polars[half:], target="class"))

    semi_naive = {
        "`SemiNaiveBayes()`": nbayes.SemiNaiveBayes,
        '`SemiNaiveBayes("aode")`': lambda: nbayes.SemiNaiveBayes("aode"),
    }
    gaussian = {
        '`NaiveBayes(continuous="gaussian")`': lambda: nbayes.NaiveBayes(continuous="gaussian")
    }
    cases = [
        (from_pandas, {**semi_naive, **gaussian}, "training rows from pandas (codes with "
         "missing values held as floats) vs from Polars (integers with nulls)"),
        (merged_halves, {"`NaiveBayes()`": nbayes.NaiveBayes, **gaussian}, "first half of "
         "training rows from pandas, second from Polars, fitted apart and merged, vs one fit"),
    ]  # fmt: skip
    rows = []
    for fitted, models, what in cases:
        for label, make in models.items():
            whole = make().fit(as_polars, target="class")
            rows.append(
                [
                    label,
                    f"soybean-large's {what}; on its 376 test rows",
                    gap(fitted(make).predict_proba(X_test), whole.predict_proba(X_test)),
                ]
            )
    return rows


if __name__ == "__main__":
    main()
