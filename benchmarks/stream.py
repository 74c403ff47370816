"""Training on a file larger than the memory it is allowed: `nbayes fit` against
pandas.read_csv(chunksize=10^6) + scikit-learn GaussianNB.partial_fit, and against Polars' own
streaming scan of the same CSV (parsing every column and summing it: the speed of reading alone).

The CSV (about 2 GB by default) has 10 float columns, 10 small-integer categorical columns and a
5-class target. Each contender runs in its own fresh processes (``--runs``, median and worst);
the script reports wall time, MB/s (file bytes / time), CPU time (user + system, every thread),
the peak resident memory of that process and the load average around the runs (the figures
mean little on a busy machine). From the CPU times it gives the most nbayes could reach of
Polars' speed on the cores it may use: its CPU time spread over them is a floor under its wall
time.

    python benchmarks/stream.py                 # generate (once) and run; prints the table
    python benchmarks/stream.py --write         # also record it in benchmarks/README.md
    python benchmarks/stream.py --rows 2000000  # a smaller file for a quick look
    python benchmarks/stream.py --runs 1        # one process per contender
    python benchmarks/stream.py --full-precision --rows 10000000 --write
                                                # floats with 17 significant digits (~2 GB)

Floats are written with six decimals by default (measured data rarely carries more; on such a
file pandas runs at the issue's reference speed). ``--full-precision`` writes them in full,
which makes parsing numbers the larger part of the work for both contenders; its table is
recorded as a section of its own.

``--published COPIES`` trains on a file as the UCI repository publishes it instead: adult.data
from ../shared/data (no header, a blank after every comma, '?' for missing values, 8 text and
6 numeric columns) repeated COPIES times without its final blank line. The peer reads it with
pandas.read_csv(skipinitialspace=True, na_values="?", chunksize=10^6), drops the rows with a
missing value (scikit-learn's models take none) and fits GaussianNB on the numbers and
CategoricalNB on the text, coded by a dictionary that grows chunk by chunk; Polars' scan takes
the largest value of every column.

    python benchmarks/stream.py --published 50 --write

``--model NAME`` fits ``nbayes fit --model NAME --verbose`` (a semi-naive structure: the file
read once, by the table's pass, and the later passes reading spills) against Polars' scan alone,
and reports each pass's seconds and rate against the scan; its table is a section of its own:

    python benchmarks/stream.py --published 100 --model skdb --runs 1 --write
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _report

OUT = Path(__file__).resolve().parent / "_out"

SKLEARN = textwrap.dedent(
    """
    import sys, numpy as np, pandas as pd
    from sklearn.naive_bayes import GaussianNB
    model = GaussianNB()
    classes = np.arange(5)
    for chunk in pd.read_csv(sys.argv[1], chunksize=10**6):
        y = chunk.pop("y").to_numpy()
        model.partial_fit(chunk.to_numpy(dtype=float), y, classes=classes)
    print(model.class_count_.sum())
    """
)


POLARS = textwrap.dedent(
    """
    import sys, time, polars as pl
    start = time.perf_counter()
    frame = pl.scan_csv(sys.argv[1]).select(pl.all().sum()).collect(engine="streaming")
    print(frame.width)
    print(f"scan: {time.perf_counter() - start} s", file=sys.stderr)
    """
)


PUBLISHED_SKLEARN = textwrap.dedent(
    """
    import sys, numpy as np, pandas as pd
    from sklearn.naive_bayes import CategoricalNB, GaussianNB
    numbers, categories, codes = GaussianNB(), CategoricalNB(), {}
    classes = np.array(["<=50K", ">50K"], dtype=object)
    options = dict(header=None, skipinitialspace=True, na_values="?", chunksize=10**6)
    for chunk in pd.read_csv(sys.argv[1], **options):
        chunk = chunk.dropna()
        y = chunk.pop(14).to_numpy()
        text = chunk.select_dtypes(object)
        X = chunk.drop(columns=text.columns).to_numpy(dtype=float)
        numbers.partial_fit(X, y, classes=classes)
        coded = []
        for name in text.columns:
            mapping = codes.setdefault(name, {})
            for value in pd.unique(text[name]):
                mapping.setdefault(value, len(mapping))
            coded.append(text[name].map(mapping).to_numpy())
        categories.partial_fit(np.column_stack(coded), y, classes=classes)
    print(numbers.class_count_.sum())
    """
)


POLARS_PUBLISHED = textwrap.dedent(
    """
    import sys, time, polars as pl
    start = time.perf_counter()
    lazy = pl.scan_csv(sys.argv[1], has_header=False)
    print(lazy.select(pl.all().max()).collect(engine="streaming").width)
    print(f"scan: {time.perf_counter() - start} s", file=sys.stderr)
    """
)

ADULT = Path(__file__).resolve().parents[2] / "shared" / "data" / "adult" / "adult.data"


def generate_published(path: Path, copies: int) -> None:
    """adult.data ``copies`` times, without its blank lines."""
    lines = [line for line in ADULT.read_bytes().splitlines(keepends=True) if line.strip()]
    with path.open("wb") as out:
        for _ in range(copies):
            out.writelines(lines)


def generate(path: Path, rows: int, full_precision: bool, seed: int = 0) -> None:
    """Write the CSV in slices so generating it needs little memory."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=1.5, size=(5, 10))
    with path.open("wb") as out:
        for start in range(0, rows, 500_000):
            n = min(500_000, rows - start)
            y = rng.integers(0, 5, n)
            columns = {f"f{i}": rng.normal(size=n) + centres[y, i] for i in range(10)}
            if not full_precision:  # six decimals, as measured data usually carries
                columns = {name: values.round(6) for name, values in columns.items()}
            columns.update({f"c{i}": (rng.integers(0, 8, n) + (y == i % 5)) % 8 for i in range(10)})
            columns["y"] = y
            pl.DataFrame(columns).write_csv(out, include_header=start == 0)


def measure(command: list[str]) -> tuple[float, float, float, str]:
    """(wall s, peak RSS MiB, CPU s: user + system, all threads, its standard error) of
    ``command``, run from a fresh interpreter that reports only this command's own resources."""
    wrapper = (
        "import resource, subprocess, sys, time;"
        "t = time.perf_counter();"
        "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL);"
        "e = time.perf_counter() - t;"
        "r = resource.getrusage(resource.RUSAGE_CHILDREN);"
        "print(e, r.ru_maxrss / 1024, r.ru_utime + r.ru_stime)"
    )
    out = subprocess.run(
        [sys.executable, "-c", wrapper, *command], check=True, capture_output=True, text=True
    )
    elapsed, peak, cpu = out.stdout.split()
    return float(elapsed), float(peak), float(cpu), out.stderr


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rows",
        type=int,
        default=20_000_000,
        help="rows of the CSV (default 20 million, about 2 GB)",
    )
    parser.add_argument(
        "--full-precision", action="store_true", help="floats with 17 significant digits"
    )
    parser.add_argument(
        "--write", action="store_true", help="record the table in benchmarks/README.md"
    )
    parser.add_argument("--runs", type=int, default=3, help="fresh processes per contender")
    parser.add_argument(
        "--published",
        type=int,
        metavar="COPIES",
        help="train on adult.data as published, repeated COPIES times (needs ../shared/data)",
    )
    parser.add_argument(
        "--model",
        metavar="NAME",
        help="nbayes fit --model NAME (a semi-naive structure), against Polars' scan only",
    )
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    nbayes = str(Path(sys.executable).with_name("nbayes"))
    model = OUT / "stream.nbm"
    ours_name = "nbayes fit (streaming, chunks of 16 MiB)"
    if args.published:
        if not ADULT.exists():
            sys.exit(f"--published needs {ADULT} (the shared data sets), which is absent.")
        suffix = "-published"
        data = OUT / f"adult-x{args.published}.data"
        if not data.exists():
            print(f"generating {data} ...", flush=True)
            generate_published(data, args.published)
        theirs_name = (
            "pandas.read_csv(chunksize=10^6) + sklearn GaussianNB and CategoricalNB.partial_fit"
        )
        polars_name = "Polars streaming scan, the largest value of every column (no model)"
        fit = ["--no-header", "--target", "15", "--missing", "?"]
        contenders = {
            ours_name: [nbayes, "fit", str(data), *fit, "-o", str(model)],
            theirs_name: [sys.executable, "-c", PUBLISHED_SKLEARN, str(data)],
            polars_name: [sys.executable, "-c", POLARS_PUBLISHED, str(data)],
        }
    else:
        suffix = "-full" if args.full_precision else ""
        data = OUT / f"stream-{args.rows}{suffix}.csv"
        if not data.exists():
            print(f"generating {data} ...", flush=True)
            generate(data, args.rows, args.full_precision)
        theirs_name = "pandas.read_csv(chunksize=10^6) + sklearn GaussianNB.partial_fit"
        polars_name = "Polars streaming scan, every column parsed and summed (no model)"
        contenders = {
            ours_name: [nbayes, "fit", str(data), "--target", "y", "-o", str(model)],
            theirs_name: [sys.executable, "-c", SKLEARN, str(data)],
            polars_name: [sys.executable, "-c", POLARS, str(data)],
        }
    textbook_name = "nbayes fit --calibration none (the textbook scores: no row sample)"
    if not args.model:  # what the default model's calibration costs a streamed fit
        contenders[textbook_name] = [*contenders[ours_name], "--calibration", "none"]
    if args.model:  # --verbose: each pass's seconds on standard error
        command = [*contenders[ours_name], "--model", args.model, "--verbose"]
        ours_name = f"nbayes fit --model {args.model} (streaming)"
        contenders = {ours_name: command, polars_name: contenders[polars_name]}
        suffix += f"-{args.model}" + (f"-x{args.published}" if args.published else "")
    size = data.stat().st_size
    load_start = os.getloadavg()[0]
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in contenders}
    cpu: dict[str, list[float]] = {name: [] for name in contenders}
    passes: list[list[tuple[str, float]]] = []  # per run of ours: (pass, seconds)
    scans: list[float] = []  # per run of Polars: the scan's own seconds, without start-up
    for _ in range(args.runs):  # interleaved, so that a change of load hits every contender
        for name, command in contenders.items():
            elapsed, peak, seconds, errors = measure(command)
            results[name].append((elapsed, peak))
            cpu[name].append(seconds)
            if name == ours_name and args.model:
                passes.append(_passes(errors))
            if name == polars_name:
                scans.append(float(re.findall(r"^scan: ([0-9.e-]+) s$", errors, re.M)[-1]))
            print(
                f"{name}: {elapsed:.1f} s, {size / 2**20 / elapsed:.0f} MB/s, "
                f"peak RSS {peak:.0f} MiB, CPU {seconds:.1f} s",
                flush=True,
            )
    load_end = os.getloadavg()[0]

    def median(name: str) -> float:
        return statistics.median(e for e, _ in results[name])

    def worst(name: str) -> float:
        return max(e for e, _ in results[name])

    def peak(name: str) -> float:
        return max(p for _, p in results[name])

    rows = [
        [
            name,
            f"{median(name):.1f} s ({worst(name):.1f} s)",
            f"{size / 2**20 / median(name):.0f} MB/s ({size / 2**20 / worst(name):.0f} MB/s)",
            f"{statistics.median(cpu[name]):.1f} s ({max(cpu[name]):.1f} s)",
            f"{peak(name):.0f} MiB",
        ]
        for name in results
    ]
    table = _report.markdown_table(
        [
            "contender",
            "time, median (worst)",
            "throughput, median (worst)",
            "CPU time, median (worst)",
            "peak RSS",
        ],
        rows,
    )
    peer = theirs_name in results
    ratio = median(theirs_name) / median(ours_name) if peer else np.nan
    ratio_worst = (
        min(t / o for (t, _), (o, _) in zip(results[theirs_name], results[ours_name], strict=True))
        if peer
        else np.nan
    )
    share = median(polars_name) / median(ours_name)
    share_worst = min(  # the runs are interleaved: each nbayes run against its Polars run
        t / o for (t, _), (o, _) in zip(results[polars_name], results[ours_name], strict=True)
    )
    # the CPU bound: nbayes cannot finish before its CPU time spread over every core it may
    # use, so its share of Polars' scan is at most Polars' time over that (reached only if
    # every core were busy from start to end)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    ours_cpu = statistics.median(cpu[ours_name])
    floor = ours_cpu / cores  # the least wall time that CPU can take
    bound = median(polars_name) / floor
    beyond = ours_cpu - statistics.median(cpu[polars_name])
    met_pandas = "met" if min(ratio, ratio_worst) >= 2 else "NOT met"
    met_polars = "met" if min(share, share_worst) >= 0.75 else "NOT met"
    if args.published:
        options = f" --published {args.published}"
        rows = args.published * sum(1 for line in ADULT.read_bytes().splitlines() if line.strip())
        described = (
            f"{rows:,} rows, {size / 2**30:.2f} GiB (adult.data as published — no header, a "
            "blank after every comma, '?' for missing — repeated without its blank line)"
        )
    else:
        options = " --full-precision" if args.full_precision else ""
        options += f" --rows {args.rows}" if args.rows != 20_000_000 else ""
        digits = "17 significant digits" if args.full_precision else "6 decimals"
        described = (
            f"{args.rows:,} rows, {size / 2**30:.2f} GiB (10 float columns with {digits}, 10 "
            "small-integer categorical columns, a 5-class target)"
        )
    options += f" --model {args.model}" if args.model else ""
    options += f" --runs {args.runs}" if args.runs != 3 else ""
    # the targets are those of the generated file; a published file's figures are reported
    targets = not args.published
    met_memory = "met" if peak(ours_name) <= 1024 else "NOT met"
    body = (
        f"Command: `python benchmarks/stream.py{options} --write` — {_report.machine()}. "
        f"File: {described}; MB/s is file MiB per second of wall "
        f"time; each contender runs in {args.runs} fresh processes, interleaved; 1-minute load "
        f"average {load_start:.1f} at the start and {load_end:.1f} at the end.\n\n"
        f"{table}\n\nnbayes is "
        + (
            f"{ratio:.2f}× (worst pair {ratio_worst:.2f}×) the throughput of pandas + "
            f"scikit-learn{f' (target ≥ 2×: {met_pandas})' if targets else ''}, "
            if peer
            else ""
        )
        + f"{share:.0%} (worst pair {share_worst:.0%}) of Polars' own streaming scan"
        f"{f' (target ≥ 75%: {met_polars})' if targets else ''}, "
        f"peak RSS {peak(ours_name):.0f} MiB"
        f"{f' (target ≤ 1024 MiB: {met_memory})' if targets else ''}.\n\n"
        f"CPU time (user + system, every thread): nbayes spends {beyond:.1f} s more than "
        "Polars' scan (its model, its start-up, and whatever its reading does beyond Polars' "
        "parse). Spread over "
        f"the {cores} core(s) this process may use, nbayes' "
        f"{ours_cpu:.1f} s of CPU cannot take less than "
        f"{floor:.1f} s of wall time: at most {bound:.0%} "
        "of Polars' scan, reached only if every core were busy from start to end."
    )
    if textbook_name in results:
        cost = median(ours_name) / median(textbook_name)
        cost_worst = max(  # interleaved: each calibrated run against its textbook run
            o / t for (o, _), (t, _) in zip(results[ours_name], results[textbook_name], strict=True)
        )
        met_cost = "met" if max(cost, cost_worst) <= 1.2 else "NOT met"
        body += (
            f"\n\nThe default model's calibration (its row sample, kept batch by batch, and the "
            f"calibration derived when the model is saved) makes the streamed fit {cost:.2f}× "
            f"(worst pair {cost_worst:.2f}×) the time of `--calibration none` "
            f"(target ≤ 1.2×: {met_cost}); peak RSS {peak(ours_name):.0f} against "
            f"{peak(textbook_name):.0f} MiB."
        )
    if args.model:
        body += _per_pass(passes, size, scans)
    print()
    _report.publish("stream" + suffix, body, args.write)


#: What the per-pass table of a multi-pass model shows.
PASSES = (
    "The table's pass reads the file (and spills its rows as read); the structure's first pass "
    "reads that spill (and spills the encoded rows, which its later passes read); the "
    "correction's first evaluation reads the encoded rows (and spills the rows it needs, which "
    "the later evaluations read). A pass's seconds are its own reading and work, and the scan's "
    "its own, neither process's start-up; each run is paired with the Polars scan run beside "
    "it, and the worst pair is shown beside the median."
)


def _passes(errors: str) -> list[tuple[str, float]]:
    """(pass, seconds) of each ``nbayes: PASS: SECONDS s`` line ``--verbose`` printed."""
    found = re.findall(r"^nbayes: (.+): ([0-9.]+) s$", errors, flags=re.MULTILINE)
    return [(name, float(seconds)) for name, seconds in found]


def _per_pass(passes: list[list[tuple[str, float]]], size: int, scans: list[float]) -> str:
    """Each pass's rate against Polars' scan of the same file (the target: ≥ 50% a pass), from
    the seconds ``--verbose`` reports (:data:`PASSES`)."""
    names = [name for name, _ in passes[0]]
    if any([name for name, _ in run] != names for run in passes):
        return "\n\nThe runs made different passes: " + "; ".join(
            ", ".join(name for name, _ in run) for run in passes
        )
    scan = statistics.median(scans)

    def row(name: str, seconds: list[float]) -> list[str]:
        """A pass's line: its seconds in each run, against the scan run beside it."""
        share = scan / statistics.median(seconds)
        worst = min(p / t for p, t in zip(scans, seconds, strict=True))
        return [
            name, f"{statistics.median(seconds):.2f} s ({max(seconds):.2f} s)",
            f"{size / 2**20 / statistics.median(seconds):.0f} MB/s",
            f"{share:.0%} ({worst:.0%})", "met" if min(share, worst) >= 0.5 else "NOT met",
        ]  # fmt: skip

    evaluations = [k for k, name in enumerate(names) if "evaluation" in name]
    rows = [
        row(names[k], [run[k][1] for run in passes])
        for k in range(len(names))
        if k not in evaluations[1:]
    ]
    if len(evaluations) > 1:  # the later evaluations, each reading the correction's spill
        later = [sum(run[k][1] for k in evaluations[1:]) / (len(evaluations) - 1) for run in passes]
        name = f"each of the {len(evaluations) - 1} later evaluations of the correction (mean)"
        rows.append(row(name, later))
    table = _report.markdown_table(
        ["pass", "seconds, median (worst)", "rate", "of Polars' scan, median (worst pair)",
         "target ≥ 50%"],
        rows,
    )  # fmt: skip
    total = statistics.median(sum(t for _, t in run) for run in passes)
    return (
        f"\n\nEach pass, from `--verbose` (the passes' sum: {total:.1f} s; Polars' scan "
        f"{scan:.2f} s, timed inside its process). {PASSES}\n\n{table}"
    )


if __name__ == "__main__":
    main()
