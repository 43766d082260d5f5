"""Journals, locks and temporaries planted by someone else are never trusted.

The issue's scenario: another user plants ``.syn.csv.synthamp-journal-1-0badf00d`` in a
shared output folder; the victim's ordinary ``synthamp release --out shared/syn.csv``
then (4c93a73) *moved* the victim's 0600 file into the shared folder as 0644,
*deleted* another and *chmod 04777*'d a third, following the journal's absolute paths
and applying its mode. Now a journal is trusted only if it is this user's regular
file of mode 0600 next to a destination of this run, naming only this run's
destinations and each one's own temporaries, whose files are this user's and of the
recorded inode; anything else is left untouched and said once. Each test below fails
on 4c93a73 (the planted journal was followed; the planted lock was used and removed;
the planted ``….old`` was put in place).

The second user is an unused uid (54321): files are given to it with ``os.chown``,
and the planting process runs as it (``os.setuid`` in a forked child), which needs
root (as in CI); elsewhere those tests are skipped, saying so.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from fault_cases import error_lines, hidden_leftovers

from release_cases import release_args, run

STRANGER = 54321
as_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="planting files as a second user needs root (chown, setuid)"
)

JOURNAL = ".syn.csv.synthamp-journal-1-0badf00d"


@pytest.fixture
def shared(workdir):
    """A shared output folder (everyone may write), and the victim's own files elsewhere."""
    folder = workdir / "shared"
    folder.mkdir()
    os.chmod(folder, 0o777)
    victim = workdir / "victim"
    victim.mkdir()
    for name in ("secret", "other", "third"):
        (victim / name).write_text(f"the victim's {name}")
        os.chmod(victim / name, 0o600)
    return folder


def _victim_state(workdir) -> dict:
    victim = workdir / "victim"
    return {p.name: (p.read_text(), stat.S_IMODE(p.lstat().st_mode)) for p in victim.iterdir()}


def _attack(workdir, folder) -> dict:
    """The issue's journal: move the secret in as 0644, delete 'other', chmod 04777 'third'."""
    victim = workdir / "victim"
    return {
        "format": "synthamp-journal",
        "version": 1,
        "outputs": [
            {"final": str(folder / "syn.csv"), "temp": str(victim / "secret"), "backup": None,
             "directory": False, "mode": 0o644},
            {"final": str(victim / "third"), "temp": str(folder / ".x.synthamp-tmp-1-aa"),
             "backup": str(victim / "other"), "directory": False, "mode": 0o4777},
        ],
    }  # fmt: skip


def _plant(path: Path, text: str, *, mode: int = 0o600, uid: int | None = None) -> None:
    path.write_text(text)
    os.chmod(path, mode)
    if uid is not None:
        os.chown(path, uid, uid)


def _plant_as_stranger(path: Path, text: str) -> None:
    """Create ``path`` (0600) from a process running as the second user."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)  # its parents are 0700
            os.setgid(STRANGER)
            os.setuid(STRANGER)
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
            fd = os.open(path.name, flags, 0o600, dir_fd=folder)
            os.write(fd, text.encode())
            os.close(fd)
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert path.stat().st_uid == STRANGER


def _release_into(folder, capsys):
    return run(capsys, release_args(**{"--out": str(folder / "syn.csv")}))


def _one_warning(err: str, what: str) -> str:
    warnings = [line for line in err.splitlines() if line.startswith("synthamp: warning:")]
    assert len(warnings) == 1 and what in warnings[0], err
    assert "left untouched" in warnings[0] or "not a temporary synthamp wrote" in warnings[0]
    return warnings[0]


@as_root
def test_the_issue_journal_planted_by_another_user_is_ignored(workdir, shared, capsys):
    before = _victim_state(workdir)
    _plant_as_stranger(shared / JOURNAL, json.dumps(_attack(workdir, shared)))
    code, _, err = _release_into(shared, capsys)
    assert code == 0, err  # the victim's release goes on
    _one_warning(err, f"owned by another user (uid {STRANGER})")
    assert _victim_state(workdir) == before  # not moved, not deleted, not chmod'ed
    assert (shared / JOURNAL).stat().st_uid == STRANGER  # never touched
    assert (shared / "syn.csv").read_text().startswith('"y1","y2"')  # the victim's own release
    assert not any(p.stat().st_mode & (stat.S_ISUID | stat.S_ISGID) for p in shared.iterdir())


@pytest.mark.parametrize(
    ("mode", "reason"),
    [(0o644, "of mode 0644, not 0600"), (0o4600, "of mode 4600, not 0600")],
)
def test_a_journal_of_this_user_with_another_mode_is_ignored(workdir, shared, capsys, mode, reason):
    before = _victim_state(workdir)
    _plant(shared / JOURNAL, json.dumps(_attack(workdir, shared)), mode=mode)
    code, _, err = _release_into(shared, capsys)
    assert code == 0, err
    _one_warning(err, reason)
    assert _victim_state(workdir) == before
    assert stat.S_IMODE((shared / JOURNAL).stat().st_mode) == mode


def test_a_journal_naming_paths_outside_the_folder_is_ignored(workdir, shared, capsys):
    """Ours and 0600 (say, planted through a copy): its paths still must be our temporaries."""
    before = _victim_state(workdir)
    _plant(shared / JOURNAL, json.dumps(_attack(workdir, shared)))
    code, _, err = _release_into(shared, capsys)
    assert code == 0, err
    _one_warning(err, "is not a temporary of syn.csv")
    assert _victim_state(workdir) == before


def _valid_journal(folder: Path, final: str, temp_name: str, **entry) -> dict:
    base = {
        "final": str(folder / final), "temp": str(folder / temp_name), "backup": None,
        "directory": False, "replace": True, "mode": 0o644, "temp_ino": None, "old_ino": None,
    }  # fmt: skip
    return {"format": "synthamp-journal", "version": 2, "outputs": [{**base, **entry}]}


def test_a_journal_naming_another_destination_is_ignored(workdir, shared, capsys):
    """A journal next to syn.csv that also names other.csv, which this run does not write."""
    (shared / ".other.csv.synthamp-tmp-1-aa").write_text("someone's")
    journal = _valid_journal(shared, "syn.csv", ".syn.csv.synthamp-tmp-1-bb")
    journal["outputs"] += _valid_journal(shared, "other.csv", ".other.csv.synthamp-tmp-1-aa")[
        "outputs"
    ]
    (shared / ".syn.csv.synthamp-tmp-1-bb").write_text("x")
    _plant(shared / JOURNAL, json.dumps(journal))
    code, _, err = _release_into(shared, capsys)
    assert code == 0, err
    _one_warning(err, "which this run does not write")
    assert not (shared / "other.csv").exists()
    assert (shared / ".other.csv.synthamp-tmp-1-aa").read_text() == "someone's"


def test_a_symlinked_temporary_is_never_followed(workdir, shared, capsys):
    """The journal is ours and well formed, but its temporary is a link to the victim's file."""
    before = _victim_state(workdir)
    temp = shared / ".syn.csv.synthamp-tmp-1-aa"
    temp.symlink_to(workdir / "victim" / "secret")
    _plant(shared / JOURNAL, json.dumps(_valid_journal(shared, "syn.csv", temp.name, mode=0o4777)))
    code, _, err = _release_into(shared, capsys)
    assert code == 0, err
    _one_warning(err, "a symbolic link")
    assert _victim_state(workdir) == before
    assert temp.is_symlink() and (shared / JOURNAL).exists()  # both untouched
    assert not (shared / "syn.csv").is_symlink()


def test_a_swapped_temporary_is_left_alone(workdir, shared, capsys):
    """The journal recorded one inode; another file now has the temporary's name."""
    temp = shared / ".syn.csv.synthamp-tmp-1-aa"
    temp.write_text("swapped in")
    recorded = temp.stat().st_ino + 1
    journal = _valid_journal(shared, "syn.csv", temp.name, temp_ino=recorded)
    _plant(shared / JOURNAL, json.dumps(journal))
    code, _, err = _release_into(shared, capsys)
    assert code == 0, err
    _one_warning(err, "not the file synthamp wrote there")
    assert temp.read_text() == "swapped in"


@as_root
def test_a_temporary_of_another_user_is_left_alone(workdir, shared, capsys):
    temp = shared / ".syn.csv.synthamp-tmp-1-aa"
    _plant(temp, "the stranger's", uid=STRANGER)
    _plant(shared / JOURNAL, json.dumps(_valid_journal(shared, "syn.csv", temp.name)))
    code, _, err = _release_into(shared, capsys)
    assert code == 0, err
    _one_warning(err, f"owned by another user (uid {STRANGER})")
    assert temp.read_text() == "the stranger's" and temp.stat().st_uid == STRANGER


@as_root
def test_a_lock_planted_by_another_user_is_not_used(workdir, shared, capsys):
    lock = shared / ".syn.csv.synthamp-lock"
    _plant_as_stranger(lock, "1\n")
    code, _, err = _release_into(shared, capsys)
    assert code == 2
    (line,) = error_lines(err)
    assert line.startswith("synthamp: error: --out: cannot lock") and "not synthamp's lock" in line
    assert lock.read_text() == "1\n" and lock.stat().st_uid == STRANGER
    assert not (shared / "syn.csv").exists()


def test_a_symlinked_lock_is_not_followed(workdir, shared, capsys):
    lock = shared / ".syn.csv.synthamp-lock"
    lock.symlink_to(workdir / "victim" / "secret")
    before = _victim_state(workdir)
    code, _, err = _release_into(shared, capsys)
    assert code == 2 and "a symbolic link" in error_lines(err)[0]
    assert _victim_state(workdir) == before and lock.is_symlink()


@as_root
def test_an_old_version_planted_by_another_user_is_not_put_in_place(workdir, shared, capsys):
    """A dead run's ``….old`` (pid above pid_max) that is not ours is never moved or deleted."""
    old = shared / ".syn.csv.synthamp-tmp-4194303-0123abcd.old"
    _plant(old, "the stranger's table", uid=STRANGER)
    code, _, err = _release_into(shared, capsys)
    assert code == 0, err
    _one_warning(err, "not a temporary synthamp wrote")
    assert old.read_text() == "the stranger's table"
    assert (shared / "syn.csv").read_text().startswith('"y1","y2"')


def test_a_killed_commit_is_published_without_setuid_bits(tmp_path):
    """Our own journal asks for 04777: the output gets 0777 & mode, never a setuid bit."""
    from synthamp._output import _io

    with _io.OutputTransaction(mode=0o4755 & 0o777) as tx:
        tx.add(tmp_path / "t.csv", param="out").write_text("new")
        entry = tx._journal_entry(tx._outputs[0], 0o4755)
    journal = tmp_path / ".t.csv.synthamp-journal-1-0badf00d"
    temp = Path(entry["temp"])
    temp.write_text("new")
    entry["temp_ino"] = temp.stat().st_ino
    _plant(journal, json.dumps({"format": "synthamp-journal", "version": 2, "outputs": [entry]}))
    with _io.OutputTransaction() as tx:
        tx.lock([(tmp_path / "t.csv", "out")])
        assert "published" in tx.recovered[0]
    assert stat.S_IMODE((tmp_path / "t.csv").stat().st_mode) == 0o755
    assert hidden_leftovers(tmp_path) == []


def test_a_temporary_swapped_for_a_link_before_the_commit_is_not_published(workdir, shared):
    """In a shared folder someone replaces the run's temporary by a link: refused, untouched."""
    from synthamp._output import _io
    from synthamp._validation import InputError

    before = _victim_state(workdir)
    with _io.OutputTransaction() as tx:
        temp = tx.add(shared / "syn.csv", param="out")
        temp.unlink()
        temp.symlink_to(workdir / "victim" / "secret")
        with pytest.raises(InputError, match="replaced by a symbolic link"):
            tx.commit()
    assert not os.path.lexists(shared / "syn.csv")
    assert _victim_state(workdir) == before
