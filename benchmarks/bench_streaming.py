"""Time and peak memory of ``synthamp release`` on large tables, against the I/O floor.

For each table (m rows × d features plus one target ``y``, CSV and Parquet, generated in
chunks so that this script's own memory stays flat):

* the **I/O floor**: a plain pyarrow read pass over the same file in a fresh process
  (``pyarrow.csv.open_csv`` batches, or ``ParquetFile.iter_batches``), every value touched
  once (a column sum), nothing kept;
* ``synthamp release --data FILE --targets y --label-bound 1 --ridge 1 --epsilon 1
  --delta 1e-5 --unlimited --n-syn 1000`` in a fresh process.

Each command runs under ``/usr/bin/time -f "%e %M"``: wall seconds and the peak resident
set size (KiB). The ratio release / floor is the target of the streaming fit (≤ 1.5×, peak
≤ 1 GB at 10⁷ × 20). Run by hand, one size at a time (a 10⁷ × 20 CSV is about 4 GB):

    python benchmarks/bench_streaming.py --rows 1000000 --features 20 [--formats csv,parquet]
        [--tmp DIR] [--out docs/benchmarks/streaming.md] [--cap-gib 12]

``--cap-gib`` runs the release under ``ulimit -v`` (a MemoryError then ends it, as in the
issue's measurement of the in-memory fit).
"""

from __future__ import annotations

import argparse
import datetime
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from _common import machine_summary, markdown_table, write_report

SEED = 20_261_206
CHUNK = 500_000
ROOT = Path(__file__).resolve().parents[1]


def write_tables(rows: int, features: int, folder: Path, formats: list[str]) -> dict[str, Path]:
    """The table as CSV and/or Parquet, written chunk by chunk (flat memory)."""
    import pyarrow as pa
    import pyarrow.csv as pa_csv
    import pyarrow.parquet as pq

    names = [f"x{i + 1}" for i in range(features)] + ["y"]
    schema = pa.schema([(name, pa.float64()) for name in names])
    paths = {fmt: folder / f"table_{rows}x{features}.{fmt}" for fmt in formats}
    writers = {}
    if "csv" in paths:
        writers["csv"] = pa_csv.CSVWriter(str(paths["csv"]), schema)
    if "parquet" in paths:
        writers["parquet"] = pq.ParquetWriter(str(paths["parquet"]), schema)
    rng = np.random.default_rng(SEED)
    beta = rng.standard_normal(features)
    try:
        for start in range(0, rows, CHUNK):
            n = min(CHUNK, rows - start)
            x = rng.standard_normal((n, features)) / np.sqrt(2.0 * features)
            y = np.tanh(x @ beta + 0.1 * rng.standard_normal(n))
            table = pa.Table.from_arrays([pa.array(c) for c in [*x.T, y]], schema=schema)
            for writer in writers.values():
                writer.write_table(table)
    finally:
        for writer in writers.values():
            writer.close()
    return paths


FLOOR = """
import sys
import pyarrow as pa, pyarrow.compute as pc
path = sys.argv[1]
total = 0.0
if path.endswith(".csv"):
    import pyarrow.csv as pa_csv
    batches = pa_csv.open_csv(path)  # a RecordBatchReader: iterable
else:
    import pyarrow.parquet as pq
    batches = pq.ParquetFile(path).iter_batches(batch_size=65536)
for batch in batches:
    for column in batch.columns:
        total += pc.sum(column).as_py()
print(total)
"""


SOURCE = ROOT / "src"


def timed(args: list[str], cap_gib: float | None = None) -> tuple[float, float, int]:
    """(wall s, peak RSS MiB, exit code) of one command under /usr/bin/time."""
    command = ["/usr/bin/time", "-f", "%e %M", *args]
    if cap_gib is not None:
        limit = int(cap_gib * 1024 * 1024)
        command = ["bash", "-c", f'ulimit -v {limit}; exec "$@"', "bash", *command]
    env = {**os.environ, "PYTHONPATH": str(SOURCE)}
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    wall, peak = done.stderr.strip().splitlines()[-1].split()
    if done.returncode:
        print(done.stderr[-2000:], file=sys.stderr)
    return float(wall), int(peak) / 1024, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--features", type=int, default=20)
    parser.add_argument("--formats", default="csv,parquet")
    parser.add_argument("--tmp", default=None, help="folder for the tables (default: a temp)")
    parser.add_argument("--keep", action="store_true", help="keep the generated tables")
    parser.add_argument("--cap-gib", type=float, default=None)
    parser.add_argument("--label", default="", help="a label for the rows (e.g. the commit)")
    parser.add_argument("--out", default=None, help="Markdown report (default: stdout only)")
    parser.add_argument("--src", default=None, help="the synthamp source to run (default: ours)")
    args = parser.parse_args()
    global SOURCE
    SOURCE = Path(args.src) if args.src else SOURCE
    formats = [f.strip() for f in args.formats.split(",") if f.strip()]
    folder = Path(args.tmp or tempfile.mkdtemp(prefix="synthamp-stream-"))
    folder.mkdir(parents=True, exist_ok=True)
    started = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    load_before = os.getloadavg()[0]
    rows_out = []
    try:
        paths = {
            fmt: path
            for fmt in formats
            if (path := folder / f"table_{args.rows}x{args.features}.{fmt}").exists()
        }
        missing = [fmt for fmt in formats if fmt not in paths]
        if missing:
            paths.update(write_tables(args.rows, args.features, folder, missing))
        py = sys.executable
        for fmt, path in paths.items():
            size = path.stat().st_size / 2**20
            floor = timed([py, "-c", FLOOR, str(path)])
            out = folder / f"syn_{fmt}.parquet"
            release = timed(
                [
                    py,
                    "-m",
                    "synthamp",
                    "release",
                    "--data",
                    str(path),
                    "--targets",
                    "y",
                    "--label-bound",
                    "1",
                    "--ridge",
                    "1",
                    "--epsilon",
                    "1",
                    "--delta",
                    "1e-5",
                    "--unlimited",
                    "--n-syn",
                    "1000",
                    "--out",
                    str(out),
                    "--force",
                ],
                args.cap_gib,
            )
            status = "ok" if release[2] == 0 else f"exit {release[2]}"
            rows_out.append([
                args.label, f"{args.rows:,} × {args.features}", fmt, f"{size:,.0f}",
                f"{floor[0]:.1f}", f"{floor[1]:,.0f}", f"{release[0]:.1f}", f"{release[1]:,.0f}",
                f"{release[0] / floor[0]:.2f}", status,
            ])  # fmt: skip
            print(rows_out[-1], flush=True)
    finally:
        if not args.keep and args.tmp is None:
            shutil.rmtree(folder, ignore_errors=True)
    header = [
        "code", "table", "format", "file MiB", "floor s", "floor peak MiB", "release s",
        "release peak MiB", "release / floor", "status",
    ]  # fmt: skip
    lines = [
        f"# `synthamp release` against the I/O floor ({started})",
        "",
        f"Machine: {machine_summary()}; load average {load_before:.1f} at the start.",
        "",
        *markdown_table(header, rows_out),
        "",
    ]
    print("\n".join(lines))
    if args.out:
        write_report(args.out, lines)


if __name__ == "__main__":
    main()
