"""Tests of the HTML privacy report (:mod:`synthamp.report._html`), in Python and in a browser.

The browser tests load the page written by ``synthamp release`` into headless
Chromium (Debian package ``chromium``) at 1,200 px width through a small harness
page that measures, after layout, the first screen with every detail section
closed (its height, and where the guarantee and the utility table end), checks the
page's script (a glossary link opens the glossary, printing opens every section),
then opens every section and measures every plot (size of each SVG, bounding box
and length of each curve) and every table cell's words, and reads the rendered
text; Chromium's network log proves that the page fetched nothing over the
network. A control page that does fetch shows that the network check can fail.
The printed page (Chromium's PDF) has as many pages as the page with every
section open, and more than the same page without its print rule. CI installs
Chromium (``.ci/run``); the tests are skipped only outside CI, when Chromium is
missing, and say so.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import math
import os
import re
import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthamp.cli import main
from synthamp.release import report_curves
from synthamp.report import GLOSSARY, render_html

# --------------------------------------------------------------------------- fixtures


def _table(m: int = 400, d: int = 12, k: int = 1, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(m, d))
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    y = np.tanh(x @ rng.normal(size=(d, k)))
    cols = {f"x{i}": x[:, i] for i in range(d)}
    cols.update({f"y{j}": y[:, j] for j in range(k)})
    return pd.DataFrame(cols)


def _release(tmp: Path, *extra: str, k: int = 1) -> tuple[Path, dict]:
    """Run ``synthamp release`` on a small table; return the HTML path and the JSON report."""
    _table(k=k).to_csv(tmp / "data.csv", index=False)
    targets = ",".join(f"y{j}" for j in range(k))
    args = [
        "release", "--data", str(tmp / "data.csv"), "--targets", targets, "--label-bound", "1",
        "--ridge", "0.1", "--n-syn", "500", "--out", str(tmp / "syn.csv"), "--max-clipped", "1",
        *extra,
    ]  # fmt: skip
    assert main(args) == 0
    report = json.loads((tmp / "syn.csv.privacy.json").read_text())
    return tmp / "syn.csv.privacy.html", report


@pytest.fixture(scope="module")
def released(tmp_path_factory) -> tuple[Path, dict]:
    tmp = tmp_path_factory.mktemp("html")
    return _release(tmp, "--epsilon", "1", "--delta", "1e-5", "--unlimited")


class _Anchors(HTMLParser):
    """Collects ids, internal links and the text of the first paragraph."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.sources: list[str] = []
        self.first_paragraph = ""
        self._in_first = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("href", "").startswith("#"):
            self.links.append(attrs["href"][1:])
        for key in ("src", "href", "xlink:href", "data", "poster", "srcset", "action"):
            if key in attrs and not attrs[key].startswith("#"):
                self.sources.append(attrs[key])
        if tag == "p" and self._in_first is None:
            self._in_first = True

    def handle_endtag(self, tag):
        if tag == "p" and self._in_first:
            self._in_first = False

    def handle_data(self, data):
        if self._in_first:
            self.first_paragraph += data


def _parse(page: str) -> _Anchors:
    parser = _Anchors()
    parser.feed(page)
    return parser


# --------------------------------------------------------------------------- the page, in Python


def test_page_is_self_contained_and_every_term_is_in_the_glossary(released):
    page = released[0].read_text()
    parsed = _parse(page)
    assert parsed.sources == []  # no src/href to anything outside the page
    assert not re.search(r"https?://|url\(|@import", page, flags=re.IGNORECASE)
    # one inline script, and the Content-Security-Policy allows exactly it (by its hash)
    (script,) = re.findall(r"<script\b([^>]*)>(.*?)</script>", page, flags=re.DOTALL)
    assert script[0] == "" and not re.search(r"fetch|XMLHttpRequest|import|src", script[1])
    digest = base64.b64encode(hashlib.sha256(script[1].encode()).digest()).decode()
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', page).group(1)
    assert csp.split("; ") == [
        "default-src 'none'", "style-src 'unsafe-inline'", "img-src data:",
        f"script-src 'sha256-{digest}'",
    ]  # fmt: skip
    assert parsed.links, "the page links its terms to the glossary"
    for anchor in parsed.links:
        assert anchor in parsed.ids, f"link #{anchor} has no target"
    glossary = {name for name, _ in GLOSSARY.values()}
    for jargon in ("Rényi order α", "σ_z (seed scale)", "Frobenius norm", "Gram matrix"):
        assert jargon in glossary
        anchor = next(a for a, (name, _) in GLOSSARY.items() if name == jargon)
        assert f'id="g-{anchor}"' in page, f"{jargon} is used but not in the page's glossary"


def test_first_sentence_states_the_guarantee_plainly(released):
    path, report = released
    first = _parse(path.read_text()).first_paragraph
    assert "only" not in first.split(".")[0]
    assert first.startswith("Whatever anyone concludes from the published")
    assert f"{math.exp(report['epsilon']):.4g} times as likely" in first
    assert f"ε = {report['epsilon']:.4g}" in first and "differentially private" in first


class _Folds(HTMLParser):
    """Where each element is: inside how many ``<details>``, inside a ``<summary>``, in order."""

    def __init__(self) -> None:
        super().__init__()
        self.elements: list[dict] = []
        self.depth = 0
        self.in_summary = False
        self.summary_parent_depth: list[int] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.elements.append(
            {"tag": tag, "id": attrs.get("id"), "class": attrs.get("class") or "",
             "depth": self.depth, "in_summary": self.in_summary, "attrs": attrs}
        )  # fmt: skip
        if tag == "details":
            self.depth += 1
        elif tag == "summary":
            self.in_summary = True
            self.summary_parent_depth.append(self.depth)

    def handle_endtag(self, tag):
        if tag == "details":
            self.depth -= 1
        elif tag == "summary":
            self.in_summary = False


def test_guarantee_caveats_and_utility_lead_and_every_detail_is_folded(released):
    """Above the fold: the guarantee, every caveat, the accounting line and the utility;
    below it every section is a closed ``<details>`` whose ``<summary>`` is its heading."""
    from synthamp.report import PrivacyReport

    report = dataclasses.replace(
        PrivacyReport.from_dict(released[1]),
        noise_secret=False,
        notes=("a note the release made",),
        accounting_note="how the accounting ended",
    )
    assert report.amplification and report.utility_verdict
    folds = _Folds()
    folds.feed(render_html(report, n_released=500, curves=report_curves(report)))
    elements = folds.elements
    details = [i for i, e in enumerate(elements) if e["tag"] == "details"]
    assert len(details) == 8 and folds.depth == 0
    fold = details[0]
    for i in details:  # closed, not nested, opened by its summary (its first child)
        assert "open" not in elements[i]["attrs"] and elements[i]["depth"] == 0
        assert elements[i + 1]["tag"] == "summary" and elements[i + 2]["tag"] == "h2"
    headings = [e for e in elements if e["tag"] in ("h2", "h3")]
    assert len(headings) == len(details)
    assert all(e["in_summary"] and e["depth"] == 1 for e in headings)
    assert folds.summary_parent_depth == [1] * len(details)
    # the lead: never inside a <details>, and before the first one
    caveats = [i for i, e in enumerate(elements) if "caveat" in e["class"].split()]
    assert len(caveats) == 2  # the seeded run and the note
    lead = [next(i for i, e in enumerate(elements) if e["id"] == key) for key in (
        "guarantee", "accounting", "utility-verdict", "utility-baselines",
    )]  # fmt: skip
    for i in [*caveats, *lead]:
        assert elements[i]["depth"] == 0 and i < fold, elements[i]
    assert lead == sorted(lead)  # guarantee, accounting, then the utility
    # the details: all folded (the amplification outlook is a detail, a heuristic)
    ids = {e["id"]: e for e in elements if e["id"]}
    for key in ("released", "accountants", "plot-epsilon-delta", "plot-rdp", "noise",
                "amplification", "utility", "utility-summary", "randomness", "parameters",
                "glossary"):  # fmt: skip
        assert ids[key]["depth"] == 1 or ids[key]["tag"] == "details", key
    glossary = [e for e in elements if (e["id"] or "").startswith("g-")]
    assert glossary and all(e["depth"] == 1 for e in glossary)


def test_profile_at_the_reports_delta_is_the_reports_epsilon(released):
    from synthamp.report import PrivacyReport

    report = PrivacyReport.from_dict(released[1])
    (rdp,) = report_curves(
        report, deltas=[report.delta, 1e-8, 1e-3], accountants=[report.accountant]
    ).profiles
    assert rdp.epsilon[0] == pytest.approx(report.epsilon, rel=1e-9)
    assert rdp.epsilon_post_processing[0] == pytest.approx(report.epsilon_post_processing, rel=1e-9)
    # ε decreases with δ, and the release is never accounted above post-processing.
    assert rdp.epsilon[1] > rdp.epsilon[0] > rdp.epsilon[2]
    assert np.all(rdp.epsilon <= rdp.epsilon_post_processing * (1 + 1e-12))


def test_no_negative_noise_saved_and_caveats_for_a_seeded_multi_target_release(tmp_path):
    from synthamp.report import PrivacyReport

    _, raw = _release(tmp_path, "--sigma", "0.5", "--seed", "3", "--unlimited", k=2)
    report = PrivacyReport.from_dict(raw)
    worse = dataclasses.replace(report, sigma_post_processing=0.8 * report.sigma)
    assert worse.sigma > worse.sigma_post_processing and worse.noise_saved == 0.0
    page = render_html(worse, n_released=500)
    assert (
        "No noise is saved here" in page
        and "-" not in re.findall(r"noise saved</a>: (\S+)%", page)[0]
    )
    assert "noise saved</a>: 0.0%" in page
    assert "provided the" in page and "For reproducible research only" in page
    assert "lower bound" in page  # k = 2: the RDP plot shows the exact k = 1 lower bound


def test_audit_section_when_an_audit_was_run(released):
    from synthamp.accountant import SyntheticDataRelease
    from synthamp.audit import audit_release
    from synthamp.report import PrivacyReport

    report = PrivacyReport.from_dict(released[1])
    release = SyntheticDataRelease(
        report.dim, report.out_dim, report.norm_bound, report.sensitivity, report.sigma
    )
    audit = audit_release(
        release, report.delta, trials=2000, random_state=1, epsilon_upper=report.epsilon
    )
    page = render_html(report, audit=audit)
    assert 'id="audit"' in page and "2,000 simulated" in page and "consistent" in page
    assert 'id="g-audit"' in page and 'id="audit"' not in render_html(report)


# --------------------------------------------------------------------------- in a browser

CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--allow-file-access-from-files",
)  # fmt: skip

#: Loads the page in an iframe 1,200 px wide and records, after layout, what the browser drew:
#: first the first screen (every section closed) and the page's script, then, with every
#: section open, the plots, the table cells and the text.
HARNESS = """<!DOCTYPE html><html><body><pre id="out">pending</pre>
<iframe id="frame" src="PAGE" width="1200" height="900"></iframe>
<script>
document.getElementById("frame").onload = function () {
  var doc = this.contentDocument, win = this.contentWindow, out = {figures: []};
  var sections = Array.from(doc.querySelectorAll("details"));
  function edge(id, side) {
    var el = doc.getElementById(id);
    return el ? el.getBoundingClientRect()[side] + win.scrollY : null;
  }
  function opened() { return sections.filter(function (d) { return d.open; }).length; }
  out.closed = {height: doc.documentElement.scrollHeight, sections: sections.length,
    open: opened(), guarantee_top: edge("guarantee", "top"),
    guarantee_bottom: edge("guarantee", "bottom"),
    utility_bottom: edge("utility-baselines", "bottom"),
    fold_top: sections.length ? sections[0].getBoundingClientRect().top + win.scrollY : null};
  // the page's script: a glossary link opens the glossary (the link's own navigation is
  // cancelled, so the script opens it, not the browser's fragment navigation); printing
  // opens every section, and closes them again after
  out.script = {};
  var link = doc.querySelector("a.term"), target = link && link.hash.slice(1);
  if (link) {
    link.addEventListener("click", function (e) { e.preventDefault(); });
    link.click();
    out.script.link_opens = doc.getElementById("glossary").open &&
      doc.getElementById(target).getBoundingClientRect().height > 0 && opened() === 1;
    doc.getElementById("glossary").open = false;
  }
  win.dispatchEvent(new Event("beforeprint"));
  out.script.print_opens = opened();
  win.dispatchEvent(new Event("afterprint"));
  out.script.after_print = opened();
  sections.forEach(function (d) { d.open = true; });
  out.open_height = doc.documentElement.scrollHeight;
  doc.querySelectorAll("figure").forEach(function (fig) {
    var svg = fig.querySelector("svg"), box = svg.getBoundingClientRect();
    out.figures.push({id: fig.id, width: box.width, height: box.height,
      curves: Array.from(svg.querySelectorAll("polyline.curve")).map(function (p) {
        var b = p.getBBox();
        return {series: p.dataset.series, width: b.width, height: b.height,
                length: p.getTotalLength()};
      }),
      markers: svg.querySelectorAll("circle.marker").length,
      bars: Array.from(svg.querySelectorAll("rect.bar")).map(function (b) {
        return b.getBBox().width; })});
  });
  // words of table cells drawn over more than one line (wrapped mid-word; a break after a
  // hyphen is a break between words)
  out.broken = [];
  doc.querySelectorAll("td, th").forEach(function (cell) {
    var walk = doc.createTreeWalker(cell, NodeFilter.SHOW_TEXT), node, word, range;
    while ((node = walk.nextNode())) {
      var words = /[^\\s-]+/g;
      while ((word = words.exec(node.data))) {
        range = doc.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        var tops = Array.from(range.getClientRects()).filter(function (r) {
          return r.width > 0; }).map(function (r) { return Math.round(r.top); });
        if (new Set(tops).size > 1) out.broken.push(word[0]);
      }
    }
  });
  out.text = doc.body.innerText;
  document.getElementById("out").textContent = JSON.stringify(out);
};
</script></body></html>
"""


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    if os.environ.get("CI"):
        pytest.fail("Chromium is required in CI (.ci/run installs the Debian package chromium)")
    pytest.skip("Chromium is not installed (apt-get install chromium); CI runs this test")


def _page_fetches(netlog: Path) -> list[str]:
    """URLs the page (not the browser's own services) requested over the network."""
    log = json.loads(netlog.read_text())
    names = {code: name for name, code in log["constants"]["logEventTypes"].items()}
    urls = []
    for event in log["events"]:
        if names.get(event["type"]) != "URL_REQUEST_START_JOB":
            continue
        params = event.get("params", {})
        if "url" not in params:  # the end of a job
            continue
        # Chromium's own background requests have no initiating document.
        if params.get("initiator") == "not an origin" and "file://" not in params.get(
            "network_isolation_key", ""
        ):
            continue
        urls.append(params["url"])
    return urls


def _load(page: Path) -> tuple[dict, list[str]]:
    """Load ``page`` in headless Chromium; return the harness's measurements and page fetches."""
    browser = _chromium()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        harness = page.parent / "harness.html"
        harness.write_text(HARNESS.replace("PAGE", page.name))
        netlog = tmp / "net.json"
        run = subprocess.run(
            [
                browser,
                *CHROMIUM_FLAGS,
                f"--user-data-dir={tmp / 'profile'}",
                f"--log-net-log={netlog}",
                "--dump-dom",
                harness.as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 0, run.stderr[-2000:]
        match = re.search(r'<pre id="out">(.*?)</pre>', run.stdout, flags=re.DOTALL)
        assert match, run.stdout[:2000]
        import html

        text = html.unescape(match.group(1))
        measured = json.loads(text) if text != "pending" else {}
        return measured, _page_fetches(netlog)


#: Bound on the first screen, px at 1,200 px width: the page with every section closed. The
#: release of ``released`` measures 1,348 px in Chromium 156 (Debian fonts), 7,333 px before
#: the fold (the issue's complaint: 6,200 px); a finite release, whose accounting line is
#: five lines long, measures 1,503 px. The bound leaves 6% for other fonts and versions.
FIRST_SCREEN_PX = 1600


@pytest.fixture(scope="module")
def browser(released) -> tuple[dict, list[str]]:
    """The released page loaded once in headless Chromium: measurements and page fetches."""
    return _load(released[0])


def test_browser_first_screen_is_the_guarantee_and_the_utility(browser):
    closed = browser[0]["closed"]
    assert closed["sections"] == 8 and closed["open"] == 0  # every section folded
    # the guarantee, then the utility table, end above the fold, all on the first screen
    assert 0 <= closed["guarantee_top"] < closed["guarantee_bottom"] < closed["utility_bottom"]
    assert closed["utility_bottom"] < closed["fold_top"] < closed["height"] <= FIRST_SCREEN_PX
    # the details are folded, not gone: opened, the page is several screens long
    assert browser[0]["open_height"] > 3 * closed["height"]


def test_browser_glossary_links_and_printing_open_the_sections(browser):
    script = browser[0]["script"]
    assert script["link_opens"] is True  # the glossary, shown at the linked entry
    assert script["print_opens"] == 8 and script["after_print"] == 0


def test_browser_renders_plots_and_numbers_and_fetches_nothing(released, browser):
    from synthamp.report import PrivacyReport

    report = released[1]
    measured, fetches = browser
    assert fetches == []
    figures = {f["id"]: f for f in measured["figures"]}
    assert set(figures) == {"plot-epsilon-delta", "plot-rdp", "plot-noise"}
    for fid in ("plot-epsilon-delta", "plot-rdp"):
        fig = figures[fid]
        assert fig["width"] > 300 and fig["height"] > 150
        assert len(fig["curves"]) >= 2 and fig["markers"] == 1
        for curve in fig["curves"]:  # drawn across most of the plot, not collapsed to a point
            assert curve["width"] > 200 and curve["length"] > 250, curve
    series = [c["series"] for c in figures["plot-epsilon-delta"]["curves"]]
    assert any("releasing the model" in s for s in series) and any("synthetic" in s for s in series)
    assert len(series) == 2 * len(report_curves(PrivacyReport.from_dict(report)).profiles)
    bars = figures["plot-noise"]["bars"]
    assert bars[0] / bars[1] == pytest.approx(
        report["sigma"] / report["sigma_post_processing"], rel=0.01
    )
    assert measured["broken"] == []  # no word of a table cell wrapped mid-word
    text = measured["text"]
    assert text.startswith("Privacy report\n")
    for number in (report["epsilon"], report["sigma"], report["sigma_post_processing"]):
        assert f"{number:.4g}" in text
    assert f"{100 * report['noise_saved']:.1f}% less noise" in text
    assert "Glossary" in text and "Rényi order α" in text


def _printed_pages(page: Path) -> int:
    """The number of pages Chromium prints ``page`` on (its PDF's page tree)."""
    browser = _chromium()
    with tempfile.TemporaryDirectory() as tmp:
        pdf = Path(tmp) / "page.pdf"
        run = subprocess.run(
            [
                browser,
                *CHROMIUM_FLAGS,
                f"--user-data-dir={Path(tmp) / 'profile'}",
                "--no-pdf-header-footer",
                f"--print-to-pdf={pdf}",
                page.as_uri(),
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert run.returncode == 0 and pdf.exists(), run.stderr[-2000:]
        return max(int(n) for n in re.findall(rb"/Count (\d+)", pdf.read_bytes()))


def test_printed_page_shows_every_section_without_a_script(released, tmp_path):
    page = released[0].read_text()
    rule = "details::details-content{content-visibility:visible;display:block}"
    assert rule in page
    variants = {  # the page with no script (its print rule alone); every section open; and
        # a control: no script and no print rule, which prints the first screen only
        "no script": re.sub(r"<script>.*?</script>", "", page, flags=re.DOTALL),
        "open": page.replace('<details class="section"', '<details open class="section"'),
    }
    variants["control"] = variants["no script"].replace(rule, "")
    pages = {}
    for name, text in variants.items():
        (tmp_path / f"{name}.html").write_text(text)
        pages[name] = _printed_pages(tmp_path / f"{name}.html")
    assert pages["no script"] == pages["open"] > pages["control"], pages


def test_browser_network_check_detects_a_fetch(tmp_path):
    control = tmp_path / "control.html"
    control.write_text(
        '<!DOCTYPE html><html><body><figure id="c"><svg width="10" height="10"></svg></figure>'
        '<img src="http://127.0.0.1:9/pixel.png"></body></html>'
    )
    _, fetches = _load(control)
    assert fetches == ["http://127.0.0.1:9/pixel.png"]
