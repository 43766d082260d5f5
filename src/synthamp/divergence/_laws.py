"""The laws of the sufficient statistic of a k = 1 release, written once.

By sufficiency (docs/theory.md §3) everything the exact engine and the audit need
is the law of one number:

* :class:`NoncentralChiSquare`, χ²_d(a²): ‖V‖²/σ² of an unlimited release
  (a = ‖v‖/σ), and the model factor Y of a finite release;
* :class:`ChiSquare`, χ²_n: the seed factor X of a release of n records;
* :class:`ProductLaw`, Y·X with Y ~ χ²_d(a²) and an independent X ~ χ²_n:
  ‖ZV‖²/(σ_z²σ²) of a release of n records;
* :class:`GaussianLaw`, N(μ, 1): the Gaussian mechanism releasing V itself,
  projected on the direction v − w.

One class per law, as in :mod:`scipy.stats` (``ncx2_gen``: ``_logpdf``,
``_sf``, ``_rvs``), but frozen (an instance is a law with its parameters) and
written for the engine's needs: log densities in the coordinates the
quadrature uses, up to an additive constant and without forming the terms of
size d log d that cancel (docs/theory.md §4, trap 2); log tails that keep their
relative accuracy far out; exact sampling; quantiles of the log tails.

Every law of the audit (:class:`Law`) has a coordinate t in which its tails
are smooth (t = log T, or t = T for the Gaussian), ``log_tail(t, upper)``,
``quantile_t``, ``sample`` and a rough ``center``/``spread`` of t that
brackets the quantile searches. The engine uses the log densities:
:meth:`NoncentralChiSquare.log_density_log_radius` (of log √Y) and
:meth:`ChiSquare.log_density_log_ratio` (of log(X/n)).

Accuracy: the log densities to a few ulp of their largest term; the tails of
χ²_d(a²) to the relative error of :func:`~synthamp.divergence._ncx2_tail.scipy_tail_rtol`
(proven bounds at large amplitude, Boost through :mod:`scipy.stats` elsewhere;
checked against mpmath in tests/divergence/test_ncx2_tail.py); the tails of Y·X
1e-9 relative (quadrature, self-checked, and against adaptive quadrature in the tests).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from synthamp.divergence._ncx2_tail import log_ncx2_tail
from synthamp.divergence._special import log_bessel_i_normalized

__all__ = [
    "ChiSquare",
    "GaussianLaw",
    "Law",
    "NoncentralChiSquare",
    "ProductLaw",
    "x_minus_expm1",
]

#: log of a probability too small to matter (tails below it are not refined).
_LOG_NEGLIGIBLE = -600.0


def x_minus_expm1(x: np.ndarray) -> np.ndarray:
    """x − (e^x − 1) ≤ 0 without cancellation (series −Σ_{k≥2} x^k/k! for |x| ≤ ½,
    18 terms: the remainder is below 1e-19 of the sum)."""
    x = np.asarray(x, dtype=float)
    with np.errstate(over="ignore"):
        out = x - np.expm1(x)
    small = np.abs(x) <= 0.5
    if small.any():
        xs = x[small]
        # terms x^k/k! up to the first below 1e-19 of x²/2 (k ≤ 19 for |x| ≤ ½)
        x_max = float(np.abs(xs).max())
        last, ratio = 2, 1.0
        while last < 19 and ratio > 1e-19:
            last += 1
            ratio *= x_max / last
        acc = np.full_like(xs, 1.0 / math.factorial(last))
        for k in range(last - 1, 1, -1):
            acc *= xs
            acc += 1.0 / math.factorial(k)
        out[small] = -(xs * xs) * acc
    return out


class Law:
    """Law of a statistic T; tails in the coordinate t = log T (or t = T)."""

    #: Rough centre and spread of t, to bracket quantiles.
    center: float
    spread: float

    def sample(self, size: int, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` independent draws of T."""
        raise NotImplementedError

    def to_t(self, value: ArrayLike) -> NDArray[np.float64]:
        """The coordinate t of values of T."""
        return np.log(value)

    def from_t(self, t: ArrayLike) -> NDArray[np.float64]:
        """Values of T at coordinates t."""
        return np.exp(t)

    def log_tail(self, t: ArrayLike, upper: bool) -> NDArray[np.float64]:
        """log P(T > τ) (``upper``) or log P(T <= τ), τ = from_t(t)."""
        raise NotImplementedError

    def quantile_t(self, log_prob: float, upper: bool) -> float:
        """t with log_tail(t, upper) = log_prob (a tail probability below 1/2)."""
        # scipy.optimize is heavy (~0.6 s to import): loaded by the audit, not the engine
        from scipy import optimize

        def excess(t: float) -> float:
            value = float(self.log_tail(np.array([t]), upper)[0])
            return (value - log_prob) if upper else (log_prob - value)

        lo, hi = self.center - self.spread, self.center + self.spread
        for k in range(200):
            if excess(lo) > 0:
                break
            lo -= self.spread * 2.0**k
        for k in range(200):
            if excess(hi) < 0:
                break
            hi += self.spread * 2.0**k
        return float(optimize.brentq(excess, lo, hi, xtol=1e-12 * max(1.0, abs(lo), abs(hi))))


class GaussianLaw(Law):
    """N(mean, 1): the projected Gaussian mechanism, t = T."""

    def __init__(self, mean: float):
        self.mean = mean
        self.center, self.spread = mean, 1.0

    def sample(self, size, rng):
        return self.mean + rng.standard_normal(size)

    def to_t(self, value):
        return np.asarray(value, dtype=float)

    def from_t(self, t):
        return np.asarray(t, dtype=float)

    def log_tail(self, t, upper):
        # scipy.special is heavy (~0.25 s to import): loaded on first use
        from scipy import special

        t = np.asarray(t, dtype=float)
        return special.log_ndtr(self.mean - t if upper else t - self.mean)


class ChiSquare:
    """χ²_n (central): the seed factor X of a release of n synthetic records."""

    def __init__(self, dof: int):
        self.dof = dof

    def log_density_log_ratio(self, w: ArrayLike) -> np.ndarray:
        """log density of log(X/n) at ``w``, up to a constant: (n/2)(w − (e^w − 1)).

        w − expm1(w) directly where |w| > ½ (−inf where e^w overflows), and by
        its series (:func:`x_minus_expm1`) on the entries with |w| ≤ ½.
        """
        out = x_minus_expm1(w)
        with np.errstate(over="ignore"):  # −inf: no weight
            out *= 0.5 * self.dof
        return out

    @functools.cached_property
    def log_sd(self) -> float:
        """Standard deviation of log X: √ψ'(n/2) (exact)."""
        # scipy.special is heavy (~0.25 s to import): loaded on first use
        from scipy import special

        return math.sqrt(float(special.polygamma(1, 0.5 * self.dof)))

    @functools.cached_property
    def log_mean(self) -> float:
        """Mean of log X: ψ(n/2) + log 2 (exact)."""
        # scipy.special is heavy (~0.25 s to import): loaded on first use
        from scipy import special

        return float(special.digamma(0.5 * self.dof)) + math.log(2.0)

    def log_tail_at(self, x: np.ndarray, upper: bool) -> np.ndarray:
        """log P(X > x) (``upper``) or log P(X <= x) (Cephes ``chdtrc``/``chdtr``)."""
        # scipy.special is heavy (~0.25 s to import): loaded on first use
        from scipy import special

        tail = special.chdtrc if upper else special.chdtr
        with np.errstate(divide="ignore"):
            return np.log(tail(self.dof, x))

    def sample(self, size: int, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` independent draws of X."""
        return rng.chisquare(self.dof, size)


class NoncentralChiSquare(Law):
    """χ²_d(amp²): ‖V‖²/σ² of an unlimited release (amp = ‖v‖/σ), t = log T.

    ν = d/2 − 1 and G_ν(z) = log ₀F₁(; ν+1; z²/4)
    (:func:`synthamp.divergence._special.log_bessel_i_normalized`); the density
    is p(x) = f_d(x) e^{−amp²/2} e^{G_ν(amp√x)}, f_d the central χ²_d density.
    """

    def __init__(self, dim: int, amp: float):
        self.dim, self.amp = dim, amp
        self.nu = 0.5 * dim - 1.0

    @functools.cached_property
    def center(self) -> float:  # type: ignore[override]
        """log(d + amp²), the log of the mean."""
        return math.log(self.dim + self.amp * self.amp)

    @functools.cached_property
    def spread(self) -> float:  # type: ignore[override]
        """Approximate standard deviation of log T (delta method; exact for amp = 0 up to
        rounding): √(ψ'(d/2)·d(d + 2amp²))/(d + amp²)."""
        # scipy.special is heavy (~0.25 s to import): loaded on first use
        from scipy import special

        lam = self.amp * self.amp
        dim = self.dim
        return math.sqrt(float(special.polygamma(1, 0.5 * dim)) * dim * (dim + 2 * lam)) / (
            dim + lam
        )

    def logpdf(self, x: ArrayLike) -> np.ndarray:
        """log p(x), finite wherever p(x) > 0 (no underflow at large d, docs/theory.md §4).

        log p(x) = log f_d(x) − amp²/2 + G_ν(amp√x), with log f_d from
        :func:`scipy.special.xlogy` and :func:`scipy.special.gammaln` (relative
        error ~1e-16·d log d at large d).
        """
        # scipy.special is heavy (~0.25 s to import): loaded on first use
        from scipy import special

        x = np.asarray(x, dtype=float)
        nu, dim, amp = self.nu, self.dim, self.amp
        with np.errstate(divide="ignore"):
            central = (
                special.xlogy(nu, x)
                - 0.5 * x
                - 0.5 * dim * math.log(2.0)
                - special.gammaln(0.5 * dim)
            )
        central = np.where(x > 0, central, -np.inf if dim > 2 else central)
        if amp == 0.0:
            return central
        return central - 0.5 * amp * amp + log_bessel_i_normalized(nu, amp * np.sqrt(x))

    def log_density_log_radius(
        self, u: np.ndarray, *, bessel: np.ndarray | None = None
    ) -> np.ndarray:
        """log density of U = log √T at ``u``, up to an additive constant.

        log q_U(u) = d·v − (d/2)·expm1(2v) + G_ν(amp·e^u) + const, v = u − ½ log d:
        the central part is (d/2)(w − expm1 w) at w = 2v = log(T/d)
        (:meth:`ChiSquare.log_density_log_ratio`), written around its mode so that
        no term of size d log d is formed (docs/theory.md §4, trap 2). ``bessel`` =
        G_ν(amp·e^u) when the caller has it already.
        """
        v = u - 0.5 * math.log(self.dim)
        shape = ChiSquare(self.dim).log_density_log_ratio(2.0 * v)
        if self.amp == 0.0:
            return shape
        if bessel is None:
            with np.errstate(over="ignore"):
                bessel = log_bessel_i_normalized(self.nu, self.amp * np.exp(np.minimum(u, 700.0)))
        # far right (u > ~350) the Gaussian factor is −inf and dominates
        return np.where(shape > -np.inf, shape + bessel, -np.inf)

    def log_tail_at(self, x: np.ndarray, upper: bool) -> np.ndarray:
        """log P(T > x) (``upper``) or log P(T <= x).

        :func:`synthamp.divergence._ncx2_tail.log_ncx2_tail`: proven bounds at a
        cost independent of amp where they are tight (large amp against d),
        ``scipy.stats.ncx2`` (Boost) elsewhere; the relative error is at most
        :func:`~synthamp.divergence._ncx2_tail.scipy_tail_rtol` (amp).
        """
        return log_ncx2_tail(np.asarray(x, dtype=float), self.dim, self.amp, upper)[0]

    def log_tail(self, t, upper):
        return self.log_tail_at(np.exp(np.asarray(t, dtype=float)), upper)

    def log_tail_rtol(self, t: ArrayLike, upper: bool) -> tuple[NDArray, NDArray]:
        """:meth:`log_tail` and a bound on its relative error, per point."""
        x = np.exp(np.atleast_1d(np.asarray(t, dtype=float)))
        return log_ncx2_tail(x, self.dim, self.amp, upper)

    def sample(self, size, rng):
        if self.amp == 0.0:
            return rng.chisquare(self.dim, size)
        return rng.noncentral_chisquare(self.dim, self.amp * self.amp, size)


class ProductLaw(Law):
    """Y·X, Y ~ χ²_d(amp²), X ~ χ²_n: ‖ZV‖²/(σ_z²σ²) of n records, t = log T.

    Tails by quadrature over the factor whose logarithm is narrower:
    P(YX > τ) = E[P(W > τ/N)] with N the narrow and W the wide factor, on a
    uniform grid in log N (trapezoidal rule, exponentially convergent for
    these smooth, rapidly decaying integrands; the density of log N is
    normalised on the grid itself). Each evaluation is checked against the
    rule on every other node (relative agreement 1e-9) and against the mass
    at the ends of the window; the grid is refined and widened until both
    pass.
    """

    def __init__(self, dim: int, amp: float, n_syn: int):
        self.dim, self.amp, self.n_syn = dim, amp, n_syn
        self.model = NoncentralChiSquare(dim, amp)
        self.seeds = ChiSquare(n_syn)
        spread_y = self.model.spread
        spread_x = self.seeds.log_sd
        self.center = math.log(dim + amp * amp) + math.log(n_syn)
        self.spread = math.hypot(spread_y, spread_x)
        self.over_x = spread_x <= spread_y
        if self.over_x:
            self._narrow_center = self.seeds.log_mean
            self._narrow_spread = spread_x
        else:
            self._narrow_center = self.model.center
            self._narrow_spread = spread_y
        self._grids: dict[tuple[float, float], tuple[NDArray, NDArray]] = {}

    def sample(self, size, rng):
        y = self.model.sample(size, rng)
        return y * self.seeds.sample(size, rng)

    def _log_narrow_density(self, u: NDArray[np.float64]) -> NDArray[np.float64]:
        """log density of log N at u, up to a constant."""
        if self.over_x:
            # centred, so that no term of size n log n is formed
            return self.seeds.log_density_log_ratio(u - math.log(self.n_syn))
        return self.model.logpdf(np.exp(u)) + u

    def _log_wide_tail(self, value: NDArray[np.float64], upper: bool) -> NDArray[np.float64]:
        """log P(W > value) or log P(W <= value) for the wide factor W."""
        if not self.over_x:
            return self.seeds.log_tail_at(value, upper)
        return self.model.log_tail_at(value, upper)

    def _grid(self, half_width: float, per_spread: float) -> tuple[NDArray, NDArray]:
        key = (half_width, per_spread)
        if key not in self._grids:
            count = 2 * math.ceil(half_width * per_spread) + 1
            u = self._narrow_center + self._narrow_spread * np.linspace(
                -half_width, half_width, count
            )
            log_density = self._log_narrow_density(u)
            self._grids[key] = (u, log_density)
        return self._grids[key]

    def log_tail(self, t, upper):
        # scipy.special is heavy (~0.25 s to import): loaded on first use
        from scipy import special

        t = np.atleast_1d(np.asarray(t, dtype=float))
        half_width, per_spread = 24.0, 8.0
        for _ in range(8):
            u, log_density = self._grid(half_width, per_spread)
            terms = log_density[None, :] + self._log_wide_tail(
                np.exp(t[:, None] - u[None, :]), upper
            )
            fine = special.logsumexp(terms, axis=1) - special.logsumexp(log_density)
            coarse = special.logsumexp(terms[:, ::2], axis=1) - special.logsumexp(log_density[::2])
            with np.errstate(invalid="ignore"):
                ends = np.maximum(terms[:, 0], terms[:, -1]) - special.logsumexp(terms, axis=1)
            alive = fine > _LOG_NEGLIGIBLE  # below: a bracket of a quantile search, not a result
            converged = np.all(np.abs(fine - coarse)[alive] <= 1e-9)
            contained = np.all(ends[alive] <= -40.0)
            if converged and contained:
                return fine
            if not converged:
                per_spread *= 2.0
            if not contained:
                half_width *= 1.5
        raise RuntimeError(  # pragma: no cover - never seen on the tested domain
            "the tail of the product law Y·X did not converge; report this case"
        )
