"""The library's parameters and their rules, each declared once (scikit-learn's
``_parameter_constraints`` style, one table for the whole library).

:data:`PARAMETERS` maps every parameter name a public function takes to its rule:
a :class:`Constraint` (an interval of reals or integers, or Rényi orders), what
``None`` means if the parameter may be left out, and, for a name that is another
spelling of a library parameter (``orders`` for ``alpha``), the parameter it
spells. A public function validates its arguments by name,

>>> epsilon, delta = validated(epsilon=1.0, delta=1e-5)

and the rule applied is the one written here; an error is
:class:`~synthamp._validation.InputError` naming the parameter as the caller
spelled it (the command line maps it to its flag). A rule that one entry point
narrows for a reason of its own (the k = 2 engine's width) stays at that entry
point as an explicit check *after* the table's (:func:`at_most`, :func:`at_least`);
a rule between parameters (``delta`` only with ``epsilon``) stays explicit code.

The checks themselves, and the wording of every message, are those of
:mod:`synthamp._validation`; this module says which check applies to which name.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

import numpy as np

from synthamp._validation import (
    MAX_DIM,
    MAX_N_SYN,
    MAX_SIGMA,
    check_alpha,
    check_integer,
    check_nonnegative,
    check_open_unit,
    check_positive,
    check_sigma,
    integer_at_least,
    integer_at_most,
)

__all__ = [
    "PARAMETERS",
    "Constraint",
    "Integer",
    "Orders",
    "Parameter",
    "Real",
    "at_least",
    "at_most",
    "declared",
    "validated",
    "validated_one",
]


@dataclass(frozen=True)
class Constraint:
    """A rule on one value: :meth:`check` converts a valid value and refuses the others."""

    def check(self, param: str, value):  # pragma: no cover - abstract
        raise NotImplementedError

    def describe(self) -> str:  # pragma: no cover - abstract
        raise NotImplementedError

    def inside(self) -> list:
        """Values just inside the rule (for the test that walks the table)."""
        raise NotImplementedError  # pragma: no cover

    def outside(self) -> list:
        """Values just outside the rule (for the test that walks the table)."""
        raise NotImplementedError  # pragma: no cover


#: The shapes of real intervals the checks of :mod:`synthamp._validation` express,
#: (low, high, low_closed, high_closed) → the check.
_REAL_CHECKS = {
    (0.0, math.inf, False, False): "positive",
    (0.0, math.inf, True, False): "nonnegative",
    (0.0, 1.0, False, False): "open_unit",
    (0.0, MAX_SIGMA, False, True): "sigma",
}


@dataclass(frozen=True)
class Real(Constraint):
    """A finite real number in an interval (0 < x, 0 ≤ x, 0 < x < 1 or 0 < x ≤ MAX_SIGMA).

    Only the intervals a check of :mod:`synthamp._validation` words are declared, so
    every message reads as it always has.
    """

    low: float = 0.0
    high: float = math.inf
    low_closed: bool = False
    high_closed: bool = False

    def __post_init__(self):
        if self._shape() not in _REAL_CHECKS:
            raise ValueError(f"no check words the interval {self.describe()}")

    def _shape(self):
        return (self.low, self.high, self.low_closed, self.high_closed)

    def check(self, param: str, value) -> float:
        # the checks are looked up at call time (the validation-once test wraps them)
        which = _REAL_CHECKS[self._shape()]
        if which == "positive":
            return check_positive(param, value)
        if which == "nonnegative":
            return check_nonnegative(param, value)
        if which == "open_unit":
            return check_open_unit(param, value)
        return check_sigma(param, value)

    def describe(self) -> str:
        left = "[" if self.low_closed else "("
        right = "]" if self.high_closed else ")"
        high = "∞" if math.isinf(self.high) else f"{self.high:g}"
        return f"a finite real in {left}{self.low:g}, {high}{right}"

    def inside(self) -> list:
        low = self.low if self.low_closed else np.nextafter(self.low, math.inf)
        high = self.high if self.high_closed else np.nextafter(self.high, -math.inf)
        return [float(low), float(high) if math.isfinite(high) else 1e300]

    def outside(self) -> list:
        low = np.nextafter(self.low, -math.inf) if self.low_closed else self.low
        out = [float(low), math.nan, math.inf, "1", True]
        if math.isfinite(self.high):
            out.append(float(np.nextafter(self.high, math.inf) if self.high_closed else self.high))
        return out


@dataclass(frozen=True)
class Integer(Constraint):
    """An integer in [low, high] (no upper end if ``high`` is None); 2.0 counts, 2.5 not."""

    low: int = 1
    high: int | None = None

    def check(self, param: str, value) -> int:
        return check_integer(param, value, self.low, self.high)

    def describe(self) -> str:
        high = "∞" if self.high is None else f"{self.high:,}"
        return f"an integer in [{self.low}, {high}]"

    def inside(self) -> list:
        return [self.low] + ([] if self.high is None else [self.high])

    def outside(self) -> list:
        out = [self.low - 1, self.low + 0.5, True, "1"]
        return out + ([] if self.high is None else [self.high + 1])


@dataclass(frozen=True)
class Orders(Constraint):
    """Rényi orders: a number or a non-empty sequence, each finite and > 1 (a 1-d array)."""

    def check(self, param: str, value) -> np.ndarray:
        return check_alpha(value, param)

    def describe(self) -> str:
        return "one or more finite reals > 1"

    def inside(self) -> list:
        return [float(np.nextafter(1.0, 2.0)), [1.5, 1e6]]

    def outside(self) -> list:
        return [1.0, [2.0, 1.0], [], math.inf, "2"]


@dataclass(frozen=True)
class Parameter:
    """A library parameter: its rule, what ``None`` means (None: not accepted), its spelling.

    ``same_as`` names the library parameter this name spells at some entry points
    (``orders`` for ``alpha``): the rule is that parameter's, the error names the
    spelling the caller used. ``example``: a typical valid value (the test that
    walks the entry points calls them with it).
    """

    constraint: Constraint | None = None
    none: str | None = None
    same_as: str | None = None
    doc: str = ""
    example: Any = None


_POSITIVE = Real()
_NONNEGATIVE = Real(low_closed=True)
_OPEN_UNIT = Real(0.0, 1.0)
_SIGMA = Real(0.0, MAX_SIGMA, high_closed=True)

#: Every parameter of the library's public functions with a single-value rule.
#: Rules between parameters (``delta`` with ``epsilon``, ``partitions`` ≤ ``n_syn``)
#: and the narrower limits of one engine stay at their entry points.
PARAMETERS: Mapping[str, Parameter] = MappingProxyType({
    # --- the guarantee
    "epsilon": Parameter(_POSITIVE, example=1.0, doc="target or bound ε of (ε, δ)-DP"),
    "delta": Parameter(_OPEN_UNIT, example=1e-5, doc="δ of (ε, δ)-DP"),
    "delta_grid": Parameter(same_as="delta", doc="each δ of a grid"),
    "alpha": Parameter(Orders(), example=[2.0, 8.0], doc="Rényi orders"),
    "orders": Parameter(same_as="alpha"),
    # --- the release's shape and noise
    "sigma": Parameter(_SIGMA, example=1.0,
                       doc="noise σ: finite, and small enough that VᵀV cannot overflow"),
    "dim": Parameter(Integer(1, MAX_DIM), example=10, doc="model width d"),
    "out_dim": Parameter(Integer(1), example=1, doc="columns k of the released statistic"),
    "norm_bound": Parameter(_POSITIVE, example=2.0, doc="norm bound C of a record's contribution"),
    "sensitivity": Parameter(_POSITIVE, example=0.5, doc="replace-one sensitivity Δ of the target"),
    "n_syn": Parameter(Integer(1, MAX_N_SYN), none="unlimited accounting", example=None,
                       doc="synthetic records of a finite release"),
    "releases": Parameter(Integer(1), example=1, doc="releases T composed"),
    # --- the accountants' numerics
    "discretization": Parameter(_POSITIVE, example=1e-3, doc="the PLD's loss grid step"),
    "tail": Parameter(_OPEN_UNIT, example=1e-12, doc="tail probability an accountant truncates"),
    "rtol": Parameter(_POSITIVE, example=1e-4, doc="relative tolerance of a calibration"),
    "time_budget": Parameter(_NONNEGATIVE, none="no limit", example=10.0,
                             doc="seconds of accounting"),
    # --- the release's data
    "label_bound": Parameter(_POSITIVE, example=1.0, doc="bound B on |y|"),
    "ridge": Parameter(_POSITIVE, example=1.0, doc="ridge λ"),
    "gram_sensitivity": Parameter(_POSITIVE, example=1.0, doc="s₂ of the Gram statistic"),
    # --- the accountant's other inputs
    "norm": Parameter(same_as="norm_bound", doc="the canonical norm c* of a design"),
    "canonical_norm": Parameter(same_as="norm_bound", doc="the canonical norm c* of a design"),
    "realised_norm": Parameter(_POSITIVE, example=1.0, doc="the realised pair's norm"),
    "mu": Parameter(_POSITIVE, example=1.0, doc="the Laplace mechanism's Δ/b"),
    "sampling_probability": Parameter(_POSITIVE, example=0.5,
                                      doc="Poisson sampling q (q ≤ 1 is checked beside)"),
    "tail_mass": Parameter(_OPEN_UNIT, example=1e-15, doc="dp_accounting's truncated mass"),
    "count": Parameter(Integer(1), example=2, doc="times a PLD is composed with itself"),
    "search": Parameter(Integer(0), example=0, doc="pairs searched for a k = 2 lower bound"),
    "starts": Parameter(Integer(0), example=0, doc="random starts of a pair search"),
})  # fmt: skip


def declared(name: str) -> tuple[str, Parameter]:
    """The library parameter ``name`` spells and its declaration (KeyError if undeclared)."""
    entry = PARAMETERS[name]
    if entry.same_as is not None:
        return entry.same_as, PARAMETERS[entry.same_as]
    return name, entry


def validated_one(name: str, value: Any) -> Any:
    """``value`` checked against the rule of parameter ``name`` and converted.

    ``None`` passes unchecked where the table says what it means; elsewhere it is
    refused like any value that is not a number.
    """
    _, entry = declared(name)
    if value is None and entry.none is not None:
        return None
    assert entry.constraint is not None, name
    return entry.constraint.check(name, value)


def validated(**values: Any) -> tuple:
    """The values checked against the rules of their parameters, in the order given.

    >>> sigma, dim = validated(sigma=1.0, dim=10)
    """
    return tuple(validated_one(name, value) for name, value in values.items())


def at_most(param: str, value: int, maximum: int) -> int:
    """A narrower upper end of an integer parameter at one entry point (after the table's)."""
    return integer_at_most(param, value, maximum)


def at_least(param: str, value: int, minimum: int) -> int:
    """A narrower lower end of an integer parameter at one entry point (after the table's)."""
    return integer_at_least(param, value, minimum)
