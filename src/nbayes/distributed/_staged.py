"""Fitting a table model of several passes (:class:`~nbayes.semi_naive.SemiNaiveBayes`) on a
Dask DataFrame: every pass is a map over the partitions and a tree reduction of its statistics,
so only statistics travel and the result is the model ``fit`` gives on all the rows.

* the schema: resolved once on the client, as for ``NaiveBayes`` (:mod:`._tables`);
* the table pass: each partition's classes, vocabularies and numeric value sketches
  (``FirstPass``), merged in partition order; the client then sorts the vocabularies (as one
  fit does, so the codes do not depend on the partitions) and derives the cut points;
* the structure's pass 1: each partition, coded with those vocabularies and cut points, fills a
  copy of the structure (its pair counts), and the copies merge as models do;
* passes 2, 3, …: as :mod:`._passes` runs them, each partition coded by the table first;
* the discriminative correction (``discriminative=True``): each of its passes (a value and
  gradient of the conditional likelihood, :mod:`nbayes.semi_naive.discriminative`) a map over
  the partitions and a tree sum, the client stepping L-BFGS between them.

The model is reached only through its partition protocol (the "partition protocol" block of
:mod:`nbayes.semi_naive.table_passes`).
"""

from __future__ import annotations

import copy
import functools
import itertools
from typing import Any

from .._pass_log import logged_pass
from ..labels import no_labelled_rows, warn_dropped
from ._partitions import map_partitions, model_handle, table_inputs
from ._passes import add_statistics
from ._reduce import Partial, combine_partials, tree_reduce
from ._tables import resolve_schema


def is_staged_table_model(model: Any) -> bool:
    """Whether ``model`` reads tables through the staged partition protocol."""
    return callable(getattr(model, "_finish_first_pass", None))


def fit_staged_table(
    model: Any, X: Any, y: Any, sample_weight: Any, target: str | None, split_every: int
) -> Any:
    """A new table model fitted on the Dask collection (``model`` gives the parameters)."""
    X, extras, target, has_y, has_w = table_inputs(model, X, y, sample_weight, target)
    table = model._partition_template(reset=True)
    schema = resolve_schema(
        table, X, extras, target, has_y, require_observed=False, split_every=split_every
    )
    columns = [c for c in map(str, X.columns) if c != target]
    table._start_schema(schema, columns)
    options = {"target": target, "has_y": has_y, "has_w": has_w}
    with logged_pass("the table's pass (types, values, numeric sketches), on Dask"):
        leaves = map_partitions(_table_pass, "frame", X, extras, table=table, **options)
        first, dropped = tree_reduce(leaves, _merge_table_passes, split_every, "nbayes-pass-0")
    if dropped:
        warn_dropped(dropped, stacklevel=5)
    if first is None:
        raise no_labelled_rows()
    table._finish_first_pass(first)
    handle = model_handle(table)
    unfitted = table._new_model()  # (its name and passes, for the log)
    with logged_pass(f"{unfitted._name}'s pass 1 of {unfitted.passes}, on Dask"):
        leaves = map_partitions(_structure_pass, "frame", X, extras, table=handle, **options)
        structure = tree_reduce(leaves, combine_partials, split_every, "nbayes-pass-1").model
    for number in range(2, structure.passes + 1):
        with logged_pass(f"{structure._name}'s pass {number} of {structure.passes}, on Dask"):
            leaves = map_partitions(
                _later_pass, "frame", X, extras, table=handle, structure=model_handle(structure),
                number=number, **options,
            )  # fmt: skip
            total = tree_reduce(leaves, add_statistics, split_every, f"nbayes-pass-{number}")
            structure._pass_finish(number, total)
    table.model_ = structure
    if table.discriminative:
        handle = model_handle(table)
        evaluations = iter(range(1 << 62))  # names the reductions apart
        shown = {False: itertools.count(1), True: itertools.count(1)}  # as a local fit logs
        fixed = table._fixed_point()  # the partitions' sums are integers: added in any order

        def sums(theta: Any, everything: bool = False) -> tuple[Any, Any]:
            evaluation = next(evaluations)
            what = "the correction's refit" if everything else "the correction's search"
            with logged_pass(f"{what}, evaluation {next(shown[everything])}, on Dask"):
                leaves = map_partitions(
                    _correction_pass, "frame", X, extras, table=handle, theta=theta,
                    everything=everything, **options,
                )  # fmt: skip
                name = f"nbayes-correction-{evaluation}"
                return fixed.values(*tree_reduce(leaves, _add_sums, split_every, name))

        refit = functools.partial(sums, everything=True) if table.refit else None
        table._fit_correction(sums, refit)
    return table


def _correction_pass(
    X: Any, *extras: Any, table: Any, theta: Any, everything: bool, **options: Any
) -> tuple[Any, Any]:
    """A partition's (totals, gradient) of the correction at θ, as integers (``everything``: the
    refit's)."""
    rows = _rows(X, extras, table, **options)
    return table._correction_partition(rows.frame, rows.values, rows.weight, theta, everything)


def _add_sums(*parts: tuple[Any, Any]) -> tuple[Any, Any]:
    """The partitions' (totals, gradient) added (integers: the same in any order; inputs
    unchanged)."""
    totals, gradient = (part.copy() for part in parts[0])
    for more_totals, more_gradient in parts[1:]:
        totals += more_totals
        gradient += more_gradient
    return totals, gradient


def _rows(X: Any, extras: tuple, table: Any, target: str | None, has_y: bool, has_w: bool):
    y = extras[0] if has_y else None
    w = extras[int(has_y)] if has_w else None
    return table._read_partition(X, y, target=target, sample_weight=w)


def _table_pass(X: Any, *extras: Any, table: Any, **options: Any) -> tuple[Any, int]:
    """A partition's table statistics (None without labelled rows) and its dropped rows."""
    rows = _rows(X, extras, table, **options)
    if rows.frame.height == 0:
        return None, rows.dropped
    first = table._first_pass()
    first.add(rows.frame, rows.values, rows.weight)
    return first, rows.dropped


def _merge_table_passes(*parts: tuple[Any, int]) -> tuple[Any, int]:
    """The partitions' table statistics merged in order (inputs unchanged, as Dask requires)."""
    total, dropped = None, 0
    for first, count in parts:
        dropped += count
        if first is None:
            continue
        if total is None:
            total = copy.deepcopy(first)
        else:
            total.merge(first)
    return total, dropped


def _structure_pass(X: Any, *extras: Any, table: Any, **options: Any) -> Partial:
    """A partition's pass 1 of the structure: a copy of it fitted on the partition's codes."""
    rows = _rows(X, extras, table, **options)
    if rows.frame.height == 0:
        return Partial()
    structure = table._new_model()
    structure._fit_first_pass(*table._encode_rows(rows))
    return Partial(structure)


def _later_pass(
    X: Any, *extras: Any, table: Any, structure: Any, number: int, **options: Any
) -> Any:
    statistics = structure._pass_statistics(number)
    rows = _rows(X, extras, table, **options)
    if rows.frame.height:
        batch = structure._pass_batch(*table._encode_rows(rows))
        structure._pass_accumulate(number, statistics, *batch)
    return statistics
