"""Fixtures shared by several test folders."""

from __future__ import annotations

import pytest

from synthamp.cli import main


@pytest.fixture(scope="session")
def out_dir(tmp_path_factory):
    """Run ``synthamp figures --out DIR --quick`` once for the whole session.

    Shared by the figures' claims (tests/figures/) and the command's own tests
    (tests/cli/test_cli_figures.py), so the quick figures are computed once.
    """
    path = tmp_path_factory.mktemp("figures")
    assert main(["figures", "--out", str(path), "--quick", "--no-progress"]) == 0
    return path
