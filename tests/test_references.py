"""The stored mpmath references (tests/references.py) reproduce live, and their store is sound.

The slow references are computed once by tests/data/make_references.py; this file
recomputes a random sample of them on every run (the seed is in the failure
message; ``python tests/data/make_references.py --check --seed S`` repeats it).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import mpmath as mp
import pytest

import references

SCRIPT = Path(__file__).parent / "data" / "make_references.py"
_spec = importlib.util.spec_from_file_location("make_references", SCRIPT)
make_references = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_references)

#: Seconds of recorded reference cost recomputed per run (the sample rotates; each run
#: also recomputes the cheapest entry of every function). 10 s: the suite's longest quick test
#: was this one at 15 s.
SAMPLE_SECONDS = 10.0


def test_a_random_sample_of_the_store_reproduces_live():
    failures = make_references.check(SAMPLE_SECONDS)
    assert not failures, f"stored references that no longer reproduce: {failures}"


@pytest.mark.parametrize("name", sorted(references.FUNCTIONS))
def test_every_store_file_says_what_made_it(name):
    data = json.loads((references.STORE / f"{name}.json").read_text(encoding="utf-8"))
    assert data["made_by"] == "tests/data/make_references.py"
    assert data["digits"] == references.DIGITS == 40
    assert {"mpmath", "numpy", "python"} <= set(data["versions"])
    assert data["entries"], "an empty store file"
    for entry in data["entries"]:
        assert entry["seconds"] >= 0
        assert references.key(entry["args"]) == references.key(references.canonical(entry["args"]))


def test_every_stored_reference_is_read_by_a_test():
    """No stale entry: the script's test files ask for every stored function."""
    readers = " ".join(
        p.read_text(encoding="utf-8") for p in make_references.tests_reading_the_store()
    )
    for name in references.FUNCTIONS:
        assert f"references.{name}(" in readers, name


def test_the_agreement_check_can_fail():
    name, entry = next(
        (n, e) for n, e in make_references.sample(1e9, seed=0) if n == "renyi_plateau"
    )
    stored = references.decode(entry["value"])
    moved = references.mpref.Reference(
        stored.alpha, [v * (1 + mp.mpf("1e-12")) for v in stored.value], stored.error
    )
    assert make_references.agree(name, stored, stored)
    assert not make_references.agree(name, stored, moved)
    with mp.workdps(45):
        x = mp.mpf("1.5")
        assert not make_references.agree("log_likelihood_ratio", x, x * (1 + mp.mpf("1e-20")))
        assert make_references.agree("log_likelihood_ratio", x, x * (1 + mp.mpf("1e-30")))


def test_a_missing_reference_fails_and_names_the_script(monkeypatch):
    monkeypatch.delenv("SYNTHAMP_REFERENCES", raising=False)
    with pytest.raises(references.MissingReference, match=r"make_references\.py"):
        references.log_likelihood_ratio(0.123456789, 7, 1.0, 0.5)


def test_record_mode_computes_a_missing_reference_and_writes_a_shard(tmp_path):
    """The script's rebuild path, on one cheap entry, in a fresh process."""
    code = (
        "import references, mpref; "
        "v = references.log_likelihood_ratio(2.5, 3, 1.0, 0.5); "
        "assert abs(v / mpref.log_likelihood_ratio(2.5, 3, 1.0, 0.5) - 1) < 1e-14, v"
    )
    env = dict(
        os.environ,
        SYNTHAMP_REFERENCES="record",
        SYNTHAMP_REFERENCE_STORE=str(tmp_path / "empty"),
        SYNTHAMP_REFERENCE_DIR=str(tmp_path / "shards"),
    )
    subprocess.run([sys.executable, "-c", code], cwd=SCRIPT.parent.parent, env=env, check=True)
    (shard,) = (tmp_path / "shards").glob("shard-*.json")
    recorded = json.loads(shard.read_text(encoding="utf-8"))["log_likelihood_ratio"]
    (entry,) = recorded.values()
    assert entry["args"] == [2.5, 3, 1.0, 0.5]
    with mp.workdps(40):
        live = references.mpref.log_likelihood_ratio(2.5, 3, 1.0, 0.5)
    assert make_references.agree("log_likelihood_ratio", references.decode(entry["value"]), live)
