"""The documentation site builds without a warning, and the code of its pages runs.

The site (docs/conf.py: Sphinx + MyST, API reference from the numpydoc
docstrings, the gallery from docs/figures/index.md) is built with ``-W``
(every warning an error) into a temporary directory (about 15 s, so in the
quick suite: a guide added to docs/ without a place in the site fails at once). The Python blocks of
docs/composing.md run as written; a block whose third-party library is not
installed is skipped and named.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"


@pytest.mark.slow  # 18 s on an idle machine, 57 s at load 10–15: over the quick tier's 10 s
def test_site_builds_without_warnings(tmp_path):
    pytest.importorskip("sphinx", reason="the docs toolchain is in the test extra")
    pytest.importorskip("myst_parser", reason="the docs toolchain is in the test extra")
    out = tmp_path / "html"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-W",
            "--keep-going",
            "-q",
            "-b",
            "html",
            str(DOCS),
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    gallery = (out / "gallery.html").read_text()
    figures = re.findall(r"^- \[(\w+\.png)\]", (DOCS / "figures" / "index.md").read_text(), re.M)
    assert len(figures) >= 7
    for name in figures:  # every figure of the index is in the gallery, and copied
        assert name in gallery and (out / "_images" / name).exists()
    api = (out / "api.html").read_text()
    for name in (
        "release.PrivateLinearGenerator",
        "release.plan_release",
        "report.render_html",
    ):
        assert f'id="synthamp.{name}"' in api
    assert not list(DOCS.glob("generated")), "the build wrote into docs/"


def _python_blocks(path: Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", path.read_text(), flags=re.M | re.S)


@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(_python_blocks(DOCS / "composing.md"))))
def test_composing_page_code_runs(index, capsys):
    code = _python_blocks(DOCS / "composing.md")[index]
    for module in re.findall(r"^(?:from|import) (\w+)", code, flags=re.M):
        if module != "synthamp":
            pytest.importorskip(module, reason=f"{module} is not installed (an optional library)")
    exec(compile(code, f"composing.md block {index}", "exec"), {})
    printed = capsys.readouterr().out
    assert re.search(r"\d\.\d", printed), "each example prints its ε"


def test_the_docs_state_the_current_schema_version():
    """docs/release.md said "schema 2" while the files were schema 4: every mention of the
    schema's number names the current one, or (docs/json.md's history) an earlier one."""
    from synthamp.report import SCHEMA_VERSION

    pages = [*DOCS.glob("*.md"), DOCS.parent / "README.md"]
    mention = re.compile(r"schema(?:_version)?`?[ =:]*(\d+)")
    since = re.compile(r"Since `schema_version` (\d+)")
    seen = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        history = {m.start(1) for m in since.finditer(text)}
        for match in mention.finditer(text):
            number = int(match.group(1))
            if match.start(1) in history:
                assert number <= SCHEMA_VERSION, (page.name, match.group(0))
            else:
                assert number == SCHEMA_VERSION, (page.name, match.group(0))
                seen.append(page.name)
    assert "release.md" in seen
    history = [int(n) for n in since.findall((DOCS / "json.md").read_text(encoding="utf-8"))]
    assert max(history) == SCHEMA_VERSION
