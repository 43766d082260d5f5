"""Ridge regression, its privacy bounds and the utility of its synthetic data (docs/theory.md §13).

The mathematics of the private linear generator, free of scikit-learn (as
scikit-learn keeps ``ridge_regression()`` free of its ``Ridge`` estimator):
plain functions on numpy arrays. :class:`synthamp.release._generator.PrivateLinearGenerator`
is the estimator built on them.

The λ convention
----------------
On m records (x_i, y_i), x_i ∈ R^d with ‖x_i‖ <= 1 and y_i ∈ R^k with
‖y_i‖ <= B, synthamp's ridge solution is

    v = argmin_W (1/m) Σ_i ‖Wᵀx_i − y_i‖² + λ‖W‖_F²,   W ∈ R^{d×k}

(:data:`OBJECTIVE`, :func:`ridge_fit`). Libraries that write the penalty as
(λ/2)‖W‖_F² use half our λ: their λ′ = 2λ gives the same minimiser, and
plugging λ′ into our formula for Δ would be wrong by a factor of about
2^{3/2}. scikit-learn's ``Ridge(alpha, fit_intercept=False)`` minimises
‖XW − Y‖² + alpha‖W‖², the same problem with ``alpha = m·λ``.

Bounds
------
‖v‖_F <= C = B/(2√λ) (:func:`ridge_norm_bound`); a smaller C is enforced by
projecting onto the Frobenius ball (:func:`project_frobenius`, 1-Lipschitz,
so it keeps Δ). Under replace-one adjacency, ‖v − w‖_F <= Δ =
B(1 + 2√λ)/(mλ^{3/2}) (:func:`ridge_sensitivity`; Chaudhuri, Monteleoni &
Sarwate 2011). Records are clipped row by row (:func:`clip_rows`), a
per-record map that keeps adjacency.

Utility
-------
Given V = v + σN, the rows of ZV are iid N(0, σ_z² VᵀV) (Proposition 4.1):
everything the synthetic data say about the model is in the k × k Gram
matrix. :func:`debiased_gram` estimates vᵀv without bias,
:func:`gram_error_bound` bounds its error from public quantities, and
:func:`gram_estimate_errors` simulates it for a known (public) model.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike

from synthamp._kinds import privacy_quantity
from synthamp._parameters import (
    RECORDS_WRITTEN,
    at_least,
    validated,
    validated_one,
    validated_optional,
)
from synthamp._validation import (
    MAX_SCALE,
    MIN_SCALE,
    InputError,
)

__all__ = [
    "OBJECTIVE",
    "check_release_scale",
    "check_ridge_scale",
    "clip_rows",
    "debiased_gram",
    "gram_estimate_errors",
    "map_into_bounds",
    "norms_exceed",
    "project_frobenius",
    "ridge_fit",
    "ridge_norm_bound",
    "ridge_sensitivity",
    "ridge_solve",
    "row_norms",
    "scale_clip_rows",
]

#: Smallest normal float, and the log range of normal floats (checks made in log space).
TINY = float(np.finfo(np.float64).tiny)
LOG_TINY = math.log(TINY)
LOG_HUGE = math.log(float(np.finfo(np.float64).max))

#: The ridge objective, stated once (the λ convention).

OBJECTIVE = (
    "v = argmin_W (1/m) Σ_i ‖Wᵀx_i − y_i‖² + λ‖W‖_F² over W ∈ R^{d×k}, with feature rows "
    "clipped to ‖x_i‖ ≤ 1 and target rows to ‖y_i‖ ≤ B (penalty λ‖W‖², not (λ/2)‖W‖²)"
)


# ---------------------------------------------------------------------------
# Ridge regression and its sensitivity (docs/theory.md §13)
# ---------------------------------------------------------------------------


@privacy_quantity("certified")
def ridge_norm_bound(label_bound: float, ridge: float) -> float:
    """Bound C = B/(2√λ) on the Frobenius norm of the ridge solution.

    For the objective (1/m) Σ ‖Wᵀx_i − y_i‖² + λ‖W‖_F² with ‖x_i‖ ≤ 1 and
    ‖y_i‖ ≤ B, the minimiser is W* = (XᵀX/m + λI)⁻¹(Xᵀ/√m)(Y/√m); the operator
    norm of the first factor is at most max_s s/(s² + λ) = 1/(2√λ) and
    ‖Y/√m‖_F ≤ B (docs/theory.md §13).

    Parameters
    ----------
    label_bound : float
        B > 0, the bound on the Euclidean norm of a target row.
    ridge : float
        λ > 0, in the convention above.

    Returns
    -------
    float
        C = B/(2√λ).
    """
    label_bound, ridge = validated(label_bound=label_bound, ridge=ridge)
    log_bound = math.log(label_bound) - math.log(2.0) - 0.5 * math.log(ridge)
    if not LOG_TINY < log_bound < LOG_HUGE:
        raise InputError(
            "ridge",
            f"the norm bound C = B/(2√λ) = e^{log_bound:.5g} is outside the range of "
            f"floating-point numbers at λ = {ridge:g}, B = {label_bound:g}",
        )
    return label_bound / (2.0 * math.sqrt(ridge))


@privacy_quantity("certified")
def ridge_sensitivity(label_bound: float, ridge: float, n_records: int) -> float:
    """Replace-one sensitivity Δ = B(1 + 2√λ)/(m λ^{3/2}) of the ridge solution.

    The squared loss ‖Wᵀx − y‖² is L-Lipschitz in W on the ball ‖W‖_F ≤ C =
    B/(2√λ) with L = 2(C + B), and the objective is 2λ-strongly convex, so
    replacing one of the m records moves the minimiser by at most
    L/(mλ) = B(1 + 2√λ)/(mλ^{3/2}) in Frobenius norm (Chaudhuri, Monteleoni &
    Sarwate 2011; docs/theory.md §13). With the penalty written (λ/2)‖W‖², Δ would
    be this formula at λ/2: the convention matters.

    Parameters
    ----------
    label_bound : float
        B > 0.
    ridge : float
        λ > 0, for the objective (1/m) Σ ‖Wᵀx_i − y_i‖² + λ‖W‖_F².
    n_records : int
        m ≥ 2, the number of private records (public under replace-one
        adjacency).

    Returns
    -------
    float
        Δ.
    """
    label_bound, ridge = validated(label_bound=label_bound, ridge=ridge)
    n_records = at_least("n_records", validated_one("n_records", n_records), 2)
    # In log space: ridge**1.5 overflows for λ > 3e205, m·λ^1.5 sooner.
    log_delta = (
        math.log(label_bound)
        + math.log1p(2.0 * math.sqrt(ridge))
        - math.log(n_records)
        - 1.5 * math.log(ridge)
    )
    if not LOG_TINY < log_delta < LOG_HUGE:
        raise InputError(
            "ridge",
            f"the sensitivity Δ = B(1 + 2√λ)/(m λ^1.5) = e^{log_delta:.5g} is outside the range "
            f"of floating-point numbers at λ = {ridge:g}, B = {label_bound:g}, m = {n_records}",
        )
    inverse_root = 1.0 / math.sqrt(ridge)
    direct = label_bound / n_records * (2.0 / ridge + inverse_root * inverse_root * inverse_root)
    if math.isfinite(direct) and direct >= TINY:
        return direct  # a few ulp; exp(log Δ) would lose |log Δ|·ε
    return math.exp(log_delta)


def _power_text(log_value: float) -> str:
    """e^x written as a decimal number, also past the range of doubles (1.2e+160)."""
    if not math.isfinite(log_value):
        return "0 (it underflows)" if log_value < 0 else "∞"
    exponent10 = log_value / math.log(10.0)
    whole = math.floor(exponent10)
    mantissa = float(f"{10.0 ** (exponent10 - whole):.3g}")
    if mantissa >= 10.0:  # 9.9999… rounded up
        mantissa, whole = mantissa / 10.0, whole + 1
    return f"{mantissa:g}e{whole:+d}"


def check_ridge_scale(label_bound: float, ridge: float, n_records: int = 2) -> None:
    """C = B/(2√λ) and Δ (:func:`ridge_sensitivity`) within the scale a release handles.

    :func:`check_release_scale` on the ridge's C and Δ, computed in log space;
    ``n_records`` = 2 gives the largest Δ of any table.
    """
    log_b, log_ridge = math.log(label_bound), math.log(ridge)
    log_norm = log_b - math.log(2.0) - 0.5 * log_ridge
    log_delta = log_b + math.log1p(2.0 * math.sqrt(ridge)) - math.log(n_records) - 1.5 * log_ridge
    check_release_scale(label_bound, ridge, {"norm bound C": log_norm, "sensitivity Δ": log_delta})


def check_release_scale(label_bound: float, ridge: float, log_numbers: dict[str, float]) -> None:
    """A release's C and Δ (given by their logs) within the scale it handles.

    Both at most :data:`~synthamp._validation.MAX_SCALE` (the records and their Gram
    matrix stay finite) and at least :data:`~synthamp._validation.MIN_SCALE` (below it
    Δ²/σ² underflows where σ is calibrated, and every release calibrates at least the σ
    releasing V would need for its ε, ``sigma_post_processing``). The error names
    the parameter that put the number out of range: the label bound if |log B|
    dominates, the ridge otherwise (``ridge=1e300`` makes C = 5e-151, which used to be
    reported as the accountant's ``norm_bound``, a parameter the user never set).
    """
    log_b = math.log(label_bound)
    low = math.log(MIN_SCALE)
    for what, log_value in log_numbers.items():
        if low <= log_value <= math.log(MAX_SCALE):
            continue
        param = "label_bound" if abs(log_b) >= abs(log_value - log_b) else "ridge"
        fix = (
            "rescale the targets so that label_bound is nearer 1"
            if param == "label_bound"
            else "use a ridge nearer 1"
        )
        raise InputError(
            param,
            f"the {what} = {_power_text(log_value)} at label_bound = {label_bound:g}, ridge = "
            f"{ridge:g} is outside the range a release handles, [{MIN_SCALE:g}, "
            f"{MAX_SCALE:g}]: {fix}",
        )


def row_norms(values: ArrayLike) -> np.ndarray:
    """Euclidean norm of each row, without overflow or underflow in the squares.

    Each row is divided by its largest absolute entry before squaring, so a
    row of cells near 1e308 has a finite norm (unless the norm itself exceeds
    the float range, where it is ``inf``) and a row of subnormal cells a
    non-zero one. Relative error a few ulp.

    Parameters
    ----------
    values : array_like of shape (m, d)

    Returns
    -------
    ndarray of shape (m,)
    """
    scale, unit = _scaled_rows(np.asarray(values, dtype=np.float64))
    with np.errstate(over="ignore"):
        return scale * unit


def _scaled_rows(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(s, u) with s the largest |entry| of each row (1 for zero rows), u = ‖row/s‖ ∈ [1, √d]."""
    scale = np.max(np.abs(values), axis=1) if values.shape[1] else np.zeros(len(values))
    scale = np.where(scale > 0, scale, 1.0)
    return scale, np.linalg.norm(values / scale[:, None], axis=1)


def clip_rows(values: ArrayLike, bound: float) -> np.ndarray:
    """Scale each row with Euclidean norm above ``bound`` down to norm ``bound``.

    A per-record map, so it preserves replace-one adjacency. Norms are
    computed by :func:`row_norms`' scaling, so a row of huge cells (1e308) is
    clipped to norm ``bound`` like any other, never to zero; the result has
    norm ≤ ``bound`` in floating point.
    """
    values = np.asarray(values, dtype=np.float64)
    scale, unit = _scaled_rows(values)
    with np.errstate(over="ignore"):
        over = unit > bound / scale  # ‖row‖ = scale·unit > bound, without the product
    out = values.copy()
    if over.any():
        factor = bound / unit[over]
        out[over] = values[over] / scale[over, None] * factor[:, None]
        # Rows exactly at the bound may land one ulp above it after the product
        # (by either way of computing the norm).
        clipped = out[over]
        with np.errstate(over="ignore"):
            norm = np.maximum(row_norms(clipped), np.linalg.norm(clipped, axis=1))
        above = np.flatnonzero(over)[norm > bound]
        out[above] *= 1.0 - 4 * np.finfo(np.float64).eps
    return out


def scale_clip_rows(values: ArrayLike, scale, bound: float) -> np.ndarray:
    """``clip_rows(values * scale, bound)`` without ever forming an overflowing product.

    ``scale`` is a positive number or one positive factor per column. Each row
    is first divided by its largest absolute entry r (so its entries lie in
    [−1, 1]), then scaled: u = (x/r)·s is finite. The row's norm is r‖u‖; a row
    with r‖u‖ > bound becomes u·(bound/‖u‖), the others u·r (norm ≤ bound, so
    finite). Cells of 1e308 with a scale of 10 are clipped like any other row.

    Rows whose norm is clearly below ``bound`` (a plain √Σ(x·s)², below it by more than
    its rounding and that of the scaled norms) are x·s, one rounding per cell; the others
    (near or above the bound, or with squares outside the safe range) go through the
    scaled computation (:func:`_scale_clip_rows_scaled`). So every row is clipped or kept
    as before, a clipped row is the same to the bit, and a kept row is x·s (the scaled
    computation's ((x/r)·s)·r differs from it by at most two ulps per cell);
    ``tests/test_ridge_clipping.py`` checks both against the scaled computation.

    Returns
    -------
    ndarray of the shape of ``values``, every row of norm ≤ ``bound``.
    """
    return _scale_clip_rows(values, scale, bound, copy=True)


def _scale_clip_rows(values: ArrayLike, scale, bound: float, *, copy: bool) -> np.ndarray:
    """:func:`scale_clip_rows`; ``copy=False`` may return ``values`` itself, its clipped
    rows replaced in place (a float64 array the caller owns and uses no more: the
    streaming fit's chunks)."""
    values = np.asarray(values, dtype=np.float64)
    scale = np.asarray(scale, dtype=np.float64)
    if values.size == 0:
        return values * scale
    unscaled = scale.ndim == 0 and scale == 1.0
    with np.errstate(over="ignore", invalid="ignore"):
        out = values * scale if not unscaled else values.copy() if copy else values
    below = _clearly_below(out, bound)
    if not below.all():
        rest = np.flatnonzero(~below)
        out[rest] = _scale_clip_rows_scaled(values[rest], scale, bound)  # values[rest]: a copy
    return out


def _clearly_below(values: np.ndarray, limit) -> np.ndarray:
    """Rows with ‖x‖ < limit for certain: the plain √Σx² below the limit by more than the
    rounding of it and of the scaled norm (each ≤ (d + 2)u relative; margin 4(d + 4)u), with
    Σx² finite and above 1e-200 (smaller squares may underflow: those rows are not decided)."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        squares = np.einsum("ij,ij->i", values, values)
        margin = 4.0 * (values.shape[1] + 4) * np.finfo(np.float64).eps
        safe = np.isfinite(squares) & (squares > 1e-200)
        return safe & (np.sqrt(squares) < limit * (1.0 - margin))


def norms_exceed(values: np.ndarray, limit) -> np.ndarray:
    """``row_norms(values) > limit``, the same booleans, without the scaled norms of rows
    clearly below or above the limit (a plain √Σx² with the margin of :func:`_clearly_below`);
    only the undecided rows get :func:`row_norms`."""
    values = np.asarray(values, dtype=np.float64)
    limit = np.broadcast_to(np.asarray(limit, dtype=np.float64), values.shape[:1])
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        squares = np.einsum("ij,ij->i", values, values)
        margin = 4.0 * (values.shape[1] + 4) * np.finfo(np.float64).eps
        safe = np.isfinite(squares) & (squares > 1e-200)
        root = np.sqrt(squares)
        below = safe & (root < limit * (1.0 - margin))
        above = safe & (root > limit * (1.0 + margin))
    out = above.copy()
    rest = np.flatnonzero(~(below | above))
    if rest.size:
        with np.errstate(over="ignore"):
            out[rest] = row_norms(values[rest]) > limit[rest]
    return out


def _scale_clip_rows_scaled(values: np.ndarray, scale: np.ndarray, bound: float) -> np.ndarray:
    """:func:`scale_clip_rows` by scaling every row (no overflow, no underflow): the rows
    near or above the bound."""
    row_max, _ = _scaled_rows(values)
    unit = (values / row_max[:, None]) * scale
    unit_max, unit_scaled = _scaled_rows(unit)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        unit_norm = unit_max * unit_scaled
        over = unit_norm > bound / row_max  # r‖u‖ > bound without the product
        factor = np.where(over, bound / np.where(unit_norm > 0, unit_norm, 1.0), row_max)
    out = unit * factor[:, None]
    with np.errstate(over="ignore"):
        norm = np.maximum(row_norms(out), np.linalg.norm(out, axis=1))
    above = norm > bound
    while above.any():  # one ulp above the bound after the product
        out[above] *= 1.0 - 4 * np.finfo(np.float64).eps
        with np.errstate(over="ignore"):
            norm = np.maximum(row_norms(out), np.linalg.norm(out, axis=1))
        above = norm > bound
    return out


def map_into_bounds(values: ArrayLike, lower: ArrayLike, upper: ArrayLike) -> np.ndarray:
    """Map each column affinely from its declared public range [lo, hi] onto [−1, 1], then by 1/√d.

    A cell outside its range is first clamped into it (a per-record map, so it keeps
    replace-one adjacency); the affine map x ↦ (2x − lo − hi)/(hi − lo) takes [lo, hi]
    onto [−1, 1]; the division by √d (d columns) then gives every row norm ≤ 1, so a
    row within its declared ranges is never shrunk by the row-norm clipping that
    follows. The ranges must be public (declared, never read from the data).

    Parameters
    ----------
    values : array_like of shape (m, d)
    lower, upper : array_like of shape (d,)
        lo < hi, finite, per column.

    Returns
    -------
    ndarray of shape (m, d), every entry in [−1/√d, 1/√d].
    """
    values = np.asarray(values, dtype=np.float64)
    lower = np.asarray(lower, dtype=np.float64)
    upper = np.asarray(upper, dtype=np.float64)
    d = values.shape[1]
    clamped = np.clip(values, lower, upper)
    half = 0.5 * upper - 0.5 * lower  # no overflow for ranges near the float limits
    mid = 0.5 * upper + 0.5 * lower
    unit = np.clip((clamped - mid) / half, -1.0, 1.0)  # the clip absorbs rounding
    return unit / math.sqrt(d) if d else unit


def project_frobenius(model: np.ndarray, radius: float) -> np.ndarray:
    """Project ``model`` onto the Frobenius ball of the given radius.

    The projection is 1-Lipschitz, so it does not increase the sensitivity.
    The result satisfies ‖·‖_F ≤ radius in floating point.
    """
    norm = float(np.linalg.norm(model))
    if norm <= radius:
        return model
    out = model * (radius / norm)
    while float(np.linalg.norm(out)) > radius:
        out *= 1.0 - 4 * np.finfo(np.float64).eps
    return out


def ridge_fit(features: ArrayLike, targets: ArrayLike, ridge: float) -> np.ndarray:
    """Non-private minimiser of (1/m) Σ ‖Wᵀx_i − y_i‖² + λ‖W‖_F².

    Solves (XᵀX + mλI)W = XᵀY by Cholesky (or the dual system
    (XXᵀ + mλI)A = Y, W = XᵀA, when m < d). The result is **not private**.

    Parameters
    ----------
    features : ndarray of shape (m, d)
    targets : ndarray of shape (m, k)
    ridge : float
        λ > 0.

    Returns
    -------
    ndarray of shape (d, k)
    """
    ridge = validated_one("ridge", ridge)
    features = np.asarray(features, dtype=np.float64)
    targets = np.asarray(targets, dtype=np.float64)
    m, d = features.shape
    if m >= d:
        return ridge_solve(features.T @ features, features.T @ targets, m, ridge)
    gram = features @ features.T
    gram[np.diag_indices_from(gram)] += m * ridge
    return features.T @ scipy.linalg.solve(gram, targets, assume_a="pos")


def ridge_solve(gram: np.ndarray, cross: np.ndarray, n_records: int, ridge: float) -> np.ndarray:
    """(XᵀX + mλI)⁻¹XᵀY by Cholesky, from XᵀX (``gram``, d × d) and XᵀY (``cross``, d × k).

    The solver of :func:`ridge_fit` (m ≥ d) and of the streaming fit
    (:mod:`synthamp.release._streaming`), which has only these sums. ``gram`` is not
    modified. The result is **not private**.
    """
    shifted = np.array(gram, dtype=np.float64)
    shifted[np.diag_indices_from(shifted)] += n_records * ridge
    return scipy.linalg.solve(shifted, cross, assume_a="pos")


# ---------------------------------------------------------------------------
# Utility of the released data
# ---------------------------------------------------------------------------


def debiased_gram(
    synthetic: ArrayLike, *, sigma: float, dim: int, seed_scale: float, nonnegative: bool = False
) -> np.ndarray:
    """Unbiased estimate of the non-private Gram matrix vᵀv from synthetic data.

    With S = (ZV)ᵀ(ZV)/(n σ_z²), E[S | V] = VᵀV (rows of ZV are iid
    N(0, σ_z² VᵀV)), and E[VᵀV] = vᵀv + dσ²I. So S − dσ²I is unbiased for vᵀv
    for every n: the finite n only adds variance (see :func:`gram_error_bound`).
    Everything the synthetic data say about the private model is in this k × k
    matrix (docs/theory.md §3).

    Parameters
    ----------
    synthetic : ndarray of shape (n, k)
        Released records ZV.
    sigma : float
        Noise σ of the release.
    dim : int
        d, the model width.
    seed_scale : float
        σ_z of the release.
    nonnegative : bool, default False
        Project the estimate onto the positive semi-definite matrices (eigenvalues below 0
        set to 0; for k = 1, max(0, ·)): vᵀv is PSD, so the projection never increases the
        Frobenius error, but it is no longer unbiased. A debiased estimate of a squared norm
        can be negative (−3.66 for ‖v‖² has been seen); the estimate to report is the
        projected one.

    Returns
    -------
    ndarray of shape (k, k)
        Symmetric; positive semi-definite only with ``nonnegative``.
    """
    synthetic = np.asarray(synthetic, dtype=np.float64)
    if synthetic.ndim != 2 or synthetic.shape[0] < 1:
        raise InputError("synthetic", "must be a 2-d array with at least one row")
    sigma, seed_scale = validated(sigma=sigma, seed_scale=seed_scale)
    dim = validated_one("dim", dim)
    n, k = synthetic.shape
    scaled = synthetic / seed_scale
    gram = scaled.T @ scaled / n
    gram = 0.5 * (gram + gram.T)
    gram[np.diag_indices(k)] -= dim * sigma**2
    if nonnegative:
        w, u = np.linalg.eigh(gram)
        gram = (u * np.clip(w, 0.0, None)) @ u.T
    return gram


def gram_estimate_errors(
    model: ArrayLike,
    *,
    sigma: float,
    n_syn: int,
    repeats: int = 100,
    seed_scale: float | None = None,
    random_state: int | None = None,
) -> np.ndarray:
    """Relative errors of :func:`debiased_gram` over simulated releases of a known model.

    For evaluation only: each repetition perturbs ``model`` (V = v + σN),
    draws ``n_syn`` records with the generator's sampler and returns
    ‖Ĝ − vᵀv‖_F / ‖vᵀv‖_F. The input is the *non-private* model, so the output
    is not covered by any guarantee: publish it only for public data (as in
    ``synthamp demo``), never for private data.

    Parameters
    ----------
    model : ndarray of shape (d, k)
        The non-private model v.
    sigma : float
        Noise σ of the simulated releases.
    n_syn : int
        Synthetic records per release.
    repeats : int, default 100
        Number of simulated releases.
    seed_scale : float, optional
        σ_z (default 1/√d); the errors do not depend on it.
    random_state : int, optional
        Seed of the simulation.

    Returns
    -------
    ndarray of shape (repeats,)
    """
    model = np.array(model, dtype=np.float64, ndmin=2)
    if model.ndim != 2:
        raise InputError("model", "must be a 2-d array (d, k)")
    sigma = validated_one("sigma", sigma)
    n_syn = validated_one("n_syn", n_syn, RECORDS_WRITTEN)
    repeats = validated_one("repeats", repeats)
    d = model.shape[0]
    seed_scale = (
        1.0 / math.sqrt(d) if seed_scale is None else validated_one("seed_scale", seed_scale)
    )
    truth = model.T @ model
    scale = float(np.linalg.norm(truth))
    if scale == 0:
        raise InputError("model", "must be non-zero (the error is relative to ‖vᵀv‖)")
    rng = np.random.default_rng(validated_optional(random_state=random_state)[0])
    errors = np.empty(repeats)
    for r in range(repeats):
        noisy = _perturb(model.copy(), sigma, rng)
        records = _draw_with_factor(seed_scale * _gram_factor(noisy), n_syn, rng)
        estimate = debiased_gram(records, sigma=sigma, dim=d, seed_scale=seed_scale)
        errors[r] = np.linalg.norm(estimate - truth) / scale
    return errors


# ---------------------------------------------------------------------------
# Output perturbation and sampling through the Gram factor
# ---------------------------------------------------------------------------


def _perturb(model: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """Output perturbation in place: model ← model + σN; N is zeroed and dropped."""
    noise = rng.standard_normal(model.shape)
    model += sigma * noise
    noise.fill(0.0)
    return model


def _draw_with_factor(factor: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """n records g·factor, g ~ N(0, I_k): rows iid N(0, factorᵀfactor)."""
    return rng.standard_normal((n, factor.shape[0])) @ factor


def _gram_factor(model: np.ndarray) -> np.ndarray:
    """Upper-triangular R with RᵀR = VᵀV (a symmetric square root if VᵀV is singular)."""
    gram = model.T @ model
    try:
        return scipy.linalg.cholesky(gram, lower=False)
    except np.linalg.LinAlgError:
        values, vectors = np.linalg.eigh(gram)
        return (vectors * np.sqrt(np.clip(values, 0.0, None))) @ vectors.T
