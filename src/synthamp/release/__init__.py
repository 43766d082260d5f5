"""The release pipeline's pieces: the generator, ridge, the plan, tables and partitions.

A data holder reads a bounded table, fits a ridge generator v, perturbs it
(V = v + σN, σ calibrated by :mod:`synthamp.accountant`), and writes only the
synthetic records ZV, in one file or a partitioned dataset, atomically
(:mod:`synthamp._output`), with the privacy report of :mod:`synthamp.report` beside
them (docs/theory.md §13–§17). Releases on a public design are in :mod:`synthamp.design`;
the whole job of ``synthamp release`` (a table to written records, reports and an
optional audit) is :func:`synthamp.jobs.release_table`.

``import synthamp.release`` is light: the names below are loaded on first use
(the generator with scikit-learn, the tables with pandas and pyarrow).

.. currentmodule:: synthamp.release

The generator and the plan
--------------------------

.. autosummary::
   :toctree: generated/

   ReleaseMonitor         -- what a running release tells its caller (the library prints nothing)
   PrivateLinearGenerator -- scikit-learn estimator: fit, perturb, sample synthetic records
   plan_release           -- before the data: σ, noise saved and utility for each λ and width
   Plan                   -- its result
   PlanRow                -- one row of it
   account_release        -- the accounting a fit needs (σ, ε, the fallback)
   ReleaseAccounting      -- its result
   report_curves          -- the ε(δ) and Rényi curves the HTML report draws

Ridge regression with bounded data (docs/theory.md §13)
-------------------------------------------------------

.. autosummary::
   :toctree: generated/

   ridge_fit          -- the ridge estimate v
   ridge_sensitivity  -- Δ, the replace-one sensitivity
   ridge_norm_bound   -- C, the bound on ‖v‖
   clip_rows          -- rows clipped to a norm
   scale_clip_rows    -- a declared scale, then clipping
   row_norms          -- the rows' norms
   project_frobenius  -- projection onto ‖v‖_F ≤ C
   debiased_gram      -- vᵀv estimated from the synthetic records
   gram_estimate_errors -- its error, measured

The whole table as the release (docs/theory.md §19)
---------------------------------------------------

.. autosummary::
   :toctree: generated/

   RECORD_KINDS      -- the records a design release writes: the table's units, or raw ZV
   TargetMap         -- a table's target columns into the ball by their public ranges
   target_map        -- its map from the columns' declared ranges
   table_moments     -- the table's mean and covariance read off a Gram estimate

Tables and output
-----------------

.. autosummary::
   :toctree: generated/

   read_table        -- a private table (.csv or .parquet)
   write_table       -- a synthetic table, atomically
   write_partitions  -- a partitioned Parquet dataset, in this process
   write_partitions_dask -- the same on a dask cluster
   write_dataset     -- a partitioned dataset from a fitted generator, local or on dask
   OutputTransaction -- outputs that appear together at the end, or none
   ACCOUNTING_METHODS -- the accounting methods; ACCOUNTANTS, BACKENDS: the accountants, writers
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from synthamp._lazy import lazy_attributes

if TYPE_CHECKING:  # loaded on first use, see __getattr__
    from synthamp._output._io import (
        COMPLETED,
        PUBLISHED,
        OutputTransaction,
        atomic_write_text,
        atomic_write_with,
        check_directory_output,
        check_not_inside,
        check_writable,
        parse_mode,
    )
    from synthamp.release._accounting import ReleaseAccounting, account_release
    from synthamp.release._curves import report_curves
    from synthamp.release._distributed import (
        DISTRIBUTED_NOTE,
        local_cluster,
        require_dask,
        write_dataset,
        write_partitions_dask,
    )
    from synthamp.release._generator import (
        DEFAULT_DELTA,
        SAMPLERS,
        PrivateLinearGenerator,
    )
    from synthamp.release._monitor import ReleaseMonitor
    from synthamp.release._options import ACCOUNTANTS, ACCOUNTING_METHODS, BACKENDS, DEMO_DIR
    from synthamp.release._partitioned import generator_partitions, write_partitions
    from synthamp.release._planning import DEFAULT_RIDGES, PLAN_METHODS, Plan, PlanRow, plan_release
    from synthamp.release._ridge import (
        OBJECTIVE,
        clip_rows,
        debiased_gram,
        gram_estimate_errors,
        project_frobenius,
        ridge_fit,
        ridge_norm_bound,
        ridge_sensitivity,
        row_norms,
        scale_clip_rows,
    )
    from synthamp.release._table_records import (
        RECORD_KINDS,
        TargetMap,
        table_moments,
        target_map,
    )
    from synthamp.release._tabular import (
        TABLE_FORMATS,
        check_csv_names,
        check_input_file,
        check_table_output,
        parse_columns,
        read_shape,
        read_table,
        select_numeric,
        table_format,
        write_rows,
        write_table,
    )

_SOURCES: dict[str, str] = {
    **dict.fromkeys(["ReleaseAccounting", "account_release"], "synthamp.release._accounting"),
    "report_curves": "synthamp.release._curves",
    **dict.fromkeys(
        [
            "DISTRIBUTED_NOTE",
            "local_cluster",
            "require_dask",
            "write_dataset",
            "write_partitions_dask",
        ],
        "synthamp.release._distributed",
    ),
    **dict.fromkeys(
        ["DEFAULT_DELTA", "SAMPLERS", "PrivateLinearGenerator"],
        "synthamp.release._generator",
    ),
    **dict.fromkeys(
        [
            "COMPLETED",
            "PUBLISHED",
            "OutputTransaction",
            "atomic_write_text",
            "atomic_write_with",
            "check_directory_output",
            "check_not_inside",
            "check_writable",
            "parse_mode",
        ],
        "synthamp._output._io",
    ),
    **dict.fromkeys(["generator_partitions", "write_partitions"], "synthamp.release._partitioned"),
    "ReleaseMonitor": "synthamp.release._monitor",
    **dict.fromkeys(
        ["ACCOUNTANTS", "ACCOUNTING_METHODS", "BACKENDS", "DEMO_DIR"], "synthamp.release._options"
    ),
    **dict.fromkeys(
        ["DEFAULT_RIDGES", "PLAN_METHODS", "Plan", "PlanRow", "plan_release"],
        "synthamp.release._planning",
    ),
    **dict.fromkeys(
        ["RECORD_KINDS", "TargetMap", "table_moments", "target_map"],
        "synthamp.release._table_records",
    ),
    **dict.fromkeys(
        [
            "OBJECTIVE",
            "clip_rows",
            "debiased_gram",
            "gram_estimate_errors",
            "project_frobenius",
            "ridge_fit",
            "ridge_norm_bound",
            "ridge_sensitivity",
            "row_norms",
            "scale_clip_rows",
        ],
        "synthamp.release._ridge",
    ),
    **dict.fromkeys(
        [
            "TABLE_FORMATS",
            "check_csv_names",
            "check_input_file",
            "check_table_output",
            "parse_columns",
            "read_shape",
            "read_table",
            "select_numeric",
            "table_format",
            "write_rows",
            "write_table",
        ],
        "synthamp.release._tabular",
    ),
}

__all__ = [
    "ACCOUNTANTS",
    "ACCOUNTING_METHODS",
    "BACKENDS",
    "COMPLETED",
    "DEFAULT_DELTA",
    "DEFAULT_RIDGES",
    "DEMO_DIR",
    "DISTRIBUTED_NOTE",
    "OBJECTIVE",
    "PLAN_METHODS",
    "PUBLISHED",
    "RECORD_KINDS",
    "SAMPLERS",
    "TABLE_FORMATS",
    "OutputTransaction",
    "Plan",
    "PlanRow",
    "PrivateLinearGenerator",
    "ReleaseAccounting",
    "ReleaseMonitor",
    "TargetMap",
    "account_release",
    "atomic_write_text",
    "atomic_write_with",
    "check_csv_names",
    "check_directory_output",
    "check_input_file",
    "check_not_inside",
    "check_table_output",
    "check_writable",
    "clip_rows",
    "debiased_gram",
    "generator_partitions",
    "gram_estimate_errors",
    "local_cluster",
    "parse_columns",
    "parse_mode",
    "plan_release",
    "project_frobenius",
    "read_shape",
    "read_table",
    "report_curves",
    "require_dask",
    "ridge_fit",
    "ridge_norm_bound",
    "ridge_sensitivity",
    "row_norms",
    "scale_clip_rows",
    "select_numeric",
    "table_format",
    "table_moments",
    "target_map",
    "write_dataset",
    "write_partitions",
    "write_partitions_dask",
    "write_rows",
    "write_table",
]

__getattr__, __dir__ = lazy_attributes(__name__, _SOURCES, public=__all__)
