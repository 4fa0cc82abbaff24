"""The metric table: one entry per metric, the only place its facts live.

Every score the project computes — rule metrics (stages/scoring), judged dimensions
(stages/judging), and what the issues after this one add — has exactly one ``Metric``
here: its unit, which way is better, the floor an app gets when it is the model's
fault, its weight in each weight set, its WebCoderBench perspective, its kind and a
one-line definition. Scoring and judging build their ``Score`` records through
``score``/``unscored``; aggregation reads directions and weights from here; the report
reads units; ``docs/metrics.md`` is generated from this table (hack/gen-docs) and
``hack/verify`` fails when it drifts.

Adding a rule metric is its function in a stage plus one entry in ``TABLE``. Pure data:
no I/O, nothing computed from evidence.
"""

from __future__ import annotations

from typing import Iterable, Literal

from iwcbench.pipeline.contracts import base, results

Kind = Literal["rule", "llm"]
# WebCoderBench's nine perspectives (seed 002, Table 3).
Perspective = Literal[
    "code_quality", "visual_quality", "content_quality", "performance", "accessibility",
    "maintainability", "functional_alignment", "visual_alignment", "content_alignment",
]
PERSPECTIVES: tuple[str, ...] = Perspective.__args__  # type: ignore[attr-defined]
# Where a metric comes from: the stage that computes it.
Producer = Literal["scoring", "judging", "uitesting", "quality"]
# Named weight sets. ``default``: the offline rule metrics; ``iwc``: IWC-Bench §4.4;
# ``wcb``: WebCoderBench's 24 metrics, Borda weights of the shipped questionnaire.
WeightSet = Literal["default", "iwc", "wcb"]
WEIGHT_SETS: tuple[str, ...] = WeightSet.__args__  # type: ignore[attr-defined]


class Metric(base.Model):
    name: str
    unit: str
    higher_is_better: bool
    floor: float | None  # value for an app that is the model's fault; None: left unscored
    weights: dict[str, float] = {}  # weight set → weight (absent: 0)
    perspective: Perspective | None = None
    kind: Kind
    producer: Producer
    definition: str


def _m(name: str, unit: str, higher: bool, floor: float | None, kind: Kind, producer: Producer,
       definition: str, perspective: str | None = None, **weights: float) -> Metric:
    return Metric(name=name, unit=unit, higher_is_better=higher, floor=floor, weights=weights,
                  perspective=perspective, kind=kind, producer=producer, definition=definition)


# Offline (``default``) weights: coverage 0.25 (how much of the code a tester reached),
# runtime errors 0.15, richness of the state space 0.20, responsiveness 0.20,
# accessibility 0.15, sandbox escapes 0.05. IWC (§4.4): 1/3 aesthetics, 1/3 usability,
# 1/9 per alignment sub-dimension.
TABLE: tuple[Metric, ...] = (
    _m("coverage_statements", "%", True, 0.0, "rule", "scoring",
       "share of the app's own JavaScript statements executed during exploration (Istanbul; "
       "recognised library code left out)",
       "code_quality", default=0.15),
    _m("coverage_functions", "%", True, 0.0, "rule", "scoring",
       "share of the app's own JavaScript functions executed during exploration (Istanbul; "
       "recognised library code left out)",
       "code_quality", default=0.05),
    _m("coverage_branches", "%", True, 0.0, "rule", "scoring",
       "share of the app's own branch arms taken during exploration (Istanbul; "
       "recognised library code left out)",
       "code_quality", default=0.05),
    _m("runtime_errors", "errors", False, None, "rule", "scoring",
       "uncaught page errors plus console errors over the whole exploration",
       "code_quality", default=0.15),
    _m("blocked_requests", "requests", False, None, "rule", "scoring",
       "requests the sandbox refused: the app tried to reach outside its server and the CDN mirror",
       "content_quality", default=0.05),
    _m("states", "states", True, 0.0, "rule", "scoring",
       "distinct states reached (identical normalised DOMs are one state; the crash state not counted)",
       default=0.125),
    _m("transitions", "transitions", True, 0.0, "rule", "scoring",
       "distinct (state, other state, action) edges of the state graph; self-loops not counted",
       default=0.075),
    _m("dead_end_ratio", "%", False, 100.0, "rule", "scoring",
       "share of the states acted in where no action led to another state",
       default=0.10),
    _m("no_effect_ratio", "%", False, 100.0, "rule", "scoring",
       "share of performed clicks, selects, checks, keys, drags and backs that changed neither "
       "the state nor coverage", default=0.10),
    _m("accessibility", "0-100", True, 0.0, "rule", "scoring",
       "100 minus the impact-weighted axe-core rules violated per page (critical 10, serious 6, "
       "moderate 3, minor 1), averaged per state then over states", "accessibility", default=0.15),
    _m("aesthetics", "0-100", True, 0.0, "llm", "judging",
       "visual aesthetics of up to five representative screenshots: advocate, critic, five "
       "judge runs, trimmed mean × 20", "visual_quality", iwc=1 / 3),
    _m("usability", "0-100", True, 0.0, "llm", "judging",
       "usability from the trace and state graph, same deliberation as aesthetics",
       iwc=1 / 3),
    _m("alignment_functional", "%", True, 0.0, "llm", "judging",
       "share of the task's functional criteria the alignment agent found satisfied in the evidence",
       "functional_alignment", iwc=1 / 9),
    _m("alignment_content", "%", True, 0.0, "llm", "judging",
       "share of the task's content criteria the alignment agent found satisfied in the evidence",
       "content_alignment", iwc=1 / 9),
    _m("alignment_visual", "%", True, 0.0, "llm", "judging",
       "share of the task's visual criteria the alignment agent found satisfied in the evidence",
       "visual_alignment", iwc=1 / 9),
    # issue 12 — WebGen-Bench's evaluator (stages/uitesting). No weights: reported beside
    # the IWC overall, not part of it; the model-level Accuracy is pooled over test
    # cases (stages/aggregating/webgen.py), not a mean of these per-app values.
    _m("uitest_accuracy", "%", True, 0.0, "llm", "uitesting",
       "WebGen-Bench Accuracy of the app's UI test cases run by the GUI agent: (YES + 0.5 · PARTIAL) "
       "/ cases × 100; an app that never started fails every case"),
    _m("uitest_passed", "%", True, 0.0, "llm", "uitesting",
       "share of the app's UI test cases the GUI agent judged YES"),
    _m("appearance", "1-5", True, 1.0, "llm", "uitesting",
       "WebGen-Bench appearance: a vision judge rates the first screen and up to two more "
       "representative screenshots on a written 1–5 rubric"),
)

# ---- issue 11: WebCoderBench's 24 metrics (seed 002, Table 3) ----------------------------
# Rule metrics (producer "quality", stages/quality) and the five LLM metrics (producer
# "judging", stages/judging/webcoder.py); docs/metrics-wcb.md has the detail. Every value
# is 0-100, higher is better. ``wcb`` weights: Borda points of each perspective in
# stages/aggregating/questionnaires/wcb-default.csv (141 responses × 45 points = 6345),
# shared equally by the perspective's metrics (the file ranks no metric above another);
# tests/unit/aggregating/test_borda.py recomputes them from the file.
_WCB_POINTS = 6345
_WCB = {"code_quality": 935.5 / _WCB_POINTS / 5, "visual_quality": 328.5 / _WCB_POINTS / 6,
        "content_quality": 864.5 / _WCB_POINTS / 4, "performance": 782.5 / _WCB_POINTS,
        "accessibility": 438.5 / _WCB_POINTS / 3, "maintainability": 425.0 / _WCB_POINTS / 2,
        "functional_alignment": 1149.0 / _WCB_POINTS, "visual_alignment": 437.0 / _WCB_POINTS,
        "content_alignment": 984.5 / _WCB_POINTS}


def _w(name: str, kind: Kind, perspective: str, definition: str) -> Metric:
    producer: Producer = "judging" if kind == "llm" else "quality"
    return _m(name, "0-100", True, 0.0, kind, producer, definition, perspective, wcb=_WCB[perspective])


WEBCODER: tuple[Metric, ...] = (
    _w("wcb_functionality", "llm", "code_quality",
       "1 General Functionality Correctness: an LLM reads the app's source and the requirement (no "
       "checklist) and rates whether the code would work as asked, 0-10 against a written rubric; ×10"),
    _w("wcb_best_practices", "rule", "code_quality",
       "2 Best Practices: Lighthouse 12 best-practices category score ×100 on the start page (console "
       "errors, deprecated APIs, doctype, charset, image aspect ratios, ...)"),
    _w("wcb_error_handling", "rule", "code_quality",
       "3 Error Handling: on the Babel parse tree of the app's JavaScript, the mean of the shares of risky "
       "calls (JSON.parse, fetch, storage, URL, ...) inside try or with a rejection handler, of promise "
       "chains and awaits that handle rejection, and of input-reading handlers that check what they "
       "read; ×100 (unscored when the code has none of the three)"),
    _w("wcb_console_errors", "rule", "code_quality",
       "4 Runtime Console Errors: 100 × 0.8^u, u = 2 per distinct uncaught page error + 1 per distinct "
       "console error over the load and the whole exploration (numbers and URLs folded, so a repeated "
       "error counts once)"),
    _w("wcb_linting", "rule", "code_quality",
       "5 Static Syntax Checking: HTMLHint (its default rules), Stylelint (config-recommended) and ESLint "
       "(js recommended; no-undef off, top-level names exempt from no-unused-vars) on the app's sources; "
       "d = findings per 1000 non-blank lines (errors 1, warnings 0.5, a file that does not parse 10); "
       "100 × 20 / (20 + d)"),
    _w("wcb_visual_experience", "llm", "visual_quality",
       "6 General Visual Experience: an LLM looks at the start-page screenshot and rates layout, "
       "readability and polish 0-10 against a written rubric; ×10"),
    _w("wcb_component_consistency", "rule", "visual_quality",
       "7 Component Style Consistency: computed styles of same-role elements (buttons, text inputs, "
       "headings of one level, cards) over the rendered states; per role with 2+ elements the mean share "
       "of the most common value of each style property (font, size, weight, colours, radius, border, "
       "padding, height, shadow); mean over roles ×100"),
    _w("wcb_icon_consistency", "rule", "visual_quality",
       "8 Icon Style Consistency: icons found in the rendered states (SVGs up to 64 px, icon-font glyphs, "
       "images up to 32 px, emoji used as icons); 100 × (0.6 × share of the most used kind/icon set + "
       "0.4 × share of the most common size band); unscored with fewer than 2 icons"),
    _w("wcb_layout_consistency", "rule", "visual_quality",
       "9 Layout Consistency: over the rendered states, the mean of: share of content boxes whose left "
       "edge, centre or right edge lines up with another's (±2 px), regularity of the gaps between "
       "neighbours of the same kind (1 − coefficient of variation of, say, every label → input gap), and "
       "share of landmarks (header, nav, main, footer, h1) that stay in place across states; ×100"),
    _w("wcb_layout_sparsity", "rule", "visual_quality",
       "10 Layout Sparsity: share o of 16×16 px screenshot cells holding detail (luminance spread > 8), "
       "per state; 100 for o in 8-50 %, falling linearly to 0 at o = 0 (a blank page) and at o = 100 %; "
       "mean over states"),
    _w("wcb_visual_harmony", "rule", "visual_quality",
       "11 Visual Harmony Degree: mean of palette size (colours covering 95 % of the screenshot: ≤ 6 → "
       "100, ≥ 20 → 0), hue harmony (share of saturated pixels inside the best-fitting harmonic hue "
       "template) and text contrast (share of text elements meeting WCAG AA); ×100"),
    _w("wcb_copywriting", "rule", "content_quality",
       "12 Copywriting Quality: mean of spelling (Hunspell en-US/en-GB dictionaries via nspell: "
       "100 × (1 − misspelled share / 5 %)), no lorem ipsum (0 or 100), casing consistency of headings "
       "and of buttons (share of the most common style) and untruncated text (100 × (1 − 10 × share "
       "clipped)), over the visible text of the rendered states"),
    _w("wcb_media_quality", "rule", "content_quality",
       "13 Media Quality: share of images and media in the rendered states without a defect: broken "
       "(did not load), upscaled more than 2× (too small a file for its box), stretched (aspect ratio "
       "off by more than 5 % without object-fit) or unlabelled (img without alt); ×100 (unscored "
       "without media)"),
    _w("wcb_placeholders", "rule", "content_quality",
       "14 Placeholder Quality: 100 × 0.8^n, n = distinct placeholders left in the rendered states: "
       "TODO/FIXME/TBD markers and template text ('your text here', '{{name}}', 'undefined', 'NaN', "
       "'[object Object]'), links to example.com/empty links, images from placeholder services"),
    _w("wcb_resource_validity", "rule", "content_quality",
       "15 Resource Validity: share of the distinct resources and same-origin links the app requested "
       "(exploration, probe loads, link targets) that were answered; broken (4xx/5xx, failed) and "
       "blocked (outside the sandbox, not a mirrored CDN file) count against it; ×100"),
    _w("wcb_performance", "rule", "performance",
       "16 General Performance: Lighthouse 12 performance category score ×100 on the start page "
       "(FCP 10 %, Speed Index 10 %, LCP 25 %, TBT 30 %, CLS 25 %; default mobile simulated throttling)"),
    _w("wcb_accessibility", "rule", "accessibility",
       "17 Accessibility Core Metrics: Lighthouse 12 accessibility category score ×100 on the start page "
       "(beside IWC's axe-core `accessibility` over every state)"),
    _w("wcb_cross_browser", "rule", "accessibility",
       "18 Cross-Browser Compatibility: the start page loaded in Firefox ESR and in Chromium at "
       "1280×800; mean of 100 × 0.7^e (e = distinct page errors only Firefox raised) and the share of "
       "neighbouring content boxes (document order) arranged alike in both engines (beside, below, on "
       "top, 4 px), a box Firefox does not show counting against it; 0 when Firefox cannot load it"),
    _w("wcb_mobile", "rule", "accessibility",
       "19 Mobile Device Compatibility: the start page at 375×667 with touch; mean of viewport meta "
       "(width=device-width), no horizontal overflow, share of tap targets at least 24×24 px (WCAG "
       "2.5.8; inline links exempt) and share of text at least 12 px; ×100"),
    _w("wcb_redundancy", "rule", "maintainability",
       "20 Code Redundancy Rate: share r of source lines inside duplicated blocks (jscpd: 50+ tokens, "
       "5+ lines) across the app's JavaScript, CSS and HTML; 100 × max(0, 1 − r / 25 %)"),
    _w("wcb_comments", "rule", "maintainability",
       "21 Comment Rate: c = lines holding a comment / non-blank lines of the app's sources; 100 "
       "inside 10-30 %, 100 × c / 10 % below, falling linearly to 0 at 60 % above"),
    _w("wcb_functional_alignment", "llm", "functional_alignment",
       "22 Functional Alignment: an LLM reads the app's source and judges each functional criterion of "
       "the task's checklist met or not (static, as WebCoderBench does); % met"),
    _w("wcb_visual_alignment", "llm", "visual_alignment",
       "23 Visual Alignment: the same static judgement of the checklist's visual criteria; % met"),
    _w("wcb_content_alignment", "llm", "content_alignment",
       "24 Content Alignment: the same static judgement of the checklist's content criteria; % met"),
)
TABLE = TABLE + WEBCODER

BY_NAME: dict[str, Metric] = {m.name: m for m in TABLE}


def base_name(name: str) -> str:
    """``aesthetics@v2`` (a re-score kept beside the original) → ``aesthetics``."""
    return name.split("@", 1)[0]


def find(name: str) -> Metric | None:
    """The table entry of a score name (suffixed re-scores included), or None."""
    return BY_NAME.get(base_name(name))


def names(producer: Producer | None = None) -> tuple[str, ...]:
    """Metric names in table order, optionally only one stage's."""
    return tuple(m.name for m in TABLE if producer is None or m.producer == producer)


def weights(weight_set: str) -> dict[str, float]:
    """The named weight set: metric → weight, only the metrics it weighs."""
    if weight_set not in WEIGHT_SETS:
        raise KeyError(f"unknown weight set {weight_set!r} (known: {', '.join(WEIGHT_SETS)})")
    return {m.name: m.weights[weight_set] for m in TABLE if m.weights.get(weight_set, 0) > 0}


def webcoder_groups() -> dict[str, tuple[str, ...]]:
    """WebCoderBench's perspectives → their metrics (the entries with a ``wcb`` weight),
    in Table 3 order: what its questionnaire ranks and its Table 4 sums."""
    groups: dict[str, tuple[str, ...]] = {p: () for p in PERSPECTIVES}
    for m in TABLE:
        if m.weights.get("wcb", 0) > 0 and m.perspective is not None:
            groups[m.perspective] += (m.name,)
    return {p: names for p, names in groups.items() if names}


def higher_is_better(name: str) -> bool:
    """Direction of a metric; names outside the table count as higher-is-better."""
    metric = find(name)
    return metric.higher_is_better if metric is not None else True


def score(name: str, value: float | None, reason: str, evidence: Iterable[str] = (),
          raw: dict | None = None, rationale: str | None = None) -> results.Score:
    """A Score of a table metric, its unit and direction taken from the table."""
    metric = BY_NAME[base_name(name)]
    return results.Score(value=value, reason=reason, rationale=rationale,
                         higher_is_better=metric.higher_is_better, unit=metric.unit,
                         evidence=tuple(evidence), raw=raw)


def unscored(names_: Iterable[str], reason: str, raw: dict | None = None) -> dict[str, results.Score]:
    """Each named metric unscored with the same reason (never 0)."""
    return {n: score(n, None, reason, raw=raw) for n in names_}


def floors(names_: Iterable[str], reason: str) -> dict[str, results.Score]:
    """Scores of an app that is the model's fault: each metric at its floor; a metric
    without a floor (an unbounded count) is unscored, saying so."""
    out = {}
    for n in names_:
        floor = BY_NAME[n].floor
        out[n] = score(n, floor, reason) if floor is not None else \
            score(n, None, f"no floor for a count; {reason}")
    return out
