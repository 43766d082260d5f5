"""Empirical privacy auditing: a lower bound on ε by attacking the release.

The accountant (:mod:`synthamp.accountant`) gives an *upper* bound on the ε of a
release. An audit runs the strongest attack many times and turns its error
rates into a *lower* bound on ε that holds with a stated confidence. If the
lower bound exceeds the upper bound, the accountant (or the mechanism) has a
bug; the ratio of the two measures how tight the accounting is.

One concept per module; the mathematics (proofs and citations) is in each
module's docstring:

* :mod:`._rates`: rates → ε. The (ε, δ) test inequality, one-sided
  Clopper–Pearson bounds, the threshold-selection corrections
  (``"bonferroni"``, ``"split"``): :func:`clopper_pearson_upper`,
  :func:`epsilon_from_rates`, :func:`epsilon_lower_bound`,
  :class:`EmpiricalEpsilon`.
* :mod:`._family`: the family estimator (default of :func:`audit_release`):
  one-sided DKW bands on both empirical distributions of the statistic, fitted
  to its exact family of laws, give a lower confidence bound on ε from the
  whole empirical trade-off curve: :func:`family_epsilon_lower_bound`,
  :class:`FamilyEpsilon`.
* :mod:`._gaussian`: the exact privacy profile of the Gaussian mechanism
  (Balle and Wang 2018): :func:`gaussian_delta`, :func:`gaussian_epsilon`.
* :mod:`._release`: the release audit. The distinguishing game on the
  worst-case pair, the statistic and its laws
  (:mod:`synthamp.divergence._laws`), the exact ε of the pair:
  :func:`audit_release`, :func:`pair_epsilon`, :func:`sample_statistic`,
  :class:`AuditResult`, :class:`PairEpsilon`.
* :mod:`._worst_pair`: the end-to-end audit of the implementation on the realised
  worst pair of an orthogonal design (every run made by the release code; the
  trade-off curve with Clopper–Pearson intervals and its GDP fit,
  :mod:`._tradeoff_band`; the k = 2 pair's likelihood-ratio statistic and family
  bound, :mod:`._product_family`): :func:`audit_worst_pair`, :class:`WorstPairAudit`.
* :mod:`._end_to_end`: the audit of the real pipeline
  (:class:`~synthamp.release._generator.PrivateLinearGenerator`):
  :func:`audit_generator`, :func:`adjacent_datasets`, :class:`EndToEndAudit`.

Randomness: seeded runs are reproducible; without a seed the trials draw from
operating-system entropy. Simulated releases are not private data: the audit
prints thresholds and rates of its own simulations only.
"""

from __future__ import annotations

from synthamp.accountant._gaussian import gaussian_delta, gaussian_epsilon
from synthamp.audit._end_to_end import EndToEndAudit, adjacent_datasets, audit_generator
from synthamp.audit._family import FamilyEpsilon, family_epsilon_lower_bound
from synthamp.audit._rates import (
    BONFERRONI_THRESHOLDS,
    CORRECTIONS,
    DEFAULT_CONFIDENCE,
    MAX_TRIALS,
    Correction,
    EmpiricalEpsilon,
    clopper_pearson_upper,
    epsilon_from_rates,
    epsilon_lower_bound,
)
from synthamp.audit._release import (
    ESTIMATORS,
    AuditResult,
    PairEpsilon,
    audit_release,
    pair_epsilon,
    sample_statistic,
)
from synthamp.audit._worst_pair import DESIGNS, WorstPairAudit, audit_worst_pair

__all__ = [
    "BONFERRONI_THRESHOLDS",
    "CORRECTIONS",
    "DEFAULT_CONFIDENCE",
    "DESIGNS",
    "ESTIMATORS",
    "MAX_TRIALS",
    "AuditResult",
    "Correction",
    "EmpiricalEpsilon",
    "EndToEndAudit",
    "FamilyEpsilon",
    "PairEpsilon",
    "WorstPairAudit",
    "adjacent_datasets",
    "audit_generator",
    "audit_release",
    "audit_worst_pair",
    "clopper_pearson_upper",
    "epsilon_from_rates",
    "epsilon_lower_bound",
    "family_epsilon_lower_bound",
    "gaussian_delta",
    "gaussian_epsilon",
    "pair_epsilon",
    "sample_statistic",
]
