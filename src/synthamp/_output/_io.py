"""Transactional file output: temporary names, then one all-or-nothing commit.

No half-written output, ever, no table without its report, and nothing
replaced that synthamp did not write (the protocol, and what a user sees
after each kind of interruption: docs/release.md, "The commit protocol"):

- :func:`check_writable` and :func:`check_directory_output` check, before any
  work, that a destination may be written (its folder exists and accepts a new
  file: a probe file is created and removed, which catches read-only mounts and
  pseudo file systems such as /proc, also for root); an existing dataset
  folder is replaced only if its manifest (:data:`MANIFEST_NAME`) marks it as
  synthamp's own (:func:`check_owned_dataset`), and :func:`check_not_inside`
  refuses an input that lies inside an output folder;
- :class:`OutputTransaction` locks each destination for the run, hands out a
  temporary name for each output, next to it, created 0600, and
  :meth:`~OutputTransaction.commit` journals and publishes them all
  (exclusively where nothing may be replaced), then gives them their mode
  (:func:`default_mode`, :func:`parse_mode`); if anything fails before or
  during the commit (an exception, Ctrl-C, SIGTERM or SIGHUP turned into an
  exception by the command line), every temporary file is removed and every
  destination is left as it was; signals arriving during the renames wait for
  them;
- every temporary name carries the tag :data:`TEMP_TAG` and the id of the
  process that made it: ``.NAME.synthamp-tmp-PID-TOKEN``. A process killed
  outright (SIGKILL, power loss) cannot clean up; the next run writing the
  same destination removes such stale files (:func:`remove_stale_temporaries`)
  and completes a commit it left half done (:mod:`synthamp._output._journal`), and
  says so. An old version moved aside is never deleted while it is the only
  copy.

OSErrors while writing are turned into :class:`~synthamp.InputError` naming
the parameter (:meth:`OutputTransaction.writing`), so the command line exits
with code 2 and one line.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from synthamp._output import _journal as _journal
from synthamp._output._journal import MANIFEST_NAME, remove_tree
from synthamp._output._owned import foreign_reason, lstat_or_none
from synthamp._output._signals import HELD_SIGNALS, signals_held
from synthamp._validation import InputError, printable
from synthamp._version import __version__

__all__ = [
    "MANIFEST_NAME",
    "TEMP_TAG",
    "OutputTransaction",
    "atomic_path",
    "atomic_write_text",
    "atomic_write_with",
    "check_directory_output",
    "check_not_inside",
    "check_owned_dataset",
    "check_writable",
    "default_mode",
    "parse_mode",
    "remove_stale_temporaries",
]

#: Tag in the name of every temporary file or folder synthamp writes.
TEMP_TAG = "synthamp-tmp"

_TEMP_PATTERN = re.compile(rf"^\.(?P<name>.+)\.{TEMP_TAG}-(?P<pid>\d+)-[0-9a-f]+(\.old)?$")


def _parent(path: Path) -> Path:
    return path.parent if str(path.parent) else Path(".")


def _os_rule(action: str, path: Path | str, exc: OSError) -> str:
    lines = str(exc).strip().splitlines()
    reason = exc.strerror or (lines[0] if lines else type(exc).__name__)
    return f"cannot {action} {path}: {reason}"


def temporary_name(path: str | os.PathLike, suffix: str = "") -> Path:
    """A fresh temporary name next to ``path``: ``.NAME.synthamp-tmp-PID-TOKEN``."""
    path = Path(path)
    token = secrets.token_hex(4)
    return _parent(path) / f".{path.name}.{TEMP_TAG}-{os.getpid()}-{token}{suffix}"


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True


def _remove(path: Path) -> None:
    remove_tree(path)


def remove_stale_temporaries(
    path: str | os.PathLike, restored: list[str] | None = None, keep: set[str] | None = None
) -> list[Path]:
    """Remove temporary files of ``path`` left by synthamp processes that no longer run.

    Only names of the form ``.NAME.synthamp-tmp-PID-TOKEN`` (NAME the name of
    ``path``) whose process ``PID`` is gone are removed; those of a process still
    running (a concurrent release), those named in ``keep`` (by a journal still
    pending) and those of another user are left alone. An old version moved aside
    (``….old``) by a commit that died before publishing is never deleted while
    ``path`` is missing: it is the only copy, and is put back in place.

    Returns
    -------
    list of Path
        The temporary files or folders removed. An old version put back is
        not in it; a line saying so is appended to ``restored`` (if given).
    """
    path = Path(path)
    parent = _parent(path)
    removed = []
    try:
        entries = list(parent.iterdir())
    except OSError:
        return removed
    for entry in entries:
        match = _TEMP_PATTERN.match(entry.name)
        if match is None or match["name"] != path.name or entry.name in (keep or ()):
            continue
        if _process_alive(int(match["pid"])):
            continue
        st = lstat_or_none(entry)
        if st is None:
            continue
        reason = foreign_reason(st, directory=stat.S_ISDIR(st.st_mode))
        if reason:  # planted by someone else, or a link: never touched
            if restored is not None:
                restored.append(f"left {entry}: {reason}, not a temporary synthamp wrote")
            continue
        if entry.name.endswith(".old") and not os.path.lexists(path):
            with contextlib.suppress(OSError):
                os.rename(entry, path)
                if restored is not None:
                    restored.append(
                        f"put back {path}, which a run killed during its commit had moved "
                        f"aside to {entry.name}"
                    )
            continue
        if entry.name.endswith(".old") and entry.is_dir() and not entry.is_symlink():
            left = _journal.remove_dataset(entry)  # file by file: only what synthamp wrote
            if left and restored is not None:
                restored.append(f"left {entry}: it holds {printable(left[0])!r}, not synthamp's")
            if not left:
                removed.append(entry)
            continue
        _remove(entry)
        removed.append(entry)
    return removed


#: The probe file's name: ``.synthamp-probe.synthamp-tmp-PID-TOKEN``.
PROBE_NAME = "synthamp-probe"


def _probe(directory: Path, param: str, path: Path | None = None) -> None:
    """Create and remove a file in ``directory``: the write test that holds for root too."""
    probe = directory / f".{PROBE_NAME}.{TEMP_TAG}-{os.getpid()}-{secrets.token_hex(4)}"
    remove_stale_temporaries(directory / PROBE_NAME)  # the probes of killed runs (empty files)
    with signals_held():  # a signal in between would leave the probe behind
        try:
            fd = os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        except OSError as exc:
            rule = _os_rule("write in", directory, exc)
            raise InputError(param, rule if path is None else f"{rule} (writing {path})") from None
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(probe)


def check_parent(path: str | os.PathLike, param: str) -> None:
    """The folder of ``path`` exists and accepts a new file (probed), or ``InputError``."""
    parent = _parent(Path(path))
    if not parent.is_dir():
        what = "is not a directory" if parent.exists() else "does not exist"
        raise InputError(param, f"directory {parent} {what}")
    _probe(parent, param, Path(path))


_check_parent = check_parent


def lockable_destination(path: str | os.PathLike) -> bool:
    """Whether ``path`` names an entry a lock can sit next to (not ``.``, ``..`` or ``/``)."""
    return Path(path).name not in ("", ".", "..")


def check_writable(path: str | os.PathLike, *, force: bool, param: str = "out") -> Path:
    """Check that the file ``path`` may be written, before any work.

    The parent must be an existing folder that accepts new files (probed), and
    an existing ``path`` is replaced only with ``force`` (never a folder).
    """
    path = Path(path)
    if path.is_dir():
        raise InputError(param, f"{path} is a directory")
    if os.path.lexists(path) and not force:
        raise InputError(param, f"{path} exists; pass --force to overwrite")
    _check_parent(path, param)
    return path


def check_owned_dataset(path: Path, param: str) -> None:
    """Refuse to replace a folder unless synthamp marked it as its own dataset.

    The folder must hold a manifest (:data:`MANIFEST_NAME`) and nothing but the
    manifest and the regular files it lists, each of the size it records.
    """
    manifest = _journal._read_manifest(path)
    if manifest is None:
        entries = sorted(entry.name for entry in path.iterdir())
        if not entries:
            return  # an empty folder: nothing to lose
        raise InputError(
            param,
            f"{path} holds {printable(entries[0])!r} and no synthamp manifest ({MANIFEST_NAME})"
            ": synthamp did not write it (or an older version did); not replacing it (remove "
            "it yourself or choose another path)",
        )
    sizes = {str(f.get("name")): f.get("size") for f in manifest["files"]}
    for entry in sorted(path.iterdir()):
        if entry.name == MANIFEST_NAME:
            continue
        listed = entry.name in sizes
        regular = entry.is_file() and not entry.is_symlink()
        if not (listed and regular):
            raise InputError(
                param,
                f"{path} holds {printable(entry.name)!r}, which is not part of the dataset "
                "synthamp wrote; not replacing it",
            )
        if entry.stat().st_size != sizes[entry.name]:
            raise InputError(
                param,
                f"{path}/{printable(entry.name)} was changed since synthamp wrote it; "
                "not replacing it",
            )


def check_directory_output(
    path: str | os.PathLike, *, force: bool, param: str = "out", allowed_suffixes=(".parquet",)
) -> Path:
    """Check that a folder of output files (a partitioned dataset) may be written at ``path``.

    An existing folder is replaced only with ``force``, and only if synthamp
    wrote it (:func:`check_owned_dataset`: its manifest lists every file), so
    that a mistyped ``--out`` never deletes unrelated files. ``allowed_suffixes``
    is kept for compatibility; the manifest decides.
    """
    path = Path(path)
    if os.path.lexists(path) and (path.is_symlink() or not path.is_dir()):
        raise InputError(param, f"{path} exists and is not a directory")
    if path.is_dir():
        if not force:
            raise InputError(param, f"{path} exists; pass --force to overwrite")
        check_owned_dataset(path, param)
    _check_parent(path, param)
    return path


def check_not_inside(
    inputs: list[tuple[str, str | os.PathLike]], folder: str | os.PathLike, folder_param: str
) -> None:
    """Refuse an input or output path (links followed) that lies inside the output ``folder``."""
    root = Path(folder).resolve()
    for param, path in inputs:
        resolved = Path(path).resolve()
        if resolved == root or root in resolved.parents:
            raise InputError(
                param,
                f"{path} lies inside the output folder {folder} (--{folder_param.replace('_', '-')}"
                "), which a release replaces; choose another path",
            )


def default_mode() -> int:
    """The mode a plain ``open`` would give a new file: 0o666 without the umask bits."""
    current = os.umask(0o077)
    os.umask(current)
    return 0o666 & ~current


def parse_mode(text: str | int | None, *, param: str = "mode") -> int | None:
    """An octal file mode such as ``600`` or ``0o640`` (None stays None)."""
    if text is None:
        return None
    if isinstance(text, int) and not isinstance(text, bool):
        value = text
    else:
        raw = str(text).strip().lower().removeprefix("0o")
        if not raw or any(c not in "01234567" for c in raw):
            raise InputError(param, f"must be an octal file mode such as 600 or 644, got {text!r}")
        value = int(raw, 8)
    if not 0 <= value <= 0o777:
        raise InputError(param, f"must be an octal file mode ≤ 777, got {text!r}")
    if not value & 0o600 == 0o600:
        raise InputError(param, f"must let the owner read and write (6xx), got {value:03o}")
    return value


@dataclass
class _Output:
    final: Path
    temp: Path
    param: str
    directory: bool
    replace: bool
    backup: Path | None = None
    old_ino: int | None = None
    published: bool = False


class OutputTransaction:
    """Write several outputs under temporary names and publish all of them, or none.

    Use as a context manager::

        with OutputTransaction(replace=False) as tx:
            tx.lock([(out, "out"), (report_path, "report")])  # before any existence check
            table = tx.add(out, param="out")
            report = tx.add(report_path, param="report")
            with tx.writing("out"):
                write(table)
            with tx.writing("report"):
                report.write_text(...)
            tx.commit()

    :meth:`lock` locks every destination of the run (a concurrent run is
    refused), then completes the commits killed runs left half done
    (:mod:`synthamp._output._journal`; only journals of this user naming only
    these destinations) and removes stale temporaries: all of it before the
    caller checks whether an output exists. :meth:`add` locks its destination
    the same way if :meth:`lock` did not, and creates the temporary output
    readable by the owner only (0600; a folder 0700). Leaving the block without
    :meth:`commit` (an exception, an interrupt) removes every temporary file and
    releases the locks.

    The commit, with SIGINT, SIGTERM and SIGHUP held back process-wide until it
    is over (:mod:`synthamp._output._signals`), journals every output, moves
    existing destinations aside, publishes each temporary output (without
    ``replace``: exclusively, never over a file that appeared meanwhile), gives
    it its mode and only then deletes the old versions (a folder file by file,
    only what its manifest lists); a failure part-way restores them; a kill
    part-way is completed by the next run.

    Parameters
    ----------
    replace : bool, default True
        Whether an existing destination may be replaced (the command line
        passes ``--force``). Overridden per output by :meth:`add`.
    mode : int, optional
        Mode of the published files (default: what the umask gives a new file).

    Attributes
    ----------
    stale : list of Path
        Temporary files of earlier, killed runs that were removed.
    recovered : list of str
        What was done to complete commits of killed runs (and what was left alone).
    run_id : str
        This transaction's id (written into dataset manifests).
    """

    def __init__(self, *, replace: bool = True, mode: int | None = None) -> None:
        self._outputs: list[_Output] = []
        self._locks: dict[str, _journal.DestinationLock] = {}
        self.stale: list[Path] = []
        self.recovered: list[str] = []
        self._committed = False
        self.replace = replace
        self.mode = mode
        self.run_id = secrets.token_hex(8)

    def lock(self, destinations: list[tuple[str | os.PathLike, str]]) -> None:
        """Lock every ``(path, param)`` destination, then complete what killed runs left.

        Call it with all the run's destinations before checking whether they
        exist: a commit a killed run left half done is completed first (a journal
        naming a destination not among them is left untouched, with a warning).
        """
        new = []
        for path, param in destinations:
            final = Path(path)
            if _key(final) in self._locks:
                continue
            with signals_held():  # an interrupt never loses a lock taken but not yet kept
                lock = _journal.acquire_lock(final, param)
                self._locks[_key(final)] = lock
            if lock.held:  # the lock proves that a journal's writer is dead
                new.append(final)
        if not new:
            return
        finals = [Path(key) for key, lock in self._locks.items() if lock.held]
        completed = _journal.recover(*finals)
        self.recovered += completed
        COMPLETED.extend(line.split(": ", 1)[0] for line in completed if ": published" in line)
        for final in new:
            keep = _journal.journaled_names(final)  # a journal left for another run's outputs
            self.stale += remove_stale_temporaries(final, self.recovered, keep)

    def add(
        self,
        path: str | os.PathLike,
        *,
        param: str,
        directory: bool = False,
        replace: bool | None = None,
    ) -> Path:
        """Register an output; return the temporary path to write instead of ``path``.

        For ``directory=True`` the temporary folder is created (write files into
        it; the commit adds the manifest); for a file, an empty temporary file
        (write over it).
        """
        final = Path(path)
        replace = self.replace if replace is None else replace
        for output in self._outputs:
            if output.final.resolve() == final.resolve():
                raise InputError(param, f"{final} is also the --{output.param} output")
        self.lock([(final, param)])
        self._check_destination(final, param, directory, replace)
        temp = temporary_name(final)
        # a signal between creating the temporary and registering it would leave it
        # behind: both happen with the signals held
        with self.writing(param), signals_held():
            if directory:
                temp.mkdir(mode=0o700)
            else:
                os.close(os.open(temp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
            self._outputs.append(_Output(final, temp, param, directory, replace))
        return temp

    @staticmethod
    def _check_destination(final: Path, param: str, directory: bool, replace: bool) -> None:
        if not os.path.lexists(final):
            return
        if not replace:
            raise InputError(param, f"{final} exists; pass --force to overwrite")
        if directory:
            if final.is_symlink() or not final.is_dir():
                raise InputError(param, f"{final} exists and is not a directory")
            check_owned_dataset(final, param)
        elif final.is_dir():
            raise InputError(param, f"{final} is a directory")

    @contextlib.contextmanager
    def writing(self, param: str) -> Iterator[None]:
        """Turn an OSError inside the block into ``InputError(param, ...)`` naming the output."""
        try:
            yield
        except OSError as exc:
            raise InputError(param, _os_rule("write", self._where(exc, param), exc)) from None

    def _where(self, exc: OSError, param: str) -> Path | str:
        """The destination an OSError concerns (never a temporary, journal or lock name)."""
        if exc.filename:
            path = Path(exc.filename)
            for output in self._outputs:
                hidden = f".{output.final.name}.synthamp-"
                if path == output.final or output.temp in path.parents:
                    return output.final
                if path.name.startswith(hidden) and _parent(path) == _parent(output.final):
                    return output.final
            return path
        for output in self._outputs:
            if output.param == param:
                return output.final
        return "the output"

    def _write_manifest(self, output: _Output) -> None:
        files = [
            {"name": entry.name, "size": entry.stat().st_size}
            for entry in sorted(output.temp.iterdir())
            if entry.name != MANIFEST_NAME
        ]
        manifest = {
            "format": "synthamp-dataset",
            "version": 1,
            "run_id": self.run_id,
            "synthamp": __version__,
            "files": files,
        }
        (output.temp / MANIFEST_NAME).write_text(json.dumps(manifest, indent=1), "utf-8")

    def _prepare(self, output: _Output) -> None:
        """Before the journal: the manifest, and the name the old version will take."""
        st = lstat_or_none(output.temp)
        if st is None:
            raise FileNotFoundError(2, "nothing was written", str(output.temp))
        reason = foreign_reason(st, directory=output.directory)
        if reason:  # swapped in a shared folder: never published
            raise InputError(
                output.param, f"{output.final}: its temporary copy was replaced by {reason}"
            )
        if output.directory:
            self._write_manifest(output)
        if os.path.lexists(output.final):
            if not output.replace:
                raise InputError(
                    output.param, f"{output.final} appeared during the run; not overwriting it"
                )
            self._check_destination(output.final, output.param, output.directory, output.replace)
            output.backup = temporary_name(output.final, ".old")
            output.old_ino = os.lstat(output.final).st_ino

    def commit(self) -> None:
        """Publish every output (see the class docstring)."""
        mode = default_mode() if self.mode is None else self.mode
        journals: list[Path] = []
        with signals_held():
            try:
                for output in self._outputs:
                    with self.writing(output.param):
                        self._prepare(output)
                with self.writing(self._outputs[0].param if self._outputs else "out"):
                    journals = _journal.write_journals(
                        [self._journal_entry(output, mode) for output in self._outputs]
                    )
                for output in self._outputs:
                    if output.backup is not None:
                        with self.writing(output.param):
                            os.replace(output.final, output.backup)
                for output in self._outputs:
                    with self.writing(output.param):
                        self._publish(output)
                    output.published = True
                for output in self._outputs:
                    # The mode asked for must hold; the umask's default is best effort (a file
                    # system without modes, such as vfat, refuses chmod).
                    quiet = contextlib.suppress(OSError) if self.mode is None else _nothing()
                    with self.writing(output.param), quiet:
                        _journal.publish_mode(output.final, mode, output.directory)
            except BaseException:
                self._roll_back()
                _journal.remove_journals(journals)
                raise
            self._committed = True
            PUBLISHED.extend(output.final for output in self._outputs)
            for output in self._outputs:
                if output.backup is not None:
                    _journal._remove_backup(output.backup, output.directory, output.old_ino)
            _journal.remove_journals(journals)
            self._release()

    @staticmethod
    def _journal_entry(output: _Output, mode: int) -> dict:
        return {
            "final": str(output.final.absolute()),
            "temp": str(output.temp.absolute()),
            "backup": None if output.backup is None else str(output.backup.absolute()),
            "directory": output.directory,
            "replace": output.replace,
            "mode": mode,
            "temp_ino": os.lstat(output.temp).st_ino,
            "old_ino": output.old_ino,
        }

    @staticmethod
    def _publish(output: _Output) -> None:
        """Rename the temporary output into place; exclusively without ``replace``."""
        if output.replace:
            os.replace(output.temp, output.final)
            return
        if not output.directory:
            try:
                os.link(output.temp, output.final)  # fails if the destination appeared
            except FileExistsError:
                raise InputError(
                    output.param, f"{output.final} appeared during the run; not overwriting it"
                ) from None
            except OSError:  # a file system without hard links: the lock still guards
                if os.path.lexists(output.final):
                    raise
                os.replace(output.temp, output.final)
                return
            os.unlink(output.temp)
            return
        if os.path.lexists(output.final):
            raise InputError(
                output.param, f"{output.final} appeared during the run; not overwriting it"
            )
        os.rename(output.temp, output.final)

    def _roll_back(self) -> None:
        for output in self._outputs:
            if output.published:
                with contextlib.suppress(OSError):
                    os.replace(output.final, output.temp)
                output.published = False
            if output.backup is not None and os.path.lexists(output.backup):
                with contextlib.suppress(OSError):
                    os.replace(output.backup, output.final)

    def _discard(self) -> None:
        for output in self._outputs:
            _remove(output.temp)

    def _release(self) -> None:
        for lock in self._locks.values():
            lock.release()
        self._locks.clear()

    def __enter__(self) -> OutputTransaction:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        # A second interrupt never leaves a temporary or a lock behind: the clean-up runs
        # with the signals held, and again if one struck as the block opened.
        interrupted = None
        for _ in range(3):
            try:
                with signals_held():
                    if not self._committed:
                        self._discard()
                    self._release()
                break
            except BaseException as caught:
                interrupted = interrupted or caught
        if interrupted is not None:
            raise interrupted


def _key(path: Path) -> str:
    return os.path.normpath(os.path.abspath(path))


_nothing = contextlib.nullcontext

#: Every output this process published (the command line's message after a late interrupt).
PUBLISHED: list[Path] = []
#: Every output of an earlier, killed run whose commit this process completed.
COMPLETED: list[str] = []

_signals_held = signals_held  # the name the callers know
__all__ += ["HELD_SIGNALS"]


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, *, param: str = "out") -> Iterator[Path]:
    """Yield a temporary path next to ``path``; rename it onto ``path`` on success.

    On any exception (or interrupt) the temporary file is removed and ``path``
    is untouched; an OSError becomes ``InputError(param, ...)``.
    """
    with OutputTransaction() as transaction:
        tmp = transaction.add(path, param=param)
        with transaction.writing(param):
            yield tmp
        transaction.commit()


def atomic_write_text(path: str | os.PathLike, text: str, *, param: str = "out") -> None:
    """Write ``text`` to ``path`` atomically."""
    with atomic_path(path, param=param) as tmp:
        tmp.write_text(text, encoding="utf-8")


def atomic_write_with(
    path: str | os.PathLike, writer: Callable[[Path], None], *, param: str = "out"
) -> None:
    """Call ``writer(tmp_path)`` and atomically move the result onto ``path``."""
    with atomic_path(path, param=param) as tmp:
        writer(tmp)
