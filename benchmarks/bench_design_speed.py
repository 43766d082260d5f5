"""The speed of a random-seeds release at D = 10⁶ against a one-pass numpy floor, same run.

wine's shape (scikit-learn ``load_wine``: m = 178, target = class − 1, k = 1, B = 1),
``random-seeds`` design, width D (default 10⁶), public seed 7, λ = 0.01, (ε, δ) = (1, 1e-5).
Per round, in turn (median over the rounds, load average before and after each):

* **floor**: the design drawn once (``default_rng([seed, j]).standard_normal((m, b))`` per
  block of 4,096 columns, the design's definition) and one matrix product per block
  (K += BBᵀ), nothing else, with BLAS on one thread (on 2 loaded cores the faster choice:
  see ``--floor-threads``);
* **design work**: what the release does on the design, :func:`design_pass` (K, XN and NᵀN
  from one pass), the certified bounds (:func:`design_bounds`) and VᵀV
  (:func:`released_gram`);
* **two passes**: the same through the two-pass API, ``design_bounds(PublicDesign)`` then
  ``design_model`` (the design drawn twice; BLAS on one thread inside both loops);
* **release**: :func:`synthamp.design.design_release` end to end (the design work plus the
  two calibrations of σ and the comparison with concrete pairs), library call, no I/O;
* **before** (``--before SRC``, a checkout's ``src`` of the code before this change): the
  two-pass API of that tree, in a subprocess (its OpenBLAS threads as they were).

Run by hand: ``python benchmarks/bench_design_speed.py [--width D] [--rounds R]
[--before SRC] [--out PATH]`` (several minutes at D = 10⁶ on 2 loaded cores; default output
docs/benchmarks/design_speed.md).
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import subprocess
import sys
import time

import numpy as np

from _common import machine_summary, markdown_table, write_report
from synthamp.design import design_release
from synthamp.design._designs import (
    BLOCK_COLUMNS,
    PublicDesign,
    design_bounds,
    design_model,
    design_pass,
)
from synthamp.design._stream import one_blas_thread, released_gram

SEED, RIDGE, EPSILON, DELTA = 7, 0.01, 1.0, 1e-5

#: The two-pass API (present before and after the change), timed in a subprocess.
TWO_PASS = """
import sys, time
import numpy as np
from sklearn.datasets import load_wine
from synthamp.design._designs import PublicDesign, design_bounds, design_model
y = load_wine(return_X_y=True)[1] - 1.0
start = time.perf_counter()
design = PublicDesign("random-seeds", int(sys.argv[1]), y.size, 7)
bounds = design_bounds(design, 0.01, 1.0)
model = design_model(design, y, bounds.dual, bounds.norms)
print(time.perf_counter() - start, bounds.sensitivity, bounds.norm_bound, bounds.gram_sensitivity)
"""


def floor(m: int, width: int, threads: int | None) -> float:
    """The design drawn once and one product per block (module docstring); seconds."""
    start = time.perf_counter()
    k = np.zeros((m, m))

    def run() -> None:
        for j, col in enumerate(range(0, width, BLOCK_COLUMNS)):
            b = min(BLOCK_COLUMNS, width - col)
            x = np.random.default_rng([SEED, j]).standard_normal((m, b))
            k.__iadd__(x @ x.T)

    if threads == 1:
        with one_blas_thread():
            run()
    else:
        run()
    return time.perf_counter() - start


def design_work(y: np.ndarray, width: int) -> tuple[float, tuple[float, float, float]]:
    """The release's design work (one pass, bounds, VᵀV); seconds and (Δ, C, s₂)."""
    start = time.perf_counter()
    design = PublicDesign("random-seeds", width, y.size, SEED)
    noise = np.random.default_rng(1)
    spectrum, drawn = design_pass(design, noise, 1)
    bounds = design_bounds(spectrum, RIDGE, 1.0)
    released_gram(spectrum, bounds.dual, y, drawn, 0.02)
    elapsed = time.perf_counter() - start
    return elapsed, (bounds.sensitivity, bounds.norm_bound, bounds.gram_sensitivity)


def two_passes(y: np.ndarray, width: int) -> float:
    """design_bounds(PublicDesign) then design_model: the design drawn twice; seconds."""
    start = time.perf_counter()
    design = PublicDesign("random-seeds", width, y.size, SEED)
    bounds = design_bounds(design, RIDGE, 1.0)
    design_model(design, y, bounds.dual, bounds.norms)
    return time.perf_counter() - start


def release(y: np.ndarray, width: int) -> float:
    """design_release end to end (library call); seconds."""
    start = time.perf_counter()
    design_release(y, "random-seeds", width, SEED, epsilon=EPSILON, delta=DELTA, ridge=RIDGE)
    return time.perf_counter() - start


def before(src: str, width: int) -> tuple[float, tuple[float, float, float]]:
    """The two-pass API of another tree (``src``), in a subprocess; seconds and (Δ, C, s₂)."""
    env = {**os.environ, "PYTHONPATH": src}
    out = subprocess.run(
        [sys.executable, "-c", TWO_PASS, str(width)], env=env, check=True, capture_output=True,
        text=True,
    ).stdout.split()  # fmt: skip
    return float(out[0]), (float(out[1]), float(out[2]), float(out[3]))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--width", type=int, default=10**6)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", default=None, help="src of the tree before the change")
    parser.add_argument(
        "--floor-threads", action="store_true", help="also the floor with BLAS's own threads"
    )
    parser.add_argument("--out", default="docs/benchmarks/design_speed.md")
    args = parser.parse_args()
    from sklearn.datasets import load_wine  # heavy: for the data set only

    y = load_wine(return_X_y=True)[1] - 1.0
    m, width = y.size, args.width
    times: dict[str, list[float]] = {}
    loads: list[float] = []
    bounds_now = bounds_before = None
    for r in range(args.rounds):
        loads.append(os.getloadavg()[0])
        times.setdefault("floor", []).append(floor(m, width, 1))
        if args.floor_threads:
            times.setdefault("floor, BLAS's own threads", []).append(floor(m, width, None))
        elapsed, bounds_now = design_work(y, width)
        times.setdefault("design work (one pass)", []).append(elapsed)
        times.setdefault("two passes (this tree)", []).append(two_passes(y, width))
        times.setdefault("release, end to end", []).append(release(y, width))
        if args.before:
            elapsed, bounds_before = before(args.before, width)
            times.setdefault("before: two passes (old tree)", []).append(elapsed)
        loads.append(os.getloadavg()[0])
        print(r, {k: round(v[-1], 2) for k, v in times.items()}, loads[-2:], flush=True)
    base = float(np.median(times["floor"]))
    rows = [
        [name, f"{np.median(v):.2f}", f"{min(v):.2f}–{max(v):.2f}", f"{np.median(v) / base:.2f}"]
        for name, v in times.items()
    ]
    table = markdown_table(["what", "median (s)", "range (s)", "× floor"], rows)
    same = ""
    if bounds_before is not None:
        rel = max(abs(a - b) / b for a, b in zip(bounds_now, bounds_before, strict=True))
        same = f" Δ, C, s₂ of this tree and the old one agree to {rel:.1e} relative."
    head = [
        "# A random-seeds release at D = 10⁶ against the one-pass floor "
        "(`python benchmarks/bench_design_speed.py`)",
        "",
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, {machine_summary()}; "
        f"load average {min(loads):.1f}–{max(loads):.1f} during the run. wine's shape "
        f"(m = {m}, k = 1), D = {width:,}, seed {SEED}, λ = {RIDGE}; {args.rounds} rounds, "
        "each measurement in turn; ratios against the floor of the same run (module "
        f"docstring).{same}",
        "",
    ]
    write_report(args.out, head + table + [""])
    if not math.isfinite(base):
        raise SystemExit("no floor")


if __name__ == "__main__":
    main()
