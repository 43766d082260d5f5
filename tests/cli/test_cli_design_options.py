"""Every option of ``release`` and ``plan``, against every design: honoured or refused.

The options are read from the click commands themselves, so a new option cannot escape:
the tables below must name each one. For each design (none, random-seeds,
random-features) an option either changes what the command writes or records, or is
refused with exit 2 and one line naming it, before the table is read (the refused runs
point ``--data`` at a file that does not exist: a refusal after reading would name
``--data``).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthamp.cli import main
from synthamp.cli.plan import plan as plan_command
from synthamp.cli.release import release as release_command

DESIGNS = ("none", "random-seeds", "random-features", "orthogonal")


@dataclass
class Run:
    """One command run: exit code, printed text, the written report and records."""

    rc: int
    out: str
    err: str
    report: dict | None = None
    records: pd.DataFrame | None = None
    shows: list = field(default_factory=list)
    where: Path = Path()

    @property
    def printed(self) -> dict:
        return json.loads(self.out)


Check = Callable[[Run, Run], bool]
REFUSED = "refused"
#: refused with one line naming the option once the table is read (a check on the data)
REFUSED_ON_DATA = "refused on the data"


@dataclass(frozen=True)
class Option:
    """How an option is exercised: arguments added (the last given wins), arguments
    dropped from the base run, and per design the check of the run against the base run
    (or REFUSED)."""

    args: tuple[str, ...] | dict[str, tuple[str, ...]]  # per design, where they differ
    expect: dict[str, Check | str]
    drop: tuple[str, ...] = ()
    prepare: bool = False  # run the base first in the same folder (its outputs then exist)


def changed(key: str) -> Check:
    return lambda base, run: run.report[key] != base.report[key]


def equals(key: str, value) -> Check:
    return lambda base, run: run.report[key] == value


def every(check: Check | str) -> dict[str, Check | str]:
    return dict.fromkeys(DESIGNS, check)


def design_only(check: Check | str) -> dict[str, Check | str]:
    return {"none": REFUSED, **dict.fromkeys(DESIGNS[1:], check)}


def generator_only(check: Check | str) -> dict[str, Check | str]:
    return {**dict.fromkeys(DESIGNS, REFUSED), "none": check}


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rng = np.random.default_rng(2)
    for name, rows in (("t.csv", 80), ("t2.csv", 60)):
        # rows of norm about 0.35: none clipped at the default --feature-scale 1
        frame = pd.DataFrame(0.2 * rng.normal(size=(rows, 3)), columns=["a", "b", "c"])
        frame["y"] = np.tanh(3 * frame.sum(axis=1))
        frame.to_csv(name, index=False)
    # the features' ranges for the generator; with a design, the target y's range is used
    pd.DataFrame({"column": ["a", "b", "c", "y"], "lo": -2.0, "hi": 2.0}).to_csv(
        "b.csv", index=False
    )
    return tmp_path


# ---------------------------------------------------------------------------------------
# release
# ---------------------------------------------------------------------------------------

RELEASE_BASE = [
    "release", "--data", "t.csv", "--targets", "y", "--label-bound", "1", "--ridge", "0.01",
    "--epsilon", "1", "--delta", "1e-5", "--n-syn", "100", "--out", "s.csv",
    "--report", "rep.json", "--no-progress",
]  # fmt: skip

DESIGN_ARGS = {
    "none": [],
    "random-seeds": ["--design", "random-seeds", "--width", "120", "--design-seed", "9"],
    "random-features": [
        "--design", "random-features", "--width", "120", "--design-seed", "9",
        "--public-inputs", "a,b",
    ],
    "orthogonal": ["--design", "orthogonal", "--width", "120", "--design-seed", "9"],
}  # fmt: skip


def _md(run: Run) -> str:
    return (run.where / "rep.md").read_text()


RELEASE_OPTIONS: dict[str, Option] = {
    "data": Option(
        ("--data", "t2.csv"),
        {"none": changed("n_records"), **dict.fromkeys(DESIGNS[1:], changed("sensitivity"))},
    ),
    "targets": Option(("--targets", "c"), every(lambda b, r: list(r.records.columns) == ["c"])),
    "features": Option(("--features", "a,b"), generator_only(equals("dim", 2))),
    "label_bound": Option(("--label-bound", "2"), every(changed("sensitivity"))),
    "ridge": Option(("--ridge", "0.1"), every(changed("sensitivity"))),
    "epsilon": Option(("--epsilon", "2"), every(changed("sigma"))),
    "delta": Option(("--delta", "1e-7"), every(changed("sigma"))),
    "sigma": Option(("--sigma", "2"), generator_only(equals("sigma", 2.0)), drop=("--epsilon",)),
    "n_syn": Option(("--n-syn", "37"), every(lambda b, r: len(r.records) == 37)),
    "out": Option(("--out", "o.parquet"), every(lambda b, r: (r.where / "o.parquet").exists())),
    "report": Option(
        ("--report", "other.json"), every(lambda b, r: (r.where / "other.md").exists())
    ),
    "seed": Option(("--seed", "3"), every(equals("noise_secret", False))),
    "force": Option(
        ("--force",), every(lambda b, r: not r.records.equals(b.records)), prepare=True
    ),
    "mode": Option(
        ("--mode", "640"), every(lambda b, r: (r.where / "s.csv").stat().st_mode & 0o777 == 0o640)
    ),
    "norm_bound": Option(("--norm-bound", "0.5"), generator_only(equals("norm_bound", 0.5))),
    "feature_scale": Option(("--feature-scale", "0.5"), generator_only(changed("feature_scaling"))),
    # without a design: the features' ranges; with one: the targets' (the records in y's units)
    "bounds": Option(
        ("--bounds", "b.csv"),
        {
            "none": changed("feature_scaling"),
            **dict.fromkeys(DESIGNS[1:], equals("records_kind", "table")),
        },
    ),
    # the generator writes its own records (table refused); a design with --bounds: raw ZV
    # in the mapped coordinates, the constant column last
    "records": Option(
        {
            "none": ("--records", "table"),
            **dict.fromkeys(DESIGNS[1:], ("--records", "raw", "--bounds", "b.csv")),
        },
        {
            "none": REFUSED,
            **dict.fromkeys(
                DESIGNS[1:],
                lambda b, r: (
                    list(r.records.columns) == ["y", "_constant"]
                    and r.report["records_kind"] == "raw"
                ),
            ),
        },
    ),
    # the targets of every release are guarded (|y| up to 1 against a label bound of 0.3)
    "max_clipped": Option(("--max-clipped", "0", "--label-bound", "0.3"), every(REFUSED_ON_DATA)),
    "accounting": Option(
        ("--accounting", "post-processing"),
        generator_only(equals("accounting_method", "post-processing")),
    ),
    "accountant": Option(("--accountant", "rdp"), every(equals("accountant", "rdp"))),
    "unlimited": Option(
        ("--unlimited",),
        every(equals("n_syn", None)),  # one report shape: null n_syn is unlimited
    ),
    "partitions": Option(
        ("--partitions", "2", "--out", "parts"),
        every(lambda b, r: len(list((r.where / "parts").glob("*.parquet"))) == 2),
    ),
    "backend": Option(
        ("--backend", "dask", "--partitions", "2", "--scheduler", "synchronous", "--out", "parts"),
        every(lambda b, r: "dask" in _md(r) and "dask" not in _md(b)),
    ),
    # the scheduler of a dask cluster: honoured with --backend dask (above), refused alone
    "scheduler": Option(("--scheduler", "synchronous"), every(REFUSED)),
    "audit_trials": Option(
        ("--audit", "100", "--json"), generator_only(lambda b, r: "audit" in r.printed)
    ),
    "design": Option((), every(lambda b, r: True)),  # the axis of this walk
    "width": Option(("--width", "150"), design_only(equals("dim", 150))),
    "design_seed": Option(("--design-seed", "4"), design_only(equals("design_seed", 4))),
    "adjacency": Option(
        ("--adjacency", "norm"),
        design_only(lambda b, r: r.report["sigma"] == r.report["sigma_norm"] > b.report["sigma"]),
    ),
    "public_inputs": Option(
        ("--public-inputs", "a"),
        {
            **dict.fromkeys(("none", "random-seeds", "orthogonal"), REFUSED),
            "random-features": changed("sensitivity"),
        },
    ),
    "no_progress": Option(
        (), every(lambda b, r: True in r.shows and True not in b.shows), drop=("--no-progress",)
    ),
    "as_json": Option(("--json",), every(lambda b, r: "s.csv" in json.dumps(r.printed["written"]))),
    "time_budget": Option(
        ("--time-budget", "0"),
        {
            "none": lambda b, r: (
                "time budget" in r.report["accounting_note"]
                and "time budget" not in b.report["accounting_note"]
            ),
            **dict.fromkeys(
                DESIGNS[1:],
                lambda b, r: not r.report["accounting_beside_concrete_pairs"]["complete"],
            ),
        },
    ),
}


def _drop(args: list[str], flags: tuple[str, ...]) -> list[str]:
    out, skip = [], False
    for i, arg in enumerate(args):
        if skip:
            skip = False
            continue
        if arg in flags:
            # a flag with a value drops the value too
            skip = i + 1 < len(args) and not args[i + 1].startswith("--")
            continue
        out.append(arg)
    return out


def _run_release(args: list[str], where: Path, capsys, monkeypatch) -> Run:
    from synthamp.cli import release as release_module

    shows: list[bool] = []

    def live_status(text, show=True):
        shows.append(show)
        return contextlib.nullcontext()

    monkeypatch.setattr(release_module, "live_status", live_status)
    capsys.readouterr()
    rc = main(args)
    out, err = capsys.readouterr()
    run = Run(rc, out, err, shows=shows, where=where)
    if rc == 0:
        report = next(p for p in ("rep.json", "other.json") if (where / p).exists())
        run.report = json.loads((where / report).read_text())
        records = where / ("s.csv" if (where / "s.csv").exists() else "o.parquet")
        if records.exists():
            run.records = (
                pd.read_csv(records) if records.suffix == ".csv" else pd.read_parquet(records)
            )
    return run


def _flag(command, name: str) -> str:
    return next(p for p in command.params if p.name == name).opts[0]


def test_the_release_table_names_every_option():
    assert {p.name for p in release_command.params} == set(RELEASE_OPTIONS)
    assert all(set(o.expect) == set(DESIGNS) for o in RELEASE_OPTIONS.values())


def _walk(command, table, base_args, run_command, folder, capsys, monkeypatch, name, design):
    """Run option ``name`` of ``command`` on ``design`` (base_args: per design) and check it."""
    option = table[name]
    if name == "backend":
        pytest.importorskip("distributed", reason="dask[distributed] is an optional extra")
    base_args = base_args[design]
    expect = option.expect[design]
    extra = option.args[design] if isinstance(option.args, dict) else option.args
    args = [*_drop(base_args, option.drop), *extra]
    if expect == REFUSED:
        missing = [a if a != "t.csv" else "missing.csv" for a in args]
        run = run_command(missing, folder, capsys, monkeypatch)
        lines = run.err.strip().splitlines()
        assert run.rc == 2, (name, design, run.err)
        assert len(lines) == 1 and lines[0].startswith(f"synthamp: error: {_flag(command, name)}")
        assert not any(folder.glob("s.*")) and not any(folder.glob("rep.*"))
        return
    if expect == REFUSED_ON_DATA:
        run = run_command(args, folder, capsys, monkeypatch)
        lines = run.err.strip().splitlines()
        assert run.rc == 2, (name, design, run.err)
        assert len(lines) == 1 and lines[0].startswith(f"synthamp: error: {_flag(command, name)}")
        assert not any(folder.glob("s.*")) and not any(folder.glob("rep.*"))
        return
    base_folder = folder / "base"
    base_folder.mkdir()
    monkeypatch.chdir(base_folder)
    for table_file in ("t.csv", "t2.csv"):
        (base_folder / table_file).write_bytes((folder / table_file).read_bytes())
    base = run_command(base_args, base_folder, capsys, monkeypatch)
    assert base.rc == 0, base.err
    run_folder = base_folder if option.prepare else folder
    monkeypatch.chdir(run_folder)
    run = run_command(args, run_folder, capsys, monkeypatch)
    assert run.rc == 0, (name, design, run.err)
    assert expect(base, run), (name, design)


@pytest.mark.parametrize("design", DESIGNS)
@pytest.mark.parametrize("name", sorted(RELEASE_OPTIONS))
def test_every_release_option_is_honoured_or_refused(folder, capsys, monkeypatch, name, design):
    base = {key: [*RELEASE_BASE, *args] for key, args in DESIGN_ARGS.items()}
    _walk(
        release_command, RELEASE_OPTIONS, base, _run_release, folder, capsys, monkeypatch,
        name, design,
    )  # fmt: skip


# ---------------------------------------------------------------------------------------
# plan
# ---------------------------------------------------------------------------------------

PLAN_BASE = [
    "plan", "--data", "t.csv", "--targets", "y", "--label-bound", "1", "--epsilon", "1",
    "--delta", "1e-5", "--ridge", "0.01", "--no-progress", "--json",
]  # fmt: skip


def _row(key: str) -> Check:
    return lambda base, run: run.report["rows"][0][key] != base.report["rows"][0][key]


def _plan_design_only(check):
    return {"none": REFUSED, "random-seeds": check, "random-features": REFUSED, "orthogonal": check}


def _plan_generator_only(check):
    return {**dict.fromkeys(DESIGNS, REFUSED), "none": check}


def _plan_every(check):
    # random-features cannot be planned from the table's shape: refused, naming --design
    return {**dict.fromkeys(DESIGNS, check), "random-features": REFUSED}


PLAN_OPTIONS: dict[str, Option] = {
    "data": Option(("--data", "t2.csv"), _plan_every(_row("sensitivity"))),
    "targets": Option(
        {
            "none": ("--targets", "c,y"),
            "random-seeds": ("--targets", "c,y", "--adjacency", "norm"),  # gram: k = 1 only
            "random-features": ("--targets", "c,y"),
            "orthogonal": ("--targets", "c,y", "--adjacency", "norm"),
        },
        _plan_every(lambda b, r: r.report["data"]["n_targets"] == 2),
    ),
    "features": Option(("--features", "a"), _plan_generator_only(_row("width"))),
    "label_bound": Option(("--label-bound", "2"), _plan_every(_row("sensitivity"))),
    # with a design, the plan of the whole-table release: the constant column is counted
    "bounds": Option(
        ("--bounds", "b.csv"),
        _plan_design_only(
            lambda b, r: r.report["data"]["n_targets"] == b.report["data"]["n_targets"] + 1
        ),
    ),
    "epsilon": Option(("--epsilon", "2"), _plan_every(_row("sigma"))),
    "delta": Option(("--delta", "1e-7"), _plan_every(_row("sigma"))),
    "ridges": Option(("--ridge", "0.1"), _plan_every(_row("sensitivity"))),
    "widths": Option(("--width", "150"), _plan_every(_row("width"))),
    "n_syn": Option(
        ("--n-syn", "100"),
        _plan_generator_only(
            lambda b, r: r.report["target"]["n_syn"] == 100 != b.report["target"]["n_syn"]
        ),
    ),
    "releases": Option(("--releases", "2"), _plan_generator_only(_row("sigma"))),
    "method": Option(("--accounting", "global"), _plan_generator_only(_row("sigma"))),
    "design": Option((), _plan_every(lambda b, r: True)),  # the axis of this walk
    "design_seed": Option(
        ("--design-seed", "4"),
        # the orthogonal design's bounds do not depend on its seed (G = g·I exactly): recorded
        {**_plan_design_only(_row("sensitivity")), "orthogonal": _row("design_seed")},
    ),
    "adjacency": Option(
        ("--adjacency", "norm"),
        _plan_design_only(lambda b, r: r.report["rows"][0]["sigma"] > b.report["rows"][0]["sigma"]),
    ),
    "no_progress": Option(
        (),
        _plan_every(lambda b, r: r.shows[0] is False and b.shows[0] is True),
        drop=("--no-progress",),
    ),
    "as_json": Option(
        (),
        _plan_every(lambda b, r: r.out.lstrip()[0] != "{" == b.out.lstrip()[0]),
        drop=("--json",),
    ),
}

PLAN_DESIGN_ARGS = {
    "none": [],
    "random-seeds": ["--design", "random-seeds", "--width", "120", "--design-seed", "9"],
    "random-features": ["--design", "random-features", "--width", "120", "--design-seed", "9"],
    "orthogonal": ["--design", "orthogonal", "--width", "120", "--design-seed", "9"],
}


def _run_plan(args: list[str], where: Path, capsys, monkeypatch) -> Run:
    import rich.console

    shows: list[bool] = []
    original = rich.console.Console

    def console(*a, quiet=False, **k):
        shows.append(quiet)
        return original(*a, quiet=quiet, **k)

    monkeypatch.setattr(rich.console, "Console", console)
    capsys.readouterr()
    rc = main(args)
    out, err = capsys.readouterr()
    run = Run(rc, out, err, shows=shows, where=where)
    if rc == 0 and "--json" in args:
        run.report = json.loads(out)
    return run


def test_the_plan_table_names_every_option():
    assert {p.name for p in plan_command.params} == set(PLAN_OPTIONS)


@pytest.mark.parametrize("design", DESIGNS)
@pytest.mark.parametrize("name", sorted(PLAN_OPTIONS))
def test_every_plan_option_is_honoured_or_refused(folder, capsys, monkeypatch, name, design):
    option = PLAN_OPTIONS[name]
    if design == "random-features":  # the design itself is refused before the table is read
        extra = option.args[design] if isinstance(option.args, dict) else option.args
        args = [*_drop(PLAN_BASE, option.drop), *PLAN_DESIGN_ARGS[design], *extra]
        run = _run_plan([a if a != "t.csv" else "missing.csv" for a in args], folder, capsys,
                        monkeypatch)  # fmt: skip
        lines = run.err.strip().splitlines()
        assert run.rc == 2 and len(lines) == 1, run.err
        assert lines[0].startswith("synthamp: error: --design") and "random-seeds" in lines[0]
        return
    base = {key: [*PLAN_BASE, *args] for key, args in PLAN_DESIGN_ARGS.items()}
    _walk(plan_command, PLAN_OPTIONS, base, _run_plan, folder, capsys, monkeypatch, name, design)
