"""``synthamp account/calibrate --accountant pld|rdp`` and ``--delta-grid`` (issue 13)."""

from __future__ import annotations

import json

import pytest

from synthamp.accountant import SyntheticDataRelease, compute_epsilon
from synthamp.accountant._pld import compute_epsilon_pld
from synthamp.accountant._profile import profile_epsilon
from synthamp.cli import main

ACCOUNT = ["account", "--dim", "100", "--norm-bound", "2", "--sensitivity", "0.5"]


def run_json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_default_is_pld_for_k1_and_both_numbers_are_reported(capsys):
    result = run_json(capsys, [*ACCOUNT, "--sigma", "0.7458", "--json"])
    release = SyntheticDataRelease(100, 1, 2.0, 0.5, 0.7458)
    assert result["accountant"] == "pld"
    assert result["epsilon"] == result["epsilon_pld"]
    assert result["epsilon_pld"] == pytest.approx(profile_epsilon(release, 1e-5).epsilon)
    assert result["epsilon_rdp"] == pytest.approx(
        compute_epsilon(release, 1e-5, accountant="rdp").epsilon
    )
    assert result["epsilon_pld_lower"] <= result["epsilon_pld"] < result["epsilon_rdp"]


def test_rdp_on_request_and_for_k_above_one(capsys):
    result = run_json(capsys, [*ACCOUNT, "--sigma", "0.7458", "--accountant", "rdp", "--json"])
    assert result["accountant"] == "rdp" and result["epsilon"] == result["epsilon_rdp"]
    assert result["epsilon_pld"] is not None  # still shown
    k2 = run_json(capsys, [*ACCOUNT, "--out-dim", "2", "--sigma", "0.7458", "--json"])
    assert k2["accountant"] == "rdp" and k2["epsilon_pld"] is None
    assert "k > 1" in k2["accountant_reason"]


@pytest.mark.parametrize("method", ["global", "post-processing"])
def test_another_accounting_keeps_its_rdp_number_as_release_does(capsys, method):
    """--accounting global|post-processing asks for that bound: the default accountant is
    then rdp (the library's rule, as ``release`` applies it), not the exact profile."""
    from synthamp.release import account_release

    result = run_json(capsys, [*ACCOUNT, "--sigma", "0.7458", "--accounting", method, "--json"])
    release = SyntheticDataRelease(100, 1, 2.0, 0.5, 0.7458)
    expected = compute_epsilon(release, 1e-5, method=method, accountant="rdp").epsilon
    assert result["accountant"] == "rdp" and f"--accounting {method}" in result["accountant_reason"]
    assert result["epsilon"] == result["epsilon_rdp"] == pytest.approx(expected, rel=1e-12)
    assert result["epsilon"] > profile_epsilon(release, 1e-5).epsilon  # not the profile's
    released = account_release(
        epsilon=None, delta=1e-5, sigma=0.7458, dim=100, out_dim=1, norm_bound=2.0,
        sensitivity=0.5, n_syn=None, method=method, choice=None,
    )  # fmt: skip
    assert released.accountant == "rdp" and released.epsilon == result["epsilon"]
    assert run_json(capsys, [*ACCOUNT, "--sigma", "0.7458", "--accounting", method,
                             "--accountant", "pld", "--json"])["accountant"] == "pld"  # fmt: skip


def test_delta_grid_gives_arrays(capsys):
    argv = [*ACCOUNT, "--sigma", "1.0", "--releases", "10", "--json"]
    result = run_json(capsys, [*argv, "--delta-grid", "1e-3,1e-5,1e-8"])
    assert result["delta"] == [1e-3, 1e-5, 1e-8]
    for key in ("epsilon", "epsilon_pld", "epsilon_rdp", "epsilon_pld_lower", "optimal_order"):
        assert len(result[key]) == 3
    assert result["epsilon"] == sorted(result["epsilon"])  # smaller δ, larger ε
    release = SyntheticDataRelease(100, 1, 2.0, 0.5, 1.0, releases=10)
    assert result["epsilon_pld"][1] == pytest.approx(
        compute_epsilon_pld(release, 1e-5).epsilon, rel=1e-12
    )
    text = main([*ACCOUNT, "--sigma", "1.0", "--delta-grid", "1e-3,1e-5"])
    assert text == 0
    out = capsys.readouterr().out
    assert out.count("at delta = ") == 2 and "accountant: pld" in out


def test_calibrate_by_pld(capsys):
    argv = ["calibrate", "--epsilon", "1", "--dim", "100", "--norm-bound", "2"]
    result = run_json(capsys, [*argv, "--sensitivity", "0.5", "--json"])
    assert result["accountant"] == "pld"
    assert result["sigma"] == result["sigma_pld"] < result["sigma_rdp"]
    assert result["epsilon"] <= 1.0
    release = SyntheticDataRelease(100, 1, 2.0, 0.5, 0.99 * result["sigma"])
    assert profile_epsilon(release, 1e-5).epsilon > 1.0  # tight


@pytest.mark.parametrize(
    ("extra", "flag"),
    [
        (["--discretization", "0"], "--discretization"),
        (["--discretization", "-1e-4"], "--discretization"),
        (["--accountant", "magic"], "--accountant"),
        (["--delta-grid", "1e-3,1.5"], "--delta-grid"),
        (["--delta-grid", "0"], "--delta-grid"),
        (["--delta", "1"], "--delta"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, extra, flag):
    assert main([*ACCOUNT, "--sigma", "0.7", *extra]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert captured.out == "" and len(lines) == 1
    assert lines[0].startswith("synthamp: error:") and flag in lines[0]


@pytest.mark.slow
def test_generator_report_gives_both_numbers_and_names_the_accountant():
    import numpy as np

    from synthamp.release import PrivateLinearGenerator

    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, 8))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    y = np.tanh(x @ rng.normal(size=(8, 1)))
    common = {"label_bound": 1.0, "ridge": 0.1, "epsilon": 1.0, "delta": 1e-5, "random_state": 1}
    pld = PrivateLinearGenerator(**common).fit(x, y).privacy_
    rdp = PrivateLinearGenerator(**common, accountant="rdp").fit(x, y).privacy_
    assert pld.accountant == "pld" and rdp.accountant == "rdp"
    assert pld.epsilon == pld.epsilon_pld <= 1.0 < pld.epsilon_rdp
    assert rdp.epsilon == rdp.epsilon_rdp <= 1.0 and rdp.epsilon_pld < rdp.epsilon_rdp
    assert pld.sigma < rdp.sigma
    markdown = pld.to_markdown()
    assert "| accountant | pld |" in markdown and "ε (rdp)" in markdown and "ε (pld)" in markdown
    finite = PrivateLinearGenerator(**common, n_syn=100).fit(x, y).privacy_
    assert finite.accountant == "rdp"  # the default for a finite n_syn
