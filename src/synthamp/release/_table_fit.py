"""The generator fitted on a private table in one pass over its rows (docs/theory.md §13).

:func:`fit_table` is the fit step of :func:`~synthamp.release.release_table` without a
public design: the table is read in chunks (:mod:`synthamp.release._table_chunks`; or
reduced on a dask cluster, :mod:`synthamp.release._dask_stats`), each chunk clipped and
counted and its XᵀX, XᵀY added (:mod:`synthamp.release._streaming`); the clipping check
(:func:`~synthamp.release._column_bounds.clipping_verdict`) then refuses or notes, and
:meth:`~synthamp.release.PrivateLinearGenerator.fit_statistics` solves, accounts and
perturbs. Memory: one chunk and O(d²), whatever the number of rows.
"""

from __future__ import annotations

from synthamp._validation import InputError
from synthamp.release import _table_chunks  # its readers looked up at call time (tests)
from synthamp.release._column_bounds import clipping_verdict, column_bounds
from synthamp.release._dask_stats import dask_statistics, dataset_header
from synthamp.release._distributed import local_cluster
from synthamp.release._monitor import ReleaseMonitor
from synthamp.release._streaming import RidgeScaling, RidgeStatistics, accumulate_statistics
from synthamp.release._table_chunks import table_columns

__all__ = ["fit_table", "table_statistics"]


def table_statistics(
    data, o: dict, monitor: ReleaseMonitor, client=None
) -> tuple[RidgeStatistics, list[str]]:
    """The table's sufficient statistics in one pass, and the used feature columns.

    ``o`` holds the checked options of :func:`~synthamp.release.release_table`
    (``targets``, ``features``, ``label_bound``, ``feature_scale``, ``bounds``,
    ``backend``, ``scheduler``); ``client`` a dask client to reduce on (``backend`` dask,
    no ``scheduler``).
    """
    dask = o["backend"] == "dask"
    if dask and not hasattr(data, "columns"):
        header = _HeaderOnly(dataset_header(data))
        targets, features = table_columns(header, o["targets"], o["features"])
    else:
        targets, features = table_columns(data, o["targets"], o["features"])
    box = None if o["bounds"] is None else column_bounds(o["bounds"], features)
    scaling = RidgeScaling(o["label_bound"], 1.0 if box is not None else o["feature_scale"], box)
    if dask and not hasattr(data, "columns"):
        scheduler = o["scheduler"]
        where = "a local dask cluster" if scheduler is None else str(scheduler)
        with monitor.stage(f"reducing XᵀX and XᵀY on {where}"):
            if scheduler is not None or client is not None:
                statistics = dask_statistics(
                    data, targets, features, scaling, scheduler=scheduler or client
                )
            else:
                with local_cluster() as local:
                    statistics = dask_statistics(data, targets, features, scaling, scheduler=local)
    else:
        with monitor.stage("reading the table (XᵀX and XᵀY in one pass)"):
            chunks = _table_chunks.iter_table_chunks(data, targets, features)
            statistics = accumulate_statistics(
                chunks, scaling, dim=len(features), out_dim=len(targets)
            )
    if statistics.records < 2:
        raise InputError("data", f"needs at least 2 records, got {statistics.records}")
    return statistics, features


def fit_table(data, o: dict, monitor: ReleaseMonitor, client=None):
    """The fitted :class:`~synthamp.release.PrivateLinearGenerator` of a table (one pass).

    Sets ``o["feature_names"]``; tells the monitor the clipping notes (statistics of the
    private data, for the data holder only). Raises ``InputError`` (``max_clipped``) when
    the declared bounds clip too many rows, before any accounting.
    """
    # heavy: scikit-learn (the estimator), loaded after the checks so that an error is quick
    from synthamp.release._generator import PrivateLinearGenerator

    statistics, features = table_statistics(data, o, monitor, client)
    o["feature_names"] = features
    scaling = statistics.scaling
    notes = clipping_verdict(
        statistics.clipping, features, o["targets"], label_bound=o["label_bound"],
        feature_scale=scaling.feature_scale, bounds=scaling.bounds,
        max_clipped=o["max_clipped"],
    )  # fmt: skip
    for note in notes:
        monitor.message("note", note)
    with monitor.stage("fitting and accounting"):
        generator = PrivateLinearGenerator(
            label_bound=o["label_bound"],
            ridge=o["ridge"],
            norm_bound=o["norm_bound"],
            sigma=o["sigma"],
            epsilon=o["epsilon"],
            delta=o["delta"],
            n_syn=None if o["unlimited"] else o["n_syn"],
            feature_scale=o["feature_scale"],
            feature_bounds=scaling.bounds,
            accounting=o["accounting"],
            accountant=o["accountant"],
            time_budget=o["time_budget"],
            random_state=o["seed"],
        ).fit_statistics(statistics)
    del statistics
    return generator


class _HeaderOnly:
    """A header standing for a table (``columns`` only), for :func:`table_columns`."""

    def __init__(self, names: list[str]) -> None:
        self.columns = names
