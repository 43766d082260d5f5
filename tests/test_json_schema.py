"""One JSON convention: every command's ``--json`` and the privacy report validate against
docs/synthamp-output.schema.json (JSON Schema 2020-12), versioned by ``schema_version``.

Each command runs in-process on small inputs; the schema names the command by a
``const``, so an object can only validate as what it claims to be. Objects that
break the convention (a missing key, a negative noise saving, an unknown
command) are shown to fail.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthamp.cli import main
from synthamp.report import SCHEMA_VERSION

jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is in the test extra")

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "docs" / "synthamp-output.schema.json"


@pytest.fixture(scope="module")
def validator():
    schema = json.loads(SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["properties"]["schema_version"]["const"] == SCHEMA_VERSION
    return jsonschema.Draft202012Validator(schema)


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("json") / "data.csv"
    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, 6)) / (3 * np.sqrt(6))  # rows within the unit ball
    frame = pd.DataFrame(x, columns=[f"x{i}" for i in range(6)])
    frame["y"] = np.tanh(x[:, 0])
    frame.to_csv(path, index=False)
    return path


def _json(capsys, argv: list[str]) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


COMMANDS = {
    "account": ["account", "--dim", "20", "--norm-bound", "1", "--sensitivity", "0.3",
                "--sigma", "1", "--alpha", "2,8"],
    "account-grid": ["account", "--dim", "20", "--norm-bound", "1", "--sensitivity", "0.3",
                     "--sigma", "1", "--delta-grid", "1e-3,1e-6", "--accountant", "rdp"],
    "account-k2": ["account", "--dim", "20", "--out-dim", "2", "--norm-bound", "1",
                   "--sensitivity", "0.3", "--sigma", "1", "--alpha", "2,8"],
    "account-k2-search": ["account", "--dim", "20", "--out-dim", "2", "--norm-bound", "1",
                          "--sensitivity", "0.3", "--sigma", "1", "--alpha", "2,8",
                          "--search", "2"],
    "account-finite": ["account", "--dim", "20", "--norm-bound", "2", "--sensitivity", "0.1",
                       "--sigma", "0.5", "--n-syn", "100000"],
    "calibrate-finite": ["calibrate", "--epsilon", "4", "--dim", "20", "--norm-bound", "2",
                         "--sensitivity", "0.1", "--n-syn", "100000"],
    "calibrate": ["calibrate", "--epsilon", "1", "--dim", "20", "--out-dim", "2",
                  "--norm-bound", "2", "--sensitivity", "0.5", "--accounting", "global"],
    "bounds": ["bounds", "--alpha", "2,4", "--dim", "100", "--norm-bound", "2",
               "--sensitivity", "0.5"],
    "divergence": ["divergence", "--alpha", "2", "--dim", "10", "--norm-v", "2",
                   "--norm-w", "1.5"],
    "fisher": ["fisher", "--dim", "10", "--theta", "2"],
    "audit": ["audit", "--dim", "20", "--norm-bound", "2", "--sensitivity", "1", "--sigma", "1",
              "--trials", "500", "--delta", "1e-5", "--seed", "1"],
    "audit-design": ["audit", "--design", "orthogonal", "--width", "10", "--sigma", "1",
                     "--trials", "500", "--seed", "1"],
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_command_json_validates(name, capsys, validator):
    data = _json(capsys, COMMANDS[name])
    validator.validate(data)
    assert list(data)[:2] == ["schema_version", "command"]
    assert data["command"] == COMMANDS[name][0]
    if "accountant" in data:
        assert data["accountant"] in ("pld", "rdp")


def test_a_delta_grid_across_the_crossing_validates(capsys, validator):
    """A finite k = 1 δ grid whose guarantee is the unlimited PLD at one δ and the finite
    RDP at another: ε, the guarantee and the accountant are lists, one per δ."""
    data = _json(capsys, COMMANDS["account-finite"])
    assert data["guarantee"] == "unlimited_pld" and data["accountant"] == "pld"
    both = {"delta": [1e-5, 1e-12], "guarantee": ["unlimited_pld", "finite_rdp"],
            "accountant": ["pld", "rdp"]}  # fmt: skip
    for key in ("epsilon", "epsilon_rdp", "epsilon_unlimited_pld", "optimal_order"):
        both[key] = [data[key], data[key]]
    validator.validate({**data, **both})
    for broken in ({"guarantee": "finite"}, {"accountant": ["pld", "prv"]}):
        with pytest.raises(jsonschema.ValidationError):
            validator.validate({**data, **broken})


def test_plan_and_release_json_and_the_report_validate(tmp_path, table, capsys, validator):
    argv = ["plan", "--data", str(table), "--targets", "y", "--label-bound", "1", "--epsilon",
            "1", "--delta", "1e-5", "--ridge", "1", "--no-progress"]  # fmt: skip
    plan = _json(capsys, argv)
    validator.validate(plan)
    out = tmp_path / "syn.csv"
    argv = ["release", "--data", str(table), "--targets", "y", "--label-bound", "1", "--ridge",
            "1", "--epsilon", "1", "--delta", "1e-5", "--n-syn", "50", "--out", str(out),
            "--unlimited", "--no-progress", "--audit", "300"]  # fmt: skip
    release = _json(capsys, argv)
    validator.validate(release)
    assert release["written"]["synthetic"] == str(out) and release["records"] == 50
    report = json.loads(Path(release["written"]["report_json"]).read_text())
    validator.validate(report)
    assert report == release["privacy"]
    assert report["guarantee"] is None and report["epsilon_unlimited_pld"] is None  # unlimited
    weighed = {"epsilon_unlimited_pld": 0.5, "guarantee": "unlimited_pld", "epsilon_pld": None}
    validator.validate({**report, **weighed})  # a finite k = 1 release's two numbers
    for broken in ({"guarantee": "unlimited"}, {"epsilon_rdp": -1.0}, {"accountant": "prv"}):
        with pytest.raises(jsonschema.ValidationError):
            validator.validate({**report, **weighed, **broken})
    assert release["audit"]["trials"] == 300 and release["audit"]["consistent"]
    page = Path(release["written"]["report_html"]).read_text()
    assert 'id="audit"' in page and "300 simulated" in page


def test_figures_json_validates(tmp_path, capsys, validator, monkeypatch):
    from synthamp.jobs import _figures as figures

    written = [tmp_path / "a.csv", tmp_path / "a.png", tmp_path / "b.csv", tmp_path / "b.png"]
    written.append(tmp_path / "index.md")
    done = figures.WrittenFigures(str(tmp_path), tuple(written), written[-1], ("fig_k2_study",))
    monkeypatch.setattr(figures, "write_figures", lambda out, **kwargs: done)
    data = _json(capsys, ["figures", "--out", str(tmp_path), "--quick", "--no-progress"])
    validator.validate(data)
    assert [f["name"] for f in data["figures"]] == ["a", "b"]
    assert data["index"] == str(tmp_path / "index.md")


def test_objects_that_break_the_convention_fail(capsys, validator):
    good = _json(capsys, COMMANDS["calibrate"])
    assert good["noise_saved"] == 0.0  # global k = 2 needs more noise here: saved 0, not < 0
    for broken in (
        {"noise_saved": -0.28},
        {"command": "nonsense"},
        {"schema_version": SCHEMA_VERSION + 1},
    ):
        with pytest.raises(jsonschema.ValidationError):
            validator.validate({**good, **broken})
    missing = copy.deepcopy(good)
    del missing["accounting"]
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(missing)


RELEASE = ["release", "--targets", "y", "--label-bound", "1", "--ridge", "1", "--epsilon", "1",
           "--delta", "1e-5", "--n-syn", "40", "--no-progress"]  # fmt: skip
DESIGN = ["--design-seed", "3", "--width", "20", "--ridge", "0.1"]
RELEASE_KINDS = {
    "one-file": ["--out", "syn.csv"],
    "unlimited": ["--out", "syn.parquet", "--unlimited"],
    "partitions": ["--out", "parts", "--partitions", "2"],
    "design-random-seeds": ["--out", "d.csv", "--design", "random-seeds", *DESIGN],
    "design-random-features": ["--out", "f.csv", "--design", "random-features", *DESIGN,
                               "--public-inputs", "x0,x1"],
    # k = 2: the certified accountant, with its realised lower bound (epsilon_lower_realised)
    "design-k2-random-seeds": ["--out", "d.csv", "--design", "random-seeds", *DESIGN,
                               "--targets", "y,x0"],
    "design-k2-orthogonal": ["--out", "d.csv", "--design", "orthogonal", "--design-seed", "3",
                             "--width", "1000", "--ridge", "0.1", "--targets", "y,x0"],
}  # fmt: skip


@pytest.mark.parametrize("kind", sorted(RELEASE_KINDS))
def test_every_release_kind_writes_json_that_validates(kind, tmp_path, table, capsys, validator):
    """Its --json and its JSON report file (the design release's had no schema_version)."""
    argv = [*RELEASE, "--data", str(table)]
    argv += [a if not a.startswith(("syn", "parts", "d.", "f.")) else str(tmp_path / a)
             for a in RELEASE_KINDS[kind]]  # fmt: skip
    printed = _json(capsys, argv)
    validator.validate(printed)
    assert printed["command"] == "release" and printed["records"] == 40
    written = json.loads(Path(printed["written"]["report_json"]).read_text())
    validator.validate(written)
    assert written["schema_version"] == SCHEMA_VERSION
    if kind.startswith("design-k2"):
        assert written["kind"] == "certified" and written["adjacency"] == "gram"
        assert 0 < written["epsilon_lower_realised"] <= written["epsilon"]
    if kind.startswith("design"):
        assert written == printed["design"] and written["document"] == "design-report"
    else:
        assert written == printed["privacy"] and written["document"] == "privacy-report"


def test_the_demo_json_validates(tmp_path, capsys, validator):
    argv = ["demo", "--out", str(tmp_path / "demo"), "--n-syn", "50", "--unlimited", "--seed",
            "1", "--no-progress"]  # fmt: skip
    printed = _json(capsys, argv)
    validator.validate(printed)
    validator.validate(json.loads(Path(printed["written"]["report_json"]).read_text()))
