"""Tests of synthamp.generator: ridge fit, sensitivity, the estimator, sampling, utility.

References, none of them the module's own output:

* the ridge fit against scikit-learn's ``Ridge(alpha=m·λ, fit_intercept=False)``
  (this also pins the λ convention);
* the norm bound C = B/(2√λ) against a dataset that attains it exactly, and
  the sensitivity Δ against brute force: thousands of random adjacent pairs
  (replace one record), hypothesis-generated pairs, a closed-form adversarial
  pair that comes within 5% of Δ, and a numerical maximisation over the
  replaced record;
* the noise V − v = σN, the law of the synthetic records and the debiasing of
  the Gram matrix against Monte Carlo estimates with error bars derived from
  Gaussian / Wishart moments.

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
from hypothesis import given, settings
from hypothesis import strategies as st

from synthamp import InputError, generator
from synthamp.generator import (
    PrivateLinearGenerator,
    clip_rows,
    debiased_gram,
    gram_error_bound,
    gram_estimate_errors,
    project_frobenius,
    ridge_fit,
    ridge_norm_bound,
    ridge_sensitivity,
)
from synthamp.report import PrivacyReport

# --------------------------------------------------------------------------- helpers


def _dataset(rng, m, d, k, label_bound=1.0, on_sphere=False):
    """Random features in the unit ball and targets in the B-ball (optionally on the spheres)."""
    x = rng.normal(size=(m, d)) * rng.uniform(0.2, 3.0)
    y = rng.normal(size=(m, k)) * rng.uniform(0.2, 3.0) * label_bound
    if on_sphere:
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        y *= label_bound / np.linalg.norm(y, axis=1, keepdims=True)
    return clip_rows(x, 1.0), clip_rows(y, label_bound)


def _replace_one(rng, x, y, label_bound, on_sphere=False):
    """An adjacent dataset: record 0 replaced (by a random one, or by its negation)."""
    x2, y2 = x.copy(), y.copy()
    if rng.random() < 0.3:
        x2[0], y2[0] = x[0], -y[0]
    else:
        nx, ny = _dataset(rng, 1, x.shape[1], y.shape[1], label_bound, on_sphere)
        x2[0], y2[0] = nx[0], ny[0]
    return x2, y2


@pytest.fixture
def fake_accounting(monkeypatch):
    """Replace the accountant by a fixed, recorded result (σ = 0.5 when calibrating)."""
    calls = []

    def fake(**kwargs):
        calls.append(kwargs)
        sigma = kwargs["sigma"] if kwargs["sigma"] is not None else 0.5
        return generator._Accounting(
            sigma=sigma,
            epsilon=kwargs["epsilon"] if kwargs["epsilon"] is not None else 2.0,
            optimal_order=8.0,
            method=kwargs["method"],
            kind="exact",
            sigma_post_processing=2 * sigma,
            epsilon_post_processing=3.0,
        )

    monkeypatch.setattr(generator, "_account", fake)
    return calls


def _fit(x, y, **params):
    params.setdefault("label_bound", 1.0)
    params.setdefault("ridge", 0.1)
    if "epsilon" not in params:
        params.setdefault("sigma", 0.5)
    return PrivateLinearGenerator(**params).fit(x, y)


# --------------------------------------------------------------------------- ridge fit


@pytest.mark.parametrize(("m", "d", "k"), [(50, 5, 2), (8, 30, 3), (40, 40, 1)])
def test_ridge_fit_matches_sklearn(m, d, k):
    from sklearn.linear_model import Ridge

    rng = np.random.default_rng(m + d + k)
    x, y = _dataset(rng, m, d, k)
    ridge = 0.03
    reference = Ridge(alpha=m * ridge, fit_intercept=False, solver="svd").fit(x, y).coef_
    np.testing.assert_allclose(ridge_fit(x, y, ridge), reference.reshape(k, d).T, rtol=1e-9)


def test_ridge_fit_minimises_the_stated_objective():
    """The gradient of (1/m)Σ‖Wᵀx − y‖² + λ‖W‖² vanishes at the fit (the λ convention)."""
    rng = np.random.default_rng(3)
    x, y = _dataset(rng, 30, 6, 2)
    ridge = 0.2
    w = ridge_fit(x, y, ridge)
    gradient = 2 / 30 * x.T @ (x @ w - y) + 2 * ridge * w
    assert np.abs(gradient).max() < 1e-12


# --------------------------------------------------------------------------- bounds


@pytest.mark.parametrize("ridge", [0.01, 0.25, 0.9])
def test_norm_bound_is_attained(ridge):
    """All x = √λ·e₁, y = B: v = √λB/(λ + λ) e₁ has norm exactly B/(2√λ)."""
    m, d, label_bound = 7, 4, 2.5
    x = np.zeros((m, d))
    x[:, 0] = math.sqrt(ridge)
    y = np.full((m, 1), label_bound)
    v = ridge_fit(x, y, ridge)
    assert np.linalg.norm(v) == pytest.approx(label_bound / (2 * math.sqrt(ridge)), rel=1e-12)
    assert ridge_norm_bound(label_bound, ridge) == pytest.approx(np.linalg.norm(v), rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    m=st.integers(2, 40),
    d=st.integers(1, 8),
    k=st.integers(1, 3),
    ridge=st.floats(1e-3, 50.0),
    label_bound=st.floats(0.05, 20.0),
    on_sphere=st.booleans(),
)
def test_norm_and_sensitivity_bounds_hold_for_random_adjacent_pairs(
    seed, m, d, k, ridge, label_bound, on_sphere
):
    rng = np.random.default_rng(seed)
    x, y = _dataset(rng, m, d, k, label_bound, on_sphere)
    x2, y2 = _replace_one(rng, x, y, label_bound, on_sphere)
    v, w = ridge_fit(x, y, ridge), ridge_fit(x2, y2, ridge)
    bound = ridge_norm_bound(label_bound, ridge)
    assert np.linalg.norm(v) <= bound * (1 + 1e-10)
    assert np.linalg.norm(w) <= bound * (1 + 1e-10)
    assert np.linalg.norm(v - w) <= ridge_sensitivity(label_bound, ridge, m) * (1 + 1e-10)


def test_sensitivity_over_many_random_adjacent_pairs():
    """3000 random adjacent pairs over a grid of (m, d, k, λ, B): ‖v − w‖_F <= Δ."""
    rng = np.random.default_rng(2026)
    worst = 0.0
    for m, d, k, ridge in itertools.product([2, 5, 30], [1, 4, 12], [1, 3], [0.01, 1.0, 30.0]):
        if k > d:
            continue
        for _ in range(100):
            label_bound = rng.uniform(0.1, 5)
            on_sphere = rng.random() < 0.5
            x, y = _dataset(rng, m, d, k, label_bound, on_sphere)
            x2, y2 = _replace_one(rng, x, y, label_bound, on_sphere)
            ratio = np.linalg.norm(ridge_fit(x, y, ridge) - ridge_fit(x2, y2, ridge))
            ratio /= ridge_sensitivity(label_bound, ridge, m)
            worst = max(worst, ratio)
    assert worst <= 1 + 1e-10
    assert worst > 0.3  # the random pairs do probe the bound


@pytest.mark.parametrize("ridge", [10.0, 100.0, 1000.0])
def test_sensitivity_is_nearly_attained(ridge):
    """Adversarial pair with a closed form: all x = e₁, y = B; record 0 gets y = −B.

    v = B/(1 + λ), w = (m − 2)B/(m(1 + λ)), so ‖v − w‖ = 2B/(m(1 + λ)); the
    ratio to Δ is 2λ^{3/2}/((1 + λ)(1 + 2√λ)) → 1 as λ → ∞. So Δ cannot be
    lowered by more than a few percent: a formula off by a constant factor
    (e.g. the λ/2 convention read the other way) fails here.
    """
    m, d, label_bound = 9, 3, 1.7
    x = np.zeros((m, d))
    x[:, 0] = 1.0
    y = np.full((m, 1), label_bound)
    y2 = y.copy()
    y2[0] = -label_bound
    diff = np.linalg.norm(ridge_fit(x, y, ridge) - ridge_fit(x, y2, ridge))
    assert diff == pytest.approx(2 * label_bound / (m * (1 + ridge)), rel=1e-10)
    ratio = diff / ridge_sensitivity(label_bound, ridge, m)
    expected = 2 * ridge**1.5 / ((1 + ridge) * (1 + 2 * math.sqrt(ridge)))
    assert ratio == pytest.approx(expected, rel=1e-10)
    assert ratio <= 1
    if ridge >= 100:
        assert ratio > 0.94


@pytest.mark.slow
def test_sensitivity_against_numerical_maximisation():
    """Maximise ‖v − w‖/Δ over all records (Nelder–Mead, many starts): never above 1."""
    from scipy.optimize import minimize

    rng = np.random.default_rng(7)

    def ratio(params, m, d, k, ridge):
        p = params.reshape(m + 1, d + k)
        x, y = clip_rows(p[:m, :d], 1.0), clip_rows(p[:m, d:], 1.0)
        x2, y2 = x.copy(), y.copy()
        x2[0], y2[0] = clip_rows(p[m:, :d], 1.0)[0], clip_rows(p[m:, d:], 1.0)[0]
        diff = np.linalg.norm(ridge_fit(x, y, ridge) - ridge_fit(x2, y2, ridge))
        return diff / ridge_sensitivity(1.0, ridge, m)

    for m, d, k, ridge in [(2, 1, 1, 10.0), (4, 2, 2, 3.0)]:
        best = 0.0
        for _ in range(3):
            start = rng.normal(size=(m + 1) * (d + k))
            res = minimize(
                lambda p, m=m, d=d, k=k, ridge=ridge: -ratio(p, m, d, k, ridge),
                start,
                method="Nelder-Mead",
                options={"maxiter": 2000, "xatol": 1e-9, "fatol": 1e-12},
            )
            best = max(best, -res.fun)
        assert best <= 1 + 1e-9
        assert best > 0.6


def test_projection_is_nonexpansive_and_bounded():
    rng = np.random.default_rng(11)
    for _ in range(500):
        a, b = rng.normal(size=(2, 5, 2)) * rng.uniform(0.1, 5)
        radius = rng.uniform(0.05, 3)
        pa, pb = project_frobenius(a, radius), project_frobenius(b, radius)
        assert np.linalg.norm(pa) <= radius
        assert np.linalg.norm(pa - pb) <= np.linalg.norm(a - b) * (1 + 1e-12)
        if np.linalg.norm(a) <= radius:
            assert pa is a


def test_clip_rows():
    rows = np.array([[3.0, 4.0], [0.3, 0.4], [0.0, 0.0]])
    np.testing.assert_allclose(clip_rows(rows, 1.0), [[0.6, 0.8], [0.3, 0.4], [0.0, 0.0]])
    assert (
        np.linalg.norm(clip_rows(np.random.default_rng(0).normal(size=(1000, 7)), 0.3), axis=1)
        <= 0.3
    ).all()


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


def test_debiased_gram_is_unbiased_and_noise_error_is_exact():
    """Monte Carlo over N: E[VᵀV − dσ²I] = vᵀv, E‖·−vᵀv‖² = 2(k+1)σ²‖v‖² + dk(k+1)σ⁴."""
    rng = np.random.default_rng(18)
    d, k, sigma, reps = 6, 2, 0.7, 40_000
    v = rng.normal(size=(d, k))
    noisy = v + sigma * rng.normal(size=(reps, d, k))
    grams = np.einsum("rdi,rdj->rij", noisy, noisy) - d * sigma**2 * np.eye(k)
    errors = grams - v.T @ v
    se = errors.std(axis=0) / math.sqrt(reps)
    assert (np.abs(errors.mean(axis=0)) <= 5 * se).all()
    mse = (errors**2).sum(axis=(1, 2))
    predicted = (
        gram_error_bound(sigma=sigma, dim=d, out_dim=k, norm_bound=np.linalg.norm(v), n_syn=None)
        ** 2
    )
    assert mse.mean() == pytest.approx(predicted, abs=5 * mse.std() / math.sqrt(reps))


def test_debiased_gram_from_synthetic_records_and_error_bound(fake_accounting):
    """Full pipeline: Ĝ from n records is unbiased for vᵀv and within the public RMSE bound."""
    rng = np.random.default_rng(19)
    x, y = _dataset(rng, 200, 5, 2)
    sigma, n = 0.05, 400
    v = project_frobenius(ridge_fit(x, y, 0.1), ridge_norm_bound(1.0, 0.1))
    errors = []
    for rep in range(600):
        g = _fit(x, y, sigma=sigma, random_state=rep)
        errors.append(g.gram_estimate(g.sample(n)) - v.T @ v)
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


def test_simulated_gram_errors_match_the_error_formula():
    """gram_estimate_errors: RMS error ≈ the exact noise term + a small sampling term."""
    rng = np.random.default_rng(22)
    d, k, sigma, n = 20, 2, 0.3, 50_000
    v = rng.normal(size=(d, k)) * 0.4
    errors = gram_estimate_errors(v, sigma=sigma, n_syn=n, repeats=400, random_state=1)
    rmse = math.sqrt(np.mean(errors**2)) * np.linalg.norm(v.T @ v)
    noise_only = gram_error_bound(
        sigma=sigma, dim=d, out_dim=k, norm_bound=np.linalg.norm(v), n_syn=None
    )
    bound = gram_error_bound(sigma=sigma, dim=d, out_dim=k, norm_bound=np.linalg.norm(v), n_syn=n)
    assert noise_only < bound < 1.05 * noise_only  # the sampling term is small here
    assert rmse == pytest.approx(noise_only, rel=0.12)  # 400 draws: ~7% relative s.e. of MSE
    np.testing.assert_array_equal(
        errors, gram_estimate_errors(v, sigma=sigma, n_syn=n, repeats=400, random_state=1)
    )


def test_debiased_gram_input_checks():
    with pytest.raises(InputError):
        debiased_gram(np.ones(3), sigma=1, dim=2, seed_scale=1)
    with pytest.raises(InputError):
        debiased_gram(np.ones((3, 1)), sigma=0, dim=2, seed_scale=1)


# --------------------------------------------------------------------------- real accountant


def test_estimator_uses_the_accountant_consistently():
    from synthamp.accountant import SyntheticDataRelease, compute_epsilon

    rng = np.random.default_rng(20)
    x, y = _dataset(rng, 500, 10, 1)
    g = _fit(x, y, sigma=0.8, delta=1e-6, accounting="post-processing", n_syn=1000)
    release = SyntheticDataRelease(10, 1, g.norm_bound_, g.sensitivity_, 0.8, n_syn=1000)
    expected = compute_epsilon(release, 1e-6, method="post-processing")
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
    g = _fit(x, y, ridge=0.05, epsilon=1.0, delta=1e-5, n_syn=None)
    assert g.epsilon_ <= 1.0
    release = SyntheticDataRelease(40, 1, g.norm_bound_, g.sensitivity_, g.sigma_)
    assert compute_epsilon(release, 1e-5).epsilon <= 1.0
    assert g.privacy_.sigma_post_processing > g.sigma_  # amplification at d = 40
