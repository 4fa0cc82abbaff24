"""Metrics from extra page loads: 2 best practices, 16 performance, 17 accessibility
(Lighthouse), 18 cross-browser compatibility (Firefox against Chromium), 19 mobile
device compatibility (the phone viewport). Definitions in contracts/metrics.py.

Pure: the tools' answers and the probe's facts in, scores out.
"""

from __future__ import annotations

import statistics
from typing import Mapping, Sequence

from iwcbench.pipeline.contracts import metrics
from iwcbench.pipeline.kits.mirror import rule
from iwcbench.pipeline.stages.quality import runtime

LIGHTHOUSE = {"wcb_best_practices": "best-practices", "wcb_performance": "performance",
              "wcb_accessibility": "accessibility"}
PAINTED_NOTHING = ("NO_FCP", "NO_LCP")  # Lighthouse's codes for a page that never painted content
HUNG = ("PAGE_HUNG",)  # Lighthouse's code for a page whose main thread stopped answering
PERF_METRICS = (("first-contentful-paint", "FCP", "ms"), ("largest-contentful-paint", "LCP", "ms"),
                ("total-blocking-time", "TBT", "ms"), ("cumulative-layout-shift", "CLS", ""),
                ("speed-index", "SI", "ms"))
ENGINE_ERROR_BASE = 0.7
ARRANGE_PX = 4
TAP_PX = 24
LEGIBLE_PX = 12


def without_sandbox_errors(answer: dict, app_origin: str | None) -> tuple[dict, list[str]]:
    """Lighthouse's answer with the console errors our sandbox caused left out: a failed
    load of a URL the sandbox refuses (kits/mirror/rule.py) is ``blocked_by_sandbox``, not
    an error of the app. When only such errors failed ``errors-in-console``, the audit
    passes and best practices is scored again as Lighthouse scores a category (the
    weighted mean of its audits that have a score). Also the URLs left out."""
    items = answer.get("console_items") or []
    audit = (answer.get("audits") or {}).get("errors-in-console") or {}
    if app_origin is None or not items or audit.get("score") in (None, 1):
        return answer, []
    ours = [i["url"] for i in items if i.get("source") == "network" and i.get("url")
            and rule.decide(i["url"], app_origin).action != "pass"]
    weights = (answer.get("weights") or {}).get("best-practices") or {}
    if len(ours) < len(items) or not weights:
        return answer, []
    audits = {**answer["audits"], "errors-in-console": {**audit, "score": 1}}
    scored = [(w, audits[a]["score"]) for a, w in weights.items() if (audits.get(a) or {}).get("score") is not None]
    total = sum(w for w, _ in scored)
    categories = dict(answer.get("categories") or {})
    if total > 0:
        categories["best-practices"] = sum(w * v for w, v in scored) / total
    return {**answer, "audits": audits, "categories": categories}, ours


def _coded(answer: dict, codes: Sequence[str]) -> bool:
    """Whether Lighthouse's runtime error is one of ``codes``."""
    return any(code in (answer.get("runtime_error") or "") for code in codes)


def lighthouse(answer: dict | None, why_not: str | None, app_origin: str | None = None,
               screen_shows: bool = False) -> dict[str, metrics.Score]:
    """The three Lighthouse metrics from one run (``why_not``: why there is none); with
    ``app_origin``, the console errors our sandbox caused are left out of best practices.
    ``screen_shows``: the start state's screenshot shows something (visual.shows_something):
    then a Lighthouse that saw no contentful paint failed to measure, and the metric is
    unscored with that reason, never 0."""
    if answer is None:
        return metrics.unscored(LIGHTHOUSE, why_not or "Lighthouse did not run")
    hung = answer.get("hung") or (answer.get("runtime_error") if _coded(answer, HUNG) else None)
    if hung:  # the page's own doing: nothing of it can be measured or used
        return {name: metrics.score(name, 0.0, f"the start page hung under Lighthouse {answer.get('version') or ''}: "
                                    f"{hung}".replace("  ", " ")) for name in LIGHTHOUSE}
    answer, ours = without_sandbox_errors(answer, app_origin)
    out = {}
    painted_nothing = _coded(answer, PAINTED_NOTHING)
    for name, category in LIGHTHOUSE.items():
        score = (answer.get("categories") or {}).get(category)
        if score is None:
            if painted_nothing and screen_shows:
                out[name] = metrics.score(name, None, f"not measured: Lighthouse saw no contentful paint "
                                          f"({answer['runtime_error']}), yet the start page's screenshot shows "
                                          "content (a canvas, say): our measurement failed, not the page")
            elif painted_nothing:
                out[name] = metrics.score(name, 0.0, f"the start page painted no content ({answer['runtime_error']})")
            else:
                out[name] = metrics.score(name, None, f"Lighthouse gave no {category} score: "
                                          f"{answer.get('runtime_error') or 'no reason given'}")
            continue
        audits = answer.get("audits") or {}
        refs = (answer.get("refs") or {}).get(category, [])
        failing = [a for a in refs if audits.get(a, {}).get("score") is not None and audits[a]["score"] < 0.9
                   and audits[a].get("mode") in ("binary", "numeric", "metricSavings")]
        if category == "performance":
            measured = [f"{label} {audits[a]['value']:.0f} {unit}".strip() if unit else
                        f"{label} {audits[a]['value']:.3f}"
                        for a, label, unit in PERF_METRICS if (audits.get(a) or {}).get("value") is not None]
            reason = f"Lighthouse {answer.get('version')} performance {100 * score:.0f}: " + ", ".join(measured)
            runs = answer.get("performance_runs") or []
            if len(runs) > 1:  # (lighthouse.mjs: the median of the runs, the metrics of the median run)
                reason += f"; the median of {len(runs)} runs ({', '.join(str(r) for r in runs)})"
        else:
            reason = (f"Lighthouse {answer.get('version')} {category} {100 * score:.0f}"
                      + (f"; failing: {', '.join(failing[:6])}" if failing else "; every weighted audit passes")
                      + (f"; {len(ours)} console error{'s' * (len(ours) != 1)} of loads our sandbox blocked left out"
                         if ours and category == "best-practices" else ""))
        out[name] = metrics.score(name, round(100.0 * score, 2), reason, failing[:8],
                                  {"audits": {a: audits[a].get("score") for a in refs if a in audits},
                                   "values": {a: audits[a].get("value") for a, _, _ in PERF_METRICS if a in audits}
                                   if category == "performance" else None,
                                   "blocked_by_sandbox": ours[:30] if category == "best-practices" else None})
    return out


def _relation(a: Sequence[int], b: Sequence[int]) -> tuple[int, int]:
    """Where box b starts relative to box a: (left/same/right, above/same/below)."""
    def sign(d: float) -> int:
        return 0 if abs(d) <= ARRANGE_PX else (1 if d > 0 else -1)
    return sign(b[0] - a[0]), sign(b[1] - a[1])


def arrangement(chromium: Sequence[dict], firefox: Mapping[str, Sequence[int]]) -> tuple[int, int, list[str]]:
    """(same, compared, differing paths): consecutive content boxes in document order
    whose arrangement (beside, below, on top) is the same in both engines; a box
    Firefox does not show differs. Text metrics differ between engines; this asks
    whether the layout does."""
    same, differing = 0, []
    pairs = list(zip(chromium, chromium[1:]))
    for a, b in pairs:
        fa, fb = firefox.get(a["path"]), firefox.get(b["path"])
        if fa is not None and fb is not None and _relation(a["box"], b["box"]) == _relation(fa, fb):
            same += 1
        else:
            differing.append(b["path"])
    return same, len(pairs), differing


def cross_browser(answer: dict | None, why_not: str | None, chromium: dict | None,
                  chromium_errors: Sequence[str], thin: str | None = None,
                  chromium_trouble: str | None = None) -> metrics.Score:
    """Firefox against Chromium on the start page, both loaded live the same way (the
    probe's facts of each); ``thin``: why the page shows almost nothing (content.thin),
    which scores 0 once Firefox has shown it; ``chromium_trouble``: why Chromium's load
    gave no facts."""
    name = "wcb_cross_browser"
    if answer is None:
        return metrics.score(name, None, why_not or "the second engine did not run")
    if answer.get("error"):
        return metrics.score(name, 0.0, f"Firefox {answer.get('version') or ''} could not show the start page: "
                             f"{answer['error']}".replace("  ", " "))
    if chromium is None:
        return metrics.score(name, None, f"not measured: {chromium_trouble or 'the start page was not loaded in Chromium'}")
    if thin:
        return metrics.score(name, 0.0, thin)
    ours = {runtime.fold(e.split(": ", 1)[-1]) for e in chromium_errors}
    only_firefox = runtime._distinct(e for e in answer.get("errors", []) if runtime.fold(e) not in ours)
    errors_part = 100.0 * ENGINE_ERROR_BASE ** len(only_firefox)
    firefox_boxes = {b["path"]: b["box"] for b in (answer.get("probe") or {}).get("boxes", [])}
    leaves = [b for b in chromium.get("boxes", []) if b.get("leaf")]
    same, compared, moved = arrangement(leaves, firefox_boxes)
    # fewer than two content boxes: no arrangement to compare, the part is left out
    # (a page that shows almost nothing is scored 0 by the stage: content.thin)
    layout_part = 100.0 * same / compared if compared else None
    value = statistics.fmean((errors_part, layout_part)) if layout_part is not None else errors_part
    engine = answer.get("version") or "Firefox"
    reason = f"{engine}: {len(only_firefox)} page error{'s' * (len(only_firefox) != 1)} only Firefox raised; "
    reason += (f"{same} of {compared} neighbouring boxes arranged as in Chromium" if compared
               else "fewer than 2 content boxes: layout not compared")
    return metrics.score(name, round(value, 2), reason, [*only_firefox[:3], *moved[:8]][:8],
                         {"firefox_only_errors": only_firefox[:10],
                          "layout": round(layout_part, 2) if layout_part is not None else None,
                          "errors": round(errors_part, 2), "engine": answer.get("version")})


def mobile(phone: dict | None, why_not: str | None, hung: str | None = None) -> metrics.Score:
    """Device compatibility from the phone load's probe; ``hung``: why the page's own
    main thread stopped answering on the phone (scored 0: a phone user gets nothing)."""
    name = "wcb_mobile"
    if phone is None and hung:
        return metrics.score(name, 0.0, f"the start page hung on the phone viewport: {hung}")
    if phone is None:
        return metrics.score(name, None, why_not or "not measured: the phone viewport was not loaded")
    layout = (phone.get("viewport") or [375])[0]
    screen = (phone.get("screen") or [layout])[0]
    # without a viewport tag a phone lays the page out wider and shrinks it to the screen
    scale = screen / max(layout, screen)
    meta = (phone.get("meta_viewport") or "").replace(" ", "").lower()
    parts: dict[str, float] = {"viewport meta": 100.0 if "width=device-width" in meta else 0.0}
    scroll = (phone.get("document") or [layout])[0]
    parts["no horizontal overflow"] = 100.0 if scroll <= layout + 1 else 0.0
    targets = [t for t in phone.get("targets", []) if not t.get("inline")]
    big = [t for t in targets if t["w"] * scale >= TAP_PX and t["h"] * scale >= TAP_PX]
    if targets:
        parts["tap targets"] = 100.0 * len(big) / len(targets)
    texts = phone.get("texts", [])
    chars = sum(len(t["text"]) for t in texts)
    if chars:
        parts["legible text"] = 100.0 * sum(len(t["text"]) for t in texts
                                            if (t.get("size") or 0) * scale >= LEGIBLE_PX) / chars
    value = statistics.fmean(parts.values())
    notes = [f"viewport meta {'set' if parts['viewport meta'] else 'missing or not width=device-width'}",
             f"page {scroll} px wide in a {layout} px viewport" + (f" shown at {scale:.2f}× on a {screen} px screen"
                                                                   if scale < 1 else "")]
    if targets:
        notes.append(f"{len(big)} of {len(targets)} tap targets ≥ {TAP_PX} px")
    if chars:
        notes.append(f"{parts['legible text']:.0f} % of text ≥ {LEGIBLE_PX} px")
    small = [t["path"] for t in targets if t not in big][:8]
    return metrics.score(name, round(value, 2), "; ".join(notes), small,
                         {"parts": {k: round(v, 2) for k, v in parts.items()}, "document_width": scroll})
