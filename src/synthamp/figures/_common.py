"""Plumbing shared by the tidy tables of the figures: progress, kind strings, pivots."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

#: ``progress(done, total)``, called after each computed point.
Progress = Callable[[int, int], None]

#: Kind of a reference line that is no privacy quantity (e.g. a 1/n_syn slope).
_GUIDE = "guide"


def _notify(progress: Progress | None, done: int, total: int) -> None:
    if progress is not None:
        progress(done, total)


def _kind(fn) -> str:
    """The kind label of a privacy function, as a string."""
    return str(fn.kind)


def _wide(frame: pd.DataFrame, index: list[str], column: str = "value") -> pd.DataFrame:
    return frame.pivot_table(index=index, columns="curve", values=column, aggfunc="first")
