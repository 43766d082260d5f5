"""The private linear generator: ridge regression, output perturbation, hidden seeds.

The mechanism of Pierquin et al. (2026), §2 (docs/theory.md §1, §13):

1. **Fit.** On m private records (x_i, y_i), x_i ∈ R^d scaled by a declared,
   data-independent ``feature_scale`` and clipped to ‖x_i‖ ≤ 1, y_i ∈ R^k
   clipped to ‖y_i‖ ≤ B, solve the ridge problem

       v = argmin_W (1/m) Σ_i ‖Wᵀx_i − y_i‖² + λ‖W‖_F²,   W ∈ R^{d×k}

   (the **λ convention** of synthamp: penalty λ‖W‖², not (λ/2)‖W‖²; see
   :mod:`synthamp.release._ridge`, which holds the mathematics of steps 1–2).

2. **Bounds.** ‖v‖_F ≤ C = B/(2√λ) (:func:`~synthamp.release._ridge.ridge_norm_bound`);
   a smaller, user-chosen C is enforced by projecting v onto the Frobenius
   ball of radius C. Under replace-one adjacency (same m, one record replaced;
   m is public), ‖v − w‖_F ≤ Δ = B(1 + 2√λ)/(m λ^{3/2})
   (:func:`~synthamp.release._ridge.ridge_sensitivity`); the projection keeps Δ.

3. **Output perturbation.** V = v + σN, N with iid N(0, 1) entries; σ is
   given, or calibrated by :func:`synthamp.accountant.calibrate_sigma` to a
   target (ε, δ) for the chosen number n_syn of synthetic records (finite or
   unlimited).

4. **Release.** Synthetic records ZV, with hidden seeds Z ∈ R^{n×d} of iid
   N(0, σ_z²) entries. Only ZV is released.

Sampling through the Gram factor
--------------------------------
Given V, the rows of ZV are iid N(0, σ_z² VᵀV) (Proposition 4.1; docs/theory.md
§3): the law of the released data depends on V only through the k × k Gram
matrix VᵀV. The default sampler therefore keeps only an upper-triangular R
with RᵀR = VᵀV and draws each record as σ_z·gR with g ~ N(0, I_k). The
released records have exactly the law of ZV, so the privacy analysis is
unchanged; sampling costs O(k²) per record instead of O(dk); and the fitted
object holds a k × k matrix whose disclosure is covered by the unlimited-release
guarantee (the plateau D_α(VᵀV‖WᵀW)), instead of V, whose disclosure is only
covered by post-processing accounting. ``sampler="seeds"`` computes ZV
literally (holding V in memory), for auditing and benchmarks.

The unperturbed model v and the noise N exist only inside :meth:`fit` and are
dropped before it returns (Python cannot securely erase memory; they are not
referenced afterwards). Seeds are drawn per chunk and dropped.
"""

from __future__ import annotations

import math
import numbers
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

from synthamp import accountant
from synthamp._parameters import validated_one
from synthamp._validation import (
    InputError,
    check_real_table,
)
from synthamp.accountant._choice import ACCOUNTANTS
from synthamp.accountant._releases import SyntheticDataRelease
from synthamp.release._accounting import account_release as _account
from synthamp.release._curves import guarantee_curves
from synthamp.release._ridge import (
    OBJECTIVE,
    _draw_with_factor,
    _gram_factor,
    _perturb,
    check_ridge_scale,
    clip_rows,
    debiased_gram,
    map_into_bounds,
    project_frobenius,
    ridge_fit,
    ridge_norm_bound,
    ridge_sensitivity,
    row_norms,
    scale_clip_rows,
)
from synthamp.release._streaming import RidgeStatistics, solve_statistics
from synthamp.report._build import build_report
from synthamp.report._result import FeatureScaling, ReleaseResult

__all__ = ["ACCOUNTING_METHODS", "DEFAULT_DELTA", "SAMPLERS", "PrivateLinearGenerator"]

#: Accounting methods understood by :mod:`synthamp.accountant`.
ACCOUNTING_METHODS = accountant.METHODS

#: Samplers of :class:`PrivateLinearGenerator`.
SAMPLERS = ("gram", "seeds")

#: δ used when σ is given without δ.
DEFAULT_DELTA = 1e-5

#: Default rows per chunk in :meth:`PrivateLinearGenerator.iter_samples`.
DEFAULT_CHUNK_SIZE = 65_536

#: Largest seed block (entries of Z) drawn at once by the literal sampler.
_MAX_SEED_BLOCK = 1 << 22


# ---------------------------------------------------------------------------
# The estimator
# ---------------------------------------------------------------------------


def _check_matrix(param: str, values: ArrayLike, *, allow_1d: bool) -> np.ndarray:
    array = check_real_table(param, values)  # the command line's check too (tabular)
    if array.ndim == 1 and allow_1d:
        array = array[:, None]
    if array.ndim != 2:
        raise InputError(param, f"must be a 2-d array, got {array.ndim} dimension(s)")
    if array.shape[1] < 1:
        raise InputError(param, "must have at least one column")
    return array


class PrivateLinearGenerator(BaseEstimator):
    """Differentially private synthetic data from a ridge-regression linear generator.

    Fits v = argmin_W (1/m) Σ_i ‖Wᵀx_i − y_i‖² + λ‖W‖_F² on clipped data,
    perturbs it, V = v + σN, and releases synthetic records ZV with hidden
    seeds Z ~ N(0, σ_z²) (Pierquin et al. 2026, §2; docs/theory.md §1, §13). See the
    module docstring for the λ convention and the Gram-factor sampler.

    Parameters
    ----------
    label_bound : float
        B > 0: target rows are clipped to ‖y‖ ≤ B (a declared bound, in target
        units).
    ridge : float
        λ > 0 in the objective above (penalty λ‖W‖_F², not (λ/2)‖W‖_F²).
    norm_bound : float, optional
        C: the model is projected onto the Frobenius ball of radius C. Default
        and maximum B/(2√λ) (the ridge solution never exceeds it; a larger
        value would only loosen the accounting, so it is reduced to B/(2√λ)).
    sigma : float, optional
        Noise σ > 0 of V = v + σN. Give either ``sigma`` or ``epsilon``.
    epsilon : float, optional
        Target ε > 0: σ is calibrated by the accountant (needs ``delta``).
    delta : float, optional
        δ in (0, 1) of the guarantee. Required with ``epsilon``; with ``sigma``
        it defaults to 1e-5. Choose δ well below 1/m.
    n_syn : int, optional
        Number of synthetic records the guarantee must cover. None (default):
        unlimited. With a finite value, the generator refuses to draw more
        than ``n_syn`` records in total.
    feature_scale : float, array of shape (d,), or "data", default 1.0
        Features are multiplied by this **declared, data-independent** scale,
        then each row is clipped to ‖x‖ ≤ 1. ``"data"`` divides by the largest
        row norm of the private features: that scale is learned from the
        private data, is not covered by the guarantee, and the report says so.
    feature_bounds : array of shape (d, 2), optional
        Declared, public ranges [lo, hi] of the feature columns (one row per column),
        for columns in different units: each column is clamped into its range, mapped
        affinely onto [−1, 1] and divided by √d, so a row within its ranges has norm
        ≤ 1 (:func:`~synthamp.release._ridge.map_into_bounds`). Replaces
        ``feature_scale`` (which must then stay 1).
    seed_scale : float, optional
        σ_z > 0 of the seeds (default 1/√d, so that E‖z‖² = 1, like ‖x‖ ≤ 1).
        It does not change the privacy guarantee.
    release_model : bool, default False
        If True, the noisy model V is exposed as ``model_`` and the guarantee
        is computed by post-processing accounting (releasing V).
    accounting : {"exact", "global", "post-processing"}, default "exact"
        Accounting method of :mod:`synthamp.accountant` (for k > 1 the
        accountant uses certified bounds).
    accountant : {"pld", "rdp"} or None, default None
        pld: the exact privacy profile (docs/theory.md §14), tighter; rdp: the RDP
        curve of ``accounting`` converted. None: pld for k = 1, unlimited
        n_syn and exact accounting, rdp otherwise. The report gives both ε.
    sampler : {"gram", "seeds"}, default "gram"
        "gram" draws records as σ_z·gR with RᵀR = VᵀV (same law as ZV, O(k²)
        per record, holds only R); "seeds" computes ZV literally (holds V).
    time_budget : float or None, default :data:`~synthamp.accountant.DEFAULT_TIME_BUDGET`
        Seconds for finite-release accounting (``n_syn`` set, exact method);
        once spent, the unlimited-release (plateau) bound, sound for every
        n_syn, stands in and the report says so. None waits for the finite
        result however long it takes.
    random_state : int, optional
        None (default): noise and seeds come from operating-system entropy
        (``numpy.random.SeedSequence()`` draws 128 bits from the OS; numpy's
        PCG64 expands them). An integer makes the release reproducible, for
        research only: the noise is then not secret, and the report says so.

    Attributes
    ----------
    sigma_ : float
        σ used.
    sensitivity_ : float
        Δ = B(1 + 2√λ)/(mλ^{3/2}).
    norm_bound_ : float
        C used.
    seed_scale_ : float
        σ_z used.
    epsilon_, delta_ : float
        The guarantee.
    accounting_ : ReleaseResult
        What the fit accounted (public numbers and the guarantee room's decision), from
        which :func:`synthamp.report.build_report` builds the report.
    privacy_ : PrivacyReport
        The privacy report (``build_report(accounting_)``).
    n_features_in_ : int
        d.
    n_targets_ : int
        k.
    n_records_ : int
        m.
    n_sampled_ : int
        Records drawn (or reserved by :meth:`iter_samples`) so far.
    model_ : ndarray of shape (d, k)
        The noisy model V (only with ``release_model=True``).

    Notes
    -----
    Privacy hygiene: after :meth:`fit` the object holds only what sampling
    needs (R with RᵀR = VᵀV, or V for ``sampler="seeds"`` or
    ``release_model=True``) in private attributes that ``repr``,
    ``get_params`` and the report never show. Pickling keeps them only when
    their disclosure is covered by the guarantee (unlimited ``n_syn`` with the
    Gram sampler, or ``release_model=True``); otherwise the pickled copy cannot
    sample, and a warning says so. The random stream's state is never pickled
    or copied: an unpickled or copied generator samples from a fresh stream
    seeded with OS entropy, so it never replays its parent's records.
    """

    def __init__(
        self,
        *,
        label_bound: float,
        ridge: float,
        norm_bound: float | None = None,
        sigma: float | None = None,
        epsilon: float | None = None,
        delta: float | None = None,
        n_syn: int | None = None,
        feature_scale: float | np.ndarray | str = 1.0,
        feature_bounds: ArrayLike | None = None,
        seed_scale: float | None = None,
        release_model: bool = False,
        accounting: str = "exact",
        accountant: str | None = None,
        sampler: str = "gram",
        time_budget: float | None = accountant.DEFAULT_TIME_BUDGET,
        random_state: int | None = None,
    ) -> None:
        self.label_bound = label_bound
        self.ridge = ridge
        self.norm_bound = norm_bound
        self.sigma = sigma
        self.epsilon = epsilon
        self.delta = delta
        self.n_syn = n_syn
        self.feature_scale = feature_scale
        self.feature_bounds = feature_bounds
        self.seed_scale = seed_scale
        self.release_model = release_model
        self.accounting = accounting
        self.accountant = accountant
        self.sampler = sampler
        self.time_budget = time_budget
        self.random_state = random_state

    # -- validation ---------------------------------------------------------

    # Not named _validate_params on purpose: that name is scikit-learn's
    # BaseEstimator._validate_params (it checks _parameter_constraints and
    # returns None); this method has another contract (it raises
    # synthamp.InputError and returns the validated values), so it must not
    # shadow scikit-learn's.
    def _checked_params(self) -> dict:
        """The hyperparameters, validated: a dict of checked values (``InputError`` if bad)."""
        out = {
            "label_bound": validated_one("label_bound", self.label_bound),
            "ridge": validated_one("ridge", self.ridge),
            "norm_bound": None
            if self.norm_bound is None
            else validated_one("norm_bound", self.norm_bound),
            "n_syn": None if self.n_syn is None else validated_one("n_syn", self.n_syn),
            "seed_scale": None
            if self.seed_scale is None
            else validated_one("seed_scale", self.seed_scale),
            "time_budget": None
            if self.time_budget is None
            else validated_one("time_budget", self.time_budget),
        }
        if self.sigma is not None and self.epsilon is not None:
            raise InputError("epsilon", "give either sigma or epsilon (with delta), not both")
        if self.sigma is None and self.epsilon is None:
            raise InputError("epsilon", "give sigma, or epsilon and delta")
        out["sigma"] = None if self.sigma is None else validated_one("sigma", self.sigma)
        out["epsilon"] = None if self.epsilon is None else validated_one("epsilon", self.epsilon)
        if self.delta is None and self.epsilon is not None:
            raise InputError("delta", "is required with epsilon")
        out["delta"] = DEFAULT_DELTA if self.delta is None else validated_one("delta", self.delta)
        if self.accounting not in ACCOUNTING_METHODS:
            raise InputError("accounting", f"must be one of {', '.join(ACCOUNTING_METHODS)}")
        if self.accountant is not None and self.accountant not in ACCOUNTANTS:
            raise InputError("accountant", f"must be None or one of {', '.join(ACCOUNTANTS)}")
        if self.sampler not in SAMPLERS:
            raise InputError("sampler", f"must be one of {', '.join(SAMPLERS)}")
        if not isinstance(self.release_model, bool | np.bool_):
            raise InputError("release_model", "must be True or False")
        if self.random_state is not None and not isinstance(self.random_state, numbers.Integral):
            raise InputError("random_state", "must be None or a non-negative integer")
        if self.random_state is not None:
            validated_one("random_state", self.random_state)
        return out

    def _feature_scale(
        self, d: int, features: np.ndarray | None = None
    ) -> tuple[np.ndarray | float, FeatureScaling]:
        """Return (scale, how it was chosen); the report words the latter.

        ``features`` (the rows) is needed by ``feature_scale="data"`` only.
        """
        spec = self.feature_scale
        if self.feature_bounds is not None:
            if not (isinstance(spec, (int, float)) and spec == 1):
                raise InputError("feature_scale", "give feature_bounds or feature_scale, not both")
            bounds = np.asarray(self.feature_bounds, dtype=np.float64)
            if bounds.shape != (d, 2):
                raise InputError("feature_bounds", f"must have shape ({d}, 2): [lo, hi] per column")
            if not (np.isfinite(bounds).all() and (bounds[:, 0] < bounds[:, 1]).all()):
                raise InputError("feature_bounds", "every range must be finite with lo < hi")
            return 1.0, FeatureScaling("bounds")
        if isinstance(spec, str):
            if spec != "data":
                raise InputError("feature_scale", 'must be a number, an array or "data"')
            largest = float(row_norms(features).max())
            scale = 1.0 / largest if largest > 0 else 1.0
            return scale, FeatureScaling("data")
        try:
            scale = np.asarray(spec, dtype=np.float64)
        except (TypeError, ValueError):
            raise InputError("feature_scale", 'must be a number, an array or "data"') from None
        if scale.ndim == 0:
            value = validated_one("feature_scale", float(scale))
            return value, FeatureScaling("constant", value)
        if scale.shape != (d,):
            raise InputError("feature_scale", f"must be a number or have shape ({d},)")
        if not (np.isfinite(scale).all() and (scale > 0).all()):
            raise InputError("feature_scale", "every entry must be finite and > 0")
        return scale, FeatureScaling("columns")

    # -- fit ----------------------------------------------------------------

    def fit(self, X: ArrayLike, Y: ArrayLike) -> PrivateLinearGenerator:
        """Fit the private generator on features ``X`` (m, d) and targets ``Y`` (m, k).

        Returns
        -------
        self
        """
        params = self._checked_params()
        features = _check_matrix("X", X, allow_1d=False)
        targets = _check_matrix("Y", Y, allow_1d=True)
        m, d = features.shape
        k = targets.shape[1]
        if targets.shape[0] != m:
            raise InputError("Y", f"has {targets.shape[0]} rows, X has {m}")
        if m < 2:
            raise InputError("X", f"needs at least 2 records, got {m}")
        if k > d:
            raise InputError("Y", f"has k = {k} columns but X has d = {d}; need d ≥ k")
        scale, scaling = self._feature_scale(d, features)
        label_bound, ridge = params["label_bound"], params["ridge"]

        def solve() -> np.ndarray:
            rows = features
            if self.feature_bounds is not None:
                bounds = np.asarray(self.feature_bounds, dtype=np.float64)
                rows = map_into_bounds(rows, bounds[:, 0], bounds[:, 1])
            return ridge_fit(
                scale_clip_rows(rows, scale, 1.0), clip_rows(targets, label_bound), ridge
            )

        return self._fit(params, (m, d, k), solve, scaling)

    def fit_statistics(self, statistics: RidgeStatistics) -> PrivateLinearGenerator:
        """Fit from the sufficient statistics of the clipped rows (the streaming fit).

        ``statistics`` (:func:`~synthamp.release._streaming.accumulate_statistics`: m, XᵀX
        and XᵀY of the rows mapped and clipped as :meth:`fit` maps and clips them) gives the
        same ridge solution as :meth:`fit` on the rows, to rounding; the rest (accounting,
        perturbation, sampler, report) is :meth:`fit`'s. Its maps must be this generator's
        (``label_bound``, ``feature_scale``, ``feature_bounds``); ``feature_scale="data"``
        needs the rows and is refused.

        Returns
        -------
        self
        """
        params = self._checked_params()
        m, d, k = statistics.records, statistics.dim, statistics.out_dim
        if m < 2:
            raise InputError("X", f"needs at least 2 records, got {m}")
        if k > d:
            raise InputError("Y", f"has k = {k} columns but X has d = {d}; need d ≥ k")
        if isinstance(self.feature_scale, str):
            raise InputError("feature_scale", '"data" needs the rows: fit(X, Y), not statistics')
        scale, scaling = self._feature_scale(d)
        given = statistics.scaling
        bounds = None if self.feature_bounds is None else np.asarray(self.feature_bounds, float)
        same = (
            given.label_bound == params["label_bound"]
            and np.array_equal(np.broadcast_to(given.feature_scale, d), np.broadcast_to(scale, d))
            and (bounds is None) == (given.bounds is None)
            and (bounds is None or np.array_equal(bounds, given.bounds))
        )
        if not same:
            raise InputError(
                "statistics", "were accumulated with another label_bound, feature_scale or "
                "feature_bounds than this generator's",
            )  # fmt: skip
        ridge = params["ridge"]
        return self._fit(params, (m, d, k), lambda: solve_statistics(statistics, ridge), scaling)

    def _fit(self, params: dict, shape, solve, scaling: FeatureScaling):
        """Accounting, the ridge solution ``solve()``, perturbation, sampler and report."""
        m, d, k = shape
        label_bound, ridge = params["label_bound"], params["ridge"]
        check_ridge_scale(label_bound, ridge, m)
        natural_bound = ridge_norm_bound(label_bound, ridge)
        norm_bound = natural_bound
        if params["norm_bound"] is not None:
            norm_bound = min(params["norm_bound"], natural_bound)
        sensitivity = ridge_sensitivity(label_bound, ridge, m)
        method = "post-processing" if self.release_model else self.accounting
        n_syn = None if self.release_model else params["n_syn"]
        accounting = _account(
            epsilon=params["epsilon"],
            delta=params["delta"],
            sigma=params["sigma"],
            dim=d,
            out_dim=k,
            norm_bound=norm_bound,
            sensitivity=sensitivity,
            n_syn=n_syn,
            method=method,
            choice=self.accountant,
            time_budget=params["time_budget"],
        )
        sigma = accounting.sigma
        seed_scale = params["seed_scale"] or 1.0 / math.sqrt(d)

        entropy = np.random.SeedSequence(self.random_state)
        noise_seq, sample_seq = entropy.spawn(2)

        # v and N live only in this block.
        model = project_frobenius(solve(), norm_bound)
        _perturb(model, sigma, np.random.Generator(np.random.PCG64(noise_seq)))

        self.__rng = np.random.Generator(np.random.PCG64(sample_seq))
        self.__model = None
        self.__factor = None
        if self.release_model or self.sampler == "seeds":
            self.__model = model
        if self.sampler == "gram":
            self.__factor = seed_scale * _gram_factor(model)
        del model

        self.n_features_in_ = d
        self.n_targets_ = k
        self.n_records_ = m
        self.sigma_ = sigma
        self.sensitivity_ = sensitivity
        self.norm_bound_ = norm_bound
        self.seed_scale_ = seed_scale
        self.epsilon_ = accounting.epsilon
        self.delta_ = params["delta"]
        self.n_syn_ = n_syn
        self.n_sampled_ = 0
        release = SyntheticDataRelease(d, k, norm_bound, sensitivity, sigma, n_syn=n_syn)
        self.accounting_ = ReleaseResult(
            guarantee=accounting,
            release=release,
            n_records=m, ridge=ridge, label_bound=label_bound, seed_scale=seed_scale,
            objective=OBJECTIVE, seeded=self.random_state is not None,
            anchor_epsilon=accounting.epsilon, model_released=bool(self.release_model),
            requested_method=self.accounting, feature_scaling=scaling,
            curves=guarantee_curves(
                release, accounting, curve=getattr(accounting.rdp, "curve", None),
                time_budget=params["time_budget"],
            ),
        )  # fmt: skip
        self.privacy_ = build_report(self.accounting_)
        return self

    # -- the released model (opt-in) ----------------------------------------

    @property
    def model_(self) -> np.ndarray:
        """The noisy model V = v + σN, only if ``release_model=True``."""
        if not getattr(self, "release_model", False) or self._state("model") is None:
            raise AttributeError(
                "model_ is available only with release_model=True (V is not released "
                "otherwise; the guarantee would then need post-processing accounting)"
            )
        return self._state("model").copy()

    def _state(self, name: str) -> Any:
        return self.__dict__.get(f"_PrivateLinearGenerator__{name}")

    # -- sampling -----------------------------------------------------------

    def _check_fitted(self) -> None:
        if not hasattr(self, "privacy_"):
            raise NotFittedError("call fit before sampling")
        if self._state("rng") is None or (
            self._state("factor") is None and self._state("model") is None
        ):
            raise RuntimeError(
                "this generator was unpickled without its private state (not covered by the "
                "guarantee) and cannot sample; fit it again"
            )

    @property
    def n_remaining_(self) -> int | None:
        """Records that may still be drawn under the guarantee (None: unlimited)."""
        if self.n_syn_ is None:
            return None
        return self.n_syn_ - self.n_sampled_

    def _reserve(self, n: int, param: str) -> None:
        remaining = self.n_remaining_
        if remaining is not None and n > remaining:
            raise InputError(
                param,
                f"{n} records requested but the guarantee covers n_syn = {self.n_syn_} and "
                f"{remaining} remain",
            )
        self.n_sampled_ += n

    def _draw(self, n: int) -> np.ndarray:
        rng = self._state("rng")
        factor = self._state("factor")
        if factor is not None:
            return _draw_with_factor(factor, n, rng)
        model = self._state("model")
        d, k = model.shape
        out = np.empty((n, k))
        block = max(1, _MAX_SEED_BLOCK // d)
        for start in range(0, n, block):
            stop = min(n, start + block)
            seeds = rng.standard_normal((stop - start, d))
            seeds *= self.seed_scale_
            np.matmul(seeds, model, out=out[start:stop])
            del seeds
        return out

    def sample(self, n: int) -> np.ndarray:
        """Draw ``n`` synthetic records ZV with fresh hidden seeds.

        Parameters
        ----------
        n : int
            Number of records (counted against ``n_syn`` if it is finite).

        Returns
        -------
        ndarray of shape (n, k)
        """
        self._check_fitted()
        n = validated_one("n", n)
        self._reserve(n, "n")
        return self._draw(n)

    def iter_samples(
        self, n_total: int | None = None, *, chunk_size: int = DEFAULT_CHUNK_SIZE
    ) -> Iterator[np.ndarray]:
        """Yield synthetic records in chunks; memory does not grow with ``n_total``.

        Parameters
        ----------
        n_total : int, optional
            Total number of records. None: all remaining records under a finite
            ``n_syn``, or an endless stream under unlimited accounting. The
            records are reserved against ``n_syn`` when this method is called.
        chunk_size : int
            Rows per chunk (the last chunk may be shorter).

        Yields
        ------
        ndarray of shape (rows, k)
        """
        self._check_fitted()
        chunk_size = validated_one("chunk_size", chunk_size)
        if n_total is None and self.n_remaining_ is not None:
            n_total = self.n_remaining_
            if n_total == 0:
                raise InputError("n_total", f"all n_syn = {self.n_syn_} records were drawn")
        if n_total is not None:
            n_total = validated_one("n_total", n_total)
            self._reserve(n_total, "n_total")
        return self._chunks(n_total, chunk_size)

    def _chunks(self, n_total: int | None, chunk_size: int) -> Iterator[np.ndarray]:
        produced = 0
        while n_total is None or produced < n_total:
            rows = chunk_size if n_total is None else min(chunk_size, n_total - produced)
            if n_total is None:
                self.n_sampled_ += rows
            yield self._draw(rows)
            produced += rows

    def gram_estimate(self, synthetic: ArrayLike, *, nonnegative: bool = True) -> np.ndarray:
        """Estimate of vᵀv from this generator's synthetic records.

        See :func:`debiased_gram`. By default the estimate is projected onto the positive
        semi-definite matrices (for k = 1, max(0, ·)): vᵀv, a Gram matrix, is never
        negative, and the projection never increases the error; ``nonnegative=False`` gives
        the unbiased debiased estimate, which can be negative.
        """
        if not hasattr(self, "privacy_"):
            raise NotFittedError("call fit first")
        return debiased_gram(
            synthetic, sigma=self.sigma_, dim=self.n_features_in_, seed_scale=self.seed_scale_,
            nonnegative=nonnegative,
        )  # fmt: skip

    # -- persistence --------------------------------------------------------

    def __getstate__(self) -> dict[str, Any]:
        state = dict(super().__getstate__())  # a copy: never clobber the live object
        # The stream's state determines the parent's future records: never copied.
        if state.get("_PrivateLinearGenerator__rng") is not None:
            state["_PrivateLinearGenerator__rng"] = _FRESH_STREAM
        private = [key for key in state if key.startswith("_PrivateLinearGenerator__")]
        covered = bool(self.release_model) or (
            getattr(self, "n_syn_", 0) is None
            and state.get("_PrivateLinearGenerator__model") is None
        )
        if private and not covered:
            warnings.warn(
                "the private sampling state of PrivateLinearGenerator is not pickled: its "
                "disclosure is not covered by the guarantee (finite n_syn or sampler='seeds'); "
                "the unpickled copy cannot sample",
                UserWarning,
                stacklevel=2,
            )
            for key in private:
                state[key] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Restore a pickled or copied generator with a fresh stream from OS entropy.

        A copy never replays its parent's stream (it would emit the parent's
        "fresh" records again); even with ``random_state`` its records are not
        reproducible.
        """
        super().__setstate__(state)
        if isinstance(self._state("rng"), str):  # _FRESH_STREAM
            self.__rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence()))


#: Placeholder pickled instead of the stream (see ``PrivateLinearGenerator.__setstate__``).
_FRESH_STREAM = "fresh stream from OS entropy"
