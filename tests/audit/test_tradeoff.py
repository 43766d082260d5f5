"""Trade-off curves of the audited pair and the audit's PLD upper bound (issue 13)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from synthamp.accountant import GaussianRelease, SyntheticDataRelease, compute_epsilon
from synthamp.accountant._profile import pair_privacy_profile, profile_epsilon
from synthamp.audit import gaussian_delta, sample_statistic
from synthamp.audit._tradeoff import empirical_tradeoff, exact_tradeoff
from synthamp.cli import main

RELEASE = SyntheticDataRelease(100, 1, 2.0, 0.5, 0.7458)


def test_exact_tradeoff_gives_the_profile_back():
    # δ(ε) = sup over tests of 1 − FNR − e^ε FPR: the curve and the profile agree
    curve = exact_tradeoff(RELEASE, points=4000)
    c, b = 2.0 / 0.7458, 1.5 / 0.7458
    for eps in (0.2, 0.9, 2.0):
        from_curve = np.max(1.0 - curve.fnr - math.exp(eps) * curve.fpr)
        upper, _ = pair_privacy_profile([eps], 100, c, b)
        assert from_curve <= upper[0] * (1 + 1e-9)
        if eps < 1:  # a sup over a finite set of tests; the far tail (δ ~ 1e-14) is thinned
            assert from_curve >= upper[0] * (1 - 1e-2)
    gauss = exact_tradeoff(GaussianRelease(1.0, 1.0), points=4000)
    from_curve = np.max(1.0 - gauss.fnr - math.exp(0.5) * gauss.fpr)
    assert from_curve == pytest.approx(gaussian_delta(0.5, 1.0), rel=1e-3)


def test_no_empirical_test_beats_the_exact_curve():
    scores_p, scores_q = sample_statistic(RELEASE, 20_000, 3)
    empirical = empirical_tradeoff(scores_p, scores_q, points=200)
    exact = exact_tradeoff(RELEASE, points=4000)
    # the exact trade-off is non-increasing: its value at the empirical FPR
    f = np.interp(empirical.fpr, exact.fpr, exact.fnr)
    se = np.sqrt(np.maximum(f * (1 - f), 1.0 / 20_000) / 20_000)
    assert np.all(empirical.fnr >= f - 5 * se - 5e-3)  # FPR is itself sampled: slack
    assert np.median(np.abs(empirical.fnr - f)) < 0.01


def test_audit_cli_compares_with_the_pld_epsilon_and_writes_the_curves(tmp_path, capsys):
    csv, png = tmp_path / "t.csv", tmp_path / "t.png"
    argv = [
        "audit", "--dim", "100", "--norm-bound", "2", "--sensitivity", "0.5",
        "--sigma", "0.7458", "--trials", "20000", "--seed", "5", "--json",
        "--tradeoff", str(csv), "--plot", str(png),
    ]  # fmt: skip
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["accountant"] == "pld"
    assert result["epsilon_upper"] == result["epsilon_pld"]
    assert result["epsilon_pld"] == pytest.approx(profile_epsilon(RELEASE, 1e-5).epsilon)
    assert result["epsilon_rdp"] == pytest.approx(
        compute_epsilon(RELEASE, 1e-5, accountant="rdp").epsilon
    )
    assert result["epsilon_lower"] <= result["epsilon_pld"] < result["epsilon_rdp"]
    lines = csv.read_text().splitlines()
    assert lines[0] == "curve,fpr,fnr"
    assert {line.split(",")[0] for line in lines[1:]} == {"exact", "empirical"}
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_audit_cli_bad_plot_path_exits_2(tmp_path, capsys):
    argv = [
        "audit", "--mechanism", "gaussian", "--sensitivity", "1", "--sigma", "1",
        "--trials", "1000", "--plot", str(tmp_path / "missing" / "t.png"),
    ]  # fmt: skip
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and "--plot" in lines[0]
    assert not (tmp_path / "missing").exists()
