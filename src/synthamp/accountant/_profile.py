"""The exact privacy profile δ(ε) of a release (docs/theory.md §14).

The hockey-stick divergence of a pair, δ_{P,Q}(ε) = sup_A P(A) − e^ε Q(A)
= E_P[(1 − e^{ε − L})_+], L = log p/q, is the smallest δ for which the pair is
(ε, δ)-indistinguishable; its supremum over adjacent pairs, δ*(ε), is the
privacy profile of the release, the exact (ε, δ) curve that RDP only bounds.

Threshold form
--------------
One pair's curves come from one grid of thresholds, exact points and a computed error
bracket between them (:mod:`synthamp.accountant._profile_pair`).

Worst case over pairs
---------------------
The edge reduction of docs/accountant.md (MLR + Blackwell) holds for every
f-divergence, hence for the hockey-stick divergence at every ε: the supremum
over adjacent pairs lies on the forward edge {(t + g, t)} or the reverse edge
{(t, t + g)}, g = min(Δ, C)/σ; evaluating the ordered pair (t + g, t) gives
both (its reverse curve is the pair (t, t + g)). When Δ >= C the edges are the
points (c, 0) and (0, c): exact, no search. Otherwise the forward endpoint
(c, c − g) is evaluated and checked at *every* ε of the requested grid against
a guard: the pairs t ∈ {0, (c − g)/2} (``GUARD_POINTS``), both orders. A guard
whose lower bracket exceeds the endpoint's upper value anywhere triggers the
fallback: a scan of :data:`FALLBACK_SCAN_POINTS` pairs along the edge, and the
pointwise maximum of their upper curves (the maximiser along the edge may then
differ from ε to ε). This is the guarded search of
:func:`synthamp.accountant.worst_case_rdp`, per ε instead of per order.

The profile returned on ε ∈ ℝ is the maximum of the two orders, so it
satisfies δ*(ε) = 1 − e^ε + e^ε δ*(−ε) for ε < 0: it is the profile of a
*symmetric* dominating pair (Zhu, Dong and Wang 2022) of one release. The PLD
accountant does not compose it: the T runs of a release share their pair, so
it composes the pair's two directions apart (:mod:`synthamp.accountant._pld_grid`).

k > 1
-----
No exact profile is known; the certified one is the Gaussian mechanism's
(Balle and Wang 2018) with Δ_eff = min(Δ, 2C): releasing ZV is a
post-processing of V = v + σN.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._kinds import Kind, privacy_quantity
from synthamp._parameters import validated, validated_one
from synthamp._validation import InputError
from synthamp.accountant._gaussian import _gaussian_delta, _gaussian_epsilon
from synthamp.accountant._profile_pair import (
    LLR_ATOL,
    PRODUCT_TAIL_RTOL,
    TAIL_RTOL,
    _pair_evaluator,
    _PairEvaluator,
)
from synthamp.accountant._releases import GaussianRelease, SyntheticDataRelease

__all__ = [
    "FALLBACK_SCAN_POINTS",
    "GUARD_POINTS",
    "LLR_ATOL",
    "PRODUCT_TAIL_RTOL",
    "TAIL_RTOL",
    "PrivacyProfile",
    "privacy_profile",
]

#: Guard pairs along the edge besides the endpoint: t = j(c − g)/GUARD_POINTS, j < GUARD_POINTS.
GUARD_POINTS = 2
#: Pairs scanned along the edge when a guard fires.
FALLBACK_SCAN_POINTS = 8
#: Default resolution in ε of the interpolated profile (chord against tangents).
DEFAULT_RTOL = 1e-5
#: Up to this many requested ε, each is put on a threshold (L(x) = ε by bisection).
EXACT_POINTS = 64
#: Default tail mass below which the profile is not resolved (δ there is bounded by it).
DEFAULT_TAIL = 1e-18
#: The exact k = 1 profile's range (beyond_exact_profile): C/σ ≤ 10⁵ (tails tested there),
#: and ≤ 10³ where Δ/σ > 10. Outside it (overflow at c = 10³ with Δ = C, NaN quantiles from
#: c ~ 10⁶) the certified Gaussian profile of releasing V is used (its ε ≳ 50 there).
MAX_EXACT_AMPLITUDE = 1e5
LARGE_AMPLITUDE = 1e3
MAX_LARGE_STEP = 10.0


@dataclass(frozen=True)
class PrivacyProfile:
    """δ(ε) of a release (:func:`privacy_profile`).

    Attributes
    ----------
    epsilon : ndarray
        The ε at which δ was evaluated.
    delta : ndarray
        δ(ε), an upper bound: the exact value plus its error bound (kind
        *exact*), or the Gaussian profile of post-processing (kind *certified*).
    delta_lower : ndarray
        A lower bound on the same quantity (for the worst case: of the evaluated
        pairs); ``delta − delta_lower`` is the numerical error bracket.
    kind : Kind
        exact (k = 1) or certified (k > 1, Gaussian mechanism with Δ_eff).
    method : str
        How it was computed.
    fallback : bool
        Whether a guard fired and the edge was scanned.
    pairs : tuple of (float, float)
        The pairs (‖v‖, ‖w‖) evaluated (natural units; each in both orders).
    """

    epsilon: NDArray[np.float64]
    delta: NDArray[np.float64]
    delta_lower: NDArray[np.float64]
    kind: Kind
    method: str
    fallback: bool = False
    pairs: tuple[tuple[float, float], ...] = ()


def _check_single(release) -> None:
    """A single synthetic data release or Gaussian mechanism."""
    if not isinstance(release, SyntheticDataRelease | GaussianRelease):
        raise InputError(
            "release", f"must be a SyntheticDataRelease or GaussianRelease, got {release!r}"
        )
    if release.releases != 1:
        raise InputError(
            "releases", "the profile is of a single release; compose by the PLD accountant"
        )


def _check_epsilon(epsilon: ArrayLike, allow_negative: bool = False) -> NDArray[np.float64]:
    eps = np.asarray(epsilon, dtype=float)
    if not np.all(np.isfinite(eps)) or (not allow_negative and np.any(eps < 0)):
        raise InputError("epsilon", "must be finite and >= 0")
    return eps


class _WorstCase:
    """The guarded worst case over adjacent pairs of a k = 1 release (module docstring)."""

    def __init__(self, release: SyntheticDataRelease, rtol: float, tail: float):
        self.release, self.rtol, self.tail = release, rtol, tail
        self.atol = 1e-3 * tail
        sigma = release.sigma
        self.c, self.g = release.adjacency_norm_bound / sigma, release.amplitude_gap / sigma
        self.length = max(self.c - self.g, 0.0)
        self.endpoint = self._evaluate(self.length, rtol)
        guard_rtol = max(rtol, 1e-4)
        self.guards = (
            [
                self._evaluate(j * self.length / GUARD_POINTS, guard_rtol)
                for j in range(GUARD_POINTS)
            ]
            if self.length > 0.0  # Δ >= C: the edges are the points (c, 0) and (0, c)
            else []
        )
        self.scan: list[_PairEvaluator] = []

    def _evaluate(self, t: float, rtol: float) -> _PairEvaluator:
        pair = _pair_evaluator(self.release, t + self.g, t, self.tail)
        pair.refine(rtol, self.atol)
        pair.edge_t = t
        return pair

    @property
    def fallback(self) -> bool:
        return bool(self.scan)

    @property
    def pairs(self) -> tuple[tuple[float, float], ...]:
        sigma = self.release.sigma
        return tuple(
            ((p.edge_t + self.g) * sigma, p.edge_t * sigma)
            for p in [self.endpoint, *self.guards, *self.scan]
        )

    def insert_levels(self, epsilon: NDArray[np.float64]) -> None:
        """Put each ε on a threshold of both curves of the endpoint (and the scan)."""
        levels = np.concatenate([epsilon, -epsilon])
        for pair in [self.endpoint, *self.scan]:
            pair.insert_levels(levels)

    @staticmethod
    def _bracket(pair: _PairEvaluator, epsilon: NDArray) -> tuple[NDArray, NDArray]:
        (forward, _), (reverse, _) = pair.curves()
        uf, lf = forward.bracket(epsilon)
        ur, lr = reverse.bracket(epsilon)
        return np.maximum(uf, ur), np.maximum(lf, lr)

    def root(self, delta: float) -> tuple[float, float]:
        """(upper, lower) bounds on ε(δ) of the pairs in use (the largest over their curves)."""
        roots = [
            curve.root(delta)
            for pair in [self.endpoint, *self.scan]
            for curve in (pair.curves()[0][0], pair.curves()[1][0])
        ]
        return max(r[0] for r in roots), max(r[1] for r in roots)

    def bracket(self, epsilon: NDArray[np.float64]) -> tuple[NDArray, NDArray]:
        """(upper, lower) of δ*(ε); a guard beating the endpoint starts the scan."""
        upper, lower = self._bracket(self.endpoint, epsilon)
        if not self.scan:
            for guard in self.guards:
                if np.any(self._bracket(guard, epsilon)[1] > upper):
                    grid = np.linspace(0.0, self.length, FALLBACK_SCAN_POINTS + 1)[:-1]
                    self.scan = [self._evaluate(float(t), self.rtol) for t in grid]
                    break
        for pair in self.scan:
            scan_upper, scan_lower = self._bracket(pair, epsilon)
            upper, lower = np.maximum(upper, scan_upper), np.maximum(lower, scan_lower)
        return upper, lower


@privacy_quantity("exact")
def privacy_profile(
    release: SyntheticDataRelease | GaussianRelease,
    epsilon: ArrayLike,
    *,
    rtol: float = DEFAULT_RTOL,
    tail: float = DEFAULT_TAIL,
) -> PrivacyProfile:
    """The privacy profile δ(ε) of a single release (docs/theory.md §14).

    k = 1 (unlimited or n_syn records): the supremum over adjacent pairs of
    the hockey-stick divergence, by the threshold form on the sufficient
    statistic, the edge reduction and a guarded search at every ε (module
    docstring); kind *exact*, returned as an upper bound (error added).
    k > 1: the Gaussian mechanism's profile with Δ_eff = min(Δ, 2C) (Balle
    and Wang 2018), kind *certified*. A :class:`GaussianRelease`: its exact
    profile.

    Parameters
    ----------
    release : SyntheticDataRelease or GaussianRelease
        A single release (``releases=1``; compose with
        :func:`synthamp.accountant._pld.compute_epsilon_pld`).
    epsilon : array_like
        ε >= 0 (broadcast).
    rtol : float, default 1e-5
        Resolution in ε of the interpolation between thresholds (the chord/
        tangent bracket divided by |dδ/dε|). Up to :data:`EXACT_POINTS`
        requested ε are moreover put on thresholds themselves (bisection on
        L(x) = ε), so that their bracket is the points' error bound alone.
    tail : float, default 1e-18
        The thresholds span the laws down to tail probabilities ``tail``;
        beyond, δ is bounded by the last point (pessimistic, <= ``tail``).

    Returns
    -------
    PrivacyProfile
    """
    _check_single(release)
    eps = _check_epsilon(epsilon)
    rtol, tail = validated(rtol=rtol, tail=tail)
    flat = eps.ravel()
    if isinstance(release, GaussianRelease) or release.out_dim > 1:
        if isinstance(release, GaussianRelease):
            sensitivity, kind, method = release.sensitivity, Kind.EXACT, "gaussian mechanism"
        else:
            sensitivity, kind = release.effective_sensitivity, Kind.CERTIFIED
            method = "post-processing (Gaussian mechanism with effective sensitivity)"
        delta = _gaussian_delta(flat, sensitivity / release.sigma).reshape(eps.shape)
        return PrivacyProfile(eps, delta, delta, kind, method)
    if beyond_exact_profile(release):
        method = "post-processing (Gaussian mechanism; C/σ beyond the exact profile's range)"
        delta = _gaussian_delta(flat, release.effective_sensitivity / release.sigma)
        return PrivacyProfile(
            eps, delta.reshape(eps.shape), np.zeros(eps.shape), Kind.CERTIFIED, method
        )
    worst = _WorstCase(release, rtol, tail)
    if flat.size <= EXACT_POINTS:
        worst.insert_levels(flat)
    upper, lower = worst.bracket(flat)
    if worst.fallback and flat.size <= EXACT_POINTS:
        worst.insert_levels(flat)
        upper, lower = worst.bracket(flat)
    method = "threshold form, worst case over adjacent pairs (edge reduction, guarded)"
    return PrivacyProfile(
        eps,
        upper.reshape(eps.shape),
        lower.reshape(eps.shape),
        Kind.EXACT,
        method,
        worst.fallback,
        worst.pairs,
    )


@dataclass(frozen=True)
class ProfileEpsilon:
    """ε(δ) from the privacy profile (:func:`profile_epsilon`).

    Attributes
    ----------
    epsilon : float
        The smallest ε found with δ*(ε) <= δ, δ* the upper bound of the
        profile (error included): the guarantee.
    epsilon_lower : float
        An ε below which the lower bracket of the profile exceeds δ:
        ``epsilon − epsilon_lower`` is the numerical error of ``epsilon``.
    delta : float
        δ.
    kind : Kind
    fallback : bool
        Whether a guard fired.
    pairs : tuple
        The pairs evaluated.
    """

    epsilon: float
    epsilon_lower: float
    delta: float
    kind: Kind
    fallback: bool = False
    pairs: tuple[tuple[float, float], ...] = ()


@privacy_quantity("exact")
def profile_epsilon(
    release: SyntheticDataRelease | GaussianRelease,
    delta: float,
    *,
    rtol: float = 1e-3,
    tail: float = DEFAULT_TAIL,
    refinements: int = 3,
) -> ProfileEpsilon:
    """ε(δ) of a single release from its exact privacy profile (docs/theory.md §14).

    The smallest ε with δ*(ε) <= δ, δ* the upper bound of :func:`privacy_profile`.
    The profile is first resolved coarsely (``rtol`` in ε), the crossing is
    found on its upper bound, then that ε is put on thresholds of the endpoint
    pair (bisection on L(x) = ε) and the crossing found again, ``refinements``
    times: every returned ε is one where the upper bound was evaluated.
    The guard (module docstring) is checked at the returned ε.

    Parameters
    ----------
    release : SyntheticDataRelease or GaussianRelease
        A single release.
    delta : float
        δ in (0, 1).

    Returns
    -------
    ProfileEpsilon
    """
    delta, rtol, tail = validated(delta=delta, rtol=rtol, tail=tail)
    return _profile_epsilon(release, delta, rtol, tail, refinements)


def _profile_epsilon(release, delta: float, rtol=1e-3, tail=DEFAULT_TAIL, refinements=3):
    """The kernel of :func:`profile_epsilon` (a :class:`ProfileEpsilon`): δ validated."""
    _check_single(release)  # the profile is of one release: never T > 1 (kernels too)
    gaussian = isinstance(release, GaussianRelease)
    if gaussian or release.out_dim > 1 or beyond_exact_profile(release):
        # releasing V: exact for a Gaussian mechanism, else certified (k > 1, or C/σ beyond the
        # exact profile's range, where no lower bound is claimed)
        mu = (release.sensitivity if gaussian else release.effective_sensitivity) / release.sigma
        eps = _gaussian_epsilon(delta, mu)
        while float(_gaussian_delta(eps, mu)) > delta:  # brentq to 1e-12: step up until <= δ
            eps += 1e-12 * max(1.0, eps)
        lower = eps if gaussian or release.out_dim > 1 else 0.0
        return ProfileEpsilon(eps, lower, delta, Kind.EXACT if gaussian else Kind.CERTIFIED)
    worst = _WorstCase(release, rtol, tail)
    (eps,), (eps_lower,) = _epsilons(worst, np.array([delta]), refinements)
    return ProfileEpsilon(eps, eps_lower, delta, Kind.EXACT, worst.fallback, worst.pairs)


def beyond_exact_profile(release: SyntheticDataRelease) -> bool:
    """Whether a k = 1 release lies outside the exact profile's numerical range (see
    :data:`MAX_EXACT_AMPLITUDE`): the one rule that the profile, the PLD and the command line
    apply (their number is then the certified bound of releasing V)."""
    c = release.adjacency_norm_bound / release.sigma
    s = release.sensitivity / release.sigma
    return release.out_dim == 1 and (
        c > MAX_EXACT_AMPLITUDE or (c > LARGE_AMPLITUDE and s > MAX_LARGE_STEP)
    )


def _epsilons(worst: _WorstCase, deltas: NDArray, refinements: int = 3):
    """ε(δ) upper and lower for each δ: roots of the chord, refined by putting them on thresholds.

    Every returned ε is one where the upper profile was evaluated and is <= δ;
    the guard is checked at the returned ε.
    """

    def roots():
        pairs = [worst.root(float(d)) for d in deltas]
        return np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])

    eps, eps_lower = roots()
    for _ in range(refinements):
        finite = eps[np.isfinite(eps) & (eps > 0)]
        if finite.size == 0:
            break
        worst.insert_levels(finite)
        eps, eps_lower = roots()
    finite = np.isfinite(eps)
    worst.bracket(eps[finite])  # the guard at the returned ε
    if worst.fallback:
        worst.insert_levels(eps[finite & (eps > 0)])
        eps, eps_lower = roots()
    upper, _ = worst.bracket(np.where(finite, eps, 0.0))
    # On the chord up to the rounding of ε (~1e-16·ε, amplified by δ_k/δ on a coarse chord at
    # ε in the thousands): step up (δ* is non-increasing, so this only makes ε pessimistic).
    for step in range(64):
        over = finite & ~(upper <= deltas * (1 + 1e-12))
        if not over.any():
            break
        eps = np.where(over, eps + 1e-12 * 2.0**step * np.maximum(1.0, np.abs(eps)), eps)
        upper, _ = worst.bracket(np.where(finite, eps, 0.0))
    else:  # pragma: no cover - on the chord
        raise RuntimeError("profile_epsilon: the upper profile exceeds delta at the root")
    return np.maximum(eps, 0.0), np.maximum(np.minimum(eps_lower, eps), 0.0)


def profile_epsilons(
    release: SyntheticDataRelease, deltas: ArrayLike, *, rtol: float = 1e-3
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """ε(δ) and its lower bound for many δ from one worst-case profile (k = 1).

    As :func:`profile_epsilon`, sharing the thresholds between the δ.
    """
    deltas = np.array([validated_one("delta", d) for d in np.atleast_1d(deltas)])
    return _profile_epsilons(release, deltas, validated_one("rtol", rtol))


def _profile_epsilons(release, deltas: NDArray[np.float64], rtol: float = 1e-3):
    """The kernel of :func:`profile_epsilons` (ε and its lower bound): each δ validated."""
    _check_single(release)  # the profile is of one release: never T > 1 (kernels too)
    if release.out_dim > 1:
        raise InputError("out_dim", "the exact profile is for k = 1")
    if beyond_exact_profile(release):
        rule = f"<= {MAX_EXACT_AMPLITUDE:g} (<= {LARGE_AMPLITUDE:g} where Δ/σ > {MAX_LARGE_STEP:g})"
        raise InputError("sigma", f"C/σ must be {rule} for the exact profile")
    worst = _WorstCase(release, rtol, DEFAULT_TAIL)
    return _epsilons(worst, deltas)


@privacy_quantity("exact")
def pair_privacy_profile(
    epsilon: ArrayLike,
    dim: int,
    norm_v: float,
    norm_w: float,
    sigma: float = 1.0,
    n_syn: int | None = None,
    *,
    tail: float = DEFAULT_TAIL,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """δ(ε) of one ordered pair (v, w): the hockey-stick divergence of P_v against P_w.

    The threshold form of the module docstring, each ε put on a threshold
    (no search over pairs: this is the exact value for the given pair, e.g.
    an audit's target, or one point of a scan of the adjacent set).

    Parameters
    ----------
    epsilon : array_like
        ε (any real values; broadcast).
    dim : int
        d.
    norm_v, norm_w : float
        ‖v‖ and ‖w‖ (natural units), different.
    sigma : float, default 1.0
    n_syn : int or None
        None for the unlimited release.

    Returns
    -------
    upper, lower : ndarray
        Bounds on δ(ε) (the value and its numerical error bracket).
    """
    eps = _check_epsilon(epsilon, allow_negative=True)
    norm_v, norm_w, sigma, tail = validated(norm_v=norm_v, norm_w=norm_w, sigma=sigma, tail=tail)
    a, b = norm_v / sigma, norm_w / sigma
    if a == b:
        raise InputError("norm_w", "must differ from `norm_v`")
    release = SyntheticDataRelease(dim, 1, max(norm_v, norm_w, 1e-300), 1.0, sigma, n_syn)
    pair = _pair_evaluator(release, max(a, b), min(a, b), tail)
    pair.refine(1e-3, 1e-3 * tail)
    flat = eps.ravel()
    pair.insert_levels(np.concatenate([flat, -flat]))
    (forward, _), (reverse, _) = pair.curves()
    upper, lower = (forward if a > b else reverse).bracket(flat)
    return upper.reshape(eps.shape), lower.reshape(eps.shape)
