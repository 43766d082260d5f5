"""What a release accounted, as data: the typed result every release kind hands the report.

The generator (:class:`synthamp.release.PrivateLinearGenerator`) and the release on a public
design (:func:`synthamp.design.design_release`) each return one :class:`ReleaseResult`:
the mechanism's public numbers (d or D, k, m, n_syn, λ, B, C, Δ, σ_z), the guarantee the
accountant's guarantee room decided (:class:`~synthamp.accountant.Guarantee`, its
sentences included) and the facts a reader needs to judge it (how the features were
scaled, whether the seed was the user's, the public design). They word nothing:
:func:`synthamp.report.build_report` renders every sentence of the report from them,
once, for every kind (docs/theory.md §13, §19).

Public quantities only: never the private records, the unperturbed model v, the noise N,
the seeds Z or V.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = ["DesignFacts", "FeatureScaling", "PairComparison", "ReleaseResult", "WrittenRecords"]

#: How a generator's features were put into the unit ball (``FeatureScaling.kind``).
SCALINGS = ("constant", "columns", "bounds", "data")


@dataclass(frozen=True)
class FeatureScaling:
    """How the generator's features were scaled before the row-norm clipping.

    Attributes
    ----------
    kind : {"constant", "columns", "bounds", "data"}
        A declared constant, declared per-column constants, declared public ranges
        mapped onto [−1, 1], or the largest row norm of the private data (not covered
        by the guarantee).
    constant : float or None
        The declared constant (``kind == "constant"``).
    """

    kind: str
    constant: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in SCALINGS:
            raise ValueError(f"kind must be one of {SCALINGS}, got {self.kind!r}")


class PairComparison(Protocol):
    """The design's accounted curve beside concrete adjacent datasets (its public face)."""

    def sentence(self) -> str: ...  # pragma: no cover

    def to_dict(self) -> dict: ...  # pragma: no cover


@dataclass(frozen=True)
class DesignFacts:
    """The public design of a release on one, and its two accountings (docs/theory.md §19).

    Attributes
    ----------
    name : str
        The design (``random-seeds``, ``random-features``, ``orthogonal``).
    seed : int
        Its public seed (recorded; not the noise's entropy).
    has_inputs : bool
        True if built from declared public input columns (random features).
    row_permutation : {"secret", "seeded", "order-free"}
        How the records were assigned to the design's rows.
    adjacency : {"gram", "norm"}
        The adjacency the guarantee is accounted under.
    sigma_norm : float
        σ under the norm model (Theorem 5.4).
    sigma_gram, gram_sensitivity : float or None
        σ under the Gram adjacency and s₂ (k = 1; ``sigma_gram`` also for the certified
        k ≥ 2 guarantee).
    statistic_sensitivity : float or None
        The replace-one sensitivity of vᵀv on the design the anchors use.
    certified : CertifiedGuarantee or None
        k ≥ 2 under the Gram adjacency: the certified reduction, with the realised pair's
        lower bound.
    lower_bound : str or None
        What that lower bound is, in the accountant's sentence
        (:data:`synthamp.accountant.REALISED_LOWER`; None without it).
    comparison : PairComparison or None
        The accounted curve beside concrete adjacent datasets (None where not computed).
    """

    name: str
    seed: int
    has_inputs: bool
    row_permutation: str
    adjacency: str
    sigma_norm: float
    sigma_gram: float | None = None
    gram_sensitivity: float | None = None
    statistic_sensitivity: float | None = None
    certified: Any = None
    lower_bound: str | None = None
    comparison: Any = None

    @property
    def epsilon_lower_realised(self) -> float | None:
        """The realised pair's lower bound on the true ε (certified k ≥ 2; None otherwise)."""
        return None if self.certified is None else self.certified.epsilon_lower_realised

    @property
    def certified_over_lower(self) -> float | None:
        """The certified guarantee's ε over :attr:`epsilon_lower_realised`."""
        return None if self.certified is None else self.certified.certified_over_lower


@dataclass(frozen=True)
class WrittenRecords:
    """What a release wrote (the job knows it; the estimator does not).

    Attributes
    ----------
    records : int
        Synthetic records written.
    column_names : tuple of str
        Their columns, in order (the report's ``columns``).
    kind : {"raw", "table"}
        The mechanism's records ZV, or records in the table's units read off VᵀV.
    records_notes : tuple of str
        What the records are, where they are not the mechanism's ZV (the table's records):
        the report's ``records_note`` and notes.
    notes : tuple of str
        Other notes of the job (a dask cluster), after them.
    target_bounds : mapping or None
        The targets' declared public ranges (a whole-table release).
    utility_rows : tuple of dict
        Rows the job measured on the written table, appended to the utility table.
    """

    records: int
    column_names: tuple[str, ...]
    kind: str = "raw"
    records_notes: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    target_bounds: Mapping[str, Any] | None = None
    utility_rows: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class ReleaseResult:
    """What one release accounted: its public numbers and the guarantee room's decision.

    Attributes
    ----------
    guarantee : Guarantee
        The decision of :mod:`synthamp.accountant._guarantee` (ε, δ, σ, the accountant and
        the sentences saying why).
    release : SyntheticDataRelease
        The mechanism accounted (for the HTML page's curves and the utility).
    n_records : int
        m.
    ridge, label_bound, seed_scale : float
        λ, B and σ_z.
    objective : str
        The ridge objective in words (the λ convention, :data:`synthamp.release.OBJECTIVE`).
    seeded : bool
        True for a research run seeded by the user (the noise is then not secret).
    model_released : bool
        True if V itself is released (post-processing accounting).
    requested_method : str
        The accounting method asked for (it differs from the guarantee's when V is
        released).
    feature_scaling : FeatureScaling or None
        The generator's feature scaling (None on a public design).
    design : DesignFacts or None
        The public design (None for the generator).
    anchor_epsilon : float
        The ε the utility's baselines are calibrated at (the guarantee's, or on a public
        design the target's).
    curves : callable or None
        The HTML page's curves (a :class:`~synthamp.accountant.ReleaseCurves`), computed
        by the release on first use (:func:`synthamp.release.guarantee_curves`); the report
        computes none.
    """

    guarantee: Any
    release: Any
    n_records: int
    ridge: float
    label_bound: float
    seed_scale: float
    objective: str
    seeded: bool
    anchor_epsilon: float
    model_released: bool = False
    requested_method: str = "exact"
    feature_scaling: FeatureScaling | None = None
    design: DesignFacts | None = None
    curves: Callable[[], Any] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        # the RDP accountant's working object is not kept: the result is data (it pickles
        # with the estimator); the curve the guarantee used is ``rdp_curve``
        if getattr(self.guarantee, "rdp", None) is not None:
            object.__setattr__(self, "guarantee", dataclasses.replace(self.guarantee, rdp=None))

    @property
    def delta(self) -> float:
        """δ of the guarantee."""
        return self.guarantee.delta
