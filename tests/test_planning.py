"""Release planning: :func:`synthamp.release.plan_release`, ``read_shape``, ``synthamp plan``.

C and Δ are checked against the closed forms of docs/theory.md §13 written out
here, the Gram error against its formula for an unlimited release, the noise
against the accountant's calibration of each row, and the docs/theory.md §16
example (5,000 × 20, λ = 1: amplification saves < 1% of the noise; a width of
10⁵ saves much more). The shape reader is shown not to parse values: tables
whose cells are not numbers, and a Parquet reader that refuses to read data,
still give their shape.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from synthamp import InputError
from synthamp.release import account_release, plan_release, read_shape


def _write(path, m=300, d=6, k=1, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(m, d)) / math.sqrt(d)
    frame = pd.DataFrame(x, columns=[f"x{i}" for i in range(d)])
    for j in range(k):
        frame[f"y{j}"] = np.tanh(x[:, j])
    if path.suffix == ".csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path)
    return frame


# --------------------------------------------------------------------------- the shape only


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_read_shape(tmp_path, suffix):
    path = tmp_path / f"t{suffix}"
    _write(path, m=300, d=6, k=2)
    assert read_shape(path, ["y0", "y1"]) == (300, 6, 2)
    assert read_shape(path, ["y0"], ["x0", "x1", "x2"]) == (300, 3, 1)
    with pytest.raises(InputError, match="'nope' is not in"):
        read_shape(path, ["nope"])
    with pytest.raises(InputError, match="also a target"):
        read_shape(path, ["y0"], ["y0", "x1"])
    with pytest.raises(InputError, match="need d ≥ k"):
        read_shape(path, ["y0", "y1"], ["x0"])


def test_read_shape_parses_no_csv_value(tmp_path):
    path = tmp_path / "t.csv"
    # Cells that no number parser accepts, a blank line, no final newline: the shape still reads.
    path.write_text('a,b,y\nsecret,1,2\n\nx,"q",z\nsecret,1,2')
    assert read_shape(path, ["y"]) == (3, 2, 1)


def test_read_shape_reads_no_parquet_data(tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    path = tmp_path / "t.parquet"
    _write(path, m=50, d=4)

    def refuse(*args, **kwargs):
        raise AssertionError("the data were read")

    monkeypatch.setattr(pq.ParquetFile, "read", refuse)
    monkeypatch.setattr(pq.ParquetFile, "iter_batches", refuse)
    monkeypatch.setattr(pq, "read_table", refuse)
    monkeypatch.setattr(pd, "read_parquet", refuse)
    assert read_shape(path, ["y0"]) == (50, 4, 1)


# --------------------------------------------------------------------------- the plan


def test_plan_rows_match_closed_forms_and_the_accountant():
    from synthamp.accountant import calibrate, calibrate_sigma

    m, d, b, eps, delta = 2000, 30, 2.0, 1.0, 1e-6
    plan = plan_release(
        n_records=m, n_features=d, label_bound=b, epsilon=eps, delta=delta,
        ridges=[0.05, 2.0], widths=[30, 3000],
    )  # fmt: skip
    assert [(r.width, r.ridge) for r in plan.rows] == [
        (30, 0.05),
        (30, 2.0),
        (3000, 0.05),
        (3000, 2.0),
    ]
    for row in plan.rows:
        lam = row.ridge
        assert row.norm_bound == pytest.approx(b / (2 * math.sqrt(lam)), rel=1e-14)
        assert row.sensitivity == pytest.approx(
            b * (1 + 2 * math.sqrt(lam)) / (m * lam**1.5), rel=1e-14
        )
        # the guarantee rule (PLD for k = 1 unlimited), as release applies it: one σ for both
        shape = dict(dim=row.width, norm_bound=row.norm_bound, sensitivity=row.sensitivity)
        cal = calibrate(eps, delta, **shape)
        assert row.sigma == cal.sigma and row.sigma_post_processing == cal.sigma_post_processing
        released = account_release(
            epsilon=eps, delta=delta, sigma=None, out_dim=1, n_syn=None, method="exact",
            choice=None, **shape,
        )  # fmt: skip
        assert (row.sigma, row.epsilon) == (released.sigma, released.epsilon)
        assert (
            cal.accountant == "pld"
            and row.sigma < calibrate_sigma(eps, delta, **shape, accountant="rdp").sigma
        )
        assert row.epsilon <= eps
        assert row.noise_saved == pytest.approx(max(0.0, 1 - row.sigma / row.sigma_post_processing))
        c2, s2 = row.norm_bound**2, row.sigma**2
        assert row.gram_error == pytest.approx(math.sqrt(4 * s2 * c2 + 2 * row.width * s2**2))
        assert row.relative_gram_error == pytest.approx(row.gram_error / c2)
        assert row.gram_error_post_processing >= row.gram_error * (1 - 1e-12) or row.width > d
    assert plan.best == int(np.argmin([r.error_with_bias for r in plan.rows]))
    # A wider generator is amplified more at the same λ.
    assert plan.rows[2].noise_saved > plan.rows[0].noise_saved


def test_theory_section_16_example_amplification_does_not_pay_on_an_ordinary_table():
    plan = plan_release(
        n_records=5000, n_features=20, label_bound=1, epsilon=1, delta=1e-5,
        ridges=[1.0], widths=[20, 100_000],
    )  # fmt: skip
    ordinary, wide = plan.rows
    assert ordinary.noise_saved < 0.01 and wide.noise_saved > 0.1
    # 2c² at λ = 1 is far above 20 (docs/theory.md §16: c ≈ 200).
    assert ordinary.width_for_amplification > 1e4


def test_plan_validates_its_input():
    common = dict(n_records=100, n_features=5, label_bound=1, epsilon=1, delta=1e-5)
    with pytest.raises(InputError, match="ridge"):
        plan_release(**common, ridges=[0.0])
    with pytest.raises(InputError, match="width"):
        plan_release(**common, n_targets=2, widths=[1])
    with pytest.raises(InputError, match="method"):
        plan_release(**common, method="post-processing")
