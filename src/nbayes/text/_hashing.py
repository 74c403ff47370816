"""The hashing trick's two compiled functions (Numba): MurmurHash3 of a byte range, and the column
scikit-learn's ``HashingVectorizer`` gives a hash.

MurmurHash3 (Austin Appleby's x86 32-bit variant) is a fixed, published function, so a column
number computed here is the same on every machine, library version and in scikit-learn.
"""

from __future__ import annotations

import numpy as np

from .._jit import kernel

_U32 = np.uint32


@kernel(inline="always")
def _rotl(x, r):  # pragma: no cover - compiled
    return _U32((x << _U32(r)) | (x >> _U32(32 - r)))


@kernel(inline="always")
def murmur3_32(buf, start, end, seed):  # pragma: no cover - compiled
    """MurmurHash3 x86 32-bit of ``buf[start:end]``, as a signed 32-bit value (scikit-learn's
    ``murmurhash3_32(..., positive=False)``)."""
    c1, c2 = _U32(0xCC9E2D51), _U32(0x1B873593)
    h = _U32(seed)
    n = end - start
    stop = start + (n >> 2) * 4
    p = start
    while p < stop:
        k = (
            _U32(buf[p])
            | (_U32(buf[p + 1]) << _U32(8))
            | (_U32(buf[p + 2]) << _U32(16))
            | (_U32(buf[p + 3]) << _U32(24))
        )
        k = _rotl(_U32(k * c1), 15)
        h ^= _U32(k * c2)
        h = _rotl(h, 13)
        h = _U32(h * _U32(5) + _U32(0xE6546B64))
        p += 4
    rest = end - stop
    if rest > 0:
        k = _U32(0)
        if rest == 3:
            k ^= _U32(buf[stop + 2]) << _U32(16)
        if rest >= 2:
            k ^= _U32(buf[stop + 1]) << _U32(8)
        k ^= _U32(buf[stop])
        k = _rotl(_U32(k * c1), 15)
        h ^= _U32(k * c2)
    h ^= _U32(n)
    h ^= h >> _U32(16)
    h = _U32(h * _U32(0x85EBCA6B))
    h ^= h >> _U32(13)
    h = _U32(h * _U32(0xC2B2AE35))
    h ^= h >> _U32(16)
    return np.int64(np.int32(h))


@kernel(inline="always")
def hash_index(h, n_features):  # pragma: no cover - compiled
    """scikit-learn's HashingVectorizer column of a token with hash h: |h| mod n_features."""
    magnitude = h if h >= 0 else -h
    if n_features & (n_features - 1) == 0:
        return magnitude & (n_features - 1)
    return magnitude % n_features
