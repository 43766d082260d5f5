"""Writing a release on a dask cluster (optional extra ``synthamp[dask]``).

docs/theory.md §17. The partitions of :mod:`synthamp.release._partitioned` become a
``dask.dataframe`` through ``from_map`` (one task per partition) and are
written with ``to_parquet``. Each task carries one
:class:`~synthamp.release._partitioned.PartitionTask`: the k × k factor R of VᵀV, a
number of rows and its own spawned seed child; never V, the noise N, the seeds
Z or the private data. The values written do not depend on the number of
workers (the seed children are fixed by the plan, before any scheduling).

:func:`write_dataset` is the entry point for a fitted generator, with either
writer: this process (:func:`synthamp.release._partitioned.write_partitions`) or dask.

Because the workers (and their logs, spill files and crash dumps) see R, and R
reveals VᵀV, a distributed release is accounted as unlimited: the plateau
guarantee covers the disclosure of VᵀV, a finite-n_syn guarantee does not.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import io
import logging
import os
import signal
import socket
import threading
from collections.abc import Iterator, Sequence

import numpy as np

from synthamp._output._io import (
    OutputTransaction,
    check_directory_output,
    check_parent,
    lockable_destination,
    parse_mode,
)
from synthamp._output._paths import check_output_name
from synthamp._validation import InputError, printable
from synthamp.release._options import BACKENDS
from synthamp.release._partitioned import (
    PartitionTask,
    default_columns,
    generator_partitions,
    partition_frame,
    partition_name,
    write_partitions,
)

__all__ = [
    "BACKENDS",
    "CONNECT_TIMEOUT",
    "DISTRIBUTED_NOTE",
    "check_scheduler",
    "dask_frame",
    "require_dask",
    "write_dataset",
    "write_partitions_dask",
]

#: Why a distributed release is accounted as unlimited (goes into the report).
DISTRIBUTED_NOTE = (
    "The records were written by dask workers, which receive the k × k factor R of VᵀV "
    "(never V, the noise, the seeds or the data). R reveals VᵀV, whose disclosure only the "
    "unlimited (n_syn → ∞) guarantee covers, so this release is accounted as unlimited "
    "(docs/theory.md §17)."
)

#: Dask schedulers that run without a cluster.
LOCAL_SCHEDULERS = ("synchronous", "threads", "processes")

#: Seconds to wait for a scheduler to answer, before the table is read and when connecting.
CONNECT_TIMEOUT = 5.0

#: What a ``scheduler`` may be, for the messages.
_SCHEDULER_FORMS = "a scheduler address tcp://HOST:PORT, or synchronous, threads or processes"


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def check_scheduler(scheduler, *, timeout: float = CONNECT_TIMEOUT) -> None:
    """Refuse a scheduler address that is malformed or unreachable, before any work.

    ``None``, a local scheduler name (:data:`LOCAL_SCHEDULERS`) and objects (a
    ``distributed.Client``) pass. An address must parse as distributed parses it; a
    ``tcp://`` or ``tls://`` address must have a host and a port in 1…65535 and accept a
    TCP connection within ``timeout`` seconds (the connection is closed at once).

    Raises
    ------
    InputError
        ``scheduler``, with one line saying which rule failed.
    """
    if scheduler is None or not isinstance(scheduler, str | os.PathLike):
        return
    address = os.fspath(scheduler)
    if address in LOCAL_SCHEDULERS:
        return
    require_dask()
    from distributed.comm.addressing import parse_address, parse_host_port  # dask: the extra
    from distributed.comm.registry import backends  # dask: the optional extra

    shown = printable(address)
    try:
        protocol, location = parse_address(address)
        if protocol not in backends:
            raise ValueError(f"unknown protocol {protocol!r}")
        if protocol not in ("tcp", "tls"):
            return
        host, port = parse_host_port(location)
    except (TypeError, ValueError) as exc:
        raise InputError(
            "scheduler", f"{shown!r} is not {_SCHEDULER_FORMS} ({printable(_first_line(exc))})"
        ) from None
    if not host or not 1 <= int(port) <= 65535:
        raise InputError("scheduler", f"{shown!r} needs a host and a port in 1…65535")
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as exc:
        reason = exc.strerror or _first_line(exc)
        raise InputError(
            "scheduler", f"cannot reach {shown} within {timeout:g} s: {printable(reason)}"
        ) from None


def require_dask() -> None:
    """Raise ``InputError("backend", ...)`` naming the extra if dask is not installed."""
    try:
        import dask.dataframe  # noqa: F401  (dask: the optional extra)
        import distributed  # noqa: F401  (dask: the optional extra)
    except ImportError:
        raise InputError(
            "backend", "dask needs the optional extra: pip install 'synthamp[dask]'"
        ) from None


def dask_frame(tasks: Sequence[PartitionTask], columns: Sequence[str]):
    """The release as a lazy ``dask.dataframe.DataFrame``, one partition per task."""
    import dask.dataframe as dd  # dask: the optional extra
    import pandas as pd  # pandas is heavy: loaded only to build the frame

    require_dask()
    meta = pd.DataFrame({name: np.empty(0, dtype=np.float64) for name in columns})
    return dd.from_map(
        partition_frame,
        list(tasks),
        args=(list(columns),),
        meta=meta,
        label="synthamp-release",
        enforce_metadata=False,
    )


@contextlib.contextmanager
def _scheduler(scheduler) -> Iterator[dict]:
    """compute() keyword arguments for ``scheduler`` (connecting to an address if given)."""
    if scheduler is None:
        yield {}
    elif isinstance(scheduler, str) and scheduler in LOCAL_SCHEDULERS:
        yield {"scheduler": scheduler}
    elif isinstance(scheduler, str | os.PathLike):
        from distributed import Client  # dask: the optional extra

        try:
            client = Client(str(scheduler), timeout=f"{CONNECT_TIMEOUT:g}s")
        except Exception as exc:  # refused, timed out, or not a dask scheduler at all
            what = "" if isinstance(exc, OSError | TimeoutError) else " (is it a dask scheduler?)"
            reason = printable(_first_line(exc))
            raise InputError(
                "scheduler", f"cannot connect to {printable(scheduler)}{what}: {reason}"
            ) from None
        with client:
            yield {"scheduler": client}
    else:
        yield {"scheduler": scheduler}


#: Whether the quiet close replaced distributed's at exit (done once per process).
_QUIET_CLOSE = "quiet close_clusters"
atexit_registered: set[str] = set()

#: Loggers that report the teardown of an interrupted cluster (tracebacks of cancelled tasks).
TEARDOWN_LOGGERS = ("asyncio", "distributed", "tornado", "bokeh")


@contextlib.contextmanager
def quiet_interrupt() -> Iterator[None]:
    """On Ctrl-C or SIGTERM inside the block, silence dask's teardown for the rest of the run.

    An interrupted ``compute`` leaves cancelled tasks whose exceptions asyncio
    and distributed log later (at garbage collection and at exit) as tracebacks
    of 20-odd lines after the one line the command line prints. The process is
    ending, so their loggers are muted and the tasks collected at once, quietly.
    The loggers are muted in the signal handler itself, before the exception
    unwinds through the client's and the cluster's teardown (which log too); the
    handlers the command line installed (SIGTERM, SIGHUP) then run as before.
    """
    restore = _mute_on_signals()
    try:
        yield
    except Exception:
        raise
    except BaseException:
        _mute_teardown()
        raise
    finally:
        restore()


def _mute_teardown() -> None:
    for name in TEARDOWN_LOGGERS:
        logger = logging.getLogger(name)
        logger.setLevel(logging.CRITICAL + 1)
        logger.propagate = False
    gc.collect()
    _quiet_atexit_close()


def _mute_on_signals():
    """Wrap the Python-level handlers of SIGINT, SIGTERM and SIGHUP so that they mute the
    teardown loggers first; returns the function that puts the old handlers back."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = {}
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        handler = None if number is None else signal.getsignal(number)
        if not callable(handler):
            continue  # SIG_DFL / SIG_IGN: the process ends (or goes on) without Python code

        def muted(signum, frame, handler=handler):
            _mute_teardown()
            handler(signum, frame)

        previous[number] = handler
        signal.signal(number, muted)

    def restore() -> None:
        for number, handler in previous.items():
            signal.signal(number, handler)

    return restore


def _quiet_atexit_close() -> None:
    """Close the clusters at exit as distributed does, but without its traceback.

    distributed registers ``close_clusters`` with atexit; after an interrupt
    during start-up or compute it can fail (a worker still starting) and print
    a traceback after the command's last line.
    """
    try:
        from distributed.deploy import spec  # dask: the optional extra
    except ImportError:
        return
    close = getattr(spec, "close_clusters", None)
    if close is None or _QUIET_CLOSE in atexit_registered:
        return
    atexit_registered.add(_QUIET_CLOSE)

    def quiet_close() -> None:
        with contextlib.suppress(BaseException), contextlib.redirect_stderr(io.StringIO()):
            close()

    atexit.unregister(close)
    atexit.register(quiet_close)


#: Loggers of dask's own components, silent while synthamp computes on a cluster.
DASK_LOGGERS = ("distributed", "tornado", "bokeh")


@contextlib.contextmanager
def quiet_dask_logs() -> Iterator[None]:
    """Silence dask's loggers in this process for the block, then restore their levels.

    A failed task (a full disk, say) makes each worker log "Compute Failed" with the
    task, its state and a traceback: 7 lines per partition on the user's terminal.
    The failure itself comes back as the exception, which the caller reports as one
    line naming the output; the library prints nothing.
    """
    loggers = [logging.getLogger(name) for name in DASK_LOGGERS]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


@contextlib.contextmanager
def local_cluster(n_workers: int | None = None, *, processes: bool = True) -> Iterator[object]:
    """A ``distributed.LocalCluster`` on this machine, and its client.

    Worker processes (threads in this process with ``processes=False``), one thread
    per worker, no dashboard, and silent logs: the workers' own (``silence_logs``) and
    dask's loggers in this process (:func:`quiet_dask_logs`). Yields the client.
    """
    require_dask()
    from distributed import Client, LocalCluster  # dask: the optional extra

    n_workers = n_workers or max(1, min(4, os.cpu_count() or 1))
    with (
        quiet_interrupt(),
        quiet_dask_logs(),
        LocalCluster(
            n_workers=n_workers,
            threads_per_worker=1,
            processes=processes,
            dashboard_address=None,
            # the scheduler's HTTP endpoints (health, metrics) on a free local port: its
            # default, 8787, warns when another cluster holds it
            scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
            silence_logs=logging.CRITICAL + 1,
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client


def write_partitions_dask(
    tasks: Sequence[PartitionTask], directory, columns: Sequence[str], *, scheduler=None
) -> int:
    """Write the partitions into ``directory`` with ``dask.dataframe.to_parquet``.

    Parameters
    ----------
    tasks : sequence of PartitionTask
        From :func:`synthamp.release._partitioned.plan_partitions`.
    directory : path-like
        An existing (empty) folder on a file system the workers share.
    columns : sequence of str
        Column names.
    scheduler : optional
        A scheduler address (``tcp://host:8786``), a ``distributed.Client``, a
        dask scheduler name ("synchronous", "threads", "processes"), or None
        (dask's default: the current client, if any).

    Returns
    -------
    int
        Records written (the sum of the tasks' rows).
    """
    frame = dask_frame(tasks, columns)
    with quiet_interrupt(), quiet_dask_logs(), _scheduler(scheduler) as compute_kwargs:
        frame.to_parquet(
            str(directory),
            write_index=False,
            name_function=partition_name,
            use_dictionary=False,  # continuous values never repeat (as tabular.write_rows)
            compute_kwargs=compute_kwargs,
        )
    return sum(task.rows for task in tasks)


def write_dataset(
    generator,
    path: str | os.PathLike,
    n_total: int,
    *,
    partitions: int,
    columns: Sequence[str] | None = None,
    backend: str = "local",
    scheduler=None,
    force: bool = False,
    mode: int | None = None,
) -> int:
    """Write ``n_total`` records of a fitted generator as a partitioned Parquet dataset.

    The folder ``path`` appears complete or not at all (it is written under a
    temporary name, ``.NAME.synthamp-tmp-PID-TOKEN``, then renamed).

    Parameters
    ----------
    generator : PrivateLinearGenerator
        Fitted, with ``sampler="gram"``. With ``backend="dask"`` it must have been
        fitted for an unlimited release (``n_syn=None``): the workers receive R,
        which reveals VᵀV, covered only by the unlimited guarantee (docs/theory.md §17).
    path : path-like
        Destination folder (replaced only with ``force``, and only if synthamp
        wrote it).
    n_total : int
        Number of records (counted against a finite ``n_syn``).
    partitions : int
        Number of files ``part.{i}.parquet``; each holds ⌊n/P⌋ or ⌈n/P⌉ records.
    columns : sequence of str, optional
        Column names (default y0 … y{k-1}).
    backend : {"local", "dask"}
        Write in this process (:func:`synthamp.release._partitioned.write_partitions`) or
        on dask (:func:`write_partitions_dask`).
    scheduler : optional
        For dask: a scheduler address, a ``distributed.Client``, or a dask
        scheduler name ("synchronous", "threads", "processes"). None: dask's
        default (the current client, if any).
    force : bool
        Replace an existing dataset (only one synthamp wrote: its manifest
        ``.synthamp-manifest.json`` lists every file).
    mode : int, optional
        Mode of the published files (default: what the umask gives a new file);
        they are readable by the owner only until published.

    Returns
    -------
    int
        Records written.
    """
    if backend not in BACKENDS:
        raise InputError("backend", f"must be one of {', '.join(BACKENDS)}")
    if backend == "dask":
        require_dask()
        if getattr(generator, "n_syn_", None) is not None:
            raise InputError(
                "backend",
                "a distributed release ships R (hence VᵀV) to the workers, which only the "
                "unlimited guarantee covers: fit the generator with n_syn=None",
            )
    check_output_name(path, param="path", folder=True)
    mode = parse_mode(mode)
    with OutputTransaction(replace=force, mode=mode) as transaction:
        if lockable_destination(path):  # a commit a killed run left: completed before the checks
            check_parent(path, "path")
            transaction.lock([(path, "path")])
        destination = check_directory_output(path, force=force, param="path")
        generator._check_fitted()
        columns = list(columns) if columns is not None else default_columns(generator.n_targets_)
        if len(columns) != generator.n_targets_:
            raise InputError("columns", f"needs {generator.n_targets_} names, got {len(columns)}")
        tasks = generator_partitions(generator, n_total, partitions)
        folder = transaction.add(destination, param="path", directory=True)
        with transaction.writing("path"):
            if backend == "dask":
                rows = write_partitions_dask(tasks, folder, columns, scheduler=scheduler)
            else:
                rows = write_partitions(tasks, folder, columns)
        transaction.commit()
    return rows
