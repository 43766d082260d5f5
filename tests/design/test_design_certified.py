"""A design release with k ≥ 2 target columns under the Gram adjacency: the certified accountant.

The release's σ is the one :func:`synthamp.accountant.calibrate_certified` gives at the same
public inputs (c*, Δ and the realised norm built here independently: the orthogonal closed
form G = g·I, c* = B√g; the random-seeds design from its certified Ĝ and ε_S), its outputs
carry the realised pair's lower bound and the ratio, and ``--adjacency norm`` keeps
Theorem 5.4.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from synthamp.accountant import (
    REALISED_LOWER,
    PublicDesignRelease,
    calibrate,
    calibrate_certified,
)
from synthamp.design import design_release
from synthamp.design._designs import PublicDesign, design_bounds
from synthamp.design._plan import plan_design
from synthamp.report import render_html

EPSILON, DELTA, RIDGE, B = 1.0, 1e-5, 0.1, 1.0


def _targets(m: int, k: int) -> np.ndarray:
    rng = np.random.default_rng(3)
    y = rng.normal(size=(m, k))
    return 0.9 * y / np.linalg.norm(y, axis=1, keepdims=True).max()


def _orthogonal_public(m: int, width: int, k: int) -> PublicDesignRelease:
    """G = g·I_m, g = (1 + mλ)⁻²: c* = B√g (no cross term), Δ = 2B√g, realised norm B√g."""
    root_g = 1.0 / (1.0 + m * RIDGE)
    return PublicDesignRelease(
        width, k, B * root_g, 2.0 * B * root_g * (1 + 1e-15), 1.0, realised_norm=B * root_g
    )


@pytest.mark.parametrize("k", [2, 3])
def test_orthogonal_k_columns_are_certified_with_the_calibrated_sigma(k):
    m, width = 30, 100_000
    out = design_release(
        _targets(m, k), "orthogonal", width, 7, epsilon=EPSILON, delta=DELTA, ridge=RIDGE,
        label_bound=B, random_state=1,
    )  # fmt: skip
    expected = calibrate_certified(_orthogonal_public(m, width, k), EPSILON, DELTA)
    record = out.to_dict()
    assert record["kind"] == "certified" and record["adjacency"] == "gram"
    assert math.isclose(record["sigma"], expected.sigma, rel_tol=1e-9)
    assert record["epsilon"] <= EPSILON
    lower = record["epsilon_lower_realised"]
    assert 0 < lower <= record["epsilon"]
    assert math.isclose(record["certified_over_lower"], record["epsilon"] / lower, rel_tol=1e-12)
    # Theorem 5.4 needs far more noise on this design (the norm model): σ is below it
    assert record["sigma"] < record["sigma_norm"]
    assert record["lower_bound"] == REALISED_LOWER
    assert out.sample(5).shape == (5, k)


def test_random_seeds_k2_uses_the_certified_gram_and_its_error():
    m, width = 25, 60
    y = _targets(m, 2)
    out = design_release(
        y, "random-seeds", width, 4, epsilon=EPSILON, delta=DELTA, ridge=RIDGE, label_bound=B,
        random_state=2,
    )  # fmt: skip
    bounds = design_bounds(PublicDesign("random-seeds", width, m, 4), RIDGE, B)
    assert 0 < bounds.gram_error < 1e-8  # ε_S: certified, small
    public = PublicDesignRelease.from_gram(
        bounds.gram, B, width, 2, 1.0, gram_error=bounds.gram_error
    )
    expected = calibrate_certified(public, EPSILON, DELTA)
    assert out.guarantee.kind == "certified"
    assert math.isclose(out.sigma, expected.sigma, rel_tol=1e-9)
    assert out.epsilon_lower_realised <= out.guarantee.epsilon <= EPSILON


def test_norm_adjacency_keeps_theorem_5_4():
    m, width = 30, 10_000
    y = _targets(m, 2)
    out = design_release(
        y, "orthogonal", width, 7, epsilon=EPSILON, delta=DELTA, ridge=RIDGE, label_bound=B,
        adjacency="norm", random_state=1,
    )  # fmt: skip
    norm = calibrate(EPSILON, DELTA, dim=width, out_dim=2, norm_bound=out.norm_bound,
                     sensitivity=out.sensitivity)  # fmt: skip
    assert out.certified is None and math.isclose(out.sigma, norm.sigma, rel_tol=1e-12)
    record = out.to_dict()
    assert record["epsilon_lower_realised"] is None and record["certified_over_lower"] is None


def test_every_output_states_the_lower_bound_and_the_plan_agrees():
    m, width, k = 30, 100_000, 2
    out = design_release(
        _targets(m, k), "orthogonal", width, 7, epsilon=EPSILON, delta=DELTA, ridge=RIDGE,
        label_bound=B, random_state=1,
    )  # fmt: skip
    lower = f"{out.epsilon_lower_realised:.6g}"
    assert any(lower in line and REALISED_LOWER in line for line in out.summary(100))
    report = out.privacy_report(m, 100)
    assert any(REALISED_LOWER in note for note in report.notes)
    assert REALISED_LOWER in report.to_markdown()
    page = render_html(report, n_released=100)
    first_screen = page.split("<details")[0]
    assert "Be₁ → Be₂" in first_screen
    plan = plan_design(
        n_records=m, n_targets=k, design="orthogonal", widths=[width], design_seed=7,
        label_bound=B, epsilon=EPSILON, delta=DELTA, ridges=[RIDGE],
    )  # fmt: skip
    assert math.isclose(plan.rows[0].sigma, out.sigma, rel_tol=1e-12)
    assert plan.rows[0].kind == "certified"
    assert math.isclose(plan.rows[0].epsilon_lower_realised, out.epsilon_lower_realised)
    assert math.isclose(plan.rows[0].certified_over_lower, out.certified_over_lower)
