"""The memory a public design's m × m work needs, checked before anything is allocated.

A release or a plan on a public design (docs/theory.md §19) works with m × m
float64 matrices: the kernel K = XXᵀ, its accumulating block product, the dual
R = (K/m + λI)⁻¹ with the copies the inversion makes, and G = R K R/m². Measured
with :mod:`tracemalloc` on ``design_release`` and ``plan_design`` (the test
``test_design_memory_estimate_covers_the_measured_peak`` re-measures it), numpy's
peak is 5 such arrays; LAPACK's workspace (not traced) brings the resident peak to
about 6.3. :data:`DESIGN_MATRICES` counts 7, so the estimate covers the measured
peak with one array to spare.

At m = 20,000 one array is 3.2 GB, so the work needs ~22 GB; at m = 10⁶ it
would need 56 TB. Such a design is refused up front with one line (saying the
limit and how to lower m), before the table is read and before any allocation,
instead of a MemoryError traceback or the kernel's out-of-memory killer.

The memory available is the smallest of the kernel's estimate of what a new
program can use without swapping (``MemAvailable`` of /proc/meminfo, or
``SC_AVPHYS_PAGES``), the room left under a control-group limit, and the room
left under the address-space limit (``RLIMIT_AS``). A design may use
:data:`MEMORY_FRACTION` of it: the rest is for the process itself (the table,
the accountant) and for the machine's other programs, since ``MemAvailable`` is
itself an estimate and may shrink while the kernel is computed.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

try:
    import resource  # POSIX only
except ImportError:  # pragma: no cover
    resource = None

from synthamp._validation import InputError

__all__ = ["DESIGN_MATRICES", "MEMORY_FRACTION", "available_memory", "check_design_memory"]

#: m × m float64 arrays a design's work holds at its peak (measured 6.3, module docstring).
DESIGN_MATRICES = 7
#: The share of the available memory a design may use.
MEMORY_FRACTION = 0.5

_CGROUP_FILES = (
    ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),  # cgroup v2
    (
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",  # cgroup v1
        "/sys/fs/cgroup/memory/memory.usage_in_bytes",
    ),
)


def _read_number(path: str) -> int | None:
    try:
        text = Path(path).read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None  # "max": no limit


def _meminfo_available() -> int | None:
    try:
        with open("/proc/meminfo") as lines:
            for line in lines:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def _address_space_left() -> int | None:
    if resource is None:
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    used = _read_number_field("/proc/self/statm", 0)
    page = os.sysconf("SC_PAGE_SIZE")
    return max(soft - (used or 0) * page, 0)


def _read_number_field(path: str, index: int) -> int | None:
    try:
        return int(Path(path).read_text().split()[index])
    except (OSError, ValueError, IndexError):
        return None


def available_memory() -> int | None:
    """Bytes this process can still allocate without swapping (None: unknown).

    The smallest of ``MemAvailable`` (or ``SC_AVPHYS_PAGES``), the room under a
    control-group memory limit and the room under ``RLIMIT_AS``.
    """
    found = [_meminfo_available(), _address_space_left()]
    for limit_file, usage_file in _CGROUP_FILES:
        limit, usage = _read_number(limit_file), _read_number(usage_file)
        if limit is not None and limit < 1 << 60:
            found.append(max(limit - (usage or 0), 0))
    known = [value for value in found if value is not None]
    return min(known) if known else None


def design_memory(n_records: int) -> int:
    """Bytes the m × m work of a design on ``n_records`` records needs (module docstring)."""
    return DESIGN_MATRICES * 8 * n_records * n_records


def _gb(n_bytes: float) -> str:
    return f"{n_bytes / 1e9:,.3g} GB" if n_bytes < 1e12 else f"{n_bytes / 1e12:,.3g} TB"


def check_design_memory(n_records: int, *, param: str = "design") -> None:
    """Refuse a design whose m × m work would not fit in memory (one line, nothing allocated).

    Parameters
    ----------
    n_records : int
        m, the records the design is fitted on.
    param : str, default "design"
        The parameter named in the error.

    Raises
    ------
    InputError
        If :func:`design_memory` exceeds :data:`MEMORY_FRACTION` of
        :func:`available_memory`; the message gives both, and the largest m that fits.
    """
    available = available_memory()
    if available is None:
        return
    need, usable = design_memory(n_records), MEMORY_FRACTION * available
    if need <= usable:
        return
    largest = math.isqrt(int(usable // (DESIGN_MATRICES * 8)))
    unit = 10 ** max(len(str(largest)) - 2, 0)  # two significant digits, rounded down
    rounded = max(largest // unit * unit, 2)
    raise InputError(
        param,
        f"a public design on m = {n_records:,} records needs ~{_gb(need)} for its m × m work "
        f"({DESIGN_MATRICES} arrays of m² numbers), and this machine has {_gb(available)} "
        f"available (a design uses at most {MEMORY_FRACTION:.0%}); use at most "
        f"m ≈ {rounded:,} records (sample the table's rows), or a machine with more memory",
    )
