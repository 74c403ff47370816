"""Forging model files: checksum-valid files with whatever metadata and arrays a test wants.

The checksum of a model file only detects accidents; anyone can recompute it. These helpers build
files as an attacker would, so that the tests can show the loader validating every value itself.
"""

from __future__ import annotations

import hashlib
import json
import struct
from collections.abc import Callable
from typing import Any

import numpy as np
from safetensors.numpy import save as save_arrays

from nbayes import persist


def sign(document: bytes) -> bytes:
    """A model file around a safetensors ``document``: the magic and a correct checksum."""
    return persist.MAGIC + document + hashlib.sha256(document).digest()


def parts(model: Any) -> tuple[dict, dict[str, np.ndarray]]:
    """(nbayes metadata as written, arrays) of a fitted model."""
    meta, arrays = model._to_state()
    header = {
        "format": "nbayes-model",
        "version": persist.FORMAT_VERSION,
        "class": type(model).__name__,
        **meta,
    }
    return json.loads(json.dumps(header)), {k: np.ascontiguousarray(v) for k, v in arrays.items()}


def forge(meta: dict | str, arrays: dict[str, np.ndarray]) -> bytes:
    """A signed file with this metadata (a dict, or raw JSON text) and these arrays."""
    text = meta if isinstance(meta, str) else json.dumps(meta)
    return sign(save_arrays(arrays, metadata={"nbayes": text}))


def edit_header(payload: bytes, edit: Callable[[dict], Any]) -> bytes:
    """Re-sign ``payload`` after ``edit`` changed its safetensors header (shapes, dtypes,
    offsets) in place; the array bytes are kept as they are."""
    document = payload[len(persist.MAGIC) : -32]
    (length,) = struct.unpack("<Q", document[:8])
    header = json.loads(document[8 : 8 + length])
    edit(header)
    raw = json.dumps(header).encode()
    return sign(struct.pack("<Q", len(raw)) + raw + document[8 + length :])


def raw_header(header_text: bytes, data: bytes = b"") -> bytes:
    """A signed file whose safetensors header is exactly ``header_text``."""
    return sign(struct.pack("<Q", len(header_text)) + header_text + data)


def nested(depth: int) -> str:
    """JSON text of ``depth`` nested lists."""
    return "[" * depth + "]" * depth


def set_param(meta: dict, name: str, value: Any) -> None:
    """Set constructor parameter ``name`` in ``meta`` (stored as to_json's tagged mapping)."""
    pairs = meta["params"]["__dict__"]
    for pair in pairs:
        if pair[0] == name:
            pair[1] = value
            return
    pairs.append([name, value])
