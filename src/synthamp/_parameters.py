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
from dataclasses import dataclass, field
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
    check_unit_interval,
    integer_at_least,
    integer_at_most,
)

__all__ = [
    "CLOSED_FORMS",
    "DOMAINS",
    "MAX_TRIALS",
    "MAX_WIDTH",
    "PARAMETERS",
    "RECORDS_WRITTEN",
    "Constraint",
    "Integer",
    "Orders",
    "Parameter",
    "Real",
    "at_least",
    "at_most",
    "declared",
    "rule",
    "validated",
    "validated_in",
    "validated_one",
    "validated_optional",
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
    (0.0, 1.0, True, True): "unit_interval",
}


@dataclass(frozen=True)
class Real(Constraint):
    """A finite real number in an interval (0 < x, 0 ≤ x, 0 < x < 1, 0 ≤ x ≤ 1 or
    0 < x ≤ MAX_SIGMA).

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
        if which == "unit_interval":
            return check_unit_interval(param, value)
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
    walks the entry points calls them with it). ``where``: the rule of its own in a
    domain of :data:`DOMAINS` (the paper's closed forms take C = 0 and Δ = 0, their
    trivial limits), applied by :func:`validated_in`.
    """

    constraint: Constraint | None = None
    none: str | None = None
    same_as: str | None = None
    doc: str = ""
    example: Any = None
    where: Mapping[str, Constraint] = field(default_factory=dict)


#: Largest width D of a public design (the engine's d limit).
MAX_WIDTH = MAX_DIM
#: Largest number of an audit's trials per dataset (memory: 16 bytes per trial).
MAX_TRIALS = 10**8

_POSITIVE = Real()
_NONNEGATIVE = Real(low_closed=True)

#: The domains whose public functions apply a rule of their own to some parameters, and
#: the modules (or single public functions) in the domain.
CLOSED_FORMS = "closed forms"
RECORDS_WRITTEN = "records written"
DOMAINS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    CLOSED_FORMS: ("synthamp.bounds",),  # the paper's formulas: C = 0, Δ = 0 their limits
    # n_syn: the records written or planned, any number (unlimited accounting)
    RECORDS_WRITTEN: ("synthamp.utility", "synthamp.release.gram_estimate_errors",
                      "synthamp.release.plan_release", "synthamp.jobs.plan_table"),
})  # fmt: skip
_CLOSED_FORMS = MappingProxyType({CLOSED_FORMS: _NONNEGATIVE})
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
    "norm_bound": Parameter(_POSITIVE, example=2.0, where=_CLOSED_FORMS,
                            doc="norm bound C of a record's contribution"),
    "sensitivity": Parameter(_POSITIVE, example=0.5, where=_CLOSED_FORMS,
                             doc="replace-one sensitivity Δ of the target"),
    "n_syn": Parameter(Integer(1, MAX_N_SYN), none="unlimited accounting", example=50,
                       where={RECORDS_WRITTEN: Integer(1)},
                       doc="synthetic records of a finite release (the engine's range)"),
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
    # --- the engine's and the closed forms' own inputs
    "norm_v": Parameter(_NONNEGATIVE, example=1.0, doc="‖v‖ of one dataset of a pair"),
    "norm_w": Parameter(_NONNEGATIVE, example=0.5, doc="‖w‖ of the other dataset of a pair"),
    "amp": Parameter(_NONNEGATIVE, example=1.0, doc="amplitude a = ‖v‖/σ of a law"),
    "amp_p": Parameter(same_as="amp"),
    "amp_q": Parameter(same_as="amp"),
    "theta": Parameter(_NONNEGATIVE, example=0.5, doc="a point θ = ‖v‖/σ of the Fisher path"),
    "samples": Parameter(Integer(2, 10**8), example=1000, doc="Monte Carlo samples"),
    "fisher": Parameter(_NONNEGATIVE, example=1.0, doc="a Fisher information I(θ)"),
    "fisher_sup": Parameter(same_as="fisher"),
    "path_length": Parameter(_NONNEGATIVE, example=1.0, doc="the length of a Fisher path"),
    "path_length_sq": Parameter(_NONNEGATIVE, example=1.0, doc="the squared length of a path"),
    "t": Parameter(_NONNEGATIVE, example=0.5, doc="the norm t = ‖v‖ of the no-norm bound"),
    "num_points": Parameter(Integer(1, 10**7), example=100, doc="quadrature points"),
    # --- the utility's and the release's own inputs
    "n_records": Parameter(Integer(1), example=100, doc="records n of the private table"),
    "feature_bound": Parameter(_POSITIVE, example=1.0, doc="bound on a feature row's norm"),
    "rho": Parameter(_OPEN_UNIT, example=0.05, doc="AdaSSP's failure probability"),
    "trace_sensitivity": Parameter(_POSITIVE, example=1.0, doc="sensitivity of tr-shaped noise"),
    "statistic_sensitivity": Parameter(_POSITIVE, example=1.0, doc="a statistic's sensitivity"),
    "gram_sensitivity_theory": Parameter(_POSITIVE, example=1.0, doc="s₂ in theory units"),
    "gram_noise_error": Parameter(_POSITIVE, example=1.0, doc="the Gram noise's error"),
    "gram_norm_bound": Parameter(_POSITIVE, example=1.0, doc="a bound on ‖vᵀv‖"),
    # --- the audit's inputs
    "confidence": Parameter(_OPEN_UNIT, example=0.95, doc="a confidence level"),
    "trials": Parameter(Integer(2, MAX_TRIALS), example=100, doc="trials per dataset"),
    "epsilon_upper": Parameter(_NONNEGATIVE, example=1.0, doc="the ε an audit is checked against"),
    "seed": Parameter(Integer(0), none="fresh OS entropy", example=0, doc="a public seed"),
    "audit": Parameter(Integer(100), example=1000, doc="a release's audit trials"),
    # --- the release's and the designs' inputs
    "width": Parameter(Integer(1, MAX_WIDTH), example=16, doc="the public design's width D"),
    "design_seed": Parameter(Integer(0), example=7, doc="the public design's seed S"),
    "n_features": Parameter(Integer(1), example=3, doc="features p of the private table"),
    "n_targets": Parameter(Integer(1), example=1, doc="target columns k"),
    "n": Parameter(Integer(1), example=10, doc="records to draw"),
    "n_total": Parameter(Integer(1), example=10, doc="records of a partitioned output"),
    "partitions": Parameter(Integer(1), example=2, doc="partitions of a written output"),
    "chunk_size": Parameter(Integer(1), example=10, doc="records drawn per chunk"),
    "repeats": Parameter(Integer(1), example=2, doc="repeated draws of an estimate"),
    "reps": Parameter(Integer(2), example=10, doc="Monte Carlo repetitions of an error"),
    "gram_scale": Parameter(_POSITIVE, example=1.0, doc="the scale of a Gram matrix"),
    "run_sigma": Parameter(same_as="sigma", doc="the σ of a run (default: the release's)"),
    "dof": Parameter(Integer(0), example=1, doc="degrees of freedom"),
    "random_state": Parameter(Integer(0), none="fresh OS entropy", example=0,
                              doc="the seed of a public draw"),
    "seed_scale": Parameter(_POSITIVE, example=1.0, doc="the scale of the seed matrix Z"),
    "feature_scale": Parameter(_POSITIVE, example=1.0, doc="a feature's public scale"),
    "bandwidth": Parameter(_POSITIVE, example=1.0, doc="random-features' bandwidth γ"),
    "max_clipped": Parameter(Real(0.0, 1.0, True, True), example=0.01,
                             doc="largest share of clipped rows (0: none, 1: any)"),
})  # fmt: skip


def declared(name: str) -> tuple[str, Parameter]:
    """The library parameter ``name`` spells and its declaration (KeyError if undeclared)."""
    entry = PARAMETERS[name]
    if entry.same_as is not None:
        return entry.same_as, PARAMETERS[entry.same_as]
    return name, entry


def rule(name: str, domain: str | None = None) -> Constraint:
    """The rule of parameter ``name`` (in ``domain``, one of :data:`DOMAINS`, if given)."""
    _, entry = declared(name)
    if domain is not None:
        if domain not in DOMAINS:
            raise KeyError(domain)
        return entry.where.get(domain, entry.constraint)
    return entry.constraint


def validated_one(name: str, value: Any, domain: str | None = None) -> Any:
    """``value`` checked against the rule of parameter ``name`` and converted.

    ``None`` is refused like any value that is not a number (an entry point where it
    means something says so with :func:`validated_optional`).
    """
    return rule(name, domain).check(name, value)


def validated(**values: Any) -> tuple:
    """The values checked against the rules of their parameters, in the order given.

    >>> sigma, dim = validated(sigma=1.0, dim=10)
    """
    return tuple(validated_one(name, value) for name, value in values.items())


def validated_optional(domain: str | None = None, /, **values: Any) -> tuple:
    """As :func:`validated` (in ``domain`` if given), but ``None`` passes for a parameter
    whose table entry says what it means (``n_syn=None``: unlimited accounting);
    declaring it optional for any other parameter is a programming error.
    """
    out = []
    for name, value in values.items():
        meaning = declared(name)[1].none
        if meaning is None:
            raise TypeError(f"the table gives no meaning to {name}=None")
        out.append(None if value is None else validated_one(name, value, domain))
    return tuple(out)


def validated_in(domain: str, /, **values: Any) -> tuple:
    """As :func:`validated`, by the rules of ``domain`` (one of :data:`DOMAINS`)."""
    return tuple(validated_one(name, value, domain) for name, value in values.items())


def at_most(param: str, value: int, maximum: int) -> int:
    """A narrower upper end of an integer parameter at one entry point (after the table's)."""
    return integer_at_most(param, value, maximum)


def at_least(param: str, value: int, minimum: int) -> int:
    """A narrower lower end of an integer parameter at one entry point (after the table's)."""
    return integer_at_least(param, value, minimum)
