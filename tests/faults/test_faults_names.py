"""Fault matrix (issue 25): names, library/CLI drift and output modes.

Each test states how it fails on b208f84.
"""

from __future__ import annotations

import os
import stat

import numpy as np
import pandas as pd
import pytest

from release_cases import FEATURES, TARGETS, one_error_line, private_frame, release_args, run
from synthamp._output import _io as _io
from synthamp._validation import InputError, printable
from synthamp.release import PrivateLinearGenerator
from synthamp.release import _generator as generator
from synthamp.release import _tabular as tabular

FORMULA = "=cmd|' /C calc'!A0"
ESCAPE = "x\x1b]0;owned\x07\x1b[31m"


def _renamed(name: str, new: str) -> None:
    private_frame().rename(columns={name: new}).to_csv("data.csv", index=False)


# --------------------------------------------------------------------------- names


def test_a_formula_target_name_is_refused_for_a_csv_output(workdir, capsys):
    """b208f84: the name went verbatim into the CSV header, a spreadsheet formula."""
    _renamed("y1", FORMULA)
    code, _, err = run(capsys, release_args(**{"--targets": f"{FORMULA},y2"}))
    assert code == 2 and "formula" in one_error_line(err, "--targets")
    assert not os.path.exists("syn.csv")
    # Parquet has no formulas: the same name is fine there.
    code, _, err = run(capsys, release_args(**{"--targets": f"{FORMULA},y2", "--out": "s.parquet"}))
    assert code == 0, err
    assert list(pd.read_parquet("s.parquet").columns) == [FORMULA, "y2"]


@pytest.mark.parametrize("prefix", ["=", "+", "-", "@", "\t", "\r"])
def test_the_library_refuses_formula_names_in_a_csv_header(tmp_path, prefix):
    """b208f84: tabular.write_table wrote them."""
    with pytest.raises(InputError, match="formula") as info:
        tabular.write_table(tmp_path / "a.csv", [np.zeros((2, 1))], [f"{prefix}SUM(A1)"])
    assert info.value.param == "columns" and not (tmp_path / "a.csv").exists()


def test_control_characters_in_column_names_never_reach_the_terminal(workdir, capsys):
    """b208f84: the "columns: …" list printed the escape sequence raw to stderr."""
    _renamed("x0", ESCAPE)
    code, _, err = run(capsys, release_args(**{"--features": "nothere"}))
    assert code == 2
    line = one_error_line(err, "--features")
    assert "\x1b" not in err and "\x07" not in err
    assert printable(ESCAPE) in line and "\\x1b" in line


# --------------------------------------------------------------------------- one input check


@pytest.mark.parametrize(
    "features",
    [
        np.ones((20, 3), dtype=bool),
        np.ma.masked_array(np.ones((20, 3)), mask=np.eye(20, 3, dtype=bool)),
    ],
    ids=["bool", "masked"],
)
def test_fit_refuses_what_the_command_line_refuses(features):
    """b208f84: fit took bool arrays (the CLI refuses them) and masked arrays' hidden cells."""
    model = PrivateLinearGenerator(label_bound=1, ridge=1, sigma=1, accounting="post-processing")
    with pytest.raises(InputError) as info:
        model.fit(features, np.zeros(20))
    assert info.value.param == "X"


def test_library_and_command_line_share_the_table_check(workdir, capsys):
    """One function: the command line's message for a NaN is the library's."""
    frame = private_frame()
    frame.loc[4, "x2"] = np.nan
    frame.to_csv("data.csv", index=False)
    code, _, err = run(capsys, release_args())
    assert code == 2
    cli_rule = one_error_line(err, "--features").split("--features: ")[1]
    x = frame[FEATURES].to_numpy()
    with pytest.raises(InputError) as info:
        PrivateLinearGenerator(label_bound=1, ridge=1, sigma=1).fit(x, frame[TARGETS])
    assert cli_rule == "column 'x2' has a missing (NaN) value in row 5"
    assert info.value.rule == "column 3 has a missing (NaN) value in row 5"


# --------------------------------------------------------------------------- modes


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_outputs_stay_0600_until_published_then_take_the_mode(workdir, capsys, monkeypatch):
    """b208f84: temporaries and outputs followed the umask (0644) throughout; no --mode."""
    seen = []
    real = generator.PrivateLinearGenerator._chunks

    def watch(self, *args, **kwargs):
        for entry in workdir.iterdir():
            if _io.TEMP_TAG in entry.name:
                seen.append(_mode(entry))
        yield from real(self, *args, **kwargs)

    monkeypatch.setattr(generator.PrivateLinearGenerator, "_chunks", watch)
    old = os.umask(0o022)
    try:
        code, _, err = run(capsys, release_args(**{"--mode": "640"}))
        assert code == 0, err
        assert seen and set(seen) == {0o600}
        assert {_mode(p) for p in workdir.glob("syn*")} == {0o640}
        code, _, err = run(capsys, release_args(**{"--out": "b.csv"}))  # default: the umask
        assert code == 0, err
        assert {_mode(p) for p in workdir.glob("b*")} == {0o644}
        code, _, err = run(capsys, release_args(**{"--out": "c.csv", "--seed": "1"}))
        assert code == 0, err  # a seeded release is not private: owner only by default
        assert {_mode(p) for p in workdir.glob("c*")} == {0o600}
    finally:
        os.umask(old)


def test_a_partitioned_dataset_gets_the_mode_on_every_file(workdir, capsys):
    args = release_args(**{"--out": "ds", "--partitions": "2", "--mode": "0o600"})
    code, _, err = run(capsys, args)
    assert code == 0, err
    assert _mode(workdir / "ds") == 0o700
    assert {_mode(p) for p in (workdir / "ds").iterdir()} == {0o600}


@pytest.mark.parametrize("mode", ["999", "abc", "1777", "444"])
def test_a_bad_mode_is_one_line(workdir, capsys, mode):
    code, _, err = run(capsys, release_args(**{"--mode": mode}))
    assert code == 2
    assert "octal" in one_error_line(err, "--mode") or "6xx" in err  # b208f84: no such option


def test_output_names_are_shown_as_they_are_never_as_markup_or_escapes(workdir, capsys):
    """b208f84: rich read "[bold]" in a file name as markup (dropped it) and printed escapes raw."""
    name = "a[bold]b\x1b[31m.csv"
    code, out, err = run(capsys, release_args(**{"--out": name}))
    assert code == 0, err
    assert os.path.exists(name)
    assert "\x1b" not in out and "a[bold]b\\x1b[31m.csv" in out
