"""Acting only on files this user's synthamp wrote: ownership checked on file descriptors.

The commit protocol (:mod:`synthamp._output._journal`) finds files by name in
folders other users may write to (a shared output folder). A name proves
nothing: another user can plant a journal, a lock or a temporary file, or swap
one for a symbolic link between a check and its use. So every file synthamp
acts on without having just created it is

- opened with ``O_NOFOLLOW`` (a symbolic link is refused, never followed) and
  checked on the open descriptor (``fstat``): a regular file (or folder),
  owned by this user, of the inode the journal recorded where it recorded one;
- changed through that descriptor (``fchmod``), or, for a folder's files,
  through the folder's descriptor (``dir_fd``), so that a name swapped after
  the check is never the one acted on;
- given a mode masked to 0o777: never setuid, setgid or sticky.

Anything else is *foreign*: left untouched, and the caller says so once.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
from pathlib import Path

__all__ = [
    "MANIFEST_NAME",
    "chmod_owned",
    "foreign_reason",
    "lstat_or_none",
    "read_manifest",
    "read_owned_text",
    "remove_dataset",
]

#: The manifest inside a partitioned dataset folder that synthamp wrote.
MANIFEST_NAME = ".synthamp-manifest.json"

#: The only mode bits synthamp ever gives a file: no setuid, setgid or sticky bit.
MODE_MASK = 0o777 & ~0o7000

_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


def lstat_or_none(path: str | os.PathLike) -> os.stat_result | None:
    """``os.lstat(path)``, or None if nothing is there."""
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return None


def foreign_reason(
    st: os.stat_result, *, directory: bool = False, ino: int | None = None, mode: int | None = None
) -> str:
    """Why the file described by ``st`` is not one this user's synthamp wrote ("" if it is)."""
    if stat.S_ISLNK(st.st_mode):
        return "a symbolic link"
    if directory and not stat.S_ISDIR(st.st_mode):
        return "not a folder"
    if not directory and not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    if st.st_uid != os.geteuid():
        return f"owned by another user (uid {st.st_uid})"
    if ino is not None and st.st_ino != ino:
        return "not the file synthamp wrote there"
    if mode is not None and stat.S_IMODE(st.st_mode) != mode:
        return f"of mode {stat.S_IMODE(st.st_mode):04o}, not {mode:04o}"
    return ""


def _open_reason(exc: OSError) -> str:
    if exc.errno == errno.ELOOP:
        return "a symbolic link"
    return exc.strerror or type(exc).__name__


def read_owned_text(path: str | os.PathLike, *, mode: int, limit: int = 1 << 20) -> tuple[str, str]:
    """The text of ``path`` if it is this user's regular file of exactly ``mode``.

    Returns ``(text, "")``, or ``("", reason)`` when it is not to be trusted.
    """
    try:
        fd = os.open(path, _READ)
    except OSError as exc:
        return "", _open_reason(exc)
    try:
        reason = foreign_reason(os.fstat(fd), mode=mode)
        if reason:
            return "", reason
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            return "", "too large"
        return b"".join(chunks).decode("utf-8", errors="replace"), ""
    except OSError as exc:
        return "", _open_reason(exc)
    finally:
        os.close(fd)


def chmod_owned(
    path: str | os.PathLike, mode: int | None, *, directory: bool, ino: int | None = None
) -> None:
    """Give a published output ``mode`` & 0o777 (a folder: its files too, and x where r).

    Only through descriptors opened without following links, and only if the
    output is this user's (of inode ``ino`` if given); a foreign one is left as it is.
    """
    if mode is None:
        return
    mode = int(mode) & MODE_MASK
    flags = _READ | (os.O_DIRECTORY if directory else 0)
    fd = os.open(path, flags)
    try:
        if foreign_reason(os.fstat(fd), directory=directory, ino=ino):
            return
        if directory:
            for name in os.listdir(fd):
                with contextlib.suppress(OSError):
                    child = os.open(name, _READ, dir_fd=fd)
                    try:
                        if not foreign_reason(os.fstat(child)):
                            os.fchmod(child, mode)
                    finally:
                        os.close(child)
            os.fchmod(fd, mode | ((mode & 0o444) >> 2))
        else:
            os.fchmod(fd, mode)
    finally:
        os.close(fd)


def _manifest_at(fd: int) -> dict | None:
    try:
        child = os.open(MANIFEST_NAME, _READ, dir_fd=fd)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(child).st_mode):
            return None
        with os.fdopen(os.dup(child), "rb") as handle:
            data = json.loads(handle.read(1 << 24).decode("utf-8"))
    except (OSError, ValueError):
        return None
    finally:
        os.close(child)
    if not isinstance(data, dict) or data.get("format") != "synthamp-dataset":
        return None
    files = data.get("files")
    if not isinstance(files, list) or not all(isinstance(f, dict) for f in files):
        return None
    return data


def read_manifest(folder: str | os.PathLike) -> dict | None:
    """The manifest of a dataset folder synthamp wrote, or None (no valid manifest)."""
    try:
        fd = os.open(folder, _READ | os.O_DIRECTORY)
    except OSError:
        return None
    try:
        return _manifest_at(fd)
    finally:
        os.close(fd)


def remove_dataset(folder: str | os.PathLike, *, ino: int | None = None) -> list[str]:
    """Delete a dataset folder synthamp wrote, file by file: only what its manifest lists.

    The folder is opened without following links and must be this user's (of
    inode ``ino`` if given); its listed files are removed through its
    descriptor, this user's regular files only, and the manifest *last*, so that a
    removal killed half-way leaves a folder the next one still recognises
    (never parts orphaned without their manifest). Returns the names left in
    place; the folder itself is removed only if nothing is left.
    """
    folder = Path(folder)
    try:
        fd = os.open(folder, _READ | os.O_DIRECTORY)
    except OSError as exc:
        return [] if isinstance(exc, FileNotFoundError) else [folder.name]
    try:
        reason = foreign_reason(os.fstat(fd), directory=True, ino=ino)
        names = os.listdir(fd)
        if reason:
            return sorted(names) or [folder.name]
        manifest = _manifest_at(fd)
        listed = set() if manifest is None else {str(f.get("name")) for f in manifest["files"]}
        listed.discard(MANIFEST_NAME)
        left = []
        for name in names:
            if name == MANIFEST_NAME:
                continue
            try:
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                continue
            if name in listed and not foreign_reason(st):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(name, dir_fd=fd)
            else:
                left.append(name)
        if MANIFEST_NAME in names:
            st = os.stat(MANIFEST_NAME, dir_fd=fd, follow_symlinks=False)
            if foreign_reason(st):
                left.append(MANIFEST_NAME)
            else:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(MANIFEST_NAME, dir_fd=fd)
    finally:
        os.close(fd)
    if not left:
        with contextlib.suppress(OSError):
            folder.rmdir()
    return sorted(left)
