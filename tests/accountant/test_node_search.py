"""The certified calibration's σ search on the orthogonal node (accountant/_node_search.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from synthamp.accountant import _k_certificate
from synthamp.accountant._k_certificate import account_certified, calibrate_certified
from synthamp.accountant._node_search import node_sigma_search

M, RIDGE = 178, 1e-2
G = (1 + M * RIDGE) ** -2  # an orthogonal design: G = g·I


def _curve(scale: float, power: float):
    """ε(σ) = scale/σ^power + 0.3/σ (decreasing), its root, and an evaluation counter."""
    calls = []

    def evaluate(x: float):
        calls.append(x)
        sigma = math.exp(x)
        return scale / sigma**power + 0.3 / sigma, ("payload", x)

    return evaluate, calls


@pytest.mark.parametrize(("target", "slope"), [(1.0, -1.5), (10.0, -1.0), (100.0, -3.0)])
def test_the_search_brackets_the_root_to_rtol_in_few_evaluations(target, slope):
    evaluate, calls = _curve(
        0.5,
        2.0,
    )
    rtol = 1e-3
    # a start that meets the target by a margin, as the RDP σ does
    start = math.log(2.0 / math.sqrt(target))
    x, payload, count = node_sigma_search(evaluate, slope, target, start, rtol)
    eps = lambda x: evaluate(x)[0]  # noqa: E731
    assert eps(x) <= target < eps(x - math.log1p(rtol))  # the smallest σ to rtol, sound side
    assert payload == ("payload", x)  # the payload of the returned upper end
    assert count == len(calls) - 2 and count <= 7  # even with a poor model slope


def test_a_start_that_fails_is_raised_and_nan_counts_as_failing():
    def evaluate(x: float):
        sigma = math.exp(x)
        return (math.nan if sigma < 0.5 else 1.0 / sigma), None

    x, _, _ = node_sigma_search(evaluate, -1.0, 1.0, math.log(0.1), 1e-3)
    assert 1.0 <= math.exp(x) <= 1.0 + 1e-3 + 1e-12


def test_the_calibration_spends_a_few_node_plds(monkeypatch):
    """The bisection spent ~10 node PLDs (each seconds at large ε); the search 3–5, and the
    guarantee reuses the last one: the smallest σ to rtol all the same."""
    calls = []
    original = _k_certificate._node_pld

    def counting(*args, **kwargs):
        calls.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(_k_certificate, "_node_pld", counting)
    release = _k_certificate.PublicDesignRelease.from_gram(G * np.eye(M), 1.0, 400, 2, 1.0)
    result = calibrate_certified(release, 1.0, 1e-5, rtol=1e-3)
    assert len(calls) <= 6  # search + the realised pair's lower bound
    monkeypatch.setattr(_k_certificate, "_node_pld", original)
    assert result.epsilon <= 1.0
    below = account_certified(release.with_sigma(result.sigma / (1 + 1e-3)), 1e-5)
    assert below.epsilon > 1.0
    again = account_certified(release.with_sigma(result.sigma), 1e-5)
    assert again.epsilon == pytest.approx(result.epsilon, rel=1e-12)  # the reused PLD
