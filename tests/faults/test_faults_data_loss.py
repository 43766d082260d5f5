"""Fault matrix (issue 25), critical rows: a release never deletes what synthamp did not write.

Each test fails on b208f84 (stated per test): there the commit replaced any folder
holding only ``.parquet`` files, and nothing checked where ``--data`` lies.
"""

from __future__ import annotations

import json

import pandas as pd

from release_cases import one_error_line, private_frame, release_args, run, snapshot
from synthamp._output import _io as _io


def _partitioned(**overrides):
    return release_args(**{"--out": "out", "--partitions": "2", "--n-syn": "100", **overrides})


def test_data_inside_the_output_folder_is_refused_and_kept(workdir, capsys):
    """b208f84: exit 0 and out/private.parquet deleted (the issue's critical case)."""
    (workdir / "out").mkdir()
    private_frame().to_parquet(workdir / "out" / "private.parquet", index=False)
    before = (workdir / "out" / "private.parquet").read_bytes()
    args = _partitioned(**{"--data": "out/private.parquet", "--force": True})
    code, _, err = run(capsys, args)
    assert code == 2
    assert "inside the output folder" in one_error_line(err, "--data")
    assert (workdir / "out" / "private.parquet").read_bytes() == before


def test_data_linked_from_inside_the_output_folder_is_refused(workdir, capsys):
    """Links are followed: a link elsewhere whose target is in the output folder is refused."""
    (workdir / "out").mkdir()
    private_frame().to_parquet(workdir / "out" / "private.parquet", index=False)
    (workdir / "link.parquet").symlink_to(workdir / "out" / "private.parquet")
    code, _, err = run(capsys, _partitioned(**{"--data": "link.parquet", "--force": True}))
    assert code == 2 and "inside the output folder" in one_error_line(err, "--data")
    assert (workdir / "out" / "private.parquet").exists()


def test_unrelated_parquet_files_are_never_replaced(workdir, capsys):
    """b208f84: a folder of .parquet files it did not write was deleted with --force."""
    (workdir / "out").mkdir()
    for name in ("mine.parquet", "part.0.parquet"):
        private_frame().to_parquet(workdir / "out" / name, index=False)
    before = snapshot(workdir / "out")
    code, _, err = run(capsys, _partitioned(**{"--force": True}))
    assert code == 2
    assert "no synthamp manifest" in one_error_line(err, "--out")
    assert snapshot(workdir / "out") == before


def test_a_dataset_synthamp_wrote_is_replaced_file_by_file(workdir, capsys):
    """Its own dataset (manifest with the run id) is replaced; a file added later stops it."""
    code, _, err = run(capsys, _partitioned(**{"--seed": "1"}))
    assert code == 0, err
    manifest = json.loads((workdir / "out" / _io.MANIFEST_NAME).read_text())
    assert len(manifest["run_id"]) == 16
    assert sorted(f["name"] for f in manifest["files"]) == ["part.0.parquet", "part.1.parquet"]
    code, _, err = run(capsys, _partitioned(**{"--seed": "2", "--force": True}))
    assert code == 0, err
    second = json.loads((workdir / "out" / _io.MANIFEST_NAME).read_text())
    assert second["run_id"] != manifest["run_id"]
    assert len(pd.read_parquet(workdir / "out")) == 100
    # A file someone added to the dataset, or a part they changed, is never deleted.
    (workdir / "out" / "notes.txt").write_text("mine")
    code, _, err = run(capsys, _partitioned(**{"--force": True}))
    assert code == 2 and "notes.txt" in one_error_line(err, "--out")
    (workdir / "out" / "notes.txt").unlink()
    with open(workdir / "out" / "part.0.parquet", "ab") as handle:
        handle.write(b"appended")
    code, _, err = run(capsys, _partitioned(**{"--force": True}))
    assert code == 2 and "changed since synthamp wrote it" in one_error_line(err, "--out")
    assert (workdir / "out" / "part.0.parquet").read_bytes().endswith(b"appended")


def test_report_inside_the_partitioned_output_is_refused_before_any_work(workdir, capsys, no_work):
    """b208f84: refused only after the whole release ran, with a misleading message."""
    (workdir / "out").mkdir()
    code, _, err = run(capsys, _partitioned(**{"--report": "out/r.json", "--force": True}))
    assert code == 2 and "inside the output folder" in one_error_line(err, "--report")
    assert list((workdir / "out").iterdir()) == []


def test_a_stale_old_dataset_is_removed_file_by_file(workdir, capsys):
    """A dead run's old dataset folder (``….old``) holding a user's file is never rmtree'd.

    b208f84 removed any stale ``….old`` folder whole (``shutil.rmtree``).
    """
    code, _, err = run(capsys, _partitioned())
    assert code == 0, err
    old = workdir / f".out.{_io.TEMP_TAG}-4194303-0123abcd.old"  # pid above pid_max
    (workdir / "out").rename(old)
    (old / "mine.txt").write_text("keep")
    code, _, err = run(capsys, _partitioned(**{"--force": True}))  # "out" is missing:
    assert code == 2 and "put back out" in err  # the old copy is put back, said so
    assert "mine.txt" in one_error_line(err.split("\n", 1)[1], "--out")
    assert (workdir / "out" / "mine.txt").read_text() == "keep"  # and, not synthamp's, kept
    (workdir / "out").rename(old)
    (workdir / "out").mkdir()  # now the old copy is not the only one: cleaned, file by file
    code, _, err = run(capsys, _partitioned(**{"--force": True}))
    assert code == 0, err
    assert (old / "mine.txt").read_text() == "keep" and not (old / "part.0.parquet").exists()
    assert "not synthamp's" in err
