"""The PLD accountant: tight (ε, δ) of mechanisms composed as privacy loss distributions.

Each direction of a mechanism, *remove* (P against Q) and *add* (Q against P),
has a hockey-stick curve δ(ε), ε ∈ ℝ (:mod:`synthamp.accountant._pld_grid`:
for a synthetic data release, the worst adjacent pair, guarded for every T),
turned into a pessimistic discrete PLD with an optimistic companion
(:mod:`synthamp.accountant._pld_distribution`; docs/theory.md §14).

Composition (:class:`PairPld`) composes each direction with the same direction
of the other mechanism, and ε is the larger of the two at the end (as
dp_accounting's ``pmf_remove`` and ``pmf_add``). A release's T runs share
their adjacent pair, so they are one pair composed T times, not T envelopes
(one FFT power, :mod:`synthamp.accountant._pld_power`); which direction of a
release goes with an added record depends on the data, so next to an
asymmetric mechanism (a subsampled Gaussian) every orientation of each release
is composed and the worst taken (:func:`_orientations`). Implementation
choice: native, so that ``import synthamp`` and the PLD accountant need no new
dependency; it is tested against dp_accounting's own PLD
(``tests/accountant/test_pld.py``, ``test_pld_composition.py``), and
:func:`to_dp_accounting_pld` exports the same connect-the-dots PMFs into
dp_accounting's class. Its calibrator is :mod:`synthamp.accountant._pld_calibration`.

References
----------
Zhu, Y., Dong, J. and Wang, Y.-X. (2022). Optimal accounting of differential
privacy via characteristic function. AISTATS.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._kinds import Kind, privacy_quantity
from synthamp._parameters import validated, validated_one
from synthamp._validation import InputError
from synthamp.accountant._pld_distribution import (
    BUDGETED_POINTS,
    DEFAULT_DISCRETIZATION,
    DEFAULT_TAIL_MASS,
    MAX_COMPOSED_POINTS,
    CompositionTooLarge,
    PrivacyLossDistribution,
    _direction,
    _weakest,
)
from synthamp.accountant._pld_grid import (
    PROFILE_RTOL,
    DirectedGrid,
    Mechanism,
    SubsampledGaussianRelease,
    directed_grid,
)
from synthamp.accountant._profile import DEFAULT_TAIL, _profile_epsilon
from synthamp.accountant._releases import GaussianRelease, SyntheticDataRelease
from synthamp.accountant._sigma_search import gaussian_sigma

__all__ = [
    "BUDGETED_POINTS",
    "DEFAULT_DISCRETIZATION",
    "DEFAULT_TAIL_MASS",
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

    def epsilon_lower(self, delta: float, upper: float | None = None) -> float:
        """A lower bound on ε(δ) of the pair composed (0 without companions).

        Each direction's companion (its losses rounded down: module
        docstring) bounds that direction's ε from below; the larger of the two bounds the
        larger of the two, i.e. ε of the (feasible) pair. ``upper``: this pair's
        :meth:`epsilon` at ``delta`` if known (not computed again).
        """
        lows = [
            pld.lower_bound.epsilon_lower_at(delta)
            for pld in self.directions
            if pld.lower_bound is not None
        ]
        if not lows:
            return 0.0
        return min(max([*lows, 0.0]), self.epsilon(delta) if upper is None else upper)

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
    uppers = [pld.epsilon(delta) for pld in plds]
    eps = max(uppers)
    lows = [pld.epsilon_lower(delta, up) for pld, up in zip(plds, uppers, strict=True)]
    return eps, min(max(lows), eps)


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
