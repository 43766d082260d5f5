"""The library's accountant functions: :func:`compute_epsilon` and :func:`calibrate_sigma`.

One rule, one room (docs/theory.md §3, §12, §14). With no accountant named
(``accountant=None``, the default, as on the command line) both functions
return the guarantee the rule of the guarantee room decides
(:func:`synthamp.accountant.account`, :func:`synthamp.accountant.calibrate`,
module ``_guarantee``): PLD on the exact privacy profile for k = 1, an
unlimited release and exact accounting; for k = 1 and a finite n_syn the
smaller of the finite release's RDP bound and the unlimited release's exact
profile; RDP otherwise. Naming an accountant (``"rdp"``, ``"pld"``) runs that
accountant alone (modules ``_curves``, ``_calibration``, ``_pld``).

These functions sit above the room because the room calls the single
accountants below it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from numpy.typing import ArrayLike

from synthamp._budget import DEFAULT_TIME_BUDGET
from synthamp._kinds import Kind, privacy_quantity
from synthamp._validation import InputError
from synthamp.accountant._calibration import _calibrate_sigma
from synthamp.accountant._choice import check_accountant
from synthamp.accountant._curves import _compute_epsilon
from synthamp.accountant._guarantee import DEFAULT_RTOL, account, calibrate
from synthamp.accountant._pld import DEFAULT_DISCRETIZATION
from synthamp.accountant._rdp_conversion import Method, RdpCurve
from synthamp.accountant._releases import GaussianRelease, Release, SyntheticDataRelease

__all__ = ["EpsilonAccounting", "calibrate_sigma", "compute_epsilon"]


@dataclass(frozen=True)
class EpsilonAccounting:
    """What :func:`compute_epsilon` returns, whichever accountant ran: ε and what it is.

    Attributes
    ----------
    epsilon : float
        ε of the release (composed with ``extra_curves``) at ``delta``: an upper
        bound, exact with its error added or certified.
    delta : float
        δ.
    kind : Kind
        What ``epsilon`` is: :attr:`~synthamp.Kind.EXACT` or
        :attr:`~synthamp.Kind.CERTIFIED` (a ``StrEnum``: equal to ``"exact"`` and
        ``"certified"``; :mod:`synthamp._kinds`).
    accountant : {"pld", "rdp"}
        The accountant whose number ``epsilon`` is.
    details : Guarantee, EpsilonResult or PldEpsilon
        The full result of what ran: the rule's
        :class:`~synthamp.accountant.Guarantee` (``accountant=None``), the RDP
        accountant's :class:`~synthamp.accountant.EpsilonResult` (its curve,
        optimal order, post-processing baseline) or the PLD accountant's
        :class:`~synthamp.accountant.PldEpsilon` (its lower bound).

    Notes
    -----
    Convenience: an attribute not defined here is read from ``details``
    (``result.optimal_order``, ``result.epsilon_lower``, ``result.pld_fallback``
    …), so code written against the three result types keeps reading them; the
    type is always this one.
    """

    epsilon: float
    delta: float
    kind: Kind
    accountant: str
    details: Any

    def __getattr__(self, name: str):
        if name.startswith("__") or name == "details":  # (copy, pickle: no recursion)
            raise AttributeError(name)
        return getattr(self.details, name)


def _accounting(result) -> EpsilonAccounting:
    """The one return type of :func:`compute_epsilon` around an accountant's result."""
    accountant = getattr(result, "accountant", "rdp")  # (an EpsilonResult is the RDP one's)
    return EpsilonAccounting(
        float(result.epsilon), float(result.delta), Kind(result.kind), str(accountant), result
    )


@privacy_quantity("certified")
def compute_epsilon(
    release: SyntheticDataRelease | GaussianRelease,
    delta: float,
    orders: ArrayLike | None = None,
    method: Method = "exact",
    extra_curves: Iterable[RdpCurve | Release] = (),
    *,
    time_budget: float | None = DEFAULT_TIME_BUDGET,
    accountant: str | None = None,
    discretization: float = DEFAULT_DISCRETIZATION,
    search: int = 0,
):
    """(ε, δ) guarantee of a release, composed with other mechanisms on the same data.

    ``accountant=None`` (the default) is the rule of docs/theory.md §3, §12 and
    §14, the command line's: the :class:`~synthamp.accountant.Guarantee` of
    :func:`synthamp.accountant.account` (PLD on the exact privacy profile for
    k = 1, unlimited, exact accounting; for k = 1 and a finite n_syn the smaller
    of the finite release's RDP ε and the unlimited release's exact-profile ε;
    RDP otherwise), which names its accountant and why. It accounts a single
    :class:`SyntheticDataRelease`: to compose (``extra_curves``) or to account a
    :class:`GaussianRelease`, name the accountant.

    ``accountant="rdp"``: the RDP curve of ``release``
    (:func:`~synthamp.accountant.rdp_curve`), plus the curves of
    ``extra_curves`` (RDP composition), converted by
    :func:`~synthamp.accountant.rdp_to_epsilon`; the post-processing baseline
    (releasing the model instead of synthetic data) is computed alongside,
    composed with the same extras (docs/theory.md §12).

    For a finite k = 1 release without ``extra_curves``, the exact worst case is
    computed only at the orders that can give ε at ``delta`` (the pruning lemma of
    :mod:`synthamp.accountant._pruning`, proved there); ``curve`` holds the plateau
    bound (valid for every n_syn, docs/theory.md §3) at the others, so its ε is the
    exact curve's, and at another δ it is sound but possibly looser than
    :func:`~synthamp.accountant.rdp_curve`'s.

    ``accountant="pld"``: the tight ε of the exact privacy profile composed by
    privacy loss distributions (:func:`synthamp.accountant.compute_epsilon_pld`,
    a ``PldEpsilon`` with its discretisation error; docs/theory.md §14);
    ``extra_curves`` must then hold mechanisms, not RDP curves, and
    ``orders``/``method`` are not used.

    Parameters
    ----------
    release : SyntheticDataRelease or GaussianRelease
        The mechanism.
    delta : float
        δ in (0, 1).
    orders : array_like, optional
        Rényi orders; default :data:`~synthamp.accountant.DEFAULT_ORDERS`.
    method : {"exact", "global", "post-processing"}, default "exact"
        The RDP accounting method (with None, the rule takes RDP for any
        method but "exact").
    extra_curves : iterable of RdpCurve, SyntheticDataRelease or GaussianRelease
        Other mechanisms run on the same data, composed with ``release``
        (a named accountant only). Curves must use the same orders; heuristic
        curves are refused.
    time_budget : float or None, default :data:`~synthamp.accountant.DEFAULT_TIME_BUDGET` (10 s)
        Seconds for the finite-release computation of ``release`` (None: no
        limit); past it the plateau bound is used and ``fallback`` says so
        (:func:`~synthamp.accountant.rdp_curve`).
    accountant : {None, "rdp", "pld"}, default None
        None: the rule (:func:`synthamp.accountant.account`); a name: that
        accountant alone.
    discretization : float, default 1e-4
        The PLD's interval h.
    search : int, default 0
        k = 2, unlimited release: pairs screened for the searched lower bound
        ``curve.rdp_search`` (:func:`~synthamp.accountant.rdp_curve`); it never
        changes ε.

    Returns
    -------
    EpsilonAccounting
        ε, δ, kind and accountant, whichever accountant ran; ``details`` holds its
        full result: a Guarantee (None), an EpsilonResult (rdp) or a PldEpsilon
        (pld), whose fields are also read through the result.

    Warns
    -----
    OrderGridWarning
        When the RDP accountant's optimal order is at the edge of the grid.
    """
    if check_accountant(accountant) is not None:
        return _accounting(_compute_epsilon(
            release, delta, orders, method, extra_curves, time_budget=time_budget,
            accountant=accountant, discretization=discretization, search=search,
        ))  # fmt: skip
    if not isinstance(release, SyntheticDataRelease):
        raise InputError(
            "accountant",
            f"the rule (None) accounts a SyntheticDataRelease, got {type(release).__name__}: "
            "name the accountant ('rdp' or 'pld')",
        )
    if tuple(extra_curves):
        raise InputError(
            "accountant",
            "the rule (None) accounts one release alone: to compose extra_curves, name the "
            "accountant ('rdp' or 'pld')",
        )
    return _accounting(account(
        release, delta, method=method, orders=orders, discretization=discretization,
        time_budget=time_budget, search=search,
    ))  # fmt: skip


@privacy_quantity("certified")
def calibrate_sigma(
    epsilon: float,
    delta: float,
    *,
    dim: int,
    out_dim: int = 1,
    norm_bound: float,
    sensitivity: float,
    n_syn: int | None = None,
    releases: int = 1,
    method: Method = "exact",
    orders: ArrayLike | None = None,
    rtol: float = DEFAULT_RTOL,
    time_budget: float | None = DEFAULT_TIME_BUDGET,
    accountant: str | None = None,
    discretization: float = DEFAULT_DISCRETIZATION,
    gram_sensitivity: float | None = None,
):
    """Smallest noise σ whose release meets the target (ε, δ) (docs/theory.md §12, §14).

    ``accountant=None`` (the default) is the rule of docs/theory.md §3, §12 and
    §14, the command line's: the :class:`~synthamp.accountant.Guarantee` of
    :func:`synthamp.accountant.calibrate` (σ by PLD on the exact privacy
    profile for k = 1, unlimited, exact accounting; for k = 1 and a finite n_syn
    the smaller of the finite release's RDP σ and the unlimited release's
    exact-profile σ; σ by RDP otherwise), which names its accountant and why.

    ``accountant="rdp"``: brackets σ by doublings/halvings from the
    post-processing calibration, then bisects on log σ until the bracket is
    narrower than ``rtol``. ε(σ) is non-increasing in σ for every method
    (module ``_calibration``), and the upper end of the bracket is returned,
    where ε was computed and is <= the target: the result is conservative by
    construction. The post-processing calibration is reported alongside.

    ``accountant="pld"``: calibrate on the exact privacy profile composed by
    PLD (:func:`synthamp.accountant.calibrate_sigma_pld`, docs/theory.md §14).

    Parameters
    ----------
    epsilon : float
        Target ε > 0.
    delta : float
        δ in (0, 1).
    dim, out_dim, norm_bound, sensitivity, n_syn, releases
        The release, as in :class:`~synthamp.accountant.SyntheticDataRelease`.
    method : {"exact", "global", "post-processing"}, default "exact"
        The RDP accounting method (with None, the rule takes RDP for any
        method but "exact").
    orders : array_like, optional
        Rényi orders; default :data:`~synthamp.accountant.DEFAULT_ORDERS`.
    rtol : float, default 1e-4
        Relative width of the final bracket on σ.
    time_budget : float or None, default :data:`~synthamp.accountant.DEFAULT_TIME_BUDGET` (10 s)
        Seconds for the finite-release refinement (None: no limit). For a
        finite release (``n_syn`` set, exact method, k = 1) σ is first
        calibrated for an unlimited release (the plateau, sound for every
        n_syn), then refined with the finite engine; if the budget runs out
        the plateau's σ is returned and ``fallback`` says so. The budget is
        checked between engine calls, so it may be overrun by one.
    accountant : {None, "rdp", "pld"}, default None
        None: the rule (:func:`synthamp.accountant.calibrate`); a name: that
        accountant alone.
    discretization : float, default 1e-4
        The PLD's interval h.
    gram_sensitivity : float or None, default None
        s₂: statistic-level adjacency (k = 1, unlimited release), as in
        :class:`~synthamp.accountant.SyntheticDataRelease` (docs/gram-adjacency.md).

    Returns
    -------
    Guarantee (None), Calibration (rdp) or PldCalibration (pld)
    """
    release = dict(
        dim=dim, out_dim=out_dim, norm_bound=norm_bound, sensitivity=sensitivity, n_syn=n_syn,
        releases=releases, method=method, orders=orders, rtol=rtol, time_budget=time_budget,
        discretization=discretization, gram_sensitivity=gram_sensitivity,
    )  # fmt: skip
    if check_accountant(accountant) is not None:
        return _calibrate_sigma(epsilon, delta, **release, accountant=accountant)
    return calibrate(epsilon, delta, **release)
