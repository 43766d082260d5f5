"""The k = 2 realised worst pair: its likelihood-ratio statistic, exact rates, and a family bound.

On an orthogonal design the pair yᵢ = Be₁ → Be₂ (every other row 0) gives
vᵀv = c²e₁e₁ᵀ and wᵀw = c²e₂e₂ᵀ, c = B/(1 + mλ) (docs/theory.md §20, "Lower bound").
With S = VᵀV/σ² the unlimited release's Gram, S₁₁ and S₂₂ are independent (the
columns of V are), χ²_D(a²) and χ²_D(0) under D, swapped under D′ (a = c/σ), and

    log p/q (S) = h(S₁₁) − h(S₂₂),   h(x) = G_ν(a√x) = log ₀F₁(D/2; a²x/4),  ν = D/2 − 1

(the factors e^{−a²/2} cancel): the **likelihood-ratio statistic** U = h(S₁₁) − h(S₂₂)
(:func:`loss_statistic`), so the threshold tests on U are the Neyman–Pearson tests.
By the swap symmetry U has under D′ the law of −U under D.

**Exact rates** (:func:`loss_rates`): TPR(u) = P_D(U > u) = E[SF_{χ²_D(a²)}(h⁻¹(u + h(X)))],
X ~ χ²_D, and FPR(u) = P_D′(U > u) = E[SF_{χ²_D}(h⁻¹(u + h(Y)))], Y ~ χ²_D(a²): a
trapezoidal rule in log x against the outer law's density (smooth and doubly
exponentially small at both ends: the rule converges geometrically; self-normalised),
h⁻¹ by interpolation of log x against log h on a log grid (linear below it, where
h(x) ≈ a²x/(2D)). Both tails are computed as upper tails (no 1 − p for small rates);
FNR = 1 − TPR. They serve the trade-off curve and the GDP fit at rates >= 1/runs; the
pair's ε(δ) comes from its PLD (:func:`synthamp.accountant.orthogonal_node_pld`).

**A family lower bound** (:func:`product_family_epsilon`). Assumption (F₂): on each
dataset S₁₁ and S₂₂ are independent, each χ²_D(θ²) for some unknown θ (the
mechanism's law, with any amplitudes). Four one-sided DKW bands (level (1 − γ)/4
each, simultaneous by a union bound; Massart 1990) on the four marginal samples give,
as in :mod:`synthamp.audit._family`, a₁ ≥ a₁↓ (S₁₁ on D), b₂ ≤ b₂↑ (S₂₂ on D),
b₁ ≤ b₁↑ (S₁₁ on D′), a₂ ≥ a₂↓ (S₂₂ on D′). With â = min(a₁↓, a₂↓) and
b̂ = max(b₁↑, b₂↑): each coordinate's pair (χ²_D(a₁²), χ²_D(b₁²)) has a trade-off
curve pointwise below that of (χ²_D(â²), χ²_D(b̂²)) (monotone likelihood ratio in θ,
step 3 of :mod:`synthamp.audit._family`), and so does the second coordinate's reverse
pair; tensor products keep that order (Dong, Roth and Su 2022, Lemma C.1), so the
true pair of (S₁₁, S₂₂) is Blackwell-more-informative than the symmetric product pair
(χ²_D(â²) ⊗ χ²_D(b̂²), χ²_D(b̂²) ⊗ χ²_D(â²)), whose ε(δ) is bounded from below by the
optimistic companion of its PLD (remove ⊛ add of the k = 1 pair (â, b̂)). (S₁₁, S₂₂) is
a function of the release: ε_lower <= ε_true with probability >= γ under (F₂). A
two-sided goodness-of-fit band per sample (level :data:`~synthamp.audit._family.FIT_LEVEL`/4
each) sets ε_lower = 0 when no χ²_D(θ²) fits one of them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp.accountant._angle_reduction import _orthogonal_node_pld
from synthamp.audit._family import _FIT_RTOL, FIT_LEVEL, _Bands, dkw_width
from synthamp.divergence._laws import NoncentralChiSquare
from synthamp.divergence._special import log_bessel_i_normalized

__all__ = [
    "ProductFamilyEpsilon",
    "loss_rates",
    "loss_statistic",
    "pair_pld",
    "product_family_epsilon",
]

#: Loss grid step of the pair's PLD (its optimistic companion is a lower bound at any step).
PLD_STEP = 1e-3
#: Points of the trapezoidal rule over the outer law (log x).
_OUTER_POINTS = 1500
#: Outer range: the outer law's quantiles at this tail probability.
_OUTER_TAIL = 1e-17


def loss_statistic(diagonal: ArrayLike, dim: int, amp: float) -> NDArray[np.float64]:
    """U = h(x₁) − h(x₂) of rows (x₁, x₂) = the normalised Gram's diagonal (S₁₁, S₂₂)."""
    x = np.asarray(diagonal, dtype=float)
    nu = 0.5 * dim - 1.0
    root = np.sqrt(np.maximum(x, 0.0))
    return log_bessel_i_normalized(nu, amp * root[:, 0]) - log_bessel_i_normalized(
        nu, amp * root[:, 1]
    )


class _Inverse:
    """h⁻¹ on [0, ∞) for h(x) = G_ν(a√x) (increasing, h(0) = 0)."""

    def __init__(self, dim: int, amp: float, top: float):
        self.x = np.geomspace(1e-9 * dim, 4.0 * top, 20_000)
        self.h = _h(dim, amp, self.x)
        self.log_x, self.log_h = np.log(self.x), np.log(self.h)

    def __call__(self, y: NDArray[np.float64]) -> NDArray[np.float64]:
        out = np.zeros_like(y)
        small = (y > 0) & (y <= self.h[0])
        out[small] = self.x[0] * y[small] / self.h[0]
        big = y > self.h[0]
        out[big] = np.exp(np.interp(np.log(y[big]), self.log_h, self.log_x, right=np.inf))
        return out


def _outer(dim: int, amp: float) -> tuple[NDArray, NDArray]:
    """Nodes x and normalised weights of the trapezoidal rule in log x for χ²_D(amp²)."""
    law = NoncentralChiSquare(dim, amp)
    lo = law.quantile_t(math.log(_OUTER_TAIL), False)
    hi = law.quantile_t(math.log(_OUTER_TAIL), True)
    t = np.linspace(lo, hi, _OUTER_POINTS)
    x = np.exp(t)
    log_w = law.logpdf(x) + t
    w = np.exp(log_w - np.max(log_w))
    return x, w / np.sum(w)


def loss_rates(
    thresholds: ArrayLike, dim: int, amp: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(FPR, FNR) of the tests "U > u ⇒ D" on the realised k = 2 pair (module docstring)."""
    u = np.atleast_1d(np.asarray(thresholds, dtype=float))
    central, signal = NoncentralChiSquare(dim, 0.0), NoncentralChiSquare(dim, amp)
    x_c, w_c = _outer(dim, 0.0)
    x_s, w_s = _outer(dim, amp)
    inverse = _Inverse(dim, amp, float(max(x_c[-1], x_s[-1])))
    h_c = _h(dim, amp, x_c)
    h_s = _h(dim, amp, x_s)
    tpr = np.empty(u.size)
    fpr = np.empty(u.size)
    for j, value in enumerate(u):
        inner = inverse(value + h_c)  # S₁₁ ~ χ²_D(a²) above h⁻¹(u + h(S₂₂)), S₂₂ ~ χ²_D
        tpr[j] = float(np.sum(w_c * np.exp(signal.log_tail_at(inner, True))))
        inner = inverse(value + h_s)  # S₁₁ ~ χ²_D above h⁻¹(u + h(S₂₂)), S₂₂ ~ χ²_D(a²)
        fpr[j] = float(np.sum(w_s * np.exp(central.log_tail_at(inner, True))))
    return np.clip(fpr, 0.0, 1.0), np.clip(1.0 - tpr, 0.0, 1.0)


def _h(dim: int, amp: float, x: NDArray) -> NDArray:
    return log_bessel_i_normalized(0.5 * dim - 1.0, amp * np.sqrt(x))


def loss_thresholds(dim: int, amp: float, runs: int, count: int) -> NDArray[np.float64]:
    """``count`` thresholds of U between D's lower and D′'s upper 1/runs quantiles.

    From the exact rates only (fixed before the runs). By the swap symmetry the upper
    end is minus the lower one."""
    top = float(_h(dim, amp, np.array([NoncentralChiSquare(dim, amp).from_t(
        NoncentralChiSquare(dim, amp).quantile_t(math.log(1e-12), True))]))[0])  # fmt: skip
    coarse = np.linspace(-top, top, 161)
    _, fnr = loss_rates(coarse, dim, amp)
    target = 1.0 / runs
    j = int(np.searchsorted(fnr, target))  # fnr increases with u
    j = min(max(j, 1), coarse.size - 1)
    lo = float(np.interp(target, fnr[j - 1 : j + 1], coarse[j - 1 : j + 1]))
    lo = min(lo, -abs(lo) * 1e-3 - 1e-9) if lo >= 0 else lo
    return np.linspace(lo, -lo, count)


def pair_pld(dim: int, amp: float, low: float = 0.0):
    """The PLD of the symmetric product pair (χ²_D(a²) ⊗ χ²_D(b²), swapped), b = ``low``."""
    return _orthogonal_node_pld(dim, amp, 1, PLD_STEP, low=low)


@dataclass(frozen=True)
class ProductFamilyEpsilon:
    """Lower confidence bound on ε of the realised k = 2 pair under (F₂) (module docstring).

    Attributes
    ----------
    epsilon : float
        ε_lower >= 0 (0 if â <= b̂ or a sample fails its goodness-of-fit band).
    amp_signal_lower : tuple of float
        (a₁↓, a₂↓): S₁₁ on D, S₂₂ on D′.
    amp_central_upper : tuple of float
        (b₁↑, b₂↑): S₁₁ on D′, S₂₂ on D.
    band : float
        The largest DKW half-width of the four one-sided bands.
    fits : bool
    delta, confidence : float
    """

    epsilon: float
    amp_signal_lower: tuple[float, float]
    amp_central_upper: tuple[float, float]
    band: float
    fits: bool
    delta: float
    confidence: float
    family: str = "chi2_D(theta^2) on each diagonal entry, independent"


def product_family_epsilon(
    diagonal_p: ArrayLike,
    diagonal_q: ArrayLike,
    dim: int,
    amp: float,
    delta: float,
    confidence: float,
) -> ProductFamilyEpsilon:
    """Lower confidence bound on ε(δ) from the diagonals (S₁₁, S₂₂) of the runs on D and D′.

    ``amp`` (the nominal a) only starts the root brackets; the bound does not depend on it.
    """
    p = np.asarray(diagonal_p, dtype=float)
    q = np.asarray(diagonal_q, dtype=float)

    def law_of(theta: float) -> NoncentralChiSquare:
        return NoncentralChiSquare(dim, theta)

    level = (1.0 - confidence) / 4.0
    samples = {  # (sample, nominal amplitude): signal ones bounded below, central above
        "a1": (np.sort(p[:, 0]), amp),
        "b2": (np.sort(p[:, 1]), 0.0),
        "b1": (np.sort(q[:, 0]), 0.0),
        "a2": (np.sort(q[:, 1]), amp),
    }
    bands = {key: _Bands(x, law_of, start, 0.0) for key, (x, start) in samples.items()}
    widths = {key: dkw_width(x.size, level) for key, (x, _) in samples.items()}
    a1 = bands["a1"].lowest(widths["a1"])
    a2 = bands["a2"].lowest(widths["a2"])
    b1 = max(bands["b1"].highest(widths["b1"]), 0.0)
    b2 = max(bands["b2"].highest(widths["b2"]), 0.0)
    fits = True
    for key, (x, _) in samples.items():  # two-sided, level FIT_LEVEL/4 per sample
        width = dkw_width(x.size, FIT_LEVEL / 8.0)
        fits &= bands[key].lowest(width, _FIT_RTOL) <= bands[key].highest(width, _FIT_RTOL)
    a_hat, b_hat = min(a1, a2), max(b1, b2)
    epsilon = 0.0
    if fits and a_hat > b_hat:
        epsilon = max(0.0, float(pair_pld(dim, a_hat, b_hat).epsilon_lower(delta)))
    return ProductFamilyEpsilon(
        epsilon=epsilon,
        amp_signal_lower=(a1, a2),
        amp_central_upper=(b1, b2),
        band=max(widths.values()),
        fits=bool(fits),
        delta=delta,
        confidence=confidence,
    )
