"""The sentences about a release on a public design, worded once (docs/theory.md §19–§20).

Rendered by the report (:func:`synthamp.report.build_report`) and by the design release's
terminal summary (:meth:`synthamp.design.DesignRelease.summary`), from the typed
:class:`~synthamp.report.DesignFacts`; the guarantee's own sentences (which accountant,
which bound) are the guarantee room's (:class:`~synthamp.accountant.Guarantee`).
"""

from __future__ import annotations

from synthamp.report._privacy import protected_columns, seed_policy
from synthamp.report._result import DesignFacts

__all__ = [
    "BEYOND",
    "ORTHOGONAL_EXACT",
    "ORTHOGONAL_ORDER",
    "ROW_PERMUTATIONS",
    "design_seed_policy",
    "exact_on_orthogonal",
    "gram_name",
    "lower_line",
    "noise_sentence",
]

#: The orthogonal design's name (:data:`synthamp.design.ORTHOGONAL`).
_ORTHOGONAL = "orthogonal"

#: Where the comparison with concrete pairs is not computed.
BEYOND = "not computed: the exact engines reach k = 1, and k = 2 with D <= 10,000"

#: How the records were assigned to the design's rows (``row_permutation``), and the
#: sentence the report's randomness line adds to the seed policy (docs/theory.md §19).
ROW_PERMUTATIONS: dict[str, str] = {
    "secret": "Records were assigned to the design's rows by a uniform random permutation "
    "drawn from the same entropy, neither stored nor shown; the design's seed is public and "
    "recorded.",
    "seeded": "Records were assigned to the design's rows by a permutation derived from the "
    "same user-supplied seed (public to anyone who knows the seed, reproducible); the "
    "design's seed is public and recorded.",
    "order-free": "Each design row is computed from its own record's public inputs, so the "
    "model does not depend on the records' order and no permutation is needed; the design's "
    "seed is public and recorded.",
}
#: What the Gram adjacency is on an orthogonal design (k = 1), in the summary and the report.
ORTHOGONAL_EXACT = (
    "On this orthogonal design the Gram adjacency's worst case is realised (one record going "
    "from B to 0, every other record 0): the accounting is exact, not only an upper bound "
    "(docs/theory.md §19)."
)
#: The orthogonal design's sentence (its ``row_permutation`` is "order-free").
ORTHOGONAL_ORDER = (
    "On the orthogonal design the release depends on the records only through YᵀY, whatever "
    "their order, so no permutation is needed; VᵀV was sampled from its exact law without "
    "forming the design, whose seed is public and recorded."
)


def design_seed_policy(design: DesignFacts, seeded: bool) -> str:
    """Where the noise and the rows' order came from (every release's wording, then the
    design's own sentence)."""
    if design.name == _ORTHOGONAL:
        order = ORTHOGONAL_ORDER
    else:
        order = ROW_PERMUTATIONS[design.row_permutation]
    return f"{seed_policy(seeded)} {order}"


def protected(design: DesignFacts) -> str:
    """What the release protects (:func:`synthamp.report.protected_columns`)."""
    return protected_columns(design.has_inputs)


def gram_name(design: DesignFacts) -> str:
    """The Gram adjacency's accounting, by k."""
    return "Gram adjacency" if design.certified is None else "Gram adjacency, certified k ≥ 2"


def exact_on_orthogonal(design: DesignFacts) -> bool:
    """k = 1 under the Gram adjacency on an orthogonal design: the corner is realised."""
    orthogonal = design.name == _ORTHOGONAL
    return orthogonal and design.adjacency == "gram" and design.certified is None


def lower_line(design: DesignFacts) -> str | None:
    """The lower bound beside the certified guarantee, and what it is (one sentence)."""
    lower = design.epsilon_lower_realised
    if design.certified is None or lower is None:
        return None
    if not lower > 0:  # past the exact profile's range
        return f"true ε >= 0: the realised pair's ε is not computed here. {design.lower_bound}."
    return (
        f"true ε >= {lower:.6g} (lower bound; the guarantee is "
        f"{design.certified_over_lower:.4g}× it). {design.lower_bound}."
    )


def noise_sentence(design: DesignFacts, sigma_post_processing: float) -> str:
    """σ under both adjacencies, the one used, and what releasing the model would need."""
    gram = "" if design.sigma_gram is None else (
        f", {design.sigma_gram:.4g} under the {gram_name(design)}"
    )  # fmt: skip
    return (
        f"σ = {design.sigma_norm:.4g} under the norm model (Theorem 5.4){gram} (used: "
        f"{design.adjacency}); releasing the model needs {sigma_post_processing:.4g}: "
        "noise saved is not utility."
    )
