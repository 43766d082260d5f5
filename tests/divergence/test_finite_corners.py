"""The finite engine's kernel at the corners the accountant reaches: C/σ from 10³ to 10⁵.

Large tables give large C/σ (a 10⁶-row table calibrates at c ≈ 4.5·10⁴ with its
worst pair inside the edge, but the guard evaluates the endpoints there). The
public function refuses ‖v‖/σ > 10³ (FINITE_MAX_AMPLITUDE); the accountant calls the
kernel (``finite_scaled``) directly and takes value + error as its bound, so that
bound must never fall below the reference beyond the reference's own error bound.
References: tests/mpref_convolution.py (40 digits), stored by
tests/data/make_references.py (``--missing --tests`` this file) and a sample
recomputed live by tests/test_references.py. At c = 10⁵ the kernel's estimate can reach
its value (the interval is then [0, plateau]): only soundness is asserted there.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import mpref_convolution
import references
from synthamp.divergence._finite import FINITE_MAX_AMPLITUDE, finite_scaled
from synthamp.divergence._plateau import plateau_scaled

ORDERS = (1.01, 2.0, 16.0)
#: d = 20 (the README table's width), gap s = Δ/σ = 0.5 (a calibrated edge pair: 0.27 at
#: the 10⁶-row table), c = C/σ at the documented limit and beyond, n_syn 1 … 10⁶.
CORNERS = list(itertools.product([1e3, 1e4, 1e5], [1, 100, 10**4, 10**6]))

NEEDS_EXTENDED = pytest.mark.skipif(
    not mpref_convolution.EXTENDED, reason="the reference needs an 80-bit numpy.longdouble"
)


@NEEDS_EXTENDED
@pytest.mark.parametrize(("c", "n_syn"), CORNERS)
def test_the_kernel_never_falls_below_the_reference_beyond_its_error(c, n_syn):
    a, b = c, c - 0.5
    ref = references.renyi_finite_convolution(list(ORDERS), 20, a, b, n_syn)
    ref_value, ref_error = ref.floats(), ref.errors()
    # the reference's own bound: 3e-10 relative at c = 10⁴, n_syn = 1; up to 2.8e-8 at
    # c = 10⁵ (rounding of its double-precision Chebyshev sums), enough to judge a kernel
    # whose estimate there is 1e-5 or more
    assert np.all(ref_error <= (1e-9 if c <= 1e4 else 1e-7) * ref_value)
    value, error = finite_scaled(np.array(ORDERS), 20, n_syn, a, b)
    # the bound the accountant uses is value + error: never below the reference
    assert np.all(value + error >= ref_value - ref_error), (value, error, ref_value)
    assert np.all(value - error <= ref_value + ref_error), (value, error, ref_value)
    # the value itself: 1e-8 relative in the documented domain (its stated accuracy), 1e-6
    # beyond (measured 5e-9 to 2e-7 at c = 10⁴: an absolute ~1e-15, rounding of terms of
    # size a², at n_syn = 1 where D ≈ 1e-9), where its estimate is 1e-6 to 5e-6 relative
    inside = c <= FINITE_MAX_AMPLITUDE
    rtol = 1e-8 if inside else 1e-6
    if c <= 1e4:
        assert np.all(np.abs(value - ref_value) <= rtol * ref_value + ref_error)
    if inside:  # the documented domain: the error estimate itself within 1e-6
        assert np.all(error <= 1e-6 * value), error / value


@pytest.mark.parametrize("n_syn", [1, 10**4, 10**6])
def test_at_the_largest_amplitude_the_kernel_stays_within_the_plateau(n_syn):
    """c = 10⁵: the kernel's interval lies in [0, plateau + its error]."""
    a, b = 1e5, 1e5 - 0.5
    alpha = np.array(ORDERS)
    value, error = finite_scaled(alpha, 20, n_syn, a, b)
    plateau, plateau_error = plateau_scaled(alpha, 20, a, b)
    assert np.all(value - error >= 0.0)
    assert np.all(value + error <= plateau + plateau_error)
