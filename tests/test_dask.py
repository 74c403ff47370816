"""Distributed training on Dask: a real LocalCluster with two worker processes.

Fitting a Dask collection must give the model that one fit on the computed rows gives (to
1e-12 relative), for every family, including the ones that need the whole data for a decision
(the schema, kernel densities, interval cut points); prediction on a Dask collection is lazy and
equal to the eager one; a worker killed mid-fit is survived through Dask's own retry.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import assert_same_statistics

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
pd = pytest.importorskip("pandas")
import cloudpickle  # noqa: E402  (installed with distributed)

import nbayes  # noqa: E402
from nbayes.families import categorical, intervals, sketch  # noqa: E402

# the workers cannot import this test module: ship its functions by value
cloudpickle.register_pickle_by_value(sys.modules[__name__])

SRC = str(Path(__file__).resolve().parents[1] / "src")


@pytest.fixture(scope="module")
def cluster():
    # workers are spawned: they find nbayes where this process found it
    path = os.environ.get("PYTHONPATH", "")
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (SRC, path) if p)
    try:
        with distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.CRITICAL,
        ) as local:
            yield local
    finally:
        os.environ["PYTHONPATH"] = path


@pytest.fixture(scope="module")
def client(cluster):
    with distributed.Client(cluster) as c:
        yield c


# ---------------------------------------------------------------------- family estimators
FACTORIES = {
    "categorical": (lambda: nbayes.CategoricalNB(alpha=0.5), "codes-nan"),
    "gaussian": (lambda: nbayes.GaussianNB(), "real-nan"),
    "multinomial": (lambda: nbayes.MultinomialNB(), "counts"),
    "multinomial-sparse": (lambda: nbayes.MultinomialNB(alpha=0.3), "counts-sparse"),
    "complement": (lambda: nbayes.ComplementNB(norm=True), "counts"),
    "bernoulli": (lambda: nbayes.BernoulliNB(binarize=1.0), "counts"),
    "poisson": (lambda: nbayes.PoissonNB(), "counts"),
}


def make_data(kind: str, n: int, d: int, rng: np.random.Generator) -> np.ndarray:
    if kind.startswith("codes"):
        X = rng.integers(0, 5, (n, d)).astype(float)
        X[n // 2 :, 0] += 3  # codes 5..7 appear only in the later blocks
    elif kind.startswith("real"):
        X = rng.normal(loc=rng.uniform(-1e3, 1e3, d), scale=rng.uniform(0.1, 10, d), size=(n, d))
    else:
        X = rng.poisson(1.5, (n, d)).astype(float)
    if kind.endswith("nan"):
        X[rng.random((n, d)) < 0.2] = np.nan
    return X


def assert_same_scores(eager: np.ndarray, lazy) -> None:
    got = lazy.compute()
    got = got.to_numpy() if hasattr(got, "to_numpy") else got
    finite = np.isfinite(eager)
    np.testing.assert_array_equal(np.isfinite(got), finite)
    scale = max(1.0, float(np.max(np.abs(eager[finite]), initial=0.0)))
    np.testing.assert_allclose(got[finite], eager[finite], rtol=1e-9, atol=1e-9 * scale)


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_family_estimator_on_dask_array_equals_one_fit(client, name):
    factory, kind = FACTORIES[name]
    rng = np.random.default_rng(7)
    n, d = 900, 4
    X = make_data(kind, n, d, rng)
    y = np.where(np.arange(n) < 300, rng.integers(0, 2, n), rng.integers(0, 4, n))  # classes grow
    w = rng.uniform(0.1, 3.0, n)
    whole = factory().fit(X, y, sample_weight=w)

    Xd = da.from_array(X, chunks=(130, 3))  # row blocks of unequal size, two column chunks
    if kind.endswith("sparse"):
        Xd = Xd.map_blocks(sp.csr_matrix, meta=sp.csr_matrix((0, 0)))
    model = factory().fit(Xd, da.from_array(y, chunks=200), sample_weight=da.from_array(w, 100))
    assert_same_statistics(whole, model)

    for method in ("predict_proba", "predict_log_proba", "predict_joint_log_proba"):
        lazy = getattr(model, method)(Xd)
        assert isinstance(lazy, da.Array)
        assert_same_scores(getattr(whole, method)(X), lazy)
    labels = model.predict(Xd)
    assert isinstance(labels, da.Array)
    np.testing.assert_array_equal(labels.compute(), whole.predict(X))


def test_estimator_on_dask_dataframe_and_partial_fit(client):
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(rng.poisson(2.0, (600, 3)), columns=["a", "b", "c"])
    labels = pd.Series(rng.choice(["spam", "ham", "eggs"], 600), name="label")
    whole = nbayes.MultinomialNB().fit(frame, labels)
    X, y = dd.from_pandas(frame, npartitions=4), dd.from_pandas(labels, npartitions=4)
    model = nbayes.MultinomialNB().fit(X, y)
    assert_same_statistics(whole, model)
    assert list(model.feature_names_in_) == ["a", "b", "c"]
    predicted = model.predict(X)
    assert isinstance(predicted, dd.Series)
    np.testing.assert_array_equal(predicted.compute().to_numpy(), whole.predict(frame))
    proba = model.predict_proba(X)
    assert isinstance(proba, dd.DataFrame) and list(proba.columns) == list(model.classes_)
    np.testing.assert_allclose(proba.compute().to_numpy(), whole.predict_proba(frame))
    assert model.score(X, y) == pytest.approx(whole.score(frame, labels), rel=1e-12)

    # partial_fit: the collection is one more batch, the classes are those given first
    streamed = nbayes.MultinomialNB().partial_fit(
        frame[:200], labels[:200], classes=["eggs", "ham", "spam", "toast"]
    )
    streamed.partial_fit(X.partitions[1:], y.partitions[1:])
    single = nbayes.MultinomialNB().partial_fit(
        frame[:200], labels[:200], classes=["eggs", "ham", "spam", "toast"]
    )
    single.partial_fit(frame[150:], labels[150:])
    assert_same_statistics(single, streamed)
    with pytest.raises(ValueError, match="classes must be passed"):
        nbayes.MultinomialNB().partial_fit(X, y)


# ---------------------------------------------------------------------- NaiveBayes tables
def mixed_table(n: int, seed: int) -> pd.DataFrame:
    """Columns whose partitions disagree: vocabularies that grow along the rows, an integer
    column with few distinct values in each part but many overall, missing values."""
    rng = np.random.default_rng(seed)
    row = np.arange(n)
    label = np.where(rng.random(n) < 0.5, "yes", "no").astype(object)
    label[row >= n // 2] = np.where(rng.random(n - n // 2) < 0.3, "maybe", label[row >= n // 2])
    shift = (label == "yes") * 1.5
    frame = pd.DataFrame(
        {
            "colour": [f"c{v}" for v in rng.integers(0, 3, n) + row // (n // 4)],
            "rating": rng.integers(1, 6, n),
            "code": rng.integers(0, 8, n) + 8 * (row // (n // 6)),  # 8 per part, 48 in all
            "height": rng.normal(170 + 5 * shift, 8, n),
            "income": rng.lognormal(3 + 0.3 * shift, 0.5, n).round(1),
            "age": rng.normal(40 + 4 * shift, 12, n).round(0),
            "visits": rng.poisson(2 + shift, n),
            "flag": rng.random(n) < 0.3 + 0.2 * shift,
            "label": label,
        }
    )
    frame.loc[rng.random(n) < 0.1, "height"] = np.nan
    frame["colour"] = frame["colour"].where(rng.random(n) > 0.05, "?")
    frame["label"] = frame["label"].where(rng.random(n) > 0.02, None)
    return frame


def table_model() -> nbayes.NaiveBayes:
    return nbayes.NaiveBayes(
        families={"income": "kde", "age": "mdl", "visits": "poisson"},
        missing_values="?",
        alpha={"colour": 0.5},
        max_bins=64,  # income and age overflow it: the sketches pool on a grid
        continuous="gaussian",  # integer columns by the rule: the schema pass decides them
        calibration=None,  # partitions merge into the textbook model of all the rows
    )


def assert_same_table_model(a: nbayes.NaiveBayes, b: nbayes.NaiveBayes) -> None:
    assert a.schema_ == b.schema_
    assert_same_statistics(a, b)
    settings = a._settings()
    for mine, theirs in zip(a._stats.groups, b._stats.groups, strict=True):
        if isinstance(mine, categorical.CategoricalColumns):
            assert mine.vocabularies == theirs.vocabularies
        if isinstance(mine, intervals.IntervalColumns):
            for x, y in zip(mine.cuts(settings), theirs.cuts(settings), strict=True):
                np.testing.assert_array_equal(x, y)
        if isinstance(mine, sketch.SketchColumns):
            assert [f.level for f in mine.stats.features] == [
                f.level for f in theirs.stats.features
            ]


def test_naive_bayes_on_dask_dataframe_equals_one_fit(client):
    frame = mixed_table(3000, seed=1)
    with pytest.warns(UserWarning, match="missing target"):
        whole = table_model().fit(frame, target="label")
    ddf = dd.from_pandas(frame, npartitions=6)
    with pytest.warns(UserWarning, match="missing target"):
        model = table_model().fit(ddf, target="label")
    families = {s.name: s.family for s in model.schema_}
    assert families["code"] == "gaussian"  # categorical in every partition, not in all rows
    assert families["rating"] == families["colour"] == families["flag"] == "categorical"
    assert model.families == table_model().families  # the user's parameters are kept
    assert_same_table_model(whole, model)

    lazy = model.predict_joint_log_proba(ddf)
    assert isinstance(lazy, dd.DataFrame)
    assert_same_scores(whole.predict_joint_log_proba(frame), lazy)
    assert_same_scores(whole.predict_proba(frame), model.predict_proba(ddf))
    predicted = model.predict(ddf)
    assert isinstance(predicted, dd.Series)
    np.testing.assert_array_equal(predicted.compute().to_numpy(), whole.predict(frame))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        assert model.score(ddf, target="label") == pytest.approx(
            whole.score(frame, target="label"), rel=1e-12
        )

    # labels as a Dask Series, weights as a Dask Series; the rows without a label dropped first
    weights = pd.Series(np.random.default_rng(2).uniform(0.5, 2.0, len(frame)))
    labelled = frame["label"].notna().to_numpy()
    whole = table_model().fit(
        frame[labelled].drop(columns="label"),
        frame["label"][labelled],
        sample_weight=weights[labelled],
    )
    ddf = dd.from_pandas(frame[labelled], npartitions=5)
    model = table_model().fit(
        ddf.drop(columns="label"),
        ddf["label"],
        sample_weight=dd.from_pandas(weights[labelled], npartitions=5),
    )
    assert_same_table_model(whole, model)


def test_naive_bayes_partial_fit_and_errors(client):
    frame = mixed_table(2000, seed=4).dropna(subset=["label"])
    first, rest = frame.iloc[:900], frame.iloc[900:]
    single = table_model().partial_fit(first, target="label").partial_fit(rest, target="label")
    streamed = table_model().partial_fit(dd.from_pandas(first, npartitions=3), target="label")
    streamed.partial_fit(dd.from_pandas(rest, npartitions=4), target="label")
    assert_same_table_model(single, streamed)

    ddf = dd.from_pandas(frame, npartitions=4)
    with pytest.raises(TypeError, match="Dask Series partitioned"):
        table_model().fit(ddf.drop(columns="label"), frame["label"].to_numpy())
    with pytest.raises(ValueError, match="3 partitions but X has 4"):
        table_model().fit(ddf.drop(columns="label"), ddf["label"].repartition(npartitions=3))
    missing = frame.assign(empty=np.nan)
    with pytest.raises(ValueError, match="'empty' is entirely missing"):
        table_model().fit(dd.from_pandas(missing, npartitions=3), target="label")
    left_out = table_model()
    left_out.set_params(families={**left_out.families, "empty": "ignore"})
    left_out.fit(dd.from_pandas(missing, npartitions=3), target="label")
    assert left_out.families_["empty"] == "ignore"


def test_fit_files_on_a_running_cluster(cluster, tmp_path):
    frame = mixed_table(1200, seed=5).dropna(subset=["label"])
    for i, part in enumerate(np.array_split(np.arange(len(frame)), 3)):
        frame.iloc[part].to_parquet(tmp_path / f"part-{i}.parquet")
    from nbayes.distributed import fit_files

    model = fit_files(table_model(), tmp_path, "label", cluster.scheduler_address)
    whole = table_model().fit(frame, target="label")
    assert_same_table_model(whole, model)


# ---------------------------------------------------------------------- failures
def _slowly(part, seconds):
    time.sleep(seconds)
    return part


def test_worker_killed_mid_fit_is_survived(client):
    frame = mixed_table(2400, seed=6).dropna(subset=["label"]).drop(columns=["rating", "code"])
    ddf = dd.from_pandas(frame, npartitions=12)
    slow = ddf.map_partitions(_slowly, 0.4, meta=ddf._meta)
    whole = table_model().fit(frame, target="label")
    pids = client.run(os.getpid)
    victim, pid = sorted(pids.items())[0]
    with ThreadPoolExecutor(1) as pool:
        fitting = pool.submit(table_model().fit, slow, target="label")
        deadline = time.monotonic() + 60
        while not client.processing().get(victim) and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.1)
        assert not fitting.done()
        os.kill(pid, signal.SIGKILL)
        model = fitting.result(timeout=120)
    assert_same_table_model(whole, model)
    client.wait_for_workers(2, timeout=60)
    assert pid not in client.run(os.getpid).values()  # the nanny started a new worker


# ---------------------------------------------------------------------- import
def test_importing_nbayes_does_not_import_dask():
    code = (
        "import sys, nbayes, nbayes.distributed\n"
        "assert not [m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')]"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


# ---------------------------------------------------------------------- command line
def test_cli_fit_with_scheduler_equals_streaming_fit(cluster, tmp_path):
    """`nbayes fit --scheduler ADDRESS` has the cluster's workers read and fit the files."""
    import polars as pl

    from nbayes.cli import main

    rng = np.random.default_rng(11)
    n = 3000
    y = rng.choice(["a", "b", "c"], n)
    frame = pl.DataFrame(
        {
            "height": rng.normal(170, 10, n),
            "colour": rng.choice(["red", "green", None], n).tolist(),
            "code": rng.integers(0, 4, n),
            "y": y.tolist(),
        }
    )
    folder = tmp_path / "parts"
    folder.mkdir()
    for k in range(3):
        frame[k * 1000 : (k + 1) * 1000].write_parquet(folder / f"part{k}.parquet")
    on_cluster, local = tmp_path / "cluster.nbm", tmp_path / "local.nbm"
    assert (
        main(
            [
                "fit",
                str(folder),
                "--target",
                "y",
                "-o",
                str(on_cluster),
                "--scheduler",
                cluster.scheduler_address,
            ]
        )
        == 0
    )
    assert main(["fit", str(folder / "part0.parquet"), "--target", "y", "-o", str(local)]) == 0
    # the calibration's row sample merges with the statistics: the calibrated model of one fit
    whole = nbayes.NaiveBayes().fit(frame, target="y")
    assert_same_statistics(nbayes.load(on_cluster), whole)
    features = frame.drop("y")
    np.testing.assert_allclose(
        nbayes.load(on_cluster).predict_proba(features), whole.predict_proba(features), atol=1e-9
    )
    assert main(["fit", "-", "--target", "y", "-o", str(local), "--scheduler", "tcp://x:1"]) == 2
    # a structure of several passes (k-DB with k = 2) runs each pass there too; and the
    # default structure with its discriminative correction
    for options, model in (
        (["--model", "kdb", "--k", "2", "--discriminative", "off"],
         nbayes.SemiNaiveBayes(nbayes.semi_naive.KDB(2), discriminative=False)),
        (["--model", "skdb"], nbayes.SemiNaiveBayes()),
    ):  # fmt: skip
        address = ["--scheduler", cluster.scheduler_address]
        assert main(["fit", str(folder), "--target", "y", "-o", str(on_cluster), *options,
                     *address]) == 0  # fmt: skip
        np.testing.assert_allclose(
            nbayes.load(on_cluster).predict_proba(features),
            model.fit(frame, target="y").predict_proba(features),
            atol=1e-9,
        )


def test_cli_fit_with_scheduler_reads_a_file_as_the_command_line_does(cluster, tmp_path):
    """The workers read with the command line's rules: no header line and the target by
    position, a sniffed ", " separator, whitespace stripped (" ?" and "? " are the marker "?",
    " blue" is "blue"), true/false values, the column types nbayes' reader gives the first rows
    (a column of numbers but for "5more" in a few early rows is text in every partition),
    gzip known by its first bytes, several partitions; the model equals ``nbayes fit`` without
    a cluster to 1e-9. Quoted values spanning lines are not cut between partitions. An
    unreadable format and --skip-bad-rows are refused in one line."""
    import gzip

    import polars as pl

    from nbayes.cli import main

    rng = np.random.default_rng(5)
    n = 100_000
    y = rng.integers(0, 2, n)
    colour = np.where(rng.random(n) < 0.05, "?", rng.choice(["red", "green", " blue"], n))
    doors = rng.integers(2, 5, n).astype(str)
    doors[15_000:15_010] = "5more"
    rows = zip(
        np.round(rng.normal(y, 1.0), 3),
        colour,
        np.where(rng.random(n) < 0.3 + 0.4 * y, "true", "false"),
        doors,
        np.where(y == 1, "yes", "no"),
        strict=True,
    )
    data = tmp_path / "published.data"  # a name that says nothing of the format
    data.write_text("".join(f"{a}, {b} , {c}, {d}, {e}\n" for a, b, c, d, e in rows))
    assert data.stat().st_size > 2 * 2**20  # more than one partition of --chunk-mb 1
    packed = tmp_path / "packed.data"
    packed.write_bytes(gzip.compress(data.read_bytes()))
    address = ["--scheduler", cluster.scheduler_address]
    options = ["--no-header", "--target", "5", "--missing", "?", "--chunk-mb", "1"]
    local, on_cluster = tmp_path / "local.nbm", tmp_path / "cluster.nbm"
    assert main(["fit", str(data), *options, "-o", str(local)]) == 0
    expected = nbayes.load(local)
    features = nbayes.read_table(data, header=False, missing="?").drop("5")
    assert features["2"].null_count() > 0  # the marker was read as missing
    assert features["4"].dtype == pl.String
    for source in (data, packed):
        assert main(["fit", str(source), *options, "-o", str(on_cluster), *address]) == 0
        model = nbayes.load(on_cluster)
        assert model.families_ == expected.families_
        assert list(model.classes_) == ["no", "yes"]
        np.testing.assert_allclose(
            model.predict_proba(features), expected.predict_proba(features), atol=1e-9
        )
    quoted = tmp_path / "notes.csv"
    quoted.write_text(
        "note,y\n" + "".join(f'"line one\nline, {i % 4}",{"pq"[i % 2]}\n' for i in range(60_000))
    )
    chunks = ["--chunk-mb", "1"]
    assert main(["fit", str(quoted), "--target", "y", "-o", str(local), *chunks]) == 0
    assert main(["fit", str(quoted), "--target", "y", "-o", str(on_cluster), *chunks,
                 *address]) == 0  # fmt: skip
    notes = nbayes.read_table(quoted).drop("y")
    np.testing.assert_allclose(
        nbayes.load(on_cluster).predict_proba(notes),
        nbayes.load(local).predict_proba(notes),
        atol=1e-9,
    )
    lines = tmp_path / "rows.jsonl"
    lines.write_text('{"a": 1, "y": "p"}\n')
    assert main(["fit", str(lines), "--target", "y", "-o", str(on_cluster), *address]) == 2
    assert main(["fit", str(data), *options, "-o", str(on_cluster), "--skip-bad-rows",
                 *address]) == 2  # fmt: skip


#: The words of two classes of short messages.
WORDS = {
    "spam": ["free", "prize", "claim", "now", "win"],
    "ham": ["lunch", "meeting", "see", "you", "notes"],
}


def test_naive_bayes_with_a_text_column_on_dask_equals_one_fit(client):
    """The text family too: each partition counts its documents; the counts add up."""
    rng = np.random.default_rng(21)
    n = 600
    label = rng.choice(["spam", "ham"], n)
    body = [" ".join(rng.choice(WORDS[lab], 4)) if rng.random() > 0.05 else None for lab in label]
    frame = pd.DataFrame({"body": body, "length": rng.normal(20, 4, n), "label": label})
    make = lambda: nbayes.NaiveBayes(families={"body": "text"})  # noqa: E731
    whole = make().fit(frame, target="label")
    model = make().fit(dd.from_pandas(frame, npartitions=4), target="label")
    text_mine, text_theirs = model._stats.groups[0], whole._stats.groups[0]
    assert text_mine.family == "text"
    np.testing.assert_allclose(text_mine.stats.counts, text_theirs.stats.counts, rtol=1e-12)
    np.testing.assert_array_equal(
        text_mine.vectorizer.document_frequency_, text_theirs.vectorizer.document_frequency_
    )
    np.testing.assert_array_equal(model.predict(frame), whole.predict(frame))


def test_free_text_and_identifier_columns_are_found_on_dask_as_in_one_fit(client):
    """Without families=, a free-text column is modelled as text and an identifier column is
    left out on Dask as in one fit: the schema pass summarises each string column over every
    partition (the stand-in table holds none of their values)."""
    rng = np.random.default_rng(22)
    n = 900
    label = rng.choice(["spam", "ham"], n)
    body = [" ".join(rng.choice(WORDS[lab], 5)) + f" n{i}" for i, lab in enumerate(label)]
    frame = pd.DataFrame(
        {
            "body": pd.Series(body, dtype="string"),
            "ticket": pd.Series([f"T-{i:05d}" for i in range(n)], dtype="string"),
            "colour": rng.choice(["red", "green", "blue"], n),
            "length": rng.normal(20, 4, n),
            "label": label,
        }
    )
    with pytest.warns(UserWarning):
        whole = nbayes.NaiveBayes().fit(frame, target="label")
    with pytest.warns(UserWarning):
        model = nbayes.NaiveBayes().fit(dd.from_pandas(frame, npartitions=3), target="label")
    assert whole.families_["body"] == "text" and whole.families_["ticket"] == "ignore"
    assert model.families_ == whole.families_
    features = frame.drop(columns="label")
    np.testing.assert_allclose(
        model.predict_proba(features), whole.predict_proba(features), atol=1e-9
    )


def test_a_table_models_dask_score_warns_of_labels_none_of_its_classes(client):
    """As the model's own score: rows whose label is none of the classes count as errors, and
    the Dask score says how many, which, and how they differ from the classes (adult's test
    labels end with a period)."""
    rng = np.random.default_rng(5)
    y = rng.choice(["<=50K", ">50K"], 400)
    frame = pd.DataFrame({"a": np.where(rng.random(400) < 0.8, y, "x"), "label": y})
    model = nbayes.NaiveBayes(calibration=None).fit(frame, target="label")
    dotted = frame.assign(label=frame["label"] + ".")
    ddf = dd.from_pandas(dotted, npartitions=4)
    # the labels and the hint of the model's own score, from labels gathered over partitions
    with pytest.warns(UserWarning) as own:
        assert model.score(dotted, target="label") == 0.0
    with pytest.warns(UserWarning) as spread:
        assert model.score(ddf, target="label") == 0.0
    message = str(spread[0].message)
    assert "400 of 400 rows have labels the model does not know (['<=50K.', '>50K.'])" in message
    assert "only by a trailing period ('<=50K.' for '<=50K', '>50K.' for '>50K')" in message
    assert message == str(own[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # known labels: nothing to say
        assert model.score(dd.from_pandas(frame, npartitions=4), target="label") == (
            pytest.approx(model.score(frame, target="label"), rel=1e-12)
        )


def test_the_unknown_labels_a_dask_score_shows_do_not_depend_on_the_reduction_tree():
    """Each partition's distinct unknown labels, and their union, are the first SHOWN_UNKNOWN
    in sorted order: the same whichever partitions the tree adds first."""
    from nbayes.distributed._scoring import add_scores
    from nbayes.labels import SHOWN_UNKNOWN

    rng = np.random.default_rng(3)
    parts = [
        (rng.random(4), sorted({f"l{v:02d}" for v in rng.integers(0, 60, 8)})[:SHOWN_UNKNOWN])
        for _ in range(9)
    ]
    flat = add_scores(*parts)
    nested = add_scores(add_scores(*parts[:2]), add_scores(*parts[2:5]), add_scores(*parts[5:]))
    everything = sorted({label for _, labels in parts for label in labels})
    assert flat[1] == nested[1] == everything[:SHOWN_UNKNOWN]
    np.testing.assert_allclose(flat[0], sum(p[0] for p in parts))


def test_integers_held_as_floats_are_counted_on_dask_as_in_one_fit(client):
    """pandas holds codes with missing values as floats: with a continuous family named, such
    a column of at most max_int_categories integers over all the partitions is counted, as one
    fit of the rows (pandas or Polars) counts it; one with a code per partition beyond the
    bound is not, though each partition alone would count it."""
    pl = pytest.importorskip("polars")
    rng = np.random.default_rng(5)
    n = 2400
    codes = rng.integers(0, 6, n).astype(float)
    codes[rng.random(n) < 0.1] = np.nan
    spread = (np.arange(n) // 100).astype(float)  # 24 values, 4 per partition of 400 rows
    size = rng.normal(size=n)
    label = np.where((np.nan_to_num(codes) % 2 == 0) ^ (size > 0.3), "p", "q")
    frame = pd.DataFrame({"codes": codes, "spread": spread, "size": size, "y": label})
    options = {"continuous": "gaussian", "calibration": None}
    integers = pl.from_pandas(frame).with_columns(pl.col("codes").cast(pl.Int64))
    whole = nbayes.NaiveBayes(**options).fit(integers, target="y")
    model = nbayes.NaiveBayes(**options).fit(dd.from_pandas(frame, npartitions=6), target="y")
    expected = {"codes": "categorical", "spread": "gaussian", "size": "gaussian"}
    assert model.families_ == whole.families_ == expected
    features = integers.drop("y")
    np.testing.assert_allclose(
        model.predict_proba(features), whole.predict_proba(features), atol=1e-9
    )
