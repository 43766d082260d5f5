"""The HTML report at a phone's width and a desktop's: no table overflows the page
unscrollably, and no plot legend covers the data area.

The page written by ``synthamp release`` is loaded into headless Chromium in an
iframe 420 px and 1,200 px wide, every section opened; a harness measures each
table (its right edge, and the nearest ancestor that scrolls sideways) and the
page's own width, and, in the SVG plots, the legend's box against the frame of the
data area. The utility table used to be cut at 420 px, and the ε–δ plot's legend
sat inside the axes, over the curves.
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from synthamp.cli import main

FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--allow-file-access-from-files",
)  # fmt: skip

HARNESS = """<!DOCTYPE html><html><body style="margin:0"><pre id="out">pending</pre>
<iframe id="frame" src="PAGE" width="WIDTH" height="800" style="border:0"></iframe>
<script>
document.getElementById("frame").onload = function () {
  var doc = this.contentDocument, win = this.contentWindow, out = {tables: [], legends: []};
  doc.querySelectorAll("details").forEach(function (d) { d.open = true; });
  var width = doc.documentElement.clientWidth;
  out.viewport = width;
  out.page_width = doc.documentElement.scrollWidth;
  doc.querySelectorAll("table").forEach(function (table) {
    var box = table.getBoundingClientRect(), scroller = null, el = table.parentElement;
    while (el && el !== doc.body) {
      var style = win.getComputedStyle(el);
      if (/(auto|scroll)/.test(style.overflowX)) { scroller = el; break; }
      el = el.parentElement;
    }
    var s = scroller && scroller.getBoundingClientRect();
    out.tables.push({id: table.id, right: box.right, scroll_right: s ? s.right : null,
      scrollable: scroller ? scroller.scrollWidth > scroller.clientWidth : false});
  });
  doc.querySelectorAll("svg.plot").forEach(function (svg) {
    var frame = svg.querySelector("rect.frame"), legend = svg.querySelector("rect.legend-box");
    if (!frame || !legend) return;
    var f = frame.getBBox(), l = legend.getBBox();
    out.legends.push({id: svg.parentElement.id,
      overlap: !(l.y >= f.y + f.height || l.y + l.height <= f.y ||
                 l.x >= f.x + f.width || l.x + l.width <= f.x)});
  });
  document.getElementById("out").textContent = JSON.stringify(out);
};
</script></body></html>
"""


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("Chromium is not installed (apt-get install chromium); CI runs this test")


@pytest.fixture(scope="module")
def page(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("layout")
    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, 8))
    x /= 1.01 * np.linalg.norm(x, axis=1, keepdims=True)
    frame = pd.DataFrame(x, columns=[f"x{i}" for i in range(8)])
    frame["y"] = np.tanh(x @ rng.normal(size=8))
    frame.to_csv(tmp / "data.csv", index=False)
    args = ["release", "--data", str(tmp / "data.csv"), "--targets", "y", "--label-bound", "1",
            "--ridge", "0.1", "--epsilon", "1", "--delta", "1e-5", "--n-syn", "100",
            "--unlimited", "--out", str(tmp / "syn.csv"), "--no-progress"]  # fmt: skip
    assert main(args) == 0
    return tmp / "syn.csv.privacy.html"


def _measure(page: Path, width: int) -> dict:
    browser = _chromium()
    with tempfile.TemporaryDirectory() as tmp:
        harness = page.parent / f"harness{width}.html"
        harness.write_text(HARNESS.replace("PAGE", page.name).replace("WIDTH", str(width)))
        run = subprocess.run(
            [browser, *FLAGS, f"--user-data-dir={Path(tmp) / 'profile'}",
             f"--window-size={width + 40},900", "--dump-dom", harness.as_uri()],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    match = re.search(r'<pre id="out">(.*?)</pre>', run.stdout, flags=re.DOTALL)
    assert match and match.group(1) != "pending", run.stdout[:2000]
    return json.loads(html.unescape(match.group(1)))


@pytest.mark.parametrize("width", [420, 1200])
def test_no_table_overflows_the_page_unscrollably(page, width):
    measured = _measure(page, width)
    viewport = measured["viewport"]
    assert viewport <= width
    assert measured["page_width"] <= viewport  # the page itself never scrolls sideways
    ids = {t["id"] for t in measured["tables"]}
    assert {"utility-baselines", "parameters"} <= ids
    for table in measured["tables"]:
        if table["right"] <= viewport + 0.5:
            continue  # fits
        # wider than the page: inside a box that scrolls sideways and fits the page
        assert table["scroll_right"] is not None, table
        assert table["scroll_right"] <= viewport + 0.5 and table["scrollable"], table
    if width == 420:  # the utility table is wider than a phone: it scrolls, it is not cut
        utility = next(t for t in measured["tables"] if t["id"] == "utility-baselines")
        assert utility["right"] > viewport and utility["scrollable"]


def test_plot_legends_are_outside_the_data_area(page):
    measured = _measure(page, 1200)
    legends = {entry["id"]: entry["overlap"] for entry in measured["legends"]}
    assert "plot-epsilon-delta" in legends
    assert not any(legends.values()), legends
