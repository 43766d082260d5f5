"""SIGINT, SIGTERM and SIGHUP held back, process-wide, while synthamp renames or cleans up.

A commit (:meth:`synthamp.release._io.OutputTransaction.commit`), the creation
of a lock or a temporary file and the removal of a run's temporaries must not
stop half-way: a signal arriving meanwhile waits until the block is over and
is then acted on as usual (the command line's handler raises, the default
action ends the process).

A blocked signal mask is per thread, and a release runs more threads (dask,
progress): the kernel hands a signal to any thread that does not block it, and
CPython then runs the Python handler in the main thread at once. So, in the
main thread, :func:`signals_held` wraps the handlers of the three signals (once:
the wrappers stay until someone installs other handlers) in a *deferring*
handler: while a block is open it only records the signal; otherwise it calls
the handler it wraps (for the default action: the default action). Entering
and leaving a block is then a counter, so no signal can fall between the
handler's swap and the block. On leaving the outermost block the first
recorded signal is raised again (:func:`signal.raise_signal`), so that it takes
its usual course; a second signal during the block is recorded and dropped: it
never interrupts the commit. Outside the main thread (where handlers cannot be
installed) the signals are blocked in the calling thread, the best that can be
done there.
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
    """How deep the main thread is in :func:`signals_held` blocks, and what arrived meanwhile."""

    depth = 0
    pending: ClassVar[list[int]] = []


def _deferring(handler):
    """``handler``, but only recorded while a block is open."""

    def deferring(signum, frame):
        if _Held.depth > 0:
            _Held.pending.append(signum)
            return None
        if handler is signal.SIG_DFL:  # the default action, as if never wrapped
            signal.signal(signum, signal.SIG_DFL)
            signal.raise_signal(signum)
            return None
        return handler(signum, frame)

    deferring.synthamp_deferring = True
    return deferring


def _wrap_handlers() -> None:
    for signum in HELD_SIGNALS:
        handler = signal.getsignal(signum)
        if handler is None or handler is signal.SIG_IGN:  # outside Python, or ignored
            continue
        if getattr(handler, "synthamp_deferring", False):
            continue
        signal.signal(signum, _deferring(handler))


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
    _Held.depth += 1
    try:
        if _Held.depth == 1:
            _wrap_handlers()
        yield
    finally:
        _Held.depth -= 1
        if _Held.depth == 0 and _Held.pending:
            signum = _Held.pending[0]
            _Held.pending.clear()
            signal.raise_signal(signum)  # its usual course, now that the block is over
