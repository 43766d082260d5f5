"""SIGINT, SIGTERM and SIGHUP held back, process-wide, while synthamp renames or cleans up.

A commit (:meth:`synthamp._output._io.OutputTransaction.commit`), the creation
of a lock or a temporary file and the removal of a run's temporaries must not
stop half-way: a signal arriving meanwhile waits until the block is over and
is then acted on as usual (the command line's handler raises, the default
action ends the process).

A blocked signal mask is per thread, and a release runs more threads (dask,
progress): the kernel hands a signal to any thread that does not block it, and
CPython then runs the Python handler in the main thread at once. So, in the
main thread, :func:`signals_held` wraps the handlers of the three signals, for
the outermost block, in a *deferring* handler: while a block is open it only
records the signal; otherwise it calls the handler it wraps (for the default
action: the default action), so that a signal arriving while the wrappers are
put in place or taken away is never lost (a clean-up that a signal stops as its
block opens is run again by its caller). On leaving the outermost block the first
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
    """How deep the main thread is in :func:`signals_held` blocks, what arrived meanwhile,
    and the handlers wrapped for the outermost block (signal -> (original, wrapper))."""

    depth = 0
    pending: ClassVar[list[int]] = []
    wrapped: ClassVar[dict[int, tuple[object, object]]] = {}


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
        wrapper = _deferring(handler)
        signal.signal(signum, wrapper)
        _Held.wrapped[signum] = (handler, wrapper)


def _unwrap_handlers() -> None:
    wrapped, _Held.wrapped = _Held.wrapped, {}
    for signum, (handler, wrapper) in wrapped.items():
        if signal.getsignal(signum) is wrapper:  # unless someone installed another meanwhile
            signal.signal(signum, handler)


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
        _Held.depth -= 1  # from here on a wrapper calls the handler it wraps: no signal lost
        if _Held.depth == 0:
            pending, _Held.pending = _Held.pending, []
            _unwrap_handlers()
            if pending:
                signal.raise_signal(pending[0])  # its usual course, now that the block is over
