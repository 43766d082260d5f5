"""Outputs that keep their own contract: report names, the wording of kinds, no null ε.

- ``--out x.csv`` then ``--out x.parquet`` in one folder used to fail on the same
  default report name (``x.privacy.json``): reports now keep the table's extension.
- ``account`` printed "exact value >= 0.999811", which reads as a lower bound; it now
  says "(exact; interval [lower, upper])".
- The release summary said "exact accounting (exact)", the demo "(exact accounting,
  exact)": the method and the kind share a word, said once.
- A finite k = 1 release whose guarantee is the unlimited release's exact profile said
  ``"accountant": "pld"`` beside ``"epsilon_pld": null``.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthamp.cli import main
from synthamp.report import PrivacyReport


@pytest.fixture()
def table(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(1)
    x = rng.normal(size=(200, 5))
    x /= 1.01 * np.linalg.norm(x, axis=1, keepdims=True)
    frame = pd.DataFrame(x, columns=[f"x{i}" for i in range(5)])
    frame["y"] = np.tanh(x[:, 0])
    frame.to_csv("data.csv", index=False)
    return tmp_path


RELEASE = ["release", "--data", "data.csv", "--targets", "y", "--label-bound", "1", "--ridge",
           "0.5", "--sigma", "0.5", "--accounting", "exact", "--n-syn", "30", "--unlimited",
           "--no-progress"]  # fmt: skip


def test_reports_keep_the_tables_extension(table, capsys):
    assert main([*RELEASE, "--out", "x.csv"]) == 0
    assert main([*RELEASE, "--out", "x.parquet"]) == 0, capsys.readouterr().err
    for name in ("x.csv", "x.parquet"):
        for ext in ("json", "md", "html"):
            assert (table / f"{name}.privacy.{ext}").is_file()
    csv = json.loads((table / "x.csv.privacy.json").read_text())
    parquet = json.loads((table / "x.parquet.privacy.json").read_text())
    assert csv["n_syn"] is None and parquet["n_syn"] is None
    assert not (table / "x.privacy.json").exists()


def test_the_method_and_the_kind_are_said_once(table, capsys):
    assert main([*RELEASE, "--out", "s.csv"]) == 0
    out = capsys.readouterr().out
    guarantee = next(line for line in out.splitlines() if line.startswith("guarantee:"))
    assert "exact accounting," in guarantee and "(exact)" not in guarantee
    assert "exact accounting, exact" not in out


def test_account_states_the_interval_not_a_lower_bound(capsys):
    argv = ["account", "--dim", "20", "--norm-bound", "2", "--sensitivity", "0.1", "--sigma",
            "0.5", "--n-syn", "100000"]  # fmt: skip
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "exact value >=" not in text
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    lower, upper = data["epsilon_unlimited_pld_lower"], data["epsilon_unlimited_pld"]
    assert f"(exact; interval [{lower:.8g}, {upper:.8g}])" in text
    # the pld accountant's number is there, not null
    assert data["guarantee"] == "unlimited_pld" and data["accountant"] == "pld"
    assert data["epsilon_pld"] == data["epsilon_unlimited_pld"] == data["epsilon"]
    assert data["epsilon_pld_lower"] == data["epsilon_unlimited_pld_lower"]


def test_the_report_has_no_null_beside_the_pld_accountant(table, capsys):
    assert main([*RELEASE, "--out", "s.csv"]) == 0
    report = PrivacyReport.from_dict(json.loads((table / "s.csv.privacy.json").read_text()))
    weighed = dataclasses.replace(
        report, n_syn=1000, guarantee="unlimited_pld", accountant="pld", epsilon_pld=None,
        epsilon_unlimited_pld=report.epsilon,
    )  # fmt: skip
    written = weighed.to_dict()
    assert written["accountant"] == "pld" and written["epsilon_pld"] == report.epsilon
    lines = [line for line in weighed.to_markdown().splitlines() if "pld" in line]
    assert lines  # the text still names the unlimited release's profile as the guarantee
