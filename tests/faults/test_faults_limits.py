"""Fault matrix: bounded resources and numbers typed at the boundary.

A design's m × m work is refused up front when it cannot fit in memory (the available
memory is monkeypatched: no test allocates anything large); library numbers are numbers
(text and booleans refused). Each test states how it fails on the old code (4c93a73).
"""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from release_cases import one_error_line, run
from synthamp._validation import InputError, check_integer, check_positive
from synthamp.design import _memory
from synthamp.design._designs import PublicDesign
from synthamp.design._memory import (
    DESIGN_MATRICES,
    MEMORY_FRACTION,
    check_design_memory,
    design_memory,
)
from synthamp.design._plan import plan_design
from synthamp.design._release import design_release

#: The available memory the tests pretend: 2 GB (a design may use 1 GB: m ≤ ~4,200).
SMALL = 2 * 10**9


@pytest.fixture
def small_machine(monkeypatch):
    """2 GB available, and a kernel that fails the test if the design's work starts."""

    def fail(self):
        raise AssertionError("the m × m work started before the memory check")

    monkeypatch.setattr(_memory, "available_memory", lambda: SMALL)
    monkeypatch.setattr(PublicDesign, "kernel", fail)


# --------------------------------------------------------------------------- design memory


def test_the_check_says_the_need_the_memory_and_the_largest_m(monkeypatch):
    """Old: no check (m = 20,000 asked for 4 m × m arrays: a MemoryError traceback)."""
    monkeypatch.setattr(_memory, "available_memory", lambda: SMALL)
    with pytest.raises(InputError) as caught:
        check_design_memory(40_000)
    rule = caught.value.rule
    assert caught.value.param == "design" and "m = 40,000" in rule and "GB" in rule
    largest = int(rule.split("m ≈ ")[1].split()[0].replace(",", ""))
    assert design_memory(largest) <= MEMORY_FRACTION * SMALL < design_memory(int(largest * 1.1))
    check_design_memory(largest)  # the m it suggests passes
    monkeypatch.setattr(_memory, "available_memory", lambda: None)
    check_design_memory(40_000)  # unknown memory: no refusal


def test_available_memory_is_positive_here():
    found = _memory.available_memory()
    assert found is None or found > 0


def test_library_design_release_is_refused_before_the_kernel(small_machine):
    """Old: the m × m kernel of 5,000 records was computed (here: the kernel fails)."""
    y = np.zeros(5_000)
    with pytest.raises(InputError, match="m ≈ 4,2"):
        design_release(y, "random-seeds", 10, 1, epsilon=1.0, delta=1e-5)


def test_library_plan_design_is_refused_before_the_kernel(small_machine):
    with pytest.raises(InputError, match="m = 5,000 records"):
        plan_design(
            n_records=5_000, widths=[10], design_seed=1, label_bound=1.0, epsilon=1.0,
            delta=1e-5,
        )  # fmt: skip


@pytest.mark.parametrize("command", ["plan", "release"])
def test_cli_design_on_too_many_records_is_one_line_before_reading(
    command, small_machine, no_work, tmp_path, monkeypatch, capsys
):
    """Old: the kernel was computed (a MemoryError traceback at m = 20,000; here the kernel
    fails); the table's values are never read (``no_work``)."""
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(0)
    pd.DataFrame({"x": rng.normal(size=5_000), "y": rng.uniform(-1, 1, 5_000)}).to_csv(
        "big.csv", index=False
    )
    args = [command, "--data", "big.csv", "--targets", "y", "--label-bound", "1",
            "--epsilon", "1", "--delta", "1e-5", "--design", "random-seeds", "--width", "10",
            "--design-seed", "1"]  # fmt: skip
    if command == "release":
        args += ["--ridge", "0.1", "--n-syn", "10", "--out", "syn.csv", "--no-progress"]
    code, _, err = run(capsys, args)
    line = one_error_line(err, "--design")
    assert code == 2 and "m = 5,000 records" in line and "sample the table" in line
    assert not (tmp_path / "syn.csv").exists()


def test_design_memory_estimate_covers_the_measured_peak():
    """The estimate (DESIGN_MATRICES arrays) is above numpy's traced peak of the m × m work
    (the kernel, then the bounds while the kernel is held, as on the release's and the
    plan's paths) with LAPACK's workspace (about 1.3 arrays, untraced) to spare."""
    from synthamp.design._designs import design_bounds

    m = 800
    tracemalloc.start()
    try:
        kernel, _ = PublicDesign("random-seeds", 30, m, 1).kernel()
        bounds = design_bounds(kernel, 0.1, 1.0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert bounds.gram.shape == (m, m)
    assert peak + 1.5 * 8 * m * m <= design_memory(m), (peak / (8 * m * m), DESIGN_MATRICES)


# --------------------------------------------------------------------------- typed numbers


@pytest.mark.parametrize("value", ["0.1", True, np.True_, b"1", None, [0.1]])
def test_text_and_booleans_are_not_numbers(value):
    """Old: float('0.1') and float(True) were taken (sigma='0.1', epsilon=True accepted)."""
    with pytest.raises(InputError, match="must be a number"):
        check_positive("sigma", value)


@pytest.mark.parametrize("value", [0.5, 2, np.float32(0.5), np.int64(2), np.array(0.5)])
def test_python_and_numpy_numbers_are_numbers(value):
    assert check_positive("sigma", value) == pytest.approx(float(value))


@pytest.mark.parametrize("value", ["3", True, np.True_, 3.5])
def test_integers_refuse_text_booleans_and_fractions(value):
    with pytest.raises(InputError):
        check_integer("n_syn", value)


def test_library_entry_points_refuse_text_and_booleans():
    """Old: calibrate_sigma(epsilon=True) calibrated at ε = 1; the generator took sigma='0.1'."""
    from synthamp.accountant import calibrate_sigma
    from synthamp.release import PrivateLinearGenerator

    with pytest.raises(InputError) as caught:
        calibrate_sigma(True, 1e-5, dim=10, norm_bound=1.0, sensitivity=0.1, accountant="rdp")
    assert caught.value.param == "epsilon"
    x = np.random.default_rng(0).normal(size=(20, 3)) / 3
    with pytest.raises(InputError) as caught:
        PrivateLinearGenerator(label_bound=1, ridge=0.1, sigma="0.1").fit(x, x[:, :1])
    assert caught.value.param == "sigma"


# --------------------------------------------------------------------------- scale of a release


class _Hung(BaseException):
    """Raised by the alarm of :func:`deadline` (a BaseException: nothing on the way catches it)."""


@pytest.fixture
def deadline():
    """Fail, never hang: the old code looped forever on --label-bound 1e160."""

    def expire(signum, frame):
        raise _Hung

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(8)
    try:
        yield
    except _Hung:
        pytest.fail("still running after 8 s (the old endless loop)")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _write_private(tmp_path, monkeypatch):
    from release_cases import private_frame

    monkeypatch.chdir(tmp_path)
    private_frame().to_csv("data.csv", index=False)


@pytest.mark.parametrize("label_bound", ["1e80", "1e150", "1e160", "1e300"])
def test_cli_huge_label_bound_is_one_line_or_a_release(label_bound, tmp_path, monkeypatch):
    """Old: 1e80…1e150 an OverflowError traceback in utility.gram_error_bound; 1e160 an
    endless loop in _bisect_sigma (√(lo·hi) overflowed; run in a subprocess with a timeout:
    the loop ran in a thread of the release, which an alarm cannot stop). Now B = 1e80 is
    released (C, Δ within 1e100) and the others are refused naming --label-bound."""
    from release_cases import release_args

    _write_private(tmp_path, monkeypatch)
    args = release_args(**{"--label-bound": label_bound, "--sigma": None, "--epsilon": "1",
                           "--delta": "1e-5", "--accounting": "exact"})  # fmt: skip
    src = str(Path(_memory.__file__).parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([src, *sys.path])}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "synthamp", *args, "--no-progress"], cwd=tmp_path, env=env,
            capture_output=True, text=True, timeout=30,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail("still running after 30 s (the old endless loop)")
    if label_bound == "1e80":
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        return
    line = one_error_line(done.stderr, "--label-bound")
    assert done.returncode == 2 and "outside the range a release handles" in line


def test_cli_huge_ridge_names_the_ridge_not_the_norm_bound(tmp_path, monkeypatch, capsys):
    """Old: "--norm-bound: must be >= 1e-150" for --ridge 1e300 (C = 5e-151 underflowed the
    accountant's floor): a flag the user never gave."""
    from release_cases import release_args

    _write_private(tmp_path, monkeypatch)
    args = release_args(**{"--ridge": "1e300", "--sigma": None, "--epsilon": "1",
                           "--delta": "1e-5"})  # fmt: skip
    code, _, err = run(capsys, [*args, "--no-progress"])
    line = one_error_line(err, "--ridge")
    assert code == 2 and "--norm-bound" not in line and "5e-151" in line


@pytest.mark.parametrize(
    ("call", "param"),
    [
        ("design", "label_bound"),  # design_release(label_bound=1e300): an endless loop
        ("generator", "label_bound"),  # PrivateLinearGenerator(label_bound=1e308)
        ("generator_ridge", "ridge"),
    ],
)
def test_library_scale_errors_name_the_parameter(call, param, deadline):
    from synthamp.release import PrivateLinearGenerator

    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(40, 3)) / 3, rng.uniform(-1, 1, 40)
    with pytest.raises(InputError) as caught:
        if call == "design":
            design_release(y, "random-seeds", 10, 1, epsilon=1.0, delta=1e-5, label_bound=1e300)
        elif call == "generator":
            PrivateLinearGenerator(label_bound=1e308, ridge=0.1, epsilon=1, delta=1e-5).fit(x, y)
        else:
            PrivateLinearGenerator(label_bound=1, ridge=1e300, epsilon=1, delta=1e-5).fit(x, y)
    assert caught.value.param == param and "--" not in str(caught.value)


def test_gram_error_bound_at_the_largest_sigma_is_finite():
    """Old: σ = 1e100 (MAX_SIGMA, accepted) raised OverflowError in σ⁴; the hypot form is
    checked against 50-digit mpmath at scales where both are finite."""
    import mpmath

    from synthamp.utility import gram_error_bound

    mpmath.mp.dps = 50
    for sigma, c, n in ((1e100, 1e100, 7), (0.3, 2.0, None), (1e-120, 1e-100, 1000)):
        got = gram_error_bound(sigma=sigma, dim=30, out_dim=2, norm_bound=c, n_syn=n)
        s2, c2, d, k = mpmath.mpf(sigma) ** 2, mpmath.mpf(c) ** 2, 30, 2
        # the exact worst case (docs/theory.md §18): a rank-one vᵀv of trace C²
        noise = 2 * (k + 1) * s2 * c2 + d * k * (k + 1) * s2**2
        ref = noise
        if n is not None:
            mean_sq = c2**2 + 2 * d * s2 * c2 + d * d * k * s2**2
            trace_sq = (c2 + d * k * s2) ** 2 + 2 * d * k * s2**2 + 4 * s2 * c2
            ref += (mean_sq + noise + trace_sq) / n
        assert got == pytest.approx(float(mpmath.sqrt(ref)), rel=1e-13)


# --------------------------------------------------------------------------- bisections


class _Counted:
    """ε(σ) = scale/σ, failing the test after ``limit`` calls (the old loop never ended)."""

    def __init__(self, scale: float, limit: int = 5_000, nan_below: float = 0.0):
        self.scale, self.limit, self.calls, self.nan_below = scale, limit, 0, nan_below

    def __call__(self, sigma: float):
        self.calls += 1
        assert self.calls <= self.limit, "the search did not end"
        if sigma < self.nan_below:
            return (math.nan,)
        return (self.scale / sigma,)


@pytest.mark.parametrize("scale", [1e160, 1e300, 1e-300])
def test_sigma_bisection_stays_in_the_doubles_and_ends(scale):
    """Old: mid = √(lo·hi) overflowed past 1.3e154: σ = inf met every target and the
    bracket never closed (B = 1e160 hung the release)."""
    from synthamp.accountant._calibration import _bisect_sigma

    eps = _Counted(scale)
    sigma, (value,) = _bisect_sigma(eps, 1.0, scale / 1e3, 1e-4)
    assert value <= 1.0 and scale <= sigma <= scale * (1 + 2e-4) and eps.calls < 200


def test_sigma_bisection_takes_nan_as_above_the_target():
    """Old: ε = NaN compared False with the target and was taken as met (σ too small)."""
    from synthamp.accountant._calibration import _bisect_sigma

    eps = _Counted(1.0, nan_below=3.0)  # NaN below σ = 3, where ε would be 1/3 ≤ 1
    sigma, (value,) = _bisect_sigma(eps, 1.0, 10.0, 1e-4)
    assert sigma >= 3.0 and value <= 1.0


def test_sigma_bisection_past_the_doubles_is_one_error():
    from synthamp.accountant._calibration import _bisect_sigma

    with pytest.raises(InputError, match="no finite σ"):
        _bisect_sigma(lambda sigma: (math.inf,), 1.0, 1.0, 1e-4)


def test_pld_regula_falsi_far_below_the_scale_of_epsilon_ends_quickly():
    """Old: with ε = 1e-300 regula falsi crept rtol/2 per step: 1,281 steps (44 s) for
    calibrate(epsilon=1e-300); bisection after two one-sided steps needs a few dozen."""
    from synthamp.accountant._sigma_search import MAX_SIGMA_STEPS, _illinois_sigma

    calls = []

    def eps(sigma: float) -> float:  # 0 from σ = 40 on, like the exact profile at ε → 0
        calls.append(sigma)
        assert len(calls) <= 2_000
        return max(0.0, 1.0 - sigma / 40.0)

    sigma = _illinois_sigma(eps, 1e-300, 100.0, 1e-4)
    assert eps(sigma) <= 1e-300 and 40.0 <= sigma <= 40.0 * (1 + 1e-4)
    assert len(calls) <= 60 < MAX_SIGMA_STEPS


# --------------------------------------------------------------------------- time budgets


def test_a_huge_composition_falls_back_to_rdp_and_says_so(monkeypatch):
    """Old: compute_epsilon(releases=10**9) ran > 170 s (a PLD grid of ~2e8 points). Here the
    grid limit is lowered so that T = 1000 passes it: the guarantee is RDP's, labelled."""
    import synthamp.accountant._pld as pld
    from synthamp.accountant import SyntheticDataRelease, compute_epsilon

    release = SyntheticDataRelease(dim=10, out_dim=1, norm_bound=1.0, sensitivity=0.1,
                                   sigma=1.0, releases=1000)  # fmt: skip
    rdp = compute_epsilon(release, 1e-5, accountant="rdp")
    monkeypatch.setattr(pld, "MAX_COMPOSED_POINTS", 10_000)
    got = compute_epsilon(release, 1e-5)
    assert got.accountant == "rdp" and got.epsilon == rdp.epsilon
    assert "PLD composition of 1,000 releases" in got.pld_fallback and "RDP" in got.pld_fallback
    with pytest.raises(InputError) as caught:  # the PLD asked for by name: one error
        compute_epsilon(release, 1e-5, accountant="pld")
    assert caught.value.param == "releases"


def test_a_composition_past_its_time_budget_falls_back_to_rdp(monkeypatch):
    import synthamp.accountant._pld as pld
    from synthamp.accountant import SyntheticDataRelease, compute_epsilon

    monkeypatch.setattr(pld, "BUDGETED_POINTS", 0)  # every convolution checks the budget
    release = SyntheticDataRelease(dim=10, out_dim=1, norm_bound=1.0, sensitivity=0.1,
                                   sigma=1.0, releases=50)  # fmt: skip
    got = compute_epsilon(release, 1e-5, time_budget=0.0)
    assert got.accountant == "rdp" and "ran past its time budget" in got.pld_fallback


@pytest.mark.filterwarnings("ignore::synthamp.accountant.OrderGridWarning")
def test_calibrate_at_a_tiny_epsilon_is_quick_and_sound():
    """Old: calibrate(epsilon=1e-300) took 44 s (20 s here): 1,281 regula falsi steps."""
    import time

    from synthamp.accountant import calibrate

    start = time.process_time()  # CPU time: the work, not the machine's load
    got = calibrate(1e-300, 1e-5, dim=10, out_dim=1, norm_bound=1.0, sensitivity=0.1)
    assert time.process_time() - start < 10.0 and got.epsilon <= 1e-300


# --------------------------------------------------------------------------- errors name parameters


def test_library_errors_name_parameters_and_the_cli_flags():
    """Old: plan_table's library error said "(no --n-syn, --releases or --accounting)"."""
    from synthamp.jobs._release_checks import check_noise_options

    with pytest.raises(InputError) as caught:
        check_noise_options(1.0, 1e-5, 0.5)
    assert str(caught.value) == "sigma: give either sigma or epsilon/delta, not both"
    assert caught.value.flag_rule == "give either --sigma or --epsilon/--delta, not both"
    assert InputError("n_syn", "see `design_seed`").flag_rule == "see --design-seed"


def test_a_finite_release_whose_unlimited_composition_stops_keeps_its_rdp_number(monkeypatch):
    """The rule weighs the unlimited release's PLD (k = 1, finite n_syn): when its composition
    stops, the finite release's RDP ε stands alone, with one note saying why."""
    import synthamp.accountant._pld as pld
    from synthamp.accountant import SyntheticDataRelease, compute_epsilon

    monkeypatch.setattr(pld, "MAX_COMPOSED_POINTS", 10_000)
    release = SyntheticDataRelease(dim=10, out_dim=1, norm_bound=1.0, sensitivity=0.1,
                                   sigma=1.0, n_syn=50, releases=1000)  # fmt: skip
    got = compute_epsilon(release, 1e-5)
    assert got.accountant == "rdp" and got.guarantee == "finite_rdp"
    assert got.pld_fallback.count("PLD composition of 1,000 releases") == 1


def test_cli_account_says_why_the_pld_stopped(monkeypatch, capsys):
    """The command's text carries the note (the guarantee's pld_fallback), not only the library."""
    import synthamp.accountant._pld as pld

    monkeypatch.setattr(pld, "MAX_COMPOSED_POINTS", 10_000)
    code, out, err = run(
        capsys,
        ["account", "--dim", "10", "--norm-bound", "1", "--sensitivity", "0.1", "--sigma", "1",
         "--delta", "1e-5", "--releases", "1000", "--no-progress"],
    )  # fmt: skip
    assert code == 0, err
    assert "accountant rdp" in out and "note: the PLD composition of 1,000 releases" in out
