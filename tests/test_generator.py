"""Tests of the generator: the estimator, sampling, privacy hygiene, utility, accounting.

References, none of them the module's own output: the noise V − v = σN, the
law of the synthetic records and the debiasing of the Gram matrix from
synthetic records against Monte Carlo estimates with error bars derived from
Gaussian / Wishart moments. The ridge mathematics under the estimator is tested
in tests/test_ridge.py.

Generator tests that do not exercise the accountant inject a fixed accounting
result (``fake_accounting``) so that they stay fast; a few tests run the real
accountant.
"""

from __future__ import annotations

import itertools
import math
import pickle
import tracemalloc
import warnings

import numpy as np
import pytest

from synthamp import InputError
from synthamp.accountant import Guarantee
from synthamp.release import (
    PrivateLinearGenerator,
    project_frobenius,
    ridge_fit,
    ridge_norm_bound,
    ridge_sensitivity,
)
from synthamp.release import _generator as generator
from synthamp.report import PrivacyReport
from synthamp.utility import gram_error_bound
from test_ridge import _dataset

# --------------------------------------------------------------------------- helpers


@pytest.fixture
def fake_accounting(monkeypatch):
    """Replace the accountant by a fixed, recorded result (σ = 0.5 when calibrating)."""
    calls = []

    def fake(**kwargs):
        calls.append(kwargs)
        sigma = kwargs["sigma"] if kwargs["sigma"] is not None else 0.5
        return Guarantee(  # the guarantee room's decision, fixed
            sigma=sigma,
            epsilon=kwargs["epsilon"] if kwargs["epsilon"] is not None else 2.0,
            optimal_order=8.0,
            method=kwargs["method"],
            kind="exact",
            sigma_post_processing=2 * sigma,
            epsilon_post_processing=3.0,
            delta=kwargs["delta"],
            accountant="rdp",
            reason="a fixed test result",
        )

    monkeypatch.setattr(generator, "_account", fake)
    return calls


def _fit(x, y, **params):
    params.setdefault("label_bound", 1.0)
    params.setdefault("ridge", 0.1)
    if "epsilon" not in params:
        params.setdefault("sigma", 0.5)
    return PrivateLinearGenerator(**params).fit(x, y)


# --------------------------------------------------------------------------- the estimator


def test_fitted_attributes_and_declared_bounds(fake_accounting):
    rng = np.random.default_rng(1)
    x, y = _dataset(rng, 60, 5, 2)
    g = _fit(x, y, label_bound=2.0, ridge=0.04)
    assert g.n_features_in_ == 5 and g.n_targets_ == 2 and g.n_records_ == 60
    assert g.norm_bound_ == pytest.approx(2.0 / (2 * 0.2))
    assert g.sensitivity_ == pytest.approx(2.0 * (1 + 2 * 0.2) / (60 * 0.04**1.5))
    assert g.sigma_ == 0.5 and g.seed_scale_ == pytest.approx(1 / math.sqrt(5))
    # A smaller declared C is used; a larger one is reduced to B/(2√λ).
    assert _fit(x, y, label_bound=2.0, ridge=0.04, norm_bound=1.5).norm_bound_ == 1.5
    assert _fit(x, y, label_bound=2.0, ridge=0.04, norm_bound=99).norm_bound_ == pytest.approx(5)
    call = fake_accounting[-1]
    assert call["dim"] == 5 and call["out_dim"] == 2 and call["method"] == "exact"
    assert call["norm_bound"] == pytest.approx(5) and call["n_syn"] is None


def test_noise_is_standard_gaussian_at_scale_sigma(fake_accounting):
    """V − v = σN with N iid N(0, 1): check mean, variance and a KS test over 600 entries."""
    from scipy import stats

    rng = np.random.default_rng(5)
    x, y = _dataset(rng, 400, 200, 3)
    sigma = 0.37
    g = _fit(x, y, sigma=sigma, release_model=True, random_state=123)
    v = project_frobenius(ridge_fit(x, y, 0.1), g.norm_bound_)
    noise = ((g.model_ - v) / sigma).ravel()
    assert abs(noise.mean()) < 4 / math.sqrt(noise.size)
    assert abs(noise.var() - 1) < 4 * math.sqrt(2 / noise.size)
    assert stats.kstest(noise, "norm").pvalue > 1e-3


def test_norm_bound_projection_in_the_estimator(fake_accounting):
    rng = np.random.default_rng(8)
    x, y = _dataset(rng, 200, 6, 2, on_sphere=True)
    tiny = 1e-9
    g = _fit(x, y, ridge=0.01, norm_bound=0.2, sigma=tiny, release_model=True)
    assert np.linalg.norm(ridge_fit(x, y, 0.01)) > 0.2  # the projection is active
    assert np.linalg.norm(g.model_) == pytest.approx(0.2, abs=1e-7)


@pytest.mark.parametrize(
    ("params", "data", "param"),
    [
        ({"label_bound": 0}, None, "label_bound"),
        ({"label_bound": -1}, None, "label_bound"),
        ({"ridge": 0}, None, "ridge"),
        ({"ridge": -0.5}, None, "ridge"),
        ({"ridge": math.inf}, None, "ridge"),
        ({"norm_bound": 0}, None, "norm_bound"),
        ({"sigma": 0}, None, "sigma"),
        ({"sigma": 1, "epsilon": 1, "delta": 1e-5}, None, "epsilon"),
        ({"sigma": None}, None, "epsilon"),
        ({"sigma": None, "epsilon": 1.0}, None, "delta"),
        ({"delta": 1.0}, None, "delta"),
        ({"n_syn": 0}, None, "n_syn"),
        ({"accounting": "approximate"}, None, "accounting"),
        ({"sampler": "fast"}, None, "sampler"),
        ({"feature_scale": "auto"}, None, "feature_scale"),
        ({"feature_scale": -1.0}, None, "feature_scale"),
        ({"feature_scale": [1.0, 2.0]}, None, "feature_scale"),
        ({"random_state": -3}, None, "random_state"),
        ({"random_state": 1.5}, None, "random_state"),
        ({}, "k>d", "Y"),
        ({}, "m<2", "X"),
        ({}, "nan", "X"),
        ({}, "inf", "Y"),
        ({}, "rows", "Y"),
        ({}, "3d", "X"),
    ],
)
def test_bad_input_raises_input_error(fake_accounting, params, data, param):
    rng = np.random.default_rng(0)
    x, y = _dataset(rng, 10, 3, 2)
    if data == "k>d":
        y = rng.normal(size=(10, 4))
    elif data == "m<2":
        x, y = x[:1], y[:1]
    elif data == "nan":
        x[3, 1] = np.nan
    elif data == "inf":
        y[2, 0] = -np.inf
    elif data == "rows":
        y = y[:-1]
    elif data == "3d":
        x = x[:, :, None]
    kwargs = {"label_bound": 1.0, "ridge": 0.1, "sigma": 0.5} | params
    if kwargs.get("sigma") is None:
        kwargs.pop("sigma")
    with pytest.raises(InputError) as info:
        PrivateLinearGenerator(**kwargs).fit(x, y)
    assert info.value.param == param
    assert not fake_accounting  # rejected before any accounting


def test_sklearn_conventions(fake_accounting):
    from sklearn.base import clone

    g = PrivateLinearGenerator(label_bound=2.0, ridge=0.3, sigma=0.1, random_state=4)
    assert g.get_params()["ridge"] == 0.3
    g.set_params(ridge=0.5)
    assert g.ridge == 0.5
    rng = np.random.default_rng(2)
    x, y = _dataset(rng, 30, 4, 1)
    assert g.fit(x, y[:, 0]) is g  # a 1-d target is one column
    assert g.n_targets_ == 1
    copy = clone(g)
    assert copy.get_params() == g.get_params() and not hasattr(copy, "privacy_")


# --------------------------------------------------------------------------- sampling


def _wishart_check(samples, gram):
    """Entries of samplesᵀsamples/n within 5 standard deviations of gram (Wishart)."""
    n = samples.shape[0]
    observed = samples.T @ samples / n
    std = np.sqrt((gram**2 + np.outer(np.diag(gram), np.diag(gram))) / n)
    assert (np.abs(observed - gram) <= 5 * std).all(), (observed, gram)


@pytest.mark.parametrize("sampler", ["gram", "seeds"])
def test_chunked_samples_have_the_law_of_zv(fake_accounting, sampler):
    """Rows iid N(0, σ_z²VᵀV): second moments match, means vanish, chunks are as asked."""
    rng = np.random.default_rng(21)
    x, y = _dataset(rng, 300, 12, 3)
    g = _fit(x, y, sigma=0.2, release_model=True, sampler=sampler, seed_scale=0.7)
    model = g.model_
    chunks = list(g.iter_samples(100_003, chunk_size=7_777))
    assert [c.shape[0] for c in chunks[:-1]] == [7_777] * (len(chunks) - 1)
    samples = np.concatenate(chunks)
    assert samples.shape == (100_003, 3)
    gram = 0.7**2 * model.T @ model
    _wishart_check(samples, gram)
    se = np.sqrt(np.diag(gram) / samples.shape[0])
    assert (np.abs(samples.mean(axis=0)) <= 5 * se).all()
    # Records are independent: lag-1 products average to zero.
    lag = (samples[1:, 0] * samples[:-1, 0]).mean()
    assert abs(lag) <= 5 * gram[0, 0] / math.sqrt(samples.shape[0])


def test_gram_and_seed_samplers_agree_in_law(fake_accounting):
    """Both samplers, same V (same seed): their empirical covariances match each other."""
    rng = np.random.default_rng(4)
    x, y = _dataset(rng, 100, 8, 2)
    a = _fit(x, y, sigma=0.3, random_state=9, sampler="gram", release_model=True)
    b = _fit(x, y, sigma=0.3, random_state=9, sampler="seeds", release_model=True)
    np.testing.assert_array_equal(a.model_, b.model_)
    gram = a.seed_scale_**2 * a.model_.T @ a.model_
    _wishart_check(a.sample(80_000), gram)
    _wishart_check(b.sample(80_000), gram)


def test_budget_of_synthetic_records(fake_accounting):
    rng = np.random.default_rng(6)
    x, y = _dataset(rng, 30, 4, 2)
    g = _fit(x, y, n_syn=100)
    assert g.sample(60).shape == (60, 2) and g.n_remaining_ == 40
    with pytest.raises(InputError, match="n_syn = 100"):
        g.sample(41)
    rest = list(g.iter_samples(chunk_size=16))
    assert sum(c.shape[0] for c in rest) == 40 and g.n_remaining_ == 0
    with pytest.raises(InputError):
        g.iter_samples()
    with pytest.raises(InputError):
        g.sample(1)
    unlimited = _fit(x, y)
    assert unlimited.n_remaining_ is None
    stream = unlimited.iter_samples(chunk_size=1000)
    assert [c.shape for c in itertools.islice(stream, 3)] == [(1000, 2)] * 3


def test_reproducible_with_a_seed_and_not_without(fake_accounting):
    rng = np.random.default_rng(12)
    x, y = _dataset(rng, 50, 6, 2)
    first = _fit(x, y, random_state=2024).sample(20)
    second = _fit(x, y, random_state=2024).sample(20)
    np.testing.assert_array_equal(first, second)
    assert not np.array_equal(first, _fit(x, y, random_state=2025).sample(20))
    assert not np.array_equal(_fit(x, y).sample(20), _fit(x, y).sample(20))
    # Fresh seeds on every call.
    g = _fit(x, y, random_state=2024)
    assert not np.array_equal(g.sample(20), g.sample(20))


def test_memory_of_iteration_does_not_grow_with_the_total(fake_accounting):
    rng = np.random.default_rng(13)
    x, y = _dataset(rng, 50, 8, 4)
    g = _fit(x, y)
    peaks = []
    for total in (50_000, 2_000_000):
        tracemalloc.start()
        for chunk in g.iter_samples(total, chunk_size=10_000):
            del chunk
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    assert peaks[1] < 1.5 * peaks[0] + 100_000
    assert peaks[1] < 4 * 10_000 * 4 * 8  # a few chunks, not the total


# --------------------------------------------------------------------------- privacy hygiene


def _private_arrays(obj):
    return [value for value in vars(obj).values() if isinstance(value, np.ndarray)]


def test_v_n_and_z_are_not_kept_or_shown(fake_accounting):
    rng = np.random.default_rng(14)
    x, y = _dataset(rng, 80, 10, 2)
    g = _fit(x, y, random_state=31)
    v = ridge_fit(x, y, 0.1)
    model = _fit(x, y, random_state=31, release_model=True).model_  # same seed: same V
    # Only the k × k Gram factor is held: no d × k array, nothing equal to v or V.
    assert all(a.size <= 4 for a in _private_arrays(g))
    with pytest.raises(AttributeError, match="release_model=True"):
        _ = g.model_
    texts = [repr(g), str(g.get_params()), g.privacy_.to_json(), g.privacy_.to_markdown()]
    for value in itertools.chain(v.ravel()[:6], model.ravel()[:6]):
        for fmt in ("{:.6g}", "{:.4f}", "{!r}"):
            token = fmt.format(float(value))
            assert all(token not in text for text in texts), token
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        blob = pickle.dumps(g)  # unlimited n_syn, Gram sampler: kept, and covered
    for column in model.T:
        assert column.tobytes()[:16] not in blob
    assert v.tobytes()[:16] not in blob
    assert pickle.loads(blob).sample(3).shape == (3, 2)


@pytest.mark.parametrize("params", [{"n_syn": 500}, {"sampler": "seeds"}])
def test_pickling_drops_state_not_covered_by_the_guarantee(fake_accounting, params):
    rng = np.random.default_rng(15)
    x, y = _dataset(rng, 40, 5, 2)
    g = _fit(x, y, **params)
    with pytest.warns(UserWarning, match="not pickled"):
        blob = pickle.dumps(g)
    copy = pickle.loads(blob)
    assert copy.privacy_ == g.privacy_
    with pytest.raises(RuntimeError, match="cannot sample"):
        copy.sample(2)
    assert g.sample(2).shape == (2, 2)  # the live object is untouched


def test_report_of_the_estimator(fake_accounting):
    rng = np.random.default_rng(16)
    x, y = _dataset(rng, 120, 7, 2)
    g = _fit(x, y, epsilon=1.0, delta=1e-6, n_syn=5000, ridge=0.2, label_bound=3.0)
    report = g.privacy_
    assert isinstance(report, PrivacyReport)
    assert (report.epsilon, report.delta, report.sigma) == (1.0, 1e-6, 0.5)
    assert report.optimal_order == 8.0 and report.accounting_kind == "exact"
    assert (report.dim, report.out_dim, report.n_records, report.n_syn) == (7, 2, 120, 5000)
    assert (report.ridge, report.label_bound) == (0.2, 3.0)
    assert report.sensitivity == pytest.approx(ridge_sensitivity(3.0, 0.2, 120))
    assert report.norm_bound == pytest.approx(ridge_norm_bound(3.0, 0.2))
    assert report.sigma_post_processing == 1.0 and report.noise_saved == pytest.approx(0.5)
    assert report.noise_secret and report.guarantee_is_unconditional
    assert "replace-one" in report.adjacency and "λ‖W‖_F²" in report.objective
    assert any("noisy model V" in item for item in report.not_released)
    assert PrivacyReport.from_dict(report.to_dict()) == report


def test_report_flags_seed_scaling_and_model_release(fake_accounting):
    rng = np.random.default_rng(17)
    x, y = _dataset(rng, 40, 5, 1)
    seeded = _fit(x, y, random_state=987654321)
    assert not seeded.privacy_.noise_secret
    assert "not secret" in seeded.privacy_.seed_policy
    assert "987654321" not in seeded.privacy_.to_json()
    scaled = _fit(x, y, feature_scale="data")
    assert any("learned from the private data" in n for n in scaled.privacy_.notes)
    assert not scaled.privacy_.guarantee_is_unconditional
    released = _fit(x, y, release_model=True, n_syn=100)
    assert fake_accounting[-1]["method"] == "post-processing"
    assert fake_accounting[-1]["n_syn"] is None
    assert released.privacy_.model_released
    assert any("noisy model V" in item for item in released.privacy_.released)
    big_delta = _fit(x, y, delta=0.1)
    assert any("1/m" in n for n in big_delta.privacy_.notes)


# --------------------------------------------------------------------------- utility


def test_debiased_gram_from_synthetic_records_and_error_bound(fake_accounting):
    """Full pipeline: Ĝ from n records is unbiased for vᵀv and within the public RMSE bound."""
    rng = np.random.default_rng(19)
    x, y = _dataset(rng, 200, 5, 2)
    sigma, n = 0.05, 400
    v = project_frobenius(ridge_fit(x, y, 0.1), ridge_norm_bound(1.0, 0.1))
    errors = []
    for rep in range(600):
        g = _fit(x, y, sigma=sigma, random_state=rep)
        errors.append(g.gram_estimate(g.sample(n), nonnegative=False) - v.T @ v)
    errors = np.array(errors)
    se = errors.std(axis=0) / math.sqrt(len(errors))
    assert (np.abs(errors.mean(axis=0)) <= 5 * se).all()
    rmse = math.sqrt((errors**2).sum(axis=(1, 2)).mean())
    exact_norm = gram_error_bound(
        sigma=sigma, dim=5, out_dim=2, norm_bound=np.linalg.norm(v), n_syn=n
    )
    public = gram_error_bound(sigma=sigma, dim=5, out_dim=2, norm_bound=g.norm_bound_, n_syn=n)
    assert rmse <= 1.1 * exact_norm <= 1.1 * public
    assert rmse >= 0.3 * exact_norm  # the bound is not vacuous


# --------------------------------------------------------------------------- real accountant


def test_estimator_uses_the_accountant_consistently():
    from synthamp.accountant import SyntheticDataRelease, compute_epsilon

    rng = np.random.default_rng(20)
    x, y = _dataset(rng, 500, 10, 1)
    g = _fit(x, y, sigma=0.8, delta=1e-6, accounting="post-processing", n_syn=1000)
    release = SyntheticDataRelease(10, 1, g.norm_bound_, g.sensitivity_, 0.8, n_syn=1000)
    expected = compute_epsilon(release, 1e-6, method="post-processing", accountant="rdp")
    assert g.epsilon_ == pytest.approx(expected.epsilon, rel=1e-12)
    assert g.privacy_.optimal_order == expected.optimal_order
    assert g.privacy_.sigma_post_processing == 0.8
    # Gaussian closed form at the optimal order (RDP αΔ²/(2σ²) and the conversion).
    alpha, s = expected.optimal_order, g.sensitivity_ / 0.8
    closed = (
        alpha * s**2 / 2 + math.log1p(-1 / alpha) - (math.log(1e-6) + math.log(alpha)) / (alpha - 1)
    )
    assert g.epsilon_ == pytest.approx(closed, rel=1e-9)


@pytest.mark.slow
def test_calibration_with_exact_accounting_meets_the_target():
    from synthamp.accountant import SyntheticDataRelease, compute_epsilon

    rng = np.random.default_rng(21)
    x, y = _dataset(rng, 400, 40, 1)
    # the RDP accountant named: the default for k = 1 is now the PLD accountant, whose
    # σ meets the target by the exact profile and not necessarily by RDP
    g = _fit(x, y, ridge=0.05, epsilon=1.0, delta=1e-5, n_syn=None, accountant="rdp")
    assert g.epsilon_ <= 1.0
    release = SyntheticDataRelease(40, 1, g.norm_bound_, g.sensitivity_, g.sigma_)
    assert compute_epsilon(release, 1e-5, accountant="rdp").epsilon <= 1.0
    assert g.privacy_.sigma_post_processing > g.sigma_  # amplification at d = 40


def _default_accounting(n_syn, dim, choice=None):
    return generator._account(
        epsilon=1.0, delta=1e-5, sigma=None, dim=dim, out_dim=1, norm_bound=2.0,
        sensitivity=0.1, n_syn=n_syn, method="exact", choice=choice, time_budget=None,
    )  # fmt: skip


def test_finite_release_takes_the_unlimited_profile_when_it_needs_less_noise():
    """d = 10, 10⁴ records: the finite RDP accounting needs more noise than the unlimited
    release's exact profile, which is valid for every n_syn: the default uses the latter."""
    chosen = _default_accounting(10_000, 10)
    finite_rdp = _default_accounting(10_000, 10, choice="rdp")
    unlimited = _default_accounting(None, 10)
    assert unlimited.sigma < finite_rdp.sigma
    assert chosen.sigma == unlimited.sigma and chosen.accountant == "pld"
    assert chosen.epsilon <= 1.0 and chosen.kind == "exact"
    assert "unlimited-release guarantee" in chosen.note and "10,000 records" in chosen.note


@pytest.mark.slow
def test_finite_release_keeps_its_own_accounting_when_amplification_pays():
    """d = 1000, 100 records: amplification pays, the finite accounting needs less noise."""
    chosen = _default_accounting(100, 1000)
    unlimited = _default_accounting(None, 1000)
    assert chosen.sigma < unlimited.sigma and chosen.accountant == "rdp"
    assert chosen.guarantee == "finite_rdp" and "is at least as tight here" in chosen.note
