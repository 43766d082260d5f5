"""Every table size is released: past the exact profile's tested range (C/σ > 10⁵, as a
10⁷-row table gives at ε = 1) the guarantee hands over to the smaller certified bound,
post-processing or the RDP route, and every output names it (synthamp.accountant._guarantee,
the rule's wording in _choice; the report's curves in _epsilon_delta).

Before: the guarantee said "k = 1: the exact privacy profile composed by PLD" for a number
that was post-processing's, and the report's curves stopped the release with
``--sigma: C/σ must be <= 100000 ... for the exact profile`` (5·10⁶ × 10, ridge 1, ε = 1)."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest

from synthamp.accountant import SyntheticDataRelease
from synthamp.accountant._choice import beyond_profile_handover
from synthamp.accountant._guarantee import account, calibrate
from synthamp.accountant._profile import beyond_exact_profile
from synthamp.release._ridge import ridge_norm_bound, ridge_sensitivity

M = 10_000_000  # rows of the table: C/σ ≈ 4.5·10⁵ at ε = 1
NORM, SENS = ridge_norm_bound(1.0, 1.0), ridge_sensitivity(1.0, 1.0, M)


def _gaussian_delta(eps: float, mu: float) -> mp.mpf:
    """The Gaussian mechanism's exact profile (Balle and Wang 2018), 40 digits, independent."""
    with mp.workdps(40):
        eps, mu = mp.mpf(eps), mp.mpf(mu)
        return mp.ncdf(-eps / mu + mu / 2) - mp.exp(eps) * mp.ncdf(-eps / mu - mu / 2)


def test_a_ten_million_row_table_is_calibrated_past_the_exact_profile():
    g = calibrate(1.0, 1e-5, dim=20, norm_bound=NORM, sensitivity=SENS)
    assert NORM / g.sigma > 1e5  # beyond the tested range
    assert beyond_exact_profile(SyntheticDataRelease(20, 1, NORM, SENS, g.sigma))
    assert g.handover == "post-processing" and g.kind == "certified"
    assert "beyond the exact profile's tested range" in g.reason and g.reason in g.note
    assert "post-processing is used" in g.reason
    # sound: the Gaussian profile at the guarantee's ε is at most δ (mpmath, 40 digits) …
    assert _gaussian_delta(g.epsilon, SENS / g.sigma) <= mp.mpf("1e-5")
    # … and tight: 0.1% less noise would break the target
    assert _gaussian_delta(1.0, SENS / (g.sigma * 0.999)) > mp.mpf("1e-5")
    assert g.epsilon <= 1.0 and g.epsilon <= g.epsilon_rdp


def test_at_a_given_sigma_the_smaller_certified_bound_is_the_guarantee():
    release = SyntheticDataRelease(20, 1, NORM, SENS, 1e-6)
    g = account(release, 1e-5)
    assert g.handover == "post-processing" and g.accountant == "pld"
    assert g.epsilon == min(g.epsilon_pld, g.epsilon_rdp)
    assert _gaussian_delta(g.epsilon, SENS / 1e-6) <= mp.mpf("1e-5")
    inside = account(SyntheticDataRelease(20, 1, NORM, SENS * 100, 1e-4), 1e-5)
    assert inside.handover is None and "beyond" not in inside.note  # C/σ = 5·10³: exact


def test_the_rule_names_the_smaller_bound_and_both_numbers():
    use_rdp, note = beyond_profile_handover(2e5, "C/σ ≤ 1e5", 1.2, 1.1)
    assert use_rdp and "the RDP route is used" in note and "1.2" in note and "1.1" in note
    use_rdp, note = beyond_profile_handover(2e5, "C/σ ≤ 1e5", 1.0, 1.09)
    assert not use_rdp and "post-processing is used" in note
    use_rdp, note = beyond_profile_handover(2e5, "C/σ ≤ 1e5", 1.0, 1.0)
    assert not use_rdp  # a tie keeps post-processing


@pytest.mark.parametrize(("m", "d"), [(5_000_000, 10), (M, 20)])
def test_the_release_and_its_report_at_millions_of_rows(m, d, tmp_path):
    """The issue's failing release (5·10⁶ × 10) and 10⁷ × 20, by the streaming path's
    sufficient statistics (a synthetic XᵀX, XᵀY: the accounting depends on m, d, k only)."""
    from synthamp.release._generator import PrivateLinearGenerator
    from synthamp.release._streaming import RidgeScaling, accumulate_statistics
    from synthamp.report._write import write_report

    empty = accumulate_statistics([], RidgeScaling(1.0), dim=d, out_dim=1)
    stats = type(empty)(
        m, np.eye(d) * m / (2 * d), np.full((d, 1), m * 0.01), empty.clipping, empty.scaling
    )
    generator = PrivateLinearGenerator(label_bound=1.0, ridge=1.0, epsilon=1.0, delta=1e-5)
    privacy = generator.fit_statistics(stats).privacy_
    assert privacy.accounting_kind == "certified" and privacy.epsilon <= 1.0
    assert "hands over to" in privacy.accounting_note
    paths = [tmp_path / f"r.{ext}" for ext in ("json", "md", "html")]
    write_report(privacy, paths)
    for path in paths:
        assert "hands over to" in path.read_text(encoding="utf-8")
    assert generator.sample(3).shape == (3, 1)
