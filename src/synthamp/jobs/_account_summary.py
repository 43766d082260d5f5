"""The summaries of ``synthamp account`` and ``synthamp calibrate``: guarantees as data and text.

:func:`account_summary` (ε at a given σ, for one δ or a grid of δ) and
:func:`calibrate_summary` (σ for a target ε) validate the user's input, call the
guarantee room (:func:`~synthamp.accountant.account`,
:func:`~synthamp.accountant.calibrate`) and return a frozen summary that holds the
guarantees, the notes that explain them and the warnings raised on the way.
``to_dict()`` is the command's JSON object (docs/json.md), ``lines()`` its text;
neither computes anything (docs/theory.md §3, §12, §14, §16).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from synthamp._budget import DEFAULT_TIME_BUDGET
from synthamp._parameters import validated_one
from synthamp.accountant._guarantee import Guarantee, account, calibrate
from synthamp.accountant._releases import SyntheticDataRelease
from synthamp.amplification import amplification_outlook

__all__ = [
    "PLD_FALLBACK_NOTE",
    "AccountSummary",
    "CalibrationSummary",
    "account_summary",
    "calibrate_summary",
    "capture_warnings",
]

#: The note of a PLD ε whose worst-pair guard fired (synthamp.accountant._pld_grid).
PLD_FALLBACK_NOTE = (
    "A guard of the worst adjacent pair fired: the PLD epsilon composes the pointwise maximum "
    "over the pairs scanned along the edge (the guarded search's claim, as for one release)."
)

T = TypeVar("T")


def capture_warnings(fn: Callable[..., T], *args: Any, **kwargs: Any) -> tuple[T, list[str]]:
    """Call ``fn`` and return its result with the messages of the ``UserWarning``s it raised.

    Other warnings are re-emitted unchanged. The summaries carry the messages so that
    a caller prints them once, after the result (the command line: on stderr).
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn(*args, **kwargs)
    messages = []
    for w in caught:
        if issubclass(w.category, UserWarning):
            messages.append(str(w.message))
        else:  # pragma: no cover - re-emit anything else unchanged
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return result, messages


def _fmt(value: float) -> str:
    return f"{value:.6g}" if math.isfinite(value) else str(value)


def _notes(release: SyntheticDataRelease, method: str) -> list[str]:
    """What the reader of a guarantee must know about its release (sensitivity, k > 1)."""
    notes = []
    if release.sensitivity > 2.0 * release.norm_bound:
        notes.append(
            f"sensitivity {release.sensitivity:g} exceeds 2*norm_bound = "
            f"{2.0 * release.norm_bound:g}; the effective sensitivity min(Δ, 2C) = "
            f"{release.effective_sensitivity:g} is used"
        )
    if release.out_dim == 1 and release.sensitivity > release.norm_bound:
        notes.append(
            f"for k = 1 the worst case depends on the norms only: "
            f"|‖v‖ − ‖w‖| <= min(Δ, C) = {release.amplitude_gap:g}"
        )
    if release.out_dim > 1 and method != "post-processing":
        curve = (
            "the smaller of Theorem 5.4 and post-processing"
            if method == "exact"
            else "Theorem 5.4 alone (it can exceed post-processing; --accounting exact takes "
            "the smaller of the two)"
        )
        notes.append(
            f"k > 1: the RDP curve is a certified upper bound, {curve}; rdp_lower is a lower "
            "bound, the exact value of the aligned rank-one pair (the k = 1 worst case with the "
            "same d)" + ("; --search N looks for a larger one" if release.out_dim == 2 else "")
        )
    return notes


def _lower_bounds(curve) -> dict | None:
    """What the lower bounds of a k > 1 curve are (JSON ``lower_bounds``): never ε."""
    if curve.rdp_lower is None:
        return None
    return {
        "kind": "certified",
        "bound": "lower",
        "used_for_epsilon": False,
        "rdp_lower": "the exact value (- error) of the aligned rank-one pair: the k = 1 "
        "worst case with the same d (docs/theory.md §8)",
        "rdp_search": curve.search_note,
    }


def _amplification(release: SyntheticDataRelease, noise_saved: float) -> str:
    """The outlook line of docs/theory.md §16, with the noise the guarantee saves."""
    return amplification_outlook(
        release.dim, release.norm_bound, release.sigma, release.out_dim, noise_saved
    ).message


def _rdp_label(n_syn: int | None, accounting: str, fallback: str | None) -> str:
    """What the printed RDP number is: the accounting of n_syn records, or the plateau bound
    that replaced it when its time budget ran out (never called exact for n_syn then)."""
    if n_syn is None:
        return f"method {accounting}"
    if fallback:
        return (
            f"unlimited-release (plateau) bound: the accounting of {n_syn:,} records "
            "ran out of time; an upper bound on its value, not the value"
        )
    return f"{n_syn:,} records, method {accounting}"


def _note_lines(result: dict) -> list[str]:
    fallback = [f"note: {result['fallback']}"] if result["fallback"] else []
    notes = [result["amplification"], *result["notes"]]
    return fallback + [f"note: {note}" for note in notes]


@dataclass(frozen=True)
class AccountSummary:
    """The (ε, δ) guarantees of one release at one or several δ (``synthamp account``).

    Attributes
    ----------
    release : SyntheticDataRelease
        The release accounted.
    deltas : tuple of float
        The δ, one guarantee each.
    guarantees : tuple of Guarantee
        The guarantee at each δ (:func:`~synthamp.accountant.account`).
    grid : bool
        δ was given as a list (``--delta-grid``): ``delta`` and every ε are lists.
    method : str
        The RDP accounting method requested.
    discretization : float
        The PLD discretisation interval h.
    warnings : tuple of str
        The messages of the warnings raised while accounting.
    """

    release: SyntheticDataRelease
    deltas: tuple[float, ...]
    guarantees: tuple[Guarantee, ...]
    grid: bool
    method: str
    discretization: float
    warnings: tuple[str, ...] = ()

    def _one(self, name: str) -> Any:
        values = [_field(g, name) for g in self.guarantees]
        if all(v is None for v in values):
            return None
        return values if self.grid else values[0]

    def _accountant_reason(self) -> tuple[Any, str]:
        chosen = [g.accountant for g in self.guarantees]
        chosen = chosen[0] if len(set(chosen)) == 1 else chosen
        reasons = [g.reason for g in self.guarantees]
        if len(set(reasons)) == 1:
            return chosen, reasons[0]
        pairs = zip(self.deltas, reasons, strict=True)  # a δ grid: say it per δ
        return chosen, "; ".join(f"at delta = {d:g}: {r}" for d, r in pairs)

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``synthamp account`` (docs/json.md).

        Keys: ``alpha``, ``rdp`` (the curve used), ``rdp_lower`` (k > 1, else
        None), ``rdp_search`` (k = 2 with ``search`` > 0, else None),
        ``lower_bounds`` (k > 1: what ``rdp_lower`` and ``rdp_search`` are, their
        kind and direction; else None), ``epsilon`` (of the guarantee), ``delta``,
        ``accountant`` (``pld`` or ``rdp``) and ``accountant_reason``,
        ``epsilon_rdp``, ``epsilon_pld`` and ``epsilon_pld_lower`` (the exact
        value lies between; for k > 1 the PLD is of post-processing, certified),
        ``epsilon_unlimited_pld``, ``epsilon_unlimited_pld_lower`` and
        ``guarantee`` (k = 1, finite n_syn, exact accounting and the default
        accountant, else None: the unlimited release's PLD ε, valid for every n_syn
        (docs/theory.md §3), and per δ which number is ε, ``finite_rdp`` or
        ``unlimited_pld``, the smaller; ``accountant`` is then that number's, one
        per δ only when a δ grid uses both), ``discretization``, ``optimal_order``,
        ``accounting``, ``kind``, ``post_processing`` ({``rdp``, ``epsilon``,
        ``accountant``}: releasing the model, ε by the same accountant),
        ``sensitivity``, ``effective_sensitivity``, ``release``, ``heuristic``
        (labelled extras, never a guarantee), ``fallback`` (set when finite-n_syn
        accounting stopped at its time budget), ``amplification`` (docs/theory.md
        §16), ``notes`` and ``warnings``. With a δ grid, ``delta`` and every ε are
        lists, one entry per δ.
        """
        result, release, one = self.guarantees[0].rdp, self.release, self._one
        curve = result.curve
        chosen, reason = self._accountant_reason()
        kinds = {g.kind for g in self.guarantees}
        fired = any(g.pld_guard_fired for g in self.guarantees)
        return {
            "alpha": curve.orders,
            "rdp": curve.rdp,
            "rdp_lower": curve.rdp_lower,
            "rdp_search": curve.rdp_search,
            "lower_bounds": _lower_bounds(curve),
            "epsilon": one("epsilon"),
            "delta": list(self.deltas) if self.grid else self.deltas[0],
            "accountant": chosen,
            "accountant_reason": reason,
            **{
                name: one(name)
                for name in (
                    "epsilon_rdp",
                    "epsilon_pld",
                    "epsilon_pld_lower",
                    "epsilon_unlimited_pld",
                    "epsilon_unlimited_pld_lower",
                    "guarantee",
                )
            },
            "discretization": self.discretization,
            "optimal_order": one("optimal_order"),
            "accounting": result.method,
            "kind": "certified" if "certified" in kinds else kinds.pop(),
            "post_processing": {
                "rdp": result.curve_post_processing.rdp,
                "epsilon": one("epsilon_post_processing"),
                "accountant": chosen,
            },
            "sensitivity": release.sensitivity,
            "effective_sensitivity": release.effective_sensitivity,
            "release": {
                "dim": release.dim,
                "out_dim": release.out_dim,
                "norm_bound": release.norm_bound,
                "sigma": release.sigma,
                "n_syn": release.n_syn,
                "releases": release.releases,
            },
            "heuristic": {
                name: {"kind": str(h.kind), "method": h.method, "rdp": h.rdp}
                for name, h in result.heuristics.items()
            },
            "fallback": result.fallback,
            "amplification": _amplification(release, self.guarantees[0].noise_saved),
            "notes": _notes(release, self.method)
            + ([PLD_FALLBACK_NOTE] if fired else [])
            + list(dict.fromkeys(g.pld_fallback for g in self.guarantees if g.pld_fallback)),
            "warnings": list(self.warnings),
        }

    def lines(self) -> list[str]:
        """The text of ``synthamp account``: ε per δ by each accountant, then the notes."""
        r = self.to_dict()
        finite = r["guarantee"] is not None  # the unlimited profile weighed against n_syn's
        label = _rdp_label(self.release.n_syn if finite else None, r["accounting"], r["fallback"])
        out = []
        for i, g in enumerate(self.guarantees):
            out.append(
                f"epsilon = {_fmt(g.epsilon)} at delta = {self.deltas[i]:g} "
                f"(accountant {g.accountant}, {r['kind']})"
            )
            if g.epsilon_pld is not None:
                out.append(
                    f"  pld: epsilon = {_fmt(g.epsilon_pld)} "
                    f"({_interval(g, 'epsilon_pld', self.release.out_dim)}; "
                    f"discretisation {self.discretization:g})"
                )
            if finite:
                out.append(
                    f"  pld, unlimited release (valid for any n_syn): epsilon = "
                    f"{_fmt(g.epsilon_unlimited_pld)} ({_interval(g, 'epsilon_unlimited_pld', 1)})"
                )
            out.append(
                f"  rdp: epsilon = {_fmt(g.epsilon_rdp)} (optimal alpha "
                f"{_fmt(g.optimal_order)}; {label})"
            )
            out.append(
                "  post-processing (releasing the model): epsilon = "
                f"{_fmt(g.epsilon_post_processing)}"
            )
        accountants = r["accountant"]
        if isinstance(accountants, list):
            accountants = "/".join(dict.fromkeys(accountants))
        out.append(f"accountant: {accountants} ({r['accountant_reason']})")
        if r["rdp_lower"] is not None and not self.grid:
            i = list(r["alpha"]).index(r["optimal_order"])
            search = r["rdp_search"]
            lower = r["rdp_lower"][i] if search is None else search[i]
            how = "exact k = 1" if search is None else "best pair of the search"
            out.append(
                f"at alpha {_fmt(r['optimal_order'])}: RDP in "
                f"[{_fmt(lower)}, {_fmt(r['rdp'][i])}] (lower: {how})"
            )
        if r["rdp_search"] is not None:
            out.append(f"note: {r['lower_bounds']['rdp_search']}")
        return out + _note_lines(r)


def account_summary(
    dim: int,
    out_dim: int,
    norm_bound: float,
    sensitivity: float,
    sigma: float,
    n_syn: int | None = None,
    releases: int = 1,
    alpha: list[float] | None = None,
    delta: float | list[float] = 1e-5,
    method: str = "exact",
    accountant: str | None = None,
    discretization: float = 1e-4,
    time_budget: float | None = DEFAULT_TIME_BUDGET,
    search: int = 0,
) -> AccountSummary:
    """The guarantees of a synthetic data release at one δ or a list of δ.

    Parameters
    ----------
    dim, out_dim, norm_bound, sensitivity, sigma, n_syn, releases
        The release (:class:`~synthamp.accountant.SyntheticDataRelease`).
    alpha : list of float, optional
        Rényi orders (default :data:`~synthamp.accountant.DEFAULT_ORDERS`).
    delta : float or list of float, default 1e-5
        δ in (0, 1), or a list of δ (a grid: one guarantee each; its errors name
        ``delta_grid``).
    method, accountant, discretization, time_budget, search
        As for :func:`~synthamp.accountant.account` (one ``search`` serves every δ).

    Returns
    -------
    AccountSummary
        The guarantees, with ``to_dict()`` and ``lines()``.
    """
    orders = None if alpha is None else validated_one("alpha", alpha)
    grid = isinstance(delta, list | tuple)
    deltas = tuple(
        validated_one("delta_grid" if grid else "delta", d) for d in (delta if grid else [delta])
    )
    discretization = validated_one("discretization", discretization)
    release = SyntheticDataRelease(
        dim, out_dim, norm_bound, sensitivity, sigma, n_syn=n_syn, releases=releases
    )
    guarantees, caught = [], []
    for i, d in enumerate(deltas):
        guarantee, warned = capture_warnings(
            account, release, d, accountant=accountant, orders=orders, method=method,
            discretization=discretization, time_budget=time_budget,
            search=search if i == 0 else 0,  # one search serves every δ
        )  # fmt: skip
        guarantees.append(guarantee)
        caught += [w for w in warned if w not in caught]
    return AccountSummary(
        release, deltas, tuple(guarantees), grid, method, discretization, tuple(caught)
    )


@dataclass(frozen=True)
class CalibrationSummary:
    """The noise σ meeting a target (ε, δ) and how it was reached (``synthamp calibrate``).

    Attributes
    ----------
    release : SyntheticDataRelease
        The release at the calibrated σ.
    guarantee : Guarantee
        The calibration's guarantee (:func:`~synthamp.accountant.calibrate`).
    method : str
        The RDP accounting method requested.
    discretization : float
        The PLD discretisation interval h.
    warnings : tuple of str
        The messages of the warnings raised while calibrating.
    """

    release: SyntheticDataRelease
    guarantee: Guarantee
    method: str
    discretization: float
    warnings: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``synthamp calibrate`` (docs/json.md).

        Keys: ``sigma``, ``epsilon`` (achieved, <= target), ``accountant`` and
        ``accountant_reason``, ``sigma_rdp`` (the RDP calibration), ``sigma_pld`` (by
        PLD, None when not run), ``sigma_unlimited_pld`` and ``guarantee`` (k = 1,
        finite n_syn, exact accounting and the default accountant, else None: the
        unlimited release's σ by its exact profile, valid for every n_syn
        (docs/theory.md §3), and which σ is used, ``finite_rdp`` or
        ``unlimited_pld``, the smaller), ``discretization``,
        ``sigma_post_processing``, ``noise_saved`` (max(0, 1 − σ/σ_post)),
        ``accounting``, ``target_epsilon``, ``delta``, ``optimal_order``, ``kind``,
        ``epsilon_post_processing``, ``sensitivity``, ``effective_sensitivity``,
        ``fallback`` (set when finite-n_syn refinement stopped at its time budget),
        ``amplification`` (docs/theory.md §16), ``notes`` and ``warnings``. σ, ε
        and the post-processing baseline are the chosen accountant's (for pld, the
        Gaussian mechanism's exact profile): the noise reduction compares like with like.
        """
        g, release = self.guarantee, self.release
        return {
            "sigma": g.sigma,
            "epsilon": g.epsilon,
            "accountant": g.accountant,
            "accountant_reason": g.reason,
            "sigma_rdp": g.sigma_rdp,
            "sigma_pld": g.sigma_pld,
            "sigma_unlimited_pld": g.sigma_unlimited_pld,
            "guarantee": g.guarantee,
            "discretization": self.discretization,
            "sigma_post_processing": g.sigma_post_processing,
            "noise_saved": g.noise_saved,
            "accounting": g.method,
            "target_epsilon": g.target_epsilon,
            "delta": g.delta,
            "optimal_order": g.optimal_order,
            "kind": g.kind,
            "epsilon_post_processing": g.epsilon_post_processing,
            "sensitivity": release.sensitivity,
            "effective_sensitivity": release.effective_sensitivity,
            "fallback": g.fallback,
            "amplification": _amplification(release, g.noise_saved),
            "notes": _notes(release, self.method) + ([g.pld_fallback] if g.pld_fallback else []),
            "warnings": list(self.warnings),
        }

    def lines(self) -> list[str]:
        """The text of ``synthamp calibrate``: σ by each accountant, the noise saved, notes."""
        r, g = self.to_dict(), self.guarantee
        out = [
            f"sigma = {_fmt(g.sigma)} (epsilon = {_fmt(g.epsilon)} <= "
            f"{_fmt(g.target_epsilon)} at delta = {g.delta:g}; "
            f"accountant {g.accountant}, {g.kind})"
        ]
        if g.guarantee is not None:
            out.append(
                "  pld, unlimited release (valid for any n_syn): sigma = "
                f"{_fmt(g.sigma_unlimited_pld)}"
            )
        if g.accountant == "pld" or g.guarantee is not None:
            n_syn = self.release.n_syn if g.guarantee is not None else None
            out.append(
                f"  rdp: sigma = {_fmt(g.sigma_rdp)} ({_rdp_label(n_syn, g.method, g.fallback)})"
            )
        if g.sigma > g.sigma_post_processing:
            saved = (
                f"no noise saved: {g.method} accounting needs more noise than "
                "post-processing here (--accounting exact takes the smaller)"
            )
        else:
            saved = f"noise saved {100 * g.noise_saved:.2f}%"
        out.append(f"post-processing: sigma = {_fmt(g.sigma_post_processing)}; {saved}")
        out.append(f"accountant: {g.accountant} ({g.reason})")
        return out + _note_lines(r)


def calibrate_summary(
    epsilon: float,
    delta: float,
    dim: int,
    out_dim: int,
    norm_bound: float,
    sensitivity: float,
    n_syn: int | None = None,
    releases: int = 1,
    alpha: list[float] | None = None,
    method: str = "exact",
    accountant: str | None = None,
    discretization: float = 1e-4,
    time_budget: float | None = DEFAULT_TIME_BUDGET,
) -> CalibrationSummary:
    """The smallest σ of a synthetic data release meeting a target (ε, δ), summarised.

    Parameters are those of :func:`~synthamp.accountant.calibrate` (``alpha``: the
    Rényi orders, validated here).

    Returns
    -------
    CalibrationSummary
        The calibration's guarantee, with ``to_dict()`` and ``lines()``.
    """
    orders = None if alpha is None else validated_one("alpha", alpha)
    discretization = validated_one("discretization", discretization)
    guarantee, caught = capture_warnings(
        calibrate, epsilon, delta, dim=dim, out_dim=out_dim, norm_bound=norm_bound,
        sensitivity=sensitivity, n_syn=n_syn, releases=releases, method=method,
        accountant=accountant, orders=orders, discretization=discretization,
        time_budget=time_budget,
    )  # fmt: skip
    release = SyntheticDataRelease(
        dim, out_dim, norm_bound, sensitivity, guarantee.sigma, n_syn=n_syn, releases=releases
    )
    return CalibrationSummary(release, guarantee, method, discretization, tuple(caught))


def _field(guarantee, name: str) -> Any:
    """A guarantee's field as the JSON states it: no null where the accountant has a value.

    For a finite k = 1 release whose guarantee is the unlimited release's exact profile
    (``guarantee`` ``unlimited_pld``, accountant ``pld``), the pld accountant's ε is that
    profile's: ``epsilon_pld`` (and its lower end) then equal ``epsilon_unlimited_pld``.
    """
    value = getattr(guarantee, name)
    if value is None and name in ("epsilon_pld", "epsilon_pld_lower"):
        if getattr(guarantee, "guarantee", None) == "unlimited_pld":
            return getattr(guarantee, name.replace("pld", "unlimited_pld", 1))
    return value


def _interval(guarantee, name: str, out_dim: int) -> str:
    """ "exact; interval [lower, upper]": the kind, and where the ε lies (8 significant digits).

    k = 1: the exact privacy profile; k > 1: the PLD of post-processing, a certified bound.
    """
    lower, upper = getattr(guarantee, f"{name}_lower"), getattr(guarantee, name)
    kind = "exact" if out_dim == 1 else "certified"
    return f"{kind}; interval [{lower:.8g}, {upper:.8g}]"
