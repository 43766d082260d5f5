"""What the benchmark scripts share: timing, the machine line and the Markdown report.

Not a benchmark itself. The scripts are run as ``python benchmarks/bench_x.py``,
which puts this folder first on ``sys.path``, so they import it as ``_common``.
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np


def median_time(
    fn: Callable[[], object],
    repeats: int,
    *,
    warm_up: bool = True,
    clock: Callable[[], float] = time.perf_counter,
) -> float:
    """Median wall time of ``repeats`` calls of ``fn`` (seconds), after one warm-up call.

    ``warm_up=False`` skips the warm-up call (for runs that take long and have no
    cache to fill); ``clock=time.process_time`` measures CPU time instead (the
    better measure on a shared machine).
    """
    if warm_up:
        fn()  # warm-up (caches, imports)
    times = []
    for _ in range(repeats):
        start = clock()
        fn()
        times.append(clock() - start)
    return statistics.median(times)


def machine_summary() -> str:
    """Architecture, cores, load average now, Python and numpy versions (one phrase)."""
    return (
        f"{platform.machine()}, {os.cpu_count()} cores, load average "
        f"{os.getloadavg()[0]:.1f} at the end (the tree is shared), Python "
        f"{platform.python_version()}, numpy {np.__version__}"
    )


def markdown_table(header: list[str], rows: list[list[str]]) -> list[str]:
    """The lines of a Markdown table."""
    return [
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---" for _ in header) + "|",
        *("| " + " | ".join(row) + " |" for row in rows),
    ]


def write_report(path: str | Path, lines: list[str]) -> None:
    """Write ``lines`` to ``path`` (creating its folder) and say so on stdout."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {out}")
