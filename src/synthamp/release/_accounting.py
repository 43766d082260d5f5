"""What a release's guarantee rests on: σ calibrated or given, ε, and its post-processing twin.

The accounting step of :class:`synthamp.release._generator.PrivateLinearGenerator` (and so of
``synthamp release``), on public numbers only (the declared bounds, d, k, m): the
accountant's calibration or ε (:mod:`synthamp.accountant`), the tighter PLD number
where the default rule asks for it (:mod:`synthamp.accountant._choice`), and, for a
finite k = 1 release, the unlimited release's exact profile when it needs less
noise (it bounds every n_syn, docs/theory.md §3).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from synthamp import accountant
from synthamp._budget import PLATEAU_FALLBACK
from synthamp.accountant import SyntheticDataRelease, calibrate_sigma_pld, profile_epsilon
from synthamp.accountant._calibration import finite_epsilon_lower_bound
from synthamp.accountant._choice import (
    finite_or_unlimited,
    gaussian_baseline,
    tight_accounting,
    weighs_unlimited_profile,
)

__all__ = ["ReleaseAccounting", "account_release"]


@dataclass(frozen=True)
class ReleaseAccounting:
    """What fit needs from the accountant (public numbers only).

    ``epsilon`` is the guarantee at ``sigma``, by ``accountant``. ``epsilon_rdp``
    (at ``optimal_order``) and ``epsilon_pld`` are the RDP and PLD ε of the
    release described (its ``n_syn``; None: not computed). Where the default
    rule weighs the unlimited release's exact profile (k = 1, finite n_syn,
    exact accounting), ``epsilon_unlimited_pld`` is that profile's ε at the same
    σ, valid for every n_syn, ``guarantee`` says which number is the guarantee
    (``"finite_rdp"`` or ``"unlimited_pld"``, the smaller) and ``fallback`` the
    note that says so with these numbers; else both are None.
    """

    sigma: float
    epsilon: float
    optimal_order: float | None
    method: str
    kind: str
    sigma_post_processing: float
    epsilon_post_processing: float
    fallback: str | None = None
    accountant: str = "rdp"
    epsilon_rdp: float | None = None
    epsilon_pld: float | None = None
    epsilon_unlimited_pld: float | None = None
    guarantee: str | None = None


def account_release(
    *,
    epsilon: float | None,
    delta: float,
    sigma: float | None,
    dim: int,
    out_dim: int,
    norm_bound: float,
    sensitivity: float,
    n_syn: int | None,
    method: str,
    choice: str | None = "rdp",
    time_budget: float | None = accountant.DEFAULT_TIME_BUDGET,
) -> ReleaseAccounting:
    """Calibrate σ (or take it), and compute the guarantee and its post-processing twin.

    ``choice`` is the accountant (``accountant._choice``; None: the default rule).

    All numbers come from :mod:`synthamp.accountant`; nothing here depends on
    the private data (only on the declared bounds, d, k and m).
    """
    common = dict(dim=dim, out_dim=out_dim, norm_bound=norm_bound, sensitivity=sensitivity)
    given_sigma = sigma
    if sigma is None and weighs_unlimited_profile(choice, out_dim, n_syn, method):
        skipped = _skip_hopeless_finite(epsilon, delta, common, n_syn, time_budget)
        if skipped is not None:
            return skipped
    if sigma is None:
        calibration = accountant.calibrate_sigma(
            epsilon, delta, **common, n_syn=n_syn, method=method, time_budget=time_budget
        )
        fallback = calibration.fallback
        sigma = float(calibration.sigma)
        achieved, order, kind = calibration.epsilon, calibration.optimal_order, calibration.kind
        sigma_pp = float(calibration.sigma_post_processing)
        release = accountant.SyntheticDataRelease(
            dim, out_dim, norm_bound, sensitivity, sigma, n_syn=n_syn
        )
        epsilon_pp = accountant.compute_epsilon(release, delta, method="post-processing").epsilon
    else:
        release = accountant.SyntheticDataRelease(
            dim, out_dim, norm_bound, sensitivity, sigma, n_syn=n_syn
        )
        result = accountant.compute_epsilon(release, delta, method=method, time_budget=time_budget)
        achieved, order, kind = result.epsilon, result.optimal_order, result.kind
        fallback = result.fallback
        epsilon_pp = result.epsilon_post_processing
        sigma_pp = sigma  # post-processing itself, or ε = 0: nothing to compare with
        if achieved > 0 and method != "post-processing":
            sigma_pp = float(
                accountant.calibrate_sigma(
                    float(achieved), delta, **common, method="post-processing"
                ).sigma
            )
    rdp = ReleaseAccounting(
        sigma=sigma,
        epsilon=float(achieved),
        optimal_order=None if order is None else float(order),
        method=method,
        kind=str(kind),
        sigma_post_processing=sigma_pp,
        epsilon_post_processing=float(epsilon_pp),
        fallback=fallback,
    )
    numbers = {"sigma": rdp.sigma, "epsilon": rdp.epsilon, "optimal_order": rdp.optimal_order}
    fields = tight_accounting(
        rdp=numbers, choice=choice, epsilon=epsilon, delta=delta, common=common,
        n_syn=n_syn, method=method,
    )  # fmt: skip
    accounted = replace(rdp, **fields)
    if weighs_unlimited_profile(choice, out_dim, n_syn, method):
        return _smaller_of_finite_and_unlimited(
            accounted, epsilon, delta, given_sigma, common, n_syn, time_budget
        )
    return accounted


def _skip_hopeless_finite(
    epsilon: float, delta: float, common: dict, n_syn: int, time_budget: float | None
) -> ReleaseAccounting | None:
    """The unlimited release's calibration, when the finite one provably cannot need less noise.

    The unlimited release's exact profile is calibrated first (σ_u, cheap). A
    proven lower bound on the finite release's RDP ε at σ_u
    (:func:`~synthamp.accountant._calibration.finite_epsilon_lower_bound`, one
    engine call) above the target means that the finite calibration's σ is above
    σ_u (ε is non-increasing in σ), so the rule (the smaller σ) takes σ_u
    whatever the finite attempt gives: it is not started. The finite release's
    RDP number reported is then the plateau's at σ_u (an upper bound on it,
    docs/theory.md §3), said so. None: the bound does not decide, calibrate both.
    """
    unlimited = calibrate_sigma_pld(epsilon, delta, **common)
    finite_release = SyntheticDataRelease(**common, sigma=unlimited.sigma, n_syn=n_syn)
    bound = finite_epsilon_lower_bound(finite_release, delta)
    if not bound > epsilon:
        return None
    plateau = account_release(
        epsilon=None, delta=delta, sigma=unlimited.sigma, **common, n_syn=None,
        method="exact", choice="rdp", time_budget=time_budget,
    )  # fmt: skip
    note = (
        f"finite-release accounting (n_syn = {n_syn:,}) not started: a proven lower bound on the "
        f"rdp ε of exactly {n_syn:,} records at the unlimited release's σ = "
        f"{unlimited.sigma:.6g} is {bound:.6g} > ε = {epsilon:g}, so it needs more noise; "
        f"{PLATEAU_FALLBACK}"
    )
    finite = replace(plateau, fallback=note, epsilon_pld=None)
    return _smaller_of_finite_and_unlimited(
        finite, epsilon, delta, None, common, n_syn, time_budget, unlimited
    )


def _smaller_of_finite_and_unlimited(
    finite: ReleaseAccounting,
    epsilon,
    delta: float,
    sigma,
    common: dict,
    n_syn: int,
    time_budget: float | None,
    unlimited=None,
) -> ReleaseAccounting:
    """The finite-release accounting, or the unlimited one where it needs less noise.

    The unlimited release (n_syn → ∞) bounds every finite one (docs/theory.md §3: fewer
    records are a post-processing of more), so its exact privacy profile (PLD) is a
    valid guarantee for ``n_syn`` records too; it can be tighter than the finite
    release's RDP accounting, whose conversion to (ε, δ) loses more than the
    amplification of few records gains. A calibration (``sigma`` None) takes the
    smaller of the two σ; at the release's σ both ε are computed and the smaller
    is the guarantee. The finite release's RDP ε (and its order) stays
    ``epsilon_rdp``; the unlimited ε is ``epsilon_unlimited_pld``; the note says
    which is used with exactly these numbers. ``unlimited``: the unlimited
    release's calibration when the caller has it.
    """
    calibrated = sigma is None
    if calibrated and unlimited is None:
        unlimited = calibrate_sigma_pld(epsilon, delta, **common)
    if calibrated:
        if unlimited.sigma < finite.sigma:  # the finite release's own numbers at that σ
            finite = account_release(
                epsilon=None, delta=delta, sigma=unlimited.sigma, **common, n_syn=n_syn,
                method="exact", choice="rdp", time_budget=time_budget,
            )  # fmt: skip
    release = SyntheticDataRelease(**common, sigma=finite.sigma)  # n_syn → ∞
    if unlimited is not None and unlimited.sigma == finite.sigma:
        # k = 1, one release: the calibration's ε is the exact profile's at its σ
        eps_unlimited = float(unlimited.epsilon)
    else:
        eps_unlimited = float(profile_epsilon(release, delta).epsilon)
    use, note = finite_or_unlimited(
        finite.epsilon_rdp, eps_unlimited, symbol="ε", n_syn=n_syn,
        finite_accounting="that bound's RDP accounting" if finite.fallback else None,
        fallback=finite.fallback, sigma=finite.sigma if calibrated else None,
    )  # fmt: skip
    both = {"epsilon_unlimited_pld": eps_unlimited, "fallback": note}
    if not use:
        return replace(finite, **both, guarantee="finite_rdp")
    return replace(
        finite,
        **both,
        guarantee="unlimited_pld",
        epsilon=eps_unlimited,
        kind="exact",
        accountant="pld",
        epsilon_pld=None,  # the finite release's own exact profile is not computed
        # the baseline by the same accountant: the Gaussian mechanism's exact profile, at the
        # target ε of a calibration (the achieved ε can be 0 at a tiny target: ε = 1e-300)
        **gaussian_baseline(
            float(epsilon) if calibrated else eps_unlimited,
            delta,
            release.effective_sensitivity,
            finite.sigma,
        ),
    )
