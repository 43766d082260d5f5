"""The whole table as the release: the target map, its inverse, the means from the constant
column, the PSD projection and the records in the table's units (synthamp.release._table_records).

The checks are exact identities against independent computations (numpy's mean and
covariance of the rows, eigenvalues), not values copied from the code's output.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from synthamp import InputError
from synthamp.release._table_records import (
    check_target_ranges,
    psd_project,
    table_moments,
    table_records,
    target_map,
)


def _table(rng, m=200):
    """Columns in different units: years, mg/dl, a fraction."""
    y = np.column_stack([
        rng.uniform(20, 80, m), rng.normal(150, 30, m).clip(60, 300), rng.beta(2, 5, m)
    ])  # fmt: skip
    bounds = {"age": (18.0, 90.0), "glucose": (50.0, 320.0), "share": (0.0, 1.0)}
    return y, bounds


def test_the_map_round_trips_and_puts_every_row_in_the_ball():
    rng = np.random.default_rng(0)
    y, bounds = _table(rng)
    for label_bound in (1.0, 3.5):
        tmap = target_map(bounds, ["age", "glucose", "share"], label_bound)
        rows = tmap.forward(y)
        assert rows.shape == (len(y), 4)
        assert np.all(np.linalg.norm(rows, axis=1) <= label_bound)
        # the constant coordinate: B/√k' on every row (k' = 4)
        np.testing.assert_allclose(rows[:, -1], label_bound / 2, rtol=1e-14)
        np.testing.assert_allclose(tmap.inverse(rows), y, rtol=1e-12)
    # a value outside its declared range is clipped into it (a per-record map)
    out = tmap.forward(np.array([[100.0, 40.0, 0.5]]))
    np.testing.assert_allclose(tmap.inverse(out), [[90.0, 50.0, 0.5]], rtol=1e-12)


def test_a_missing_target_range_is_refused_naming_the_column():
    with pytest.raises(InputError, match="target column 'b'") as error:
        target_map({"a": (0.0, 1.0)}, ["a", "b"])
    assert error.value.param == "bounds"


def test_the_constant_column_carries_the_means_on_an_exact_gram():
    """Given WᵀW exactly (times any positive factor: the design's g, m), the moments are the
    table's own mean and (1/m) covariance, in its units."""
    rng = np.random.default_rng(1)
    y, bounds = _table(rng)
    tmap = target_map(bounds, ["age", "glucose", "share"], 2.0)
    rows = tmap.forward(y)
    for factor in (1.0, (1 + len(y) * 0.01) ** -2, 1e-3):
        gram = factor * rows.T @ rows
        # the constant's entry: estimated, or its public value B²/k'·factor·m
        for constant in (None, tmap.row_scale**2 * factor * len(y)):
            mean, cov = table_moments(gram, tmap, constant)
            np.testing.assert_allclose(mean, y.mean(axis=0), rtol=1e-10)
            np.testing.assert_allclose(cov, np.cov(y.T, bias=True), rtol=1e-8, atol=1e-10)


def test_the_psd_projection_is_the_nearest_psd_matrix():
    rng = np.random.default_rng(2)
    a = rng.normal(size=(5, 5))
    a = a + a.T  # symmetric, indefinite
    assert np.linalg.eigvalsh(a).min() < 0
    p = psd_project(a)
    assert np.linalg.eigvalsh(p).min() >= -1e-12
    np.testing.assert_allclose(psd_project(p), p, atol=1e-12)  # a PSD matrix stays
    for _ in range(50):  # no PSD matrix is nearer
        b = rng.normal(size=(5, 5))
        q = p + 0.1 * b @ b.T
        assert np.linalg.norm(a - p) <= np.linalg.norm(a - q)


def test_noise_that_overwhelms_the_constant_entry_is_refused():
    tmap = target_map({"a": (0.0, 1.0)}, ["a"])
    with pytest.raises(InputError) as error:
        table_moments(-np.eye(2), tmap)
    assert error.value.param == "epsilon"


def test_the_records_are_in_the_table_units_in_the_noise_free_limit():
    """A release whose factor R holds σ_z²·g·WᵀW exactly (σ = 0): the records' mean and
    covariance are the table's (to sampling error), through released_gram and the sampler."""
    rng = np.random.default_rng(3)
    y, bounds = _table(rng)
    tmap = target_map(bounds, ["age", "glucose", "share"], 1.0)
    rows = tmap.forward(y)
    scale, g = 1 / math.sqrt(500), 0.3
    factor = scale * np.linalg.cholesky(g * rows.T @ rows).T
    release = SimpleNamespace(
        _factor=factor, seed_scale=scale, sigma=0.0, design=SimpleNamespace(width=500),
        _rng=np.random.default_rng(4), ones_gram=g * len(y), seeded=False,
    )  # fmt: skip
    records = np.vstack(list(table_records(release, tmap).iter_samples(200_000, 65_536)))
    assert records.shape == (200_000, 3)
    sd = y.std(axis=0)
    assert np.all(np.abs(records.mean(axis=0) - y.mean(axis=0)) < 0.02 * sd)
    np.testing.assert_allclose(records.std(axis=0), sd, rtol=0.02)


def test_rows_outside_their_ranges_are_counted_and_refused_above_the_threshold():
    tmap = target_map({"a": (0.0, 1.0), "b": (0.0, 1.0)}, ["a", "b"])
    y = np.array([[0.5, 0.5], [2.0, 0.5], [0.5, 0.5], [0.5, 0.5]])
    notes = check_target_ranges(y, tmap, 0.3)
    assert len(notes) == 1 and "25.0%" in notes[0]
    with pytest.raises(InputError, match=r"25\.0% of target rows fall outside") as error:
        check_target_ranges(y, tmap, 0.1)
    assert error.value.param == "max_clipped"
    assert check_target_ranges(y[[0]], tmap, 0.0) == []


def test_noisy_moments_are_kept_where_values_in_their_ranges_can_have_them():
    """Mean in [lo, hi], variance at most (hi − mean)(mean − lo): public constraints."""
    tmap = target_map({"a": (0.0, 10.0), "b": (-1.0, 1.0)}, ["a", "b"], 1.0)
    rng = np.random.default_rng(5)
    for _ in range(20):
        noise = rng.normal(scale=50.0, size=(3, 3))
        mean, cov = table_moments(noise @ noise.T, tmap, constant=1.0)
        assert np.all((tmap.lo <= mean) & (mean <= tmap.hi))
        assert np.all(np.diag(cov) <= (tmap.hi - mean) * (mean - tmap.lo) * (1 + 1e-12))
        assert np.linalg.eigvalsh(cov).min() >= -1e-9 * np.abs(cov).max()
