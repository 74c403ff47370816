"""Training and prediction on Dask collections, on one machine or a cluster (``nbayes[dask]``).

Naive Bayes statistics merge exactly (:func:`nbayes.merge`), so fitting on a cluster is a map and a
small reduce:

* **map**: every partition of a Dask DataFrame (or row block of a Dask Array) is fitted, on the
  worker that holds it, by a fresh copy of the estimator with the same parameters;
* **reduce**: the fitted models are merged ``split_every`` at a time in a tree, in partition
  order, so the client receives one small model. Only fitted statistics travel, never rows.

The result equals the single-machine fit on the same rows, to floating-point round-off in the
sums: class sets are unioned, categorical vocabularies are unioned in the order in which values
first appear (so counts line up as in one fit), and value sketches merge exactly, which gives the
same kernel densities and the same interval cut points (see :mod:`nbayes.families.sketch`).

Every estimator calls into this module by itself when it is given a Dask collection, so the usual
methods are the API::

    model = nbayes.NaiveBayes().fit(frame, target="label")    # frame: a dask.dataframe
    labels = model.predict(frame)                             # lazy: a Dask Series
    nbayes.GaussianNB().fit(X, y)                             # X, y: Dask Arrays

Computations run on the current Dask scheduler: a ``distributed.Client`` when one is active,
otherwise Dask's local threads. :func:`fit_files` fits a model on files through a running cluster
(the ``--scheduler`` option of ``nbayes fit``).

**Schema.** :class:`~nbayes.NaiveBayes` infers each column's family from the data; partitions
could disagree (an integer column with few distinct values in one partition, many in another). The
schema is therefore resolved once, on the client, before fitting, as a single-machine ``fit`` on
all the labelled rows would infer it (from the collection's dtypes where they decide it, otherwise
from one pass over just the columns that need data; see :mod:`._tables`). Naming such columns in
``families=`` skips that pass. Every partition is then encoded with the same families and types,
and so merges. ``NaiveBayes`` is reached only through its partition protocol (the "partition
protocol" block of :mod:`nbayes.model`), and its label rules are those of :mod:`nbayes.labels`.

**Inputs.** X is a Dask DataFrame or a 2-D Dask Array (dense or scipy.sparse blocks; column chunks
are joined). Labels are a Dask Series partitioned like X, a 1-D Dask Array chunked like X's rows,
or, for ``NaiveBayes``, ``target="column"``. ``sample_weight`` is a Dask Series or Array aligned
the same way; every partition needs a non-zero weight.

**Prediction** on a Dask collection is lazy: ``predict`` returns a Dask Series (Dask DataFrame
input, same index) or a 1-D Dask Array (Dask Array input); ``predict_proba``,
``predict_log_proba``, ``predict_joint_log_proba`` and ``predict_risk`` return a Dask DataFrame
with one column per class (named by ``classes_``) or a (n, K) Dask Array. The model is copied
when the collection is built, so refitting it later does not change the result. Warnings raised on
workers (e.g. unseen categories) stay in the workers' logs. ``score`` computes at once and
returns a float.

This package imports Dask only inside its functions, and ``import nbayes`` never imports it: the
estimators reach it through :func:`nbayes._dispatch.dask_aware`, which imports it on the first
Dask input. Its modules, one job each:

* :mod:`._partitions`: checking the collections, mapping a function over partitions, lazy
  prediction;
* :mod:`._reduce`: the partial results and their tree reduction;
* :mod:`._tables`: the one schema of a ``NaiveBayes`` across partitions;
* :mod:`._fitting`: ``fit`` and ``partial_fit`` (the per-partition fit and what follows the
  reduce);
* :mod:`._scoring`: ``score``;
* :mod:`._files`: :func:`fit_files`.
"""

from __future__ import annotations

from typing import Any

from ._files import fit_files
from ._fitting import fit, partial_fit
from ._partitions import Estimator, lazy
from ._reduce import SPLIT_EVERY
from ._scoring import score

__all__ = [
    "SPLIT_EVERY",
    "fit",
    "fit_files",
    "partial_fit",
    "predict",
    "predict_joint_log_proba",
    "predict_log_proba",
    "predict_proba",
    "predict_risk",
    "score",
]


def predict(model: Estimator, X: Any, *, priors: Any = None, loss: Any = None) -> Any:
    """Lazy ``model.predict(X)``: a Dask Series (DataFrame input) or 1-D Dask Array."""
    return lazy(model, X, "predict", {"priors": priors, "loss": loss})


def predict_proba(model: Estimator, X: Any, *, priors: Any = None) -> Any:
    """Lazy ``model.predict_proba(X)``: a Dask DataFrame (one column per class) or Dask Array."""
    return lazy(model, X, "predict_proba", {"priors": priors})


def predict_log_proba(model: Estimator, X: Any, *, priors: Any = None) -> Any:
    """Lazy ``model.predict_log_proba(X)`` (see :func:`predict_proba`)."""
    return lazy(model, X, "predict_log_proba", {"priors": priors})


def predict_joint_log_proba(model: Estimator, X: Any, *, priors: Any = None) -> Any:
    """Lazy ``model.predict_joint_log_proba(X)`` (see :func:`predict_proba`)."""
    return lazy(model, X, "predict_joint_log_proba", {"priors": priors})


def predict_risk(
    model: Estimator, X: Any, *, priors: Any = None, loss: Any = None
) -> Any:
    """Lazy ``model.predict_risk(X)`` (see :func:`predict_proba`)."""
    return lazy(model, X, "predict_risk", {"priors": priors, "loss": loss})
