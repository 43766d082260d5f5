"""``synthamp account`` and ``synthamp calibrate``: the privacy accountant on the command line.

``account`` turns a release (d, k, C, Δ, σ, n_syn, T) into an RDP curve and an
(ε, δ) guarantee; ``calibrate`` turns a target (ε, δ) into the noise σ. Both
report the post-processing baseline (releasing the model itself) side by side.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import click

from synthamp._budget import DEFAULT_TIME_BUDGET
from synthamp._validation import check_alpha, check_open_unit, check_positive
from synthamp.accountant import SyntheticDataRelease
from synthamp.accountant import account as account_guarantee
from synthamp.accountant import calibrate as calibrate_guarantee
from synthamp.amplification import amplification_outlook
from synthamp.cli._common import FLOAT_LIST, deprecated_alias, echo_json
from synthamp.cli._status import live_status, time_budget_option

__all__ = ["account", "account_result", "calibrate", "calibrate_result"]

_METHODS = ("exact", "global", "post-processing")
_ACCOUNTANTS = ("pld", "rdp")


def _release_options(fn):
    """Options describing the release, shared by both commands (in display order)."""
    options = [
        click.option("--dim", type=int, required=True, help="Model width d."),
        click.option("--out-dim", type=int, default=1, show_default=True, help="Record dim k."),
        click.option("--norm-bound", type=float, required=True, help="Norm bound C on ‖v‖_F."),
        click.option(
            "--sensitivity", type=float, required=True, help="Sensitivity Δ >= ‖v − w‖_F."
        ),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def _common_options(fn):
    options = [
        click.option(
            "--n-syn", type=int, default=None, help="Synthetic records n (default: unlimited)."
        ),
        click.option(
            "--releases", type=int, default=1, show_default=True, help="Number of releases T."
        ),
        click.option(
            "--alpha",
            type=FLOAT_LIST,
            default=None,
            help="Rényi orders, comma-separated (default: 82 orders from 1.01 to 256).",
        ),
        click.option("--delta", type=float, default=1e-5, show_default=True, help="δ in (0, 1)."),
        click.option(
            "--accounting",
            "method",
            type=click.Choice(_METHODS),
            default="exact",
            show_default=True,
            help="exact: k = 1 worst case (k > 1: min of Theorem 5.4 and post-processing); "
            "global: Theorem 5.2/5.4 alone; post-processing: releasing the model.",
        ),
        click.option("--method", "method_alias", type=click.Choice(_METHODS), hidden=True),
        time_budget_option,
        click.option(
            "--accountant",
            type=click.Choice(_ACCOUNTANTS),
            default=None,
            help="pld: exact privacy profile and PLD composition (tight); rdp: RDP curve "
            "converted (default: pld for k = 1 unlimited, rdp otherwise; for k = 1 with "
            "--n-syn the unlimited release's pld is used when it needs less noise, said so).",
        ),
        click.option(
            "--discretization",
            type=float,
            default=1e-4,
            show_default=True,
            help="PLD discretisation interval h of the privacy loss (> 0).",
        ),
        click.option("--json", "as_json", is_flag=True, help="Print one JSON object."),
        click.option("--no-progress", is_flag=True, help="No live status on stderr."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


#: The note of a PLD ε whose worst-pair guard fired (synthamp.accountant._pld_grid).
PLD_FALLBACK_NOTE = (
    "A guard of the worst adjacent pair fired: the PLD epsilon composes the pointwise maximum "
    "over the pairs scanned along the edge (the guarded search's claim, as for one release)."
)


def _rdp_label(n_syn: int | None, result: dict) -> str:
    """What the printed RDP number is: the accounting of n_syn records, or the plateau bound
    that replaced it when its time budget ran out (never called exact for n_syn then)."""
    if n_syn is None:
        return f"method {result['accounting']}"
    if result["fallback"]:
        return (
            f"unlimited-release (plateau) bound: the accounting of {n_syn:,} records "
            "ran out of time; an upper bound on its value, not the value"
        )
    return f"{n_syn:,} records, method {result['accounting']}"


def _notes(release, method: str) -> list[str]:
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


def _amplification(release, noise_saved: float | None = None) -> str | None:
    """The outlook line of docs/theory.md §16: does amplification pay at this (d, C, σ, k)?
    With the noise the guarantee saves beside the prediction."""

    return amplification_outlook(
        release.dim, release.norm_bound, release.sigma, release.out_dim, noise_saved
    ).message


def _run_capturing_warnings(fn, *args, **kwargs) -> tuple[Any, list[str]]:
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


def account_result(
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
) -> dict:
    """The JSON object of ``synthamp account``.

    Keys: ``alpha``, ``rdp`` (the curve used), ``rdp_lower`` (k > 1, else
    None), ``rdp_search`` (k = 2 with ``search`` > 0, else None),
    ``lower_bounds`` (k > 1: what ``rdp_lower`` and ``rdp_search`` are, their
    kind and direction; else None), ``epsilon`` (of the guarantee: by ``accountant``), ``delta``,
    ``accountant`` (``pld`` or ``rdp``) and ``accountant_reason``,
    ``epsilon_rdp``, ``epsilon_pld`` and ``epsilon_pld_lower`` (the exact
    value lies between; for k > 1 the PLD is of post-processing, certified),
    ``epsilon_unlimited_pld`` and ``epsilon_unlimited_pld_lower`` and
    ``guarantee`` (k = 1, finite n_syn, exact accounting and the default
    accountant, else None: the unlimited release's PLD ε, valid for every n_syn
    (docs/theory.md §3), and per δ which number is ε, ``finite_rdp`` or
    ``unlimited_pld``, the smaller; ``accountant`` is then that number's, one
    per δ only when a δ grid uses both),
    ``discretization``, ``optimal_order``, ``accounting``, ``kind``,
    ``post_processing`` ({``rdp``, ``epsilon``, ``accountant``}: releasing
    the model, ε by the same accountant), ``sensitivity``,
    ``effective_sensitivity``, ``release``, ``heuristic`` (labelled extras,
    never a guarantee), ``fallback`` (set when finite-n_syn accounting stopped
    at its time budget), ``amplification`` (docs/theory.md §16), ``notes`` and
    ``warnings``. With a list of δ (``--delta-grid``), ``delta`` and every ε
    are lists, one entry per δ.
    """

    orders = None if alpha is None else check_alpha(alpha, "alpha")
    grid = isinstance(delta, list | tuple)
    deltas = [
        check_open_unit("delta_grid" if grid else "delta", d) for d in (delta if grid else [delta])
    ]
    discretization = check_positive("discretization", discretization)
    release = SyntheticDataRelease(
        dim, out_dim, norm_bound, sensitivity, sigma, n_syn=n_syn, releases=releases
    )
    guarantees, caught = [], []
    for i, d in enumerate(deltas):
        guarantee, warned = _run_capturing_warnings(
            account_guarantee, release, d, accountant=accountant, orders=orders, method=method,
            discretization=discretization, time_budget=time_budget,
            search=search if i == 0 else 0,  # one search serves every δ
        )  # fmt: skip
        guarantees.append(guarantee)
        caught += [w for w in warned if w not in caught]
    result = guarantees[0].rdp
    curve, post = result.curve, result.curve_post_processing
    heuristic = {
        name: {"kind": str(h.kind), "method": h.method, "rdp": h.rdp}
        for name, h in result.heuristics.items()
    }

    def one(name):
        values = [getattr(g, name) for g in guarantees]
        if all(v is None for v in values):
            return None
        return values if grid else values[0]

    chosen = [g.accountant for g in guarantees]
    chosen = chosen[0] if len(set(chosen)) == 1 else chosen
    reasons = [g.reason for g in guarantees]
    reason = reasons[0]
    if len(set(reasons)) > 1:  # a δ grid: say it per δ
        reason = "; ".join(f"at delta = {d:g}: {r}" for d, r in zip(deltas, reasons, strict=True))
    kinds = {g.kind for g in guarantees}
    fired = any(g.pld_guard_fired for g in guarantees)
    return {
        "alpha": curve.orders,
        "rdp": curve.rdp,
        "rdp_lower": curve.rdp_lower,
        "rdp_search": curve.rdp_search,
        "lower_bounds": _lower_bounds(curve),
        "epsilon": one("epsilon"),
        "delta": deltas if grid else deltas[0],
        "accountant": chosen,
        "accountant_reason": reason,
        "epsilon_rdp": one("epsilon_rdp"),
        "epsilon_pld": one("epsilon_pld"),
        "epsilon_pld_lower": one("epsilon_pld_lower"),
        "epsilon_unlimited_pld": one("epsilon_unlimited_pld"),
        "epsilon_unlimited_pld_lower": one("epsilon_unlimited_pld_lower"),
        "guarantee": one("guarantee"),
        "discretization": discretization,
        "optimal_order": one("optimal_order"),
        "accounting": result.method,
        "kind": "certified" if "certified" in kinds else kinds.pop(),
        "post_processing": {
            "rdp": post.rdp,
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
        "heuristic": heuristic,
        "fallback": result.fallback,
        "amplification": _amplification(release, guarantees[0].noise_saved),
        "notes": _notes(release, method) + ([PLD_FALLBACK_NOTE] if fired else []),
        "warnings": caught,
    }


def calibrate_result(
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
) -> dict:
    """The JSON object of ``synthamp calibrate``.

    Keys: ``sigma``, ``epsilon`` (achieved, <= target), ``sigma_post_processing``,
    ``noise_saved`` (max(0, 1 − sigma/sigma_post_processing)), ``accounting``,
    ``target_epsilon``, ``delta``, ``optimal_order``, ``kind``,
    ``epsilon_post_processing``, ``sensitivity``, ``effective_sensitivity``,
    ``accountant`` and ``accountant_reason``, ``sigma_rdp`` (the RDP
    calibration) and ``sigma_pld`` (by PLD, None when not run),
    ``sigma_unlimited_pld`` and ``guarantee`` (k = 1, finite n_syn, exact
    accounting and the default accountant, else None: the unlimited release's
    σ by its exact profile, valid for every n_syn (docs/theory.md §3), and which σ
    is used, ``finite_rdp`` or ``unlimited_pld``, the smaller),
    ``discretization``, ``fallback`` (set when finite-n_syn refinement stopped
    at its time budget), ``amplification`` (docs/theory.md §16), ``notes`` and
    ``warnings``. ``sigma``, ``epsilon`` and the post-processing baseline are
    those of the chosen accountant (for pld, the Gaussian mechanism's exact
    profile), so that the noise reduction compares like with like.
    """

    orders = None if alpha is None else check_alpha(alpha, "alpha")
    discretization = check_positive("discretization", discretization)
    guarantee, caught = _run_capturing_warnings(
        calibrate_guarantee, epsilon, delta, dim=dim, out_dim=out_dim, norm_bound=norm_bound,
        sensitivity=sensitivity, n_syn=n_syn, releases=releases, method=method,
        accountant=accountant, orders=orders, discretization=discretization,
        time_budget=time_budget,
    )  # fmt: skip
    release = SyntheticDataRelease(
        dim, out_dim, norm_bound, sensitivity, guarantee.sigma, n_syn=n_syn, releases=releases
    )
    return {
        "sigma": guarantee.sigma,
        "epsilon": guarantee.epsilon,
        "accountant": guarantee.accountant,
        "accountant_reason": guarantee.reason,
        "sigma_rdp": guarantee.sigma_rdp,
        "sigma_pld": guarantee.sigma_pld,
        "sigma_unlimited_pld": guarantee.sigma_unlimited_pld,
        "guarantee": guarantee.guarantee,
        "discretization": discretization,
        "sigma_post_processing": guarantee.sigma_post_processing,
        "noise_saved": guarantee.noise_saved,
        "accounting": guarantee.method,
        "target_epsilon": guarantee.target_epsilon,
        "delta": guarantee.delta,
        "optimal_order": guarantee.optimal_order,
        "kind": guarantee.kind,
        "epsilon_post_processing": guarantee.epsilon_post_processing,
        "sensitivity": release.sensitivity,
        "effective_sensitivity": release.effective_sensitivity,
        "fallback": guarantee.fallback,
        "amplification": _amplification(release, guarantee.noise_saved),
        "notes": _notes(release, method),
        "warnings": caught,
    }


def _fmt(value: float) -> str:
    return f"{value:.6g}" if math.isfinite(value) else str(value)


def _echo_warnings(result: dict) -> None:
    for message in result["warnings"]:
        click.echo(f"synthamp: warning: {message}", err=True)


def _echo_notes(result: dict) -> None:
    if result["fallback"]:
        click.echo(f"note: {result['fallback']}")
    click.echo(f"note: {result['amplification']}")
    for note in result["notes"]:
        click.echo(f"note: {note}")
    _echo_warnings(result)


@click.command()
@_release_options
@click.option("--sigma", type=float, required=True, help="Noise scale σ.")
@_common_options
@click.option(
    "--delta-grid",
    type=FLOAT_LIST,
    default=None,
    help="Several δ, comma-separated (e.g. 1e-3,1e-5,1e-8): ε for each (JSON: arrays).",
)
@click.option(
    "--search",
    type=int,
    default=0,
    show_default=True,
    metavar="N",
    help="k = 2, unlimited release: search N adjacent pairs for a larger lower bound "
    "rdp_search (exact value of the best pair found; never changes epsilon; under "
    "--time-budget; about 0.1-0.6 s per pair).",
)
def account(
    dim,
    out_dim,
    norm_bound,
    sensitivity,
    sigma,
    n_syn,
    releases,
    alpha,
    delta,
    method,
    method_alias,
    time_budget,
    accountant,
    discretization,
    as_json,
    no_progress,
    delta_grid,
    search,
) -> None:
    """(ε, δ) guarantee of a synthetic data release, by PLD or RDP.

    pld (default for k = 1, unlimited release): the exact privacy profile,
    worst case over adjacent pairs, composed by privacy loss distributions;
    rdp: the exact worst-case RDP curve for k = 1 (default method), the best
    certified bound for k > 1 (with the exact k = 1 value as a lower bound),
    or the method requested, converted to (ε, δ). For k = 1 with --n-syn the
    unlimited release's profile (valid for any n_syn) is weighed too and the
    smaller ε is the guarantee. Both numbers are shown; the
    post-processing baseline (releasing the perturbed model) alongside. For
    k = 2, --search N adds rdp_search, the exact value of the best adjacent
    pair of a search: a lower bound on the worst case, never used for ε.
    """
    method = deprecated_alias(method, method_alias, old="--method", new="--accounting")
    with live_status("accounting", show=not no_progress):
        result = account_result(
            dim,
            out_dim,
            norm_bound,
            sensitivity,
            sigma,
            n_syn,
            releases,
            alpha,
            delta if delta_grid is None else list(delta_grid),
            method,
            accountant,
            discretization,
            time_budget,
            search,
        )
    if as_json:
        echo_json(result)
        _echo_warnings(result)
        return
    grid = delta_grid is not None

    def at(key, i):
        value = result[key] if key != "post_processing" else result[key]["epsilon"]
        return value[i] if grid and isinstance(value, list) else value

    finite = result["guarantee"] is not None  # the unlimited profile weighed against n_syn's
    for i in range(len(delta_grid) if grid else 1):
        click.echo(
            f"epsilon = {_fmt(at('epsilon', i))} at delta = {at('delta', i):g} "
            f"(accountant {at('accountant', i)}, {result['kind']})"
        )
        if result["epsilon_pld"] is not None:
            click.echo(
                f"  pld: epsilon = {_fmt(at('epsilon_pld', i))} (exact value >= "
                f"{_fmt(at('epsilon_pld_lower', i))}; discretisation {result['discretization']:g})"
            )
        if finite:
            click.echo(
                f"  pld, unlimited release (valid for any n_syn): epsilon = "
                f"{_fmt(at('epsilon_unlimited_pld', i))} (exact value >= "
                f"{_fmt(at('epsilon_unlimited_pld_lower', i))})"
            )
        rdp_label = _rdp_label(result["release"]["n_syn"] if finite else None, result)
        click.echo(
            f"  rdp: epsilon = {_fmt(at('epsilon_rdp', i))} (optimal alpha "
            f"{_fmt(at('optimal_order', i))}; {rdp_label})"
        )
        click.echo(
            f"  post-processing (releasing the model): epsilon = {_fmt(at('post_processing', i))}"
        )
    accountants = result["accountant"]
    if isinstance(accountants, list):
        accountants = "/".join(dict.fromkeys(accountants))
    click.echo(f"accountant: {accountants} ({result['accountant_reason']})")
    if result["rdp_lower"] is not None and not grid:
        i = list(result["alpha"]).index(result["optimal_order"])
        lower = result["rdp_lower"][i] if result["rdp_search"] is None else result["rdp_search"][i]
        how = "exact k = 1" if result["rdp_search"] is None else "best pair of the search"
        click.echo(
            f"at alpha {_fmt(result['optimal_order'])}: RDP in "
            f"[{_fmt(lower)}, {_fmt(result['rdp'][i])}] (lower: {how})"
        )
    if result["rdp_search"] is not None:
        click.echo(f"note: {result['lower_bounds']['rdp_search']}")
    _echo_notes(result)


@click.command()
@click.option("--epsilon", type=float, required=True, help="Target ε > 0.")
@_release_options
@_common_options
def calibrate(
    epsilon,
    dim,
    out_dim,
    norm_bound,
    sensitivity,
    n_syn,
    releases,
    alpha,
    delta,
    method,
    method_alias,
    time_budget,
    accountant,
    discretization,
    as_json,
    no_progress,
) -> None:
    """Smallest noise σ whose synthetic data release meets a target (ε, δ).

    Reports σ for the chosen accountant (pld by default for k = 1 unlimited,
    else rdp; for k = 1 with --n-syn the smaller of the finite RDP σ and the
    unlimited release's PLD σ, valid for any n_syn), the RDP calibration and
    post-processing (releasing the model),
    and the noise saved, 1 − σ/σ_post-processing. The achieved ε never
    exceeds the target.
    """
    method = deprecated_alias(method, method_alias, old="--method", new="--accounting")
    with live_status("calibrating σ", show=not no_progress):
        result = calibrate_result(
            epsilon,
            delta,
            dim,
            out_dim,
            norm_bound,
            sensitivity,
            n_syn,
            releases,
            alpha,
            method,
            accountant,
            discretization,
            time_budget,
        )
    if as_json:
        echo_json(result)
        _echo_warnings(result)
        return
    click.echo(
        f"sigma = {_fmt(result['sigma'])} (epsilon = {_fmt(result['epsilon'])} <= "
        f"{_fmt(result['target_epsilon'])} at delta = {result['delta']:g}; "
        f"accountant {result['accountant']}, {result['kind']})"
    )
    if result["guarantee"] is not None:
        click.echo(
            f"  pld, unlimited release (valid for any n_syn): sigma = "
            f"{_fmt(result['sigma_unlimited_pld'])}"
        )
    if result["accountant"] == "pld" or result["guarantee"] is not None:
        rdp_label = _rdp_label(n_syn if result["guarantee"] is not None else None, result)
        click.echo(f"  rdp: sigma = {_fmt(result['sigma_rdp'])} ({rdp_label})")
    if result["sigma"] > result["sigma_post_processing"]:
        saved = (
            f"no noise saved: {result['accounting']} accounting needs more noise than "
            "post-processing here (--accounting exact takes the smaller)"
        )
    else:
        saved = f"noise saved {100 * result['noise_saved']:.2f}%"
    click.echo(f"post-processing: sigma = {_fmt(result['sigma_post_processing'])}; {saved}")
    click.echo(f"accountant: {result['accountant']} ({result['accountant_reason']})")
    _echo_notes(result)
