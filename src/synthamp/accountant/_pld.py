"""Privacy loss distributions: tight (ε, δ) under composition (THEORY.md §14).

A mechanism's privacy profile δ*(ε) (:mod:`synthamp.accountant._profile`) is the
hockey-stick curve of a dominating pair (Zhu, Dong and Wang 2022), and
composing dominating pairs dominates the composition. Each mechanism is
therefore turned into a *pessimistic* discrete privacy loss distribution (PLD)
by connect-the-dots from δ* on the grid ε_i = i·h (Doroshenko, Ghazi, Kamath,
Kumar and Manurangsi 2022, Algorithm 1; the formula of dp_accounting's
``pld_pmf.create_pmf_pessimistic_connect_dots_fixed_gap``): its hockey-stick
curve passes through (e^{ε_i}, δ*(ε_i)) and is linear in e^ε between, hence
lies above the convex δ*. The δ*(ε_i) used are upper bounds (errors added).
Output masses are never binned (binning is a post-processing, not pessimistic).

Composition is a convolution of the loss distributions, computed natively by
numpy's FFT (T-fold by repeated squaring). After each product the tails of
mass below ``tail_mass`` are cut pessimistically: the lower tail is moved up
to the first kept loss (a larger loss only increases δ), the upper tail to
+∞. Implementation choice: native, so that ``import synthamp`` and the PLD
accountant need no new dependency; it is tested against dp_accounting's own
PLD (``tests/test_pld.py``), and :func:`to_dp_accounting_pld` exports the
same connect-the-dots PMF into dp_accounting's class.

Discretisation error
--------------------
The same construction from the *lower* bracket of δ* (and no mass at +∞)
gives a PLD A_i with δ_{A_i}(ε + h) <= δ*_i(ε) for every ε (on [ε_i, ε_{i+1}],
δ_{A_i}(ε + h) <= δ_{A_i}(ε_{i+1}) = lower bracket <= δ*_i(ε_{i+1}) <= δ*_i(ε)).
Since δ_{A⊗C}(ε) = E_{L_C}[δ_A(ε − L_C)], such shifts add under composition:
δ_{⊗A_i}(ε + Σh) <= δ_{⊗*}(ε). So ε_lower = ε_{⊗A}(δ) − Σ_i h is a lower
bound on the ε of the composed dominating pairs, and ``epsilon − epsilon_lower``
bounds the discretisation (and numerical) error of the reported ε.

References
----------
Doroshenko, V., Ghazi, B., Kamath, P., Kumar, R. and Manurangsi, P. (2022).
Connect the dots: tighter discrete approximations of privacy loss
distributions. PETS.
Zhu, Y., Dong, J. and Wang, Y.-X. (2022). Optimal accounting of differential
privacy via characteristic function. AISTATS.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

from synthamp._kinds import Kind, privacy_quantity
from synthamp._validation import InputError, check_integer, check_open_unit, check_positive
from synthamp.accountant._gaussian import gaussian_delta, gaussian_epsilon
from synthamp.accountant._profile import (
    DEFAULT_TAIL,
    _PairEvaluator,
    _WorstCase,
    profile_epsilon,
)
from synthamp.accountant._releases import GaussianRelease, SyntheticDataRelease
from synthamp.divergence._laws import GaussianLaw, Law

__all__ = [
    "DEFAULT_DISCRETIZATION",
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
#: Resolution in ε of the profile interpolated on the grid (see synthamp.accountant._profile).
PROFILE_RTOL = 1e-6


@dataclass(frozen=True)
class SubsampledGaussianRelease:
    """A Gaussian mechanism on a Poisson subsample (e.g. one step of DP-SGD), T times.

    Sampling probability q, L2 sensitivity Δ of one record, noise σ: the pair
    (1 − q)N(0, σ²) + qN(Δ, σ²) against N(0, σ²) and its reverse (adding or
    removing one record). Both orders are covered (the profile is
    symmetrised), so it composes with replace-one mechanisms soundly.

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
        object.__setattr__(self, "sensitivity", check_positive("sensitivity", self.sensitivity))
        object.__setattr__(self, "sigma", check_positive("sigma", self.sigma))
        q = check_positive("sampling_probability", self.sampling_probability)
        if q > 1.0:
            raise InputError("sampling_probability", f"must be in (0, 1], got {q}")
        object.__setattr__(self, "sampling_probability", q)
        object.__setattr__(self, "releases", check_integer("releases", self.releases, 1))


Mechanism = SyntheticDataRelease | GaussianRelease | SubsampledGaussianRelease


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
        The companion built from the lower bracket (module docstring), for
        the error of ε; None on itself.
    shift : float
        Σ h over the composed mechanisms (the companion's shift).
    kind : Kind
        Weakest kind of the composed profiles.
    """

    discretization: float
    lower: int
    probs: NDArray[np.float64]
    infinity_mass: float
    lower_bound: PrivacyLossDistribution | None = None
    shift: float = 0.0
    kind: Kind = Kind.EXACT

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
        weighted = np.cumsum(probs * np.exp(-losses))
        # δ at ε = ℓ_{k+1} (next lower loss, or 0): set {ℓ > ε} = first k + 1 losses
        nxt = np.append(losses[1:], 0.0)
        at_next = self.infinity_mass + mass - np.exp(nxt) * weighted
        over = np.nonzero(at_next > delta)[0]
        if over.size == 0:
            return 0.0
        k = over[0]  # δ(ℓ_{k+1}) > δ >= δ(ℓ_k): solve A_k − e^ε B_k = δ − mass at +∞
        eps = math.log((self.infinity_mass + mass[k] - delta) / weighted[k])
        return float(min(max(eps, nxt[k], 0.0), losses[k]))

    def compose(self, other: PrivacyLossDistribution, tail_mass: float = DEFAULT_TAIL_MASS):
        """The PLD of both mechanisms run on the same data (a convolution)."""
        if other.discretization != self.discretization:
            raise InputError("discretization", "composed PLDs must share the discretisation")
        probs = _convolve(self.probs, other.probs)
        lower, probs, cut = _truncate(self.lower + other.lower, probs, tail_mass)
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
        )

    def self_compose(self, count: int, tail_mass: float = DEFAULT_TAIL_MASS):
        """The PLD of ``count`` independent runs (repeated squaring)."""
        count = check_integer("count", count, 1)
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


def _truncate(lower: int, probs: NDArray, tail_mass: float) -> tuple[int, NDArray, float]:
    """Cut tails of mass <= tail_mass each: the lower one moved up, the upper one to +∞."""
    cum = np.cumsum(probs)
    start = int(np.searchsorted(cum, tail_mass, side="right"))  # masses before start sum <= tail
    rcum = np.cumsum(probs[::-1])
    stop = probs.size - int(np.searchsorted(rcum, tail_mass, side="right"))
    start = min(start, stop - 1)
    kept = probs[start:stop].copy()
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


# --------------------------------------------------------------------------- profiles on the grid


def _gaussian_grid_bounds(mu: float, tail: float, h: float) -> tuple[int, int]:
    top = gaussian_epsilon(min(tail, 0.5), mu)
    n = max(math.ceil(top / h), 1)
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
            t = np.atleast_1d(np.asarray(t, dtype=float))
            if upper:
                return np.logaddexp(
                    log_1mq + special.log_ndtr(-t), log_q + special.log_ndtr(mu - t)
                )
            return np.logaddexp(log_1mq + special.log_ndtr(t), log_q + special.log_ndtr(t - mu))

    def llr(t):
        return np.logaddexp(log_1mq, log_q + mu * np.asarray(t, dtype=float) - 0.5 * mu * mu)

    return _Mixture(), GaussianLaw(0.0), llr


def _grid_profile(mechanism: Mechanism, h: float, tail: float):
    """(lower index, δ upper, δ lower, kind) of the symmetrised profile on ε_i = i·h."""
    if isinstance(mechanism, SyntheticDataRelease) and mechanism.out_dim == 1:
        worst = _WorstCase(mechanism, PROFILE_RTOL, tail)
        top, _ = worst.root(tail)
        if not math.isfinite(top):
            top = max(float(worst.endpoint.curves()[0][0].eps[-1]), h)
        n = max(math.ceil(top / h), 1)
        eps = np.arange(-n, n + 1) * h
        upper, lower = worst.bracket(eps)
        return -n, upper, lower, Kind.EXACT
    if isinstance(mechanism, SubsampledGaussianRelease):
        mu = mechanism.sensitivity / mechanism.sigma
        law_hi, law_lo, llr = _mixture_pair(mu, mechanism.sampling_probability)
        pair = _PairEvaluator(law_hi, law_lo, llr, 1e-12, tail)
        forward, reverse = pair.refine(PROFILE_RTOL, 1e-3 * tail)
        top = max(forward.root(tail)[0], reverse.root(tail)[0])
        if not math.isfinite(top):
            top = max(float(forward.eps[-1]), float(reverse.eps[-1]), h)
        n = max(math.ceil(top / h), 1)
        eps = np.arange(-n, n + 1) * h
        uf, lf = forward.bracket(eps)
        ur, lr = reverse.bracket(eps)
        return -n, np.maximum(uf, ur), np.maximum(lf, lr), Kind.EXACT
    # the Gaussian mechanism (Balle and Wang 2018), or post-processing for k > 1
    if isinstance(mechanism, GaussianRelease):
        sensitivity, kind = mechanism.sensitivity, Kind.EXACT
    else:
        sensitivity, kind = mechanism.effective_sensitivity, Kind.CERTIFIED
    lo, hi = _gaussian_grid_bounds(sensitivity / mechanism.sigma, tail, h)
    eps = np.arange(lo, hi + 1) * h
    # δ(ε) for ε < 0 by the symmetry δ(ε) = 1 − e^ε + e^ε δ(−ε) of the Gaussian pair
    pos = gaussian_delta(np.abs(eps), sensitivity, mechanism.sigma)
    delta = np.where(eps >= 0, pos, -np.expm1(eps) + np.exp(eps) * pos)
    rounding = 1e-14 * delta + 1e-300
    return lo, np.minimum(delta + rounding, 1.0), np.maximum(delta - rounding, 0.0), kind


def _single_pld(mechanism: Mechanism, h: float, tail: float) -> PrivacyLossDistribution:
    lo, upper, lower, kind = _grid_profile(mechanism, h, tail)
    # the companion: connect-the-dots of the lower bracket, nothing at +∞ (module docstring)
    companion = PrivacyLossDistribution(h, lo, _connect_dots(lower, h), 0.0, None, 0.0, kind)
    return PrivacyLossDistribution(
        h, lo, _connect_dots(upper, h), float(min(upper[-1], 1.0)), companion, h, kind
    )


@privacy_quantity("exact")
def privacy_loss_distribution(
    mechanism: Mechanism,
    *,
    discretization: float = DEFAULT_DISCRETIZATION,
    tail: float = DEFAULT_TAIL,
    tail_mass: float = DEFAULT_TAIL_MASS,
    _companion: bool = True,
) -> PrivacyLossDistribution:
    """The pessimistic PLD of a mechanism, composed over its ``releases`` (module docstring).

    Parameters
    ----------
    mechanism : SyntheticDataRelease, GaussianRelease or SubsampledGaussianRelease
        k = 1 synthetic data: the exact worst-case profile (kind exact); k > 1:
        the Gaussian profile with Δ_eff (certified).
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
    PrivacyLossDistribution
    """
    h = check_positive("discretization", discretization)
    tail = check_open_unit("tail", tail)
    tail_mass = check_open_unit("tail_mass", tail_mass)
    if not isinstance(
        mechanism, SyntheticDataRelease | GaussianRelease | SubsampledGaussianRelease
    ):
        raise InputError("mechanism", f"must be a release or Gaussian mechanism, got {mechanism!r}")
    single = _single_pld(mechanism, h, tail)
    if not _companion:  # callers that need ε alone (the calibration's inner steps)
        single = replace(single, lower_bound=None)
    return single.self_compose(mechanism.releases, tail_mass) if mechanism.releases > 1 else single


@dataclass(frozen=True)
class PldEpsilon:
    """(ε, δ) by the PLD accountant (:func:`compute_epsilon_pld`).

    Attributes
    ----------
    epsilon : float
        ε of the guarantee (pessimistic discretisation; the guarantee).
    epsilon_lower : float
        Lower bound on the ε of the composed dominating pairs;
        ``epsilon − epsilon_lower`` bounds the discretisation error.
    delta : float
    discretization : float
        h.
    kind : Kind
    accountant : str
        ``"pld"``.
    """

    epsilon: float
    epsilon_lower: float
    delta: float
    discretization: float
    kind: Kind
    accountant: str = "pld"

    @property
    def discretization_error(self) -> float:
        return self.epsilon - self.epsilon_lower


@privacy_quantity("exact")
def compute_epsilon_pld(
    release: Mechanism,
    delta: float,
    *,
    extra: Iterable[Mechanism | PrivacyLossDistribution] = (),
    discretization: float = DEFAULT_DISCRETIZATION,
    tail: float = DEFAULT_TAIL,
    _companion: bool = True,
) -> PldEpsilon:
    """(ε, δ) of a release composed with other mechanisms, by the PLD accountant.

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
    delta = check_open_unit("delta", delta)
    h = check_positive("discretization", discretization)
    extra = tuple(extra)
    if (
        not extra
        and isinstance(release, SyntheticDataRelease | GaussianRelease)
        and (release.releases == 1)
    ):  # one release: its profile directly, no discretisation
        exact = profile_epsilon(release, delta)
        return PldEpsilon(exact.epsilon, exact.epsilon_lower, delta, 0.0, exact.kind)
    pld = privacy_loss_distribution(release, discretization=h, tail=tail, _companion=_companion)
    for other in extra:
        if not isinstance(other, PrivacyLossDistribution):
            other = privacy_loss_distribution(
                other, discretization=h, tail=tail, _companion=_companion
            )
        pld = pld.compose(other)
    eps = pld.epsilon(delta)
    companion = pld.lower_bound
    eps_lower = max(companion.epsilon(delta) - pld.shift, 0.0) if companion is not None else 0.0
    return PldEpsilon(eps, min(eps_lower, eps), delta, h, pld.kind)


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
) -> PldCalibration:
    """Smallest σ whose release meets (ε, δ) by the PLD accountant.

    ε_pld(σ) is non-increasing in σ (the adjacent set shrinks as σ grows,
    docs/accountant.md; pessimistic discretisations on nested grids are
    ordered). A single k = 1 release is calibrated on :func:`profile_epsilon`
    (no discretisation). The search starts from the exact calibration of
    releasing V (post-processing: T Gaussian mechanisms, noise σ/√T), an
    upper end, steps down by 3/4 to a lower end and runs regula falsi
    (:func:`_illinois_sigma`). The returned σ is where ε was computed and is
    <= the target: conservative by construction.
    """
    target = check_positive("epsilon", epsilon)
    delta = check_open_unit("delta", delta)
    h = check_positive("discretization", discretization)
    rtol = check_positive("rtol", rtol)
    base = SyntheticDataRelease(dim, out_dim, norm_bound, sensitivity, 1.0, n_syn, releases)
    exact = releases == 1 and out_dim == 1

    def at(sigma: float, companion: bool = False):
        if exact:
            result = profile_epsilon(base.with_sigma(sigma), delta)
            return result.epsilon, result.epsilon_lower, result.kind
        result = compute_epsilon_pld(
            base.with_sigma(sigma), delta, discretization=h, _companion=companion
        )
        return result.epsilon, result.epsilon_lower, result.kind

    # releasing V is a post-processing bound: T Gaussian mechanisms compose exactly into
    # one with noise σ/√T, so the exact Gaussian calibration times √T is an upper end
    hi = math.sqrt(releases) * gaussian_sigma(target, delta, base.effective_sensitivity)
    sigma = _illinois_sigma(lambda x: at(x)[0], target, hi, rtol)
    eps, eps_lower, kind = at(sigma, companion=True)
    return PldCalibration(sigma, eps, eps_lower, delta, target, 0.0 if exact else h, kind)


def _illinois_sigma(epsilon_at, target: float, hi: float, rtol: float) -> float:
    """Smallest σ <= hi with ε(σ) <= target, to relative ``rtol`` (ε non-increasing in σ).

    Regula falsi with the Illinois modification on (log σ, ε − target), each
    proposal kept at least rtol/2 inside the bracket so that the bracket
    itself shrinks below ``rtol``. Returns the upper end, where ε was
    computed and is <= target.
    """
    f_hi = epsilon_at(hi) - target
    while f_hi > 0:  # not an upper end (by the discretisation error only): double
        hi *= 2.0
        f_hi = epsilon_at(hi) - target
    lo = hi
    for _ in range(80):
        lo *= 0.75
        f_lo = epsilon_at(lo) - target
        if f_lo > 0:
            break
        hi, f_hi = lo, f_lo
    else:
        raise RuntimeError("calibration: epsilon stays below the target as sigma -> 0")
    x_lo, x_hi, side = math.log(lo), math.log(hi), 0
    margin = 0.5 * math.log1p(rtol)
    while x_hi - x_lo > math.log1p(rtol):
        x = x_lo - f_lo * (x_hi - x_lo) / (f_hi - f_lo) if f_lo != f_hi else 0.5 * (x_lo + x_hi)
        x = min(max(x, x_lo + margin), x_hi - margin)
        f = epsilon_at(math.exp(x)) - target
        if f > 0:
            x_lo, f_lo = x, f
            if side == -1:
                f_hi *= 0.5
            side = -1
        else:
            x_hi, f_hi = x, f
            if side == 1:
                f_lo *= 0.5
            side = 1
    return math.exp(x_hi)


def gaussian_sigma(epsilon: float, delta: float, sensitivity: float) -> float:
    """Smallest σ of the Gaussian mechanism with exact ε(δ) <= ε (Balle and Wang 2018)."""

    def excess(log_sigma: float) -> float:
        return gaussian_epsilon(delta, sensitivity, math.exp(log_sigma)) - epsilon

    lo = hi = math.log(sensitivity)
    while excess(hi) > 0:
        hi += 1.0
    while excess(lo) <= 0:
        lo -= 1.0
    # heavy: scipy.optimize (~0.6 s at import), needed only by this calibration
    from scipy.optimize import brentq

    root = brentq(excess, lo, hi, xtol=1e-12)
    sigma = math.exp(root)
    while gaussian_epsilon(delta, sensitivity, sigma) > epsilon:  # the upper side
        sigma *= 1 + 1e-12
    return sigma
