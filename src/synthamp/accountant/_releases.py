"""Release descriptions: what a mechanism is, as data (docs/theory.md §1, §12).

The vocabulary of the accountant, in the style of ``dp_accounting``'s
``dp_event.py``:

* :class:`SyntheticDataRelease` and :class:`GaussianRelease` describe a
  mechanism, as a ``DpEvent`` does: immutable, validated on construction, and
  complete — each class documents the mathematics of its mechanism in full,
  so that its privacy follows from its fields alone. Their fields never
  change meaning: a new kind of release is a new class, never a new reading
  of an old field (the descriptions may be stored, compared and pickled).
The accountants convert: RDP curves and their conversion to (ε, δ) live in
``_rdp_conversion``, the functions that turn a description into a curve in
``_curves``, the k = 1 worst case in ``_worst_case``, PLDs in ``_pld``, the
calibration of σ in ``_calibration`` (all through ``_calibrator``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING

from synthamp._parameters import validated, validated_one, validated_optional
from synthamp._validation import (
    InputError,
)

if TYPE_CHECKING:  # optional dependency, for the annotation of to_dp_event only
    from dp_accounting.dp_event import DpEvent

__all__ = [
    "GaussianRelease",
    "SyntheticDataRelease",
]

# --------------------------------------------------------------------------- releases


def _gram_norm_bound(norm_bound: float, sensitivity: float, gram_sensitivity: float) -> float:
    """The corner of the reachable set of Gram pairs, capped by C (docs/gram-adjacency.md).

    (s₂ + Δ²)/(2Δ) if s₂ >= Δ² (where a − b = Δ meets a² − b² = s₂), else √s₂;
    the kernel of :func:`synthamp.accountant.gram_norm_bound`, for validated inputs.
    """
    s2, delta = gram_sensitivity, sensitivity
    corner = (s2 + delta * delta) / (2.0 * delta) if s2 >= delta * delta else math.sqrt(s2)
    return min(norm_bound, corner)


@dataclass(frozen=True)
class SyntheticDataRelease:
    """Release of synthetic data ZV from a perturbed linear generator V = v + σN.

    The description of the mechanism of docs/theory.md §1, as a ``DpEvent`` is in
    ``dp_accounting``: immutable and validated on construction. It documents
    its mathematics completely, and its fields never change meaning:

    * the data holder computes a model v ∈ R^{d×k} (``dim`` = d,
      ``out_dim`` = k) with ‖v‖_F <= C (``norm_bound``) on every dataset, and
      ‖v − w‖_F <= Δ (``sensitivity``) for the models v, w of any two adjacent
      datasets;
    * it perturbs the model once, V = v + σN (``sigma`` = σ), N ∈ R^{d×k} with
      iid N(0, 1) entries, and keeps V secret;
    * it releases only the synthetic records ZV, Z ∈ R^{n×d} with iid
      N(0, σ_z²) entries, the hidden seeds, never released: n = ``n_syn``
      records, or (``n_syn=None``) any number of them, whose privacy is that
      of the Gram matrix VᵀV (the plateau, Proposition 4.2). σ_z is not a
      field: ZV/σ_z has the same law for every σ_z, so it does not change
      the privacy;
    * the whole release is repeated T = ``releases`` times on the same data,
      with independent N and Z each time (RDP composition: the curve times T).

    Only min(Δ, 2C) matters (:attr:`effective_sensitivity`), and for k = 1
    only min(Δ, C) (:attr:`amplitude_gap`).

    Parameters
    ----------
    dim : int
        Model width d, 1 <= d <= 10^6.
    out_dim : int
        Record dimension k, 1 <= k <= d.
    norm_bound : float
        C > 0, bound on ‖v‖_F for every dataset.
    sensitivity : float
        Δ > 0, bound on ‖v − w‖_F for adjacent datasets. Δ > 2C is allowed; it
        acts as :attr:`effective_sensitivity` = min(Δ, 2C).
    sigma : float
        Noise scale σ > 0.
    n_syn : int or None, default None
        Number of synthetic records n; None for an unlimited release (the
        plateau, Proposition 4.2), which bounds every finite n.
    releases : int, default 1
        Number T of releases of independently perturbed models on the same
        data; their RDP curves add up.
    gram_sensitivity : float or None, default None
        s₂ > 0, bound on |‖v‖² − ‖w‖²| for adjacent datasets (a public design,
        docs/theory.md §19): the adjacency is then the reachable set of Gram
        pairs {(λ_v, λ_w): 0 <= λ <= C², |λ_v − λ_w| <= s₂, |√λ_v − √λ_w| <= Δ}
        (k = 1 and ``n_syn=None`` only; docs/gram-adjacency.md), accounted
        through :attr:`adjacency_norm_bound`. None: the norm model.
    """

    dim: int
    out_dim: int
    norm_bound: float
    sensitivity: float
    sigma: float
    n_syn: int | None = None
    releases: int = 1
    gram_sensitivity: float | None = None

    def __post_init__(self) -> None:
        dim, out_dim = validated(dim=self.dim, out_dim=self.out_dim)
        if out_dim > dim:
            raise InputError("out_dim", f"must be <= dim = {dim}, got {out_dim}")
        values = {
            "dim": dim,
            "out_dim": out_dim,
            "norm_bound": validated_one("norm_bound", self.norm_bound),
            "sensitivity": validated_one("sensitivity", self.sensitivity),
            "sigma": validated_one("sigma", self.sigma),
            "n_syn": validated_optional(n_syn=self.n_syn)[0],
            "releases": validated_one("releases", self.releases),
        }
        if self.gram_sensitivity is not None:
            values["gram_sensitivity"] = validated_one("gram_sensitivity", self.gram_sensitivity)
            if out_dim != 1 or self.n_syn is not None:
                raise InputError(
                    "gram_sensitivity",
                    "statistic-level adjacency is proven for k = 1 and an unlimited release "
                    "(n_syn=None, which bounds every n_syn) only; docs/gram-adjacency.md",
                )
        for name, value in values.items():
            object.__setattr__(self, name, value)

    @property
    def adjacency_norm_bound(self) -> float:
        """The norm bound of the norm model whose worst case is that of the adjacency.

        C without ``gram_sensitivity``; with it (statistic-level adjacency, k = 1,
        unlimited), min(C, (s₂ + Δ²)/(2Δ)) if s₂ >= Δ², else min(C, √s₂): every
        pair of the reachable set of Gram pairs is dominated (Blackwell) by a pair
        of the norm model with this bound, which is a subset of it
        (:func:`synthamp.accountant.gram_norm_bound`, docs/gram-adjacency.md).
        """
        if self.gram_sensitivity is None:
            return self.norm_bound
        return _gram_norm_bound(self.norm_bound, self.sensitivity, self.gram_sensitivity)

    @property
    def effective_sensitivity(self) -> float:
        """min(Δ, 2C): ‖v − w‖_F <= ‖v‖_F + ‖w‖_F <= 2C whatever Δ says."""
        return min(self.sensitivity, 2.0 * self.norm_bound)

    @property
    def amplitude_gap(self) -> float:
        """min(Δ, C): bound on |‖v‖_F − ‖w‖_F| (the k = 1 worst case depends on norms only).

        C is :attr:`adjacency_norm_bound` (C itself unless ``gram_sensitivity`` is set).
        """
        return min(self.sensitivity, self.adjacency_norm_bound)

    def with_sigma(self, sigma: float) -> SyntheticDataRelease:
        """The same release with noise scale ``sigma``."""
        return replace(self, sigma=sigma)

    def to_dp_event(self) -> DpEvent:
        """The post-processing baseline as a ``dp_accounting`` event.

        ``SelfComposedDpEvent(GaussianDpEvent(σ/Δ_eff), T)``: releasing the
        model T times. Needs the optional ``dp_accounting`` package.
        """
        # optional: dp_accounting (extra "crosscheck"), needed by this method only
        from dp_accounting import dp_event

        gaussian = dp_event.GaussianDpEvent(self.sigma / self.effective_sensitivity)
        return dp_event.SelfComposedDpEvent(gaussian, self.releases)


_RELEASE_FIELDS = tuple(f.name for f in fields(SyntheticDataRelease))


def _with(release: SyntheticDataRelease, **changes) -> SyntheticDataRelease:
    """``release`` with fields changed to values the library already holds valid (σ of a
    search, ``n_syn=None`` for the plateau): the kernel of ``replace``, no re-validation.

    A change that could break the release's invariants (``gram_sensitivity`` with a
    finite ``n_syn``) must go through ``dataclasses.replace``.
    """
    if changes.get("n_syn") is not None and release.gram_sensitivity is not None:
        raise InputError("gram_sensitivity", "needs an unlimited release (n_syn=None)")
    copy = object.__new__(SyntheticDataRelease)
    for name in _RELEASE_FIELDS:
        object.__setattr__(copy, name, changes.get(name, getattr(release, name)))
    return copy


def _gaussian(sensitivity: float, sigma: float, releases: int) -> GaussianRelease:
    """A :class:`GaussianRelease` of values the library already holds valid (the model V of a
    validated release): the kernel of its constructor, no re-validation."""
    mechanism = object.__new__(GaussianRelease)
    object.__setattr__(mechanism, "sensitivity", sensitivity)
    object.__setattr__(mechanism, "sigma", sigma)
    object.__setattr__(mechanism, "releases", releases)
    return mechanism


@dataclass(frozen=True)
class GaussianRelease:
    """A Gaussian mechanism with L2 sensitivity Δ and noise σ, applied T times.

    For instance releasing the perturbed model V itself, or any other Gaussian
    mechanism on the same data, to compose with a synthetic data release. Like
    :class:`SyntheticDataRelease` it documents its mathematics completely and
    its fields never change meaning: a query f with ‖f(D) − f(D′)‖₂ <= Δ
    (``sensitivity``) for adjacent datasets is released as f(D) + σN
    (``sigma`` = σ, N standard Gaussian), T = ``releases`` times with
    independent noise; its RDP curve is exactly T·αΔ²/(2σ²).

    Parameters
    ----------
    sensitivity : float
        Δ > 0.
    sigma : float
        Noise scale σ > 0.
    releases : int, default 1
        Number T of independent releases.
    """

    sensitivity: float
    sigma: float
    releases: int = 1

    def __post_init__(self) -> None:
        object.__setattr__(self, "sensitivity", validated_one("sensitivity", self.sensitivity))
        object.__setattr__(self, "sigma", validated_one("sigma", self.sigma))
        object.__setattr__(self, "releases", validated_one("releases", self.releases))


Release = SyntheticDataRelease | GaussianRelease
