"""Fault matrix (issue 35): one line for every output and command-line error.

``--out`` that names no file, ``--scheduler`` that is no scheduler, a dask write to a
full disk, hostile names and paths in every report format, formula-like names, a
header of many columns, and library errors that were bare ``ValueError``. Each test
states how it fails on 4c93a73.
"""

from __future__ import annotations

import errno
import functools
import importlib.util
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from release_cases import FEATURES, one_error_line, private_frame, release_args, run
from synthamp._validation import InputError, printable
from synthamp.jobs import release_table
from synthamp.release import _tabular as tabular

SRC = str(Path(tabular.__file__).parents[1])


def _listing(folder: Path) -> list[str]:
    return sorted(entry.name for entry in folder.iterdir())


def _refused(capsys, workdir, args, flag) -> str:
    """Exit 2, one ``synthamp: error:`` line naming ``flag``, and nothing written."""
    before = _listing(workdir)
    code, out, err = run(capsys, args)
    assert code == 2, err
    line = one_error_line(err, flag)
    assert _listing(workdir) == before and out == ""
    return line


# --------------------------------------------------------------------------- --out


@pytest.mark.parametrize(
    "out", [".", "..", "/", "./", "", "sub", "sub/", "x.csv/", "sub/..", "sub/."]
)
def test_an_out_that_names_no_file_is_one_line(workdir, capsys, no_work, out):
    """4c93a73: ".", "/", "./" and "sub/." raised pathlib's ValueError (a 34-line traceback);
    "x.csv/" wrote the file x.csv; "sub" said "unsupported file extension"."""
    (workdir / "sub").mkdir()
    line = _refused(capsys, workdir, release_args(**{"--out": out}), "--out")
    assert "folder" in line


@pytest.mark.parametrize("out", [".", "..", "/", "./", ""])
def test_a_dataset_out_that_names_no_new_folder_is_one_line(workdir, capsys, no_work, out):
    """4c93a73: a traceback (with --force: the report name of "." has no stem)."""
    args = release_args(**{"--out": out, "--partitions": "2", "--unlimited": True})
    line = _refused(capsys, workdir, [*args, "--force"], "--out")
    assert "names no new file but a folder" in line


def test_a_folder_synthamp_did_not_write_is_never_replaced(workdir, capsys, no_work):
    mine = workdir / "mine"
    mine.mkdir()
    (mine / "thesis.tex").write_text("years of work")
    args = release_args(**{"--out": "mine", "--partitions": "2", "--unlimited": True})
    line = _refused(capsys, workdir, [*args, "--force"], "--out")
    assert "synthamp did not write it" in line
    assert (mine / "thesis.tex").read_text() == "years of work"
    line = _refused(capsys, workdir, release_args(**{"--out": "mine"}), "--out")
    assert "is a folder" in line


def test_a_fifo_is_never_replaced(workdir, capsys, no_work):
    """4c93a73: --force replaced the FIFO with the table (exit 0)."""
    os.mkfifo(workdir / "pipe.csv")
    line = _refused(capsys, workdir, [*release_args(**{"--out": "pipe.csv"}), "--force"], "--out")
    assert "FIFO" in line
    assert (workdir / "pipe.csv").is_fifo()


@pytest.mark.parametrize("flag", ["--out", "--report"])
def test_a_name_too_long_for_the_temporary_names_is_one_line(workdir, capsys, no_work, flag):
    """4c93a73: "synthamp: error: aaa…a.privacy.json: File name too long", naming no flag,
    after the table was read."""
    stem = "a" * 230
    value = f"{stem}.csv" if flag == "--out" else f"{stem}.json"
    line = _refused(capsys, workdir, release_args(**{flag: value}), flag)
    assert "bytes" in line


@pytest.mark.parametrize("report", [".", "r.json/", "sub"])
def test_a_report_that_names_no_file_is_one_line(workdir, capsys, no_work, report):
    (workdir / "sub").mkdir()
    _refused(capsys, workdir, release_args(**{"--report": report}), "--report")


def test_out_dot_in_a_real_process_prints_no_traceback(workdir):
    """The console script, not only main(): exit 2 and exactly one stderr line."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, *sys.path])}
    done = subprocess.run(
        [sys.executable, "-m", "synthamp", *release_args(**{"--out": "."})],
        cwd=workdir, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert lines[0].startswith("synthamp: error: --out: ")


# --------------------------------------------------------------------------- --scheduler

needs_dask = pytest.mark.skipif(
    importlib.util.find_spec("distributed") is None, reason="needs the extra synthamp[dask]"
)

DASK = {"--partitions": "2", "--backend": "dask", "--unlimited": True, "--out": "dd"}


@needs_dask
@pytest.mark.parametrize("address", ["bogus", "tcp://host", "tcp://:8786", "nope://h:1"])
def test_a_malformed_scheduler_is_one_line_before_the_table_is_read(
    workdir, capsys, no_work, address
):
    """4c93a73: --scheduler bogus raised distributed's ValueError after the fit (75 lines)."""
    line = _refused(
        capsys, workdir, release_args(**DASK, **{"--scheduler": address}), "--scheduler"
    )
    assert "is not a scheduler address" in line or "needs a host" in line


@needs_dask
def test_an_unreachable_scheduler_is_one_line_before_the_table_is_read(workdir, capsys, no_work):
    """4c93a73: the table was read and fitted first, then a 10 s connect timeout."""
    with socket.socket() as probe:  # a port that nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    start = time.monotonic()
    args = release_args(**DASK, **{"--scheduler": f"tcp://127.0.0.1:{port}"})
    line = _refused(capsys, workdir, args, "--scheduler")
    assert "cannot reach" in line and time.monotonic() - start < 8


# --------------------------------------------------------------------------- a full disk on dask


def _disk_full(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


@needs_dask
def test_a_full_disk_on_dask_is_one_line_naming_the_output(workdir, capfd, monkeypatch):
    """4c93a73: each worker logged 'Compute Failed' with the task and a traceback (7 lines
    per partition) before the error line. Workers in this process: the write is patched."""
    from dask.dataframe.io.parquet import arrow

    from synthamp.cli import main
    from synthamp.jobs import _release_table as _pipeline
    from synthamp.release import _distributed

    monkeypatch.setattr(arrow.ArrowDatasetEngine, "write_partition", classmethod(_disk_full))
    in_process = functools.partial(_distributed.local_cluster, 1, processes=False)
    monkeypatch.setattr(_pipeline, "local_cluster", in_process)
    code = main(release_args(**DASK, **{"--no-progress": True}))
    captured = capfd.readouterr()
    assert code == 2, captured.err
    line = one_error_line(captured.err, "--out")
    assert line == "synthamp: error: --out: cannot write dd: No space left on device"
    assert "Compute Failed" not in captured.err + captured.out
    assert _listing(workdir) == ["data.csv"]  # no partial part, no temporary folder


SITE_HOOK = """
import errno


def _disk_full(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


try:
    from dask.dataframe.io.parquet import arrow
except ImportError:
    pass
else:
    arrow.ArrowDatasetEngine.write_partition = classmethod(_disk_full)
"""


@needs_dask
@pytest.mark.slow
def test_a_full_disk_in_dask_worker_processes_is_one_line(workdir, tmp_path_factory):
    """The console script with worker processes (a sitecustomize on their path fills the
    disk): 4c93a73 printed 8 lines of worker logs before the error."""
    hook = tmp_path_factory.mktemp("hook")
    (hook / "sitecustomize.py").write_text(SITE_HOOK)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, str(hook), *sys.path])}
    done = subprocess.run(
        [sys.executable, "-m", "synthamp", *release_args(**DASK, **{"--no-progress": True})],
        cwd=workdir, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    one_error_line(done.stderr, "--out")
    assert "No space left" in done.stderr and _listing(workdir) == ["data.csv"]


# --------------------------------------------------------------------------- reports escaped

HOSTILE = "<script>alert(1)</script>|x\n# *b* [l](u) `c` \x1b[31m"
HOSTILE_OUT = "o<i>|u*t_`\x1b[31m"


def _hostile_table(workdir) -> None:
    private_frame().rename(columns={"y1": HOSTILE}).to_parquet("hostile.parquet", index=False)


def _unescaped_pipes(line: str) -> int:
    return len(re.findall(r"(?<!\\)\|", line))


def _check_markdown(text: str) -> None:
    """No raw name or path, and every table row keeps its cells (rendered by markdown-it)."""
    markdown_it = pytest.importorskip("markdown_it")
    assert "<script>" not in text and "\x1b" not in text and "<i>" not in text
    page = markdown_it.MarkdownIt("commonmark").enable("table").render(text)
    assert "<script>" not in page and "<i>" not in page and "<em>b</em>" not in page
    for line in text.splitlines():
        if line.startswith("| ") and "&lt;script" in line:
            assert _unescaped_pipes(line) == 3, line  # | field | value |


def _check_html(text: str) -> None:
    assert "alert(1)</script>" not in text and "<i>" not in text and "\x1b" not in text


def _hostile_release(workdir, capsys, **extra) -> tuple[Path, str]:
    _hostile_table(workdir)
    folder = workdir / HOSTILE_OUT
    folder.mkdir()
    out = f"{HOSTILE_OUT}/s<b>|{HOSTILE_OUT}.parquet"
    args = release_args(
        **{"--data": "hostile.parquet", "--targets": f"{HOSTILE},y2", "--out": out, **extra}
    )
    code, printed, err = run(capsys, args)
    assert code == 0, err
    assert "\x1b" not in printed + err
    return folder, printed


def test_the_design_release_escapes_names_and_paths_in_every_format(workdir, capsys):
    """4c93a73: the Markdown report wrote the column names raw (a script, a broken table
    row) and the summary printed --out with its escape sequence."""
    extra = {
        "--targets": HOSTILE, "--features": None, "--sigma": None, "--epsilon": "1",
        "--delta": "1e-5", "--accounting": None, "--design": "random-seeds", "--width": "30",
        "--design-seed": "1", "--n-syn": "50", "--no-progress": True,
    }  # fmt: skip
    folder, printed = _hostile_release(workdir, capsys, **extra)
    assert printable(HOSTILE_OUT) in printed
    (md,) = folder.glob("*.md")
    _check_markdown(md.read_text())
    assert "&lt;script&gt;" in md.read_text()  # the name is there, as text
    (page,) = folder.glob("*.html")
    _check_html(page.read_text())


def test_the_generator_release_escapes_names_and_paths_in_every_format(workdir, capsys):
    folder, printed = _hostile_release(workdir, capsys, **{"--no-progress": True})
    assert printable(HOSTILE_OUT) in printed
    (md,) = folder.glob("*.md")
    _check_markdown(md.read_text())
    (page,) = folder.glob("*.html")
    _check_html(page.read_text())


def test_the_demo_prints_its_folder_without_escape_sequences(tmp_path, capsys, monkeypatch):
    """4c93a73: "wrote …" printed the folder raw (rich markup and the escape sequence)."""
    monkeypatch.chdir(tmp_path)
    folder = "d[bold]x\x1b[31m"
    args = ["demo", "--out", folder, "--unlimited", "--n-syn", "100", "--no-progress"]
    code, printed, err = run(capsys, args)
    assert code == 0, err
    assert "\x1b" not in printed and "d[bold]x\\x1b[31m" in printed
    for md in (tmp_path / folder).glob("*.md"):
        _check_markdown(md.read_text())


@pytest.mark.parametrize(
    "text",
    [HOSTILE, "a|b", "*x*", "_y_", "`z`", "[l](http://e)", "![i](x)", "a\nb", "&amp;", "\\|"],
)
def test_markdown_text_shows_the_text_itself(text):
    """markdown_text(x) in a table cell renders as one cell holding x (control characters
    as their escapes), whatever x is."""
    markdown_it = pytest.importorskip("markdown_it")
    from synthamp.report import html_text, markdown_text

    table = f"| a | b |\n|---|---|\n| {markdown_text(text)} | 1 |\n"
    page = markdown_it.MarkdownIt("commonmark").enable("table").render(table)
    cells = re.findall(r"<td>(.*?)</td>", page, flags=re.S)
    assert cells == [html_text(text), "1"]


# --------------------------------------------------------------------------- formula names

FORMULAS = ["＝1+1", "|calc", ";=1+1", "'=1+1", "＋1", "－1", "＠SUM(A1)", " =1+1", "｜calc"]


@pytest.mark.parametrize("name", FORMULAS)
def test_formula_like_names_are_refused_in_a_csv_header(tmp_path, name):
    """4c93a73: only an ASCII =, +, -, @, tab or line break was caught."""
    with pytest.raises(InputError, match="formula") as info:
        tabular.write_table(tmp_path / "a.csv", [np.zeros((2, 1))], [name])
    assert info.value.param == "columns" and not (tmp_path / "a.csv").exists()


@pytest.mark.parametrize("name", ["＝1+1", "'=1+1"])
def test_the_command_line_refuses_formula_names_for_a_csv_output(workdir, capsys, name):
    private_frame().rename(columns={"y1": name}).to_csv("data.csv", index=False)
    line = _refused(capsys, workdir, release_args(**{"--targets": f"{name},y2"}), "--targets")
    assert "formula" in line


@pytest.mark.parametrize("name", ["a=1", "x-1", "total+", "é", "Ｙ"])
def test_ordinary_names_pass(tmp_path, name):
    assert tabular.write_table(tmp_path / "a.csv", [np.zeros((2, 1))], [name]) == 2


# --------------------------------------------------------------------------- wide headers


class _CountedName(str):
    """A column name that counts the comparisons made with it."""

    comparisons = 0

    def __eq__(self, other):
        type(self).comparisons += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def test_reading_a_header_compares_each_name_a_bounded_number_of_times(tmp_path, monkeypatch):
    """4c93a73: each of d features was looked up in the list of d columns (d²/2 compares:
    129 s for 10⁵ columns); now a set. The timing is in benchmarks/bench_release.py."""
    d = 2_000
    names = [f"c{i}" for i in range(d)]
    path = tmp_path / "wide.csv"
    rows = [",".join(names), ",".join(["0.5"] * d), ",".join(["1"] * d)]
    path.write_text("\n".join(rows) + "\n")
    monkeypatch.setattr(_CountedName, "comparisons", 0)
    features = [_CountedName(name) for name in names[1:]]
    assert tabular.read_shape(path, [_CountedName("c0")], features) == (2, d - 1, 1)
    assert 0 < _CountedName.comparisons <= 4 * d


def test_a_duplicated_header_is_still_refused_by_read_shape(tmp_path):
    """As read_table refuses it (4c93a73: pandas renamed the second "b" to "b.1")."""
    path = tmp_path / "dup.csv"
    path.write_text("a,b,b,y\n1,2,3,4\n5,6,7,8\n")
    with pytest.raises(InputError, match="appears twice") as info:
        tabular.read_shape(path, ["y"])
    assert info.value.param == "data"
    with pytest.raises(InputError, match="listed twice"):
        tabular.parse_columns("a,b,a", param="features")


def test_plan_counts_the_features_release_uses_in_a_parquet_file_with_an_index(tmp_path):
    """4c93a73: read_shape counted a stored pandas index as a feature (d = 8), which the
    release (pandas.read_parquet) does not see (d = 7)."""
    frame = private_frame().drop(columns="site")
    frame.index = [f"r{i}" for i in range(len(frame))]
    frame.to_parquet(tmp_path / "ix.parquet")
    assert tabular.read_shape(tmp_path / "ix.parquet", ["y1"]) == (120, 7, 1)
    assert len(tabular.read_table(tmp_path / "ix.parquet").columns) == 8  # 7 features + y1


# --------------------------------------------------------------------------- library errors


def test_write_table_names_its_own_parameters(tmp_path):
    """4c93a73: a bare ValueError for a chunk of the wrong shape, and 'out' for a bad path."""
    with pytest.raises(InputError) as info:
        tabular.write_table(tmp_path / "a.csv", [np.zeros((2, 3))], ["a", "b"])
    assert info.value.param == "chunks"
    with pytest.raises(InputError) as info:
        tabular.write_table(tmp_path / "a.txt", [np.zeros((2, 1))], ["a"])
    assert info.value.param == "path"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "option, value",
    [
        ("backend", "Dask"),  # 4c93a73: anything but "dask" ran locally
        ("adjacency", "grams"),  # 4c93a73: ignored without a design
        ("force", "no"),  # 4c93a73: a non-empty string read as True (overwrite)
        ("unlimited", "no"),
        ("out", 5),  # 4c93a73: TypeError from pathlib
        ("report", 5),
        ("targets", 5),  # 4c93a73: TypeError, 'int' object is not iterable
    ],
)
def test_release_table_refuses_the_wrong_kind_of_option(workdir, no_work, option, value):
    kwargs = dict(
        data="data.csv", targets="y1,y2", features=FEATURES, label_bound=1, ridge=0.1,
        sigma=0.5, n_syn=100, out="syn.csv", accounting="post-processing",
    )  # fmt: skip
    with pytest.raises(InputError) as info:
        release_table(**{**kwargs, option: value})
    assert info.value.param == option
    assert _listing(workdir) == ["data.csv"]


@pytest.mark.parametrize("path", [".", "..", "/", ""])
def test_write_dataset_refuses_a_path_that_names_no_new_folder(tmp_path, monkeypatch, path):
    """4c93a73: an empty current folder ('.' or '') passed the path checks as a dataset
    folder that --force may replace; '..' and '/' were refused only for their contents."""
    from synthamp.release import write_dataset

    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError) as info:
        write_dataset(None, path, 10, partitions=2, force=True)
    assert info.value.param == "path" and "names no new file" in info.value.rule
    assert _listing(tmp_path) == []


def test_a_table_in_memory_with_duplicated_or_numbered_columns_is_one_error(workdir):
    """4c93a73: duplicated names raised AttributeError ('DataFrame' object has no attribute
    'dtype'); integer names said "column '6' is also a target"."""
    frame = private_frame()
    kwargs = dict(label_bound=1, ridge=0.1, sigma=0.5, n_syn=10, out="o.csv")
    duplicated = frame.set_axis(["x0", "x0", *frame.columns[2:]], axis=1)
    with pytest.raises(InputError, match="appears twice") as info:
        release_table(duplicated, "y1,y2", "x0,x2", **kwargs, accounting="post-processing")
    assert info.value.param == "data"
    numbered = frame.drop(columns="site").set_axis(range(8), axis=1)
    with pytest.raises(InputError, match="must be text") as info:
        release_table(numbered, "6", None, **kwargs, accounting="post-processing")
    assert info.value.param == "data"
    # a column the release does not use may carry any name
    extra = frame.assign(**{"x0 ": 1.0}).set_axis([*frame.columns, 99], axis=1)
    result = release_table(extra, "y1,y2", FEATURES, **kwargs, accounting="post-processing")
    assert result.records == 10
