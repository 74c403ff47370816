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


#: The dtypes a tagged array may have: plain numbers, and text (whose width is taken from the
#: values, never from the file: "<U500000000" would ask for 2 GB per element).
_ARRAY_DTYPES = frozenset(
    {"|b1", "<i1", "<i2", "<i4", "<i8", "|i1", "<u1", "<u2", "<u4", "<u8", "|u1",
     "<f2", "<f4", "<f8"}
)  # fmt: skip


def from_json(value: Any) -> Any:
    """Rebuild what :func:`to_json` wrote, refusing anything else (model files are hostile)."""
    if isinstance(value, dict):
        if set(value) == {"__array__", "dtype"}:
            return _array_from_json(value["__array__"], value["dtype"])
        if set(value) == {"__dict__"} and isinstance(value["__dict__"], list):
            items = value["__dict__"]
            if not all(isinstance(kv, list) and len(kv) == 2 for kv in items):
                raise ModelFileError("a mapping in the metadata is not a list of pairs.")
            out = {}
            for k, v in items:
                key = from_json(k)
                if not isinstance(key, (str, int, float, bool)) and key is not None:
                    raise ModelFileError("a mapping in the metadata has a key that is not a value.")
                out[key] = from_json(v)
            return out
        raise ModelFileError("unexpected object in model file metadata.")
    if isinstance(value, list):
        return [from_json(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise ModelFileError(f"unexpected value of type {type(value).__name__} in the metadata.")


def _array_from_json(values: Any, dtype: Any) -> np.ndarray:
    if not isinstance(values, list) or not isinstance(dtype, str):
        raise ModelFileError("a tagged array in the metadata is malformed.")
    items = [from_json(v) for v in values]
    text = dtype.startswith(("<U", ">U", "|U")) and dtype[2:].isdigit()
    if not text and dtype not in _ARRAY_DTYPES:
        raise ModelFileError(f"array of dtype {dtype[:20]!r} is not allowed in a model file.")
    leaf = str if text else (bool, int, float)
    if not all(_leaves_are(v, leaf) for v in items):
        raise ModelFileError(f"an array of dtype {dtype} in the metadata holds other values.")
    try:
        if text:
            return np.array(items, dtype=str) if items else np.array([], dtype=str)
        return np.array(items, dtype=np.dtype(dtype))
    except (OverflowError, ValueError, TypeError) as exc:
        raise ModelFileError(f"an array in the metadata does not fit {dtype}: {exc}") from exc


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


def _leaves_are(value: Any, kind: type | tuple[type, ...]) -> bool:
    """Whether ``value`` is a ``kind`` or a (nested) list of them (JSON depth is bounded)."""
    if isinstance(value, list):
        return all(_leaves_are(v, kind) for v in value)
    return isinstance(value, kind)


_LABEL_TYPES = {"str": str, "bool": bool, "int": int, "float": str}


def labels_from_json(data: dict) -> np.ndarray:
    """Class labels as :func:`labels_to_json` wrote them; each value must be of the kind's
    type (so no value decides the array's dtype or size but its own)."""
    if not isinstance(data, dict) or set(data) != {"kind", "values"}:
        raise ModelFileError("the class labels are malformed.")
    kind, values = data["kind"], data["values"]
    expected = _LABEL_TYPES.get(kind) if isinstance(kind, str) else None
    if expected is None:
        raise ModelFileError(f"unknown label kind {str(kind)[:20]!r}.")
    if not isinstance(values, list) or not all(type(v) is expected for v in values):
        raise ModelFileError(f"the class labels are not all of kind {kind!r}.")
    if kind == "str":
        return np.array(values, dtype=str) if values else np.array([], dtype=str)
    if kind == "bool":
        return np.array(values, dtype=bool)
    if kind == "int":
        if not all(-(2**63) <= v < 2**63 for v in values):
            raise ModelFileError("an integer class label does not fit in 64 bits.")
        return np.array(values, dtype=np.int64)
    try:
        labels = np.array([float.fromhex(v) for v in values])
    except (ValueError, OverflowError) as exc:
        raise ModelFileError(f"a float class label is malformed: {exc}") from exc
    if not np.all(np.isfinite(labels)):
        raise ModelFileError("a float class label is not finite.")
    return labels
