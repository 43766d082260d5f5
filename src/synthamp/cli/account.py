"""``synthamp account`` and ``synthamp calibrate``: the privacy accountant on the command line.

``account`` turns a release (d, k, C, Δ, σ, n_syn, T) into an RDP curve and an
(ε, δ) guarantee; ``calibrate`` turns a target (ε, δ) into the noise σ. Both
report the post-processing baseline (releasing the model itself) side by side.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import replace
from typing import Any

import click

from synthamp._budget import DEFAULT_TIME_BUDGET
from synthamp._validation import check_alpha, check_open_unit, check_positive
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


def _choose_accountant(
    accountant: str | None, out_dim: int, n_syn: int | None, method: str = "exact"
) -> tuple[str, str]:
    """The accountant of the guarantee and why (the library's default rule of ``--accountant``)."""
    # the accountant loads scipy: heavy, on use only
    from synthamp.accountant._choice import accountant_reason, choose_accountant

    return (
        choose_accountant(accountant, out_dim, n_syn, method),
        accountant_reason(accountant, out_dim, n_syn, method),
    )


def _pld_epsilons(release, deltas, discretization: float) -> tuple[list, list, bool]:
    """ε and its lower bound by the PLD accountant, one per δ (one PLD for all), and
    whether a guard of the worst pair fired.

    The lower bound is the worst pair's (remove and add composed apart): a
    lower bound on the release's ε itself.
    """
    # the PLD accountant loads scipy: heavy, on use only
    from synthamp.accountant._pld import compute_epsilon_pld, privacy_loss_distribution
    from synthamp.accountant._profile import profile_epsilon

    h = check_positive("discretization", discretization)
    if release.releases == 1 and (release.out_dim == 1 or len(deltas) == 1):
        results = [profile_epsilon(release, d) for d in deltas]
        fired = any(r.fallback for r in results)
        return [r.epsilon for r in results], [r.epsilon_lower for r in results], fired
    if len(deltas) == 1:
        r = compute_epsilon_pld(release, deltas[0], discretization=h)
        return [r.epsilon], [r.epsilon_lower], r.fallback
    pld = privacy_loss_distribution(release, discretization=h)
    return [pld.epsilon(d) for d in deltas], [pld.epsilon_lower(d) for d in deltas], pld.fallback


#: The note of a PLD ε whose worst-pair guard fired (synthamp.accountant._pld_grid).
PLD_FALLBACK_NOTE = (
    "A guard of the worst adjacent pair fired: the PLD epsilon composes the pointwise maximum "
    "over the pairs scanned along the edge (the guarded search's claim, as for one release)."
)


def _beyond_exact_profile(release) -> bool:
    """Whether a k = 1 release's C/σ is past the exact profile's range (its PLD is certified)."""
    from synthamp.accountant._profile import beyond_exact_profile  # scipy: heavy

    return beyond_exact_profile(release)


def _unlimited_kind(release) -> str:
    """Kind of the unlimited release's PLD ε: exact, or certified past the exact range."""
    return "certified" if _beyond_exact_profile(release) else "exact"


def _gaussian_epsilons(release, deltas, discretization: float) -> list[float]:
    """ε of releasing the model by PLD, one per δ: T Gaussian mechanisms, exact profile."""
    from synthamp.accountant import GaussianRelease, compute_epsilon_pld  # scipy: heavy

    gaussian = GaussianRelease(release.effective_sensitivity, release.sigma, release.releases)
    return [compute_epsilon_pld(gaussian, d, discretization=discretization).epsilon for d in deltas]


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


def _finite_accounting(n_syn: int, fallback: str | None) -> str:
    """What the finite-n_syn RDP number is, for the note of :func:`finite_or_unlimited`."""
    if fallback:
        return f"the plateau's RDP bound (the accounting of {n_syn:,} records ran out of time)"
    return f"the rdp accounting of exactly {n_syn:,} records"


def _calibrate_pld(epsilon: float, delta: float, common: dict, n_syn: int | None):
    """The PLD calibration of the release (``n_syn`` None: the unlimited one)."""
    from synthamp.accountant._pld import calibrate_sigma_pld  # loads scipy: heavy

    return calibrate_sigma_pld(epsilon, delta, **common, n_syn=n_syn)


def _gaussian_calibration(epsilon: float, delta: float, common: dict) -> tuple[float, float]:
    """σ and ε of releasing the model, exact: T Gaussian mechanisms are one of sensitivity Δ√T."""
    from synthamp.accountant import gaussian_epsilon  # loads scipy: heavy
    from synthamp.accountant._pld import gaussian_sigma

    effective = min(common["sensitivity"], 2.0 * common["norm_bound"])
    composed = effective * math.sqrt(common["releases"])
    sigma = gaussian_sigma(epsilon, delta, composed)
    return sigma, gaussian_epsilon(delta, composed, sigma)


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


def _amplification(release) -> str | None:
    """The outlook line of docs/theory.md §16: does amplification pay at this (d, C, σ, k)?"""
    from synthamp.amplification import amplification_outlook  # loads scipy: heavy

    return amplification_outlook(
        release.dim, release.norm_bound, release.sigma, release.out_dim
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
    # the accountant loads scipy: heavy, on use only
    from synthamp.accountant import SyntheticDataRelease, compute_epsilon
    from synthamp.accountant._choice import finite_or_unlimited, weighs_unlimited_profile

    orders = None if alpha is None else check_alpha(alpha, "alpha")
    grid = isinstance(delta, list | tuple)
    deltas = [
        check_open_unit("delta_grid" if grid else "delta", d) for d in (delta if grid else [delta])
    ]
    discretization = check_positive("discretization", discretization)
    release = SyntheticDataRelease(
        dim, out_dim, norm_bound, sensitivity, sigma, n_syn=n_syn, releases=releases
    )
    chosen, reason = _choose_accountant(accountant, out_dim, n_syn, method)
    results, caught = [], []
    for i, d in enumerate(deltas):
        result, warned = _run_capturing_warnings(
            compute_epsilon,
            release,
            d,
            orders=orders,
            method=method,
            time_budget=time_budget,
            search=search if i == 0 else 0,  # one curve serves every δ
        )
        results.append(result)
        caught += [w for w in warned if w not in caught]
    result = results[0]
    eps_rdp = [r.epsilon for r in results]
    eps_pld, eps_pld_lower, pld_fallback = (None, None, False)
    if chosen == "pld" or (out_dim == 1 and n_syn is None):
        eps_pld, eps_pld_lower, fired = _pld_epsilons(release, deltas, discretization)
        pld_fallback = pld_fallback or fired
    epsilon = eps_pld if chosen == "pld" else eps_rdp
    post_epsilon = [r.epsilon_post_processing for r in results]
    if chosen == "pld":  # the baseline by the same accountant: the Gaussian mechanism, exact
        post_epsilon = _gaussian_epsilons(release, deltas, discretization)
    kind = str(result.kind) if chosen == "rdp" or out_dim == 1 else "certified"
    if chosen == "pld" and _beyond_exact_profile(release):
        kind = "certified"
    eps_unlimited, eps_unlimited_lower, guarantee = (None, None, None)
    if weighs_unlimited_profile(accountant, out_dim, n_syn, method):
        # the unlimited release (T-fold, one PLD) bounds every n_syn: the smaller ε is sound
        unlimited = replace(release, n_syn=None)
        eps_unlimited, eps_unlimited_lower, fired = _pld_epsilons(unlimited, deltas, discretization)
        pld_fallback = pld_fallback or fired
        finite_accounting = _finite_accounting(n_syn, result.fallback)
        picks = [
            finite_or_unlimited(
                r, u, symbol="ε", n_syn=n_syn, finite_accounting=finite_accounting,
                show_values=not grid,
            )
            for r, u in zip(eps_rdp, eps_unlimited, strict=True)
        ]  # fmt: skip
        used = [use for use, _ in picks]
        guarantee = ["unlimited_pld" if use else "finite_rdp" for use in used]
        epsilon = [u if use else r for use, u, r in zip(used, eps_unlimited, eps_rdp, strict=True)]
        if any(used):
            gaussian = _gaussian_epsilons(release, deltas, discretization)
            post_epsilon = [
                g if use else p for use, g, p in zip(used, gaussian, post_epsilon, strict=True)
            ]
        chosen = ["pld" if use else "rdp" for use in used]
        reason = picks[0][1]
        if len(set(used)) > 1:  # a δ grid on both sides of the crossing: say it per δ
            notes = zip(deltas, picks, strict=True)
            reason = "; ".join(f"at delta = {d:g}: {note}" for d, (_, note) in notes)
        else:
            chosen = chosen[0]
        kind = str(result.kind) if not all(used) else _unlimited_kind(release)
    curve, post = result.curve, result.curve_post_processing
    heuristic = {
        name: {"kind": str(h.kind), "method": h.method, "rdp": h.rdp}
        for name, h in result.heuristics.items()
    }

    def one(values):
        return values if grid or values is None else values[0]

    return {
        "alpha": curve.orders,
        "rdp": curve.rdp,
        "rdp_lower": curve.rdp_lower,
        "rdp_search": curve.rdp_search,
        "lower_bounds": _lower_bounds(curve),
        "epsilon": one(epsilon),
        "delta": one(deltas),
        "accountant": chosen,
        "accountant_reason": reason,
        "epsilon_rdp": one(eps_rdp),
        "epsilon_pld": one(eps_pld),
        "epsilon_pld_lower": one(eps_pld_lower),
        "epsilon_unlimited_pld": one(eps_unlimited),
        "epsilon_unlimited_pld_lower": one(eps_unlimited_lower),
        "guarantee": one(guarantee),
        "discretization": discretization,
        "optimal_order": one([r.optimal_order for r in results]),
        "accounting": result.method,
        "kind": kind,
        "post_processing": {
            "rdp": post.rdp,
            "epsilon": one(post_epsilon),
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
        "amplification": _amplification(release),
        "notes": _notes(release, method) + ([PLD_FALLBACK_NOTE] if pld_fallback else []),
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
    # the accountant loads scipy: heavy, on use only
    from synthamp.accountant import SyntheticDataRelease, calibrate_sigma
    from synthamp.accountant._choice import finite_or_unlimited, weighs_unlimited_profile

    orders = None if alpha is None else check_alpha(alpha, "alpha")
    cal, caught = _run_capturing_warnings(
        calibrate_sigma,
        epsilon,
        delta,
        dim=dim,
        out_dim=out_dim,
        norm_bound=norm_bound,
        sensitivity=sensitivity,
        n_syn=n_syn,
        releases=releases,
        method=method,
        orders=orders,
        time_budget=time_budget,
    )
    discretization = check_positive("discretization", discretization)
    chosen, reason = _choose_accountant(accountant, out_dim, n_syn, method)
    sigma, eps, kind, sigma_pld = cal.sigma, cal.epsilon, str(cal.kind), None
    sigma_post, eps_post = cal.sigma_post_processing, cal.epsilon_post_processing
    common = dict(
        dim=dim, out_dim=out_dim, norm_bound=norm_bound, sensitivity=sensitivity,
        releases=releases, discretization=discretization,
    )  # fmt: skip
    sigma_unlimited, guarantee = None, None
    if chosen == "pld":
        pld = _calibrate_pld(epsilon, delta, common, n_syn)
        sigma, eps, sigma_pld = pld.sigma, pld.epsilon, pld.sigma
        if str(pld.kind) == "certified":
            kind = "certified"
    elif weighs_unlimited_profile(accountant, out_dim, n_syn, method):
        # the unlimited release's σ by its exact profile (T-fold, one PLD) bounds every n_syn
        pld = _calibrate_pld(epsilon, delta, common, None)
        sigma_unlimited = pld.sigma
        use, reason = finite_or_unlimited(
            cal.sigma, sigma_unlimited, symbol="σ", n_syn=n_syn,
            finite_accounting=_finite_accounting(n_syn, cal.fallback),
        )  # fmt: skip
        guarantee = "unlimited_pld" if use else "finite_rdp"
        if use:
            chosen, sigma, eps, kind = "pld", pld.sigma, pld.epsilon, str(pld.kind)
    if chosen == "pld":
        # the baseline by the same (tight) accountant: the Gaussian mechanism's exact profile
        sigma_post, eps_post = _gaussian_calibration(epsilon, delta, common)
    release = SyntheticDataRelease(
        dim, out_dim, norm_bound, sensitivity, sigma, n_syn=n_syn, releases=releases
    )
    return {
        "sigma": sigma,
        "epsilon": eps,
        "accountant": chosen,
        "accountant_reason": reason,
        "sigma_rdp": cal.sigma,
        "sigma_pld": sigma_pld,
        "sigma_unlimited_pld": sigma_unlimited,
        "guarantee": guarantee,
        "discretization": discretization,
        "sigma_post_processing": sigma_post,
        "noise_saved": max(0.0, 1.0 - sigma / sigma_post),
        "accounting": cal.method,
        "target_epsilon": cal.target_epsilon,
        "delta": cal.delta,
        "optimal_order": cal.optimal_order,
        "kind": kind,
        "epsilon_post_processing": eps_post,
        "sensitivity": release.sensitivity,
        "effective_sensitivity": release.effective_sensitivity,
        "fallback": cal.fallback,
        "amplification": _amplification(release),
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
