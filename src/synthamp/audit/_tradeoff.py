"""Trade-off curves (FNR against FPR) of the audited pair: exact and empirical.

The trade-off function of a pair (P, Q) is the smallest false-negative rate
FNR = P(accept) of a test with false-positive rate FPR = Q(reject) (Dong, Roth
and Su 2022). For the worst-case pair of a release the statistic T has a
monotone likelihood ratio, so the optimal tests are the thresholds {T > x}
and the exact curve is parametrised by x: FPR = Q(T > x), FNR = P(T <= x),
both from the log tails of :mod:`synthamp.divergence._laws` (the same
thresholds as the privacy profile, :mod:`synthamp.accountant._profile`). The
empirical curve applies the same threshold tests to simulated releases: it
lies near the exact one, and an attack can never do better than it (up to
sampling error). :func:`write_tradeoff` writes both (CSV, plot) for ``synthamp audit``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray
from scipy import special

from synthamp._output._io import atomic_write_text, atomic_write_with
from synthamp.accountant import GaussianRelease, SyntheticDataRelease
from synthamp.accountant._profile import DEFAULT_TAIL, _pair_evaluator
from synthamp.audit._release import sample_statistic

__all__ = ["TradeoffCurve", "empirical_tradeoff", "exact_tradeoff", "write_tradeoff"]


@dataclass(frozen=True)
class TradeoffCurve:
    """Points (FPR, FNR) of a family of threshold tests, sorted by FPR."""

    fpr: NDArray[np.float64]
    fnr: NDArray[np.float64]
    label: str


def exact_tradeoff(release, points: int = 400) -> TradeoffCurve:
    """The exact trade-off curve of the audited (worst-case) pair of a k = 1 release.

    The forward endpoint (‖v‖, ‖w‖) = (C, C − min(Δ, C)) of
    :func:`synthamp.audit.sample_statistic`; thresholds from the profile's
    grid, thinned to about ``points`` evenly spaced in FPR on a log scale.
    """
    if isinstance(release, GaussianRelease):  # N(μ, 1) against N(0, 1), t = x
        mu = release.sensitivity / release.sigma
        x = np.linspace(-40.0, mu + 40.0, 20 * points)
        fpr, fnr = special.ndtr(-x), special.ndtr(x - mu)
        order = np.argsort(fpr)
        keep = np.unique(
            np.searchsorted(np.log(np.maximum(fpr[order], 1e-300)), np.linspace(-40, 0, points))
        )
        keep = keep[keep < x.size]
        return TradeoffCurve(fpr[order][keep], fnr[order][keep], "exact (Gaussian pair)")
    # k > 1: the rank-one pair is attacked through one column, a k = 1 release of width d
    release = replace(release, out_dim=1)
    c = release.norm_bound / release.sigma
    g = release.amplitude_gap / release.sigma
    pair = _pair_evaluator(release, c, c - g, DEFAULT_TAIL)
    pair.refine(1e-3, 1e-3 * DEFAULT_TAIL)
    fpr = np.exp(pair.values["up_lo"])
    fnr = np.exp(pair.values["low_hi"])
    order = np.argsort(fpr)
    fpr, fnr = fpr[order], fnr[order]
    keep = np.unique(np.searchsorted(np.log(np.maximum(fpr, 1e-300)), np.linspace(-40, 0, points)))
    keep = keep[keep < fpr.size]
    return TradeoffCurve(fpr[keep], fnr[keep], "exact (worst-case pair)")


def empirical_tradeoff(
    scores_p: NDArray[np.float64], scores_q: NDArray[np.float64], points: int = 400
) -> TradeoffCurve:
    """Observed (FPR, FNR) of the tests {T > x} at ``points`` quantiles of both samples."""
    p, q = np.sort(scores_p), np.sort(scores_q)
    levels = np.unique(np.quantile(np.concatenate([p, q]), np.linspace(0.0, 1.0, points)))
    fpr = 1.0 - np.searchsorted(q, levels, side="right") / q.size
    fnr = np.searchsorted(p, levels, side="right") / p.size
    order = np.argsort(fpr, kind="stable")
    return TradeoffCurve(fpr[order], fnr[order], f"empirical ({p.size:,} trials)")


def write_tradeoff(
    release: SyntheticDataRelease | GaussianRelease,
    trials: int,
    seed: int | None,
    csv_path: str | None,
    plot_path: str | None,
) -> None:
    """Write the exact trade-off curve of the audited pair next to an empirical one.

    The empirical curve comes from an independent simulation of ``trials`` releases
    per dataset (seeded by ``seed + 1``: the audit keeps its own). ``csv_path``: the
    two curves as ``curve,fpr,fnr`` rows; ``plot_path``: both plotted (PNG, PDF or
    SVG by its suffix, PNG otherwise). Each file is written atomically.
    """
    exact = exact_tradeoff(release)
    scores_p, scores_q = sample_statistic(release, trials, None if seed is None else seed + 1)
    empirical = empirical_tradeoff(scores_p, scores_q)
    if csv_path is not None:
        lines = ["curve,fpr,fnr"]
        for curve, name in ((exact, "exact"), (empirical, "empirical")):
            lines += [
                f"{name},{a:.17g},{b:.17g}" for a, b in zip(curve.fpr, curve.fnr, strict=True)
            ]
        atomic_write_text(csv_path, "\n".join(lines) + "\n")
    if plot_path is not None:
        # matplotlib is heavy: imported only when a plot is asked for
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # matplotlib: heavy

        fig, ax = plt.subplots(figsize=(5.0, 4.2))
        ax.plot(exact.fpr, exact.fnr, "-", label=exact.label)
        ax.plot(empirical.fpr, empirical.fnr, ".", ms=3, label=empirical.label)
        ax.set_xscale("log")
        ax.set_xlabel("false-positive rate (FPR)")
        ax.set_ylabel("false-negative rate (FNR)")
        ax.set_xlim(max(1.0 / (10 * trials), 1e-12), 1.0)
        ax.set_title("Trade-off of the worst-case pair")
        ax.legend(loc="lower left")
        fig.tight_layout()
        suffix = str(plot_path).rsplit(".", 1)[-1].lower()
        fmt = suffix if suffix in ("png", "pdf", "svg") else "png"
        atomic_write_with(plot_path, lambda tmp: fig.savefig(tmp, format=fmt, dpi=150))
        plt.close(fig)
