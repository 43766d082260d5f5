"""Which accountant a release's guarantee uses, and the numbers of both (docs/theory.md §12, §14).

The RDP accountant (``_curves``, ``_calibration``) and the PLD accountant
(``_pld``, on the exact privacy profile ``_profile``) both give valid upper
bounds; the PLD's is tighter. The default: pld for k = 1, an unlimited
release and exact accounting; rdp otherwise (k > 1 has no exact profile; a
finite n_syn's exact PLD is slow). The release pipeline reports both numbers
and names the one the guarantee uses. For k = 1 and a finite n_syn the default
also weighs the unlimited release's exact profile, which bounds every n_syn
(docs/theory.md §3), and takes whichever needs less noise
(:func:`weighs_unlimited_profile`, :func:`finite_or_unlimited`).
"""

from __future__ import annotations

from synthamp.accountant._curves import compute_epsilon
from synthamp.accountant._gaussian import gaussian_epsilon
from synthamp.accountant._pld import calibrate_sigma_pld, gaussian_sigma
from synthamp.accountant._profile import profile_epsilon
from synthamp.accountant._releases import SyntheticDataRelease

__all__ = [
    "ACCOUNTANTS",
    "accountant_reason",
    "choose_accountant",
    "finite_or_unlimited",
    "gaussian_baseline",
    "tight_accounting",
    "weighs_unlimited_profile",
]

#: Accountants of a release (None: the default rule of :func:`choose_accountant`).
ACCOUNTANTS = ("pld", "rdp")


def choose_accountant(accountant: str | None, out_dim: int, n_syn: int | None, method: str) -> str:
    """pld when requested, or by default for k = 1, unlimited, exact accounting; else rdp."""
    if accountant is not None:
        return accountant
    return "pld" if out_dim == 1 and n_syn is None and method == "exact" else "rdp"


def accountant_reason(accountant: str | None, out_dim: int, n_syn: int | None, method: str) -> str:
    """Why :func:`choose_accountant` chose as it did, in one line."""
    if accountant is not None:
        return "requested"
    if out_dim > 1:
        return "k > 1: no exact profile; the certified RDP bound (Theorem 5.4) is used"
    if method != "exact":
        return (
            f"--accounting {method}: the RDP accounting asked for is used (--accountant pld "
            "for the exact profile)"
        )
    if n_syn is not None:
        return "finite n_syn: the exact PLD is slow there (ask --accountant pld); RDP is used"
    return "k = 1: the exact privacy profile composed by PLD (tighter than RDP)"


def weighs_unlimited_profile(
    accountant: str | None, out_dim: int, n_syn: int | None, method: str
) -> bool:
    """Whether the default rule also weighs the unlimited release's exact profile (PLD).

    For k = 1, a finite ``n_syn`` and exact accounting with no accountant
    requested: the first n_syn records are a function of the unlimited stream
    (docs/theory.md §3), so the unlimited release's exact privacy profile bounds
    every n_syn; it can need less noise than the finite release's RDP
    accounting, whose conversion to (ε, δ) loses more than the amplification of
    few records gains. An explicit ``accountant`` is kept as asked.
    """
    return accountant is None and out_dim == 1 and n_syn is not None and method == "exact"


def finite_or_unlimited(
    finite: float,
    unlimited: float,
    *,
    symbol: str,
    n_syn: int,
    finite_accounting: str | None = None,
    fallback: str | None = None,
    show_values: bool = True,
    sigma: float | None = None,
) -> tuple[bool, str]:
    """Whether the unlimited release's guarantee needs less noise, and a one-line why.

    ``finite`` and ``unlimited`` are the same quantity (``symbol``: σ of a
    calibration, or ε at a given σ and δ) by the accounting of exactly ``n_syn``
    records (``finite_accounting``, default its RDP accounting) and by the
    unlimited release's exact profile (PLD, valid for every n_syn, docs/theory.md §3);
    the smaller is the guarantee (either is sound, so is their minimum). With
    ``fallback`` (the finite accounting stopped at its time budget) the note
    starts with it. Ties keep the finite accounting. With ``sigma`` (ε compared
    at the σ of a calibration that took the smaller of the two σ) the note
    says so and names that σ. Values are printed to 6 significant digits.
    """
    what = finite_accounting or f"the rdp accounting of exactly {n_syn:,} records"
    profile = "exact privacy profile, valid for any number of records"
    use_unlimited = unlimited < finite
    at = "" if sigma is None else f" at σ = {sigma:.6g}"
    if use_unlimited:
        compared = f" ({symbol} = {unlimited:.6g} against {finite:.6g}{at})"
        note = (
            f"The unlimited-release guarantee ({profile}) is tighter here than {what}"
            f"{compared}, so it is used."
        )
    else:
        compared = f" ({symbol} = {finite:.6g} against {unlimited:.6g}{at})"
        note = (
            f"{what[0].upper()}{what[1:]} is at least as tight here as the unlimited-release "
            f"guarantee ({profile}){compared}, so it is used."
        )
    if not show_values:
        note = note.replace(compared, "")
    if sigma is not None:
        note = f"σ is calibrated by whichever of the two needs less noise. {note}"
    if fallback:
        note = f"{fallback.rstrip('.')}. {note}"
    return use_unlimited, note


def gaussian_baseline(epsilon: float, delta: float, sensitivity: float, sigma: float) -> dict:
    """The post-processing baseline of a PLD guarantee, by the same (exact) accountant:
    the σ the Gaussian mechanism (releasing V) needs for ``epsilon`` (``sigma`` itself
    at ε = 0: nothing to compare with) and its ε at ``sigma``."""
    return {
        "sigma_post_processing": gaussian_sigma(epsilon, delta, sensitivity)
        if epsilon > 0
        else sigma,
        "epsilon_post_processing": gaussian_epsilon(delta, sensitivity, sigma),
    }


def tight_accounting(
    *, rdp: dict, choice: str | None, epsilon, delta: float, common: dict, n_syn, method: str
) -> dict:
    """The RDP accounting ``rdp`` (sigma, epsilon, optimal_order), completed by the PLD's.

    Returns the fields that change: with pld the guarantee is the PLD's (a
    calibration by PLD when ``epsilon`` is the target), its post-processing
    baseline the Gaussian mechanism's exact profile, and the RDP ε at the same
    σ is kept; with rdp the PLD ε is added for comparison when it is cheap
    (k = 1 unlimited). Post-processing (releasing V) keeps its own accounting.
    """
    chosen = choose_accountant(choice, common["out_dim"], n_syn, method)
    if method == "post-processing":
        return {"epsilon_rdp": rdp["epsilon"]}
    sigma = rdp["sigma"]
    if chosen == "pld" and epsilon is not None:
        sigma = calibrate_sigma_pld(epsilon, delta, **common, n_syn=n_syn).sigma
    release = SyntheticDataRelease(**common, sigma=sigma, n_syn=n_syn)
    eps_pld = None
    if chosen == "pld" or (common["out_dim"] == 1 and n_syn is None):
        eps_pld = float(profile_epsilon(release, delta).epsilon)
    eps_rdp, order = rdp["epsilon"], rdp["optimal_order"]
    if sigma != rdp["sigma"]:
        at_sigma = compute_epsilon(release, delta, method=method)
        eps_rdp, order = float(at_sigma.epsilon), float(at_sigma.optimal_order)
    if chosen == "rdp":
        return {"epsilon_rdp": eps_rdp, "epsilon_pld": eps_pld}
    return {
        "sigma": sigma,
        "epsilon": eps_pld,
        **gaussian_baseline(eps_pld, delta, release.effective_sensitivity, sigma),
        "optimal_order": order,  # of the RDP number reported alongside
        "kind": "exact" if common["out_dim"] == 1 else "certified",
        "accountant": "pld",
        "epsilon_rdp": eps_rdp,
        "epsilon_pld": eps_pld,
    }
