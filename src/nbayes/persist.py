"""Model files (``.nbm``): safe to load, versioned, written atomically. Never a pickle.

Layout of a version-1 file::

    8 bytes    magic  b"NBAYES\\x00\\x01"
    n bytes    a safetensors document (https://github.com/huggingface/safetensors): an 8-byte
               little-endian header length, a JSON header, then the raw arrays. Its metadata
               entry "nbayes" holds a JSON object: format version, estimator class, constructor
               parameters, classes, feature names, schema and category vocabularies.
    32 bytes   SHA-256 of the safetensors document

A checksum only detects accidents (anyone can recompute it), so loading treats every byte as
hostile and checks, in order, before any array is built or any compiled kernel runs:

1. the path is a regular file (not a FIFO, a device such as ``/dev/zero``, or a folder), no
   larger than ``max_bytes`` (:data:`MAX_MODEL_BYTES` by default), and starts with the magic (a
   pickle or any other file is refused without reading further);
2. the checksum (truncation and flipped bytes);
3. the safetensors header, by nbayes' own reading: strict JSON (no NaN, no infinity, no number
   that overflows, no key twice, nesting at most :data:`MAX_JSON_DEPTH` deep), every array's
   dtype one of the plain numeric ones, at most two dimensions, every size a Python integer no
   larger than the file, and the arrays' byte ranges tiling the data exactly;
4. the metadata, as strict JSON too: format, version, a known model class;
5. the arrays: finite numbers (the one exception: an empty value sketch's range is ±inf), then
   every array against the model it claims to be (shapes, signs, sums computed as Python
   integers, offsets checked to increase without subtracting them), by each family's ``check``;
6. the memory the model's statistics and the tables its predictions build imply, computed from
   their sizes alone, against the loader's own bound ``max_memory`` (never a value the file
   holds): a semi-naive model's index tables grow as d² (d³ for A2DE) with the number of
   attributes d whatever their values, so a few kilobytes of attributes with no value could
   ask for gigabytes;
7. finally that the model rebuilt from the file would write back exactly the same arrays: a
   missing, extra or inconsistent array is refused here, not when a prediction first needs it.

So what a load allocates is a small multiple of the file's size, what its predictions build is
within ``max_memory``, and a file that loads can be inspected and predicted with. Anything
wrong is one :class:`~nbayes.ModelFileError` whose message names the file and what is wrong.
Only numbers and JSON are read; nothing is ever executed.

Saving never loses data: the model is serialised under its lock (a concurrent ``partial_fit``
waits, so the file is one consistent snapshot), loaded back from memory with the checks above
(a model that ``load`` would refuse is never written), written to an unnamed temporary file in
the target's folder (``O_TMPFILE`` where the system has it, else a named one removed on every
failure), flushed to disk and renamed over the target. Only a regular file (or a symbolic link
to one, whose target is then replaced) is ever replaced; it keeps its permission bits, and a new
file gets those of the umask.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import stat
import struct
from pathlib import Path
from typing import Any

import numpy as np
from safetensors import SafetensorError
from safetensors.numpy import load as load_arrays
from safetensors.numpy import save as save_arrays

from ._atomic import destination, kind_of, replacing
from ._catalog import MODELS
from ._locks import model_lock
from ._read_common import MODEL_FILE_MAGIC
from .exceptions import ModelFileError, os_reason
from .semi_naive.memory import DEFAULT_MAX_MEMORY, format_bytes, parse_memory

MAGIC = MODEL_FILE_MAGIC
FORMAT_VERSION = 1
_DIGEST = 32
#: Refuse headers larger than this: a real model's JSON is far smaller.
MAX_HEADER_BYTES = 256 * 2**20
#: The largest model file :func:`load` reads unless told otherwise (``max_bytes``). Everything a
#: load allocates is a small multiple of the file's size, so this also bounds a load's memory.
MAX_MODEL_BYTES = 8 * 2**30
#: The memory :func:`load` lets a model's statistics and the tables its predictions build take
#: unless told otherwise (``max_memory``): the semi-naive models' default ``max_memory``, so that
#: every model fitted within its default budget loads within this one.
DEFAULT_LOAD_MEMORY = DEFAULT_MAX_MEMORY
#: Deepest nesting of lists and objects accepted in a model file's JSON (real files use 4).
MAX_JSON_DEPTH = 32
#: Integers in a model file's JSON have at most this many digits (int64 has 19).
_MAX_INT_DIGITS = 20
#: The array dtypes a model file may hold (safetensors' names) and their sizes in bytes.
_DTYPES = {
    "F64": 8, "F32": 4, "F16": 2, "I64": 8, "I32": 4, "I16": 2, "I8": 1,
    "U64": 8, "U32": 4, "U16": 2, "U8": 1, "BOOL": 1,
}  # fmt: skip
_MAX_NAME = 256
#: What a damaged or forged model can raise while it is rebuilt (each becomes ModelFileError).
_REFUSED = (
    ValueError,
    KeyError,
    TypeError,
    IndexError,
    AttributeError,
    OverflowError,
    ZeroDivisionError,
    MemoryError,
    RecursionError,
)


# ---------------------------------------------------------------------- writing
def _registry() -> dict[str, type]:
    """Model classes by the name a model file records."""
    return {cls.__name__: cls for cls in MODELS}


def dumps(model: Any) -> bytes:
    """The bytes of a model file for a fitted nbayes model.

    The model is read under its lock (a concurrent ``fit`` / ``partial_fit`` / ``merge`` on it
    waits), and the bytes are loaded back before they are returned: a model that :func:`load`
    would refuse (statistics that overflowed, say) raises ValueError here instead.
    """
    if type(model).__name__ not in _registry():
        raise TypeError(f"only nbayes models can be saved, not {type(model).__name__}.")
    with model_lock(model):
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
        text = json.dumps(header, allow_nan=False)
        try:
            document = save_arrays(arrays, metadata={"nbayes": text})
        except SafetensorError as exc:  # the header over safetensors' 100,000,000 bytes
            raise ValueError(
                f"this {type(model).__name__} cannot be saved: its metadata (category values, "
                f"feature names, class labels: {len(text):,} bytes) does not fit in a model "
                f"file's header ({exc})."
            ) from None
    payload = MAGIC + document + hashlib.sha256(document).digest()
    try:
        # the memory bound is the loader's to choose: saving checks everything else
        _rebuild(payload, "the model to save", len(payload), None)
    except ModelFileError as exc:
        raise ValueError(f"this {type(model).__name__} cannot be saved: {exc}") from None
    return payload


def save(model: Any, path: str | os.PathLike) -> Path:
    """Write ``model`` to ``path`` atomically; returns the path written (a symbolic link's
    target). Only a new path, a regular file or a link to one is written; see the module
    docstring for what is guaranteed."""
    payload = dumps(model)
    target = destination(Path(path), "a model")
    assert target is not None  # only a device or a pipe gives None, and only when asked to
    with replacing(target, what="a model") as handle:
        handle.write(payload)
    return target


# ---------------------------------------------------------------------- strict JSON
def _strict_json(text: str | bytes, what: str) -> Any:
    """Parse JSON refusing NaN, infinity, floats that overflow, huge integers, repeated keys and
    nesting deeper than MAX_JSON_DEPTH; errors are ModelFileError naming ``what``."""

    def constant(name: str) -> Any:
        raise ModelFileError(f"{what} holds {name}, which is not a JSON number.")

    def floating(token: str) -> float:
        value = float(token)
        if not math.isfinite(value):
            raise ModelFileError(f"{what} holds the number {token}, beyond the float range.")
        return value

    def integer(token: str) -> int:
        if len(token.lstrip("-")) > _MAX_INT_DIGITS:
            raise ModelFileError(f"{what} holds an integer of {len(token)} digits.")
        return int(token)

    def unique(pairs: list[tuple[str, Any]]) -> dict:
        value = dict(pairs)
        if len(value) != len(pairs):
            raise ModelFileError(f"{what} has an object with a repeated key.")
        return value

    try:
        value = json.loads(
            text,
            parse_constant=constant,
            parse_float=floating,
            parse_int=integer,
            object_pairs_hook=unique,
        )
    except RecursionError:
        raise ModelFileError(f"{what} is nested too deeply.") from None
    except (ValueError, UnicodeDecodeError) as exc:
        if isinstance(exc, ModelFileError):
            raise
        raise ModelFileError(f"{what} is not valid JSON: {exc}") from None
    if _nesting(text) > MAX_JSON_DEPTH:
        raise ModelFileError(f"{what} is nested more than {MAX_JSON_DEPTH} levels deep.")
    return value


#: Every byte but the quotes around strings and the brackets: deleted before the nesting is
#: counted.
_NOT_STRUCTURE = bytes(sorted(set(range(256)) - set(b'"[]{}')))


def _nesting(text: str | bytes) -> int:
    """How deep the lists and objects of valid JSON ``text`` nest (0: a bare value), counted on
    its bytes, not on the parsed value (whose walk costs a Python step per container): with
    escaped backslashes and then escaped quotes removed, every quote left opens or closes a
    string; the strings' bytes dropped, each bracket left opens or closes a level."""
    # in whichever encoding json.loads found it, lone surrogates passed through as it passes
    # them (a string may hold one: it is no concern of the nesting)
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode(json.detect_encoding(text), "surrogatepass")
    raw = text.encode("utf-8", "surrogatepass")
    raw = raw.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _NOT_STRUCTURE)
    codes = np.frombuffer(raw, dtype=np.uint8)
    quote = codes == ord('"')
    # outside every string: an even number of quotes so far, and not a quote itself
    outside = (np.cumsum(quote, dtype=np.int64) % 2 == 0) & ~quote
    steps = np.where((codes == ord("[")) | (codes == ord("{")), 1, -1)[outside]
    return int(np.cumsum(steps).max()) if steps.size else 0


# ---------------------------------------------------------------------- reading
def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _read_header(document: bytes, source: str) -> dict:
    """The nbayes metadata of a safetensors document, after checking its tensor table (see
    step 3 of the module docstring) so that safetensors is only ever given sound sizes."""
    if len(document) < 8:
        raise ModelFileError(f"{source} is truncated.")
    (length,) = struct.unpack("<Q", document[:8])
    if length > min(MAX_HEADER_BYTES, len(document) - 8):
        raise ModelFileError(f"{source}: the header length {length:,} is impossible.")
    header = _strict_json(document[8 : 8 + length], f"{source}: the array header")
    if not isinstance(header, dict):
        raise ModelFileError(f"{source}: the array header is not a JSON object.")
    data_length = len(document) - 8 - length
    spans = []
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        spans.append(_check_entry(name, entry, data_length, len(document), source))
    spans.sort()
    position = 0
    for begin, end, name in spans:
        if begin != position:
            raise ModelFileError(
                f"{source}: array {name!r} does not start where the previous one ends."
            )
        position = end
    if position != data_length:
        raise ModelFileError(f"{source}: the arrays do not fill the data exactly.")
    metadata = header.get("__metadata__")
    if not isinstance(metadata, dict) or not isinstance(metadata.get("nbayes"), str):
        raise ModelFileError(f"{source} has no nbayes metadata: not an nbayes model file.")
    meta = _strict_json(metadata["nbayes"], f"{source}: the metadata")
    if not isinstance(meta, dict):
        raise ModelFileError(f"{source}: the metadata is not a JSON object.")
    return meta


def _check_entry(
    name: str, entry: Any, data_length: int, file_length: int, source: str
) -> tuple[int, int, str]:
    """Validate one tensor of the header: (begin, end, name) of its bytes. No dimension may
    exceed the file's length (only a zero-sized array could claim more, and none needs to)."""
    if not (0 < len(name) <= _MAX_NAME and name.isascii() and name.isprintable()):
        raise ModelFileError(f"{source}: an array has the invalid name {name[:40]!r}.")
    if not isinstance(entry, dict) or set(entry) != {"dtype", "shape", "data_offsets"}:
        raise ModelFileError(f"{source}: array {name!r} is described wrongly.")
    dtype, shape, offsets = entry["dtype"], entry["shape"], entry["data_offsets"]
    if dtype not in _DTYPES:
        raise ModelFileError(f"{source}: array {name!r} has the unexpected dtype {dtype!r}.")
    if (
        not isinstance(shape, list)
        or len(shape) > 3
        or not all(_is_int(n) and 0 <= n <= file_length for n in shape)
    ):
        raise ModelFileError(
            f"{source}: array {name!r} has the impossible shape {str(shape)[:60]} for a file "
            f"of this size."
        )
    if (
        not isinstance(offsets, list)
        or len(offsets) != 2
        or not all(_is_int(n) for n in offsets)
        or not 0 <= offsets[0] <= offsets[1] <= data_length
    ):
        raise ModelFileError(f"{source}: array {name!r} has impossible byte offsets.")
    size = math.prod(shape) * _DTYPES[dtype]
    if offsets[1] - offsets[0] != size:
        raise ModelFileError(f"{source}: array {name!r} is not as long as its shape says.")
    return offsets[0], offsets[1], name


def _memory_bound(max_memory: int | str | None) -> int:
    """The loader's memory bound in bytes (:data:`DEFAULT_LOAD_MEMORY` when None)."""
    return DEFAULT_LOAD_MEMORY if max_memory is None else parse_memory(max_memory, "max_memory")


def _memory_needed(model: Any) -> int | None:
    """Bytes a loaded model's statistics and prediction tables take, where that is not a small
    multiple of the file's size (the semi-naive models, alone or in a table model); else None."""
    for part in (model, getattr(model, "model_", None)):
        needed = getattr(part, "_memory_needed", None)
        if callable(needed):
            return int(needed())
    return None


def _check_memory(model: Any, budget: int, source: str) -> None:
    needed = _memory_needed(model)
    if needed is not None and needed > budget:
        raise ModelFileError(
            f"{source}: this {type(model).__name__}'s statistics and the tables its predictions "
            f"build need about {format_bytes(needed)} ({needed:,} bytes), above the loader's "
            f"max_memory = {format_bytes(budget)}; if the file is trusted, raise the bound: "
            "nbayes.load(path, max_memory=...) or --max-memory on the command line."
        )


def loads(
    payload: bytes,
    *,
    source: str = "model file",
    max_bytes: int | None = None,
    max_memory: int | str | None = None,
) -> Any:
    """Rebuild a model from the bytes of a model file, validating everything first.

    ``max_bytes`` and ``max_memory`` are as for :func:`load`."""
    return _rebuild(payload, source, max_bytes, _memory_bound(max_memory))


def _rebuild(payload: bytes, source: str, max_bytes: int | None, budget: int | None) -> Any:
    """:func:`loads`, with the memory bound in bytes (None: not checked, when saving)."""
    limit = MAX_MODEL_BYTES if max_bytes is None else int(max_bytes)
    if not payload.startswith(MAGIC):
        if payload[:2] in (b"\x80\x02", b"\x80\x03", b"\x80\x04", b"\x80\x05"):
            raise ModelFileError(
                f"{source} is a Python pickle, not an nbayes model; it was not loaded."
            )
        raise ModelFileError(f"{source} is not an nbayes model file (wrong magic bytes).")
    if len(payload) > limit:
        raise ModelFileError(
            f"{source} is {len(payload):,} bytes, more than the {limit:,} allowed (max_bytes)."
        )
    if len(payload) < len(MAGIC) + 8 + _DIGEST:
        raise ModelFileError(f"{source} is truncated.")
    document, digest = payload[len(MAGIC) : -_DIGEST], payload[-_DIGEST:]
    if hashlib.sha256(document).digest() != digest:
        raise ModelFileError(f"{source} is damaged (checksum mismatch: truncated or altered).")
    meta = _read_header(document, source)
    if meta.get("format") != "nbayes-model":
        raise ModelFileError(f"{source} is not an nbayes model file.")
    version = meta.get("version")
    if version != FORMAT_VERSION:
        raise ModelFileError(
            f"{source} has format version {version!r}; this nbayes reads version {FORMAT_VERSION}."
        )
    registry = _registry()
    name = meta.get("class")
    cls = registry.get(name) if isinstance(name, str) else None
    if cls is None:
        raise ModelFileError(f"{source} holds an unknown model class {str(name)[:60]!r}.")
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
        with np.errstate(all="ignore"):  # every value is checked explicitly; sums may overflow
            model = cls._from_state(meta, arrays)
            if budget is not None:
                _check_memory(model, budget, source)
            _check_arrays_round_trip(model, arrays)
    except ModelFileError as exc:
        if str(exc).startswith(source):
            raise
        raise ModelFileError(f"{source} is not a consistent {cls.__name__}: {exc}") from exc
    except _REFUSED as exc:
        detail = str(exc) or type(exc).__name__
        raise ModelFileError(f"{source} is not a consistent {cls.__name__}: {detail}") from exc
    return model


#: Array names (last component) a file of the first release may lack.
_ADDED_SINCE_FIRST_RELEASE = frozenset({"missing", "rows", "leave_one_out_squares"})


def _check_arrays_round_trip(model: Any, arrays: dict[str, np.ndarray]) -> None:
    """The rebuilt model must write back exactly the file's arrays: none missing, none extra,
    the same shapes and values."""
    _, written = model._to_state()
    # arrays that later releases added with a default for older files (a categorical group's
    # missing-value counts): absent from a file of the first release, they are rebuilt empty
    missing = sorted(
        name
        for name in set(written) - set(arrays)
        if name.rsplit(".", 1)[-1] not in _ADDED_SINCE_FIRST_RELEASE
    )
    extra = sorted(set(arrays) - set(written))
    if missing or extra:
        parts = []
        if missing:
            parts.append(f"missing arrays {missing[:5]}")
        if extra:
            parts.append(f"unexpected arrays {extra[:5]}")
        raise ValueError(" and ".join(parts) + ".")
    for name, array in arrays.items():
        mine = np.asarray(written[name])
        if mine.shape != array.shape or not np.array_equal(mine, array):
            raise ValueError(f"array {name!r} does not agree with the rest of the model.")


def load(
    path: str | os.PathLike,
    *,
    max_bytes: int | None = None,
    max_memory: int | str | None = None,
) -> Any:
    """Load a model saved by :func:`save` (or ``nbayes fit``), refusing anything else.

    ``max_bytes`` (default :data:`MAX_MODEL_BYTES`) bounds the file's size, and with it all a
    load allocates. ``max_memory`` (bytes, or a size such as ``"4GiB"``; default
    :data:`DEFAULT_LOAD_MEMORY`, 1 GiB) bounds what the model's statistics and the tables its
    predictions build take, computed from the file before any of them is built: a semi-naive
    model fitted with a larger ``max_memory`` needs as large a bound here. Raises
    :class:`~nbayes.ModelFileError`, naming the file, for a path that is not a regular file, a
    file that is not an nbayes model, a model above ``max_memory``, and any damaged or forged
    content.
    """
    path = Path(path)
    limit = MAX_MODEL_BYTES if max_bytes is None else int(max_bytes)
    budget = _memory_bound(max_memory)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise ModelFileError(f"cannot read model file {path}: {os_reason(exc)}") from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ModelFileError(
                f"{path} is {kind_of(info.st_mode)}, not a model file; it was not read."
            )
        head = os.read(fd, len(MAGIC))
        if head != MAGIC:
            return _rebuild(head, str(path), limit, budget)  # names what it is instead
        if info.st_size > limit:
            raise ModelFileError(
                f"{path} is {info.st_size:,} bytes, more than the {limit:,} allowed (max_bytes)."
            )
        chunks = [head]
        remaining = info.st_size - len(head) + 1  # one byte more: a file that grew is refused
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 2**24))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
    except OSError as exc:
        raise ModelFileError(f"cannot read model file {path}: {os_reason(exc)}") from exc
    finally:
        os.close(fd)
    payload = b"".join(chunks)
    if len(payload) != info.st_size:
        raise ModelFileError(f"{path} changed while it was read.")
    return _rebuild(payload, str(path), limit, budget)
