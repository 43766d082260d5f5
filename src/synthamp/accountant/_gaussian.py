"""The exact privacy profile of the Gaussian mechanism, the audit's closed-form reference.

:func:`gaussian_delta` / :func:`gaussian_epsilon`: the exact privacy profile
of the Gaussian mechanism, δ(ε) = Φ(Δ/2σ − εσ/Δ) − e^ε Φ(−Δ/2σ − εσ/Δ)
(Balle and Wang 2018, Theorem 8). It is the exact ε(δ) of a Gaussian release
(:func:`synthamp.audit.pair_epsilon`), and the tests check that the audit's
supremum over thresholds reproduces it.

References
----------
Balle, B. and Wang, Y.-X. (2018). Improving the Gaussian mechanism for
differential privacy: analytical calibration and optimal denoising. ICML.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._kinds import privacy_quantity
from synthamp._parameters import validated_one
from synthamp._validation import InputError

__all__ = ["gaussian_delta", "gaussian_epsilon"]


def _gaussian_log_delta(epsilon: NDArray[np.float64], mu: float) -> NDArray[np.float64]:
    """log δ(ε) of N(μ, 1) vs N(0, 1), without cancellation (−inf when δ underflows)."""
    # scipy.special is heavy (~0.25 s to import): loaded on first use
    from scipy import special

    first = special.log_ndtr(0.5 * mu - epsilon / mu)
    second = epsilon + special.log_ndtr(-0.5 * mu - epsilon / mu)
    with np.errstate(divide="ignore"):
        return first + np.log(-np.expm1(np.minimum(second - first, 0.0)))


@privacy_quantity("exact")
def gaussian_delta(
    epsilon: ArrayLike, sensitivity: float, sigma: float = 1.0
) -> NDArray[np.float64]:
    """Exact privacy profile δ(ε) of the Gaussian mechanism (Balle and Wang 2018, Thm 8).

        δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ),

    the smallest δ for which adding N(0, σ²I) to a function of L2 sensitivity
    Δ is (ε, δ)-DP. Computed as Φ(A)·(1 − e^{ε + log Φ(B) − log Φ(A)}) with
    :func:`scipy.special.log_ndtr`, so that small δ keep their relative
    accuracy.

    Parameters
    ----------
    epsilon : array_like
        ε >= 0.
    sensitivity : float
        Δ > 0.
    sigma : float, default 1.0
        σ > 0.

    Returns
    -------
    ndarray
        δ(ε) for each ε.
    """
    mu = validated_one("sensitivity", sensitivity) / validated_one("sigma", sigma)
    return _gaussian_delta(epsilon, mu)


def _gaussian_delta(epsilon: ArrayLike, mu: float) -> NDArray[np.float64]:
    """The kernel of :func:`gaussian_delta`, for μ = Δ/σ > 0 validated (ε checked here)."""
    eps = np.asarray(epsilon, dtype=float)
    if np.any(~(eps >= 0)) or np.any(np.isinf(eps)):
        raise InputError("epsilon", "must be finite and >= 0")
    return np.exp(_gaussian_log_delta(eps, mu))


@privacy_quantity("exact")
def gaussian_epsilon(delta: float, sensitivity: float, sigma: float = 1.0) -> float:
    """Exact ε(δ) of the Gaussian mechanism: the root of :func:`gaussian_delta` = δ.

    δ(ε) is decreasing in ε; the root is found by Brent's method on log δ(ε)
    in [0, μ²/2 + μ√(2 log(1/δ))] (μ = Δ/σ; at the right end
    δ(ε) <= Φ(−√(2 log(1/δ))) <= δ by the Gaussian tail bound), to an
    absolute accuracy of 1e-12.
    Returns 0 when δ >= δ(0) = 2Φ(μ/2) − 1.

    Parameters
    ----------
    delta : float
        δ in (0, 1).
    sensitivity, sigma : float
        Δ > 0 and σ > 0, as in :func:`gaussian_delta`.

    Returns
    -------
    float
        ε(δ) >= 0.
    """
    delta = validated_one("delta", delta)
    mu = validated_one("sensitivity", sensitivity) / validated_one("sigma", sigma)
    return _gaussian_epsilon(delta, mu)


def _log_delta_rounding(eps: float, mu: float) -> float:
    """A bound on the rounding error of :func:`_gaussian_log_delta` at one ε, from its
    conditioning: the arguments A = μ/2 − ε/μ and B = −μ/2 − ε/μ carry 2u relative error,
    which moves log Φ by at most |x|(|x| + 2)·2u (the Mills ratio bounds d log Φ/dx by
    |x| + 2); log_ndtr and the sums carry 16u relative error; the difference x = b − a is
    amplified by e^x/(1 − e^x) through log(−expm1(x))."""
    from scipy import special  # scipy is heavy (~0.25 s to import): loaded on first use

    u = float(np.finfo(float).eps)
    a_arg, b_arg = 0.5 * mu - eps / mu, -0.5 * mu - eps / mu
    a = float(special.log_ndtr(a_arg))
    b = eps + float(special.log_ndtr(b_arg))
    err_a = 16 * u * abs(a) + 2 * u * abs(a_arg) * (abs(a_arg) + 2)
    err_b = 16 * u * (abs(b) + eps) + 2 * u * abs(b_arg) * (abs(b_arg) + 2)
    x = min(b - a, 0.0)
    gain = math.inf if x == 0.0 else math.exp(x) / -math.expm1(x)
    return err_a + (err_a + err_b + u * abs(x)) * gain + 16 * u * (abs(a) + 1.0)


def _gaussian_epsilon(delta: float, mu: float) -> float:
    """The kernel of :func:`gaussian_epsilon`, for δ in (0, 1) and μ = Δ/σ > 0 validated.

    Sound in floating point: the ε returned satisfies log δ(ε) + its rounding bound
    (:func:`_log_delta_rounding`) <= log δ, so the exact δ(ε) is at most δ (δ(ε) decreases
    in ε); the root is found by Brent's method, then moved up until that holds."""
    log_delta = math.log(delta)

    def excess(eps: float) -> float:
        return float(_gaussian_log_delta(np.array(eps), mu)) - log_delta

    def sound_excess(eps: float) -> float:
        return excess(eps) + _log_delta_rounding(eps, mu)

    if sound_excess(0.0) <= 0.0:
        return 0.0
    hi = 0.5 * mu * mu + mu * math.sqrt(2.0 * math.log(1.0 / delta))
    while sound_excess(hi) > 0.0:  # only by rounding: the tail bound above is sufficient
        hi *= 2.0
    # heavy: scipy.optimize (~0.6 s at import), needed only for ε(δ) of a Gaussian
    from scipy.optimize import brentq

    root = 0.0  # the computed δ(0) may already meet δ: only the rounding bound is left
    if excess(0.0) > 0.0:
        root = float(brentq(excess, 0.0, hi, xtol=1e-12, rtol=4 * np.finfo(float).eps))
    step = max(1e-12, 4 * np.finfo(float).eps * root)
    eps = min(root + step, hi)
    while sound_excess(eps) > 0.0 and eps < hi:  # the evaluated upper end, never the root
        step *= 2.0
        eps = min(root + step, hi)
    return eps
