"""The accountant's time budget: finite-release accounting falls back on the plateau, and says so.

The plateau bounds the privacy loss of every n_syn (docs/theory.md §3), so the
fallback is sound; these tests check that it is used exactly when the budget
is spent, that it is never below the finite value, that it is labelled
(certified, never an exact lower bound) and that every output says so.
"""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from synthamp._budget import TimeBudgetExceeded, check_budget, report_status, status_callback
from synthamp._budget import time_budget as budget_block
from synthamp._kinds import Kind
from synthamp.accountant import (
    SyntheticDataRelease,
    calibrate_sigma,
    compute_epsilon,
    rdp_curve,
)
from synthamp.cli import main

ORDERS = np.array([2.0, 4.0, 8.0, 16.0])
# d = 50, C = 2, Δ = 0.5, σ = 1, n_syn = 100: the finite engine runs in well under a second.
FINITE = SyntheticDataRelease(50, 1, 2.0, 0.5, 1.0, n_syn=100)


def test_budget_block_expires_nests_and_can_be_absent():
    with budget_block(None):
        check_budget()  # no budget: never raises
    with budget_block(0.0):
        time.sleep(0.002)
        with pytest.raises(TimeBudgetExceeded):
            check_budget()
        with budget_block(100.0):  # a nested, longer budget keeps the earlier deadline
            with pytest.raises(TimeBudgetExceeded):
                check_budget()
    with budget_block(100.0):
        check_budget()


def test_status_messages_reach_the_callback_only_inside_the_block():
    seen = []
    report_status("nobody listens")
    with status_callback(seen.append):
        report_status("step 1")
    report_status("nobody listens either")
    assert seen == ["step 1"]


def test_spent_budget_gives_the_plateau_curve_labelled_as_a_certified_bound():
    finite = rdp_curve(FINITE, ORDERS, time_budget=None)
    assert finite.fallback is None and finite.kind is Kind.EXACT
    fallback = rdp_curve(FINITE, ORDERS, time_budget=0.0)
    plateau = rdp_curve(SyntheticDataRelease(50, 1, 2.0, 0.5, 1.0), ORDERS)
    np.testing.assert_array_equal(fallback.rdp, plateau.rdp)
    # Sound: never below the finite value; an upper bound only (not an exact curve).
    assert np.all(fallback.rdp >= finite.rdp)
    assert fallback.kind is Kind.CERTIFIED and fallback._lower_or_none() is None
    assert "n_syn = 100" in fallback.fallback and "plateau" in fallback.fallback
    # Composition keeps the note.
    assert (fallback + finite).fallback == fallback.fallback
    assert (3 * fallback).fallback == fallback.fallback


def test_compute_epsilon_reports_the_fallback_and_a_larger_epsilon():
    exact = compute_epsilon(FINITE, 1e-5, ORDERS, time_budget=None, accountant="rdp")
    fallback = compute_epsilon(FINITE, 1e-5, ORDERS, time_budget=0.0, accountant="rdp")
    assert exact.fallback is None and exact.kind is Kind.EXACT
    assert fallback.fallback and fallback.kind is Kind.CERTIFIED
    assert fallback.epsilon >= exact.epsilon
    # An ample budget changes nothing.
    ample = compute_epsilon(FINITE, 1e-5, ORDERS, time_budget=600.0, accountant="rdp")
    assert ample.fallback is None and ample.epsilon == exact.epsilon


def test_k_above_one_drops_only_the_lower_bound():
    release = SyntheticDataRelease(50, 2, 2.0, 0.5, 1.0, n_syn=100)
    full = rdp_curve(release, ORDERS, time_budget=None)
    spent = rdp_curve(release, ORDERS, time_budget=0.0)
    np.testing.assert_array_equal(spent.rdp, full.rdp)
    assert full.rdp_lower is not None and spent.rdp_lower is None
    assert "lower bound is omitted" in spent.fallback


@pytest.mark.filterwarnings("ignore::synthamp.accountant.OrderGridWarning")
def test_calibration_with_a_spent_budget_is_the_plateau_calibration():
    common = dict(dim=50, norm_bound=2.0, sensitivity=0.5, orders=ORDERS)
    plateau = calibrate_sigma(1.0, 1e-5, **common, accountant="rdp")
    spent = calibrate_sigma(1.0, 1e-5, **common, n_syn=100, time_budget=0.0, accountant="rdp")
    assert spent.fallback and "n_syn = 100" in spent.fallback
    assert spent.sigma == plateau.sigma and spent.kind is Kind.CERTIFIED
    finite = calibrate_sigma(1.0, 1e-5, **common, n_syn=100, time_budget=None, accountant="rdp")
    assert finite.fallback is None
    # The finite calibration needs no more noise than the plateau, and meets the target.
    assert finite.sigma <= spent.sigma and finite.epsilon <= 1.0
    check = compute_epsilon(
        FINITE.with_sigma(finite.sigma), 1e-5, ORDERS, time_budget=None, accountant="rdp"
    )
    assert check.epsilon <= 1.0


def test_refused_budget():
    from synthamp import InputError

    with pytest.raises(InputError, match="time_budget"):
        compute_epsilon(FINITE, 1e-5, ORDERS, time_budget=-1.0, accountant="rdp")


def _account_args(*extra):
    return [
        "account", "--dim", "50", "--norm-bound", "2", "--sensitivity", "0.5", "--sigma", "1",
        "--n-syn", "100", "--alpha", "2,4,8,16", *extra,
    ]  # fmt: skip


def test_cli_account_and_calibrate_say_when_the_budget_was_spent(capsys):
    assert main(_account_args("--time-budget", "0", "--accountant", "rdp", "--json")) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["kind"] == "certified" and "time budget of 0 s" in result["fallback"]
    assert "c = C/σ" in result["amplification"]
    # by default the unlimited release's exact profile (valid for every n_syn) is weighed
    # too, and is tighter here than the plateau's RDP bound: the guarantee, said so
    assert main(_account_args("--time-budget", "0", "--json")) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["kind"] == "exact" and result["guarantee"] == "unlimited_pld"
    assert result["epsilon"] == result["epsilon_unlimited_pld"] < result["epsilon_rdp"]
    assert "time budget of 0 s" in result["fallback"]
    assert "than the plateau's RDP bound" in result["accountant_reason"]
    assert main(_account_args("--time-budget", "0")) == 0
    out = capsys.readouterr().out
    assert "note: finite-release accounting (n_syn = 100) stopped" in out
    assert main(_account_args("--time-budget", "inf", "--json")) == 0
    assert json.loads(capsys.readouterr().out)["fallback"] is None
    calibrate = [
        "calibrate", "--epsilon", "1", "--dim", "50", "--norm-bound", "2", "--sensitivity", "0.5",
        "--n-syn", "100", "--alpha", "2,4,8,16", "--time-budget", "0",
    ]  # fmt: skip
    assert main(calibrate) == 0
    assert "stopped at its time budget of 0 s" in capsys.readouterr().out


def test_cli_refuses_a_negative_budget(capsys):
    assert main(_account_args("--time-budget", "-1")) == 2
    err = capsys.readouterr().err
    assert err.strip() == (
        "synthamp: error: --time-budget: must be >= 0 seconds (inf: no limit), got -1"
    )


def test_release_says_the_budget_was_spent_and_whether_amplification_pays(
    tmp_path, capsys, monkeypatch
):
    import pandas as pd

    monkeypatch.chdir(tmp_path)
    # the budget's own message: the cheap bound that skips a hopeless finite attempt
    # (c² = 82 against d = 6 here: it would skip it) is switched off
    monkeypatch.setattr("synthamp.accountant._guarantee.finite_epsilon_lower_bound", lambda *a: 0.0)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 6)) / 4
    frame = pd.DataFrame(x, columns=[f"x{i}" for i in range(6)])
    frame["y"] = np.tanh(x @ rng.normal(size=6))
    frame.to_csv("t.csv", index=False)
    args = [
        "release", "--data", "t.csv", "--targets", "y", "--label-bound", "1", "--ridge", "1",
        "--epsilon", "1", "--delta", "1e-5", "--n-syn", "1000", "--out", "s.csv",
        "--time-budget", "0",
    ]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "note: finite-release accounting (n_syn = 1,000) stopped" in out
    assert "note: amplification" in out
    report = json.loads((tmp_path / "s.csv.privacy.json").read_text())
    # the plateau's RDP bound, then the unlimited release's exact profile (PLD), which is
    # tighter here and also valid for 1,000 records: the guarantee, said so
    assert report["n_syn"] == 1000 and report["accounting_kind"] == "exact"
    assert report["accountant"] == "pld"
    assert "plateau" in report["accounting_note"] and "c = C/σ" in report["amplification"]
    assert "unlimited-release guarantee (exact privacy profile" in report["accounting_note"]
    markdown = (tmp_path / "s.csv.privacy.md").read_text()
    assert "**Accounting.**" in markdown and "**Amplification.**" in markdown
    # epsilon_rdp is then the plateau's RDP bound at the release's σ, and says so
    from synthamp.accountant import SyntheticDataRelease

    plateau = SyntheticDataRelease(6, 1, report["norm_bound"], report["sensitivity"],
                                   report["sigma"])  # fmt: skip
    assert report["epsilon_rdp"] == pytest.approx(
        compute_epsilon(plateau, 1e-5, accountant="rdp").epsilon, 1e-12
    )
    assert report["guarantee"] == "unlimited_pld" and report["epsilon_rdp"] > report["epsilon"]
    assert "| ε (rdp) | " in markdown and "RDP curve of the plateau (bounds 1,000" in markdown
