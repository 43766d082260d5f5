"""The sufficient statistics reduced on a dask cluster (synthamp.release._dask_stats) equal the
local streaming pass to rounding, on a Parquet dataset of several files, on a small
``distributed.LocalCluster`` (threads, processes=False); a bad cell is refused by name and
partition, never quoted; the release reads a dataset folder with ``backend="dask"``."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("distributed", reason="dask is an optional extra (synthamp[dask])")

from synthamp._validation import InputError
from synthamp.release._dask_stats import dask_statistics
from synthamp.release._streaming import (
    RidgeScaling,
    accumulate_statistics,
    solve_statistics,
)
from synthamp.release._table_chunks import iter_table_chunks

U = float(np.finfo(np.float64).eps) / 2
FEATURES = [f"x{i}" for i in range(6)]


@pytest.fixture(scope="module")
def client():
    from synthamp.release._distributed import local_cluster

    with local_cluster(2, processes=False) as client:
        yield client


def _dataset(folder, parts: int = 4, rows: int = 2_500, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frames = []
    folder.mkdir()
    for p in range(parts):
        x = rng.standard_normal((rows, len(FEATURES))) * 0.5
        frame = pd.DataFrame(x, columns=FEATURES)
        frame["y"] = np.tanh(x @ rng.standard_normal(len(FEATURES))) * 1.3
        frame.to_parquet(folder / f"part-{p}.parquet", index=False)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def test_the_cluster_reduction_is_the_local_pass_to_rounding(tmp_path, client):
    table = _dataset(tmp_path / "data")
    scaling = RidgeScaling(1.0, 0.8)
    local = accumulate_statistics(
        iter_table_chunks(table, ["y"], FEATURES), scaling, dim=len(FEATURES), out_dim=1
    )
    remote = dask_statistics(tmp_path / "data", ["y"], FEATURES, scaling, scheduler=client)
    assert remote.records == local.records == len(table)
    assert remote.clipping.feature_rows == local.clipping.feature_rows > 0
    assert remote.clipping.target_rows == local.clipping.target_rows > 0
    ridge, m, d = 0.5, len(table), len(FEATURES)
    v_local, v_remote = solve_statistics(local, ridge), solve_statistics(remote, ridge)
    # the tolerance of tests/test_streaming.py: sums in another order, κ ≤ (1 + λ)/λ
    gamma = m * U / (1 - m * U)
    norm = float(np.linalg.norm(v_local))
    tol = 2 * (gamma * (norm + 1.0) + 4 * (d + 1) * U * (1 + ridge) * norm) / ridge
    assert np.linalg.norm(v_remote - v_local) <= tol < 1e-3 * norm


def test_a_bad_cell_is_refused_by_column_and_partition_never_quoted(tmp_path, client):
    table = _dataset(tmp_path / "data", parts=2, rows=50)
    table.iloc[70, 2] = np.nan  # row 21 of the second file
    table.iloc[50:].to_parquet(tmp_path / "data" / "part-1.parquet", index=False)
    with pytest.raises(InputError) as caught:
        dask_statistics(tmp_path / "data", ["y"], FEATURES, RidgeScaling(1.0), scheduler=client)
    assert caught.value.param == "features"
    assert "'x2' has a missing (NaN) value in row 21 (partition 2)" in caught.value.rule


def test_release_table_reads_a_dataset_folder_on_dask(tmp_path, client, monkeypatch):
    from synthamp.jobs import release_table

    _dataset(tmp_path / "data", parts=3, rows=400)
    monkeypatch.chdir(tmp_path)
    result = release_table(
        "data", "y", label_bound=1.0, ridge=1.0, n_syn=200, sigma=0.05, out="syn",
        partitions=2, backend="dask", scheduler=client, seed=3, max_clipped=1.0,
    )  # fmt: skip
    report = json.loads(result.reports[0].read_text(encoding="utf-8"))
    assert result.records == 200 and report["n_records"] == 1_200
    assert report["dim"] == len(FEATURES)
