"""``synthamp --help`` lists the commands without importing any of them (nor the library).

The list is read from :data:`synthamp.cli.COMMANDS`; a command's module (and with it the
accountant, scipy, pandas, scikit-learn) is imported only when the command runs or shows
its own help. Measured in a fresh interpreter that runs ``python -m synthamp ARGS`` and
then names every module in ``sys.modules`` (``-X importtime`` would miss the modules
loaded through :func:`importlib.import_module`, as the lazy faces and commands are).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

import synthamp
from synthamp.cli import COMMANDS, cli, main

#: What listing the commands must not load: the library above the foundations and the heavy
#: dependencies it brings.
NOT_LOADED = (
    "scipy",
    "pandas",
    "sklearn",
    "matplotlib",
    "rich",
    "synthamp.accountant",
    "synthamp.divergence",
    "synthamp.release",
    "synthamp.design",
    "synthamp.audit",
    "synthamp.figures",
    "synthamp.report",
    "synthamp.bounds",
    "synthamp.cli.account",
)


#: Runs ``python -m synthamp ARGS`` as the console does, then prints the loaded modules.
_RUNNER = """
import json, runpy, sys
sys.argv = ["synthamp", *sys.argv[1:]]
try:
    runpy.run_module("synthamp", run_name="__main__", alter_sys=True)
except SystemExit:
    pass
print("MODULES=" + json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def _imported_by(*args: str) -> set[str]:
    """Every module a fresh ``python -m synthamp ARGS`` has loaded when it exits."""
    env = {**os.environ, "PYTHONPATH": str(Path(synthamp.__file__).resolve().parents[1])}
    run = subprocess.run(
        [sys.executable, "-c", _RUNNER, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
    )
    assert "Usage: synthamp" in run.stdout, run.stderr[-2000:]  # the help was printed
    lines = [line for line in run.stderr.splitlines() if line.startswith("MODULES=")]
    return set(json.loads(lines[-1].removeprefix("MODULES=")))


def test_help_imports_no_command_and_none_of_the_library():
    loaded = _imported_by("--help")
    heavy = sorted(
        name for name in loaded if any(name == n or name.startswith(n + ".") for n in NOT_LOADED)
    )
    assert heavy == []


def test_a_command_is_imported_when_it_shows_its_help():
    # the check above can fail: a command's own help loads its module and the library
    loaded = _imported_by("bounds", "--help")
    assert {"synthamp.cli.bounds", "synthamp.bounds"} <= loaded


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_listed_help_is_the_commands_own(name):
    command = cli.get_command(click.Context(cli), name)
    assert command is not None and command.name == name
    assert COMMANDS[name][1] == command.get_short_help_str(limit=10_000)


def test_help_lists_every_command_once(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    listed = [line.split()[0] for line in out.split("Commands:")[1].splitlines() if line.strip()]
    assert listed == sorted(COMMANDS)


@pytest.mark.parametrize("width", [60, 80, 120])
def test_the_listing_is_clicks_own(width):
    # the table's listing is the one click makes by importing every command
    ctx = click.Context(cli, terminal_width=width)
    ours = click.HelpFormatter(width=width)
    cli.format_commands(ctx, ours)
    clicks = click.HelpFormatter(width=width)
    click.Group.format_commands(cli, ctx, clicks)
    assert ours.getvalue() == clicks.getvalue()
