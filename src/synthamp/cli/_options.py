"""Option tables and the output of the thin commands (account, calibrate, audit, bounds, …).

A command lists its options once, in display order, with :func:`options`; the
options that several commands share are defined here once. :func:`emit` prints a
library summary: its JSON object (``--json``) or its text, then its warnings on stderr.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import Any

import click

from synthamp.cli._common import echo_json

__all__ = [
    "DELTA", "JSON", "NO_PROGRESS", "N_SYN", "OUT_DIM", "SENSITIVITY", "SIGMA", "LibraryChoice",
    "emit", "options",
]  # fmt: skip


def options(*decorators: Callable) -> Callable:
    """Apply click options in the order listed (the order ``--help`` shows)."""

    def apply(fn: Callable) -> Callable:
        for decorator in reversed(decorators):
            fn = decorator(fn)
        return fn

    return apply


OUT_DIM = click.option("--out-dim", type=int, default=1, show_default=True, help="Record dim k.")
SENSITIVITY = click.option(
    "--sensitivity", type=float, required=True, help="Sensitivity Δ >= ‖v − w‖_F."
)
SIGMA = click.option("--sigma", type=float, required=True, help="Noise scale σ.")
N_SYN = click.option(
    "--n-syn", type=int, default=None, help="Synthetic records n (default: unlimited)."
)
DELTA = click.option("--delta", type=float, default=1e-5, show_default=True, help="δ in (0, 1).")


class LibraryChoice(click.Choice):
    """A click choice among the values of a library constant, read when first needed.

    ``LibraryChoice("synthamp.jobs", "ESTIMATORS")`` lists ``synthamp.audit.ESTIMATORS``
    without importing the audit (scipy: heavy) when the command line starts.
    """

    def __init__(self, module: str, name: str) -> None:
        self._source = (module, name)
        super().__init__(())

    @property
    def choices(self) -> Sequence[str]:
        module, name = self._source
        return tuple(getattr(importlib.import_module(module), name))

    @choices.setter
    def choices(self, value: Sequence[str]) -> None:  # click's __init__ sets it: ignored
        pass


JSON = click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
NO_PROGRESS = click.option("--no-progress", is_flag=True, help="No live status on stderr.")


def emit(summary: Any, as_json: bool) -> None:
    """Print ``summary.to_dict()`` as JSON or ``summary.lines()``, then its warnings (stderr)."""
    if as_json:
        echo_json(summary.to_dict())
    else:
        for line in summary.lines():
            click.echo(line)
    for message in summary.warnings:
        click.echo(f"synthamp: warning: {message}", err=True)
