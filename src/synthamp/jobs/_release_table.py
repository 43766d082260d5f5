"""From a private table to written synthetic records and their privacy report.

:func:`release_table` is the library entry point of ``synthamp release``: it checks
every public number and every path before the table is read
(:mod:`synthamp.jobs._release_checks`), locks the destinations of one
:class:`~synthamp.release.OutputTransaction`, reads the table, fits the generator
(:class:`~synthamp.release.PrivateLinearGenerator`, docs/theory.md §13) or a release
on a public design (:func:`~synthamp.design.design_release`, §19), writes the records
(one CSV or Parquet file, or P Parquet partitions in this process or on dask, §17)
and the report (JSON, Markdown, HTML), and commits: all outputs appear together, or
none (on an error, Ctrl-C or SIGTERM). The unperturbed model v, the noise N and the
seeds Z are never returned, written or reported.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from synthamp._budget import DEFAULT_TIME_BUDGET
from synthamp._output._io import (
    OutputTransaction,
    check_directory_output,
    check_parent,
    check_writable,
    lockable_destination,
)
from synthamp._output._paths import check_output_name
from synthamp._parameters import validated_one
from synthamp._validation import InputError, plain_text
from synthamp.accountant import SyntheticDataRelease
from synthamp.design._memory import check_design_memory
from synthamp.design._orthogonal import ORTHOGONAL
from synthamp.design._release import design_release
from synthamp.jobs._release_checks import (
    check_choices,
    check_design_options,
    check_noise_options,
    check_paths,
    check_release_n_syn,
    check_ridge_numbers,
    check_scale_options,
    check_table_options,
    check_target_names,
    report_paths,
)
from synthamp.release import _tabular
from synthamp.release._column_bounds import (
    DEFAULT_MAX_CLIPPED,
    check_clipping,
    check_max_clipped,
    read_bounds,
)
from synthamp.release._distributed import (
    DISTRIBUTED_NOTE,
    local_cluster,
    write_partitions_dask,
)
from synthamp.release._monitor import ReleaseMonitor, stale_messages
from synthamp.release._options import release_mode
from synthamp.release._partitioned import generator_partitions, write_partitions
from synthamp.release._planning import error_with_bias
from synthamp.release._table_fit import fit_table
from synthamp.release._table_partitions import table_partition_tasks
from synthamp.release._table_records import (
    ALL_COLUMNS,
    CONSTANT_COLUMN,
    TABLE_DISTRIBUTED_NOTE,
    TABLE_RECORDS_APPROXIMATE,
    TABLE_RECORDS_NOTE,
    check_target_ranges,
    numeric_columns,
    table_records,
    target_map,
)
from synthamp.release._table_utility import TABLE_ERRORS_NOTE, table_utility_rows
from synthamp.report import PrivacyReport, WrittenRecords, build_report, utility_text, write_report
from synthamp.utility import gram_error_bound

if TYPE_CHECKING:
    from synthamp.audit import AuditResult

__all__ = ["WRITE_CHUNK", "TableRelease", "release_table", "run_audit"]

#: Rows per written chunk.
WRITE_CHUNK = 262_144


@dataclass(frozen=True)
class TableRelease:
    """What :func:`release_table` wrote: the paths, the records, the guarantee and report.

    Attributes
    ----------
    synthetic : Path
        The synthetic table (a file, or the folder of a partitioned dataset).
    reports : (Path, Path, Path)
        The privacy report as JSON, Markdown and HTML.
    records : int
        Synthetic records written.
    privacy : PrivacyReport or None
        The report written (guarantee, σ, utility; on a public design its numbers too),
        the same shape for every release kind.
    summary : tuple of str
        A public design's summary lines (empty otherwise).
    audit : AuditResult or None
        The audit, when asked for.
    notes : tuple of str
        The messages the monitor received (stale files removed; the share of clipped
        rows, a statistic of the private data for the data holder only).
    """

    synthetic: Path
    reports: tuple[Path, Path, Path]
    records: int
    privacy: PrivacyReport | None = None
    summary: tuple[str, ...] = ()
    audit: AuditResult | None = None
    notes: tuple[str, ...] = ()

    @property
    def epsilon(self) -> float:
        """ε of the guarantee."""
        return self.privacy.epsilon

    @property
    def delta(self) -> float:
        """δ of the guarantee."""
        return self.privacy.delta

    @property
    def utility(self) -> dict:
        """The utility of the release beside its baseline (docs/theory.md §16): ``gram_error``,
        ``gram_error_floor``, ``gram_error_baseline``, ``utility_verdict`` (as the report)."""
        keys = ("gram_error", "gram_error_floor", "gram_error_baseline", "utility_verdict")
        return {key: getattr(self.privacy, key) for key in keys}


class _Recorder(ReleaseMonitor):
    """Forwards to the caller's monitor and keeps the messages for the result.

    A message may mark the parameters it names (```label_bound```, as
    :class:`~synthamp.InputError` does): the result's notes and the caller's monitor get
    the library's names (:func:`~synthamp._validation.plain_text`); a monitor with
    ``flags = True`` (the command line's) gets the marked text, to write the flags.
    """

    def __init__(self, monitor: ReleaseMonitor) -> None:
        self.monitor, self.notes = monitor, []

    def message(self, level: str, text: str) -> None:
        self.notes.append(plain_text(text))
        self.monitor.message(
            level, text if getattr(self.monitor, "flags", False) else plain_text(text)
        )

    def stage(self, text: str):
        return self.monitor.stage(text)

    def progress(self, total: int, label: str):
        return self.monitor.progress(total, label)


def _check_numbers(o: dict) -> dict:
    """Step 1: every public number, before any path or the table (see _checks)."""
    check_choices(o)
    o["targets"] = _tabular.parse_columns(o["targets"], param="targets")
    o["features"] = _tabular.parse_columns(o["features"], param="features")
    o["public_inputs"] = _tabular.parse_columns(o["public_inputs"], param="public_inputs")
    # every option applies to the design (or to none), or is refused here, with one line
    check_design_options(o["design"], {**o, "audit": o["audit_trials"]})
    check_table_options(o)  # --targets all, the targets' --bounds with a design, --records
    o["label_bound"] = validated_one("label_bound", o["label_bound"])
    o["ridge"] = validated_one("ridge", o["ridge"])
    distributed = o["backend"] == "dask"
    o["unlimited"] = o["unlimited"] or distributed or o["design"] is not None  # design: unlimited
    o["n_syn"] = check_release_n_syn(o["n_syn"], o["unlimited"])
    feature_scale_given = o["feature_scale"] is not None
    scale = 1.0 if o["feature_scale"] is None else o["feature_scale"]
    o["feature_scale"] = validated_one("feature_scale", scale)
    # "gram": the Gram adjacency for k = 1, the certified angle certificate for k >= 2
    o["adjacency"] = "gram" if o["adjacency"] is None else o["adjacency"]
    o["max_clipped"] = check_max_clipped(o["max_clipped"])
    if o["bounds"] is not None:
        if feature_scale_given:
            raise InputError("bounds", "give --bounds or --feature-scale, not both")
        if o["design"] is not None:
            raise InputError("bounds", "applies to the generator's features, not with --design")
        o["bounds"] = read_bounds(o["bounds"], param="bounds")
    if o["norm_bound"] is not None:
        validated_one("norm_bound", o["norm_bound"])
    check_noise_options(o["epsilon"], o["delta"], o["sigma"])
    if o["seed"] is not None:
        validated_one("seed", o["seed"])
    if o["audit_trials"] is not None:
        validated_one("audit", o["audit_trials"])
    o["mode"] = release_mode(o["mode"], o["seed"])
    check_scale_options(o["partitions"], o["n_syn"], distributed, o["scheduler"])
    check_ridge_numbers(o["label_bound"], o["ridge"])
    return o


def _check_outputs(
    o: dict, transaction: OutputTransaction
) -> tuple[Path, str, tuple[Path, Path, Path]]:
    """Step 2: the input first (never inside an output), then the outputs.

    Every destination is locked, and a commit a killed run left half done is
    completed, *before* it is checked whether an output exists (so that a run
    without ``--force`` repairs what the killed one left, then refuses).
    """
    partitioned = o["partitions"] is not None
    out = check_output_name(o["out"], param="out", folder=partitioned)
    reports = report_paths(out, o["report"])
    in_memory = hasattr(o["data"], "columns")  # a pandas DataFrame
    check_paths(
        None if in_memory else o["data"], out, reports, partitioned=partitioned,
        dataset=o["backend"] == "dask" and o["design"] is None,
    )  # fmt: skip
    if not partitioned:
        fmt = _tabular.table_format(o["out"], param="out")
    destinations = [(out, "out"), *((path, "report") for path in reports)]
    lockable = [(path, param) for path, param in destinations if lockable_destination(path)]
    for path, param in lockable:
        check_parent(path, param)
    transaction.lock(lockable)
    if not partitioned:
        out_path = _tabular.check_table_output(o["out"], force=o["force"], param="out")
    else:
        out_path = check_directory_output(o["out"], force=o["force"], param="out")
        fmt = "parquet"
    check_target_names(o["targets"], fmt)
    for path in reports:
        check_writable(path, force=o["force"], param="report")
    return out_path, fmt, reports


def _records(data, target_cols: list[str], feature_cols: list[str] | None) -> int:
    """m, the table's records: its length in memory, or its shape on disk (no value kept)."""
    if hasattr(data, "columns"):  # a pandas DataFrame
        return len(data)
    named = [] if target_cols == [ALL_COLUMNS] else target_cols  # "all": known once read
    return _tabular.read_shape(data, named, feature_cols, param="data")[0]


def _read(data, target_cols: list[str], feature_cols: list[str] | None, inputs):
    """Step 3 on a public design: the private table's targets y (checked) and the declared
    public inputs (random-features) or nothing else. Without a design the table is read in
    one pass instead (:func:`~synthamp.release._table_fit.fit_table`)."""
    if hasattr(data, "columns"):  # a pandas DataFrame: its names as a file's header
        used = None if feature_cols is None else {*target_cols, *feature_cols}
        _tabular.check_frame_columns(data, used, param="data")
        frame = data
    else:
        frame = _tabular.read_table(data, param="data")
    if len(frame) < 2:
        raise InputError("data", f"needs at least 2 records, got {len(frame)}")
    if target_cols == [ALL_COLUMNS]:  # every numeric column, less the public inputs
        target_cols[:] = numeric_columns(frame, exclude=inputs or ())
        if not target_cols:
            raise InputError("targets", "all: the table has no numeric column to release")
    y = _tabular.select_numeric(frame, target_cols, param="targets")
    if inputs is None:
        return y, None, None
    return y, _tabular.select_numeric(frame, inputs, param="public_inputs"), list(inputs)


def release_table(
    data,
    targets,
    features=None,
    *,
    label_bound: float | None = None,
    ridge: float,
    n_syn: int,
    out: str | os.PathLike,
    epsilon: float | None = None,
    delta: float | None = None,
    sigma: float | None = None,
    report: str | os.PathLike | None = None,
    seed: int | None = None,
    force: bool = False,
    mode: str | int | None = None,
    norm_bound: float | None = None,
    feature_scale: float | None = None,
    bounds=None,
    max_clipped: float = DEFAULT_MAX_CLIPPED,
    accounting: str = "exact",
    accountant: str | None = None,
    unlimited: bool = False,
    partitions: int | None = None,
    backend: str = "local",
    scheduler=None,
    audit_trials: int | None = None,
    design: str | None = None,
    width: int | None = None,
    design_seed: int | None = None,
    adjacency: str | None = None,
    public_inputs=None,
    records: str | None = None,
    time_budget: float | None = DEFAULT_TIME_BUDGET,
    monitor: ReleaseMonitor | None = None,
) -> TableRelease:
    """Release synthetic records of a private table, with their privacy report.

    Parameters
    ----------
    data : path-like or pandas.DataFrame
        The private table (.csv or .parquet; with ``backend`` dask and no design, also a
        folder of Parquet files, reduced on the cluster), or the table in memory. Without
        a design it is read once in chunks (m, XᵀX, XᵀY: no copy of the table).
    targets, features : str or sequence of str
        Target columns (the k record dimensions; comma-separated text or a list; with a
        design, ``"all"``: every numeric column, less ``public_inputs``) and feature columns
        (default: every other column).
    label_bound, ridge : float
        B (target rows clipped to norm ≤ B; required, except with a design and ``bounds``,
        where it defaults to 1) and λ of (1/m)Σ‖Wᵀx−y‖² + λ‖W‖²_F (§13).
    n_syn : int
        Records to write; the guarantee covers them (any number when ``unlimited``).
    out : path-like
        The synthetic table (.csv or .parquet), or the dataset folder with ``partitions``.
    epsilon, delta, sigma : float, optional
        A target (ε, δ) (σ is calibrated) or a σ (δ defaults to 1e-5).
    report : path-like, optional
        X.json or X.html: the reports X.json, X.md, X.html (default OUT + .privacy.*, e.g.
        syn.csv.privacy.json: the table's extension kept).
    seed : int, optional
        Seed for reproducible research (the noise is then NOT secret).
    force : bool
        Replace existing outputs.
    mode : str or int, optional
        File mode of the published outputs (default: from the umask; 600 when seeded).
    norm_bound, feature_scale, accounting, accountant, time_budget
        As :class:`~synthamp.release.PrivateLinearGenerator` (``feature_scale`` default
        1.0). With a design: ``accountant`` applies, ``time_budget`` bounds the comparison
        with concrete pairs, ``accounting`` must be "exact", and ``norm_bound`` and
        ``feature_scale`` are refused.
    bounds : mapping or path-like, optional
        Public ranges of the feature columns, ``{column: (lo, hi)}`` or a CSV
        (``column,lo,hi``) or JSON file of them, for columns in different units: each
        used feature column is mapped affinely from [lo, hi] onto [−1, 1] (then by 1/√d)
        before the row-norm clipping; refused if a used column has no range. Replaces
        ``feature_scale``. With a design: the public ranges of the *target* columns
        (refused if one is missing): each row is mapped into the ball of radius B (every
        column from [lo, hi] onto [−1, 1], a constant coordinate 1 appended, the row times
        B/√(k + 1)), so the release has k + 1 columns, the constant included in what the
        guarantee covers (:mod:`synthamp.release._table_records`).
    max_clipped : float, default 0.1
        Refuse the release (``InputError``, nothing written) when more than this share
        of the feature rows or of the target rows is clipped by the declared bounds.
    unlimited : bool
        Account for any number of records (the n_syn → ∞ plateau).
    partitions, backend, scheduler
        P Parquet partitions, written in this process (``"local"``) or on dask
        (accounted as unlimited: the workers receive R, docs/theory.md §17).
    audit_trials : int, optional
        Also audit the release (public parameters only; ≥ 100 trials per dataset; not
        with a design).
    design, width, design_seed, adjacency
        Regress on a public design (:data:`~synthamp.design.DESIGNS`), §19; the records
        take the design's rows in a uniform random order (adjacency default "gram").
    public_inputs : str or sequence of str, optional
        ``random-features`` only, and required there: the input columns, declared public
        (none of them a target); only the targets are then protected. Private inputs:
        release without a design (§13).
    records : {"table", "raw"}, optional
        With a design and ``bounds`` (the default there, and only there): "table", the
        records in the table's columns and units, drawn with fresh randomness from the
        mean and covariance read off the released VᵀV (a post-processing, covered by the
        guarantee); "raw": the mechanism's records ZV (the default otherwise; with
        ``bounds``, in the mapped coordinates, the constant column ``_constant`` last).
    monitor : ReleaseMonitor, optional
        Told the messages, the long steps and the records written (default: silent).

    Returns
    -------
    TableRelease

    Raises
    ------
    InputError
        A bad input or an output that cannot be written, naming the parameter; nothing
        is written.
    """
    o = _check_numbers(dict(locals()))
    if design is not None and design != ORTHOGONAL:  # the m × m work must fit: m from the
        check_design_memory(_records(data, o["targets"], o["features"]))  # shape, no value read
    recorder = _Recorder(monitor or ReleaseMonitor())
    partitioned = partitions is not None
    with OutputTransaction(replace=force, mode=o["mode"]) as transaction:
        # Every destination locked for this run (a concurrent run is refused) and what a
        # killed run left completed, then the existence checks, then the table.
        try:
            out_path, fmt, reports = _check_outputs(o, transaction)
            table_tmp = transaction.add(out_path, param="out", directory=partitioned)
            report_tmps = [transaction.add(path, param="report") for path in reports]
        finally:  # what was cleaned or put back, also when a check then fails
            stale_messages(transaction, recorder)
        if design is not None:
            y, x, o["feature_names"] = _read(data, o["targets"], o["features"], o["public_inputs"])
            result = _on_design(o, y, x, table_tmp, fmt, report_tmps, recorder)
            del x, y
        else:  # one pass over the rows: XᵀX, XᵀY and the clipping counts, no copy of the table
            generator = fit_table(data, o, recorder)
            result = _on_generator(o, generator, table_tmp, fmt, report_tmps, transaction, recorder)
        transaction.commit()
    return dataclasses.replace(
        result, synthetic=out_path, reports=reports, notes=tuple(recorder.notes)
    )


def _on_design(o, y, x, table_tmp, fmt, report_tmps, monitor) -> TableRelease:
    """Step 4': fit on the public design, write the records and the reports."""
    check_target_names(o["targets"], fmt)  # "all" is resolved once the table is read
    tmap = None
    if o["target_bounds"] is not None:  # the whole table: rows into the ball by their ranges
        tmap = target_map(o["target_bounds"], o["targets"], o["label_bound"])
        notes = check_target_ranges(y, tmap, o["max_clipped"])
        y = tmap.forward(y)  # the constant column last: k' = k + 1
    else:
        notes = check_clipping(  # the targets (a design's features are its own)
            np.empty((len(y), 0)), [], y, o["targets"], label_bound=o["label_bound"],
            max_clipped=o["max_clipped"],
        )  # fmt: skip
    for note in notes:
        monitor.message("note", note)
    adjacency = o["adjacency"]
    with monitor.stage("fitting on the public design"):
        released = design_release(
            y, o["design"], o["width"], o["design_seed"], epsilon=o["epsilon"],
            delta=o["delta"], ridge=o["ridge"], label_bound=o["label_bound"], inputs=x,
            adjacency=adjacency, accountant=o["accountant"], random_state=o["seed"],
            time_budget=o["time_budget"],
        )  # fmt: skip
        del y, x
        columns = list(o["targets"]) + ([] if tmap is None else [CONSTANT_COLUMN])
        table_notes: tuple[str, ...] = ()
        if o["records"] == "table":  # a post-processing of VᵀV, in the table's units
            source, columns = table_records(released, tmap), list(o["targets"])
            table_notes = (TABLE_RECORDS_NOTE,) + (
                () if o["design"] == ORTHOGONAL else (TABLE_RECORDS_APPROXIMATE,)
            )
        else:
            source = released
        if o["partitions"] is None:
            chunks = _progressing(source.iter_samples(o["n_syn"]), monitor, o["n_syn"])
            rows = _tabular.write_rows(table_tmp, chunks, columns, fmt=fmt)
        elif o["records"] == "table":  # tasks carry only the mean and covariance factor
            tasks = table_partition_tasks(source, o["n_syn"], o["partitions"])
            rows = _write_tasks(tasks, table_tmp, {**o, "targets": columns}, monitor)
        else:
            tasks = released.partition_tasks(o["n_syn"], o["partitions"])
            rows = _write_tasks(tasks, table_tmp, {**o, "targets": columns}, monitor)
        extra = ()  # the written table beside the anchors' synthesizers (orthogonal design)
        if o["records"] == "table" and o["design"] == ORTHOGONAL:
            extra = table_utility_rows(released, tmap, source, rows)
        # the records' notes say what the records are; the utility rows' note what they measure
        notes = ((_distributed_note(o),) if o["backend"] == "dask" else ()) + (
            (TABLE_ERRORS_NOTE,) if extra else ()
        )
        written = WrittenRecords(
            rows, tuple(columns), kind=o["records"], records_notes=table_notes, notes=notes,
            target_bounds=None if tmap is None else tmap.ranges(), utility_rows=tuple(extra),
        )  # fmt: skip
        privacy = build_report(released.result, written)
        lines = released.summary(rows) + list(table_notes)
        if extra:
            lines += [TABLE_ERRORS_NOTE, *utility_text("", extra)]
        write_report(privacy, report_tmps)
    # the paths are filled in by the caller
    return TableRelease(Path(), (), rows, privacy=privacy, summary=tuple(lines))


def _distributed_note(o: dict) -> str:
    """What a release written on a dask cluster says: the table's records, or ZV."""
    return TABLE_DISTRIBUTED_NOTE if o["records"] == "table" else DISTRIBUTED_NOTE


def _on_generator(o, generator, table_tmp, fmt, report_tmps, transaction, monitor) -> TableRelease:
    """Step 4: the fitted generator (:func:`~synthamp.release._table_fit.fit_table`, the only
    step that touches the private data): write, audit, report."""
    monitor.message("note", ridge_note(generator, o))
    with transaction.writing("out"):
        rows = _write_records(generator, table_tmp, o, fmt, monitor)
    audit = None
    if o["audit_trials"] is not None:
        audit = run_audit(generator.privacy_, o["audit_trials"], o["seed"], monitor)
    written = WrittenRecords(
        rows, tuple(o["targets"]), notes=(DISTRIBUTED_NOTE,) if o["backend"] == "dask" else ()
    )
    privacy = build_report(generator.accounting_, written)
    with transaction.writing("report"):
        write_report(privacy, report_tmps, audit=audit)
    return TableRelease(Path(), (), rows, privacy=privacy, audit=audit)  # paths: the caller


def ridge_note(generator, o: dict) -> str:
    """The plan's ranking criterion at the release's λ (the same function ``plan`` ranks by)."""
    n_syn = None if o["unlimited"] else o["n_syn"]
    d, k = generator.n_features_in_, generator.n_targets_
    gram = gram_error_bound(
        sigma=generator.sigma_, dim=d, out_dim=k, norm_bound=generator.norm_bound_, n_syn=n_syn
    )
    kept, with_bias = error_with_bias(
        gram, ridge=o["ridge"], width=d, out_dim=k, label_bound=o["label_bound"]
    )
    text = (
        f"at λ = {o['ridge']:g} the ridge model keeps {kept:.3g} of the least-squares model's "
        f"Gram matrix and the records' Gram error with that bias is {with_bias:.3g} of it, "
        "under the assumed typical signal `synthamp plan` ranks λ by (not a bound)"
    )
    if with_bias >= 1:
        text += ": no information on it here; compare λ with `synthamp plan`"
    return text


def _chunks_with(chunks: Iterator[np.ndarray], advance) -> Iterator[np.ndarray]:
    for chunk in chunks:
        yield chunk
        advance(chunk.shape[0])


def _progressing(chunks: Iterator[np.ndarray], monitor, total: int) -> Iterator[np.ndarray]:
    """``chunks``, with the monitor's progress open while they are drawn."""
    with monitor.progress(total, "synthetic records") as advance:
        yield from _chunks_with(chunks, advance)


def _write_records(generator, target, o, fmt, monitor) -> int:
    """Write the records into ``target`` (a temporary file or folder): one file or P parts."""
    n_syn, columns, partitions = o["n_syn"], o["targets"], o["partitions"]
    if partitions is None:
        chunks = generator.iter_samples(n_syn, chunk_size=WRITE_CHUNK)
        return _tabular.write_rows(target, _progressing(chunks, monitor, n_syn), columns, fmt=fmt)
    return _write_tasks(generator_partitions(generator, n_syn, partitions), target, o, monitor)


def _write_tasks(tasks, target, o, monitor) -> int:
    """Write planned partitions into the folder ``target``: in this process or on dask."""
    n_syn, columns = o["n_syn"], o["targets"]
    if o["backend"] == "dask":
        scheduler = o["scheduler"]
        where = f"the dask cluster at {scheduler}" if scheduler else "a local dask cluster"
        with monitor.stage(f"writing {len(tasks)} partitions on {where}"):
            if scheduler is not None:
                return write_partitions_dask(tasks, target, columns, scheduler=scheduler)
            with local_cluster() as client:
                return write_partitions_dask(tasks, target, columns, scheduler=client)
    with monitor.progress(n_syn, "synthetic records") as advance:
        return write_partitions(tasks, target, columns, on_chunk=advance)


def run_audit(privacy: PrivacyReport, trials: int, seed: int | None, monitor) -> AuditResult:
    """Audit the release described by the report (public numbers only; docs/theory.md §12)."""
    # heavy: scipy.optimize and scipy.special (the audit's estimators), only to audit
    from synthamp.audit import audit_release

    release = SyntheticDataRelease(
        privacy.dim,
        privacy.out_dim,
        privacy.norm_bound,
        privacy.sensitivity,
        privacy.sigma,
        n_syn=privacy.n_syn,
    )
    with monitor.stage(f"auditing ({trials:,} trials)"):
        return audit_release(
            release, privacy.delta, trials=trials, random_state=seed, epsilon_upper=privacy.epsilon
        )
