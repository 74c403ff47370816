"""Model files (``.nbm``): safe to load, versioned, written atomically. Never a pickle.

Layout of a version-1 file::

    8 bytes    magic  b"NBAYES\\x00\\x01"
    n bytes    a safetensors document (https://github.com/huggingface/safetensors): an 8-byte
               little-endian header length, a JSON header, then the raw arrays. Its metadata
               entry "nbayes" holds a JSON object: format version, estimator class, constructor
               parameters, classes, feature names, schema and category vocabularies.
    32 bytes   SHA-256 of the safetensors document

Loading checks, in order: the magic (a pickle or any other file is refused), the checksum
(truncation and flipped bytes are refused), the format version, that the class is one of
nbayes' estimators, and then every array's dtype, shape and finiteness against the model it
claims to be. Only numbers and JSON are read; nothing in a model file is ever executed.

Writing goes to a temporary file in the same folder, flushed to disk, then renamed over the
target, so an interrupted save leaves the previous model intact.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from safetensors import SafetensorError
from safetensors.numpy import load as load_arrays
from safetensors.numpy import save as save_arrays

from ._catalog import MODELS
from .exceptions import ModelFileError

MAGIC = b"NBAYES\x00\x01"
FORMAT_VERSION = 1
_DIGEST = 32
#: Refuse headers larger than this: a real model's JSON is far smaller.
MAX_HEADER_BYTES = 256 * 2**20


# ---------------------------------------------------------------------- files
def _registry() -> dict[str, type]:
    """Model classes by the name a model file records."""
    return {cls.__name__: cls for cls in MODELS}


def dumps(model: Any) -> bytes:
    """The bytes of a model file for a fitted nbayes model."""
    if type(model).__name__ not in _registry():
        raise TypeError(f"only nbayes models can be saved, not {type(model).__name__}.")
    model._check_fitted()
    meta, arrays = model._to_state()
    arrays = {name: np.ascontiguousarray(a) for name, a in arrays.items()}
    for name, array in arrays.items():
        if array.dtype.kind not in "biuf":
            raise ValueError(
                f"array {name!r} has dtype {array.dtype}, which model files do not store."
            )
    header = {
        "format": "nbayes-model",
        "version": FORMAT_VERSION,
        "class": type(model).__name__,
        **meta,
    }
    document = save_arrays(arrays, metadata={"nbayes": json.dumps(header, allow_nan=False)})
    return MAGIC + document + hashlib.sha256(document).digest()


def save(model: Any, path: str | os.PathLike) -> Path:
    """Write ``model`` to ``path`` atomically (temporary file, fsync, rename)."""
    payload = dumps(model)
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(payload)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


def _header(document: bytes) -> dict:
    if len(document) < 8:
        raise ModelFileError("the model file is truncated.")
    (length,) = struct.unpack("<Q", document[:8])
    if length > min(MAX_HEADER_BYTES, len(document) - 8):
        raise ModelFileError("the model file's header is damaged.")
    try:
        header = json.loads(document[8 : 8 + length])
        return json.loads(header["__metadata__"]["nbayes"])
    except (ValueError, KeyError, TypeError) as exc:
        raise ModelFileError(f"the model file's header is not valid: {exc}") from exc


def loads(payload: bytes, *, source: str = "model file") -> Any:
    """Rebuild a model from the bytes of a model file, validating everything first."""
    if not payload.startswith(MAGIC):
        if payload[:2] in (b"\x80\x02", b"\x80\x03", b"\x80\x04", b"\x80\x05"):
            raise ModelFileError(
                f"{source} is a Python pickle, not an nbayes model; it was not loaded."
            )
        raise ModelFileError(f"{source} is not an nbayes model file (wrong magic bytes).")
    if len(payload) < len(MAGIC) + 8 + _DIGEST:
        raise ModelFileError(f"{source} is truncated.")
    document, digest = payload[len(MAGIC) : -_DIGEST], payload[-_DIGEST:]
    if hashlib.sha256(document).digest() != digest:
        raise ModelFileError(f"{source} is damaged (checksum mismatch: truncated or altered).")
    meta = _header(document)
    if meta.get("format") != "nbayes-model":
        raise ModelFileError(f"{source} is not an nbayes model file.")
    version = meta.get("version")
    if version != FORMAT_VERSION:
        raise ModelFileError(
            f"{source} has format version {version!r}; this nbayes reads version {FORMAT_VERSION}."
        )
    registry = _registry()
    cls = registry.get(meta.get("class"))
    if cls is None:
        raise ModelFileError(f"{source} holds an unknown model class {meta.get('class')!r}.")
    try:
        arrays = load_arrays(document)
    except (SafetensorError, ValueError, OverflowError, MemoryError) as exc:
        raise ModelFileError(f"{source}: the arrays are damaged: {exc}") from exc
    for name, array in arrays.items():
        if array.dtype.kind not in "biuf":
            raise ModelFileError(
                f"{source}: array {name!r} has the unexpected dtype {array.dtype}."
            )
        if (
            array.dtype.kind == "f"
            and not name.endswith(".range")
            and not np.all(np.isfinite(array))
        ):
            raise ModelFileError(f"{source}: array {name!r} holds NaN or infinite values.")
    try:
        return cls._from_state(meta, arrays)
    except ModelFileError:
        raise
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        raise ModelFileError(f"{source} is not a consistent {cls.__name__}: {exc}") from exc


def load(path: str | os.PathLike) -> Any:
    """Load a model saved by :func:`save` (or ``nbayes fit``), refusing anything else."""
    path = Path(path)
    try:
        payload = path.read_bytes()
    except OSError as exc:
        raise ModelFileError(f"cannot read model file {path}: {exc.strerror}") from exc
    return loads(payload, source=str(path))
