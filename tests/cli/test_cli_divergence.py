"""``synthamp divergence`` and ``synthamp fisher``: the JSON contract of issue 2, tables, errors."""

from __future__ import annotations

import json
import math

import mpmath as mp
import numpy as np
import pytest

from synthamp import fisher_information, renyi_finite, renyi_plateau
from synthamp.bounds import fisher_lower_bound, fisher_upper_bound
from synthamp.cli import main

DIVERGENCE_KEYS = {"alpha", "renyi", "error", "dim", "norm_v", "norm_w", "sigma", "n_syn"}
FISHER_KEYS = {"dim", "theta", "fisher", "error", "lower_bound", "upper_bound"}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv: str) -> dict:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    assert err == ""
    return json.loads(out)


def test_divergence_json_plateau(capsys):
    data = run_json(
        capsys,
        "divergence",
        "--alpha",
        "8,2,4",
        "--dim",
        "50",
        "--norm-v",
        "2.0",
        "--norm-w",
        "1.9",
    )
    assert DIVERGENCE_KEYS <= set(data)
    assert data["alpha"] == [8.0, 2.0, 4.0]
    assert data["n_syn"] is None
    assert (data["dim"], data["norm_v"], data["norm_w"], data["sigma"]) == (50, 2.0, 1.9, 1.0)
    assert len(data["renyi"]) == len(data["error"]) == 3
    result = renyi_plateau([8.0, 2.0, 4.0], 50, 2.0, 1.9, full_output=True)
    assert data["renyi"] == result.value.tolist()
    assert data["error"] == result.error.tolist()
    assert all(e >= 0 for e in data["error"])
    # orders given unsorted come back in the given order: D_8 > D_4 > D_2
    assert data["renyi"][0] > data["renyi"][2] > data["renyi"][1] > 0


def test_divergence_json_closed_form(capsys):
    """d = 3, b = 0, α = 2: D_2 = log(sinh(a²)/a²) (the closed form log ₀F₁(3/2; a⁴/4))."""
    data = run_json(
        capsys,
        "divergence",
        "--alpha",
        "2",
        "--dim",
        "3",
        "--norm-v",
        "3.0",
        "--norm-w",
        "0",
        "--sigma",
        "2.0",
    )
    with mp.workdps(30):
        lam = mp.mpf(1.5) ** 2
        expected = float(mp.log(mp.sinh(lam) / lam))
    assert data["renyi"][0] == pytest.approx(expected, rel=1e-10)
    assert data["sigma"] == 2.0


def test_divergence_json_finite(capsys):
    argv = ["divergence", "--alpha", "2,4", "--dim", "10", "--norm-v", "2", "--norm-w", "1.5"]
    data = run_json(capsys, *argv, "--n-syn", "100")
    assert DIVERGENCE_KEYS <= set(data)
    assert data["n_syn"] == 100
    result = renyi_finite([2.0, 4.0], 10, 2.0, 1.5, 100, full_output=True)
    assert data["renyi"] == result.value.tolist()
    plateau = run_json(capsys, *argv)
    # a finite release leaks less than the plateau (Proposition 4.2)
    for finite, error, limit in zip(data["renyi"], data["error"], plateau["renyi"], strict=True):
        assert 0 <= finite <= limit + error


def test_divergence_table(capsys):
    argv = ["divergence", "--alpha", "2,16", "--dim", "50", "--norm-v", "2", "--norm-w", "1.9"]
    code, out, err = run(capsys, *argv)
    assert code == 0 and err == ""
    values = renyi_plateau([2.0, 16.0], 50, 2.0, 1.9)
    assert "plateau" in out and "d = 50" in out and "exact" in out
    for value in values:
        assert f"{value:.10g}" in out
    code, out, _ = run(capsys, *argv, "--n-syn", "1000")
    assert code == 0 and "1,000" in out
    assert not out.lstrip().startswith("{")


def test_fisher_json(capsys):
    data = run_json(capsys, "fisher", "--dim", "10", "--theta", "2.0")
    assert FISHER_KEYS <= set(data)
    assert (data["dim"], data["theta"]) == (10, 2.0)
    value, error = fisher_information(10, 2.0, full_output=True)
    assert (data["fisher"], data["error"]) == (value, error)
    # docs/theory.md §5: 2θ²/(2θ²+d) and min{1, 2θ²/(A + √(A² + 4θ²))}, A = θ² + (d − 3)/2
    theta, dim = 2.0, 10
    a_coef = theta**2 + (dim - 3) / 2
    assert data["lower_bound"] == pytest.approx(2 * theta**2 / (2 * theta**2 + dim), rel=1e-15)
    sharp = 2 * theta**2 / (a_coef + math.sqrt(a_coef**2 + 4 * theta**2))
    assert data["upper_bound"] == pytest.approx(min(1.0, sharp), rel=1e-15)
    assert data["lower_bound"] <= data["fisher"] <= data["upper_bound"]
    assert data["lower_bound"] == fisher_lower_bound(10, 2.0)
    assert data["upper_bound"] == fisher_upper_bound(10, 2.0)


def test_fisher_table(capsys):
    code, out, err = run(capsys, "fisher", "--dim", "10", "--theta", "2.0")
    assert code == 0 and err == ""
    assert f"{fisher_information(10, 2.0):.12g}" in out
    assert "lower bound" in out and "upper bound" in out


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["--alpha", "1,2"], "--alpha"),
        (["--alpha", "0.5"], "--alpha"),
        (["--alpha", "two"], "--alpha"),
        (["--alpha", "2,"], "--alpha"),
        (["--alpha", "2,nan"], "--alpha"),
        (["--dim", "0"], "--dim"),
        (["--dim", "2.5"], "--dim"),
        (["--dim", "1000001"], "--dim"),
        (["--norm-v", "-1"], "--norm-v"),
        (["--norm-w", "abc"], "--norm-w"),
        (["--norm-w", "inf"], "--norm-w"),
        (["--sigma", "0"], "--sigma"),
        (["--sigma", "-2"], "--sigma"),
        (["--n-syn", "0"], "--n-syn"),
        (["--n-syn", "1.5"], "--n-syn"),
        (["--n-syn", "1000000001"], "--n-syn"),
    ],
)
def test_divergence_invalid_input(capsys, argv, flag):
    base = {"--alpha": "2", "--dim": "5", "--norm-v": "1", "--norm-w": "0.5"}
    args = dict(base)
    args.update(dict(zip(argv[::2], argv[1::2], strict=True)))
    flat = [item for pair in args.items() for item in pair]
    code, out, err = run(capsys, "divergence", *flat, "--json")
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and flag in lines[0], err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["--dim", "0", "--theta", "1"], "--dim"),
        (["--dim", "x", "--theta", "1"], "--dim"),
        (["--dim", "3", "--theta", "-1"], "--theta"),
        (["--dim", "3", "--theta", "nan"], "--theta"),
        (["--dim", "3"], "--theta"),
    ],
)
def test_fisher_invalid_input(capsys, argv, flag):
    code, out, err = run(capsys, "fisher", *argv)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and flag in lines[0], err


def test_help(capsys):
    for command in ("divergence", "fisher"):
        code, out, _ = run(capsys, command, "--help")
        assert code == 0 and "--json" in out


def test_json_values_are_finite_numbers(capsys):
    data = run_json(
        capsys,
        "divergence",
        "--alpha",
        "1.01,256",
        "--dim",
        "1",
        "--norm-v",
        "100",
        "--norm-w",
        "0",
    )
    assert np.all(np.isfinite(data["renyi"])) and np.all(np.isfinite(data["error"]))
