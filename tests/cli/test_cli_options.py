"""The shared options of the thin commands: choices read from the library's constants."""

from __future__ import annotations

import subprocess
import sys

import click

from synthamp.accountant import ACCOUNTANTS, METHODS
from synthamp.cli import main


def _choices(command: click.Command) -> dict[str, tuple[str, ...]]:
    return {
        p.name: tuple(p.type.choices) for p in command.params if isinstance(p.type, click.Choice)
    }


def test_the_choices_are_the_library_constants():
    from synthamp.audit import CORRECTIONS, ESTIMATORS
    from synthamp.cli.account import account, calibrate
    from synthamp.cli.audit import audit
    from synthamp.cli.plan import plan
    from synthamp.design import ADJACENCIES, DESIGNS
    from synthamp.jobs import MECHANISMS
    from synthamp.release import PLAN_METHODS

    for command in (account, calibrate):
        assert _choices(command) == {
            "method": METHODS, "method_alias": METHODS, "accountant": ACCOUNTANTS,
        }  # fmt: skip
    assert _choices(audit) == {
        "correction": CORRECTIONS, "estimator": ESTIMATORS, "mechanism": MECHANISMS,
        "accountant": ACCOUNTANTS,
    }  # fmt: skip
    assert _choices(plan) == {
        "method": PLAN_METHODS, "design": DESIGNS, "adjacency": ADJACENCIES,
    }  # fmt: skip


def test_loading_a_command_does_not_load_its_library_choices():
    code = (
        "import sys, synthamp.cli.audit, synthamp.cli.plan; "
        "print('synthamp.audit' in sys.modules, 'synthamp.release._planning' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_a_value_outside_the_library_constant_is_a_click_error(capsys):
    argv = ["audit", "--sensitivity", "1", "--sigma", "1", "--estimator", "nope"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("synthamp: error: ") and "'family', 'threshold'" in err
