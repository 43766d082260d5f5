"""Benchmark: writing an unlimited release as a partitioned Parquet dataset.

Issue 14 (docs/theory.md §17). Records per second for n records of dimension
k = 5, written as P Parquet files:

* **one process**: :func:`synthamp.release._partitioned.write_partitions`, partitions
  one after the other, each streamed in chunks;
* **dask**: :func:`synthamp.release._distributed.write_partitions_dask` on a
  ``distributed.LocalCluster`` of 2 worker processes (one thread each) on this
  machine; the time excludes starting the cluster (reported apart).

Each run is a fresh subprocess, so its peak resident set size (``ru_maxrss``)
is its own; for dask the largest worker is measured too (the workers are the
subprocess's children). Peak memory is measured at n/100, n/10 and n for the
one-process writer: flat in n means the stream never holds more than a chunk.

Run by hand (the full run writes 4 GB twice; minutes)::

    python benchmarks/bench_distributed.py                 # n = 10^8
    python benchmarks/bench_distributed.py --n 10000000    # a loaded machine

It prints a Markdown table and writes it to docs/benchmarks/distributed.md
(``--out`` to change).
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from _common import machine_summary, markdown_table, write_report

OUT_DIM = 5
WORKERS = 2


def _generator():
    """A fitted generator, d = 10, k = 5, σ given, unlimited accounting."""
    from synthamp.release import PrivateLinearGenerator

    rng = np.random.default_rng(0)
    features = rng.normal(size=(500, 10)) / 4
    targets = features @ rng.normal(size=(10, OUT_DIM)) * 0.1
    return PrivateLinearGenerator(
        label_bound=1.0, ridge=0.1, sigma=0.5, accounting="post-processing"
    ).fit(features, targets)


def child(mode: str, n: int, partitions: int) -> dict:
    """One measured run (in a fresh process); returns times and peak memory."""
    from synthamp.release._partitioned import (
        default_columns,
        generator_partitions,
        write_partitions,
    )

    generator = _generator()
    columns = default_columns(OUT_DIM)
    tasks = generator_partitions(generator, n, partitions)
    folder = Path(tempfile.mkdtemp(prefix="synthamp-bench-"))
    result = {"mode": mode, "n": n, "partitions": partitions}
    try:
        if mode == "local":
            start = time.perf_counter()
            rows = write_partitions(tasks, folder, columns)
            result["seconds"] = time.perf_counter() - start
        else:
            from synthamp.release import local_cluster, write_partitions_dask

            start = time.perf_counter()
            with local_cluster(WORKERS) as client:
                result["startup"] = time.perf_counter() - start
                start = time.perf_counter()
                rows = write_partitions_dask(tasks, folder, columns, scheduler=client)
                result["seconds"] = time.perf_counter() - start
        assert rows == n
        result["bytes"] = sum(p.stat().st_size for p in folder.iterdir())
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    result["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    result["children_rss_mb"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return result


def measure(mode: str, n: int, partitions: int) -> dict:
    command = [sys.executable, __file__, "--child", mode, str(n), str(partitions)]
    output = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    return json.loads(output.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10**8, help="records (default 10^8)")
    parser.add_argument("--partitions", type=int, default=100)
    parser.add_argument("--out", default="docs/benchmarks/distributed.md")
    parser.add_argument("--child", nargs=3, metavar=("MODE", "N", "P"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        mode, n, partitions = args.child
        print(json.dumps(child(mode, int(n), int(partitions))))
        return

    n, partitions = args.n, args.partitions
    runs = [measure("local", size, max(1, partitions * size // n)) for size in (n // 100, n // 10)]
    runs += [measure("local", n, partitions), measure("dask", n, partitions)]
    rows = []
    for run in runs:
        where = "one process" if run["mode"] == "local" else f"LocalCluster, {WORKERS} workers"
        workers = f"{run['children_rss_mb']:.0f}" if run["mode"] == "dask" else "–"
        startup = f"{run['startup']:.1f}" if "startup" in run else "–"
        rows.append(
            [
                where,
                f"{run['n']:.0e}".replace("e+0", "e"),
                str(run["partitions"]),
                f"{run['seconds']:.1f}",
                f"{run['n'] / run['seconds'] / 1e6:.2f}",
                startup,
                f"{run['rss_mb']:.0f}",
                workers,
                f"{run['bytes'] / 1e9:.2f}",
            ]
        )
    local, dask = runs[2], runs[3]
    ratio = (dask["n"] / dask["seconds"]) / (local["n"] / local["seconds"])
    lines = [
        "# Distributed release (`benchmarks/bench_distributed.py`)",
        "",
        f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC on {machine_summary()}.",
        "",
        f"k = {OUT_DIM}, Parquet (snappy), one fresh process per run. Peak RSS in MB "
        "(driver; for dask also the largest worker process).",
        "",
        *markdown_table(
            [
                "writer",
                "records",
                "P",
                "seconds",
                "M records/s",
                "cluster start (s)",
                "peak RSS",
                "worker RSS",
                "GB written",
            ],
            rows,
        ),
        "",
        f"dask / one process throughput: {ratio:.2f}.",
        "",
    ]
    print("\n".join(lines))
    write_report(args.out, lines)


if __name__ == "__main__":
    main()
