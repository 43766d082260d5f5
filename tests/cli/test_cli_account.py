"""``synthamp account`` and ``synthamp calibrate``: JSON, text output and bad input."""

from __future__ import annotations

import json
import re

import pytest

from synthamp.accountant import DEFAULT_ORDERS, SyntheticDataRelease, compute_epsilon
from synthamp.cli import main
from synthamp.report import SCHEMA_VERSION

ACCOUNT = ["account", "--dim", "1000", "--norm-bound", "2", "--sensitivity", "0.1"]
CALIBRATE = ["calibrate", "--epsilon", "1", "--dim", "1000", "--norm-bound", "2"]


def run_json(capsys, argv):
    assert main(argv) == 0
    out = capsys.readouterr().out
    return json.loads(out)


def test_cli_account_json(capsys):
    result = run_json(capsys, [*ACCOUNT, "--sigma", "0.5", "--json"])
    required = {
        "alpha",
        "rdp",
        "rdp_lower",
        "epsilon",
        "delta",
        "optimal_order",
        "accounting",
        "post_processing",
    }
    assert required <= set(result)
    assert result["schema_version"] == SCHEMA_VERSION and result["command"] == "account"
    assert result["rdp_lower"] is None and result["accounting"] == "exact"
    assert {"rdp", "epsilon"} <= set(result["post_processing"])
    assert len(result["alpha"]) == len(result["rdp"]) == DEFAULT_ORDERS.size
    assert result["delta"] == 1e-5
    assert 0 < result["epsilon"] <= result["epsilon_rdp"] < result["post_processing"]["epsilon"]
    release = SyntheticDataRelease(1000, 1, 2.0, 0.1, 0.5)
    assert result["epsilon_rdp"] == pytest.approx(
        compute_epsilon(release, 1e-5, accountant="rdp").epsilon, rel=1e-12
    )


def test_cli_account_a_billion_records(capsys):
    """--n-syn up to 10^9 (issue 12): the exact finite release, between 10^7 and unlimited."""
    result = run_json(capsys, [*ACCOUNT, "--sigma", "0.5", "--n-syn", "1000000000", "--json"])
    assert result["release"]["n_syn"] == 10**9 and result["fallback"] is None
    release = SyntheticDataRelease(1000, 1, 2.0, 0.1, 0.5, n_syn=10**9)
    assert result["epsilon_rdp"] == pytest.approx(
        compute_epsilon(release, 1e-5, accountant="rdp").epsilon, rel=1e-12
    )
    fewer = run_json(capsys, [*ACCOUNT, "--sigma", "0.5", "--n-syn", "10000000", "--json"])
    unlimited = run_json(capsys, [*ACCOUNT, "--sigma", "0.5", "--json"])
    assert fewer["epsilon_rdp"] <= result["epsilon_rdp"] < unlimited["epsilon_rdp"]


def test_cli_account_k2_and_effective_sensitivity(capsys):
    argv = [
        "account", "--dim", "100", "--out-dim", "2", "--norm-bound", "1", "--sensitivity", "5",
        "--sigma", "2", "--alpha", "2,8,32", "--n-syn", "50", "--releases", "2", "--json",
    ]  # fmt: skip
    result = run_json(capsys, argv)
    assert result["alpha"] == [2.0, 8.0, 32.0]
    assert len(result["rdp_lower"]) == 3
    assert all(lo <= up for lo, up in zip(result["rdp_lower"], result["rdp"], strict=True))
    assert result["effective_sensitivity"] == 2.0
    assert any("effective sensitivity" in note for note in result["notes"])
    assert result["kind"] == "certified"


def test_cli_account_k2_search(capsys):
    """--search adds rdp_search, a labelled lower bound between rdp_lower and rdp; ε stays."""
    argv = [
        "account", "--dim", "10", "--out-dim", "2", "--norm-bound", "1", "--sensitivity", "0.9",
        "--sigma", "1", "--alpha", "1.5,2,8", "--accountant", "rdp", "--json",
    ]  # fmt: skip
    plain = run_json(capsys, argv)
    searched = run_json(capsys, [*argv, "--search", "4"])
    assert plain["rdp_search"] is None and plain["lower_bounds"]["rdp_search"] is None
    assert searched["epsilon"] == plain["epsilon"] and searched["rdp"] == plain["rdp"]
    lower, found, upper = searched["rdp_lower"], searched["rdp_search"], searched["rdp"]
    assert all(lo <= f <= up for lo, f, up in zip(lower, found, upper, strict=True))
    assert found[1] > 1.2 * lower[1]  # the rotated pair of tests/accountant/test_k2_search.py
    bounds = searched["lower_bounds"]
    assert bounds["kind"] == "certified" and bounds["bound"] == "lower"
    assert bounds["used_for_epsilon"] is False and "lower bound" in bounds["rdp_search"]
    assert main([*argv[:-1], "--search", "1"]) == 0
    out = capsys.readouterr().out
    assert "note: rdp_search:" in out and "(lower: best pair of the search)" in out


def test_cli_account_text(capsys):
    assert main([*ACCOUNT, "--sigma", "0.5", "--accounting", "global"]) == 0
    out = capsys.readouterr().out
    assert "epsilon =" in out and "post-processing" in out and "method global" in out


def test_cli_old_method_flag_is_a_hidden_alias_that_warns(capsys):
    assert main([*ACCOUNT, "--sigma", "0.5", "--method", "global"]) == 0
    captured = capsys.readouterr()
    assert "method global" in captured.out
    assert captured.err == "synthamp: warning: --method is deprecated; use --accounting\n"
    assert main(["account", "--help"]) == 0
    assert "--method" not in capsys.readouterr().out


def test_cli_calibrate_json(capsys):
    result = run_json(capsys, [*CALIBRATE, "--sensitivity", "0.1", "--json"])
    assert {"sigma", "epsilon", "sigma_post_processing", "noise_saved", "accounting"} <= set(result)
    assert result["epsilon"] <= 1.0
    assert result["noise_saved"] == pytest.approx(
        1 - result["sigma"] / result["sigma_post_processing"]
    )
    assert result["noise_saved"] > 0


def test_cli_calibrate_global_k2_never_prints_a_negative_saving(capsys):
    argv = ["calibrate", "--epsilon", "1", "--dim", "20", "--out-dim", "2", "--norm-bound", "2",
            "--sensitivity", "0.5", "--accounting", "global"]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "no noise saved" in out and not re.search(r"(?<![\w.])-\s*\d", out)  # no negative
    assert "Theorem 5.4 alone" in out
    result = run_json(capsys, [*argv, "--json"])
    assert result["sigma"] > result["sigma_post_processing"] and result["noise_saved"] == 0.0


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        ([*CALIBRATE, "--sensitivity", "0.1", "--epsilon", "0"], "--epsilon"),
        ([*CALIBRATE, "--sensitivity", "0.1", "--epsilon", "-2"], "--epsilon"),
        ([*CALIBRATE, "--sensitivity", "0.1", "--delta", "0"], "--delta"),
        ([*CALIBRATE, "--sensitivity", "0.1", "--delta", "1"], "--delta"),
        ([*CALIBRATE, "--sensitivity", "0"], "--sensitivity"),
        ([*CALIBRATE, "--sensitivity", "0.1", "--releases", "0"], "--releases"),
        ([*ACCOUNT, "--sigma", "0.5", "--delta", "1.5"], "--delta"),
        ([*ACCOUNT, "--sigma", "0"], "--sigma"),
        ([*ACCOUNT, "--sigma", "0.5", "--releases", "0"], "--releases"),
        ([*ACCOUNT, "--sigma", "0.5", "--n-syn", "0"], "--n-syn"),
        ([*ACCOUNT, "--sigma", "0.5", "--n-syn", "1000000001"], "--n-syn"),
        ([*ACCOUNT, "--sigma", "0.5", "--out-dim", "1001"], "--out-dim"),
        ([*ACCOUNT, "--sigma", "0.5", "--alpha", "1,2"], "--alpha"),
        ([*ACCOUNT, "--sigma", "0.5", "--accounting", "magic"], "--accounting"),
        ([*ACCOUNT, "--sigma", "0.5", "--method", "magic"], "--method"),
        ([*ACCOUNT, "--sigma", "0.5", "--norm-bound", "0"], "--norm-bound"),
        ([*ACCOUNT, "--sigma", "0.5", "--search", "2"], "--search"),
        ([*ACCOUNT, "--sigma", "0.5", "--out-dim", "2", "--search", "-1"], "--search"),
        ([*ACCOUNT, "--sigma", "0.5", "--out-dim", "2", "--search", "2", "--n-syn", "9"],
         "--search"),
        ([*ACCOUNT, "--sigma", "0.5", "--out-dim", "2", "--search", "x"], "--search"),
        (["account", "--dim", "0", "--norm-bound", "1", "--sensitivity", "1", "--sigma", "1"],
         "--dim"),
    ],
)  # fmt: skip
def test_cli_invalid_input(capsys, argv, flag):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("synthamp: error:")
    assert flag in lines[0]
