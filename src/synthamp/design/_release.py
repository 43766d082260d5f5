"""One release on a public design, accounted at the level of the Gram statistic.

:func:`design_release` is the library entry point of ``release --design``: it builds the
public design from its recorded seed (:class:`synthamp.design._designs.PublicDesign`),
computes the certified public-design bounds Δ, C, s₂ (docs/theory.md §19),
calibrates σ under the norm model and, for k = 1, under the statistic-level adjacency
(docs/gram-adjacency.md), assigns the records to the rows of a random-seeds design by a
uniform permutation from the noise's entropy (so the guarantee holds whatever the file's
order, docs/theory.md §19), perturbs the model v = M Y once (V = v + σN, N from
operating-system entropy, never from the design's seed) and keeps only the k × k factor R
with RᵀR = σ_z²VᵀV, from which the records are drawn (docs/theory.md §17). The design is
drawn once: the pass that builds K also accumulates XN and NᵀN, and VᵀV is assembled from
them without forming v (:mod:`synthamp.design._stream`); N, XN and VᵀV are dropped before
it returns. The unlimited-release guarantee covers R.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp._budget import report_status
from synthamp._parameters import validated, validated_one, validated_optional
from synthamp._validation import (
    InputError,
    check_real_table,
)
from synthamp.accountant import (
    REALISED_LOWER,
    CertifiedGuarantee,
    Guarantee,
    PublicDesignRelease,
    SyntheticDataRelease,
    calibrate,
    calibrate_certified,
)
from synthamp.design._designs import (
    DesignBounds,
    PublicDesign,
    check_adjacency,
    design_bounds,
    design_pass,
)
from synthamp.design._memory import check_design_memory
from synthamp.design._orthogonal import (
    ORTHOGONAL,
    OrthogonalBounds,
    orthogonal_bounds,
    orthogonal_gram_rows,
)
from synthamp.design._pairs import (
    COMPARISON_TIME_BUDGET,
    DesignPairComparison,
    compare_design_accounting,
    comparison_orders,
)
from synthamp.design._stream import factor_of_gram, released_gram
from synthamp.divergence._wishart import MAX_DIM_K2
from synthamp.release._curves import guarantee_curves
from synthamp.release._partitioned import PartitionTask, partitions_root, plan_partitions
from synthamp.release._ridge import (
    OBJECTIVE,
    _draw_with_factor,
    _gram_factor,
    check_release_scale,
    clip_rows,
)
from synthamp.report._build import build_report
from synthamp.report._design_wording import (
    BEYOND,
    ORTHOGONAL_EXACT,
    design_seed_policy,
    exact_on_orthogonal,
    lower_line,
    noise_sentence,
    protected,
)
from synthamp.report._privacy import SEEDED_WARNING, PrivacyReport, utility_text
from synthamp.report._result import DesignFacts, ReleaseResult
from synthamp.utility import design_statistic_sensitivity, release_utility

__all__ = [
    "DesignAccounting",
    "DesignRelease",
    "account_design",
    "design_release",
    "row_permutation",
]


def row_permutation(entropy: np.random.SeedSequence, n_records: int) -> NDArray[np.intp]:
    """The uniform assignment of records to design rows: row i holds record π[i].

    Drawn from the noise's own source (a child of its ``SeedSequence``: OS entropy, or a
    seeded research run's stream), never from the design's public seed, so that the
    guarantee holds whatever the file's order (docs/theory.md §19). Private: never
    write, log or print it.
    """
    return np.random.Generator(np.random.PCG64(entropy)).permutation(n_records)


@dataclass(eq=False)
class DesignRelease:
    """A perturbed generator on a public design, ready to draw records (:func:`design_release`).

    Public attributes only: the design (name, width, seed), the bounds, σ under both
    adjacencies, the accounted release and its utility. The factor R is private state.

    Attributes
    ----------
    design : PublicDesign
    ridge, label_bound : float
    sensitivity, norm_bound : float
        Δ and C (docs/theory.md §19).
    gram_sensitivity : float or None
        s₂ (k = 1), None for k > 1.
    sigma : float
        The σ used (of ``adjacency``).
    sigma_norm, sigma_gram : float or None
        σ calibrated under the norm model and under the Gram adjacency (None for k > 1).
    adjacency : {"gram", "norm"}
    release : SyntheticDataRelease
        The accounted mechanism.
    utility : dict
        :func:`synthamp.utility.release_utility` of the release, plus, for k = 1,
        ``gram_error_baseline_s2``: RMSE of the Gaussian mechanism on ‖v‖² with
        sensitivity s₂ (the same statistic at the same (ε, δ)).
    guarantee, guarantee_norm : Guarantee
        The guarantee used (of ``adjacency``) and the norm model's, by the rule.
    comparison : DesignPairComparison or None
        The accounted curve beside concrete adjacent datasets on the design (a lower
        bound) and, for k = 2, the searched reachable Gram pairs (heuristic); None where
        the exact engines do not reach (k > 2, or k = 2 with D > 10⁴) and for the
        certified k ≥ 2 guarantee (its realised pair's lower bound stands beside it).
    statistic_sensitivity : float
        The replace-one sensitivity of vᵀv on the design that the anchors use
        (:func:`synthamp.utility.design_statistic_sensitivity`).
    certified : CertifiedGuarantee or None
        k ≥ 2 under the Gram adjacency: the certified reduction's guarantee
        (docs/theory.md §20), with the realised pair's lower bound; None otherwise.
    result : ReleaseResult
        What was accounted, as data (public numbers, the guarantee room's decision, the
        design's facts): :func:`synthamp.report.build_report` builds the report from it.
    """

    design: PublicDesign
    ridge: float
    label_bound: float
    sensitivity: float
    norm_bound: float
    gram_sensitivity: float | None
    epsilon: float
    delta: float
    sigma: float
    sigma_norm: float
    sigma_gram: float | None
    adjacency: str
    accountant: str
    release: SyntheticDataRelease
    utility: dict
    seed_scale: float
    guarantee: Guarantee
    guarantee_norm: Guarantee
    _factor: NDArray[np.float64] = field(repr=False)
    _rng: np.random.Generator = field(repr=False)
    seeded: bool = False
    comparison: DesignPairComparison | None = None
    row_permutation: str = "secret"
    #: 1ᵀG1, G = MᵀM (public: a function of the design and λ; g·m on an orthogonal design):
    #: a constant target column c gives (vᵀv) entry c²·1ᵀG1 exactly (the table's records)
    ones_gram: float | None = None
    certified: CertifiedGuarantee | None = None
    #: the replace-one sensitivity of vᵀv on the design, for the anchors (account_design)
    statistic_sensitivity: float | None = None
    #: what was accounted, as data: the report's one source (:func:`synthamp.report.build_report`)
    result: ReleaseResult | None = field(default=None, repr=False)

    @property
    def epsilon_lower_realised(self) -> float | None:
        """The realised pair's lower bound on the true ε at the guarantee's δ (k ≥ 2, Gram
        adjacency; None otherwise)."""
        return None if self.certified is None else self.certified.epsilon_lower_realised

    @property
    def certified_over_lower(self) -> float | None:
        """The certified guarantee's ε over :attr:`epsilon_lower_realised`."""
        return None if self.certified is None else self.certified.certified_over_lower

    @property
    def facts(self) -> DesignFacts:
        """The public design and its accountings, as the report reads them."""
        return self.result.design

    def sample(self, n: int) -> NDArray[np.float64]:
        """``n`` synthetic records σ_z·gR, g ~ N(0, I_k): exactly the law of ZV given V."""
        n = validated_one("n", n)
        return _draw_with_factor(self._factor, n, self._rng)

    def iter_samples(self, n: int, chunk_size: int = 262_144):
        """``n`` records in chunks of at most ``chunk_size`` rows (memory flat in n)."""
        n = validated_one("n", n)
        for start in range(0, n, chunk_size):
            yield _draw_with_factor(self._factor, min(chunk_size, n - start), self._rng)

    def utility_at(self, n_syn: int | None) -> dict:
        """:func:`synthamp.utility.release_utility` of the release at ``n_syn`` records.

        ``n_syn``: the records written (None: n → ∞, as :attr:`utility`). For k = 1 the
        baselines on ‖v‖² use the public design's s₂ (as :func:`account_design`).
        """
        if n_syn is None:
            return dict(self.utility)
        out = release_utility(
            epsilon=self.epsilon, delta=self.delta, sigma=self.sigma, dim=self.design.width,
            out_dim=self.release.out_dim, norm_bound=self.norm_bound,
            sensitivity=self.sensitivity, n_syn=n_syn,
            statistic_sensitivity=self.statistic_sensitivity,
        )  # fmt: skip
        if self.gram_sensitivity is not None:
            out["gram_error_baseline_s2"] = out["gram_error_baseline"]
        return out

    def summary(self, n_syn: int | None = None) -> list[str]:
        """What a data holder reads: the guarantee, both accountings, the utility beside the
        baselines at the ``n_syn`` records written (None: n → ∞; the verdict says which
        serves better), never noise saved as utility."""
        d = self.design
        lines = [
            f"design: {d.name}, width D = {d.width:,}, public seed {d.seed} (recorded; not the "
            "noise's entropy)",
            f"protected: {protected(self.facts)}",
            f"guarantee: ({self.guarantee.epsilon:.6g}, {self.delta:g})-DP for any number of "
            f"records ({self.guarantee.accountant}, {self.guarantee.kind}; {self.adjacency} "
            "adjacency)",
            *([] if self.certified is None else [f"  {self.guarantee.reason}."]),
            *([] if lower_line(self.facts) is None else [lower_line(self.facts)]),
            f"bounds: Δ = {self.sensitivity:.4g}, C = {self.norm_bound:.4g}"
            + ("" if self.gram_sensitivity is None else f", s₂ = {self.gram_sensitivity:.4g}"),
            f"noise: {noise_sentence(self.facts, self.guarantee.sigma_post_processing)}",
        ]
        utility = self.utility_at(n_syn)
        verdict = utility.get("utility_verdict")
        if verdict:
            first, *table = utility_text(verdict, utility.get("utility_table", ()))
            lines += [f"utility: {first}", *table]
        if self.gram_sensitivity is not None:
            lines.append(
                "(the baseline is the Gaussian mechanism on ‖v‖² with its public-design "
                f"sensitivity s₂ = {self.gram_sensitivity:.4g}: the same statistic, same (ε, δ))"
            )
        if exact_on_orthogonal(self.facts):
            lines.append(ORTHOGONAL_EXACT)
        if self.seeded:
            policy = design_seed_policy(self.facts, self.seeded)
            lines.append(f"warning: {SEEDED_WARNING}. {policy}")
        return lines + self._comparison_lines()

    def _comparison_lines(self) -> list[str]:
        """The accounted RDP beside concrete pairs (and, k = 2, the searched Gram pairs)."""
        if self.comparison is None:
            if self.certified is not None:  # the realised pair's lower bound stands beside it
                return []
            return [f"Rényi divergence (nats) beside concrete pairs: {BEYOND}"]
        return [
            "Rényi divergence (nats) of the accounted curve beside concrete adjacent datasets "
            "on this design:",
            *(f"  {line}" for line in self.comparison.lines()),
            self.comparison.note,
        ]

    @property
    def privacy(self) -> PrivacyReport:
        """The release's report (n → ∞; a job's report names the records it wrote):
        :func:`synthamp.report.build_report` of :attr:`result`, as every release's."""
        return build_report(self.result)

    def partition_tasks(self, n_total: int, partitions: int) -> tuple[PartitionTask, ...]:
        """``n_total`` records in ``partitions`` independent tasks (local or dask workers).

        Each task holds the k × k factor R (RᵀR = σ_z²VᵀV: what the unlimited-release
        guarantee covers, docs/theory.md §3, §17) and its own seed, from fresh OS entropy
        (or, for a seeded research run, from the release's sampling stream), never from
        the noise's seed.
        """
        n_total, partitions = validated(n_total=n_total, partitions=partitions)
        if partitions > n_total:
            raise InputError("partitions", f"{partitions} partitions for {n_total} records")
        root = partitions_root(self._rng if self.seeded else None)
        return plan_partitions(self._factor, root, n_total, partitions)

    def __getstate__(self):
        raise TypeError("a DesignRelease holds the Gram factor of V: it is not pickled")


@dataclass(frozen=True)
class DesignAccounting:
    """The accounting of one release on a public design (:func:`account_design`).

    Attributes
    ----------
    guarantee, guarantee_norm : Guarantee
        The guarantee used (of the adjacency) and the norm model's, by the rule.
    sigma, sigma_norm : float
        σ used, and σ under the norm model.
    sigma_gram, gram_sensitivity : float or None
        σ under the Gram adjacency and s₂ (k = 1; None for k > 1).
    release : SyntheticDataRelease
        The accounted mechanism (unlimited release; for k ≥ 2 under the Gram adjacency its
        norm-model description at σ, for the utility: the guarantee is ``certified``'s).
    utility : dict
        :func:`synthamp.utility.release_utility` of the release with, for k = 1, the
        baseline on ‖v‖² at sensitivity s₂ (``gram_error_baseline_s2``).
    statistic_sensitivity : float
        The replace-one sensitivity of vᵀv on the design that the anchors use
        (:func:`synthamp.utility.design_statistic_sensitivity`).
    certified : CertifiedGuarantee or None
        k ≥ 2 under the Gram adjacency: the certified reduction's guarantee
        (:func:`synthamp.accountant.calibrate_certified`), with the realised pair's lower
        bound; None otherwise.
    """

    guarantee: Guarantee
    guarantee_norm: Guarantee
    sigma: float
    sigma_norm: float
    sigma_gram: float | None
    gram_sensitivity: float | None
    statistic_sensitivity: float
    release: SyntheticDataRelease
    utility: dict
    certified: CertifiedGuarantee | None = None


def design_scale_logs(bounds: DesignBounds) -> dict[str, float]:
    """log C and log Δ of a design, for :func:`~synthamp.release._ridge.check_release_scale`."""
    return {  # a zero bound (underflow) is below every scale
        "design's norm bound C": math.log(bounds.norm_bound)
        if bounds.norm_bound > 0
        else -math.inf,
        "design's sensitivity Δ": math.log(bounds.sensitivity)
        if bounds.sensitivity > 0
        else -math.inf,
    }


def certified_design_release(
    bounds: DesignBounds | OrthogonalBounds, label_bound: float, width: int, out_dim: int
) -> PublicDesignRelease:
    """The k ≥ 2 release on a public design as the certified accountant describes it (σ = 1).

    An orthogonal design has G = g·I exactly (c* = B√g, no cross term: a 1 × 1 block
    carries it; c* from g rounded up, the realised pair's norm, which gives the lower bound,
    rounded down); another design passes its certified Ĝ with the entrywise error ε_S of
    :class:`DesignBounds` (``gram_error``).
    """
    if isinstance(bounds, OrthogonalBounds):  # g is rounded up (two ulps at most): the
        public = PublicDesignRelease.from_gram(  # realised norm B√g is moved down past it
            np.full((1, 1), bounds.gram_scale), label_bound, width, out_dim, 1.0
        )
        low = public.realised_norm * (1.0 - 8.0 * np.finfo(float).eps)
        return dataclasses.replace(public, realised_norm=low)
    gram, error = bounds.gram, bounds.gram_error
    if not math.isfinite(error):
        raise InputError("adjacency", "the design's Gram matrix has no certified error bound")
    return PublicDesignRelease.from_gram(gram, label_bound, width, out_dim, 1.0, gram_error=error)


def account_design(
    bounds: DesignBounds | OrthogonalBounds,
    width: int,
    out_dim: int,
    epsilon: float,
    delta: float,
    *,
    adjacency: str = "gram",
    accountant: str | None = None,
    label_bound: float | None = None,
) -> DesignAccounting:
    """σ of an unlimited release on a public design under both adjacencies, and its utility.

    Public quantities only (the design's bounds, docs/theory.md §19): the same numbers
    for :func:`design_release` and for the plan (:func:`synthamp.release.plan_release`
    with a design). The Gram adjacency is docs/gram-adjacency.md's theorem for k = 1 and,
    for k ≥ 2, the certified reduction of docs/theory.md §20
    (:func:`synthamp.accountant.calibrate_certified`, which needs ``label_bound`` B);
    the norm adjacency is Theorem 5.4's norm model.
    """
    k = out_dim
    common = dict(dim=width, out_dim=k, norm_bound=bounds.norm_bound)
    common |= dict(sensitivity=bounds.sensitivity, accountant=accountant)
    report_status("calibrating σ (norm model and Gram adjacency)")
    # the guarantee rule (accountant._guarantee) under each adjacency
    guarantee_norm = calibrate(epsilon, delta, **common)
    s2 = bounds.gram_sensitivity if k == 1 else None
    guarantee_gram = certified = None
    if s2 is not None:
        guarantee_gram = calibrate(epsilon, delta, **common, gram_sensitivity=s2)
    elif adjacency == "gram":  # k ≥ 2: the certified reduction (docs/theory.md §20)
        if label_bound is None:
            raise InputError("label_bound", "is needed for the k ≥ 2 certificate")
        public = certified_design_release(bounds, label_bound, width, k)
        certified = calibrate_certified(public, epsilon, delta)
        guarantee_gram = certified.as_guarantee(public, target_epsilon=epsilon)
    sigma_gram = None if guarantee_gram is None else guarantee_gram.sigma
    guarantee = guarantee_gram if adjacency == "gram" else guarantee_norm
    sigma = sigma_gram if adjacency == "gram" else guarantee_norm.sigma
    release = SyntheticDataRelease(
        width, k, bounds.norm_bound, bounds.sensitivity, sigma,
        gram_sensitivity=s2 if adjacency == "gram" else None,
    )  # fmt: skip
    # the anchors on vᵀv itself, with the same public design (k = 1: s₂; k ≥ 2: certified)
    statistic = design_statistic_sensitivity(k, s2, bounds.gram_sensitivity_theory)
    utility = release_utility(
        epsilon=epsilon, delta=delta, sigma=sigma, dim=width, out_dim=k,
        norm_bound=bounds.norm_bound, sensitivity=bounds.sensitivity, n_syn=None,
        statistic_sensitivity=statistic,
    )  # fmt: skip
    if s2 is not None:
        utility["gram_error_baseline_s2"] = utility["gram_error_baseline"]
    return DesignAccounting(
        guarantee=guarantee, guarantee_norm=guarantee_norm, sigma=sigma,
        sigma_norm=guarantee_norm.sigma, sigma_gram=sigma_gram, gram_sensitivity=s2,
        statistic_sensitivity=statistic, release=release, utility=utility, certified=certified,
    )  # fmt: skip


def design_release(
    targets: ArrayLike,
    design: str,
    width: int,
    seed: int,
    *,
    epsilon: float,
    delta: float,
    ridge: float = 0.01,
    label_bound: float = 1.0,
    inputs: ArrayLike | None = None,
    adjacency: str = "gram",
    accountant: str | None = None,
    seed_scale: float | None = None,
    random_state: int | None = None,
    time_budget: float | None = COMPARISON_TIME_BUDGET,
) -> DesignRelease:
    """Fit, account and perturb a generator of ``targets`` on a public design.

    Parameters
    ----------
    targets : array_like
        The private columns Y (m × k, or m): rows clipped to ‖yᵢ‖ <= ``label_bound``
        (a per-record map, which keeps adjacency).
    design : {"random-seeds", "random-features", "orthogonal"}
    width : int
        D, up to 10⁶ (memory and time linear in D, m × m dual; ``orthogonal``: D >= m,
        closed-form bounds and VᵀV sampled from its exact law, O(mk² + k³) whatever D).
    seed : int
        The design's public seed (record it; it is not the noise's).
    epsilon, delta : float
        The target (ε, δ) of one unlimited release.
    ridge : float, default 0.01
        λ (penalty λ‖W‖², docs/theory.md §13).
    label_bound : float, default 1.0
        B.
    inputs : array_like, optional
        ``random-features``: the public inputs (m × p), declared public by passing them.
        Features of private inputs make M depend on the data: docs/theory.md §13 applies
        then, and this design does not (use :class:`~synthamp.release.PrivateLinearGenerator`).
    adjacency : {"gram", "norm"}, default "gram"
        "gram": the reachable set of Gram pairs (k = 1 only; docs/gram-adjacency.md).
    accountant : {"pld", "rdp"} or None, default None
        None: the guarantee rule (:func:`synthamp.accountant.calibrate`: the exact
        privacy profile for k = 1, RDP for k > 1); a name: that accountant.
    seed_scale : float, optional
        σ_z (default 1/√D); it does not change the privacy.
    random_state : int, optional
        Seed of the noise, the draws and the rows' order, for reproducible research only
        (default: OS entropy; the report then says the noise is not secret).
    time_budget : float or None, default 30
        Seconds for the comparison with concrete pairs (None: no limit); past them
        what was verified stands, and the report says so.

    Returns
    -------
    DesignRelease
    """
    y = check_real_table("targets", targets)  # the generator's check (bool, masked, text)
    y = y[:, None] if y.ndim == 1 else y
    if y.ndim != 2 or y.shape[0] < 1 or y.shape[1] < 1:
        raise InputError("targets", "must be a finite m × k table")
    m, k = y.shape
    epsilon, delta = validated(epsilon=epsilon, delta=delta)
    random_state, time_budget = validated_optional(
        random_state=random_state, time_budget=time_budget
    )
    adjacency = check_adjacency(adjacency, k)
    label_bound, ridge = validated(label_bound=label_bound, ridge=ridge)
    check_release_scale(label_bound, ridge, {"label bound B": math.log(label_bound)})
    public = PublicDesign(design, width, m, seed, inputs=inputs)  # orthogonal: D >= m
    # one root (OS entropy, or the research seed) for the noise, the draws and the rows' order
    noise_seq, sample_seq, order_seq = np.random.SeedSequence(random_state).spawn(3)
    noise = np.random.Generator(np.random.PCG64(noise_seq))
    drawn = None  # the noise's projection XN, NᵀN: private, accumulated in the design's pass
    if design == ORTHOGONAL:  # G = g·I_m exactly: closed forms, no m × m work
        bounds = orthogonal_bounds(m, ridge, label_bound)
    else:  # certified, or refused naming ridge/width; the design drawn once (_stream)
        check_design_memory(m)  # before the m × m work allocates anything
        spectrum, drawn = design_pass(public, noise, k)
        bounds = design_bounds(spectrum, ridge, label_bound)
    check_release_scale(label_bound, ridge, design_scale_logs(bounds))
    accounted = account_design(
        bounds, public.width, k, epsilon, delta, adjacency=adjacency, accountant=accountant,
        label_bound=label_bound,
    )  # fmt: skip
    sigma, s2 = accounted.sigma, accounted.gram_sensitivity
    scale = 1.0 / math.sqrt(public.width) if seed_scale is None else seed_scale
    scale = validated_one("seed_scale", scale)
    if design == ORTHOGONAL:  # VᵀV from its exact law; g·YᵀY does not depend on the order
        rows = orthogonal_gram_rows(clip_rows(y, label_bound), public.width, ridge, sigma, noise)
        factor = scale * _gram_factor(rows)
        del rows
        order = "order-free"
    elif public.inputs is None:  # seeds sit at positions: the records take uniform ones
        y = y[row_permutation(order_seq, m)]
        order = "secret" if random_state is None else "seeded"
    else:  # row i is φ(uᵢ) of record i's own inputs: v does not depend on the order
        order = "order-free"
    if drawn is not None:  # VᵀV from the pass's XN, NᵀN (never printed, logged, written)
        gram = released_gram(spectrum, bounds.dual, clip_rows(y, label_bound), drawn, sigma)
        drawn.clear()
        factor = scale * factor_of_gram(gram)
        gram.fill(0.0)
        del gram, drawn
    comparison = None
    if accounted.certified is None and (k == 1 or (k == 2 and public.width <= MAX_DIM_K2)):
        orders = comparison_orders(accounted.guarantee.optimal_order)
        comparison = compare_design_accounting(
            accounted.release, bounds, label_bound, orders, seconds=time_budget
        )
    facts = DesignFacts(
        name=public.name, seed=public.seed, has_inputs=public.inputs is not None,
        row_permutation=order, adjacency=adjacency, sigma_norm=accounted.sigma_norm,
        sigma_gram=accounted.sigma_gram, gram_sensitivity=s2,
        statistic_sensitivity=accounted.statistic_sensitivity, certified=accounted.certified,
        lower_bound=None if accounted.certified is None else REALISED_LOWER,
        comparison=comparison,
    )  # fmt: skip
    result = ReleaseResult(
        guarantee=accounted.guarantee, release=accounted.release, n_records=m, ridge=ridge,
        label_bound=label_bound, seed_scale=scale, objective=OBJECTIVE,
        seeded=random_state is not None, anchor_epsilon=epsilon, design=facts,
        curves=guarantee_curves(
            accounted.release, accounted.guarantee, method="exact",
            curve=None if accounted.certified is None else accounted.certified.rdp,
        ),
    )  # fmt: skip
    return DesignRelease(
        result=result,
        design=public,
        ridge=ridge,
        label_bound=label_bound,
        sensitivity=bounds.sensitivity,
        norm_bound=bounds.norm_bound,
        gram_sensitivity=s2,
        epsilon=epsilon,
        delta=delta,
        sigma=sigma,
        sigma_norm=accounted.sigma_norm,
        sigma_gram=accounted.sigma_gram,
        adjacency=adjacency,
        accountant=accounted.guarantee.accountant,
        release=accounted.release,
        utility=accounted.utility,
        seed_scale=scale,
        guarantee=accounted.guarantee,
        guarantee_norm=accounted.guarantee_norm,
        _factor=factor,
        _rng=np.random.Generator(np.random.PCG64(sample_seq)),
        seeded=random_state is not None,
        comparison=comparison,
        row_permutation=order,
        certified=accounted.certified,
        statistic_sensitivity=accounted.statistic_sensitivity,
        ones_gram=(bounds.gram_scale * m if design == ORTHOGONAL else float(np.sum(bounds.gram))),
    )
