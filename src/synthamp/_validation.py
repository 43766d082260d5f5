"""Uniform input validation.

Every public entry point validates its inputs with these helpers, so that bad
input raises :class:`InputError` (a :class:`ValueError`) whose message names
the parameter and the rule. The command-line interface turns the parameter
name into its flag (``norm_v`` -> ``--norm-v``) and exits with code 2.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable

import numpy as np

__all__ = [
    "InputError",
    "check_alpha",
    "check_dim",
    "check_integer",
    "check_n_syn",
    "check_nonnegative",
    "check_open_unit",
    "check_positive",
]

#: Largest supported model width d.
MAX_DIM = 10**6
#: Largest supported number of synthetic records for the finite-release engine (computed
#: directly, tested against mpmath up to here: tests/divergence/test_large_amplitude.py).
MAX_N_SYN = 10**9


class InputError(ValueError):
    """Invalid input. ``param`` names the offending parameter."""

    def __init__(self, param: str, rule: str):
        self.param = param
        self.rule = rule
        super().__init__(f"{param}: {rule}")


def _as_real(param: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise InputError(param, f"must be a number, got {value!r}") from None
    value = float(value)
    if not math.isfinite(value):
        raise InputError(param, f"must be finite, got {value!r}")
    return value


def check_positive(param: str, value) -> float:
    """Return ``value`` as a float, requiring a finite number > 0."""
    value = _as_real(param, value)
    if value <= 0:
        raise InputError(param, f"must be > 0, got {value:g}")
    return value


def check_nonnegative(param: str, value) -> float:
    """Return ``value`` as a float, requiring a finite number >= 0."""
    value = _as_real(param, value)
    if value < 0:
        raise InputError(param, f"must be >= 0, got {value:g}")
    return value


def check_open_unit(param: str, value) -> float:
    """Return ``value`` as a float, requiring 0 < value < 1."""
    value = _as_real(param, value)
    if not 0 < value < 1:
        raise InputError(param, f"must be in (0, 1), got {value:g}")
    return value


def check_integer(param: str, value, minimum: int = 1, maximum: int | None = None) -> int:
    """Return ``value`` as an int, requiring an integer in [minimum, maximum]."""
    if isinstance(value, bool):
        raise InputError(param, f"must be an integer, got {value!r}")
    if isinstance(value, numbers.Integral):
        ivalue = int(value)
    else:
        fvalue = _as_real(param, value)
        if fvalue != int(fvalue):
            raise InputError(param, f"must be an integer, got {value!r}")
        ivalue = int(fvalue)
    if ivalue < minimum:
        raise InputError(param, f"must be an integer >= {minimum}, got {ivalue}")
    if maximum is not None and ivalue > maximum:
        raise InputError(param, f"must be an integer <= {maximum}, got {ivalue}")
    return ivalue


def check_dim(value, param: str = "dim") -> int:
    """Model width d: an integer in [1, 10^6]."""
    return check_integer(param, value, 1, MAX_DIM)


def check_n_syn(value, param: str = "n_syn") -> int:
    """Number of synthetic records: an integer in [1, 10^9]."""
    return check_integer(param, value, 1, MAX_N_SYN)


def check_alpha(alpha, param: str = "alpha") -> np.ndarray:
    """Rényi orders: a number or a sequence of numbers, each finite and > 1.

    Returns a 1-d float array (a scalar becomes an array of length 1).
    """
    if isinstance(alpha, str) or not isinstance(alpha, Iterable | np.ndarray):
        values = [alpha]
    else:
        values = list(np.ravel(np.asarray(alpha, dtype=object)))
    if not values:
        raise InputError(param, "must contain at least one order")
    out = np.array([_as_real(param, a) for a in values], dtype=float)
    bad = out[out <= 1]
    if bad.size:
        raise InputError(param, f"every order must be > 1, got {bad[0]:g}")
    return out
