"""SIGINT, SIGTERM and SIGHUP held back, process-wide, while synthamp renames or cleans up.

A commit (:meth:`synthamp.release._io.OutputTransaction.commit`), the creation
of a lock or a temporary file and the removal of a run's temporaries must not
stop half-way: a signal arriving meanwhile waits until the block is over and
is then acted on as usual (the command line's handler raises, the default
action ends the process).

A blocked signal mask is per thread, and a release runs more threads (dask,
progress): the kernel hands a signal to any thread that does not block it, and
CPython then runs the Python handler in the main thread at once. So, in the
main thread, :func:`signals_held` *replaces* the handlers for the duration of
the block by one that only records the signal; on leaving the outermost block
the previous handlers are put back and the first recorded signal is raised
again (:func:`signal.raise_signal`), so that it takes its usual course. A
second signal during the block is recorded and dropped: it never interrupts
the commit. Outside the main thread (where handlers cannot be installed) the
signals are blocked in the calling thread, the best that can be done there.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import ClassVar

__all__ = ["HELD_SIGNALS", "signals_held"]

#: Signals held back while a commit renames (the command line turns them into exceptions).
HELD_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class _Held:
    """The state of the outermost :func:`signals_held` block of the main thread."""

    depth = 0
    previous: ClassVar[dict[int, object]] = {}
    pending: ClassVar[list[int]] = []


def _record(signum, frame) -> None:
    _Held.pending.append(signum)


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Hold SIGINT, SIGTERM and SIGHUP until the block is over (see the module docstring)."""
    if threading.current_thread() is not threading.main_thread():
        previous_mask = signal.pthread_sigmask(signal.SIG_BLOCK, HELD_SIGNALS)
        try:
            yield
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous_mask)
        return
    if _Held.depth == 0:
        _Held.pending = []
        _Held.previous = {}
        for signum in HELD_SIGNALS:
            handler = signal.getsignal(signum)
            if handler is None:  # installed outside Python: cannot be put back, left alone
                continue
            _Held.previous[signum] = handler
            signal.signal(signum, _record)
    _Held.depth += 1
    try:
        yield
    finally:
        _Held.depth -= 1
        if _Held.depth == 0:
            for signum, handler in _Held.previous.items():
                signal.signal(signum, handler)
            pending, _Held.pending, _Held.previous = _Held.pending, [], {}
            if pending:
                signal.raise_signal(pending[0])  # its usual course, now that the block is over
