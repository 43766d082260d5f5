"""``synthamp release`` and ``synthamp demo``: from a private table to synthetic data.

Each command parses its options, calls one library function
(:func:`synthamp.jobs.release_table`, :func:`synthamp.jobs.run_demo`), which
checks every input and every output path before doing any work and writes each file
atomically, and prints its result. The unperturbed model v, the noise N and the seeds
Z are never printed, logged or written.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import click

from synthamp._validation import flag_text, printable
from synthamp.cli._common import deprecated_alias
from synthamp.cli._outputs import show_demo, show_release
from synthamp.cli._status import live_status, time_budget_option
from synthamp.jobs import (
    ACCOUNTANTS,
    ACCOUNTING_METHODS,
    ADJACENCIES,
    BACKENDS,
    DEMO_DIR,
    DESIGNS,
    RECORD_KINDS,
    ReleaseMonitor,
    run_demo,
)

__all__ = ["demo", "release"]

#: Show a progress bar from this many synthetic records on.
PROGRESS_THRESHOLD = 1_000_000


class _Terminal(ReleaseMonitor):
    """Messages on stderr as one line each; steps and progress on a terminal's stderr."""

    def __init__(self, show: bool) -> None:
        self.show = show

    #: the messages' marked parameters are written as flags (synthamp.jobs._release_table)
    flags = True

    def message(self, level: str, text: str) -> None:
        click.echo(f"synthamp: {level}: {printable(flag_text(text))}", err=True)

    def stage(self, text: str):
        return live_status(text, show=self.show)

    @contextlib.contextmanager
    def progress(self, total: int, label: str) -> Iterator[Callable[[int], None]]:
        """A rich progress bar (only for large totals); yields ``advance(rows)``."""
        if total < PROGRESS_THRESHOLD or not self.show:
            yield lambda rows: None
            return
        # heavy: rich, only for the progress bar
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        columns = (TextColumn("[progress.description]{task.description}"), BarColumn())
        progress = Progress(
            *columns, MofNCompleteColumn(), TimeRemainingColumn(),
            console=Console(stderr=True), transient=True,
        )  # fmt: skip
        with progress:
            task = progress.add_task(label, total=total)
            yield lambda rows: progress.advance(task, rows)


def _options(*specs: tuple) -> Callable:
    """Apply ``(flags, help, keywords)`` options, first listed first (as ``--help`` shows)."""

    def apply(command):
        for flags, text, keywords in reversed(specs):
            command = click.option(*flags.split(), help=text, **keywords)(command)
        return command

    return apply


_ACCOUNTING = (
    "--accounting",
    "Accounting method.",
    dict(type=click.Choice(ACCOUNTING_METHODS), default="exact", show_default=True),
)
_JSON = ("--json as_json", "Print one JSON object describing what was written.", {"is_flag": True})


@click.command("release")
@_options(
    ("--data", "Private table (.csv or .parquet).", dict(required=True, metavar="FILE")),
    ("--targets", "Target columns (comma-separated): the k record dimensions. With --design, "
     "'all': every numeric column (less --public-inputs).", dict(required=True, metavar="COLS")),
    ("--features", "Feature columns (default: all other columns).", dict(metavar="COLS")),
    ("--label-bound", "Target rows are clipped to norm ≤ B (required; default 1 with --design "
     "and --bounds, where the rows are mapped into the ball).", dict(type=float, metavar="B")),
    ("--ridge", "λ of (1/m)Σ‖Wᵀx−y‖² + λ‖W‖²_F.", dict(required=True, type=float, metavar="λ")),
    ("--epsilon", "Target ε (σ is calibrated).", dict(type=float, metavar="E")),
    ("--delta", "δ (required with --epsilon; default 1e-5 with --sigma).",
     dict(type=float, metavar="D")),
    ("--sigma", "Noise σ (instead of --epsilon).", dict(type=float, metavar="S")),
    ("--n-syn", "Number of synthetic records to write.",
     dict(required=True, type=int, metavar="N")),
    ("--out", "Synthetic table (.csv or .parquet).", dict(required=True, metavar="FILE")),
    ("--report", "Privacy report (.json or .html; the JSON, Markdown and HTML reports are "
     "written side by side). Default: OUT + .privacy.json/.md/.html (syn.csv.privacy.json).",
     dict(metavar="FILE")),
    ("--seed", "Seed for reproducible research (the noise is then NOT secret).", dict(type=int)),
    ("--force", "Overwrite existing output files.", dict(is_flag=True)),
    ("--mode", "File mode of the published outputs, e.g. 600 (default: from the umask, as a new "
     "file; 600 for a seeded release). They stay 600 until published.", dict(metavar="OCTAL")),
    ("--norm-bound", "Project the model onto ‖v‖_F ≤ C (default B/(2√λ)).",
     dict(type=float, metavar="C")),
    ("--feature-scale", "Declared, data-independent factor applied to the features (rows are "
     "then clipped to norm ≤ 1). Default 1.", dict(type=float, metavar="S")),
    ("--bounds", "Public range of each feature column, for columns in different units: a CSV "
     "(column,lo,hi) or JSON ({\"column\": [lo, hi]}) file; each column is mapped affinely "
     "from [lo, hi] onto [-1, 1] (then divided by √d) before the row-norm clipping. Replaces "
     "--feature-scale; every used feature column needs a range. With --design: the ranges of "
     "the TARGET columns (every one needs a range): each row is mapped into the ball of "
     "radius B with a constant coordinate added (k + 1 columns released), so the released "
     "Gram matrix carries the means.", dict(metavar="FILE")),
    ("--records", "With --design and --bounds: 'table' (the default there) writes the records "
     "in the table's columns and units (drawn from the mean and covariance read off the "
     "released VᵀV: a post-processing, covered by the guarantee); 'raw' writes the "
     "mechanism's records ZV (the default otherwise).",
     dict(type=click.Choice(RECORD_KINDS))),
    ("--max-clipped", "Refuse the release (exit 2) when more than this share of the feature "
     "rows or of the target rows is clipped.",
     dict(type=float, default=0.1, show_default=True, metavar="FRACTION")),
    _ACCOUNTING,
    ("--accountant", "pld: exact privacy profile (tight); rdp: RDP curve converted (default: pld "
     "for k = 1 with --unlimited, rdp otherwise; for k = 1 the unlimited release's pld is used "
     "when it needs less noise, said so).", dict(type=click.Choice(ACCOUNTANTS))),
    ("--unlimited", "Account for an unlimited number of records (the n_syn → ∞ plateau; never "
     "smaller than the finite-n ε). Then --n-syn has no upper limit.", dict(is_flag=True)),
    ("--partitions", "Write a partitioned Parquet dataset: the folder --out with P files "
     "part.{i}.parquet.", dict(type=int, metavar="P")),
    ("--backend", "Write the partitions in this process, or on dask (extra synthamp[dask]; "
     "accounted as unlimited).",
     dict(type=click.Choice(BACKENDS), default="local", show_default=True)),
    ("--scheduler", "Dask scheduler address (tcp://host:8786), or synchronous|threads|processes. "
     "Default: a local cluster of worker processes.", dict(metavar="ADDRESS")),
    ("--audit audit_trials", "Also audit the release: attack its worst-case pair TRIALS times "
     "per dataset (public parameters only, no data) and show the result in the HTML report.",
     dict(type=int, metavar="TRIALS")),
    ("--design", "Regress the targets on a public design of width --width (random-seeds: a "
     "public random seed per record, records in a secret random order; random-features: random "
     "Fourier features of the columns declared public by --public-inputs; orthogonal: the seed "
     "rows orthonormalised, D ≥ m, exact closed-form bounds, VᵀV sampled from its exact law "
     "without forming the design), accounted with the certified public-design bounds. Only "
     "the target columns are protected. Not with --features, "
     "--norm-bound, --feature-scale, --sigma, --audit or an --accounting other than exact.",
     dict(type=click.Choice(DESIGNS))),
    ("--width", "Width of --design.", dict(type=int, metavar="D")),
    ("--design-seed", "Public design seed.", dict(type=int, metavar="S")),
    ("--adjacency", "With --design: gram (the default): the reachable Gram pairs for one "
     "target, the certified reduction for several; norm: Theorem 5.4's norm model.",
     dict(type=click.Choice(ADJACENCIES))),
    ("--public-inputs", "With --design random-features (required there): the input columns, "
     "declared public; only the targets are then protected. If the inputs are private, release "
     "without --design (the generator accounts for private features).", dict(metavar="COLS")),
    ("--no-progress", "No progress bar on stderr.", dict(is_flag=True)),
    _JSON,
)  # fmt: skip
@time_budget_option
def release(no_progress, as_json, **options):
    """Fit a private linear generator on a table and write synthetic records and a privacy report.

    \b
    Example:
      synthamp release --data private.csv --targets y1,y2 --label-bound 1 \\
          --ridge 0.1 --epsilon 1 --delta 1e-6 --n-syn 10000 --out synthetic.csv

    Only the synthetic records ZV and the report are written; the model, the
    noise and the seeds are not. The guarantee covers N = --n-syn records
    (or any number with --unlimited). All outputs appear together at the end,
    or none (on an error, Ctrl-C or SIGTERM).

    \b
    At scale (docs/theory.md §17; the workers receive only the k × k factor of VᵀV):
      synthamp release ... --unlimited --n-syn 1000000000 --partitions 100 --out synthetic/
      synthamp release ... --backend dask --scheduler tcp://host:8786 \\
          --n-syn 1000000000 --partitions 100 --out synthetic/
    """
    # heavy: scikit-learn and scipy (the estimator), only to release
    from synthamp.jobs import release_table

    show_release(release_table(**options, monitor=_Terminal(not no_progress)), as_json)
    return 0


@click.command("demo")
@_options(
    ("--out out_dir", "Output directory (created if missing).",
     dict(default=DEMO_DIR, show_default=True, metavar="DIR")),
    ("--out-dir out_dir_alias", None, dict(hidden=True)),
    ("--epsilon", "Target ε.", dict(type=float, default=1.0, show_default=True)),
    ("--delta", "Target δ.", dict(type=float, default=1e-5, show_default=True)),
    ("--n-syn", "Synthetic records to release.", dict(type=int, default=10_000, show_default=True)),
    ("--seed", "Seed for a reproducible demo (the noise is then NOT secret).", dict(type=int)),
    _ACCOUNTING,
    ("--unlimited", "Account for an unlimited number of records (the n_syn → ∞ plateau; faster, "
     "slightly more noise) instead of exactly N.", dict(is_flag=True)),
    ("--finite finite_alias", None, dict(is_flag=True, hidden=True)),
    ("--force", "Overwrite the demo's files if they exist.", dict(is_flag=True)),
    ("--mode", "File mode of the outputs (as release).", dict(metavar="OCTAL")),
)  # fmt: skip
@time_budget_option
@_options(("--no-progress", "No status line on stderr.", dict(is_flag=True)), _JSON)
def demo(out_dir, out_dir_alias, finite_alias, no_progress, as_json, **options):
    """Release synthetic data from scikit-learn's diabetes dataset (no download).

    Fits a private ridge generator (d = 65 public polynomial features of the 10
    baseline variables, k = 1 target: disease progression), calibrates σ to
    (ε, δ) with amplification-aware accounting for exactly the N records
    released (as release does; --unlimited accounts for any number), writes
    them and the privacy report (JSON, Markdown, HTML) into DIR, and compares
    the utility with post-processing calibration at the same ε.
    """
    out_dir = deprecated_alias(out_dir, out_dir_alias, old="--out-dir", new="--out")
    if finite_alias:  # the old opt-in is now the default
        click.echo(
            "synthamp: warning: --finite is deprecated; demo accounts for exactly N records "
            "by default (--unlimited for any number)",
            err=True,
        )
    result = run_demo(out_dir, **options, monitor=_Terminal(not no_progress))
    show_demo(result, options["epsilon"], as_json)
    return 0
