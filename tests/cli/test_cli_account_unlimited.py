"""``account`` and ``calibrate --n-syn``: the unlimited release's exact profile weighed too.

For k = 1, a finite n_syn, exact accounting and the default accountant, the
unlimited release's exact privacy profile (PLD) bounds every n_syn (docs/theory.md §3:
the first n_syn records are a function of the unlimited stream), so the smaller
of its number and the finite release's RDP number is a valid guarantee, as
``release`` already takes (``synthamp.release._accounting``). Every expected
number here is computed independently through :mod:`synthamp.accountant`.

The two sides: d = 20, C = 2, Δ = 0.1, σ = 0.5 and 10⁵ records (c² = 16 against
d = 20: a finite n_syn amplifies little, the tighter PLD conversion wins); d =
1000, 100 records (amplification pays: the finite RDP accounting wins), as in
the generator's tests of the release's rule.
"""

from __future__ import annotations

import json
import math

import pytest

from synthamp.accountant import (
    GaussianRelease,
    SyntheticDataRelease,
    calibrate_sigma,
    compute_epsilon,
    compute_epsilon_pld,
    profile_epsilon,
)
from synthamp.accountant._gaussian import gaussian_epsilon
from synthamp.accountant._pld_calibration import calibrate_sigma_pld
from synthamp.cli import main
from synthamp.jobs import account_summary, calibrate_summary
from synthamp.release import _accounting as release_accounting

C, DELTA_SENS, SIGMA = 2.0, 0.1, 0.5
#: The unlimited profile wins (README-like: few features, c² ≈ d, many records).
NARROW = {"dim": 20, "n_syn": 100_000}
#: The finite accounting wins (a wide generator, few records).
WIDE = {"dim": 1000, "n_syn": 100}


def _argv(command: str, setting: dict, *extra: str) -> list[str]:
    dim, n_syn = setting["dim"], setting["n_syn"]
    return [command, "--dim", str(dim), "--norm-bound", str(C), "--sensitivity",
            str(DELTA_SENS), "--n-syn", str(n_syn), *extra, "--no-progress", "--json"]  # fmt: skip


def _run_json(capsys, argv: list[str]) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def _finite_rdp(dim: int, n_syn: int, delta: float = 1e-5, releases: int = 1) -> float:
    release = SyntheticDataRelease(dim, 1, C, DELTA_SENS, SIGMA, n_syn=n_syn, releases=releases)
    return compute_epsilon(release, delta, accountant="rdp").epsilon


def _unlimited_pld(dim: int, delta: float = 1e-5) -> float:
    return profile_epsilon(SyntheticDataRelease(dim, 1, C, DELTA_SENS, SIGMA), delta).epsilon


# --------------------------------------------------------------------------- account


def test_account_takes_the_unlimited_profile_where_it_is_tighter(capsys):
    result = _run_json(capsys, _argv("account", NARROW, "--sigma", str(SIGMA)))
    finite, unlimited = _finite_rdp(**NARROW), _unlimited_pld(NARROW["dim"])
    assert unlimited < finite  # the side this test is about
    assert result["epsilon"] == pytest.approx(min(finite, unlimited), rel=1e-12)
    assert result["epsilon_rdp"] == pytest.approx(finite, rel=1e-12)  # kept, not hidden
    assert result["epsilon_unlimited_pld"] == pytest.approx(unlimited, rel=1e-12)
    assert result["epsilon_unlimited_pld_lower"] <= result["epsilon_unlimited_pld"]
    assert result["guarantee"] == "unlimited_pld" and result["accountant"] == "pld"
    assert result["kind"] == "exact"
    assert result["epsilon_pld"] == result["epsilon_unlimited_pld"]  # the pld accountant's ε
    assert result["release"]["n_syn"] == NARROW["n_syn"]
    assert "unlimited-release guarantee" in result["accountant_reason"]
    assert "100,000 records" in result["accountant_reason"]
    # the baseline by the same accountant: the Gaussian mechanism's exact profile
    baseline = gaussian_epsilon(1e-5, DELTA_SENS, SIGMA)
    assert result["post_processing"]["epsilon"] == pytest.approx(baseline, rel=1e-6)
    assert result["epsilon"] < result["post_processing"]["epsilon"]


def test_account_keeps_the_finite_accounting_where_it_is_tighter(capsys):
    result = _run_json(capsys, _argv("account", WIDE, "--sigma", str(SIGMA)))
    finite, unlimited = _finite_rdp(**WIDE), _unlimited_pld(WIDE["dim"])
    assert finite < unlimited
    assert result["epsilon"] == pytest.approx(min(finite, unlimited), rel=1e-12)
    assert result["epsilon"] == result["epsilon_rdp"]
    assert result["epsilon_unlimited_pld"] == pytest.approx(unlimited, rel=1e-12)
    assert result["guarantee"] == "finite_rdp" and result["accountant"] == "rdp"
    reason = result["accountant_reason"]
    assert "rdp accounting of exactly 100 records is at least as tight" in reason
    release = SyntheticDataRelease(WIDE["dim"], 1, C, DELTA_SENS, SIGMA, n_syn=WIDE["n_syn"])
    post = compute_epsilon(
        release, 1e-5, accountant="rdp"
    ).epsilon_post_processing  # the RDP baseline, as before
    assert result["post_processing"]["epsilon"] == pytest.approx(post, rel=1e-12)


def test_account_text_names_both_numbers_and_which_is_used(capsys):
    argv = _argv("account", NARROW, "--sigma", str(SIGMA))[:-1]  # text, not --json
    assert main(argv) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert first.startswith("epsilon = ") and "(accountant pld, exact)" in first
    assert "  pld, unlimited release (valid for any n_syn): epsilon = " in out
    assert "  rdp: epsilon = " in out and "100,000 records" in out
    assert "accountant: pld (The unlimited-release guarantee" in out


def test_an_explicit_accountant_keeps_the_finite_rdp_number(capsys):
    default = _run_json(capsys, _argv("account", NARROW, "--sigma", str(SIGMA)))
    explicit = _run_json(
        capsys, _argv("account", NARROW, "--sigma", str(SIGMA), "--accountant", "rdp")
    )
    assert explicit["epsilon"] == explicit["epsilon_rdp"] == default["epsilon_rdp"]
    assert explicit["epsilon"] > default["epsilon"]  # the explicit choice costs here
    assert explicit["accountant"] == "rdp" and explicit["accountant_reason"] == "requested"
    assert explicit["guarantee"] is None and explicit["epsilon_unlimited_pld"] is None
    # other accountings than exact are kept as asked too
    global_ = _run_json(
        capsys, _argv("account", NARROW, "--sigma", str(SIGMA), "--accounting", "global")
    )
    assert global_["guarantee"] is None and global_["epsilon"] == global_["epsilon_rdp"]


def test_composition_takes_the_smaller_of_two_whole_compositions(capsys):
    """T = 2: the finite release's RDP composed, or the unlimited release's PLD composed;
    never a PLD of one release with an RDP of the other."""
    result = _run_json(capsys, _argv("account", NARROW, "--sigma", str(SIGMA), "--releases", "2"))
    finite = _finite_rdp(**NARROW, releases=2)
    unlimited_twice = SyntheticDataRelease(NARROW["dim"], 1, C, DELTA_SENS, SIGMA, releases=2)
    unlimited = compute_epsilon_pld(unlimited_twice, 1e-5, discretization=1e-4).epsilon
    assert result["epsilon_rdp"] == pytest.approx(finite, rel=1e-12)
    assert result["epsilon_unlimited_pld"] == pytest.approx(unlimited, rel=1e-12)
    assert result["epsilon"] == pytest.approx(min(finite, unlimited), rel=1e-12)
    assert result["guarantee"] == "unlimited_pld"
    one = _unlimited_pld(NARROW["dim"])
    assert one < result["epsilon"] < 2 * one  # composed, and tighter than adding ε
    # releasing V twice: two Gaussian mechanisms are one of sensitivity Δ√2, whose ε is the
    # closed form (no PLD grid, which took minutes at T = 10⁹), inside the PLD's bracket
    gaussian = compute_epsilon_pld(GaussianRelease(DELTA_SENS, SIGMA, releases=2), 1e-5)
    baseline = gaussian_epsilon(1e-5, DELTA_SENS * math.sqrt(2), SIGMA)
    assert result["post_processing"]["epsilon"] == pytest.approx(baseline, rel=1e-12)
    assert gaussian.epsilon_lower <= result["post_processing"]["epsilon"] <= gaussian.epsilon


@pytest.mark.slow
def test_a_delta_grid_across_the_crossing_says_it_per_delta(capsys):
    """d = 50, 1,000 records: the unlimited profile wins at δ = 1e-5, the finite RDP at 1e-12."""
    deltas = [1e-5, 1e-12]
    grid = ("--sigma", str(SIGMA), "--delta-grid", "1e-5,1e-12")
    argv = _argv("account", {"dim": 50, "n_syn": 1000}, *grid)
    result = _run_json(capsys, argv)
    finite = [_finite_rdp(50, 1000, d) for d in deltas]
    unlimited = [_unlimited_pld(50, d) for d in deltas]
    assert unlimited[0] < finite[0] and finite[1] < unlimited[1]
    smaller = [min(f, u) for f, u in zip(finite, unlimited, strict=True)]
    assert result["epsilon"] == pytest.approx(smaller, rel=1e-12)
    assert result["guarantee"] == ["unlimited_pld", "finite_rdp"]
    assert result["accountant"] == ["pld", "rdp"]
    assert result["accountant_reason"].startswith("at delta = 1e-05: The unlimited-release")
    assert "at delta = 1e-12: The rdp accounting" in result["accountant_reason"]
    assert main(argv[:-1]) == 0
    out = capsys.readouterr().out
    assert "(accountant pld, " in out and "(accountant rdp, " in out
    assert "accountant: pld/rdp (at delta" in out


# --------------------------------------------------------------------------- calibrate


def test_calibrate_takes_the_unlimited_profile_where_it_is_tighter(capsys):
    result = _run_json(capsys, _argv("calibrate", NARROW, "--epsilon", "4"))
    finite = calibrate_sigma(4.0, 1e-5, dim=20, out_dim=1, norm_bound=C, sensitivity=DELTA_SENS,
                             n_syn=NARROW["n_syn"], accountant="rdp").sigma  # fmt: skip
    unlimited = calibrate_sigma_pld(4.0, 1e-5, dim=20, norm_bound=C, sensitivity=DELTA_SENS)
    assert unlimited.sigma < finite
    assert result["sigma"] == pytest.approx(min(finite, unlimited.sigma), rel=1e-12)
    # a proven lower bound shows the finite calibration cannot win: it is not started
    assert result["sigma_rdp"] is None and "not started" in result["fallback"]
    assert result["sigma_unlimited_pld"] == pytest.approx(unlimited.sigma, rel=1e-12)
    assert result["epsilon"] == pytest.approx(unlimited.epsilon, rel=1e-12)
    assert result["epsilon"] <= 4.0
    assert result["guarantee"] == "unlimited_pld" and result["accountant"] == "pld"
    assert result["kind"] == "exact" and "σ = " in result["accountant_reason"]
    # the baseline by the same accountant: the Gaussian mechanism's exact calibration
    assert gaussian_epsilon(1e-5, DELTA_SENS, result["sigma_post_processing"]) <= 4.0
    assert gaussian_epsilon(1e-5, DELTA_SENS, 0.999 * result["sigma_post_processing"]) > 4.0


@pytest.mark.slow
def test_calibrate_keeps_the_finite_accounting_where_it_is_tighter(capsys):
    result = _run_json(capsys, _argv("calibrate", WIDE, "--epsilon", "1"))
    finite = calibrate_sigma(1.0, 1e-5, dim=1000, out_dim=1, norm_bound=C, sensitivity=DELTA_SENS,
                             n_syn=WIDE["n_syn"], accountant="rdp")  # fmt: skip
    unlimited = calibrate_sigma_pld(1.0, 1e-5, dim=1000, norm_bound=C, sensitivity=DELTA_SENS)
    assert finite.sigma < unlimited.sigma
    assert result["sigma"] == pytest.approx(finite.sigma, rel=1e-12)
    assert result["sigma_unlimited_pld"] == pytest.approx(unlimited.sigma, rel=1e-12)
    assert result["guarantee"] == "finite_rdp" and result["accountant"] == "rdp"
    assert result["sigma_post_processing"] == pytest.approx(finite.sigma_post_processing)


def test_calibrate_with_releases_compares_like_with_like(capsys):
    """T = 2: both σ are of the whole composition; the Gaussian baseline is composed too."""
    argv = _argv("calibrate", NARROW, "--epsilon", "4", "--releases", "2")
    result = _run_json(capsys, argv)
    # the unlimited release's σ meets ε = 4 composed twice, and 0.1% less noise does not
    # (checked by evaluation: a second calibration cost 11 s of the suite)
    sigma = result["sigma_unlimited_pld"]
    for factor, meets in ((1.0, True), (0.999, False)):
        composed = compute_epsilon_pld(
            SyntheticDataRelease(20, 1, C, DELTA_SENS, sigma * factor, releases=2), 1e-5
        )
        assert (composed.epsilon <= 4.0) is meets, factor
    assert result["sigma"] == min(result["sigma_rdp"], result["sigma_unlimited_pld"])
    # two Gaussian mechanisms of noise σ are one of sensitivity Δ√2: its exact ε
    post = result["sigma_post_processing"]
    assert gaussian_epsilon(1e-5, DELTA_SENS * math.sqrt(2), post) <= 4.0
    gaussian = GaussianRelease(DELTA_SENS, post, releases=2)
    composed = compute_epsilon_pld(gaussian, 1e-5, discretization=1e-4).epsilon
    assert composed == pytest.approx(4.0, abs=1e-3)
    # releasing V at the release's own σ (the field's one meaning, schema 3): more than 4
    at_sigma = compute_epsilon_pld(GaussianRelease(DELTA_SENS, result["sigma"], releases=2), 1e-5)
    assert result["epsilon_post_processing"] == pytest.approx(at_sigma.epsilon, abs=1e-3)
    assert result["epsilon_post_processing"] > 4.0


# --------------------------------------------------------------------------- agreement


def test_release_and_account_agree_on_epsilon_for_the_same_sigma():
    """``release`` (``account_release``) and ``account --n-syn``: one ε, one accountant."""
    release = release_accounting.account_release(
        epsilon=None, delta=1e-5, sigma=SIGMA, dim=NARROW["dim"], out_dim=1, norm_bound=C,
        sensitivity=DELTA_SENS, n_syn=NARROW["n_syn"], method="exact", choice=None,
    )  # fmt: skip
    account = account_summary(NARROW["dim"], 1, C, DELTA_SENS, SIGMA, n_syn=NARROW["n_syn"])
    account = account.to_dict()
    assert account["epsilon"] == release.epsilon
    assert account["accountant"] == release.accountant == "pld"
    assert account["kind"] == release.kind


def test_release_and_calibrate_agree_on_sigma():
    release = release_accounting.account_release(
        epsilon=4.0, delta=1e-5, sigma=None, dim=NARROW["dim"], out_dim=1, norm_bound=C,
        sensitivity=DELTA_SENS, n_syn=NARROW["n_syn"], method="exact", choice=None,
    )  # fmt: skip
    calibrate = calibrate_summary(4.0, 1e-5, NARROW["dim"], 1, C, DELTA_SENS, n_syn=NARROW["n_syn"])
    calibrate = calibrate.to_dict()
    assert calibrate["sigma"] == release.sigma and calibrate["epsilon"] == release.epsilon
    assert calibrate["accountant"] == release.accountant == "pld"
    assert calibrate["sigma_post_processing"] == pytest.approx(release.sigma_post_processing)


def test_the_release_command_and_account_agree(tmp_path, monkeypatch, capsys):
    """End to end: ``synthamp release`` of one target, then ``account`` on its report."""
    from release_cases import FEATURES, private_frame, release_args

    monkeypatch.chdir(tmp_path)
    private_frame().to_csv("data.csv", index=False)
    argv = release_args(**{"--targets": "y1", "--accounting": "exact", "--report": "r.json"})
    assert main([*argv, "--no-progress"]) == 0
    capsys.readouterr()
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["dim"] == len(FEATURES) and report["out_dim"] == 1
    argv = ["account", "--dim", str(report["dim"]), "--norm-bound", repr(report["norm_bound"]),
            "--sensitivity", repr(report["sensitivity"]), "--sigma", repr(report["sigma"]),
            "--n-syn", str(report["n_syn"]), "--delta", repr(report["delta"]),
            "--json"]  # fmt: skip
    account = _run_json(capsys, argv)
    assert account["epsilon"] == report["epsilon"]
    assert account["accountant"] == report["accountant"] == "pld"
    assert account["epsilon"] < account["epsilon_rdp"]


@pytest.mark.parametrize("command", ["account", "calibrate"])
def test_a_plateau_fallback_rdp_number_is_never_called_the_finite_value(capsys, command):
    """After the time budget, the RDP line names the plateau bound, not "100 records, exact"."""
    common = ["--dim", "10", "--norm-bound", "2", "--sensitivity", "0.1", "--n-syn", "100"]
    target = ["--sigma", "0.4"] if command == "account" else ["--epsilon", "1"]
    args = [command, *common, *target, "--delta", "1e-5", "--time-budget", "0.01"]
    assert main(args) == 0
    (line,) = [x for x in capsys.readouterr().out.splitlines() if x.lstrip().startswith("rdp:")]
    assert "unlimited-release (plateau) bound" in line and "ran out of time" in line, line
    assert "exact" not in line and "100 records, method" not in line, line
    if command == "calibrate":  # a finite calibration takes ~15 s: account checks the other side
        return
    # with the budget it needs, the same line is the finite accounting's own
    assert main([command, *common, *target, "--delta", "1e-5", "--time-budget", "600"]) == 0
    (line,) = [x for x in capsys.readouterr().out.splitlines() if x.lstrip().startswith("rdp:")]
    assert "100 records, method exact" in line, line
