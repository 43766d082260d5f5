"""``closed_form_bounds`` and ``fisher_with_bounds``: the bounds of one configuration."""

from __future__ import annotations

import numpy as np

from synthamp import bounds as b


def test_closed_form_bounds_are_the_bound_functions():
    alpha = [2.0, 8.0]
    table = b.closed_form_bounds(alpha, 10, 1, 2.0, 1.0, sigma=2.0)
    assert np.array_equal(table["post_processing"], b.post_processing_rdp(alpha, 1.0, 2.0))
    assert np.array_equal(table["global"], b.global_bound(alpha, 10, 2.0, 1.0, 2.0, 1))
    assert table["prior_work"] is None and set(table["kinds"]) == set(b.BOUND_KINDS)
    assert np.all(table["global"] <= table["global_elementary"] * (1 + 1e-12))
    with_n = b.closed_form_bounds(alpha, 10, 1, 2.0, 1.0, sigma=2.0, n_syn=100)
    assert np.array_equal(with_n["prior_work"], b.prior_work_rdp(alpha, 10, 1, 100, 1.0, 2.0))


def test_fisher_with_bounds_lies_between_its_bounds():
    result = b.fisher_with_bounds(10, 1.5)
    assert result["lower_bound"] <= result["fisher"] <= result["upper_bound"]
    assert result["error"] < 1e-8 and result["dim"] == 10
