"""design_release: one release on a public design (synthamp.design._release)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from synthamp._validation import InputError
from synthamp.accountant import profile_epsilon
from synthamp.design._designs import PublicDesign
from synthamp.design._release import design_release
from synthamp.release._ridge import ridge_fit


@pytest.fixture(scope="module")
def targets():
    rng = np.random.default_rng(3)
    return np.clip(rng.normal(0.3, 0.5, 60), -1.0, 1.0)


def test_design_release_gram(targets):
    out = design_release(
        targets, "random-seeds", 3000, seed=5, epsilon=1.0, delta=1e-5, random_state=11
    )
    assert out.adjacency == "gram" and out.sigma == out.sigma_gram < out.sigma_norm
    assert out.release.gram_sensitivity == pytest.approx(out.gram_sensitivity)
    assert profile_epsilon(out.release, 1e-5).epsilon <= 1.0 + 1e-9
    # the factor is σ_z‖V‖ with V = v + σN, N from the noise's own stream, v fitted on the
    # records in the order of the permutation drawn from the same root
    design = PublicDesign("random-seeds", 3000, targets.size, 5)
    noise_seq, _, order_seq = np.random.SeedSequence(11).spawn(3)
    order = np.random.Generator(np.random.PCG64(order_seq)).permutation(targets.size)
    v = ridge_fit(design.dense(), targets[order, None], 0.01)
    v += out.sigma * np.random.Generator(np.random.PCG64(noise_seq)).standard_normal(v.shape)
    expected = out.seed_scale * float(np.linalg.norm(v))
    assert abs(float(out._factor[0, 0])) == pytest.approx(expected, rel=1e-9)
    records = out.sample(40_000)
    assert records.shape == (40_000, 1)
    assert np.var(records) == pytest.approx(expected**2, rel=0.05)
    assert "gram_error_baseline_s2" in out.utility


def test_design_release_norm_and_features(targets):
    rng = np.random.default_rng(0)
    inputs = rng.standard_normal((targets.size, 4))
    two = np.column_stack([targets, -targets]) / math.sqrt(2)
    out = design_release(
        two, "random-features", 500, seed=1, epsilon=2.0, delta=1e-5, inputs=inputs,
        adjacency="norm", accountant="rdp",
    )  # fmt: skip
    assert out.sigma_gram is None and out.sample(5).shape == (5, 2)
    # k = 2 under the Gram adjacency: the certified reduction (docs/theory.md §20), not refused
    certified = design_release(two, "random-seeds", 50, seed=1, epsilon=1.0, delta=1e-5)
    assert certified.guarantee.kind == "certified" and certified.certified is not None
    with pytest.raises(InputError, match="adjacency"):
        design_release(two, "random-seeds", 50, seed=1, epsilon=1.0, delta=1e-5, adjacency="x")


def test_design_release_privacy_report_is_a_full_report_of_the_gram_guarantee(targets):
    from synthamp.report import PrivacyReport, render_html

    out = design_release(targets, "random-seeds", 3000, seed=5, epsilon=1.0, delta=1e-5)
    report = out.privacy_report(targets.size, 1000)
    assert report.epsilon == out.guarantee.epsilon and report.sigma == out.sigma_gram
    assert report.dim == 3000 and report.n_records == targets.size and report.n_syn is None
    assert "s₂" in report.adjacency and "public seed 5" in report.feature_scaling
    # the utility is at the 1,000 records written, the n → ∞ value beside it
    assert report.utility_verdict == out.utility_at(1000)["utility_verdict"]
    assert report.utility_table[0]["n_syn"] == 1000
    assert report.utility_table[0]["rmse_unlimited"] == out.utility["gram_error"]
    assert report.gram_error > out.utility["gram_error"]
    # the page draws the accounted release's curves (Gram adjacency): the profile's ε at the
    # guarantee's δ is the guarantee's, not the norm model's at the same σ
    profile = next(p for p in report.release_curves().profiles if p.accountant == "pld")
    at = int(np.argmin(np.abs(np.log(profile.delta) - math.log(1e-5))))
    assert profile.epsilon[at] == pytest.approx(report.epsilon, rel=1e-3)
    page = render_html(report)
    assert "public design random-seeds" in page and 'id="utility-baselines"' in page
    assert PrivacyReport.from_dict(report.to_dict()).epsilon == report.epsilon


def test_the_plan_of_a_design_gives_the_release_its_numbers(targets):
    from synthamp.design._plan import plan_design

    plan = plan_design(
        n_records=targets.size, widths=[3000], design_seed=5, label_bound=1.0, epsilon=1.0,
        delta=1e-5, ridges=[0.01, 0.1],
    )  # fmt: skip
    out = design_release(targets, "random-seeds", 3000, seed=5, epsilon=1.0, delta=1e-5)
    row = plan.rows[0]  # λ = 0.01, the release's default
    assert (row.sensitivity, row.norm_bound) == (out.sensitivity, out.norm_bound)
    assert (row.gram_sensitivity, row.sigma, row.sigma_norm) == (
        out.gram_sensitivity, out.sigma, out.sigma_norm,
    )  # fmt: skip
    assert row.utility_verdict == out.utility["utility_verdict"]
    assert plan.rows[1].ridge == 0.1 and plan.rows[1].norm_bound < row.norm_bound
    with pytest.raises(InputError, match="random-features"):
        plan_design(
            n_records=60, design="random-features", widths=[10], design_seed=1,
            label_bound=1.0, epsilon=1.0, delta=1e-5,
        )  # fmt: skip


def test_a_two_column_design_release_reports_its_accounting_beside_concrete_pairs(targets):
    two = np.column_stack([targets, -targets]) / math.sqrt(2)
    out = design_release(
        two, "random-seeds", 800, seed=2, epsilon=1.0, delta=1e-5, adjacency="norm"
    )
    found = out.comparison
    assert found is not None and found.searched is not None and found.complete
    assert np.all(found.lower <= found.searched * (1 + 1e-9))
    assert np.all(found.searched <= found.certified)
    # the certified curve is the release's own (what the guarantee uses)
    from synthamp.accountant import rdp_curve

    np.testing.assert_allclose(found.certified, rdp_curve(out.release, found.alpha).rdp)
    numbers = out.to_dict()["accounting_beside_concrete_pairs"]
    assert numbers["searched_gram_set_kind"] == "heuristic"
    summary = "\n".join(out.summary())
    assert "(a lower bound)" in summary and "(heuristic)" in summary
    report = out.privacy_report(two.shape[0], 100)
    assert any("concrete adjacent datasets" in note for note in report.notes)
    # beyond the k = 2 engine's width, nothing is computed and the output says so
    wide = design_release(
        two, "random-seeds", 10_001, seed=2, epsilon=1.0, delta=1e-5, adjacency="norm"
    )
    assert wide.comparison is None
    assert wide.to_dict()["accounting_beside_concrete_pairs"] is None
    assert "not computed" in "\n".join(wide.summary())
