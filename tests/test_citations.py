"""Every citation of the specification in code and docs points to a section that exists.

The project's copy of the specification is ``docs/theory.md``; its sections are numbered
``## N. Title``.  A text that cites ``docs/theory.md §N`` (CLI output, JSON notes, docstrings,
``--help``, the user docs) must name an N that is a section there, and no text may cite a file
outside the project (``THEORY.md``, ``../shared``).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "docs" / "theory.md"
CITATION = re.compile(r"docs/theory\.md[`*]*((?:[,;]?\s*(?:and\s+)?§\d+(?:[–-]§?\d+)?)*)")
SECTION_NUMBER = re.compile(r"§(\d+)")


def _texts() -> list[Path]:
    files = [*ROOT.glob("src/**/*.py"), *ROOT.glob("docs/*.md"), ROOT / "README.md"]
    files += ROOT.glob("tests/**/*.py")
    return [path for path in files if path != SPEC and path.name != Path(__file__).name]


def _sections() -> set[int]:
    return {int(n) for n in re.findall(r"^## (\d+)\. ", SPEC.read_text(), re.M)}


def test_the_specification_has_its_twenty_sections() -> None:
    assert _sections() == set(range(1, 21))


def test_every_cited_section_exists() -> None:
    sections = _sections()
    cited = 0
    missing = []
    for path in _texts():
        for match in CITATION.finditer(path.read_text()):
            for number in SECTION_NUMBER.findall(match.group(1)):
                cited += 1
                if int(number) not in sections:
                    missing.append(f"{path.relative_to(ROOT)}: §{number}")
    assert cited > 100, "the pattern no longer finds the citations"
    assert not missing, missing


@pytest.mark.parametrize("outside", ["THEORY.md", "../shared"])
def test_nothing_cites_a_file_outside_the_project(outside: str) -> None:
    offenders = [str(p.relative_to(ROOT)) for p in _texts() if outside in p.read_text()]
    assert not offenders, offenders
