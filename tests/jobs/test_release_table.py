"""``synthamp.jobs.release_table`` called as a library (no click): what it writes and
returns, what its monitor is told, and that it is the pipeline ``synthamp release`` runs
(the same seeded records, byte for byte)."""

from __future__ import annotations

import contextlib
import json

import pandas as pd
import pytest

from release_cases import FEATURES, TARGETS, private_frame, release_args, run, snapshot
from synthamp._output import _io as _io
from synthamp._validation import InputError
from synthamp.jobs import TableRelease, release_table
from synthamp.release import ReleaseMonitor
from synthamp.release import _tabular as _tabular

#: A pid above /proc/sys/kernel/pid_max: no process has it.
DEAD_PID = 4_194_303

#: σ given, post-processing accounting: no exact engine, fast.
QUICK = dict(
    targets=TARGETS, features=FEATURES, label_bound=1.0, ridge=0.1, sigma=0.5,
    accounting="post-processing",
)  # fmt: skip


class Recording(ReleaseMonitor):
    """Keeps what it is told."""

    def __init__(self):
        self.events = []

    def message(self, level, text):
        self.events.append(("message", level, text))

    @contextlib.contextmanager
    def stage(self, text):
        self.events.append(("stage", text))
        yield

    @contextlib.contextmanager
    def progress(self, total, label):
        counted = []
        yield counted.append
        self.events.append(("progress", total, sum(counted)))


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    private_frame().to_csv("data.csv", index=False)
    return tmp_path


def test_release_table_writes_and_returns_the_release(workdir, capsys):
    monitor = Recording()
    result = release_table("data.csv", n_syn=700, out="syn.csv", seed=3, monitor=monitor, **QUICK)
    assert isinstance(result, TableRelease) and result.records == 700
    assert result.synthetic.resolve() == workdir / "syn.csv"
    assert [p.name for p in result.reports] == [
        "syn.csv.privacy.json",
        "syn.csv.privacy.md",
        "syn.csv.privacy.html",
    ]
    assert pd.read_csv("syn.csv").shape == (700, 2)
    written = json.loads((workdir / "syn.csv.privacy.json").read_text())
    assert written == json.loads(result.privacy.to_json())
    assert result.epsilon == written["epsilon"] and result.delta == written["delta"] == 1e-5
    assert written["sigma"] == 0.5 and result.design_report is None and result.audit is None
    assert result.utility["gram_error"] == written["gram_error"]
    assert result.utility["utility_verdict"] == written["utility_verdict"]
    # the monitor saw the fit as one step and every record written
    assert ("stage", "fitting and accounting") in monitor.events
    assert ("progress", 700, 700) in monitor.events
    assert capsys.readouterr() == ("", "")  # the library prints nothing
    # seeded, so the outputs are owner-only unless asked otherwise
    assert (workdir / "syn.csv").stat().st_mode & 0o777 == 0o600


def test_release_table_is_what_the_command_line_runs(workdir, capsys):
    code, _, err = run(capsys, release_args(**{"--seed": "11", "--n-syn": "300"}))
    assert code == 0, err
    cli = (workdir / "syn.csv").read_bytes(), (workdir / "syn.csv.privacy.json").read_text()
    frame = private_frame()  # a table in memory: the same records as from its file
    release_table(frame, n_syn=300, out="lib.csv", seed=11, **QUICK)
    assert (workdir / "lib.csv").read_bytes() == cli[0]
    lib = json.loads((workdir / "lib.csv.privacy.json").read_text())
    assert lib == json.loads(cli[1])


def test_release_table_checks_before_any_work(workdir, monkeypatch):
    def fail(*args, **kwargs):
        raise AssertionError("the table was read before the checks")

    monkeypatch.setattr(_tabular, "read_table", fail)
    before = snapshot(workdir)
    with pytest.raises(InputError) as caught:
        release_table("data.csv", n_syn=10, out="syn.csv", epsilon=1.0, delta=1e-5, **QUICK)
    assert caught.value.param == "sigma"
    with pytest.raises(InputError) as caught:
        release_table("data.csv", n_syn=10, out="syn.txt", **QUICK)
    assert caught.value.param == "out"
    assert snapshot(workdir) == before


def test_default_monitor_warns_of_a_stale_file_and_the_result_keeps_it(workdir):
    stale = workdir / f".syn.csv.{_io.TEMP_TAG}-{DEAD_PID}-0123abcd"  # its process is gone
    stale.write_text("left by a killed run")
    with pytest.warns(UserWarning, match="a temporary file left by an interrupted run"):
        result = release_table("data.csv", n_syn=20, out="syn.csv", **QUICK)
    assert not stale.exists()
    assert any("removed" in note for note in result.notes)


def test_release_table_on_a_public_design_returns_its_numbers(workdir):
    monitor = Recording()
    result = release_table(
        private_frame(), ["y1"], label_bound=1.0, ridge=0.1, n_syn=50, out="d.csv",
        epsilon=1.0, delta=1e-5, design="random-seeds", width=200, design_seed=3, monitor=monitor,
    )  # fmt: skip
    assert result.privacy is None and result.records == 50
    written = json.loads((workdir / "d.csv.privacy.json").read_text())
    assert written == json.loads(json.dumps(result.design_report))  # tuples become lists
    page = (workdir / "d.csv.privacy.html").read_text()  # the full report of the design release
    assert 'id="utility-baselines"' in page and "public design random-seeds" in page
    assert result.design_report["records"] == 50 and result.design_report["columns"] == ["y1"]
    assert result.epsilon <= 1.0 and result.delta == 1e-5 and result.utility["gram_error"] > 0
    assert result.summary[0].startswith("design: random-seeds, width D = 200, public seed 3")
    assert monitor.events == [("stage", "fitting on the public design"), ("progress", 50, 50)]
    assert pd.read_csv("d.csv").shape == (50, 1)
