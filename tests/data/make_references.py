"""Compute the stored mpmath references of the tests (tests/data/references/*.json).

Run from the repository root::

    python tests/data/make_references.py            # rebuild every stored reference
    python tests/data/make_references.py --missing  # add only the references not yet stored
    python tests/data/make_references.py --check    # recompute a sample, compare with the store
    python tests/data/make_references.py --missing --tests tests/divergence/test_finite_corners.py
                                                    # add what the named test files lack

Rebuilding runs the tests that read stored references (those that import
``references``) in record mode against an empty store, slow tests included, so
the inputs are exactly the tests' grids; each worker writes what it computed to
a shard, and the shards are merged into one file per reference function (entries
sorted by their inputs; each with 40 significant digits, the reference's own
error bound and the seconds it took; the file with the versions of mpmath, numpy
and Python that made it). It takes about 10 minutes on 2 cores.

``--check`` recomputes a random sample of the stored entries (up to
``--seconds`` of their recorded cost) and compares each with its stored value:
they must agree within the sum of the two error bounds (the reference's own
quadrature bounds; 1e-25 relative for the pointwise functions). The test suite
runs the same check on every run (tests/test_references.py).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import mpmath as mp

TESTS = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(TESTS)]

import references  # noqa: E402  (tests/ on the path first)

#: Relative agreement required of the pointwise references (40-digit arithmetic).
POINTWISE_RTOL = mp.mpf("1e-25")


def tests_reading_the_store() -> list[Path]:
    """The test files that read stored references."""
    return sorted(
        path
        for path in TESTS.rglob("test_*.py")
        if "import references" in path.read_text(encoding="utf-8")
    )


def rebuild(
    jobs: str = "auto", missing_only: bool = False, tests: list[str] | None = None
) -> dict[str, int]:
    """Recompute every reference the tests ask for into a fresh store; entries per function.

    With ``missing_only``, the tests run against the current store and only the
    references it lacks are computed and added (nothing stored is dropped);
    ``tests`` (with ``missing_only``) runs only those test files.
    """
    if tests and not missing_only:
        raise SystemExit("--tests adds to the store: give --missing too")
    with tempfile.TemporaryDirectory() as empty, tempfile.TemporaryDirectory() as shards:
        env = dict(
            os.environ,
            SYNTHAMP_REFERENCES="record",
            SYNTHAMP_REFERENCE_STORE=str(references.STORE) if missing_only else empty,
            SYNTHAMP_REFERENCE_DIR=shards,
            OPENBLAS_NUM_THREADS="1",
        )
        command = [sys.executable, "-m", "pytest", "-q", "-m", "", "-p", "no:cacheprovider"]
        command += ["-n", jobs, *(tests or map(str, tests_reading_the_store()))]
        print("running:", " ".join(command), flush=True)
        # the tests' verdicts do not matter here: every reference they asked for is recorded
        subprocess.run(command, env=env, cwd=TESTS.parent, check=False)
        merged: dict[str, dict] = {}
        for shard in sorted(Path(shards).glob("shard-*.json")):
            for name, entries in json.loads(shard.read_text(encoding="utf-8")).items():
                merged.setdefault(name, {}).update(entries)
    counts = {}
    for name, entries in sorted(merged.items()):
        if missing_only:
            entries = {**references.load(name)["entries"], **entries}
        references.write(name, {"entries": entries})
        counts[name] = len(entries)
    return counts


def agree(name: str, stored, live) -> bool:
    """Whether a live recomputation agrees with the stored value (see the module docstring)."""
    with mp.workdps(references.DIGITS + 5):
        return _agree(name, stored, live)


def _agree(name: str, stored, live) -> bool:
    if isinstance(stored, references.mpref.Reference):
        return all(
            abs(s - v) <= es + ev + mp.mpf("1e-30") * abs(v)
            for s, v, es, ev in zip(stored.value, live.value, stored.error, live.error, strict=True)
        )
    if name == "design_bounds":  # (Δ/2B, C/B, s₂/B², theory/B²), each pointwise
        return all(
            abs(s - v) <= POINTWISE_RTOL * abs(v) + mp.mpf("1e-300")
            for s, v in zip(stored, live, strict=True)
        )
    if name == "fisher_information":  # (value, error bound)
        return abs(stored[0] - live[0]) <= stored[1] + live[1] + mp.mpf("1e-30") * abs(live[0])
    return abs(stored - live) <= POINTWISE_RTOL * abs(live) + mp.mpf("1e-300")


def sample(seconds: float, seed: int) -> list[tuple[str, dict]]:
    """A random sample of stored entries whose recorded cost adds up to at most ``seconds``.

    Every function with stored entries contributes at least its cheapest one.
    """
    rng = random.Random(seed)
    entries = [
        (name, entry)
        for name in references.FUNCTIONS
        for entry in references.load(name)["entries"].values()
    ]
    rng.shuffle(entries)
    chosen, spent, seen = [], 0.0, set()
    for name, entry in entries:
        if spent + entry["seconds"] <= seconds:
            chosen.append((name, entry))
            spent += entry["seconds"]
            seen.add(name)
    for name in references.FUNCTIONS:
        stored = list(references.load(name)["entries"].values())
        if stored and name not in seen:
            chosen.append((name, min(stored, key=lambda e: e["seconds"])))
    return chosen


def check(seconds: float = 20.0, seed: int | None = None) -> list[str]:
    """Recompute a sample of the store live; the disagreements (empty when all agree)."""
    seed = random.SystemRandom().randrange(2**32) if seed is None else seed
    failures = []
    for name, entry in sample(seconds, seed):
        live, _ = references.compute(name, entry["args"])
        if not agree(name, references.decode(entry["value"]), live):
            failures.append(f"{name}{tuple(entry['args'])} (seed {seed})")
    return failures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="recompute a sample and compare")
    parser.add_argument("--seconds", type=float, default=60.0, help="cost of the sample (--check)")
    parser.add_argument("--seed", type=int, default=None, help="the sample's seed (--check)")
    parser.add_argument("--jobs", default="auto", help="pytest-xdist workers (rebuild)")
    parser.add_argument("--missing", action="store_true", help="add only what is not stored")
    parser.add_argument(
        "--tests", nargs="+", default=None, help="only these test files (--missing)"
    )
    args = parser.parse_args(argv)
    if args.check:
        failures = check(args.seconds, args.seed)
        print("\n".join(failures) or "the sample reproduces the store")
        return 1 if failures else 0
    for name, count in rebuild(args.jobs, missing_only=args.missing, tests=args.tests).items():
        print(f"{name}: {count} entries")
    return 0


if __name__ == "__main__":
    sys.exit(main())
