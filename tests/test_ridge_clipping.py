"""The fast paths of the row clipping (synthamp.release._ridge.scale_clip_rows, norms_exceed,
the clipping tally) against the scaled computation as it stood before them (every row's norm
by scaling), copied here so that the comparison cannot drift with the code: the same rows
clipped (bit for bit), the kept rows x·s (within two ulps of the scaled ((x/r)·s)·r), and the
same booleans for the clipping counts, on rows clearly inside, clearly outside, at the bound
within rounding, huge (1e308), subnormal, zero, and under a per-column scale."""

from __future__ import annotations

import numpy as np
import pytest

from synthamp.release._column_bounds import tally_clipping
from synthamp.release._ridge import norms_exceed, row_norms, scale_clip_rows

EPS = np.finfo(np.float64).eps


def _scaled(values):
    scale = np.max(np.abs(values), axis=1) if values.shape[1] else np.zeros(len(values))
    scale = np.where(scale > 0, scale, 1.0)
    return scale, np.linalg.norm(values / scale[:, None], axis=1)


def _norms(values):
    scale, unit = _scaled(values)
    with np.errstate(over="ignore"):
        return scale * unit


def reference_scale_clip_rows(values, scale, bound):
    values = np.asarray(values, dtype=np.float64)
    scale = np.asarray(scale, dtype=np.float64)
    if values.size == 0:
        return values * scale
    row_max, _ = _scaled(values)
    unit = (values / row_max[:, None]) * scale
    unit_max, unit_scaled = _scaled(unit)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        unit_norm = unit_max * unit_scaled
        over = unit_norm > bound / row_max
        factor = np.where(over, bound / np.where(unit_norm > 0, unit_norm, 1.0), row_max)
    out = unit * factor[:, None]
    with np.errstate(over="ignore"):
        norm = np.maximum(_norms(out), np.linalg.norm(out, axis=1))
    above = norm > bound
    while above.any():
        out[above] *= 1.0 - 4 * EPS
        with np.errstate(over="ignore"):
            norm = np.maximum(_norms(out), np.linalg.norm(out, axis=1))
        above = norm > bound
    return out


def _rows(d: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((4_000, d)) * rng.choice([0.05, 0.3, 1.0, 3.0], size=(4_000, 1))
    at_bound = x[:200] / np.linalg.norm(x[:200], axis=1, keepdims=True)  # norm 1 ± rounding
    nudged = at_bound * (1 + rng.integers(-8, 9, size=(200, 1)) * EPS)
    at_slack = at_bound * ((1 + 1e-9) * (1 + rng.integers(-8, 9, size=(200, 1)) * EPS))
    huge = rng.standard_normal((20, d)) * 1e307
    tiny = rng.standard_normal((20, d)) * 1e-310  # subnormal cells
    mixed = np.zeros((20, d))
    mixed[:, 0] = 1e300
    mixed[:, -1] = 1e-300
    zero = np.zeros((5, d))
    return np.concatenate([x, at_bound, nudged, at_slack, huge, tiny, mixed, zero])


@pytest.mark.parametrize("d", [1, 3, 20, 300])
@pytest.mark.parametrize("bound", [1.0, 0.37])
def test_scale_clip_rows_clips_the_rows_the_scaled_computation_clips(d, bound):
    rows = _rows(d, seed=d)
    rng = np.random.default_rng(d + 1)
    for scale in (1.0, 0.5, rng.uniform(0.1, 10.0, size=d), 1e-300, 1e10):
        with np.errstate(over="ignore"):
            expected = reference_scale_clip_rows(rows, scale, bound)
            got = scale_clip_rows(rows, scale, bound)
            plain = rows * scale
        same = np.all(got == expected, axis=1)
        kept = np.all(got == plain, axis=1)
        assert np.all(same | kept), (d, bound, scale)
        # a kept row: the reference kept it too (((x/r)·s)·r, within two ulps of x·s)
        close = np.abs(expected - plain) <= 2 * EPS * np.abs(plain)
        assert np.all(close[kept & ~same]), (d, bound, scale)
        assert np.all(_norms(got) <= bound) and np.all(np.linalg.norm(got, axis=1) <= bound)
        assert (~kept).sum() > 0 and (kept & ~same).sum() >= 0


@pytest.mark.parametrize("d", [1, 3, 20, 300])
def test_the_tally_counts_the_rows_the_scaled_computation_counts(d):
    rows = _rows(d, seed=20 + d)
    for scale in (1.0, 0.5, np.random.default_rng(d).uniform(0.1, 10.0, size=d), 1e10):
        largest = np.max(np.abs(rows), axis=1)
        largest = np.where(largest > 0, largest, 1.0)
        with np.errstate(over="ignore", divide="ignore"):
            expected = _norms((rows / largest[:, None]) * scale) > (1.0 + 1e-9) / largest
        got = tally_clipping(rows, rows[:, :1], label_bound=1.0, feature_scale=scale)
        assert got.feature_rows == int(expected.sum())
        with np.errstate(over="ignore"):
            assert got.target_rows == int((_norms(rows[:, :1]) > 1.0 + 1e-9).sum())


@pytest.mark.parametrize("d", [1, 4, 20, 300])
def test_norms_exceed_is_row_norms_against_the_limit(d):
    rows = _rows(d, seed=10 + d)
    norms = row_norms(rows)
    for limit in (1.0, 1.0 + 1e-9, 0.5, np.float64(1e-320), 1e300):
        assert np.array_equal(norms_exceed(rows, limit), norms > limit)
    per_row = norms * (1 + np.random.default_rng(d).integers(-3, 4, size=len(rows)) * EPS)
    assert np.array_equal(norms_exceed(rows, per_row), norms > per_row)
