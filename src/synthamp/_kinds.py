"""What kind of privacy number a function returns.

Every public function of synthamp that returns a privacy quantity (a Rényi
divergence, an RDP curve, an ε) is labelled with one of four kinds:

``exact``
    Computed numerically to a stated error bound; as good as a proof once the
    error bound is added.
``certified``
    A proven upper (or lower) bound; usable in a privacy guarantee.
``estimate``
    A Monte Carlo estimate with a confidence interval; evidence, never used in a
    guarantee.
``heuristic``
    An asymptotic statement (e.g. the local Δ → 0 expansions of the paper).
    Shown for insight only; never feeds a guarantee.

The label is stored on the function as ``fn.kind`` (a :class:`Kind`), and
every labelled function is listed in :data:`PRIVACY_FUNCTIONS` under its
public path: a function defined in a private module of a package
(``synthamp.accountant._worst_case``) is listed where users import it from
(``synthamp.accountant.worst_case_rdp``).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import TypeVar

__all__ = ["PRIVACY_FUNCTIONS", "Kind", "privacy_quantity"]


class Kind(enum.StrEnum):
    """Kind of a privacy quantity: exact, certified, estimate or heuristic."""

    EXACT = "exact"
    CERTIFIED = "certified"
    ESTIMATE = "estimate"
    HEURISTIC = "heuristic"

    @property
    def usable_in_guarantee(self) -> bool:
        """Whether a number of this kind may feed a privacy guarantee."""
        return self not in (Kind.HEURISTIC, Kind.ESTIMATE)


PRIVACY_FUNCTIONS: dict[str, Kind] = {}

F = TypeVar("F", bound=Callable)


def privacy_quantity(kind: Kind | str) -> Callable[[F], F]:
    """Label a function with the kind of privacy quantity it returns.

    Parameters
    ----------
    kind : Kind or {"exact", "certified", "heuristic"}
        The kind of number the decorated function returns.
    """
    kind = Kind(kind)

    def decorate(fn: F) -> F:
        fn.kind = kind  # type: ignore[attr-defined]
        PRIVACY_FUNCTIONS[f"{_public_module(fn.__module__)}.{fn.__qualname__}"] = kind
        return fn

    return decorate


def _public_module(module: str) -> str:
    """``module`` without its trailing private parts: ``a.b._c._d`` -> ``a.b``."""
    parts = module.split(".")
    while len(parts) > 1 and parts[-1].startswith("_"):
        parts.pop()
    return ".".join(parts)
