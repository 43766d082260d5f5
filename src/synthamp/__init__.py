"""synthamp: differentially private synthetic data from linear generators.

A data holder fits a linear generator v (ridge regression on bounded data),
perturbs it, V = v + σN, and releases only synthetic records ZV with hidden
Gaussian seeds Z. synthamp computes the privacy of that release exactly (k = 1)
or with certified bounds (k > 1), following Pierquin, Bellet, Tommasi and
Boussard, *Privacy Amplification Persists under Unlimited Synthetic Data
Release* (2026, arXiv:2602.04895).

``import synthamp`` is light (numpy only): the names below are loaded on first
use, the engine and the accountant with scipy.special, the generator with
scikit-learn, the figures with matplotlib and pandas.

Every function that returns a privacy quantity says what kind of number it is
(``fn.kind``): *exact* (numerical, with an error bound), *certified* (a proven
bound) or *heuristic* (never a guarantee).

.. currentmodule:: synthamp

Accounting a release (:mod:`synthamp.accountant`)
-------------------------------------------------

.. autosummary::
   :toctree: generated/

   SyntheticDataRelease -- a synthetic data release ZV (immutable description)
   GaussianRelease      -- a Gaussian mechanism on the same data
   compute_epsilon      -- (ε, δ) guarantee of a release, with the post-processing baseline
   EpsilonResult        -- its result
   calibrate_sigma      -- the smallest noise σ meeting a target (ε, δ)
   Calibration          -- its result
   rdp_curve            -- RDP curve ε(α) of a release
   RdpCurve             -- an RDP curve and its kind; curves compose by ``+``
   rdp_to_epsilon       -- RDP curve -> (ε, δ)
   worst_case_rdp       -- exact k = 1 worst case over adjacent pairs
   WorstCase            -- its maximiser and error
   DEFAULT_ORDERS       -- the default Rényi orders

The exact engine, k = 1 (:mod:`synthamp.divergence`)
----------------------------------------------------

.. autosummary::
   :toctree: generated/

   renyi_plateau        -- D_α(VᵀV‖WᵀW), unlimited release (the plateau)
   renyi_finite         -- D_α(ZV‖ZW) for n_syn synthetic records
   renyi_plateau_gram   -- the plateau of a k = 2 pair from its Gram matrices
   DivergenceResult     -- a divergence with its error estimate
   fisher_information   -- Fisher information of the amplitude
   ncx2_logpdf          -- log density of the noncentral χ², stable for large arguments
   log_likelihood_ratio -- log-likelihood ratio of an unlimited release
   log_likelihood_ratio_finite -- log-likelihood ratio of a finite release

The release (:mod:`synthamp.release`, :mod:`synthamp.jobs`)
---------------------------------------------------------

.. autosummary::
   :toctree: generated/

   PrivateLinearGenerator -- scikit-learn estimator: fit, perturb, sample synthetic records
   release_table          -- a private table to written synthetic records and their report

Planning and reporting (:mod:`synthamp.release`, :mod:`synthamp.report`)
-------------------------------------------------------------------------

.. autosummary::
   :toctree: generated/

   plan_release         -- before the data: σ, noise saved and utility for each λ and width
   render_html          -- the privacy report as one self-contained HTML page

Conventions
-----------

.. autosummary::
   :toctree: generated/

   InputError           -- bad input: ``InputError(param, rule)``, a ValueError
   Kind                 -- exact, certified or heuristic
   privacy_quantity     -- decorator labelling a function with its kind

Closed-form bounds of the paper are in :mod:`synthamp.bounds`, the release
pipeline and the ridge mathematics in :mod:`synthamp.release`, releases on a public
design in :mod:`synthamp.design`, one function per command in :mod:`synthamp.jobs`,
the reports in
:mod:`synthamp.report`, empirical audits in
:mod:`synthamp.audit`, the paper's figures in :mod:`synthamp.figures`.
"""

from __future__ import annotations

import pkgutil
from typing import TYPE_CHECKING

from synthamp._kinds import Kind, privacy_quantity
from synthamp._lazy import lazy_attributes
from synthamp._validation import InputError
from synthamp._version import __version__

if TYPE_CHECKING:  # the names below are loaded on first use, see __getattr__
    from synthamp.accountant import (
        DEFAULT_ORDERS,
        Calibration,
        EpsilonResult,
        GaussianRelease,
        RdpCurve,
        SyntheticDataRelease,
        WorstCase,
        calibrate_sigma,
        compute_epsilon,
        rdp_curve,
        rdp_to_epsilon,
        worst_case_rdp,
    )
    from synthamp.divergence import (
        DivergenceResult,
        fisher_information,
        log_likelihood_ratio,
        log_likelihood_ratio_finite,
        ncx2_logpdf,
        renyi_finite,
        renyi_plateau,
        renyi_plateau_gram,
    )
    from synthamp.jobs import release_table
    from synthamp.release import PrivateLinearGenerator, plan_release
    from synthamp.report import render_html

__all__ = [
    "DEFAULT_ORDERS",
    "Calibration",
    "DivergenceResult",
    "EpsilonResult",
    "GaussianRelease",
    "InputError",
    "Kind",
    "PrivateLinearGenerator",
    "RdpCurve",
    "SyntheticDataRelease",
    "WorstCase",
    "__version__",
    "calibrate_sigma",
    "compute_epsilon",
    "fisher_information",
    "log_likelihood_ratio",
    "log_likelihood_ratio_finite",
    "ncx2_logpdf",
    "plan_release",
    "privacy_quantity",
    "rdp_curve",
    "rdp_to_epsilon",
    "release_table",
    "render_html",
    "renyi_finite",
    "renyi_plateau",
    "renyi_plateau_gram",
    "worst_case_rdp",
]

# Loaded on first use (PEP 562), so that `import synthamp` and `synthamp --help`
# cost little more than numpy: the engine and the accountant need scipy.special
# (~0.3 s at import), the generator scikit-learn (~0.5 s).
_LAZY: dict[str, str] = {
    **dict.fromkeys(
        [
            "DEFAULT_ORDERS",
            "Calibration",
            "EpsilonResult",
            "GaussianRelease",
            "RdpCurve",
            "SyntheticDataRelease",
            "WorstCase",
            "calibrate_sigma",
            "compute_epsilon",
            "rdp_curve",
            "rdp_to_epsilon",
            "worst_case_rdp",
        ],
        "synthamp.accountant",
    ),
    **dict.fromkeys(
        [
            "DivergenceResult",
            "fisher_information",
            "log_likelihood_ratio",
            "log_likelihood_ratio_finite",
            "ncx2_logpdf",
            "renyi_finite",
            "renyi_plateau",
            "renyi_plateau_gram",
        ],
        "synthamp.divergence",
    ),
    "PrivateLinearGenerator": "synthamp.release",
    "plan_release": "synthamp.release",
    "release_table": "synthamp.jobs",
    "render_html": "synthamp.report",
}


def _public_submodules() -> set[str]:
    return {m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_")}


__getattr__, __dir__ = lazy_attributes(
    __name__, _LAZY, public=__all__, submodules=_public_submodules
)
