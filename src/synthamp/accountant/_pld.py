"""Privacy loss distributions: tight (ε, δ) under composition (docs/theory.md §14).

Each direction of a mechanism, *remove* (P against Q) and *add* (Q against P),
has a hockey-stick curve δ(ε), ε ∈ ℝ (:mod:`synthamp.accountant._pld_grid`:
for a synthetic data release, the worst adjacent pair, guarded for every T).
Each is turned into a *pessimistic* discrete privacy loss distribution (PLD)
by connect-the-dots from δ on the grid ε_i = i·h (Doroshenko, Ghazi, Kamath,
Kumar and Manurangsi 2022, Algorithm 1; the formula of dp_accounting's
``pld_pmf.create_pmf_pessimistic_connect_dots_fixed_gap``): its hockey-stick
curve passes through (e^{ε_i}, δ(ε_i)) and is linear in e^ε between, hence
lies above the convex δ at every ε ∈ ℝ, i.e. it dominates the direction in
Blackwell's order, which composition preserves. The δ(ε_i) used are upper
bounds (errors added). Output masses are never binned (binning is a
post-processing, not pessimistic).

Composition (:class:`PairPld`) composes each direction with the same direction
of the other mechanism, and ε is the larger of the two at the end (as
dp_accounting's ``pmf_remove`` and ``pmf_add``). A release's T runs share
their adjacent pair, so they are one pair composed T times, not T envelopes;
which direction of a release goes with an added record depends on the data,
so next to an asymmetric mechanism (a subsampled Gaussian) every orientation
of each release is composed and the worst taken (:func:`_orientations`).
Each convolution is computed natively by numpy's FFT (T-fold by repeated
squaring). After each product the tails of mass below ``tail_mass`` are cut
pessimistically: the lower tail is moved up to the first kept loss (a larger
loss only increases δ), the upper tail to +∞. Implementation choice: native,
so that ``import synthamp`` and the PLD accountant need no new dependency; it
is tested against dp_accounting's own PLD (``tests/accountant/test_pld.py``,
``test_pld_composition.py``), and :func:`to_dp_accounting_pld` exports the
same connect-the-dots PMFs into dp_accounting's class.

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
δ). So the companion's ε(δ) is a lower bound on that direction's composed ε,
and the larger over directions and orientations is a lower bound on the
mechanism's ε; ``epsilon − epsilon_lower`` bounds the discretisation (and
numerical) error of the reported ε (about T·h/2 for T releases).

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
Zhu, Y., Dong, J. and Wang, Y.-X. (2022). Optimal accounting of differential
privacy via characteristic function. AISTATS.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._budget import check_budget
from synthamp._kinds import Kind, privacy_quantity
from synthamp._parameters import validated, validated_one
from synthamp._validation import InputError
from synthamp.accountant._pld_grid import (
    PROFILE_RTOL,
    DirectedGrid,
    Mechanism,
    SubsampledGaussianRelease,
    directed_grid,
)
from synthamp.accountant._profile import DEFAULT_TAIL, _profile_epsilon
from synthamp.accountant._releases import GaussianRelease, SyntheticDataRelease, _with
from synthamp.accountant._sigma_search import _illinois_sigma, gaussian_sigma

__all__ = [
    "BUDGETED_POINTS",
    "DEFAULT_DISCRETIZATION",
    "MAX_COMPOSED_POINTS",
    "PROFILE_RTOL",
    "CompositionTooLarge",
    "PairPld",
    "PldEpsilon",
    "PrivacyLossDistribution",
    "SubsampledGaussianRelease",
    "compute_epsilon_pld",
    "gaussian_sigma",
    "privacy_loss_distribution",
]

#: Default discretisation interval h of the privacy loss (dp_accounting's default).
DEFAULT_DISCRETIZATION = 1e-4
#: Default tail mass cut (pessimistically) after each composition step.
DEFAULT_TAIL_MASS = 1e-15

#: Largest grid (points) a composition convolves: 2²⁴ ≈ 1.7·10⁷ (134 MB per array, an FFT
#: of a few seconds). The composed grid grows as √T: at h = 1e-4, T = 10⁵ releases reached
#: 2·10⁶ points in 4.5 s and T = 10⁷ 2·10⁷ in 76 s; T = 10⁹ would need ~2·10⁸ (gigabytes,
#: many minutes). Past it the composition stops (:class:`CompositionTooLarge`); the guarantee
#: room then states the RDP accountant's ε, which composes T releases exactly and at once.
MAX_COMPOSED_POINTS = 1 << 24
#: Grids from which a composition checks the caller's time budget (:mod:`synthamp._budget`)
#: before each convolution: 2²⁰ ≈ 10⁶ points, where one convolution takes about a second.
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
    """

    discretization: float
    lower: int
    probs: NDArray[np.float64]
    infinity_mass: float
    lower_bound: PrivacyLossDistribution | None = None
    shift: float = 0.0
    kind: Kind = Kind.EXACT
    optimistic: bool = False

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
        return PrivacyLossDistribution(
            self.discretization,
            lower,
            probs,
            min(inf, 1.0),
            companion,
            self.shift + other.shift,
            _weakest(self.kind, other.kind),
            self.optimistic,
        )

    def self_compose(self, count: int, tail_mass: float = DEFAULT_TAIL_MASS):
        """The PLD of ``count`` independent runs (repeated squaring)."""
        return self._self_compose(validated_one("count", count), tail_mass)

    def _self_compose(self, count: int, tail_mass: float) -> PrivacyLossDistribution:
        """The kernel of :meth:`self_compose`, for a validated ``count``."""
        result, power = None, self
        while True:
            if count & 1:
                result = power if result is None else result.compose(power, tail_mass)
            count >>= 1
            if not count:
                return result
            power = power.compose(power, tail_mass)


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


# --------------------------------------------------------------------------- both directions


@dataclass(frozen=True, eq=False)
class PairPld:
    """The two directions of a mechanism's PLD, composed apart (docs/theory.md §14).

    dp_accounting's ``pmf_remove`` and ``pmf_add``: ``remove`` is the PLD of
    (P, Q), the record present in the first dataset, ``add`` that of (Q, P).
    Composing two mechanisms composes each direction with the same direction;
    ε (and δ) is the larger of the two at the end.

    Attributes
    ----------
    remove, add : PrivacyLossDistribution
        Pessimistic PLDs, each with its lower companion (``add is remove`` for
        a symmetric pair).
    orientable : bool
        A synthetic data release: its directions may go with either adjacency
        direction (:class:`synthamp.accountant._pld_grid.DirectedGrid`);
        :func:`compute_epsilon_pld` composes it in both orientations.
    fallback : bool
        Whether a guard fired for one of the composed releases
        (:mod:`synthamp.accountant._pld_grid`, (3)).
    """

    remove: PrivacyLossDistribution
    add: PrivacyLossDistribution
    orientable: bool = False
    fallback: bool = False

    @property
    def directions(self) -> tuple[PrivacyLossDistribution, ...]:
        return (self.remove,) if self.add is self.remove else (self.remove, self.add)

    @property
    def discretization(self) -> float:
        return self.remove.discretization

    @property
    def kind(self) -> Kind:
        return _weakest(self.remove.kind, self.add.kind)

    def delta(self, epsilon: ArrayLike) -> NDArray[np.float64]:
        """δ(ε): the larger of the two directions (an upper bound)."""
        return np.maximum.reduce([pld.delta(epsilon) for pld in self.directions])

    def epsilon(self, delta: float) -> float:
        """The smallest ε >= 0 with δ(ε) <= ``delta`` in both directions."""
        return max(pld.epsilon(delta) for pld in self.directions)

    def epsilon_lower(self, delta: float) -> float:
        """A lower bound on ε(δ) of the pair composed (0 without companions).

        Each direction's companion (its losses rounded down: module
        docstring) bounds that direction's ε from below; the larger of the two bounds the
        larger of the two, i.e. ε of the (feasible) pair.
        """
        lows = [
            pld.lower_bound.epsilon(delta) - pld.lower_bound.shift
            for pld in self.directions
            if pld.lower_bound is not None
        ]
        return min(max([*lows, 0.0]), self.epsilon(delta)) if len(lows) else 0.0

    def swapped(self) -> PairPld:
        """The same pair in the other orientation: remove and add exchanged."""
        return PairPld(self.add, self.remove, self.orientable, self.fallback)

    def compose(self, other: PairPld, tail_mass: float = DEFAULT_TAIL_MASS) -> PairPld:
        """Both mechanisms on the same data: each direction with the same direction."""
        remove = self.remove.compose(other.remove, tail_mass)
        symmetric = self.add is self.remove and other.add is other.remove
        add = remove if symmetric else self.add.compose(other.add, tail_mass)
        return PairPld(
            remove, add, self.orientable or other.orientable, self.fallback or other.fallback
        )

    def self_compose(self, count: int, tail_mass: float = DEFAULT_TAIL_MASS) -> PairPld:
        """``count`` runs of the same pair (the same adjacent pair in every run)."""
        return self._self_compose(validated_one("count", count), tail_mass)

    def _self_compose(self, count: int, tail_mass: float) -> PairPld:
        """The kernel of :meth:`self_compose`, for a validated ``count``."""
        remove = self.remove._self_compose(count, tail_mass)
        add = remove if self.add is self.remove else self.add._self_compose(count, tail_mass)
        return PairPld(remove, add, self.orientable, self.fallback)


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


def _pair_pld(grid: DirectedGrid, h: float, companion: bool) -> PairPld:
    def one(upper, low, survival):
        if not companion:
            return _direction(grid.lower, upper, None, None, h, grid.kind)
        return _direction(grid.lower, upper, low, survival, h, grid.kind)

    remove = one(grid.remove_upper, grid.remove_lower, grid.remove_survival)
    add = remove
    if not grid.symmetric:
        add = one(grid.add_upper, grid.add_lower, grid.add_survival)
    return PairPld(remove, add, grid.orientable, grid.fallback)


def _orientations(components: list[PairPld], tail_mass: float) -> list[PairPld]:
    """The composition in every orientation of its orientable parts (releases).

    Which direction of a release goes with an added record depends on the
    data, independently for each release object (the T runs inside one
    share their pair), so every orientation is a composition the mechanism
    can meet. With no asymmetric part other than releases, reversing every
    orientation only exchanges remove and add: the first release is then
    kept in its orientation.
    """
    asymmetric = any(not c.orientable and c.add is not c.remove for c in components)
    fixed = not asymmetric
    results: list[PairPld] = []
    for part in components:
        options = [part]
        if part.orientable and part.add is not part.remove:
            if fixed:
                fixed = False  # the first release keeps its orientation
            else:
                options.append(part.swapped())
        results = (
            options
            if not results
            else [r.compose(o, tail_mass) for r, o in itertools.product(results, options)]
        )
    return results


@privacy_quantity("exact")
def privacy_loss_distribution(
    mechanism: Mechanism,
    *,
    discretization: float = DEFAULT_DISCRETIZATION,
    tail: float = DEFAULT_TAIL,
    tail_mass: float = DEFAULT_TAIL_MASS,
    _companion: bool = True,
) -> PairPld:
    """The pessimistic PLD of a mechanism, both directions, composed over its ``releases``.

    Parameters
    ----------
    mechanism : SyntheticDataRelease, GaussianRelease or SubsampledGaussianRelease
        k = 1 synthetic data: the worst adjacent pair, guarded for every T
        (:mod:`synthamp.accountant._pld_grid`; kind exact); k > 1: the
        Gaussian profile with Δ_eff (certified).
    discretization : float, default 1e-4
        The interval h of the loss grid. Smaller is tighter (the error of ε
        is about Σh at most) and slower (the grid has ~2ε_max/h points).
    tail : float, default 1e-18
        The profile is resolved down to δ = ``tail``; the mass beyond goes to
        +∞ (pessimistic).
    tail_mass : float, default 1e-15
        Mass cut from each tail after each convolution (pessimistically).

    Returns
    -------
    PairPld
        Its T runs composed (the same adjacent pair in every run).
    """
    h, tail, tail_mass = validated(discretization=discretization, tail=tail, tail_mass=tail_mass)
    return _privacy_loss_distribution(mechanism, h, tail, tail_mass, _companion)


def _privacy_loss_distribution(
    mechanism: Mechanism, h: float, tail: float, tail_mass: float, companion: bool = True
) -> PairPld:
    """The kernel of :func:`privacy_loss_distribution`, for validated h, tail and tail mass."""
    if not isinstance(
        mechanism, SyntheticDataRelease | GaussianRelease | SubsampledGaussianRelease
    ):
        raise InputError("mechanism", f"must be a release or Gaussian mechanism, got {mechanism!r}")
    # companion False: callers that need ε alone (the calibration's inner steps)
    single = _pair_pld(directed_grid(mechanism, h, tail, companion), h, companion)
    if mechanism.releases == 1:
        return single
    return single._self_compose(mechanism.releases, tail_mass)


@dataclass(frozen=True)
class PldEpsilon:
    """(ε, δ) by the PLD accountant (:func:`compute_epsilon_pld`).

    Attributes
    ----------
    epsilon : float
        ε of the guarantee (pessimistic discretisation; the guarantee).
    epsilon_lower : float
        Lower bound on the mechanism's ε: the worst orientation of the worst
        pair's lower companion (a feasible pair, never a dominating envelope);
        ``epsilon − epsilon_lower`` bounds the discretisation error (and, after
        a fallback, the search's).
    delta : float
    discretization : float
        h.
    kind : Kind
    accountant : str
        ``"pld"``.
    fallback : bool
        Whether a guard fired (:mod:`synthamp.accountant._pld_grid`): the
        upper value then composes the directed envelope of the scanned pairs.
    """

    epsilon: float
    epsilon_lower: float
    delta: float
    discretization: float
    kind: Kind
    accountant: str = "pld"
    fallback: bool = False

    @property
    def discretization_error(self) -> float:
        return self.epsilon - self.epsilon_lower


def composed_pld(
    release: Mechanism,
    extra: Iterable[Mechanism | PrivacyLossDistribution | PairPld] = (),
    *,
    discretization: float = DEFAULT_DISCRETIZATION,
    tail: float = DEFAULT_TAIL,
    _companion: bool = True,
) -> list[PairPld]:
    """The PLDs of a release composed with other mechanisms, one per orientation.

    A :class:`PrivacyLossDistribution` in ``extra`` is taken as symmetric (the
    same PLD for both directions); the mechanism's ε is the largest over the
    returned compositions (:func:`_orientations`).
    """
    h = validated_one("discretization", discretization)
    return _composed_pld(release, extra, h, validated_one("tail", tail), _companion)


def _composed_pld(
    release: Mechanism,
    extra: Iterable[Mechanism | PrivacyLossDistribution | PairPld],
    h: float,
    tail: float,
    companion: bool = True,
) -> list[PairPld]:
    """The kernel of :func:`composed_pld`, for validated h and tail."""
    parts = [_privacy_loss_distribution(release, h, tail, DEFAULT_TAIL_MASS, companion)]
    for other in extra:
        if isinstance(other, PrivacyLossDistribution):
            other = PairPld(other, other)
        elif not isinstance(other, PairPld):
            other = _privacy_loss_distribution(other, h, tail, DEFAULT_TAIL_MASS, companion)
        if other.discretization != h:
            raise InputError("discretization", "composed PLDs must share the discretisation")
        parts.append(other)
    return _orientations(parts, DEFAULT_TAIL_MASS)


def worst_epsilon(plds: list[PairPld], delta: float) -> tuple[float, float]:
    """(ε, lower bound) over the orientations: each a composition the mechanism can meet."""
    eps = max(pld.epsilon(delta) for pld in plds)
    return eps, min(max(pld.epsilon_lower(delta) for pld in plds), eps)


@privacy_quantity("exact")
def compute_epsilon_pld(
    release: Mechanism,
    delta: float,
    *,
    extra: Iterable[Mechanism | PrivacyLossDistribution | PairPld] = (),
    discretization: float = DEFAULT_DISCRETIZATION,
    tail: float = DEFAULT_TAIL,
    _companion: bool = True,
) -> PldEpsilon:
    """(ε, δ) of a release composed with other mechanisms, by the PLD accountant.

    Each mechanism's two directions (remove, add) are composed apart and the
    larger ε taken at the end; a synthetic data release's T runs share their
    adjacent pair (the worst pair, guarded for every T:
    :mod:`synthamp.accountant._pld_grid`), and each release object enters in
    both orientations when the composition has another asymmetric part (e.g.
    a subsampled Gaussian), the worst being the mechanism's ε.

    Parameters
    ----------
    release : SyntheticDataRelease, GaussianRelease or SubsampledGaussianRelease
        Composed over its ``releases``.
    delta : float
        δ in (0, 1).
    extra : iterable
        Other mechanisms (or PLDs of the same discretisation) on the same data.
    discretization : float, default 1e-4
        h (:func:`privacy_loss_distribution`). A single release without
        ``extra`` is not discretised: its ε comes from :func:`profile_epsilon`
        (``discretization`` is then reported as 0).

    Returns
    -------
    PldEpsilon
    """
    delta, h, tail = validated(delta=delta, discretization=discretization, tail=tail)
    return _compute_epsilon_pld(release, delta, tuple(extra), h, tail, _companion)


def _compute_epsilon_pld(
    release: Mechanism,
    delta: float,
    extra: tuple = (),
    h: float = DEFAULT_DISCRETIZATION,
    tail: float = DEFAULT_TAIL,
    companion: bool = True,
) -> PldEpsilon:
    """The kernel of :func:`compute_epsilon_pld`, for validated δ, h and tail."""
    if (
        not extra
        and isinstance(release, SyntheticDataRelease | GaussianRelease)
        and (release.releases == 1)
    ):  # one release: its profile directly, no discretisation
        exact = _profile_epsilon(release, delta)
        fallback = bool(getattr(exact, "fallback", False))
        return PldEpsilon(
            exact.epsilon, exact.epsilon_lower, delta, 0.0, exact.kind, "pld", fallback
        )
    plds = _composed_pld(release, extra, h, tail, companion)
    eps, eps_lower = worst_epsilon(plds, delta)
    kind = plds[0].kind
    fallback = any(pld.fallback for pld in plds)
    return PldEpsilon(eps, eps_lower, delta, h, kind, "pld", fallback)


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
    upper end, steps down by 3/4 to a lower end and runs regula falsi
    (:func:`_illinois_sigma`). The returned σ is where ε was computed and is
    <= the target: conservative by construction. ``gram_sensitivity``: s₂ of
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
    sigma = _illinois_sigma(lambda x: at(x)[0], target, hi, rtol)
    eps, eps_lower, kind = at(sigma, companion=True)
    return PldCalibration(sigma, eps, eps_lower, delta, target, 0.0 if exact else h, kind)
