"""What ``synthamp release`` and ``synthamp demo`` write and print about a release.

The privacy report in its three forms (JSON, Markdown, the self-contained HTML
page), the optional audit of the release (from its public parameters only),
the one JSON object of ``--json`` (docs/json.md) and the summary on the
terminal, which never shows a negative noise saving.
"""

from __future__ import annotations

from pathlib import Path

from synthamp._validation import printable
from synthamp.accountant import SyntheticDataRelease
from synthamp.report import render_html

__all__ = [
    "audit_json",
    "noise_text",
    "print_release_summary",
    "run_audit",
    "write_reports",
    "written_json",
]


def write_reports(privacy, paths, *, n_released: int, audit=None) -> None:
    """The privacy report as JSON, Markdown and a self-contained HTML page, into ``paths``.

    The paths are the transaction's temporary names (see
    :class:`synthamp.release._io.OutputTransaction`).
    """

    json_path, md_path, html_path = paths
    json_path.write_text(privacy.to_json(), encoding="utf-8")
    md_path.write_text(privacy.to_markdown(), encoding="utf-8")
    html = render_html(privacy, n_released=n_released, audit=audit)
    html_path.write_text(html, encoding="utf-8")


def run_audit(privacy, trials: int, seed: int | None, no_progress: bool):
    """Audit the release described by the report (public numbers only; docs/theory.md §12)."""
    from rich.console import Console  # rich: heavy, on use only

    from synthamp.audit import audit_release  # loads scipy: heavy, on use only

    release = SyntheticDataRelease(
        privacy.dim,
        privacy.out_dim,
        privacy.norm_bound,
        privacy.sensitivity,
        privacy.sigma,
        n_syn=privacy.n_syn,
    )
    with Console(stderr=True, quiet=no_progress).status(f"auditing ({trials:,} trials)"):
        return audit_release(
            release,
            privacy.delta,
            trials=trials,
            random_state=seed,
            epsilon_upper=privacy.epsilon,
        )


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
        f"{privacy.accounting_method} accounting ({privacy.accounting_kind}), "
        f"{privacy.accountant} accountant; " + noise_text(privacy)
    )
    if privacy.guarantee is not None:  # the two numbers weighed, each named
        for name, value, meaning in privacy.epsilons_by_accounting():
            if value is not None:
                console.print(f"  ε ({name}) = {value:.6g}: {meaning}")
    if not privacy.noise_secret:
        console.print("[bold yellow]warning:[/] seeded run: the noise is not secret")
    for note in privacy.notes:
        console.print(f"[yellow]note:[/] {note}")
    for line in (privacy.accounting_note, privacy.amplification):
        if line:
            console.print(f"note: {line}")
    if privacy.utility_verdict:  # the report's sentence, worded once (synthamp.utility)
        console.print(escape(privacy.utility_verdict))
    console.print("report: " + ", ".join(shown(p) for p in report_paths))
