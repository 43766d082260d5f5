"""Rewrite the outputs of the console examples of README.md and docs/*.md.

Usage: ``python scripts/refresh_examples.py`` (after a deliberate change of what a
command prints; ``tests/test_readme.py`` then checks the pages against the program).
A command shown with ``--json`` keeps no output in the page (the test checks it prints
one JSON object).
"""

from __future__ import annotations

import shlex
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from console_examples import CONSOLE, PAGES, make_workdir, run


def refresh(page: Path, workdir: Path) -> bool:
    """Rewrite the page's console outputs; True if it changed."""
    text = page.read_text()

    def block(match) -> str:
        lines = []
        for line in match.group(1).splitlines():
            if not line.startswith("$ "):
                continue
            lines.append(line)
            argv = shlex.split(line[2:])
            if "--json" in argv:
                continue
            printed = run(argv, workdir)
            if printed.returncode != 0:
                raise SystemExit(f"{page.name}: {line}: {printed.stderr.strip()}")
            lines += printed.stdout.rstrip("\n").splitlines()
        return "```console\n" + "\n".join(lines) + "\n```"

    new = CONSOLE.sub(block, text)
    if new != text:
        page.write_text(new)
    return new != text


def main() -> None:
    with tempfile.TemporaryDirectory() as directory:
        workdir = make_workdir(Path(directory))
        for page in PAGES:
            if refresh(page, workdir):
                print(f"rewrote {page.name}")


if __name__ == "__main__":
    main()
