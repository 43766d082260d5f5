"""The test processes run as the README's test command intends (tests/conftest.py)."""

from __future__ import annotations

import numpy as np
import pytest


def test_blas_runs_one_thread_per_test_process():
    """One BLAS thread per pytest-xdist worker: -n auto already takes every core."""
    threadpoolctl = pytest.importorskip(
        "threadpoolctl", reason="threadpoolctl comes with scikit-learn, a dependency"
    )
    np.ones((64, 64)) @ np.ones((64, 64))  # load the BLAS
    blas = [pool for pool in threadpoolctl.threadpool_info() if pool["user_api"] == "blas"]
    assert blas, "numpy's BLAS is not visible to threadpoolctl"
    assert all(pool["num_threads"] == 1 for pool in blas), blas


def test_the_header_reports_the_versions(pytestconfig):
    headers = pytestconfig.hook.pytest_report_header(
        config=pytestconfig, start_path=pytestconfig.rootpath
    )
    lines = [
        line for header in headers for line in ([header] if isinstance(header, str) else header)
    ]
    (versions,) = [line for line in lines if line.startswith("versions: ")]
    (chromium,) = [line for line in lines if line.startswith("chromium: ")]
    for name in ("numpy", "scipy", "pandas", "pyarrow", "dask"):
        assert f"{name} " in versions
    assert chromium.startswith("chromium: ")
