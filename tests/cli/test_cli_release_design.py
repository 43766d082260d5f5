"""``synthamp release --design``: the public design end to end (issue 24)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from synthamp.cli import main
from synthamp.release import PublicDesign, design_bounds


@pytest.fixture
def table(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(2)
    frame = pd.DataFrame(rng.normal(size=(80, 3)), columns=["a", "b", "c"])
    frame["y"] = np.tanh(frame.sum(axis=1))
    frame.to_csv("t.csv", index=False)
    return tmp_path


ARGS = [
    "release", "--data", "t.csv", "--targets", "y", "--label-bound", "1", "--ridge", "0.01",
    "--epsilon", "1", "--delta", "1e-5", "--n-syn", "500", "--design", "random-seeds",
    "--width", "2000", "--design-seed", "9", "--out", "s.csv", "--no-progress",
]  # fmt: skip


def test_design_release_writes_records_and_reports_with_the_public_bounds(table, capsys):
    assert main([*ARGS, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    report = json.loads((table / "s.csv.privacy.json").read_text())
    assert len(pd.read_csv(table / "s.csv")) == 500 == report["records"]
    # Δ, C and s₂ are the design's own bounds, recomputed here from its public seed
    kernel, _ = PublicDesign("random-seeds", 2000, 80, 9).kernel()
    bounds = design_bounds(kernel, 0.01, 1.0)
    assert report["sensitivity"] == pytest.approx(bounds.sensitivity, rel=1e-12)
    assert report["norm_bound"] == pytest.approx(bounds.norm_bound, rel=1e-12)
    assert report["gram_sensitivity"] == pytest.approx(bounds.gram_sensitivity, rel=1e-12)
    assert report["design_seed"] == 9 and report["design_seed_public"] is True
    assert report["sigma"] == report["sigma_gram"] < report["sigma_norm"]
    assert report["epsilon"] <= 1.0 and report["kind"] == "exact"
    # the utility beside the baseline on the same statistic, and never noise saved as utility
    verdict = report["utility"]["utility_verdict"]
    assert verdict and "baseline" in verdict
    assert report["utility"]["gram_error_baseline"] == report["utility"]["gram_error_baseline_s2"]
    assert printed["written"]["synthetic"].endswith("s.csv") and printed["design"] == report
    page = (table / "s.csv.privacy.html").read_text()
    assert "public seed 9" in page and "not utility" in page


def test_design_options_are_checked_before_the_table_is_read(table, capsys):
    assert main([*ARGS[:-7], "--design", "random-seeds", "--out", "s.csv"]) == 2
    assert "--width D and --design-seed S" in capsys.readouterr().err
    assert main([*ARGS[:15], "--width", "10", "--out", "s.csv"]) == 2
    assert "applies only with --design" in capsys.readouterr().err
    assert not (table / "s.csv").exists()


def test_plan_with_a_design_gives_the_release_its_sigma(table, capsys):
    plan = [
        "plan", "--data", "t.csv", "--targets", "y", "--label-bound", "1", "--ridge", "0.01",
        "--epsilon", "1", "--delta", "1e-5", "--design", "random-seeds", "--width", "2000",
        "--design-seed", "9", "--no-progress",
    ]  # fmt: skip
    assert main([*plan, "--json"]) == 0
    row = json.loads(capsys.readouterr().out)["rows"][0]
    assert main([*ARGS, "--json"]) == 0
    capsys.readouterr()
    report = json.loads((table / "s.csv.privacy.json").read_text())
    for key in ("sensitivity", "norm_bound", "gram_sensitivity", "sigma", "sigma_norm"):
        assert row[key] == report[key], key
    assert main(plan) == 0
    text = capsys.readouterr().out
    assert "public design random-seeds, seed 9" in text and "s₂" in text
    assert "Analyze Gauss" in text and "output perturbation of v" in text
    assert main([*plan, "--n-syn", "10"]) == 2
    assert "one unlimited release" in capsys.readouterr().err


@pytest.mark.parametrize("backend", ["local", pytest.param("dask", marks=pytest.mark.slow)])
def test_a_design_release_writes_partitions_locally_and_on_dask(table, capsys, backend):
    if backend == "dask":
        pytest.importorskip("distributed", reason="dask[distributed] is an optional extra")
    args = [a if a != "s.csv" else "parts" for a in ARGS]
    args[args.index("500")] = "3000"
    assert main([*args, "--partitions", "3", "--backend", backend, "--json"]) == 0
    capsys.readouterr()
    import pyarrow.parquet as pq

    parts = sorted((table / "parts").glob("*.parquet"))
    assert len(parts) == 3
    records = np.concatenate([pq.read_table(p).column("y").to_numpy() for p in parts])
    report = json.loads((table / "parts.privacy.json").read_text())
    assert records.size == 3000 == report["records"]
    # the parts are independent draws of one law N(0, σ_z²‖V‖²): not copies of one stream
    assert len({float(pq.read_table(p).column("y")[0].as_py()) for p in parts}) == 3
    if backend == "dask":
        assert "dask" in (table / "parts.privacy.md").read_text()
