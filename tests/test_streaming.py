"""The streaming fit (synthamp.release._streaming, _table_chunks, _table_fit): one pass over
chunks of rows gives the in-memory ridge fit to rounding, the same clipping counts and the
same refusals, with memory independent of the number of rows.

Tolerance (derived, not fitted). Rows have ‖xᵢ‖ ≤ 1, ‖yᵢ‖ ≤ B after clipping. Computing
XᵀX and XᵀY by sums in any order perturbs them by E, e with |E| ≤ γ_m Σ|xᵢ||xᵢ|ᵀ and
|e| ≤ γ_m Σ|xᵢ||yᵢ|ᵀ (Higham, Accuracy and Stability, §3.5; γ_m = mu/(1 − mu)), so
‖E‖₂ ≤ ‖E‖_F ≤ γ_m·m and ‖e‖_F ≤ γ_m·m·B. A = XᵀX + mλI has λ_min(A) ≥ mλ, so each
computed sum moves v = A⁻¹XᵀY by at most (‖E‖‖v‖ + ‖e‖)/(mλ) ≤ γ_m(‖v‖ + B)/λ (first
order), and the Cholesky solve adds a backward error c·d·u·‖A‖ (‖A‖ ≤ m(1 + λ)), i.e.
c·d·u·(1 + λ)/λ·‖v‖. Two fits (streamed and in memory) differ by at most the sum of both:

    tol = 2·[γ_m(‖v‖ + B) + 4(d + 1)·u·(1 + λ)·‖v‖]/λ      (Frobenius norm of v − v′)

A wrong fit (a chunk lost or counted twice, a row not clipped, another λ) misses it by
orders of magnitude: the last test checks that the tolerance separates them.
"""

from __future__ import annotations

import math
import resource
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from synthamp._validation import InputError
from synthamp.release._column_bounds import check_clipping, clipping_verdict
from synthamp.release._ridge import clip_rows, map_into_bounds, ridge_fit, scale_clip_rows
from synthamp.release._streaming import (
    RidgeScaling,
    accumulate_statistics,
    chunk_statistics,
    solve_statistics,
)
from synthamp.release._table_chunks import iter_table_chunks, table_columns

U = float(np.finfo(np.float64).eps) / 2


def _tolerance(m: int, d: int, ridge: float, norm_v: float, label_bound: float) -> float:
    gamma = m * U / (1 - m * U)
    return 2 * (gamma * (norm_v + label_bound) + 4 * (d + 1) * U * (1 + ridge) * norm_v) / ridge


def _table(m: int, d: int, k: int, seed: int, spread: float = 0.6):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((m, d)) * spread / math.sqrt(d)
    x[:: max(1, m // 7)] *= 3.0  # some rows beyond norm 1: clipped
    y = x @ rng.standard_normal((d, k)) + 0.1 * rng.standard_normal((m, k))
    return x, y


def _in_memory(x, y, ridge, label_bound, scale=1.0, bounds=None):
    """The in-memory fit exactly as PrivateLinearGenerator.fit computes v (before C, σ)."""
    if bounds is not None:
        x = map_into_bounds(x, bounds[:, 0], bounds[:, 1])
    return ridge_fit(scale_clip_rows(x, scale, 1.0), clip_rows(y, label_bound), ridge)


def _chunks(x, y, rows):
    """Copies, as the reader's chunks are (the accumulation may modify a chunk)."""
    for start in range(0, len(x), rows):
        yield x[start : start + rows].copy(), y[start : start + rows].copy()


@pytest.mark.parametrize(
    ("m", "d", "k", "ridge", "rows"),
    [
        (5_000, 20, 1, 1.0, 333),  # the release's default λ, many uneven chunks
        (20_000, 8, 2, 1e-3, 4_096),  # small λ: κ ≈ 10³
        (3_000, 50, 3, 0.1, 3_000),  # one chunk
        (40, 60, 1, 0.5, 7),  # m < d: the in-memory fit solves the dual, the stream the primal
    ],
)
def test_the_streamed_solution_is_the_in_memory_fit_to_rounding(m, d, k, ridge, rows):
    x, y = _table(m, d, k, seed=m + d)
    label_bound = 1.5
    scaling = RidgeScaling(label_bound, 0.9)
    stats = accumulate_statistics(_chunks(x, y, rows), scaling, dim=d, out_dim=k)
    streamed = solve_statistics(stats, ridge)
    memory = _in_memory(x, y, ridge, label_bound, scale=0.9)
    tol = _tolerance(m, d, ridge, float(np.linalg.norm(memory)), label_bound)
    assert stats.records == m
    assert np.linalg.norm(streamed - memory) <= tol
    assert np.linalg.norm(memory) > 1e3 * tol  # the check is not vacuous


def test_declared_bounds_are_applied_per_row_as_in_memory():
    x, y = _table(6_000, 5, 1, seed=3)
    x = x * 40 + 100  # columns in their own units
    bounds = np.array([[60.0, 140.0]] * 5)
    bounds[2] = [90.0, 110.0]  # one column clamped often
    scaling = RidgeScaling(1.0, 1.0, bounds)
    stats = accumulate_statistics(_chunks(x, y, 1_000), scaling, dim=5, out_dim=1)
    memory = _in_memory(x, y, 0.3, 1.0, bounds=bounds)
    tol = _tolerance(6_000, 5, 0.3, float(np.linalg.norm(memory)), 1.0)
    assert np.linalg.norm(solve_statistics(stats, 0.3) - memory) <= tol
    # the clipping counts and the refusal's wording are the in-memory check's
    names, targets = [f"x{i}" for i in range(5)], ["y"]
    kwargs = dict(label_bound=1.0, bounds=bounds, max_clipped=0.05)
    with pytest.raises(InputError) as whole:
        check_clipping(x, names, y, targets, **kwargs)
    with pytest.raises(InputError) as streamed:
        clipping_verdict(stats.clipping, names, targets, **kwargs)
    assert streamed.value.rule == whole.value.rule


def test_the_clipping_notes_of_chunks_are_those_of_the_whole_table():
    x, y = _table(9_001, 6, 2, seed=5)
    y *= 3
    scaling = RidgeScaling(2.0, 1.2)
    stats = accumulate_statistics(_chunks(x, y, 1_234), scaling, dim=6, out_dim=2)
    names, targets = [f"x{i}" for i in range(6)], ["a", "b"]
    kwargs = dict(label_bound=2.0, feature_scale=1.2, max_clipped=1.0)
    assert clipping_verdict(stats.clipping, names, targets, **kwargs) == check_clipping(
        x, names, y, targets, **kwargs
    )
    assert 0 < stats.clipping.feature_rows < 9_001 and 0 < stats.clipping.target_rows


def test_a_file_read_in_chunks_gives_the_rows_and_refuses_as_the_whole_read(tmp_path):
    x, y = _table(1_000, 3, 1, seed=9)
    frame = pd.DataFrame(np.c_[x, y], columns=["a", "b", "c", "y"])
    frame["note"] = "text"  # an unused text column is never parsed as a number
    frame.to_csv(tmp_path / "t.csv", index=False)
    frame.to_parquet(tmp_path / "t.parquet", index=False)
    for path in (tmp_path / "t.csv", tmp_path / "t.parquet", frame):
        targets, features = table_columns(path, ["y"], ["a", "b", "c"])
        parts = list(iter_table_chunks(path, targets, features, rows=300))
        assert np.array_equal(np.concatenate([p[0] for p in parts]), x)
        assert np.array_equal(np.concatenate([p[1] for p in parts]), y)
    frame.loc[700, "b"] = np.nan  # row 701 of the data, past the first chunks
    frame.to_csv(tmp_path / "nan.csv", index=False)
    frame.to_parquet(tmp_path / "nan.parquet", index=False)
    for path in (tmp_path / "nan.csv", tmp_path / "nan.parquet", frame):
        with pytest.raises(InputError, match=r"column 'b' has a missing \(NaN\) value in row 701"):
            list(iter_table_chunks(path, ["y"], ["a", "b", "c"], rows=300))
    text = frame.astype({"c": object})
    text.loc[650, "c"] = "secret-cell"
    text.loc[700, "b"] = 0.5
    text.to_csv(tmp_path / "text.csv", index=False)
    with pytest.raises(InputError) as caught:
        list(iter_table_chunks(tmp_path / "text.csv", ["y"], ["a", "b", "c"]))
    assert caught.value.param == "features" and "'c' is not numeric" in caught.value.rule
    assert "secret" not in str(caught.value)  # the table is private: no cell in a message


def test_the_tolerance_separates_a_wrong_fit():
    x, y = _table(5_000, 10, 1, seed=1)
    scaling = RidgeScaling(1.0)
    memory = _in_memory(x, y, 1.0, 1.0)
    tol = _tolerance(5_000, 10, 1.0, float(np.linalg.norm(memory)), 1.0)
    parts = list(_chunks(x, y, 1_000))
    lost = accumulate_statistics(parts[:-1], scaling, dim=10, out_dim=1)  # a chunk lost
    unclipped = chunk_statistics(x.copy(), y, RidgeScaling(1e9, 1.0))  # targets not clipped
    for wrong in (solve_statistics(lost, 1.0), solve_statistics(unclipped, 1.0)):
        assert np.linalg.norm(wrong - memory) > 1e3 * tol


PEAK_SCRIPT = textwrap.dedent(
    """
    import resource, sys
    import numpy as np
    from synthamp.release._streaming import RidgeScaling, accumulate_statistics
    m, d = int(sys.argv[1]), 20
    rng = np.random.default_rng(0)
    def chunks():
        for start in range(0, m, 65_536):
            rows = min(65_536, m - start)
            x = rng.standard_normal((rows, d)) / 10
            yield x, x[:, :1] * 0.5
    stats = accumulate_statistics(chunks(), RidgeScaling(1.0), dim=d, out_dim=1)
    assert stats.records == m
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    """
)


def test_the_accumulation_memory_does_not_grow_with_the_rows():
    """Peak RSS (KiB) of the accumulation over 10⁵ and 10⁶ rows in fresh processes: the
    table of 10⁶ × 21 doubles is 168 MB, the growth allowed is 1/10 of that."""

    def peak(m: int) -> int:
        done = subprocess.run(
            [sys.executable, "-c", PEAK_SCRIPT, str(m)], capture_output=True, text=True,
            check=True,
        )  # fmt: skip
        return int(done.stdout.split()[-1])

    small, large = peak(100_000), peak(1_000_000)
    assert large - small < 1_000_000 * 21 * 8 / 1024 / 10
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss > 0


def test_a_parquet_file_is_read_one_row_group_at_a_time(tmp_path, monkeypatch):
    """Row groups one at a time (pyarrow's read-ahead over the whole file held about the
    file's size: 1.97 GB at 10⁷ × 21), a large group page by page; the rows the same."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from synthamp.release import _table_chunks

    x, y = _table(5_000, 3, 1, seed=4)
    table = pa.table({"a": x[:, 0], "b": x[:, 1], "c": x[:, 2], "y": y[:, 0]})
    pq.write_table(table, tmp_path / "t.parquet", row_group_size=700)
    assert pq.ParquetFile(tmp_path / "t.parquet").num_row_groups == 8
    for limit in (_table_chunks.PREBUFFER_LIMIT, 0):  # 0: every group read page by page
        monkeypatch.setattr(_table_chunks, "PREBUFFER_LIMIT", limit)
        parts = list(iter_table_chunks(tmp_path / "t.parquet", ["y"], ["a", "b", "c"], rows=300))
        assert max(len(p[0]) for p in parts) <= 300
        assert np.array_equal(np.concatenate([p[0] for p in parts]), x)
        assert np.array_equal(np.concatenate([p[1] for p in parts]), y)
