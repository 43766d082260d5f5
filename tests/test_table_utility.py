"""The written table's utility rows in a ``--targets all`` release (``release/_table_utility``).

The bounds are the columns' observed ranges widened by 5%: a TEST FIXTURE standing in for the
public ranges a data holder declares.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthamp.release import release_table
from synthamp.utility import TABLE_ERRORS_NOTE


@pytest.mark.slow  # a certified k' = 3 calibration: ~16 s of CPU
def test_a_table_release_reports_its_table_beside_the_anchors(tmp_path):
    rng = np.random.default_rng(4)
    x = rng.normal(size=(80, 2))
    frame = pd.DataFrame({"a": 10 + 3 * x[:, 0], "b": -2 + x[:, 0] + 0.5 * x[:, 1]})
    lo, hi = frame.min(), frame.max()
    bounds = {c: (float(lo[c] - 0.05 * (hi[c] - lo[c])), float(hi[c] + 0.05 * (hi[c] - lo[c])))
              for c in frame.columns}  # fmt: skip
    out = tmp_path / "syn.csv"
    result = release_table(
        frame, "all", bounds=bounds, design="orthogonal", width=1000, design_seed=7,
        ridge=0.01, epsilon=30.0, delta=1e-5, n_syn=2000, out=out, seed=1,
    )  # fmt: skip
    report = json.loads(out.with_name("syn.csv.privacy.json").read_text())
    rows = [r for r in report["utility"]["utility_table"] if "table's" in r["statistic"]]
    mechanisms = {r["mechanism"] for r in rows}
    assert mechanisms == {
        "synthetic records (this release)", "Analyze Gauss's Gaussian synthesizer",
        "the trace-shaped Gaussian's synthesizer",
    }  # fmt: skip
    assert {r["statistic"] for r in rows} == {
        "the table's covariance",
        "the table's correlations",
        "the table's means",
    }
    assert all(r["n_syn"] == 2000 and r["kind"].startswith("estimate") for r in rows)
    # at ε = 30 every mechanism is accurate: the written table's error is the n records'
    assert all(r["relative_error"] < 0.2 for r in rows)
    assert TABLE_ERRORS_NOTE in result.summary
    assert report["utility"]["table_rows_note"] == TABLE_ERRORS_NOTE
    assert TABLE_ERRORS_NOTE not in (report["records_note"] or "")  # the records' own note
    # the report validates against the JSON schema, the table's rows included
    jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is in the test extra")
    schema = json.loads(
        (Path(__file__).parent.parent / "docs/synthamp-output.schema.json").read_text()
    )
    jsonschema.Draft202012Validator(schema).validate(report)
    markdown = out.with_name("syn.csv.privacy.md").read_text()
    assert "the table's correlations" in markdown and "Analyze Gauss's Gaussian" in markdown
