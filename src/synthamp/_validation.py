"""Uniform input validation.

Every public entry point validates its inputs with these helpers, so that bad
input raises :class:`InputError` (a :class:`ValueError`) whose message names
the parameter and the rule. The command-line interface turns the parameter
name into its flag (``norm_v`` -> ``--norm-v``) and exits with code 2.
"""

from __future__ import annotations

import math
import numbers
import re
import unicodedata
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
    "check_real_table",
    "check_sigma",
    "check_unit_interval",
    "flag_text",
    "plain_text",
    "printable",
]

#: Largest supported model width d.
MAX_DIM = 10**6
#: Largest supported number of synthetic records for the finite-release engine (computed
#: directly, tested against mpmath up to here: tests/divergence/test_large_amplitude.py).
MAX_N_SYN = 10**9


#: Largest noise σ a release accepts: the records' covariance σ_z²VᵀV, with ‖V‖ ≈ σ√(dk),
#: stays finite (log space: 2·log σ + log(d·k) well below log(1.8e308) ≈ 709.8).
MAX_SIGMA = 1e100
#: Largest scale of a release's other numbers (the label bound B, the norm bound C, the
#: sensitivity Δ): the same limit as σ, for the same reason (‖V‖ ≈ C + σ√(dk), and the
#: utility's errors are of the scale of C² and σ²). The accountant itself is scale-free
#: (it works in c = C/σ and s = Δ/σ) and takes any finite C, Δ, σ.
MAX_SCALE = MAX_SIGMA
#: Smallest C and Δ whose σ is calibrated (the RDP of σ ~ Δ squares them: 1e-300 underflows).
MIN_SCALE = 1e-150


_MARKED = re.compile(r"`([a-z][a-z0-9_]*)`")


def plain_text(text: str) -> str:
    """A message with its marked parameters (```epsilon```) as the library names them."""
    return _MARKED.sub(r"\1", text)


def flag_text(text: str) -> str:
    """A message with its marked parameters as command-line flags (``--epsilon``)."""
    return _MARKED.sub(lambda match: "--" + match.group(1).replace("_", "-"), text)


class InputError(ValueError):
    """Invalid input. ``param`` names the offending parameter.

    The rule may name other parameters between backquotes (``"give `epsilon` and
    `delta`"``): the library's message shows the parameter (``epsilon``), the
    command line's its flag (``--epsilon``, :meth:`flag_rule`), so neither names
    what the other user never set.
    """

    def __init__(self, param: str, rule: str):
        self.param = param
        self.marked_rule = rule
        self.rule = plain_text(rule)
        super().__init__(f"{param}: {self.rule}")

    @property
    def flag_rule(self) -> str:
        """The rule with each marked parameter written as its command-line flag."""
        return flag_text(self.marked_rule)


def _is_number(value) -> bool:
    """A real number: Python's or numpy's (a 0-d numeric array too); never a bool or text.

    ``float('0.1')`` and ``float(True)`` succeed, so a converting check would take
    ``sigma='0.1'`` or ``epsilon=True``: a library caller's mistake passed silently.
    """
    if isinstance(value, bool | np.bool_ | str | bytes):
        return False
    if isinstance(value, numbers.Real):
        return True
    return isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf"


def _as_real(param: str, value) -> float:
    if not _is_number(value):
        raise InputError(param, f"must be a number, got {value!r} ({type(value).__name__})")
    try:
        value = float(value)
    except OverflowError:  # an int past the float range
        digits = len(str(value))
        raise InputError(param, f"must be finite, got an integer of {digits} digits") from None
    if not math.isfinite(value):
        raise InputError(param, f"must be finite, got {value!r}")
    return value


def check_positive(param: str, value) -> float:
    """Return ``value`` as a float, requiring a finite number > 0."""
    value = _as_real(param, value)
    if value <= 0:
        raise InputError(param, f"must be > 0, got {value:g}")
    return value


def check_sigma(param: str, value) -> float:
    """A noise σ in (0, MAX_SIGMA]: finite, and small enough that VᵀV cannot overflow."""
    value = check_positive(param, value)
    if value > MAX_SIGMA:
        raise InputError(
            param,
            f"must be ≤ {MAX_SIGMA:g}, got {value:g}: the released records (covariance "
            "σ_z²VᵀV, ‖V‖ ≈ σ√(dk)) would overflow",
        )
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


def check_unit_interval(param: str, value) -> float:
    """Return ``value`` as a float, requiring 0 <= value <= 1 (a share, ends included)."""
    value = _as_real(param, value)
    if not 0 <= value <= 1:
        raise InputError(param, f"must be in [0, 1], got {value:g}")
    return value


def check_integer(param: str, value, minimum: int = 1, maximum: int | None = None) -> int:
    """Return ``value`` as an int, requiring an integer in [minimum, maximum]."""
    if isinstance(value, bool | np.bool_):
        raise InputError(param, f"must be an integer, got {value!r}")
    if isinstance(value, numbers.Integral):
        ivalue = int(value)
    else:
        fvalue = _as_real(param, value)
        if fvalue != int(fvalue):
            raise InputError(param, f"must be an integer, got {value!r}")
        ivalue = int(fvalue)
    integer_at_least(param, ivalue, minimum)
    if maximum is not None:
        integer_at_most(param, ivalue, maximum)
    return ivalue


def integer_at_least(param: str, value: int, minimum: int) -> int:
    """Refuse an integer below ``minimum`` (the wording of :func:`check_integer`)."""
    if value < minimum:
        raise InputError(param, f"must be an integer >= {minimum}, got {value}")
    return value


def integer_at_most(param: str, value: int, maximum: int) -> int:
    """Refuse an integer above ``maximum`` (the wording of :func:`check_integer`)."""
    if value > maximum:
        raise InputError(param, f"must be an integer <= {maximum}, got {value}")
    return value


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


def printable(text) -> str:
    """``text`` with every control or format character escaped (``\\x1b``, ``\\u202e``).

    For names from a table or a file name that go into a message on a terminal:
    an escape sequence must never reach the terminal raw.
    """
    out = []
    for char in str(text):
        if unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
            code = ord(char)
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        else:
            out.append(char)
    return "".join(out)


def check_real_table(param: str, values, names=None) -> np.ndarray:
    """The one check of a table of real numbers, shared by the library and the command line.

    Refuses masked arrays (their hidden cells would be used), booleans,
    complex and non-numeric dtypes, and NaN or infinite cells (naming the
    column and the row, counted from 1, never the value). Returns a C-contiguous
    float64 array of the same shape.

    Parameters
    ----------
    param : str
        The parameter named in errors.
    values : array_like
    names : sequence of str, optional
        Column names for the messages (default: column numbers from 1).
    """
    if isinstance(values, np.ma.MaskedArray):
        raise InputError(
            param,
            "is a masked array: its masked cells would be used as they are; fill or drop "
            "them first (np.ma.filled or compressed rows)",
        )
    try:
        raw = np.asarray(values)
    except (TypeError, ValueError):
        raise InputError(param, "must be a numeric array") from None
    if raw.dtype.kind == "c":
        raise InputError(param, "is complex; real numbers are needed (nothing is dropped)")
    if raw.dtype.kind == "b":
        raise InputError(param, "is boolean; real numbers are needed (cast it explicitly)")
    if raw.dtype.kind not in "iuf":
        raise InputError(param, f"must be a real numeric array, got dtype {raw.dtype}")
    array = np.ascontiguousarray(raw, dtype=np.float64)
    finite = np.isfinite(array)
    if not finite.all():
        where = np.argwhere(~finite)[0]
        row = int(where[0]) if array.ndim else 0
        col = int(where[1]) if array.ndim == 2 else 0
        column = repr(printable(names[col])) if names is not None else f"{col + 1}"
        what = "a missing (NaN)" if np.isnan(array[tuple(where)]) else "an infinite"
        raise InputError(param, f"column {column} has {what} value in row {row + 1}")
    return array
