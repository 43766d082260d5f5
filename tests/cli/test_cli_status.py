"""The live status line of long accounting steps, and ``--no-progress``."""

from __future__ import annotations

from synthamp.cli._status import live_status


def test_live_status_silent_off_a_terminal(monkeypatch, capsys):
    monkeypatch.delenv("FORCE_TERMINAL", raising=False)
    with live_status("accounting step"):
        pass
    assert "accounting step" not in capsys.readouterr().err


def test_no_progress_is_accepted_by_account_and_calibrate(capsys):
    from synthamp.cli import main

    args = ["--dim", "1000", "--norm-bound", "2", "--sensitivity", "0.1", "--accountant", "rdp"]
    for command in (["account", "--sigma", "0.3"], ["calibrate", "--epsilon", "1"]):
        assert main([*command, *args, "--no-progress"]) == 0
        assert "epsilon" in capsys.readouterr().out
