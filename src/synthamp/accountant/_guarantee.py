"""The guarantee of a release: the one rule that decides which bound is the guarantee.

Every output of synthamp that states a guarantee (the library's
:class:`~synthamp.release.PrivateLinearGenerator`, ``plan``, ``release``,
``demo``, ``account``, ``calibrate``, ``audit``, the JSON, Markdown and HTML
reports) renders a :class:`Guarantee` made here, by :func:`account` (ε at a
given σ) or :func:`calibrate` (σ for a target ε). The reports compute nothing:
they render the fields.

The rule (docs/theory.md §3, §12, §14):

1. The accountant is the one requested, else PLD (the exact privacy profile
   composed as a privacy-loss distribution, tighter than RDP) for k = 1, an
   unlimited release and exact accounting, else RDP
   (:func:`~synthamp.accountant._choice.choose_accountant`).
2. For k = 1, a finite ``n_syn``, exact accounting and no accountant requested,
   the unlimited release's exact profile is weighed as well: the first n_syn
   records are a function of the unlimited stream (docs/theory.md §3), so its
   guarantee holds for every n_syn, and the smaller ε (or σ) of the two is the
   guarantee (:func:`~synthamp.accountant._choice.finite_or_unlimited`). Either
   is sound, so is their minimum.
3. Where a cheap proven lower bound shows that the finite release's RDP
   accounting cannot need less noise than the unlimited profile, the finite
   calibration is not started (:func:`_finite_cannot_win`).

Only exact and certified numbers enter: ``kind`` is ``"exact"`` (numerical,
with its error bound added) or ``"certified"`` (a proven bound: k > 1, or C/σ
past the exact profile's range).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import numpy as np

from synthamp._budget import (
    DEFAULT_TIME_BUDGET,
    PLATEAU_FALLBACK,
    PLD_FALLBACK,
    TimeBudgetExceeded,
    time_budget,
)
from synthamp._parameters import validated, validated_one, validated_optional
from synthamp._validation import InputError
from synthamp.accountant._calibration import _calibration, finite_epsilon_lower_bound
from synthamp.accountant._choice import (
    accountant_reason,
    beyond_profile_handover,
    check_accountant,
    choose_accountant,
    finite_or_unlimited,
    weighs_unlimited_profile,
)
from synthamp.accountant._curves import _check_search, _epsilon_result
from synthamp.accountant._gaussian import _gaussian_epsilon as _gaussian_mu_epsilon
from synthamp.accountant._pld import (
    DEFAULT_DISCRETIZATION,
    CompositionTooLarge,
    _compute_epsilon_pld,
    gaussian_sigma,
)
from synthamp.accountant._pld_calibration import _calibrate_sigma_pld
from synthamp.accountant._profile import (
    LARGE_AMPLITUDE,
    MAX_EXACT_AMPLITUDE,
    MAX_LARGE_STEP,
    _profile_epsilon,
    beyond_exact_profile,
)
from synthamp.accountant._rdp_conversion import DEFAULT_ORDERS, _check_method, _check_orders
from synthamp.accountant._releases import SyntheticDataRelease, _with

#: Relative width of a calibration's final bracket on σ (RDP and PLD alike).
DEFAULT_RTOL = 1e-4

__all__ = ["Guarantee", "account", "calibrate", "finite_accounting_name"]


@dataclass(frozen=True)
class Guarantee:
    """An (ε, δ)-DP guarantee of a release and how the rule reached it.

    Attributes
    ----------
    sigma : float
        The noise scale σ of the release.
    epsilon : float
        The guarantee's ε at ``sigma`` and ``delta`` (an upper bound on the
        release's ε: exact with its error added, or certified).
    delta : float
        The guarantee's δ.
    kind : {"exact", "certified"}
        What ``epsilon`` is.
    accountant : {"pld", "rdp"}
        The accountant whose number is ``epsilon``.
    reason : str
        Why this accountant and this bound, in one sentence (the rule's wording).
    method : str
        The RDP accounting method (``"exact"``, ``"global"``, ``"post-processing"``).
    optimal_order : float or None
        The Rényi order of the RDP number ``epsilon_rdp``.
    sigma_post_processing, epsilon_post_processing : float
        Releasing the model V itself by the same accountant: the σ it needs for
        ``epsilon`` and its ε at ``sigma``.
    epsilon_rdp : float or None
        The RDP accountant's ε of the release at ``sigma`` (of exactly its
        n_syn records, or of the plateau where ``fallback`` says so).
    epsilon_pld, epsilon_pld_lower : float or None
        The PLD accountant's ε of the release and a lower bound on the
        release's true ε (the worst pair's optimistic PLD); None: not computed.
    epsilon_unlimited_pld, epsilon_unlimited_pld_lower : float or None
        Where the rule weighs it (k = 1, finite n_syn): the unlimited release's
        exact-profile ε at ``sigma``, valid for every n_syn, and its lower bound.
    guarantee : {"finite_rdp", "unlimited_pld"} or None
        Where the unlimited profile is weighed: which of ``epsilon_rdp`` and
        ``epsilon_unlimited_pld`` is ``epsilon``.
    fallback : str or None
        Set when the finite-release accounting stopped at its time budget or
        was not started; one line that names the sound bound used instead.
    pld_fallback : str or None
        Set when a PLD composition of T releases stopped (its time budget, its
        largest grid): the RDP accountant's number stands in, and this line says so.
    handover : {"post-processing", "rdp"} or None
        Set for k = 1 when C/σ lies beyond the exact profile's tested range
        (:func:`~synthamp.accountant._profile.beyond_exact_profile`): the certified bound
        the guarantee handed over to, the smaller of post-processing and the RDP route
        (``reason`` names it and both numbers).
    target_epsilon : float or None
        The calibration's target (None: ε at a given σ).
    sigma_rdp, sigma_pld, sigma_unlimited_pld : float or None
        A calibration's σ by each accounting it ran (None: not run).
    pld_guard_fired : bool
        A guard of the worst adjacent pair fired in a PLD computation: its ε
        composes the pointwise maximum over the pairs scanned along the edge.
    rdp : object
        The RDP accountant's result (:class:`~synthamp.accountant.EpsilonResult`
        or :class:`~synthamp.accountant.CalibrationResult`), for its curve.
    """

    sigma: float
    epsilon: float
    delta: float
    kind: str
    accountant: str
    reason: str
    method: str
    optimal_order: float | None
    sigma_post_processing: float
    epsilon_post_processing: float
    epsilon_rdp: float | None = None
    epsilon_pld: float | None = None
    epsilon_pld_lower: float | None = None
    epsilon_unlimited_pld: float | None = None
    epsilon_unlimited_pld_lower: float | None = None
    guarantee: str | None = None
    fallback: str | None = None
    pld_fallback: str | None = None
    handover: str | None = None
    target_epsilon: float | None = None
    sigma_rdp: float | None = None
    sigma_pld: float | None = None
    sigma_unlimited_pld: float | None = None
    pld_guard_fired: bool = False
    rdp: Any = field(default=None, repr=False, compare=False)

    @property
    def noise_saved(self) -> float:
        """max(0, 1 − σ/σ_post-processing): the noise amplification saves (not utility)."""
        return max(0.0, 1.0 - self.sigma / self.sigma_post_processing)

    @property
    def note(self) -> str:
        """The fallback (if any) and, where the rule weighed two bounds, which it took."""
        parts = [note.rstrip(".") + "." for note in (self.fallback, self.pld_fallback) if note]
        if self.guarantee is not None or self.handover is not None:
            parts.append(self.reason)
        return " ".join(p for p in parts if p)


def finite_accounting_name(n_syn: int, fallback: str | None) -> str:
    """What the finite-n_syn RDP number is, in the words of :func:`finite_or_unlimited`."""
    if fallback:
        return f"the plateau's RDP bound (used in place of the accounting of {n_syn:,} records)"
    return f"the rdp accounting of exactly {n_syn:,} records"


def _pld_epsilon(
    release: SyntheticDataRelease, delta: float, discretization: float
) -> tuple[float, float | None, bool]:
    """ε by PLD, a lower bound on the release's own ε (the worst pair's optimistic PLD), and
    whether a guard of the worst pair fired (the ε is then the guarded search's claim).

    One release: the exact privacy profile's root (docs/theory.md §14); T releases:
    the worst pair's PLD composed T times, each direction apart.
    """
    if release.releases == 1:
        result = _profile_epsilon(release, delta)
    else:
        result = _compute_epsilon_pld(release, delta, (), discretization)
    return float(result.epsilon), result.epsilon_lower, bool(result.fallback)


def _gaussian_epsilon(release: SyntheticDataRelease, delta: float, h: float) -> float:
    """ε of releasing V at the release's σ, exact: T Gaussian mechanisms of sensitivity Δ_eff
    compose exactly into one of Δ_eff√T (their privacy losses add: a Gaussian of mean and
    variance T times one's), whose profile is Balle and Wang's closed form. No PLD grid:
    T = 10⁹ composed on one took minutes; ``h`` is not used."""
    mu = release.effective_sensitivity * math.sqrt(release.releases) / release.sigma
    return float(_gaussian_mu_epsilon(delta, mu))


def _pld_within(
    release: SyntheticDataRelease, delta: float, discretization: float, budget: float | None
) -> tuple[tuple[float, float | None, bool] | None, str | None]:
    """:func:`_pld_epsilon` under the time budget: (its numbers, None), or (None, the note
    saying why the PLD stopped) when its composition of T releases passed the budget or its
    largest grid (:data:`~synthamp.accountant._pld.MAX_COMPOSED_POINTS`)."""
    try:
        with time_budget(budget):
            return _pld_epsilon(release, delta, discretization), None
    except TimeBudgetExceeded:
        why = f"ran past its time budget ({budget:.3g} s were left for it)"
    except CompositionTooLarge as exc:
        why = f"stopped: {exc.rule}"
    return None, PLD_FALLBACK.format(releases=release.releases, why=why)


def _joined(*notes: str | None) -> str | None:
    kept = [note.rstrip(".") for note in notes if note]
    return "; ".join(kept) if kept else None


def _pld_kind(release: SyntheticDataRelease) -> str:
    """A PLD ε's kind: exact for k = 1 within the exact profile's range, else certified."""
    return "exact" if release.out_dim == 1 and not beyond_exact_profile(release) else "certified"


class _Rdp(NamedTuple):
    """The RDP accountant's numbers of a release at its σ (from a result or a calibration)."""

    epsilon: float
    optimal_order: float
    kind: str
    epsilon_post_processing: float
    fallback: str | None
    result: Any = None

    @classmethod
    def of(cls, result, fallback: str | None = None) -> _Rdp:
        return cls(
            float(result.epsilon), float(result.optimal_order), str(result.kind),
            float(result.epsilon_post_processing), fallback or result.fallback, result,
        )  # fmt: skip


def _rule_inputs(delta, accountant, method, orders, discretization, time_budget) -> tuple:
    """The inputs :func:`account` and :func:`calibrate` share, validated once for both."""
    delta, discretization = validated(delta=delta, discretization=discretization)
    (time_budget,) = validated_optional(time_budget=time_budget)
    accountant, method = check_accountant(accountant), _check_method(method)
    return delta, accountant, method, _check_orders(orders), discretization, time_budget


def account(
    release: SyntheticDataRelease,
    delta: float,
    *,
    accountant: str | None = None,
    method: str = "exact",
    orders=None,
    discretization: float = DEFAULT_DISCRETIZATION,
    time_budget: float | None = DEFAULT_TIME_BUDGET,
    search: int = 0,
) -> Guarantee:
    """The guarantee of ``release`` (its σ given) at ``delta``, by the rule.

    Parameters
    ----------
    release : SyntheticDataRelease
        The release described by its public parameters.
    delta : float
        δ in (0, 1).
    accountant : {"pld", "rdp"} or None, default None
        None: the rule of this module; a name: that accountant.
    method : {"exact", "global", "post-processing"}, default "exact"
        The RDP accounting method (:func:`~synthamp.accountant.rdp_curve`).
    orders : array_like, optional
        Rényi orders of the RDP accountant.
    discretization : float
        PLD grid step (nats).
    time_budget : float or None
        Seconds for a finite-n_syn RDP curve; past them the plateau bound
        (sound for every n_syn) is used and ``fallback`` says so.
    search : int, default 0
        k = 2: starts of the search for a larger lower bound (never ε).

    Returns
    -------
    Guarantee
        With ``sigma_post_processing`` the σ releasing V needs for the achieved ε.
    """
    if not isinstance(release, SyntheticDataRelease):
        raise InputError("release", f"must be a SyntheticDataRelease, got {release!r}")
    delta, accountant, method, orders, h, budget = _rule_inputs(
        delta, accountant, method, orders, discretization, time_budget
    )
    search = _check_search(search, release, method, True)
    start = time.monotonic()
    result = _epsilon_result(release, delta, orders, method, [], budget, search)
    # a long PLD composition gets what the RDP accounting left of the budget: the call
    # returns within it (the PLD stops before a transform that cannot end in time)
    left = None if budget is None else max(budget - (time.monotonic() - start), 0.0)
    at = _account(release, delta, _Rdp.of(result), accountant, method, h, budget=left)
    return replace(at, sigma_post_processing=_post_sigma(release, at, at.epsilon))


def _account(
    release: SyntheticDataRelease,
    delta: float,
    rdp: _Rdp,
    accountant: str | None,
    method: str,
    discretization: float,
    unlimited_epsilon: float | None = None,
    calibrated: bool = False,
    budget: float | None = DEFAULT_TIME_BUDGET,
    stopped: str | None = None,
) -> Guarantee:
    """The rule at a given σ, from the RDP numbers at that σ (``sigma_post_processing`` NaN).

    ``calibrated``: σ is a calibration's (the note then says σ took the smaller of the two).
    A PLD composition of T releases runs under ``budget`` seconds and a largest grid; past
    either, the guarantee is the RDP accountant's ε (sound: RDP composes T releases
    exactly) and ``fallback`` says so (:data:`~synthamp._budget.PLD_FALLBACK`); a
    calibration whose PLD stopped passes its note as ``stopped`` (no PLD is tried then).
    """
    chosen = choose_accountant(accountant, release.out_dim, release.n_syn, method)
    eps_pld = eps_pld_lower = None
    fired = False
    if stopped is None and (chosen == "pld" or (release.out_dim == 1 and release.n_syn is None)):
        found, stopped = _pld_within(release, delta, discretization, budget)
        if found is not None:
            eps_pld, eps_pld_lower, fired = found
    common = dict(
        sigma=release.sigma, delta=delta, method=method, optimal_order=rdp.optimal_order,
        epsilon_rdp=rdp.epsilon, fallback=rdp.fallback, pld_fallback=stopped, rdp=rdp.result,
        sigma_post_processing=math.nan,
    )  # fmt: skip
    rdp_guarantee = dict(
        epsilon=rdp.epsilon, kind=rdp.kind, accountant="rdp",
        epsilon_post_processing=rdp.epsilon_post_processing,
    )  # fmt: skip
    if weighs_unlimited_profile(accountant, release.out_dim, release.n_syn, method):
        unlimited = _with(release, n_syn=None)
        eps_u_lower = None
        if unlimited_epsilon is None:
            found = None
            if not stopped:  # (a calibration's stop note is in the fallback already)
                found, stopped_u = _pld_within(unlimited, delta, discretization, budget)
                if found is None:
                    common["pld_fallback"] = _joined(common["pld_fallback"], stopped_u)
            if found is None:  # the finite release's RDP number stands alone, and says why
                reason = accountant_reason(accountant, release.out_dim, release.n_syn, method)
                return Guarantee(
                    **rdp_guarantee, reason=reason, guarantee="finite_rdp", **common,
                    pld_guard_fired=fired,
                )  # fmt: skip
            unlimited_epsilon, eps_u_lower, fired_u = found
            fired = fired or fired_u
        use, reason = finite_or_unlimited(
            rdp.epsilon, unlimited_epsilon, symbol="ε", n_syn=release.n_syn,
            finite_accounting=finite_accounting_name(release.n_syn, rdp.fallback),
            sigma=release.sigma if calibrated else None,
        )  # fmt: skip
        weighed = dict(
            epsilon_unlimited_pld=unlimited_epsilon, epsilon_unlimited_pld_lower=eps_u_lower,
            reason=reason, guarantee="unlimited_pld" if use else "finite_rdp",
        )  # fmt: skip
        if not use:
            return Guarantee(**rdp_guarantee, **weighed, **common, pld_guard_fired=fired)
        pld_guarantee = dict(
            epsilon=unlimited_epsilon, kind=_pld_kind(unlimited), accountant="pld",
            epsilon_post_processing=_gaussian_epsilon(release, delta, discretization),
        )  # fmt: skip
        if _beyond(unlimited):  # the unlimited number is post-processing's there: say so
            _, sentence = handover_note(unlimited, unlimited_epsilon, rdp.epsilon)
            weighed["reason"] = f"{weighed['reason']} {sentence}"
            pld_guarantee["handover"] = "post-processing"
        return Guarantee(**pld_guarantee, **weighed, **common, pld_guard_fired=fired)
    reason = accountant_reason(accountant, release.out_dim, release.n_syn, method)
    if chosen == "pld" and eps_pld is None:
        reason = "the PLD stopped (the note says why): the RDP accountant's ε is used"
    pld = dict(epsilon_pld=eps_pld, epsilon_pld_lower=eps_pld_lower, reason=reason)
    if chosen == "pld" and eps_pld is not None and _beyond(release):
        # the PLD's number is post-processing's there: the smaller of it and the RDP route
        use_rdp, pld["reason"] = handover_note(release, eps_pld, rdp.epsilon)
        guarantee = Guarantee(**rdp_guarantee, **pld, **common, pld_guard_fired=fired)
        if not use_rdp:
            guarantee = replace(
                guarantee, epsilon=eps_pld, kind="certified", accountant="pld",
                epsilon_post_processing=_gaussian_epsilon(release, delta, discretization),
            )  # fmt: skip
        return replace(guarantee, handover="rdp" if use_rdp else "post-processing")
    if chosen == "rdp" or eps_pld is None:
        return Guarantee(**rdp_guarantee, **pld, **common, pld_guard_fired=fired)
    pld_guarantee = dict(
        epsilon=eps_pld, kind=_pld_kind(release), accountant="pld",
        epsilon_post_processing=_gaussian_epsilon(release, delta, discretization),
    )  # fmt: skip
    return Guarantee(**pld_guarantee, **pld, **common, pld_guard_fired=fired)


def _beyond(release: SyntheticDataRelease) -> bool:
    """k = 1 and C/σ beyond the exact profile's tested range (the handover applies)."""
    return release.out_dim == 1 and beyond_exact_profile(release)


#: The exact profile's tested range, in words (the numbers of ``_profile``).
EXACT_PROFILE_RANGE = (
    f"C/σ ≤ {MAX_EXACT_AMPLITUDE:.0e}, ≤ {LARGE_AMPLITUDE:.0e} where Δ/σ > {MAX_LARGE_STEP:g}"
)


def handover_note(
    release: SyntheticDataRelease, post_processing: float, rdp: float | None, symbol: str = "ε"
) -> tuple[bool, str]:
    """:func:`~synthamp.accountant._choice.beyond_profile_handover` for ``release``."""
    amplitude = release.adjacency_norm_bound / release.sigma
    return beyond_profile_handover(
        amplitude, EXACT_PROFILE_RANGE, post_processing, rdp, symbol=symbol,
        releases=release.releases,
    )  # fmt: skip


def _post_sigma(release: SyntheticDataRelease, at: Guarantee, epsilon: float) -> float:
    """σ releasing V needs for ``epsilon``, by the guarantee's accountant.

    PLD: the Gaussian mechanism's exact profile (T mechanisms of sensitivity
    Δ_eff are one of Δ_eff√T); RDP: its post-processing calibration. At ε = 0,
    or for post-processing accounting itself, σ: nothing to compare with.
    """
    if at.method == "post-processing" or not epsilon > 0:
        return release.sigma
    if at.accountant == "pld":
        composed = release.effective_sensitivity * math.sqrt(release.releases)
        return float(gaussian_sigma(epsilon, at.delta, composed))
    base = _with(release, sigma=1.0, n_syn=None, gram_sensitivity=None)
    orders = np.unique(DEFAULT_ORDERS)
    return float(_calibration(epsilon, at.delta, base, "post-processing", orders).sigma)


def calibrate(
    epsilon: float,
    delta: float,
    *,
    dim: int,
    out_dim: int = 1,
    norm_bound: float,
    sensitivity: float,
    n_syn: int | None = None,
    releases: int = 1,
    method: str = "exact",
    accountant: str | None = None,
    orders=None,
    discretization: float = DEFAULT_DISCRETIZATION,
    time_budget: float | None = DEFAULT_TIME_BUDGET,
    gram_sensitivity: float | None = None,
    rtol: float = DEFAULT_RTOL,
) -> Guarantee:
    """The smallest σ whose guarantee (by the rule) is (``epsilon``, ``delta``)-DP.

    Parameters as :func:`account` and :func:`~synthamp.accountant.calibrate_sigma`
    (``rtol``: the relative width of each calibration's final bracket on σ);
    ``gram_sensitivity`` (s₂, k = 1, unlimited) accounts under the statistic-level
    adjacency of a public design (docs/gram-adjacency.md).
    The σ is that of the accountant the rule picks; where it weighs the
    unlimited release's exact profile (k = 1, finite n_syn), the smaller of
    the two σ, and the finite RDP calibration is not started when a proven
    lower bound shows it cannot be the smaller (:func:`_finite_cannot_win`).

    Returns
    -------
    Guarantee
        ``sigma``, the achieved ``epsilon`` (≤ the target), ``target_epsilon``,
        the σ of each accounting run, and ``sigma_post_processing`` the σ
        releasing V needs for the target, by the same accountant.
    """
    epsilon = validated_one("epsilon", epsilon)
    delta, accountant, method, orders, h, budget = _rule_inputs(
        delta, accountant, method, orders, discretization, time_budget
    )
    rtol = validated_one("rtol", rtol)
    base = SyntheticDataRelease(
        dim, out_dim, norm_bound, sensitivity, 1.0, n_syn, releases, gram_sensitivity
    )
    out_dim, n_syn = base.out_dim, base.n_syn
    weigh = weighs_unlimited_profile(accountant, out_dim, n_syn, method)
    unlimited = skipped = stopped = None
    if weigh:
        unlimited, stopped = _calibrate_pld_within(
            epsilon, delta, _with(base, n_syn=None), h, rtol, budget
        )
        if unlimited is not None:
            skipped = _finite_cannot_win(epsilon, delta, base, unlimited)
    if skipped is not None:
        sigma = float(unlimited.sigma)
        plateau = _with(base, sigma=sigma, n_syn=None)
        result = _epsilon_result(plateau, delta, orders, method)
        rdp, ran = _Rdp.of(result, fallback=skipped), {}
    else:
        # the RDP calibration's grid is sorted: ε is a minimum over orders
        sorted_orders = np.unique(orders)
        cal = _calibration(epsilon, delta, base, method, sorted_orders, rtol, budget, stacklevel=2)
        sigma, ran = float(cal.sigma), {"sigma_rdp": float(cal.sigma)}
        rdp = _Rdp.of(cal)
        if choose_accountant(accountant, out_dim, n_syn, method) == "pld":
            pld, stopped = _calibrate_pld_within(epsilon, delta, base, h, rtol, budget)
            if pld is not None:
                sigma = ran["sigma_pld"] = float(pld.sigma)
                if _beyond(_with(base, sigma=sigma)) and cal.sigma < sigma:
                    sigma = float(cal.sigma)  # past the exact profile: the RDP route is smaller
        elif weigh and unlimited is not None and unlimited.sigma < sigma:
            sigma = float(unlimited.sigma)
        if sigma != cal.sigma:  # the RDP numbers of the release at the σ taken
            result = _epsilon_result(_with(base, sigma=sigma), delta, orders, method, [], budget)
            # their own fallback (if the accounting at that σ stopped at its budget), not
            # the calibration's: a number computed exactly is never labelled the plateau's
            rdp = _Rdp.of(result)
    release = _with(base, sigma=sigma)
    known = None
    if unlimited is not None and sigma == unlimited.sigma:
        known = float(unlimited.epsilon)  # the calibration's ε is the profile's at its σ
    at = _account(
        release, delta, rdp, accountant, method, discretization, known, calibrated=True,
        budget=budget, stopped=stopped,
    )  # fmt: skip
    if unlimited is not None:
        ran["sigma_unlimited_pld"] = float(unlimited.sigma)
    at = replace(at, target_epsilon=float(epsilon), **ran)
    if at.accountant == "rdp" and skipped is None and sigma == cal.sigma:
        return replace(at, sigma_post_processing=float(cal.sigma_post_processing))
    return replace(at, sigma_post_processing=_post_sigma(release, at, float(epsilon)))


def _calibrate_pld_within(
    epsilon: float,
    delta: float,
    base: SyntheticDataRelease,
    h: float,
    rtol: float,
    budget: float | None,
):
    """:func:`~synthamp.accountant._pld_calibration._calibrate_sigma_pld` under the time
    budget: (its calibration, None), or (None, the note) when a composition of T releases
    passed the budget or its largest grid: the caller keeps the RDP calibration's σ (sound)."""
    try:
        with time_budget(budget):
            return _calibrate_sigma_pld(epsilon, delta, base, h, rtol), None
    except TimeBudgetExceeded:
        why = f"ran past its time budget ({budget:g} s)"
    except CompositionTooLarge as exc:
        why = f"stopped: {exc.rule}"
    return None, PLD_FALLBACK.format(releases=base.releases, why=why)


def _finite_cannot_win(
    epsilon: float, delta: float, base: SyntheticDataRelease, unlimited
) -> str | None:
    """The note of a finite calibration not started, or None: the bound does not decide.

    A proven lower bound on the finite release's RDP ε at the unlimited
    release's σ_u (:func:`~synthamp.accountant._calibration.finite_epsilon_lower_bound`,
    one engine call) above the target means that the finite calibration's σ is
    above σ_u (ε is non-increasing in σ), so the rule (the smaller σ) takes σ_u
    whatever the finite attempt gives. The finite release's RDP number reported
    is then the plateau's at σ_u (an upper bound on it, docs/theory.md §3).
    """
    n_syn = base.n_syn
    if base.releases != 1:
        return None
    finite = _with(base, sigma=unlimited.sigma)
    bound = finite_epsilon_lower_bound(finite, delta)
    if not bound > epsilon:
        return None
    return (
        f"finite-release accounting (n_syn = {n_syn:,}) not started: a proven lower bound on the "
        f"rdp ε of exactly {n_syn:,} records at the unlimited release's σ = "
        f"{unlimited.sigma:.6g} is {bound:.6g} > ε = {epsilon:g}, so it needs more noise; "
        f"{PLATEAU_FALLBACK}"
    )
