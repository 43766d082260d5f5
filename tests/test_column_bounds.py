"""Units guarded: a release that clips most rows is refused; per-column public bounds.

Raw diabetes (scikit-learn's ``load_diabetes(scaled=False)``: ages in years, serum
values in mg/dl, a target up to 346) clips every feature row and every target row
at the default bounds: the release used to exit 0 with two notes; now it exits 2
with one line naming the columns. ``--bounds`` maps each column from its declared
range onto [−1, 1] (then by 1/√d), checked against the map written out by hand.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthamp import InputError
from synthamp.cli import main
from synthamp.jobs import release_table
from synthamp.release import PrivateLinearGenerator
from synthamp.release._ridge import map_into_bounds

sklearn_datasets = pytest.importorskip("sklearn.datasets", reason="scikit-learn is a dependency")


@pytest.fixture()
def raw_diabetes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    frame = sklearn_datasets.load_diabetes(as_frame=True, scaled=False).frame
    frame.to_csv("diabetes.csv", index=False)
    return frame


def _release(*extra: str, sigma: str = "0.5") -> list[str]:
    return [
        "release", "--data", "diabetes.csv", "--targets", "target", "--ridge", "0.1",
        "--sigma", sigma, "--accounting", "post-processing", "--n-syn", "50",
        "--out", "syn.csv", "--no-progress", "--seed", "1", *extra,
    ]  # fmt: skip


def test_raw_diabetes_is_refused_with_one_line_naming_the_columns(raw_diabetes, capsys):
    code = main(_release("--label-bound", "1"))
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, err
    line = lines[0]
    assert line.startswith("synthamp: error: --max-clipped: 100.0% of feature rows")
    # the columns by their observed scale (largest first) and the declared bound
    largest = raw_diabetes.drop(columns="target").abs().max().sort_values(ascending=False)
    assert f"{largest.index[0]} up to {largest.iloc[0]:.4g}" in line  # s1 up to 301
    assert "norm 1 after --feature-scale 1" in line
    assert f"100.0% of target rows exceed --label-bound 1 (target up to {346:.4g})" in line
    assert not Path("syn.csv").exists()


def test_the_threshold_is_a_flag(raw_diabetes, capsys):
    assert main(_release("--label-bound", "1", "--max-clipped", "1")) == 0
    assert "100.0% of feature rows" in capsys.readouterr().err  # a note, within the threshold
    assert main([*_release("--label-bound", "1", "--max-clipped", "1.5"), "--force"]) == 2
    assert "--max-clipped" in capsys.readouterr().err


def _bounds_frame(frame: pd.DataFrame) -> pd.DataFrame:
    features = frame.drop(columns="target")
    return pd.DataFrame({"column": features.columns, "lo": features.min().to_numpy() - 1,
                         "hi": features.max().to_numpy() + 1})  # fmt: skip


def test_bounds_file_maps_each_column_and_equals_the_map_by_hand(raw_diabetes, capsys):
    bounds = _bounds_frame(raw_diabetes)
    bounds.to_csv("bounds.csv", index=False)
    assert main(_release("--label-bound", "400", "--bounds", "bounds.csv", sigma="200")) == 0, (
        capsys.readouterr().err
    )
    err = capsys.readouterr().err
    assert "feature rows" not in err  # nothing clipped: every value within its range
    written = pd.read_csv("syn.csv").to_numpy()
    # the same fit with the map written out by hand: (2x − lo − hi)/(hi − lo)/√d
    x = raw_diabetes.drop(columns="target").to_numpy()
    lo, hi = bounds["lo"].to_numpy(), bounds["hi"].to_numpy()
    by_hand = (2 * x - lo - hi) / (hi - lo) / math.sqrt(x.shape[1])
    assert np.all(np.linalg.norm(by_hand, axis=1) <= 1)
    kwargs = dict(label_bound=400, ridge=0.1, sigma=200, accounting="post-processing")
    direct = PrivateLinearGenerator(**kwargs, random_state=1).fit(by_hand, raw_diabetes[["target"]])
    np.testing.assert_allclose(written, direct.sample(50), rtol=1e-9)
    report = json.loads(open("syn.csv.privacy.json").read())
    assert "mapped affinely onto [−1, 1]" in json.dumps(report, ensure_ascii=False)
    # JSON bounds and the library's mapping give the same records
    as_json = {row.column: [row.lo, row.hi] for row in bounds.itertuples()}
    with open("bounds.json", "w") as file:
        json.dump(as_json, file)
    args = _release("--label-bound", "400", "--bounds", "bounds.json", sigma="200")
    assert main([*args, "--force"]) == 0
    np.testing.assert_array_equal(pd.read_csv("syn.csv").to_numpy(), written)
    release_table(
        "diabetes.csv", "target", label_bound=400, ridge=0.1, sigma=200, n_syn=50,
        out="lib.csv", accounting="post-processing", seed=1, bounds=as_json,
    )  # fmt: skip
    np.testing.assert_array_equal(pd.read_csv("lib.csv").to_numpy(), written)


def test_bounds_refuse_a_missing_column_and_a_feature_scale(raw_diabetes, capsys):
    _bounds_frame(raw_diabetes).iloc[:-1].to_csv("short.csv", index=False)  # no s6
    assert main(_release("--label-bound", "400", "--bounds", "short.csv")) == 2
    err = capsys.readouterr().err.strip()
    assert err == "synthamp: error: --bounds: has no range for the feature column 's6'"
    _bounds_frame(raw_diabetes).to_csv("bounds.csv", index=False)
    args = _release("--label-bound", "400", "--bounds", "bounds.csv", "--feature-scale", "0.1")
    assert main(args) == 2
    assert "--bounds: give --bounds or --feature-scale, not both" in capsys.readouterr().err
    bad = {"age": [5, 5]}
    with pytest.raises(InputError, match="need finite lo < hi") as info:
        release_table("diabetes.csv", "target", label_bound=400, ridge=0.1, sigma=0.5,
                      n_syn=5, out="x.csv", bounds=bad)  # fmt: skip
    assert info.value.param == "bounds"


def test_bounds_too_narrow_are_refused_naming_the_columns(raw_diabetes, capsys):
    bounds = _bounds_frame(raw_diabetes)
    bounds.loc[bounds["column"] == "s1", "hi"] = 200  # s1 reaches 301
    bounds.to_csv("narrow.csv", index=False)
    assert main(_release("--label-bound", "400", "--bounds", "narrow.csv", sigma="200")) == 2
    line = capsys.readouterr().err.strip()
    share = np.mean(raw_diabetes["s1"] > 200)
    assert line.startswith(
        f"synthamp: error: --max-clipped: {100 * share:.1f}% of feature rows fall outside "
        "their declared --bounds (s1 observed [97, 301] against [96, 200])"
    ), line


def test_values_outside_their_range_are_clamped_and_rows_stay_in_the_ball():
    values = np.array([[0.0, 10.0], [5.0, 20.0], [-100.0, 1e308], [2.5, 15.0]])
    lo, hi = np.array([0.0, 10.0]), np.array([5.0, 20.0])
    mapped = map_into_bounds(values, lo, hi)
    r = 1 / math.sqrt(2)
    np.testing.assert_allclose(mapped, [[-r, -r], [r, r], [-r, r], [0, 0]], atol=1e-15)
    assert np.all(np.linalg.norm(mapped, axis=1) <= 1)
