"""Partitioned and distributed release (docs/theory.md §17): what the workers get and write.

The dask tests run the synchronous scheduler (quick) and a real
``distributed.LocalCluster`` of worker processes on this machine (slow: worker
processes take seconds to start on a loaded machine; every wait is bounded).
"""

from __future__ import annotations

import io
import json
import pickle

import numpy as np
import pandas as pd
import pytest

from release_cases import TARGETS, private_frame, release_args, run
from synthamp._output._io import MANIFEST_NAME
from synthamp._validation import InputError
from synthamp.release import PrivateLinearGenerator
from synthamp.release._partitioned import PartitionTask, iter_partition, plan_partitions

dd = pytest.importorskip("dask.dataframe", reason="needs the optional extra synthamp[dask]")
distributed = pytest.importorskip("distributed", reason="needs the optional extra synthamp[dask]")

from synthamp.release._distributed import dask_frame, write_dataset  # noqa: E402

K = 3


def _generator(seed=11, n_syn=None, m=80):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(m, 5)) / 3
    y = x @ rng.normal(size=(5, K)) * 0.3
    return PrivateLinearGenerator(
        label_bound=1.0,
        ridge=0.1,
        sigma=0.5,
        accounting="post-processing",
        n_syn=n_syn,
        random_state=seed,
    ).fit(x, y)


def _arrays_in(obj) -> list[tuple[int, ...]]:
    """Shapes of every numpy array pickled along with ``obj`` (at any depth)."""
    import cloudpickle

    shapes = []

    class Spy(cloudpickle.Pickler):
        def reducer_override(self, value):
            if isinstance(value, np.ndarray):
                shapes.append(value.shape)
            return super().reducer_override(value)

    Spy(io.BytesIO(), protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    return shapes


# --------------------------------------------------------------------------- the plan


def test_plan_splits_rows_and_spawns_one_stream_per_partition():
    tasks = plan_partitions(np.eye(2), np.random.SeedSequence(5), 10, 4)
    assert [t.rows for t in tasks] == [3, 3, 2, 2]
    assert [t.seed.spawn_key for t in tasks] == [(0,), (1,), (2,), (3,)]
    firsts = [next(iter_partition(t))[0] for t in tasks]
    assert len({tuple(row) for row in firsts}) == 4  # independent streams
    assert "factor" not in repr(tasks[0]) and "seed" not in repr(tasks[0])
    with pytest.raises(InputError, match="partitions"):
        plan_partitions(np.eye(2), np.random.SeedSequence(5), 3, 4)


def test_partition_values_do_not_depend_on_the_chunk_size():
    (task,) = plan_partitions(np.triu(np.ones((K, K))), np.random.SeedSequence(9), 1000, 1)
    whole = np.concatenate(list(iter_partition(task, chunk_size=1000)))
    pieces = np.concatenate(list(iter_partition(task, chunk_size=7)))
    np.testing.assert_array_equal(whole, pieces)


def test_partition_records_have_the_released_law():
    factor = np.array([[1.0, 0.5], [0.0, 2.0]])
    (task,) = plan_partitions(factor, np.random.SeedSequence(3), 200_000, 1)
    records = np.concatenate(list(iter_partition(task)))
    covariance = records.T @ records / len(records)
    # Rows iid N(0, RᵀR): the empirical covariance within 5 standard errors.
    np.testing.assert_allclose(covariance, factor.T @ factor, atol=5 * 4.25 * 2 / 447)


def test_generator_partitions_count_against_a_finite_budget(tmp_path):
    generator = _generator(n_syn=1000)
    write_dataset(generator, tmp_path / "a", 600, partitions=2)
    assert generator.n_remaining_ == 400
    with pytest.raises(InputError, match="400 remain"):
        write_dataset(generator, tmp_path / "b", 600, partitions=2)
    assert not (tmp_path / "b").exists()


def test_distributed_release_needs_unlimited_accounting(tmp_path):
    with pytest.raises(InputError, match="n_syn=None") as info:
        write_dataset(_generator(n_syn=1000), tmp_path / "a", 100, partitions=2, backend="dask")
    assert info.value.param == "backend" and not (tmp_path / "a").exists()


# --------------------------------------------------------------------------- what the workers get


def test_no_task_carries_an_array_larger_than_k_by_k(tmp_path):
    generator = _generator()
    from synthamp.release import generator_partitions

    tasks = generator_partitions(generator, 5000, 4)
    frame = dask_frame(tasks, [*TARGETS, "y3"])
    write = frame.to_parquet(tmp_path / "out", write_index=False, compute=False)
    for graph in (frame.__dask_graph__(), write.__dask_graph__()):
        shapes = [shape for task in dict(graph).values() for shape in _arrays_in(task)]
        assert shapes, "the factor must be found in the graph (the spy works)"
        assert all(int(np.prod(shape)) <= K * K for shape in shapes), shapes
    # Every partition task holds exactly R, and R is the generator's k × k factor.
    assert all(isinstance(t, PartitionTask) and t.factor.shape == (K, K) for t in tasks)


@pytest.mark.parametrize("seed", [None, 11])
def test_no_task_carries_the_seed_of_the_noise(seed):
    from synthamp.release import generator_partitions

    generator = _generator(seed=seed)
    # The noise and the generator's own stream descend from this root entropy.
    root = generator._state("rng").bit_generator.seed_seq.entropy
    secrets = {root} | ({seed} if seed is not None else set())
    tasks = generator_partitions(generator, 1000, 4)
    for task in tasks:
        carried = {int(word) for word in np.atleast_1d(task.seed.entropy)}
        assert not carried & secrets


# --------------------------------------------------------------------------- what they write


def test_synchronous_dask_writes_what_one_process_writes(tmp_path):
    columns = ["a", "b", "c"]
    write_dataset(_generator(), tmp_path / "local", 3001, partitions=3, columns=columns)
    write_dataset(
        _generator(),
        tmp_path / "dask",
        3001,
        partitions=3,
        columns=columns,
        backend="dask",
        scheduler="synchronous",
    )
    names = sorted(p.name for p in (tmp_path / "dask").glob("*.parquet"))
    assert names == sorted(p.name for p in (tmp_path / "local").glob("*.parquet"))
    assert len(names) == 3
    for folder in ("dask", "local"):  # each marked as synthamp's own (its manifest)
        manifest = json.loads((tmp_path / folder / MANIFEST_NAME).read_text())
        assert sorted(f["name"] for f in manifest["files"]) == names
    for name in names:
        local = pd.read_parquet(tmp_path / "local" / name)
        remote = pd.read_parquet(tmp_path / "dask" / name)
        assert list(remote.columns) == columns and (remote.dtypes == np.float64).all()
        pd.testing.assert_frame_equal(local, remote)
    assert len(pd.read_parquet(tmp_path / "dask")) == 3001
    # Without a seed, two releases differ.
    write_dataset(_generator(seed=None), tmp_path / "x", 100, partitions=2)
    write_dataset(_generator(seed=None), tmp_path / "y", 100, partitions=2)
    assert not pd.read_parquet(tmp_path / "x").equals(pd.read_parquet(tmp_path / "y"))


@pytest.mark.slow
def test_local_cluster_output_does_not_depend_on_the_number_of_workers(
    tmp_path, monkeypatch, capsys
):
    from distributed import Client, LocalCluster

    monkeypatch.chdir(tmp_path)

    private_frame().to_csv("data.csv", index=False)
    common = {"--partitions": "4", "--n-syn": "20000", "--seed": "8"}
    code, _, err = run(capsys, release_args(**common, **{"--out": "local"}))
    assert code == 0, err
    with (
        LocalCluster(
            n_workers=1,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=40,
        ) as cluster,
        Client(cluster, timeout="60s") as client,
    ):
        address = cluster.scheduler_address
        for workers in (1, 2):
            cluster.scale(workers)
            client.wait_for_workers(workers, timeout=120)
            out = f"workers{workers}"
            args = release_args(
                **common, **{"--out": out, "--backend": "dask", "--scheduler": address}
            )
            code, _, err = run(capsys, args)
            assert code == 0, err
            report = json.loads((tmp_path / f"{out}.privacy.json").read_text())
            assert report["n_syn"] is None and any("dask workers" in n for n in report["notes"])
    one, two, local = (
        pd.read_parquet(tmp_path / name) for name in ("workers1", "workers2", "local")
    )
    assert len(one) == 20000 and list(one.columns) == TARGETS
    pd.testing.assert_frame_equal(one, two)
    # σ is given, so the accounting does not change V: one process writes the same records.
    pd.testing.assert_frame_equal(one, local)
