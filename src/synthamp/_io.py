"""Atomic file output: write to a temporary file, then rename.

No half-written output file, ever: if writing fails or the process is
interrupted, the destination is left as it was.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from synthamp._validation import InputError

__all__ = ["atomic_path", "atomic_write_text", "atomic_write_with", "check_writable"]


def check_writable(path: str | os.PathLike, *, force: bool, param: str = "out") -> Path:
    """Check that ``path`` may be written: parent exists, no clobbering without ``force``."""
    path = Path(path)
    if path.exists() and not force:
        raise InputError(param, f"{path} exists; pass --force to overwrite")
    if path.exists() and path.is_dir():
        raise InputError(param, f"{path} is a directory")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise InputError(param, f"directory {parent} does not exist")
    return path


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; rename it onto ``path`` on success.

    On any exception the temporary file is removed and ``path`` is untouched.
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
    os.close(fd)
    tmp_path = Path(tmp)
    # mkstemp creates 0600; give the final file the permissions a plain open() would
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp_path, 0o666 & ~umask)
    try:
        yield tmp_path
        os.replace(tmp_path, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            tmp_path.unlink()
        raise


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def atomic_write_with(path: str | os.PathLike, writer: Callable[[Path], None]) -> None:
    """Call ``writer(tmp_path)`` and atomically move the result onto ``path``."""
    with atomic_path(path) as tmp:
        writer(tmp)
