"""Output paths that name a new file or folder, checked before any work.

``--out .`` names the current folder, ``--out x.csv/`` a folder, ``--out /dev/null``
a device: none is an output synthamp could write in its place. :func:`check_output_name`
refuses them, and a name too long to leave room for the temporary names synthamp writes
next to an output (:func:`check_name_length`), with one
:class:`~synthamp._validation.InputError` naming the parameter. Whether the folder
accepts a new file and whether an existing output may be replaced are checked by
:mod:`synthamp._output._io`.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from synthamp._validation import InputError, printable

__all__ = ["NAME_ROOM", "check_name_length", "check_output_name"]


def _special_kind(mode: int) -> str | None:
    """What a special file is ("a FIFO", "a device", "a socket"), None for a file or folder."""
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return None


#: Bytes a name leaves for synthamp's files next to an output (the temporary name
#: ``.NAME.synthamp-tmp-PID-TOKEN.old``, its lock and journal): an output's name is at most
#: the folder's limit minus this.
NAME_ROOM = 64


def check_name_length(path: Path, param: str, text: str) -> None:
    """Refuse a name too long for its folder once synthamp's temporary tags are added."""
    folder = path.parent if str(path.parent) else Path(".")
    try:
        limit = os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError):
        limit = 255  # the common limit (ext4, xfs, btrfs, tmpfs)
    size = len(os.fsencode(path.name))
    if size > limit - NAME_ROOM:
        raise InputError(
            param,
            f"the name of {text} is {size} bytes long; at most {limit - NAME_ROOM} bytes leave "
            "room for the temporary names synthamp writes next to it",
        )


def check_output_name(path: str | os.PathLike, *, param: str, folder: bool = False) -> Path:
    """Refuse, before anything else, an output path that names no new file (or folder).

    ``.``, ``..``, ``/`` and the empty path name a folder that holds other files,
    never an output synthamp could write in its place; a trailing ``/`` asks for a
    folder, which only a dataset (``folder=True``) is; an existing folder is never a
    file output; an existing FIFO, device or socket is never replaced (links followed).
    """
    text = os.fspath(path)
    where = printable(text) if text else "the empty path"
    if "\x00" in text:
        raise InputError(param, f"{where} holds a NUL character, which no path can hold")
    example = "synthetic.csv" if param == "out" else "report.json"
    dataset = " (or --partitions P to write a dataset folder)" if param == "out" else ""
    if Path(text).name in ("", ".", ".."):
        what = "a new folder such as out/ds" if folder else f"a file such as out/{example}"
        raise InputError(param, f"{where} names no new file but a folder; give {what}")
    if not folder and text.endswith(("/", os.sep)):
        raise InputError(param, f"{where} ends in '/', a folder; give a file name{dataset}")
    check_name_length(Path(text), param, where)
    try:
        info = os.stat(text)
    except OSError:
        return Path(text)  # nothing there (or not reachable: the folder check says why)
    if not folder and stat.S_ISDIR(info.st_mode):
        raise InputError(
            param, f"{where} is a folder; give a file inside it, such as {where}/{example}{dataset}"
        )
    kind = _special_kind(info.st_mode)
    if kind is not None:
        raise InputError(param, f"{where} is {kind}; synthamp never replaces one")
    return Path(text)
