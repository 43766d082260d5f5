"""``synthamp audit``: the JSON contract, text output, bad input."""

from __future__ import annotations

import json

import pytest

from synthamp.audit import gaussian_epsilon
from synthamp.cli import main

#: The JSON keys promised by issue 7.
CONTRACT_KEYS = {
    "epsilon_lower",
    "epsilon_upper",
    "confidence",
    "trials",
    "fpr",
    "fnr",
    "consistent",
}

#: A valid synthetic release on the command line (d = 50, C = 2, Δ = 1, σ = 1).
RELEASE_ARGS = ["--dim", "50", "--norm-bound", "2", "--sensitivity", "1", "--sigma", "1"]


def test_cli_json_contract(capsys):
    argv = [
        "audit",
        *RELEASE_ARGS,
        "--trials",
        "20000",
        "--delta",
        "1e-5",
        "--seed",
        "4",
        "--json",
    ]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert CONTRACT_KEYS <= set(out)
    assert isinstance(out["consistent"], bool) and out["consistent"]
    assert out["trials"] == 20000 and out["confidence"] == 0.95
    assert 0 <= out["fpr"] <= 1 and 0 <= out["fnr"] <= 1
    assert 0 <= out["epsilon_lower"] <= out["epsilon_pair"] <= out["epsilon_upper"]
    assert out["seeded"] is True
    # reproducible with a seed
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out) == out


def test_cli_gaussian_and_text_output(capsys):
    argv = [
        "audit",
        "--mechanism",
        "gaussian",
        "--sensitivity",
        "1",
        "--sigma",
        "1",
        "--trials",
        "5000",
        "--delta",
        "1e-3",
        "--seed",
        "1",
    ]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "epsilon_lower" in text and "consistent: yes" in text
    assert main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["epsilon_pair"] == pytest.approx(gaussian_epsilon(1e-3, 1.0))


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["--dim", "50", "--norm-bound", "2", "--sensitivity", "1", "--sigma", "-1"], "--sigma"),
        ([*RELEASE_ARGS, "--trials", "1"], "--trials"),
        (["--norm-bound", "2", "--sensitivity", "1", "--sigma", "1"], "--dim"),
        ([*RELEASE_ARGS, "--confidence", "1.5"], "--confidence"),
        ([*RELEASE_ARGS, "--seed", "-3"], "--seed"),
    ],
)
def test_cli_bad_input_exits_2(capsys, args, flag):
    assert main(["audit", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and flag in lines[0] and "Traceback" not in captured.err


@pytest.mark.parametrize(
    "dim,n_syn,sigma,winner",
    [(20, 100_000, 0.5, "unlimited_pld"), (1000, 100, 0.5, "finite_rdp")],
)
def test_cli_finite_release_upper_is_the_release_guarantee(capsys, dim, n_syn, sigma, winner):
    """k = 1, finite n_syn, default accountant: epsilon_upper is the smaller of the finite
    RDP ε and the unlimited release's exact ε (valid for every n_syn), as release and
    account state it; an explicit --accountant rdp keeps the finite RDP ε."""
    from synthamp.accountant import SyntheticDataRelease, compute_epsilon, profile_epsilon
    from synthamp.jobs import account_summary

    release = SyntheticDataRelease(dim, 1, 2.0, 0.1, sigma, n_syn=n_syn)
    finite = compute_epsilon(release, 1e-5, accountant="rdp").epsilon
    unlimited = profile_epsilon(SyntheticDataRelease(dim, 1, 2.0, 0.1, sigma), 1e-5).epsilon
    args = ["audit", "--dim", str(dim), "--norm-bound", "2", "--sensitivity", "0.1"]
    args += ["--sigma", str(sigma), "--n-syn", str(n_syn), "--trials", "5000", "--seed", "3"]
    args += ["--estimator", "threshold"]  # the upper bound is tested here, not the estimator
    assert main([*args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["guarantee"] == winner
    assert out["epsilon_rdp"] == pytest.approx(finite, rel=1e-12)
    assert out["epsilon_unlimited_pld"] == pytest.approx(unlimited, rel=1e-12)
    assert out["epsilon_upper"] == pytest.approx(min(finite, unlimited), rel=1e-12)
    assert out["accountant"] == ("pld" if winner == "unlimited_pld" else "rdp")
    assert any("unlimited-release guarantee" in note for note in out["notes"])
    assert out["consistent"] and out["epsilon_lower"] <= out["epsilon_upper"]
    # the same number as account --n-syn
    accounted = account_summary(dim, 1, 2.0, 0.1, sigma, n_syn=n_syn, delta=1e-5).to_dict()
    assert out["epsilon_upper"] == pytest.approx(accounted["epsilon"], rel=1e-9)
    assert main([*args, "--accountant", "rdp", "--json"]) == 0
    explicit = json.loads(capsys.readouterr().out)
    assert explicit["guarantee"] is None and explicit["epsilon_unlimited_pld"] is None
    assert explicit["epsilon_upper"] == pytest.approx(finite, rel=1e-12)


#: The README example (d = 50, C = 2, Δ = σ = 1, δ = 1e-5, 10^5 trials, seed 1).
README_ARGS = [*RELEASE_ARGS, "--trials", "100000", "--delta", "1e-5", "--seed", "1"]


def test_cli_family_estimator_is_the_default_and_says_so(capsys):
    """The default estimator fits the statistic's family: tightness >= 0.9 on the README
    example (measured 0.955 against the PLD ε 1.338), and the output names the estimator
    and its confidence; --estimator threshold gives the single-threshold bound back."""
    assert main(["audit", *README_ARGS, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert CONTRACT_KEYS <= set(out)
    assert out["estimator"] == "family" and out["accountant"] == "pld"
    assert out["family"]["fits"] and out["family"]["family"] == "chi2_50(theta^2)"
    assert out["tightness"] >= 0.9 and out["consistent"]
    assert out["epsilon_lower"] <= out["epsilon_pair"] <= out["epsilon_upper"]
    assert out["epsilon_threshold"] < out["epsilon_lower"]
    assert main(["audit", *README_ARGS]) == 0
    text = capsys.readouterr().out.splitlines()
    assert text[0].startswith(f"epsilon_lower = {out['epsilon_lower']:.4g} (family estimator")
    assert "95% confidence" in text[0] and "DKW bands" in text[0]
    assert any(line.startswith("family: amplitudes >= ") for line in text)
    assert main(["audit", *README_ARGS, "--estimator", "threshold", "--json"]) == 0
    old = json.loads(capsys.readouterr().out)
    assert old["estimator"] == "threshold" and old["family"] is None
    assert old["epsilon_lower"] == out["epsilon_threshold"]  # the same trials
    assert main(["audit", *README_ARGS, "--estimator", "threshold"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert "(threshold estimator, 95% confidence, 100000 trials per dataset, bonferroni" in first


def test_cli_bad_estimator_exits_2(capsys):
    assert main(["audit", *RELEASE_ARGS, "--estimator", "gdp"]) == 2
    assert "--estimator" in capsys.readouterr().err


#: The design audit of the implementation (a quick size: D = 10, k = 1, σ given).
DESIGN_ARGS = ["--design", "orthogonal", "--width", "10", "--sigma", "1", "--trials", "2000"]


def test_cli_design_audit_json_and_tradeoff_csv(capsys, tmp_path):
    """--design orthogonal audits the implementation: the JSON carries the contract keys,
    every bound, μ_emp/μ with its interval; --tradeoff writes the curve with intervals."""
    csv = tmp_path / "curve.csv"
    argv = ["audit", *DESIGN_ARGS, "--delta", "1e-3", "--seed", "3", "--tradeoff", str(csv)]
    assert main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert CONTRACT_KEYS <= set(out) and out["command"] == "audit"
    assert out["design"] == "orthogonal" and out["targets"] == 1 and out["runs"] == 2000
    assert out["sigma"] == 1.0 == out["sigma_run"] and out["consistent"] and out["seeded"]
    assert out["epsilon_lower"] <= out["epsilon_pair"] <= out["epsilon_upper"]
    low, high = out["mu_ratio_interval"]
    assert low <= out["mu_ratio"] <= high and out["llr_monotone"] is True
    rows = csv.read_text().splitlines()
    assert rows[0].startswith("threshold,fpr,fpr_low,fpr_high") and len(rows) == 65
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert text.startswith("audit of the implementation: orthogonal design D = 10, k = 1")
    assert "mu_emp/mu = " in text and "black-box = optimal" in text


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        ([*DESIGN_ARGS, "--dim", "10"], "--dim"),
        ([*DESIGN_ARGS, "--sensitivity", "1"], "--sensitivity"),
        ([*DESIGN_ARGS, "--estimator", "threshold"], "--estimator"),
        ([*DESIGN_ARGS, "--targets", "3"], "--targets"),
        ([*DESIGN_ARGS, "--targets", "2", "--n-syn", "10"], "--n-syn"),
        (["--design", "orthogonal", "--width", "5", "--sigma", "1"], "--width"),
        (["--design", "orthogonal", "--sigma", "1"], "--width"),
        ([*RELEASE_ARGS, "--width", "10"], "--width"),
        (["--dim", "50", "--norm-bound", "2", "--sensitivity", "1"], "--sigma"),
    ],
)
def test_cli_design_audit_bad_input_exits_2(capsys, args, flag):
    assert main(["audit", *args]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert captured.out == "" and len(lines) == 1 and flag in lines[0]
