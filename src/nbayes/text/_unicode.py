"""The character tables the tokenizer reads, taken from the running Python's Unicode database, so
that nbayes' tokens are exactly those of Python's ``re.findall(r"(?u)\\b\\w\\w+\\b",
text.lower())`` (scikit-learn's default analyzer):

* a *word character* is one for which ``str.isalnum()`` is true, or ``_`` (this is how ``re``
  defines ``\\w`` for str patterns);
* the lowercase of a code point is ``chr(c).lower()``: one code point, except for U+0130 (İ),
  whose lowercase is "i" followed by U+0307 (a combining dot, not a word character), so the
  tokenizer writes "i" and ends the token there, as ``re`` does on the lowered text;
* Greek capital sigma lowers to final ς or to σ by Unicode's Final_Sigma context rule, as
  ``str.lower()`` does: ς when a *cased* letter precedes it and none follows (skipping
  *case-ignorable* characters on both sides). The cased and case-ignorable flags are read off
  ``str.lower()`` itself with two probe strings, so they agree with it by construction.

The tables are built on first use (about three quarters of a second) and kept for the life of
the process. They are also saved, like the compiled kernels (:mod:`nbayes._jit`), in the
package's ``__pycache__`` when it is writable (``python -m nbayes.compile`` does it once per
install), otherwise in ``NUMBA_CACHE_DIR`` or the user's cache folder, and later processes load
them from there: a file named by the Unicode database's version and the interpreter, read with
``allow_pickle=False`` and checked for shape and type; anything unreadable is rebuilt.
"""

from __future__ import annotations

import os
import sys
import unicodedata
from pathlib import Path

import numpy as np

N_CODE_POINTS = 0x110000

#: Bits of the ``props`` table.
WORD, CASED, CASE_IGNORABLE = 1, 2, 4

#: The one code point whose lowercase is two code points in Python's str.lower().
DOTTED_CAPITAL_I = 0x130
CAPITAL_SIGMA, SMALL_SIGMA, FINAL_SIGMA = 0x3A3, 0x3C3, 0x3C2

_TABLES: tuple[np.ndarray, np.ndarray] | None = None


def _lower_probe(template: list[int], slot: int, codes: np.ndarray) -> np.ndarray:
    """Lowercase of ``template`` with each code point in turn at position ``slot``; returns the
    (N, len(template)) code points of the results (each code point lowers to exactly one)."""
    rows = np.empty((codes.shape[0], len(template)), dtype=np.uint32)
    rows[:] = template
    rows[:, slot] = codes
    text = rows.tobytes().decode("utf-32-le", "surrogatepass").lower()
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32).reshape(
        rows.shape
    )


def _cache_files() -> list[Path]:
    """Where the tables may be cached: the package's ``__pycache__``, then the user's cache."""
    name = f"unicode-tables-{unicodedata.unidata_version}-{sys.implementation.cache_tag}.npz"
    user = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(Path.home(), ".cache", "nbayes")
    return [Path(__file__).resolve().parent / "__pycache__" / name, Path(user) / name]


def _load() -> tuple[np.ndarray, np.ndarray] | None:
    for path in _cache_files():
        try:
            with np.load(path, allow_pickle=False) as data:
                props, lower = data["props"], data["lower"]
        except (OSError, ValueError, KeyError, EOFError):
            continue
        if (
            props.shape == (N_CODE_POINTS,)
            and props.dtype == np.uint8
            and lower.shape == (N_CODE_POINTS,)
            and lower.dtype == np.int32
            and 0 <= int(lower.min())
            and int(lower.max()) < N_CODE_POINTS
        ):
            return props, lower
    return None


def _save(props: np.ndarray, lower: np.ndarray) -> None:
    """Into the first cache folder that is writable; a cache that cannot be written is no error."""
    from .._atomic import replacing

    for path in _cache_files():
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with replacing(path) as handle:  # whole or not at all, for concurrent processes
                np.savez(handle, props=props, lower=lower)
            return
        except (OSError, ValueError):  # ValueError: a folder (or a device) where the file goes
            pass


def tables() -> tuple[np.ndarray, np.ndarray]:
    """(props, lower) for every code point: ``props[c]`` has bit WORD if c is a word character,
    CASED and CASE_IGNORABLE as Python's str.lower() sees them (for the Final_Sigma rule);
    ``lower[c]`` is its lowercase code point (the first of two for U+0130; σ for Σ)."""
    global _TABLES
    if _TABLES is None:
        _TABLES = _load()
    if _TABLES is None:
        _TABLES = build()
        _save(*_TABLES)
    return _TABLES


def build() -> tuple[np.ndarray, np.ndarray]:
    """The tables of :func:`tables`, computed from the running Python's Unicode database."""
    chars = np.arange(N_CODE_POINTS, dtype=np.uint32).tobytes().decode("utf-32-le", "surrogatepass")
    word = np.fromiter((c.isalnum() for c in chars), dtype=bool, count=N_CODE_POINTS)
    word[ord("_")] = True
    codes = np.arange(N_CODE_POINTS, dtype=np.uint32)
    # U+0130 would lower to two code points and shift every later position: probe with "I",
    # which has the same first lowercase code point and is cased like it
    codes[DOTTED_CAPITAL_I] = ord("I")
    lower = _lower_probe([0], 0, codes)[:, 0].astype(np.int32)
    lower[CAPITAL_SIGMA] = SMALL_SIGMA
    alpha, newline = 0x391, 0x0A
    # "Α x Σ": Σ is final iff x is cased or case-ignorable (looking back past ignorables)
    back = _lower_probe([alpha, 0, CAPITAL_SIGMA, newline], 1, codes)[:, 2] == FINAL_SIGMA
    # "Α Σ x": Σ stays σ iff x is cased and not case-ignorable (looking ahead past ignorables)
    ahead = _lower_probe([alpha, CAPITAL_SIGMA, 0, newline], 2, codes)[:, 1] == SMALL_SIGMA
    props = word.astype(np.uint8) * WORD
    props |= ahead.astype(np.uint8) * CASED
    props |= (back & ~ahead).astype(np.uint8) * CASE_IGNORABLE
    return props, lower
