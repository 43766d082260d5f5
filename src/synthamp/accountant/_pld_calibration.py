"""The PLD accountant's calibrator: the smallest σ whose release meets (ε, δ) by PLD."""

from __future__ import annotations

import math
from dataclasses import dataclass

from synthamp._kinds import Kind, privacy_quantity
from synthamp._parameters import validated
from synthamp.accountant._calibrator import smallest_sigma
from synthamp.accountant._pld import DEFAULT_DISCRETIZATION, _compute_epsilon_pld
from synthamp.accountant._profile import DEFAULT_TAIL, _profile_epsilon
from synthamp.accountant._releases import SyntheticDataRelease, _with
from synthamp.accountant._sigma_search import gaussian_sigma

__all__ = ["PldCalibration", "calibrate_sigma_pld"]


@dataclass(frozen=True)
class PldCalibration:
    """Result of :func:`calibrate_sigma_pld`.

    Attributes
    ----------
    sigma : float
        Smallest σ found (relative ``rtol``) with ε_pld(σ) <= the target.
    epsilon : float
        ε_pld at ``sigma`` (<= target).
    epsilon_lower : float
        Lower bound on the exact ε at ``sigma``.
    delta, target_epsilon, discretization : float
    kind : Kind
    accountant : str
    """

    sigma: float
    epsilon: float
    epsilon_lower: float
    delta: float
    target_epsilon: float
    discretization: float
    kind: Kind
    accountant: str = "pld"


@privacy_quantity("exact")
def calibrate_sigma_pld(
    epsilon: float,
    delta: float,
    *,
    dim: int,
    out_dim: int = 1,
    norm_bound: float,
    sensitivity: float,
    n_syn: int | None = None,
    releases: int = 1,
    discretization: float = DEFAULT_DISCRETIZATION,
    rtol: float = 1e-4,
    gram_sensitivity: float | None = None,
) -> PldCalibration:
    """Smallest σ whose release meets (ε, δ) by the PLD accountant.

    ε_pld(σ) is that of :func:`compute_epsilon_pld`: for T releases, the worst
    adjacent pair composed T times, its remove and add directions apart (the
    same composed accounting as ``account``). It is non-increasing in σ (the
    adjacent set shrinks as σ grows,
    docs/accountant.md; pessimistic discretisations on nested grids are
    ordered). A single k = 1 release is calibrated on :func:`profile_epsilon`
    (no discretisation). The search starts from the exact calibration of
    releasing V (post-processing: T Gaussian mechanisms, noise σ/√T), an
    upper end, from which the one calibrator
    (:func:`~synthamp.accountant._calibrator.smallest_sigma`) brackets σ (steps
    of 4/3, then growing) and bisects in log σ. The returned σ is where ε was
    computed and is <= the target: conservative by construction. ``gram_sensitivity``: s₂ of
    statistic-level adjacency, as in :class:`SyntheticDataRelease`.
    """
    target, delta, h, rtol = validated(
        epsilon=epsilon, delta=delta, discretization=discretization, rtol=rtol
    )
    base = SyntheticDataRelease(
        dim, out_dim, norm_bound, sensitivity, 1.0, n_syn, releases, gram_sensitivity
    )
    return _calibrate_sigma_pld(target, delta, base, h, rtol)


def _calibrate_sigma_pld(
    target: float, delta: float, base: SyntheticDataRelease, h: float, rtol: float
) -> PldCalibration:
    """The kernel of :func:`calibrate_sigma_pld`: validated inputs, ``base`` at σ = 1."""
    releases = base.releases
    exact = releases == 1 and base.out_dim == 1

    def at(sigma: float, companion: bool = False):
        if exact:
            result = _profile_epsilon(_with(base, sigma=sigma), delta)
            return result.epsilon, result.epsilon_lower, result.kind
        result = _compute_epsilon_pld(
            _with(base, sigma=sigma), delta, (), h, DEFAULT_TAIL, companion
        )
        return result.epsilon, result.epsilon_lower, result.kind

    # releasing V is a post-processing bound: T Gaussian mechanisms compose exactly into
    # one with noise σ/√T, so the exact Gaussian calibration times √T is an upper end
    hi = math.sqrt(releases) * gaussian_sigma(target, delta, base.effective_sensitivity)
    # (the compositions of T > 1 check the caller's time budget inside, where they are long)
    sigma, _ = smallest_sigma(lambda x: at(x)[0], target, hi, rtol, first_step=4.0 / 3.0)
    eps, eps_lower, kind = at(sigma, companion=True)
    return PldCalibration(sigma, eps, eps_lower, delta, target, 0.0 if exact else h, kind)
