"""The choices and defaults of a release, light to import (the command line lists them).

Importing this module costs numpy only (and the light output module): the command line
builds its options from these names without loading the estimator (scikit-learn) or
the accountant (scipy).
"""

from __future__ import annotations

from synthamp._output._io import parse_mode
from synthamp.accountant import METHODS as ACCOUNTING_METHODS
from synthamp.accountant._choice import ACCOUNTANTS

__all__ = [
    "ACCOUNTANTS",
    "ACCOUNTING_METHODS",
    "BACKENDS",
    "DEMO_DIR",
    "release_mode",
]

#: Where the partitions are computed.
BACKENDS = ("local", "dask")

#: Output directory of :func:`synthamp.jobs.run_demo` (``synthamp demo``).
DEMO_DIR = "synthamp-demo"


def release_mode(mode, seed) -> int | None:
    """The outputs' file mode: ``mode`` (octal text or int), else 600 for a seeded release."""
    mode = parse_mode(mode)
    if mode is None and seed is not None:
        mode = 0o600  # a seeded release is not private: owner only unless asked otherwise
    return mode
