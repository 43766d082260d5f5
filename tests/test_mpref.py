"""tests/mpref.py is the independent reference: it never imports synthamp."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

MPREF = Path(__file__).with_name("mpref.py")


def _imported_modules(source: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add("." * node.level + (node.module or ""))
    return names


def test_mpref_imports_no_synthamp_code_anywhere():
    # every import statement, also inside functions; no relative import either
    imported = _imported_modules(MPREF.read_text(encoding="utf-8"))
    assert imported, "no import found: the parser does not see the module"
    assert not [n for n in imported if n.split(".")[0] == "synthamp" or n.startswith(".")]
    assert {"mpmath", "numpy"} <= imported


def test_the_import_check_can_fail():
    source = "import math\ndef f():\n    from synthamp.divergence import renyi_plateau\n"
    assert "synthamp.divergence" in _imported_modules(source)


def test_importing_mpref_loads_no_synthamp():
    code = "import sys, mpref; print(sorted(m for m in sys.modules if m.startswith('synthamp')))"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=MPREF.parent, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


def test_mpref_says_it_is_the_independent_reference():
    doc = ast.get_docstring(ast.parse(MPREF.read_text(encoding="utf-8")))
    assert doc.startswith("The independent mpmath reference of the tests")
