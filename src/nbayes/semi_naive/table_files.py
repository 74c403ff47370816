"""A :class:`~nbayes.semi_naive.SemiNaiveBayes` in a model file (:mod:`nbayes.persist`): the
table's schema, vocabularies, cut points, markers and left-out columns as JSON metadata, the
structure's own state nested under ``model``, the cut points as arrays. Loading checks every
value before anything is built from it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from .._json import from_json, to_json
from .._state import nest, section
from ..encoding import CategoricalEncoder
from ..model import NaiveBayes
from ..schema import ColumnSpec
from .averaged import AODE, WAODE, AnDE, AODEsr
from .discriminative import Correction
from .ensemble import SelectiveKDBEnsemble
from .hidden import HNB
from .network import KDB, TAN
from .selective import SelectiveKDB

#: The structures a table model's file may hold, by class name.
STRUCTURES = {c.__name__: c for c in (
    AODE, WAODE, AODEsr, AnDE, HNB, TAN, KDB, SelectiveKDB, SelectiveKDBEnsemble
)}  # fmt: skip

#: Families a column of a semi-naive model may have: categories, or intervals of numbers.
DISCRETE = ("categorical", "mdl", "equal-width", "equal-frequency")

#: The types a categorical column's values are kept in, by the name model files give them.
CATEGORY_TYPES = {"String": pl.String, "Boolean": pl.Boolean, "Int64": pl.Int64,
                  "Float64": pl.Float64}  # fmt: skip


def table_state(model: Any) -> tuple[dict, dict[str, np.ndarray]]:
    """(JSON metadata, arrays): the table's schema, vocabularies and cut points, and the
    inner model's own state (see :mod:`nbayes.persist`)."""
    model._check_fitted()
    params = {k: v for k, v in model.get_params(deep=False).items() if k != "model"}
    model_meta, model_arrays = model.model_._to_state()
    names = {v: k for k, v in CATEGORY_TYPES.items()}
    meta = {
        "params": to_json(params),
        "model_param": _model_param(model.model),
        "model_class": type(model.model_).__name__,
        "model": model_meta,
        "schema": [[s.name, s.family, names.get(s.dtype, "Float64")] for s in model.schema_],
        "fit_columns": list(model._fit_columns),
        "ignored": list(model.ignored_),
        "text_columns": list(model.text_columns_),
        "missing_markers": to_json(list(model.missing_markers_)),
        "encoder": model._encoder.meta(),
        "missing_modes": list(model.missing_modes_),
    }
    cuts = {
        f"c{j}": model.cut_points_[s.name]
        for j, s in enumerate(model.schema_)
        if s.family != "categorical"
    }
    arrays = {**nest("model", model_arrays), **nest("cuts", cuts)}
    if model._words is not None:  # the text columns' bag-of-words model
        meta["words"], words_arrays = model._words._to_state()
        arrays.update(nest("words", words_arrays))
    correction = getattr(model, "correction_", None)
    if correction is not None:  # the discriminative correction's weights
        meta["correction"], correction_arrays = correction.state()
        arrays.update(nest("correction", correction_arrays))
    return meta, arrays


def _model_param(given: Any) -> Any:
    """The ``model`` parameter as the user gave it: a name, or a structure's class and its own
    parameters (not the fitted structure, which holds the table's overrides too)."""
    if isinstance(given, str):
        return given
    return {"class": type(given).__name__, "params": to_json(given.get_params(deep=False))}


def _model_param_from(saved: Any, fitted: Any) -> Any:
    """The ``model`` parameter :func:`_model_param` saved (files from before it: the fitted
    structure)."""
    if saved is None:
        return fitted
    if isinstance(saved, str):
        return saved
    if not isinstance(saved, dict) or saved.get("class") not in STRUCTURES:
        raise ValueError(f"the model parameter {saved!r} names no semi-naive structure.")
    params = from_json(saved.get("params"))
    try:
        return STRUCTURES[saved["class"]](**params)
    except TypeError as error:
        raise ValueError(
            f"the model parameter's settings are not {saved['class']}'s: {error}."
        ) from None


def table_from_state(cls: type, meta: dict, arrays: dict[str, np.ndarray]) -> Any:
    """A fitted ``cls`` (SemiNaiveBayes) rebuilt from :func:`table_state`'s output."""
    inner = STRUCTURES.get(meta["model_class"])
    if inner is None:
        raise ValueError(f"unknown semi-naive model {meta['model_class']!r}.")
    model = inner._from_state(meta["model"], section("model", arrays))
    params = from_json(meta["params"])
    if isinstance(params, dict):  # files from before the correction and the missing choice
        params.setdefault("discriminative", False)
        params.setdefault("refit", False)  # and before the correction could be refitted
        params.setdefault("missing", "skip")
        params.setdefault("max_intervals", None)  # and before intervals were bounded
    table = cls(model=_model_param_from(meta.get("model_param"), model), **params)
    table._check_params()
    table._structure()  # a name it does not know is refused
    specs = []
    for name, family, dtype in meta["schema"]:
        if family not in DISCRETE or dtype not in CATEGORY_TYPES:
            raise ValueError(f"column {name!r} has an invalid family or type.")
        specs.append(ColumnSpec(str(name), str(family), CATEGORY_TYPES[dtype]))
    if [s.name for s in specs] != list(model.feature_names_in_):
        raise ValueError("the schema does not match the model's features.")
    table.schema_ = specs
    table._fit_columns = [str(c) for c in meta["fit_columns"]]
    table.feature_names_in_ = np.asarray(table._fit_columns, dtype=object)
    table.n_features_in_ = len(table._fit_columns)
    ignored = meta.get("ignored", [])  # files of earlier versions lack it
    if not isinstance(ignored, list) or not all(isinstance(c, str) for c in ignored):
        raise ValueError("the ignored columns must be a list of column names.")
    table.ignored_ = ignored
    text = meta.get("text_columns", [])
    if not isinstance(text, list) or not all(isinstance(c, str) for c in text):
        raise ValueError("the text columns must be a list of column names.")
    table.text_columns_ = text
    if sorted(table._fit_columns) != sorted([s.name for s in specs] + ignored + text):
        raise ValueError("the fitted columns are not the schema's, left-out and text columns.")
    table._words = None
    if text:
        if "words" not in meta:
            raise ValueError("the file names text columns but holds no model of their words.")
        words = NaiveBayes._from_state(meta["words"], section("words", arrays))
        modelled = [(spec.name, spec.family) for spec in words.schema_]
        if modelled != [(name, "text") for name in text]:
            raise ValueError("the words model does not match the text columns.")
        table._words = words
    markers = from_json(meta["missing_markers"])
    if not isinstance(markers, list) or not all(
        isinstance(m, (str, int, float)) for m in markers
    ):
        raise ValueError("the missing-value markers must be a list of strings or numbers.")
    table.missing_markers_ = markers
    categorical = [s for s in specs if s.family == "categorical"]
    table._encoder = CategoricalEncoder(
        [s.name for s in categorical], [s.dtype for s in categorical]
    )
    table._encoder.load_meta(meta["encoder"])
    cuts = section("cuts", arrays)
    table.cut_points_ = {}
    for j, spec in enumerate(specs):
        if spec.family == "categorical":
            continue
        values = np.asarray(cuts[f"c{j}"], dtype=np.float64)
        if values.ndim != 1 or np.any(np.diff(values) <= 0):
            raise ValueError(f"the cut points of column {spec.name!r} are not increasing.")
        table.cut_points_[spec.name] = values
    modes = meta.get("missing_modes", ["skip"] * len(specs))  # earlier files: all skipped
    if not isinstance(modes, list) or len(modes) != len(specs) or any(
        m not in ("skip", "category") for m in modes
    ):
        raise ValueError("the missing modes must be one of 'skip', 'category' per column.")
    table._take_missing_modes(modes)
    table.model_ = model
    if table.discriminative != ("correction" in meta):
        raise ValueError(
            "the file's discriminative setting and its correction disagree: "
            f"discriminative={table.discriminative}, correction "
            f"{'present' if 'correction' in meta else 'absent'}."
        )
    if "correction" in meta:
        table.correction_ = Correction.from_state(
            meta["correction"], section("correction", arrays), model.n_values_,
            len(model.classes_),
        )  # fmt: skip
    return table
