"""One direction's discrete privacy loss distribution (PLD): the distribution and its algebra.

A direction of a mechanism (remove: P against Q; add: Q against P) with
hockey-stick curve δ(ε) is turned into a *pessimistic* discrete PLD by
connect-the-dots from δ on the grid ε_i = i·h (Doroshenko, Ghazi, Kamath,
Kumar and Manurangsi 2022, Algorithm 1; the formula of dp_accounting's
``pld_pmf.create_pmf_pessimistic_connect_dots_fixed_gap``; :func:`_connect_dots`):
its hockey-stick curve passes through (e^{ε_i}, δ(ε_i)) and is linear in e^ε
between, hence lies above the convex δ at every ε ∈ ℝ, i.e. it dominates the
direction in Blackwell's order, which composition preserves. The δ(ε_i) used
are upper bounds (errors added). Output masses are never binned (binning is a
post-processing, not pessimistic).

Composition of two PLDs is a convolution (numpy/scipy's real FFT,
:meth:`PrivacyLossDistribution.compose`); the T-fold composition of one is one
FFT power on a Chernoff window, its aliasing and rounding bounded and added
(:mod:`synthamp.accountant._pld_power`). After each product the tails of mass
below ``tail_mass`` are cut pessimistically: the lower tail is moved up to the
first kept loss (a larger loss only increases δ), the upper tail to +∞.

Discretisation error, and the lower bound
-----------------------------------------
Each direction's *companion* is the optimistic PLD of the endpoint pair (a
feasible pair, never a dominating envelope): its privacy loss rounded *down*
to the grid, built from lower bounds S(ε_i) <= P(L > ε_i) of the loss under
the direction's first law (:func:`synthamp.accountant._pld_grid._survivals`:
tails at thresholds put just beyond every grid point; for the Gaussian
mechanism Φ(μ/2 − ε/μ)). Its loss is stochastically below L, and
δ(ε) = E[(1 − e^{ε − ΣL})_+] is increasing in every loss, so every
composition of companions has δ below the composed pair's at every ε; the
companions' tails are dropped after each product (dropping mass only lowers
δ). So the companion's ε(δ) is a lower bound on that direction's composed ε
(read at δ plus its ``delta_slack``, the FFT power's accounted error);
``epsilon − epsilon_lower`` bounds the discretisation (and numerical) error of
the reported ε (about T·h/2 for T releases).

A finite release's tails cost a quadrature each, too many for a threshold at
every grid point: its companion is the connect-the-dots A of the endpoint's
*lower* bracket (no mass at +∞), with δ_A(ε + h) <= δ(ε) at every ε (on
[ε_i, ε_{i+1}], δ_A(ε + h) <= δ_A(ε_{i+1}) = lower bracket <= δ(ε_{i+1}) <=
δ(ε)); since δ_{A⊗C}(ε) = E_{L_C}[δ_A(ε − L_C)] such shifts add under
composition, and ε_{⊗A}(δ) − Σh (``shift``) is the lower bound (error ~T·h).

References
----------
Doroshenko, V., Ghazi, B., Kamath, P., Kumar, R. and Manurangsi, P. (2022).
Connect the dots: tighter discrete approximations of privacy loss
distributions. PETS.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._budget import check_budget
from synthamp._kinds import Kind
from synthamp._parameters import validated_one
from synthamp._validation import InputError
from synthamp.accountant._pld_power import chernoff_window, fft_power

__all__ = [
    "BUDGETED_POINTS",
    "DEFAULT_DISCRETIZATION",
    "DEFAULT_TAIL_MASS",
    "MAX_COMPOSED_POINTS",
    "CompositionTooLarge",
    "PrivacyLossDistribution",
]

#: Default discretisation interval h of the privacy loss (dp_accounting's default).
DEFAULT_DISCRETIZATION = 1e-4
#: Default tail mass cut (pessimistically) after each composition step.
DEFAULT_TAIL_MASS = 1e-15

#: Largest grid (points) a composition transforms: 2²⁴ ≈ 1.7·10⁷ (134 MB per array, an FFT
#: of a few seconds). The composed window grows as √T·(the spread of one run's loss)/h: at
#: h = 1e-4 and T = 10⁹, σ = 20 (ε ≈ 90) needs 1.7·10⁶ points, σ = 2 (ε ≈ 5·10⁵) 6·10⁹.
#: Past it the composition stops (:class:`CompositionTooLarge`); the guarantee room then
#: states the RDP accountant's ε, which composes T releases exactly and at once.
MAX_COMPOSED_POINTS = 1 << 24
#: Grids from which a composition checks the caller's time budget (:mod:`synthamp._budget`)
#: before each convolution or transform: 2²⁰ ≈ 10⁶ points, about a second each.
#: Below it a composition is never cut, so an ordinary PLD (T = 2 at h = 1e-4: ~10⁵ points)
#: gives the same ε on a loaded machine as on an idle one.
BUDGETED_POINTS = 1 << 20


class CompositionTooLarge(InputError):
    """A PLD composition whose grid would pass :data:`MAX_COMPOSED_POINTS` (``releases``)."""

    def __init__(self, points: int):
        super().__init__(
            "releases",
            f"the PLD composition needs a grid of {points:,} points or more (at most "
            f"{MAX_COMPOSED_POINTS:,}): use fewer releases, a larger `discretization`, or the "
            "RDP accountant",
        )


# --------------------------------------------------------------------------- the distribution


@dataclass(frozen=True, eq=False)
class PrivacyLossDistribution:
    """A pessimistic discrete PLD: masses of the privacy loss on the grid (lower + i)·h.

    Attributes
    ----------
    discretization : float
        h.
    lower : int
        Grid index of the first mass.
    probs : ndarray
        Masses (of the dominating pair's first distribution) at losses
        (lower + i)·h.
    infinity_mass : float
        Mass at +∞.
    lower_bound : PrivacyLossDistribution or None
        The optimistic companion (losses rounded down; module docstring),
        for a lower bound on ε; None on itself.
    shift : float
        On a companion: subtracted from its ε (summed under composition; 0
        for the rounded-down companions, which need no shift).
    kind : Kind
        Weakest kind of the composed profiles.
    optimistic : bool
        True for a lower companion: its tails are dropped after each
        convolution (dropping mass only lowers δ), not moved pessimistically.
    delta_slack : float
        On a companion: a bound on how far its δ may lie above the exact
        composition's (the FFT power's aliasing and rounding,
        :mod:`synthamp.accountant._pld_power`); its ε is read at δ + slack
        (:meth:`epsilon_lower_at`). 0 on a pessimistic PLD, which adds that
        error to ``infinity_mass`` instead.
    """

    discretization: float
    lower: int
    probs: NDArray[np.float64]
    infinity_mass: float
    lower_bound: PrivacyLossDistribution | None = None
    shift: float = 0.0
    kind: Kind = Kind.EXACT
    optimistic: bool = False
    delta_slack: float = 0.0

    @property
    def losses(self) -> NDArray[np.float64]:
        return (self.lower + np.arange(self.probs.size)) * self.discretization

    def delta(self, epsilon: ArrayLike) -> NDArray[np.float64]:
        """δ(ε) = Σ_{ℓ > ε} p_ℓ (1 − e^{ε − ℓ}) + mass at +∞ (an upper bound on δ*)."""
        eps = np.atleast_1d(np.asarray(epsilon, dtype=float))
        losses = self.losses
        out = np.empty(eps.shape)
        for i, e in enumerate(eps):
            above = losses > e
            out[i] = self.infinity_mass + float(
                np.sum(self.probs[above] * -np.expm1(e - losses[above]))
            )
        return out

    def epsilon(self, delta: float) -> float:
        """The smallest ε >= 0 with δ(ε) <= ``delta`` (math.inf if none)."""
        if self.infinity_mass > delta:
            return math.inf
        losses, probs = self.losses, self.probs
        keep = (losses > 0) & (probs > 0)
        losses, probs = losses[keep][::-1], probs[keep][::-1]  # descending
        if losses.size == 0:
            return 0.0
        # A_k = Σ_{j <= k} p_j, B_k = Σ_{j <= k} p_j e^{−ℓ_j} over the k + 1 largest losses
        mass = np.cumsum(probs)
        # δ at ε = ℓ_{k+1} (next lower loss, or 0): set {ℓ > ε} = first k + 1 losses
        nxt = np.append(losses[1:], 0.0)
        if losses[0] < 700.0:
            weighted = np.cumsum(probs * np.exp(-losses))
            at_next = self.infinity_mass + mass - np.exp(nxt) * weighted
        else:  # losses past 709: e^{−ℓ} underflows, e^ε overflows; log B_k instead
            with np.errstate(divide="ignore"):
                log_weighted = np.logaddexp.accumulate(np.log(probs) - losses)
            at_next = self.infinity_mass + mass - np.exp(nxt + log_weighted)
        over = np.nonzero(at_next > delta)[0]
        if over.size == 0:
            return 0.0
        k = over[0]  # δ(ℓ_{k+1}) > δ >= δ(ℓ_k): solve A_k − e^ε B_k = δ − mass at +∞
        if losses[0] < 700.0:
            eps = math.log((self.infinity_mass + mass[k] - delta) / weighted[k])
        else:
            eps = math.log(self.infinity_mass + mass[k] - delta) - float(log_weighted[k])
        return float(min(max(eps, nxt[k], 0.0), losses[k]))

    def compose(self, other: PrivacyLossDistribution, tail_mass: float = DEFAULT_TAIL_MASS):
        """The PLD of both mechanisms run on the same data (a convolution)."""
        if other.discretization != self.discretization:
            raise InputError("discretization", "composed PLDs must share the discretisation")
        points = self.probs.size + other.probs.size - 1
        if points > MAX_COMPOSED_POINTS:
            raise CompositionTooLarge(points)
        if points > BUDGETED_POINTS:  # a long convolution: the caller's time budget applies
            check_budget()
        probs = _convolve(self.probs, other.probs)
        lower, probs, cut = _truncate(self.lower + other.lower, probs, tail_mass, self.optimistic)
        inf = 1.0 - (1.0 - self.infinity_mass) * (1.0 - other.infinity_mass) + cut
        companion = None
        if self.lower_bound is not None and other.lower_bound is not None:
            companion = self.lower_bound.compose(other.lower_bound, tail_mass)
        slack = self.delta_slack + other.delta_slack + self.delta_slack * other.delta_slack
        return PrivacyLossDistribution(
            self.discretization,
            lower,
            probs,
            min(inf, 1.0),
            companion,
            self.shift + other.shift,
            _weakest(self.kind, other.kind),
            self.optimistic,
            slack,
        )

    def epsilon_lower_at(self, delta: float) -> float:
        """On a companion: a lower bound on the exact composition's ε at ``delta``.

        Its δ is at most the exact one plus ``delta_slack``, so its ε at
        δ + slack is at most the exact ε at δ; minus ``shift``.
        """
        return self.epsilon(delta + self.delta_slack) - self.shift

    def self_compose(self, count: int, tail_mass: float = DEFAULT_TAIL_MASS):
        """The PLD of ``count`` independent runs (one FFT power, its error accounted)."""
        return self._self_compose(validated_one("count", count), tail_mass)

    def _self_compose(self, count: int, tail_mass: float) -> PrivacyLossDistribution:
        """The kernel of :meth:`self_compose`, for a validated ``count``.

        One FFT power on the Chernoff window of the composed loss
        (:func:`synthamp.accountant._pld_power.fft_power`); its error (the
        aliased mass, at most ``tail_mass``, and the rounding) is added to the
        mass at +∞ (pessimistic) or carried as ``delta_slack`` (companion).
        """
        if count == 1:
            return self
        companion = None
        if self.lower_bound is not None:
            companion = self.lower_bound._self_compose(count, tail_mass)
        window = chernoff_window(self.probs, count, tail_mass)
        points = max(window[1] - window[0] + 1, self.probs.size)
        if points > MAX_COMPOSED_POINTS:
            raise CompositionTooLarge(points)
        if points > BUDGETED_POINTS:  # a long transform: the caller's time budget applies
            check_budget()  # (fft_power also stops before a power that cannot end in time)
        probs, error = fft_power(self.probs, count, window, tail_mass)
        lower = count * self.lower + window[0]  # (its tails are the window's: nothing to cut)
        finite = 0.0
        if self.infinity_mass < 1.0:  # (1 − mass at +∞)^T, stably
            finite = math.exp(count * math.log1p(-self.infinity_mass))
        inf, slack = 1.0 - finite, self.delta_slack
        if self.optimistic:  # the slack of the T-fold of a slacked PLD: (1 + s)^T − 1, plus e
            slack = math.expm1(count * math.log1p(slack)) + error
        else:
            inf += error
        return PrivacyLossDistribution(
            self.discretization,
            lower,
            probs,
            min(inf, 1.0),
            companion,
            count * self.shift,
            self.kind,
            self.optimistic,
            slack,
        )


def _weakest(a: Kind, b: Kind) -> Kind:
    order = {Kind.EXACT: 0, Kind.CERTIFIED: 1, Kind.HEURISTIC: 2}
    return a if order[a] >= order[b] else b


def _convolve(p: NDArray, q: NDArray) -> NDArray:
    """Linear convolution by real FFT (negative round-off clipped to 0)."""
    size = p.size + q.size - 1
    if min(p.size, q.size) <= 64:
        return np.convolve(p, q)
    # scipy.fft is heavy (~0.1 s to import): loaded by the first composition
    from scipy import fft

    n = fft.next_fast_len(size, real=True)
    out = fft.irfft(fft.rfft(p, n) * fft.rfft(q, n), n)[:size]
    return np.maximum(out, 0.0)


def _truncate(
    lower: int, probs: NDArray, tail_mass: float, optimistic: bool = False
) -> tuple[int, NDArray, float]:
    """Cut tails of mass <= tail_mass each: the lower one moved up, the upper one to +∞.

    ``optimistic``: both tails are dropped instead (a lower bound on δ at every ε).
    """
    cum = np.cumsum(probs)
    start = int(np.searchsorted(cum, tail_mass, side="right"))  # masses before start sum <= tail
    rcum = np.cumsum(probs[::-1])
    stop = probs.size - int(np.searchsorted(rcum, tail_mass, side="right"))
    start = min(start, stop - 1)
    kept = probs[start:stop].copy()
    if optimistic:
        return lower + start, kept, 0.0
    kept[0] += cum[start - 1] if start > 0 else 0.0
    cut = float(rcum[probs.size - stop - 1]) if stop < probs.size else 0.0
    return lower + start, kept, cut


def _connect_dots(deltas: NDArray, h: float) -> NDArray:
    """Masses at the grid points from δ there (pessimistic connect-the-dots, fixed gap).

    The first mass takes everything below the first point, the mass at +∞ is
    the last δ; negative masses (δ not convex on the grid by rounding) are
    clipped to 0, as in dp_accounting.
    """
    deltas = np.minimum.accumulate(np.clip(deltas, 0.0, 1.0))
    diffs = np.diff(deltas)
    em1 = math.expm1(h)
    probs = np.empty_like(deltas)
    probs[0] = 1.0 - deltas[0] + diffs[0] / em1
    probs[1:-1] = (diffs[1:] - diffs[:-1] * math.exp(h)) / em1
    probs[-1] = diffs[-1] / math.expm1(-h)
    return np.maximum(probs, 0.0)


def _rounded_down(lower: int, survival: NDArray, h: float, kind: Kind):
    """The optimistic PLD: each loss rounded down to the grid, from lower bounds on P(L > ε_i).

    Mass S(ε_i) − S(ε_{i+1}) at ε_i, S(ε_last) at ε_last, the mass below ε_0
    dropped: its loss is stochastically below L, so δ(ε) = E[(1 − e^{ε − L})_+]
    of it, and of every composition of it, is below the true one (no shift).
    """
    probs = np.append(-np.diff(survival), survival[-1])
    return PrivacyLossDistribution(
        h, lower, np.maximum(probs, 0.0), 0.0, None, 0.0, kind, optimistic=True
    )


def _direction(
    lower: int, upper: NDArray, low: NDArray | None, survival: NDArray | None, h: float, kind: Kind
) -> PrivacyLossDistribution:
    """Connect-the-dots of one direction, with its companion (None: without).

    The companion rounds the losses down (``survival``) or, without survival
    bounds (a finite release), is the connect-the-dots of the lower bracket
    ``low`` with nothing at +∞, shifted by h (module docstring).
    """
    companion = None
    if survival is not None:
        companion = _rounded_down(lower, survival, h, kind)
    elif low is not None:
        companion = PrivacyLossDistribution(
            h, lower, _connect_dots(low, h), 0.0, None, h, kind, optimistic=True
        )
    return PrivacyLossDistribution(
        h, lower, _connect_dots(upper, h), float(min(upper[-1], 1.0)), companion, 0.0, kind
    )
