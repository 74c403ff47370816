"""The model a command fits or uses, built from the model options and the data's first rows.

A table gets a :class:`~nbayes.NaiveBayes`; documents, or a table whose only feature is free
text, get a :class:`~nbayes.TextClassifier` (the figures of the Python API: 20 Newsgroups,
SMS). :class:`Learner` gives both one interface over table batches.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from ..model import NaiveBayes
from ..readers import DataError
from ..schema import (
    IDENTIFIER_DISTINCT_SHARE,
    StringSummary,
    column_kind,
    few_integers,
    present,
    string_family,
)
from ..text import TextClassifier
from ._args import UsageError
from ._reading import DOCUMENT_LABEL, column, is_documents

#: Free text: a column of strings whose values have at least this many words (median) …
TEXT_WORDS = 4
#: … and are mostly distinct (distinct values / values).
TEXT_DISTINCT = 0.5
#: A categorical column with more distinct values than this fraction of its values (and at
#: least ``ID_MIN_ROWS`` values) is probably an identifier or numbers read as text.
ID_DISTINCT = 0.5
ID_MIN_ROWS = 50


@dataclass
class Learner:
    """A model and how it reads a table: ``target`` (the label column) and ``text`` (the one
    column a TextClassifier reads; None for a NaiveBayes, which reads every other column)."""

    model: Any
    target: str | None
    text: str | None = None
    #: over the labelled rows of every batch fitted so far (:meth:`summarise_columns`), the
    #: summaries of the string columns and the distinct values (up to ``max_int_categories``
    #: + 1) of the numeric columns whose families the first batch chose
    strings: dict[str, StringSummary] = field(default_factory=dict)
    integers: dict[str, set] = field(default_factory=dict)
    #: each feature column's values in the labelled rows of every batch fitted so far
    observed: dict[str, int] = field(default_factory=dict)

    @property
    def classes_(self) -> np.ndarray:
        return self.model.classes_

    def features(self, frame: pl.DataFrame) -> Any:
        if self.text is None:
            return frame
        if self.text not in frame.columns:
            raise DataError(
                "data", f"there is no text column {self.text!r}; the columns are {frame.columns}."
            )
        return frame.get_column(self.text)

    def labelled(self, frame: pl.DataFrame) -> pl.DataFrame:
        """The rows of ``frame`` whose label is present (``frame`` itself when all are)."""
        label = frame.get_column(self.target)
        return frame if label.null_count() == 0 else frame.filter(label.is_not_null())

    def partial_fit(self, frame: pl.DataFrame) -> None:
        """Add the rows of ``frame`` (their statistics) to the model."""
        if self.text is None:
            self.model.partial_fit(frame, target=self.target)
            return
        frame = self.labelled(frame)
        if frame.height == 0:
            return
        labels = frame.get_column(self.target).to_numpy()
        texts = frame.get_column(self.text)
        if not hasattr(self.model, "model_"):
            self.model.fit(texts, labels)
        elif np.isin(labels, self.model.classes_).all():
            self.model.partial_fit(texts, labels)
        else:  # a class not seen yet: fit this batch alone and merge (exact, as one fit)
            self.model.merge(TextClassifier(**self.model.get_params(deep=False)).fit(texts, labels))

    def unobserved(self) -> list[str]:
        """The feature columns with no value in any labelled row summarised so far (but those
        the user leaves out: family 'ignore')."""
        named = getattr(self.model, "families", None) or {}
        return [
            name
            for name, count in self.observed.items()
            if count == 0 and named.get(name) != "ignore"
        ]

    def summarise_columns(self, frame: pl.DataFrame) -> None:
        """Add a batch's labelled rows to the summaries of the columns: each column's count of
        values (:meth:`unobserved`) and, for the columns whose family a table
        model infers from the data (not named by the user), each string column's
        (:class:`~nbayes.schema.StringSummary`), and, where integers are not left to
        ``continuous="auto"``, each numeric column's distinct values up to
        ``max_int_categories`` + 1 (the rule of :func:`nbayes.schema.infer_schema`)."""
        if self.text is not None:
            return
        labelled = self.labelled(frame)
        for name, missing in labelled.null_count().row(0, named=True).items():
            if name != self.target:  # (null counts are kept by the columns: fast)
                self.observed[name] = self.observed.get(name, 0) + labelled.height - missing
        named = set(getattr(self.model, "families", None) or {})
        counted = getattr(self.model, "continuous", "auto") != "auto" and not getattr(
            self.model, "counts_numbers_itself", False
        )
        cap = int(getattr(self.model, "max_int_categories", 0)) + 1
        strings = []
        for name, dtype in frame.schema.items():
            kind = column_kind(dtype)
            if name == self.target or name in named or kind not in ("string", "int", "float"):
                continue
            if kind == "string":
                strings.append(name)
                continue
            if counted and len(self.integers.get(name, ())) < cap:
                seen = self.integers.setdefault(name, set())
                seen.update(present(labelled.get_column(name)).unique().head(cap).to_list())
        distinct = StringSummary.distinct_values(labelled, strings)
        for name in strings:
            known = self.strings.get(name, StringSummary.empty())
            observed = labelled.height - labelled.get_column(name).null_count()
            self.strings[name] = known.add_distinct(distinct[name], observed)

    def families_to_settle(self) -> dict[str, str]:
        """The columns whose family over all the batches (by the text and identifier rules,
        :func:`nbayes.schema.string_family`, or a numeric column's distinct values) is not
        the one the first batch gave them, with that family: what one fit of all the rows
        would have chosen."""
        model = self.model
        chosen = {s.name: s.family for s in getattr(model, "schema_", [])}
        chosen.update(dict.fromkeys(getattr(model, "ignored_", []), "ignore"))  # semi-naive
        chosen.update(dict.fromkeys(getattr(model, "text_columns_", []), "text"))
        whole = {name: string_family(name, summary)[0] for name, summary in self.strings.items()}
        cap = int(getattr(model, "max_int_categories", 0))
        for name, values in self.integers.items():
            whole[name] = "categorical" if few_integers(values, cap) else model.continuous
        return {
            name: family for name, family in whole.items() if chosen.get(name, family) != family
        }

    def fit(self, frame: pl.DataFrame) -> Learner:
        if self.text is None:
            self.model.fit(frame, target=self.target)
        else:
            frame = self.labelled(frame)
            self.model.fit(frame.get_column(self.text), frame.get_column(self.target).to_numpy())
        return self

    @property
    def fitted(self) -> bool:
        return hasattr(self.model, "classes_") and (
            self.text is None or hasattr(self.model, "model_")
        )

    def predict_proba(self, frame: pl.DataFrame) -> np.ndarray:
        return self.model.predict_proba(self.features(frame))

    def predict(self, frame: pl.DataFrame) -> np.ndarray:
        return self.model.predict(self.features(frame))

    def predict_both(self, frame: pl.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        """(decided classes, posteriors P(c | x)) of the rows of ``frame``: the most probable
        class, or with a loss matrix the model's Bayes decision."""
        features = self.features(frame)
        proba = self.model.predict_proba(features)
        if getattr(self.model, "loss", None) is None:
            return self.model.classes_[np.argmax(proba, axis=1)], proba
        return self.model.predict(features), proba


def alpha(args: argparse.Namespace, default: float | str) -> float | str:
    return default if args.alpha is None else args.alpha


def text_classifier(args: argparse.Namespace) -> TextClassifier:
    """A TextClassifier with the text options (``--text-model``, ``--alpha``, ``--ngrams``,
    ``--stop-words``, ``--min-df``, ``--vocabulary``, ``--prior``)."""
    min_df = args.min_df if args.min_df < 1 else int(args.min_df)
    return TextClassifier(
        model=args.text_model,
        alpha=alpha(args, 0.1),
        mode="vocabulary" if args.vocabulary else "hashing",
        ngram_range=tuple(args.ngrams),
        stop_words=None if args.stop_words == "none" else args.stop_words,
        min_df=min_df,
        class_prior=args.prior,
    )


def table_model(args: argparse.Namespace, families: dict[str, str]) -> Any:
    """A NaiveBayes (or, with ``--model``, a SemiNaiveBayes) with ``families``,
    ``--continuous``, ``--alpha``, ``--prior``, ``--missing`` and ``--bins``.

    Calibrated (``calibration="auto"``, as ``NaiveBayes()``) unless ``--calibration none``."""
    if getattr(args, "model", "naive") != "naive":
        return semi_naive_model(args, families)
    return NaiveBayes(
        families=families or None,
        continuous=args.continuous or "auto",
        alpha=alpha(args, "auto"),
        class_prior=args.prior,
        missing=getattr(args, "missing_as", None) or "auto",
        missing_values=args.missing or None,
        bins=args.bins,
        calibration=None if args.calibration == "none" else "auto",
    )


def semi_naive_model(args: argparse.Namespace, families: dict[str, str]) -> Any:
    """A SemiNaiveBayes of ``--model`` (with ``--k``, ``--alpha``, ``--prior``); its numeric
    columns cut into ``--continuous`` intervals (default mdl)."""
    from ..semi_naive.table import MODEL_NAMES, SemiNaiveBayes

    estimator = MODEL_NAMES[args.model]()
    settings: dict[str, Any] = {"class_prior": args.prior}
    if getattr(args, "table_memory", None) is not None:
        settings["max_memory"] = args.table_memory
    if args.alpha is not None:
        settings["alpha"] = args.alpha
    if args.k is not None:
        settings["k"] = args.k
    estimator.set_params(**settings)
    continuous = args.continuous or "mdl"
    if continuous not in ("mdl", "equal-width", "equal-frequency"):
        raise UsageError(
            f"--model {args.model} needs discrete columns: --continuous mdl, equal-width or "
            f"equal-frequency, not {continuous}."
        )
    return SemiNaiveBayes(
        estimator,
        families=families or None,
        continuous=continuous,
        missing=getattr(args, "missing_as", None) or "category",
        missing_values=args.missing or None,
        bins=args.bins,
        max_intervals=32 if args.max_intervals is None else args.max_intervals,
        discriminative=getattr(args, "discriminative", None) != "off",
        refit=getattr(args, "discriminative", None) == "refit",
    )


def check_options(args: argparse.Namespace, *, text: bool) -> None:
    """Refuse a model option that the model the data call for would ignore: a structure's
    options (``--model``, ``--k``, ``--discriminative``, ``--max-intervals``, ``--max-memory``:
    the bound of a structure's tables) for naive Bayes or
    for text, ``--calibration`` (naive Bayes's) for a structure or for text, and a table's
    column options (``--continuous``, ``--missing-as``, ``--family``) for text."""
    model = getattr(args, "model", "naive")
    if text and model != "naive":
        raise UsageError(
            f"--model {model} applies to tables; documents (or a table whose only feature is "
            "free text) are modelled by a TextClassifier (--text-model), which has no structure."
        )
    columns = [
        option
        for option, given in (("--continuous", getattr(args, "continuous", None) is not None),
                              ("--missing-as", getattr(args, "missing_as", None) is not None),
                              ("--family", bool(getattr(args, "family", None))))
        if given
    ]  # fmt: skip
    if text and columns:
        raise UsageError(
            f"{' and '.join(columns)} applies to the columns of a table; documents (or a table "
            "whose only feature is free text) are modelled by a TextClassifier (--text-model, "
            "--ngrams, …)."
        )
    if getattr(args, "k", None) is not None and model not in ("kdb", "skdb", "eskdb"):
        raise UsageError(f"--k applies to --model kdb, skdb and eskdb, not {model}.")
    structure = [
        option
        for option, name in (("--discriminative", "discriminative"),
                             ("--max-intervals", "max_intervals"),
                             ("--max-memory", "table_memory"))
        if getattr(args, name, None) is not None
    ]  # fmt: skip
    if structure and (text or model == "naive"):
        what = "text (a TextClassifier)" if text else "naive Bayes (the default --model)"
        raise UsageError(
            f"{' and '.join(structure)} applies to semi-naive models (--model aode, tan, kdb, "
            f"skdb, …), not to {what}."
        )
    if getattr(args, "calibration", None) is not None and (text or model != "naive"):
        fix = "" if text else f"; --model {model} corrects its scores with --discriminative"
        raise UsageError(f"--calibration applies to naive Bayes models of tables{fix}.")


def learner_for(
    args: argparse.Namespace, source: str, frame: pl.DataFrame, target: str, *, quiet: bool = False
) -> Learner:
    """The learner the options and the first rows of the data call for.

    Documents (a folder, or label<TAB>text lines) get a TextClassifier of their text.
    Columns named in ``--family`` and ``--text`` are looked up by name or position. A table
    whose only feature is a string column of free text (median ≥ 4 words, mostly distinct
    values) not given a family is documents, modelled by a TextClassifier; in a table of
    several columns the model's own rules find free text and identifiers
    (:mod:`nbayes.schema`). Categorical columns of nearly one distinct value per row are warned
    about (identifiers, or numbers read as text).
    """
    if target == DOCUMENT_LABEL and "text" in frame.columns and is_documents(args):
        check_options(args, text=True)
        return Learner(text_classifier(args), target, "text")
    columns = frame.columns
    families = {column(source, name, columns): family for name, family in args.family}
    features = [name for name in columns if name != target]
    strings = _string_columns(frame)
    text = column(source, args.text, columns, "text column") if args.text else None
    if getattr(args, "model", "naive") != "naive" and text is None and len(features) != 1:
        # a semi-naive structure reads the table by the schema's rules (nbayes.schema), which
        # leave identifiers and free text out of it with a warning naming each
        check_options(args, text=False)
        return Learner(table_model(args, families), target)
    # a table whose one feature is free text is documents (a TextClassifier); in a table of
    # several columns, free text and identifiers are found by the model's own rules
    # (nbayes.schema), checked over all the rows once they are read (nbayes fit)
    only = features[0] if len(features) == 1 else None
    if text is None and only in strings and only not in families:
        if _free_text(frame.get_column(only)):
            text = only
            if not quiet:
                print(
                    f"nbayes: {only!r} holds free text: modelled as text "
                    f"(--text-model {args.text_model}); --family COL=categorical to count its "
                    "values instead.",
                    file=sys.stderr,
                )
    if text is not None and features == [text]:
        check_options(args, text=True)
        return Learner(text_classifier(args), target, text)
    check_options(args, text=False)
    if text is not None:
        families[text] = "text"
    if not quiet:
        _warn_identifiers(
            source, frame, [n for n in features if n in strings and families.get(n) is None]
        )
    return Learner(table_model(args, families), target)


def learner_of(model: Any, args: argparse.Namespace, columns: list[str]) -> Learner:
    """The learner of a saved model: a TextClassifier reads ``--text``, else the column named
    ``text``, else the only column that is not the target."""
    if not isinstance(model, TextClassifier):
        return Learner(model, None)
    if args.text:
        return Learner(model, None, column(args.data, args.text, columns, "text column"))
    if "text" in columns:
        return Learner(model, None, "text")
    raise DataError(
        args.data,
        f"a text model reads one column; pass --text COL (the columns are {list(columns)}).",
    )


def _string_columns(frame: pl.DataFrame) -> set[str]:
    """The names of the string (and categorical) columns, by the schema's cached type test:
    a wide table has many columns and few types."""
    return {
        name
        for name, dtype in zip(frame.columns, frame.dtypes, strict=True)
        if column_kind(dtype) == "string"
    }


def _free_text(values: pl.Series) -> bool:
    if values.dtype != pl.String:
        return False
    values = values.drop_nulls().head(2000)
    if values.len() == 0:
        return False
    words = values.str.split(" ").list.len()
    return float(words.median()) >= TEXT_WORDS and values.n_unique() > TEXT_DISTINCT * values.len()


def _warn_identifiers(source: str, frame: pl.DataFrame, names: list[str]) -> None:
    for name in names:
        values = frame.get_column(name)
        if values.dtype != pl.String:
            continue
        present = values.drop_nulls()
        distinct = present.n_unique()
        if present.len() < ID_MIN_ROWS or distinct <= ID_DISTINCT * present.len():
            continue
        numbers = present.str.strip_chars().cast(pl.Float64, strict=False).is_not_null().mean()
        if numbers and numbers > 0.9:
            reason = (
                "numbers read as text (e.g. " + repr(present[0]) + "): check --separator and "
                "--missing, or leave whitespace stripping on"
            )
        elif distinct >= IDENTIFIER_DISTINCT_SHARE * present.len():
            continue  # the model leaves it out as an identifier, and its warning says so
        else:
            reason = "probably an identifier: drop it, or give it a family"
        warnings.warn(
            f"{source}: column {name!r} has {distinct:,} distinct values in {present.len():,} "
            f"rows, so it is nearly one category per row — {reason}.",
            UserWarning,
            stacklevel=2,
        )
