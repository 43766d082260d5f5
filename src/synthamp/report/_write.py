"""The one writer of a release's report: JSON, Markdown and a self-contained HTML page.

Every release kind (the generator, a public design, a whole table) writes the same
:class:`~synthamp.report.PrivacyReport` (:func:`synthamp.report.build_report`) through
:func:`write_report`, into the temporary names of an output transaction
(:class:`synthamp._output._io.OutputTransaction`); the transaction publishes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from synthamp.report._html import render_html
from synthamp.report._privacy import PrivacyReport

__all__ = ["write_report"]


def write_report(report: PrivacyReport, paths: Sequence[Path], *, audit: Any = None) -> None:
    """The report as JSON, Markdown and HTML, into ``paths``.

    Parameters
    ----------
    report : PrivacyReport
        The release's report, built with the records written (``records``).
    paths : (Path, Path, Path)
        JSON, Markdown and HTML destinations.
    audit : AuditResult, optional
        Shown on the HTML page.
    """
    json_path, md_path, html_path = paths
    json_path.write_text(report.to_json(), encoding="utf-8")
    md_path.write_text(report.to_markdown(), encoding="utf-8")
    page = render_html(report, n_released=report.records, audit=audit)
    html_path.write_text(page, encoding="utf-8")
