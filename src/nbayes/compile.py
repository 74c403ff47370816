"""Compile nbayes' kernels into the package's cache: ``python -m nbayes.compile``.

Run it once where the package is installed (a post-install step, a ``RUN`` line of a container
image, a system package's install script), with write access to the installation: every later
process of every user then loads the machine code instead of compiling it (see
:mod:`nbayes._jit`), even when the installation is read-only. Without it the first process to
need a kernel compiles it and saves it there if it can (otherwise in the user's own cache).

It also byte-compiles the package's modules, which an editable install, a read-only one or an
environment with ``PYTHONDONTWRITEBYTECODE`` would otherwise compile from source in every
process.

The kernels are compiled by running each model once on a few rows of each input kind, so the
cached signatures are the ones real calls use (codes as uint8, int64 or float with NaN; CSR and
dense counts; tables with strings, numbers and missing values; text in bytes and str).
"""

from __future__ import annotations

import argparse
import tempfile
import time
import warnings
from pathlib import Path


def _estimators() -> None:
    import numpy as np
    import scipy.sparse as sp

    import nbayes

    rng = np.random.default_rng(0)
    y = np.arange(40) % 3
    codes = rng.integers(0, 4, (40, 3))
    for X in (codes.astype(np.uint8), codes.astype(np.int64), codes.astype(np.float64)):
        nbayes.CategoricalNB().fit(X, y).predict_proba(X)
    missing = codes.astype(np.float64)
    missing[0, 0] = np.nan
    nbayes.CategoricalNB().fit(missing, y).predict_proba(missing)
    dense = rng.normal(size=(40, 3))
    nbayes.GaussianNB().fit(dense, y).predict_proba(dense)
    counts = rng.poisson(1.0, (40, 5)).astype(np.float64)
    for X in (counts, sp.csr_array(counts)):
        for model in (nbayes.MultinomialNB, nbayes.ComplementNB, nbayes.BernoulliNB):
            fitted = model().fit(X, y)
            fitted.predict_proba(X)
            fitted.partial_fit(X, y)
        nbayes.PoissonNB().fit(counts, y).predict_proba(counts)


def _tables() -> None:
    import numpy as np

    import nbayes

    rng = np.random.default_rng(1)
    n = 200  # at least calibration.MIN_ROWS: fit calibrates, compiling its objective
    table = {
        "colour": rng.choice(["red", "green", "blue"], n).tolist(),
        "size": rng.integers(0, 5, n).tolist(),
        "weight": rng.normal(size=n).tolist(),
        "flag": (rng.random(n) < 0.5).tolist(),
        "label": rng.choice(["a", "b"], n).tolist(),
    }
    table["weight"][0] = None
    y = table.pop("label")
    for continuous in ("auto", "gaussian", "kde", "mdl"):
        model = nbayes.NaiveBayes(continuous=continuous).fit(table, y)
        model.predict_proba(table)
    # batches of a stream: the first sorted onto a grid (more distinct values than a sketch
    # keeps), the later ones counted on it (at least the 1024 values a sketch counts)
    stream = nbayes.NaiveBayes(calibration=None)
    for _ in range(3):
        rows = 3000
        batch = {"x": rng.normal(size=rows), "k": rng.integers(0, 5, rows).astype(float)}
        stream.partial_fit(batch, rng.choice(["a", "b"], rows))
    # a wide table a few rows at a time: its sketches summarised, then pooled, a block at once
    wide = nbayes.NaiveBayes(calibration=None, max_bins=8)
    for _ in range(2):
        wide.partial_fit({f"x{j}": rng.normal(size=20) for j in range(16)}, np.arange(20) % 2)


def _text() -> None:
    import nbayes

    docs = [f"word{i % 7} other{i % 3} the a text number {i}" for i in range(50)]
    labels = [i % 2 for i in range(50)]
    for options in ({}, {"mode": "vocabulary"}, {"mode": "hashing"}):
        try:
            model = nbayes.TextClassifier(**options).fit(docs, labels)
        except TypeError:  # an option this version does not have
            continue
        model.predict_proba(docs)
        model.fit([d.encode() for d in docs], labels).predict(docs)


def _semi_naive() -> None:
    import numpy as np

    import nbayes

    rng = np.random.default_rng(2)
    y = np.arange(60) % 3
    codes = rng.integers(0, 3, (60, 4))
    missing = codes.astype(np.float64)
    missing[0, 1] = np.nan
    for X in (codes.astype(np.int64), missing):
        for model in (nbayes.AODE(subsumption=2), nbayes.AnDE(2), nbayes.HNB(), nbayes.TAN(),
                      nbayes.SelectiveKDB(2),
                      nbayes.SelectiveKDB(2, smoothing="hierarchical")):  # fmt: skip
            model.fit(X, y).predict_proba(X)
    table = {"colour": rng.choice(["red", "blue"], 60).tolist(), "weight": rng.normal(size=60)}
    nbayes.SemiNaiveBayes("aode").fit(table, y).predict_proba(table)
    # the default: hierarchical selective k-DB and its discriminative correction
    nbayes.SemiNaiveBayes().fit(table, y).predict_proba(table)
    # and fitted in passes, whose correction reads its rows back from a spill (32-bit slots)
    nbayes.SemiNaiveBayes().fit_passes([(table, y)])


def _readers() -> None:
    from . import readers

    with tempfile.TemporaryDirectory() as folder:
        for name, text in (
            ("plain.csv", "a,b,y\n1,x,0\n2,y,1\n"),
            ("quoted.csv", 'a,b,y\n1,"x,1",0\n2,"y ""z""",1\n'),
            ("padded.csv", "a, b,y\n" + " 1, x ,0\n" * 300),  # blocks stripped after the first
        ):
            path = Path(folder) / name
            path.write_text(text)
            for _ in readers.TableReader(path, chunk_bytes=1024):
                pass
            try:  # the quick reader's look for blanks in the whole file
                for _ in readers.TableReader(path, quick=True):
                    pass
            except readers.QuickReadAbandoned:
                pass


STEPS = {
    "estimators": _estimators,
    "tables": _tables,
    "text": _text,
    "semi-naive": _semi_naive,
    "readers": _readers,
}


def byte_compile() -> bool:
    """Write the bytecode (``__pycache__/*.pyc``) of every module of the package; False where
    some could not be written (a read-only installation: each process then compiles them)."""
    import compileall

    return bool(compileall.compile_dir(Path(__file__).resolve().parent, quiet=1))


def compile_all(verbose: bool = False) -> dict[str, float]:
    """Byte-compile the package and run every step; returns the seconds each took (compiling
    or loading from the cache)."""
    start = time.perf_counter()
    written = byte_compile()
    timings = {"bytecode": time.perf_counter() - start}
    if verbose:
        print(f"bytecode: {timings['bytecode']:.2f} s{'' if written else ' (not all written)'}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, step in STEPS.items():
            start = time.perf_counter()
            step()
            timings[name] = time.perf_counter() - start
            if verbose:
                print(f"{name}: {timings[name]:.2f} s", flush=True)
    return timings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m nbayes.compile", description=__doc__.splitlines()[0]
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing")
    args = parser.parse_args(argv)
    timings = compile_all(verbose=not args.quiet)
    if not args.quiet:
        folder = Path(__file__).resolve().parent
        print(f"kernels cached under {folder} ({sum(timings.values()):.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
