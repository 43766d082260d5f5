"""The Laplace mechanism on a scalar, calibrated exactly at (ε, δ), also under composition.

The best anchor for one scalar statistic in one release (docs/theory.md §18): Laplace noise
of scale b on a statistic of replace-one sensitivity s. With μ = s/b, the privacy loss of
Lap(0, b) against Lap(s, b) has an atom μ of mass 1/2, an atom −μ of mass e^{−μ}/2 and the
density e^{(ℓ − μ)/2}/4 on (−μ, μ); the pair is symmetric (both directions have this law).
Its hockey-stick divergence is, in closed form,

    δ(ε) = 1 − e^{(ε − μ)/2}   (−μ ≤ ε ≤ μ),   1 − e^{ε}   (ε < −μ),   0   (ε ≥ μ),

so one release is exactly (ε, δ)-DP at μ = ε − 2 log(1 − δ) (pure ε-DP at μ = ε: the scale
s/ε of the textbook is the δ = 0 case). T releases compose by the project's PLD machinery
(:class:`synthamp.accountant._pld.PairPld`): the closed-form δ at the grid points gives the
pessimistic connect-the-dots PLD (an upper bound on δ at every ε), the closed-form
survival P(L > ε) its optimistic companion (a lower bound), and μ is the largest value whose
pessimistic ε(δ) after T-fold composition is at most the target: the calibration is exact in
the sense of the PLD accountant (the reported interval brackets the true ε; its width,
about T·h/2, is the discretisation error).

Private kernels: :func:`_laplace_pld`, :func:`_laplace_epsilon`, :func:`_laplace_mu` (the
calibration does not depend on the sensitivity: cached per (ε, δ, T)); public:
:func:`laplace_delta` (one release, closed form), :func:`laplace_calibration`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._kinds import Kind, privacy_quantity
from synthamp._parameters import validated, validated_one
from synthamp.accountant._calibrator import smallest_sigma
from synthamp.accountant._pld import DEFAULT_DISCRETIZATION, PairPld
from synthamp.accountant._pld_distribution import _direction

__all__ = ["LaplaceCalibration", "laplace_calibration", "laplace_delta"]

#: Relative tolerance of the calibrated μ for T > 1 (the bisection stops below it).
MU_RTOL = 1e-7


@privacy_quantity("exact")
def laplace_delta(epsilon: ArrayLike, mu: float) -> NDArray[np.float64]:
    """δ(ε) of one Laplace mechanism, μ = sensitivity/scale, in closed form (module docstring)."""
    mu = validated_one("mu", mu)
    return _laplace_delta(np.asarray(epsilon, dtype=float), mu)


def _laplace_delta(eps: NDArray[np.float64], mu: float) -> NDArray[np.float64]:
    inside = -np.expm1(np.minimum((eps - mu) / 2.0, 0.0))
    below = -np.expm1(np.minimum(eps, 0.0))
    return np.where(eps >= mu, 0.0, np.where(eps < -mu, below, inside))


def _laplace_survival(eps: NDArray[np.float64], mu: float) -> NDArray[np.float64]:
    """P(L > ε) under the first law: 1 below −μ, 1 − e^{(ε − μ)/2}/2 on [−μ, μ), 0 above."""
    inside = 1.0 - 0.5 * np.exp(np.minimum((eps - mu) / 2.0, 0.0))
    return np.where(eps >= mu, 0.0, np.where(eps < -mu, 1.0, inside))


def _laplace_pld(mu: float, h: float) -> PairPld:
    """The pessimistic PLD (with its optimistic companion) of one Laplace mechanism."""
    lower = math.floor(-mu / h) - 1
    top = math.ceil(mu / h) + 1
    eps = np.arange(lower, top + 1) * h
    one = _direction(
        lower, _laplace_delta(eps, mu), None, _laplace_survival(eps, mu), h, Kind.EXACT
    )
    return PairPld(one, one)


def _laplace_epsilon(mu: float, delta: float, releases: int, h: float) -> tuple[float, float]:
    """(upper, lower) bounds on ε(δ) of ``releases`` Laplace mechanisms of μ each."""
    if releases == 1:
        exact = max(mu + 2.0 * math.log1p(-delta), 0.0)
        return exact, exact
    pld = _laplace_pld(mu, h)._self_compose(releases, 1e-15)
    return pld.epsilon(delta), pld.epsilon_lower(delta)


@dataclass(frozen=True)
class LaplaceCalibration:
    """The Laplace scale at (ε, δ) for T releases of a statistic of sensitivity s.

    Attributes
    ----------
    scale : float
        b: each release adds Lap(0, b); its standard deviation is √2·b.
    mu : float
        s/b.
    epsilon_interval : (float, float)
        Lower and upper bounds on the exact ε(δ) of the T-fold composition at this b (equal
        for T = 1: the closed form); the upper one is at most the target.
    kind : str
        "exact".
    """

    scale: float
    mu: float
    epsilon_interval: tuple[float, float]
    kind: str = "exact"

    @property
    def sd(self) -> float:
        """Standard deviation (and RMSE) of one release: √2·b."""
        return math.sqrt(2.0) * self.scale


@privacy_quantity("exact")
def laplace_calibration(
    epsilon: float,
    delta: float,
    sensitivity: float,
    releases: int = 1,
    *,
    discretization: float = DEFAULT_DISCRETIZATION,
) -> LaplaceCalibration:
    """The smallest Laplace scale b whose T-fold composition is (ε, δ)-DP (module docstring).

    T = 1: b = s/(ε − 2 log(1 − δ)), the closed form. T > 1: the largest μ = s/b whose
    pessimistic PLD ε(δ) is at most ε (the one calibrator on the scale 1/μ, relative
    tolerance :data:`MU_RTOL`, from the pure-ε start μ = ε/T, which is always private).
    """
    epsilon, delta, s, t, h = validated(
        epsilon=epsilon,
        delta=delta,
        sensitivity=sensitivity,
        releases=releases,
        discretization=discretization,
    )
    mu, interval = _laplace_mu(epsilon, delta, t, h)
    return LaplaceCalibration(s / mu, mu, interval)


@functools.lru_cache(maxsize=64)
def _laplace_mu(
    epsilon: float, delta: float, t: int, h: float
) -> tuple[float, tuple[float, float]]:
    """μ = s/b of :func:`laplace_calibration` and the ε interval (scale-free: cached)."""
    if t == 1:
        mu = epsilon - 2.0 * math.log1p(-delta)
        return mu, (epsilon, epsilon)
    # the one calibrator on the noise scale in units of s, 1/μ (ε non-increasing in it),
    # from the pure-ε start μ = ε/T (pure ε-DP composes to Tμ = ε: private)
    scale, _ = smallest_sigma(
        lambda noise: _laplace_epsilon(1.0 / noise, delta, t, h)[0], epsilon, t / epsilon, MU_RTOL
    )
    lo = 1.0 / scale
    upper, lower = _laplace_epsilon(lo, delta, t, h)
    return lo, (lower, upper)
