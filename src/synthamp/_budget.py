"""Time budget and live status of long accounting steps (ambient, per context).

Finite-release accounting (docs/theory.md §3, §12) can be slow at large n_syn or
large amplitudes; its sound fallback is the plateau, which bounds the privacy
loss of every n_syn (the finite release is a post-processing of the Gram
matrix, and D_α(ZV‖ZW) is non-decreasing in n_syn). The accountant therefore
computes the plateau first and refines with the finite engine under a time
budget: code that may run long calls :func:`check_budget` at safe points, and
the accountant catches :class:`TimeBudgetExceeded` and returns the sound result
it has, saying so. The PLD composition of T releases checks the same budget
before each long convolution; its fallback is the RDP accountant's ε
(:data:`PLD_FALLBACK`).

Both the deadline and the status callback live in :mod:`contextvars`, so a
budget set by the caller reaches every engine call below it without being
threaded through every signature, and nested budgets keep the earlier deadline.
A check costs one clock read; the budget may be overrun by at most the work
between two checks.

Examples
--------
>>> import time
>>> with time_budget(0.0):
...     time.sleep(0.001)
...     try:
...         check_budget()
...     except TimeBudgetExceeded:
...         print("stopped")
stopped
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = [
    "DEFAULT_TIME_BUDGET",
    "PLATEAU_FALLBACK",
    "PLD_FALLBACK",
    "TimeBudgetExceeded",
    "check_budget",
    "report_status",
    "status_callback",
    "time_budget",
    "time_left",
]

#: Default time budget (seconds) of the finite-release refinement of the accountant.
DEFAULT_TIME_BUDGET = 10.0

#: What a finite release falls back on when its time budget is spent (the notes that
#: say so contain it, e.g. a privacy report's ``accounting_note``).
PLATEAU_FALLBACK = (
    "the unlimited-release (plateau) bound is used instead, which covers every n_syn "
    "(docs/theory.md §3): sound, possibly a little above the finite value"
)

#: What the guarantee falls back on when a PLD composition of T releases stops (its time
#: budget, or its largest grid): ``releases`` and ``why`` are filled in.
PLD_FALLBACK = (
    "the PLD composition of {releases:,} releases {why}; the RDP accountant's ε is used "
    "instead, which composes the T releases exactly (docs/theory.md §12): sound, possibly "
    "larger than the PLD's"
)

_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "synthamp_deadline", default=None
)
_STATUS: contextvars.ContextVar[Callable[[str], None] | None] = contextvars.ContextVar(
    "synthamp_status", default=None
)


class TimeBudgetExceeded(Exception):
    """Raised by :func:`check_budget` once the active time budget is spent."""


@contextmanager
def time_budget(seconds: float | None) -> Iterator[None]:
    """Run the block under a time budget of ``seconds`` (None: no budget).

    Nested budgets keep the earlier deadline.
    """
    if seconds is None:
        yield
        return
    deadline = time.monotonic() + max(float(seconds), 0.0)
    outer = _DEADLINE.get()
    token = _DEADLINE.set(deadline if outer is None else min(outer, deadline))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def check_budget() -> None:
    """Raise :class:`TimeBudgetExceeded` if the active time budget is spent."""
    deadline = _DEADLINE.get()
    if deadline is not None and time.monotonic() > deadline:
        raise TimeBudgetExceeded


def time_left() -> float | None:
    """Seconds left of the active time budget (None: no budget; negative: spent).

    For a step that cannot be interrupted (one long FFT): its caller compares its
    estimated cost with this and stops before starting it.
    """
    deadline = _DEADLINE.get()
    return None if deadline is None else deadline - time.monotonic()


@contextmanager
def status_callback(callback: Callable[[str], None] | None) -> Iterator[None]:
    """Send the :func:`report_status` messages of the block to ``callback``."""
    token = _STATUS.set(callback)
    try:
        yield
    finally:
        _STATUS.reset(token)


def report_status(message: str) -> None:
    """Tell the active status callback (if any) what the accountant is doing."""
    callback = _STATUS.get()
    if callback is not None:
        callback(message)
