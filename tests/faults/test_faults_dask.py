"""Fault matrix (issue 25): Ctrl-C during ``--backend dask`` is one line, no traceback.

b208f84 printed "aborted" and then distributed's atexit traceback (``close_clusters``
failing on a worker still starting) or asyncio's "Task exception was never
retrieved" with a traceback.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from release_cases import private_frame, release_args
from synthamp.release import _tabular as tabular

pytest.importorskip("distributed")

SRC = str(Path(tabular.__file__).parents[1])


@pytest.mark.slow
@pytest.mark.parametrize("delay", [3.0, 6.0])  # during the cluster's start-up, during compute
def test_ctrl_c_on_dask_is_one_line(tmp_path, delay):
    private_frame().to_csv(tmp_path / "data.csv", index=False)
    args = release_args(**{"--n-syn": "2000000000", "--partitions": "8", "--out": "dd"})
    args += ["--backend", "dask", "--no-progress", "--unlimited"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([SRC, *sys.path])}
    process = subprocess.Popen(
        [sys.executable, "-m", "synthamp", *args],
        cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        time.sleep(delay)
        if process.poll() is not None:
            pytest.skip("the release ended before the interrupt")
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=120)
    finally:
        process.kill()
    text = err.decode()
    lines = [line for line in text.strip().splitlines() if line.strip()]
    assert process.returncode == 1, text
    assert lines[-1] == "synthamp: aborted; no output was written"
    assert "Traceback" not in text and "Exception ignored" not in text, text
    assert all(line.startswith("synthamp: ") for line in lines), text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.csv"]
