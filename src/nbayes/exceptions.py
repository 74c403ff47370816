"""Exceptions and warnings raised by nbayes.

The class names follow scikit-learn's where a scikit-learn user would catch them, so code written
against ``sklearn.exceptions`` keeps working without importing scikit-learn here.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Iterable, Sequence
from typing import Any

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def caller_stacklevel() -> int:
    """The ``stacklevel`` for ``warnings.warn`` that points at the first frame outside nbayes.

    Call it in the function that calls ``warnings.warn``. A fixed number would be right for one
    call path only, and the same warning is reached through several (``predict``,
    ``predict_proba``, a generator over row chunks).
    """
    frame = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    return level


#: OSError numbers in plain words (what is wrong with the path).
OS_REASONS = {
    errno.ENOENT: "no such file",
    errno.EISDIR: "it is a folder",
    errno.ENOTDIR: "a part of its path is not a folder",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.ELOOP: "too many levels of symbolic links",
    errno.ENAMETOOLONG: "the name is too long",
    errno.ENOSPC: "no space left on the device",
    errno.EDQUOT: "the disk quota is exceeded",
    errno.EROFS: "the file system is read-only",
    errno.EIO: "an input/output error",
}


def os_reason(error: OSError) -> str:
    """What is wrong, in plain words, for an OSError (``no such file``, ``permission denied``),
    without Python's ``[Errno 2]``."""
    reason = OS_REASONS.get(error.errno) if error.errno is not None else None
    if reason is None and error.strerror:
        reason = error.strerror[:1].lower() + error.strerror[1:]
    return " ".join((reason or str(error)).split())


def close_match(given: str, choices: Iterable[Any]) -> str | None:
    """The choice closest to ``given`` by :func:`difflib.get_close_matches`, or None when none
    is close (a misspelt column, family or option)."""
    import difflib  # only on the error path

    close = difflib.get_close_matches(str(given), [str(c) for c in choices], n=1)
    return close[0] if close else None


def did_you_mean(given: str, choices: Iterable[Any]) -> str:
    """``did you mean 'x'?`` for the choice closest to ``given`` (by
    :func:`difflib.get_close_matches`), or ``""`` when none is close."""
    close = close_match(given, choices)
    return f"did you mean {close!r}?" if close is not None else ""


def choice_hint(given: Any, choices: Iterable[Any]) -> str:
    """The end of a message about a value that is not among ``choices`` (a misspelt option):
    ``"; did you mean 'gaussian'?"`` where one is close to a text ``given``, else ``"."``."""
    if not isinstance(given, str):
        return "."
    by_text = {str(c): c for c in choices}  # None is offered as None, not as 'None'
    close = close_match(given, list(by_text))
    return f"; did you mean {by_text[close]!r}?" if close is not None else "."


def suggest_names(given: Sequence[Any], choices: Iterable[Any]) -> str:
    """The end of a message about names that are not among ``choices`` (misspelt columns):
    ``"; did you mean 'x'?"`` (one name), ``"; did you mean 'x' for 'xx', 'y' for 'yy'?"``
    (several), or ``"."`` when no choice is close. The first 20 names are looked at (a
    message, not a spelling check)."""
    choices = [str(c) for c in choices]
    pairs = [(g, m) for g in list(given)[:20] if (m := close_match(g, choices)) is not None]
    if not pairs:
        return "."
    if len(given) == 1:
        return f"; did you mean {pairs[0][1]!r}?"
    return "; did you mean " + ", ".join(f"{m!r} for {g!r}" for g, m in pairs) + "?"


class NotFittedError(ValueError, AttributeError):
    """A method that needs a fitted model was called before ``fit`` or ``partial_fit``."""


class DataConversionWarning(UserWarning):
    """The input was converted in a way the caller may not expect (e.g. a column-vector ``y``)."""


class UnseenCategoryWarning(UserWarning):
    """Prediction met category codes that did not occur when fitting; they were skipped."""


class ZeroLikelihoodWarning(UserWarning):
    """Every class had likelihood exactly 0 for some rows (λ = 0); those rows got the prior."""


class ModelFileError(ValueError):
    """A model file is damaged, of an unknown version, or not an nbayes model file."""


_COMBINED: dict[tuple[type, type], type] = {}


def sklearn_compatible(ours: type) -> type:
    """``ours``, or, once scikit-learn has been imported, a subclass of both ``ours`` and
    scikit-learn's class of the same name.

    Code written for scikit-learn (``except sklearn.exceptions.NotFittedError``, warning filters
    on its ``DataConversionWarning``) then catches nbayes' errors too, without nbayes importing
    scikit-learn (which takes most of a second). Whoever catches scikit-learn's class has
    imported it, so looking in ``sys.modules`` at raise time is enough.
    """
    module = sys.modules.get("sklearn.exceptions")
    theirs = getattr(module, ours.__name__, None) if module is not None else None
    if theirs is None or issubclass(ours, theirs):
        return ours
    combined = _COMBINED.get((ours, theirs))
    if combined is None:
        combined = type(
            ours.__name__, (ours, theirs), {"__module__": ours.__module__, "__doc__": ours.__doc__}
        )
        _COMBINED[(ours, theirs)] = combined
    return combined


class MissingDependencyError(ImportError):
    """An optional dependency that a feature needs is not installed; the message names the
    command that installs it (``pip install 'nbayes[plot]'``)."""
