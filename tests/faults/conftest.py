"""Fixtures of the fault matrix: a working folder with a private table, and a guard that
fails the test if the release reaches its work (the table or the accountant) before a
check that must come first."""

from __future__ import annotations

import pytest

from release_cases import private_frame
from synthamp import generator, tabular


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    private_frame().to_csv("data.csv", index=False)
    return tmp_path


@pytest.fixture
def no_work(monkeypatch):
    """Fail if the table is read or the accountant reached: the checks must come first."""

    def fail(*args, **kwargs):
        raise AssertionError("work started before the checks")

    monkeypatch.setattr(generator, "_account", fail)
    monkeypatch.setattr(tabular, "read_table", fail)
