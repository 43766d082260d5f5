"""The written table's utility rows: its covariance, correlations and means beside the anchors.

For a ``--targets all`` release on an orthogonal design (records in the table's units),
:func:`table_utility_rows` measures the records written against the anchors' synthesizers at
the same (ε, δ) and the same n (:func:`synthamp.utility.table_anchor_errors`, a Monte Carlo
estimate with intervals), each post-processed by the release's own
:func:`~synthamp.release._table_records.table_moments`. The truth is the released moments
(μ̂, Σ̂): a post-processing of VᵀV, public under the guarantee, so the rows are too (a
parametric bootstrap; never the private table). The rows join the report's utility table,
worded by :data:`synthamp.utility.TABLE_ERRORS_NOTE`.
"""

from __future__ import annotations

import numpy as np

from synthamp.release._table_records import TableRecords, TargetMap, table_moments
from synthamp.utility import TABLE_ERRORS_NOTE, table_anchor_errors, table_error_rows

__all__ = ["TABLE_ERRORS_NOTE", "TABLE_UTILITY_REPS", "table_utility_rows"]

#: Monte Carlo runs per mechanism in a release's report (a fixed public seed).
TABLE_UTILITY_REPS = 200


def _to_u(tmap: TargetMap, mean, cov):
    """Moments in the table's units to the coordinates of the declared ranges ([−1, 1])."""
    half = (tmap.hi - tmap.lo) / 2.0
    return (np.asarray(mean) - tmap.lo) / half - 1.0, np.asarray(cov) / np.outer(half, half)


def table_utility_rows(
    released, tmap: TargetMap, written: TableRecords, n_syn: int, *, reps: int = TABLE_UTILITY_REPS
) -> tuple[dict[str, object], ...]:
    """The table's rows of the utility table of an orthogonal design release (module docstring).

    Parameters
    ----------
    released : DesignRelease
        The release (orthogonal design, k' = k + 1 mapped columns, the constant last).
    tmap : TargetMap
    written : TableRecords
        The records' moments (μ̂, Σ̂) in the table's units: the plug-in truth.
    n_syn : int
        Records written.
    reps : int
        Monte Carlo runs per mechanism.
    """
    # the release's own post-processing, read in the coordinates of the declared ranges
    unit = TargetMap(tmap.names, -np.ones(len(tmap.names)), np.ones(len(tmap.names)), 1.0)
    mean_u, cov_u = _to_u(tmap, written.mean, written.cov)
    common = {
        "mean_u": mean_u, "cov_u": cov_u, "n_records": released.design.n_records,
        "label_bound": tmap.label_bound, "epsilon": released.epsilon, "delta": released.delta,
        "sigma": released.sigma, "width": released.design.width,
        "gram_scale": released.ones_gram / released.design.n_records,  # g = 1ᵀG1/m
        "post_process": lambda gram, constant: table_moments(gram, unit, constant),
        "reps": reps, "seed": 0,
    }  # fmt: skip
    at_n = table_anchor_errors(n_syn=n_syn, **common)
    unlimited = table_anchor_errors(n_syn=None, **common)
    return table_error_rows(at_n, unlimited, len(tmap.names))
