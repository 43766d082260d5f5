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
    from synthamp.release import PrivateLinearGenerator

    assert synthamp.PrivateLinearGenerator is PrivateLinearGenerator
    with pytest.raises(AttributeError):
        synthamp.no_such_name  # noqa: B018


# The kinds docs/theory.md assigns: exact engine values, proven bounds, asymptotic heuristics.
EXPECTED_KINDS = {
    "synthamp.divergence.renyi_plateau": Kind.EXACT,
    "synthamp.divergence.renyi_finite": Kind.EXACT,
    "synthamp.bounds.post_processing_rdp": Kind.CERTIFIED,
    "synthamp.bounds.global_bound": Kind.CERTIFIED,
    "synthamp.bounds.local_rdp": Kind.HEURISTIC,
    "synthamp.bounds.amplification_ratio_local_bounds": Kind.HEURISTIC,
    "synthamp.bounds.global_bound_as_printed": Kind.HEURISTIC,
    "synthamp.bounds.prior_work_rdp": Kind.HEURISTIC,
    "synthamp.accountant.worst_case_rdp": Kind.EXACT,
    "synthamp.accountant.search_lower_bound": Kind.CERTIFIED,  # a proven lower bound
    "synthamp.accountant.laplace_calibration": Kind.EXACT,
    "synthamp.accountant.laplace_delta": Kind.EXACT,
}


@pytest.mark.parametrize("qualname", sorted(EXPECTED_KINDS))
def test_privacy_functions_carry_their_kind(qualname):
    module_name, _, attr = qualname.rpartition(".")
    module = __import__(module_name, fromlist=[attr])
    assert getattr(module, attr).kind is EXPECTED_KINDS[qualname]
    assert PRIVACY_FUNCTIONS[qualname] is EXPECTED_KINDS[qualname]


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


def _modules_loaded_by(statement: str) -> set[str]:
    code = f"import sys; {statement}; print(' '.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_package_face_loads_no_scipy_and_ridge_no_scikit_learn():
    # import synthamp (and so `synthamp --help`) costs numpy only; the engine loads on first use
    loaded = _modules_loaded_by("import synthamp")
    assert not {"scipy", "scipy.special", "scipy.optimize"} & loaded
    assert "synthamp.accountant" not in loaded and "synthamp.divergence" not in loaded
    # the ridge mathematics is free of scikit-learn; the estimator is not
    assert "sklearn" not in _modules_loaded_by("import synthamp.release._ridge")
    assert "sklearn" in _modules_loaded_by("import synthamp.release._generator")


def test_lazy_names_are_listed_and_resolve_to_their_modules():
    import synthamp.accountant as accountant
    import synthamp.divergence as divergence

    listed = dir(synthamp)
    for name in synthamp.__all__:
        assert name in listed
    for name in ("WorstCase", "EpsilonResult", "Calibration", "compute_epsilon"):
        assert getattr(synthamp, name) is getattr(accountant, name)
    assert synthamp.renyi_plateau is divergence.renyi_plateau
    assert synthamp.bounds.post_processing_rdp.kind is Kind.CERTIFIED


def test_generator_does_not_shadow_scikit_learn_validate_params():
    from sklearn.base import BaseEstimator

    from synthamp.release import PrivateLinearGenerator

    assert PrivateLinearGenerator._validate_params is BaseEstimator._validate_params


def test_version_has_one_home():
    from synthamp._version import __version__

    assert synthamp.__version__ is __version__


def test_accountant_import_defers_scipy_stats_and_fft():
    # import synthamp.accountant <= 3x import numpy (issue 23): scipy.stats (~0.4 s, the
    # χ²_d(a²) tails at small a) and scipy.fft (the PLD composition) load on first use
    loaded = _modules_loaded_by("import synthamp.accountant")
    assert "synthamp.accountant._profile" in loaded
    assert not {"scipy.stats", "scipy.fft", "scipy.optimize"} & loaded
    # ... and are loaded when used: the check sees them
    used = _modules_loaded_by(
        "import numpy as np; from synthamp.divergence._ncx2_tail import log_ncx2_tail; "
        "log_ncx2_tail(np.array([30.0]), 20, 2.0, True)"
    )
    assert "scipy.stats" in used
