"""Fault matrix: bounded resources and numbers typed at the boundary.

A design's m × m work is refused up front when it cannot fit in memory (the available
memory is monkeypatched: no test allocates anything large); library numbers are numbers
(text and booleans refused). Each test states how it fails on the old code (4c93a73).
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pandas as pd
import pytest

from release_cases import one_error_line, run
from synthamp._validation import InputError, check_integer, check_positive
from synthamp.release import _design_memory
from synthamp.release._design_memory import (
    DESIGN_MATRICES,
    MEMORY_FRACTION,
    check_design_memory,
    design_memory,
)
from synthamp.release._design_plan import plan_design
from synthamp.release._design_release import design_release
from synthamp.release._designs import PublicDesign

#: The available memory the tests pretend: 2 GB (a design may use 1 GB: m ≤ ~4,200).
SMALL = 2 * 10**9


@pytest.fixture
def small_machine(monkeypatch):
    """2 GB available, and a kernel that fails the test if the design's work starts."""

    def fail(self):
        raise AssertionError("the m × m work started before the memory check")

    monkeypatch.setattr(_design_memory, "available_memory", lambda: SMALL)
    monkeypatch.setattr(PublicDesign, "kernel", fail)


# --------------------------------------------------------------------------- design memory


def test_the_check_says_the_need_the_memory_and_the_largest_m(monkeypatch):
    """Old: no check (m = 20,000 asked for 4 m × m arrays: a MemoryError traceback)."""
    monkeypatch.setattr(_design_memory, "available_memory", lambda: SMALL)
    with pytest.raises(InputError) as caught:
        check_design_memory(40_000)
    rule = caught.value.rule
    assert caught.value.param == "design" and "m = 40,000" in rule and "GB" in rule
    largest = int(rule.split("m ≈ ")[1].split()[0].replace(",", ""))
    assert design_memory(largest) <= MEMORY_FRACTION * SMALL < design_memory(int(largest * 1.1))
    check_design_memory(largest)  # the m it suggests passes
    monkeypatch.setattr(_design_memory, "available_memory", lambda: None)
    check_design_memory(40_000)  # unknown memory: no refusal


def test_available_memory_is_positive_here():
    found = _design_memory.available_memory()
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
    """The estimate (DESIGN_MATRICES arrays) is above numpy's traced peak with LAPACK's
    workspace (about 1.3 arrays, untraced) to spare: re-measured on the release's path."""
    m = 600
    y = np.random.default_rng(1).uniform(-1, 1, m)
    tracemalloc.start()
    try:
        design_release(y, "random-seeds", 40, 1, epsilon=1.0, delta=1e-5, ridge=0.1)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
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
