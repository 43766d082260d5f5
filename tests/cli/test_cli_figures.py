"""``synthamp figures``: a PNG and a CSV per figure, the index, bad output paths."""

from __future__ import annotations

import pandas as pd

from synthamp import figures as F
from synthamp.cli import main

KINDS = {"exact", "certified", "heuristic", "guide"}


def test_cli_writes_png_and_csv_per_figure_and_an_index(out_dir):
    names = F.figure_names()
    for name in names:
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
