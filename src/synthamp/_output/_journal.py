"""The commit protocol's two guards: a lock per destination and a journal per commit.

:class:`synthamp._output._io.OutputTransaction` publishes every output of a run
(table, partitioned folder, reports) in one commit. Two things make that
commit safe against other runs and against a process killed outright:

- **A lock per destination.** :func:`acquire_lock` takes an exclusive,
  non-blocking ``flock`` on ``.NAME.synthamp-lock`` next to the destination
  ``NAME`` and holds it from the moment the run registers the output until
  the commit is over. A second run writing the same destination is refused at
  once (naming the first run's process id); the kernel releases the lock of a
  killed process, so holding it proves that no live run owns the destination.
  A lock file is used only if it is this user's regular file of mode 0600
  (opened without following links); the lock file is removed on release (the
  inode is re-checked after locking, so a run that opened a removed lock file
  retries).
- **A journal per commit.** Before the first rename, the commit writes (and
  fsyncs) a journal ``.NAME.synthamp-journal-PID-TOKEN`` (mode 0600) next to
  every destination, listing for each output its destination, its complete
  temporary copy, the name the old version will be moved to, and the inodes
  of the new and the old version. A run that later takes the locks of its
  destinations and finds a journal there (its writer is dead: it would hold
  the lock otherwise) completes that commit (:func:`recover`) *before* it
  checks whether its outputs exist: every temporary copy still present is
  published, then the old versions are removed; only if a destination that
  was to be created exclusively was taken meanwhile by another program is the
  commit rolled back instead (the old versions put back). Each step is
  idempotent, so a recovery that is itself killed is completed by the next
  run. The only copy of anything is never deleted: an old version is removed
  only once its replacement is in place.

A journal is trusted only if it is ours (:mod:`synthamp._output._owned`): this
user's regular file of mode 0600 in the destination's folder, naming as
destinations only this run's own, and as temporaries only each destination's
own ``.NAME.synthamp-tmp-PID-TOKEN`` next to it; and each file it names is
acted on only if it is this user's, of the recorded inode, never through a
symbolic link. Anything else is left untouched, and said once.

Nothing here knows about privacy; only names, renames and locks.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import re
import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path

from synthamp._output._owned import (
    MANIFEST_NAME,
    chmod_owned,
    foreign_reason,
    lstat_or_none,
    read_manifest,
    read_owned_text,
    remove_dataset,
)
from synthamp._output._signals import signals_held
from synthamp._validation import InputError, printable

__all__ = [
    "JOURNAL_TAG",
    "LOCK_TAG",
    "MANIFEST_NAME",
    "DestinationLock",
    "LockBusy",
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
#: Tag of a temporary output (mirrors :data:`synthamp._output._io.TEMP_TAG`).
_TEMP_TAG = "synthamp-tmp"
#: The mode of every lock and journal synthamp writes (and the only one it trusts).
PRIVATE_MODE = 0o600

_read_manifest = read_manifest  # the name the callers know


def _parent(path: Path) -> Path:
    return path.parent if str(path.parent) else Path(".")


def lock_path(final: Path) -> Path:
    """``.NAME.synthamp-lock`` next to ``final``."""
    return _parent(final) / f".{final.name}.{LOCK_TAG}"


class LockBusy(InputError):
    """Another live synthamp run holds the destination's lock."""


@dataclass
class DestinationLock:
    """An exclusive lock on one destination (see the module docstring)."""

    path: Path
    fd: int
    #: False on a file system without ``flock`` (some network mounts): then the exclusive
    #: creation of the commit still guards, but a journal is never recovered through it.
    held: bool = True

    def release(self) -> None:
        """Remove the lock file (while still holding it, and only if it is still ours), unlock."""
        if self.fd < 0:
            return
        with contextlib.suppress(OSError):
            if os.stat(self.path, follow_symlinks=False).st_ino == os.fstat(self.fd).st_ino:
                os.unlink(self.path)
        os.close(self.fd)
        self.fd = -1


def _holder(path: Path) -> str:
    text, reason = read_owned_text(path, mode=PRIVATE_MODE, limit=64)
    with contextlib.suppress(ValueError):
        if not reason:
            return f" (pid {int(text.strip() or 'x')})"
    return ""


#: errno values of a file system that does not support ``flock``.
_NO_FLOCK = {errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EINVAL}


def _open_lock(path: Path, final: Path, param: str) -> tuple[int, bool]:
    """Create the lock file (0600), or open an existing one if it is ours; (fd, created)."""
    flags = os.O_RDWR | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, PRIVATE_MODE)
        created = True
    except FileExistsError:
        try:
            fd = os.open(path, flags | os.O_NONBLOCK)
        except OSError as exc:
            what = "a symbolic link" if exc.errno == errno.ELOOP else exc.strerror
            raise InputError(param, f"cannot lock {final}: {path.name} is {what}") from None
        created = False
    except OSError as exc:
        raise InputError(param, f"cannot lock {final}: {exc.strerror or exc}") from None
    try:
        if created:
            os.fchmod(fd, PRIVATE_MODE)  # whatever the umask
        else:
            reason = foreign_reason(os.fstat(fd), mode=PRIVATE_MODE)
            if reason:
                raise InputError(
                    param,
                    f"cannot lock {final}: {printable(path.name)} is not synthamp's lock "
                    f"({reason}); left untouched: remove it or choose another path",
                )
    except BaseException:
        os.close(fd)
        raise
    return fd, created


def acquire_lock(final: str | os.PathLike, param: str) -> DestinationLock:
    """Lock the destination ``final`` for this run, or raise ``InputError(param, ...)``.

    Signals are held meanwhile, so that an interrupt never leaves the lock file behind.
    """
    final = Path(final)
    path = lock_path(final)
    with signals_held():
        for _ in range(100):
            fd, created = _open_lock(path, final, param)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno in _NO_FLOCK:
                    return DestinationLock(path, fd, held=False)
                if created:
                    with contextlib.suppress(OSError):
                        os.unlink(path)
                os.close(fd)
                if exc.errno in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    raise LockBusy(
                        param,
                        f"{final} is being written by another synthamp run{_holder(path)}; "
                        "wait for it to finish or choose another path",
                    ) from None
                raise InputError(param, f"cannot lock {final}: {exc.strerror or exc}") from None
            try:
                same = os.fstat(fd).st_ino == os.stat(path, follow_symlinks=False).st_ino
            except FileNotFoundError:
                same = False
            if not same:
                os.close(fd)  # the holder removed this lock file as we opened it: retry
                continue
            lock = DestinationLock(path, fd)
            try:
                os.ftruncate(fd, 0)
                os.write(fd, f"{os.getpid()}\n".encode("ascii"))
            except OSError as exc:  # a full disk: no lock file left behind
                lock.release()
                raise InputError(param, f"cannot lock {final}: {exc.strerror or exc}") from None
            return lock
    raise InputError(param, f"cannot lock {final}: the lock file keeps changing")


# --------------------------------------------------------------------------- journal


def journal_paths(final: Path) -> list[Path]:
    """The journals of earlier commits found next to ``final`` (not yet checked)."""
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
    """Write one journal (the same content, mode 0600) next to every destination.

    Each entry: ``final``, ``temp``, ``backup`` (absolute paths as strings),
    ``directory``, ``replace``, ``mode`` (the mode to publish with, or None),
    ``temp_ino`` and ``old_ino`` (the inodes of the new and the old version).
    Returns the journals' paths; on any failure none is left (nor a ``.part``).
    """
    token = f"{os.getpid()}-{secrets.token_hex(4)}"
    text = json.dumps({"format": "synthamp-journal", "version": 2, "outputs": entries})
    written: list[Path] = []
    partial: Path | None = None
    try:
        for entry in entries:
            final = Path(entry["final"])
            path = _parent(final) / f".{final.name}.{JOURNAL_TAG}-{token}"
            partial = path.with_name(path.name + ".part")
            fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                os.fchmod(fd, PRIVATE_MODE)
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(partial, path)
            partial = None
            written.append(path)
            _fsync_dir(_parent(final))
    except BaseException:
        remove_journals(written + ([partial] if partial is not None else []))
        raise
    return written


def remove_journals(paths: list[Path]) -> None:
    """Remove journals (and their ``.part``) this user wrote; foreign files stay."""
    for path in paths:
        for name in (path, path.with_name(path.name + ".part")):
            st = lstat_or_none(name)
            if st is not None and not foreign_reason(st):
                with contextlib.suppress(OSError):
                    os.unlink(name)


def _remove_backup(path: Path, directory: bool, ino: int | None = None) -> list[str]:
    """Remove an old version moved aside (ours, of inode ``ino``); return what was left."""
    st = lstat_or_none(path)
    if st is None:
        return []
    if foreign_reason(st, directory=directory, ino=ino):
        return [path.name]
    if directory:
        return remove_dataset(path, ino=ino)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    return []


def publish_mode(path: Path, mode: int | None, directory: bool, ino: int | None = None) -> None:
    """Give a published output its final mode (masked to 0o777; a folder: its files too)."""
    chmod_owned(path, mode, directory=directory, ino=ino)


# --------------------------------------------------------------------------- trust


def _key(path: str | os.PathLike) -> str:
    return os.path.normpath(os.path.abspath(path))


class _Untrusted(Exception):
    """A journal (or a file it names) that is not this user's synthamp's: left untouched."""


def _temp_pattern(name: str, old: bool) -> re.Pattern:
    suffix = r"\.old" if old else ""
    return re.compile(rf"\.{re.escape(name)}\.{_TEMP_TAG}-\d+-[0-9a-f]+{suffix}")


def _checked_entry(entry, destinations: set[str]) -> dict:
    """The entry, if it names one of this run's destinations and only its own temporaries."""
    if not isinstance(entry, dict):
        raise _Untrusted("an entry is not an object")
    final = entry.get("final")
    if not isinstance(final, str) or not os.path.isabs(final) or _key(final) not in destinations:
        raise _Untrusted(f"it names {printable(str(final))!r}, which this run does not write")
    final_path = Path(_key(final))
    checked = {"final": final_path}
    for field, old in (("temp", False), ("backup", True)):
        value = entry.get(field)
        if value is None and field == "backup":
            checked[field] = None
            continue
        if not isinstance(value, str) or not os.path.isabs(value):
            raise _Untrusted(f"its {field} path is not an absolute path")
        path = Path(os.path.normpath(value))
        if path.parent != final_path.parent or not _temp_pattern(final_path.name, old).fullmatch(
            path.name
        ):
            raise _Untrusted(f"{printable(value)!r} is not a temporary of {final_path.name}")
        checked[field] = path
    for field in ("directory", "replace"):
        value = entry.get(field, field == "replace")
        if not isinstance(value, bool):
            raise _Untrusted(f"its {field} field is not true or false")
        checked[field] = value
    for field in ("mode", "temp_ino", "old_ino"):
        value = entry.get(field)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise _Untrusted(f"its {field} field is not a number")
        checked[field] = value
    if checked["mode"] is not None:
        checked["mode"] &= 0o777  # never setuid, setgid or sticky
    return checked


def _read_journal(journal: Path, final: Path, destinations: set[str]) -> list[dict]:
    """The checked entries of a journal found next to ``final``, or raise :class:`_Untrusted`."""
    text, reason = read_owned_text(journal, mode=PRIVATE_MODE)
    if reason:
        raise _Untrusted(reason)
    try:
        data = json.loads(text)
        assert isinstance(data, dict) and data.get("format") == "synthamp-journal"
        raw = data["outputs"]
        assert isinstance(raw, list) and raw
    except (ValueError, KeyError, AssertionError):
        raise _Untrusted("not a readable synthamp journal") from None
    entries = [_checked_entry(entry, destinations) for entry in raw]
    if _key(final) not in {str(entry["final"]) for entry in entries}:
        raise _Untrusted(f"it does not name {final.name}, next to which it lies")
    return entries


def _state(path: Path | None, *, directory: bool, ino: int | None) -> bool:
    """Whether ``path`` holds a file of ours (False: nothing); foreign: :class:`_Untrusted`."""
    st = None if path is None else lstat_or_none(path)
    if st is None:
        return False
    reason = foreign_reason(st, directory=directory, ino=ino)
    if reason:
        raise _Untrusted(f"{printable(path)} is {reason}")
    return True


def _ino(path: Path) -> int | None:
    st = lstat_or_none(path)
    return None if st is None else st.st_ino


# --------------------------------------------------------------------------- completion


def _as_checked(entry: dict) -> dict:
    """An entry as :func:`_checked_entry` gives it (a raw one checked against its own final)."""
    if isinstance(entry.get("final"), Path):
        return entry
    return _checked_entry(entry, {_key(str(entry.get("final")))})


def _conflict(entry: dict) -> bool:
    """Whether this output's destination was taken by another program meanwhile."""
    ino = _ino(entry["final"])
    pending = _state(entry["temp"], directory=entry["directory"], ino=entry["temp_ino"])
    if ino is None or not pending:
        return False
    if ino == entry["temp_ino"]:
        return False  # published by a hard link; the temporary name is still there
    replaceable = entry["replace"] and entry["backup"] is not None and ino == entry["old_ino"]
    return not (replaceable and _ino(entry["backup"]) is None)


def _publish_checked(temp: Path, final: Path, temp_ino: int | None) -> None:
    """Rename ``temp`` onto ``final``; if another file was swapped in meanwhile, undo it."""
    os.rename(temp, final)
    if temp_ino is not None and _ino(final) != temp_ino:
        os.rename(final, temp)  # not the file the journal recorded: put it back, untouched
        raise _Untrusted(f"{printable(temp)} was swapped while it was published")


def roll_forward(entry: dict) -> str:
    """Complete one output of an interrupted commit (idempotent); say what was done."""
    entry = _as_checked(entry)
    final, temp, backup = entry["final"], entry["temp"], entry["backup"]
    directory, temp_ino, old_ino = entry["directory"], entry.get("temp_ino"), entry.get("old_ino")
    done = "already complete"
    if _state(temp, directory=directory, ino=temp_ino):
        ino = _ino(final)
        if ino is not None and ino == temp_ino:
            os.unlink(temp)  # the hard link was made: only the temporary name is left
        elif ino is not None:
            if backup is None or _ino(backup) is not None or (old_ino and ino != old_ino):
                return f"left {temp}: {final} and its old version both exist"
            os.rename(final, backup)
            _publish_checked(temp, final, temp_ino)
        elif directory or entry["replace"]:
            _publish_checked(temp, final, temp_ino)
        else:
            os.link(temp, final)  # never over a file that appeared meanwhile
            os.unlink(temp)
        done = "published"
    if _ino(final) is not None and (temp_ino is None or _ino(final) == temp_ino):
        with contextlib.suppress(OSError):
            publish_mode(final, entry.get("mode"), directory, temp_ino)
        if backup is not None and _state(backup, directory=directory, ino=old_ino):
            left = _remove_backup(backup, directory, old_ino)
            if left:
                return f"{done}; left {backup}, which holds files synthamp did not write"
    elif _ino(final) is None and _state(backup, directory=directory, ino=old_ino):
        os.rename(backup, final)
        done = "restored the previous version"
    return done


def roll_back(entry: dict) -> str:
    """Undo one output of an interrupted commit: its old version back, the new one removed."""
    entry = _as_checked(entry)
    final, temp, backup = entry["final"], entry["temp"], entry["backup"]
    directory, temp_ino, old_ino = entry["directory"], entry.get("temp_ino"), entry.get("old_ino")
    ino = _ino(final)
    if ino is not None and temp_ino is not None and ino == temp_ino:
        if _ino(temp) is None:
            os.rename(final, temp)
        else:
            os.unlink(final)  # a hard link of the temporary copy
    if _ino(final) is None and _state(backup, directory=directory, ino=old_ino):
        os.rename(backup, final)
    if _state(temp, directory=directory, ino=temp_ino):
        remove_tree(temp)
    return "rolled back (another program created one of its outputs meanwhile)"


def _complete(entries: list[dict]) -> list[str]:
    """Roll the commit forward (or, on a conflict, back); one line per output."""
    for entry in entries:  # every file it names must be ours before any is touched
        _state(entry["temp"], directory=entry["directory"], ino=entry["temp_ino"])
        _state(entry["backup"], directory=entry["directory"], ino=entry["old_ino"])
    step = roll_back if any(_conflict(entry) for entry in entries) else roll_forward
    lines = []
    for entry in entries:
        try:
            what = step(entry)
        except OSError as exc:
            what = f"could not complete an interrupted commit: {exc.strerror or exc}"
        except _Untrusted as exc:
            what = f"left untouched: {exc}"
        lines.append(f"{entry['final']}: {what} (a commit interrupted by a killed run)")
    return lines


def _remove_partial_journals(final: Path) -> None:
    """Half-written journals of a dead run (no rename had started): junk once we hold the lock."""
    prefix = f".{final.name}.{JOURNAL_TAG}-"
    with contextlib.suppress(OSError):
        for entry in _parent(final).iterdir():
            if entry.name.startswith(prefix) and entry.name.endswith(".part"):
                st = lstat_or_none(entry)
                if st is not None and not foreign_reason(st):
                    with contextlib.suppress(OSError):
                        entry.unlink()


def recover(*finals: str | os.PathLike) -> list[str]:
    """Complete every interrupted commit journaled next to ``finals`` (whose locks we hold).

    ``finals`` are all the destinations of this run; a journal naming any other
    destination, or not ours (:func:`_read_journal`), is left untouched. Returns one
    line per output recovered and per journal ignored, for the user.
    """
    paths = [Path(final) for final in finals]
    destinations = {_key(final) for final in paths}
    lines: list[str] = []
    seen: set[str] = set()
    for final in paths:
        _remove_partial_journals(final)
        for journal in journal_paths(final):
            token = journal.name.rsplit(f"{JOURNAL_TAG}-", 1)[1]
            if token in seen:
                continue
            try:
                entries = _read_journal(journal, final, destinations)
                lines += _complete(entries)
            except _Untrusted as exc:
                lines.append(f"ignored {journal}: {exc}; left untouched")
                continue
            seen.add(token)
            remove_journals(
                [_parent(e["final"]) / f".{e['final'].name}.{JOURNAL_TAG}-{token}" for e in entries]
            )
    return lines


def journaled_names(final: Path) -> set[str]:
    """The temporaries that journals still next to ``final`` (this user's) name: kept.

    A journal left untouched (it names a destination this run does not write) can
    still be completed by a run writing its outputs; its copies must survive until then.
    """
    names: set[str] = set()
    for journal in journal_paths(final):
        text, reason = read_owned_text(journal, mode=PRIVATE_MODE)
        try:
            outputs = [] if reason else json.loads(text)["outputs"]
        except (ValueError, KeyError, TypeError):
            continue
        for entry in outputs if isinstance(outputs, list) else []:
            for field in ("temp", "backup"):
                value = entry.get(field) if isinstance(entry, dict) else None
                if isinstance(value, str):
                    names.add(Path(value).name)
    return names


def remove_tree(path: Path) -> None:
    """Remove a temporary file or folder this run (or a dead run of this user) created."""
    st = lstat_or_none(path)
    if st is None or st.st_uid != os.geteuid():
        return
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
