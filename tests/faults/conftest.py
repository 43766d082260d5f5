"""Fixtures of the fault matrix: a guard that fails the test if the release reaches its
work (the table or the accountant) before a check that must come first (``workdir``, the
working folder with a private table, is in tests/conftest.py)."""

from __future__ import annotations

import pytest

from synthamp.release import _generator as generator
from synthamp.release import _table_chunks as table_chunks
from synthamp.release import _tabular as tabular


@pytest.fixture
def no_work(monkeypatch):
    """Fail if the table is read or the accountant reached: the checks must come first."""

    def fail(*args, **kwargs):
        raise AssertionError("work started before the checks")

    monkeypatch.setattr(generator, "_account", fail)
    monkeypatch.setattr(tabular, "read_table", fail)
    monkeypatch.setattr(table_chunks, "iter_table_chunks", fail)  # the generator's reader
