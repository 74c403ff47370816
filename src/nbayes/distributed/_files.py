"""Fitting on Parquet or CSV files through a Dask cluster (``nbayes fit --scheduler``)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..exceptions import MissingDependencyError
from ..tables import missing_markers
from ._fitting import fit
from ._partitions import Estimator, is_table_model
from ._reduce import SPLIT_EVERY

PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")
CSV_SUFFIXES = (".csv", ".csv.gz", ".csv.bz2", ".csv.xz", ".csv.zst", ".tsv", ".tsv.gz", ".txt")


def guess_format(paths: str | Path | Sequence[str | Path]) -> str:
    """ "parquet" or "csv", from the first path's name (a local directory: Parquet)."""
    first = str(paths if isinstance(paths, (str, Path)) else next(iter(paths), "")).rstrip("/")
    lowered = first.lower()
    if lowered.endswith(PARQUET_SUFFIXES) or ("://" not in first and Path(first).is_dir()):
        return "parquet"
    if lowered.endswith(CSV_SUFFIXES):
        return "csv"
    raise ValueError(
        f"cannot tell the format of {first!r} from its name; pass file_format='parquet' or 'csv'."
    )


def fit_files(
    model: Estimator,
    paths: str | Path | Sequence[str | Path],
    target: str,
    scheduler_address: str | None = None,
    *,
    file_format: str | None = None,
    split_every: int = SPLIT_EVERY,
    strip: bool = False,
    **read_options: Any,
) -> Estimator:
    """Fit ``model`` (a :class:`~nbayes.NaiveBayes`) on Parquet or CSV files with Dask.

    ``paths``: a file, a glob, a directory of Parquet files, or a list; on a multi-machine
    cluster every worker must reach them (shared storage, or URLs such as ``s3://…`` with
    ``storage_options=``). ``target``: the label column. ``scheduler_address``: a running Dask
    scheduler (``tcp://host:8786``), connected to for this fit only; None uses the current
    scheduler (a ``distributed.Client`` if one is active, else local threads). ``read_options``
    go to ``dask.dataframe.read_parquet`` or ``read_csv`` (for CSV the model's ``missing_values``
    are passed as ``na_values`` unless given). ``strip``: for CSV, strip the whitespace around
    text values, then read an empty value or one of the ``na_values`` as missing, as
    ``nbayes fit`` reads a file (``' ?'`` is ``'?'``). Returns ``model``, fitted.

    Raises :class:`~nbayes.exceptions.MissingDependencyError` (an ImportError), saying what to
    install, when Dask (or ``distributed``, for a ``scheduler_address``) is not installed.
    """
    try:
        import dask.dataframe as dd

        if scheduler_address is not None:
            import distributed  # noqa: F401
    except ImportError as exc:
        raise MissingDependencyError(
            f"fitting with Dask needs the optional dependencies: pip install 'nbayes[dask]' "
            f"({exc})."
        ) from exc

    fmt = file_format or guess_format(paths)
    files = [str(p) for p in paths] if not isinstance(paths, (str, Path)) else str(paths)
    if fmt == "parquet":
        frame = dd.read_parquet(files, **read_options)
    elif fmt == "csv":
        markers = missing_markers(getattr(model, "missing_values", None))
        if markers and "na_values" not in read_options:
            read_options["na_values"] = markers
        lowered = (files if isinstance(files, str) else files[0]).lower()
        if ".tsv" in lowered and "sep" not in read_options:
            read_options["sep"] = "\t"
        frame = dd.read_csv(files, **read_options)
        if strip:
            markers = [str(m) for m in read_options.get("na_values") or []]
            frame = frame.map_partitions(_stripped, ["", *markers], meta=frame._meta)
    else:
        raise ValueError(f"file_format must be 'parquet' or 'csv', got {fmt!r}.")
    if is_table_model(model):
        inputs: dict[str, Any] = {"X": frame, "target": target}
    else:
        inputs = {"X": frame.drop(columns=[target]), "y": frame[target]}
    if scheduler_address is None:
        return fit(model, **inputs, split_every=split_every)
    import dask
    from distributed import Client

    # this fit only: a Client made default here would outlive the call for other code
    with Client(scheduler_address, set_as_default=False) as client:
        with dask.config.set(scheduler=client):
            return fit(model, **inputs, split_every=split_every)


def _stripped(frame: Any, markers: list[str]) -> Any:
    """A pandas partition with the whitespace around its text values stripped and the values
    then equal to a marker made missing."""
    import pandas as pd

    frame = frame.copy()
    for name in frame.columns:
        values = frame[name]
        if pd.api.types.is_string_dtype(values.dtype) and not pd.api.types.is_bool_dtype(
            values.dtype
        ):
            values = values.str.strip()
            frame[name] = values.mask(values.isin(markers))
    return frame
