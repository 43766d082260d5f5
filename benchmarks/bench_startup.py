"""Benchmark: start-up time of ``import synthamp`` and of ``synthamp --help``.

Target (issue 11): ``synthamp --help`` within 2× of ``python -c "import numpy"``
measured in the same run.

Each command runs in a fresh subprocess (a cold interpreter, warm file cache),
``--repeats`` times; the commands are interleaved round by round, so that a
change of the machine's load touches all of them alike. Reported: the median
wall time of each command and its ratio to the numpy baseline of the same run.

* baseline: ``python -c "import numpy"``;
* ``python -c "import synthamp"``: the package face (light by design: the
  engine, the accountant and the generator load on first use);
* ``synthamp --help``: the console script (``python -m synthamp --help``
  if the script is not on PATH); the command table is lazy: listing the commands imports
  none of them (their one-line helps are in ``synthamp.cli.COMMANDS``), so neither the
  accountant nor scipy, pandas or scikit-learn is loaded (reported below the table);
* for information: ``import synthamp.accountant`` (numpy + scipy.special +
  the engine) and ``synthamp account --help``.

Run by hand::

    python benchmarks/bench_startup.py              # 21 rounds
    python benchmarks/bench_startup.py --repeats 7  # quicker

It prints a Markdown table and writes it to docs/benchmarks/startup.md
(``--out`` to change).
"""

from __future__ import annotations

import argparse
import datetime
import os
import shutil
import statistics
import subprocess
import sys
import time

from _common import machine_summary, markdown_table, write_report

TARGET_RATIO = 2.0


def commands() -> list[tuple[str, list[str]]]:
    """(label, argv) of every command timed; the first is the baseline."""
    python = sys.executable
    script = shutil.which("synthamp")
    cli = [script] if script else [python, "-m", "synthamp"]
    cli_label = "synthamp" if script else "python -m synthamp"
    return [
        ('`python -c "import numpy"` (baseline)', [python, "-c", "import numpy"]),
        ('`python -c "import synthamp"`', [python, "-c", "import synthamp"]),
        (f"`{cli_label} --help`", [*cli, "--help"]),
        ('`python -c "import synthamp.accountant"`', [python, "-c", "import synthamp.accountant"]),
        (f"`{cli_label} account --help`", [*cli, "account", "--help"]),
    ]


def run_once(argv: list[str]) -> float:
    """Wall time (s) of one run of ``argv`` in a fresh process; fails loudly on error."""
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return time.perf_counter() - start


def heavy_modules_at_import() -> list[str]:
    """Heavy packages that ``import synthamp`` loads (should be none)."""
    code = (
        "import sys, synthamp; print(' '.join(m for m in ('scipy', 'scipy.optimize', "
        "'scipy.special', 'sklearn', 'matplotlib', 'pandas', 'rich') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return out.stdout.split()


#: The library rooms and heavy packages ``synthamp --help`` should not load.
NOT_AT_HELP = (
    "scipy", "pandas", "sklearn", "matplotlib", "rich", "synthamp.accountant",
    "synthamp.divergence", "synthamp.release", "synthamp.design", "synthamp.audit",
    "synthamp.figures", "synthamp.report", "synthamp.bounds",
)  # fmt: skip


def heavy_modules_at_help() -> list[str]:
    """Which of :data:`NOT_AT_HELP` ``python -m synthamp --help`` loads (should be none)."""
    code = (
        "import runpy, sys\n"
        "sys.argv = ['synthamp', '--help']\n"
        "try:\n"
        "    runpy.run_module('synthamp', run_name='__main__', alter_sys=True)\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(' '.join(m for m in {NOT_AT_HELP!r} if m in sys.modules), file=sys.stderr)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return out.stderr.split()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=21, help="rounds (each runs every command)")
    parser.add_argument("--out", default="docs/benchmarks/startup.md")
    args = parser.parse_args()

    cases = commands()
    load_start = os.getloadavg()[0]
    for _, argv in cases:  # warm-up: file cache, .pyc files
        run_once(argv)
    times: list[list[float]] = [[] for _ in cases]
    for _ in range(args.repeats):
        for i, (_, argv) in enumerate(cases):
            times[i].append(run_once(argv))
    medians = [statistics.median(t) for t in times]
    base = medians[0]
    rows = []
    for (label, _), median, spread in zip(cases, medians, times, strict=True):
        target = ""
        if "--help" in label and "account" not in label:
            met = "met" if median <= TARGET_RATIO * base else "NOT met"
            target = f"≤ {TARGET_RATIO:g}× baseline: {met}"
        rows.append(
            [
                label,
                f"{1e3 * median:.0f} ms",
                f"{1e3 * min(spread):.0f}–{1e3 * max(spread):.0f} ms",
                f"{median / base:.2f}",
                target,
            ]
        )
    heavy = heavy_modules_at_import()
    at_help = heavy_modules_at_help()
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# Start-up benchmark",
        "",
        f"`benchmarks/bench_startup.py --repeats {args.repeats}`, {now}: medians of "
        f"{args.repeats} fresh subprocesses per command, commands interleaved round by "
        "round; ratio = median / median of the numpy baseline of the same run.",
        f"Machine: {machine_summary()}; load average {load_start:.1f} at the start.",
        "",
        *markdown_table(["command", "median", "range", "ratio", "target"], rows),
        "",
        "Heavy packages loaded by `import synthamp`: " + (", ".join(heavy) or "none") + ".",
        "Library rooms and heavy packages loaded by `synthamp --help`: "
        + (", ".join(at_help) or "none")
        + ".",
        "",
    ]
    print("\n".join(lines))
    write_report(args.out, lines)


if __name__ == "__main__":
    main()
