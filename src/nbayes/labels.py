"""The class labels of a table: where they come from, which rows lack one, what they become.

A table model (:class:`~nbayes.NaiveBayes`) takes its labels in one of two ways:

* ``y``: the labels as values, one per row (any 1-D array-like, a pandas or Polars Series);
* ``target="column"`` (or ``y="column"``, a string): a column of the table, removed from the
  features.

The rules, the same for one table, a stream of batches and the partitions of a Dask collection
(:mod:`nbayes.distributed`):

1. exactly one source: both or neither is an error;
2. a label that is missing (None, NaN, null, or one of the model's ``missing_values``
   markers) drops its row, with one warning saying how many rows were dropped;
3. a fit needs at least one labelled row, and at least two classes;
4. labels are compared as the values NumPy holds; Python objects (strings) become NumPy strings.

Every message about labels is written once: here, or, for what needs no Polars (the warning for
dropped rows, mixed label kinds, no labelled row), in :mod:`nbayes._validation`, whose
:func:`~nbayes._validation.check_labels` gives :class:`~nbayes.TextClassifier` the same rule.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from ._validation import no_labelled_rows as no_labelled_rows  # one message, two layers
from ._validation import warn_dropped as warn_dropped
from .exceptions import caller_stacklevel, suggest_names
from .tables import apply_missing, to_frame


def no_labels(estimator: str = "NaiveBayes") -> str:
    """What a table model says when it is given no labels (its second sentence is the one
    scikit-learn's estimator checks look for)."""
    return (
        f"{estimator} needs the class labels: pass y, or target='column name' ({estimator} "
        "requires y to be passed, but the target y is None)."
    )


def label_source(
    y: Any, target: str | None, estimator: str = "NaiveBayes"
) -> tuple[Any, str | None]:
    """``(y, target)`` with exactly one of them set: a string ``y`` names the target column.

    Raises ValueError when both or neither are given."""
    if target is None and isinstance(y, str):
        return None, y
    if target is not None and y is not None:
        raise ValueError("give the class labels once: as y or as target='column', not both.")
    if target is None and y is None:
        raise ValueError(no_labels(estimator))
    return y, target


def check_target_column(target: str, columns: Sequence[str]) -> None:
    """Raise ValueError, listing the columns, when ``target`` is not one of them."""
    if target not in columns:
        raise ValueError(
            f"target column {target!r} is not in the data (columns: {list(columns)})"
            f"{suggest_names([target], columns)}"
        )


def split_target(
    frame: pl.DataFrame,
    y: Any,
    target: str | None,
    markers: Sequence[Any],
    estimator: str = "NaiveBayes",
    families: Any = None,
) -> tuple[pl.DataFrame, pl.Series]:
    """The feature columns and the labels (missing ones as null, ``markers`` applied).

    ``frame`` is the table as the model read it; ``y`` and ``target`` as :func:`label_source`
    takes them. Labels given as ``y`` must have one value per row of ``frame``. ``families``
    (the model's parameter) may not name the target column: the labels are no feature."""
    y, target = label_source(y, target, estimator)
    if target is not None:
        check_target_column(target, frame.columns)
        if isinstance(families, dict) and target in families:
            raise ValueError(
                f"families names the target column {target!r}: the class labels are not a "
                "feature and have no family (name the feature columns only)."
            )
        labels = frame.get_column(target)
        frame = frame[[name for name in frame.columns if name != target]]  # drop: slow if wide
    else:
        if not isinstance(y, pl.Series):
            y = column_vector_as_1d(y)
        labels = (
            y if isinstance(y, pl.Series) else to_frame({"y": y}, markers=markers).get_column("y")
        )
        if labels.len() != frame.height:
            raise ValueError(f"X has {frame.height} rows but y has {labels.len()} labels.")
    return frame, apply_missing(labels.to_frame("y"), markers).get_column("y")


@dataclass(frozen=True)
class LabelledRows:
    """The rows of a table that have a label: features, labels (no nulls) and weights, and
    ``missing``: per row of the table read, whether its label was missing and the row dropped
    (None when no row was)."""

    frame: pl.DataFrame
    labels: pl.Series
    weight: np.ndarray
    missing: np.ndarray | None = None

    @property
    def values(self) -> np.ndarray:
        """The labels as NumPy values (rule 4 of the module docstring)."""
        return label_values(self.labels)

    @property
    def dropped(self) -> int:
        """How many rows were dropped for a missing label."""
        return 0 if self.missing is None else int(self.missing.sum())

    @property
    def first_dropped(self) -> int:
        """The row of the first dropped row of the table read, -1 if none was."""
        return -1 if self.missing is None else int(np.argmax(self.missing))


def keep_labelled(frame: pl.DataFrame, labels: pl.Series, weight: np.ndarray) -> LabelledRows:
    """Drop the rows whose label is null (no warning: see :func:`warn_dropped`)."""
    missing = labels.is_null().to_numpy()
    if not missing.any():
        return LabelledRows(frame, labels, weight)
    keep = pl.Series(~missing)
    return LabelledRows(frame.filter(keep), labels.filter(keep), weight[~missing], missing)


def labelled_rows(
    frame: pl.DataFrame, labels: pl.Series, weight: np.ndarray, *, stacklevel: int
) -> LabelledRows:
    """The labelled rows of a table that has rows (else ``no_rows``), at least one of them
    labelled (else ``no_labelled_rows``), with one warning at ``stacklevel`` when rows were
    dropped: the rule of every table model's ``fit``."""
    from ._validation import no_rows

    if frame.height == 0:
        raise no_rows()
    rows = keep_labelled(frame, labels, weight)
    if rows.frame.height == 0:
        raise no_labelled_rows()
    if rows.dropped:
        warn_dropped(rows.dropped, rows.first_dropped, stacklevel=stacklevel + 1)
    return rows


#: Text labels with at most this many distinct values are converted once per distinct value.
FEW_LABELS = 1024


def label_values(labels: pl.Series) -> np.ndarray:
    """Labels as a NumPy array; Python objects (strings) become NumPy strings."""
    if labels.dtype == pl.String and labels.null_count() == 0:
        distinct = labels.unique()
        if distinct.len() <= FEW_LABELS:
            # each class's text made a NumPy string once, and gathered: a Python str per row
            # cost a batch of a stream 35 ms per 100,000 rows
            codes = labels.cast(pl.Enum(distinct)).to_physical().to_numpy()
            return distinct.to_numpy().astype(str)[codes]
    values = labels.to_numpy()
    if values.dtype == object:
        values = values.astype(str)
    return values


def class_indices(labels: pl.Series) -> tuple[np.ndarray, np.ndarray]:
    """(classes, cls): the distinct labels (no nulls), sorted, as NumPy values, and each row's
    position among them: ``np.unique(label_values(labels), return_inverse=True)``, real-valued
    labels refused (:func:`check_discrete`).

    Text labels are coded by Polars (their distinct values, then :func:`text_codes`) rather
    than turned into NumPy strings and sorted one by one: the same answer in about a tenth of
    the time (137,000 labels: 4 ms instead of 48). Where NumPy would take two texts for one
    (NumPy strings drop trailing NUL characters) the codes are refused and NumPy decides."""
    if labels.dtype == pl.String:
        classes = np.unique(label_values(labels.unique()))
        codes = text_codes(labels, classes)
        if codes is not None:
            return classes, codes
    values = label_values(labels)
    check_discrete(values)
    classes, cls = np.unique(values, return_inverse=True)
    return classes, cls.astype(np.intp).ravel()


def text_codes(labels: pl.Series, classes: np.ndarray) -> np.ndarray | None:
    """Each text label's position in the sorted NumPy strings ``classes`` (a cast to an Enum of
    them: a hash lookup per row), or None where some label is none of them."""
    if classes.dtype.kind != "U" or not classes.size:
        return None
    try:
        codes = labels.cast(pl.Enum(classes.tolist()))
    except pl.exceptions.InvalidOperationError:  # a label that is no class: a new one
        return None
    return codes.to_physical().to_numpy().astype(np.intp)


#: Text labels that usually stand for a missing label (pandas reads these as missing).
MISSING_LIKE = frozenset({"", "?", "na", "n/a", "nan", "null", "#n/a", "<na>"})


def check_classes(classes: np.ndarray, *, batches: bool = False) -> None:
    """Raise ValueError when the fitted ``classes`` are fewer than two (``batches``: the model
    has ``partial_fit``, which the message then points to for a part of the rows); warn about
    a class whose text usually marks a missing label ("NaN", "NA", "?", …), which is fitted as
    a class of its own unless the caller names it missing."""
    if classes.shape[0] < 2:
        label = classes[0].item() if isinstance(classes[0], np.generic) else classes[0]
        part = (
            " A part of the rows to be merged with others may hold one class: fit it with "
            "partial_fit, which accepts one."
            if batches
            else ""
        )
        raise ValueError(
            f"the target has a single class ({label!r}): 1 class, and a classifier needs at "
            f"least two.{part}"
        )
    warn_missing_like(classes)


def warn_missing_like(classes: np.ndarray) -> None:
    """Warn about a class whose text usually marks a missing label (:data:`MISSING_LIKE`)."""
    if np.asarray(classes).dtype.kind not in "UO":
        return
    texts = [c for c in np.asarray(classes).tolist() if isinstance(c, str)]
    marked = [c for c in texts if c.strip().casefold() in MISSING_LIKE]
    if marked:
        from .exceptions import caller_stacklevel

        warnings.warn(
            f"the target holds {marked[0]!r}, which usually marks a missing label, and it is "
            "fitted as a class of its own. If it means missing, name it missing "
            f"(missing_values={marked[0]!r}; --missing {marked[0]!r} on the command line) and "
            "those rows are dropped.",
            UserWarning,
            stacklevel=caller_stacklevel(),
        )


def column_vector_as_1d(y: Any) -> Any:
    """``y`` of shape (n, 1) as (n,), with scikit-learn's DataConversionWarning; else ``y``."""
    shape = getattr(y, "shape", None)
    if shape is None or len(shape) != 2 or shape[1] != 1:
        return y
    from .exceptions import DataConversionWarning, caller_stacklevel, sklearn_compatible

    warnings.warn(
        "A column-vector y was passed when a 1d array was expected. Please change the shape of "
        "y to (n_samples, ), for example using ravel().",
        sklearn_compatible(DataConversionWarning),
        stacklevel=caller_stacklevel(),
    )
    return np.asarray(y)[:, 0]


def check_discrete(values: np.ndarray) -> None:
    """Refuse real-valued labels (floats that are not whole numbers): naive Bayes is a
    classifier, and each distinct real value would become a class of its own."""
    if values.dtype.kind == "f":
        fractional = np.isfinite(values) & (values != np.round(values))
        if fractional.any():
            row = int(np.argmax(fractional))
            raise ValueError(
                f"Unknown label type: continuous (the label {values[row]!r} at row {row}). "
                "NaiveBayes is a classifier: the labels must be classes (strings, integers or "
                "booleans), not real-valued targets."
            )


def matches(predicted: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Per row, whether the decision equals the label, both compared as NumPy text."""
    return predicted.astype(str) == values.astype(str)


def unknown_labels(values: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """Per row, whether its label is none of ``classes``, both compared as text (as
    :func:`matches` compares decisions and labels)."""
    known = [str(c) for c in np.asarray(classes).tolist()]
    return ~np.isin(np.asarray(values).astype(str), known)


def scored_matches(
    predicted: np.ndarray, values: np.ndarray, classes: np.ndarray, estimator: str
) -> np.ndarray:
    """:func:`matches` for ``score``, with a warning where labels are not among the model's
    classes: those rows count as errors, and labels written otherwise than in the training
    data (adult's test file ends each with a period) would silently score 0."""
    text = values.astype(str)
    unknown_rows = unknown_labels(text, classes)
    if unknown_rows.any():
        unknown = np.unique(text[unknown_rows]).tolist()  # each once: all rows may be unknown
        warn_unknown_labels(estimator, int(unknown_rows.sum()), len(text), unknown, classes)
    return predicted.astype(str) == text


#: Distinct unknown labels a score keeps for its warning (a Dask partition's, and their union).
SHOWN_UNKNOWN = 20


def shown_unknown(labels: Iterable[str]) -> list[str]:
    """The first SHOWN_UNKNOWN of the distinct ``labels``, sorted: what a score's warning shows
    and judges the spelling hint by (a partition's and the union of partitions' alike)."""
    return sorted(set(labels))[:SHOWN_UNKNOWN]


def warn_unknown_labels(
    estimator: str, count: int, rows: int, unknown: Iterable[str], classes: np.ndarray
) -> None:
    """``score``'s warning that ``count`` of ``rows`` labels are none of ``classes`` (some of
    them ``unknown``) and count as errors, with how they differ from the classes where one
    way of writing explains every one (:func:`near_labels`)."""
    known = [str(c) for c in np.asarray(classes).tolist()]
    shown = shown_unknown(unknown)
    hint = near_labels(shown, known)
    if not hint and count == rows:
        hint = (
            f" Not one label is a class of the model ({known[:5]}): are these the labels "
            "of the class the model was fitted on?"
        )
    warnings.warn(
        f"{estimator}.score: {count:,} of {rows:,} rows have labels the model does not know "
        f"({shown[:5]}); they count as errors.{hint}",
        UserWarning,
        stacklevel=caller_stacklevel(),
    )


#: Ways a published test file may write the training file's labels: UCI adult's test file
#: ends each label with a period (">50K." for ">50K"), others pad or change case.
LABEL_SPELLINGS = {
    "a trailing period": lambda label: label.removesuffix("."),
    "surrounding spaces": str.strip,
    "letter case": str.casefold,
}


def near_labels(unknown: list[str], known: list[str]) -> str:
    """A hint where every unknown label is a known one but for one way of writing it (each
    unknown label then matches exactly one known label), else the empty string."""
    for what, spelling in LABEL_SPELLINGS.items():
        written = {}
        for label in known:
            written.setdefault(spelling(label), []).append(label)
        found = [written.get(spelling(label), []) for label in unknown]
        if all(len(match) == 1 for match in found):
            shown = zip(unknown[:3], found[:3], strict=True)
            pairs = ", ".join(f"{label!r} for {match[0]!r}" for label, match in shown)
            return (
                f" They differ from the model's classes only by {what} ({pairs}): write them "
                "as the training data does."
            )
    return ""
