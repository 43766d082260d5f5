"""Stored mpmath references: computed once, looked up by the tests, a sample recomputed live.

The 40-digit references of ``tests/mpref.py`` and ``tests/mpref_convolution.py``
take seconds to minutes each. As scipy.special does with its ``_precompute/``
scripts, they are computed once by ``tests/data/make_references.py`` and stored in
``tests/data/references/<function>.json`` with their inputs, 40 significant
digits, the reference's own error bound, the time each took, and the versions of
mpmath, numpy and Python that made them. The tests read them through the
functions below, which have the signatures of the reference functions they
stand for.

Every run still recomputes a sample of the stored entries live
(``tests/test_references.py``, through the script's own ``check``), so the store
cannot drift from the reference code unnoticed; ``SYNTHAMP_REFERENCES=live``
recomputes every reference a test asks for.

Modes (environment variable ``SYNTHAMP_REFERENCES``):

``stored`` (default)
    Look up; a missing entry fails the test and names the script to run.
``record``
    Look up; a missing entry is computed and written to a shard in
    ``SYNTHAMP_REFERENCE_DIR`` at the end of the session (the script merges the
    shards). Used by the script only.
``live``
    Compute every reference (independent of the store).
"""

from __future__ import annotations

import atexit
import json
import os
import time
from pathlib import Path
from typing import Any

import mpmath as mp
import numpy as np

import mpref
import mpref_angle
import mpref_convolution
import mpref_design
import mpref_loss
import mpref_matrix

#: The store (``SYNTHAMP_REFERENCE_STORE`` overrides it: the script rebuilds into an empty one).
STORE = Path(
    os.environ.get("SYNTHAMP_REFERENCE_STORE", Path(__file__).parent / "data" / "references")
)
SCRIPT = "tests/data/make_references.py"
#: Significant digits stored per value.
DIGITS = 40

#: The stored reference functions, by the name of their store file.
FUNCTIONS = {
    "renyi_plateau": mpref.renyi_plateau,
    "renyi_finite": mpref.renyi_finite,
    "fisher_information": mpref.fisher_information,
    "log_likelihood_ratio": mpref.log_likelihood_ratio,
    "renyi_finite_convolution": mpref_convolution.renyi_finite_convolution,
    "bures_wasserstein_2x2": mpref_matrix.bures_wasserstein_2x2,
    "log_hyp0f1_2x2_integral": mpref_matrix.log_hyp0f1_2x2_integral,
    "design_bounds": mpref_design.design_bounds,
    "canonical_pair_renyi": mpref_angle.canonical_pair_renyi,
    "loss_upper_tail": mpref_loss.loss_upper_tail,
}


class MissingReference(LookupError):
    """A reference a test asks for is not in the store."""


def canonical(value: Any) -> Any:
    """JSON-ready inputs: numpy scalars to Python numbers, tuples and arrays to lists."""
    if isinstance(value, (list, tuple, np.ndarray)):
        return [canonical(v) for v in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value)
    raise TypeError(f"reference input of type {type(value).__name__} cannot be stored")


def key(args: list) -> str:
    """The store's key of one call: its canonical inputs as JSON (floats round-trip exactly)."""
    return json.dumps(args, separators=(",", ":"))


def encode(result: Any) -> Any:
    """A reference's result as JSON: mpf values as strings of DIGITS significant digits."""
    if isinstance(result, mpref.Reference):
        return {
            "alpha": [_digits(a) for a in result.alpha],
            "value": [_digits(v) for v in result.value],
            "error": [_digits(e) for e in result.error],
        }
    if isinstance(result, (tuple, list)):
        return [encode(r) for r in result]
    return _digits(result)


def decode(stored: Any) -> Any:
    """The inverse of :func:`encode` (values as mpf at 40-digit working precision)."""
    with mp.workdps(DIGITS + 5):
        if isinstance(stored, dict):
            return mpref.Reference(
                alpha=[mp.mpf(a) for a in stored["alpha"]],
                value=[mp.mpf(v) for v in stored["value"]],
                error=[mp.mpf(e) for e in stored["error"]],
            )
        if isinstance(stored, list):
            return tuple(decode(s) for s in stored)
        return mp.mpf(stored)


def _digits(x: Any) -> str:
    with mp.workdps(DIGITS + 5):  # mpf(x) at the ambient precision would round x
        return mp.nstr(mp.mpf(x), DIGITS, strip_zeros=False)


def compute(name: str, args: list) -> tuple[Any, float]:
    """Compute one reference live: (its result, the seconds it took).

    At 40-digit working precision whatever the caller's (the references' pointwise
    functions work at the ambient precision).
    """
    start = time.perf_counter()
    with mp.workdps(DIGITS):
        result = FUNCTIONS[name](*args)
    return result, time.perf_counter() - start


def versions() -> dict:
    """The versions a stored file was made with."""
    import platform
    import sys

    return {
        "mpmath": mp.__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
        "mpmath_backend": mp.libmp.BACKEND,
        "longdouble_bits": int(np.finfo(np.longdouble).nmant + 1),
        "platform": sys.platform,
    }


def load(name: str, directory: Path = STORE) -> dict:
    """The stored file of one function: {"versions", "digits", "entries": {key: entry}}."""
    path = directory / f"{name}.json"
    if not path.exists():
        return {"function": name, "digits": DIGITS, "versions": {}, "entries": {}}
    with path.open(encoding="utf-8") as handle:
        data = json.load(handle)
    data["entries"] = {key(e["args"]): e for e in data["entries"]}
    return data


def write(name: str, data: dict, directory: Path = STORE) -> None:
    """Write one function's file, entries sorted by key (a stable diff), atomically."""
    directory.mkdir(parents=True, exist_ok=True)
    entries = [data["entries"][k] for k in sorted(data["entries"])]
    out = {
        "function": name,
        "reference": f"{FUNCTIONS[name].__module__}.{FUNCTIONS[name].__name__}",
        "made_by": SCRIPT,
        "digits": DIGITS,
        "versions": data.get("versions") or versions(),
        "entries": entries,
    }
    path = directory / f"{name}.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)


_stores: dict[str, dict] = {}
_recorded: dict[str, dict] = {}


def _mode() -> str:
    mode = os.environ.get("SYNTHAMP_REFERENCES", "stored")
    if mode not in ("stored", "record", "live"):
        raise ValueError(f"SYNTHAMP_REFERENCES must be stored, record or live, got {mode!r}")
    return mode


def lookup(name: str, *args: Any) -> Any:
    """The reference ``FUNCTIONS[name](*args)``: stored, recorded or live (see the modes)."""
    mode = _mode()
    inputs = canonical(list(args))
    if mode == "live":
        return compute(name, inputs)[0]
    if name not in _stores:
        _stores[name] = load(name)
    entry = _stores[name]["entries"].get(key(inputs))
    if entry is not None:
        return decode(entry["value"])
    if mode == "stored":
        raise MissingReference(
            f"no stored reference {name}{tuple(inputs)}: run `python {SCRIPT}` "
            "(or SYNTHAMP_REFERENCES=live to compute it in the test)"
        )
    result, seconds = compute(name, inputs)
    _recorded.setdefault(name, {})[key(inputs)] = {
        "args": inputs,
        "value": encode(result),
        "seconds": round(seconds, 3),
    }
    return decode(_recorded[name][key(inputs)]["value"])


@atexit.register
def _write_shards() -> None:
    """In record mode, write what this process computed to its own shard file."""
    if not _recorded:
        return
    directory = Path(os.environ["SYNTHAMP_REFERENCE_DIR"])
    directory.mkdir(parents=True, exist_ok=True)
    shard = directory / f"shard-{os.getpid()}.json"
    shard.write_text(json.dumps(_recorded), encoding="utf-8")


def renyi_plateau(alpha, dim: int, a: float, b: float) -> mpref.Reference:
    """Stored :func:`mpref.renyi_plateau`."""
    return lookup("renyi_plateau", list(np.atleast_1d(alpha)), dim, a, b)


def renyi_finite(alpha, dim: int, a: float, b: float, n: int) -> mpref.Reference:
    """Stored :func:`mpref.renyi_finite`."""
    return lookup("renyi_finite", list(np.atleast_1d(alpha)), dim, a, b, n)


def fisher_information(dim: int, theta: float) -> tuple:
    """Stored :func:`mpref.fisher_information`: (value, error bound)."""
    return lookup("fisher_information", dim, theta)


def log_likelihood_ratio(x: float, dim: int, amp_p: float, amp_q: float):
    """Stored :func:`mpref.log_likelihood_ratio` at one point."""
    return lookup("log_likelihood_ratio", x, dim, amp_p, amp_q)


def renyi_finite_convolution(alpha, dim: int, a: float, b: float, n: int) -> mpref.Reference:
    """Stored :func:`mpref_convolution.renyi_finite_convolution`."""
    return lookup("renyi_finite_convolution", list(np.atleast_1d(alpha)), dim, a, b, n)


def bures_wasserstein_2x2(a: list, b: list) -> mp.mpf:
    """Stored :func:`mpref_matrix.bures_wasserstein_2x2` of A = [[a₀, a₁], [a₁, a₂]], B."""
    return lookup("bures_wasserstein_2x2", list(a), list(b))


def log_hyp0f1_2x2_integral(dim: int, x1: float, x2: float) -> mp.mpf:
    """Stored :func:`mpref_matrix.log_hyp0f1_2x2_integral`."""
    return lookup("log_hyp0f1_2x2_integral", dim, x1, x2)


def design_bounds(m: int, width: int, seed: int, ridge: float) -> tuple:
    """Stored :func:`mpref_design.design_bounds`: (Δ/2B, C/B, s₂/B², theory/B²)."""
    return lookup("design_bounds", m, width, seed, ridge)


def canonical_pair_renyi(alpha, dim: int, amp: float, phi: float) -> mpref.Reference:
    """Stored :func:`mpref_angle.canonical_pair_renyi` (the canonical pair (c, φ), §20)."""
    return lookup("canonical_pair_renyi", list(alpha), dim, amp, phi)


def loss_upper_tail(u: float, dim: int, amp: float) -> mp.mpf:
    """Stored :func:`mpref_loss.loss_upper_tail`: P(U > u) on the k = 2 pair's neighbour."""
    return lookup("loss_upper_tail", u, dim, amp)
