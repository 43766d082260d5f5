"""``synthamp audit``: an empirical lower bound on ε next to the accountant's.

Simulates many releases from the worst-case adjacent pair and turns them into a
lower confidence bound on ε (:mod:`synthamp.audit`): by default from the whole
empirical distribution of the sufficient statistic on both datasets, fitted to
its exact family of laws (``--estimator family``); or from the error rates of the
best likelihood-ratio (threshold) test (``--estimator threshold``). It checks the
bound against the accountant's ε for the same release.
"""

from __future__ import annotations

import math

import click

from synthamp._validation import InputError, check_integer, check_open_unit
from synthamp.accountant import (
    GaussianRelease,
    SyntheticDataRelease,
    account,
    compute_epsilon,
    profile_epsilon,
)
from synthamp.cli._common import echo_json
from synthamp.cli._status import live_status
from synthamp.cli.account import _run_capturing_warnings
from synthamp.release import atomic_write_text, atomic_write_with, check_writable

__all__ = ["audit", "audit_result"]


def audit_result(
    dim: int | None,
    norm_bound: float | None,
    sensitivity: float,
    sigma: float,
    n_syn: int | None = None,
    out_dim: int = 1,
    trials: int = 100_000,
    delta: float = 1e-5,
    confidence: float = 0.95,
    seed: int | None = None,
    correction: str = "bonferroni",
    mechanism: str = "synthetic",
    accountant: str | None = None,
    estimator: str = "family",
) -> dict:
    """The JSON object of ``synthamp audit``.

    Keys of the contract: ``epsilon_lower``, ``epsilon_upper`` (the
    accountant's), ``confidence``, ``trials``, ``fpr``, ``fnr`` (observed at
    the chosen threshold), ``consistent`` (epsilon_lower <= epsilon_upper).
    Also: ``delta``, ``epsilon_pair`` (exact ε of the audited pair: what an
    audit with unlimited trials reports), ``tightness`` (epsilon_lower /
    epsilon_upper), ``fpr_upper``, ``fnr_upper`` (Clopper–Pearson bounds),
    ``threshold``, ``threshold_llr``, ``direction``, ``correction``,
    ``evaluation_trials``, ``mechanism``, ``statistic``, ``upper_kind``,
    ``seeded``, ``notes`` and ``warnings``; ``estimator`` (``family`` or
    ``threshold``: which gave epsilon_lower), ``epsilon_threshold`` (the
    threshold test's bound on the same trials; fpr, fnr and the threshold keys
    describe that test), ``family`` (for the family estimator: the family, the
    amplitude bounds ``amp_p_lower``, ``amp_q_upper``, the DKW half-widths
    ``band_p``, ``band_q``, the amplitudes inside each sample's goodness-of-fit
    band ``fit_p``, ``fit_q`` and ``fits``; else None); ``accountant`` (of
    epsilon_upper: pld, the exact profile, by default for k = 1 unlimited
    and for the Gaussian mechanism; rdp otherwise), ``epsilon_pld`` (the
    tight upper bound, None when not computed) and ``epsilon_rdp``; for k = 1
    and a finite n_syn with the default accountant, ``epsilon_unlimited_pld``
    (the unlimited release's exact ε, valid for every n_syn) and ``guarantee``
    (``finite_rdp`` or ``unlimited_pld``: which of the two, the smaller, is
    epsilon_upper, as in ``release`` and ``account``; else None), with a note.
    """
    from synthamp.audit import audit_release  # loads scipy (the audit statistics): heavy

    if seed is not None:
        seed = check_integer("seed", seed, 0)
    notes = []
    if mechanism == "gaussian":
        release = GaussianRelease(sensitivity, sigma)
    else:
        if dim is None:
            raise InputError("dim", "is required for a synthetic data release")
        if norm_bound is None:
            raise InputError("norm_bound", "is required for a synthetic data release")
        release = SyntheticDataRelease(dim, out_dim, norm_bound, sensitivity, sigma, n_syn=n_syn)
        if release.out_dim > 1:
            notes.append(
                "k > 1: the rank-one worst pair is attacked through one column of the release "
                "(a k = 1 release of width d), a valid attack on the full release"
            )
    uppers = _upper_bounds(release, delta, accountant)
    if uppers["note"]:
        notes.append(uppers["note"])
    result, caught = _run_capturing_warnings(
        audit_release,
        release,
        delta,
        trials=trials,
        confidence=confidence,
        correction=correction,
        random_state=seed,
        epsilon_upper=uppers["epsilon_upper"],
        estimator=estimator,
    )
    test = result.test
    family = None
    if result.family is not None:
        fam = result.family
        family = {
            "family": fam.family,
            "amp_p_lower": fam.amp_p_lower,
            "amp_q_upper": fam.amp_q_upper,
            "fit_p": list(fam.fit_p),
            "fit_q": list(fam.fit_q),
            "band_p": fam.band_p,
            "band_q": fam.band_q,
            "fits": fam.fits,
        }
        if not fam.fits:
            notes.append(
                "the family of the statistic's laws is rejected by the goodness-of-fit DKW "
                "bands (no member fits one sample; a true family is rejected with "
                "probability <= 0.001): epsilon_lower = 0; use --estimator threshold"
            )
    if not result.consistent:
        notes.append(
            "INCONSISTENT: the empirical lower bound exceeds the accountant's epsilon; "
            f"this happens with probability <= {1 - result.confidence:g} for a correct "
            "accountant: rerun with another seed, and report it if it persists"
        )
    return {
        "epsilon_lower": result.epsilon_lower,
        "epsilon_upper": result.epsilon_upper,
        "confidence": result.confidence,
        "trials": result.trials,
        "fpr": test.fpr,
        "fnr": test.fnr,
        "consistent": result.consistent,
        "delta": result.delta,
        "epsilon_pair": result.epsilon_pair,
        "tightness": result.tightness,
        "fpr_upper": test.fpr_upper,
        "fnr_upper": test.fnr_upper,
        "threshold": test.threshold,
        "threshold_llr": result.threshold_llr,
        "direction": test.direction,
        "correction": test.correction,
        "evaluation_trials": list(test.evaluation_trials),
        "estimator": result.estimator,
        "epsilon_threshold": result.epsilon_threshold,
        "family": family,
        "mechanism": result.mechanism,
        "statistic": result.statistic,
        "upper_kind": uppers["upper_kind"],
        "accountant": uppers["accountant"],
        "epsilon_pld": uppers["epsilon_pld"],
        "epsilon_rdp": uppers["epsilon_rdp"],
        "epsilon_unlimited_pld": uppers["epsilon_unlimited_pld"],
        "guarantee": uppers["guarantee"],
        "seeded": seed is not None,
        "notes": notes,
        "warnings": caught,
    }


def _upper_bounds(release, delta: float, accountant: str | None) -> dict:
    """The accountant's ε by PLD (the tight upper bound) and by RDP, and the one used.

    For k = 1 and a finite n_syn with the default accountant, as ``release`` and
    ``account`` do, also the unlimited release's exact ε (valid for every n_syn,
    docs/theory.md §3), and the smaller of it and the finite RDP ε is the upper bound
    (``guarantee`` says which, ``note`` why)."""

    delta = check_open_unit("delta", delta)
    if isinstance(release, GaussianRelease):  # releasing V: the exact profile, or RDP
        rdp = compute_epsilon(release, delta, accountant="rdp")
        tight = profile_epsilon(release, delta)
        chosen = accountant or "pld"
        used = tight if chosen == "pld" else rdp
        return {
            "epsilon_upper": float(used.epsilon), "upper_kind": str(used.kind),
            "accountant": chosen, "epsilon_pld": float(tight.epsilon),
            "epsilon_rdp": float(rdp.epsilon), "epsilon_unlimited_pld": None,
            "guarantee": None, "note": None,
        }  # fmt: skip
    guarantee = account(release, delta, accountant=accountant)
    return {
        "epsilon_upper": guarantee.epsilon,
        "upper_kind": guarantee.kind,
        "accountant": guarantee.accountant,
        "epsilon_pld": guarantee.epsilon_pld,
        "epsilon_rdp": guarantee.epsilon_rdp,
        "epsilon_unlimited_pld": guarantee.epsilon_unlimited_pld,
        "guarantee": guarantee.guarantee,
        "note": guarantee.reason if guarantee.guarantee else None,
    }


def _write_tradeoff(release, trials: int, seed: int | None, csv_path, plot_path) -> None:
    """The exact trade-off curve of the audited pair next to an empirical one (CSV, PNG)."""
    # the audit loads scipy: heavy, on use only
    from synthamp.audit import sample_statistic
    from synthamp.audit._tradeoff import empirical_tradeoff, exact_tradeoff

    exact = exact_tradeoff(release)
    # an independent simulation of the same size as the audit (the audit keeps its own)
    scores_p, scores_q = sample_statistic(release, trials, None if seed is None else seed + 1)
    empirical = empirical_tradeoff(scores_p, scores_q)
    if csv_path is not None:
        lines = ["curve,fpr,fnr"]
        for curve, name in ((exact, "exact"), (empirical, "empirical")):
            lines += [
                f"{name},{a:.17g},{b:.17g}" for a, b in zip(curve.fpr, curve.fnr, strict=True)
            ]
        atomic_write_text(csv_path, "\n".join(lines) + "\n")
    if plot_path is not None:
        # matplotlib is heavy: imported only when a plot is asked for
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # matplotlib: heavy

        fig, ax = plt.subplots(figsize=(5.0, 4.2))
        ax.plot(exact.fpr, exact.fnr, "-", label=exact.label)
        ax.plot(empirical.fpr, empirical.fnr, ".", ms=3, label=empirical.label)
        ax.set_xscale("log")
        ax.set_xlabel("false-positive rate (FPR)")
        ax.set_ylabel("false-negative rate (FNR)")
        ax.set_xlim(max(1.0 / (10 * trials), 1e-12), 1.0)
        ax.set_title("Trade-off of the worst-case pair")
        ax.legend(loc="lower left")
        fig.tight_layout()
        suffix = str(plot_path).rsplit(".", 1)[-1].lower()
        fmt = suffix if suffix in ("png", "pdf", "svg") else "png"
        atomic_write_with(plot_path, lambda tmp: fig.savefig(tmp, format=fmt, dpi=150))
        plt.close(fig)


def _fmt(value: float) -> str:
    return f"{value:.4g}" if math.isfinite(value) else str(value)


@click.command()
@click.option("--dim", type=int, default=None, help="Model width d (synthetic data).")
@click.option("--out-dim", type=int, default=1, show_default=True, help="Record dim k.")
@click.option("--norm-bound", type=float, default=None, help="Norm bound C on ‖v‖_F.")
@click.option("--sensitivity", type=float, required=True, help="Sensitivity Δ >= ‖v − w‖_F.")
@click.option("--sigma", type=float, required=True, help="Noise scale σ.")
@click.option("--n-syn", type=int, default=None, help="Synthetic records n (default: unlimited).")
@click.option(
    "--trials",
    type=int,
    default=100_000,
    show_default=True,
    help="Releases simulated from each of the two datasets.",
)
@click.option("--delta", type=float, default=1e-5, show_default=True, help="δ in (0, 1).")
@click.option(
    "--confidence", type=float, default=0.95, show_default=True, help="Confidence of the bound."
)
@click.option("--seed", type=int, default=None, help="Seed (default: operating-system entropy).")
@click.option(
    "--correction",
    type=click.Choice(["bonferroni", "split"]),
    default="bonferroni",
    show_default=True,
    help="Threshold selection: a grid fixed in advance (Bonferroni), or split halves.",
)
@click.option(
    "--estimator",
    type=click.Choice(["family", "threshold"]),
    default="family",
    show_default=True,
    help="family: the whole empirical curve fitted to the statistic's exact family of laws "
    "(DKW bands); threshold: the best threshold test, assumption-free (docs/audit.md).",
)
@click.option(
    "--mechanism",
    type=click.Choice(["synthetic", "gaussian"]),
    default="synthetic",
    show_default=True,
    help="synthetic: the synthetic data release; gaussian: releasing V itself.",
)
@click.option(
    "--accountant",
    type=click.Choice(["pld", "rdp"]),
    default=None,
    help="Accountant of the upper bound (default: pld, the exact profile, for k = 1 "
    "unlimited and the Gaussian mechanism; rdp otherwise). Both are reported.",
)
@click.option(
    "--tradeoff",
    "tradeoff_csv",
    default=None,
    metavar="FILE",
    help="Write the exact and an empirical trade-off curve (FNR against FPR) as CSV.",
)
@click.option(
    "--plot", "plot_file", default=None, metavar="FILE", help="Plot both trade-off curves."
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def audit(
    dim,
    out_dim,
    norm_bound,
    sensitivity,
    sigma,
    n_syn,
    trials,
    delta,
    confidence,
    seed,
    correction,
    estimator,
    mechanism,
    accountant,
    tradeoff_csv,
    plot_file,
    as_json,
) -> None:
    """Empirical privacy audit: a lower bound on ε next to the accountant's ε.

    Simulates TRIALS releases from each dataset of the worst-case adjacent
    pair (‖v‖ = C, ‖w‖ = C − Δ, aligned) and bounds ε from below: by default
    (--estimator family) from DKW confidence bands on the whole empirical
    distribution of the sufficient statistic on both datasets, fitted to its
    exact family of laws; with --estimator threshold from Clopper–Pearson
    bounds on the error rates of the best likelihood-ratio test. Consistent
    means lower <= upper; tightness is lower/upper.
    """
    for path, param in ((tradeoff_csv, "tradeoff"), (plot_file, "plot")):
        if path is not None:
            check_writable(path, force=True, param=param)
    with live_status("auditing"):  # a spinner on a terminal's stderr; nothing otherwise
        result = audit_result(
            dim,
            norm_bound,
            sensitivity,
            sigma,
            n_syn,
            out_dim,
            trials,
            delta,
            confidence,
            seed,
            correction,
            mechanism,
            accountant,
            estimator,
        )
    if tradeoff_csv is not None or plot_file is not None:
        release = (
            GaussianRelease(sensitivity, sigma)
            if mechanism == "gaussian"
            else SyntheticDataRelease(dim, out_dim, norm_bound, sensitivity, sigma, n_syn=n_syn)
        )
        _write_tradeoff(release, trials, seed, tradeoff_csv, plot_file)
    if as_json:
        echo_json(result)
    else:
        level = f"{100 * result['confidence']:g}% confidence"
        if result["estimator"] == "family":
            how = (
                f"family estimator: {result['family']['family']} fitted with DKW bands on both "
                f"datasets, {level}, {result['trials']} trials per dataset"
            )
        else:
            how = (
                f"threshold estimator, {level}, {result['trials']} trials per dataset, "
                f"{result['correction']} correction"
            )
        click.echo(
            f"epsilon_lower = {_fmt(result['epsilon_lower'])} ({how}) "
            f"at delta = {result['delta']:g}"
        )
        click.echo(
            f"epsilon_upper = {_fmt(result['epsilon_upper'])} (accountant "
            f"{result['accountant']}, {result['upper_kind']})"
        )
        if result["epsilon_pld"] is not None and result["accountant"] != "pld":
            click.echo(f"epsilon_pld   = {_fmt(result['epsilon_pld'])} (exact privacy profile)")
        if result["accountant"] != "rdp":
            click.echo(f"epsilon_rdp   = {_fmt(result['epsilon_rdp'])} (RDP curve, converted)")
        click.echo(f"epsilon_pair  = {_fmt(result['epsilon_pair'])} (exact, audited pair)")
        click.echo(
            f"consistent: {'yes' if result['consistent'] else 'NO'}; "
            f"tightness lower/upper = {_fmt(result['tightness'])}"
        )
        if result["estimator"] == "family":
            fam = result["family"]
            click.echo(
                f"family: amplitudes >= {fam['amp_p_lower']:.4g} on D, <= "
                f"{fam['amp_q_upper']:.4g} on D' (fits: {'yes' if fam['fits'] else 'NO'}); "
                f"threshold estimator on the same trials: {_fmt(result['epsilon_threshold'])} "
                f"({result['correction']} correction, {level})"
            )
        click.echo(
            f"test: {result['statistic']} > {_fmt(result['threshold'])} "
            f"(log-likelihood ratio {_fmt(result['threshold_llr'])}); "
            f"FPR = {result['fpr']:.3g} (<= {result['fpr_upper']:.3g}), "
            f"FNR = {result['fnr']:.3g} (<= {result['fnr_upper']:.3g})"
        )
        for note in result["notes"]:
            click.echo(f"note: {note}")
    for message in result["warnings"]:
        click.echo(f"synthamp: warning: {message}", err=True)
