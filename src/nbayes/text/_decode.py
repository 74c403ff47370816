"""UTF-8 and case, one code point at a time, compiled (Numba): decoding with Python's
replacement rule, writing UTF-8, and lowercasing as ``str.lower()`` does (the Final_Sigma rule
included). The character tables come from :mod:`nbayes.text._unicode`.
"""

from __future__ import annotations

import numpy as np

from .._jit import kernel
from ._unicode import CAPITAL_SIGMA, CASE_IGNORABLE, CASED, FINAL_SIGMA


@kernel(inline="always")
def decode(data, p, end):  # pragma: no cover - compiled
    """The code point at ``data[p]`` and the number of bytes it takes. An ill-formed sequence
    gives code point -1 and the length of its maximal subpart (Unicode's "U+FFFD substitution of
    maximal subparts", which Python's ``errors="replace"`` follows)."""
    b0 = np.int64(data[p])
    if b0 < 0x80:
        return b0, 1
    if b0 < 0xC2 or b0 > 0xF4:
        return -1, 1
    if b0 < 0xE0:
        need, cp, lo, hi = 1, b0 & 0x1F, 0x80, 0xBF
    elif b0 < 0xF0:
        need, cp = 2, b0 & 0x0F
        lo = 0xA0 if b0 == 0xE0 else 0x80
        hi = 0x9F if b0 == 0xED else 0xBF
    else:
        need, cp = 3, b0 & 0x07
        lo = 0x90 if b0 == 0xF0 else 0x80
        hi = 0x8F if b0 == 0xF4 else 0xBF
    for k in range(1, need + 1):
        q = p + k
        if q >= end:
            return -1, k
        b = np.int64(data[q])
        if k == 1:
            if b < lo or b > hi:
                return -1, 1
        elif b < 0x80 or b > 0xBF:
            return -1, k
        cp = (cp << 6) | (b & 0x3F)
    return cp, need + 1


@kernel(inline="always")
def put_utf8(buf, pos, cp):  # pragma: no cover - compiled
    """Write code point cp as UTF-8 at buf[pos]; returns the new position (buf has room)."""
    if cp < 0x80:
        buf[pos] = cp
        return pos + 1
    if cp < 0x800:
        buf[pos] = 0xC0 | (cp >> 6)
        buf[pos + 1] = 0x80 | (cp & 0x3F)
        return pos + 2
    if cp < 0x10000:
        buf[pos] = 0xE0 | (cp >> 12)
        buf[pos + 1] = 0x80 | ((cp >> 6) & 0x3F)
        buf[pos + 2] = 0x80 | (cp & 0x3F)
        return pos + 3
    buf[pos] = 0xF0 | (cp >> 18)
    buf[pos + 1] = 0x80 | ((cp >> 12) & 0x3F)
    buf[pos + 2] = 0x80 | ((cp >> 6) & 0x3F)
    buf[pos + 3] = 0x80 | (cp & 0x3F)
    return pos + 4


@kernel
def sigma_is_final(data, p, end, props):  # pragma: no cover - compiled
    """Final_Sigma, looking ahead from ``data[p]``: no cased letter follows (skipping
    case-ignorable ones)."""
    while p < end:
        cp, size = decode(data, p, end)
        if cp < 0:
            return True
        flags = props[cp]
        if flags & CASE_IGNORABLE:
            p += size
            continue
        return not (flags & CASED)
    return True


@kernel(inline="always")
def lower_case(cp, prev_cased, data, after, end, props, lower):  # pragma: no cover - compiled
    """``str.lower()`` of the word character cp, followed by ``data[after:end]``: ``lower[cp]``,
    except that Σ after a cased letter (``prev_cased``) with none following becomes final ς.
    (U+0130, whose lowercase is two code points, is left to the caller: it ends a token.)"""
    out = lower[cp]
    if cp == CAPITAL_SIGMA and prev_cased and sigma_is_final(data, after, end, props):
        out = FINAL_SIGMA
    return out
