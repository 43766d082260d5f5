"""The console examples of README.md and docs/*.md: where they are, and how they run.

Every ``console`` block is a sequence of ``$ command`` lines, each followed by the output
the page shows. :func:`run` runs one command as the page's reader would, in a directory
made by :func:`make_workdir` (it holds ``private.csv``, a table of the shape the README
describes: 5,000 records, 20 features, a target ``y``). ``tests/test_readme.py`` compares
what it prints with the page; ``scripts/refresh_examples.py`` writes it into the page.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
#: The pages whose console blocks are run.
PAGES = (README, *sorted((ROOT / "docs").glob("*.md")))
CONSOLE = re.compile(r"^```console\n(.*?)^```", flags=re.M | re.S)


def examples(page: Path) -> list[tuple[str, list[str]]]:
    """(command, expected output lines) for every ``$`` line of every console block."""
    found: list[tuple[str, list[str]]] = []
    for block in CONSOLE.findall(page.read_text()):
        for line in block.splitlines():
            if line.startswith("$ "):
                found.append((line[2:], []))
            elif found:
                found[-1][1].append(line)
    return found


def make_workdir(directory: Path) -> Path:
    """Write ``private.csv`` (the README's table shape) into ``directory``."""
    rng = np.random.default_rng(0)
    features = rng.uniform(-1, 1, size=(5000, 20)) / np.sqrt(20)
    table = pd.DataFrame(features, columns=[f"x{i}" for i in range(20)])
    table["y"] = np.tanh(features.sum(axis=1))
    table.to_csv(directory / "private.csv", index=False)
    return directory


def run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """Run ``synthamp ARGS`` as the page shows it (100 columns, no colour)."""
    env = {**os.environ, "COLUMNS": "100", "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "synthamp", *argv[1:]],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
