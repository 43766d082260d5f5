"""One report shape for every release kind, built by ``report/`` from the typed result.

The generator, a release on a public design and a whole table (``--targets all`` on the
orthogonal design, records in the table's units) each write and return a
:class:`~synthamp.report.PrivacyReport` with the same top-level keys (those a kind lacks are
null); and the estimator words no sentence of the report (it returns a typed
:class:`~synthamp.report.ReleaseResult`, :func:`~synthamp.report.build_report` renders it).
Before, a design release wrote a ``design-report`` of its own keys and the estimator
built its report from 112 lines of prose.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthamp.jobs import release_table
from synthamp.report import PrivacyReport, ReleaseResult, build_report

SRC = Path(__file__).resolve().parents[2] / "src" / "synthamp"

#: The keys only a release on a public design fills.
DESIGN_ONLY = ("design", "design_seed", "design_seed_public", "protected", "row_permutation",
               "adjacency_model", "sigma_norm")  # fmt: skip


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    x = rng.normal(size=(60, 3)) / 4
    return pd.DataFrame({"x0": x[:, 0], "x1": x[:, 1], "x2": x[:, 2], "y": np.tanh(x[:, 0])})


KINDS = {
    "generator": dict(targets="y", label_bound=1.0, ridge=0.1, sigma=0.5,
                      accounting="post-processing"),
    "design": dict(targets="y", label_bound=1.0, ridge=0.1, epsilon=1.0, delta=1e-5,
                   design="random-seeds", width=200, design_seed=3),
    "table": dict(targets="all", bounds={"y": (-1.0, 1.0)}, ridge=0.1, epsilon=1.0,
                  delta=1e-5, design="orthogonal", width=1000, design_seed=3),
}  # fmt: skip


@pytest.fixture(scope="module")
def releases(tmp_path_factory):
    folder = tmp_path_factory.mktemp("kinds")
    out = {}
    for kind, options in KINDS.items():
        frame = _frame() if kind != "table" else _frame()[["y"]]
        result = release_table(frame, n_syn=30, out=folder / f"{kind}.csv", **options)
        written = json.loads(result.reports[0].read_text(encoding="utf-8"))
        out[kind] = (result, written)
    return out


def test_every_kind_returns_and_writes_the_same_report_shape(releases):
    keys = {kind: set(written) for kind, (_, written) in releases.items()}
    assert keys["generator"] == keys["design"] == keys["table"]
    for kind, (result, written) in releases.items():
        assert type(result.privacy) is PrivacyReport, kind
        assert written == json.loads(result.privacy.to_json()), kind
        assert written["document"] == "privacy-report" and written["records"] == 30, kind
    generator = releases["generator"][1]
    assert all(generator[key] is None for key in DESIGN_ONLY)  # optional: null
    for kind in ("design", "table"):
        assert all(releases[kind][1][key] is not None for key in DESIGN_ONLY), kind
    table = releases["table"][1]
    assert table["records_kind"] == "table" and table["columns"] == ["y"]
    assert table["records_note"] and table["target_bounds"] == {"y": [-1.0, 1.0]}
    assert generator["records_kind"] == "raw" and generator["records_note"] is None


def test_the_estimator_and_the_design_release_return_typed_results(releases):
    from synthamp.design import design_release
    from synthamp.release import PrivateLinearGenerator

    frame = _frame()
    fitted = PrivateLinearGenerator(label_bound=1.0, ridge=0.1, sigma=0.5).fit(
        frame[["x0", "x1", "x2"]].to_numpy(), frame["y"].to_numpy()
    )
    assert isinstance(fitted.accounting_, ReleaseResult)
    assert fitted.privacy_ == build_report(fitted.accounting_)  # report/ builds privacy_
    on_design = design_release(frame["y"].to_numpy(), "random-seeds", 200, 3, epsilon=1.0,
                               delta=1e-5)  # fmt: skip
    assert isinstance(on_design.result, ReleaseResult)
    shapes = [set(report.to_dict()) for report in (fitted.privacy_, on_design.privacy)]
    assert shapes[0] == shapes[1] == set(releases["generator"][1])


def _strings(path: Path) -> set[str]:
    """The literal text of a module (string constants and f-string pieces), docstrings aside."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    }


def _prose(text: str) -> list[str]:
    """Runs of five words: a phrase of a sentence, not a name or a key."""
    words = text.split()
    return [" ".join(words[i : i + 5]) for i in range(len(words) - 4)]


@pytest.mark.parametrize("module", ["release/_generator.py", "design/_release.py"])
def test_no_release_module_words_the_report(module):
    """Neither the estimator nor the design release holds a phrase of the report's wording
    (``report/_build.py``, ``_design_wording.py``), nor builds a ``PrivacyReport`` itself."""
    report = set()
    for name in ("_build.py", "_design_wording.py"):
        for text in _strings(SRC / "report" / name):
            report.update(_prose(text))
    source = (SRC / module).read_text(encoding="utf-8")
    shared = {phrase for text in _strings(SRC / module) for phrase in _prose(text)} & report
    assert not shared, sorted(shared)[:5]
    assert "PrivacyReport(" not in source
