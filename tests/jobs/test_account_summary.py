"""``account_summary`` and ``calibrate_summary``: the guarantee room's numbers, summarised.

The summaries compute nothing: every number must be the guarantee room's, per δ, and
their input validation names the parameter (docs/theory.md §3, §12, §14).
"""

from __future__ import annotations

import dataclasses
import warnings

import pytest

from synthamp import InputError
from synthamp.accountant import SyntheticDataRelease, account, calibrate
from synthamp.jobs import AccountSummary, account_summary, calibrate_summary

RELEASE = dict(dim=10, out_dim=1, norm_bound=2.0, sensitivity=1.0)


def test_account_summary_states_the_guarantee_rooms_epsilon_per_delta():
    deltas = [1e-3, 1e-6]
    summary = account_summary(**RELEASE, sigma=5.0, delta=deltas)
    data = summary.to_dict()
    release = SyntheticDataRelease(10, 1, 2.0, 1.0, 5.0)
    for i, d in enumerate(deltas):
        g = account(release, d)
        assert data["epsilon"][i] == g.epsilon and data["epsilon_rdp"][i] == g.epsilon_rdp
        assert data["post_processing"]["epsilon"][i] == g.epsilon_post_processing
    assert data["delta"] == deltas and data["epsilon"][0] < data["epsilon"][1]  # smaller δ: more ε
    lines = summary.lines()
    assert lines[0].startswith(f"epsilon = {data['epsilon'][0]:.6g} at delta = 0.001")
    assert sum(line.startswith("epsilon = ") for line in lines) == 2
    assert any(line.startswith("note: ") for line in lines)
    with pytest.raises(dataclasses.FrozenInstanceError):
        summary.method = "global"  # type: ignore[misc]


def test_account_summary_k2_brackets_the_curve_and_says_why():
    summary = account_summary(10, 2, 2.0, 1.0, 5.0)
    data = summary.to_dict()
    assert all(lo <= hi for lo, hi in zip(data["rdp_lower"], data["rdp"], strict=True))
    assert data["lower_bounds"]["used_for_epsilon"] is False
    assert any(
        note.startswith("k > 1: the RDP curve is a certified upper bound") for note in data["notes"]
    )
    assert any(line.startswith("at alpha ") and "RDP in [" in line for line in summary.lines())


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"delta": [1e-5, 2.0]}, "delta_grid"),
        ({"delta": 0.0}, "delta"),
        ({"discretization": -1.0}, "discretization"),
        ({"alpha": [0.5, 2.0]}, "alpha"),
    ],
)
def test_account_summary_names_the_bad_parameter(kwargs, param):
    with pytest.raises(InputError) as caught:
        account_summary(**RELEASE, sigma=5.0, **kwargs)
    assert caught.value.param == param


def test_account_summary_carries_its_warnings_instead_of_raising_them():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning escaping the summary fails the test
        summary = account_summary(**RELEASE, sigma=5.0, alpha=[2.0, 3.0], accountant="rdp")
    assert summary.warnings and summary.to_dict()["warnings"] == list(summary.warnings)
    assert isinstance(summary, AccountSummary)


def test_calibrate_summary_is_the_calibration_and_meets_the_target():
    summary = calibrate_summary(1.0, 1e-5, **RELEASE)
    g = calibrate(1.0, 1e-5, **RELEASE)
    data = summary.to_dict()
    assert data["sigma"] == g.sigma and data["epsilon"] == g.epsilon <= 1.0
    assert data["noise_saved"] == g.noise_saved and data["accountant"] == g.accountant
    assert summary.release.sigma == g.sigma
    lines = summary.lines()
    assert lines[0].startswith(f"sigma = {g.sigma:.6g} (epsilon = ")
    assert any(line.startswith("post-processing: sigma = ") for line in lines)
    with pytest.raises(InputError) as caught:
        calibrate_summary(1.0, 1e-5, **RELEASE, discretization=0.0)
    assert caught.value.param == "discretization"
