"""What the released records are worth against the best mechanisms at the same (ε, δ).

The synthetic records ZV carry the data only through VᵀV (docs/theory.md §3, §18): what a
user can estimate from them is the Gram matrix vᵀv, debiased
(:func:`synthamp.release.debiased_gram`), with an error that this package gives exactly at
the number of records written (:func:`records_gram_rmse`, :func:`gram_error_bound`). Beside
it, each calibrated exactly at the same (ε, δ): the Gaussian mechanism on vᵀv ("Analyze
Gauss"), the best anchor for the statistic (the Laplace mechanism on the scalar ‖v‖² for
k = 1, the trace-shaped Gaussian for k ≥ 2), the Gaussian synthesizer, output perturbation
of v and AdaSSP. :func:`release_utility` lays them out in a table and says in a verdict which
serves best.

Rooms: ``_errors`` (each mechanism's error), ``_adassp`` (the regression baseline),
``_table`` (the table, the verdict and the release's utility), ``_table_errors`` (the written
table's covariance, correlations and means beside the anchors' synthesizers, Monte Carlo).
"""

from synthamp.utility._adassp import AdaSSPResult, adassp, adassp_noise
from synthamp.utility._errors import (
    design_statistic_sensitivity,
    gaussian_gram_error,
    gaussian_gram_sigma,
    gaussian_synthesizer_error,
    gram_error_bound,
    gram_sensitivity,
    laplace_statistic_error,
    output_perturbation_error,
    output_perturbation_sigma,
    records_error_floor,
    records_gram_rmse,
    targets_gram_sensitivity,
    trace_shaped_gram_error,
    trace_shaped_sensitivity,
)
from synthamp.utility._table import NO_INFORMATION, release_utility, utility_table, utility_verdict
from synthamp.utility._table_errors import (
    TABLE_ERRORS_NOTE,
    TableError,
    anchor_gram_noise,
    table_anchor_errors,
    table_error_rows,
)

__all__ = [
    "NO_INFORMATION",
    "TABLE_ERRORS_NOTE",
    "AdaSSPResult",
    "TableError",
    "adassp",
    "adassp_noise",
    "anchor_gram_noise",
    "design_statistic_sensitivity",
    "gaussian_gram_error",
    "gaussian_gram_sigma",
    "gaussian_synthesizer_error",
    "gram_error_bound",
    "gram_sensitivity",
    "laplace_statistic_error",
    "output_perturbation_error",
    "output_perturbation_sigma",
    "records_error_floor",
    "records_gram_rmse",
    "release_utility",
    "table_anchor_errors",
    "table_error_rows",
    "targets_gram_sensitivity",
    "trace_shaped_gram_error",
    "trace_shaped_sensitivity",
    "utility_table",
    "utility_verdict",
]
