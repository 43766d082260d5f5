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
