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

from synthamp._validation import InputError

__all__ = [
    "ACCOUNTANTS",
    "accountant_reason",
    "beyond_profile_handover",
    "check_accountant",
    "choose_accountant",
    "finite_or_unlimited",
    "weighs_unlimited_profile",
]

#: Accountants of a release (None: the default rule of :func:`choose_accountant`).
ACCOUNTANTS = ("pld", "rdp")


def check_accountant(accountant: str | None) -> str | None:
    """None (the rule) or one of :data:`ACCOUNTANTS`; else :class:`InputError`."""
    if accountant is not None and accountant not in ACCOUNTANTS:
        raise InputError("accountant", f"must be None, 'rdp' or 'pld', got {accountant!r}")
    return accountant


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


def beyond_profile_handover(
    amplitude: float,
    range_text: str,
    post_processing: float,
    rdp: float | None,
    *,
    symbol: str = "ε",
    releases: int = 1,
) -> tuple[bool, str]:
    """Past the exact profile's tested range: whether the RDP route is the smaller bound, and
    the one line that names the bound the guarantee hands over to.

    ``post_processing`` and ``rdp`` are the same quantity (``symbol``: ε at a σ, or σ of a
    calibration) by the Gaussian mechanism's exact profile of releasing V (Δ_eff; T releases
    compose into one of Δ_eff√T) and by the RDP accountant's curve converted; both are
    certified upper bounds (docs/theory.md §2, §12), so their minimum is one. Ties keep
    post-processing. ``rdp`` None: not computed (post-processing stands alone).
    """
    composed = "" if releases == 1 else f", {releases:,} releases composed"
    post = f"post-processing (the Gaussian mechanism's exact profile with Δ_eff{composed})"
    route = "the RDP route (the release's RDP curve converted to (ε, δ))"
    use_rdp = rdp is not None and rdp < post_processing
    if rdp is None:
        bounds = f"the certified bound of {post}, {symbol} = {post_processing:.6g}, is used"
    else:
        used = "the RDP route" if use_rdp else "post-processing"
        bounds = (
            f"the smaller of two certified bounds, {post}, {symbol} = {post_processing:.6g}, "
            f"and {route}, {symbol} = {rdp:.6g}: {used} is used"
        )
    note = (
        f"C/σ = {amplitude:.4g} lies beyond the exact profile's tested range ({range_text}), "
        f"so the guarantee hands over to {bounds}."
    )
    return use_rdp, note
