"""The privacy report as one self-contained HTML page, written for a privacy officer.

:func:`render_html` turns a :class:`synthamp.report._privacy.PrivacyReport` into a page
that opens offline in any browser: no stylesheet, font, image or script fetched from
anywhere (the plots are inline SVG, :mod:`synthamp.report._svg`; a Content-Security-Policy
forbids every fetch). Its first screen is what a privacy officer decides on: the
guarantee in one plain sentence, every caveat (a seeded run, the release's notes), how
it was accounted, and the utility against the baselines (the verdict sentence and the
table). Every detail follows below a fold, each section in a closed native
``<details>`` whose ``<summary>`` is its heading (it opens with no script and prints
open, ``@media print``): what is released and what is not, ε against δ for every
available accountant next to the post-processing line (releasing the model itself), the
Rényi (RDP) curve, the noise saved (with the amplification outlook), the utility bound
(expected error of the Gram matrix the released records carry), the randomness source,
the audit when one was run, every parameter, and a glossary of every technical term the
page uses (each use links to its entry; :func:`render_html` fails on an undefined term).
One inline script, allowed by its hash and nothing else, opens the section a link
points into (a glossary term) and every section for printing, in browsers that do not.

This module computes nothing: the curves it draws were computed by the release
pipeline (:func:`synthamp.release.report_curves`, from the report's public
parameters and the RDP curve its guarantee used) and travel with the report
(``PrivacyReport.curves``) or are passed in; nothing here sees the private data,
the model or an accountant.
"""

from __future__ import annotations

import base64
import hashlib
import html
import math
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from synthamp.report._glossary import GLOSSARY
from synthamp.report._privacy import PrivacyReport
from synthamp.report._svg import Series, line_plot
from synthamp.utility import NO_INFORMATION, gram_error_bound

__all__ = ["GLOSSARY", "render_html"]

# --------------------------------------------------------------------------- glossary


class _Terms:
    """Links to glossary entries; remembers which were used."""

    def __init__(self) -> None:
        self.used: list[str] = []

    def __call__(self, anchor: str, text: str | None = None) -> str:
        if anchor not in GLOSSARY:
            raise KeyError(f"glossary has no entry {anchor!r}")
        if anchor not in self.used:
            self.used.append(anchor)
        shown = html.escape(GLOSSARY[anchor][0] if text is None else text)
        return f'<a class="term" href="#g-{anchor}">{shown}</a>'


# --------------------------------------------------------------------------- formatting


def _num(value: float | None, digits: int = 4) -> str:
    if value is None:
        return "—"
    value = float(value)
    if math.isinf(value):
        return "∞"
    if value != 0 and (abs(value) < 1e-3 or abs(value) >= 1e6):
        mantissa, exponent = f"{value:.{digits - 1}e}".split("e")
        mantissa = mantissa.rstrip("0").rstrip(".")
        return f"{mantissa}×10<sup>{int(exponent)}</sup>"
    return f"{value:.{digits}g}"


def _plain(value: float) -> str:
    """A number for a sentence (HTML): 4 significant digits, powers of ten as 10<sup>n</sup>."""
    return _num(value)


#: Every table of the page, wrapped in a box that scrolls sideways on a narrow screen.
_TABLE = re.compile(r"(<table\b.*?</table>)", re.DOTALL)

_STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;max-width:60rem;margin:1.5rem auto;
padding:0 1rem;color:#1b1b1b;line-height:1.45}
h1{font-size:1.8rem;margin:0 0 .6rem}
.guarantee{font-size:1.15rem;background:#eef6ee;border-left:6px solid #2e7d32;padding:.7rem 1rem;
margin:.6rem 0}
.caveat{background:#fff4e5;border-left:6px solid #e65100;padding:.6rem 1rem}
table{border-collapse:collapse;margin:.5rem 0;font-size:.92rem;line-height:1.35}
.table-scroll{overflow-x:auto;max-width:100%}
td,th{border:1px solid #ccc;padding:.2rem .5rem;text-align:left;vertical-align:top;
overflow-wrap:break-word}th{background:#f3f3f3}
.num{font-variant-numeric:tabular-nums;white-space:nowrap}
a.term{color:inherit;text-decoration:underline dotted}
.fold{margin:1.6rem 0 .3rem;color:#555}
details.section{border-top:1px solid #ddd}details.section:last-of-type{border-bottom:1px solid #ddd}
details.section>summary{cursor:pointer;padding:.3rem 0}
details.section>summary>h2{display:inline;font-size:1.2rem;margin:0}
details.section[open]{padding-bottom:.8rem}
figure{margin:1rem 0}figcaption{font-size:.9rem;color:#555}
svg.plot{max-width:100%;height:auto;background:#fff}
svg .frame{fill:none;stroke:#888}svg .grid{stroke:#e5e5e5}
svg .tick{font-size:11px;fill:#444}svg .axis{font-size:13px;fill:#222}
svg .legend{font-size:12px;fill:#222}svg .legend-box{fill:#fff;fill-opacity:.9;stroke:#bbb}
dt{font-weight:600;margin-top:.6rem}dd{margin-left:1.2rem}
footer{margin-top:2rem;font-size:.85rem;color:#666}
@media print{details::details-content{content-visibility:visible;display:block}.fold{display:none}
details.section>summary{list-style:none}}
"""

#: The page's one script (inline; the Content-Security-Policy allows it by its hash and
#: nothing else, and forbids every fetch): a link into a closed section (a glossary term)
#: opens that section, and printing opens every section (closed again after printing). The
#: sections open and close without it (native ``<details>``).
_SCRIPT = (
    "(function(){"
    "function reveal(id){var t=document.getElementById(id);"
    'for(var e=t;e;e=e.parentElement){if(e.tagName==="DETAILS")e.open=true;}return t;}'
    'document.addEventListener("click",function(e){'
    "var a=e.target.closest&&e.target.closest('a[href^=\"#\"]');"
    "if(a)reveal(decodeURIComponent(a.hash.slice(1)));});"
    'addEventListener("hashchange",function(){'
    "var t=reveal(decodeURIComponent(location.hash.slice(1)));if(t)t.scrollIntoView();});"
    "var shut=[];"
    'addEventListener("beforeprint",function(){'
    'shut=[].filter.call(document.querySelectorAll("details:not([open])"),'
    "function(d){d.open=true;return true;});});"
    'addEventListener("afterprint",function(){'
    "shut.forEach(function(d){d.open=false;});shut=[];});"
    "if(location.hash){var t=reveal(decodeURIComponent(location.hash.slice(1)));"
    "if(t)t.scrollIntoView();}"
    "})();"
)
_SCRIPT_HASH = "sha256-" + base64.b64encode(hashlib.sha256(_SCRIPT.encode()).digest()).decode()

#: Line colours: release (per accountant), post-processing, markers.
_COLORS = ("#1565c0", "#2e7d32", "#6a1b9a")
_POST_COLOR = "#e65100"
_MARK_COLOR = "#c62828"


# --------------------------------------------------------------------------- page


def render_html(
    report: PrivacyReport,
    *,
    audit: Any | None = None,
    n_released: int | None = None,
    accountants: Sequence[str] | None = None,
    curves: Any | None = None,
) -> str:
    """The privacy report as one self-contained HTML page.

    Parameters
    ----------
    report : PrivacyReport
        The release's report (public quantities only).
    audit : synthamp.audit.AuditResult, optional
        An empirical audit of the release (``epsilon_lower``, ``epsilon_upper``,
        ``epsilon_pair``, ``confidence``, ``trials``, ``consistent``); shown
        when given.
    n_released : int, optional
        Number of synthetic records actually written (default: the number the
        guarantee covers; needed for the utility when that is unlimited).
    accountants : sequence of str, optional
        Accountants drawn in the ε-against-δ plot (default: every one the curves
        hold, :data:`synthamp.accountant.PROFILE_ACCOUNTANTS`).
    curves : synthamp.accountant.ReleaseCurves, optional
        The curves to draw; default the report's own (``report.release_curves()``).
        A report read back from JSON carries none: the page then says so, and
        :func:`synthamp.release.report_curves` computes them.

    Returns
    -------
    str
        An HTML5 document with no external resource.
    """
    term = _Terms()
    esc = html.escape
    if curves is None:
        curves = report.release_curves()
    profiles = () if curves is None else curves.profiles
    if accountants is not None:
        profiles = tuple(c for c in profiles if c.accountant in set(accountants))
    n_records = n_released if n_released is not None else report.n_syn
    body: list[str] = []

    # Above the fold, always shown: the guarantee, its caveats, how it was accounted, and
    # what the records are worth against the baselines.
    factor = _plain(math.exp(report.epsilon)) if report.epsilon < 700 else "e^ε"
    sentence = (
        f"<strong>{report.guarantee_sentence(_plain)}</strong> In technical terms, this release "
        f"is ({term('epsilon', 'ε')} = {_plain(report.epsilon)}, {term('delta', 'δ')} = "
        f"{_plain(report.delta)})-{term('dp', 'differentially private')} under "
        f"{term('adjacency')}; a factor of {factor} is e<sup>ε</sup>."
    )
    body.append('<h1>Privacy report</h1><p class="guarantee" id="guarantee">' + sentence + "</p>")
    if not report.noise_secret:
        body.append(
            f'<p class="caveat"><strong>For reproducible research only.</strong> This run used a '
            f"{term('user-seed')}: {esc(report.seed_policy)}</p>"
        )
    for note in report.notes:
        body.append(f'<p class="caveat"><strong>Note.</strong> {esc(note)}</p>')
    if report.accounting_note:
        body.append(
            f'<p id="accounting"><strong>Accounting.</strong> {esc(report.accounting_note)}</p>'
        )
    if report.utility_verdict:
        body.append(_utility_summary(report, term))

    # Below the fold: every detail in a closed <details> whose <summary> is its heading.
    body.append(
        '<p class="fold" id="details">Details (click a heading to open it; printing the page '
        "shows them all):</p>"
    )
    body.append(
        _fold(
            "section-released",
            "What is released, and what is not",
            f"<p>The private data were used once, to fit a linear {term('model', 'model')} "
            f"(ridge regression). Only {term('synthetic')} made from it with "
            f"{term('seeds')} are published.</p>"
            '<table id="released"><tr><th>Released</th><th>Not released</th></tr><tr><td><ul>'
            + "".join(f"<li>{esc(item)}</li>" for item in report.released)
            + "</ul></td><td><ul>"
            + "".join(f"<li>{esc(item)}</li>" for item in report.not_released)
            + "</ul></td></tr></table>",
        )
    )
    if curves is None:
        body.append(
            _fold(
                "section-profile",
                "How strong is the guarantee: ε against δ",
                '<p id="no-curves">This report was read back without its curves (they are '
                "drawn by the release that made it, not stored in the JSON); "
                "<code>synthamp.release.report_curves(report)</code> computes them.</p>",
            )
        )
    else:
        body.append(_fold("section-profile", *_epsilon_delta_section(report, profiles, term)))
        body.append(_fold("section-rdp", *_rdp_section(report, curves, term)))
    body.append(_fold("section-noise", *_noise_section(report, term)))
    body.append(_fold("section-utility", *_utility_section(report, n_records, term)))
    source = term("entropy") if report.noise_secret else term("user-seed")
    body.append(
        _fold(
            "section-randomness",
            "Randomness",
            f'<p id="randomness">Source of the noise and the seeds: {source}. '
            f"{esc(report.seed_policy)}</p>",
        )
    )
    if audit is not None:
        body.append(_fold("section-audit", *_audit_section(report, audit, term)))
    body.append(_fold("section-parameters", *_parameters_section(report, term)))
    # The glossary of every term used above, last (it must see every use).
    entries = "".join(
        f'<dt id="g-{anchor}">{esc(GLOSSARY[anchor][0])}</dt><dd>{esc(GLOSSARY[anchor][1])}</dd>'
        for anchor in sorted(term.used, key=lambda a: GLOSSARY[a][0].lower())
    )
    body.append(_fold("glossary", "Glossary", f"<dl>{entries}</dl>"))
    body.append(
        f"<footer>synthamp {esc(report.synthamp_version)}, report schema {report.schema}. "
        "This page loads nothing from the network; its plots are drawn in the page.</footer>"
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        # Forbid every fetch: the page is self-contained by construction and by policy; the
        # one script allowed is the page's own, pinned by its hash.
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        f"style-src 'unsafe-inline'; img-src data:; script-src '{_SCRIPT_HASH}'\">"
        f"<title>Privacy report: ({report.epsilon:.4g}, {report.delta:.3g})-DP</title>"
        f"<style>{_STYLE}</style></head><body>\n"
        + _TABLE.sub(r'<div class="table-scroll">\1</div>', "\n".join(body))
        + f"\n<script>{_SCRIPT}</script>\n</body></html>\n"
    )


def _fold(key: str, heading: str, content: str) -> str:
    """A detail section, closed: a native ``<details>`` whose ``<summary>`` is its heading."""
    return (
        f'<details class="section" id="{key}"><summary><h2>{html.escape(heading)}</h2></summary>'
        f"{content}</details>"
    )


#: Short legend names of the accountants.
_SHORT = {"rdp": "Rényi accountant", "pld": "privacy profile"}
_POST_DASHES = ("7 5", "2 3", "10 3 2 3")


def _epsilon_delta_section(report: PrivacyReport, curves, term: _Terms) -> tuple[str, str]:
    series = []
    for i, curve in enumerate(curves):
        short = _SHORT.get(curve.accountant, curve.accountant)
        series.append(
            Series(
                f"synthetic records, {short} ({curve.kind})",
                curve.delta,
                curve.epsilon,
                _COLORS[i % len(_COLORS)],
            )
        )
    for i, curve in enumerate(curves):
        short = _SHORT.get(curve.accountant, curve.accountant)
        series.append(
            Series(
                f"releasing the model, {short}",
                curve.delta,
                curve.epsilon_post_processing,
                _POST_COLOR,
                dash=_POST_DASHES[i % len(_POST_DASHES)],
            )
        )
    series.append(
        Series(
            "this release's guarantee",
            [report.delta],
            [report.epsilon],
            _MARK_COLOR,
            marker_only=True,
        )
    )
    plot = line_plot(
        series,
        title="ε against δ: the privacy of this release for every δ",
        x_label="δ (log scale)",
        y_label="ε",
        log_x=True,
        plot_id="plot-epsilon-delta",
        legend="lower left",
    )
    used = getattr(report, "accountant", "rdp")
    rows = "".join(
        f"<tr><td>{html.escape(c.label)}</td><td>{term('kinds', c.kind)}</td>"
        f'<td class="num">{_num(_at(c.delta, c.epsilon, report.delta))}</td>'
        f'<td class="num">{_num(_at(c.delta, c.epsilon_post_processing, report.delta))}</td>'
        f"<td>{'yes' if c.accountant == used else ''}</td></tr>"
        for c in curves
    )
    return (
        "How strong is the guarantee: ε against δ",
        f"<p>Each point of a curve of {term('profile')} is a valid guarantee. The solid lines "
        f"are this release, one "
        f"per {term('accountant')}; the dashed lines are what publishing the noisy model V "
        f"itself would give ({term('post-processing')}). The gap between them is the "
        f"{term('amplification')} that publishing only synthetic records buys.</p>{plot}"
        f'<table id="accountants"><tr><th>accountant</th><th>kind</th>'
        f"<th>ε at δ = {_plain(report.delta)}</th><th>ε if the model were released</th>"
        f"<th>gives the guarantee</th></tr>{rows}</table>",
    )


def _at(grid: np.ndarray, values: np.ndarray, x: float) -> float:
    index = int(np.argmin(np.abs(np.log(grid) - math.log(x))))
    return float(values[index])


def _rdp_section(report: PrivacyReport, curves, term: _Terms) -> tuple[str, str]:
    curve, post = curves.rdp, curves.rdp_post_processing
    series = [
        Series(f"synthetic records ({curve.kind})", curve.orders, curve.rdp, _COLORS[0]),
        Series(
            "releasing the model (post-processing)", post.orders, post.rdp, _POST_COLOR, dash="7 5"
        ),
    ]
    if curve.rdp_lower is not None:
        series.append(
            Series(
                "lower bound (exact value for one target)",
                curve.orders,
                curve.rdp_lower,
                _COLORS[2],
                dash="2 4",
            )
        )
    if report.optimal_order is not None:
        index = int(np.argmin(np.abs(curve.orders - report.optimal_order)))
        series.append(
            Series(
                "order of the Rényi accountant's ε",
                [curve.orders[index]],
                [curve.rdp[index]],
                _MARK_COLOR,
                marker_only=True,
            )
        )
    plot = line_plot(
        series,
        title="Rényi curve: privacy loss ε_α at each Rényi order α",
        x_label="Rényi order α (log scale)",
        y_label="ε_α (log scale)",
        log_x=True,
        log_y=True,
        plot_id="plot-rdp",
    )
    order = "—" if report.optimal_order is None else _num(report.optimal_order)
    lower = (
        "<p>With more than one target the exact curve is not known; the solid line is a "
        "proven upper bound (the smaller of the paper's Theorem 5.4 and post-processing) and "
        "the dotted line a lower bound.</p>"
        if curve.rdp_lower is not None
        else ""
    )
    if report.accountant == "rdp":
        through = (
            f"The guarantee is computed through {term('rdp')}: one privacy loss ε_α per "
            f"{term('renyi-order')}; the (ε, δ) above uses α = {order}."
        )
    else:  # the guarantee is an exact profile's; this curve gives the Rényi accountant's ε
        through = (
            f"The guarantee above is the exact privacy profile's; {term('rdp')} gives one "
            f"privacy loss ε_α per {term('renyi-order')}, and the Rényi accountant's ε "
            f"(ε = {_num(report.epsilon_rdp)} at δ = {_plain(report.delta)}) uses α = {order}."
        )
    return "The Rényi curve", f"<p>{through}</p>{plot}{lower}"


def _noise_section(report: PrivacyReport, term: _Terms) -> tuple[str, str]:
    saved = report.noise_saved
    sigma, sigma_pp = report.sigma, report.sigma_post_processing
    if saved > 0:
        verdict = (
            f"This release uses <strong>{100 * saved:.1f}% less noise</strong> than "
            f"{term('post-processing')} would need for the same guarantee."
        )
    else:
        verdict = (
            f"No noise is saved here: at these settings {term('amplification')} does not reduce "
            f"the noise below what {term('post-processing')} needs (it would need a wider "
            f"model, i.e. more features, or a smaller {term('norm-bound')} relative to σ)."
        )
    width = 420
    top = max(sigma, sigma_pp)
    bars = []
    for i, (label, value, color) in enumerate(
        (("this release", sigma, _COLORS[0]), ("post-processing", sigma_pp, _POST_COLOR))
    ):
        w = 0.0 if top <= 0 else width * value / top
        y = 10 + 34 * i
        bars.append(
            f'<text x="0" y="{y + 17}" class="legend">{label}</text>'
            f'<rect x="130" y="{y}" width="{w:.1f}" height="24" fill="{color}" class="bar"/>'
            f'<text x="{136 + w:.1f}" y="{y + 17}" class="legend">σ = {_plain(value)}</text>'
        )
    svg = (
        f'<figure id="plot-noise"><svg class="plot" viewBox="0 0 640 80" width="640" height="80" '
        f'role="img" aria-label="noise of this release and of post-processing">'
        f"<title>noise σ of this release and of post-processing</title>{''.join(bars)}</svg>"
        f"<figcaption>{term('sigma')} of this release and of post-processing at the same "
        f"guarantee</figcaption></figure>"
    )
    shown = max(saved, 0.0)
    outlook = (
        f'<p id="amplification"><strong>Amplification.</strong> '
        f"{html.escape(report.amplification)}</p>"
        if report.amplification
        else ""
    )
    return "Noise saved", (
        f'<p id="noise">{verdict} '
        f"{term('sigma', 'Noise')}: σ = {_plain(sigma)} against σ = {_plain(sigma_pp)} "
        f"({term('noise-saved')}: {100 * shown:.1f}%).</p>{outlook}{svg}"
    )


#: What the columns of the table of every mechanism mean (its tooltip, and in the details).
_TABLE_LEGEND = (
    "Records: the n the RMSE is for (—: a noisy statistic, no records). Relative: RMSE over "
    "the largest value of the statistic (C² for vᵀv, C for v, B² for YᵀY/m; above 1: "
    f"{NO_INFORMATION}); × records: RMSE over the records' (vᵀv only); (best): the smallest "
    "RMSE of its statistic. All at the same (ε, δ)."
)


def _utility_numbers(report: PrivacyReport, term: _Terms) -> str:
    """The records' Gram error against the baseline's (the report's fields), a detail."""
    if not report.utility_verdict:
        return ""
    rows = "".join(
        f'<tr><td>{html.escape(name)}</td><td class="num">{_num(value)}</td>'
        f"<td>{html.escape(meaning)}</td></tr>"
        for name, value, meaning in report.utility_rows()
        if value is not None
    )
    return (
        f"<p>The table of every mechanism, above: {html.escape(_TABLE_LEGEND)} Noise saved is "
        "not utility.</p>"
        f'<table id="utility-summary"><tr><th>{term("gram")} error</th><th>value</th>'
        f"<th>meaning</th></tr>{rows}</table>"
    )


def _utility_summary(report: PrivacyReport, term: _Terms) -> str:
    """The verdict and the table of every mechanism (the report's fields), above the fold."""
    table = report.utility_table_rows()
    baselines = ""
    if table:
        # the releases column as each mechanism's tooltip: the table fits the first screen
        head = "".join(f"<th>{html.escape(c)}</th>" for i, c in enumerate(table[0]) if i != 1)
        body = "".join(
            f'<tr><td title="releases {html.escape(row[1])}">{html.escape(row[0])}</td>'
            + "".join(
                f'<td class="num">{html.escape(c)}</td>'
                if 3 <= i <= 6
                else f"<td>{html.escape(c)}</td>"
                for i, c in enumerate(row)
                if i >= 2
            )
            + "</tr>"
            for row in table[1:]
        )
        baselines = (
            f'<table id="utility-baselines" title="{html.escape(_TABLE_LEGEND)}"><tr>{head}</tr>'
            f"{body}</table>"
        )
    first, *rest = report.utility_verdict.splitlines()
    return (
        f'<p id="utility-verdict"><strong>Utility.</strong> <strong>{html.escape(first)}</strong>'
        + "".join(f"<br>{html.escape(line)}" for line in rest)
        + f"</p>{baselines}"
    )


def _utility_section(report: PrivacyReport, n_records: int | None, term: _Terms) -> tuple[str, str]:
    def bound(sigma: float) -> float:
        return gram_error_bound(
            sigma=sigma,
            dim=report.dim,
            out_dim=report.out_dim,
            norm_bound=report.norm_bound,
            n_syn=n_records,
        )

    error, error_pp = bound(report.sigma), bound(report.sigma_post_processing)
    largest = report.norm_bound**2
    records = "unlimited" if n_records is None else f"{n_records:,}"
    return "Utility: the bound on the Gram matrix error", _utility_numbers(report, term) + (
        f'<p id="utility">What the synthetic records carry about the private '
        f"data is the {term('gram')} of the model (and nothing else). From {records} records, "
        f"its {term('utility')} is at most <strong>{_num(error)}</strong> "
        f"({term('frobenius')}), against {_num(error_pp)} at the noise post-processing would "
        f"need. For scale: the Gram matrix itself has norm at most C² = {_num(largest)}.</p>"
        f'<table id="utility-table"><tr><th></th><th>noise σ</th><th>expected error</th></tr>'
        f'<tr><td>this release</td><td class="num">{_num(report.sigma)}</td>'
        f'<td class="num">{_num(error)}</td></tr>'
        f'<tr><td>post-processing</td><td class="num">{_num(report.sigma_post_processing)}</td>'
        f'<td class="num">{_num(error_pp)}</td></tr></table>'
    )


def _audit_section(report: PrivacyReport, audit: Any, term: _Terms) -> tuple[str, str]:
    verdict = (
        "consistent: the attack's lower bound does not exceed the guarantee"
        if audit.consistent
        else "INCONSISTENT: the attack's lower bound exceeds the guarantee (a bug)"
    )
    return "Audit", (
        f'<p id="audit">A {term("audit")} ran {audit.trials:,} simulated '
        f"releases from each of two neighbouring datasets. It shows, at "
        f"{term('confidence')} {100 * audit.confidence:g}%, that ε is at least "
        f"<strong>{_num(audit.epsilon_lower)}</strong>; the accountant guarantees "
        f"{_num(audit.epsilon_upper)}, and the exact ε of the audited pair is "
        f"{_num(audit.epsilon_pair)}. Verdict: {verdict}.</p>"
    )


def _parameters_section(report: PrivacyReport, term: _Terms) -> tuple[str, str]:
    n_syn = "unlimited" if report.n_syn is None else f"{report.n_syn:,}"
    rows = [
        (term("epsilon", "ε"), _num(report.epsilon)),
        (term("delta", "δ"), _num(report.delta)),
        (term("renyi-order"), _num(report.optimal_order)),
        (term("sigma"), _num(report.sigma)),
        (term("sensitivity"), _num(report.sensitivity)),
        (term("norm-bound"), _num(report.norm_bound)),
        (term("dims", "d (features)"), str(report.dim)),
        (term("dims", "k (targets)"), str(report.out_dim)),
        (term("dims", "m (private records)"), f"{report.n_records:,}"),
        (term("dims", "n_syn (records covered)"), n_syn),
        (term("ridge"), _num(report.ridge)),
        (term("label-bound"), _num(report.label_bound)),
        (term("sigma-z"), _num(report.seed_scale)),
    ]
    texts = [  # sentences, not numbers: these wrap
        (
            "accounting",
            f"{html.escape(report.accounting_method)} ({term('kinds', report.accounting_kind)})",
        ),
        (term("adjacency"), html.escape(report.adjacency)),
        ("objective", html.escape(report.objective)),
        ("feature scaling", html.escape(report.feature_scaling)),
    ]
    cells = "".join(f'<tr><th>{name}</th><td class="num">{value}</td></tr>' for name, value in rows)
    cells += "".join(f"<tr><th>{name}</th><td>{value}</td></tr>" for name, value in texts)
    return "All parameters", f'<table id="parameters">{cells}</table>'
