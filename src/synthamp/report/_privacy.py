"""The privacy report of a synthetic data release (JSON and Markdown).

A :class:`PrivacyReport` is an immutable record of everything a reader needs to
check a release: the guarantee (ε, δ, the optimal Rényi order), how it was
obtained (σ, Δ, C, d, k, m, n_syn, λ, B, the accounting method and the kind of
number it returns), the noise that post-processing accounting would need for
the same guarantee, the adjacency notion, what is and is not released, and the
seed policy. It holds public quantities only: it is built from the declared
bounds and the accountant's output, never from the private data or from the
unperturbed model, the noise or the seeds.

One shape for every release kind (the generator, a public design, a whole table): the
fields a kind lacks are None. :func:`synthamp.report.build_report` builds it from a
release's typed result (the generator's ``privacy_``, a design release's ``privacy``);
:func:`synthamp.report.write_report` writes it as JSON, Markdown and HTML.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from synthamp._budget import PLATEAU_FALLBACK
from synthamp.report._escape import markdown_text
from synthamp.utility import NO_INFORMATION

__all__ = [
    "ADJACENCY",
    "DESIGN_ADJACENCY",
    "PUBLIC_INPUTS",
    "REPORT_SCHEMA",
    "SCHEMA_VERSION",
    "SEEDED_WARNING",
    "PrivacyReport",
    "protected_columns",
    "seed_policy",
    "utility_table_cells",
    "utility_text",
]

#: Version of every JSON synthamp writes: the report and the ``--json`` output of the
#: commands (docs/json.md, docs/synthamp-output.schema.json); bump when a key changes meaning
#: or the report gains keys (2: the report's utility beside the baseline, ``gram_error``,
#: ``gram_error_floor``, ``gram_error_baseline``, ``utility_verdict``; 3: one guarantee rule,
#: ``accountant._guarantee``: ``epsilon_post_processing`` is everywhere releasing V at the
#: release's own σ, and ``calibrate``'s ``sigma_rdp`` is null when the finite calibration
#: was provably useless and not started; 4: the report's ``utility_table``, the records
#: beside every baseline of docs/theory.md §18, and a ``utility_verdict`` naming the best
#: mechanism for the second moment and for the coefficients; ``plan`` rows gain both; 5: one
#: report shape for every release kind: a release on a public design writes this report (its
#: numbers in ``design``, ``design_seed``, ``sigma_norm``, ... null for the generator), every
#: report gains ``accountant_reason`` and, once written, ``records`` and ``columns``).
SCHEMA_VERSION = 5

#: Version of the report's layout (the same number: one schema for everything).
REPORT_SCHEMA = SCHEMA_VERSION

#: The neighbouring relation every guarantee of synthamp refers to.
ADJACENCY = (
    "replace-one: two datasets are adjacent if they have the same number m of records "
    "and differ in one record (features and targets); m is treated as public"
)

#: The neighbouring relation of a release on a public design (docs/theory.md §19): the
#: records' positions are drawn by a uniform permutation, so the file's order does not matter.
DESIGN_ADJACENCY = (
    "replace-one: two datasets are adjacent if they have the same number m of records and "
    "differ in the target columns of one record, whatever the file's order (the input columns, "
    "if any, are public and the same in both); m is treated as public"
)

#: What a release on a public design protects: said once, rendered by every output.
PUBLIC_INPUTS = "only the target columns are protected; the input columns are treated as public"


def protected_columns(has_inputs: bool) -> str:
    """What a release on a public design protects (docs/theory.md §19), for every output.

    Parameters
    ----------
    has_inputs : bool
        True if the design is built from declared public input columns (random features).
    """
    if has_inputs:
        return PUBLIC_INPUTS
    return "only the target columns are read and protected; no other column is used"


#: The one-line warning of a seeded run (terminal and summaries), before its seed policy.
SEEDED_WARNING = "seeded run: the noise is not secret"


def seed_policy(seeded: bool) -> str:
    """Where the noise came from, in one wording for every release (docs/theory.md §17).

    Parameters
    ----------
    seeded : bool
        True for a research run seeded by the user (the noise is then not secret).
    """
    if seeded:
        return (
            "Noise N and seeds Z were derived from a user-supplied seed, for reproducible "
            "research: anyone who knows the seed can recompute the noise, so the noise is "
            "not secret and the guarantee holds only while the seed stays secret."
        )
    return (
        "Noise N and seeds Z were drawn from numpy's PCG64 generator seeded with 128 bits "
        "of operating-system entropy (numpy.random.SeedSequence()); the seed is neither "
        "stored nor shown."
    )


@dataclass(frozen=True)
class PrivacyReport:
    """Privacy report of one release, whatever its kind (generator or public design).

    All numbers are in natural units (σ, Δ and C in the units of the model
    parameters after the declared scaling). ``n_syn = None`` means the guarantee
    holds for an unlimited number of synthetic records (docs/theory.md §3, the
    plateau D_α(VᵀV‖WᵀW)).

    Attributes
    ----------
    epsilon, delta : float
        The (ε, δ)-DP guarantee of what is released.
    optimal_order : float or None
        The Rényi order α at which the RDP-to-(ε, δ) conversion of
        ``epsilon_rdp`` is optimal (None: no RDP number).
    sigma : float
        Standard deviation σ of the output perturbation V = v + σN.
    sensitivity : float
        Δ, the replace-one sensitivity of the unperturbed model in Frobenius
        norm (docs/theory.md §13).
    norm_bound : float
        C, the bound on the Frobenius norm of the unperturbed model.
    dim, out_dim : int
        d, the model width (number of features), and k, the record dimension
        (number of targets).
    n_records : int
        m, the number of private records (public under replace-one adjacency).
    n_syn : int or None
        Number of synthetic records the guarantee covers (None: unlimited).
    ridge : float
        λ of the objective ``objective``.
    label_bound : float
        B, the bound on the Euclidean norm of a target row.
    seed_scale : float
        σ_z, the standard deviation of the hidden seeds Z (it does not enter
        the guarantee).
    accounting_method : str
        ``"exact"``, ``"global"`` or ``"post-processing"``.
    accounting_kind : str
        Kind of the accountant's number: ``"exact"`` or ``"certified"``.
    sigma_post_processing : float
        σ that post-processing accounting (releasing V itself) would need for
        the same (ε, δ).
    epsilon_post_processing : float
        ε that post-processing accounting gives at this σ and δ.
    model_released : bool
        Whether V itself is released (then the accounting is post-processing).
    adjacency, objective, feature_scaling, seed_policy : str
        Plain-language statements of the neighbouring relation, the ridge
        objective (the λ convention), the feature scaling and the randomness.
    noise_secret : bool
        False if the noise was drawn from a user seed: then the guarantee holds
        only against an adversary who does not know the seed.
    released, not_released : tuple of str
        What a reader of the release obtains and what stays private.
    notes : tuple of str
        Caveats that weaken or qualify the guarantee (empty in the default,
        fully covered configuration).
    accountant : str
        The accountant whose ε is the guarantee: ``"pld"`` (the exact privacy
        profile, docs/theory.md §14) or ``"rdp"`` (the RDP curve, converted).
    epsilon_rdp, epsilon_pld : float or None
        ε at this σ and δ of the release described (its ``n_syn``) by each
        accountant (None: not computed); the guarantee is the one named by
        ``accountant``, or the unlimited release's (``guarantee``).
    epsilon_unlimited_pld : float or None
        For k = 1, a finite ``n_syn``, exact accounting and the default
        accountant: ε at this σ and δ of the unlimited release's exact privacy
        profile (PLD), which bounds every n_syn (docs/theory.md §3). None otherwise.
    guarantee : str or None
        Where ``epsilon_unlimited_pld`` is set: which number is the guarantee,
        ``"finite_rdp"`` (``epsilon_rdp``) or ``"unlimited_pld"``
        (``epsilon_unlimited_pld``), the smaller; ``accounting_note`` says so
        with these numbers. None otherwise.
    synthamp_version : str
        Version of synthamp that made the release.
    accounting_note : str
        How the accounting ended when it is not what was asked (e.g. the
        finite-release accounting stopped at its time budget and the
        unlimited-release (plateau) bound, sound for every n_syn, was used),
        and, where ``guarantee`` is set, which of ``epsilon_rdp`` and
        ``epsilon_unlimited_pld`` is the guarantee, with both. Empty otherwise.
        It does not qualify the guarantee.
    amplification : str
        One line on whether amplification pays at this setting, why (c = C/σ
        against d) and the levers (docs/theory.md §16; heuristic, for insight).
    gram_error : float or None
        Upper bound on the root-mean-square error (Frobenius) of the Gram matrix
        vᵀv estimated from the records (:func:`synthamp.release._ridge.debiased_gram`), at
        the largest model ‖v‖_F = C and ``n_syn`` records (None: the n → ∞ limit);
        certified, from public quantities (:func:`synthamp.utility.gram_error_bound`).
    gram_error_floor : float or None
        Lower bound on that error for every v and every number of records
        (:func:`synthamp.utility.records_error_floor`).
    gram_error_baseline : float or None
        Exact RMSE of the baseline, the Gaussian mechanism on vᵀv at the same
        (ε, δ) (:func:`synthamp.utility.gaussian_gram_error`); None where ε is
        not positive and finite.
    utility_verdict : str
        The one sentence that says which of the two serves the user better
        (:func:`synthamp.utility.utility_verdict`): which mechanism serves the
        user best for the second moment vᵀv and for the coefficients v, and by how
        much; every rendering prints it.
    utility_table : tuple of dict
        The rows of :func:`synthamp.utility.utility_table`: the records beside each
        baseline at the same (ε, δ) (mechanism, releases, statistic, rmse,
        relative_error, ratio_to_records, rmse_floor, kind); empty in a report written
        before schema 4 or without a baseline. Every rendering shows them.
    accountant_reason : str or None
        Why this accountant and this bound, in the guarantee room's one sentence.
    design, design_seed, design_seed_public, protected, row_permutation : optional
        A release on a public design (docs/theory.md §19): the design's name, its public
        seed (recorded; not the noise's entropy), what the release protects and how the
        records were assigned to the design's rows. None for the generator.
    adjacency_model : {"gram", "norm"} or None
        The adjacency a design release is accounted under (None for the generator).
    gram_sensitivity, sigma_norm, sigma_gram : float or None
        s₂ and σ under the norm model and the Gram adjacency (a public design).
    epsilon_lower_realised, certified_over_lower, lower_bound : optional
        The certified k ≥ 2 guarantee's realised pair: a lower bound on the true ε, the
        guarantee over it (None where unbounded) and what it is.
    accounting_beside_concrete_pairs : dict or None
        A design's accounted curve beside concrete adjacent datasets.
    records : int or None
        Synthetic records written (None in a fitted generator's ``privacy_``, before any
        record is written; so are the four fields below).
    columns : tuple of str or None
        Their column names.
    records_kind : {"raw", "table"} or None
        The mechanism's records ZV, or records in the table's units read off VᵀV.
    records_note : str or None
        What records in the table's units are (None for raw records).
    target_bounds : dict or None
        The targets' declared public ranges (a whole-table release).
    schema : int
        Version of this layout.
    """

    epsilon: float
    delta: float
    optimal_order: float | None
    sigma: float
    sensitivity: float
    norm_bound: float
    dim: int
    out_dim: int
    n_records: int
    n_syn: int | None
    ridge: float
    label_bound: float
    seed_scale: float
    accounting_method: str
    accounting_kind: str
    sigma_post_processing: float
    epsilon_post_processing: float
    model_released: bool
    adjacency: str
    objective: str
    feature_scaling: str
    seed_policy: str
    noise_secret: bool
    released: tuple[str, ...]
    not_released: tuple[str, ...]
    notes: tuple[str, ...] = ()
    accountant: str = "rdp"
    epsilon_rdp: float | None = None
    epsilon_pld: float | None = None
    synthamp_version: str = ""
    schema: int = REPORT_SCHEMA
    accounting_note: str = ""
    amplification: str = ""
    epsilon_unlimited_pld: float | None = None
    guarantee: str | None = None
    gram_error: float | None = None
    gram_error_floor: float | None = None
    gram_error_baseline: float | None = None
    utility_verdict: str = ""
    utility_table: tuple[dict[str, Any], ...] = ()
    accountant_reason: str | None = None
    design: str | None = None
    design_seed: int | None = None
    design_seed_public: bool | None = None
    protected: str | None = None
    row_permutation: str | None = None
    adjacency_model: str | None = None
    gram_sensitivity: float | None = None
    sigma_norm: float | None = None
    sigma_gram: float | None = None
    epsilon_lower_realised: float | None = None
    certified_over_lower: float | None = None
    lower_bound: str | None = None
    accounting_beside_concrete_pairs: dict[str, Any] | None = None
    records: int | None = None
    columns: tuple[str, ...] | None = None
    records_kind: str | None = None
    records_note: str | None = None
    target_bounds: dict[str, Any] | None = None
    curves: Any = dataclasses.field(default=None, compare=False, repr=False)

    def release_curves(self) -> Any:
        """The ε(δ) and Rényi curves the release computed for this report, or None.

        ``curves`` holds a :class:`synthamp.accountant.ReleaseCurves` or a function
        of no argument that computes it (once, on first use: a fit that never
        renders HTML does not pay for them); None for a report read from JSON
        (:func:`synthamp.release.report_curves` computes them). Not in the JSON.
        """
        if callable(self.curves):
            object.__setattr__(self, "curves", self.curves())
        return self.curves

    @property
    def noise_saved(self) -> float:
        """Fraction of the post-processing noise saved: max(0, 1 − σ/σ_post-processing).

        Never negative: an accounting method that needs more noise than
        post-processing saves nothing (σ and σ_post-processing are both in the
        report).
        """
        if not self.sigma_post_processing > 0:
            return 0.0
        return max(0.0, 1.0 - self.sigma / self.sigma_post_processing)

    @property
    def rdp_is_plateau_bound(self) -> bool:
        """True if the finite release's RDP accounting ran out of time and ``epsilon_rdp``
        is the plateau's bound (sound for every n_syn; ``accounting_note`` says so)."""
        return self.n_syn is not None and PLATEAU_FALLBACK in self.accounting_note

    @property
    def guarantee_is_unconditional(self) -> bool:
        """True if no caveat (user seed, data-dependent scaling) qualifies the guarantee."""
        return self.noise_secret and not self.notes

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary (tuples become lists; ``noise_saved`` is included).

        It opens with ``document: "privacy-report"`` and ``schema_version``
        (docs/json.md).
        """
        out: dict[str, Any] = {"document": "privacy-report", "schema_version": SCHEMA_VERSION}
        for field in dataclasses.fields(self):
            if field.name == "curves":
                continue
            value = getattr(self, field.name)
            if field.name == "epsilon_pld" and value is None and self.guarantee == "unlimited_pld":
                value = self.epsilon_unlimited_pld  # the pld accountant's ε: no null for it
            if field.name == "utility_table":
                value = [dict(row) for row in value]
            out[field.name] = list(value) if isinstance(value, tuple) else value
        out["noise_saved"] = self.noise_saved
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PrivacyReport:
        """Inverse of :meth:`to_dict` (unknown keys, e.g. ``noise_saved``, are ignored)."""
        names = {field.name for field in dataclasses.fields(cls)} - {"curves"}
        kwargs = {key: value for key, value in data.items() if key in names}
        for key in ("released", "not_released", "notes", "columns"):
            if kwargs.get(key) is not None:
                kwargs[key] = tuple(kwargs[key])
        if "utility_table" in kwargs:
            kwargs["utility_table"] = tuple(dict(row) for row in kwargs["utility_table"])
        if kwargs.get("guarantee") == "unlimited_pld":  # to_dict's epsilon_pld: the profile's
            kwargs["epsilon_pld"] = None  # the finite release's own profile: not computed
        return cls(**kwargs)

    def to_json(self) -> str:
        """The report as an indented JSON document."""
        return json.dumps(self.to_dict(), indent=2, allow_nan=False) + "\n"

    def guarantee_sentence(self, number: Callable[[float], str] | None = None) -> str:
        """The guarantee in one plain sentence, for a reader who does not know DP.

        Parameters
        ----------
        number : callable, optional
            Formats a number (default: 4 significant digits).
        """
        fmt = _num if number is None else number
        records = (
            "synthetic records (any number of them)"
            if self.n_syn is None
            else f"synthetic records (up to {self.n_syn:,} of them)"
        )
        published = f"noisy model V and {records}" if self.model_released else records
        proviso = "" if self.noise_secret else ", provided the user seed of this run stays secret"
        factor = fmt(math.exp(self.epsilon)) if self.epsilon < 700 else f"e^{fmt(self.epsilon)}"
        return (
            f"Whatever anyone concludes from the published {published}, that conclusion would "
            f"have been almost as likely had any one person's record been different: at most "
            f"{factor} times as likely, plus a probability of at most {fmt(self.delta)}{proviso}."
        )

    def epsilons_by_accounting(self) -> tuple[tuple[str, float | None, str], ...]:
        """(name, ε, meaning) of each accounting's ε at this σ and δ; the guarantee's says so.

        ``pld``: ``epsilon_pld``; ``pld, unlimited release``:
        ``epsilon_unlimited_pld``; ``rdp``: ``epsilon_rdp`` (at ``optimal_order``).
        None where not computed.
        """
        order = "" if self.optimal_order is None else f" = {_num(self.optimal_order)}"
        records = "" if self.guarantee is None else f" of exactly {self.n_syn:,} records"
        if self.rdp_is_plateau_bound:  # the finite accounting ran out of time
            records = f" of the plateau (bounds {self.n_syn:,} records; see the accounting note)"
        used = {"finite_rdp": "rdp", "unlimited_pld": "pld, unlimited release"}.get(
            self.guarantee or "", self.accountant
        )
        pld = (  # k ≥ 2 has a PLD only by the certified reduction (a design release)
            f"exact privacy profile{records}, docs/theory.md §14"
            if self.out_dim == 1
            else "PLD of the orthogonal node at width d − k and norm c* (certified), "
            "docs/theory.md §20"
        )
        rows = (
            ("pld", self.epsilon_pld, pld),
            (
                "pld, unlimited release",
                self.epsilon_unlimited_pld,
                "exact privacy profile of the unlimited release, valid for any n_syn "
                "(docs/theory.md §3, §14)",
            ),
            (
                "rdp",
                self.epsilon_rdp,
                f"RDP curve{records} converted at α{order}, docs/theory.md §12",
            ),
        )
        return tuple(
            (name, value, f"{note}; the guarantee" if name == used else note)
            for name, value, note in rows
        )

    def utility_rows(self) -> tuple[tuple[str, float | None, str], ...]:
        """(name, value, meaning) of the utility numbers: the records' Gram RMSE and the baseline's.

        None where not computed (a report written before these fields).
        """
        n = self.utility_table[0].get("n_syn", self.n_syn) if self.utility_table else self.n_syn
        records = "unlimited (n → ∞)" if n is None else f"{n:,}"
        return (
            (
                "Gram RMSE (records, ‖v‖ = C)",
                self.gram_error,
                f"upper bound on the error of vᵀv estimated from {records} records",
            ),
            (
                "Gram RMSE (records, floor)",
                self.gram_error_floor,
                "lower bound on that error for any v and any number of records",
            ),
            (
                "Gram RMSE (baseline)",
                self.gram_error_baseline,
                "exact error of the Gaussian mechanism on vᵀv at the same (ε, δ)",
            ),
        )

    def utility_table_rows(self) -> tuple[tuple[str, ...], ...]:
        """The utility table as text cells (:func:`utility_table_cells`), for every renderer."""
        return utility_table_cells(self.utility_table)

    def utility_lines(self) -> list[str]:
        """The verdict and the utility table as plain text lines (:func:`utility_text`)."""
        return utility_text(self.utility_verdict, self.utility_table)

    def to_markdown(self) -> str:
        """The report as a Markdown document for humans."""
        n_syn = "unlimited" if self.n_syn is None else f"{self.n_syn:,}"
        lines = [
            "# Privacy report",
            "",
            f"**{self.guarantee_sentence()}** In technical terms, this release is "
            f"({_num(self.epsilon)}, {_num(self.delta)})-differentially private under "
            f"{self.adjacency.split(':')[0]} adjacency.",
            "",
        ]
        if not self.noise_secret:
            lines += [f"> **Warning.** {self.seed_policy}", ""]
        for note in self.notes:
            lines += [f"> **Note.** {note}", ""]
        if self.accounting_note:
            lines += [f"**Accounting.** {self.accounting_note}", ""]
        if self.amplification:
            lines += [f"**Amplification.** {self.amplification}", ""]
        if self.utility_verdict:
            first, *rest = self.utility_verdict.splitlines()
            lines += ["  \n".join([f"**Utility. {first}**", *rest]), ""]
        order = "—" if self.optimal_order is None else _num(self.optimal_order)
        rows = [
            ("ε", _num(self.epsilon), "privacy loss"),
            ("δ", _num(self.delta), "failure probability"),
            ("optimal Rényi order α", order, "order of the RDP-to-(ε, δ) conversion of ε (rdp)"),
            ("σ", _num(self.sigma), "noise of the output perturbation V = v + σN"),
            ("Δ", _num(self.sensitivity), "replace-one sensitivity of v (Frobenius)"),
            ("C", _num(self.norm_bound), "bound on ‖v‖_F"),
            ("d", str(self.dim), "model width (features)"),
            ("k", str(self.out_dim), "record dimension (targets)"),
            ("m", f"{self.n_records:,}", "private records"),
            ("n_syn", n_syn, "synthetic records covered"),
            ("λ", _num(self.ridge), "ridge penalty (see objective)"),
            ("B", _num(self.label_bound), "bound on ‖y‖ of a target row"),
            ("σ_z", _num(self.seed_scale), "scale of the hidden seeds Z"),
            ("accounting", self.accounting_method, f"kind: {self.accounting_kind}"),
            (
                "accountant",
                self.accountant,
                "the guarantee's ε: pld (exact privacy profile) or rdp (RDP curve)",
            ),
            *(
                (f"ε ({name})", _num(value), note)
                for name, value, note in self.epsilons_by_accounting()
                if value is not None
            ),
            (
                "σ (post-processing)",
                _num(self.sigma_post_processing),
                "noise needed if V itself were released",
            ),
            (
                "ε (post-processing)",
                _num(self.epsilon_post_processing),
                "guarantee of V itself at this σ",
            ),
            ("noise saved", f"{100 * self.noise_saved:.1f}%", "1 − σ/σ(post-processing)"),
            *(
                (name, _num(value), meaning)
                for name, value, meaning in self.utility_rows()
                if value is not None
            ),
        ]
        lines += ["| quantity | value | meaning |", "|---|---|---|"]
        lines += [f"| {name} | {value} | {meaning} |" for name, value, meaning in rows]
        table = self.utility_table_rows()
        if table:
            lines += [
                "",
                "## Utility beside the baselines (same (ε, δ))",
                "",
                "| " + " | ".join(table[0]) + " |",
                "|" + "---|" * len(table[0]),
                *("| " + " | ".join(row) + " |" for row in table[1:]),
                "",
                "Relative: RMSE over the largest value of the statistic (C² for vᵀv, C for v, "
                "B² for YᵀY/m); × records: RMSE over the records' (same statistic only). "
                "Noise saved is not utility.",
            ]
        lines += [
            "",
            "## Mechanism",
            "",
            f"- Objective: {self.objective}",
            f"- Feature scaling: {self.feature_scaling}",
            f"- Adjacency: {self.adjacency}",
            f"- Randomness: {self.seed_policy}",
            "",
            "## Released",
            "",
            *[f"- {item}" for item in self.released],
            "",
            "## Not released",
            "",
            *[f"- {item}" for item in self.not_released],
            "",
            f"_synthamp {self.synthamp_version}, report schema {self.schema}_",
            "",
        ]
        return "\n".join(lines + self._design_markdown())

    def _design_markdown(self) -> list[str]:
        """A public design's numbers as a Markdown table (none for the generator)."""
        if self.design is None:
            return []
        data = self.to_dict()
        rows = [
            f"| {markdown_text(key)} | {_markdown_value(data[key])} |"
            for key in DESIGN_KEYS
            if data[key] is not None
        ]
        return ["## The public design's numbers", "", "| field | value |", "|---|---|", *rows, ""]


#: The report's keys a release on a public design fills (None for the generator), and what
#: the job wrote; the Markdown report lists them in its table of the design's numbers.
DESIGN_KEYS = (
    "design", "dim", "design_seed", "design_seed_public", "protected", "row_permutation",
    "adjacency_model", "gram_sensitivity", "sigma_norm", "sigma_gram", "accountant_reason",
    "epsilon_lower_realised", "certified_over_lower", "lower_bound",
    "accounting_beside_concrete_pairs", "records", "columns", "records_kind", "records_note",
    "target_bounds",
)  # fmt: skip


def _markdown_value(value: Any) -> str:
    """One value of the design's table as a Markdown cell: lists and mappings as JSON, every
    character shown as itself (:func:`~synthamp.report.markdown_text`)."""
    text = json.dumps(value, ensure_ascii=False) if isinstance(value, list | dict) else str(value)
    return markdown_text(text)


def _num(value: float) -> str:
    """Format a number for humans: 4 significant digits, no float noise."""
    if value is None:
        return "—"
    value = float(value)
    if math.isinf(value):
        return "∞"
    return f"{value:.4g}"


def _records_cell(row: Mapping[str, Any]) -> str:
    """The n a row's RMSE is for: the records written, n → ∞, or "—" (no records)."""
    n = row.get("n_syn")
    if n is not None:
        return f"{int(n):,}"
    return "n → ∞" if row.get("rmse_unlimited") is not None else "—"


def utility_table_cells(table: Sequence[Mapping[str, Any]]) -> tuple[tuple[str, ...], ...]:
    """A utility table (:func:`synthamp.utility.release_utility`) as text cells, one tuple a row.

    Header first: mechanism ("(best)" marks the smallest RMSE of its statistic), releases,
    statistic, records (the n the RMSE is for), RMSE, relative error ("no information"
    where it exceeds 1), × records, RMSE is. Numbers with 4 significant digits; "—" where
    there is none. Empty for an empty table.
    """
    if not table:
        return ()
    head = (
        "mechanism", "releases", "statistic", "records", "RMSE", "relative", "× records",
        "RMSE is",
    )  # fmt: skip

    def relative(row: Mapping[str, Any]) -> str:
        cell = _num(row.get("relative_error"))
        return f"{cell} ({NO_INFORMATION})" if row.get("no_information") else cell

    body = tuple(
        (
            str(row["mechanism"]) + (" (best)" if row.get("best") else ""),
            str(row["releases"]),
            str(row["statistic"]),
            _records_cell(row),
            _num(row.get("rmse")),
            relative(row),
            _num(row.get("ratio_to_records")),
            str(row["kind"]),
        )
        for row in table
    )
    return (head, *body)


def utility_text(verdict: str, table: Sequence[Mapping[str, Any]]) -> list[str]:
    """The verdict (its lines) and the utility table as plain text lines (a terminal's summary)."""
    rows = utility_table_cells(table)
    lines = verdict.splitlines() if verdict else []
    if rows:
        shown = 7  # every column but "RMSE is" (the JSON and the reports carry it)
        widths = [max(len(row[i]) for row in rows) for i in range(shown)]
        lines += [
            "  "
            + "  ".join(cell.ljust(w) for cell, w in zip(row[:shown], widths, strict=True)).rstrip()
            for row in rows
        ]
    return lines
