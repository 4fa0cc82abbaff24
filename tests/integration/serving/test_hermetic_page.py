"""A served app in real Chromium with the hermetic router: CDN libraries come from
the mirror (filled once from the npm registry), everything else external is refused
and recorded, and the page still works."""

from __future__ import annotations

import playwright.sync_api as pw
import pytest

from iwcbench.pipeline.kits import browser
from iwcbench.pipeline.kits.mirror import cdn, routing
from iwcbench.pipeline.stages import serving

PAGE = """<!doctype html>
<html><head>
<script src="https://cdn.tailwindcss.com"></script>
<script src="https://cdn.jsdelivr.net/npm/chart.js@4.4.0/dist/chart.umd.js"></script>
<script src="https://cdnjs.cloudflare.com/ajax/libs/three.js/r134/three.min.js"></script>
<script src="https://example.com/x.js"></script>
<script type="module">
  import { Color } from "https://esm.sh/@kurkle/color@0.3.2";
  window.colorModule = typeof Color;
</script>
</head><body>
<h1 id="title" class="text-red-500">chart</h1>
<canvas id="c" width="300" height="150"></canvas>
<script src="app.js"></script>
</body></html>"""

APP = """window.chart = new Chart(document.getElementById('c'), {
  type: 'bar', data: {labels: ['a', 'b'], datasets: [{label: 'n', data: [1, 2]}]},
  options: {animation: false}});
fetch('https://api.example.com/data').catch(() => { window.fetchRefused = true; });
document.getElementById('title').textContent = 'three r' + THREE.REVISION;
"""


@pytest.fixture()
def app(tmp_path):
    (tmp_path / "index.html").write_text(PAGE)
    (tmp_path / "app.js").write_text(APP)
    with serving.serve(tmp_path) as served:
        yield served


@pytest.mark.browser
def test_cdn_libraries_load_from_the_mirror_and_externals_are_blocked(app, cdn_cache):
    hermetic = routing.Hermetic(app.url, cdn.Mirror(cdn_cache))
    with pw.sync_playwright() as playwright:
        chromium = browser.launch(playwright)
        try:
            context = chromium.new_context(**routing.context_options())
            hermetic.install(context)
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(app.url, wait_until="load", timeout=60_000)
            page.wait_for_function("() => window.colorModule && window.fetchRefused", timeout=15_000)
            state = page.evaluate("""() => ({
                chart: typeof Chart, drawn: !!window.chart && window.chart.data.labels.length,
                title: document.getElementById('title').textContent,
                color: getComputedStyle(document.getElementById('title')).color,
                module: window.colorModule})""")
        finally:
            chromium.close()
    assert state == {"chart": "function", "drawn": 2, "title": "three r134",
                     "color": "rgb(239, 68, 68)",  # Tailwind's text-red-500: the Play CDN script ran
                     "module": "function"}
    assert errors == []
    blocked, mirrored = hermetic.drain()
    assert "https://example.com/x.js (external host)" in blocked
    assert "https://api.example.com/data (external host)" in blocked
    served = {line.split(" -> ")[1] for line in mirrored}
    assert {"chart.js@4.4.0/dist/chart.umd.js", "three@0.134.0/build/three.min.js",
            "tailwindcss-cdn@3.4.10/tailwindcss.js", "@kurkle/color@0.3.2/dist/color.esm.js"} <= served
    logged = [(r.path, r.status) for r in app.requests()]
    assert logged[0] == ("/", 200) and ("/app.js", 200) in logged
