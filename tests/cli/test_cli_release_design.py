"""``synthamp release --design``: the public design end to end (issue 24)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from synthamp.cli import main
from synthamp.design import PublicDesign, design_bounds


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
    bounds = design_bounds(PublicDesign("random-seeds", 2000, 80, 9), 0.01, 1.0)
    assert report["sensitivity"] == pytest.approx(bounds.sensitivity, rel=1e-12)
    assert report["norm_bound"] == pytest.approx(bounds.norm_bound, rel=1e-12)
    assert report["gram_sensitivity"] == pytest.approx(bounds.gram_sensitivity, rel=1e-12)
    assert report["design_seed"] == 9 and report["design_seed_public"] is True
    assert report["sigma"] == report["sigma_gram"] < report["sigma_norm"]
    assert report["epsilon"] <= 1.0 and report["kind"] == "exact"
    # the utility beside the baseline on the same statistic, and never noise saved as utility
    verdict = report["utility"]["utility_verdict"]
    assert verdict.startswith("Verdict: ") and "from the 500 records written" in verdict
    rows = report["utility"]["utility_table"]
    assert rows[0]["n_syn"] == 500 and rows[0]["rmse_unlimited"] < rows[0]["rmse"]
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


def _first_screen(page: str) -> str:
    """The HTML page above its fold (what a reader sees before opening a detail)."""
    return page.split('id="details"')[0]


FEATURES = [
    "release", "--data", "t.csv", "--targets", "y", "--label-bound", "1", "--ridge", "0.01",
    "--epsilon", "1", "--delta", "1e-5", "--n-syn", "100", "--design", "random-features",
    "--width", "300", "--design-seed", "9", "--out", "s.csv", "--no-progress",
]  # fmt: skip


def test_random_features_need_declared_public_inputs_that_are_not_targets(table, capsys):
    from synthamp.jobs._release_checks import PRIVATE_INPUTS

    assert main(FEATURES) == 2
    err = capsys.readouterr().err.strip().splitlines()
    from synthamp._validation import flag_text

    assert err == [f"synthamp: error: --public-inputs: {flag_text(PRIVATE_INPUTS)}"]
    assert "without --design" in err[0] and "§13" in err[0]
    assert main([*FEATURES, "--public-inputs", "a,y"]) == 2
    assert "'y' is also a target" in capsys.readouterr().err
    assert main([*ARGS, "--public-inputs", "a"]) == 2  # random-seeds reads no input column
    assert "only with --design random-features" in capsys.readouterr().err
    assert not (table / "s.csv").exists()


@pytest.mark.parametrize("design", ["random-features", "random-seeds"])
def test_every_output_of_a_design_release_says_what_is_protected(table, capsys, design):
    from synthamp.report import DESIGN_ADJACENCY, PUBLIC_INPUTS, protected_columns

    args = [*FEATURES, "--public-inputs", "a,b"] if design == "random-features" else ARGS
    sentence = protected_columns(design == "random-features")
    assert (sentence == PUBLIC_INPUTS) == (design == "random-features")
    assert main(args) == 0
    assert sentence in capsys.readouterr().out  # terminal
    report = json.loads((table / "s.csv.privacy.json").read_text())
    assert report["protected"] == sentence
    markdown = (table / "s.csv.privacy.md").read_text()
    assert sentence in markdown.split("## ")[0]  # before the first section
    assert DESIGN_ADJACENCY in markdown and "features and targets" not in markdown
    first = _first_screen((table / "s.csv.privacy.html").read_text())
    assert sentence in first
    assert "regressors are public" not in markdown


@pytest.mark.parametrize("seeded", [False, True], ids=["os-entropy", "seeded"])
@pytest.mark.parametrize("kind", ["generator", "design"])
def test_every_report_says_where_the_noise_came_from(table, capsys, kind, seeded):
    """The generator's and the design release's JSON, Markdown, HTML and terminal, with
    and without --seed: one seed-policy wording, noise_secret as it happened."""
    import html

    from synthamp.report import SEEDED_WARNING, seed_policy

    args = ARGS if kind == "design" else [*ARGS[:15], "--feature-scale", "0.25"]
    args = [*args, "--out", "s.csv", "--no-progress"] + (["--seed", "42"] if seeded else [])
    assert main(args) == 0, capsys.readouterr().err
    terminal = capsys.readouterr().out
    sentence = seed_policy(seeded)
    report = json.loads((table / "s.csv.privacy.json").read_text())
    assert report["noise_secret"] is (not seeded)
    assert sentence in report["seed_policy"]
    assert sentence in (table / "s.csv.privacy.md").read_text()
    page = (table / "s.csv.privacy.html").read_text()
    assert html.escape(sentence) in page
    assert (html.escape(sentence) in _first_screen(page)) is seeded
    assert (SEEDED_WARNING in terminal and sentence in terminal) is seeded
    assert seed_policy(not seeded) not in report["seed_policy"]


def test_design_bounds_that_cannot_be_certified_are_refused_in_one_line(
    tmp_path, monkeypatch, capsys
):
    """A nearly square design (m = 300, D = 299) at λ = 1e-12: the certified rounding bound
    of Δ, C, s₂ exceeds 1e-6, so release and plan exit 2 naming --ridge, writing nothing."""
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(3)
    pd.DataFrame({"a": rng.normal(size=300), "y": rng.uniform(-1, 1, 300)}).to_csv(
        "t.csv", index=False
    )
    common = [
        "--data", "t.csv", "--targets", "y", "--label-bound", "1", "--ridge", "1e-12",
        "--epsilon", "1", "--delta", "1e-5", "--design", "random-seeds", "--width", "299",
        "--design-seed", "0", "--no-progress",
    ]  # fmt: skip
    for command in (["release", *common, "--n-syn", "10", "--out", "s.csv"], ["plan", *common]):
        assert main(command) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("synthamp: error: --ridge: the design bounds") and "\n" not in err
        assert "cannot be certified" in err and "is certified" in err
    assert not list(tmp_path.glob("s*"))
