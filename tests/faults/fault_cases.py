"""The fault matrix's machinery: a real ``synthamp release`` in a forked process, a fault
injected at the k-th change it makes to the file system, and the checks afterwards.

Not a test module. A forked child runs :func:`synthamp.cli.main` exactly as the console
script does (the modules are already imported, so a run takes milliseconds and
hundreds of cases fit in seconds). A :class:`Fault` counts the calls that change the
file system (``os.rename``, ``os.replace``, ``os.link``, ``os.unlink``, ``os.rmdir``,
``os.mkdir``, ``os.fchmod``, ``os.chmod``, ``os.ftruncate``, ``os.write``, ``os.fsync``
and ``os.open`` with ``O_CREAT``) and, at the k-th, kills the process outright
(``os._exit``: nothing runs after it, as with SIGKILL or a power loss), sends it a
signal (once or twice) or fails the call with ENOSPC (a full disk).
"""

from __future__ import annotations

import errno
import io
import os
import shutil
import signal
import stat
import sys
import time
import traceback
from pathlib import Path

import pandas as pd

from synthamp._output import _io
from synthamp.cli import main

#: The exit status of a child killed by a :class:`Fault` of kind "kill".
KILLED = 77
#: The exit status of a forked run struck by a signal before the command line began.
BEFORE_START = 96
#: The calls a fault counts (``open`` only with ``O_CREAT``).
MUTATIONS = (
    "rename", "replace", "link", "unlink", "rmdir", "mkdir", "fchmod", "chmod",
    "ftruncate", "write", "fsync", "open",
)  # fmt: skip
#: The calls that can fail with ENOSPC (they allocate space).
ALLOCATING = ("rename", "replace", "link", "mkdir", "write", "fsync", "open")
#: Tags of every hidden file synthamp writes (temporaries, locks, journals, probes).
HIDDEN_TAGS = ("synthamp-tmp", "synthamp-lock", "synthamp-journal", "synthamp-probe")


class Fault:
    """At the ``step``-th counted call: ``kind`` "kill", "signal" (``signum``; again at
    ``step + second`` if given) or "enospc" (only allocating calls are counted).

    With ``step=0`` and ``tag``: at the first counted call on a name that holds ``tag``.
    """

    def __init__(self, step: int, kind: str, signum=signal.SIGTERM, second=None, tag=None):
        self.step, self.kind, self.signum, self.second = step, kind, signum, second
        self.tag = tag  # with step 0: strike at the first call on a name holding ``tag``
        self.count = 0

    def install(self) -> None:
        counted = ALLOCATING if self.kind == "enospc" else MUTATIONS
        for name in counted:
            setattr(os, name, self._wrap(name, getattr(os, name)))

    def _wrap(self, name, real):
        def call(*args, **kwargs):
            if name == "open" and not (len(args) > 1 and args[1] & os.O_CREAT):
                return real(*args, **kwargs)
            self.count += 1
            if self.tag and not self.step and args and self.tag in str(args[0]):
                self.step = self.count
            if self.kind == "kill" and self.count == self.step:
                os._exit(KILLED)
            strikes = (self.step, self.step + (self.second or 0)) if self.step else ()
            if self.kind == "signal" and self.count in strikes:
                os.kill(os.getpid(), self.signum)
            if self.kind == "enospc" and self.count == self.step:
                where = args[0] if args and isinstance(args[0], str | os.PathLike) else None
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), where)
            return real(*args, **kwargs)

        return call


def fork_main(args: list[str], out: Path, fault: Fault | None = None, timeout: float = 60):
    """Run ``synthamp ARGS`` in a forked child; (exit status or -signal, stdout, stderr).

    The child writes its stdout and stderr to files in ``out`` (a folder outside the
    release's), so that they are read whole even after a kill.
    """
    out.mkdir(exist_ok=True)
    pid = os.fork()
    if pid == 0:
        run_child(args, out, fault)
    return wait_child(pid, (out / "stdout", out / "stderr"), timeout)


def run_child(args: list[str], out: Path, fault: Fault | None = None) -> None:
    """In a forked process: ``synthamp ARGS`` with stdout and stderr in ``out``; never returns.

    Exit status :data:`BEFORE_START` if a signal struck before the command line began
    (as it can strike any program as it starts), 98 if the command line raised.
    """
    code = BEFORE_START
    try:
        for fd, name in ((1, "stdout"), (2, "stderr")):
            target = os.open(out / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(target, fd)
            os.close(target)
        sys.stdout = io.TextIOWrapper(os.fdopen(1, "wb", closefd=False), write_through=True)
        sys.stderr = io.TextIOWrapper(os.fdopen(2, "wb", closefd=False), write_through=True)
        for signum in (signal.SIGTERM, signal.SIGHUP):  # as in a fresh process
            signal.signal(signum, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        _io.PUBLISHED.clear()  # as in a fresh process: not what the parent published
        if fault is not None:
            fault.install()
        code = 98
        code = main(args)
    except BaseException:
        traceback.print_exc()
    finally:
        os._exit(code if isinstance(code, int) else 97)


def wait_child(pid: int, paths, timeout: float):
    """Wait for a forked child (killing it after ``timeout``); (status, stdout, stderr)."""
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            raise AssertionError(f"the release did not end within {timeout} s")
        time.sleep(0.002)
    code = os.waitstatus_to_exitcode(status)
    return (code, *(path.read_text(errors="replace") for path in paths))


def hidden_leftovers(folder: Path) -> list[str]:
    """Every temporary, lock, journal or probe left in ``folder`` (recursively)."""
    return sorted(p.name for p in folder.rglob("*") if any(t in p.name for t in HIDDEN_TAGS))


def _table_records(path: Path) -> int:
    if path.is_dir():
        return len(pd.read_parquet(path))
    with open(path, "rb") as handle:
        return sum(1 for _ in handle) - 1


def release_generation(folder: Path, out: str, candidates: tuple[int, ...]) -> int | None:
    """Which release is published at ``out`` (its n_syn), checking that it is whole.

    None if nothing is; otherwise the table and its three reports must all be there,
    and all of the same run: the table's records, the JSON's ``n_syn``, and the
    Markdown and HTML reports naming that number (and no other candidate).
    """
    import json

    stem = out  # the reports keep the table's extension: syn.csv.privacy.json
    paths = [folder / out, *(folder / f"{stem}.privacy{ext}" for ext in (".json", ".md", ".html"))]
    present = [path.exists() for path in paths]
    if not any(present):
        return None
    assert all(present), f"a release published in part: {[p.name for p in paths if p.exists()]}"
    n_syn = _table_records(paths[0])
    assert json.loads(paths[1].read_text())["n_syn"] == n_syn, "table and report disagree"
    for report in paths[2:]:
        text = report.read_text()
        named = [n for n in candidates if f"{n:,}" in text]
        assert named == [n_syn], f"{report.name} is of another run ({named} vs {n_syn})"
    return n_syn


def error_lines(err: str) -> list[str]:
    """The lines of stderr that are not notes or warnings."""
    keep = ("synthamp: note:", "synthamp: warning:")
    return [line for line in err.strip().splitlines() if line and not line.startswith(keep)]


#: The releases :func:`restore_release` put back: out -> {relative path: (bytes, mode)}.
_SAVED: dict[str, dict[str, tuple[bytes, int]]] = {}


def restore_release(workdir: Path, out: str, make) -> None:
    """Put a release back at ``out`` in ``workdir``: written by ``make()`` once, then copied.

    (Copying the four outputs is much faster than releasing again before every case.)
    """
    stem = out  # the reports keep the table's extension: syn.csv.privacy.json
    names = [out, *(f"{stem}.privacy{ext}" for ext in (".json", ".md", ".html"))]
    if out not in _SAVED:
        make()
        files = {}
        for name in names:
            paths = sorted((workdir / name).iterdir()) if (workdir / name).is_dir() else []
            for path in paths or [workdir / name]:
                mode = stat.S_IMODE(path.stat().st_mode)
                files[str(path.relative_to(workdir))] = (path.read_bytes(), mode)
        _SAVED[out] = files
        return
    for relative, (data, mode) in _SAVED[out].items():
        path = workdir / relative
        if path.parent != workdir and not path.parent.exists():
            path.parent.mkdir(mode=0o700)
        path.write_bytes(data)
        os.chmod(path, mode)


def reset_workdir(workdir: Path, out: str, keep: tuple[str, ...], make=None) -> None:
    """Empty ``workdir`` but for the names in ``keep``; with ``make``, put the old release
    back at ``out`` (:func:`restore_release`)."""
    for path in workdir.iterdir():
        if path.name not in keep:
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    if make is not None:
        restore_release(workdir, out, make)
