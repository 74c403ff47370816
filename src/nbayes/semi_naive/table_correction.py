"""The discriminative correction of a :class:`~nbayes.semi_naive.SemiNaiveBayes`
(:class:`TableCorrection`): fitted after the structure's passes when ``discriminative=True``
(:mod:`nbayes.semi_naive.discriminative`), added to the structure's scores when predicting,
refused where it could not equal one fit on all the rows (``partial_fit``, ``merge``)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from ..row_sample import row_hashes
from .discriminative import (
    Correction,
    CorrectionRows,
    FixedPoint,
    add_batch,
    batch_sums,
    fit_correction,
    held_out_rows,
    no_edges,
    slot_bases,
    slots_of,
)
from .spill import compact_slots, replayed

if TYPE_CHECKING:
    from .classifier import Encoded
    from .table import SemiNaiveBayes


class TableCorrection:
    """Fitting and applying ``correction_`` (module docstring)."""

    def _correction_rows(
        self,
        frame: pl.DataFrame | None,
        labels: np.ndarray,
        weight: np.ndarray,
        encoded: Encoded | None = None,
        held_out: np.ndarray | None = None,
    ) -> CorrectionRows:
        """A labelled batch as the correction reads it (the structure fitted); ``encoded`` and
        ``held_out`` (each row's flag): the frame's codes and flags, when they are at hand (the
        frame is then read only for the text columns' terms: None where there are none)."""
        if encoded is None:
            encoded = self._encode(frame, fitting=False)
        codes = encoded.codes
        offsets, _ = self._joint_of(frame, encoded, None, corrected=False)
        classes = self.model_.classes_
        cls = np.searchsorted(classes, labels)
        if held_out is None:
            held_out = held_out_rows(self._content_hashes(frame, cls, classes))
        offsets = np.array(offsets, dtype=np.float64)  # a copy of its own, C order
        shifts, counted_own = getattr(self.model_, "_held_out_shifts", None), None
        if shifts is not None and held_out.any():
            # the held-out rows judge the iterations: scored as rows the counts never held
            rows = np.flatnonzero(held_out)
            counted_own = offsets[np.arange(offsets.shape[0]), cls]  # a copy
            offsets[rows, cls[rows]] += shifts(codes[rows], cls[rows], weight[rows])
        return CorrectionRows(
            slots_of(codes, self.model_.n_values_, self._correction_edges()),
            offsets,
            cls.astype(np.int64),
            np.ascontiguousarray(weight, dtype=np.float64),
            held_out,
            counted_own,
        )

    def _content_hashes(
        self, frame: pl.DataFrame, cls: np.ndarray, classes: np.ndarray
    ) -> np.ndarray:
        """Each row's content hash over the structure's columns in the schema's types and its
        label (class index ``cls`` in ``classes``, the model's), so that the held-out rows do
        not depend on the order or the batches the rows come in."""
        columns = [
            pl.col(s.name).cast(s.dtype if s.family == "categorical" else pl.Float64)
            for s in self.schema_
        ]
        # the labels as the classes' values: K conversions to Polars, not one per row
        labels = pl.Series(classes).gather(cls)
        return row_hashes(frame.select(columns), labels, cls)

    def _fit_correction_over(
        self,
        source: Callable[[], Iterable[tuple[pl.DataFrame, np.ndarray, np.ndarray]]],
        *,
        in_memory: bool,
        encoded: list[tuple[Encoded, np.ndarray, np.ndarray]] | None = None,
        coded: Callable[[], Iterable[tuple]] | None = None,
    ) -> None:
        """Fit ``correction_`` over ``source()``'s labelled frames: prepared once when they are
        in memory (``encoded``: their codes, batch by batch, made by the structure's passes);
        otherwise read once — from ``coded()`` where given (the structure's encoded rows, each
        with its held-out flag), else from ``source()`` — and spilled to a temporary folder
        that the later passes read (:mod:`nbayes.semi_naive.spill`), or read once per pass
        where it cannot be written."""

        def batches() -> Iterable[CorrectionRows]:
            if coded is not None:
                for codes, labels, weight, held in coded():
                    yield self._correction_rows(None, labels, weight, codes, held)
                return
            for frame, labels, weight in source():
                yield self._correction_rows(frame, labels, weight)

        if in_memory:
            prepared = [
                self._correction_rows(frame, labels, weight, codes)
                for (frame, labels, weight), (codes, _, _) in zip(source(), encoded, strict=True)
            ]
            self._fit_correction(*self._sums(lambda: prepared))
            return
        with replayed(batches, _packed, _unpacked, "nbayes-correction-") as again:
            self._fit_correction(*self._sums(again))

    def _sums(self, batches: Callable[[], Iterable[CorrectionRows]]) -> tuple[Callable, ...]:
        """The search's passes over ``batches``, and with ``refit`` the refit's over every row."""
        shape, fixed = self._correction_shape(), self._fixed_point()
        if not self.refit:
            return (batch_sums(batches, *shape, fixed),)
        return (
            batch_sums(batches, *shape, fixed),
            batch_sums(batches, *shape, fixed, everything=True),
        )

    def _correction_partition(
        self,
        frame: pl.DataFrame,
        labels: np.ndarray,
        weight: np.ndarray,
        theta: np.ndarray,
        everything: bool = False,
    ) -> tuple[np.ndarray, np.ndarray]:
        """One piece's (totals, gradient) at θ, as integers (a Dask partition's share of a
        pass, which :meth:`_fixed_point` turns into numbers once added up; with ``everything``,
        of the refit's)."""
        fixed = self._fixed_point()
        totals, gradient = fixed.empty(theta.shape[0])
        if frame.height:
            rows = self._correction_rows(frame, labels, weight)
            add_batch(rows, theta, totals, gradient, fixed, everything=everything)
        return totals, gradient

    def _fixed_point(self) -> FixedPoint:
        """The integers a pass's sums are kept in, from the rows' total weight."""
        return FixedPoint.for_weight(float(np.sum(self.model_.class_count_)))

    def _correction_edges(self) -> np.ndarray:
        """The structure's edges (child, parent): each attribute with each parent it uses in
        TAN and k-DB (selective k-DB: the attributes and depth it selected; an ensemble: its
        members' edges, each once); none for the other structures, whose attributes have no
        parents of their own."""
        model = self.model_
        return model._used_edges() if hasattr(model, "_used_edges") else no_edges()

    def _correction_shape(self) -> tuple[int, int]:
        n_slots = slot_bases(self.model_.n_values_, self._correction_edges())[-1]
        return int(n_slots), len(self.model_.classes_)

    def _fit_correction(self, sums: Callable, refit: Callable | None = None) -> None:
        self.correction_ = fit_correction(
            sums, *self._correction_shape(), self._correction_edges(), refit
        )

    def _corrected(self) -> Correction | None:
        """The correction when it changes the scores (held-out rows chose ≥ 1 iteration)."""
        correction = getattr(self, "correction_", None)
        return correction if correction is not None and correction.active else None

    def _correction_scores(self, codes: np.ndarray) -> np.ndarray:
        return self.correction_.scores(codes, self.model_.n_values_)

    def _correction_terms(self, codes: np.ndarray) -> np.ndarray:
        return self.correction_.terms(codes, self.model_.n_values_)

    def _describe_correction(self) -> list[str]:
        correction = getattr(self, "correction_", None)
        if correction is None:
            return []
        losses = correction.held_out_losses
        if not correction.active:
            return [
                "discriminative correction: none (no iteration beat the generative model on the "
                "held-out rows by one standard error)"
                if losses.size
                else "discriminative correction: none (too few rows to hold some out)"
            ]
        edges = len(correction.edges)
        over = f" and the value pairs of {edges} edge{'s' if edges != 1 else ''}" if edges else ""
        again = ", then learnt again on every row for as many" if correction.refitted else ""
        return [
            f"discriminative correction: weights on the attribute values{over}, "
            f"{correction.iterations} L-BFGS iterations chosen on held-out rows (their log loss "
            f"{losses[0]:.4f} generative, {losses[correction.iterations]:.4f} corrected){again}"
        ]

    def _refuse_correction(
        self: SemiNaiveBayes, action: str, error: type[Exception] = ValueError
    ) -> None:
        """Raise ``error`` naming why, when the model has (or will have) a correction."""
        if getattr(self, "discriminative", False):
            raise error(
                f"{action}: the discriminative correction (discriminative=True) is learnt from "
                "all rows' conditional likelihood, which batches or models fitted apart cannot "
                "add up to, so fit by the staged protocol instead (fit_passes over a re-readable "
                "source, or fit on a Dask collection: their passes merge), or use "
                "discriminative=False."
            )

    def _refuse_missing_choice(
        self: SemiNaiveBayes, action: str, error: type[Exception] = ValueError
    ) -> None:
        """Raise ``error`` unless every column's missing values are skipped by the settings:
        "auto" chooses from all rows' counts, and "category" needs the columns' values known
        before anything is counted."""
        # a dict leaves the columns it does not name to the default, "category"
        if self.missing != "skip":
            raise error(
                f"{action}: with missing={self.missing!r} what a missing value means is chosen "
                "from all rows (or needs every value known first), which batches or models "
                "fitted apart cannot give, so fit by the staged protocol instead (fit_passes "
                "over a re-readable source, or fit on a Dask collection), or use missing='skip'."
            )


def _packed(rows: CorrectionRows) -> list[np.ndarray]:
    own = np.zeros(0) if rows.counted_own is None else rows.counted_own  # empty: none
    return [
        compact_slots(rows.slots), rows.offsets, rows.cls, rows.weight, rows.held_out,
        rows.generative_loss, own,
    ]  # fmt: skip


def _unpacked(arrays: list[np.ndarray]) -> CorrectionRows:
    """The rows as spilled: their slots as stored (the pass reads 32-bit ones as they are), and
    the held-out rows' generative losses computed once, by the pass that spilled them."""
    slots, offsets, cls, weight, held_out, generative_loss, own = arrays
    rows = CorrectionRows(slots, offsets, cls, weight, held_out, own if own.size else None)
    rows.generative_loss = generative_loss  # the cached property's value, as computed then
    return rows
