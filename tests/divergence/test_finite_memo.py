"""The finite engine's memo (divergence/_memo.py): a repeated call is not recomputed.

One ``release --n-syn 1000`` on a 10⁶ × 20 table asked the finite engine for 136
results, 40 of them repeats (the calibration verifies its σ, then the release's
report asks for the same worst case); with the memo it computes 96.
"""

from __future__ import annotations

import numpy as np
import pytest

from synthamp._budget import TimeBudgetExceeded
from synthamp.divergence import _finite
from synthamp.divergence._memo import MEMO_SIZE, memoised

ORDERS = np.array([1.5, 2.0, 8.0])


@pytest.fixture
def counted(monkeypatch):
    """Count the finite engine's computations behind ``finite_scaled`` (memo emptied)."""
    calls = []
    real = _finite._finite_by_budget

    def counting(*args):
        calls.append(args[1:])
        return real(*args)

    monkeypatch.setattr(_finite, "_finite_by_budget", counting)
    clear = getattr(_finite.finite_scaled, "cache_clear", lambda: None)  # absent before the memo
    clear()
    yield calls
    clear()


def test_a_repeated_call_is_computed_once_and_gives_the_same_numbers(counted):
    first = _finite.finite_scaled(ORDERS, 4, 10, 2.0, 1.5)
    second = _finite.finite_scaled(ORDERS.copy(), 4, 10, 2.0, 1.5)
    assert len(counted) == 1
    for x, y in zip(first, second, strict=True):
        np.testing.assert_array_equal(x, y)


def test_other_inputs_are_computed(counted):
    _finite.finite_scaled(ORDERS, 4, 10, 2.0, 1.5)
    _finite.finite_scaled(ORDERS, 4, 10, 2.0, np.nextafter(1.5, 2.0))  # b one ulp away
    _finite.finite_scaled(ORDERS, 4, 11, 2.0, 1.5)  # another n_syn
    _finite.finite_scaled(ORDERS[:2], 4, 10, 2.0, 1.5)  # other orders
    assert len(counted) == 4


def test_a_caller_writing_into_a_result_does_not_change_the_next(counted):
    value, error = _finite.finite_scaled(ORDERS, 4, 10, 2.0, 1.5)
    kept = value.copy()
    value[:] = -1.0
    error[:] = 0.0
    again, error_again = _finite.finite_scaled(ORDERS, 4, 10, 2.0, 1.5)
    np.testing.assert_array_equal(again, kept)
    assert np.all(error_again > 0)


def test_a_call_that_raises_is_not_remembered():
    runs = []

    @memoised
    def kernel(alpha, flag):
        runs.append(flag)
        if len(runs) == 1:
            raise TimeBudgetExceeded("spent")
        return (alpha * flag,)

    with pytest.raises(TimeBudgetExceeded):
        kernel(ORDERS, 2)
    (out,) = kernel(ORDERS, 2)
    np.testing.assert_array_equal(out, 2 * ORDERS)
    assert len(runs) == 2


def test_the_memo_is_bounded():
    @memoised
    def kernel(x):
        return (np.array([x]),)

    for i in range(MEMO_SIZE + 10):
        kernel(float(i))
    assert kernel.cache_info()["size"] == MEMO_SIZE
    kernel(float(MEMO_SIZE + 9))  # the newest is kept
    assert kernel.cache_info()["hits"] == 1
