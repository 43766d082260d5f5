"""A release killed at every step of its work on the file system, then run again.

A forked ``synthamp release`` is killed outright (``os._exit``: as SIGKILL or a power
loss) just before its k-th change to the file system, for every k from the first
lock to the last unlink of its commit; then the same release is run again *without*
``--force``. Afterwards the destination holds one whole release (the old one, or
the new one: the table and its three reports of the same run), never a table without
its report, and no hidden file of synthamp is left.

Before this commit protocol (4c93a73): a kill between the table's rename and the
reports' left the table without its report, and the run without ``--force`` exited 2
("syn.csv exists") *before* taking the lock, so the journal was never recovered and
the hidden files stayed.
"""

from __future__ import annotations

import signal

import pytest
from fault_cases import (
    KILLED,
    Fault,
    error_lines,
    fork_main,
    hidden_leftovers,
    release_generation,
    reset_workdir,
)

from release_cases import release_args, run

#: n_syn of the release in place before the run (old), of the killed run (new), of the rerun.
OLD, NEW, RERUN = 2345, 1234, 3456
CANDIDATES = (OLD, NEW, RERUN)


def _args(out: str, n_syn: int, **extra) -> list[str]:
    partitioned = {"--partitions": "2"} if not out.endswith(".csv") else {}
    return release_args(
        **{"--out": out, "--n-syn": str(n_syn), "--seed": "1", **partitioned, **extra}
    )


def _reset(workdir, out: str, old: bool, capsys) -> None:
    def make():
        code, _, err = run(capsys, _args(out, OLD))
        assert code == 0, err

    reset_workdir(workdir, out, ("data.csv",), make if old else None)


def _killed_at_every_step(workdir, tmp_path_factory, capsys, out: str, old: bool) -> int:
    """Kill the release at step 1, 2, … until it completes; check each aftermath."""
    logs = tmp_path_factory.mktemp("logs")
    force = {"--force": True} if old else {}
    expected = {OLD, NEW} if old else {None, NEW, RERUN}
    step = 0
    while True:
        step += 1
        _reset(workdir, out, old, capsys)
        code, _, err = fork_main(_args(out, NEW, **force), logs, Fault(step, "kill"))
        if code == 0:
            assert release_generation(workdir, out, CANDIDATES) == NEW
            return step - 1
        assert code == KILLED, f"step {step}: exit {code}: {err}"
        code, _, err = run(capsys, _args(out, RERUN))  # the next run, without --force
        assert "Traceback" not in err
        generation = release_generation(workdir, out, CANDIDATES)
        assert generation in expected, f"step {step}: release {generation}"
        if generation in (OLD, NEW):  # something was published: the rerun refuses
            assert code == 2 and "exists" in error_lines(err)[0], f"step {step}: {err}"
        else:
            assert code == 0, f"step {step}: {err}"
        assert hidden_leftovers(workdir) == [], f"step {step}: {hidden_leftovers(workdir)}"


@pytest.mark.parametrize(
    ("out", "old"),
    [
        pytest.param("syn.csv", False, id="new", marks=pytest.mark.slow),
        pytest.param("syn.csv", True, id="replace"),
        pytest.param("ds", True, id="dataset", marks=pytest.mark.slow),
    ],
)
def test_a_release_killed_at_any_step_leaves_one_whole_release(
    workdir, tmp_path_factory, capsys, out, old
):
    steps = _killed_at_every_step(workdir, tmp_path_factory, capsys, out, old)
    assert steps >= 40  # from the first lock to the last unlink of the commit


def test_two_signals_during_the_commit_finish_it_and_say_so(workdir, tmp_path_factory, capsys):
    """SIGTERM as the first journal is written, again as the first output is published.

    A single-threaded process held them on 4c93a73 too (the mask covered its one
    thread; other threads: test_faults_commit), but its line said "the interrupt came
    after the commit" and also named the outputs of earlier runs in the same process.
    """
    logs = tmp_path_factory.mktemp("logs")
    _reset(workdir, "syn.csv", True, capsys)
    fault = Fault(0, "signal", signal.SIGTERM, second=6, tag="synthamp-journal")
    code, _, err = fork_main(_args("syn.csv", NEW, **{"--force": True}), logs, fault)
    assert code == 128 + signal.SIGTERM, err
    (line,) = error_lines(err)
    assert line.startswith("synthamp: terminated (SIGTERM); the commit had begun and was finished")
    assert "syn.csv" in line and "syn.csv.privacy.json" in line
    assert release_generation(workdir, "syn.csv", CANDIDATES) == NEW
    assert hidden_leftovers(workdir) == []


@pytest.mark.slow
def test_a_signal_at_any_step_leaves_one_whole_release_and_says_which(
    workdir, tmp_path_factory, capsys
):
    """SIGTERM, SIGINT or SIGHUP just before each change a ``--force`` release makes.

    Every time: one line, and what it says is true ("no output was written": the old
    release is whole; "… were published": the new one is), and no hidden file at all
    (4c93a73 left lock and journal files after a signal at start-up).
    """
    logs = tmp_path_factory.mktemp("logs")
    signals = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
    step = 0
    while True:
        step += 1
        signum = signals[step % 3]
        _reset(workdir, "syn.csv", True, capsys)
        fault = Fault(step, "signal", signum)
        code, _, err = fork_main(_args("syn.csv", NEW, **{"--force": True}), logs, fault)
        generation = release_generation(workdir, "syn.csv", CANDIDATES)
        assert hidden_leftovers(workdir) == [], f"step {step}: {hidden_leftovers(workdir)}"
        if code == 0:  # the run ended before the step: nothing left to strike
            assert generation == NEW and step > 40
            return
        assert code == (1 if signum == signal.SIGINT else 128 + signum), f"step {step}: {err}"
        (line,) = error_lines(err)
        if line.endswith("no output was written"):
            assert generation == OLD, f"step {step}: {line}"
        else:
            assert "the commit had begun and was finished first" in line, f"step {step}: {line}"
            assert generation == NEW, f"step {step}: {line}"
