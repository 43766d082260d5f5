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
from synthamp.accountant import (
    DEFAULT_ORDERS,
    GaussianRelease,
    RdpCurve,
    SyntheticDataRelease,
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

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_ORDERS",
    "DivergenceResult",
    "GaussianRelease",
    "InputError",
    "Kind",
    "PrivateLinearGenerator",
    "RdpCurve",
    "SyntheticDataRelease",
    "__version__",
    "calibrate_sigma",
    "compute_epsilon",
    "fisher_information",
    "log_likelihood_ratio",
    "log_likelihood_ratio_finite",
    "ncx2_logpdf",
    "privacy_quantity",
    "rdp_curve",
    "rdp_to_epsilon",
    "renyi_finite",
    "renyi_plateau",
    "worst_case_rdp",
]


def __getattr__(name: str):
    # the generator needs scikit-learn: imported on first use, not at `import synthamp`
    if name == "PrivateLinearGenerator":
        from synthamp.generator import PrivateLinearGenerator

        return PrivateLinearGenerator
    raise AttributeError(f"module 'synthamp' has no attribute {name!r}")
