"""tests/mpref.py (and mpref_convolution.py) is the independent reference: it never imports
synthamp; its two finite-release references agree where both work."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import mpref_convolution
import references

MPREF = Path(__file__).with_name("mpref.py")
#: The references and the store of their values (references.py, data/make_references.py).
REFERENCE_MODULES = [
    MPREF,
    Path(__file__).with_name("mpref_convolution.py"),
    Path(__file__).with_name("mpref_matrix.py"),
    Path(__file__).with_name("mpref_design.py"),
    Path(__file__).with_name("mpref_loss.py"),
    Path(__file__).with_name("references.py"),
    Path(__file__).parent / "data" / "make_references.py",
]


def _imported_modules(source: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add("." * node.level + (node.module or ""))
    return names


@pytest.mark.parametrize("path", REFERENCE_MODULES, ids=lambda p: p.name)
def test_mpref_imports_no_synthamp_code_anywhere(path):
    # every import statement, also inside functions; no relative import either
    imported = _imported_modules(path.read_text(encoding="utf-8"))
    assert imported, "no import found: the parser does not see the module"
    assert not [n for n in imported if n.split(".")[0] == "synthamp" or n.startswith(".")]
    assert "mpmath" in imported  # the parser sees the imports


def test_the_import_check_can_fail():
    source = "import math\ndef f():\n    from synthamp.divergence import renyi_plateau\n"
    assert "synthamp.divergence" in _imported_modules(source)


def test_importing_mpref_loads_no_synthamp():
    code = (
        "import sys, mpref, mpref_convolution, references; "
        "print(sorted(m for m in sys.modules if m.startswith('synthamp')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=MPREF.parent, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


def test_mpref_says_it_is_the_independent_reference():
    doc = ast.get_docstring(ast.parse(MPREF.read_text(encoding="utf-8")))
    assert doc.startswith("The independent mpmath reference of the tests")


@pytest.mark.slow
@pytest.mark.skipif(not mpref_convolution.EXTENDED, reason="needs an 80-bit numpy.longdouble")
@pytest.mark.parametrize(("dim", "a", "b", "n_syn"), [(50, 4.0, 3.9, 100), (10, 6.0, 5.0, 1)])
def test_the_two_finite_references_agree(dim, a, b, n_syn):
    """The convolution reference (any amplitude) against the Poisson–K mixture (small a).

    Two representations of the law of S = Y·X (Chebyshev series of 40-digit
    Bessel values convolved with the density of log X, against the Poisson
    mixture of K-Bessel product densities): they agree within the sum of their
    error bounds, and each bound is below 1e-10 relative.
    """
    orders = [1.01, 2.0, 16.0]
    conv = references.renyi_finite_convolution(orders, dim, a, b, n_syn)
    mixture = references.renyi_finite(orders, dim, a, b, n_syn)
    diff = np.abs(conv.floats() - mixture.floats())
    assert np.all(diff <= conv.errors() + mixture.errors() + 1e-15 * mixture.floats())
    assert np.all(conv.errors() <= 1e-10 * conv.floats())
    assert np.all(diff <= 1e-13 * mixture.floats())
