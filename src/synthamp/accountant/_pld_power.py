"""T-fold self-composition of a discrete PLD by one FFT power, with its error bounded.

The T-fold composition of a PLD with masses p on the grid (lower + i)·h is the
T-fold convolution p^{*T}, on the grid (T·lower + s)·h, s = 0 … T(len − 1).
Its Fourier transform is the T-th power of p's, so one forward real FFT, one
elementwise power and one inverse FFT compute it (prv_accountant's
``compose``; dp_accounting's ``common.self_convolve``), instead of the
2·log₂T convolutions of repeated squaring.

The window
----------
The FFT is taken on a window [a, b] of s that holds all but ``tail_mass`` of
the composed mass, found by Chernoff's bound as in dp_accounting's
``compute_self_convolve_bounds``: for every t > 0,
P(S ≥ x) <= M(t)^T e^{−t x} with M(t) = Σ_i p_i e^{t i}, so
b = (T log M(t) + log(2/τ))/t leaves at most τ/2 above b (t < 0: at most τ/2
below a). M(t) is bounded above on bins of the grid (each bin's mass put at
its largest index for t > 0, its smallest for t < 0: an upper bound on M(t),
so the bound stays valid), t runs over a geometric grid around the Gaussian
optimum √(2 log(2/τ)/T)/s (s the standard deviation of the index), and the
floating-point error of log M(t), at most 4(bins + 4)·u·(1 + |t|·len), times T/t,
widens the window outward. An FFT of length n ≥ b − a + 1 is circular: the mass
outside the window wraps into it (aliasing), at most τ in all.

The error, accounted
--------------------
Two errors separate the computed masses q on the window from the exact ones p:
the aliased mass (>= 0, at most τ, from the Chernoff window) and the rounding
of the FFTs and the power, bounded in L1 by :func:`_rounding_bound` from
Higham's bound on the FFT (Accuracy and Stability of Numerical Algorithms,
2002, Thm 24.2: ‖fl(FFT x) − FFT x‖₂ <= log₂n·η/(1 − log₂n·η)·‖FFT x‖₂, with
η = 8u taken for pocketfft's mixed radices 2, 3, 5; an assumption on the
constant, not a proof for radices 3 and 5), the power's relative error
(<= 8u(T + 1)) and |x^T − y^T| <= T max(|x|, |y|)^{T−1}|x − y|; L2 norms turn
into L1 over the window by Cauchy–Schwarz (‖·‖₁ <= √W‖·‖₂). With e the sum of
both, every δ(ε) = Σ p_ℓ(1 − e^{ε−ℓ})_+ moves by at most e (each term's weight
is in [0, 1]):

* the pessimistic PLD adds e to its mass at +∞ (δ only grows: as dp_accounting
  adds its ``tail_mass_truncation``), so its δ stays above the exact
  composition's at every ε;
* the optimistic companion (a lower bound) carries e as ``delta_slack``: its
  δ is below the exact one plus e, so its ε read at δ + e is below the exact ε
  at δ (:meth:`PrivacyLossDistribution.epsilon_lower_at`).

Negative rounded masses are clipped to 0 (that only moves q towards p).
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from synthamp._budget import TimeBudgetExceeded, check_budget, time_left

#: Unit roundoff of float64.
UNIT_ROUNDOFF = 2.0**-53
#: Bins over which the moment generating function is bounded (cost: bins × orders).
MGF_BINS = 1024
#: Fourier coefficients whose T-th power is below this are set to 0 (their error counted).
SPECTRUM_CUTOFF = 1e-40
LOG_SPECTRUM_CUTOFF = math.log(SPECTRUM_CUTOFF)
#: Powers from this many points check the caller's time budget (and its time left).
BUDGETED_POWER_POINTS = 1 << 18
#: Past this float64 rounding bound the power is redone in long double (where it is wider).
LONG_DOUBLE_FROM = 1e-9
#: Seconds per n·log₂n of one power (two transforms and the elementwise work), measured on
#: the 2-core benchmark machine under load 8–16, float64 and long double: a composition
#: whose estimate passes the time left of the caller's budget stops before it starts.
SECONDS_PER_POINT_LOG = {False: 5e-9, True: 1.2e-7}
#: Half-width of the geometric grid of Chernoff orders, in quarter-octaves.
ORDER_STEPS = 12


def chernoff_window(probs: NDArray, count: int, tail_mass: float) -> tuple[int, int, bool]:
    """The window [a, b] of s holding all but ``tail_mass`` of the ``count``-fold sum.

    Returns
    -------
    (a, b, whole)
        Indices of the composed grid (0 … count·(len − 1)); ``whole`` is True
        when the window is the whole support (no mass outside it).
    """
    size = probs.size
    full = count * (size - 1)
    index = np.arange(size, dtype=float)
    mass = float(probs.sum())
    if size == 1 or mass <= 0.0:
        return 0, full, True
    mean = float(np.sum(probs * index)) / mass  # (no BLAS: its threads stall under load)
    spread = math.sqrt(max(float(np.sum(probs * (index - mean) ** 2)) / mass, 0.0))
    if spread == 0.0:
        return 0, full, True
    # bins: the mass of each bin, with its smallest and largest index
    width = max(1, -(-size // MGF_BINS))
    starts = np.arange(0, size, width)
    binned = np.add.reduceat(probs, starts)
    first = starts.astype(float)
    last = np.minimum(starts + width - 1, size - 1).astype(float)
    keep = binned > 0.0
    binned, first, last = binned[keep], first[keep], last[keep]
    log_mass = np.log(binned)
    log_tail = math.log(2.0 / tail_mass)
    best = math.sqrt(2.0 * log_tail / count) / spread
    orders = best * 2.0 ** (np.arange(-ORDER_STEPS, ORDER_STEPS + 1) / 4.0)
    upper, lower = float(full), 0.0
    rounding = 4.0 * (binned.size + 4) * UNIT_ROUNDOFF * (1.0 + orders * (size - 1))
    for sign, at in ((1.0, last), (-1.0, first)):
        exponent = log_mass[None, :] + sign * orders[:, None] * at[None, :]
        top = exponent.max(axis=1)
        log_mgf = top + np.log(np.exp(exponent - top[:, None]).sum(axis=1))
        bounds = (count * (log_mgf + rounding) + log_tail) / orders
        bounds = bounds[np.isfinite(bounds)]
        if not bounds.size:
            continue
        if sign > 0:
            upper = min(upper, math.ceil(float(bounds.min())) + 1.0)
        else:
            lower = max(lower, math.floor(-float(bounds.min())) - 1.0)
    a, b = int(max(lower, 0.0)), int(min(upper, float(full)))
    if b <= a:  # cannot happen for a true bound; never let the window collapse
        return 0, full, True
    return a, b, (a == 0 and b == full)


def _fft_gamma(n: int, unit: float) -> float:
    """γ = log₂n·η/(1 − log₂n·η), η = 8u: the FFT's relative error (module docstring)."""
    stages = max(math.log2(n), 1.0)
    eta = 8.0 * unit
    return stages * eta / (1.0 - stages * eta)


def _wide_available() -> bool:
    return bool(np.finfo(np.longdouble).eps < np.finfo(np.float64).eps)


def starts_in_long_double(count: int) -> bool:
    """Whether :func:`fft_power` goes to long double at once (float64 cannot pass)."""
    return _wide_available() and math.sqrt(2.0) * count * _fft_gamma(2, UNIT_ROUNDOFF) > (
        LONG_DOUBLE_FROM
    )


def power_seconds(points: int, long_double: bool) -> float:
    """Estimated seconds of one power on ``points`` (:data:`SECONDS_PER_POINT_LOG`)."""
    return SECONDS_PER_POINT_LOG[long_double] * points * max(math.log2(max(points, 2)), 1.0)


def _fits(points: int, long_double: bool) -> None:
    """Stop (:class:`~synthamp._budget.TimeBudgetExceeded`) before a power that cannot end
    within the time left of the caller's budget, or once that budget is spent."""
    check_budget()
    left = time_left()
    if left is not None and power_seconds(points, long_double) > left:
        raise TimeBudgetExceeded


def fft_power(
    probs: NDArray, count: int, window: tuple[int, int, bool], tail_mass: float
) -> tuple[NDArray[np.float64], float]:
    """The ``count``-fold self-convolution of ``probs`` on ``window`` (:func:`chernoff_window`).

    In float64; redone in long double (80-bit on x86-64, where numpy and
    scipy's pocketfft have it) when float64's rounding bound passes
    :data:`LONG_DOUBLE_FROM` (large T: the bound grows as T·u).

    Returns
    -------
    (masses, error)
        The composed masses at indices a, a + 1, …, b of the grid
        0 … count·(len − 1), clipped to >= 0, and ``error``: a bound on how far
        δ(ε) of these masses lies from the exact composition's, either way, at
        every ε (aliased mass <= ``tail_mass`` unless the window is whole, plus
        the rounding; module docstring).
    """
    wide = _wide_available()
    points = max(window[1] - window[0] + 1, probs.size)
    budgeted = points > BUDGETED_POWER_POINTS
    # the rounding bound is at least about √2·T·γ (the zero frequency alone): past the
    # threshold there, float64 cannot pass and long double is taken at once
    if starts_in_long_double(count):
        if budgeted:
            _fits(points, True)
        return _as_float64(*_fft_power(probs, count, window, tail_mass, np.longdouble))
    if budgeted:
        _fits(points, False)
    masses, error = _fft_power(probs, count, window, tail_mass, np.float64)
    if error > LONG_DOUBLE_FROM and wide:
        if budgeted:  # (a second, slower transform: the caller's time budget applies)
            _fits(points, True)
        masses_wide, error_wide = _fft_power(probs, count, window, tail_mass, np.longdouble)
        if error_wide < error:
            return _as_float64(masses_wide, error_wide)
    return masses, error


def _as_float64(masses: NDArray, error: float) -> tuple[NDArray[np.float64], float]:
    """Long-double masses rounded to float64, their error bound grown by that rounding's
    L1 bound (relative u each)."""
    return masses.astype(np.float64), error + float(np.sum(masses)) * UNIT_ROUNDOFF * 1.01


def _fft_power(
    probs: NDArray, count: int, window: tuple[int, int, bool], tail_mass: float, dtype
) -> tuple[NDArray, float]:
    """The kernel of :func:`fft_power` in ``dtype``: its (masses, error), before any cast."""
    # scipy.fft is heavy (~0.1 s to import): loaded by the first composition
    from scipy import fft

    a, b, whole = window
    width = b - a + 1
    n = fft.next_fast_len(max(width, probs.size), real=True)
    unit = float(np.finfo(dtype).eps) / 2.0
    gamma = _fft_gamma(n, unit)
    mass = float(probs.sum())
    spectrum = fft.rfft(probs.astype(dtype, copy=False), n)
    # |X_k| <= |X̂_k| + γ‖p‖₁ (componentwise FFT error); coefficients whose T-th power is
    # below SPECTRUM_CUTOFF even so are set to 0 (their error is counted below). The test
    # runs in float64 (|X̂_k| to within 2⁻⁵⁰ relative, so that much below the threshold)
    threshold = math.exp(LOG_SPECTRUM_CUTOFF / count) * (1.0 - 2.0**-50) - gamma * mass
    keep = np.nonzero(np.abs(spectrum.astype(np.complex128, copy=False)) > threshold)[0]
    kept = spectrum[keep]
    modulus_kept = np.abs(kept)
    log_bound = np.log(modulus_kept + gamma * mass)
    with np.errstate(divide="ignore"):
        log_kept = np.log(modulus_kept)
    # (sin and cos reduce the large phase T·arg accurately; its rounding is in 8u(T + 1))
    values = np.exp(count * log_kept + 1j * (count * np.angle(kept)))
    powered = np.zeros(spectrum.shape, dtype=spectrum.dtype)
    powered[keep] = values
    circular = fft.irfft(powered, n)
    # index s of the composed grid sits at s mod n of the circular result
    first = a % n
    masses = circular[first : first + width]
    if first + width > n:
        masses = np.concatenate([masses, circular[: first + width - n]])
    # the rounding, in L2 over the full spectrum (twice the half one, bounding the mirror)
    drift = count * np.exp((count - 1) * log_bound) * gamma * mass  # |X̂^T − X^T|
    norm = math.sqrt(2.0 * float(np.sum(values.real**2 + values.imag**2)))  # >= ‖Ŷ‖₂
    spectral = math.sqrt(2.0 * float(np.sum(drift * drift)))
    spectral += 8.0 * unit * (count + 1) * norm
    spectral += math.sqrt(2.0 * (spectrum.size - keep.size)) * SPECTRUM_CUTOFF
    # inverse: (1/√n)(the coefficients' error) + γ‖y‖₂, ‖y‖₂ = ‖Y‖₂/√n (Parseval)
    time_l2 = (spectral + gamma * (norm + spectral)) / math.sqrt(n)
    error = math.sqrt(width) * time_l2 * (1.0 + 4.0 * unit * width)
    return np.maximum(masses, 0.0), error + (0.0 if whole else tail_mass)
