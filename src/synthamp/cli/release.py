"""``synthamp release`` and ``synthamp demo``: from a private table to synthetic data.

Both commands check every input and every output path before doing any work,
write each file atomically, and never print, log or write the unperturbed
model v, the noise N or the seeds Z.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from collections.abc import Callable, Iterator
from pathlib import Path

import click
import numpy as np

from synthamp import release as tabular
from synthamp._validation import (
    InputError,
    check_integer,
    check_n_syn,
    check_open_unit,
    check_positive,
    check_sigma,
)
from synthamp.cli._common import deprecated_alias, echo_json
from synthamp.cli._design import check_design_options, print_design_summary, release_on_design
from synthamp.cli._outputs import (
    audit_json,
    print_release_summary,
    run_audit,
    write_reports,
    written_json,
)
from synthamp.cli._release_checks import (
    check_paths,
    check_release_n_syn,
    check_ridge_numbers,
    check_scale_options,
    check_target_names,
    clipping_notes,
    report_paths,
    warn_stale,
)
from synthamp.cli._status import live_status, time_budget_option
from synthamp.release import (
    ADJACENCIES,
    DESIGNS,
    OutputTransaction,
    check_directory_output,
    check_writable,
    parse_mode,
)
from synthamp.utility import gaussian_gram_sigma

__all__ = ["demo", "release"]

#: Show a progress bar from this many synthetic records on.
PROGRESS_THRESHOLD = 1_000_000

#: Rows per written chunk.
WRITE_CHUNK = 262_144

#: Defaults of ``synthamp demo``.
DEMO_DIR = "synthamp-demo"
DEMO_FILES = (
    "synthetic.csv",
    "privacy-report.json",
    "privacy-report.md",
    "privacy-report.html",
)


@contextlib.contextmanager
def _progress_bar(total: int, label: str, *, show: bool = True) -> Iterator[Callable[[int], None]]:
    """A rich progress bar on stderr (only for large totals); yields ``advance(rows)``."""
    if total < PROGRESS_THRESHOLD or not show:
        yield lambda rows: None
        return
    # heavy: rich, only for the live status
    from rich.console import Console

    # heavy: rich, only for the progress bar
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    progress = Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    with progress:
        task = progress.add_task(label, total=total)
        yield lambda rows: progress.advance(task, rows)


def _with_progress(
    chunks: Iterator[np.ndarray], total: int, label: str, *, show: bool = True
) -> Iterator[np.ndarray]:
    """Wrap ``chunks`` in :func:`_progress_bar`."""
    with _progress_bar(total, label, show=show) as advance:
        for chunk in chunks:
            yield chunk
            advance(chunk.shape[0])


@click.command("release")
@click.option(
    "--data", "data", required=True, metavar="FILE", help="Private table (.csv or .parquet)."
)
@click.option(
    "--targets",
    required=True,
    metavar="COLS",
    help="Target columns (comma-separated): the k record dimensions.",
)
@click.option(
    "--features", default=None, metavar="COLS", help="Feature columns (default: all other columns)."
)
@click.option(
    "--label-bound",
    required=True,
    type=float,
    metavar="B",
    help="Target rows are clipped to norm ≤ B.",
)
@click.option(
    "--ridge", required=True, type=float, metavar="λ", help="λ of (1/m)Σ‖Wᵀx−y‖² + λ‖W‖²_F."
)
@click.option(
    "--epsilon", type=float, default=None, metavar="E", help="Target ε (σ is calibrated)."
)
@click.option(
    "--delta",
    type=float,
    default=None,
    metavar="D",
    help="δ (required with --epsilon; default 1e-5 with --sigma).",
)
@click.option(
    "--sigma", type=float, default=None, metavar="S", help="Noise σ (instead of --epsilon)."
)
@click.option(
    "--n-syn", required=True, type=int, metavar="N", help="Number of synthetic records to write."
)
@click.option("--out", required=True, metavar="FILE", help="Synthetic table (.csv or .parquet).")
@click.option(
    "--report",
    default=None,
    metavar="FILE",
    help="Privacy report (.json or .html; the JSON, Markdown and HTML reports are written side "
    "by side). Default: OUT stem + .privacy.json/.md/.html.",
)
@click.option(
    "--seed",
    type=int,
    default=None,
    help="Seed for reproducible research (the noise is then NOT secret).",
)
@click.option("--force", is_flag=True, help="Overwrite existing output files.")
@click.option(
    "--mode",
    default=None,
    metavar="OCTAL",
    help="File mode of the published outputs, e.g. 600 (default: from the umask, as a new "
    "file; 600 for a seeded release). They stay 600 until published.",
)
@click.option(
    "--norm-bound",
    type=float,
    default=None,
    metavar="C",
    help="Project the model onto ‖v‖_F ≤ C (default B/(2√λ)).",
)
@click.option(
    "--feature-scale",
    type=float,
    default=1.0,
    show_default=True,
    metavar="S",
    help="Declared, data-independent factor applied to the features (rows are then clipped "
    "to norm ≤ 1).",
)
@click.option(
    "--accounting",
    type=click.Choice(["exact", "global", "post-processing"]),
    default="exact",
    show_default=True,
    help="Accounting method.",
)
@click.option(
    "--accountant",
    type=click.Choice(["pld", "rdp"]),
    default=None,
    help="pld: exact privacy profile (tight); rdp: RDP curve converted "
    "(default: pld for k = 1 with --unlimited, rdp otherwise; for k = 1 the "
    "unlimited release's pld is used when it needs less noise, said so).",
)
@click.option(
    "--unlimited",
    is_flag=True,
    help="Account for an unlimited number of records (the n_syn → ∞ plateau; never smaller "
    "than the finite-n ε). Then --n-syn has no upper limit.",
)
@click.option(
    "--partitions",
    type=int,
    default=None,
    metavar="P",
    help="Write a partitioned Parquet dataset: the folder --out with P files part.{i}.parquet.",
)
@click.option(
    "--backend",
    type=click.Choice(["local", "dask"]),
    default="local",
    show_default=True,
    help="Write the partitions in this process, or on dask (extra synthamp[dask]; accounted "
    "as unlimited).",
)
@click.option(
    "--scheduler",
    default=None,
    metavar="ADDRESS",
    help="Dask scheduler address (tcp://host:8786), or synchronous|threads|processes. "
    "Default: a local cluster of worker processes.",
)
@click.option(
    "--audit",
    "audit_trials",
    type=int,
    default=None,
    metavar="TRIALS",
    help="Also audit the release: attack its worst-case pair TRIALS times per dataset (public "
    "parameters only, no data) and show the result in the HTML report.",
)
@click.option(
    "--design",
    type=click.Choice(DESIGNS),
    default=None,
    help="Regress the targets on a public design of width --width (random-seeds: a public "
    "random seed per record; random-features: random Fourier features of the feature columns, "
    "which must then be public), accounted with the exact public-design bounds.",
)
@click.option("--width", type=int, default=None, metavar="D", help="Width of --design.")
@click.option("--design-seed", type=int, default=None, metavar="S", help="Public design seed.")
@click.option(
    "--adjacency",
    type=click.Choice(ADJACENCIES),
    default="gram",
    show_default=True,
    help="With --design: the reachable Gram pairs (k = 1) or the norm model.",
)
@click.option("--no-progress", is_flag=True, help="No progress bar on stderr.")
@click.option(
    "--json", "as_json", is_flag=True, help="Print one JSON object describing what was written."
)
@time_budget_option
def release(
    data,
    targets,
    features,
    label_bound,
    ridge,
    epsilon,
    delta,
    sigma,
    n_syn,
    out,
    report,
    seed,
    force,
    norm_bound,
    feature_scale,
    accounting,
    accountant,
    unlimited,
    audit_trials,
    no_progress,
    as_json,
    time_budget,
    partitions,
    backend,
    scheduler,
    mode,
    design,
    width,
    design_seed,
    adjacency,
):
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

    # 1. Public parameters (each number before the table is read).
    label_bound = check_positive("label_bound", label_bound)
    ridge = check_positive("ridge", ridge)
    distributed = backend == "dask"
    check_design_options(design, width, design_seed, sigma, partitions, backend)
    unlimited = unlimited or distributed or design is not None  # a design: accounted unlimited
    n_syn = check_release_n_syn(n_syn, unlimited)
    feature_scale = check_positive("feature_scale", feature_scale)
    if norm_bound is not None:
        check_positive("norm_bound", norm_bound)
    if sigma is not None and epsilon is not None:
        raise InputError("sigma", "give either --sigma or --epsilon/--delta, not both")
    if sigma is None and epsilon is None:
        raise InputError("epsilon", "give --epsilon and --delta, or --sigma")
    if epsilon is not None:
        check_positive("epsilon", epsilon)
        if delta is None:
            raise InputError("delta", "is required with --epsilon")
    if sigma is not None:
        check_sigma("sigma", sigma)
    if delta is not None:
        check_open_unit("delta", delta)
    if seed is not None:
        check_integer("seed", seed, 0)
    if audit_trials is not None:
        check_integer("audit", audit_trials, 100)
    mode = parse_mode(mode)
    if mode is None and seed is not None:
        mode = 0o600  # a seeded release is not private: owner only unless asked otherwise
    check_scale_options(partitions, n_syn, distributed, scheduler)
    check_ridge_numbers(label_bound, ridge)
    target_cols = tabular.parse_columns(targets, param="targets")
    feature_cols = tabular.parse_columns(features, param="features")

    # 2. Paths, before any work: the input first (never inside an output), then the outputs.
    reports = report_paths(Path(out), report)
    check_paths(data, Path(out), reports, partitioned=partitions is not None)
    if partitions is None:
        out_path = tabular.check_table_output(out, force=force, param="out")
        fmt = tabular.table_format(out_path, param="out")
    else:
        out_path = check_directory_output(out, force=force, param="out")
        fmt = "parquet"
    check_target_names(target_cols, fmt)
    for path in reports:
        check_writable(path, force=force, param="report")

    with OutputTransaction(replace=force, mode=mode) as transaction:
        # Every destination locked for this run (a concurrent run is refused), then the table.
        try:
            table_tmp = transaction.add(out_path, param="out", directory=partitions is not None)
            report_tmps = [transaction.add(path, param="report") for path in reports]
        finally:  # what was cleaned or put back, also when a check then fails
            warn_stale(transaction.stale, transaction.recovered)

        # 3. The private table.
        frame = tabular.read_table(data, param="data")
        if len(frame) < 2:
            raise InputError("data", f"needs at least 2 records, got {len(frame)}")
        if feature_cols is None:
            feature_cols = [str(c) for c in frame.columns if c not in target_cols]
            if not feature_cols:
                raise InputError("features", "no columns left besides the targets")
        overlap = [c for c in feature_cols if c in target_cols]
        if overlap:
            raise InputError("features", f"column {overlap[0]!r} is also a target")
        y = tabular.select_numeric(frame, target_cols, param="targets")
        x = tabular.select_numeric(frame, feature_cols, param="features")
        del frame
        if len(target_cols) > len(feature_cols):
            raise InputError(
                "targets",
                f"k = {len(target_cols)} targets exceed d = {len(feature_cols)} features; "
                "need d ≥ k",
            )

        if design is not None:  # 4'. fit on the public design, write, commit
            with live_status("fitting on the public design", show=not no_progress):
                numbers, lines = release_on_design(
                    y, x, design=design, width=width, design_seed=design_seed,
                    adjacency=adjacency, accountant=accountant, epsilon=epsilon, delta=delta,
                    ridge=ridge, label_bound=label_bound, seed=seed, n_syn=n_syn,
                    columns=target_cols, report_tmps=report_tmps,
                    write_rows=lambda c: tabular.write_rows(table_tmp, c, target_cols, fmt=fmt),
                )  # fmt: skip
            transaction.commit()
            print_design_summary(numbers, lines, out_path, as_json)
            return 0
        # 4. Fit (the only step that touches the private data), then release.
        # heavy: scikit-learn and scipy (the estimator), only to release
        from synthamp.release import PrivateLinearGenerator

        for note in clipping_notes(x, feature_scale, y, label_bound):
            click.echo(note, err=True)
        with live_status("fitting and accounting", show=not no_progress):
            generator = PrivateLinearGenerator(
                label_bound=label_bound,
                ridge=ridge,
                norm_bound=norm_bound,
                sigma=sigma,
                epsilon=epsilon,
                delta=delta,
                n_syn=None if unlimited else n_syn,
                feature_scale=feature_scale,
                accounting=accounting,
                accountant=accountant,
                time_budget=time_budget,
                random_state=seed,
            ).fit(x, y)
        del x, y
        privacy = generator.privacy_
        if distributed:
            # heavy: scipy (the ridge mathematics under the writers), only to release
            from synthamp.release import DISTRIBUTED_NOTE

            privacy = dataclasses.replace(privacy, notes=(*privacy.notes, DISTRIBUTED_NOTE))
        with transaction.writing("out"):
            rows = _write_records(
                generator,
                table_tmp,
                n_syn,
                target_cols,
                fmt,
                partitions,
                backend,
                scheduler,
                show=not no_progress,
            )
        audit = (
            None if audit_trials is None else run_audit(privacy, audit_trials, seed, no_progress)
        )
        with transaction.writing("report"):
            write_reports(privacy, report_tmps, n_released=rows, audit=audit)
        transaction.commit()
    extra = {} if audit is None else {"audit": audit_json(audit)}
    if as_json:
        echo_json(written_json(privacy, rows, out_path, reports, **extra))
        return 0
    print_release_summary(privacy, rows, out_path, reports)
    if audit is not None:
        click.echo(
            f"audit: ε ≥ {audit.epsilon_lower:.4g} ({100 * audit.confidence:g}% confidence, "
            f"{audit.trials:,} trials per dataset) against the guaranteed "
            f"{audit.epsilon_upper:.4g}: {'consistent' if audit.consistent else 'INCONSISTENT'}"
        )
    return 0


def _write_records(
    generator, target, n_syn, columns, fmt, partitions, backend, scheduler, *, show=True
) -> int:
    """Write the records into ``target`` (a temporary file or folder): one file or P parts."""

    if partitions is None:
        chunks = generator.iter_samples(n_syn, chunk_size=WRITE_CHUNK)
        return tabular.write_rows(
            target, _with_progress(chunks, n_syn, "synthetic records", show=show), columns, fmt=fmt
        )
    # heavy: scipy (the ridge mathematics under the writers), only to release
    from synthamp.release import generator_partitions, write_partitions

    tasks = generator_partitions(generator, n_syn, partitions)
    if backend == "dask":
        return _write_on_dask(tasks, target, columns, scheduler)
    with _progress_bar(n_syn, "synthetic records", show=show) as advance:
        return write_partitions(tasks, target, columns, on_chunk=advance)


def _write_on_dask(tasks, target, columns, scheduler) -> int:
    # heavy: rich, only for the live status
    from rich.console import Console

    # heavy: scipy (the ridge mathematics under the writers), only to release
    from synthamp.release import local_cluster, write_partitions_dask

    where = f"the dask cluster at {scheduler}" if scheduler else "a local dask cluster"
    with Console(stderr=True).status(f"writing {len(tasks)} partitions on {where}"):
        if scheduler is not None:
            return write_partitions_dask(tasks, target, columns, scheduler=scheduler)
        with local_cluster() as client:
            return write_partitions_dask(tasks, target, columns, scheduler=client)


# ---------------------------------------------------------------------------
# synthamp demo
# ---------------------------------------------------------------------------

#: Public, domain-knowledge ranges of the raw diabetes variables (clinical units), used to
#: map each feature to [-1, 1]. They are not computed from the data.
DEMO_RANGES: dict[str, tuple[float, float]] = {
    "age": (18.0, 90.0),  # years (adult patients)
    "sex": (1.0, 2.0),  # coded 1 / 2
    "bmi": (15.0, 50.0),  # kg/m²
    "bp": (60.0, 140.0),  # mean arterial pressure, mmHg
    "s1": (100.0, 350.0),  # total cholesterol, mg/dL
    "s2": (30.0, 250.0),  # LDL, mg/dL
    "s3": (20.0, 100.0),  # HDL, mg/dL
    "s4": (1.0, 10.0),  # total cholesterol / HDL
    "s5": (3.5, 7.0),  # log triglycerides (log mg/dL)
    "s6": (50.0, 150.0),  # glucose, mg/dL
}
#: Documented range of the target (disease progression one year after baseline).
DEMO_TARGET_RANGE = (0.0, 400.0)


def demo_dataset() -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The demo's features and target: scikit-learn's diabetes data, publicly scaled.

    Each raw variable is mapped affinely from its public range (``DEMO_RANGES``)
    to [-1, 1]; the features are those 10 values and their 55 pairwise products
    and squares (d = 65), divided by √65 so that every row has norm ≤ 1
    without clipping. The target (disease progression) is mapped from
    ``DEMO_TARGET_RANGE`` to [-1, 1] (B = 1). No constant is learned from the
    data.

    Returns
    -------
    features : ndarray of shape (442, 65)
    target : ndarray of shape (442, 1)
    feature_names : list of str
    """
    # heavy: scikit-learn, only for the built-in dataset
    from sklearn.datasets import load_diabetes

    raw = load_diabetes(scaled=False, as_frame=True).frame
    names = list(DEMO_RANGES)
    cols = []
    for name in names:
        low, high = DEMO_RANGES[name]
        cols.append(np.clip((raw[name].to_numpy(float) - low) / (high - low) * 2 - 1, -1, 1))
    base = np.column_stack(cols)
    products, product_names = [], []
    for i in range(len(names)):
        for j in range(i, len(names)):
            products.append(base[:, i] * base[:, j])
            product_names.append(f"{names[i]}*{names[j]}")
    features = np.column_stack([base, *products])
    features /= math.sqrt(features.shape[1])
    low, high = DEMO_TARGET_RANGE
    target = np.clip((raw["target"].to_numpy(float) - low) / (high - low) * 2 - 1, -1, 1)
    return features, target[:, None], names + product_names


#: Ridge penalty of the demo.
DEMO_RIDGE = 0.05
#: Repetitions of the utility evaluation.
DEMO_REPEATS = 200


@click.command("demo")
@click.option(
    "--out",
    "out_dir",
    default=DEMO_DIR,
    show_default=True,
    metavar="DIR",
    help="Output directory (created if missing).",
)
@click.option("--out-dir", "out_dir_alias", default=None, hidden=True)
@click.option("--epsilon", type=float, default=1.0, show_default=True, help="Target ε.")
@click.option("--delta", type=float, default=1e-5, show_default=True, help="Target δ.")
@click.option(
    "--n-syn", type=int, default=10_000, show_default=True, help="Synthetic records to release."
)
@click.option(
    "--seed",
    type=int,
    default=None,
    help="Seed for a reproducible demo (the noise is then NOT secret).",
)
@click.option(
    "--accounting",
    type=click.Choice(["exact", "global", "post-processing"]),
    default="exact",
    show_default=True,
    help="Accounting method.",
)
@click.option(
    "--unlimited",
    is_flag=True,
    help="Account for an unlimited number of records (the n_syn → ∞ plateau; faster, "
    "slightly more noise) instead of exactly N.",
)
@click.option("--finite", "finite_alias", is_flag=True, hidden=True)
@click.option("--force", is_flag=True, help="Overwrite the demo's files if they exist.")
@click.option(
    "--mode", default=None, metavar="OCTAL", help="File mode of the outputs (as release)."
)
@time_budget_option
@click.option("--no-progress", is_flag=True, help="No status line on stderr.")
@click.option(
    "--json", "as_json", is_flag=True, help="Print one JSON object describing what was written."
)
def demo(
    out_dir,
    out_dir_alias,
    epsilon,
    delta,
    n_syn,
    seed,
    accounting,
    unlimited,
    finite_alias,
    force,
    no_progress,
    as_json,
    time_budget,
    mode,
):
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
    epsilon = check_positive("epsilon", epsilon)
    delta = check_open_unit("delta", delta)
    n_syn = check_n_syn(n_syn)
    if seed is not None:
        check_integer("seed", seed, 0)
    mode = parse_mode(mode)
    if mode is None and seed is not None:
        mode = 0o600  # a seeded release is not private (as release)
    directory = Path(out_dir)
    if directory.exists() and not directory.is_dir():
        raise InputError("out", f"{directory} exists and is not a directory")
    paths = [directory / name for name in DEMO_FILES]
    if directory.is_dir():
        for path in paths:
            check_writable(path, force=force, param="out")
    else:
        check_writable(directory, force=False, param="out")

    # heavy: rich, only for the live status
    from rich.console import Console

    # heavy: scikit-learn and scipy (the estimator), only to release
    from synthamp.release import PrivateLinearGenerator

    console = Console(highlight=False, soft_wrap=True)
    status = Console(stderr=True, quiet=no_progress)
    features, target, _ = demo_dataset()
    m, d = features.shape
    with live_status(f"calibrating σ ({accounting} accounting) and fitting", show=not no_progress):
        generator = PrivateLinearGenerator(
            label_bound=1.0,
            ridge=DEMO_RIDGE,
            epsilon=epsilon,
            delta=delta,
            n_syn=None if unlimited else n_syn,
            accounting=accounting,
            time_budget=time_budget,
            random_state=seed,
        ).fit(features, target)
    privacy = generator.privacy_
    with status.status("evaluating utility"):
        utility = _demo_utility(features, target, privacy, n_syn, seed)

    created = not directory.is_dir()
    try:
        with OutputTransaction(replace=force, mode=mode) as transaction:
            if created:
                with transaction.writing("out"):
                    directory.mkdir()
            synthetic_tmp, *report_tmps = (transaction.add(path, param="out") for path in paths)
            warn_stale(transaction.stale)
            with transaction.writing("out"):
                chunks = generator.iter_samples(n_syn, chunk_size=WRITE_CHUNK)
                tabular.write_rows(synthetic_tmp, chunks, ["progression"], fmt="csv")
                write_reports(privacy, report_tmps, n_released=n_syn)
            transaction.commit()
    except BaseException:
        if created:
            with contextlib.suppress(OSError):
                directory.rmdir()  # only if empty: never a folder with other files
        raise
    if as_json:
        utility = {**utility, "repeats": DEMO_REPEATS}
        synthetic_path, *report_paths = paths
        echo_json(written_json(privacy, n_syn, synthetic_path, report_paths, utility=utility))
        return 0

    console.print(
        f"[bold]synthamp demo[/]: diabetes data, m = {m} patients, d = {d} features, k = 1"
    )
    covered = "any number of" if unlimited else f"{n_syn:,}"
    console.print(
        f"guarantee: ({privacy.epsilon:.3g}, {privacy.delta:.3g})-DP for {covered} synthetic "
        f"records ({privacy.accounting_method} accounting, {privacy.accounting_kind}); "
        f"released {n_syn:,}"
    )
    if privacy.sigma > privacy.sigma_post_processing:
        saving = "no noise saved"
    else:
        saving = f"[bold]{100 * privacy.noise_saved:.0f}% less noise[/]"
    console.print(
        f"noise: σ = {privacy.sigma:.4g} with {privacy.accounting_method} accounting vs "
        f"σ = {privacy.sigma_post_processing:.4g} with post-processing accounting: {saving}"
    )
    amplified, post = utility["amplified"], utility["post_processing"]
    console.print(
        "utility: the records carry vᵀv = ‖v‖² (Proposition 4.1); its debiased estimate from "
        f"{n_syn:,} records has median relative error [bold]{amplified:.2f}[/] at the "
        f"amplification-aware σ vs {post:.2f} at the post-processing σ "
        f"({post / amplified:.1f}× smaller; {DEMO_REPEATS} simulated releases)"
    )
    baseline = utility["baseline"]
    verdict = (
        f"{amplified / baseline:.3g}× more accurately than the synthetic records: for ‖v‖², "
        "the baseline serves you better"
        if baseline < amplified
        else f"{baseline / amplified:.3g}× less accurately than the synthetic records"
    )
    console.print(
        "baseline: the Gaussian mechanism on ‖v‖² itself (Analyze Gauss, exact calibration at "
        f"the same (ε, δ)) has median relative error [bold]{baseline:.3g}[/]: {verdict}"
    )
    if amplified > 1:
        console.print(
            f"  (errors above 1: at ε = {epsilon:g} the noise dominates a model fitted on "
            f"{m} records; see docs/release.md for what the data can be used for)"
        )
    if privacy.accounting_note:
        console.print(f"note: {privacy.accounting_note}")
    if not privacy.noise_secret:
        console.print("[bold yellow]warning:[/] seeded run: the noise is not secret")
    console.print("wrote " + ", ".join(str(p) for p in paths))
    return 0


def _demo_utility(features, target, privacy, n_syn, seed) -> dict[str, float]:
    """Median relative error of the debiased ‖v‖² estimate at both calibrations.

    Uses the non-private ridge solution v (of public data) inside this function
    only, to report aggregate errors; v itself is never printed or written.
    """
    # heavy: scikit-learn and scipy (the estimator), only to release
    from synthamp.release import clip_rows, gram_estimate_errors, project_frobenius, ridge_fit

    reference = project_frobenius(
        ridge_fit(clip_rows(features, 1.0), clip_rows(target, privacy.label_bound), privacy.ridge),
        privacy.norm_bound,
    )
    out = {}
    for offset, (name, sigma) in enumerate(
        (("amplified", privacy.sigma), ("post_processing", privacy.sigma_post_processing))
    ):
        errors = gram_estimate_errors(
            reference,
            sigma=sigma,
            n_syn=n_syn,
            repeats=DEMO_REPEATS,
            random_state=None if seed is None else seed + 1 + offset,
        )
        out[name] = float(np.median(errors))
    # the Gaussian mechanism on ‖v‖²: |N(0, σ_G²)| has median σ_G·Φ⁻¹(3/4) (exact, k = 1)

    sigma_gram = gaussian_gram_sigma(
        privacy.epsilon,
        privacy.delta,
        norm_bound=privacy.norm_bound,
        sensitivity=privacy.sensitivity,
    )
    out["baseline"] = MEDIAN_ABS_NORMAL * sigma_gram / float(np.sum(reference**2))
    del reference
    return out


#: Φ⁻¹(3/4): the median of |X| for X ~ N(0, 1).
MEDIAN_ABS_NORMAL = 0.6744897501960817
