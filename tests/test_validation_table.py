"""The table of parameter rules (synthamp._parameters): each rule declared once, applied
at every public entry point that takes the parameter.

* every declared rule accepts the values just inside it and refuses those just outside,
  naming the parameter as the caller spelled it;
* every public function or release description of a walked package (its ``__all__``)
  refuses a value just outside the rule of each declared parameter it takes, with an
  :class:`~synthamp.InputError` naming that parameter, before any computation;
* no single-parameter rule of a declared parameter is written outside the table (the
  source is scanned for ``check_*("delta", …)`` and the like).
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import inspect
import math
import pathlib
import signal
import warnings
from collections import Counter

import numpy as np
import pytest

from synthamp._parameters import (
    DOMAINS,
    PARAMETERS,
    Integer,
    Orders,
    Real,
    declared,
    rule,
    validated,
    validated_optional,
)
from synthamp._validation import MAX_DIM, MAX_N_SYN, MAX_SIGMA, InputError

SOURCE = pathlib.Path(__file__).resolve().parents[1] / "src" / "synthamp"

#: The packages whose public boundary validates through the table (grows as they move).
WALKED: tuple[str, ...] = (
    "accountant",
    "divergence",
    "amplification",
    "bounds",
    "utility",
    "audit",
    "release",
    "design",
    "jobs",
)

#: The checks of synthamp._validation that word a single-parameter rule.
RULE_CHECKS = {
    "check_positive",
    "check_nonnegative",
    "check_open_unit",
    "check_sigma",
    "check_integer",
    "check_unit_interval",
}
#: Checks whose name is itself the parameter's rule (a declared parameter).
NAMED_CHECKS = {"check_dim": "dim", "check_n_syn": "n_syn", "check_alpha": "alpha"}


# --------------------------------------------------------------------------- the table
RULED = sorted(name for name, entry in PARAMETERS.items())


@pytest.mark.parametrize("name", RULED)
def test_each_rule_accepts_just_inside_and_refuses_just_outside(name):
    _, entry = declared(name)
    constraint = entry.constraint
    for value in constraint.inside():
        (out,) = validated(**{name: value})
        if isinstance(constraint, Orders):
            assert np.all(np.asarray(out) > 1)
        else:
            assert out == value
    for value in constraint.outside():
        with pytest.raises(InputError) as caught:
            validated(**{name: value})
        assert caught.value.param == name, (name, value)


@pytest.mark.parametrize("name", RULED)
def test_none_passes_only_where_the_table_says_what_it_means(name):
    with pytest.raises(InputError, match=f"^{name}: must be a number"):
        validated(**{name: None})
    if declared(name)[1].none is not None:
        assert validated_optional(**{name: None}) == (None,)
        assert validated_optional(**{name: declared(name)[1].example}) is not None
    else:
        with pytest.raises(TypeError, match="no meaning"):
            validated_optional(**{name: None})


def test_the_rules_of_the_issue():
    """The rules as enforced before the table, none looser (docs/theory.md's domains)."""
    rule = {name: declared(name)[1].constraint for name in PARAMETERS}
    assert rule["delta"] == Real(0.0, 1.0)
    assert rule["epsilon"] == Real() and rule["norm_bound"] == Real()
    assert rule["sigma"] == Real(0.0, MAX_SIGMA, high_closed=True)
    assert rule["alpha"] == Orders() and rule["orders"] == Orders()
    assert rule["dim"] == Integer(1, MAX_DIM)
    assert rule["n_syn"] == Integer(1, MAX_N_SYN)
    assert rule["releases"] == Integer(1)
    for name in ("sensitivity", "label_bound", "ridge", "discretization", "rtol"):
        assert rule[name] == Real(), name


def test_an_alias_is_refused_under_its_own_name():
    with pytest.raises(InputError, match=r"^orders: every order must be > 1"):
        validated(orders=[2.0, 1.0])
    with pytest.raises(InputError, match=r"^delta_grid: must be in \(0, 1\)"):
        validated(delta_grid=1.0)


def test_an_undeclared_parameter_is_a_programming_error():
    with pytest.raises(KeyError):
        validated(not_a_parameter=1.0)


# ------------------------------------------------------------------ the public entry points
def _release(**changes):
    from synthamp.accountant import SyntheticDataRelease

    fields = dict(dim=10, out_dim=1, norm_bound=2.0, sensitivity=0.5, sigma=1.0)
    return SyntheticDataRelease(**{**fields, **changes})


#: The folder of the test being run (its tmp_path): the walk's tables and outputs.
WORK: list[pathlib.Path] = []


def _table():
    """A small private table on disk (features x1, x2 and a target y in [-1, 1])."""
    path = WORK[-1] / "data.csv"
    if not path.exists():
        rng = np.random.default_rng(0)
        rows = np.column_stack([rng.uniform(-0.5, 0.5, (40, 2)), rng.uniform(-1, 1, 40)])
        np.savetxt(path, rows, delimiter=",", header="x1,x2,y", comments="", fmt="%.6f")
    return path


def _out():
    return WORK[-1] / "syn.csv"


def _design_release():
    from synthamp.accountant import PublicDesignRelease

    return PublicDesignRelease(dim=8, out_dim=2, canonical_norm=1.0, sensitivity=0.5, sigma=1.0)


#: Valid values of the other required arguments, by name (a release, a pair of norms …).
OTHERS = {
    "release": _release,
    "norm_v": lambda: 1.0,
    "norm_w": lambda: 0.5,
    "gram_v": lambda: np.array([[4.0, 0.0], [0.0, 1.0]]),
    "gram_w": lambda: np.array([[1.0, 0.0], [0.0, 1.0]]),
    "lambda_v": lambda: 1.0,
    "lambda_w": lambda: 0.5,
    "rdp": lambda: [0.1, 0.2],
    "deltas": lambda: [1e-5],
    "angle": lambda: 0.3,
    "gram": lambda: np.eye(3),
    "theta": lambda: 0.5,
    "t": lambda: 0.5,
    "x": lambda: 1.0,
    "feature_bound": lambda: 1.0,
    "s": lambda: 1.0,
    "amp": lambda: 1.0,
    "amp_p": lambda: 1.0,
    "amp_q": lambda: 0.5,
    "model_gram": lambda: np.eye(1),
    "method": lambda: "exact",
    "synthetic": lambda: np.ones((5, 3)),
    "model": lambda: np.ones((3, 1)),
    "features": lambda: np.linspace(-0.5, 0.5, 40).reshape(20, 2),
    "targets": lambda: np.linspace(-1.0, 1.0, 20),
    "bounds": lambda: {"y": (-1.0, 1.0)},
    "names": lambda: ["y"],
    "widths": lambda: [16],
    "path": lambda: WORK[-1] / "dataset",
    "generator": lambda: _fit(
        __import__("synthamp.release").release.PrivateLinearGenerator,
        {"sigma": 1.0, "n_syn": 10, "random_state": 0, "label_bound": 1.0, "ridge": 1.0},
    ),
    "successes": lambda: 5,
    "fpr": lambda: 0.1,
    "fnr": lambda: 0.2,
    "scores_p": lambda: np.linspace(0.0, 1.0, 50),
    "scores_q": lambda: np.linspace(0.5, 1.5, 50),
    "law_of": lambda: None,
    "pair_epsilon": lambda: None,
    "start_p": lambda: 1.0,
    "start_q": lambda: 0.5,
    "y": lambda: np.linspace(-1.0, 1.0, 20),
    "fisher": lambda: 1.0,
    "fisher_sup": lambda: 1.0,
    "step": lambda: 0.1,
    "path_length": lambda: 1.0,
    "path_length_sq": lambda: 1.0,
}

#: Entry points walked with arguments of their own (the defaults would not reach the check).
OWN = {
    ("accountant", "account_certified"): {"release": _design_release},
    ("accountant", "calibrate_certified"): {"release": _design_release},
    ("accountant", "PublicDesignRelease"): {"dim": lambda: 8, "out_dim": lambda: 2},
    ("bounds", "fisher_criterion_bound"): {
        "envelope": lambda: lambda z, alpha: np.ones_like(z),
        "lower": lambda: 0.0,
        "upper": lambda: 1.0,
    },
    ("divergence", "renyi_plateau_gram3_estimate"): {
        "dim": lambda: 4,
        "gram_v": lambda: np.diag([1.0, 0.0, 0.0]),
        "gram_w": lambda: np.diag([0.0, 1.0, 0.0]),
    },
    ("design", "design_bounds"): {"design": lambda: np.eye(4)[:3] / 2},
    ("design", "design_release"): {"design": lambda: "random-seeds", "seed": lambda: 7},
    ("design", "plan_design"): {"n_records": lambda: 20},
    ("release", "plan_release"): {"n_records": lambda: 20},
    ("release", "ridge_sensitivity"): {"n_records": lambda: 20},
    ("jobs", "plan_table"): {"data": _table, "targets": lambda: "y", "label_bound": lambda: 1.0},
    ("jobs", "release_table"): {
        "data": _table,
        "targets": lambda: "y",
        "out": _out,
        "label_bound": lambda: 1.0,
        "epsilon": lambda: 1.0,
        "delta": lambda: 1e-5,
    },
    ("release", "PrivateLinearGenerator"): {
        "epsilon": lambda: 1.0,
        "delta": lambda: 1e-5,
        "n_syn": lambda: 50,
    },
    ("design", "PublicDesign"): {
        "name": lambda: "random-seeds",
        "width": lambda: 16,
        "n_records": lambda: 20,
        "seed": lambda: 7,
    },
    ("release", "account_release"): {"sigma": lambda: 1.0, "epsilon": lambda: None},
    ("release", "account_release", "epsilon"): {"sigma": lambda: None, "epsilon": lambda: 1.0},
    ("release", "PrivateLinearGenerator", "sigma"): {"epsilon": lambda: None},
    ("release", "target_map"): {"label_bound": lambda: 1.0},
    ("jobs", "run_demo"): {"out_dir": lambda: _out().parent},
    ("utility", "adassp"): {"x": lambda: np.linspace(-0.5, 0.5, 40).reshape(20, 2)},
    ("divergence", "pair_divergence"): {"norm_v": lambda: 1.0, "norm_w": lambda: 0.5},
    ("jobs", "pair_divergence"): {"norm_v": lambda: 1.0, "norm_w": lambda: 0.5},
    ("accountant", "privacy_loss_distribution"): {
        "mechanism": lambda: __import__("synthamp.accountant").accountant.GaussianRelease(
            sensitivity=1.0, sigma=1.0
        )
    },
}

#: Public names of the walked packages that take a declared parameter but are not walked.
NOT_WALKED = {
    # result types: built by the library from validated values, never a boundary
    **dict.fromkeys(
        [
            "AccountSummary", "AngleCertificate", "Calibration", "CalibrationSummary",
            "CertifiedGuarantee", "EpsilonDeltaCurve", "EpsilonResult", "Guarantee",
            "LaplaceCalibration", "PairSearch", "PldCalibration", "PldEpsilon",
            "PrivacyLossDistribution", "PrivacyProfile", "ProfileEpsilon", "WorstCase",
            "DivergenceResult", "EstimateResult", "PairDivergence", "WishartResult",
            "AdaSSPResult", "AmplificationOutlook", "AuditResult", "DemoRelease",
            "TableRelease", "TablePlan", "EmpiricalEpsilon", "EndToEndAudit",
            "FamilyEpsilon", "PairEpsilon", "DesignPlanRow", "DesignRelease", "Plan",
            "PlanRow", "ReleaseAccounting", "TargetMap", "DesignPairComparison",
            "AuditSummary", "WrittenFigures", "WorstPairAudit", "TableError",
            "EpsilonAccounting",
        ],
        "a result type, built from validated values",
    ),
    "utility_table": "formats the errors the library computed (each validated where computed)",
    "release_utility": "the report's assembly from a release's validated numbers (ε = 0 or ∞: "
    "no baseline); walked through the release's entry points",
    "report_curves": "takes a report the library built; its δ and time budget go to "
    "release_curves (walked in accountant)",
    # new in the merge of main (s12): walked once their fixtures are written
    "table_anchor_errors": "needs the table's moments (mean_u, cov_u) and a post-processing",
    "table_error_rows": "formats TableError results (validated where computed)",
    "compare_design_accounting": "needs a design's certified bounds (DesignBounds)",
    "check_design_memory": "a memory guard naming its caller's parameter (`param`), not a rule",
    "RidgeScaling": "the declared maps a table's chunks are read with, built by fit_table from "
    "the release's validated options (the generator checks them again in fit_statistics)",
    "accumulate_statistics": "its dim and out_dim are read off the chunks, not given",
    "RdpCurve": "a curve's orders are validated (tests/accountant/test_validation_once.py); "
    "its rdp values need a matching length",
}  # fmt: skip

#: Parameters of one entry point that are not the library parameter of the same name.
POINTS = "ε here is where the profile δ(ε) is evaluated (an array, any real ε ≥ 0 or not)"
NOT_WALKED_PARAMETERS = {
    ("gaussian_delta", "epsilon"): POINTS,
    ("laplace_delta", "epsilon"): POINTS,
    ("privacy_profile", "epsilon"): POINTS,
    ("pair_privacy_profile", "epsilon"): POINTS,
    ("clopper_pearson_upper", "trials"): "an array of binomial counts (each ≥ 1), checked "
    "with the successes",
    ("PublicDesign", "bandwidth"): "used (and validated) by random-features only",
    ("PublicDesign", "seed"): "the design's seed, refused as `design_seed` (the release's name)",
    ("design_release", "seed"): "the design's seed, refused as `design_seed` (the release's name)",
    ("design_statistic_sensitivity", "gram_sensitivity_theory"): "used (and validated) at "
    "out_dim ≥ 2 only",
}


def _signature(obj):
    try:
        return inspect.signature(obj)
    except (TypeError, ValueError):  # an exception type without a Python __init__
        return None


def _entry_points():
    for package in WALKED:
        module = importlib.import_module(f"synthamp.{package}")
        for public in module.__all__:
            obj = getattr(module, public)
            signature = _signature(obj) if callable(obj) else None
            if signature is None or public in NOT_WALKED:
                continue
            for name in signature.parameters:
                if name in PARAMETERS and (public, name) not in NOT_WALKED_PARAMETERS:
                    yield package, public, name


def _outside(package, public, name):
    """The values just outside the rule at its ends (not every malformed value)."""
    where = {m: domain for domain, ms in DOMAINS.items() for m in ms}
    module = getattr(importlib.import_module(f"synthamp.{package}"), public).__module__
    places = (f"synthamp.{package}.{public}", f"synthamp.{package}", module)
    domain = next((where[place] for place in places if place in where), None)
    constraint = rule(name, domain)
    if isinstance(constraint, Orders):
        return [1.0]
    if isinstance(constraint, Integer):
        return [constraint.low - 1] + ([] if constraint.high is None else [constraint.high + 1])
    low = constraint.low if not constraint.low_closed else float(np.nextafter(constraint.low, -1))
    ends = [low]
    if math.isfinite(constraint.high):
        ends.append(float(np.nextafter(constraint.high, math.inf)))
    return ends


def _arguments(package, public, signature, name=None):
    own = {**OWN.get((package, public), {}), **OWN.get((package, public, name), {})}
    arguments = {}
    for name, parameter in signature.parameters.items():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        if name in own:
            arguments[name] = own[name]()
        elif parameter.default is not parameter.empty:
            continue
        elif name in PARAMETERS:
            arguments[name] = declared(name)[1].example
        else:
            arguments[name] = OTHERS[name]()
    return arguments


ENTRY_POINTS = sorted(set(_entry_points()))


def _call(obj, arguments):
    return obj(**arguments)


def _fit(obj, arguments):
    """An estimator validates its parameters when it is fitted (scikit-learn's convention)."""
    rng = np.random.default_rng(0)
    return obj(**arguments).fit(rng.uniform(-1, 1, (30, 2)), rng.uniform(-1, 1, 30))


#: Entry points reached through another call than the constructor's.
CALL = {("release", "PrivateLinearGenerator"): _fit}


@contextlib.contextmanager
def _at_most(seconds):
    """Fail (not hang) if a refused value is not refused before any long computation."""

    def late(*_):
        raise TimeoutError(f"no refusal within {seconds} s: computing with an invalid value")

    previous = signal.signal(signal.SIGALRM, late)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize(("package", "public", "name"), ENTRY_POINTS)
def test_every_entry_point_refuses_a_value_just_outside_the_rule(package, public, name, tmp_path):
    WORK.append(tmp_path)
    obj = getattr(importlib.import_module(f"synthamp.{package}"), public)
    arguments = _arguments(package, public, inspect.signature(obj), name)
    for value in _outside(package, public, name):
        with warnings.catch_warnings(), _at_most(20):
            warnings.simplefilter("ignore")
            with pytest.raises(InputError) as caught:
                CALL.get((package, public), _call)(obj, {**arguments, name: value})
        assert caught.value.param == name, (value, str(caught.value))


def test_the_walk_covers_every_public_name_that_takes_a_declared_parameter():
    walked = {public for _, public, _ in ENTRY_POINTS}
    for package in WALKED:
        module = importlib.import_module(f"synthamp.{package}")
        for public in module.__all__:
            signature = _signature(getattr(module, public))
            for name in [] if signature is None else signature.parameters:
                if name in PARAMETERS and (public, name) not in NOT_WALKED_PARAMETERS:
                    assert public in walked or public in NOT_WALKED, public


# ------------------------------------------------------------------ each rule written once
def rules_written(root: pathlib.Path = SOURCE, packages: tuple[str, ...] = WALKED) -> Counter:
    """Where a single-parameter rule of a declared parameter is written outside the table.

    Counts each call of a check of :mod:`synthamp._validation` that names a declared
    parameter (``check_open_unit("delta", …)``, ``check_dim(…)``), by parameter, in the
    walked packages; the table itself counts once per declared parameter.
    """
    written: Counter = Counter(name for name, entry in PARAMETERS.items() if entry.constraint)
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root)
        if relative.parts[0].removesuffix(".py") not in packages:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            check = node.func.id
            if check in NAMED_CHECKS:
                param = NAMED_CHECKS[check]
                if len(node.args) > 1 and isinstance(node.args[1], ast.Constant):
                    param = node.args[1].value
            elif check in RULE_CHECKS and node.args and isinstance(node.args[0], ast.Constant):
                param = node.args[0].value
            else:
                continue
            if param in PARAMETERS:
                written[declared(param)[0]] += 1
    return written


def test_each_rule_is_written_once():
    written = rules_written()
    assert {name: count for name, count in written.items() if count != 1} == {}
    for name in ("delta", "epsilon", "sigma", "dim"):
        assert written[name] == 1, name


def test_the_scan_sees_a_rule_written_twice(tmp_path):
    package = tmp_path / "accountant"
    package.mkdir()
    (package / "_x.py").write_text(
        "def f(delta, d):\n"
        "    check_open_unit('delta', delta)\n"
        "    check_dim(d)\n"
        "    check_alpha(d, 'orders')\n"
    )
    written = rules_written(tmp_path, ("accountant",))
    assert (written["delta"], written["dim"], written["alpha"]) == (2, 2, 2)
