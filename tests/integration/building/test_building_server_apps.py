"""Apps that need their framework's server (a Next.js page rendered per request with a
route handler; Astro with output "server" and @astrojs/node) are built for that server
with Istanbul on their client code, served by it through our loopback port, and used in
Chromium: the page shows what the server rendered from the request, the client control
updates it, its POST to the app's own API is answered, and its own code is counted.

Each fixture is installed from the npm registry and built for real (slow: marked
``build``), the way ``iwc run`` instruments it (the site folder with the server
build's marker, the app's copy beside it).
"""

from __future__ import annotations

import json
import time

import pytest

from iwcbench.pipeline.contracts import servers
from iwcbench.pipeline.stages import instrumenting, serving
from iwcbench.pipeline.stages.exploring import coverage as istanbul

pytestmark = [pytest.mark.build, pytest.mark.browser]

READ = "() => JSON.parse(JSON.stringify(window.__coverage__ || {}))"
COUNTING = {"next-ssr": "components/counting.js", "astro-ssr": "src/scripts/counter.js"}
WHY = {"next-ssr": 'Page with `dynamic = "force-dynamic"` couldn\'t be exported',
       "astro-ssr": "its static build left no dist/index.html"}
LABEL = {"next-ssr": "Next.js's own server", "astro-ssr": "the @astrojs/node adapter"}


@pytest.mark.parametrize("name", ["next-ssr", "astro-ssr"])
def test_a_server_app_is_built_for_its_server_with_istanbul(instrumented, name):
    bundle, site, seconds = instrumented(name)
    report = bundle.report
    assert report.build is not None
    assert report.build.result == "instrumented", report.build.reason + "\n" + report.build.log_tail
    assert report.mode == "instrumented" and report.entry == "index.html"
    assert f"built for and served by {LABEL[name]}, because" in report.build.reason
    assert WHY[name] in report.build.reason, report.build.reason
    assert COUNTING[name] in bundle.coverage_map and not any("node_modules" in k for k in bundle.coverage_map)
    marker = servers.ServerBuild.model_validate_json((site / servers.MARKER).read_text())
    assert marker.framework == name.split("-")[0]
    assert (site / marker.app / "node_modules").is_dir()  # the built app's copy, kept beside the site
    assert not (site / "index.html").exists()  # nothing static to serve: the server renders "/"
    print(f"{name}: built and instrumented in {seconds} s (build {report.build.build_s} s, "
          f"install {report.build.install_s} s)")


@pytest.mark.parametrize("name", ["next-ssr", "astro-ssr"])
def test_a_server_app_renders_per_request_answers_its_api_and_counts_its_code(instrumented, page, name):
    bundle, site, _ = instrumented(name)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    started = time.monotonic()
    with serving.serve(site) as served:
        ready = time.monotonic() - started
        page.goto(served.url + "?name=Ada")
        loaded = time.monotonic() - started - ready
        page.get_by_role("heading", name="Hello, Ada").wait_for()
        page.get_by_text(f"Rendered on the server for 127.0.0.1:{served.port}").wait_for()
        page.get_by_role("button", name="Add one").click()
        page.get_by_text("Count: 1").wait_for()
        page.get_by_role("button", name="Ask the server").click()
        page.get_by_text("The server got 1 and doubled it to 2").wait_for()
        coverage = page.evaluate(READ)
        log = served.requests()
    print(f"{name}: server ready in {ready:.2f} s, page loaded in {loaded:.2f} s")
    assert errors == []
    assert ("POST", "/api/echo", 200) in [(r.method, r.path, r.status) for r in log]
    assert ("GET", "/?name=Ada", 200) in [(r.method, r.path, r.status) for r in log]
    assert set(coverage) <= set(bundle.coverage_map)
    summary = istanbul.summarize(coverage, bundle.coverage_map)
    assert summary.statements > 0, summary
    fc = coverage[COUNTING[name]]
    covered = {fn["name"] for fid, fn in fc["fnMap"].items() if fc["f"][fid] > 0}
    assert {"next", "ask"} <= covered, covered


def test_the_marker_and_the_client_files_are_all_the_site_folder_holds(instrumented):
    bundle, site, _ = instrumented("next-ssr")
    names = {p.relative_to(site).parts[0] for p in site.rglob("*") if p.is_file()}
    assert names <= {servers.MARKER, "_next", instrumenting.IWC_DIR}, names
    assert json.loads((site / instrumenting.IWC_DIR / "sites.json").read_text())  # counters placed in the chunks
