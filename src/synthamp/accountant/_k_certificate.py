"""The certified guarantee of a k ≥ 2 release on a public design (docs/theory.md §20).

:class:`PublicDesignRelease` describes the mechanism (the unlimited release of
k ≥ 2 target columns on a public design, T runs, which bounds every n_syn: the
first n_syn records are a function of it, docs/theory.md §3). Its guarantee
(:func:`account_certified`, :func:`calibrate_certified`) is the smaller of two
sound bounds, labelled **certified**:

* the **angle certificate**: the certified RDP curve of the canonical pair's sup
  over φ (:mod:`synthamp.accountant._angle_grid`) at width d − k and norm c*,
  T times (RDP composes by addition), converted to (ε, δ) by
  :func:`synthamp.accountant.rdp_to_epsilon`. The PLD route is not used: the
  certificate is a maximum over intervals, and a maximum of pairs' PLDs is not a
  PLD (a maximum of hockey-stick curves would be a valid profile for T = 1, but
  the k = 2 engine has no profile); the RDP route is sound.
* **post-processing**: the Gaussian mechanism on v with the Frobenius sensitivity
  Δ = 2B·maxᵢ √Gᵢᵢ, exact ε (Balle and Wang 2018) at sensitivity Δ√T.

Beside it, a **true lower bound** (:attr:`CertifiedGuarantee.epsilon_lower_realised`):
the realised pair yᵢ = Be₁ → Be₂ with every other row 0 is the canonical π/2 pair
at the full width d with c = B√Gᵢᵢ, whose exact PLD (the k = 1 pair composed with
its reverse, T runs) gives a lower bound on ε (its optimistic companion); with
``certified_over_lower`` their ratio.

Which orders: the certificate costs one k = 2 engine call per interval and the
work grows with the orders; the accounting at one δ evaluates the π/2 node at
every order of :data:`~synthamp.accountant._angle_grid.ANGLE_ORDERS` (cheap, k = 1
engine), and certifies the grid at the order minimising its ε and the two next
to it. The minimum of the conversion over fewer orders is still a valid ε.

Composition with other mechanisms: :attr:`CertifiedGuarantee.rdp` is an
:class:`~synthamp.accountant.RdpCurve` (kind certified) on the certified orders:
``curve + other_curve`` on the same orders; the full curve over ANGLE_ORDERS by
:func:`synthamp.accountant.certified_angle_rdp`. dp_accounting and prv_accountant
take the post-processing bound through the existing exports
(:func:`synthamp.accountant.to_dp_accounting_pld`: a k > 1 release is the Gaussian
with Δ_eff); the angle certificate is an RDP curve (orders, values) for any RDP
accountant.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._kinds import Kind, privacy_quantity
from synthamp._validation import (
    InputError,
    check_dim,
    check_integer,
    check_open_unit,
    check_positive,
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
)
from synthamp.accountant._gaussian import _gaussian_epsilon
from synthamp.accountant._pld import gaussian_sigma
from synthamp.accountant._releases import RdpCurve, _curve, _epsilon, _epsilon_terms

__all__ = [
    "CertifiedGuarantee",
    "PublicDesignRelease",
    "account_certified",
    "calibrate_certified",
]

#: The loss grid of the realised pair's PLD (the lower bound; its companion rounds every
#: loss down, so a coarser grid only loosens it: by ~1e-3 relative at ε ≈ 1, 15× faster
#: than 1e-4).
_LOWER_DISCRETIZATION = 1e-3


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
        k = check_integer("out_dim", self.out_dim, 2)
        object.__setattr__(self, "out_dim", k)
        dim = check_dim(self.dim)
        if dim - k < 2:
            raise InputError("dim", f"must be >= out_dim + 2 = {k + 2} (width d - k >= 2)")
        object.__setattr__(self, "dim", dim)
        for name in ("canonical_norm", "sensitivity", "sigma"):
            object.__setattr__(self, name, check_positive(name, getattr(self, name)))
        object.__setattr__(self, "releases", check_integer("releases", self.releases, 1))
        if self.realised_norm is not None:
            low = check_positive("realised_norm", self.realised_norm)
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
        from synthamp.accountant._angle_reduction import canonical_norm

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
        The guarantee: ``epsilon`` = min(``epsilon_certificate``, ``epsilon_post_processing``).
    kind : str
        ``"certified"``.
    bound : {"angle certificate", "post-processing"}
        Which of the two is ``epsilon``.
    epsilon_certificate : float
        The angle certificate's ε (RDP conversion, certified orders); ``inf`` when
        not computed (the π/2 node alone already exceeds post-processing).
    optimal_order : float
        Its order (nan when not computed).
    epsilon_post_processing : float
        The Gaussian mechanism with Δ√T (exact profile).
    epsilon_orthogonal_node : float
        The π/2 node alone at width d − k (RDP over ANGLE_ORDERS): the guarantee
        were the conjecture of docs/theory.md §20 proved; never used for ε.
    epsilon_lower_realised : float or None
        A lower bound on the release's true ε at ``delta`` (the realised
        orthogonal pair's exact PLD, its optimistic companion).
    certified_over_lower : float or None
        ``epsilon / epsilon_lower_realised``.
    rdp : RdpCurve
        The certified curve of T runs on the certified orders: per order the smaller
        of the certificate and post-processing's αμ²/2 (both bounds), with
        ``rdp_lower`` the realised pair's RDP − error.
    certificate : AngleCertificate or None
        One run's grid (None: not computed).
    seconds : float
        Wall time of the accounting.
    """

    sigma: float
    epsilon: float
    delta: float
    kind: str
    bound: str
    epsilon_certificate: float
    optimal_order: float
    epsilon_post_processing: float
    epsilon_orthogonal_node: float
    epsilon_lower_realised: float | None
    certified_over_lower: float | None
    rdp: RdpCurve
    certificate: AngleCertificate
    seconds: float

    def to_dict(self) -> dict:
        """The JSON fields (numbers and labels)."""
        return {
            "sigma": self.sigma,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "kind": self.kind,
            "bound": self.bound,
            "epsilon_certificate": self.epsilon_certificate,
            "optimal_order": self.optimal_order,
            "epsilon_post_processing": self.epsilon_post_processing,
            "epsilon_orthogonal_node": self.epsilon_orthogonal_node,
            "epsilon_lower_realised": self.epsilon_lower_realised,
            "certified_over_lower": self.certified_over_lower,
            **(
                {}
                if self.certificate is None
                else {
                    "angle_intervals": int(self.certificate.nodes.size - 1),
                    "angle_width": self.certificate.width,
                    "certificate_over_orthogonal_node": float(np.max(self.certificate.overhead)),
                }
            ),
        }


def _best_orders(rdp: NDArray[np.float64], delta: float, count: int = 3) -> NDArray[np.int64]:
    """Indices of the order minimising the conversion's ε and its neighbours."""
    terms = _epsilon_terms(ANGLE_ORDERS, rdp, delta)
    best = int(np.argmin(terms))
    lo = max(0, min(best - count // 2, ANGLE_ORDERS.size - count))
    return np.arange(lo, lo + count)


def _node_epsilon(
    release: PublicDesignRelease, delta: float, factor: NDArray[np.float64] | float = 1.0
) -> float:
    """ε of the π/2 node at width d − k times ``factor`` per order (RDP over ANGLE_ORDERS, T
    runs): the calibration's model of the certificate (never a guarantee by itself)."""
    amp = release.canonical_norm / release.sigma
    value, error = _orthogonal_node_rdp(ANGLE_ORDERS, release.dim - release.out_dim, amp)
    rdp = release.releases * (value + error) * factor
    return _epsilon(ANGLE_ORDERS, rdp, delta, warn=False)[0]


def _realised_lower(release: PublicDesignRelease, orders: NDArray[np.float64], delta: float):
    """(ε lower bound at δ, RDP lower bound per order) of the realised orthogonal pair, T runs."""
    amp, count = release.realised_norm / release.sigma, release.releases
    pld = _orthogonal_node_pld(release.dim, amp, count, _LOWER_DISCRETIZATION)
    value, error = _orthogonal_node_rdp(orders, release.dim, amp)
    return float(pld.epsilon_lower(delta)), np.maximum(count * (value - error), 0.0)


@privacy_quantity(Kind.CERTIFIED)
def account_certified(
    release: PublicDesignRelease, delta: float, *, ratio: float = DEFAULT_ANGLE_RATIO
) -> CertifiedGuarantee:
    """The certified (ε, δ) guarantee of a k ≥ 2 release on a public design, and its lower bound.

    Parameters
    ----------
    release : PublicDesignRelease
    delta : float
        δ in (0, 1).
    ratio : float, default 0.02
        The angle grid's model overhead per interval (:func:`angle_nodes`).

    Returns
    -------
    CertifiedGuarantee
    """
    if not isinstance(release, PublicDesignRelease):
        raise InputError("release", f"must be a PublicDesignRelease, got {release!r}")
    delta = check_open_unit("delta", delta)
    return _account_certified(release, delta, angle_nodes(ratio))


def _account_certified(
    release: PublicDesignRelease, delta: float, nodes: NDArray[np.float64], lower: bool = True
) -> CertifiedGuarantee:
    """The kernel of :func:`account_certified` (``lower`` False: without the lower bound, for
    the calibration's intermediate steps)."""
    start = time.perf_counter()
    width, amp, count = (
        release.dim - release.out_dim,
        release.canonical_norm / release.sigma,
        release.releases,
    )
    node_value, node_error = _orthogonal_node_rdp(ANGLE_ORDERS, width, amp)
    node_rdp = count * (node_value + node_error)
    orders = ANGLE_ORDERS[_best_orders(node_rdp, delta)]
    mu = release.sensitivity * math.sqrt(count) / release.sigma
    eps_post = _gaussian_epsilon(delta, mu)
    gaussian_rdp = 0.5 * orders * mu * mu  # post-processing's RDP, a bound at every order
    eps_node = _epsilon(ANGLE_ORDERS, node_rdp, delta, warn=False)[0]
    certificate = None
    eps_cert, order = math.inf, math.nan
    rdp = gaussian_rdp
    # the certificate is at least the π/2 node (its last interval is that node at c·f ≥ c,
    # and D_α grows with c there), so where the node's ε over every order is already
    # post-processing's, the grid cannot win and is not computed
    if eps_node < eps_post:
        certificate = _certified_angle_rdp(orders, width, amp, nodes)
        eps_cert, order = _epsilon(orders, count * certificate.rdp, delta, warn=False)
        rdp = np.minimum(count * certificate.rdp, gaussian_rdp)
    epsilon = min(eps_cert, eps_post)
    lower_eps = ratio_to_lower = lower_rdp = None
    if lower and release.realised_norm is not None:
        lower_eps, lower_rdp = _realised_lower(release, orders, delta)
        lower_rdp = np.minimum(lower_rdp, rdp)
        ratio_to_lower = epsilon / lower_eps if lower_eps > 0 else math.inf
    method = "angle certificate" if eps_cert <= eps_post else "post-processing"
    curve = _curve(orders, rdp, Kind.CERTIFIED, method, lower_rdp)
    return CertifiedGuarantee(
        sigma=release.sigma,
        epsilon=epsilon,
        delta=delta,
        kind=str(Kind.CERTIFIED),
        bound=method,
        epsilon_certificate=eps_cert,
        optimal_order=order,
        epsilon_post_processing=eps_post,
        epsilon_orthogonal_node=eps_node,
        epsilon_lower_realised=lower_eps,
        certified_over_lower=ratio_to_lower,
        rdp=curve,
        certificate=certificate,
        seconds=time.perf_counter() - start,
    )


@privacy_quantity(Kind.CERTIFIED)
def calibrate_certified(
    release: PublicDesignRelease,
    epsilon: float,
    delta: float,
    *,
    ratio: float = DEFAULT_ANGLE_RATIO,
    rtol: float = 1e-3,
) -> CertifiedGuarantee:
    """The smallest σ (to ``rtol``) whose certified guarantee meets (ε, δ); its guarantee.

    σ is searched on the π/2 node (cheap, the k = 1 engine), the grid certified at
    that σ, and σ moved up by the certificate's measured overhead until the
    certificate meets ε; post-processing's σ (the Gaussian mechanism with Δ√T,
    exact) is taken where smaller. ``release.sigma`` is ignored.

    Returns
    -------
    CertifiedGuarantee
        At the calibrated σ (its ``epsilon`` ≤ the target).
    """
    if not isinstance(release, PublicDesignRelease):
        raise InputError("release", f"must be a PublicDesignRelease, got {release!r}")
    target = check_positive("epsilon", epsilon)
    delta = check_open_unit("delta", delta)
    rtol = check_positive("rtol", rtol)
    nodes = angle_nodes(ratio)
    sigma_post = gaussian_sigma(target, delta, release.sensitivity * math.sqrt(release.releases))

    def sigma_for(factor) -> float:  # the π/2 node's σ for the target, its RDP times factor
        def excess(log_sigma: float) -> float:
            return _node_epsilon(release.with_sigma(math.exp(log_sigma)), delta, factor) - target

        lo = hi = math.log(release.canonical_norm)
        while excess(hi) > 0:
            hi += 1.0
        while excess(lo) <= 0:
            lo -= 1.0
        # heavy: scipy.optimize (~0.6 s at import), for the σ search only
        from scipy.optimize import brentq

        return math.exp(brentq(excess, lo, hi, xtol=0.1 * rtol))

    best = None
    sigma = sigma_for(1.0 + ratio)  # the grid's model overhead (module docstring of _angle_grid)
    for _ in range(8):
        if sigma >= sigma_post:
            break
        result = _account_certified(release.with_sigma(sigma), delta, nodes, lower=False)
        if result.epsilon_certificate <= target:
            best = result
            break
        if result.certificate is None:  # post-processing is smaller: σ_post is the answer
            break
        # the measured overhead over the π/2 node at the certified orders, a little more
        overhead = float(np.max(result.certificate.overhead)) * (1.0 + rtol)
        sigma = max(sigma_for(overhead), sigma * (1.0 + rtol))
    if best is None:
        return _account_certified(release.with_sigma(sigma_post), delta, nodes)
    if release.realised_norm is None:
        return best
    lower_eps, lower_rdp = _realised_lower(release.with_sigma(best.sigma), best.rdp.orders, delta)
    return replace(
        best,
        epsilon_lower_realised=lower_eps,
        certified_over_lower=best.epsilon / lower_eps if lower_eps > 0 else math.inf,
        rdp=_curve(best.rdp.orders, best.rdp.rdp, Kind.CERTIFIED, best.rdp.method, lower_rdp),
    )
