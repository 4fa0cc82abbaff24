"""Honest coverage is credited in full: for an app whose code really runs, the counters
V8 confirms are exactly the ones Istanbul counts — classic, inline (with CRLF line
ends) and module scripts, 'use strict' files, non-ASCII sources. And every counter of
the coverage map has a site in the served code."""

from __future__ import annotations

import json
import time

import pytest

from fakes import apps
from iwcbench.pipeline.kits import browser, capturing
from iwcbench.pipeline.stages.exploring import coverage as istanbul, crediting

pytestmark = pytest.mark.browser

PAGE = ("<!doctype html>\r\n<html><head><meta charset='utf-8'><title>t</title></head><body>\r\n"
        "<button id='b'>Add</button><p id='out'>–</p>\r\n"
        "<script src='strict.js'></script>\r\n"
        "<script>\r\nfunction shown(n) {\r\n  return n > 1 ? n + ' items' : 'one item';\r\n}\r\n"
        "document.getElementById('out').textContent = shown(1);\r\n</script>\r\n"
        "<script type='module' src='mod.js'></script>\r\n</body></html>\r\n")
STRICT = """'use strict';
// Café — naïve ünïcode 😀 in a comment and a string.
const label = 'déjà vu';
let count = 0;
function add(by = 1) {
  count += by;
  if (count > 2) { return 'many'; } else { return count || 'none'; }
}
function never() { return label.toUpperCase(); }
document.getElementById('b').addEventListener('click', () => { add(); });
"""
MODULE = "export const ready = true;\nwindow.moduleReady = [1, 2].map((x) => x * 2).length === 2;\n"


def test_every_counter_has_a_site(instrument, tmp_path):
    app = apps.write_app(tmp_path / "app", {"index.html": PAGE, "strict.js": STRICT, "mod.js": MODULE})
    _, dest = instrument(app)
    coverage_map = json.loads((dest / ".iwc/coverage-map.json").read_text())
    sites = json.loads((dest / ".iwc/sites.json").read_text())
    assert set(sites) == set(coverage_map) == {"strict.js", "index.html#inline-1", "mod.js"}
    for key, initial in coverage_map.items():
        assert set(sites[key]["s"]) == set(initial["statementMap"]), key
        assert set(sites[key]["f"]) == set(initial["fnMap"]), key
        assert {b: len(arms) for b, arms in sites[key]["b"].items()} == \
            {b: len(arms) for b, arms in initial["b"].items()}, key


def test_what_ran_is_credited_in_full(instrument, tmp_path, serving):
    app = apps.write_app(tmp_path / "app", {"index.html": PAGE, "strict.js": STRICT, "mod.js": MODULE})
    report, dest = instrument(app)
    coverage_map = json.loads((dest / ".iwc/coverage-map.json").read_text())
    sites = json.loads((dest / ".iwc/sites.json").read_text())
    hashes = frozenset(v["sha256"] for v in sites.values())
    with serving(dest) as base:
        with browser.Session(browser.ContextOptions(), allow=(base,), coverage_hashes=hashes) as session:
            tab = session.new_tab()
            tab.goto(f"{base}/{report.entry}", 15)
            tab.click("#b", 5)
            tab.click("#b", 5)
            time.sleep(0.3)
            claimed = capturing.read_coverage(tab, 5)
            confirmed = crediting.confirmations(sites, tab.take_coverage(5))
    credited = crediting.credit(claimed, confirmed)
    assert set(crediting.claims(credited)) == set(crediting.claims(claimed))
    summary = istanbul.summarize(credited, coverage_map)
    assert summary == istanbul.summarize(claimed, coverage_map)
    assert 0 < summary.functions < 100  # `never` did not run
