"""``synthamp plan``: text and JSON output, one-line errors."""

from __future__ import annotations

import json

from synthamp.cli import main
from synthamp.report import SCHEMA_VERSION
from test_planning import _write


def test_plan_command_text_and_json(tmp_path, capsys):
    path = tmp_path / "t.parquet"
    _write(path, m=400, d=8)
    args = ["plan", "--data", str(path), "--targets", "y0", "--label-bound", "1", "--epsilon",
            "1", "--delta", "1e-5", "--ridge", "0.1,1", "--width", "8,5000"]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "m = 400 records, d = 8 features, k = 1 target (shape only: no value was read)" in out
    assert sum(line.startswith("*") for line in out.splitlines()) == 2  # best row + its legend
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["schema_version"] == SCHEMA_VERSION and data["command"] == "plan"
    assert data["data"] == {
        "path": str(path), "n_records": 400, "n_features": 8, "n_targets": 1, "values_read": False,
    }  # fmt: skip
    assert len(data["rows"]) == 4 and 0 <= data["best"] < 4
    assert all(row["noise_saved"] >= 0 for row in data["rows"])
    best = data["rows"][data["best"]]
    assert f"{best['sigma']:.4g}" in out


def test_plan_command_errors_are_one_line(tmp_path, capsys):
    path = tmp_path / "t.csv"
    _write(path, m=20, d=3)
    base = ["plan", "--data", str(path), "--label-bound", "1", "--epsilon", "1", "--delta", "1e-5"]
    assert main([*base, "--targets", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("synthamp: error: --targets:") and err.count("\n") == 1
    assert main([*base, "--targets", "y0", "--width", "2.5"]) == 2
    assert "--width" in capsys.readouterr().err
