"""The README cannot drift from the program: its examples are run and compared.

Every ``console`` block of README.md and docs/*.md is a sequence of ``$ command`` lines, each
followed by the output the README shows. Each command is run (in a temporary
directory holding ``private.csv``, a table of the shape the README describes:
5,000 records, 20 features, a target ``y``; ``plan`` reads only that shape)
and its output is compared with the README's, line by line: the same number of
lines, and on each line the same numbers (table borders and spacing aside). A
command the README shows without output must succeed, and print one JSON
object when it has ``--json``. Every ``python`` block of the README runs.

The first two commands of the README (install + demo, install + tests) are
the CI's own install and test commands (.ci/run) and are not re-run here.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest

from console_examples import PAGES, README, examples, make_workdir, run

#: A number as printed: 1,000 / -0.5 / 2.1e-14 / 54.89% (the sign, digits, exponent).
NUMBER = re.compile(r"(?<![\w.])[-+]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?")
#: Box-drawing characters of rich tables.
BORDERS = re.compile("[\u2500-\u257f]")
#: (page, command, expected output) of every console example.
EXAMPLES = [(page, *example) for page in PAGES for example in examples(page)]


def _blocks(kind: str) -> list[str]:
    return re.findall(rf"^```{kind}\n(.*?)^```", README.read_text(), flags=re.M | re.S)


def _numbers(line: str) -> list[str]:
    return [n.replace(",", "") for n in NUMBER.findall(BORDERS.sub(" ", line))]


def _content(lines: list[str]) -> list[str]:
    """Lines that carry text (rich's border-only lines and blank lines dropped)."""
    return [line for line in lines if BORDERS.sub("", line).strip()]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return make_workdir(tmp_path_factory.mktemp("readme"))


def test_readme_has_console_examples_and_keeps_its_first_two_commands():
    assert len(examples(README)) >= 1  # the worked example; the others live in docs/*.md
    first = _blocks("bash")[0]
    assert "pip install . && synthamp demo" in first
    assert "pip install '.[test]' && python -m pytest" in first
    # CI runs exactly the README's test command (parallel, grouped)
    test_command = first.split("pip install '.[test]' && ", 1)[1].splitlines()[0].strip()
    assert test_command.startswith("python -m pytest -n auto"), test_command
    ci = (README.parent / ".ci" / "run").read_text()
    assert "pip install --quiet '.[test]'" in ci
    assert f"\n{test_command}\n" in ci, test_command


@pytest.mark.slow
@pytest.mark.parametrize(
    "index", range(len(EXAMPLES)), ids=lambda i: f"{EXAMPLES[i][0].name}: {EXAMPLES[i][1][:50]}"
)
def test_console_example_prints_what_the_page_shows(index, workdir):
    page, command, expected = EXAMPLES[index]
    argv = shlex.split(command)
    assert argv[0] == "synthamp", f"{page.name}: a console block runs synthamp only"
    printed_run = run(argv, workdir)
    assert printed_run.returncode == 0, printed_run.stderr
    printed = printed_run.stdout.splitlines()
    if not expected:
        if "--json" in argv:
            json.loads(printed_run.stdout)
        return
    want, got = _content(expected), _content(printed)
    assert len(got) == len(want), "\n".join(["README:", *want, "printed:", *got])
    for want_line, got_line in zip(want, got, strict=True):
        assert _numbers(got_line) == _numbers(want_line), (
            f"\nREADME:  {want_line}\nprinted: {got_line}"
        )


@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(_blocks("python"))))
def test_python_example_runs(index, capsys):
    exec(compile(_blocks("python")[index], f"README python block {index}", "exec"), {})
