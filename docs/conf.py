"""Sphinx configuration of the synthamp documentation site.

Build: ``python -m sphinx -W -b html docs docs/_build/html`` (``pip install '.[docs]'``).
The guides are the Markdown files of this directory (MyST); the API reference
is generated from the numpydoc docstrings (autodoc + napoleon); the gallery is
generated from ``figures/index.md`` (the index ``synthamp figures`` writes), so
it cannot drift from the figures.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

import synthamp  # noqa: E402

project = "synthamp"
author = "synthamp developers"
copyright = "2026, synthamp developers"
release = version = synthamp.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "figures/index.md", "**/.ipynb_checkpoints"]
myst_heading_anchors = 3
# The guides link to files of the repository outside docs/ (the README, the sources):
# fine on GitHub, not pages of this site.
# Some benchmark pages start at a level-2 heading (they are sections of benchmarks.md).
suppress_warnings = ["myst.xref_missing", "myst.header"]

napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
napoleon_use_ivar = True  # "Attributes" as fields: dataclass fields are documented once
autosummary_generate = False
autodoc_member_order = "bysource"
autodoc_typehints = "none"  # the numpydoc sections give the types
autodoc_default_options = {"members": True, "undoc-members": False}

html_theme = "alabaster"
html_title = f"synthamp {release}"
html_static_path: list[str] = []

_FIGURE = re.compile(
    r"^- \[(?P<png>[^\]]+\.png)\]\([^)]*\) \(\[csv\]\((?P<csv>[^)]*)\)\): (?P<text>.*)$"
)


def _gallery(app, docname, source):
    """Fill ``gallery.md`` with every figure of ``figures/index.md`` and its caption."""
    if docname != "gallery":
        return
    lines = [source[0].rstrip(), ""]
    for line in (HERE / "figures" / "index.md").read_text(encoding="utf-8").splitlines():
        match = _FIGURE.match(line)
        if match:
            png, csv, text = match["png"], match["csv"], match["text"]
            title = text.split(":")[0]
            lines += [
                f"## {title}",
                "",
                f"```{{figure}} figures/{png}",
                f":alt: {title}",
                ":width: 100%",
                "",
                f"{text} Data: {{download}}`figures/{csv}`.",
                "```",
                "",
            ]
    source[0] = "\n".join(lines)


#: |x| in a docstring is an absolute value, not a reStructuredText substitution.
_ABSOLUTE = re.compile(r"(?<![`\\])\|([^|`\s](?:[^|`]*[^|`\s])?)\|")


#: ":ivar a_, b_: text" (numpydoc "a_, b_ : type" under Attributes): one field per name.
_SHARED_FIELD = re.compile(r"^(\s*):(ivar|vartype) ([^:]+,[^:]+): (.*)$")


def _docstring(app, what, name, obj, options, lines):
    """Docstrings are written for the terminal first: |a − b| is a modulus, attributes that
    share a description are listed together, and the package faces' autosummary tables link
    to the reference on this page (no generated stubs)."""
    out = []
    for line in lines:
        if line.strip().startswith(":toctree:"):
            continue
        match = _SHARED_FIELD.match(line)
        if match:
            indent, field, names, text = match.groups()
            out += [f"{indent}:{field} {n.strip()}: {text}" for n in names.split(",")]
            continue
        out.append(_ABSOLUTE.sub(r"\\|\1\\|", line))
    lines[:] = out


def setup(app):
    app.connect("source-read", _gallery)
    app.connect("autodoc-process-docstring", _docstring)
