"""Fault matrix (issue 25): numbers at the edge, special files, plan's record count.

Each test states how it fails on b208f84.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import mpmath
import numpy as np
import pandas as pd
import pytest

from release_cases import FEATURES, TARGETS, one_error_line, private_frame, release_args, run
from synthamp._validation import InputError
from synthamp.release import PrivateLinearGenerator, clip_rows, ridge_sensitivity, scale_clip_rows
from synthamp.release import _tabular as tabular

SRC = str(Path(tabular.__file__).parents[1])


# --------------------------------------------------------------------------- overflow


def test_huge_cells_with_a_feature_scale_are_clipped_not_a_traceback(workdir, capsys):
    """b208f84: exit 1 with a traceback (1e308 × 10 overflowed before clipping)."""
    frame = private_frame()
    frame.loc[3, FEATURES] = 1e308
    frame.to_csv("huge.csv", index=False)
    args = release_args(**{"--data": "huge.csv", "--feature-scale": "10", "--seed": "1",
                           "--max-clipped": "1"})  # fmt: skip
    code, _, err = run(capsys, args)
    assert code == 0, err
    assert "Traceback" not in err and np.isfinite(pd.read_csv("syn.csv").to_numpy()).all()


def test_library_fit_scales_huge_cells_as_their_clipped_rows():
    """b208f84: a bare ValueError. Now the fit equals the fit on the rows clipped by hand."""
    frame = private_frame()
    x, y = frame[FEATURES].to_numpy(copy=True), frame[TARGETS].to_numpy(copy=True)
    x[3] = 1e308
    direct = np.ones(len(FEATURES)) / np.sqrt(len(FEATURES))  # where row 3 is clipped to
    with np.errstate(over="ignore"):  # row 3 overflows here, and is replaced
        x_clipped = clip_rows(np.where(np.arange(len(x))[:, None] == 3, direct, x * 10), 1.0)
    kwargs = dict(label_bound=1, ridge=0.1, sigma=0.5, accounting="post-processing")
    kwargs |= dict(sampler="seeds", random_state=3)
    a = PrivateLinearGenerator(**kwargs, feature_scale=10).fit(x, y)
    b = PrivateLinearGenerator(**kwargs, feature_scale=1).fit(x_clipped, y)
    np.testing.assert_allclose(a.sample(50), b.sample(50), rtol=1e-12, atol=1e-14)


def test_scaling_and_clipping_never_overflow_and_match_the_direct_product():
    """scale_clip_rows against clip_rows(x·s) wherever x·s is finite, and bounded elsewhere."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(400, 4)) * rng.choice([1e-300, 1e-3, 1.0, 1e3, 1e300], size=(400, 1))
    for scale in (1e-12, 0.7, 10.0, 1e12, np.array([1.0, 2.0, 1e-3, 5.0])):
        got = scale_clip_rows(x, scale, 1.0)
        with np.errstate(over="ignore"):
            product = x * scale
            finite = np.isfinite(product).all(axis=1)
            finite &= np.isfinite(np.linalg.norm(product, axis=1))
        np.testing.assert_allclose(got[finite], clip_rows(product[finite], 1.0), atol=1e-15)
        assert np.isfinite(got).all() and (np.linalg.norm(got, axis=1) <= 1.0).all()


def test_a_huge_ridge_is_refused_before_the_table_is_read(workdir, capsys, no_work):
    """b208f84: exit 1, OverflowError of ridge**1.5, after reading the table."""
    code, _, err = run(capsys, release_args(**{"--ridge": "1e308"}))
    assert code == 2 and "outside the range" in one_error_line(err, "--ridge")


@pytest.mark.parametrize("ridge", [1e-200, 1e-3, 1.0, 1e50, 1e200])
def test_sensitivity_in_log_space_matches_mpmath(ridge):
    """Δ = B(1 + 2√λ)/(mλ^1.5), computed in log space, against 50-digit mpmath."""
    mpmath.mp.dps = 50
    b, m = 2.5, 1000
    lam = mpmath.mpf(ridge)
    exact = mpmath.mpf(b) * (1 + 2 * mpmath.sqrt(lam)) / (m * lam**1.5)
    if exact > mpmath.mpf("1.7e308") or exact < mpmath.mpf("2.3e-308"):
        with pytest.raises(InputError, match="outside the range"):
            ridge_sensitivity(b, ridge, m)
        return
    assert abs(ridge_sensitivity(b, ridge, m) / exact - 1) < 1e-13


# --------------------------------------------------------------------------- ε at the edge


def test_a_tiny_epsilon_keeps_the_post_processing_baseline_of_calibrate(workdir, capsys):
    """b208f84: the report's post-processing σ was the release σ (0% saved); calibrate's is
    the Gaussian mechanism's σ at the target, here σ = Δ/(2Φ⁻¹((1 + δ)/2)) as ε → 0."""
    args = release_args(**{"--targets": "y1", "--sigma": None, "--accounting": "exact"})
    args += ["--epsilon", "1e-300", "--delta", "1e-5", "--n-syn", "100", "--no-progress"]
    code, _, err = run(capsys, args)
    assert code == 0, err
    report = json.loads(Path("syn.csv.privacy.json").read_text())
    mpmath.mp.dps = 40
    delta = mpmath.mpf("1e-5")
    quantile = mpmath.sqrt(2) * mpmath.erfinv(delta)  # Φ⁻¹((1 + δ)/2)
    expected = float(mpmath.mpf(report["sensitivity"]) / (2 * quantile))
    assert report["sigma_post_processing"] == pytest.approx(expected, rel=1e-6)
    assert report["sigma"] < report["sigma_post_processing"]


# --------------------------------------------------------------------------- special files


def _release_in_subprocess(directory: Path, data: str, seconds: float):
    command = [sys.executable, "-m", "synthamp", *release_args(**{"--data": data})]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, *sys.path])}

    def limit_memory():  # on b208f84 the /dev/zero link read until memory ran out
        resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))

    try:
        return subprocess.run(
            command, cwd=directory, env=env, capture_output=True, timeout=seconds,
            preexec_fn=limit_memory,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail(f"release on {data} still ran after {seconds} s")


def test_a_fifo_as_data_is_refused_at_once(workdir):
    """b208f84: hung forever reading the FIFO (here: fails by the timeout)."""
    os.mkfifo(workdir / "pipe.csv")
    result = _release_in_subprocess(workdir, "pipe.csv", 60)
    assert result.returncode == 2
    assert "FIFO" in one_error_line(result.stderr.decode(), "--data")


def test_a_csv_link_to_dev_zero_is_refused_at_once(workdir):
    """b208f84: read /dev/zero until memory ran out."""
    (workdir / "zero.csv").symlink_to("/dev/zero")
    result = _release_in_subprocess(workdir, "zero.csv", 60)
    assert result.returncode == 2
    assert "device" in one_error_line(result.stderr.decode(), "--data")


# --------------------------------------------------------------------------- plan's count


def test_plan_counts_records_not_lines(workdir, capsys):
    """b208f84: a quoted line break gave m = 21 for 20 records: Δ and σ too small."""
    frame = private_frame(20)
    frame["site"] = ["a\nb" if i == 5 else "a" for i in range(20)]
    frame.loc[7, "site"] = ""  # an empty cell is not a blank line
    frame.to_csv("quoted.csv", index=False)
    assert len(pd.read_csv("quoted.csv")) == 20 and open("quoted.csv").read().count("\n") == 22
    args = ["plan", "--data", "quoted.csv", "--targets", "y1,y2", "--features", ",".join(FEATURES)]
    args += ["--label-bound", "1", "--epsilon", "1", "--delta", "1e-5", "--ridge", "1", "--json"]
    code, out, err = run(capsys, args)
    assert code == 0, err
    plan = json.loads(out)
    assert plan["data"]["n_records"] == 20
    assert plan["rows"][0]["sensitivity"] == pytest.approx(ridge_sensitivity(1, 1, 20), rel=1e-12)
