"""Privacy accounting of a synthetic data release (docs/theory.md §12).

A data holder fits v ∈ R^{d×k} with ‖v‖_F <= C and sensitivity Δ, releases
only the synthetic data ZV (V = v + σN, hidden seeds Z) and wants an (ε, δ)
guarantee, or the noise σ that meets a target (ε, δ). This package is the
accountant, in the style of ``dp_accounting``.

Release descriptions (``_releases``)
------------------------------------

.. autosummary::
   :toctree: generated/

   SyntheticDataRelease -- the mechanism of docs/theory.md §1 (immutable, like a ``DpEvent``)
   GaussianRelease      -- a Gaussian mechanism on the same data, e.g. releasing V itself
   RdpCurve             -- an RDP curve ε(α) and its kind; ``curve + curve``, ``T * curve``
   rdp_to_epsilon       -- RDP curve -> (ε, δ)
   DEFAULT_ORDERS       -- 82 Rényi orders from 1.01 to 256
   METHODS              -- the accounting methods: exact, global, post-processing
   OrderGridWarning     -- the optimal order is at the edge of the grid

Curves and guarantees (``_curves``)
-----------------------------------

.. autosummary::
   :toctree: generated/

   rdp_curve            -- release -> RDP curve
   compute_epsilon      -- release -> its guarantee by the rule (default), or by rdp or pld
   EpsilonResult        -- the result of compute_epsilon

The k = 1 worst case (``_worst_case``)
--------------------------------------

.. autosummary::
   :toctree: generated/

   worst_case_rdp       -- sup of D_α(P_a‖P_b) over adjacent pairs (proved edge, guarded search)
   WorstCase            -- its maximiser, error and number of engine calls
   SCAN_POINTS          -- guard points per edge
   SEARCH_SCAN          -- intervals of the scan that starts an edge search
   FALLBACK_SCAN_POINTS -- pairs per edge of the privacy profile's fallback scan

Statistic-level adjacency (``_gram_adjacency``)
-----------------------------------------------

.. autosummary::
   :toctree: generated/

   gram_norm_bound      -- the norm model with the Gram adjacency's worst case (proved)
   in_gram_adjacency    -- whether pairs (‖v‖², ‖w‖²) lie in the reachable set

Several target columns on a public design (``_angle_reduction``, ``_angle_grid``, ...)
--------------------------------------------------------------------------------------

.. autosummary::
   :toctree: generated/

   canonical_norm        -- c* = B·maxᵢ(Gᵢᵢ + rᵢ)/√Gᵢᵢ and the realised pair's norm, from G
   canonical_pair        -- the canonical pair (c, φ): two 2 × 2 Gram matrices
   orthogonal_node_rdp   -- D_α of the π/2 node: the k = 1 pair plus its reverse (exact)
   orthogonal_node_pld   -- its PLD: the k = 1 remove ⊛ add (exact)
   certified_angle_rdp   -- the certified sup over φ by the angle grid (no monotonicity used)
   angle_nodes           -- the grid's nodes, dense near π/2
   AngleCertificate      -- the grid's result
   ANGLE_ORDERS          -- the certificate's Rényi orders
   PublicDesignRelease   -- k ≥ 2 targets on a public design (c*, Δ, σ, T)
   account_certified     -- its certified guarantee, with the realised pair's lower bound
   calibrate_certified   -- the smallest σ whose certified guarantee meets (ε, δ)
   CERTIFIED_REASON      -- why a k ≥ 2 design release has its guarantee (the rule's sentence)
   REALISED_LOWER        -- what the realised pair's lower bound beside it is
   CertifiedGuarantee    -- the result of both

Two target columns (``_gram_adjacency_k2``): the reachable set of 2 × 2 Gram pairs
----------------------------------------------------------------------------------

.. autosummary::
   :toctree: generated/

   in_gram_adjacency_k2  -- whether pairs (vᵀv, wᵀw) lie in the reachable set S₂
   bures_wasserstein_2x2 -- the Bures–Wasserstein distance of 2 × 2 PSD matrices
   search_gram_set_k2    -- best pair of S₂ found: a heuristic (no k = 2 worst case is proven)

The k = 2 searched lower bound (``_k2_search``)
-----------------------------------------------

.. autosummary::
   :toctree: generated/

   search_lower_bound   -- best adjacent k = 2 pair found: a lower bound, never a guarantee
   PairSearch           -- its value, pair and how the search ended

Calibration (``_calibration``)
------------------------------

.. autosummary::
   :toctree: generated/

   calibrate_sigma      -- the smallest σ meeting a target (ε, δ): by the rule (default), rdp or pld
   Calibration          -- its result, with the post-processing calibration
   CALIBRATION_WINDOW   -- half-width of the window of orders inside the bisection
   DEFAULT_TIME_BUDGET  -- seconds for finite-release accounting before the plateau stands in

The curve of a release (model v ∈ R^{d×k}, n_syn records, T releases):

* k = 1, ``method="exact"`` (the default): the worst case over all adjacent
  pairs, :func:`worst_case_rdp`, computed by the exact engine
  (:mod:`synthamp.divergence`) with its error estimate added;
* k > 1, ``method="exact"``: no exact engine exists, so the curve is the best
  certified bound, min(Theorem 5.4, post-processing), and the exact k = 1 worst
  case with the same d is reported as a lower bound (``rdp_lower``;
  docs/theory.md §8): the truth lies between the two; for k = 2 and an unlimited
  release, ``search=N`` adds ``rdp_search``, the exact value of the best
  adjacent pair of a search (a lower bound too, at least ``rdp_lower``);
* ``method="global"``: Theorem 5.2 (k = 1) / 5.4 (k > 1) alone;
* ``method="post-processing"``: αΔ²/(2σ²), the privacy of releasing V itself.

T releases of independently perturbed models on the same data compose: the
curve is multiplied by T. Heuristic bounds (the local expansion of Theorems
5.1/5.3) appear only as labelled extras and never feed ε or σ.

Tight (ε, δ) (``_profile``, ``_pld``, ``_export``; docs/theory.md §14)
----------------------------------------------------------------------

.. autosummary::
   :toctree: generated/

   privacy_profile      -- δ*(ε) of a release: exact worst case (k = 1), certified (k > 1)
   profile_epsilon      -- ε(δ) of one release from its profile (no discretisation)
   pair_privacy_profile -- δ(ε) of one ordered pair (v, w)
   privacy_loss_distribution -- pessimistic PLD (connect-the-dots), both directions, composed over T
   PairPld              -- a PLD's remove and add directions, composed apart
   compute_epsilon_pld  -- ε by the PLD accountant, composed with other mechanisms
   calibrate_sigma_pld  -- the smallest σ by the PLD accountant
   SubsampledGaussianRelease -- a Poisson-subsampled Gaussian mechanism (DP-SGD step)
   to_dp_accounting_pld -- export to dp_accounting's PrivacyLossDistribution
   to_prv               -- export to prv_accountant's PrivacyRandomVariable
   gaussian_delta       -- the Gaussian mechanism's exact profile δ(ε) (Balle and Wang 2018)
   gaussian_epsilon     -- its ε(δ)
   laplace_delta        -- the Laplace mechanism's exact profile δ(ε), one release
   laplace_calibration  -- its scale at (ε, δ) for T releases (composed exactly by PLD)
   LaplaceCalibration   -- the result: scale, μ, the ε interval

The guarantee of a release (``_guarantee``): :func:`account` (ε at a given σ) and
:func:`calibrate` (σ for a target ε) apply the one rule that decides which bound is the
guarantee (PLD or RDP; for k = 1 and finite n_syn the smaller of the finite release's
RDP bound and the unlimited release's exact profile) and return a :class:`Guarantee`
that says what it is and why. Every output of synthamp that states a guarantee renders
one: use these, not the single accountants below, to state a release's guarantee.
``synthamp account``/``calibrate`` call them through
:func:`synthamp.jobs.account_summary` and :func:`synthamp.jobs.calibrate_summary`.
:data:`ACCOUNTANTS` names the accountants (``pld``, ``rdp``).

``compute_epsilon`` and ``calibrate_sigma`` (``_accountants``) apply that rule by
default (``accountant=None``, as the command line does: they return its
:class:`Guarantee`); ``accountant="rdp"`` or ``"pld"`` runs that accountant alone.

The public functions validate their inputs, then call private kernels that
trust them; code inside the package calls the kernels (no re-validation).
The proof that the k = 1 worst case lies on an edge is in the docstring of
``synthamp.accountant._worst_case`` (for every number of releases composed, in
that of ``synthamp.accountant._pld_grid``); the monotonicity of ε in σ that the
calibration relies on, in that of ``synthamp.accountant._calibration``.
"""

from __future__ import annotations

from synthamp._budget import DEFAULT_TIME_BUDGET
from synthamp.accountant._accountants import calibrate_sigma, compute_epsilon
from synthamp.accountant._angle_grid import (
    ANGLE_ORDERS,
    AngleCertificate,
    angle_nodes,
    certified_angle_rdp,
)
from synthamp.accountant._angle_reduction import (
    canonical_norm,
    canonical_pair,
    orthogonal_node_pld,
    orthogonal_node_rdp,
)
from synthamp.accountant._calibration import CALIBRATION_WINDOW, Calibration
from synthamp.accountant._choice import ACCOUNTANTS
from synthamp.accountant._curves import EpsilonResult, rdp_curve
from synthamp.accountant._epsilon_delta import (
    DELTA_GRID,
    PROFILE_ACCOUNTANTS,
    EpsilonDeltaCurve,
    ReleaseCurves,
    release_curves,
)
from synthamp.accountant._export import MissingExtraError, to_dp_accounting_pld, to_prv
from synthamp.accountant._gaussian import gaussian_delta, gaussian_epsilon
from synthamp.accountant._gram_adjacency import gram_norm_bound, in_gram_adjacency
from synthamp.accountant._gram_adjacency_k2 import (
    bures_wasserstein_2x2,
    in_gram_adjacency_k2,
    search_gram_set_k2,
)
from synthamp.accountant._guarantee import Guarantee, account, calibrate
from synthamp.accountant._k2_search import PairSearch, search_lower_bound
from synthamp.accountant._k_certificate import (
    CERTIFIED_REASON,
    REALISED_LOWER,
    CertifiedGuarantee,
    PublicDesignRelease,
    account_certified,
    calibrate_certified,
)
from synthamp.accountant._laplace import LaplaceCalibration, laplace_calibration, laplace_delta
from synthamp.accountant._pld import (
    DEFAULT_DISCRETIZATION,
    PairPld,
    PldCalibration,
    PldEpsilon,
    PrivacyLossDistribution,
    SubsampledGaussianRelease,
    calibrate_sigma_pld,
    compute_epsilon_pld,
    privacy_loss_distribution,
)
from synthamp.accountant._profile import (
    FALLBACK_SCAN_POINTS,
    PrivacyProfile,
    ProfileEpsilon,
    pair_privacy_profile,
    privacy_profile,
    profile_epsilon,
    profile_epsilons,
)
from synthamp.accountant._releases import (
    DEFAULT_ORDERS,
    METHODS,
    GaussianRelease,
    Method,
    OrderGridWarning,
    RdpCurve,
    Release,
    SyntheticDataRelease,
    rdp_to_epsilon,
)
from synthamp.accountant._worst_case import (
    SCAN_POINTS,
    SEARCH_SCAN,
    WorstCase,
    worst_case_rdp,
)

__all__ = [
    "ACCOUNTANTS",
    "ANGLE_ORDERS",
    "CALIBRATION_WINDOW",
    "CERTIFIED_REASON",
    "DEFAULT_DISCRETIZATION",
    "DEFAULT_ORDERS",
    "DEFAULT_TIME_BUDGET",
    "DELTA_GRID",
    "FALLBACK_SCAN_POINTS",
    "METHODS",
    "PROFILE_ACCOUNTANTS",
    "REALISED_LOWER",
    "SCAN_POINTS",
    "SEARCH_SCAN",
    "AngleCertificate",
    "Calibration",
    "CertifiedGuarantee",
    "EpsilonDeltaCurve",
    "EpsilonResult",
    "GaussianRelease",
    "Guarantee",
    "LaplaceCalibration",
    "Method",
    "MissingExtraError",
    "OrderGridWarning",
    "PairPld",
    "PairSearch",
    "PldCalibration",
    "PldEpsilon",
    "PrivacyLossDistribution",
    "PrivacyProfile",
    "ProfileEpsilon",
    "PublicDesignRelease",
    "RdpCurve",
    "Release",
    "ReleaseCurves",
    "SubsampledGaussianRelease",
    "SyntheticDataRelease",
    "WorstCase",
    "account",
    "account_certified",
    "angle_nodes",
    "bures_wasserstein_2x2",
    "calibrate",
    "calibrate_certified",
    "calibrate_sigma",
    "calibrate_sigma_pld",
    "canonical_norm",
    "canonical_pair",
    "certified_angle_rdp",
    "compute_epsilon",
    "compute_epsilon_pld",
    "gaussian_delta",
    "gaussian_epsilon",
    "gram_norm_bound",
    "in_gram_adjacency",
    "in_gram_adjacency_k2",
    "laplace_calibration",
    "laplace_delta",
    "orthogonal_node_pld",
    "orthogonal_node_rdp",
    "pair_privacy_profile",
    "privacy_loss_distribution",
    "privacy_profile",
    "profile_epsilon",
    "profile_epsilons",
    "rdp_curve",
    "rdp_to_epsilon",
    "release_curves",
    "search_gram_set_k2",
    "search_lower_bound",
    "to_dp_accounting_pld",
    "to_prv",
    "worst_case_rdp",
]
