"""synthamp: differentially private synthetic data from linear generators.

A data holder fits a linear generator v (ridge regression on bounded data),
perturbs it, V = v + σN, and releases only synthetic records ZV with hidden
Gaussian seeds Z. synthamp computes the privacy of that release exactly (k = 1)
or with certified bounds (k > 1), following Pierquin, Bellet, Tommasi and
Boussard, *Privacy Amplification Persists under Unlimited Synthetic Data
Release* (2026, arXiv:2602.04895).

The core import is light (numpy, scipy.special); the generator, figures and
the command line load pandas, matplotlib and scikit-learn only when used.

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
   DivergenceResult     -- a divergence with its error estimate
   fisher_information   -- Fisher information of the amplitude
   ncx2_logpdf          -- log density of the noncentral χ², stable for large arguments
   log_likelihood_ratio -- log-likelihood ratio of an unlimited release
   log_likelihood_ratio_finite -- log-likelihood ratio of a finite release

The generator (:mod:`synthamp.generator`, loaded on first use)
--------------------------------------------------------------

.. autosummary::
   :toctree: generated/

   PrivateLinearGenerator -- scikit-learn estimator: fit, perturb, sample synthetic records

Planning and reporting (:mod:`synthamp.planning`, :mod:`synthamp.report_html`)
------------------------------------------------------------------------------

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

Closed-form bounds of the paper are in :mod:`synthamp.bounds`, the ridge
mathematics in :mod:`synthamp.ridge`, empirical audits in
:mod:`synthamp.audit`, the paper's figures in :mod:`synthamp.figures`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from synthamp._kinds import Kind, privacy_quantity
from synthamp._validation import InputError
from synthamp._version import __version__
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
)
from synthamp.planning import plan_release
from synthamp.report_html import render_html

if TYPE_CHECKING:  # loaded lazily at run time (scikit-learn), see __getattr__
    from synthamp.generator import PrivateLinearGenerator

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
    "render_html",
    "renyi_finite",
    "renyi_plateau",
    "worst_case_rdp",
]


def __getattr__(name: str) -> Any:
    if name == "PrivateLinearGenerator":
        # heavy: scikit-learn (the generator's base class), imported on first use only
        from synthamp.generator import PrivateLinearGenerator

        return PrivateLinearGenerator
    raise AttributeError(f"module 'synthamp' has no attribute {name!r}")


def __dir__() -> list[str]:
    # the lazy PrivateLinearGenerator is listed although it is not loaded yet
    return sorted(set(globals()) | set(__all__))
