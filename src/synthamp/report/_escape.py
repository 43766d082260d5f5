"""Text from outside (column names, paths) made safe for each format the reports are written in.

A column name or an output path is the user's text: in a report it must show as
that text, never as markup, a table-cell break, a script or a terminal escape
sequence. One function per format:

- :func:`markdown_text`: control characters escaped (``\\x0a``, ``\\x1b``: a line
  break cannot end a table row or start a heading), ``&``, ``<`` and ``>`` as HTML
  entities (Markdown renderers pass inline HTML through: ``<script>`` would run), and
  the characters Markdown reads inline (emphasis, code, links, table cells) escaped
  with a backslash;
- :func:`html_text`: control characters escaped, then :func:`html.escape` (quotes
  too: safe in an attribute);
- terminal lines use :func:`synthamp._validation.printable` (control and format
  characters escaped, so no escape sequence reaches a terminal).
"""

from __future__ import annotations

import html

from synthamp._validation import printable

__all__ = ["html_text", "markdown_text"]

#: Characters that Markdown reads inline: backslash, code, emphasis, links, table cells,
#: strike-through, maths.
MARKDOWN_SPECIAL = frozenset("\\`*_[]()|~$!#")

#: HTML's own special characters, written as entities in Markdown as in HTML.
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def markdown_text(text) -> str:
    """``text`` shown as itself in Markdown, also inside a table cell (see the module doc)."""
    out = []
    for char in printable(text):
        if char in _ENTITIES:
            out.append(_ENTITIES[char])
        elif char in MARKDOWN_SPECIAL:
            out.append("\\" + char)
        else:
            out.append(char)
    return "".join(out)


def html_text(text) -> str:
    """``text`` shown as itself in HTML, in an element or an attribute (see the module doc)."""
    return html.escape(printable(text), quote=True)
