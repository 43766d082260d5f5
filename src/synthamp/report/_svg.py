"""Inline SVG line plots for self-contained HTML pages (no script, no network, no matplotlib).

A page that must open anywhere, offline, and be read by a browser, not by
Python, cannot link a stylesheet, a font or a plotting library. This module
draws the few plots of the HTML privacy report (:mod:`synthamp.report._html`) as
plain ``<svg>`` elements: axes with ticks on linear or decade-logarithmic
scales, polylines, markers and a legend. All text is escaped.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["Series", "line_plot"]

#: Plot size and margins in CSS pixels.
WIDTH, HEIGHT = 640, 360
LEFT, RIGHT, TOP, BOTTOM = 70, 20, 20, 50


@dataclass(frozen=True)
class Series:
    """One curve (or, with ``marker_only``, a set of marked points) of a plot.

    Attributes
    ----------
    label : str
        Legend text.
    x, y : sequence of float
        The points; non-finite points split the curve.
    color : str
        A CSS colour (``#rrggbb``).
    dash : str
        ``stroke-dasharray`` ("" for a solid line).
    marker_only : bool
        Draw circles at the points instead of a line.
    """

    label: str
    x: Sequence[float]
    y: Sequence[float]
    color: str
    dash: str = ""
    marker_only: bool = False


def _scale(values: np.ndarray, log: bool) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log10(values) if log else values


def _ticks(lo: float, hi: float, log: bool) -> list[tuple[float, str]]:
    """Tick positions (in scaled units) and labels."""
    if log:
        first, last = math.ceil(lo - 1e-9), math.floor(hi + 1e-9)
        step = max(1, math.ceil((last - first + 1) / 8))
        return [(float(e), _decade(e)) for e in range(first, last + 1, step)]
    span = hi - lo
    raw = span / 5 if span > 0 else 1.0
    magnitude = 10 ** math.floor(math.log10(raw))
    step = min((m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw), default=raw)
    start = math.ceil(lo / step - 1e-9) * step
    out = []
    value = start
    while value <= hi + 1e-9 * step:
        out.append((value, f"{value:.10g}"))
        value += step
    return out


def _decade(exponent: int) -> str:
    if exponent == 0:
        return "1"
    if exponent == 1:
        return "10"
    if -2 <= exponent < 0:
        return f"{10.0**exponent:g}"
    return f"1e{exponent}"


def _limits(values: list[np.ndarray], log: bool, include_zero: bool) -> tuple[float, float]:
    finite = np.concatenate([v[np.isfinite(v)] for v in values]) if values else np.array([])
    if finite.size == 0:
        return (0.0, 1.0)
    lo, hi = float(finite.min()), float(finite.max())
    if include_zero and not log:
        lo = min(lo, 0.0)
    if log:
        lo, hi = math.floor(lo), math.ceil(hi)
    if hi - lo <= 0:
        hi = lo + 1.0
    elif not log:
        hi += 0.05 * (hi - lo)
    return lo, hi


def line_plot(
    series: Sequence[Series],
    *,
    title: str,
    x_label: str,
    y_label: str,
    log_x: bool = False,
    log_y: bool = False,
    plot_id: str = "",
    legend: str | None = None,
) -> str:
    """An inline ``<svg>`` figure with one polyline (or marker set) per series.

    Parameters
    ----------
    series : sequence of Series
    title : str
        Accessible title (``<title>``) and caption.
    x_label, y_label : str
        Axis labels.
    log_x, log_y : bool
        Decade-logarithmic axes (non-positive values are dropped).
    plot_id : str
        ``id`` of the ``<figure>``.
    legend : None
        Ignored (kept for callers): the legend is always drawn below the axes, outside
        the data area, so it never covers a curve.

    Returns
    -------
    str
        A ``<figure>`` element holding the ``<svg>`` and a ``<figcaption>``.
    """
    xs = [_scale(np.asarray(s.x, dtype=float), log_x) for s in series]
    ys = [_scale(np.asarray(s.y, dtype=float), log_y) for s in series]
    x_lo, x_hi = _limits(xs, log_x, include_zero=False)
    y_lo, y_hi = _limits(ys, log_y, include_zero=True)
    inner_w, inner_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def px(x: np.ndarray) -> np.ndarray:
        return LEFT + (x - x_lo) / (x_hi - x_lo) * inner_w

    def py(y: np.ndarray) -> np.ndarray:
        return TOP + (1.0 - (y - y_lo) / (y_hi - y_lo)) * inner_h

    esc = html.escape
    total_h = HEIGHT + _legend_height(series) + 6  # the legend below the axes
    parts = [
        f'<svg class="plot" viewBox="0 0 {WIDTH} {total_h}" width="{WIDTH}" height="{total_h}" '
        f'role="img" aria-label="{esc(title)}"><title>{esc(title)}</title>',
        f'<rect x="{LEFT}" y="{TOP}" width="{inner_w}" height="{inner_h}" class="frame"/>',
    ]
    for value, label in _ticks(x_lo, x_hi, log_x):
        x = float(px(np.float64(value)))
        parts.append(
            f'<line x1="{x:.1f}" y1="{TOP}" x2="{x:.1f}" y2="{TOP + inner_h}" class="grid"/>'
            f'<text x="{x:.1f}" y="{TOP + inner_h + 16}" class="tick" '
            f'text-anchor="middle">{esc(label)}</text>'
        )
    for value, label in _ticks(y_lo, y_hi, log_y):
        y = float(py(np.float64(value)))
        parts.append(
            f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + inner_w}" y2="{y:.1f}" class="grid"/>'
            f'<text x="{LEFT - 6}" y="{y + 4:.1f}" class="tick" '
            f'text-anchor="end">{esc(label)}</text>'
        )
    parts.append(
        f'<text x="{LEFT + inner_w / 2:.1f}" y="{HEIGHT - 10}" class="axis" '
        f'text-anchor="middle">{esc(x_label)}</text>'
        f'<text transform="translate(16 {TOP + inner_h / 2:.1f}) rotate(-90)" class="axis" '
        f'text-anchor="middle">{esc(y_label)}</text>'
    )
    for s, x, y in zip(series, xs, ys, strict=True):
        ok = np.isfinite(x) & np.isfinite(y)
        pxs, pys = px(x), py(y)
        label = esc(s.label)
        if s.marker_only:
            for a, b in zip(pxs[ok], pys[ok], strict=True):
                parts.append(
                    f'<circle cx="{a:.1f}" cy="{b:.1f}" r="5" fill="{s.color}" '
                    f'class="marker" data-series="{label}"/>'
                )
            continue
        for run in _runs(ok):
            points = " ".join(f"{pxs[i]:.1f},{pys[i]:.1f}" for i in run)
            dash = f' stroke-dasharray="{s.dash}"' if s.dash else ""
            parts.append(
                f'<polyline points="{points}" fill="none" stroke="{s.color}" stroke-width="2.5"'
                f'{dash} class="curve" data-series="{label}"/>'
            )
    parts.append(_legend(series, LEFT, HEIGHT))  # outside the data area
    parts.append("</svg>")
    return (
        f'<figure id="{esc(plot_id)}">' + "".join(parts) + f"<figcaption>{esc(title)}</figcaption>"
        "</figure>"
    )


def _runs(ok: np.ndarray) -> list[list[int]]:
    """Maximal runs of consecutive True indices (each with at least two points)."""
    runs, current = [], []
    for i, flag in enumerate(ok):
        if flag:
            current.append(i)
        else:
            if len(current) > 1:
                runs.append(current)
            current = []
    if len(current) > 1:
        runs.append(current)
    return runs


def _legend_height(series: Sequence[Series]) -> int:
    return 20 * len(series) + 8


def _legend_width(series: Sequence[Series]) -> int:
    return 12 + round(6.5 * max((len(s.label) for s in series), default=0)) + 40


def _legend(series: Sequence[Series], x: float, y: float) -> str:
    rows = []
    height = _legend_height(series)
    width = _legend_width(series)
    rows.append(f'<rect x="{x}" y="{y}" width="{width}" height="{height}" class="legend-box"/>')
    for i, s in enumerate(series):
        cy = y + 14 + 20 * i
        if s.marker_only:
            mark = f'<circle cx="{x + 20}" cy="{cy}" r="5" fill="{s.color}"/>'
        else:
            dash = f' stroke-dasharray="{s.dash}"' if s.dash else ""
            mark = (
                f'<line x1="{x + 8}" y1="{cy}" x2="{x + 32}" y2="{cy}" stroke="{s.color}" '
                f'stroke-width="2.5"{dash}/>'
            )
        rows.append(
            mark + f'<text x="{x + 40}" y="{cy + 4}" class="legend">{html.escape(s.label)}</text>'
        )
    return "".join(rows)
