"""The end-to-end audit: attack the real pipeline, the fitted generator.

The release audit (:mod:`._release`) samples the statistic from its law; this
audit fits the generator on two crafted adjacent datasets
(:func:`adjacent_datasets`) many times and attacks the released records with
the same statistic, ‖ZV‖²/(σ_z²σ²). Its threshold grid comes from the laws
the theory predicts for the two datasets' models, fixed before any fit, so the
lower bound on ε stays valid whatever the pipeline does: it tests that the
released data follow the law the accountant assumes.

The datasets are public and crafted; no private data is involved, and the
audit prints only its own simulations' thresholds and rates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from synthamp._kinds import privacy_quantity
from synthamp._parameters import at_least, validated, validated_one
from synthamp.accountant import SyntheticDataRelease, compute_epsilon
from synthamp.audit._rates import (
    DEFAULT_CONFIDENCE,
    Correction,
    EmpiricalEpsilon,
    check_correction,
    epsilon_lower_bound,
    random_state_of,
)
from synthamp.audit._release import AuditPair, fixed_thresholds, threshold_epsilon
from synthamp.divergence._laws import ProductLaw
from synthamp.release import (
    clip_rows,
    project_frobenius,
    ridge_fit,
    ridge_norm_bound,
    ridge_sensitivity,
)

__all__ = ["EndToEndAudit", "adjacent_datasets", "audit_generator"]


@dataclass(frozen=True)
class EndToEndAudit:
    """Audit of the real pipeline, :class:`~synthamp.release._generator.PrivateLinearGenerator`.

    Attributes
    ----------
    epsilon_lower : float
        Empirical lower bound on ε from the released records.
    epsilon_upper : float
        The accountant's ε for the generator's declared C, Δ, σ and n_syn.
    epsilon_pair : float
        Exact ε(δ) of the two audit datasets' models (the best this pair of
        datasets can show).
    consistent : bool
        ``epsilon_lower <= epsilon_upper``.
    tightness : float
        epsilon_lower/epsilon_upper.
    test : EmpiricalEpsilon
        The test on the released records.
    norm_v, norm_w : float
        Norms of the ridge models of the two audit datasets (public, crafted
        datasets; no private data is involved).
    norm_bound, sensitivity, sigma : float
        C, Δ and σ of the generator.
    dim, n_records, n_syn, trials : int
    delta, confidence : float
    """

    epsilon_lower: float
    epsilon_upper: float
    epsilon_pair: float
    consistent: bool
    tightness: float
    test: EmpiricalEpsilon
    norm_v: float
    norm_w: float
    norm_bound: float
    sensitivity: float
    sigma: float
    dim: int
    n_records: int
    n_syn: int
    trials: int
    delta: float
    confidence: float


def adjacent_datasets(
    dim: int, n_records: int, label_bound: float
) -> tuple[tuple[NDArray, NDArray], tuple[NDArray, NDArray]]:
    """Two adjacent datasets that push the ridge models' norms apart (k = 1).

    D: m records x_i = e₁, y_i = B. D′: the same with the last label replaced
    by −B (replace-one adjacency). With the objective of
    :mod:`synthamp.release._ridge`, v = B/(1 + λ)·e₁ and
    w = (m − 2)B/(m(1 + λ))·e₁: aligned, ‖v‖ − ‖w‖ = 2B/(m(1 + λ)), and
    ‖v‖ = C = B/(2√λ) at λ = 1 (the norm bound is attained).
    """
    dim, n_records, label_bound = validated(dim=dim, n_records=n_records, label_bound=label_bound)
    return _adjacent_datasets(dim, n_records, label_bound)


def _adjacent_datasets(dim: int, n_records: int, label_bound: float):
    """The kernel of :func:`adjacent_datasets`, for validated inputs."""
    features = np.zeros((n_records, dim))
    features[:, 0] = 1.0
    labels = np.full((n_records, 1), float(label_bound))
    labels_adjacent = labels.copy()
    labels_adjacent[-1, 0] = -float(label_bound)
    return (features, labels), (features.copy(), labels_adjacent)


def _model_norm(features, labels, label_bound: float, ridge: float, norm_bound: float) -> float:

    model = ridge_fit(clip_rows(features, 1.0), clip_rows(labels, label_bound), ridge)
    return float(np.linalg.norm(project_frobenius(model, norm_bound)))


@privacy_quantity("certified")
def audit_generator(
    *,
    dim: int = 10,
    n_records: int = 10,
    ridge: float = 1.0,
    label_bound: float = 1.0,
    sigma: float = 0.1,
    n_syn: int = 100,
    delta: float = 1e-5,
    trials: int = 1000,
    confidence: float = DEFAULT_CONFIDENCE,
    correction: Correction = "bonferroni",
    sampler: str = "gram",
    random_state: int | np.random.Generator | None = None,
) -> EndToEndAudit:
    """End-to-end audit of :class:`~synthamp.release._generator.PrivateLinearGenerator`.

    Fits the generator ``trials`` times on each of the two adjacent datasets
    of :func:`adjacent_datasets` (fresh noise and seeds each time), draws
    ``n_syn`` records per fit, and attacks the records with the same
    statistic as :func:`audit_release`, ‖ZV‖²/(σ_z²σ²) (the released data's
    Gram matrix for k = 1). The Bonferroni grid comes from the laws the
    theory predicts for the two datasets' models, fixed before any fit, so
    the bound stays valid whatever the pipeline does. The accountant's ε is
    that of the generator's declared C, Δ, σ and n_syn (exact k = 1
    accounting); the pair's exact ε uses the two datasets' actual models.

    Slow: every trial is a full fit (about 10 ms), against microseconds per
    trial for :func:`audit_release`, which samples the same statistic directly.
    The fits use ``accounting="post-processing"`` to skip the exact accountant
    at each fit; with σ given, the accounting method does not change the
    released data.

    Parameters
    ----------
    dim : int, default 10
        d, number of features.
    n_records : int, default 10
        m >= 2, records per dataset.
    ridge : float, default 1.0
        λ (λ = 1 puts ‖v‖ at the norm bound).
    label_bound : float, default 1.0
        B.
    sigma : float, default 0.1
        σ of the generator.
    n_syn : int, default 100
        Records released per fit.
    delta : float, default 1e-5
        δ in (0, 1).
    trials : int, default 1000
        Fits per dataset.
    confidence : float, default 0.95
        γ.
    correction : {"bonferroni", "split"}, default "bonferroni"
        Threshold-selection correction (module docstring).
    sampler : {"gram", "seeds"}, default "gram"
        The generator's sampler.
    random_state : int, numpy Generator or None
        None draws from operating-system entropy.

    Returns
    -------
    EndToEndAudit
    """
    # scikit-learn (heavy, through the generator): loaded only when the pipeline is audited
    from synthamp.release import PrivateLinearGenerator

    dim = validated_one("dim", dim)
    n_records = at_least("n_records", validated_one("n_records", n_records), 2)
    ridge, label_bound, sigma, n_syn, delta = validated(
        ridge=ridge, label_bound=label_bound, sigma=sigma, n_syn=n_syn, delta=delta
    )
    trials, confidence = validated(trials=trials, confidence=confidence)
    correction = check_correction(correction)
    rng = np.random.default_rng(random_state_of(random_state))
    datasets = _adjacent_datasets(dim, n_records, label_bound)
    norm_bound = ridge_norm_bound(label_bound, ridge)
    sensitivity = ridge_sensitivity(label_bound, ridge, n_records)
    norm_v = _model_norm(*datasets[0], label_bound, ridge, norm_bound)
    norm_w = _model_norm(*datasets[1], label_bound, ridge, norm_bound)
    law_p = ProductLaw(dim, norm_v / sigma, n_syn)
    law_q = ProductLaw(dim, norm_w / sigma, n_syn)
    pair = AuditPair(law_p, law_q, norm_v / sigma, norm_w / sigma, "", lambda s: math.nan)

    def run(features, labels) -> tuple[NDArray[np.float64], PrivateLinearGenerator]:
        scores = np.empty(trials)
        generator = None
        for i in range(trials):
            seed = int.from_bytes(rng.bytes(16), "little")
            generator = PrivateLinearGenerator(
                label_bound=label_bound,
                ridge=ridge,
                sigma=sigma,
                n_syn=n_syn,
                accounting="post-processing",
                sampler=sampler,
                random_state=seed,
            ).fit(features, labels)
            records = generator.sample(n_syn)
            scale = generator.seed_scale_ * generator.sigma_
            scores[i] = float(np.sum(records * records)) / (scale * scale)
        return scores, generator

    thresholds = fixed_thresholds(pair, trials) if correction == "bonferroni" else None
    scores_p, generator = run(*datasets[0])
    scores_q, _ = run(*datasets[1])
    if (generator.norm_bound_, generator.sensitivity_) != (norm_bound, sensitivity):
        raise RuntimeError(
            "the generator's declared C and Δ differ from ridge_norm_bound/sensitivity"
        )
    test = epsilon_lower_bound(
        scores_p, scores_q, delta, confidence=confidence, thresholds=thresholds
    )
    release = SyntheticDataRelease(dim, 1, norm_bound, sensitivity, sigma, n_syn=n_syn)
    upper = float(compute_epsilon(release, delta, accountant="rdp").epsilon)
    exact = threshold_epsilon(law_p, law_q, delta)[0]
    return EndToEndAudit(
        epsilon_lower=test.epsilon,
        epsilon_upper=upper,
        epsilon_pair=exact,
        consistent=test.epsilon <= upper,
        tightness=test.epsilon / upper if upper > 0 else math.nan,
        test=test,
        norm_v=norm_v,
        norm_w=norm_w,
        norm_bound=norm_bound,
        sensitivity=sensitivity,
        sigma=sigma,
        dim=dim,
        n_records=n_records,
        n_syn=n_syn,
        trials=trials,
        delta=delta,
        confidence=confidence,
    )
