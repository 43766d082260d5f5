"""What a running release shows its caller: messages, long steps, records written.

The library prints nothing. :func:`~synthamp.jobs.release_table` and
:func:`~synthamp.jobs.run_demo` tell a :class:`ReleaseMonitor` what happens;
the default one is silent (its warnings go to :mod:`warnings`), and the command
line's renders them on stderr. The accountant's own status messages inside a step
go through :func:`synthamp._budget.status_callback`, which a monitor's
:meth:`~ReleaseMonitor.stage` may install.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator

__all__ = ["ReleaseMonitor", "stale_messages"]


def _ignore(rows: int) -> None:
    """Records written: nobody is told."""


class ReleaseMonitor:
    """Receives what a release reports while it runs; subclass to show it.

    Nothing a monitor receives is private: the messages are the notes of
    :func:`~synthamp.jobs.release_table` (stale files removed, the share of
    clipped rows, which is for the data holder only and written nowhere), the
    steps are named by what they do, and the progress counts records.
    """

    def message(self, level: str, text: str) -> None:
        """A ``"warning"`` or ``"note"`` for the data holder, when it arises.

        The default issues warnings through :func:`warnings.warn` and drops the notes
        (they are in the result's ``notes`` too).
        """
        if level == "warning":
            warnings.warn(text, UserWarning, stacklevel=3)

    @contextlib.contextmanager
    def stage(self, text: str) -> Iterator[None]:
        """A long step (fitting, accounting, auditing, writing on dask) runs in the block."""
        yield

    @contextlib.contextmanager
    def progress(self, total: int, label: str) -> Iterator[Callable[[int], None]]:
        """``total`` records are written in the block; yields ``advance(rows)``."""
        yield _ignore


def stale_messages(transaction, monitor: ReleaseMonitor, recovered=True):
    """Tell the monitor what the transaction cleaned or put back of an interrupted run."""
    for path in transaction.stale:
        monitor.message("warning", f"removed {path}, a temporary file left by an interrupted run")
    for line in transaction.recovered if recovered else ():
        monitor.message("warning", line)
