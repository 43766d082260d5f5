"""The finite-release grid serves every order up to the largest one it was built for.

One outer grid is built for the largest order of a call and used for all smaller ones
(divergence/_finite.py). Each value must then be as good as the value computed alone,
within the sum of the two error estimates. At d = 10, a = 100, b = 0, n_syn = 1 (the
slow case of issue 12) the grid for α = 8 used to be checked at the tilts 0, 1 and 8
only: the law of α ≈ 1.6 was under-resolved there (two nodes per standard deviation),
and the log-form error estimate, judged on |Δ log H|/|log H|, hid it (values 3e-6 to
3e-3 off with errors ten times smaller).
"""

from __future__ import annotations

import numpy as np
import pytest

from synthamp.divergence._finite import finite_scaled


@pytest.mark.parametrize(("dim", "n_syn", "a", "b"), [(10, 1, 100.0, 0.0), (20, 10, 3.0, 2.0)])
def test_small_orders_on_the_grid_of_a_large_one(dim, n_syn, a, b):
    small = np.array([1.57, 2.04, 3.16])
    alone = [finite_scaled(np.array([alpha]), dim, n_syn, a, b) for alpha in small]
    value, error = finite_scaled(np.append(small, 8.0), dim, n_syn, a, b)
    assert np.isfinite(value).all()
    for k, (v_alone, e_alone) in enumerate(alone):
        assert abs(value[k] - v_alone[0]) <= error[k] + e_alone[0]
        # a resolved grid: the error estimate stays at the engine's accuracy
        assert error[k] <= 1e-8 * value[k]
