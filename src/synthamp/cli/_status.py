"""Live status of long accounting steps on a terminal, and the ``--time-budget`` option.

The accountant reports what it is doing through :func:`synthamp._budget.report_status`;
:func:`live_status` shows those messages on stderr with a spinner and the elapsed
time while a block runs, when stderr is a terminal (nothing otherwise, so pipes
and JSON output stay clean).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager

import click

from synthamp._budget import DEFAULT_TIME_BUDGET, status_callback
from synthamp._validation import InputError

__all__ = ["live_status", "time_budget_option"]


def _budget(ctx, param, value: float) -> float | None:
    if math.isnan(value) or value < 0:
        raise InputError("time_budget", f"must be >= 0 seconds (inf: no limit), got {value:g}")
    return None if math.isinf(value) else value


time_budget_option = click.option(
    "--time-budget",
    type=float,
    default=DEFAULT_TIME_BUDGET,
    show_default=True,
    metavar="SECONDS",
    callback=_budget,
    help="Seconds for finite-n_syn accounting (past them the unlimited-release bound, "
    "sound for any number of records, is used) or for the k = 2 --search (past them the "
    "best pair verified so far); the output says so. inf: no limit.",
)


@contextmanager
def live_status(message: str, *, show: bool = True) -> Iterator[None]:
    """Show ``message``, then the accountant's status messages, with elapsed time (terminal).

    ``show=False`` (``--no-progress``) shows nothing, as when stderr is not a terminal.
    """
    if not show:
        yield
        return
    from rich.console import Console  # heavy: rich, only for the status line

    console = Console(stderr=True)
    if not console.is_terminal:
        yield
        return
    # heavy: rich, only on a terminal
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    progress = Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )
    with progress:
        task = progress.add_task(message, total=None)
        with status_callback(lambda text: progress.update(task, description=text)):
            yield
