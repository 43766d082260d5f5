"""The guarantee of a k ≥ 2 release on a public design (docs/theory.md §20), certified.

:class:`PublicDesignRelease` describes the mechanism (the unlimited release of
k ≥ 2 target columns on a public design, T runs, which bounds every n_syn: the
first n_syn records are a function of it, docs/theory.md §3). Its guarantee
(:func:`account_certified`, :func:`calibrate_certified`) is the smaller of two
sound bounds, labelled **certified** (proven upper bounds, not attained: the
reduction costs k degrees of freedom and c* ≥ the realised norms):

* the reduction's bound, by one of two routes (``route``):

  - ``"node"`` (default): the **orthogonal node's PLD**. docs/theory.md §20 proves
    (the angle theorem) that the canonical pair's hockey-stick divergence, at every
    ε ∈ ℝ and in both directions, is nondecreasing in φ ∈ [0, π/2]; so the π/2 pair
    Blackwell-dominates every canonical pair, hence (through the two kernels) every
    adjacent pair of the design, for every T and in every composition
    (:mod:`synthamp.accountant._pld_grid`, (1)). Its PLD is the k = 1 remove ⊛ add
    at width d − k and c*/σ (:func:`synthamp.accountant.orthogonal_node_pld`),
    composed T times: ε by the PLD (pessimistic, tighter than RDP).
  - ``"grid"``: the **angle certificate**, which assumes no monotonicity: the
    certified RDP curve of the sup over φ (:mod:`synthamp.accountant._angle_grid`)
    T times, converted by :func:`synthamp.accountant.rdp_to_epsilon`. (A maximum
    over intervals of pairs' PLDs is not a PLD, and the k = 2 engine has no
    profile: the RDP route is the sound one there.) It costs one k = 2 engine
    call per interval, at the order minimising the π/2 node's ε and its two
    neighbours in :data:`~synthamp.accountant._angle_grid.ANGLE_ORDERS` (the
    minimum of the conversion over fewer orders is still a valid ε).

* **post-processing**: the Gaussian mechanism on v with the Frobenius sensitivity
  Δ = 2B·maxᵢ √Gᵢᵢ, exact ε (Balle and Wang 2018) at sensitivity Δ√T.

Beside it, a **true lower bound** (:attr:`CertifiedGuarantee.epsilon_lower_realised`):
the realised pair yᵢ = Be₁ → Be₂ with every other row 0 is the canonical π/2 pair
at the full width d with c = B√Gᵢᵢ, whose PLD (T runs) gives a lower bound on ε
(its optimistic companion); ``certified_over_lower`` is the ratio.

Composition with other mechanisms: :attr:`CertifiedGuarantee.rdp` is an
:class:`~synthamp.accountant.RdpCurve` (kind certified; ``curve + other``,
``T * curve``); :attr:`CertifiedGuarantee.pld` the node's
:class:`~synthamp.accountant.PairPld` (route node), which
:func:`synthamp.accountant.to_dp_accounting_pld` exports to dp_accounting.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._kinds import Kind, privacy_quantity
from synthamp._parameters import at_least, validated, validated_one
from synthamp._validation import (
    InputError,
)
from synthamp.accountant._angle_grid import (
    ANGLE_ORDERS,
    DEFAULT_ANGLE_RATIO,
    AngleCertificate,
    _certified_angle_rdp,
    angle_nodes,
)
from synthamp.accountant._angle_reduction import (
    _orthogonal_node_pld,
    _orthogonal_node_rdp,
    canonical_norm,
)
from synthamp.accountant._calibrator import smallest_sigma
from synthamp.accountant._gaussian import _gaussian_epsilon
from synthamp.accountant._guarantee import Guarantee
from synthamp.accountant._node_search import node_sigma_search
from synthamp.accountant._pld import PairPld, gaussian_sigma
from synthamp.accountant._profile import DEFAULT_TAIL, beyond_exact_profile
from synthamp.accountant._rdp_conversion import (
    DEFAULT_ORDERS,
    RdpCurve,
    _curve,
    _epsilon,
    _epsilon_terms,
)
from synthamp.accountant._releases import SyntheticDataRelease

__all__ = [
    "CERTIFIED_REASON",
    "REALISED_LOWER",
    "ROUTES",
    "CertifiedGuarantee",
    "PublicDesignRelease",
    "account_certified",
    "calibrate_certified",
]

#: The loss grid of the node's PLDs (pessimistic: the upper PLD rounds every loss up and its
#: companion, the lower bound, down; a coarser grid only loosens them, by ~1e-3 at ε ≈ 1,
#: 15× faster than the 1e-4 of the k = 1 accountant).
_PLD_DISCRETIZATION = 1e-3
#: The node's PLD grid has at most about this many points per direction (its step is
#: max(_PLD_DISCRETIZATION, top/_PLD_POINTS), :func:`_node_pld`).
_PLD_POINTS = 1e4


@dataclass(frozen=True)
class PublicDesignRelease:
    """The unlimited release of k ≥ 2 target columns on a public design (docs/theory.md §20).

    V = MY + σN (M the public d × m design, Y the m × k private targets with rows
    ‖yᵢ‖ ≤ B), released as the synthetic records ZV (any n_syn: the unlimited
    release bounds them all), ``releases`` times on the same data.

    Parameters
    ----------
    dim : int
        d, the design's width (d − k ≥ 2).
    out_dim : int
        k ≥ 2, the number of target columns.
    canonical_norm : float
        c* of the design (:func:`synthamp.accountant.canonical_norm`), natural units.
    sensitivity : float
        Δ = 2B·maxᵢ √Gᵢᵢ, the Frobenius sensitivity of v (post-processing).
    sigma : float
    releases : int, default 1
    realised_norm : float or None, default None
        B·maxᵢ √Gᵢᵢ, the norm of the realised orthogonal pair (the lower bound);
        None: no lower bound.
    """

    dim: int
    out_dim: int
    canonical_norm: float
    sensitivity: float
    sigma: float
    releases: int = 1
    realised_norm: float | None = None

    def __post_init__(self) -> None:
        k = at_least("out_dim", validated_one("out_dim", self.out_dim), 2)
        object.__setattr__(self, "out_dim", k)
        dim = validated_one("dim", self.dim)
        if dim - k < 2:
            raise InputError("dim", f"must be >= out_dim + 2 = {k + 2} (width d - k >= 2)")
        object.__setattr__(self, "dim", dim)
        for name in ("canonical_norm", "sensitivity", "sigma"):
            object.__setattr__(self, name, validated_one(name, getattr(self, name)))
        object.__setattr__(self, "releases", validated_one("releases", self.releases))
        if self.realised_norm is not None:
            low = validated_one("realised_norm", self.realised_norm)
            if low > self.canonical_norm:
                raise InputError("realised_norm", "must be <= canonical_norm")
            object.__setattr__(self, "realised_norm", low)

    @classmethod
    def from_gram(
        cls,
        gram: ArrayLike,
        label_bound: float,
        dim: int,
        out_dim: int,
        sigma: float,
        releases: int = 1,
        gram_error: float = 0.0,
    ) -> PublicDesignRelease:
        """The release on the design of Gram matrix G = MᵀM (c*, Δ and the realised norm from G).

        ``gram_error`` bounds |G̃ᵢⱼ − Gᵢⱼ| entrywise (:func:`canonical_norm`).
        """
        norms = canonical_norm(gram, label_bound, gram_error)
        g = np.asarray(gram, dtype=float)
        top = float(np.max(np.diag(g))) + float(gram_error)
        sensitivity = 2.0 * float(label_bound) * math.sqrt(top) * (1.0 + 1e-15)
        return cls(dim, out_dim, norms.c_star, sensitivity, sigma, releases, norms.c_realised)

    def with_sigma(self, sigma: float) -> PublicDesignRelease:
        return PublicDesignRelease(
            self.dim, self.out_dim, self.canonical_norm, self.sensitivity, sigma,
            self.releases, self.realised_norm,
        )  # fmt: skip


@dataclass(frozen=True)
class CertifiedGuarantee:
    """An (ε, δ) guarantee of a :class:`PublicDesignRelease` (certified), with its lower bound.

    Attributes
    ----------
    sigma, epsilon, delta : float
        The guarantee: ``epsilon`` = min(the route's ε, ``epsilon_post_processing``).
    kind : str
        ``"certified"``.
    route : {"node", "grid"}
        How the reduction's bound was computed (module docstring).
    bound : {"orthogonal node", "angle certificate", "post-processing"}
        Which bound is ``epsilon``.
    epsilon_node : float
        Route node: the orthogonal node's PLD ε at width d − k and c* (T runs); inf
        when not computed.
    epsilon_certificate : float
        The angle certificate's ε (route grid, or ``check_grid``); inf when not
        computed.
    optimal_order : float
        The certificate's order (nan when not computed).
    epsilon_post_processing : float
        The Gaussian mechanism with Δ√T (exact profile).
    epsilon_orthogonal_node : float
        The π/2 node at width d − k by RDP over the curve's orders (the RDP route's
        value of the node, for comparison).
    epsilon_lower_realised : float or None
        A lower bound on the release's true ε at ``delta`` (the realised
        orthogonal pair's PLD, its optimistic companion).
    certified_over_lower : float or None
        ``epsilon / epsilon_lower_realised``.
    rdp : RdpCurve
        A certified RDP curve of the T runs: per order the smaller of the route's
        bound and post-processing's αμ²/2, with ``rdp_lower`` the realised pair's
        RDP − error.
    pld : PairPld or None
        Route node: the node's PLD, T runs (None: not computed), on a loss grid of step
        max(1e-3, top/10⁴); to compose with PLDs of another step, build it on theirs:
        ``orthogonal_node_pld(d − k, c*, σ, T, discretization=h)``.
    certificate : AngleCertificate or None
        One run's angle grid (None: not computed).
    seconds : float
        Wall time of the accounting.
    """

    sigma: float
    epsilon: float
    delta: float
    kind: str
    route: str
    bound: str
    epsilon_node: float
    epsilon_certificate: float
    optimal_order: float
    epsilon_post_processing: float
    epsilon_orthogonal_node: float
    epsilon_lower_realised: float | None
    certified_over_lower: float | None
    rdp: RdpCurve
    pld: PairPld | None
    certificate: AngleCertificate | None
    seconds: float

    def as_guarantee(
        self, release: PublicDesignRelease, target_epsilon: float | None = None
    ) -> Guarantee:
        """This guarantee of ``release`` as the rule's :class:`~synthamp.accountant.Guarantee`
        (kind certified), so that every output renders it through the same sentences;
        ``epsilon_pld_lower`` is the realised pair's lower bound, ``reason`` is
        :data:`CERTIFIED_REASON` and ``sigma_post_processing`` the σ releasing v needs (the
        Gaussian mechanism with Δ√T)."""
        node = self.route == "node" and self.bound == "orthogonal node"
        post = self.bound == "post-processing"
        sensitivity = release.sensitivity * math.sqrt(release.releases)
        sigma_post = gaussian_sigma(self.epsilon, self.delta, sensitivity)
        return Guarantee(
            sigma=self.sigma, epsilon=self.epsilon, delta=self.delta, kind=self.kind,
            accountant="pld" if node or post else "rdp", reason=CERTIFIED_REASON,
            method="post-processing" if post else "certified",
            optimal_order=None if math.isnan(self.optimal_order) else self.optimal_order,
            sigma_post_processing=sigma_post,
            epsilon_post_processing=self.epsilon_post_processing,
            epsilon_rdp=self.epsilon_orthogonal_node if math.isfinite(
                self.epsilon_orthogonal_node) else None,
            epsilon_pld=self.epsilon_node if math.isfinite(self.epsilon_node) else None,
            epsilon_pld_lower=self.epsilon_lower_realised, target_epsilon=target_epsilon,
            rdp=self.rdp,
        )  # fmt: skip

    def to_dict(self) -> dict:
        """The JSON fields (numbers and labels)."""
        out = {
            name: getattr(self, name)
            for name in (
                "sigma", "epsilon", "delta", "kind", "route", "bound", "epsilon_node",
                "epsilon_certificate", "epsilon_post_processing", "epsilon_orthogonal_node",
                "epsilon_lower_realised", "certified_over_lower",
            )
        }  # fmt: skip
        if self.certificate is not None:
            out["angle_intervals"] = int(self.certificate.nodes.size - 1)
            out["angle_width"] = self.certificate.width
            out["certificate_over_orthogonal_node"] = float(np.max(self.certificate.overhead))
        # JSON has no infinity: a bound not computed is null
        return {k: None if isinstance(v, float) and math.isinf(v) else v for k, v in out.items()}


#: Why a k ≥ 2 release on a public design has this guarantee (the rule's sentence, rendered by
#: every output as :attr:`Guarantee.reason`).
CERTIFIED_REASON = (
    "k ≥ 2 target columns on a public design: certified by the reduction of docs/theory.md §20 "
    "(every adjacent pair of the design is dominated by the orthogonal node at width d − k and "
    "norm c*), the smaller of it and post-processing"
)
#: What the lower bound beside a certified guarantee is (every output renders this sentence).
REALISED_LOWER = (
    "The lower bound is the ε, at the guarantee's δ, of a realised adjacent pair on an "
    "orthogonal design (one record yᵢ = Be₁ → Be₂, every other row 0): a lower bound on the "
    "mechanism's true ε, so the truth lies between it and the guarantee"
)

#: The routes of the reduction's bound (module docstring).
ROUTES = ("node", "grid")


def _best_orders(rdp: NDArray[np.float64], delta: float, count: int = 3) -> NDArray[np.int64]:
    """Indices of the order minimising the conversion's ε and its neighbours."""
    terms = _epsilon_terms(ANGLE_ORDERS, rdp, delta)
    best = int(np.argmin(terms))
    lo = max(0, min(best - count // 2, ANGLE_ORDERS.size - count))
    return np.arange(lo, lo + count)


def _node_pld(
    width: int, amp: float, count: int, rdp: NDArray[np.float64], orders: NDArray[np.float64]
) -> PairPld | None:
    """The node's PLD (T runs) on a loss grid of at most ~2·10⁴ points per direction, or None
    past the exact profile's range (:func:`synthamp.accountant._profile.beyond_exact_profile`,
    the k = 1 rule: the pair (a, 0) has norm and step a). The grid's step is
    max(1e-3, top/10⁴), top the node's RDP bound on ε at δ = 10⁻¹⁸ (where the PLD's grid
    ends): a coarser grid only loosens the pessimistic PLD and its companion. top/10⁴
    binds from ε ≈ 4 up; measured at ε ≈ 100 (wine's table, D = 10⁶, top = 150), the upper
    ε moved by 6.5e-5 against top/10⁵ (the companion by 0.015) and the evaluation took a
    third of the time (the thresholds put on each grid point cost most)."""
    if beyond_exact_profile(SyntheticDataRelease(width, 1, amp, amp, 1.0, None)):
        return None
    top = _epsilon(orders, rdp, DEFAULT_TAIL, warn=False)[0]
    h = max(_PLD_DISCRETIZATION, top / _PLD_POINTS)
    try:
        return _orthogonal_node_pld(width, amp, count, h)
    except (InputError, OverflowError):  # the k = 1 profile's tails out of range (tiny d, a
        return None  # in the hundreds): the node is not computed, post-processing stands


def _realised_lower(release: PublicDesignRelease, orders: NDArray[np.float64], delta: float):
    """(ε lower bound at δ, RDP lower bound per order) of the realised orthogonal pair, T runs
    (ε lower bound 0 past the exact profile's range: no lower bound)."""
    amp, count = release.realised_norm / release.sigma, release.releases
    value, error = _orthogonal_node_rdp(orders, release.dim, amp)
    pld = _node_pld(release.dim, amp, count, count * (value + error), orders)
    lower = 0.0 if pld is None else float(pld.epsilon_lower(delta))
    return lower, np.maximum(count * (value - error), 0.0)


def _check_route(route: str) -> str:
    if route not in ROUTES:
        raise InputError("route", f"must be one of {', '.join(ROUTES)}; got {route!r}")
    return route


@privacy_quantity(Kind.CERTIFIED)
def account_certified(
    release: PublicDesignRelease,
    delta: float,
    *,
    route: str = "node",
    check_grid: bool = False,
    ratio: float = DEFAULT_ANGLE_RATIO,
) -> CertifiedGuarantee:
    """The certified (ε, δ) guarantee of a k ≥ 2 release on a public design, and its lower bound.

    Parameters
    ----------
    release : PublicDesignRelease
    delta : float
        δ in (0, 1).
    route : {"node", "grid"}, default "node"
        The orthogonal node's PLD (the angle theorem of docs/theory.md §20) or the
        angle certificate (no monotonicity used).
    check_grid : bool, default False
        Route node: also compute the angle certificate (``epsilon_certificate``).
    ratio : float, default 0.02
        The angle grid's model overhead per interval (:func:`angle_nodes`).

    Returns
    -------
    CertifiedGuarantee
    """
    if not isinstance(release, PublicDesignRelease):
        raise InputError("release", f"must be a PublicDesignRelease, got {release!r}")
    delta = validated_one("delta", delta)
    route = _check_route(route)
    grid = route == "grid" or bool(check_grid)
    return _account_certified(release, delta, angle_nodes(ratio), route, grid)


def _account_certified(
    release: PublicDesignRelease,
    delta: float,
    nodes: NDArray[np.float64],
    route: str = "node",
    grid: bool = False,
    lower: bool = True,
    node_pld: PairPld | None = None,
) -> CertifiedGuarantee:
    """The kernel of :func:`account_certified` (``lower`` False: without the lower bound, for
    the calibration's intermediate steps; ``node_pld``: route node, the node's PLD at this
    σ already computed by the calibration's search, reused)."""
    start = time.perf_counter()
    width, count = release.dim - release.out_dim, release.releases
    amp = release.canonical_norm / release.sigma
    mu = release.sensitivity * math.sqrt(count) / release.sigma
    eps_post = _gaussian_epsilon(delta, mu)
    if route == "node":
        orders = DEFAULT_ORDERS
        value, error = _orthogonal_node_rdp(orders, width, amp)
        node_rdp = count * (value + error)
    else:
        value, error = _orthogonal_node_rdp(ANGLE_ORDERS, width, amp)
        orders = ANGLE_ORDERS[_best_orders(count * (value + error), delta)]
        node_rdp = count * (value + error)[_best_orders(count * (value + error), delta)]
    eps_rdp_node = _epsilon(orders, node_rdp, delta, warn=False)[0]
    gaussian_rdp = 0.5 * orders * mu * mu  # post-processing's RDP, a bound at every order
    rdp = np.minimum(node_rdp, gaussian_rdp) if route == "node" else gaussian_rdp
    pld = certificate = None
    eps_node = eps_cert = math.inf
    order = math.nan
    if route == "node":
        pld = node_pld if node_pld is not None else _node_pld(width, amp, count, node_rdp, orders)
        if pld is not None:
            eps_node = float(pld.epsilon(delta))
    # the certificate is at least the π/2 node (its last interval is that node at c·f ≥ c,
    # and D_α grows with c there), so where the node's ε is already post-processing's,
    # the grid cannot win and is not computed
    if grid and eps_rdp_node < eps_post:
        grid_orders = ANGLE_ORDERS[_best_orders(count * _orthogonal_node_rdp(
            ANGLE_ORDERS, width, amp)[0], delta)]  # fmt: skip
        certificate = _certified_angle_rdp(grid_orders, width, amp, nodes)
        eps_cert, order = _epsilon(grid_orders, count * certificate.rdp, delta, warn=False)
        if route == "grid":
            rdp = np.minimum(count * certificate.rdp, gaussian_rdp)
    route_eps = eps_node if route == "node" else eps_cert
    epsilon = min(route_eps, eps_post)
    lower_eps = ratio_to_lower = lower_rdp = None
    if lower and release.realised_norm is not None:
        lower_eps, lower_rdp = _realised_lower(release, orders, delta)
        lower_rdp = np.minimum(lower_rdp, rdp)
        ratio_to_lower = epsilon / lower_eps if lower_eps > 0 else math.inf
    name = "orthogonal node" if route == "node" else "angle certificate"
    bound = name if route_eps <= eps_post else "post-processing"
    curve = _curve(orders, rdp, Kind.CERTIFIED, bound, lower_rdp)
    return CertifiedGuarantee(
        sigma=release.sigma,
        epsilon=epsilon,
        delta=delta,
        kind=str(Kind.CERTIFIED),
        route=route,
        bound=bound,
        epsilon_node=eps_node,
        epsilon_certificate=eps_cert,
        optimal_order=order,
        epsilon_post_processing=eps_post,
        epsilon_orthogonal_node=eps_rdp_node,
        epsilon_lower_realised=lower_eps,
        certified_over_lower=ratio_to_lower,
        rdp=curve,
        pld=pld,
        certificate=certificate,
        seconds=time.perf_counter() - start,
    )


def _node_epsilon(
    release: PublicDesignRelease, delta: float, factor: NDArray[np.float64] | float = 1.0
) -> float:
    """ε of the π/2 node at width d − k times ``factor`` per order (RDP over ANGLE_ORDERS, T
    runs): the calibration's model of the certificate (never a guarantee by itself)."""
    amp = release.canonical_norm / release.sigma
    value, error = _orthogonal_node_rdp(ANGLE_ORDERS, release.dim - release.out_dim, amp)
    rdp = release.releases * (value + error) * factor
    return _epsilon(ANGLE_ORDERS, rdp, delta, warn=False)[0]


@privacy_quantity(Kind.CERTIFIED)
def calibrate_certified(
    release: PublicDesignRelease,
    epsilon: float,
    delta: float,
    *,
    route: str = "node",
    ratio: float = DEFAULT_ANGLE_RATIO,
    rtol: float = 1e-3,
) -> CertifiedGuarantee:
    """The smallest σ (to ``rtol``) whose certified guarantee meets (ε, δ); its guarantee.

    Route node: σ searched on the orthogonal node's PLD ε from its RDP σ (which meets
    the target), by a secant in (log σ, log ε) that closes a bracket narrower than
    ``rtol`` in three to five PLD evaluations (:mod:`synthamp.accountant._node_search`);
    the guarantee reuses the PLD at the bracket's upper end. Route grid: σ searched on
    the π/2 node's RDP times the grid's model overhead 1 + ``ratio``, the grid certified
    there, and σ moved up by the measured overhead until the certificate meets ε (it may
    end a little above the smallest σ: by the model's slack). Post-processing's σ (the
    Gaussian mechanism with Δ√T, exact) is taken where smaller. ``release.sigma`` is ignored.

    Returns
    -------
    CertifiedGuarantee
        At the calibrated σ (its ``epsilon`` ≤ the target).
    """
    if not isinstance(release, PublicDesignRelease):
        raise InputError("release", f"must be a PublicDesignRelease, got {release!r}")
    target, delta, rtol = validated(epsilon=epsilon, delta=delta, rtol=rtol)
    route = _check_route(route)
    nodes = angle_nodes(ratio)
    sigma_post = gaussian_sigma(target, delta, release.sensitivity * math.sqrt(release.releases))
    width, count = release.dim - release.out_dim, release.releases

    def rdp_sigma(factor) -> float:  # the π/2 node's σ for the target by RDP, times factor
        def excess(log_sigma: float) -> float:
            return _node_epsilon(release.with_sigma(math.exp(log_sigma)), delta, factor) - target

        sigma, _ = smallest_sigma(
            lambda s: excess(math.log(s)), 0.0, release.canonical_norm, 0.1 * rtol
        )
        return sigma

    if route == "node":
        start = math.log(rdp_sigma(1.0))  # RDP is above the PLD: a σ that meets the target

        def node_pld(log_sigma: float) -> tuple[float, PairPld | None]:
            amp = release.canonical_norm / math.exp(log_sigma)
            value, error = _orthogonal_node_rdp(DEFAULT_ORDERS, width, amp)
            pld = _node_pld(width, amp, count, count * (value + error), DEFAULT_ORDERS)
            return (math.inf if pld is None else float(pld.epsilon(delta))), pld

        def log_rdp_epsilon(log_sigma: float) -> float:
            return math.log(_node_epsilon(release.with_sigma(math.exp(log_sigma)), delta))

        step = 1e-2  # the RDP curve's slope in log-log: the search's first model
        slope = (log_rdp_epsilon(start + step) - log_rdp_epsilon(start)) / step
        x, pld, _ = node_sigma_search(node_pld, slope, target, start, rtol)
        if math.exp(x) >= sigma_post or pld is None:
            return _account_certified(release.with_sigma(sigma_post), delta, nodes)
        return _account_certified(release.with_sigma(math.exp(x)), delta, nodes, node_pld=pld)
    best = None
    sigma = rdp_sigma(1.0 + ratio)  # the grid's model overhead (module docstring of _angle_grid)
    for _ in range(8):
        if sigma >= sigma_post:
            break
        result = _account_certified(release.with_sigma(sigma), delta, nodes, "grid", True, False)
        if result.epsilon_certificate <= target:
            best = result
            break
        if result.certificate is None:  # post-processing is smaller: σ_post is the answer
            break
        # the measured overhead over the π/2 node at the certified orders, a little more
        overhead = float(np.max(result.certificate.overhead)) * (1.0 + rtol)
        sigma = max(rdp_sigma(overhead), sigma * (1.0 + rtol))
    if best is None:
        return _account_certified(release.with_sigma(sigma_post), delta, nodes, "grid", True)
    if release.realised_norm is None:
        return best
    lower_eps, lower_rdp = _realised_lower(release.with_sigma(best.sigma), best.rdp.orders, delta)
    return replace(
        best,
        epsilon_lower_realised=lower_eps,
        certified_over_lower=best.epsilon / lower_eps if lower_eps > 0 else math.inf,
        rdp=_curve(best.rdp.orders, best.rdp.rdp, Kind.CERTIFIED, best.rdp.method, lower_rdp),
    )
