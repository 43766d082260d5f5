"""``release --targets all --bounds FILE --design ...``: the whole numeric table as the release.

The bounds files are written from the columns' observed ranges widened by 5%: a TEST FIXTURE
standing in for the public domain knowledge a data holder declares (a real release never
reads its bounds from the data).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from synthamp.cli import main

sklearn_datasets = pytest.importorskip("sklearn.datasets")


def _write(frame: pd.DataFrame, name: str, folder) -> None:
    frame.to_csv(folder / f"{name}.csv", index=False)
    lo, hi = frame.min(), frame.max()
    pad = 0.05 * (hi - lo)  # the fixture's "public" ranges (see the module docstring)
    bounds = pd.DataFrame({"column": frame.columns, "lo": lo - pad, "hi": hi + pad})
    bounds.to_csv(folder / f"{name}-bounds.csv", index=False)


@pytest.fixture
def wine(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    frame = sklearn_datasets.load_wine(as_frame=True).frame.drop(columns="target")
    _write(frame, "wine", tmp_path)
    return frame


def _run(capsys, *args):
    capsys.readouterr()
    rc = main(list(args))
    return rc, *capsys.readouterr()


DONE_WHEN = (
    "release", "--data", "wine.csv", "--targets", "all", "--bounds", "wine-bounds.csv",
    "--design", "orthogonal", "--width", "1000000", "--design-seed", "7", "--ridge", "0.01",
    "--epsilon", "1", "--delta", "1e-5", "--n-syn", "100000", "--out", "syn.csv",
    "--no-progress",
)  # fmt: skip


def test_the_whole_wine_table_is_released_in_its_columns(wine, capsys, tmp_path):
    rc, out, err = _run(capsys, *DONE_WHEN)
    assert rc == 0, err
    records = pd.read_csv(tmp_path / "syn.csv")
    assert list(records.columns) == list(wine.columns) and len(records) == 100_000
    report = json.loads((tmp_path / "syn.csv.privacy.json").read_text())
    assert report["records_kind"] == "table" and report["columns"] == list(wine.columns)
    note = report["records_note"]
    assert "post-processing of VᵀV" in note and note in out
    assert note in (tmp_path / "syn.csv.privacy.md").read_text()
    assert "post-processing of VᵀV" in (tmp_path / "syn.csv.privacy.html").read_text()
    assert report["width"] == 1_000_000 and report["adjacency"] == "gram"  # k' = 14
    # k' = 14: the certified angle certificate, beside a realised pair's lower bound
    assert report["kind"] == "certified"
    assert 0 < report["epsilon_lower_realised"] <= report["epsilon"] <= 1.0
    ratio = report["epsilon"] / report["epsilon_lower_realised"]
    assert report["certified_over_lower"] == pytest.approx(ratio, rel=1e-12)


def test_in_the_low_noise_limit_the_records_have_the_tables_moments(wine, capsys, tmp_path):
    """ε = 10⁴ (σ ≈ 0.005 at D = 1000): the means and scales in wine's own units."""
    args = [*DONE_WHEN, "--epsilon", "1e4", "--width", "1000", "--seed", "1"]
    rc, _, err = _run(capsys, *args)
    assert rc == 0, err
    records = pd.read_csv(tmp_path / "syn.csv")
    sd = wine.std(ddof=0)
    assert (np.abs(records.mean() - wine.mean()) < 0.2 * sd).all()
    ratio = records.std() / sd
    assert ratio.between(0.8, 1.25).all()
    assert np.abs(records.corr().values - wine.corr().values).max() < 0.2


def test_raw_records_are_the_mechanism_records_with_the_constant_column(wine, capsys, tmp_path):
    rc, _, err = _run(capsys, *DONE_WHEN, "--records", "raw", "--n-syn", "50")
    assert rc == 0, err
    records = pd.read_csv(tmp_path / "syn.csv")
    assert list(records.columns) == [*wine.columns, "_constant"]
    assert json.loads((tmp_path / "syn.csv.privacy.json").read_text())["records_note"] is None


def test_all_with_random_features_leaves_out_the_public_inputs(wine, capsys, tmp_path):
    args = [
        *DONE_WHEN, "--design", "random-features", "--width", "200",
        "--public-inputs", "alcohol,ash", "--n-syn", "50",
    ]  # fmt: skip
    rc, out, err = _run(capsys, *args)
    assert rc == 0, err
    records = pd.read_csv(tmp_path / "syn.csv")
    assert list(records.columns) == [c for c in wine.columns if c not in ("alcohol", "ash")]
    assert "approximate" in out  # a random design: the moments are approximate


@pytest.mark.parametrize("backend", ["local", "dask"])
def test_the_table_s_records_are_written_in_partitions_locally_and_on_dask(
    wine, capsys, tmp_path, backend
):
    """Each partition draws from the same mean and covariance (post-processing of VᵀV) with
    its own stream; ε = 10⁴ at D = 1000 (low noise): every part has wine's moments."""
    if backend == "dask":
        pytest.importorskip("dask.dataframe", reason="dask is an optional extra")
    args = [*DONE_WHEN, "--epsilon", "1e4", "--width", "1000", "--n-syn", "30000"]
    args[args.index("syn.csv")] = "parts"
    args += ["--partitions", "3", "--backend", backend]
    if backend == "dask":
        args += ["--scheduler", "synchronous"]
    rc, _, err = _run(capsys, *args)
    assert rc == 0, err
    parts = sorted((tmp_path / "parts").glob("*.parquet"))
    frames = [pd.read_parquet(p) for p in parts]
    assert len(frames) == 3 and sum(len(f) for f in frames) == 30_000
    sd = wine.std(ddof=0)
    for frame in frames:
        assert list(frame.columns) == list(wine.columns)
        assert (np.abs(frame.mean() - wine.mean()) < 0.2 * sd).all()
        assert (frame.std() / sd).between(0.8, 1.25).all()
    # independent streams, not copies of one
    assert len({float(f.iloc[0, 0]) for f in frames}) == 3
    report = json.loads((tmp_path / "parts.privacy.json").read_text())
    assert report["records_kind"] == "table" and report["records"] == 30_000
    if backend == "dask":
        markdown = (tmp_path / "parts.privacy.md").read_text()
        assert "receive only the mean and a factor of the covariance" in markdown


def test_partition_tasks_of_the_table_s_records_carry_only_the_post_processed_map():
    from synthamp.release._table_partitions import table_partition_tasks
    from synthamp.release._table_records import TableRecords

    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 3))
    records = TableRecords(("a", "b", "c"), np.array([1.0, 2.0, 3.0]), a @ a.T, rng)
    tasks = table_partition_tasks(records, 10, 3)
    assert [t.rows for t in tasks] == [4, 3, 3]
    for task in tasks:
        np.testing.assert_allclose(task.factor.T @ task.factor, a @ a.T, atol=1e-12)
        np.testing.assert_array_equal(task.mean, [1.0, 2.0, 3.0])
        assert {f for f in vars(task)} == {"index", "rows", "factor", "seed", "mean"}


def test_the_plan_of_the_whole_table_gives_the_release_s_numbers(wine, capsys, tmp_path):
    """``plan --targets all --bounds`` accounts for the release's k + 1 columns at B = 1:
    its σ, ε and lower bound are the release's on the same table and options."""
    common = [
        "--data", "wine.csv", "--targets", "all", "--bounds", "wine-bounds.csv", "--design",
        "orthogonal", "--width", "1000", "--design-seed", "7", "--ridge", "0.01", "--epsilon",
        "1", "--delta", "1e-5", "--no-progress", "--json",
    ]  # fmt: skip
    rc, out, err = _run(capsys, "plan", *common)
    assert rc == 0, err
    plan = json.loads(out)
    assert plan["data"]["n_targets"] == 14 and plan["data"]["values_read"] is False
    assert plan["data"]["target_columns"] == list(wine.columns)
    assert plan["data"]["constant_column"] is True and plan["label_bound"] == 1.0
    (row,) = plan["rows"]
    rc, out, err = _run(capsys, "release", *common, "--n-syn", "50", "--out", "syn.csv")
    assert rc == 0, err
    release = json.loads(out)["design"]
    for key in ("sigma", "epsilon", "epsilon_lower_realised", "norm_bound", "sensitivity"):
        assert row[key] == pytest.approx(release[key], rel=1e-12), key
    # named targets with their ranges: the same plan
    names = ",".join(wine.columns)
    rc, out, err = _run(capsys, "plan", *common[:3], names, *common[4:])
    assert rc == 0, err
    assert json.loads(out)["rows"][0]["sigma"] == pytest.approx(row["sigma"], rel=1e-12)


@pytest.mark.parametrize(
    ("extra", "flag", "words"),
    [
        (("--bounds", "short.csv"), "--targets", "name the numeric target columns"),
        (("--design", None, "--width", None, "--design-seed", None), "--targets", "all applies"),
        (("--bounds", None), "--label-bound", "is required"),
    ],
)
def test_plan_misuse_of_the_whole_table_is_refused_with_one_line(
    wine, capsys, tmp_path, extra, flag, words
):
    pd.read_csv("wine-bounds.csv").iloc[:-1].to_csv("short.csv", index=False)
    args = [
        "plan", "--data", "wine.csv", "--targets", "all", "--bounds", "wine-bounds.csv",
        "--design", "orthogonal", "--width", "1000", "--design-seed", "7", "--epsilon", "1",
        "--delta", "1e-5", "--no-progress",
    ]  # fmt: skip
    for name, value in zip(extra[::2], extra[1::2], strict=True):
        i = args.index(name)
        if value is None:
            del args[i : i + 2]
        else:
            args[i + 1] = value
    rc, _, err = _run(capsys, *args)
    lines = err.strip().splitlines()
    assert rc == 2 and len(lines) == 1, err
    assert lines[0].startswith(f"synthamp: error: {flag}") and words in lines[0], lines


_NO_DESIGN = ("--design", None, "--width", None, "--design-seed", None)


@pytest.mark.parametrize(
    ("extra", "flag", "words"),
    [
        (_NO_DESIGN, "--targets", "all applies with --design"),
        (
            ("--targets", "alcohol", "--records", "table", *_NO_DESIGN),
            "--records",
            "table applies with --design",
        ),
        (("--bounds", None, "--records", "table"), "--records", "needs --bounds"),
        (("--bounds", "short.csv"), "--bounds", "no range for the target column 'proline'"),
    ],
)
def test_misuse_is_refused_with_one_line(wine, capsys, tmp_path, extra, flag, words):
    pd.read_csv("wine-bounds.csv").iloc[:-1].to_csv("short.csv", index=False)
    args = list(DONE_WHEN)
    for name, value in zip(extra[::2], extra[1::2], strict=True):
        i = args.index(name) if name in args else None
        if value is None:  # drop the option and its value
            del args[i : i + 2]
        elif i is not None:
            args[i + 1] = value
        else:
            args += [name, value]
    if "--design" not in args:
        args += ["--label-bound", "1"]
    rc, _, err = _run(capsys, *args)
    lines = err.strip().splitlines()
    assert rc == 2 and len(lines) == 1, err
    assert lines[0].startswith(f"synthamp: error: {flag}") and words in lines[0], lines
    assert not list(tmp_path.glob("syn.csv*")) and not (tmp_path / "parts").exists()
