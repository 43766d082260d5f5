"""``synthamp figures``: regenerate the paper's figures and their data.

For every figure of :data:`synthamp.figures.FIGURES`, writes ``{name}.png``
and ``{name}.csv`` (the plotted data, one row per point, with the kind of
every curve) into ``--out``, and an ``index.md`` with one line per figure
(:func:`synthamp.jobs.write_figures`). Every file is written atomically;
files of the same names in ``--out`` are replaced. Expensive figures (the k = 2
study, about 20 minutes) are skipped by the default run and ``--quick``, which
say so; ``--only NAME[,NAME]`` computes just the figures named (expensive ones
included) and leaves the index as it is.
"""

from __future__ import annotations

import time

import click

from synthamp.cli._common import echo_json

__all__ = ["figures"]


@click.command("figures")
@click.option(
    "--out", required=True, metavar="DIR", help="Output directory (PNG + CSV per figure, index.md)."
)
@click.option("--quick", is_flag=True, help="Coarse grids: a preview in about 20 seconds.")
@click.option(
    "--only",
    metavar="NAME[,NAME]",
    default=None,
    help="Just these figures, expensive ones included (e.g. fig_k2_study, about 20 "
    "minutes); index.md is left as it is.",
)
@click.option("--no-progress", is_flag=True, help="No progress bar on stderr.")
@click.option(
    "--json", "as_json", is_flag=True, help="Print one JSON object describing what was written."
)
def figures(out: str, quick: bool, only: str | None, no_progress: bool, as_json: bool) -> None:
    """Regenerate the paper's figures from synthamp's exact numbers.

    Writes, for each figure, a PNG and a CSV of the plotted data (each curve
    labelled exact, certified or heuristic), and index.md with one line per
    figure. Existing files of the same names in DIR are replaced. Expensive
    figures (the k = 2 study) are skipped unless named by --only.
    """
    from synthamp.jobs import write_figures  # pandas: heavy, on use only

    start = time.perf_counter()
    written = write_figures(out, quick=quick, show_progress=not no_progress, only=only)
    if as_json:
        echo_json(written.to_dict())
    else:
        for line in written.lines():
            click.echo(line)
    for note in written.notes():
        click.echo(note, err=True)
    click.echo(f"{len(written.files)} files in {time.perf_counter() - start:.1f} s", err=True)
