"""The release journal: the lock per destination, the journal, roll-forward, dataset removal."""

from __future__ import annotations

import json
import os

import pytest

from synthamp._output import _io as _io
from synthamp._output import _journal as _journal
from synthamp._validation import InputError


def test_a_lock_is_exclusive_and_leaves_no_file(tmp_path):
    target = tmp_path / "a.csv"
    lock = _journal.acquire_lock(target, "out")
    assert (tmp_path / ".a.csv.synthamp-lock").read_text().strip() == str(os.getpid())
    with pytest.raises(InputError, match="another synthamp run") as info:
        _journal.acquire_lock(target, "report")
    assert info.value.param == "report"
    lock.release()
    lock.release()  # idempotent
    assert list(tmp_path.iterdir()) == []
    _journal.acquire_lock(target, "out").release()  # free again


def _entry(tmp_path, name, *, backup=True, directory=False):
    final, temp = tmp_path / name, tmp_path / f".{name}.synthamp-tmp-4194303-aa"
    old = tmp_path / f".{name}.synthamp-tmp-4194303-aa.old"
    return {
        "final": str(final), "temp": str(temp), "backup": str(old) if backup else None,
        "directory": directory, "mode": 0o640,
    }  # fmt: skip


def test_roll_forward_publishes_then_removes_the_old_version_and_is_idempotent(tmp_path):
    entry = _entry(tmp_path, "t.csv")
    (tmp_path / ".t.csv.synthamp-tmp-4194303-aa").write_text("new")
    (tmp_path / ".t.csv.synthamp-tmp-4194303-aa.old").write_text(
        "old"
    )  # moved aside, not published
    assert _journal.roll_forward(entry) == "published"
    assert (tmp_path / "t.csv").read_text() == "new"
    assert os.stat(tmp_path / "t.csv").st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv"]
    assert _journal.roll_forward(entry) == "already complete"  # a second recovery: no change
    assert (tmp_path / "t.csv").read_text() == "new"


def test_roll_forward_never_deletes_the_only_copy(tmp_path):
    entry = _entry(tmp_path, "t.csv")  # the temporary copy is gone, the old one moved aside
    (tmp_path / ".t.csv.synthamp-tmp-4194303-aa.old").write_text("old")
    assert _journal.roll_forward(entry) == "restored the previous version"
    assert (tmp_path / "t.csv").read_text() == "old"


def test_recover_completes_every_output_of_a_journal_and_removes_its_copies(tmp_path):
    entries = [_entry(tmp_path, "t.csv", backup=False), _entry(tmp_path, "t.json", backup=False)]
    for entry in entries:
        with open(entry["temp"], "w") as handle:
            handle.write("new")
    journals = _journal.write_journals(entries)
    assert len(journals) == 2 and json.loads(journals[0].read_text())["outputs"] == entries
    # A run writing t.csv only: the journal names t.json too, which it does not own.
    lock = _journal.acquire_lock(tmp_path / "t.csv", "out")
    try:
        (line,) = _journal.recover(tmp_path / "t.csv")
    finally:
        lock.release()
    assert line.startswith("ignored ") and "which this run does not write" in line
    assert all(os.path.exists(entry["temp"]) for entry in entries)  # untouched
    with _io.OutputTransaction() as tx:  # nor removed as stale: their run is dead (a pid
        tx.lock([(tmp_path / "t.csv", "out")])  # above pid_max), but a journal names them
    assert all(os.path.exists(entry["temp"]) for entry in entries)
    # The same outputs again: the commit is completed, every copy of the journal removed.
    locks = [_journal.acquire_lock(tmp_path / name, "out") for name in ("t.csv", "t.json")]
    try:
        lines = _journal.recover(tmp_path / "t.csv", tmp_path / "t.json")
    finally:
        for lock in locks:
            lock.release()
    assert len(lines) == 2 and all("published" in line for line in lines)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv", "t.json"]


def test_remove_dataset_deletes_only_what_its_manifest_lists(tmp_path):
    folder = tmp_path / "ds"
    folder.mkdir()
    for name in ("part.0.parquet", "part.1.parquet", "notes.txt"):
        (folder / name).write_text(name)
    manifest = {"format": "synthamp-dataset", "files": [{"name": "part.0.parquet", "size": 14}]}
    (folder / _journal.MANIFEST_NAME).write_text(json.dumps(manifest))
    assert sorted(_journal.remove_dataset(folder)) == ["notes.txt", "part.1.parquet"]
    assert sorted(p.name for p in folder.iterdir()) == ["notes.txt", "part.1.parquet"]
    (folder / "notes.txt").unlink()
    (folder / "part.1.parquet").unlink()
    assert _journal.remove_dataset(folder) == [] and not folder.exists()


def test_a_file_system_without_flock_still_writes(tmp_path, monkeypatch):
    """flock unsupported (ENOLCK, some network mounts): no lock, no recovery, still a commit."""
    import errno

    from synthamp._output import _io as _io

    def no_flock(fd, operation):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(_journal.fcntl, "flock", no_flock)
    lock = _journal.acquire_lock(tmp_path / "a.txt", "out")
    assert not lock.held
    lock.release()
    _io.atomic_write_text(tmp_path / "a.txt", "x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]


def test_a_full_disk_while_locking_leaves_no_lock_and_names_the_output(tmp_path, monkeypatch):
    """4c93a73: the pid's write failed with a bare OSError and the lock file stayed."""
    import errno

    def full(fd, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(_journal.os, "write", full)
    with pytest.raises(InputError) as info:
        _journal.acquire_lock(tmp_path / "a.csv", "out")
    assert info.value.param == "out" and str(tmp_path / "a.csv") in info.value.rule
    assert "No space left on device" in info.value.rule
    assert list(tmp_path.iterdir()) == []


def test_a_full_disk_while_journaling_leaves_no_part_file(tmp_path, monkeypatch):
    """4c93a73: the journal being written when fsync failed stayed as ``….part``."""
    import errno

    from synthamp._output import _io as _io

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    with _io.OutputTransaction() as tx:
        tx.add(tmp_path / "a.csv", param="out").write_text("new")
        monkeypatch.setattr(_journal.os, "fsync", full)
        with pytest.raises(InputError) as info:
            tx.commit()
    assert info.value.param == "out" and str(tmp_path / "a.csv") in info.value.rule
    assert list(tmp_path.iterdir()) == []


def test_a_dataset_removal_killed_half_way_is_finished_by_the_next(tmp_path, monkeypatch):
    """The manifest goes last: parts are never orphaned without it (4c93a73: in listing order)."""
    folder = tmp_path / "ds"
    folder.mkdir()
    names = [f"part.{i}.parquet" for i in range(3)]
    for name in names:
        (folder / name).write_text(name)
    files = [{"name": name, "size": len(name)} for name in names]
    manifest = {"format": "synthamp-dataset", "files": files}
    (folder / _journal.MANIFEST_NAME).write_text(json.dumps(manifest))
    real, removed = os.unlink, []

    def killed_after_one(path, *args, **kwargs):
        if removed:
            raise KeyboardInterrupt  # the removal stops after its first unlink
        removed.append(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os, "unlink", killed_after_one)
    with pytest.raises(KeyboardInterrupt):
        _journal.remove_dataset(folder)
    monkeypatch.setattr(os, "unlink", real)
    assert removed != [_journal.MANIFEST_NAME] and (folder / _journal.MANIFEST_NAME).exists()
    assert _journal.remove_dataset(folder) == [] and not folder.exists()


def test_a_signal_as_the_clean_up_begins_still_leaves_nothing(tmp_path, monkeypatch):
    """A second interrupt striking as the clean-up opens its held block: it runs again.

    Found by the random fault driver (1 case in 600): the lock files and temporaries
    of all four outputs were left after SIGTERM twice, 2 ms apart.
    """
    from synthamp._output import _io as _io

    real, calls = _io.signals_held, []

    def interrupted_once():
        calls.append(1)
        if len(calls) == 1:  # the clean-up's block
            raise KeyboardInterrupt  # the second Ctrl-C, as the block opens
        return real()

    with pytest.raises(KeyboardInterrupt), _io.OutputTransaction() as tx:
        tx.add(tmp_path / "a.csv", param="out").write_text("half")
        monkeypatch.setattr(_io, "signals_held", interrupted_once)
        raise KeyboardInterrupt  # the first Ctrl-C, while writing
    assert len(calls) == 2 and list(tmp_path.iterdir()) == []
