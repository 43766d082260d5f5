"""Fault matrix (issue 25): concurrent runs, interrupted commits, SIGHUP.

On b208f84 there was no lock, no exclusive creation and no journal: a second
run overwrote the first, and a run killed between moving the old output aside
and publishing lost it (the next run deleted the ``….old`` copy as a stale
temporary). Each test below states how it fails there.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from release_cases import one_error_line, release_args, run
from synthamp._output import _io as _io
from synthamp._output import _journal as _journal
from synthamp.release import _generator as generator
from synthamp.release import _tabular as tabular

SRC = str(Path(tabular.__file__).parents[1])


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([SRC, *sys.path])
    return env


def _leftovers(directory: Path) -> list[str]:
    tags = (_io.TEMP_TAG, _journal.LOCK_TAG, _journal.JOURNAL_TAG)
    return sorted(p.name for p in directory.rglob("*") if any(t in p.name for t in tags))


# --------------------------------------------------------------------------- concurrent runs


def test_a_run_writing_the_same_destination_is_refused(workdir, capsys):
    """b208f84: no lock; the second run overwrote the first's output (exit 0)."""
    lock = _journal.acquire_lock(workdir / "syn.csv", "out")  # a run in progress
    try:
        code, _, err = run(capsys, release_args())
    finally:
        lock.release()
    assert code == 2
    line = one_error_line(err, "--out")
    assert "another synthamp run" in line and f"pid {os.getpid()}" in line
    assert not (workdir / "syn.csv").exists()
    assert _leftovers(workdir) == []


def test_an_output_that_appears_during_the_run_is_not_overwritten(workdir, capsys, monkeypatch):
    """b208f84: existence was checked before the work only; os.replace overwrote it."""
    real = generator._account

    def meanwhile(**kwargs):
        (workdir / "syn.csv").write_text("another program's file")
        return real(**kwargs)

    monkeypatch.setattr(generator, "_account", meanwhile)
    code, _, err = run(capsys, release_args())
    assert code == 2 and "appeared during the run" in one_error_line(err, "--out")
    assert (workdir / "syn.csv").read_text() == "another program's file"
    assert not (workdir / "syn.csv.privacy.json").exists()  # all or nothing
    assert _leftovers(workdir) == []


def test_two_concurrent_releases_never_lose_an_output(workdir):
    """Two real processes to one new --out without --force: one wins, the other exits 2.

    b208f84: both exited 0, the later commit silently replacing the other's table.
    """
    command = [sys.executable, "-m", "synthamp", *release_args(**{"--n-syn": "3000000"})]
    first = subprocess.Popen(command, cwd=workdir, env=_env(), stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while not any(_io.TEMP_TAG in p.name for p in workdir.iterdir()):  # the first is writing
            assert first.poll() is None and time.monotonic() < deadline
            time.sleep(0.02)
        second = subprocess.run(
            [sys.executable, "-m", "synthamp", *release_args(**{"--n-syn": "10"})],
            cwd=workdir, env=_env(), capture_output=True, timeout=120,
        )  # fmt: skip
        _, first_err = first.communicate(timeout=300)
    finally:
        first.kill()
    assert first.returncode == 0, first_err.decode()
    assert second.returncode == 2, second.stderr.decode()
    assert "another synthamp run" in second.stderr.decode()
    assert sum(1 for _ in open(workdir / "syn.csv")) == 3_000_001  # the first run's table
    assert _leftovers(workdir) == []


# --------------------------------------------------------------------------- killed commits

KILLED_COMMIT = textwrap.dedent(
    """
    import os, sys
    from pathlib import Path
    from synthamp._output import _io as _io
    paths = [Path(p) for p in sys.argv[2:]]
    stop_at = Path(sys.argv[1])
    real = os.replace
    def replace(src, dst):
        publishing = _io.TEMP_TAG in Path(src).name and not str(src).endswith(".old")
        if Path(dst) == stop_at and publishing:
            os._exit(9)  # killed outright (SIGKILL, power loss) just before publishing dst
        return real(src, dst)
    os.replace = replace
    with _io.OutputTransaction() as tx:
        for i, path in enumerate(paths):
            tx.add(path, param=f"out{i}").write_text("new " + path.name)
        tx.commit()
    """
)


def _kill_during_commit(directory: Path, stop_at: Path, *paths: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", KILLED_COMMIT, str(stop_at), *map(str, paths)],
        cwd=directory, env=_env(), capture_output=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 9, result.stderr.decode()


def test_a_commit_killed_after_moving_the_old_version_aside_loses_nothing(tmp_path):
    """b208f84: the next run deleted ``.a.txt.…old``, the only copy: a.txt was gone."""
    target = tmp_path / "a.txt"
    target.write_text("old")
    _kill_during_commit(tmp_path, target, target)
    assert not target.exists()  # the kill struck between moving aside and publishing
    with _io.OutputTransaction() as tx:  # the next run writing a.txt
        tx.add(target, param="out")
        assert target.read_text() == "new a.txt"  # the killed commit, completed
        assert tx.recovered and "published" in tx.recovered[0]
    assert _leftovers(tmp_path) == []


def test_a_killed_commit_is_rolled_forward_as_a_group(tmp_path):
    """Killed after publishing the table, before the report: the next run publishes both."""
    table, report = tmp_path / "t.csv", tmp_path / "t.json"
    table.write_text("old table")
    report.write_text("old report")
    _kill_during_commit(tmp_path, report, table, report)
    assert table.read_text() == "new t.csv" and not report.exists()
    with _io.OutputTransaction() as tx:  # the same run again completes the commit
        tx.lock([(table, "out"), (report, "report")])
    assert report.read_text() == "new t.json" and table.read_text() == "new t.csv"
    assert _leftovers(tmp_path) == []


def test_an_old_version_left_by_an_older_synthamp_is_put_back(workdir, capsys):
    """No journal (an older synthamp was killed): the ``….old`` copy is restored, not deleted."""
    old = workdir / f".syn.csv.{_io.TEMP_TAG}-4194303-0123abcd.old"  # pid above pid_max
    old.write_text("the previous table")
    code, _, err = run(capsys, release_args())
    warning, error = err.strip().splitlines()[-2:]
    assert code == 2 and "exists" in one_error_line(error, "--out")
    assert warning.startswith("synthamp: warning: put back syn.csv")
    assert (workdir / "syn.csv").read_text() == "the previous table"


INTERRUPTED_COMMIT = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from synthamp._output import _io as _io
    paths = [Path(p) for p in sys.argv[1:]]
    real = os.replace
    def interrupting(src, dst):
        if Path(dst) == paths[0]:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C in the middle of the renames
        return real(src, dst)
    os.replace = interrupting
    try:
        with _io.OutputTransaction() as tx:
            for path in paths:
                tx.add(path, param="out").write_text("x")
            tx.commit()
    except KeyboardInterrupt:
        sys.exit(42)
    """
)


def test_an_interrupt_during_the_commit_waits_for_the_renames(tmp_path):
    """SIGINT arriving mid-commit is held back: every output published, then the interrupt.

    b208f84: the interrupt rolled the commit back half-way (nothing published).
    """
    paths = [tmp_path / f"{i}.txt" for i in range(3)]
    result = subprocess.run(
        [sys.executable, "-c", INTERRUPTED_COMMIT, *map(str, paths)],
        cwd=tmp_path, env=_env(), capture_output=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 42, result.stderr.decode()  # the interrupt still arrives
    assert all(path.read_text() == "x" for path in paths)
    assert _leftovers(tmp_path) == []


# --------------------------------------------------------------------------- SIGHUP


def test_sighup_is_handled_like_sigterm(workdir):
    """b208f84: SIGHUP killed the process (exit −1) and left its temporary file."""
    command = [sys.executable, "-m", "synthamp", *release_args(**{"--n-syn": "10000000"})]
    process = subprocess.Popen(
        command, cwd=workdir, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 120
        while not any(_io.TEMP_TAG in p.name for p in workdir.iterdir()):
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "no temporary file appeared"
            time.sleep(0.05)
        process.send_signal(signal.SIGHUP)
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 128 + signal.SIGHUP
    assert err.decode().strip().splitlines()[-1] == (
        "synthamp: terminated (SIGHUP); no output was written"
    )
    assert sorted(p.name for p in workdir.iterdir()) == ["data.csv"]


SIGNALLED_THREAD = textwrap.dedent(
    """
    import os, signal, sys, threading, time
    from pathlib import Path
    from synthamp._output import _io as _io
    paths = [Path(p) for p in sys.argv[1:]]
    def terminate(signum, frame):
        raise SystemExit(43)
    signal.signal(signal.SIGTERM, terminate)
    worker = threading.Thread(target=time.sleep, args=(60,), daemon=True)  # a release's thread
    worker.start()
    real = os.replace
    def replace(src, dst):
        if Path(dst) == paths[0]:  # publishing the first output
            for _ in range(2):  # SIGTERM twice, to the other thread (as the kernel may)
                signal.pthread_kill(worker.ident, signal.SIGTERM)
                time.sleep(0.05)  # the main thread would run the handler here
        return real(src, dst)
    os.replace = replace
    with _io.OutputTransaction() as tx:
        for path in paths:
            tx.add(path, param="out").write_text("new")
        tx.commit()
    """
)


def test_signals_to_another_thread_wait_for_the_commit(tmp_path):
    """Two SIGTERMs delivered to a worker thread mid-commit: every output published, then exit.

    4c93a73 blocked the signals in the main thread only: the handler ran at once and
    rolled the commit back half-way.
    """
    paths = [tmp_path / f"{i}.txt" for i in range(3)]
    for path in paths:
        path.write_text("old")
    result = subprocess.run(
        [sys.executable, "-c", SIGNALLED_THREAD, *map(str, paths)],
        cwd=tmp_path, env=_env(), capture_output=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 43, result.stderr.decode()  # the signal still acts, after
    assert all(path.read_text() == "new" for path in paths)
    assert _leftovers(tmp_path) == []
