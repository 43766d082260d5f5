"""``synthamp divergence --out-dim 2``: the k = 2 plateau from Gram matrices."""

from __future__ import annotations

import json

import numpy as np
import pytest

from synthamp.cli import main
from synthamp.divergence import renyi_plateau_gram

GRAMS = ["--gram-v", "3,0.5,0.9", "--gram-w", "2.5,0.2,1.2"]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_out_dim_2_json(capsys):
    code, out, err = run(
        capsys, "divergence", "--dim", "10", "--out-dim", "2", *GRAMS, "--alpha", "8,2", "--json"
    )
    assert code == 0 and err == ""
    data = json.loads(out)
    ref = renyi_plateau_gram([8.0, 2.0], 10, [3, 0.5, 0.9], [2.5, 0.2, 1.2], full_output=True)
    assert data["renyi"] == ref.value.tolist()
    assert data["error"] == ref.error.tolist()
    assert data["alpha"] == [8.0, 2.0]
    assert (data["out_dim"], data["dim"], data["sigma"], data["n_syn"]) == (2, 10, 1.0, None)
    assert data["gram_v"] == [3.0, 0.5, 0.9] and data["gram_w"] == [2.5, 0.2, 1.2]
    assert data["norm_v"] == pytest.approx(np.sqrt(3.9)) and data["kind"] == "exact"


def test_out_dim_1_json_has_the_new_keys(capsys):
    code, out, _ = run(
        capsys,
        "divergence",
        "--dim",
        "10",
        "--norm-v",
        "2",
        "--norm-w",
        "1.5",
        "--alpha",
        "2",
        "--json",
    )
    data = json.loads(out)
    assert code == 0
    assert (data["out_dim"], data["gram_v"], data["gram_w"]) == (1, [4.0], [2.25])


def test_out_dim_2_table_with_sigma(capsys):
    code, out, err = run(
        capsys,
        "divergence",
        "--dim",
        "10",
        "--out-dim",
        "2",
        "--gram-v",
        "12,2,3.6",
        "--gram-w",
        "10,0.8,4.8",
        "--sigma",
        "2",
        "--alpha",
        "2",
    )
    assert code == 0 and err == ""
    value = renyi_plateau_gram([2.0], 10, [3, 0.5, 0.9], [2.5, 0.2, 1.2])[0]
    assert "k = 2" in out and f"{value:.10g}"[:8] in out


@pytest.mark.parametrize(
    "extra,flag",
    [
        (["--gram-v", "3,0.5,0.9", "--gram-w", "2.5,0.2"], "--gram-w: must have 3 entries"),
        (["--gram-v", "3,5,0.9", "--gram-w", "2.5,0.2,1.2"], "--gram-v: must be positive semi"),
        (["--gram-v", "-1,0,0.9", "--gram-w", "2.5,0.2,1.2"], "--gram-v: must be positive semi"),
        (["--gram-v", "3,0.5,0.9"], "--gram-w: is required"),
        ([*GRAMS, "--norm-v", "1"], "--norm-v: is for --out-dim 1"),
        ([*GRAMS, "--n-syn", "100"], "--n-syn: the finite release is k = 1 only"),
        ([*GRAMS, "--out-dim", "3"], "--out-dim: must be 1 or 2"),
    ],
)
def test_bad_input_one_line_exit_2(capsys, extra, flag):
    argv = ["divergence", "--dim", "10", "--alpha", "2", "--out-dim", "2", *extra]
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith(f"synthamp: error: {flag}") and err.count("\n") == 1


def test_k_above_d(capsys):
    code, _, err = run(capsys, "divergence", "--dim", "1", "--out-dim", "2", *GRAMS, "--alpha", "2")
    assert code == 2 and err == "synthamp: error: --out-dim: must be <= dim = 1, got 2\n"


def test_dim_2_is_accepted(capsys):
    """d = k = 2 (refused before the engine handled it): the aligned rank-one pair has
    the exact k = 1 value at d = 2."""
    argv = ["divergence", "--dim", "2", "--out-dim", "2", "--gram-v", "4,0,0"]
    code, out, err = run(capsys, *argv, "--gram-w", "2.25,0,0", "--alpha", "2,8", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    from synthamp import renyi_plateau

    ref = renyi_plateau([2.0, 8.0], 2, 2.0, 1.5)
    assert np.allclose(data["renyi"], ref, rtol=1e-10, atol=0)
    assert (data["dim"], data["out_dim"]) == (2, 2)


def test_gram_for_k1_is_refused(capsys):
    code, _, err = run(capsys, "divergence", "--dim", "5", "--gram-v", "1,0,1", "--alpha", "2")
    assert code == 2 and err.startswith("synthamp: error: --gram-v: is for --out-dim 2")
