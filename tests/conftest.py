"""Fixtures shared by several test folders, and the settings of every test process.

BLAS threads are pinned to one per process before numpy is first imported here:
``python -m pytest -n auto`` runs one worker per core, and a worker that also
starts a BLAS thread per core would oversubscribe the machine (and make the
engine's summation order depend on the thread count). The pytest header lists
the versions the suite ran with.
"""

from __future__ import annotations

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_variable] = "1"

import pytest  # noqa: E402  (after the BLAS settings)
from hypothesis import settings  # noqa: E402

# Property tests draw the same examples on every run (derandomize: a seed fixed by each
# test's source) and keep no example database (a .hypothesis folder in the checkout made a
# run replay what earlier runs found): a run's verdict does not depend on the runs before it.
# HYPOTHESIS_PROFILE=explore draws fresh examples (for hunting, not for CI).
settings.register_profile("synthamp", derandomize=True, database=None)
settings.register_profile("explore", database=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "synthamp"))

from synthamp.cli import main  # noqa: E402

#: The packages whose versions the pytest header reports.
REPORTED_PACKAGES = (
    "numpy", "scipy", "mpmath", "pandas", "pyarrow", "dask", "distributed", "matplotlib",
    "scikit-learn", "dp-accounting", "prv-accountant",
)  # fmt: skip


def pytest_report_header(config) -> list[str]:
    """The versions of the numerical stack and of Chromium (the HTML report's browser test)."""
    import shutil
    import subprocess
    from importlib import metadata

    versions = []
    for name in REPORTED_PACKAGES:
        try:
            versions.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name} (not installed)")
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    chromium = "not installed"
    if browser:
        try:
            done = subprocess.run(
                [browser, "--version"], capture_output=True, text=True, timeout=20, check=False
            )
            chromium = done.stdout.strip() or "unknown version"
        except (OSError, subprocess.TimeoutExpired):
            chromium = "did not answer --version"
    return ["versions: " + ", ".join(versions), f"chromium: {chromium}"]


@pytest.fixture(autouse=True)
def _fresh_engine_memo():
    """Each test starts with the finite engine's memo empty (divergence/_memo.py): a result
    remembered from another test (whose order depends on the xdist worker) must not decide
    a test that patches the engine or spends a time budget."""
    from synthamp.divergence._finite import finite_scaled

    finite_scaled.cache_clear()
    yield


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A fresh working folder holding the private table ``data.csv`` (tests/release_cases.py)."""
    from release_cases import private_frame

    monkeypatch.chdir(tmp_path)
    private_frame().to_csv("data.csv", index=False)
    return tmp_path


@pytest.fixture(scope="session")
def out_dir(tmp_path_factory):
    """Run ``synthamp figures --out DIR --quick`` once for the whole session.

    Shared by the figures' claims (tests/figures/) and the command's own tests
    (tests/cli/test_cli_figures.py), so the quick figures are computed once: both
    modules are in the xdist group ``figures`` (``--dist loadgroup`` runs a group on
    one worker).
    """
    path = tmp_path_factory.mktemp("figures")
    assert main(["figures", "--out", str(path), "--quick", "--no-progress"]) == 0
    return path
