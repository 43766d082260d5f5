"""A plan that can be followed: the star weighs the bias a larger λ causes.

The plan used to star the largest λ offered (λ = 10⁵ on breast_cancer: C = 0.0016,
σ = 1.3e-7), because its criterion, the Gram error relative to C², falls with λ
for ever. On scikit-learn's wine and breast_cancer the actual ridge model at that
λ keeps almost nothing of the least-squares model (computed here from the data, with
the features mapped into the unit ball by their ranges), so a star there cannot be
followed. The release states the plan's criterion at its own λ: the same number as
the plan's row, and no advice to leave the star.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pandas as pd
import pytest

from synthamp.cli import main

sklearn_datasets = pytest.importorskip("sklearn.datasets", reason="scikit-learn is a dependency")

RIDGES = (0.1, 1e5)
LARGEST = max(RIDGES)


def _write(tmp_path, loader) -> tuple[str, str, float]:
    """The table as CSV, a bounds file (the public ranges of this public table), B."""
    frame = loader(as_frame=True).frame
    data, bounds = tmp_path / "data.csv", tmp_path / "bounds.csv"
    frame.to_csv(data, index=False)
    features = frame.drop(columns="target")
    pd.DataFrame({"column": features.columns, "lo": features.min().to_numpy(),
                  "hi": features.max().to_numpy()}).to_csv(bounds, index=False)  # fmt: skip
    return str(data), str(bounds), float(frame["target"].abs().max())


def _kept(frame: pd.DataFrame, ridge: float) -> float:
    """‖v_λ‖²/‖θ‖² of the actual data (features mapped by their ranges), for the test only."""
    x = frame.drop(columns="target").to_numpy()
    lo, hi = x.min(axis=0), x.max(axis=0)
    x = (2 * x - lo - hi) / (hi - lo) / math.sqrt(x.shape[1])
    y = frame["target"].to_numpy()
    m, d = x.shape
    ols = np.linalg.lstsq(x, y, rcond=None)[0]
    ridge_model = np.linalg.solve(x.T @ x + m * ridge * np.eye(d), x.T @ y)
    return float(ridge_model @ ridge_model / (ols @ ols))


# wine (13 features, 178 rows); breast_cancer gave the same verdict at 10 s more of the suite
@pytest.mark.parametrize("loader", ["load_wine"])
def test_the_star_is_not_the_lambda_that_kills_the_model(tmp_path, capsys, loader):
    load = getattr(sklearn_datasets, loader)
    data, bounds, label_bound = _write(tmp_path, load)
    assert _kept(load(as_frame=True).frame, LARGEST) < 1e-6  # λ = 10⁵ kills the model
    argv = ["plan", "--data", data, "--targets", "target", "--label-bound", f"{label_bound:g}",
            "--epsilon", "1", "--delta", "1e-5", "--ridge", ",".join(f"{r:g}" for r in RIDGES),
            "--no-progress", "--json"]  # fmt: skip
    assert main(argv) == 0
    plan = json.loads(capsys.readouterr().out)
    rows = plan["rows"]
    # the old criterion still falls monotonically in λ; the star no longer follows it
    relative = [row["relative_gram_error"] for row in rows]
    assert relative == sorted(relative, reverse=True)
    assert plan["best"] is not None and rows[plan["best"]]["ridge"] != LARGEST
    best = rows[plan["best"]]
    assert "assumed typical signal" in plan["criterion"]
    for row in rows:  # the criterion, recomputed from its stated formula
        w, lam, b = row["width"], row["ridge"], label_bound
        kept = 1 / (1 + w * lam) ** 2
        assert row["shrinkage_kept"] == pytest.approx(kept, rel=1e-12)
        expected = math.hypot(row["gram_error"] / (w * b * b), 1 - kept)
        assert row["error_with_bias"] == pytest.approx(expected, rel=1e-9)
        assert row["error_with_bias"] >= best["error_with_bias"]

    # release at the star and at the largest λ: the same number as the plan's row,
    # and no advice to move from the star
    for ridge in (best["ridge"], LARGEST):
        out = tmp_path / f"syn{ridge:g}.csv"
        argv = ["release", "--data", data, "--targets", "target", "--label-bound",
                f"{label_bound:g}", "--bounds", bounds, "--ridge", f"{ridge:g}", "--epsilon",
                "1", "--delta", "1e-5", "--n-syn", "20", "--unlimited", "--out", str(out),
                "--no-progress"]  # fmt: skip
        assert main(argv) == 0
        captured = capsys.readouterr()
        text = captured.out + captured.err
        said = re.search(r"at λ = (\S+) the ridge model keeps (\S+) .* is (\S+) of it", text)
        assert said is not None, text
        row = next(r for r in rows if r["ridge"] == ridge)
        assert float(said.group(2)) == pytest.approx(row["shrinkage_kept"], rel=2e-3)
        assert float(said.group(3)) == pytest.approx(row["error_with_bias"], rel=2e-3)
        assert "smaller ridge penalty λ (c grows with λ)" not in text


def test_no_star_when_every_row_carries_no_information():
    from synthamp.release._planning import plan_release

    plan = plan_release(n_records=50, n_features=10, label_bound=1, epsilon=0.1, delta=1e-5,
                        ridges=(0.001, 0.01))  # fmt: skip
    assert all(row.error_with_bias >= 1 for row in plan.rows)
    assert plan.best is None and plan.criterion.startswith("no row starred")


def test_error_with_bias_keeps_precision_for_a_tiny_lambda():
    from synthamp.release._planning import error_with_bias

    kept, error = error_with_bias(0.0, ridge=1e-20, width=3, out_dim=1, label_bound=1)
    assert kept == pytest.approx(1 - 6e-20, abs=1e-30) and error == pytest.approx(6e-20)
