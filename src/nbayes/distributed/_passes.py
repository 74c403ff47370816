"""Models that read their data in several passes (:mod:`nbayes.semi_naive`'s k-DB with k ≥ 2 and
selective k-DB): every pass is a map over the partitions and a tree reduction.

* pass 1: every partition is fitted by a copy of the model (its first pass only: the pair
  counts), and the copies are merged in a tree, as for any estimator;
* pass p ≥ 2: the client's model after the previous passes is sent once to every worker; each
  partition fills the pass's empty statistics (``model._pass_statistics(p)``, filled by
  ``model._pass_accumulate``: the parent counts of the learnt structure, or leave-one-out
  losses), the partitions' statistics are added in a tree (their ``add``), and the model takes
  the total (``model._pass_finish``).

The model says what a pass counts; this module only maps and reduces, so the result equals the
model's own ``fit`` on the computed rows (to round-off in sums).
"""

from __future__ import annotations

import copy
from typing import Any

from .._pass_log import logged_pass
from .._validation import check_target
from ._partitions import collections, fresh, map_partitions, model_handle
from ._reduce import Partial, combine_partials, tree_reduce


def fit_in_passes(model: Any, X: Any, y: Any, sample_weight: Any, split_every: int) -> Any:
    """A new fitted copy of ``model`` (parameters only are read from it)."""
    if y is None:
        check_target(None, 0, estimator=model._name)  # raises scikit-learn's message
    kind, X, extras = collections(model, X, y, sample_weight, table=False)
    with logged_pass(f"{model._name}'s pass 1 of {model.passes}, on Dask"):
        leaves = map_partitions(_first_pass, kind, X, extras, template=fresh(model))
        fitted = tree_reduce(leaves, combine_partials, split_every, "nbayes-pass-1").model
    if fitted is None:
        raise ValueError(
            f"{model._name}: Found array with 0 sample(s) (shape={X.shape}) while a minimum of 1 "
            "is required."
        )
    for number in range(2, model.passes + 1):
        with logged_pass(f"{model._name}'s pass {number} of {model.passes}, on Dask"):
            leaves = map_partitions(
                _later_pass, kind, X, extras, template=model_handle(fitted), number=number
            )
            total = tree_reduce(leaves, add_statistics, split_every, f"nbayes-pass-{number}")
            fitted._pass_finish(number, total)
    return fitted


def _first_pass(X: Any, y: Any, *weight: Any, template: Any) -> Partial:
    if X.shape[0] == 0:
        return Partial()
    model = copy.deepcopy(template)
    model._fit_first_pass(X, y, weight[0] if weight else None)
    return Partial(model)


def _later_pass(X: Any, y: Any, *weight: Any, template: Any, number: int) -> Any:
    statistics = template._pass_statistics(number)
    if X.shape[0]:
        batch = template._pass_batch(X, y, weight[0] if weight else None)
        template._pass_accumulate(number, statistics, *batch)
    return statistics


def add_statistics(*parts: Any) -> Any:
    """The sum of the partitions' statistics (inputs unchanged, as Dask requires)."""
    total = copy.deepcopy(parts[0])
    for part in parts[1:]:
        total.add(part)
    return total
