"""The calibration of ``NaiveBayes``, derived from its statistics like every other parameter.

The statistics of a model with ``calibration="auto"`` include a bottom-k sample of its distinct
rows by content hash (:class:`~nbayes.row_sample.RowSample`), which merges exactly and does not
depend on the rows' order. The calibration is derived from the statistics and that sample when
a prediction first needs it, and again whenever they change:

* each sample row i, of fold f(i) = hash(i) mod 5, is scored by the model of all the rows but
  the sample's rows of fold f(i): with sufficient statistics that model is the full statistics
  minus the statistics of those rows (counts and sums subtract exactly; Gaussian moments by
  Chan's formula solved for the remaining part), keeping the choices the full model made (each
  column's family, λ and missing values);
* a temperature a and offsets b_c are then chosen and fitted on those held-out scores, each row
  weighted by the summed weight of its copies (:func:`nbayes.calibration.choose_calibration`).

So ``fit``, ``partial_fit`` in any batches, ``merge`` in any order, a Dask fit and ``nbayes fit``
streaming a file give one model, calibration included, and the calibration costs a few scorings
of a few thousand rows, whatever the table's size.
"""

from __future__ import annotations

import copy
import functools
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import polars as pl

from . import _threads
from .calibration import FOLDS, MIN_ROWS, Calibration, choose_calibration
from .families.auto import AutoColumns
from .families.sketch import SketchColumns
from .row_sample import RowSample
from .schema import ColumnSpec, column_kind, conform


class _Derived:
    """Where a model keeps its calibration once derived: one object per state of the
    statistics, filled in place, so that a prediction leaves the model's attributes as they
    were (scikit-learn's rule)."""

    def __init__(self, calibration: Any = None, *, derived: bool = False) -> None:
        self.calibration = calibration
        self.derived = derived


def forget_calibration(model: Any, calibration: Any = None, *, derived: bool = False) -> None:
    """The statistics changed: the calibration is derived again when next needed (or is
    ``calibration``, read from a model file, with ``derived``)."""
    model._derived = _Derived(calibration, derived=derived)


def numbers_as_read(specs: list[ColumnSpec]) -> set[str]:
    """The columns whose floats the row sample keeps as floats, not cast to the schema's type:
    the numeric columns of a family that models numbers, as their statistics read them (a
    column typed as integers by its first batch, or by Polars where pandas gives floats, may
    hold fractions in later rows: kept, not cut to integers)."""
    return {
        s.name
        for s in specs
        if s.family not in ("categorical", "ignore") and column_kind(s.dtype) in ("int", "float")
    }


class CalibratedScores:
    """The calibration of a table model (a mixin of :class:`~nbayes.NaiveBayes`, which
    provides the statistics ``_stats``, ``_encode``, ``_settings`` and the textbook scores)."""

    calibration: str | None

    def _sample_rows(self, frame: pl.DataFrame) -> pl.DataFrame | None:
        """A batch's rows as the sample keeps them (:func:`numbers_as_read`), or None when the
        model does not calibrate; called before the batch is counted, so that a batch the
        schema cannot read changes nothing."""
        if self.calibration != "auto":
            return None
        return conform(frame, self.schema_, as_read=numbers_as_read(self.schema_))

    def _start_sample(self, rows: pl.DataFrame | None) -> None:
        """An empty sample of the schema's columns, in the types of the first batch's rows
        (:meth:`_sample_rows`), when the model calibrates."""
        self._stats.sample = None if rows is None else RowSample.empty(rows)

    def _add_to_sample(
        self, rows: pl.DataFrame | None, labels: pl.Series, cls: np.ndarray, weight: np.ndarray
    ) -> None:
        """Offer a batch's labelled rows (:meth:`_sample_rows`) to the sample; the calibration
        is derived anew when next needed."""
        sample = self._stats.sample
        if sample is not None and rows is not None:
            sample.add(rows, labels, cls, weight)
        forget_calibration(self)

    @property
    def calibration_(self) -> Calibration | None:
        """The fitted calibration (None: the textbook scores, as ``calibration=None`` asks, or
        for a model whose rows give no sample to calibrate on)."""
        if not hasattr(self, "classes_"):
            raise AttributeError("calibration_: the model is not fitted.")
        slot = self._derived
        if not slot.derived:  # once after each change of the statistics
            slot.calibration, slot.derived = self._derive_calibration(), True
        return slot.calibration

    def _derive_calibration(self) -> Calibration | None:
        """Held-out scores of the sample rows, and the calibration they support (see the
        module docstring). None under 100 sample rows or 2 classes; no offsets when the class
        prior was given, and none for a class with fewer than two sample rows."""
        sample = self._stats.sample
        n_classes = len(self.classes_)
        if self.calibration != "auto" or sample is None or len(sample) < MIN_ROWS:
            return None
        present = np.bincount(sample.cls, minlength=n_classes)
        if np.count_nonzero(present) < 2:
            return None
        spec = self._prior_spec()
        # an offset per class where the prior is estimated, for the classes with two sample
        # rows or more (a class the sample barely holds would get an offset its rows cannot
        # judge: it keeps b = 0)
        offsets = (present >= 2) & (isinstance(spec, str) and spec in ("mle", "smoothed"))
        table = self._encode(sample.frame, fitting=False)
        folds = sample.folds(FOLDS)
        settings = self._settings()
        log_joint = np.zeros((len(sample), n_classes))
        for group in self._stats.groups:  # made once, before the folds' models share them
            group.frozen_choices(settings)

        def score(f: int) -> None:
            rows = np.flatnonzero(folds == f)
            if rows.size:
                part = table.take(rows)
                held = self._held_out(part, sample.cls[rows], sample.weight[rows], settings)
                log_joint[rows] = held._class_log_prior() + held._log_likelihood(part)

        # the folds' models share nothing they change: they are scored side by side when the
        # compiled work pays for a thread: the numeric columns' values, each a bisection among
        # its sketch's keys and a density (counted columns cost mostly Python, which threads
        # only take turns at)
        numeric = (AutoColumns, SketchColumns)
        columns = sum(len(g.names) for g in self._stats.groups if isinstance(g, numeric))
        work = 64 * len(sample) * columns
        with warnings.catch_warnings():  # a held-out model's small classes: expected here
            warnings.simplefilter("ignore")
            _threads.run_tasks([functools.partial(score, f) for f in range(FOLDS)], work)
        rows = f"{len(sample):,} sample rows held out by hash"
        return choose_calibration(
            log_joint, sample.cls, sample.weight, folds, offsets=offsets, rows=rows
        )

    def _held_out(self, table: Any, cls: np.ndarray, weight: np.ndarray, settings: Any) -> Any:
        """This model without the given (counted) rows, keeping its choices."""
        held = copy.copy(self)
        held.class_count_ = self.class_count_ - np.bincount(
            cls, weights=weight, minlength=len(self.classes_)
        )
        np.maximum(held.class_count_, 0.0, out=held.class_count_)
        held._stats = type(self._stats)(
            [
                group.without(block, cls, weight, settings)
                for group, block in zip(self._stats.groups, table.blocks, strict=True)
            ]
        )
        forget_calibration(held, None, derived=True)
        return held

    def _scores(
        self, prepared: Any, priors: Any, *, prior_for_dead: bool = True, joint: bool = False
    ) -> Iterator[tuple[int, int, np.ndarray, np.ndarray]]:
        """The textbook scores, calibrated (a · [log P(c) + Σ_j log P(x_j | c)] + b_c) when
        ``calibration_`` says so, except where the joint log-likelihood itself is asked for
        (``joint``: predict_joint_log_proba).

        A prior π' given per call (``priors``) moves the calibrated posterior by Bayes' rule,
        P'(c | x) ∝ P(c | x) · π'(c) / P(c), P(c) the model's own prior
        (:meth:`Calibration.under_prior <nbayes.calibration.Calibration.under_prior>`).
        Putting π' inside the bracket would scale its log by a and keep offsets b_c fitted to
        correct P(c), not π'."""
        fitted = None if joint else self.calibration_
        if fitted is None or fitted.is_identity:
            yield from super()._scores(prepared, priors, prior_for_dead=prior_for_dead)  # type: ignore[misc]
            return
        if priors is None:
            for start, stop, jll, lp in super()._scores(  # type: ignore[misc]
                prepared, None, prior_for_dead=prior_for_dead
            ):
                yield start, stop, fitted.apply(jll), lp
            return
        # Σ_j log P(x_j | c) from the scores under a prior the same for every class (so that
        # no class is made impossible before the exchange: Calibration.under_prior)
        own = self._class_log_prior()  # type: ignore[attr-defined]
        given = self._class_log_prior(priors)  # type: ignore[attr-defined]
        flat = -np.log(len(own))
        scores = super()._scores(prepared, "uniform", prior_for_dead=prior_for_dead)  # type: ignore[misc]
        for start, stop, jll, _ in scores:
            jll -= flat
            yield start, stop, fitted.under_prior(jll, own, given), given
