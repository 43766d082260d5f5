"""One report for every release kind, built from its typed result (docs/theory.md §13–§20).

:func:`build_report` turns a :class:`~synthamp.report.ReleaseResult` — the generator's, a
public design's, a whole table's — into the one :class:`~synthamp.report.PrivacyReport`
shape: the fields a kind lacks are None. Every sentence of the report is worded here or
in the rooms it names (the guarantee's in :mod:`synthamp.accountant._guarantee`, the
design's in :mod:`synthamp.report._design_wording`), never by the estimator or the job.
"""

from __future__ import annotations

import dataclasses
import math

from synthamp._version import __version__
from synthamp.amplification import amplification_outlook
from synthamp.report._design_wording import (
    BEYOND,
    ORTHOGONAL_EXACT,
    design_seed_policy,
    exact_on_orthogonal,
    lower_line,
    noise_sentence,
    protected,
)
from synthamp.report._privacy import (
    ADJACENCY,
    DESIGN_ADJACENCY,
    PrivacyReport,
    seed_policy,
)
from synthamp.report._result import DesignFacts, FeatureScaling, ReleaseResult, WrittenRecords
from synthamp.utility import release_utility

__all__ = ["build_report"]

_CLIPPING = "rows then clipped to norm ≤ 1"

#: The generator's feature scaling, by kind (``{constant}`` the declared constant).
FEATURE_SCALINGS = {
    "constant": "features multiplied by the declared constant {constant:g}, " + _CLIPPING,
    "columns": "features multiplied column-wise by declared constants, " + _CLIPPING,
    "bounds": "each feature column clamped into its declared public range [lo, hi], mapped "
    "affinely onto [−1, 1] and divided by √d, " + _CLIPPING,
    "data": "features divided by their largest row norm, computed from the private data",
}

#: The caveat of a feature scale learned from the private data.
DATA_SCALE_NOTE = (
    "The feature scale was learned from the private data (largest row norm). "
    "That step is not covered by this guarantee: the release can reveal it."
)


def build_report(result: ReleaseResult, written: WrittenRecords | None = None) -> PrivacyReport:
    """The privacy report of one release, whatever its kind.

    Parameters
    ----------
    result : ReleaseResult
        What the release accounted (the generator's ``accounting_``, a design release's
        ``result``).
    written : WrittenRecords, optional
        What the job wrote: the utility is then at the records written (the guarantee is
        unchanged: an unlimited release covers any n), and the report names them.

    Returns
    -------
    PrivacyReport
        Public quantities only; the HTML page's curves are computed on first use.
    """
    g, release, design = result.guarantee, result.release, result.design
    n_utility = release.n_syn if written is None else written.records
    utility = release_utility(  # public quantities only: C, Δ, σ, d, k, n, ε, δ (B, m)
        epsilon=result.anchor_epsilon, delta=g.delta, sigma=g.sigma, dim=release.dim,
        out_dim=release.out_dim, norm_bound=release.norm_bound,
        sensitivity=release.sensitivity, n_syn=n_utility,
        **(
            dict(statistic_sensitivity=design.statistic_sensitivity) if design is not None
            else dict(label_bound=result.label_bound, n_records=result.n_records)
        ),
    )  # fmt: skip
    if written is not None and written.utility_rows:
        utility["utility_table"] = (*utility["utility_table"], *written.utility_rows)
    kind = _design_fields(result, design) if design is not None else _generator_fields(result)
    report = PrivacyReport(
        epsilon=g.epsilon, delta=g.delta, optimal_order=g.optimal_order, sigma=g.sigma,
        sensitivity=release.sensitivity, norm_bound=release.norm_bound, dim=release.dim,
        out_dim=release.out_dim, n_records=result.n_records, n_syn=release.n_syn,
        ridge=result.ridge, label_bound=result.label_bound, seed_scale=result.seed_scale,
        accounting_method=g.method, accounting_kind=str(g.kind), accountant=g.accountant,
        epsilon_rdp=g.epsilon_rdp, epsilon_pld=g.epsilon_pld,
        epsilon_unlimited_pld=g.epsilon_unlimited_pld, guarantee=g.guarantee,
        accountant_reason=g.reason, sigma_post_processing=g.sigma_post_processing,
        epsilon_post_processing=g.epsilon_post_processing,
        model_released=result.model_released, objective=result.objective,
        noise_secret=not result.seeded, synthamp_version=__version__, accounting_note=g.note,
        amplification=_amplification(result), **kind, **utility,
    )  # fmt: skip
    if written is not None:
        report = _with_records(report, written)
    return dataclasses.replace(report, curves=result.curves)


def _generator_fields(result: ReleaseResult) -> dict:
    """The generator's sentences: what is released, the feature scaling, the caveats."""
    release, n_syn = result.release, result.release.n_syn
    d, k, m = release.dim, release.out_dim, result.n_records
    records = "any number of" if n_syn is None else f"up to {n_syn:,}"
    released = [
        f"{records} synthetic records ZV of dimension k = {k} (rows iid N(0, σ_z²VᵀV) given V)",
        "this report: the declared bounds and public parameters (d, k, m, λ, B, C, Δ, σ, σ_z)",
    ]
    not_released = [
        "the private records",
        "the unperturbed model v (the ridge solution)",
        "the noise N",
        "the hidden seeds Z",
    ]
    if result.model_released:
        released.insert(0, f"the noisy model V = v + σN ({d} × {k})")
    else:
        not_released.insert(2, "the noisy model V = v + σN")
    scaling = result.feature_scaling or FeatureScaling("constant", 1.0)
    notes = [DATA_SCALE_NOTE] if scaling.kind == "data" else []
    delta = result.guarantee.delta
    if delta >= 1.0 / m:
        notes.append(
            f"δ = {delta:g} ≥ 1/m = {1.0 / m:.3g}: such a δ allows a mechanism "
            "that publishes one record in the clear; choose δ well below 1/m."
        )
    if result.model_released and result.requested_method != "post-processing":
        notes.append(
            "The model V is released, so the guarantee uses post-processing accounting "
            f"(the requested {result.requested_method!r} accounting applies to synthetic "
            "data only)."
        )
    return dict(
        adjacency=ADJACENCY,
        feature_scaling=FEATURE_SCALINGS[scaling.kind].format(constant=scaling.constant),
        seed_policy=seed_policy(result.seeded),
        released=tuple(released),
        not_released=tuple(not_released),
        notes=tuple(notes),
    )


def _design_fields(result: ReleaseResult, design: DesignFacts) -> dict:
    """A public design's sentences and numbers (docs/theory.md §19–§20)."""
    g, k = result.guarantee, result.release.out_dim
    adjacency = DESIGN_ADJACENCY
    if design.certified is not None:
        adjacency += f"; {g.reason}"
    elif design.adjacency == "gram":
        adjacency += (
            "; accounted on the reachable pairs of the Gram statistic ‖v‖², whose change "
            f"under a replaced record is at most s₂ = {design.gram_sensitivity:.4g} on this "
            "public design (docs/gram-adjacency.md, docs/theory.md §19)"
        )
    comparison = design.comparison
    notes = [
        f"Protected: {protected(design)}.",
        noise_sentence(design, g.sigma_post_processing),
        lower_line(design) or "",
        comparison.sentence() if comparison else ("" if design.certified else f"Concrete "
                                                  f"pairs: {BEYOND}."),
        ORTHOGONAL_EXACT if exact_on_orthogonal(design) else "",
    ]  # fmt: skip
    order = () if design.row_permutation == "order-free" else (
        "the records' assignment to the design's rows",
    )  # fmt: skip
    ratio = design.certified_over_lower
    return dict(
        adjacency=adjacency,
        feature_scaling=(
            f"public design {design.name}: width D = {result.release.dim:,} generated from the "
            f"recorded public seed {design.seed} (not the noise's entropy); {protected(design)}"
        ),
        seed_policy=design_seed_policy(design, result.seeded),
        released=(
            f"synthetic records ZV of dimension k = {k} (any number is covered)",
            "this report: the declared bounds and public parameters (D, k, m, λ, B, C, Δ, "
            "s₂, σ, σ_z, the design and its seed)",
        ),
        not_released=(
            "the private target columns",
            *order,
            "the unperturbed model v",
            "the noisy model V",
            "the noise N",
            "the hidden seeds Z",
        ),
        notes=tuple(note for note in notes if note),
        design=design.name,
        design_seed=design.seed,
        design_seed_public=True,
        protected=protected(design),
        row_permutation=design.row_permutation,
        adjacency_model=design.adjacency,
        gram_sensitivity=design.gram_sensitivity,
        sigma_norm=design.sigma_norm,
        sigma_gram=design.sigma_gram,
        epsilon_lower_realised=design.epsilon_lower_realised,
        certified_over_lower=None if ratio is None or not math.isfinite(ratio) else ratio,
        lower_bound=None if design.certified is None else design.lower_bound,
        accounting_beside_concrete_pairs=None if comparison is None else comparison.to_dict(),
    )


def _with_records(report: PrivacyReport, written: WrittenRecords) -> PrivacyReport:
    """The report with what the job wrote: the records, their columns, the job's notes."""
    released = report.released
    if written.kind == "table":  # records in the table's units, read off VᵀV
        released = (
            f"{written.records:,} synthetic records of the table's {len(written.column_names)} "
            "columns, in its units (a post-processing of VᵀV; any number is covered)",
            *released[1:],
        )
    elif report.design is not None:
        released = (f"{written.records:,} {released[0]}", *released[1:])
    bounds = None if written.target_bounds is None else dict(written.target_bounds)
    return dataclasses.replace(
        report, records=written.records, columns=tuple(written.column_names),
        records_kind=written.kind, records_note=" ".join(written.records_notes) or None,
        target_bounds=bounds, released=released,
        notes=(*report.notes, *written.records_notes, *written.notes),
    )  # fmt: skip


def _amplification(result: ReleaseResult) -> str:
    """One line on whether amplification pays here (docs/theory.md §16)."""
    g, release = result.guarantee, result.release
    if g.method == "post-processing":
        return ""
    wider = {} if result.design is None else {"wider": "a wider design (a larger --width)"}
    return amplification_outlook(
        release.dim, release.norm_bound, g.sigma, release.out_dim, g.noise_saved, **wider
    ).message
