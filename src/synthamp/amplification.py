"""When amplification cannot pay (docs/theory.md §16): a one-line outlook for data holders.

Hiding the model behind synthetic data amplifies privacy by the ratio
η = D_α(VᵀV‖WᵀW)/D_α(V‖W), locally (Δ → 0) at most η ≈ 2c²/(2c² + m − 3)
with c = C/σ and m = ⌊d/k⌋ (Theorems 5.1, 5.3; the sharp form is
:func:`synthamp.bounds.amplification_ratio_local_upper`). At a fixed target ε
the RDP curve scales as η/σ², so the noise needed scales as √η and the noise
saved by amplification is about

    saving ≈ 1 − √η ≈ m/(4c²)   when c² ≫ m.

**Rule.** Amplification is called negligible when this predicted saving is
below :data:`NEGLIGIBLE_NOISE_SAVING` (1%), i.e. roughly when m < 0.04·c².
It needs m ≳ 2c² to matter (η = 1/2 there: about 29% less noise). For ridge
regression (docs/theory.md §13) C/Δ = mλ/(2(1 + 2√λ)) with m records, so at a fixed
ε the ratio c grows with the number of records and with λ: the levers are a
wider generator (more features of the same private columns, still accounted as private:
:data:`WIDER_GENERATOR`), a smaller ridge penalty, or a smaller norm bound C.

The outlook is a *heuristic* (it rests on the local expansion): it explains a
result and never feeds a guarantee. The tests compare its prediction with the
noise saving the exact accountant measures.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from synthamp._parameters import validated
from synthamp.bounds import _check_out_dim, _local_upper_scaled

__all__ = [
    "NEGLIGIBLE_NOISE_SAVING",
    "WIDER_GENERATOR",
    "AmplificationOutlook",
    "amplification_outlook",
]

#: Amplification is negligible when the predicted relative noise saving is below this.
NEGLIGIBLE_NOISE_SAVING = 0.01

#: How a generator on private features is widened: its features stay private (a public
#: design needs inputs its owner declares public, docs/theory.md §19; never a default).
WIDER_GENERATOR = (
    "a wider generator (more features of the same private columns, accounted as private)"
)


@dataclass(frozen=True)
class AmplificationOutlook:
    """What amplification can do at a setting (:func:`amplification_outlook`).

    Attributes
    ----------
    negligible : bool
        Predicted noise saving below :data:`NEGLIGIBLE_NOISE_SAVING`.
    c : float
        C/σ.
    width : int
        m = ⌊d/k⌋, the width per record dimension.
    eta : float
        Local upper bound on the amplification ratio (heuristic).
    predicted_saving : float
        1 − √η, the predicted relative noise saving at a fixed ε.
    width_needed : float
        2c², the width per record dimension from which amplification matters.
    message : str
        One line: the verdict, why (c against d) and the levers.
    """

    negligible: bool
    c: float
    width: int
    eta: float
    predicted_saving: float
    width_needed: float
    message: str


def amplification_outlook(
    dim: int,
    norm_bound: float,
    sigma: float,
    out_dim: int = 1,
    noise_saved: float | None = None,
    wider: str = WIDER_GENERATOR,
) -> AmplificationOutlook:
    """Say whether amplification can pay at (d, C, σ, k) (docs/theory.md §16; heuristic).

    Parameters
    ----------
    dim : int
        Model width d.
    norm_bound : float
        C > 0, bound on ‖v‖_F.
    sigma : float
        Noise scale σ > 0 (the calibrated or given σ).
    out_dim : int, default 1
        Record dimension k.
    noise_saved : float, optional
        The noise the guarantee's accountant saves (1 − σ/σ_post-processing); when
        given, the line states it beside the prediction, and for k > 1 why they
        differ (the certified Theorem 5.4 bound is looser than the local rate), so
        the outlook never contradicts the number saved.
    wider : str, default :data:`WIDER_GENERATOR`
        The advice to widen the model (a public design passes its own: a larger width).

    Returns
    -------
    AmplificationOutlook

    Examples
    --------
    docs/theory.md §16: m = 5000 records, λ = 1, B = 1, (ε, δ) = (1, 1e-5) give
    c ≈ 200; with d = 20 features amplification cannot pay.

    >>> outlook = amplification_outlook(20, norm_bound=0.5, sigma=0.5 / 206)
    >>> outlook.negligible, round(100 * outlook.predicted_saving, 3)
    (True, 0.011)
    """
    dim, norm_bound, sigma = validated(dim=dim, norm_bound=norm_bound, sigma=sigma)
    out_dim = _check_out_dim(out_dim, dim)
    eta = _local_upper_scaled(dim // out_dim, norm_bound / sigma)
    c = norm_bound / sigma
    width = dim // out_dim
    saving = 1.0 - math.sqrt(eta)
    needed = 2.0 * c * c
    negligible = saving < NEGLIGIBLE_NOISE_SAVING
    name = "d" if out_dim == 1 else "⌊d/k⌋"
    shown = f"{name} = {width}"
    c2 = c * c
    relation = "≫" if c2 >= 10 * width else (">" if c2 > width else "against")
    if eta >= 1.0:  # the local rate gives no amplification at any σ (⌊d/k⌋ too small)
        message = (
            f"amplification is not available here: with {shown} the local rate (Theorem 5.3) "
            f"gives none for any σ; use {wider}"
        )
    elif negligible:
        message = (
            f"amplification is negligible here (about {100 * saving:.2g}% less noise "
            f"predicted): c = C/σ = {c:.3g} gives c² = {c2:.2g} {relation} {shown}; it needs "
            f"{name} ≳ 2c² = {needed:.2g}: use {wider} or a smaller norm bound C (a smaller ridge "
            "penalty λ lowers c too, but adds noise to the model: `synthamp plan` weighs λ)"
        )
    else:
        message = (
            f"amplification can pay here (about {100 * saving:.2g}% less noise predicted): "
            f"c = C/σ = {c:.3g}, c² = {c2:.2g} against {shown}"
        )
    if noise_saved is not None:
        message += f"; the guarantee's accountant saves {100 * noise_saved:.2g}%"
        if out_dim > 1 and noise_saved < saving - NEGLIGIBLE_NOISE_SAVING:
            message += (
                ": for k > 1 it uses the certified bound (Theorem 5.4), looser than the local "
                "rate this prediction rests on (a heuristic)"
            )
    return AmplificationOutlook(
        negligible=negligible,
        c=c,
        width=width,
        eta=eta,
        predicted_saving=saving,
        width_needed=needed,
        message=message,
    )
