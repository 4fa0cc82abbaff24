"""WebCoderBench's 24 metrics (issue 11; seed 002, Table 3) as the metric table holds
them, and the weights of its Table 6.

Pure data, the one place these facts live: metrics.py makes each entry a ``Metric`` (0-100,
higher is better, floor 0, aggregated as ``sample_z``) and shares each perspective's weight
among its metrics. Nothing here is computed from evidence.
"""

from __future__ import annotations

from typing import Literal, NamedTuple


class Entry(NamedTuple):
    """One of the 24: its score name, rule or LLM, its perspective and its definition."""

    name: str
    kind: Literal["rule", "llm"]
    perspective: str
    definition: str


# Weights: WebCoderBench's Table 6 as published, in percent — each perspective's weight for
# the seven personas of §4.3 (developers 23, QA 15, data scientists 21, product managers 19,
# operations 39, legal 22, designers 2) and for all 141 respondents (``wcb``). The columns
# are rounded to 0.1 %, so they sum to 99.9-100.1 %; they are kept as printed, not
# renormalised (tests/unit/aggregating/test_table6.py holds them against the paper). The
# weights of the metrics inside a perspective (the paper's Figure 4) were not published in
# numbers: a perspective's metrics share its weight equally.
TABLE6_COLUMNS: dict[str, str] = {  # weight set → Table 6's column
    "wcb_developer": "Dev", "wcb_quality_assurance": "QA", "wcb_data_scientist": "DS",
    "wcb_product_manager": "PM", "wcb_operations": "Ops", "wcb_legal": "Le", "wcb_designer": "Des",
    "wcb": "ALL",
}
TABLE6: dict[str, tuple[float, ...]] = {  # perspective → percent per column, in TABLE6_COLUMNS order
    "code_quality":         (13.5, 13.3, 12.7, 12.7, 10.3, 11.9, 5.6, 12.0),
    "visual_quality":       (8.6, 7.4, 9.5, 7.5, 9.9, 8.2, 20.8, 9.0),
    "content_quality":      (10.6, 13.1, 12.4, 9.2, 13.0, 13.3, 6.9, 12.1),
    "performance":          (8.6, 11.7, 11.1, 9.5, 13.1, 13.5, 5.6, 11.5),
    "accessibility":        (8.7, 10.9, 10.6, 9.2, 9.3, 10.5, 11.1, 9.9),
    "maintainability":      (11.2, 10.0, 10.3, 11.7, 9.0, 6.8, 5.6, 9.6),
    "functional_alignment": (14.7, 13.0, 11.5, 17.3, 13.8, 14.0, 16.7, 13.8),
    "visual_alignment":     (9.2, 8.1, 9.1, 10.4, 9.8, 8.7, 18.1, 9.7),
    "content_alignment":    (14.9, 12.4, 12.7, 12.6, 11.7, 13.1, 9.7, 12.5),
}
WEBCODER_SETS: tuple[str, ...] = tuple(TABLE6_COLUMNS)


def perspective_weight(weight_set: str, perspective: str) -> float:
    """A WebCoderBench weight set's weight of one perspective: Table 6's percent / 100."""
    return TABLE6[perspective][list(TABLE6_COLUMNS).index(weight_set)] / 100


# In Table 3's order; docs/metrics-wcb.md has the detail of each.
ENTRIES: tuple[Entry, ...] = (
    Entry(name="wcb_functionality", kind="llm", perspective="code_quality",
          definition="1 General Functionality Correctness: an LLM reads the app's source and the requirement "
                     "(no checklist) and rates whether the code would work as asked, 0-10 against a written "
                     "rubric; ×10"),
    Entry(name="wcb_best_practices", kind="rule", perspective="code_quality",
          definition="2 Best Practices: Lighthouse 12 best-practices category score ×100 on the start page "
                     "(console errors, deprecated APIs, doctype, charset, image aspect ratios, ...); console errors "
                     "of loads our sandbox refused are left out, the category scored again as Lighthouse does"),
    Entry(name="wcb_error_handling", kind="rule", perspective="code_quality",
          definition="3 Error Handling: on the Babel parse tree of the app's JavaScript and TypeScript, the mean of the "
                     "shares of risky calls (JSON.parse, fetch, storage, URL, ...) inside try or with a "
                     "rejection handler, of promise chains and awaits that handle rejection, and of "
                     "input-reading handlers that check what they read; ×100 (unscored when the code has none "
                     "of the three)"),
    Entry(name="wcb_console_errors", kind="rule", perspective="code_quality",
          definition="4 Runtime Console Errors: 100 × 0.8^u, u = 2 per distinct uncaught page error + 1 per "
                     "distinct console error over the load and every explored step (an error raised when a control is "
                     "used is a runtime error); numbers and URLs folded, so a repeated error counts once"),
    Entry(name="wcb_linting", kind="rule", perspective="code_quality",
          definition="5 Static Syntax Checking: HTMLHint (its default rules), Stylelint (config-recommended) "
                     "and ESLint (js recommended; no-undef off, top-level names exempt from no-unused-vars) "
                     "on the app's sources (TypeScript with its types blanked; component templates and SCSS/Less are not "
                     "linted and not counted); d = findings per 1000 non-blank lines (errors 1, warnings 0.5, a "
                     "file that does not parse 10); 100 × 20 / (20 + d)"),
    Entry(name="wcb_visual_experience", kind="llm", perspective="visual_quality",
          definition="6 General Visual Experience: an LLM looks at the start-page screenshot and rates "
                     "layout, readability and polish 0-10 against a written rubric; ×10"),
    Entry(name="wcb_component_consistency", kind="rule", perspective="visual_quality",
          definition="7 Component Style Consistency: computed styles of same-role elements (buttons, text "
                     "inputs, headings of one level, cards) over the rendered states (the page as loaded; "
                     "quality.states explored: the first explored states); per role with 2+ "
                     "elements the mean share of the most common value of each style property (font, size, "
                     "weight, colours, radius, border, padding, height, shadow); mean over roles ×100"),
    Entry(name="wcb_icon_consistency", kind="rule", perspective="visual_quality",
          definition="8 Icon Style Consistency: icons found in the rendered states (SVGs up to 64 px, "
                     "icon-font glyphs, images up to 32 px, emoji used as icons); 100 × (0.6 × share of the "
                     "most used kind/icon set + 0.4 × share of the most common size band); unscored with "
                     "fewer than 2 icons"),
    Entry(name="wcb_layout_consistency", kind="rule", perspective="visual_quality",
          definition="9 Layout Consistency: over the rendered states, the mean of: share of content boxes "
                     "whose left edge, centre or right edge lines up with another's (±2 px), regularity of "
                     "the gaps between neighbours of the same kind (1 − coefficient of variation of, say, "
                     "every label → input gap), and share of landmarks (header, nav, main, footer, h1) that "
                     "stay in place across states; ×100"),
    Entry(name="wcb_layout_sparsity", kind="rule", perspective="visual_quality",
          definition="10 Layout Sparsity: share o of 16×16 px screenshot cells holding detail (luminance "
                     "spread > 8), per state; 100 for o in 8-50 %, falling linearly to 0 at o = 0 (a blank "
                     "page) and at o = 100 %; mean over states"),
    Entry(name="wcb_visual_harmony", kind="rule", perspective="visual_quality",
          definition="11 Visual Harmony Degree: mean of palette size (colours covering 95 % of the "
                     "screenshot: ≤ 6 → 100, ≥ 20 → 0), hue harmony (share of saturated pixels inside the "
                     "best-fitting harmonic hue template) and text contrast (share of text elements meeting "
                     "WCAG AA); ×100"),
    Entry(name="wcb_copywriting", kind="rule", perspective="content_quality",
          definition="12 Copywriting Quality: mean of spelling (Hunspell en-US/en-GB dictionaries via nspell: "
                     "100 × (1 − misspelled share / 5 %)), no lorem ipsum (0 or 100), casing consistency of "
                     "headings and of buttons (share of the most common style) and untruncated text (100 × (1 "
                     "− 10 × share clipped)), over the visible text of the rendered states"),
    Entry(name="wcb_media_quality", kind="rule", perspective="content_quality",
          definition="13 Media Quality: share of images, media and canvases in the rendered states without a defect: "
                     "broken (did not load), upscaled more than 2× (too small a file for its box), stretched "
                     "(aspect ratio off by more than 5 % without object-fit), unlabelled (img without alt) or, for "
                     "a canvas, blank (its pixels in the screenshot one flat shade); "
                     "×100 (unscored without media); an image that did not load from a host our sandbox refuses "
                     "is left out (blocked_by_sandbox), not broken"),
    Entry(name="wcb_placeholders", kind="rule", perspective="content_quality",
          definition="14 Placeholder Quality: 100 × 0.8^n, n = distinct placeholders left in the rendered "
                     "states: TODO/FIXME/TBD markers and template text ('your text here', '{{name}}', "
                     "'undefined', 'NaN', '[object Object]'), links to example.com/empty links, images from "
                     "placeholder services"),
    Entry(name="wcb_resource_validity", kind="rule", perspective="content_quality",
          definition="15 Resource Validity: share of the distinct resources and same-origin links the app "
                     "requested (the load, the phone load, link targets; quality.states explored: every step) that were answered, broken ones (4xx/5xx, "
                     "failed) counting against it; ×100. A request our sandbox refused (an outside host, a CDN "
                     "file the mirror lacks) is left out as blocked_by_sandbox, not counted as invalid"),
    Entry(name="wcb_performance", kind="rule", perspective="performance",
          definition="16 General Performance: Lighthouse 12 performance category score ×100 on the start page "
                     "(FCP 10 %, Speed Index 10 %, LCP 25 %, TBT 30 %, CLS 25 %; default mobile simulated "
                     "throttling)"),
    Entry(name="wcb_accessibility", kind="rule", perspective="accessibility",
          definition="17 Accessibility Core Metrics: Lighthouse 12 accessibility category score ×100 on the "
                     "start page (beside IWC's axe-core `accessibility` over every state)"),
    Entry(name="wcb_cross_browser", kind="rule", perspective="accessibility",
          definition="18 Cross-Browser Compatibility: the start page loaded live in Firefox ESR and in Chromium "
                     "alike (1280×800, 500 ms after the load event, the same probe); mean of 100 × 0.7^e (e = distinct page errors only Firefox raised) and the "
                     "share of neighbouring content boxes (document order) arranged alike in both engines "
                     "(beside, below, on top, 4 px), a box Firefox does not show counting against it; 0 when "
                     "Firefox cannot load it"),
    Entry(name="wcb_mobile", kind="rule", perspective="accessibility",
          definition="19 Mobile Device Compatibility: the start page at 375×667 with touch; mean of viewport "
                     "meta (width=device-width), no horizontal overflow, share of tap targets at least 24×24 "
                     "px (WCAG 2.5.8; inline links exempt) and share of text at least 12 px; ×100"),
    Entry(name="wcb_redundancy", kind="rule", perspective="maintainability",
          definition="20 Code Redundancy Rate: share r of source lines inside duplicated blocks (jscpd: 50+ "
                     "tokens, 5+ lines) across the app's JavaScript, CSS and HTML; 100 × max(0, 1 − r / 25 %)"),
    Entry(name="wcb_comments", kind="rule", perspective="maintainability",
          definition="21 Comment Rate: c = lines holding a comment / non-blank lines of the app's sources; "
                     "100 inside 10-30 %, 100 × c / 10 % below, falling linearly to 0 at 60 % above"),
    Entry(name="wcb_functional_alignment", kind="llm", perspective="functional_alignment",
          definition="22 Functional Alignment: an LLM reads the app's source and judges each functional "
                     "criterion of the task's checklist met or not (static, as WebCoderBench does); % met"),
    Entry(name="wcb_visual_alignment", kind="llm", perspective="visual_alignment",
          definition="23 Visual Alignment: the same static judgement of the checklist's visual criteria; % "
                     "met"),
    Entry(name="wcb_content_alignment", kind="llm", perspective="content_alignment",
          definition="24 Content Alignment: the same static judgement of the checklist's content criteria; % "
                     "met"),
)
