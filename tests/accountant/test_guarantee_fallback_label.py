"""A calibration whose finite RDP search stopped at its budget, then took the unlimited σ.

The rule's σ is then the unlimited release's; the RDP numbers it states are recomputed at
that σ. If that recomputation finishes, they are the exact accounting of n_syn records and
must not carry the calibration's budget note ("the plateau's RDP bound, used in place of
…"): a number computed exactly is never labelled a fallback.
"""

from __future__ import annotations

import dataclasses

from synthamp._budget import PLATEAU_FALLBACK
from synthamp.accountant import _guarantee, calibrate


def test_an_exact_rdp_number_at_the_unlimited_sigma_is_not_labelled_a_fallback(monkeypatch):
    kwargs = dict(dim=1000, norm_bound=2.0, sensitivity=0.1, n_syn=1000)
    real = _guarantee._calibration

    def stopped(*args, **kw):  # the finite calibration "ran out of time": the plateau's σ
        cal = real(*args, **kw)
        return dataclasses.replace(
            cal, sigma=2.0 * cal.sigma, fallback="stopped; " + PLATEAU_FALLBACK
        )

    monkeypatch.setattr(_guarantee, "_calibration", stopped)
    g = calibrate(1.0, 1e-5, time_budget=None, **kwargs)
    assert g.sigma == g.sigma_unlimited_pld < g.sigma_rdp  # the unlimited σ is taken
    assert g.fallback is None and str(g.kind) == "exact"
    assert "exactly 1,000 records" in g.note and "plateau" not in g.note
