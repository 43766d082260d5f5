"""The README cannot drift from the program: its examples are run and compared.

Every ``console`` block of README.md is a sequence of ``$ command`` lines, each
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
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

README = Path(__file__).resolve().parent.parent / "README.md"

#: A number as printed: 1,000 / -0.5 / 2.1e-14 / 54.89% (the sign, digits, exponent).
NUMBER = re.compile(r"(?<![\w.])[-+]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?")
#: Box-drawing characters of rich tables.
BORDERS = re.compile("[\u2500-\u257f]")


def _blocks(kind: str) -> list[str]:
    return re.findall(rf"^```{kind}\n(.*?)^```", README.read_text(), flags=re.M | re.S)


def _examples() -> list[tuple[str, list[str]]]:
    """(command, expected output lines) for every ``$`` line of every console block."""
    examples: list[tuple[str, list[str]]] = []
    for block in _blocks("console"):
        for line in block.splitlines():
            if line.startswith("$ "):
                examples.append((line[2:], []))
            elif examples:
                examples[-1][1].append(line)
    return examples


def _numbers(line: str) -> list[str]:
    return [n.replace(",", "") for n in NUMBER.findall(BORDERS.sub(" ", line))]


def _content(lines: list[str]) -> list[str]:
    """Lines that carry text (rich's border-only lines and blank lines dropped)."""
    return [line for line in lines if BORDERS.sub("", line).strip()]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    directory = tmp_path_factory.mktemp("readme")
    rng = np.random.default_rng(0)
    features = rng.uniform(-1, 1, size=(5000, 20)) / np.sqrt(20)
    table = pd.DataFrame(features, columns=[f"x{i}" for i in range(20)])
    table["y"] = np.tanh(features.sum(axis=1))
    table.to_csv(directory / "private.csv", index=False)
    return directory


def test_readme_has_console_examples_and_keeps_its_first_two_commands():
    assert len(_examples()) >= 6
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
@pytest.mark.parametrize("index", range(len(_examples())), ids=lambda i: _examples()[i][0][:60])
def test_console_example_prints_what_the_readme_shows(index, workdir):
    command, expected = _examples()[index]
    argv = shlex.split(command)
    assert argv[0] == "synthamp"
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "synthamp", *argv[1:]],
        cwd=workdir,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr
    printed = run.stdout.splitlines()
    if not expected:
        if "--json" in argv:
            json.loads(run.stdout)
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
