"""``write_figures``: the names asked for, the files written, the figures skipped."""

from __future__ import annotations

import pandas as pd
import pytest

from synthamp import InputError
from synthamp.figures import FIGURES
from synthamp.jobs import WrittenFigures, check_figure_names, write_figures


def test_check_figure_names():
    assert check_figure_names(None) is None
    assert check_figure_names(" fig3_eta, fig3_eta,fig1_summary") == ["fig3_eta", "fig1_summary"]
    assert check_figure_names(["fig3_eta"]) == ["fig3_eta"]
    for bad in ("nope", ",", "fig3_eta,nope"):
        with pytest.raises(InputError) as caught:
            check_figure_names(bad)
        assert caught.value.param == "only"


def test_write_figures_only_one_quick_figure(tmp_path):
    written = write_figures(tmp_path / "out", quick=True, show_progress=False, only="fig3_eta")
    png, csv = tmp_path / "out" / "fig3_eta.png", tmp_path / "out" / "fig3_eta.csv"
    assert written.files == (png, csv) and written.index is None
    assert png.read_bytes().startswith(b"\x89PNG") and "kind" in pd.read_csv(csv).columns
    expensive = {spec.name for spec in FIGURES if spec.expensive}
    assert set(written.skipped) == expensive and written.skipped
    data = written.to_dict()
    assert data["figures"] == [{"name": "fig3_eta", "png": str(png), "csv": str(csv)}]
    assert written.lines() == [str(png), str(csv)]
    assert all(str(tmp_path / "out") in note for note in written.notes())


def test_written_figures_json_and_a_bad_folder(tmp_path):
    index = tmp_path / "index.md"
    written = WrittenFigures(str(tmp_path), (tmp_path / "a.png", tmp_path / "a.csv", index), index)
    assert written.to_dict()["index"] == str(index) and written.to_dict()["skipped"] == []
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError) as caught:
        write_figures(tmp_path / "file", quick=True, show_progress=False, only="fig3_eta")
    assert caught.value.param == "out"
