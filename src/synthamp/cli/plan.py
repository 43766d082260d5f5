"""``synthamp plan``: before a release, from the table's shape only, which λ and width to use.

A thin layer over :func:`synthamp.jobs.plan_table` (no value of the table is read).
"""

from __future__ import annotations

import click

from synthamp.cli._common import FLOAT_LIST
from synthamp.cli._options import JSON, LibraryChoice, emit, options

__all__ = ["plan"]


@click.command("plan")
@options(
    click.option("--data", required=True, metavar="FILE", help="Private table (.csv or .parquet)."),
    click.option("--targets", required=True, metavar="COLS",
                 help="Target columns (comma-separated); with --design, 'all': the columns "
                 "release takes (a Parquet table's numeric columns, a CSV table's header)."),
    click.option("--features", default=None, metavar="COLS",
                 help="Feature columns (default: all other columns)."),
    click.option("--label-bound", type=float, default=None, metavar="B",
                 help="Bound on ‖y‖ (required, except with --bounds: default 1)."),
    click.option("--bounds", default=None, metavar="FILE",
                 help="With --design: the target columns' public ranges (CSV column,lo,hi or "
                 "JSON), as release --bounds: the plan of the whole-table release (k + 1 "
                 "columns, the constant carrying the means)."),
    click.option("--epsilon", required=True, type=float, metavar="E", help="Target ε."),
    click.option("--delta", required=True, type=float, metavar="D", help="Target δ."),
    click.option("--ridge", "ridges", type=FLOAT_LIST, default="0.01,0.1,1,10", show_default=True,
                 metavar="LIST", help="Ridge penalties λ to compare."),
    click.option("--width", "widths", type=FLOAT_LIST, default=None, metavar="LIST",
                 help="Generator widths to compare (default: the number of features)."),
    click.option("--n-syn", type=int, default=None, metavar="N",
                 help="Records to account for (default: any number)."),
    click.option("--releases", type=int, default=1, show_default=True, metavar="T",
                 help="Releases of the same data (composed)."),
    click.option("--accounting", "method", type=LibraryChoice("synthamp.jobs", "PLAN_METHODS"),
                 default="exact", show_default=True, help="Amplification-aware accounting method."),
    click.option("--design", type=LibraryChoice("synthamp.jobs", "DESIGNS"), default=None,
                 help="Plan a public design of each --width (random-seeds or orthogonal; not with "
                 "--features, --n-syn, --releases or --accounting other than exact)."),
    click.option("--design-seed", type=int, default=None, metavar="S",
                 help="The design's public seed."),
    click.option("--adjacency", type=LibraryChoice("synthamp.jobs", "ADJACENCIES"),
                 default=None, help="Adjacency of --design (default: gram)."),
    click.option("--no-progress", is_flag=True, help="No status line on stderr."),
    JSON,
)  # fmt: skip
def plan(no_progress, as_json, **arguments):
    """Plan a release: C, Δ, σ, noise saved and utility for each λ (and width).

    Reads only the shape of the table (records, features, targets: the
    Parquet metadata, or the CSV header and its records counted by the parser
    of release, no value kept), never a value.

    \b
    Example:
      synthamp plan --data private.csv --targets y --label-bound 1 \\
          --epsilon 1 --delta 1e-5 --ridge 0.1,1,10 --width 20,100000
    """
    from rich.console import Console  # rich: heavy, on use only

    from synthamp.jobs import plan_table  # loads scipy (the ridge): heavy, on use only

    with Console(stderr=True, quiet=no_progress).status("calibrating σ for each choice"):
        summary = plan_table(**arguments)
    emit(summary, as_json)
    return 0
