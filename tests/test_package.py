"""Package-level contracts: light core import, labelled privacy functions, CLI entry point."""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest

import synthamp
from synthamp._kinds import PRIVACY_FUNCTIONS, Kind
from synthamp.cli import COMMANDS, main


def test_core_import_is_light():
    code = (
        "import sys, synthamp; "
        "heavy = [m for m in ('sklearn', 'matplotlib', 'pandas', 'pyarrow', 'torch', 'tensorflow') "
        "if m in sys.modules]; print(','.join(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_generator_is_reachable_lazily():
    from synthamp.generator import PrivateLinearGenerator

    assert synthamp.PrivateLinearGenerator is PrivateLinearGenerator
    with pytest.raises(AttributeError):
        synthamp.no_such_name  # noqa: B018


@pytest.mark.parametrize(
    "module_name", ["synthamp.divergence", "synthamp.bounds", "synthamp.accountant"]
)
def test_public_privacy_functions_are_labelled(module_name):
    module = __import__(module_name, fromlist=["__all__"])
    labelled = {
        name.rsplit(".", 1)[-1] for name in PRIVACY_FUNCTIONS if name.startswith(module_name)
    }
    assert labelled, f"{module_name} labels no function"
    for name, kind in PRIVACY_FUNCTIONS.items():
        assert isinstance(kind, Kind), name


def test_exact_engine_functions_are_exact():
    assert synthamp.renyi_plateau.kind is Kind.EXACT
    assert synthamp.renyi_finite.kind is Kind.EXACT
    assert not Kind.HEURISTIC.usable_in_guarantee
    assert Kind.CERTIFIED.usable_in_guarantee


def test_every_registered_command_loads_and_has_help(capsys):
    for name in COMMANDS:
        assert main([name, "--help"]) == 0
        assert "Usage" in capsys.readouterr().out


def test_top_level_help_and_version(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for name in COMMANDS:
        assert name in out
    assert main(["--version"]) == 0
    assert synthamp.__version__ in capsys.readouterr().out


def test_unknown_command_is_a_one_line_usage_error(capsys):
    assert main(["no-such-command"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("synthamp: error:") and "\n" not in err


def test_console_script_runs_without_traceback(tmp_path):
    # the installed entry point: bad input exits 2 with one line and no traceback
    out = subprocess.run(
        [sys.executable, "-m", "synthamp.cli", "calibrate", "--epsilon", "-1"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_public_functions_have_docstrings():
    for name in synthamp.__all__:
        obj = getattr(synthamp, name)
        if inspect.isfunction(obj) or inspect.isclass(obj):
            assert obj.__doc__, name
