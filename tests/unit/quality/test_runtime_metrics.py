"""Runtime Console Errors (4) and Resource Validity (15) from the trace and the loads."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.stages.quality import runtime

URL = "http://127.0.0.1:8000/index.html"


def _trace(*steps: dict, mirrored: tuple[str, ...] = ()) -> evidence.Trace:
    return evidence.Trace(explorer="heuristic", seed=0, max_steps=5, start_url=URL, mirrored_requests=mirrored,
                          steps=tuple(evidence.Step(index=i, action=evidence.Action(kind="load" if i == 0 else "click"),
                                                    url=URL, **s) for i, s in enumerate(steps)))


def test_errors_cost_more_when_uncaught_and_a_repeated_error_counts_once():
    clean = runtime.console_errors(_trace({}, {}))
    noisy = runtime.console_errors(_trace(
        {"page_errors": ("TypeError: x is undefined at app.js:12:5",)},
        {"page_errors": ("TypeError: x is undefined at app.js:12:9",),  # the same bug, another column
         "console_errors": ("Failed to load resource: 404 http://127.0.0.1:8000/a.png",)},
        {"console_errors": ("Failed to load resource: 404 http://127.0.0.1:8000/b.png",)}))
    assert clean.value == 100.0
    # one distinct uncaught error (2 units) and one distinct console error (1): 100 × 0.8³
    assert noisy.value == pytest.approx(51.2)
    assert noisy.reason.startswith("1 distinct uncaught page error and 1 distinct console error")
    assert runtime.console_errors(None).value is None


def test_resources_answered_broken_and_blocked():
    trace = _trace({"blocked_requests": ("https://fonts.example.net/a.woff2 (external host)",)},
                   mirrored=("https://cdn.jsdelivr.net/npm/chart.js@4 -> chart.js@4.4.1/dist/chart.umd.js",))
    requests = [(URL, 200, None), ("http://127.0.0.1:8000/app.js", 200, None),
                ("http://127.0.0.1:8000/logo.png", 404, None), ("http://127.0.0.1:8000/app.js", 304, None)]
    links = {"http://127.0.0.1:8000/about.html": True, "http://127.0.0.1:8000/help.html": False}
    score = runtime.resource_validity(trace, requests, links, loaded=True)
    # answered: index, app.js, chart.js, about.html; broken: logo.png, help.html; the font our
    # sandbox blocked is left out (blocked_by_sandbox), not counted as invalid
    assert score.value == pytest.approx(100 * 4 / 6, abs=0.01)
    assert score.reason == ("4 of 6 distinct resources and links answered; 2 broken; 1 blocked by our sandbox "
                            "left out (to fonts.example.net)")
    assert score.raw["blocked_by_sandbox"] == ["https://fonts.example.net/a.woff2"]
    perfect = runtime.resource_validity(_trace({}), [(URL, 200, None)], {}, loaded=True)
    assert perfect.value == 100.0 > score.value


def test_outside_fonts_and_images_do_not_lower_resource_validity():
    """The same app with a web font and an image from outside hosts, which our sandbox
    refuses, scores as its local copy does."""
    local = runtime.resource_validity(_trace({}), [(URL, 200, None), ("http://127.0.0.1:8000/app.js", 200, None)],
                                      {}, loaded=True)
    outside = runtime.resource_validity(
        _trace({"blocked_requests": ("https://fonts.gstatic.com/s/inter.woff2 (external host)",
                                     "https://images.unsplash.com/photo-1.jpg (external host)")}),
        [(URL, 200, None), ("http://127.0.0.1:8000/app.js", 200, None),
         ("https://images.unsplash.com/photo-1.jpg", None, "net::ERR_BLOCKED_BY_CLIENT")], {}, loaded=True)
    assert outside.value == local.value == 100.0
    assert len(outside.raw["blocked_by_sandbox"]) == 2
    only_outside = runtime.resource_validity(
        _trace({"blocked_requests": ("https://api.example.org/data (external host)",)}), [], {}, loaded=True)
    assert only_outside.value is None and "outside our sandbox" in only_outside.reason


def test_a_url_keeps_its_worst_outcome():
    found = runtime.outcomes(None, [(URL, 200, None), (URL + "#x", None, "net::ERR_BLOCKED_BY_CLIENT")], {})
    assert found == {URL: "blocked"}
