"""The jobs of the command line: one library function per command, each with a typed result.

Each ``synthamp`` command parses its options, calls one function of this package and
serialises what it returns (a frozen dataclass with ``to_dict()`` for the JSON and, for
the summaries, ``lines()`` for the text). A job checks its input, runs the library below
(the accountant, the release, a public design, the audit, the figures) and writes its
files through :mod:`synthamp._output`. The package stands between the applications and
the command line; the command line imports the library through it only.

``import synthamp.jobs`` is light: the names below are loaded on first use, so that
``synthamp --help`` pays for none of the library.

.. currentmodule:: synthamp.jobs

.. autosummary::
   :toctree: generated/

   release_table      -- ``synthamp release``: a private table to written records and reports
   TableRelease       -- its result: the paths, the records, the guarantee and report, the audit
   run_demo           -- ``synthamp demo``: the demo release of scikit-learn's diabetes data
   DemoRelease        -- its result
   demo_dataset       -- the demo's publicly scaled data
   plan_table         -- ``synthamp plan``: the plan of a table from its shape
   TablePlan          -- its result
   account_summary    -- ``synthamp account``: the guarantee room's ε per δ, with notes
   AccountSummary     -- its result
   calibrate_summary  -- ``synthamp calibrate``: the guarantee room's σ, with notes
   CalibrationSummary -- its result
   audit_summary      -- ``synthamp audit``: the audit beside the guarantee, trade-off files
   run_audit          -- ``synthamp audit`` whole: the above, or with a design the implementation's
   AuditSummary       -- its result
   write_figures      -- ``synthamp figures``: every figure as PNG and CSV, and ``index.md``
   WrittenFigures     -- its result

The commands ``bounds``, ``divergence`` and ``fisher`` call library functions that are
jobs already (:func:`~synthamp.bounds.closed_form_bounds`,
:func:`~synthamp.bounds.fisher_with_bounds`, :func:`~synthamp.divergence.pair_divergence`);
they are re-exported here with the constants the options list (accountants, methods,
designs, …), so that the command line needs no other package of the library.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from synthamp._lazy import lazy_attributes

if TYPE_CHECKING:  # loaded on first use, see __getattr__
    from synthamp._output._io import COMPLETED, PUBLISHED
    from synthamp.accountant._choice import ACCOUNTANTS
    from synthamp.audit._rates import CORRECTIONS
    from synthamp.audit._release import ESTIMATORS
    from synthamp.bounds import closed_form_bounds, fisher_with_bounds
    from synthamp.design._designs import ADJACENCIES, DESIGNS
    from synthamp.divergence import pair_divergence
    from synthamp.jobs._account_summary import (
        AccountSummary,
        CalibrationSummary,
        account_summary,
        calibrate_summary,
    )
    from synthamp.jobs._audit_summary import MECHANISMS, AuditSummary, audit_summary
    from synthamp.jobs._demo import DemoRelease, demo_dataset, run_demo
    from synthamp.jobs._design_audit import AUDIT_DESIGNS, run_audit
    from synthamp.jobs._figures import WrittenFigures, check_figure_names, write_figures
    from synthamp.jobs._plan_table import TablePlan, plan_table
    from synthamp.jobs._release_table import TableRelease, release_table
    from synthamp.release._monitor import ReleaseMonitor as ReleaseMonitor
    from synthamp.release._options import ACCOUNTING_METHODS, BACKENDS, DEMO_DIR
    from synthamp.release._planning import PLAN_METHODS
    from synthamp.release._table_records import RECORD_KINDS
    from synthamp.report._privacy import SCHEMA_VERSION, SEEDED_WARNING

_SOURCES: dict[str, str] = {
    **dict.fromkeys(["COMPLETED", "PUBLISHED"], "synthamp._output._io"),
    "ACCOUNTANTS": "synthamp.accountant._choice",
    "CORRECTIONS": "synthamp.audit._rates",
    "ESTIMATORS": "synthamp.audit._release",
    **dict.fromkeys(["closed_form_bounds", "fisher_with_bounds"], "synthamp.bounds"),
    **dict.fromkeys(["ADJACENCIES", "DESIGNS"], "synthamp.design._designs"),
    "pair_divergence": "synthamp.divergence",
    **dict.fromkeys(
        ["AccountSummary", "CalibrationSummary", "account_summary", "calibrate_summary"],
        "synthamp.jobs._account_summary",
    ),
    **dict.fromkeys(
        ["MECHANISMS", "AuditSummary", "audit_summary"], "synthamp.jobs._audit_summary"
    ),
    **dict.fromkeys(["AUDIT_DESIGNS", "run_audit"], "synthamp.jobs._design_audit"),
    **dict.fromkeys(["DemoRelease", "demo_dataset", "run_demo"], "synthamp.jobs._demo"),
    **dict.fromkeys(
        ["WrittenFigures", "check_figure_names", "write_figures"], "synthamp.jobs._figures"
    ),
    **dict.fromkeys(["TablePlan", "plan_table"], "synthamp.jobs._plan_table"),
    **dict.fromkeys(["TableRelease", "release_table"], "synthamp.jobs._release_table"),
    "ReleaseMonitor": "synthamp.release._monitor",
    **dict.fromkeys(["ACCOUNTING_METHODS", "BACKENDS", "DEMO_DIR"], "synthamp.release._options"),
    "PLAN_METHODS": "synthamp.release._planning",
    "RECORD_KINDS": "synthamp.release._table_records",
    **dict.fromkeys(["SCHEMA_VERSION", "SEEDED_WARNING"], "synthamp.report._privacy"),
}

#: ``ReleaseMonitor`` is served too (the command line's terminal monitor subclasses it) but
#: documented in :mod:`synthamp.release` only.
__all__ = [
    "ACCOUNTANTS",
    "ACCOUNTING_METHODS",
    "ADJACENCIES",
    "AUDIT_DESIGNS",
    "BACKENDS",
    "COMPLETED",
    "CORRECTIONS",
    "DEMO_DIR",
    "DESIGNS",
    "ESTIMATORS",
    "MECHANISMS",
    "PLAN_METHODS",
    "PUBLISHED",
    "RECORD_KINDS",
    "SCHEMA_VERSION",
    "SEEDED_WARNING",
    "AccountSummary",
    "AuditSummary",
    "CalibrationSummary",
    "DemoRelease",
    "TablePlan",
    "TableRelease",
    "WrittenFigures",
    "account_summary",
    "audit_summary",
    "calibrate_summary",
    "check_figure_names",
    "closed_form_bounds",
    "demo_dataset",
    "fisher_with_bounds",
    "pair_divergence",
    "plan_table",
    "release_table",
    "run_audit",
    "run_demo",
    "write_figures",
]

__getattr__, __dir__ = lazy_attributes(__name__, _SOURCES, public=__all__)
