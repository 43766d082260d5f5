"""D_α of the canonical pair (c, φ) of docs/theory.md §20 at 24 digits (mpmath).

Part of the independent reference of the tests (tests/mpref.py): nothing here imports
synthamp. Not the library's coordinates (the k = 2 engine integrates over Bartlett
coordinates of S): the two likelihood ratios depend on S only through S₁₁ = ‖x₁‖² and
u_φᵀSu_φ = ‖Xu_φ‖², which under the central law W₂(d, I) are a **Kibble bivariate
gamma** pair (sums of d squared unit normals with correlation ρ = cos φ), of density

    f(u, v) = (uv/(4ρ²))^{(a−1)/2} e^{−(u+v)/(2(1−ρ²))} I_{a−1}(ρ√(uv)/(1−ρ²)) / (4Γ(a)(1−ρ²)),

a = d/2. So ∫p^αq^{1−α} = ∫∫ f(u, v) L(u)^α L(v)^{1−α} du dv with
L(z) = e^{−c²/2} ₀F₁(a; c²z/4), and D_α = log(·)/(α − 1). The double integral is a
product Gauss–Legendre rule in r = √u, s = √v (the integrand is a power of r times a
smooth function there) on panels up to R² = 4(d + α²c²) + 400 (beyond it the tilted
density is below e^{−100}); its error is taken as the difference to the rule with
two thirds of the nodes, plus the truncation bound e^{−100}·(value).
"""

from __future__ import annotations

import itertools

import mpmath as mp

from mpref import Reference

DPS = 24


def _panels(top: mp.mpf, count: int) -> list[tuple[mp.mpf, mp.mpf]]:
    edges = [top * mp.mpf(i) / count for i in range(count + 1)]
    return list(itertools.pairwise(edges))


def _rule(panels, degree):
    nodes, weights = [], []
    xs, ws = _gl(degree)
    for lo, hi in panels:
        half, mid = (hi - lo) / 2, (hi + lo) / 2
        nodes += [mid + half * x for x in xs]
        weights += [half * w for w in ws]
    return nodes, weights


def _gl(degree: int):
    """Gauss–Legendre nodes and weights on [−1, 1] (Newton on P_n)."""
    xs, ws = [], []
    for i in range(1, degree + 1):
        x = mp.cos(mp.pi * (i - mp.mpf(1) / 4) / (degree + mp.mpf(1) / 2))
        for _ in range(100):
            p0, p1 = mp.mpf(1), x
            for k in range(2, degree + 1):
                p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
            dp = degree * (x * p1 - p0) / (x * x - 1)
            step = p1 / dp
            x -= step
            if abs(step) < mp.mpf(10) ** -(mp.mp.dps + 5):
                break
        xs.append(x)
        ws.append(2 / ((1 - x * x) * dp * dp))
    return xs, ws


def _hellinger(alphas, dim, amp, phi, degree):
    a = mp.mpf(dim) / 2
    c2 = mp.mpf(amp) ** 2
    rho = mp.cos(mp.mpf(phi))
    one = 1 - rho * rho
    top = mp.sqrt(4 * (dim + max(alphas) ** 2 * c2) + 400)
    nodes, weights = _rule(_panels(top, 4), degree)
    # per node: r, log L(r²), the marginal factors
    log_l = [-c2 / 2 + mp.log(mp.hyp0f1(a, c2 * r * r / 4)) for r in nodes]
    sums = [mp.mpf(0) for _ in alphas]
    norm = 4 * mp.gamma(a) * one
    for i, r in enumerate(nodes):
        for j, s in enumerate(nodes):
            u, v = r * r, s * s
            z = rho * r * s / one
            dens = (
                mp.power(u * v / (4 * rho * rho), (a - 1) / 2)
                * mp.exp(-(u + v) / (2 * one))
                * mp.besseli(a - 1, z)
                / norm
            )
            base = dens * 4 * r * s * weights[i] * weights[j]  # du dv = 4 r s dr ds
            for k, al in enumerate(alphas):
                sums[k] += base * mp.exp(al * log_l[i] + (1 - al) * log_l[j])
    return sums


def canonical_pair_renyi(alpha, dim: int, amp: float, phi: float) -> Reference:
    """D_α(W₂(d, I, a²e₁e₁ᵀ) ‖ W₂(d, I, a²u_φu_φᵀ)) per order, with its error bound.

    φ in (0, π/2) (ρ = cos φ > 0; the π/2 node is the k = 1 pair and its reverse).
    """
    alphas = [mp.mpf(x) for x in alpha]
    with mp.workdps(DPS):
        fine = _hellinger(alphas, dim, amp, phi, 24)
        coarse = _hellinger(alphas, dim, amp, phi, 16)
        values, errors = [], []
        for al, f, g in zip(alphas, fine, coarse, strict=True):
            value = mp.log(f) / (al - 1)
            spread = abs(mp.log(f) - mp.log(g)) / (al - 1) + mp.exp(-100) * (1 + abs(value))
            values.append(value)
            errors.append(spread)
        return Reference(alpha=alphas, value=values, error=errors)
