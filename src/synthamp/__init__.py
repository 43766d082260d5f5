"""synthamp: differentially private synthetic data from linear generators.

A data holder fits a linear generator v (ridge regression on bounded data),
perturbs it, V = v + σN, and releases only synthetic records ZV with hidden
Gaussian seeds Z. synthamp computes the privacy of that release exactly (k = 1)
or with certified bounds (k > 1), following Pierquin, Bellet, Tommasi and
Boussard, *Privacy Amplification Persists under Unlimited Synthetic Data
Release* (2026, arXiv:2602.04895).

The core import is light (numpy, scipy); the generator, figures and the
command line load pandas, matplotlib and scikit-learn only when used.
"""

from __future__ import annotations

from synthamp._kinds import Kind, privacy_quantity
from synthamp._validation import InputError
from synthamp.divergence import (
    DivergenceResult,
    fisher_information,
    log_likelihood_ratio,
    log_likelihood_ratio_finite,
    ncx2_logpdf,
    renyi_finite,
    renyi_plateau,
)

__version__ = "0.1.0"

__all__ = [
    "DivergenceResult",
    "InputError",
    "Kind",
    "__version__",
    "fisher_information",
    "log_likelihood_ratio",
    "log_likelihood_ratio_finite",
    "ncx2_logpdf",
    "privacy_quantity",
    "renyi_finite",
    "renyi_plateau",
]
