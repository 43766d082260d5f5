"""The privacy report of a release, for the data holder and the privacy officer.

:class:`PrivacyReport` holds the public numbers of one release (the guarantee,
the noise, the utility beside the baseline) and renders them as JSON and
Markdown; :func:`render_html` renders the same report as one self-contained
HTML page with inline SVG plots and a plain-language glossary. The report
renders what it is given (docs/theory.md §13–§16).

``import synthamp.report`` is light: the names below are loaded on first use.

.. currentmodule:: synthamp.report

.. autosummary::
   :toctree: generated/

   PrivacyReport      -- the report of one release (JSON, Markdown), whatever its kind
   build_report       -- the report of a release from its typed result
   write_report       -- the report as JSON, Markdown and HTML
   render_html        -- the report as one self-contained HTML page
   markdown_text      -- a name or path shown as itself in Markdown
   html_text          -- a name or path shown as itself in HTML

The typed result a release hands :func:`build_report`: ``ReleaseResult`` (what was
accounted: the public numbers and the guarantee room's decision), ``DesignFacts`` (a public
design's), ``FeatureScaling`` (how a generator's features were scaled), ``WrittenRecords``
(what a job wrote).

Constants: ``SCHEMA_VERSION`` (the version of every JSON synthamp writes),
``ADJACENCY`` (the neighbouring relation every guarantee refers to), ``DESIGN_ADJACENCY``
(that of a release on a public design), ``PUBLIC_INPUTS`` and ``protected_columns`` (what
such a release protects), ``seed_policy`` and ``SEEDED_WARNING`` (where the noise came
from), ``GLOSSARY`` (the plain-language glossary of the HTML page).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from synthamp._lazy import lazy_attributes

if TYPE_CHECKING:  # loaded on first use, see __getattr__
    from synthamp.report._build import build_report
    from synthamp.report._escape import html_text, markdown_text
    from synthamp.report._glossary import GLOSSARY
    from synthamp.report._html import render_html
    from synthamp.report._privacy import (
        ADJACENCY,
        DESIGN_ADJACENCY,
        PUBLIC_INPUTS,
        REPORT_SCHEMA,
        SCHEMA_VERSION,
        SEEDED_WARNING,
        PrivacyReport,
        protected_columns,
        seed_policy,
        utility_table_cells,
        utility_text,
    )
    from synthamp.report._result import (
        DesignFacts,
        FeatureScaling,
        ReleaseResult,
        WrittenRecords,
    )
    from synthamp.report._write import write_report

_SOURCES: dict[str, str] = {
    "GLOSSARY": "synthamp.report._glossary",
    "html_text": "synthamp.report._escape",
    "markdown_text": "synthamp.report._escape",
    "render_html": "synthamp.report._html",
    "build_report": "synthamp.report._build",
    "write_report": "synthamp.report._write",
    **dict.fromkeys(
        ["DesignFacts", "FeatureScaling", "ReleaseResult", "WrittenRecords"],
        "synthamp.report._result",
    ),
    **dict.fromkeys(
        [
            "ADJACENCY",
            "DESIGN_ADJACENCY",
            "PUBLIC_INPUTS",
            "REPORT_SCHEMA",
            "SCHEMA_VERSION",
            "SEEDED_WARNING",
            "PrivacyReport",
            "protected_columns",
            "seed_policy",
            "utility_table_cells",
            "utility_text",
        ],
        "synthamp.report._privacy",
    ),
}

__all__ = [
    "ADJACENCY",
    "DESIGN_ADJACENCY",
    "GLOSSARY",
    "PUBLIC_INPUTS",
    "REPORT_SCHEMA",
    "SCHEMA_VERSION",
    "SEEDED_WARNING",
    "DesignFacts",
    "FeatureScaling",
    "PrivacyReport",
    "ReleaseResult",
    "WrittenRecords",
    "build_report",
    "html_text",
    "markdown_text",
    "protected_columns",
    "render_html",
    "seed_policy",
    "utility_table_cells",
    "utility_text",
    "write_report",
]

__getattr__, __dir__ = lazy_attributes(__name__, _SOURCES, public=__all__)
