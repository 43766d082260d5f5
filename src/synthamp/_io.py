"""Transactional file output: temporary names, then an all-or-nothing publication.

No half-written output, ever, and no table without its report:

- :func:`check_writable` and :func:`check_directory_output` check, before any
  work, that a destination may be written (its folder exists and accepts a new
  file: a probe file is created and removed, which catches read-only mounts and
  pseudo file systems such as /proc, also for root);
- :class:`OutputTransaction` hands out a temporary name for each output, next
  to it, and :meth:`~OutputTransaction.commit` renames them all into place; if
  anything fails before or during the commit (an exception, Ctrl-C, SIGTERM
  turned into an exception by the command line), every temporary file is
  removed and every destination is left as it was;
- every temporary name carries the tag :data:`TEMP_TAG` and the id of the
  process that made it: ``.NAME.synthamp-tmp-PID-TOKEN``. A process killed
  outright (SIGKILL, power loss) cannot clean up; the next run writing the
  same destination removes such stale files (:func:`remove_stale_temporaries`)
  and says so.

OSErrors while writing are turned into :class:`~synthamp.InputError` naming
the parameter (:meth:`OutputTransaction.writing`), so the command line exits
with code 2 and one line.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from synthamp._validation import InputError

__all__ = [
    "TEMP_TAG",
    "OutputTransaction",
    "atomic_path",
    "atomic_write_text",
    "atomic_write_with",
    "check_directory_output",
    "check_writable",
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
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def remove_stale_temporaries(path: str | os.PathLike) -> list[Path]:
    """Remove temporary files of ``path`` left by synthamp processes that no longer run.

    Only names of the form ``.NAME.synthamp-tmp-PID-TOKEN`` (NAME the name of
    ``path``) whose process ``PID`` is gone are removed; those of a process still
    running (a concurrent release) are left alone.

    Returns
    -------
    list of Path
        The temporary files or folders removed.
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
        if match is None or match["name"] != path.name:
            continue
        if _process_alive(int(match["pid"])):
            continue
        _remove(entry)
        removed.append(entry)
    return removed


def _probe(directory: Path, param: str) -> None:
    """Create and remove a file in ``directory``: the write test that holds for root too."""
    probe = directory / f".synthamp-probe.{TEMP_TAG}-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        fd = os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except OSError as exc:
        raise InputError(param, _os_rule("write in", directory, exc)) from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(probe)


def check_writable(path: str | os.PathLike, *, force: bool, param: str = "out") -> Path:
    """Check that the file ``path`` may be written, before any work.

    The parent must be an existing folder that accepts new files (probed), and
    an existing ``path`` is replaced only with ``force`` (never a folder).
    """
    path = Path(path)
    if path.is_dir():
        raise InputError(param, f"{path} is a directory")
    if path.exists() and not force:
        raise InputError(param, f"{path} exists; pass --force to overwrite")
    parent = _parent(path)
    if not parent.is_dir():
        what = "is not a directory" if parent.exists() else "does not exist"
        raise InputError(param, f"directory {parent} {what}")
    _probe(parent, param)
    return path


def check_directory_output(
    path: str | os.PathLike, *, force: bool, param: str = "out", allowed_suffixes=(".parquet",)
) -> Path:
    """Check that a folder of output files (a partitioned dataset) may be written at ``path``.

    An existing folder is replaced only with ``force``, and only if it holds
    nothing but files with ``allowed_suffixes`` (a previous dataset), so that a
    mistyped ``--out`` never deletes unrelated files.
    """
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise InputError(param, f"{path} exists and is not a directory")
    if path.is_dir():
        if not force:
            raise InputError(param, f"{path} exists; pass --force to overwrite")
        foreign = [
            entry.name
            for entry in path.iterdir()
            if not (entry.is_file() and entry.suffix in allowed_suffixes)
        ]
        if foreign:
            raise InputError(
                param,
                f"{path} holds {foreign[0]!r}, which is not part of a dataset; not replacing it",
            )
    parent = _parent(path)
    if not parent.is_dir():
        what = "is not a directory" if parent.exists() else "does not exist"
        raise InputError(param, f"directory {parent} {what}")
    _probe(parent, param)
    return path


@dataclass
class _Output:
    final: Path
    temp: Path
    param: str
    directory: bool
    backup: Path | None = None
    published: bool = False


class OutputTransaction:
    """Write several outputs under temporary names and publish all of them, or none.

    Use as a context manager::

        with OutputTransaction() as tx:
            table = tx.add(out, param="out")
            report = tx.add(report_path, param="report")
            with tx.writing("out"):
                write(table)
            with tx.writing("report"):
                report.write_text(...)
            tx.commit()

    Leaving the block without :meth:`commit` (an exception, an interrupt)
    removes every temporary file. The commit moves existing destinations aside,
    renames each temporary file into place, and only then deletes the old
    versions; a failure part-way restores them. (Between two renames of the
    commit the outputs are briefly inconsistent; no file is ever half-written.)

    Attributes
    ----------
    stale : list of Path
        Temporary files of earlier, killed runs that :meth:`add` removed.
    """

    def __init__(self) -> None:
        self._outputs: list[_Output] = []
        self.stale: list[Path] = []
        self._committed = False

    def add(self, path: str | os.PathLike, *, param: str, directory: bool = False) -> Path:
        """Register an output; return the temporary path to write instead of ``path``.

        For ``directory=True`` the temporary folder is created (write files into
        it); for a file, nothing is created until the writer opens it.
        """
        final = Path(path)
        self.stale += remove_stale_temporaries(final)
        temp = temporary_name(final)
        if directory:
            with self.writing(param):
                temp.mkdir()
        self._outputs.append(_Output(final, temp, param, directory))
        return temp

    @contextlib.contextmanager
    def writing(self, param: str) -> Iterator[None]:
        """Turn an OSError inside the block into ``InputError(param, ...)``."""
        try:
            yield
        except OSError as exc:
            raise InputError(param, _os_rule("write", self._where(exc, param), exc)) from None

    def _where(self, exc: OSError, param: str) -> Path | str:
        """The destination an OSError concerns (never the temporary name)."""
        if exc.filename:
            path = Path(exc.filename)
            for output in self._outputs:
                if path in (output.temp, output.backup) or output.temp in path.parents:
                    return output.final
            return path
        for output in self._outputs:
            if output.param == param:
                return output.final
        return "the output"

    def commit(self) -> None:
        """Publish every output (see the class docstring)."""
        try:
            for output in self._outputs:
                if output.final.exists():
                    output.backup = temporary_name(output.final, ".old")
                    with self.writing(output.param):
                        os.replace(output.final, output.backup)
            for output in self._outputs:
                with self.writing(output.param):
                    if not output.temp.exists():
                        raise FileNotFoundError(2, "nothing was written", str(output.temp))
                    os.replace(output.temp, output.final)
                output.published = True
        except BaseException:
            self._roll_back()
            raise
        self._committed = True
        for output in self._outputs:
            if output.backup is not None:
                _remove(output.backup)

    def _roll_back(self) -> None:
        for output in self._outputs:
            if output.published:
                with contextlib.suppress(OSError):
                    os.replace(output.final, output.temp)
                output.published = False
            if output.backup is not None and output.backup.exists():
                with contextlib.suppress(OSError):
                    os.replace(output.backup, output.final)

    def _discard(self) -> None:
        for output in self._outputs:
            _remove(output.temp)

    def __enter__(self) -> OutputTransaction:
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if not self._committed:
            self._discard()


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
