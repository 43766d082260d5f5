"""The two directions of a mechanism's privacy profile on the PLD's loss grid (docs/theory.md §14).

The PLD accountant (:mod:`synthamp.accountant._pld`) discretises hockey-stick
curves δ(ε), ε ∈ ℝ, on the grid ε_i = i·h. This module gives, for each
mechanism, the curves of its two directions kept apart: *remove*
δ_{P,Q}(ε) and *add* δ_{Q,P}(ε) (dp_accounting's ``pmf_remove`` and
``pmf_add``), each as an upper bound (error added) and a lower bound.

* Gaussian mechanism (and a k > 1 release: post-processing with Δ_eff,
  certified): the pair is symmetric, one curve serves both directions.
* Subsampled Gaussian: remove is (1 − q)N(0, σ²) + qN(Δ, σ²) against
  N(0, σ²) (the record present, then absent), add the reverse pair.
* A k = 1 synthetic data release: the worst adjacent pair, whose two
  directions are the pair (P_a, P_b) on the forward edge and its reverse.

Why the edge pair is the maximiser for every number T of releases
-----------------------------------------------------------------
The T releases of a synthetic data release see the same data, hence the same
adjacent pair (v, w): the mechanism's T-fold loss is that of (P_a^⊗T, P_b^⊗T),
and its ε is the supremum over adjacent pairs of the larger of the two
directions of that product (docs/theory.md §14). Two facts reduce that supremum
to a few pairs for every T at once.

(1) *Blackwell order tensorises.* For pairs of laws, δ_{P,Q}(ε) <= δ_{P',Q'}(ε)
at every ε ∈ ℝ is equivalent to the trade-off function of (P, Q) lying above
that of (P', Q'), i.e. (Blackwell 1953; Dong, Roth and Su 2022, §2) to a
Markov kernel K with K·P' = P and K·Q' = Q. Then the product kernel K^⊗T maps
(P'^⊗T, Q'^⊗T) to (P^⊗T, Q^⊗T), and by data processing the T-fold curve of
(P, Q) is below that of (P', Q') at every ε; with any other mechanism M
composed alongside, K ⊗ id maps (P' × M_1, Q' × M_2) to (P × M_1, Q × M_2)
likewise. So pointwise domination of one release's directed curves over all
ε ∈ ℝ implies domination for every T and in every composition.

(2) *The edge reduction.* The proof of :mod:`synthamp.accountant._worst_case`
(MLR + Blackwell: raising a, or moving b away from a, is a post-processing
step in the dominating direction) builds exactly such kernels, so by (1) it
holds for the T-fold product: the supremum over adjacent pairs of the T-fold
curve lies on the forward edge {(t + g, t)} or the reverse edge {(t, t + g)}
for every T. The reverse edge's pair (t, t + g) is the pair (t + g, t) with
its directions swapped, so the two directions of the forward-edge pairs cover
both edges. For Δ >= C the edges are the points (c, 0) and (0, c): the
endpoint pair is the maximiser for every T, proved, with no search.

(3) *Along the edge (guarded, as for T = 1).* No proof orders the pairs along
the edge; every computation puts the maximum at the forward endpoint
(c, c − g) (docs/theory.md §12, §14). By (1) it suffices that the endpoint's
directed curves dominate each other pair's at every ε ∈ ℝ, in one of the two
orientations (remove on remove and add on add, or swapped): then the
endpoint's T-fold value is the maximum for every T. This is checked, not
assumed, on the guard pairs t ∈ {0, (c − g)/2} (``GUARD_POINTS``, the T = 1
guard of :mod:`synthamp.accountant._profile`), at every ε of the grid: a guard
whose lower bracket exceeds the endpoint's upper value somewhere, in both
orientations, triggers the fallback: the :data:`FALLBACK_SCAN_POINTS` pairs
along the edge are evaluated and each direction's upper curve becomes the
pointwise maximum over the endpoint, the guards and the scan (a hockey-stick
curve again: a supremum of convex curves in e^ε, dominating each of them at
every ε, so (1) applies to it), flagged ``fallback``. As at T = 1, the guard
and the scan cover finitely many pairs: the claim is the guarded search's, and
a fired guard is reported (``fallback``), never hidden. The lower curves are
always the endpoint's own: the lower companion of the PLD is then a lower
bound on the ε of a feasible pair, hence on the mechanism's ε (never on a
dominating envelope).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from synthamp._kinds import Kind
from synthamp._parameters import validated_one
from synthamp._validation import InputError
from synthamp.accountant._gaussian import _gaussian_delta, _gaussian_epsilon
from synthamp.accountant._profile import FALLBACK_SCAN_POINTS, _WorstCase, beyond_exact_profile
from synthamp.accountant._profile_pair import LLR_ATOL, _PairEvaluator
from synthamp.accountant._releases import GaussianRelease, SyntheticDataRelease
from synthamp.divergence._laws import GaussianLaw, Law

__all__ = ["DirectedGrid", "SubsampledGaussianRelease", "directed_grid"]

#: Resolution in ε of the profile interpolated on the grid (see synthamp.accountant._profile).
PROFILE_RTOL = 1e-6


@dataclass(frozen=True)
class SubsampledGaussianRelease:
    """A Gaussian mechanism on a Poisson subsample (e.g. one step of DP-SGD), T times.

    Sampling probability q, L2 sensitivity Δ of one record, noise σ. Its two
    directions are kept apart (as dp_accounting does): *remove* is the pair
    (1 − q)N(0, σ²) + qN(Δ, σ²) against N(0, σ²) (the record in the first
    dataset), *add* the reverse pair.

    Parameters
    ----------
    sensitivity : float
        Δ > 0.
    sigma : float
        σ > 0.
    sampling_probability : float
        q in (0, 1].
    releases : int, default 1
        Number T of steps.
    """

    sensitivity: float
    sigma: float
    sampling_probability: float
    releases: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "sensitivity", validated_one("sensitivity", self.sensitivity))
        object.__setattr__(self, "sigma", validated_one("sigma", self.sigma))
        q = validated_one("sampling_probability", self.sampling_probability)
        if q > 1.0:
            raise InputError("sampling_probability", f"must be in (0, 1], got {q}")
        object.__setattr__(self, "sampling_probability", q)
        object.__setattr__(self, "releases", validated_one("releases", self.releases))


Mechanism = SyntheticDataRelease | GaussianRelease | SubsampledGaussianRelease


@dataclass(frozen=True, eq=False)
class DirectedGrid:
    """The two directed profiles of a mechanism on ε_i = (lower + i)·h, i = 0 .. size − 1.

    Attributes
    ----------
    lower : int
        Grid index of the first point.
    remove_upper, remove_lower, add_upper, add_lower : ndarray
        Upper and lower bounds of δ of each direction on the grid; for a
        symmetric pair the add arrays *are* the remove arrays.
    kind : Kind
    orientable : bool
        True for a synthetic data release: which of its directions goes with
        an added or removed record depends on the data (every adjacent pair of
        the constraint set is realised in either order, docs/theory.md §12), so a
        composition takes the worse of both orientations.
    fallback : bool
        Whether a guard fired (module docstring, (3)).
    pairs : tuple of (float, float)
        The pairs (‖v‖, ‖w‖) evaluated (natural units), the endpoint first.
    remove_survival, add_survival : ndarray or None
        Lower bounds on P(loss > ε_i) of each direction of the endpoint pair
        (the loss under the direction's first law), for the optimistic PLD
        that rounds every loss down to the grid (:func:`_survivals`); None
        when not asked for, and for a finite release (whose tails cost a
        quadrature each: its companion is the shifted lower bracket).
    """

    lower: int
    remove_upper: NDArray[np.float64]
    remove_lower: NDArray[np.float64]
    add_upper: NDArray[np.float64]
    add_lower: NDArray[np.float64]
    kind: Kind
    orientable: bool = False
    fallback: bool = False
    pairs: tuple[tuple[float, float], ...] = ()
    remove_survival: NDArray[np.float64] | None = None
    add_survival: NDArray[np.float64] | None = None

    @property
    def symmetric(self) -> bool:
        return self.add_upper is self.remove_upper


def _gaussian_grid_bounds(mu: float, tail: float, h: float) -> tuple[int, int]:
    top = _gaussian_epsilon(min(tail, 0.5), mu / 1.0)
    n = _grid_steps(top, h)
    return -n, n


def _mixture_pair(mu: float, q: float):
    """(1 − q)N(0, 1) + qN(μ, 1) against N(0, 1), in the coordinate x."""
    log_q, log_1mq = math.log(q), (math.log1p(-q) if q < 1.0 else -math.inf)

    class _Mixture(Law):
        center, spread = q * mu, 1.0

        def to_t(self, value):
            return np.asarray(value, dtype=float)

        def from_t(self, t):
            return np.asarray(t, dtype=float)

        def log_tail(self, t, upper):
            # scipy.special is heavy (~0.25 s to import): loaded on first use
            from scipy import special

            t = np.atleast_1d(np.asarray(t, dtype=float))
            if upper:
                return np.logaddexp(
                    log_1mq + special.log_ndtr(-t), log_q + special.log_ndtr(mu - t)
                )
            return np.logaddexp(log_1mq + special.log_ndtr(t), log_q + special.log_ndtr(t - mu))

    def llr(t):
        return np.logaddexp(log_1mq, log_q + mu * np.asarray(t, dtype=float) - 0.5 * mu * mu)

    return _Mixture(), GaussianLaw(0.0), llr


#: Largest half-width of a PLD grid in steps h (2·4e6 + 1 points: ~2 GB while composing).
MAX_GRID_STEPS = 4_000_000


def _grid(top: float, h: float) -> tuple[int, NDArray[np.float64]]:
    n = _grid_steps(top, h)
    return -n, np.arange(-n, n + 1) * h


def _grid_steps(top: float, h: float) -> int:
    """Half-width in steps h of the grid spanning ±``top``, within :data:`MAX_GRID_STEPS`."""
    n = max(math.ceil(top / h), 1)
    if n > MAX_GRID_STEPS:  # ε in the thousands (tiny σ): refused before the memory runs out
        unit = 10.0 ** (math.floor(math.log10(top / MAX_GRID_STEPS)) - 1)
        enough = math.ceil(top / MAX_GRID_STEPS / unit) * unit  # rounded up to 2 digits
        raise InputError(
            "discretization",
            f"the privacy loss spans ±{top:.4g} nats: h = {h:g} needs {2 * n + 1:.3g} grid "
            f"points (at most {2 * MAX_GRID_STEPS + 1:.3g}); use h >= {enough:.2g} "
            "or the rdp accountant",
        )
    return n


def _directions(pair: _PairEvaluator, eps: NDArray) -> tuple[NDArray, NDArray, NDArray, NDArray]:
    """(remove upper, remove lower, add upper, add lower) of a pair: its forward and reverse."""
    (forward, _), (reverse, _) = pair.curves()
    return (*forward.bracket(eps), *reverse.bracket(eps))


#: Thresholds are aimed this far beyond each grid ε (times 1 + |ε|): above the error of L
#: (``LLR_ATOL``) and of the interpolation that places them (~1e-8 at h = 1e-4).
_LEVEL_OFFSET = 1e-7


def _put_on_grid(pair: _PairEvaluator, eps: NDArray) -> None:
    """Thresholds just beyond each grid ε of both directions (L(x) ≈ ±(ε + offset)).

    No root is needed (:func:`_survivals` uses whatever loss a threshold has):
    the thresholds are interpolated from L on the grid, L is evaluated there,
    and they are interpolated again from the denser set (two evaluations of L
    instead of a root search per level); a threshold that lands on the wrong
    side of its level only serves the next grid point (a looser bound).
    """
    levels = eps + _LEVEL_OFFSET * (1.0 + np.abs(eps))
    levels = np.concatenate([levels, -levels])
    t, loss = pair.t, np.maximum.accumulate(pair.values["loss"])
    levels = levels[(levels > loss[0]) & (levels < loss[-1])]
    if levels.size == 0:
        return
    first = np.unique(np.interp(levels, loss, t))
    t_all = np.concatenate([t, first])
    loss_all = np.concatenate([loss, np.asarray(pair.llr(first), dtype=float)])
    order = np.argsort(t_all, kind="stable")
    t_all, loss_all = t_all[order], np.maximum.accumulate(loss_all[order])
    second = np.unique(np.interp(levels, loss_all, t_all))
    pair.insert(second[~np.isin(second, pair.t)])


def _survivals(pair: _PairEvaluator, eps: NDArray) -> tuple[NDArray, NDArray]:
    """Lower bounds on P(loss > ε) at ``eps`` of both directions of a pair.

    Remove: the loss L under P_hi; at a threshold t_j, T > t_j implies
    L(T) >= L(t_j), so P(L > ε) >= P_hi(T > t_j) whenever L(t_j) > ε. Add: −L
    under P_lo, P(−L > ε) >= P_lo(T <= t_j) whenever −L(t_j) > ε. The computed
    L carries the error ``LLR_ATOL``·(1 + |L|) and the tails their relative
    ``tail_rtol``: a point serves ε only if its loss minus that error exceeds
    ε, and its tail is shrunk by the relative error. The bound at ε is the
    largest over the points that serve it (non-increasing in ε).
    """
    v = pair.values
    loss = v["loss"]
    err = LLR_ATOL * (1.0 + np.abs(loss))
    shrink = 1.0 - pair.tail_rtol

    def lower(keys, log_tail):
        order = np.argsort(keys, kind="stable")
        keys, tails = keys[order], np.exp(log_tail[order]) * shrink
        best = np.maximum.accumulate(tails[::-1])[::-1]  # max over the points of key >= keys[k]
        k = np.searchsorted(keys, eps, side="right")  # the first point of key > ε
        out = np.zeros(eps.shape)
        inside = k < keys.size
        out[inside] = best[k[inside]]
        return out

    return lower(loss - err, v["up_hi"]), lower(-loss - err, v["low_lo"])


def _dominated(guard: tuple, endpoint: tuple) -> bool:
    """Whether the endpoint's upper curves dominate the guard's lower ones, in some orientation."""
    ru, _, au, _ = endpoint
    _, rl, _, al = guard
    same = bool(np.all(rl <= ru) and np.all(al <= au))
    return same or bool(np.all(rl <= au) and np.all(al <= ru))


def _release_grid(
    release: SyntheticDataRelease, h: float, tail: float, companion: bool
) -> DirectedGrid:
    """The worst pair of a k = 1 release, guarded for every T (module docstring)."""
    worst = _WorstCase(release, PROFILE_RTOL, tail)
    top, _ = worst.root(tail)
    if not math.isfinite(top):
        top = max(float(worst.endpoint.curves()[0][0].eps[-1]), h)
    lower, eps = _grid(top, h)
    survival = (None, None)
    if companion and release.n_syn is None:
        # the χ² tails are cheap; Y·X's quadrature is not (a finite release's companion is
        # the shifted lower bracket instead: synthamp.accountant._pld)
        _put_on_grid(worst.endpoint, eps)
        survival = _survivals(worst.endpoint, eps)
    endpoint = _directions(worst.endpoint, eps)
    guards = [_directions(guard, eps) for guard in worst.guards]
    if all(_dominated(guard, endpoint) for guard in guards):
        return DirectedGrid(lower, *endpoint, Kind.EXACT, True, False, worst.pairs, *survival)
    grid = np.linspace(0.0, worst.length, FALLBACK_SCAN_POINTS + 1)[:-1]
    worst.scan = [worst._evaluate(float(t), worst.rtol) for t in grid]
    remove_upper, add_upper = endpoint[0].copy(), endpoint[2].copy()
    for other in [*guards, *(_directions(p, eps) for p in worst.scan)]:
        np.maximum(remove_upper, other[0], out=remove_upper)
        np.maximum(add_upper, other[2], out=add_upper)
    return DirectedGrid(
        lower, remove_upper, endpoint[1], add_upper, endpoint[3], Kind.EXACT, True, True,
        worst.pairs, *survival,
    )  # fmt: skip


def directed_grid(
    mechanism: Mechanism, h: float, tail: float, companion: bool = False
) -> DirectedGrid:
    """The two directions of ``mechanism``'s single-run profile on the grid of step ``h``.

    ``companion``: also the survival bounds of the optimistic PLD (which puts
    a threshold at every grid point of a release's endpoint pair).
    """
    # scipy.special is heavy (~0.25 s to import): loaded on first use
    from scipy import special

    if (
        isinstance(mechanism, SyntheticDataRelease)
        and mechanism.out_dim == 1
        and not beyond_exact_profile(mechanism)
    ):  # beyond: the certified post-processing grid below
        return _release_grid(mechanism, h, tail, companion)
    if isinstance(mechanism, SubsampledGaussianRelease):
        mu = mechanism.sensitivity / mechanism.sigma
        law_hi, law_lo, llr = _mixture_pair(mu, mechanism.sampling_probability)
        pair = _PairEvaluator(law_hi, law_lo, llr, 1e-12, tail)
        forward, reverse = pair.refine(PROFILE_RTOL, 1e-3 * tail)
        top = max(forward.root(tail)[0], reverse.root(tail)[0])
        if not math.isfinite(top):
            top = max(float(forward.eps[-1]), float(reverse.eps[-1]), h)
        lower, eps = _grid(top, h)
        survival = (None, None)
        if companion:
            _put_on_grid(pair, eps)
            survival = _survivals(pair, eps)
        return DirectedGrid(lower, *_directions(pair, eps), Kind.EXACT, False, False, (), *survival)
    # the Gaussian mechanism (Balle and Wang 2018), or post-processing for k > 1
    if isinstance(mechanism, GaussianRelease):
        sensitivity, kind = mechanism.sensitivity, Kind.EXACT
    elif isinstance(mechanism, SyntheticDataRelease):
        sensitivity, kind = mechanism.effective_sensitivity, Kind.CERTIFIED
    else:
        raise InputError("mechanism", f"must be a release or Gaussian mechanism, got {mechanism!r}")
    lo, hi = _gaussian_grid_bounds(sensitivity / mechanism.sigma, tail, h)
    eps = np.arange(lo, hi + 1) * h
    # δ(ε) for ε < 0 by the symmetry δ(ε) = 1 − e^ε + e^ε δ(−ε) of the Gaussian pair
    pos = _gaussian_delta(np.abs(eps), sensitivity / mechanism.sigma)
    with np.errstate(over="ignore", invalid="ignore"):  # e^ε past 709: the unused branch
        delta = np.where(eps >= 0, pos, -np.expm1(eps) + np.exp(eps) * pos)
    rounding = 1e-14 * delta + 1e-300
    upper, low = np.minimum(delta + rounding, 1.0), np.maximum(delta - rounding, 0.0)
    # P(L > ε) = Φ(μ/2 − ε/μ) under N(μ, 1) against N(0, 1): the loss is μx − μ²/2
    mu = sensitivity / mechanism.sigma
    survival = special.ndtr(0.5 * mu - eps / mu) * (1.0 - 1e-12) if companion else None
    return DirectedGrid(lo, upper, low, upper, low, kind, False, False, (), survival, survival)
