"""The release pipeline (issue 14): transactional output, signals, input hardening, scale.

Each case runs the command line and checks the exit code, the one-line message
and the files left behind. Write failures are produced without root tricks
(we may run as root, where chmod does not stop writes): a path under /proc, a
path whose parent is a file, or an OSError injected into the writer.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from release_cases import (
    FEATURES,
    TARGETS,
    one_error_line,
    private_frame,
    release_args,
    run,
    snapshot,
)
from synthamp._output import _io as _io
from synthamp._validation import InputError
from synthamp.release import _generator as generator
from synthamp.release import _tabular as tabular
from synthamp.report import _privacy as report

#: A pid above /proc/sys/kernel/pid_max: no process has it.
DEAD_PID = 4_194_303


@pytest.fixture
def no_work(monkeypatch):
    """Fail if the accountant is reached (the output checks must come first)."""

    def fail(**kwargs):
        raise AssertionError("work started before the output check")

    monkeypatch.setattr(generator, "_account", fail)


def _temporaries(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.rglob("*") if _io.TEMP_TAG in p.name)


# --------------------------------------------------------------------------- unwritable outputs


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs a /proc file system")
@pytest.mark.parametrize("flag", ["--out", "--report"])
def test_output_under_proc_is_refused_before_any_work(workdir, capsys, no_work, flag):
    before = snapshot(workdir)
    target = "/proc/synthamp-test.csv" if flag == "--out" else "/proc/synthamp-test.json"
    code, out, err = run(capsys, release_args(**{flag: target}))
    assert code == 2
    line = one_error_line(err, flag)
    assert "cannot write in /proc" in line
    assert snapshot(workdir) == before and out == ""


def test_output_whose_parent_is_a_file_is_refused(workdir, capsys, no_work):
    before = snapshot(workdir)
    code, _, err = run(capsys, release_args(**{"--out": "data.csv/syn.csv"}))
    assert code == 2
    assert "data.csv is not a directory" in one_error_line(err, "--out")
    assert snapshot(workdir) == before


def _fail_markdown(monkeypatch):
    def explode(self):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(report.PrivacyReport, "to_markdown", explode)


def test_report_write_failure_leaves_no_table(workdir, capsys, monkeypatch):
    _fail_markdown(monkeypatch)
    before = snapshot(workdir)
    code, _, err = run(capsys, release_args())
    assert code == 2
    assert "No space left on device" in one_error_line(err, "--report")
    assert snapshot(workdir) == before and _temporaries(workdir) == []


def test_failed_overwrite_keeps_the_previous_outputs(workdir, capsys, monkeypatch):
    assert run(capsys, release_args(**{"--n-syn": "10"}))[0] == 0
    before = snapshot(workdir)
    _fail_markdown(monkeypatch)
    code, _, err = run(capsys, release_args(**{"--n-syn": "20", "--force": True}))
    assert code == 2 and "--report" in err
    assert snapshot(workdir) == before and _temporaries(workdir) == []


def test_table_write_failure_exits_2_naming_out(workdir, capsys, monkeypatch):
    def explode(self, *args, **kwargs):
        yield np.zeros((3, 2))
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(generator.PrivateLinearGenerator, "_chunks", explode)
    before = snapshot(workdir)
    code, _, err = run(capsys, release_args())
    assert code == 2
    line = one_error_line(err, "--out")
    assert "cannot write syn.csv: Input/output error" in line  # the destination, not the temp
    assert snapshot(workdir) == before and _temporaries(workdir) == []


def test_commit_failure_rolls_back_every_output(tmp_path, monkeypatch):
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("old a")
    real_replace = os.replace
    calls = []

    def flaky(src, dst):
        calls.append(Path(dst))
        if Path(dst) == second:
            raise OSError(30, "Read-only file system", str(dst))
        return real_replace(src, dst)

    monkeypatch.setattr(_io.os, "replace", flaky)
    with pytest.raises(InputError, match=r"cannot write .*b\.txt: Read-only") as info:
        with _io.OutputTransaction() as transaction:
            for path, param in ((first, "out"), (second, "report")):
                transaction.add(path, param=param).write_text("new")
            transaction.commit()
    assert info.value.param == "report"
    assert first.read_text() == "old a" and not second.exists()
    assert _temporaries(tmp_path) == []


def test_stale_temporaries_are_removed_and_reported(workdir, capsys):
    stale = workdir / f".syn.csv.{_io.TEMP_TAG}-{DEAD_PID}-0123abcd"
    stale.write_bytes(b"x" * 1000)
    stale_folder = workdir / f".syn.csv.privacy.json.{_io.TEMP_TAG}-{DEAD_PID}-0123abce"
    stale_folder.mkdir()
    live = workdir / f".syn.csv.{_io.TEMP_TAG}-{os.getpid()}-0123abcf"  # a running release
    live.write_bytes(b"y")
    code, _, err = run(capsys, release_args())
    assert code == 0, err
    assert not stale.exists() and not stale_folder.exists() and live.exists()
    removed = [line for line in err.splitlines() if "interrupted run" in line]
    assert len(removed) == 2 and all(line.startswith("synthamp: warning:") for line in removed)


# --------------------------------------------------------------------------- signals


def _start_release(directory: Path, *extra: str) -> subprocess.Popen:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(tabular.__file__).parents[1]), *sys.path])
    command = [sys.executable, "-m", "synthamp", *release_args(**{"--n-syn": "10000000"}), *extra]
    return subprocess.Popen(
        command, cwd=directory, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )


def test_sigterm_removes_the_temporary_file_and_exits_143(workdir):
    process = _start_release(workdir)
    try:
        deadline = time.monotonic() + 120
        while not _temporaries(workdir):
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "no temporary file appeared"
            time.sleep(0.05)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 128 + signal.SIGTERM
    lines = err.decode().strip().splitlines()
    assert lines[-1] == "synthamp: terminated (SIGTERM); no output was written"
    assert "Traceback" not in err.decode()
    assert _temporaries(workdir) == []
    assert sorted(p.name for p in workdir.iterdir()) == ["data.csv"]


# --------------------------------------------------------------------------- input hardening


def test_duplicated_column_names_exit_2(workdir, capsys):
    frame = private_frame()
    (workdir / "dup.csv").write_text(
        frame.to_csv(index=False).replace("x0,x1,", "x0,x0,", 1), encoding="utf-8"
    )
    import pyarrow as pa
    import pyarrow.parquet as pq

    names = ["x0", "x0", *map(str, frame.columns[2:])]
    arrays = [pa.array(frame.iloc[:, j]) for j in range(frame.shape[1])]
    pq.write_table(pa.Table.from_arrays(arrays, names=names), "dup.parquet")
    for name in ("dup.csv", "dup.parquet"):
        code, _, err = run(capsys, release_args(**{"--data": name, "--features": "x0,x2"}))
        assert code == 2
        assert "column 'x0' appears twice" in one_error_line(err, "--data")


def test_unnamed_index_column_exits_2_with_a_hint(workdir, capsys):
    private_frame().to_csv("indexed.csv")  # pandas writes the index as an unnamed first column
    code, _, err = run(capsys, release_args(**{"--data": "indexed.csv", "--features": None}))
    assert code == 2
    assert "index=False" in one_error_line(err, "--data")


def test_complex_and_object_columns_are_refused_with_the_parameter():
    frame = pd.DataFrame({"a": [1.0, 2.0], "b": [1 + 2j, 3 + 0j], "c": ["u", "v"]})
    with pytest.raises(InputError, match="'b' is complex") as info:
        tabular.select_numeric(frame, ["a", "b"], param="targets")
    assert info.value.param == "targets"
    with pytest.raises(InputError, match="'c' is not numeric") as info:
        tabular.select_numeric(frame, ["c"], param="features")
    assert info.value.param == "features"


def test_clipping_statistics_say_they_are_not_covered(workdir, capsys):
    frame = private_frame()
    frame.loc[:9, "x0"] = 5.0
    frame.to_csv("big.csv", index=False)
    share = np.mean(np.linalg.norm(frame[FEATURES].to_numpy(), axis=1) > 1)
    assert share > 10 / 120
    code, _, err = run(capsys, release_args(**{"--data": "big.csv", "--max-clipped": "0.2"}))
    assert code == 0, err
    notes = [line for line in err.splitlines() if "feature rows" in line]
    assert len(notes) == 1 and f"{100 * share:.1f}% of feature rows" in notes[0]
    assert "not covered by the privacy guarantee" in notes[0]


def test_python_warnings_are_one_line(workdir, capsys, monkeypatch):
    import warnings

    real = tabular.read_table  # the pipeline reads through synthamp.release._tabular

    def noisy(*args, **kwargs):
        warnings.warn("something\nworth knowing", UserWarning, stacklevel=1)
        return real(*args, **kwargs)

    monkeypatch.setattr(tabular, "read_table", noisy)
    code, _, err = run(capsys, release_args())
    assert code == 0, err
    assert "synthamp: warning: something worth knowing" in err.splitlines()
    assert "warnings.warn" not in err and ".py:" not in err


# --------------------------------------------------------------------------- scale


def test_n_syn_is_unlimited_only_under_unlimited_accounting(workdir, capsys, monkeypatch):
    monkeypatch.setattr("synthamp.jobs._release_checks.MAX_N_SYN", 100)
    code, _, err = run(capsys, release_args(**{"--n-syn": "500"}))
    assert code == 2 and "--unlimited" in one_error_line(err, "--n-syn")
    code, _, err = run(capsys, release_args(**{"--n-syn": "500", "--unlimited": True}))
    assert code == 0, err
    assert len(pd.read_csv("syn.csv")) == 500
    assert json.loads((workdir / "syn.csv.privacy.json").read_text())["n_syn"] is None


def test_partitions_write_a_parquet_dataset(workdir, capsys):
    args = release_args(**{"--out": "syn", "--partitions": "3", "--n-syn": "1001", "--seed": "4"})
    code, out, err = run(capsys, args)
    assert code == 0, err
    files = sorted(p.name for p in (workdir / "syn").iterdir() if p.name != _io.MANIFEST_NAME)
    assert files == ["part.0.parquet", "part.1.parquet", "part.2.parquet"]
    manifest = json.loads((workdir / "syn" / _io.MANIFEST_NAME).read_text())
    assert sorted(f["name"] for f in manifest["files"]) == files  # synthamp marks its dataset
    sizes = [len(pd.read_parquet(workdir / "syn" / name)) for name in files]
    assert sizes == [334, 334, 333]
    dataset = pd.read_parquet(workdir / "syn")
    assert list(dataset.columns) == TARGETS and (dataset.dtypes == np.float64).all()
    assert json.loads((workdir / "syn.privacy.json").read_text())["n_syn"] == 1001
    assert "wrote 1,001 synthetic records" in out
    # Existing dataset: refused without --force, replaced with it.
    code, _, err = run(capsys, args)
    assert code == 2 and "--force" in one_error_line(err, "--out")
    code, _, err = run(capsys, [*args, "--force"])
    assert code == 0, err
    assert pd.read_parquet(workdir / "syn").equals(dataset)  # same seed, same records
    assert _temporaries(workdir) == []


def test_partitioned_force_never_deletes_foreign_files(workdir, capsys):
    (workdir / "syn").mkdir()
    (workdir / "syn" / "notes.txt").write_text("mine")
    code, _, err = run(
        capsys, release_args(**{"--out": "syn", "--partitions": "2", "--force": True})
    )
    assert code == 2 and "notes.txt" in one_error_line(err, "--out")
    assert (workdir / "syn" / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize(
    ("overrides", "flag"),
    [
        ({"--partitions": "0"}, "--partitions"),
        ({"--partitions": "2000"}, "--partitions"),
        ({"--backend": "dask"}, "--partitions"),
        ({"--scheduler": "tcp://127.0.0.1:1"}, "--scheduler"),
        ({"--out": "data.csv", "--partitions": "2", "--force": True}, "--out"),
    ],
)
def test_bad_scale_options_exit_2(workdir, capsys, no_work, overrides, flag):
    before = snapshot(workdir)
    code, _, err = run(capsys, release_args(**overrides))
    assert code == 2
    one_error_line(err, flag)
    assert snapshot(workdir) == before


def test_missing_dask_extra_is_one_line(workdir, capsys, no_work, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    code, _, err = run(capsys, release_args(**{"--backend": "dask", "--partitions": "2"}))
    assert code == 2
    assert "pip install 'synthamp[dask]'" in one_error_line(err, "--backend")


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs a /proc file system")
@pytest.mark.parametrize(
    "args",
    [
        ["demo", "--out", "/proc/synthamp-demo"],
        ["figures", "--quick", "--out", "/proc/synthamp-figures"],
        ["figures", "--quick", "--out", "data.csv/figures"],
    ],
)
def test_demo_and_figures_refuse_unwritable_outputs_at_once(workdir, capsys, args):
    before = snapshot(workdir)
    start = time.process_time()  # CPU time: the work, not the machine's load
    code, _, err = run(capsys, args)
    assert code == 2
    one_error_line(err, args[-2])
    assert time.process_time() - start < 5  # refused before computing anything
    assert snapshot(workdir) == before


# --------------------------------------------------------------------------- after the layout move


def test_huge_cells_are_clipped_to_the_bound_not_to_zero():
    from synthamp.release import clip_rows, row_norms

    rows = np.array([[1e308, 1e308], [-1e308, 5.0], [3.0, 4.0], [0.0, 0.0], [1e-320, 1e-320]])
    clipped = clip_rows(rows, 1.0)
    np.testing.assert_allclose(row_norms(clipped)[:3], 1.0, rtol=1e-15)
    np.testing.assert_allclose(clipped[0], [2**-0.5, 2**-0.5], rtol=1e-15)
    np.testing.assert_array_equal(clipped[3:], rows[3:])  # below the bound: unchanged
    assert np.isfinite(row_norms(rows)).all() and row_norms(rows)[4] > 0
    np.testing.assert_allclose(row_norms(rows[:1]), [2**0.5 * 1e308], rtol=1e-15)


def test_release_with_a_1e308_cell_succeeds_without_numpy_warnings(workdir, capsys):
    frame = private_frame()
    frame.loc[4, "x1"] = 1e308
    frame.to_csv("huge.csv", index=False)
    code, _, err = run(capsys, release_args(**{"--data": "huge.csv"}))
    assert code == 0, err
    assert "RuntimeWarning" not in err and "overflow" not in err
    assert "feature rows exceed norm 1" in err


@pytest.mark.parametrize(
    ("values", "rule"),
    [
        (np.ones((5, 3)) + 1j, "complex"),
        (np.ones((5, 3)).astype(object), "dtype object"),
        (np.array([["a"] * 3] * 5), "dtype <U1"),
    ],
)
def test_estimator_refuses_complex_and_object_features(values, rule):
    from synthamp.release import PrivateLinearGenerator

    estimator = PrivateLinearGenerator(label_bound=1.0, ridge=0.1, sigma=1.0)
    with pytest.raises(InputError, match=rule) as info:
        estimator.fit(values, np.ones((5, 1)))
    assert info.value.param == "X"
    with pytest.raises(InputError, match=rule) as info:
        estimator.fit(np.ones((5, 3)), values[:, :1])
    assert info.value.param == "Y"


@pytest.mark.parametrize("how", ["pickle", "deepcopy", "copy"])
def test_a_copy_never_replays_its_parents_stream(how):
    import copy
    import pickle

    from synthamp.release import PrivateLinearGenerator

    rng = np.random.default_rng(0)
    features = rng.normal(size=(60, 4)) / 3
    parent = PrivateLinearGenerator(
        label_bound=1.0, ridge=0.1, sigma=0.5, accounting="post-processing", random_state=1
    ).fit(features, features[:, :2])
    copier = {
        "pickle": lambda g: pickle.loads(pickle.dumps(g)),
        "deepcopy": copy.deepcopy,
        "copy": copy.copy,
    }[how]
    duplicate, twin = copier(parent), copier(parent)
    first = duplicate.sample(1000)
    assert not np.isin(first, parent.sample(1000)).any()
    assert not np.isin(first, twin.sample(1000)).any()  # two copies differ too
    # Same law: the copy holds the same factor R (covered: unlimited, Gram sampler).
    np.testing.assert_array_equal(duplicate._state("factor"), parent._state("factor"))
    # The stream's state is never pickled (a placeholder stands for it).
    assert isinstance(parent.__getstate__()["_PrivateLinearGenerator__rng"], str)
