"""The commit protocol's two guards: a lock per destination and a journal per commit.

:class:`synthamp.release._io.OutputTransaction` publishes every output of a run
(table, partitioned folder, reports) in one commit. Two things make that
commit safe against other runs and against a process killed outright:

- **A lock per destination.** :func:`acquire_lock` takes an exclusive,
  non-blocking ``flock`` on ``.NAME.synthamp-lock`` next to the destination
  ``NAME`` and holds it from the moment the run registers the output until
  the commit is over. A second run writing the same destination is refused at
  once (naming the first run's process id); the kernel releases the lock of a
  killed process, so holding it proves that no live run owns the destination.
  The lock file is removed on release (the inode is re-checked after locking,
  so a run that opened a removed lock file retries).
- **A journal per commit.** Before the first rename, the commit writes (and
  fsyncs) a journal ``.NAME.synthamp-journal-PID-TOKEN`` next to every
  destination, listing for each output its destination, its complete
  temporary copy and the name the old version will be moved to. A run that
  later takes the lock of a destination and finds a journal there (its writer
  is dead: it would hold the lock otherwise) rolls that commit *forward*
  (:func:`recover`): every temporary copy still present is published, then
  the old versions are removed. Each step is idempotent, so a recovery that
  is itself killed is completed by the next run. The only copy of anything is
  never deleted: an old version is removed only once its replacement is in
  place.

Nothing here knows about privacy; only names, renames and locks.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path

from synthamp._validation import InputError

__all__ = [
    "JOURNAL_TAG",
    "LOCK_TAG",
    "MANIFEST_NAME",
    "DestinationLock",
    "acquire_lock",
    "journal_paths",
    "recover",
    "remove_dataset",
    "write_journals",
]

#: Tag of the lock file next to a destination: ``.NAME.synthamp-lock``.
LOCK_TAG = "synthamp-lock"
#: Tag of a commit's journal next to a destination: ``.NAME.synthamp-journal-PID-TOKEN``.
JOURNAL_TAG = "synthamp-journal"
#: The manifest inside a partitioned dataset folder that synthamp wrote.
MANIFEST_NAME = ".synthamp-manifest.json"


def _parent(path: Path) -> Path:
    return path.parent if str(path.parent) else Path(".")


def lock_path(final: Path) -> Path:
    """``.NAME.synthamp-lock`` next to ``final``."""
    return _parent(final) / f".{final.name}.{LOCK_TAG}"


@dataclass
class DestinationLock:
    """An exclusive lock on one destination (see the module docstring)."""

    path: Path
    fd: int
    #: False on a file system without ``flock`` (some network mounts): then the exclusive
    #: creation of the commit still guards, but a journal is never recovered through it.
    held: bool = True

    def release(self) -> None:
        """Remove the lock file (while still holding it), then unlock."""
        if self.fd < 0:
            return
        with contextlib.suppress(OSError):
            os.unlink(self.path)
        os.close(self.fd)
        self.fd = -1


def _holder(path: Path) -> str:
    with contextlib.suppress(OSError, ValueError):
        pid = int(path.read_text(encoding="ascii").strip() or "x")
        return f" (pid {pid})"
    return ""


#: errno values of a file system that does not support ``flock``.
_NO_FLOCK = {errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EINVAL}


def acquire_lock(final: str | os.PathLike, param: str) -> DestinationLock:
    """Lock the destination ``final`` for this run, or raise ``InputError(param, ...)``."""
    final = Path(final)
    path = lock_path(final)
    for _ in range(100):
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        except OSError as exc:
            raise InputError(param, f"cannot lock {final}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            if exc.errno in _NO_FLOCK:
                return DestinationLock(path, fd, held=False)
            os.close(fd)
            if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise InputError(
                    param,
                    f"{final} is being written by another synthamp run{_holder(path)}; "
                    "wait for it to finish or choose another path",
                ) from None
            raise InputError(param, f"cannot lock {final}: {exc.strerror or exc}") from None
        try:
            same = os.fstat(fd).st_ino == os.stat(path, follow_symlinks=False).st_ino
        except FileNotFoundError:
            same = False
        if same:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode("ascii"))
            return DestinationLock(path, fd)
        os.close(fd)  # the holder removed this lock file as we opened it: retry
    raise InputError(param, f"cannot lock {final}: the lock file keeps changing")


# --------------------------------------------------------------------------- journal


def journal_paths(final: Path) -> list[Path]:
    """The journals of earlier commits found next to ``final``."""
    prefix = f".{final.name}.{JOURNAL_TAG}-"
    try:
        entries = list(_parent(final).iterdir())
    except OSError:
        return []
    return sorted(e for e in entries if e.name.startswith(prefix) and not e.name.endswith(".part"))


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_journals(entries: list[dict]) -> list[Path]:
    """Write one journal (the same content) next to every destination; return their paths.

    Each entry: ``final``, ``temp``, ``backup`` (absolute paths as strings),
    ``directory``, ``mode`` (the mode to publish with, or None) and
    ``manifest`` (the files a dataset folder's old version may hold).
    """
    token = f"{os.getpid()}-{secrets.token_hex(4)}"
    text = json.dumps({"format": "synthamp-journal", "version": 1, "outputs": entries})
    written: list[Path] = []
    try:
        for entry in entries:
            final = Path(entry["final"])
            path = _parent(final) / f".{final.name}.{JOURNAL_TAG}-{token}"
            partial = path.with_name(path.name + ".part")
            fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(partial, path)
            written.append(path)
            _fsync_dir(_parent(final))
    except BaseException:
        remove_journals(written)
        raise
    return written


def remove_journals(paths: list[Path]) -> None:
    for path in paths:
        with contextlib.suppress(OSError):
            path.unlink()
        with contextlib.suppress(OSError):
            path.with_name(path.name + ".part").unlink()


def _read_manifest(folder: Path) -> dict | None:
    try:
        data = json.loads((folder / MANIFEST_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != "synthamp-dataset":
        return None
    files = data.get("files")
    if not isinstance(files, list) or not all(isinstance(f, dict) for f in files):
        return None
    return data


def remove_dataset(folder: Path) -> list[str]:
    """Delete a dataset folder synthamp wrote, file by file: only what its manifest lists.

    Returns the names left in place (not listed in the manifest); the folder
    itself is removed only if nothing is left.
    """
    manifest = _read_manifest(folder)
    listed = set() if manifest is None else {str(f.get("name")) for f in manifest["files"]}
    listed.add(MANIFEST_NAME)
    left = []
    try:
        entries = list(folder.iterdir())
    except OSError:
        return left
    for entry in entries:
        if entry.name in listed and entry.is_file() and not entry.is_symlink():
            with contextlib.suppress(FileNotFoundError):
                entry.unlink()
        else:
            left.append(entry.name)
    if not left:
        with contextlib.suppress(OSError):
            folder.rmdir()
    return left


def _remove_backup(path: Path, directory: bool) -> list[str]:
    if not os.path.lexists(path):
        return []
    if directory and path.is_dir() and not path.is_symlink():
        return remove_dataset(path)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    return []


def publish_mode(path: Path, mode: int | None, directory: bool) -> None:
    """Give a published output its final mode (a folder: its files too, and x where r)."""
    if mode is None:
        return
    if directory:
        for entry in path.iterdir():
            if entry.is_file() and not entry.is_symlink():
                os.chmod(entry, mode)
        os.chmod(path, mode | ((mode & 0o444) >> 2))
    else:
        os.chmod(path, mode)


def roll_forward(entry: dict) -> str:
    """Complete one output of an interrupted commit (idempotent); say what was done."""
    final, temp = Path(entry["final"]), Path(entry["temp"])
    backup = Path(entry["backup"]) if entry.get("backup") else None
    directory = bool(entry.get("directory"))
    done = "already complete"
    if os.path.lexists(temp):
        if directory and os.path.lexists(final):
            if backup is None or os.path.lexists(backup):
                return f"left {temp}: {final} and its old version both exist"
            os.rename(final, backup)
        os.replace(temp, final)
        done = "published"
    if os.path.lexists(final):
        with contextlib.suppress(OSError):
            publish_mode(final, entry.get("mode"), directory)
        if backup is not None:
            left = _remove_backup(backup, directory)
            if left:
                return f"{done}; left {backup}, which holds files synthamp did not write"
    elif backup is not None and os.path.lexists(backup):
        os.replace(backup, final)
        done = "restored the previous version"
    return done


def _remove_partial_journals(final: Path) -> None:
    """Half-written journals of a dead run (no rename had started): junk once we hold the lock."""
    prefix = f".{final.name}.{JOURNAL_TAG}-"
    with contextlib.suppress(OSError):
        for entry in _parent(final).iterdir():
            if entry.name.startswith(prefix) and entry.name.endswith(".part"):
                with contextlib.suppress(OSError):
                    entry.unlink()


def recover(final: str | os.PathLike) -> list[str]:
    """Roll forward every interrupted commit that journaled ``final`` (whose lock we hold).

    The other outputs of such a commit are completed too when their lock is
    free (a run holding one completes it itself). Returns one line per output
    recovered, for the user.
    """
    final = Path(final)
    _remove_partial_journals(final)
    lines: list[str] = []
    for journal in journal_paths(final):
        try:
            data = json.loads(journal.read_text(encoding="utf-8"))
            entries = list(data["outputs"])
        except (OSError, ValueError, KeyError, TypeError):
            lines.append(f"left {journal}: not a readable synthamp journal")
            continue
        token = journal.name.rsplit(f"{JOURNAL_TAG}-", 1)[1]
        for entry in entries:
            other = Path(entry["final"])
            mine = other.resolve() == final.resolve()
            lock = None
            if not mine:
                try:
                    lock = acquire_lock(other, "out")
                except InputError:
                    continue  # a live run holds it and will recover it
                if not lock.held:
                    lock.release()
                    continue
            try:
                what = roll_forward(entry)
                copy = _parent(other) / f".{other.name}.{JOURNAL_TAG}-{token}"
                remove_journals([copy])
                lines.append(f"{other}: {what} (a commit interrupted by a killed run)")
            except OSError as exc:
                lines.append(f"{other}: could not complete an interrupted commit: {exc}")
            finally:
                if lock is not None:
                    lock.release()
        remove_journals([journal])
    return lines


def remove_tree(path: Path) -> None:
    """Remove a temporary file or folder this run (or a dead run) created."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
