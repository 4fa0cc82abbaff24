"""Lighthouse's three metrics (2, 16, 17), cross-browser (18) and mobile (19) from the
tools' answers."""

from __future__ import annotations

import pytest

from iwcbench.pipeline.stages.quality import pages, rendering, tooling


def _lighthouse(perf=0.9, a11y=0.8, bp=1.0, error=None) -> dict:
    return {"version": "12.8.2", "runtime_error": error,
            "categories": {"performance": perf, "accessibility": a11y, "best-practices": bp},
            "refs": {"accessibility": ["color-contrast", "html-has-lang"], "best-practices": ["errors-in-console"],
                     "performance": ["first-contentful-paint", "total-blocking-time"]},
            "audits": {"color-contrast": {"score": 0, "mode": "binary"}, "html-has-lang": {"score": 1, "mode": "binary"},
                       "errors-in-console": {"score": 1, "mode": "binary"},
                       "first-contentful-paint": {"score": 0.9, "value": 1234.0, "mode": "numeric"},
                       "total-blocking-time": {"score": 1, "value": 10.0, "mode": "numeric"}}}


def test_lighthouse_categories_become_scores_with_what_failed():
    scores = pages.lighthouse(_lighthouse(), None)
    assert scores["wcb_performance"].value == 90.0
    assert scores["wcb_accessibility"].value == 80.0 and scores["wcb_best_practices"].value == 100.0
    assert "failing: color-contrast" in scores["wcb_accessibility"].reason
    assert "FCP 1234 ms" in scores["wcb_performance"].reason and "TBT 10 ms" in scores["wcb_performance"].reason


def test_performance_says_it_is_the_median_of_the_runs_it_took():
    repeated = {**_lighthouse(perf=0.96), "performance_runs": [89, 96, 97]}
    assert pages.lighthouse(repeated, None)["wcb_performance"].reason.endswith("the median of 3 runs (89, 96, 97)")
    single = {**_lighthouse(perf=0.96), "performance_runs": [96]}
    assert "median" not in pages.lighthouse(single, None)["wcb_performance"].reason


def _console_failed(*items) -> dict:
    answer = _lighthouse(bp=0.75)
    answer["refs"]["best-practices"] = ["errors-in-console", "doctype", "charset", "deprecations"]
    answer["weights"] = {"best-practices": {"errors-in-console": 1, "doctype": 1, "charset": 1, "deprecations": 1}}
    answer["audits"].update({"errors-in-console": {"score": 0, "mode": "binary"}, "doctype": {"score": 1, "mode": "binary"},
                             "charset": {"score": 1, "mode": "binary"}, "deprecations": {"score": 1, "mode": "binary"}})
    answer["console_items"] = [{"text": text, "source": source, "url": url} for text, source, url in items]
    return answer


def test_console_errors_of_loads_our_sandbox_blocked_do_not_cost_best_practices():
    app = "http://127.0.0.1:8000"
    blocked = _console_failed(
        ("Failed to load resource: net::ERR_TUNNEL_CONNECTION_FAILED", "network", "https://fonts.gstatic.com/s/a.woff2"),
        ("Failed to load resource: net::ERR_BLOCKED_BY_CLIENT", "network", "https://images.unsplash.com/p.jpg"))
    score = pages.lighthouse(blocked, None, app)["wcb_best_practices"]
    assert score.value == 100.0
    assert "2 console errors of loads our sandbox blocked left out" in score.reason
    assert score.raw["blocked_by_sandbox"] == ["https://fonts.gstatic.com/s/a.woff2", "https://images.unsplash.com/p.jpg"]
    # the app's own errors still fail the audit: its missing file, and a thrown error
    own = _console_failed(("Failed to load resource: 404", "network", f"{app}/missing.png"),
                          ("Failed to load resource: net::ERR_BLOCKED_BY_CLIENT", "network", "https://x.example/p.jpg"))
    assert pages.lighthouse(own, None, app)["wcb_best_practices"].value == 75.0
    thrown = _console_failed(("TypeError: x is undefined", "exception", f"{app}/app.js"))
    assert pages.lighthouse(thrown, None, app)["wcb_best_practices"].value == 75.0
    assert pages.lighthouse(blocked, None)["wcb_best_practices"].value == 75.0  # no origin given: as Lighthouse said


def test_no_lighthouse_is_unscored_and_a_page_that_painted_nothing_is_zero():
    off = pages.lighthouse(None, "Lighthouse is off (--no-lighthouse)")
    assert all(s.value is None and "--no-lighthouse" in s.reason for s in off.values())
    blank = pages.lighthouse(_lighthouse(perf=None, a11y=None, bp=None, error="NO_FCP: no content painted"), None)
    assert all(s.value == 0.0 for s in blank.values())
    odd = pages.lighthouse(_lighthouse(perf=None, error="PROTOCOL_TIMEOUT: waited too long"), None)
    assert odd["wcb_performance"].value is None and "PROTOCOL_TIMEOUT" in odd["wcb_performance"].reason


def test_a_page_that_hung_under_lighthouse_scores_zero_and_one_that_was_slow_is_unscored():
    """Hung means the page's main thread stopped answering while a fresh page did
    (chromium.mjs): the page's doing, scored 0. Lighthouse running out of our time on a
    page that still answers is ours: unscored, with the reason."""
    hung = pages.lighthouse({"hung": "the page's main thread did not answer for 2 s", "version": "13.0.1"}, None)
    assert all(s.value == 0.0 and "hung under Lighthouse 13.0.1" in s.reason for s in hung.values())
    own_code = pages.lighthouse(_lighthouse(perf=None, a11y=None, bp=None, error="PAGE_HUNG: unresponsive"), None)
    assert all(s.value == 0.0 and "PAGE_HUNG" in s.reason for s in own_code.values())
    slow = pages.lighthouse(None, "Lighthouse failed: did not finish within 24 s")
    assert all(s.value is None and "24 s" in s.reason for s in slow.values())


def _boxes(*boxes):
    return [{"path": f"body:1>p:{i}", "box": list(b), "leaf": True} for i, b in enumerate(boxes, 1)]


ROW = ((10, 10, 100, 20), (10, 40, 100, 20), (120, 40, 100, 20))


def test_cross_browser_counts_firefox_only_errors_and_rearranged_boxes():
    chromium = {"boxes": _boxes(*ROW)}
    alike = {"version": "firefox/140", "errors": ["boom at 1:2"],
             "probe": {"boxes": _boxes(*((x + 3, y, w + 9, h) for x, y, w, h in ROW))}}
    good = pages.cross_browser(alike, None, chromium, ["boom at 1:7"])
    assert good.value == 100.0  # same error in both (numbers folded); text metrics differ, layout does not
    # in Firefox the third box wrapped below the second; an error only Firefox raised
    wrapped = {"version": "firefox/140", "errors": ["TypeError: scrollIntoViewIfNeeded is not a function"],
               "probe": {"boxes": _boxes((10, 10, 100, 20), (10, 40, 100, 20), (10, 70, 100, 20))}}
    bad = pages.cross_browser(wrapped, None, chromium, [])
    assert bad.value == pytest.approx((100 * 0.7 + 100 * 1 / 2) / 2)
    assert "1 page error only Firefox raised; 1 of 2 neighbouring boxes" in bad.reason
    assert pages.cross_browser({"error": "net::ERR_TIMED_OUT", "stage": "load"}, None, chromium, []).value == 0.0
    assert pages.cross_browser(None, "Firefox is not installed", chromium, []).value is None
    # Chromium's own live load gave nothing: not measured, and the reason says why
    lost = pages.cross_browser(alike, None, None, [], None, "the start page did not load live in Chromium: boom")
    assert lost.value is None and lost.reason == "not measured: the start page did not load live in Chromium: boom"


def test_the_live_desktop_load_is_the_chromium_side_of_cross_browser():
    out = rendering.Rendered()
    rendering.take_desktop({"probe": {"boxes": []}, "errors": ["x is not defined"], "status": 200}, out)
    assert out.desktop == {"boxes": []} and out.desktop_errors == ["x is not defined"] and not out.problems
    job = rendering.desktop_job("http://127.0.0.1:9/", "http://127.0.0.1:9", {}, 20.0)
    # loaded as Firefox's job loads it: the same viewport, the same wait, the same probe
    firefox = tooling.firefox_job("http://127.0.0.1:9/", "http://127.0.0.1:9", {}, *rendering.DESKTOP, 20.0)
    if isinstance(firefox, tooling.Job):
        for field in ("width", "height", "settle_ms", "probe", "url", "timeout_ms"):
            assert job.fields[field] == firefox.fields[field], field
    assert (job.kind, job.fields["width"], job.fields["settle_ms"]) == ("desktop", 1280, tooling.SETTLE_MS)
    failed = rendering.Rendered()
    rendering.take_desktop({"error": "net::ERR_CONNECTION_REFUSED"}, failed)
    assert failed.desktop is None and "did not load live in Chromium" in failed.problems["desktop"]


def _phone(meta="width=device-width, initial-scale=1", layout=375, document=375, targets=(), texts=()):
    return {"viewport": [layout, 667], "screen": [375, 667], "document": [document, 900], "meta_viewport": meta,
            "targets": [{"path": f"button:{i}", "w": w, "h": h, "inline": False} for i, (w, h) in enumerate(targets)],
            "texts": [{"text": t, "size": s} for t, s in texts]}


def test_mobile_checks_viewport_overflow_targets_and_text():
    good = pages.mobile(_phone(targets=[(48, 48), (120, 40)], texts=[("Hello there", 16)]), None)
    assert good.value == 100.0
    # no viewport tag: laid out 980 px wide and shown at 375/980; 44 px buttons become 17 px
    desktop = pages.mobile(_phone(meta=None, layout=980, document=980, targets=[(44, 44), (100, 100)],
                                  texts=[("small", 16), ("big enough", 40)]), None)
    parts = desktop.raw["parts"]
    assert parts == {"viewport meta": 0.0, "no horizontal overflow": 100.0, "tap targets": 50.0,
                     "legible text": pytest.approx(100 * 10 / 15, abs=0.01)}
    overflowing = pages.mobile(_phone(document=1200, targets=[(48, 48)], texts=[("x" * 10, 16)]), None)
    assert overflowing.value == 75.0 and desktop.value < overflowing.value < good.value
    assert pages.mobile(None, "the start page did not load").value is None
    hung = pages.mobile(None, "the start page did not load: Navigation timeout", "the main thread did not answer")
    assert hung.value == 0.0 and "hung on the phone viewport: the main thread" in hung.reason


def test_cross_browser_without_two_boxes_is_no_constant_100():
    """One content box has no arrangement to compare: the layout part is left out, not
    100; a page that shows almost nothing (content.thin's reason) scores 0."""
    one = {"boxes": _boxes((10, 10, 100, 20))}
    erring = {"version": "firefox/140", "errors": ["TypeError: x is undefined"], "probe": {"boxes": one["boxes"]}}
    score = pages.cross_browser(erring, None, one, [])
    assert score.value == pytest.approx(70.0) and score.raw["layout"] is None
    assert "layout not compared" in score.reason
    thin = pages.cross_browser(erring, None, one, [], "the page as loaded shows almost nothing")
    assert thin.value == 0.0 and "almost nothing" in thin.reason


def test_no_contentful_paint_on_a_page_whose_screenshot_shows_pixels_is_our_failure_not_zero():
    """A WebGL game Lighthouse saw no contentful paint on, plainly visible in its screenshot:
    unscored with that reason, never 0; a page that shows nothing still scores 0."""
    answer = _lighthouse(perf=None, a11y=None, bp=None, error="NO_FCP: The page did not paint any content.")
    drawn = pages.lighthouse(answer, None, screen_shows=True)
    for score in drawn.values():
        assert score.value is None and score.status == "unscored", score
        assert "NO_FCP" in score.reason and "screenshot shows content" in score.reason
    assert all(s.value == 0.0 for s in pages.lighthouse(answer, None, screen_shows=False).values())
