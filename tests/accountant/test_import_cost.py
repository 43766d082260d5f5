"""What ``import synthamp.accountant`` loads (issue 23: ≤ 3× ``import numpy``).

Not a timing test: a fresh interpreter imports the face and lists ``sys.modules``.
scipy.special alone costs ~3× numpy to import (scipy's array-API layer loads
numpy.testing), so the face loads no scipy at all; scipy.stats, matplotlib and
pandas are heavier still. Each module loads on first use, inside the function that
needs it; the second test checks the check sees a use.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("scipy", "scipy.special", "scipy.stats", "scipy.optimize", "matplotlib", "pandas")


def _loaded_by(code: str) -> set[str]:
    program = f"import sys\n{code}\nprint(' '.join(sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    return set(out.stdout.split())


@pytest.mark.parametrize("face", ["synthamp.accountant", "synthamp.divergence", "synthamp.bounds"])
def test_face_loads_no_heavy_package(face):
    loaded = _loaded_by(f"import {face}")
    assert face in loaded
    assert "synthamp.accountant._calibration" in loaded or face != "synthamp.accountant"
    assert not set(HEAVY) & loaded, sorted(set(HEAVY) & loaded)


def test_first_use_loads_scipy_special():
    # the deferred import is real: one number from the accountant loads scipy.special
    loaded = _loaded_by(
        "from synthamp.accountant import gaussian_delta\nprint(gaussian_delta(1.0, 1.0))"
    )
    assert "scipy.special" in loaded
    assert not {"matplotlib", "pandas"} & loaded
