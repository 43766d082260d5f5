"""Tests of ``synthamp release``, ``synthamp demo``, the tabular I/O and the privacy report.

Every bad input of issue 5 is a test: exit code 2, one line on stderr, and no
output file created or modified (bytes and mtime compared). The report's
numbers are checked against the closed forms of docs/theory.md §13 and against
:mod:`synthamp.accountant` called directly. Happy paths use ``--sigma`` or
post-processing accounting, which need no exact engine; the full demo with
exact accounting is marked slow.
"""

from __future__ import annotations

import json
import math
import os
import time

import numpy as np
import pandas as pd
import pytest

from release_cases import FEATURES, TARGETS, private_frame, release_args, run, snapshot
from synthamp.cli import main
from synthamp.cli import release as release_cli
from synthamp.jobs import _demo as demo_lib
from synthamp.jobs import _release_table as pipeline
from synthamp.release import _generator as generator
from synthamp.release import clip_rows, ridge_fit
from synthamp.report import PrivacyReport

#: Every field issue 5 asks the report to hold.
REQUIRED_FIELDS = {
    "epsilon",
    "delta",
    "optimal_order",
    "sigma",
    "sensitivity",
    "norm_bound",
    "dim",
    "out_dim",
    "n_records",
    "n_syn",
    "ridge",
    "label_bound",
    "accounting_method",
    "accounting_kind",
    "sigma_post_processing",
    "adjacency",
    "released",
    "not_released",
    "seed_policy",
    "synthamp_version",
}


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    private_frame().to_csv("data.csv", index=False)
    private_frame().to_parquet("data.parquet")
    return tmp_path


# --------------------------------------------------------------------------- happy paths


def test_release_writes_records_and_report(workdir, capsys):
    code, out, err = run(capsys, release_args())
    assert code == 0, err
    synthetic = pd.read_csv("syn.csv")
    assert list(synthetic.columns) == TARGETS and len(synthetic) == 1000
    assert np.isfinite(synthetic.to_numpy()).all()
    report = json.loads((workdir / "syn.csv.privacy.json").read_text())
    assert REQUIRED_FIELDS <= set(report)
    markdown = (workdir / "syn.csv.privacy.md").read_text()
    assert "differentially private" in markdown and "Not released" in markdown
    assert "wrote 1,000 synthetic records" in out
    # No temporary files left behind.
    assert sorted(p.name for p in workdir.iterdir()) == [
        "data.csv",
        "data.parquet",
        "syn.csv",
        "syn.csv.privacy.html",
        "syn.csv.privacy.json",
        "syn.csv.privacy.md",
    ]


def test_report_contents_match_closed_forms_and_the_accountant(workdir, capsys):
    from synthamp.accountant import SyntheticDataRelease, compute_epsilon

    code, _, err = run(capsys, release_args(**{"--delta": "1e-6", "--report": "r.json"}))
    assert code == 0, err
    report = PrivacyReport.from_dict(json.loads((workdir / "r.json").read_text()))
    m, d, k, lam, b = 120, 6, 2, 0.1, 1.0
    assert (report.n_records, report.dim, report.out_dim, report.n_syn) == (m, d, k, 1000)
    assert report.sensitivity == pytest.approx(b * (1 + 2 * math.sqrt(lam)) / (m * lam**1.5))
    assert report.norm_bound == pytest.approx(b / (2 * math.sqrt(lam)))
    assert (report.ridge, report.label_bound, report.sigma, report.delta) == (lam, b, 0.5, 1e-6)
    release = SyntheticDataRelease(d, k, report.norm_bound, report.sensitivity, 0.5, n_syn=1000)
    expected = compute_epsilon(release, 1e-6, method="post-processing", accountant="rdp")
    assert report.epsilon == pytest.approx(expected.epsilon, rel=1e-12)
    assert report.optimal_order == expected.optimal_order
    assert report.accounting_method == "post-processing" and report.accounting_kind
    assert report.noise_secret and "operating-system entropy" in report.seed_policy
    assert report.synthamp_version
    markdown = (workdir / "r.md").read_text()
    for token in ("replace-one", "0.5", f"{report.epsilon:.4g}", "1e-06", "post-processing"):
        assert token in markdown


def test_release_with_epsilon_to_parquet(workdir, capsys):
    args = release_args(
        **{
            "--data": "data.parquet",
            "--sigma": None,
            "--epsilon": "1",
            "--delta": "1e-6",
            "--out": "syn.parquet",
            "--n-syn": "300",
        }
    )
    code, _, err = run(capsys, args)
    assert code == 0, err
    synthetic = pd.read_parquet("syn.parquet")
    assert list(synthetic.columns) == TARGETS and len(synthetic) == 300
    report = json.loads((workdir / "syn.parquet.privacy.json").read_text())
    assert report["epsilon"] <= 1.0 and report["epsilon"] > 0.99


def test_default_features_are_the_other_columns(workdir, capsys):
    frame = private_frame().drop(columns="site")
    frame.to_csv("numeric.csv", index=False)
    code, _, err = run(capsys, release_args(**{"--data": "numeric.csv", "--features": None}))
    assert code == 0, err
    assert json.loads((workdir / "syn.csv.privacy.json").read_text())["dim"] == 6


def test_seed_reproduces_and_no_seed_does_not(workdir, capsys):
    for name, seed in [("a.csv", "7"), ("b.csv", "7"), ("c.csv", None), ("d.csv", None)]:
        code, out, err = run(capsys, release_args(**{"--out": name, "--seed": seed}))
        assert code == 0, err
        if seed is not None:
            assert "not secret" in out
    read = {name: (workdir / name).read_bytes() for name in ["a.csv", "b.csv", "c.csv", "d.csv"]}
    assert read["a.csv"] == read["b.csv"]
    assert read["c.csv"] != read["d.csv"] and read["a.csv"] != read["c.csv"]
    report = json.loads((workdir / "a.csv.privacy.json").read_text())
    assert report["noise_secret"] is False and "not secret" in report["seed_policy"]


def test_force_overwrites(workdir, capsys):
    assert run(capsys, release_args(**{"--n-syn": "10"}))[0] == 0
    code, _, err = run(capsys, release_args(**{"--n-syn": "20", "--force": True}))
    assert code == 0, err
    assert len(pd.read_csv("syn.csv")) == 20


def test_progress_bar_for_large_releases(workdir, capsys, monkeypatch):
    monkeypatch.setattr(release_cli, "PROGRESS_THRESHOLD", 100)
    monkeypatch.setattr(pipeline, "WRITE_CHUNK", 64)
    code, _, err = run(capsys, release_args(**{"--n-syn": "1000"}))
    assert code == 0, err
    assert len(pd.read_csv("syn.csv")) == 1000


def test_nothing_private_is_printed_or_written(workdir, capsys):
    code, out, err = run(capsys, release_args(**{"--seed": "5"}))
    assert code == 0
    frame = private_frame()
    v = ridge_fit(
        clip_rows(frame[FEATURES].to_numpy(), 1), clip_rows(frame[TARGETS].to_numpy(), 1), 0.1
    )
    texts = out + err + (workdir / "syn.csv.privacy.json").read_text()
    texts += (workdir / "syn.csv.privacy.md").read_text()
    texts += (workdir / "syn.csv.privacy.html").read_text()
    for value in v.ravel():
        for fmt in ("{:.6g}", "{:.4f}", "{!r}"):
            assert fmt.format(float(value)) not in texts


# --------------------------------------------------------------------------- bad input


def _write_bad_tables(directory):
    frame = private_frame()
    nan = frame.copy()
    nan.loc[7, "x2"] = np.nan
    nan.to_csv(directory / "nan.csv", index=False)
    inf = frame.copy()
    inf.loc[3, "x4"] = -np.inf
    inf.to_csv(directory / "inf.csv", index=False)
    assert "-inf" in (directory / "inf.csv").read_text()
    frame.head(1).to_csv(directory / "one.csv", index=False)
    frame.head(0).to_csv(directory / "empty_rows.csv", index=False)
    (directory / "ragged.csv").write_text("x0,y1\n1,2\n3,4,5,6\n")
    (directory / "garbage.parquet").write_text("this is not parquet\n")
    (directory / "table.txt").write_text("x0,y1\n1,2\n")
    (directory / "empty.csv").write_text("")
    (directory / "folder.csv").mkdir()


BAD_INPUTS = {
    "missing target column": ({"--targets": "y1,nope"}, "--targets"),
    "missing feature column": ({"--features": "x0,x9"}, "--features"),
    "non-numeric target": ({"--targets": "y1,site"}, "--targets"),
    "non-numeric default feature": ({"--features": None}, "--features"),
    "NaN cell": ({"--data": "nan.csv"}, "--features"),
    "inf cell": ({"--data": "inf.csv"}, "--features"),
    "one record": ({"--data": "one.csv"}, "--data"),
    "no records": ({"--data": "empty_rows.csv"}, "--data"),
    "k > d": ({"--features": "x0"}, "--targets"),
    "ridge zero": ({"--ridge": "0"}, "--ridge"),
    "ridge negative": ({"--ridge": "-0.1"}, "--ridge"),
    "label bound zero": ({"--label-bound": "0"}, "--label-bound"),
    "label bound negative": ({"--label-bound": "-2"}, "--label-bound"),
    "n_syn zero": ({"--n-syn": "0"}, "--n-syn"),
    "n_syn negative": ({"--n-syn": "-5"}, "--n-syn"),
    "missing file": ({"--data": "absent.csv"}, "--data"),
    "directory": ({"--data": "folder.csv"}, "--data"),
    "garbage parquet": ({"--data": "garbage.parquet"}, "--data"),
    "ragged csv": ({"--data": "ragged.csv", "--targets": "y1", "--features": "x0"}, "--data"),
    "empty file": ({"--data": "empty.csv"}, "--data"),
    "unknown input extension": ({"--data": "table.txt"}, "--data"),
    "unknown output extension": ({"--out": "syn.xlsx"}, "--out"),
    "output directory missing": ({"--out": "nowhere/syn.csv"}, "--out"),
    "report not json": ({"--report": "r.txt"}, "--report"),
    "sigma and epsilon": ({"--epsilon": "1", "--delta": "1e-6"}, "--sigma"),
    "neither sigma nor epsilon": ({"--sigma": None}, "--epsilon"),
    "epsilon without delta": ({"--sigma": None, "--epsilon": "1"}, "--delta"),
    "delta out of range": ({"--delta": "1.5"}, "--delta"),
    "sigma negative": ({"--sigma": "-1"}, "--sigma"),
    "ridge not a number": ({"--ridge": "abc"}, "ridge"),
    "out is the data": ({"--out": "data.csv", "--force": True}, "--out"),
    "duplicate target": ({"--targets": "y1,y1"}, "--targets"),
    "feature is a target": ({"--features": "x0,x1,y1", "--targets": "y1"}, "--features"),
}


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_bad_input_exits_2_with_one_line_and_writes_nothing(workdir, capsys, case):
    _write_bad_tables(workdir)
    before = snapshot(workdir)
    overrides, flag = BAD_INPUTS[case]
    code, out, err = run(capsys, release_args(**overrides))
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("synthamp: error:"), err
    assert flag in lines[0]
    assert "Traceback" not in err and out == ""
    assert snapshot(workdir) == before  # nothing created, nothing modified


@pytest.mark.parametrize("existing", ["syn.csv", "syn.csv.privacy.json", "syn.csv.privacy.md"])
def test_existing_output_without_force_is_refused_before_any_work(
    workdir, capsys, existing, monkeypatch
):
    (workdir / existing).write_text("precious\n")
    os.utime(workdir / existing, ns=(1_000_000_000, 1_000_000_000))
    before = snapshot(workdir)

    def fail(**kwargs):  # the accountant must not even be reached
        raise AssertionError("work started before the output check")

    monkeypatch.setattr(generator, "_account", fail)
    code, _, err = run(capsys, release_args())
    assert code == 2 and "--force" in err and len(err.strip().splitlines()) == 1
    assert snapshot(workdir) == before


def test_existing_output_untouched_when_a_later_input_is_bad(workdir, capsys):
    (workdir / "syn.csv").write_text("precious\n")
    before = snapshot(workdir)
    code, _, _ = run(capsys, release_args(**{"--force": True, "--targets": "nope"}))
    assert code == 2 and snapshot(workdir) == before


def test_failure_while_writing_leaves_no_file(workdir, capsys, monkeypatch):
    def explode(self, *args, **kwargs):
        yield np.zeros((3, 2))
        raise OSError("disk full")

    monkeypatch.setattr(generator.PrivateLinearGenerator, "_chunks", explode)
    before = snapshot(workdir)
    code, _, err = run(capsys, release_args())
    assert code == 2 and "synthamp: error: --out: cannot write syn.csv: disk full" in err
    assert snapshot(workdir) == before


# --------------------------------------------------------------------------- demo


@pytest.fixture
def quick_accounting(monkeypatch):
    """Fixed accounting result (σ = 0.9, post-processing σ = 1.5) for fast demo tests."""

    def fake(**kwargs):
        sigma = kwargs["sigma"] if kwargs["sigma"] is not None else 0.9
        return generator._Accounting(
            sigma=sigma, epsilon=kwargs["epsilon"] or 1.0, delta=kwargs["delta"], kind="exact",
            accountant="rdp", reason="a fixed test result", method=kwargs["method"],
            optimal_order=12.0, sigma_post_processing=1.5, epsilon_post_processing=1.7,
        )  # fmt: skip

    monkeypatch.setattr(generator, "_account", fake)


def test_demo_writes_files_and_summary(tmp_path, capsys, quick_accounting, monkeypatch):
    monkeypatch.setattr(demo_lib, "DEMO_REPEATS", 20)
    out_dir = tmp_path / "demo"
    code, out, err = run(capsys, ["demo", "--out", str(out_dir), "--n-syn", "2000", "--seed", "3"])
    assert code == 0, err
    assert sorted(p.name for p in out_dir.iterdir()) == sorted(demo_lib.DEMO_FILES)
    synthetic = pd.read_csv(out_dir / "synthetic.csv")
    assert synthetic.shape == (2000, 1)
    report = json.loads((out_dir / "privacy-report.json").read_text())
    assert report["dim"] == 65 and report["n_records"] == 442
    # Like release, demo accounts for exactly the records it releases by default.
    assert report["n_syn"] == 2000 and "for 2,000 synthetic records" in out
    assert "40% less noise" in out  # 1 − 0.9/1.5
    assert "utility" in out and "not secret" in out
    # A second run refuses to overwrite without --force, and changes nothing.
    before = snapshot(out_dir)
    code, _, err = run(capsys, ["demo", "--out", str(out_dir), "--n-syn", "2000"])
    assert code == 2 and "--force" in err and "--out" in err
    assert snapshot(out_dir) == before
    code, out, err = run(
        capsys, ["demo", "--out", str(out_dir), "--n-syn", "2000", "--force", "--unlimited"]
    )
    assert code == 0, err
    report = json.loads((out_dir / "privacy-report.json").read_text())
    assert report["n_syn"] is None and "any number of synthetic records" in out


def test_demo_old_flags_are_hidden_aliases_that_warn(
    tmp_path, capsys, quick_accounting, monkeypatch
):
    monkeypatch.setattr(demo_lib, "DEMO_REPEATS", 5)
    argv = ["demo", "--out-dir", str(tmp_path / "d"), "--n-syn", "100", "--finite", "--json"]
    code, out, err = run(capsys, argv)
    assert code == 0, err
    assert "synthamp: warning: --out-dir is deprecated; use --out" in err
    assert "synthamp: warning: --finite is deprecated" in err
    data = json.loads(out)
    assert data["command"] == "demo" and data["privacy"]["n_syn"] == 100
    assert data["written"]["report_html"] == str(tmp_path / "d" / "privacy-report.html")
    assert main(["demo", "--help"]) == 0
    helptext = capsys.readouterr().out
    assert "--out-dir" not in helptext and "--finite" not in helptext and "--unlimited" in helptext


def test_demo_features_use_public_scaling_only():
    features, target, names = demo_lib.demo_dataset()
    assert features.shape == (442, 65) and target.shape == (442, 1) and len(names) == 65
    assert (np.linalg.norm(features, axis=1) <= 1 + 1e-12).all()
    assert (np.abs(target) <= 1).all()
    # The scaling constants are the documented public ranges, not data statistics.
    assert demo_lib.DEMO_RANGES["age"] == (18.0, 90.0)


@pytest.mark.slow
def test_demo_end_to_end_with_exact_accounting(tmp_path, capsys):
    start = time.perf_counter()
    code, out, err = run(capsys, ["demo", "--out", str(tmp_path / "d")])
    elapsed = time.perf_counter() - start
    assert code == 0, err
    report = json.loads((tmp_path / "d" / "privacy-report.json").read_text())
    assert report["epsilon"] <= 1.0 and report["accounting_method"] == "exact"
    assert report["sigma"] < report["sigma_post_processing"]
    assert "less noise" in out
    print(f"demo took {elapsed:.1f} s")  # informational; speed is measured in benchmarks/
