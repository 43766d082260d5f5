"""Write tests/data/profile_tails.json: mpmath references of the χ²_d(a²) tails.

The privacy profile's tails (synthamp.divergence._ncx2_tail) are checked against
these values in tests/divergence/test_ncx2_tail.py, which also recomputes a few
of them live. Each entry: dim, amp, x, upper, log_tail (as a string, 25
significant digits), rel_error (the quadrature's own error estimate). The
reference is tests/mpref.py's ``ncx2_log_tail`` (conditioning on the component
along the mean, 40-digit tanh-sinh quadrature of the incomplete gamma function),
independent of synthamp.

Run from the repository root: ``python tests/data/make_profile_tails.py``
(about ten minutes).
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path

import mpmath as mp

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import mpref  # noqa: E402

#: (dim, amp) pairs: tiny d, the 10⁶-row release (d = 20, a ≈ 4.5·10⁴), C/σ up to 10⁵,
#: large d up to 10⁶, and a small amplitude where scipy is used.
CASES = [(d, a) for d in (1, 2, 3, 20, 100) for a in (1e3, 4.5e4, 1e5)] + [
    (1000, 1e3),
    (1000, 1e5),
    (20, 10.0),
    (10**6, 1e3),
    (10**6, 1e5),
]
#: Thresholds: the centre of T plus these multiples of its standard deviation, in √T
#: (±35: tails near e^{−600}, the far end of what the profile evaluates).
OFFSETS = (-35.0, -9.0, 0.0, 9.0, 35.0)
#: d = 10⁶: the 40-digit incomplete gamma function takes minutes per point: one threshold.
HUGE_D_OFFSETS = (3.0,)


def thresholds(dim: int, amp: float, offsets) -> list[float]:
    """x = (c + k·sd)² with c = √(a² + d) and sd the standard deviation of √T (delta method)."""
    centre = math.sqrt(amp * amp + dim)
    sd = math.sqrt(4 * amp * amp + 2 * dim) / (2 * centre)
    return [(centre + k * sd) ** 2 for k in offsets if centre + k * sd > 0]


def main() -> None:
    entries = []
    start = time.time()
    for dim, amp in CASES:
        offsets = OFFSETS if dim < 10**6 else HUGE_D_OFFSETS
        for x in thresholds(dim, amp, offsets):
            for upper in (True, False) if dim < 10**6 else (True,):
                value, err = mpref.ncx2_log_tail(x, dim, amp, upper)
                entries.append(
                    {
                        "dim": dim,
                        "amp": amp,
                        "x": x,
                        "upper": upper,
                        "log_tail": mp.nstr(value, 25),
                        "rel_error": float(err),
                    }
                )
        print(f"d = {dim}, a = {amp:g}: {time.time() - start:.0f} s", flush=True)
    out = {
        "what": "log P(T > x) (upper) or log P(T <= x), T ~ chi2_d(amp^2)",
        "reference": "tests/mpref.py ncx2_log_tail (40-digit tanh-sinh, incomplete gamma)",
        "digits": mpref.DPS,
        "mpmath": mp.__version__,
        "script": "tests/data/make_profile_tails.py",
        "entries": entries,
    }
    (HERE / "profile_tails.json").write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(entries)} entries to {HERE / 'profile_tails.json'}")


if __name__ == "__main__":
    main()
