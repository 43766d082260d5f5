"""The privacy report of a release written beside its records: JSON, Markdown and HTML.

:func:`write_reports` writes a generator's :class:`~synthamp.report.PrivacyReport`
(with the optional audit on the HTML page); :func:`write_design_reports` writes the
public numbers of a release on a public design (docs/theory.md §19). Both write
into the temporary names of an :class:`~synthamp.release.OutputTransaction`. Every utility
number they write is for the records actually written (:func:`at_records_written`): an
unlimited release's report, accounted for n → ∞, states its utility at the n it wrote.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path

from synthamp.report import markdown_text, render_html
from synthamp.utility import release_utility

__all__ = ["at_records_written", "write_design_reports", "write_reports"]


def at_records_written(privacy, n_written: int):
    """The generator's report with its utility at the ``n_written`` records written.

    The guarantee is unchanged (an unlimited release covers any n); the records' Gram
    error, the synthesizers' rows and the verdict are recomputed by
    :func:`synthamp.utility.release_utility` at n = ``n_written`` from the report's public
    quantities (the n → ∞ value stays beside it in the table). A report already at that
    n is returned as it is.
    """
    table = privacy.utility_table
    if table and table[0].get("n_syn") == n_written:
        return privacy
    utility = release_utility(
        epsilon=privacy.epsilon,
        delta=privacy.delta,
        sigma=privacy.sigma,
        dim=privacy.dim,
        out_dim=privacy.out_dim,
        norm_bound=privacy.norm_bound,
        sensitivity=privacy.sensitivity,
        n_syn=n_written,
        label_bound=privacy.label_bound,
        n_records=privacy.n_records,
    )
    return dataclasses.replace(privacy, **utility)


def write_reports(privacy, paths: Sequence[Path], *, n_released: int, audit=None):
    """The privacy report as JSON, Markdown and a self-contained HTML page, into ``paths``.

    Parameters
    ----------
    privacy : PrivacyReport
        The generator's report (``privacy_``).
    paths : (Path, Path, Path)
        JSON, Markdown and HTML destinations (the transaction's temporary names, see
        :class:`synthamp._output._io.OutputTransaction`).
    n_released : int
        Records written.
    audit : AuditResult, optional
        Shown on the HTML page.

    Returns
    -------
    PrivacyReport
        The report written: its utility at the ``n_released`` records
        (:func:`at_records_written`).
    """
    privacy = at_records_written(privacy, n_released)
    json_path, md_path, html_path = paths
    json_path.write_text(privacy.to_json(), encoding="utf-8")
    md_path.write_text(privacy.to_markdown(), encoding="utf-8")
    page = render_html(privacy, n_released=n_released, audit=audit)
    html_path.write_text(page, encoding="utf-8")
    return privacy


def _markdown_value(value) -> str:
    """One value of the design's table as a Markdown cell: lists (the column names) as JSON,
    every character shown as itself (:func:`~synthamp.report.markdown_text`)."""
    text = json.dumps(value, ensure_ascii=False) if isinstance(value, list | dict) else str(value)
    return markdown_text(text)


def write_design_reports(numbers: dict, privacy, paths: Sequence[Path], *, n_released: int) -> None:
    """A design release's public numbers (JSON) and its privacy report (Markdown, HTML).

    ``numbers`` is :meth:`~synthamp.design.DesignRelease.to_dict` with the records
    written; ``privacy`` its :meth:`~synthamp.design.DesignRelease.privacy_report`,
    rendered as every release's report, the design's numbers appended to the Markdown.
    """
    json_path, md_path, html_path = paths
    json_path.write_text(json.dumps(numbers, indent=2), encoding="utf-8")
    rows = "\n".join(
        f"| {markdown_text(key)} | {_markdown_value(value)} |"
        for key, value in numbers.items()
        if key != "utility"
    )
    table = f"\n## The public design's numbers\n\n| field | value |\n|---|---|\n{rows}\n"
    md_path.write_text(privacy.to_markdown().rstrip() + "\n" + table, encoding="utf-8")
    html_path.write_text(render_html(privacy, n_released=n_released), encoding="utf-8")
