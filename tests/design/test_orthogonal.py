"""Orthogonal public designs (synthamp.design._orthogonal): closed-form bounds, and the
release's VᵀV sampled from its exact law, checked against an explicit design."""

from __future__ import annotations

import json
import math
import time
import tracemalloc

import mpmath
import numpy as np
import pytest
from scipy import stats

from synthamp._validation import InputError
from synthamp.accountant import gram_norm_bound
from synthamp.design._designs import PublicDesign, design_bounds, design_spectrum
from synthamp.design._orthogonal import (
    bartlett_rows,
    orthogonal_bounds,
    orthogonal_gram_rows,
    orthonormal_rows,
)
from synthamp.design._plan import plan_design
from synthamp.design._release import account_design, design_release
from synthamp.release._ridge import _gram_factor

ULP = 2.0**-52


def _ridge_operator(x: np.ndarray, ridge: float) -> np.ndarray:
    """M = (XᵀX/m + λI)⁻¹Xᵀ/m by a dense solve (the definition, independent of the closed form)."""
    m, width = x.shape
    return np.linalg.solve(x.T @ x / m + ridge * np.eye(width), x.T / m)


@pytest.mark.parametrize(("m", "ridge", "b"), [(5, 0.1, 1.0), (178, 0.01, 1.0), (10**6, 3e-7, 2.5)])
def test_closed_form_bounds_against_mpmath(m, ridge, b):
    bounds = orthogonal_bounds(m, ridge, b)
    with mpmath.workdps(60):
        t = 1 + m * mpmath.mpf(ridge)
        exact = {
            "sensitivity": 2 * mpmath.mpf(b) / t,
            "norm_bound": mpmath.mpf(b) * mpmath.sqrt(m) / t,
            "gram_sensitivity": mpmath.mpf(b) ** 2 / t**2,
            "gram_scale": 1 / t**2,
        }
        for key, value in exact.items():
            got = mpmath.mpf(getattr(bounds, key))
            assert value <= got <= value * (1 + 2 * ULP), key  # above, by at most two ulps
    assert bounds.gram_sensitivity_theory == bounds.gram_sensitivity
    assert 0 <= bounds.rounding_bound <= 4 * ULP


def test_closed_forms_equal_the_general_certified_bounds_on_an_explicit_design():
    m, width, ridge = 6, 15, 0.1
    design = PublicDesign("orthogonal", width, m, seed=3)
    x = design.dense()
    assert x.shape == (m, width)
    assert np.abs(x @ x.T - np.eye(m)).max() < 1e-14
    general = design_bounds(x @ x.T, ridge, 1.0)  # the general formulas on K = XXᵀ
    closed = orthogonal_bounds(m, ridge, 1.0)
    for key in ("sensitivity", "norm_bound", "gram_sensitivity", "gram_sensitivity_theory"):
        assert getattr(closed, key) == pytest.approx(getattr(general, key), rel=1e-12), key
    g = _ridge_operator(x, ridge).T @ _ridge_operator(x, ridge)  # G = MᵀM from the definition
    assert np.abs(g - closed.gram_scale * np.eye(m)).max() < 1e-13
    with pytest.raises(InputError, match="closed forms"):
        design_spectrum(design)


def test_the_width_must_reach_m():
    with pytest.raises(InputError, match=r"D >= m = 7") as info:
        PublicDesign("orthogonal", 6, 7, seed=0)
    assert info.value.param == "width"
    with pytest.raises(InputError) as info:
        design_release(np.zeros(7), "orthogonal", 6, 0, epsilon=1.0, delta=1e-5)
    assert info.value.param == "width"
    with pytest.raises(InputError) as info:
        plan_design(n_records=7, design="orthogonal", widths=[6], design_seed=0,
                    label_bound=1.0, epsilon=1.0, delta=1e-5)  # fmt: skip
    assert info.value.param == "width"
    with pytest.raises(InputError, match="takes no inputs"):
        PublicDesign("orthogonal", 8, 7, seed=0, inputs=np.zeros((7, 2)))
    assert orthonormal_rows(np.ones((1, 1))).shape == (1, 1)  # D = m is allowed


def test_bartlett_rows_is_a_central_wishart():
    rng = np.random.default_rng(1)
    for dof, k in ((7, 3), (2, 3), (0, 2)):
        grams = np.array([(t.T @ t) for t in (bartlett_rows(dof, k, rng) for _ in range(4000))])
        assert grams.shape == (4000, k, k)
        # E W = dof·I, Var Wᵢᵢ = 2·dof, Var Wᵢⱼ = dof (i ≠ j)
        assert np.abs(grams.mean(axis=0) - dof * np.eye(k)).max() < 0.2 + 0.1 * dof
        if dof:
            assert grams[:, 0, 0].var() == pytest.approx(2 * dof, rel=0.1)
            assert grams[:, 0, 1].var() == pytest.approx(dof, rel=0.1)


# ---------------------------------------------------------------------------------------
# the law of VᵀV and of the records: the closed-form sampler against the explicit mechanism
# ---------------------------------------------------------------------------------------

M_RECORDS, WIDTH, RIDGE, SIGMA, DRAWS = 5, 12, 0.1, 0.5, 6000


def _targets(k: int) -> np.ndarray:
    return np.clip(np.random.default_rng(4).normal(0.4, 0.6, (M_RECORDS, k)), -1.0, 1.0)


def _explicit(y: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """VᵀV and one record's norm of the paper's mechanism on the explicit orthogonal design:
    V = MY + σN, a record z V with z ~ N(0, I_D/D)."""
    x = PublicDesign("orthogonal", WIDTH, M_RECORDS, seed=11).dense()
    v = _ridge_operator(x, RIDGE) @ y
    big_v = v + SIGMA * rng.standard_normal((DRAWS, *v.shape))
    grams = np.einsum("nij,nil->njl", big_v, big_v)
    z = rng.standard_normal((DRAWS, WIDTH)) / math.sqrt(WIDTH)
    return grams, np.linalg.norm(np.einsum("ni,nij->nj", z, big_v), axis=1)


def _sampled(y, rng, width=WIDTH, scale=1.0) -> tuple[np.ndarray, np.ndarray]:
    """VᵀV and one record's norm by :func:`orthogonal_gram_rows` (records σ_z·gR, §17)."""
    grams, norms = [], []
    for _ in range(DRAWS):
        rows = orthogonal_gram_rows(scale * y, width, RIDGE, SIGMA, rng)
        grams.append(rows.T @ rows)
        factor = _gram_factor(rows) / math.sqrt(WIDTH)
        norms.append(np.linalg.norm(rng.standard_normal(y.shape[1]) @ factor))
    return np.array(grams), np.array(norms)


def _p_values(a, b) -> list[float]:
    (ga, na), (gb, nb) = a, b
    k = ga.shape[1]
    samples = [(np.trace(ga, axis1=1, axis2=2), np.trace(gb, axis1=1, axis2=2)), (na, nb)]
    samples += [(ga[:, i, j], gb[:, i, j]) for i in range(k) for j in range(i, k)]
    return [stats.ks_2samp(s, t).pvalue for s, t in samples]


@pytest.mark.parametrize("k", [1, 2])
def test_the_sampler_has_the_law_of_the_explicit_mechanism(k):
    y = _targets(k)
    explicit = _explicit(y, np.random.default_rng(100 + k))
    sampled = _sampled(y, np.random.default_rng(200 + k))
    assert min(_p_values(explicit, sampled)) > 1e-3
    # the same tests reject wrong samplers: D − p dof replaced by D, g by √g
    wrong_dof = _sampled(y, np.random.default_rng(300 + k), width=WIDTH + y.shape[1])
    wrong_g = _sampled(y, np.random.default_rng(400 + k), scale=math.sqrt(1 + M_RECORDS * RIDGE))
    assert min(_p_values(explicit, wrong_dof)) < 1e-6
    assert min(_p_values(explicit, wrong_g)) < 1e-6


def test_the_sampler_is_flat_in_the_width():
    y = _targets(3)
    rng = np.random.default_rng(5)
    tracemalloc.start()
    start = time.process_time()  # CPU time: the work, not the machine's load
    rows = orthogonal_gram_rows(y, 10**12, RIDGE, SIGMA, rng)
    seconds = time.process_time() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert rows.shape == (6, 3) and seconds < 0.5 and peak < 100_000
    gram = rows.T @ rows / (SIGMA**2 * 10**12)  # ≈ I: the signal is 1e-12 of the noise
    assert np.abs(gram - np.eye(3)).max() < 1e-4


# ---------------------------------------------------------------------------------------
# the release and its accounting
# ---------------------------------------------------------------------------------------


def test_the_release_draws_from_the_sampler_with_the_noise_stream():
    y = _targets(2)[:, 0]
    out = design_release(y, "orthogonal", 40, seed=9, epsilon=1.0, delta=1e-5, ridge=RIDGE,
                         random_state=11, time_budget=None)  # fmt: skip
    noise_seq = np.random.SeedSequence(11).spawn(3)[0]
    noise = np.random.Generator(np.random.PCG64(noise_seq))
    rows = orthogonal_gram_rows(y, 40, RIDGE, out.sigma, noise)
    assert out._factor == pytest.approx(out.seed_scale * _gram_factor(rows), rel=1e-12)
    assert out.to_dict()["row_permutation"] == "order-free"
    assert "only through YᵀY" in out.seed_policy
    # the design's seed does not enter the law: another seed, the same draws
    other = design_release(y, "orthogonal", 40, seed=10, epsilon=1.0, delta=1e-5, ridge=RIDGE,
                           random_state=11, time_budget=None)  # fmt: skip
    assert np.array_equal(other._factor, out._factor)


def test_the_gram_adjacency_is_exact_on_an_orthogonal_design():
    """k = 1: the Gram adjacency's worst case is the corner (B²g, 0), realised by
    yᵢ = B → 0 with every other row 0, so the accounted curve equals a realised pair's."""
    m, ridge, b = 20, 0.05, 1.0
    bounds = orthogonal_bounds(m, ridge, b)
    x = PublicDesign("orthogonal", 30, m, seed=2).dense()
    y = np.zeros(m)
    y[3] = b
    realised = float(np.sum((_ridge_operator(x, ridge) @ y) ** 2))  # ‖v‖², ‖w‖² = 0
    assert realised == pytest.approx(bounds.gram_sensitivity, rel=1e-12)
    corner = gram_norm_bound(bounds.norm_bound, bounds.sensitivity, bounds.gram_sensitivity)
    assert corner == pytest.approx(math.sqrt(realised), rel=1e-12)
    out = design_release(y + 0.5, "orthogonal", 30, seed=2, epsilon=1.0, delta=1e-5,
                         ridge=ridge, label_bound=b, time_budget=None)  # fmt: skip
    found = out.comparison
    assert found.complete and np.all(found.lower <= found.certified * (1 + 1e-9))
    assert np.all(found.lower >= found.certified * (1 - 1e-6))


def test_two_targets_keep_the_norm_model_with_the_closed_forms():
    y = _targets(2)
    out = design_release(y, "orthogonal", 50, seed=1, epsilon=1.0, delta=1e-5, ridge=RIDGE,
                         adjacency="norm", time_budget=None)  # fmt: skip
    bounds = orthogonal_bounds(M_RECORDS, RIDGE, 1.0)
    accounted = account_design(bounds, 50, 2, 1.0, 1e-5, adjacency="norm")
    assert out.sigma == accounted.sigma and out.sensitivity == bounds.sensitivity
    assert out.norm_bound == bounds.norm_bound and out.sample(4).shape == (4, 2)
    # the Gram adjacency with k = 2 is the certified reduction (docs/theory.md §20) now
    gram = design_release(y, "orthogonal", 50, seed=1, epsilon=1.0, delta=1e-5, ridge=RIDGE)
    assert gram.guarantee.kind == "certified" and gram.sigma < out.sigma


@pytest.mark.parametrize("adjacency", ["gram", "norm"])
def test_the_plan_gives_the_release_numbers(adjacency):
    y = np.clip(np.random.default_rng(8).normal(0.2, 0.5, 30), -1.0, 1.0)
    plan = plan_design(n_records=30, design="orthogonal", widths=[500, 5000], design_seed=4,
                       label_bound=1.0, epsilon=1.0, delta=1e-5, ridges=[0.01, 0.1],
                       adjacency=adjacency)  # fmt: skip
    row = next(r for r in plan.rows if r.width == 5000 and r.ridge == 0.1)
    out = design_release(y, "orthogonal", 5000, seed=4, epsilon=1.0, delta=1e-5, ridge=0.1,
                         adjacency=adjacency, time_budget=None)  # fmt: skip
    assert (row.sigma, row.sensitivity, row.norm_bound) == (
        out.sigma,
        out.sensitivity,
        out.norm_bound,
    )
    assert (row.gram_sensitivity, row.sigma_norm, row.sigma_gram) == (
        out.gram_sensitivity,
        out.sigma_norm,
        out.sigma_gram,
    )


def test_the_cli_refuses_a_width_below_m_in_one_line(tmp_path, monkeypatch, capsys):
    from synthamp.cli import main

    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(2)
    pd = pytest.importorskip("pandas")
    pd.DataFrame({"y": np.tanh(rng.normal(size=30))}).to_csv("t.csv", index=False)
    common = ["--data", "t.csv", "--targets", "y", "--label-bound", "1", "--epsilon", "1",
              "--delta", "1e-5", "--design", "orthogonal", "--design-seed", "3"]  # fmt: skip
    for args in (
        ["release", *common, "--ridge", "0.01", "--width", "29", "--n-syn", "10", "--out", "s.csv"],
        ["plan", *common, "--width", "29"],
    ):
        capsys.readouterr()
        assert main([*args, "--no-progress"]) == 2
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("synthamp: error: --width: "), lines
        assert "D >= m = 30" in lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"]  # nothing written
    capsys.readouterr()
    args = ["release", *common, "--ridge", "0.01", "--width", "30", "--n-syn", "10", "--out",
            "s.csv", "--no-progress"]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "the accounting is exact" in out
    assert "the accounting is exact" in (tmp_path / "s.csv.privacy.md").read_text()
    report = json.loads((tmp_path / "s.csv.privacy.json").read_text())
    assert report["design"] == "orthogonal" and report["row_permutation"] == "order-free"
