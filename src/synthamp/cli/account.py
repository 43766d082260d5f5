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

from synthamp.cli._common import FLOAT_LIST, deprecated_alias, echo_json

__all__ = ["account", "account_result", "calibrate", "calibrate_result"]

_METHODS = ("exact", "global", "post-processing")


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
        click.option("--json", "as_json", is_flag=True, help="Print one JSON object."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


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
            f"k > 1: the curve is a certified upper bound, {curve}; rdp_lower is the exact "
            "k = 1 worst case with the same d"
        )
    return notes


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
    delta: float = 1e-5,
    method: str = "exact",
) -> dict:
    """The JSON object of ``synthamp account``.

    Keys: ``alpha``, ``rdp`` (the curve used), ``rdp_lower`` (k > 1, else
    None), ``epsilon``, ``delta``, ``optimal_order``, ``accounting``, ``kind``,
    ``post_processing`` ({``rdp``, ``epsilon``}), ``sensitivity``,
    ``effective_sensitivity``, ``release``, ``heuristic`` (labelled extras,
    never a guarantee), ``notes`` and ``warnings``.
    """
    from synthamp._validation import check_alpha, check_open_unit
    from synthamp.accountant import SyntheticDataRelease, compute_epsilon

    orders = None if alpha is None else check_alpha(alpha, "alpha")
    delta = check_open_unit("delta", delta)
    release = SyntheticDataRelease(
        dim, out_dim, norm_bound, sensitivity, sigma, n_syn=n_syn, releases=releases
    )
    result, caught = _run_capturing_warnings(
        compute_epsilon, release, delta, orders=orders, method=method
    )
    curve, post = result.curve, result.curve_post_processing
    heuristic = {
        name: {"kind": str(h.kind), "method": h.method, "rdp": h.rdp}
        for name, h in result.heuristics.items()
    }
    return {
        "alpha": curve.orders,
        "rdp": curve.rdp,
        "rdp_lower": curve.rdp_lower,
        "epsilon": result.epsilon,
        "delta": result.delta,
        "optimal_order": result.optimal_order,
        "accounting": result.method,
        "kind": str(result.kind),
        "post_processing": {"rdp": post.rdp, "epsilon": result.epsilon_post_processing},
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
        "notes": _notes(release, method),
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
) -> dict:
    """The JSON object of ``synthamp calibrate``.

    Keys: ``sigma``, ``epsilon`` (achieved, <= target), ``sigma_post_processing``,
    ``noise_saved`` (max(0, 1 − sigma/sigma_post_processing)), ``accounting``,
    ``target_epsilon``, ``delta``, ``optimal_order``, ``kind``,
    ``epsilon_post_processing``, ``sensitivity``, ``effective_sensitivity``,
    ``notes`` and ``warnings``.
    """
    from synthamp._validation import check_alpha
    from synthamp.accountant import SyntheticDataRelease, calibrate_sigma

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
    )
    release = SyntheticDataRelease(
        dim, out_dim, norm_bound, sensitivity, cal.sigma, n_syn=n_syn, releases=releases
    )
    return {
        "sigma": cal.sigma,
        "epsilon": cal.epsilon,
        "sigma_post_processing": cal.sigma_post_processing,
        "noise_saved": max(0.0, cal.noise_reduction),
        "accounting": cal.method,
        "target_epsilon": cal.target_epsilon,
        "delta": cal.delta,
        "optimal_order": cal.optimal_order,
        "kind": str(cal.kind),
        "epsilon_post_processing": cal.epsilon_post_processing,
        "sensitivity": release.sensitivity,
        "effective_sensitivity": release.effective_sensitivity,
        "notes": _notes(release, method),
        "warnings": caught,
    }


def _fmt(value: float) -> str:
    return f"{value:.6g}" if math.isfinite(value) else str(value)


def _echo_warnings(result: dict) -> None:
    for message in result["warnings"]:
        click.echo(f"synthamp: warning: {message}", err=True)


def _echo_notes(result: dict) -> None:
    for note in result["notes"]:
        click.echo(f"note: {note}")
    _echo_warnings(result)


@click.command()
@_release_options
@click.option("--sigma", type=float, required=True, help="Noise scale σ.")
@_common_options
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
    as_json,
) -> None:
    """(ε, δ) guarantee of a synthetic data release, with the RDP curve.

    The curve is the exact worst case over adjacent pairs for k = 1 (default
    method), the best certified bound for k > 1 (with the exact k = 1 value as
    a lower bound), or the method requested. The post-processing baseline
    (releasing the perturbed model) is shown alongside.
    """
    method = deprecated_alias(method, method_alias, old="--method", new="--accounting")
    result = account_result(
        dim, out_dim, norm_bound, sensitivity, sigma, n_syn, releases, alpha, delta, method
    )
    if as_json:
        echo_json(result)
        _echo_warnings(result)
        return
    pp = result["post_processing"]
    click.echo(
        f"epsilon = {_fmt(result['epsilon'])} at delta = {result['delta']:g} "
        f"(optimal alpha {_fmt(result['optimal_order'])}; method {result['accounting']}, "
        f"{result['kind']})"
    )
    click.echo(f"post-processing (releasing the model): epsilon = {_fmt(pp['epsilon'])}")
    if result["rdp_lower"] is not None:
        i = list(result["alpha"]).index(result["optimal_order"])
        click.echo(
            f"at alpha {_fmt(result['optimal_order'])}: RDP in "
            f"[{_fmt(result['rdp_lower'][i])}, {_fmt(result['rdp'][i])}] (lower: exact k = 1)"
        )
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
    as_json,
) -> None:
    """Smallest noise σ whose synthetic data release meets a target (ε, δ).

    Reports σ for the requested accountant and for post-processing (releasing
    the model), and the noise saved, 1 − σ/σ_post-processing. The achieved ε
    never exceeds the target.
    """
    method = deprecated_alias(method, method_alias, old="--method", new="--accounting")
    result = calibrate_result(
        epsilon, delta, dim, out_dim, norm_bound, sensitivity, n_syn, releases, alpha, method
    )
    if as_json:
        echo_json(result)
        _echo_warnings(result)
        return
    click.echo(
        f"sigma = {_fmt(result['sigma'])} (epsilon = {_fmt(result['epsilon'])} <= "
        f"{_fmt(result['target_epsilon'])} at delta = {result['delta']:g}; "
        f"method {result['accounting']}, {result['kind']})"
    )
    if result["sigma"] > result["sigma_post_processing"]:
        saved = (
            f"no noise saved: {result['accounting']} accounting needs more noise than "
            "post-processing here (--accounting exact takes the smaller)"
        )
    else:
        saved = f"noise saved {100 * result['noise_saved']:.2f}%"
    click.echo(f"post-processing: sigma = {_fmt(result['sigma_post_processing'])}; {saved}")
    _echo_notes(result)
