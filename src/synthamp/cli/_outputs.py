"""What ``synthamp release`` and ``synthamp demo`` print about a release.

The one JSON object of ``--json`` (docs/json.md) and the summary on the terminal,
which never shows a negative noise saving; the library
(:func:`synthamp.jobs.release_table`, :func:`synthamp.jobs.run_demo`) has
written the records and the reports.
"""

from __future__ import annotations

from pathlib import Path

import click

from synthamp._validation import printable
from synthamp.cli._common import echo_json
from synthamp.jobs import SEEDED_WARNING

__all__ = [
    "audit_json",
    "noise_text",
    "print_release_summary",
    "show_demo",
    "show_release",
    "written_json",
]


def audit_json(audit) -> dict:
    return {
        "epsilon_lower": audit.epsilon_lower,
        "epsilon_upper": audit.epsilon_upper,
        "epsilon_pair": audit.epsilon_pair,
        "confidence": audit.confidence,
        "trials": audit.trials,
        "consistent": audit.consistent,
    }


def written_json(privacy, rows: int, out_path: Path, report_paths, **extra) -> dict:
    """What release and demo print with --json: the files written and the report."""
    json_path, md_path, html_path = report_paths
    return {
        "written": {
            "synthetic": str(out_path),
            "report_json": str(json_path),
            "report_markdown": str(md_path),
            "report_html": str(html_path),
        },
        "records": rows,
        "privacy": privacy.to_dict(),
        **extra,
    }


def _accounting(privacy) -> str:
    """ "exact accounting", or "global accounting, certified": each kind named once."""
    method, kind = privacy.accounting_method, privacy.accounting_kind
    return f"{method} accounting" if method == kind else f"{method} accounting, {kind}"


def noise_text(privacy) -> str:
    """The noise comparison, never a negative saving."""
    if privacy.sigma > privacy.sigma_post_processing:
        return (
            f"σ = {privacy.sigma:.4g} vs {privacy.sigma_post_processing:.4g} for post-processing "
            f"(no noise saved: {privacy.accounting_method} accounting needs more noise here; "
            "--accounting exact takes the smaller)"
        )
    return (
        f"σ = {privacy.sigma:.4g} vs {privacy.sigma_post_processing:.4g} for post-processing "
        f"({100 * privacy.noise_saved:.1f}% noise saved)"
    )


def print_release_summary(privacy, rows: int, out_path: Path, report_paths: tuple[Path, ...]):
    """The release's summary on the terminal."""
    from rich.console import Console  # rich: heavy, on use only
    from rich.markup import escape  # rich: heavy, on use only

    def shown(path) -> str:  # a file name is neither markup nor a terminal escape sequence
        return escape(printable(path))

    console = Console(highlight=False, soft_wrap=True)
    console.print(f"wrote {rows:,} synthetic records (k = {privacy.out_dim}) to {shown(out_path)}")
    console.print(
        f"guarantee: ({privacy.epsilon:.4g}, {privacy.delta:.3g})-DP, "
        f"{_accounting(privacy)}, "
        f"{privacy.accountant} accountant; " + noise_text(privacy)
    )
    if privacy.guarantee is not None:  # the two numbers weighed, each named
        for name, value, meaning in privacy.epsilons_by_accounting():
            if value is not None:
                console.print(f"  ε ({name}) = {value:.6g}: {meaning}")
    if not privacy.noise_secret:
        console.print(f"[bold yellow]warning:[/] {SEEDED_WARNING}. " + escape(privacy.seed_policy))
    for note in privacy.notes:
        console.print(f"[yellow]note:[/] {note}")
    for line in (privacy.accounting_note, privacy.amplification):
        if line:
            console.print(f"note: {line}")
    for line in privacy.utility_lines():  # the report's sentence and table (synthamp.utility)
        console.print(escape(line))
    console.print("report: " + ", ".join(shown(p) for p in report_paths))


def show_release(result, as_json: bool) -> None:
    """A :class:`~synthamp.jobs.TableRelease` as JSON (``--json``) or the summary."""
    if result.design_report is not None:  # a public design: its numbers and summary lines
        if as_json:
            json_path, md_path, html_path = result.reports
            written = {
                "synthetic": str(result.synthetic),
                "report_json": str(json_path),
                "report_markdown": str(md_path),
                "report_html": str(html_path),
            }
            design = result.design_report
            echo_json({"written": written, "records": result.records, "design": design})
            return
        for line in result.summary:
            click.echo(line)
        click.echo(f"wrote {result.records:,} records to {printable(result.synthetic)}")
        return
    privacy, audit = result.privacy, result.audit
    if as_json:
        extra = {} if audit is None else {"audit": audit_json(audit)}
        echo_json(written_json(privacy, result.records, result.synthetic, result.reports, **extra))
        return
    print_release_summary(privacy, result.records, result.synthetic, result.reports)
    if audit is not None:
        click.echo(
            f"audit: ε ≥ {audit.epsilon_lower:.4g} ({100 * audit.confidence:g}% confidence, "
            f"{audit.trials:,} trials per dataset) against the guaranteed "
            f"{audit.epsilon_upper:.4g}: {'consistent' if audit.consistent else 'INCONSISTENT'}"
        )


def show_demo(result, epsilon: float, as_json: bool) -> None:
    """A :class:`~synthamp.jobs.DemoRelease` as JSON (``--json``) or the summary."""
    privacy, n_syn, utility = result.privacy, result.records, result.utility
    if as_json:
        synthetic, *reports = result.paths
        utility = {**utility, "repeats": result.repeats}
        echo_json(written_json(privacy, n_syn, synthetic, reports, utility=utility))
        return
    from rich.console import Console  # rich: heavy, on use only
    from rich.markup import escape

    say = Console(highlight=False, soft_wrap=True).print
    say(
        f"[bold]synthamp demo[/]: diabetes data, m = {result.m} patients, d = {result.d} "
        "features, k = 1"
    )
    covered = "any number of" if result.unlimited else f"{n_syn:,}"
    say(
        f"guarantee: ({privacy.epsilon:.3g}, {privacy.delta:.3g})-DP for {covered} synthetic "
        f"records ({_accounting(privacy)}); "
        f"released {n_syn:,}"
    )
    saving = (
        "no noise saved"
        if privacy.sigma > privacy.sigma_post_processing
        else f"[bold]{100 * privacy.noise_saved:.0f}% less noise[/]"
    )
    say(
        f"noise: σ = {privacy.sigma:.4g} with {privacy.accounting_method} accounting vs "
        f"σ = {privacy.sigma_post_processing:.4g} with post-processing accounting: {saving}"
    )
    amplified, post, baseline = (utility[k] for k in ("amplified", "post_processing", "baseline"))
    say(
        "utility at the fitted model (simulated on the public data): the records carry "
        f"vᵀv = ‖v‖² (Proposition 4.1); its debiased estimate from {n_syn:,} records has median "
        f"relative error [bold]{amplified:.2f}[/] at the amplification-aware σ vs {post:.2f} at "
        f"the post-processing σ ({post / amplified:.1f}× smaller; {result.repeats} simulated "
        "releases)"
    )
    say(
        "baseline: the Gaussian mechanism on ‖v‖² itself (Analyze Gauss, exact calibration at "
        f"the same (ε, δ)) has median relative error [bold]{baseline:.3g}[/] at the fitted model "
        "(simulated; the verdict below is for any model within the norm bound)"
    )
    if amplified > 1:
        say(
            f"  (errors above 1: at ε = {epsilon:g} the noise dominates a model fitted on "
            f"{result.m} records; see docs/mechanism.md for what the data can be used for)"
        )
    say("utility for any model within the norm bound (the report's bounds, every baseline):")
    for line in privacy.utility_lines():
        say("  " + escape(line))
    if privacy.accounting_note:
        say(f"note: {privacy.accounting_note}")
    if not privacy.noise_secret:
        say(f"[bold yellow]warning:[/] {SEEDED_WARNING}. " + escape(privacy.seed_policy))
    say("wrote " + ", ".join(escape(printable(p)) for p in result.paths))
