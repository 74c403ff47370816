"""Files written whole or not at all.

Every file nbayes writes — model files (:mod:`nbayes.persist`), predictions and out-of-fold rows
(``nbayes predict -o``, ``nbayes cv --oof``), reports (``nbayes report``, :func:`nbayes.report`)
— is written through :func:`replacing`: the bytes go to a temporary file in the target's folder
(unnamed, with ``O_TMPFILE``, where the system has it, so that a process killed while writing
leaves nothing behind; else a hidden ``.NAME.<random>.tmp`` removed on every failure), are
flushed to disk, and only then is the file renamed over the target (``os.replace``). A failure
at any point — an exception, a bad row late in the input, a full disk, Ctrl-C — leaves the old
file as it was and no temporary file. The new file keeps the permission bits (and, where
allowed, the owner) of the file it replaces; a new file gets those of the umask. A symbolic
link's target is replaced and the link kept.

Only standard-library modules are imported here: the command line reaches this module without
loading NumPy.
"""

from __future__ import annotations

import errno
import io
import os
import stat
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

__all__ = ["destination", "kind_of", "replacing"]


@contextmanager
def replacing(
    path: str | os.PathLike,
    *,
    text: bool = False,
    encoding: str = "utf-8",
    newline: str | None = None,
    what: str = "a file",
    special: bool = False,
) -> Iterator[IO[Any]]:
    """A file object to write ``path``'s new content to; ``path`` is replaced when the block
    ends without an exception, and left untouched (with no temporary file) when it raises.

    ``text`` gives a text file (``encoding``, ``newline`` as :func:`open` takes them), else a
    binary one. ``what`` names the file in the error for a target that is a folder, a FIFO or a
    device (``"a model"``). With ``special=True`` such a target (``/dev/stdout``, a named pipe)
    is written to directly instead, since it cannot be replaced; a folder is always refused.

    A temporary file that cannot be created (a missing folder, no permission, a read-only file
    system) raises the OSError of its cause naming ``path`` itself, not the temporary file.
    """
    target = destination(Path(path), what, special=special)
    if target is None:  # a device or a pipe: nothing to replace, write to it as it is
        mode = "w" if text else "wb"
        with open(path, mode, encoding=encoding if text else None, newline=newline) as handle:
            yield handle
        return
    folder = target.parent
    try:
        previous: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        previous = None
    try:
        fd, named = _temporary(folder, target.name)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, str(path)) from exc
    placed: Path | None = named
    try:
        with os.fdopen(fd, "wb", closefd=False) as binary:
            if text:
                handle = io.TextIOWrapper(binary, encoding=encoding, newline=newline)
                yield handle
                handle.flush()
                handle.detach()  # the binary file is closed below, not by the wrapper
            else:
                yield binary
        _settle(fd, previous)
        if placed is None:  # an unnamed file: give it a name now that its bytes are on disk
            placed = folder / f".{target.name}.{uuid.uuid4().hex}.tmp"
            _link_unnamed(fd, placed)
        os.replace(placed, target)
        placed = None
        _sync_folder(folder)
    finally:
        os.close(fd)
        if placed is not None:
            placed.unlink(missing_ok=True)


def destination(path: Path, what: str = "a file", *, special: bool = False) -> Path | None:
    """The file to write for ``path``: itself, or a symbolic link's target; None for a device
    or a pipe when ``special`` (written to directly). Anything else that is not a regular file
    (a folder; a device, FIFO or socket unless ``special``) is a ValueError."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return path
    if stat.S_ISLNK(info.st_mode):
        try:
            info = os.stat(path)  # what the link leads to (/dev/stdout: a pipe, say)
        except FileNotFoundError:
            return Path(os.path.realpath(path))  # a link to a file not created yet: create it
        if stat.S_ISREG(info.st_mode):
            return Path(os.path.realpath(path))
    if stat.S_ISREG(info.st_mode):
        return path
    if special and (stat.S_ISCHR(info.st_mode) or stat.S_ISFIFO(info.st_mode)):
        return None
    raise ValueError(
        f"{path} is {kind_of(info.st_mode)}, not a regular file: {what} is written only to a new "
        "path or over a regular file."
    )


def kind_of(mode: int) -> str:
    """What a file of ``st_mode`` ``mode`` is, in words: "a folder", "a FIFO (named pipe)", …"""
    for test, name in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def _settle(fd: int, previous: os.stat_result | None) -> None:
    """Give the written file the mode (and owner, where allowed) of the file it replaces, and
    flush it to disk."""
    if previous is not None:
        os.fchmod(fd, stat.S_IMODE(previous.st_mode))
        info = os.fstat(fd)
        if (previous.st_uid, previous.st_gid) != (info.st_uid, info.st_gid):
            try:
                os.fchown(fd, previous.st_uid, previous.st_gid)
            except OSError:
                pass  # not allowed to give the file away: it stays ours
    os.fsync(fd)


def _temporary(folder: Path, name: str) -> tuple[int, Path | None]:
    """An open temporary file in ``folder`` (created with mode 0666 less the umask): unnamed
    (O_TMPFILE: a write killed midway leaves nothing behind) where possible, else named."""
    unnamed = getattr(os, "O_TMPFILE", 0)
    if unnamed and os.path.isdir("/proc/self/fd"):
        try:
            return os.open(folder, unnamed | os.O_WRONLY | os.O_CLOEXEC, 0o666), None
        except OSError as exc:
            if exc.errno not in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL, errno.ENOENT):
                raise
    path = folder / f".{name}.{uuid.uuid4().hex}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0), 0o666), path


def _link_unnamed(fd: int, path: Path) -> None:
    """Give the unnamed (O_TMPFILE) file ``fd`` the name ``path``. Python calls linkat(2) with
    AT_SYMLINK_FOLLOW, which resolves /proc/self/fd/N to the open file, only when given a
    folder descriptor."""
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.link(f"/proc/self/fd/{fd}", path.name, dst_dir_fd=folder, follow_symlinks=True)
    finally:
        os.close(folder)


def _sync_folder(folder: Path) -> None:
    """Flush the rename itself to disk (where a folder can be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
