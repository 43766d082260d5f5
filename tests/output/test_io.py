"""synthamp._output._io: output-path checks and atomic writes (no half-written file, ever)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from synthamp import InputError
from synthamp._output._io import (
    TEMP_TAG,
    atomic_path,
    atomic_write_text,
    atomic_write_with,
    check_writable,
)


def _leftovers(directory):
    return sorted(p.name for p in directory.iterdir() if TEMP_TAG in p.name)


def test_check_writable_accepts_a_new_file_and_returns_its_path(tmp_path):
    target = tmp_path / "out.txt"
    assert check_writable(str(target), force=False) == target


@pytest.mark.parametrize("force", [False, True])
def test_check_writable_refuses_clobbering_and_directories(tmp_path, force):
    existing = tmp_path / "old.txt"
    existing.write_text("keep", encoding="utf-8")
    if force:
        assert check_writable(existing, force=True) == existing
        with pytest.raises(InputError, match="is a directory") as info:
            check_writable(tmp_path, force=True, param="report")
        assert info.value.param == "report"
    else:
        with pytest.raises(InputError, match="--force") as info:
            check_writable(existing, force=False)
        assert info.value.param == "out"
    assert existing.read_text(encoding="utf-8") == "keep"


def test_check_writable_refuses_a_missing_parent(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        check_writable(tmp_path / "missing" / "out.txt", force=False)
    assert not (tmp_path / "missing").exists()


def test_atomic_write_text_writes_utf8_and_replaces(tmp_path):
    target = tmp_path / "a.md"
    target.write_text("old", encoding="utf-8")
    atomic_write_text(target, "ε ≤ 1\n")
    assert target.read_bytes() == "ε ≤ 1\n".encode()
    assert _leftovers(tmp_path) == []


def test_atomic_file_has_the_permissions_of_a_plain_open(tmp_path):
    umask = os.umask(0o022)
    try:
        atomic_write_text(tmp_path / "a.txt", "x")
        (tmp_path / "b.txt").write_text("x", encoding="utf-8")
    finally:
        os.umask(umask)
    mode = (tmp_path / "a.txt").stat().st_mode & 0o777
    assert mode == (tmp_path / "b.txt").stat().st_mode & 0o777 == 0o644


def test_a_failing_writer_leaves_the_destination_untouched(tmp_path):
    target = tmp_path / "table.csv"
    target.write_text("previous", encoding="utf-8")

    def writer(tmp):
        tmp.write_text("half", encoding="utf-8")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        atomic_write_with(target, writer)
    assert target.read_text(encoding="utf-8") == "previous"
    assert _leftovers(tmp_path) == []


def test_an_interrupt_inside_atomic_path_removes_the_temporary_file(tmp_path):
    target = tmp_path / "new.bin"
    with pytest.raises(KeyboardInterrupt), atomic_path(target) as tmp:
        tmp.write_bytes(b"partial")
        assert tmp.parent == tmp_path and tmp.exists()
        raise KeyboardInterrupt
    assert not target.exists()
    assert list(tmp_path.iterdir()) == []


def test_sigterm_while_writing_leaves_nothing(tmp_path):
    # a real signal in a child process: the handler raises, atomic_path cleans up
    code = textwrap.dedent(
        f"""
        import signal, sys, time
        from synthamp._output._io import atomic_path

        def stop(signum, frame):
            raise SystemExit(3)

        signal.signal(signal.SIGTERM, stop)
        with atomic_path({str(tmp_path / "out.csv")!r}) as tmp:
            tmp.write_text("partial")
            print("writing", flush=True)
            time.sleep(30)
        """
    )
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "writing"
        child.send_signal(signal.SIGTERM)
        assert child.wait(timeout=20) == 3
    finally:
        child.kill()
        child.wait()
    assert list(tmp_path.iterdir()) == []
