"""Plain-language definitions of every technical term the HTML privacy report uses.

Written for a privacy officer who knows neither differential privacy nor the
paper: each entry defines one term without using another undefined one.
:func:`synthamp.report._html.render_html` links every use of a term to its
entry and lists the entries used at the end of the page.
"""

from __future__ import annotations

__all__ = ["GLOSSARY"]

#: Every technical term the page may use: anchor → (term, plain definition).
GLOSSARY: dict[str, tuple[str, str]] = {
    "dp": (
        "differential privacy",
        "A promise about a data release: whether or not any one person's record is in the "
        "private data changes the probability of every possible result only a little. The "
        "size of 'a little' is set by ε and δ.",
    ),
    "epsilon": (
        "ε (epsilon)",
        "The privacy loss. Any result of the release becomes at most e^ε times more (or less) "
        "likely when one record is replaced. Smaller is more private; ε = 1 means a factor of "
        "at most 2.72.",
    ),
    "delta": (
        "δ (delta)",
        "A small additive slack on that promise: the factor e^ε may be exceeded by a total "
        "probability of at most δ. It should be far below 1/m, one over the number of people.",
    ),
    "adjacency": (
        "replace-one adjacency",
        "Two datasets are neighbours if they have the same number of records and differ in one "
        "record. The guarantee compares every pair of neighbours.",
    ),
    "synthetic": (
        "synthetic records",
        "Artificial rows made by the generator: each is the hidden model applied to fresh "
        "random seeds. They carry no private row, only what the noisy model says about the "
        "data as a whole.",
    ),
    "model": (
        "model v, noisy model V",
        "v is the linear model fitted to the private data (ridge regression). V = v + σN is "
        "v plus Gaussian noise N. Neither is published.",
    ),
    "seeds": (
        "hidden seeds Z",
        "Random Gaussian inputs of the generator, one row per synthetic record, drawn and "
        "discarded. Not publishing them is what makes the synthetic records more private "
        "than the model.",
    ),
    "sigma": (
        "noise σ",
        "The standard deviation of the Gaussian noise added to every entry of the model. "
        "More noise means more privacy and less accuracy.",
    ),
    "sigma-z": (
        "σ_z (seed scale)",
        "The standard deviation of the hidden seeds Z. It only rescales the synthetic records "
        "and does not affect the guarantee.",
    ),
    "sensitivity": (
        "sensitivity Δ",
        "How far the fitted model can move (in Frobenius norm) when one record is replaced. "
        "It is proven from the declared bounds, not measured on the data.",
    ),
    "norm-bound": (
        "norm bound C",
        "A proven upper bound on the size (Frobenius norm) of the fitted model. The saving "
        "of noise depends on it: without such a bound there is none.",
    ),
    "frobenius": (
        "Frobenius norm",
        "The size of a matrix: the square root of the sum of its squared entries (the "
        "ordinary length of the matrix seen as one long vector).",
    ),
    "gram": (
        "Gram matrix",
        "The k × k matrix VᵀV of inner products between the columns of the noisy model. The "
        "synthetic records reveal exactly this matrix when there are infinitely many of them, "
        "and nothing more about V.",
    ),
    "ridge": (
        "ridge penalty λ",
        "The strength of the penalty λ‖W‖² in the fitted objective. A larger λ gives a "
        "smaller, less sensitive model.",
    ),
    "label-bound": (
        "label bound B",
        "Declared bound on the length of a target row; longer rows are shrunk to it "
        "(clipped) before fitting.",
    ),
    "dims": (
        "d, k, m, n_syn",
        "d: number of features (model width); k: number of targets (dimension of a synthetic "
        "record); m: number of private records; n_syn: number of synthetic records.",
    ),
    "rdp": (
        "Rényi differential privacy (RDP)",
        "Another way to measure privacy loss, used to compute the guarantee: for each Rényi "
        "order α, a number ε_α (the Rényi divergence between the outputs on neighbouring "
        "datasets). It converts to (ε, δ) and adds up over repeated releases.",
    ),
    "renyi-order": (
        "Rényi order α",
        "The parameter α > 1 of Rényi differential privacy. Each α gives one ε_α; the (ε, δ) "
        "guarantee uses the α that gives the smallest ε.",
    ),
    "post-processing": (
        "post-processing accounting",
        "The standard analysis: anything computed from the noisy model V is as private as V "
        "itself. It is what releasing V would cost, and the baseline this release improves on.",
    ),
    "amplification": (
        "amplification",
        "The extra privacy obtained because only synthetic records are published, not the "
        "model or the seeds (Pierquin et al. 2026). It lets the same ε be reached with less "
        "noise.",
    ),
    "noise-saved": (
        "noise saved",
        "1 − σ/σ_post: the share of the noise that post-processing accounting would need and "
        "this release does not. Never negative: the release is never accounted as worse than "
        "releasing the model.",
    ),
    "kinds": (
        "exact, certified",
        "Exact: computed numerically with a controlled error, as good as a proof once the "
        "error is added. Certified: a proven upper bound. (A heuristic number, an "
        "approximation without proof, never enters a guarantee.)",
    ),
    "accountant": (
        "accountant",
        "A method that turns the mechanism into an (ε, δ) guarantee. The Rényi accountant "
        "converts the Rényi curve; the privacy-profile accountant computes the exact ε for "
        "each δ (composed through privacy-loss distributions, PLD). Both are sound; the "
        "report's guarantee comes from the one named in the table.",
    ),
    "profile": (
        "ε against δ",
        "The same release satisfies (ε, δ)-differential privacy for many pairs: a smaller δ "
        "needs a larger ε. The curve shows all of them; the guarantee quoted is one point.",
    ),
    "entropy": (
        "operating-system entropy",
        "Unpredictable randomness from the operating system, used to seed the generator. "
        "The seed is neither stored nor shown, so nobody can recompute the noise.",
    ),
    "user-seed": (
        "user seed",
        "A number given by the user to make a run reproducible. Anyone who knows it can "
        "recompute the noise, so it is for reproducible research only, never for a real "
        "release.",
    ),
    "audit": (
        "privacy audit",
        "An attack run many times on two neighbouring datasets to measure from below how "
        "much the release leaks. A lower bound above the guaranteed ε would reveal a bug.",
    ),
    "confidence": (
        "confidence level",
        "The audit's lower bound is wrong with probability at most one minus this level "
        "(Clopper–Pearson intervals on the attack's error rates).",
    ),
    "utility": (
        "expected error of the Gram matrix",
        "How far, on average (root mean square, in Frobenius norm), the Gram matrix estimated "
        "from the synthetic records is from the one of the private model. It is a proven "
        "upper bound computed from public numbers only.",
    ),
}
