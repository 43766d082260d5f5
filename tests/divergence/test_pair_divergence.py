"""``pair_divergence``: one pair's D_α, dispatched to the engine's public functions."""

from __future__ import annotations

import math

import numpy as np
import pytest

from synthamp import InputError
from synthamp.divergence import pair_divergence, renyi_finite, renyi_plateau, renyi_plateau_gram


def test_pair_divergence_is_the_engines_value():
    plateau = pair_divergence([2.0, 8.0], 10, 2.0, 1.0, sigma=1.5)
    assert np.array_equal(plateau.renyi, renyi_plateau([2.0, 8.0], 10, 2.0, 1.0, 1.5))
    assert plateau.gram_v == [4.0] and plateau.n_syn is None and plateau.kind == "exact"
    finite = pair_divergence([2.0], 10, 2.0, 1.0, sigma=1.5, n_syn=50)
    assert np.array_equal(finite.renyi, renyi_finite([2.0], 10, 2.0, 1.0, 50, 1.5))
    assert finite.renyi[0] < plateau.renyi[0]  # non-decreasing in n_syn (Proposition 4.2)
    gram = pair_divergence([2.0], 4, out_dim=2, gram_v=[1, 0.2, 1], gram_w=[0.5, 0, 1])
    assert np.array_equal(gram.renyi, renyi_plateau_gram([2.0], 4, [1, 0.2, 1], [0.5, 0, 1]))
    assert gram.norm_v == pytest.approx(math.sqrt(2.0)) and gram.norm_w == pytest.approx(1.5**0.5)
    assert list(gram.to_dict()) == [
        "alpha", "renyi", "error", "dim", "out_dim", "norm_v", "norm_w", "gram_v", "gram_w",
        "sigma", "n_syn", "kind",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"out_dim": 3}, "out_dim"),
        ({"norm_w": None}, "norm_w"),
        ({"gram_v": [1, 0, 1]}, "gram_v"),
        ({"out_dim": 2, "norm_v": None, "norm_w": None, "gram_v": [1, 0]}, "gram_v"),
        ({"out_dim": 2, "norm_v": None, "norm_w": None, "n_syn": 5}, "n_syn"),
    ],
)
def test_pair_divergence_names_the_bad_parameter(kwargs, param):
    args = {"alpha": [2.0], "dim": 4, "norm_v": 1.0, "norm_w": 0.5, **kwargs}
    with pytest.raises(InputError) as caught:
        pair_divergence(**args)
    assert caught.value.param == param
