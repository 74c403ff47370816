"""``NaiveBayes`` model files: its schema, column groups, missing-value markers, calibration
and row sample as JSON metadata and arrays (the file format itself: :mod:`nbayes.persist`)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from ._json import from_json, to_json
from ._state import nest, section
from .calibration import Calibration
from .model_calibration import forget_calibration
from .row_sample import RowSample
from .schema import ColumnSpec

if TYPE_CHECKING:
    from .model import NaiveBayes


#: Column value types a model file may name (the schema's dtype for each column).
DTYPE_NAMES = {
    pl.String: "String",
    pl.Int64: "Int64",
    pl.Float64: "Float64",
    pl.Boolean: "Boolean",
    pl.Int32: "Int32",
    pl.Float32: "Float32",
    pl.Int16: "Int16",
    pl.Int8: "Int8",
    pl.UInt8: "UInt8",
    pl.UInt16: "UInt16",
    pl.UInt32: "UInt32",
    pl.UInt64: "UInt64",
}


@functools.lru_cache(maxsize=64)  # per column of a model file; Polars' type hashing is slow
def dtype_name(dtype: pl.DataType) -> str:
    return DTYPE_NAMES[dtype]



class NaiveBayesFiles:
    """The model-file methods of :class:`~nbayes.NaiveBayes` (a mixin)."""

    def _to_state(self) -> tuple[dict, dict[str, np.ndarray]]:
        meta = self._common_meta()
        meta["schema"] = [[s.name, s.family, dtype_name(s.dtype)] for s in self.schema_]
        meta["fit_columns"] = list(getattr(self, "_fit_columns", [s.name for s in self.schema_]))
        meta["groups"] = [group.meta() for group in self._stats.groups]
        settings = self._settings()  # the choices made from the data: loading keeps them
        meta["choices"] = [group.saved_choices(settings) for group in self._stats.groups]
        meta["missing_markers"] = to_json(list(self._markers()))
        fitted = self.calibration_
        meta["calibration"] = None if fitted is None else fitted.to_json()
        arrays = {"class_count": self.class_count_}
        arrays.update(nest("stats", self._stats.state()))
        if self._stats.sample is not None:
            meta["sample"], sample_arrays = self._stats.sample.state()
            arrays.update(nest("sample", sample_arrays))
        return meta, arrays

    @classmethod
    def _from_state(cls, meta: dict, arrays: dict[str, np.ndarray]) -> NaiveBayes:
        params = from_json(meta["params"])
        # a file from before point masses: its kernel densities had none (other new parameters'
        # defaults are the old behaviour on old statistics)
        params.setdefault("point_masses", None)
        params.setdefault("calibration", None)  # and no calibration
        model = cls(**params)
        model._check_params()
        model._restore_common(meta, arrays)
        dtypes = {name: dtype for dtype, name in DTYPE_NAMES.items()}
        schema = meta["schema"]
        if not isinstance(schema, list) or not all(
            isinstance(s, list) and len(s) == 3 and all(isinstance(v, str) for v in s)
            for s in schema
        ):
            raise ValueError("the schema must list [name, family, dtype] for each column.")
        if len({name for name, _, _ in schema}) != len(schema) or len(schema) != (
            model.n_features_in_
        ):
            raise ValueError("the schema must name each of the n_features_in columns once.")
        specs = [ColumnSpec(name, family, dtypes[dtype]) for name, family, dtype in schema]
        # the groups start with no classes: their statistics come from the file's arrays, and
        # nothing may be sized by the metadata alone (classes × columns of a forged file)
        model._make_groups(specs, 0)
        if not isinstance(meta["fit_columns"], list) or not all(
            isinstance(c, str) for c in meta["fit_columns"]
        ):
            raise ValueError("fit_columns must be a list of column names.")
        model._fit_columns = list(meta["fit_columns"])
        # files written before the markers were carried as data: the parameter's markers
        markers = from_json(meta.get("missing_markers", to_json(model._markers())))
        if not isinstance(markers, list) or not all(
            isinstance(m, (str, int, float)) for m in markers
        ):
            raise ValueError("the missing-value markers must be a list of strings or numbers.")
        model.missing_markers_ = markers
        fitted = meta.get("calibration")
        # saved with the model, derived again only when its statistics change
        forget_calibration(
            model,
            None if fitted is None else Calibration.from_json(fitted, len(model.classes_)),
            derived=True,
        )
        if meta.get("sample") is not None:
            sample = RowSample.from_state(
                meta["sample"], section("sample", arrays), {s.name: s.dtype for s in specs}
            )
            if sample.cls.size and not 0 <= sample.cls.min() <= sample.cls.max() < len(
                model.classes_
            ):
                raise ValueError("the row sample's classes must index the model's classes.")
            per_class = np.bincount(sample.cls, sample.weight, minlength=len(model.classes_))
            if np.any(per_class > model.class_count_ * (1 + 1e-9) + 1e-9):
                raise ValueError("the row sample weighs more than the model's rows of a class.")
            model._stats.sample = sample
        if len(meta["groups"]) != len(model._stats.groups):
            raise ValueError("the column groups do not match the schema.")
        stats = section("stats", arrays)
        saved_choices = meta.get("choices") or [None] * len(meta["groups"])
        if not isinstance(saved_choices, list) or len(saved_choices) != len(meta["groups"]):
            raise ValueError("the saved choices must be one entry per column group.")
        for g, (group, group_meta) in enumerate(
            zip(model._stats.groups, meta["groups"], strict=True)
        ):
            group.load_state(section(f"g{g}", stats), group_meta)
            saved = saved_choices[g]
            if saved is not None:
                group.restore_choices(saved, model._settings())
            group.check(len(model.classes_))
        return model
