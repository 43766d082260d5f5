"""``synthamp figures``: a PNG and a CSV per figure, the index, bad output paths."""

from __future__ import annotations

import pandas as pd
import pytest

from synthamp import figures as F
from synthamp.cli import main

#: One worker computes the session's quick figures (tests/conftest.py, out_dir).
pytestmark = pytest.mark.xdist_group("figures")

KINDS = {"exact", "certified", "heuristic", "guide"}


def test_cli_writes_png_and_csv_per_figure_and_an_index(out_dir):
    names = F.figure_names()
    for name in F.figure_names(expensive=False):
        assert (out_dir / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        frame = pd.read_csv(out_dir / f"{name}.csv")
        assert {"curve", "kind", "value", "error"} <= set(frame.columns)
        assert set(frame["kind"]) <= KINDS
        assert frame["value"].notna().all()
    index = (out_dir / "index.md").read_text(encoding="utf-8")
    lines = [line for line in index.splitlines() if line.startswith("- ")]
    assert len(lines) == len(names)
    for line, name in zip(lines, names, strict=True):
        assert f"({name}.png)" in line and f"({name}.csv)" in line
    assert "quick" in index
    assert not list(out_dir.glob("*.tmp")) and not list(out_dir.glob(".*"))


def test_the_default_run_skips_the_expensive_k2_study_and_says_how_to_run_it(out_dir):
    expensive = [spec.name for spec in F.FIGURES if spec.expensive]
    assert expensive == [
        "fig_k2_study", "fig_regime", "fig_k2_map", "fig_k3_study", "fig_utility_limit",
        "fig_k_certificate",
    ]  # fmt: skip
    assert not (out_dir / "fig_k2_study.png").exists()
    assert not (out_dir / "fig_k2_study.csv").exists()
    index = (out_dir / "index.md").read_text(encoding="utf-8")
    for name in expensive:
        assert not (out_dir / f"{name}.png").exists()
        assert not (out_dir / f"{name}.csv").exists()
        assert f"`synthamp figures --only {name} --out DIR`" in index


def test_only_runs_the_k2_study_with_live_status_and_writes_both_files(
    tmp_path, capsys, monkeypatch
):
    """One command reproduces the study; here with one setting and three starts injected."""
    import json

    from synthamp.figures import _k2_study
    from synthamp.jobs import _figures as _writer

    monkeypatch.setattr(_k2_study, "SETTINGS", ((10, 0.5),))
    monkeypatch.setattr(_k2_study, "STARTS", 3)
    calls = []
    original = F.DATA_SETS["k2_study"]

    def data(**kwargs):
        shown = kwargs.pop("progress")  # the CLI's status line, one step per setting

        def record(done, total):
            calls.append((done, total))
            shown(done, total)

        return original(progress=record, **kwargs)

    monkeypatch.setattr(_writer, "DATA_SETS", {**F.DATA_SETS, "k2_study": data})
    argv = ["figures", "--out", str(tmp_path), "--only", "fig_k2_study", "--quick", "--no-progress"]
    assert main([*argv, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert calls == [(1, 1)]
    others = [spec.name for spec in F.FIGURES if spec.expensive and spec.name != "fig_k2_study"]
    assert result["index"] is None and [s["name"] for s in result["skipped"]] == others
    assert [f["name"] for f in result["figures"]] == ["fig_k2_study"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fig_k2_study.csv", "fig_k2_study.png"]
    assert (tmp_path / "fig_k2_study.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = pd.read_csv(tmp_path / "fig_k2_study.csv")
    assert len(table) == 3 and set(table["dim"]) == {10} and set(table["starts"]) == {3}
    # a lower bound: the best pair found never exceeds the certified curves
    assert (table["best"] <= table["theorem_5_4"]).all()
    assert (table["best"] <= table["post_processing"]).all()


def test_only_refuses_an_unknown_figure(tmp_path, capsys):
    assert main(["figures", "--out", str(tmp_path), "--only", "fig_nope", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("synthamp: error: --only: unknown figure fig_nope")
    assert list(tmp_path.iterdir()) == []


def test_cli_refuses_an_out_path_that_is_a_file(tmp_path, capsys):
    target = tmp_path / "not_a_dir"
    target.write_text("keep me", encoding="utf-8")
    assert main(["figures", "--out", str(target), "--quick", "--no-progress"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("synthamp: error: --out:")
    assert target.read_text(encoding="utf-8") == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["not_a_dir"]


def test_cli_refuses_an_out_path_whose_parent_is_missing(tmp_path, capsys):
    target = tmp_path / "missing" / "figures"
    assert main(["figures", "--out", str(target), "--quick", "--no-progress"]) == 2
    assert "--out" in capsys.readouterr().err
    assert not (tmp_path / "missing").exists()
