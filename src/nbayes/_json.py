"""Constructor parameters, labels and metadata as JSON values for model files.

Arrays are tagged with their dtype; only numbers, booleans and strings are ever rebuilt.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .exceptions import ModelFileError


def to_json(value: Any) -> Any:
    """Constructor parameters and labels as JSON (arrays tagged with their dtype)."""
    if isinstance(value, np.ndarray):
        return {"__array__": [to_json(v) for v in value.tolist()], "dtype": value.dtype.str}
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (np.floating, float)):
        if not np.isfinite(value):
            raise ValueError(f"cannot store the non-finite number {value!r} in a model file.")
        return float(value)
    if isinstance(value, dict):
        return {"__dict__": [[to_json(k), to_json(v)] for k, v in value.items()]}
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if value is None or isinstance(value, (int, str)):
        return value
    raise ValueError(f"cannot store a {type(value).__name__} in a model file.")


def from_json(value: Any) -> Any:
    if isinstance(value, dict):
        if "__array__" in value:
            dtype = np.dtype(value["dtype"])
            if dtype.kind not in "biufU":
                raise ModelFileError(f"array of dtype {dtype} is not allowed in a model file.")
            return np.array([from_json(v) for v in value["__array__"]], dtype=dtype)
        if "__dict__" in value:
            return {from_json(k): from_json(v) for k, v in value["__dict__"]}
        raise ModelFileError("unexpected object in model file metadata.")
    if isinstance(value, list):
        return [from_json(v) for v in value]
    return value


def labels_to_json(labels: np.ndarray) -> dict:
    kind = labels.dtype.kind
    if kind in "US" or labels.dtype == object:
        return {"kind": "str", "values": [str(v) for v in labels]}
    if kind == "b":
        return {"kind": "bool", "values": [bool(v) for v in labels]}
    if kind in "iu":
        return {"kind": "int", "values": [int(v) for v in labels]}
    if kind == "f":
        return {"kind": "float", "values": [float(v).hex() for v in labels]}
    raise ValueError(f"cannot store class labels of dtype {labels.dtype}.")


def labels_from_json(data: dict) -> np.ndarray:
    kind, values = data["kind"], data["values"]
    if kind == "str":
        return np.array(values, dtype=str) if values else np.array([], dtype=str)
    if kind == "bool":
        return np.array(values, dtype=bool)
    if kind == "int":
        return np.array(values, dtype=np.int64)
    if kind == "float":
        return np.array([float.fromhex(v) for v in values])
    raise ModelFileError(f"unknown label kind {kind!r}.")
