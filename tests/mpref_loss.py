"""Independent mpmath reference for the k = 2 realised pair's likelihood-ratio statistic.

U = h(X₁) − h(X₂), h(x) = log ₀F₁(; d/2; a²x/4), with X₁ ~ χ²_d central and
X₂ ~ χ²_d(a²) independent: U's law on the neighbour D′ of the pair. :func:`loss_upper_tail`
is P(U > u), the false-positive rate of the test "U > u"; on D, U has the law of −U on D′
(the pair is symmetric), so the false-negative rate is P_D(U <= u) = P_D′(U >= −u), the
same function at −u:

    P(U > u) = ∫ f_{X₂}(x) · Q(d/2, h⁻¹(u + h(x))/2) dx

(Q the regularised upper incomplete gamma function, 1 where u + h(x) <= 0), by mpmath's
tanh-sinh quadrature on [0, x_max] (the density beyond is far below 10^(−dps)) split
where u + h(x) crosses 0; h⁻¹ by bisection to a narrow bracket,
then mpmath's root finder; the χ²_d(a²) density by its Poisson mixture of gamma densities
(docs/theory.md §4), summed until the terms fall below 10^(−dps−5) of the sum. Imports no
synthamp.
"""

from __future__ import annotations

import mpmath as mp


def _h(x, dim: int, amp):
    return mp.log(mp.hyp0f1(mp.mpf(dim) / 2, amp * amp * x / 4))


def _h_inverse(y, dim: int, amp):
    """x >= 0 with h(x) = y (y > 0): bisection on a doubling bracket, then the secant."""
    hi = mp.mpf(1)
    while _h(hi, dim, amp) < y:
        hi *= 2
    lo = mp.mpf(0)
    for _ in range(20):  # a narrower bracket for the root finder
        mid = (lo + hi) / 2
        if _h(mid, dim, amp) < y:
            lo = mid
        else:
            hi = mid
    return mp.findroot(lambda x: _h(x, dim, amp) - y, (lo, hi), solver="anderson")


def _poisson_sum(term, lam):
    """Σ_j e^{−λ/2}(λ/2)^j/j! · term(j), until the terms are negligible."""
    if lam == 0:
        return term(0)
    half = lam / 2
    total, j = mp.mpf(0), 0
    tol = mp.mpf(10) ** (-mp.mp.dps - 5)
    while True:
        weight = mp.exp(-half + j * mp.log(half) - mp.loggamma(j + 1))
        piece = weight * term(j)
        total += piece
        if j > half and piece < tol * abs(total):
            return total
        j += 1


def _pdf(x, dim: int, lam):
    def gamma_density(j):
        k = mp.mpf(dim) / 2 + j
        return mp.exp((k - 1) * mp.log(x / 2) - x / 2 - mp.loggamma(k)) / 2

    return _poisson_sum(gamma_density, lam)


def loss_upper_tail(u: float, dim: int, amp: float) -> mp.mpf:
    """P(h(X₁) − h(X₂) > u), X₁ ~ χ²_d, X₂ ~ χ²_d(a²) (module docstring)."""
    u, amp = mp.mpf(u), mp.mpf(amp)
    half = mp.mpf(dim) / 2

    def integrand(x):
        density = _pdf(x, dim, amp * amp)
        y = u + _h(x, dim, amp)
        if y <= 0:
            return density
        return density * mp.gammainc(half, _h_inverse(y, dim, amp) / 2, mp.inf, regularized=True)

    # beyond x_max the density of χ²_d(a²) is below e^{−(x − d − 2a²)²/(4(d + 4a²))}-like
    # tails far under 10^(−dps): the integral is cut there
    x_max = dim + 4 * amp * amp + 8 * (mp.mp.dps + 10) + 20 * mp.sqrt(dim + 4 * amp * amp)
    points = [mp.mpf(0)]
    if u < 0:
        points.append(_h_inverse(-u, dim, amp))
    points.append(x_max)
    return mp.quad(integrand, points)
