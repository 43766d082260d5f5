"""``synthamp bounds``: the JSON contract, the table and bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

from synthamp import bounds as B
from synthamp.cli import main

CLI_ARGS = ["bounds", "--alpha", "2,4", "--dim", "1000", "--out-dim", "1", "--norm-bound", "2.0",
            "--sensitivity", "0.5"]  # fmt: skip
BOUND_NAMES = ["post_processing", "global", "global_elementary", "global_as_printed", "local_upper"]


def test_cli_json_contract(capsys):
    assert main([*CLI_ARGS, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out)[:2] == ["schema_version", "command"] and out["command"] == "bounds"
    keys = {"alpha", *BOUND_NAMES, "prior_work", "eta_local_upper", "kinds"}
    assert set(out) == {"schema_version", "command", *keys}
    assert out["alpha"] == [2.0, 4.0]
    for name in BOUND_NAMES:
        assert isinstance(out[name], list) and len(out[name]) == 2
        assert all(isinstance(x, float) and x >= 0 for x in out[name])
    assert out["prior_work"] is None
    assert isinstance(out["eta_local_upper"], float)
    assert out["kinds"] == {name: str(kind) for name, kind in B.BOUND_KINDS.items()}
    np.testing.assert_allclose(out["post_processing"], [0.25, 0.5], rtol=1e-15)
    np.testing.assert_allclose(out["global"], B.global_bound([2, 4], 1000, 2.0, 0.5), rtol=1e-15)
    np.testing.assert_allclose(
        out["local_upper"], np.array(out["post_processing"]) * out["eta_local_upper"], rtol=1e-15
    )


def test_cli_prior_work_with_n_syn_and_out_dim(capsys):
    assert main([*CLI_ARGS[:5], "--out-dim", "4", *CLI_ARGS[7:], "--n-syn", "10", "--json",
                 "--sigma", "2"]) == 0  # fmt: skip
    out = json.loads(capsys.readouterr().out)
    np.testing.assert_allclose(out["prior_work"], B.prior_work_rdp([2, 4], 1000, 4, 10, 0.5, 2.0))
    np.testing.assert_allclose(
        out["global"], B.global_bound([2, 4], 250, 2.0, 0.5, sigma=2.0), rtol=1e-15
    )


def test_cli_table(capsys):
    assert main([*CLI_ARGS, "--n-syn", "100"]) == 0
    out = capsys.readouterr().out
    for name in [*BOUND_NAMES, "prior_work", "eta_local_upper"]:
        assert name in out
    assert "(heuristic)" in out and "(certified)" in out


@pytest.mark.parametrize(
    ("change", "flag"),
    [
        (["--out-dim", "1001"], "--out-dim"),
        (["--alpha", "1"], "--alpha"),
        (["--alpha", "2,x"], "--alpha"),
        (["--dim", "0"], "--dim"),
        (["--sigma", "0"], "--sigma"),
        (["--sensitivity", "-1"], "--sensitivity"),
        (["--norm-bound", "nan"], "--norm-bound"),
        (["--n-syn", "0"], "--n-syn"),
    ],
)
def test_cli_invalid_input(capsys, change, flag):
    args = list(CLI_ARGS)
    i = args.index(change[0]) if change[0] in args else None
    if i is None:
        args += change
    else:
        args[i + 1] = change[1]
    assert main([*args, "--json"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("synthamp: error:") and flag in lines[0]
    assert "Traceback" not in captured.err
