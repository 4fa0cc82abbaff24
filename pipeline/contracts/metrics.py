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

import math
from typing import Iterable, Literal, Mapping

import pydantic

from iwcbench.pipeline.contracts import base

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
# ``wcb``: WebCoderBench's 24 metrics under Table 6's "ALL" column; ``wcb_<persona>``: the
# same metrics under one persona's column of Table 6 (``TABLE6`` below).
WeightSet = Literal["default", "iwc", "wcb", "wcb_developer", "wcb_quality_assurance", "wcb_data_scientist",
                    "wcb_product_manager", "wcb_operations", "wcb_legal", "wcb_designer"]
WEIGHT_SETS: tuple[str, ...] = WeightSet.__args__  # type: ignore[attr-defined]


# What a score is: measured (``scored``: ``value`` set), or not, and then why not in
# kind: ``unscored`` (it could not be measured, on our side: a tool failed, time ran
# out, the sandbox blocked what it needed; ``reason`` says why), ``not_applicable`` (the
# app has nothing the metric is about: no media for media quality, fewer than two icons
# for icon consistency; not a failure, and not counted as one), ``pending`` (left to the
# run's Message Batches, judged by the judging pass or ``--resume``) or ``over_budget``
# (left undone once the run's LLM budget was reached). Every state but ``scored`` has no
# value and is left out of every aggregate (it is never 0).
ScoreStatus = Literal["scored", "unscored", "not_applicable", "pending", "over_budget"]
WAITING: frozenset[str] = frozenset({"pending", "over_budget"})  # states a later judging pass takes up
PENDING_REASON = "judging by Message Batch pending"  # how a pending score's reason begins
OVER_BUDGET_REASON = "not judged: the run's LLM budget"  # how an over_budget score's reason begins
# Schema-1 results (no ``status``) said it only with these heads of the reason.
LEGACY_HEADS: dict[str, str] = {PENDING_REASON: "pending", OVER_BUDGET_REASON: "over_budget"}


class Score(base.Model):
    """One measured dimension. ``value`` None means not scored, ``status`` says in
    which way and ``reason`` why; such a value is left out of every aggregate (it is
    never 0)."""

    value: float | None
    reason: str
    status: ScoreStatus = "scored"  # absent (schema 1): read from value and reason
    rationale: str | None = None
    higher_is_better: bool = True
    unit: str = ""
    evidence: tuple[str, ...] = ()  # citations: "step 4", "S3", "shots/0004.png"
    raw: dict | None = None  # judge prompt digest, raw replies, tokens

    @pydantic.model_validator(mode="before")
    @classmethod
    def _status_of_old_scores(cls, data: object) -> object:
        if isinstance(data, dict) and "status" not in data:
            if data.get("value") is not None:
                return {**data, "status": "scored"}
            reason = str(data.get("reason", ""))
            state = next((s for head, s in LEGACY_HEADS.items() if reason.startswith(head)), "unscored")
            return {**data, "status": state}
        return data

    @pydantic.model_validator(mode="after")
    def _value_matches_status(self) -> "Score":
        if (self.value is not None) != (self.status == "scored"):
            raise ValueError(f"a {self.status} score {'has no' if self.value is None else 'cannot have a'} value")
        return self

    @property
    def waiting(self) -> bool:
        """Left for later (batch mode or the budget): a judging pass takes it up."""
        return self.status in WAITING


Aggregation = Literal["mean", "pooled_cases", "pooled_instructions", "sample_z"]
# How a metric's benchmark pools it per model: the leaderboard's ``metrics`` and ``z``
# hold every metric by its own aggregation (stages/aggregating), one row per model.
AGGREGATIONS: dict[str, str] = {
    "mean": "model level: the mean of the model's app values; its z is over the model means",
    "pooled_cases": "model level: WebGen-Bench's figure pooled over every UI test case of the model (start "
                    "failures as NO), never a mean of per-app values; z over the models; not weighable",
    "pooled_instructions": "model level: WebGen-Bench's Accuracy over instructions, the card's primary (an "
                           "instruction is YES when all its cases are, PARTIAL when one is YES or PARTIAL; start "
                           "failures as NO), pooled over the model's instructions; z over the models; not weighable",
    "sample_z": "WebCoderBench Table 4: the mean of the model's app values; ranked by WebCoderBench's weights, its "
                "z is the mean over the model's apps of each app's z against all apps (per-sample z), else over "
                "the model means; weighted within its perspective in results.json webcoder; Table 5 per "
                "requirement label",
}
POOLED: tuple[str, ...] = ("pooled_cases", "pooled_instructions")  # computed over UI test cases, not weighable


class Metric(base.Model):
    name: str
    unit: str
    higher_is_better: bool
    floor: float | None  # value for an app that is the model's fault; None: left unscored
    weights: dict[str, float] = {}  # weight set → weight (absent: 0)
    perspective: Perspective | None = None
    kind: Kind
    producer: Producer
    aggregation: Aggregation = "mean"  # how its benchmark pools it per model (AGGREGATIONS)
    definition: str


# Offline (``default``) weights, for a run with no judge (issue 19 item 8; docs/usage.md
# says why each is what it is): what measures the app, not how much of it we saw.
# WebCoderBench's 19 rule metrics 0.55 together, in Table 6's "ALL" proportions
# (``OFFLINE_WCB``, given in ``_shared``); runtime errors 0.10; what the app does when
# used: states 0.10, transitions 0.05, clicks with no effect 0.10, dead ends 0.05;
# axe-core accessibility 0.05 (WCB's own accessibility metrics carry the rest). Coverage
# and blocked requests weigh 0: coverage says how much of the app the evidence covers and
# is reported beside the score (an app whose own code never ran takes the floor of what
# the explorer measures: aggregating.with_floors); a blocked request is our sandbox's
# doing. Where a metric is not scored (no quality suite, say) the weights of the others
# are renormalised. IWC (§4.4): 1/3 aesthetics, 1/3 usability, 1/9 per alignment
# sub-dimension.
OFFLINE_WCB = 0.55
# A metric read "over the states" reads the same screens for every app, whatever the
# explorer found: the start state and the first SCREENS - 1 distinct states after it.
SCREENS = 8
# A deliberated dimension's value (aesthetics, usability) is its final-judge scores (1-5; trimmed
# mean) times this, on 0-100; aggregation reads the same factor to put the judge's repeats in that unit.
JUDGE_SCALE = 20
TABLE: tuple[Metric, ...] = (
    Metric(name="coverage_statements", unit="%", higher_is_better=True, floor=0.0,
           kind="rule", producer="scoring", perspective="code_quality",
           weights={}, aggregation="mean",
           definition="share of the app's own JavaScript statements executed during exploration (Istanbul; "
                      "recognised library code left out)"),
    Metric(name="coverage_functions", unit="%", higher_is_better=True, floor=0.0,
           kind="rule", producer="scoring", perspective="code_quality",
           weights={}, aggregation="mean",
           definition="share of the app's own JavaScript functions executed during exploration (Istanbul; "
                      "recognised library code left out)"),
    Metric(name="coverage_branches", unit="%", higher_is_better=True, floor=0.0,
           kind="rule", producer="scoring", perspective="code_quality",
           weights={}, aggregation="mean",
           definition="share of the app's own branch arms taken during exploration (Istanbul; recognised "
                      "library code left out)"),
    Metric(name="runtime_errors", unit="errors", higher_is_better=False, floor=None,
           kind="rule", producer="scoring", perspective="code_quality",
           weights={"default": 0.10}, aggregation="mean",
           definition="uncaught page errors plus console errors over the whole exploration"),
    Metric(name="blocked_requests", unit="requests", higher_is_better=False, floor=None,
           kind="rule", producer="scoring", perspective="content_quality",
           weights={}, aggregation="mean",
           definition="requests the sandbox refused: the app tried to reach outside its server and the CDN "
                      "mirror"),
    Metric(name="states", unit="states", higher_is_better=True, floor=0.0,
           kind="rule", producer="scoring",
           weights={"default": 0.10}, aggregation="mean",
           definition="distinct states reached (identical normalised DOMs are one state; the crash state not "
                      "counted)"),
    Metric(name="transitions", unit="transitions", higher_is_better=True, floor=0.0,
           kind="rule", producer="scoring",
           weights={"default": 0.05}, aggregation="mean",
           definition="distinct (state, other state, action) edges of the state graph; self-loops not "
                      "counted"),
    Metric(name="dead_end_ratio", unit="%", higher_is_better=False, floor=100.0,
           kind="rule", producer="scoring",
           weights={"default": 0.05}, aggregation="mean",
           definition="share of the states acted in where no action led to another state"),
    Metric(name="no_effect_ratio", unit="%", higher_is_better=False, floor=100.0,
           kind="rule", producer="scoring",
           weights={"default": 0.10}, aggregation="mean",
           definition="share of performed clicks, selects, checks, keys, drags and backs that changed "
                      "nothing a user can see or the app keeps (the page, its address, "
                      "stored data, a request, a dialog or a window; canvas pixels for actions aimed at a "
                      "canvas or the page, and for other controls only on a page whose canvases never draw "
                      "by themselves); code that ran is no effect; an action aimed at a canvas or the page "
                      "whose effect a canvas that draws by itself or cannot be read hides is left out"),
    Metric(name="accessibility", unit="0-100", higher_is_better=True, floor=0.0,
           kind="rule", producer="scoring", perspective="accessibility",
           weights={"default": 0.05}, aggregation="mean",
           definition="100 minus the impact-weighted axe-core rules violated per page (critical 10, serious "
                      "6, moderate 3, minor 1), averaged per state then over the same screens for every app: "
                      f"the start state and the first {SCREENS - 1} distinct states after it"),
    Metric(name="aesthetics", unit="0-100", higher_is_better=True, floor=0.0,
           kind="llm", producer="judging", perspective="visual_quality",
           weights={"iwc": 1 / 3}, aggregation="mean",
           definition="visual aesthetics of up to five representative screenshots: advocate, critic, five "
                      "judge runs, trimmed mean × 20"),
    Metric(name="usability", unit="0-100", higher_is_better=True, floor=0.0,
           kind="llm", producer="judging",
           weights={"iwc": 1 / 3}, aggregation="mean",
           definition="usability from the trace and state graph, same deliberation as aesthetics"),
    Metric(name="alignment_functional", unit="%", higher_is_better=True, floor=0.0,
           kind="llm", producer="judging", perspective="functional_alignment",
           weights={"iwc": 1 / 9}, aggregation="mean",
           definition="share of the task's functional criteria the alignment agent found satisfied in the "
                      "evidence"),
    Metric(name="alignment_content", unit="%", higher_is_better=True, floor=0.0,
           kind="llm", producer="judging", perspective="content_alignment",
           weights={"iwc": 1 / 9}, aggregation="mean",
           definition="share of the task's content criteria the alignment agent found satisfied in the "
                      "evidence"),
    Metric(name="alignment_visual", unit="%", higher_is_better=True, floor=0.0,
           kind="llm", producer="judging", perspective="visual_alignment",
           weights={"iwc": 1 / 9}, aggregation="mean",
           definition="share of the task's visual criteria the alignment agent found satisfied in the "
                      "evidence"),
    # issue 12 — WebGen-Bench's evaluator (stages/uitesting). No weights: reported beside
    # the IWC overall, not part of it; the model-level Accuracy is pooled over test
    # cases (stages/aggregating/webgen.py), not a mean of these per-app values.
    Metric(name="uitest_instruction_accuracy", unit="%", higher_is_better=True, floor=0.0,
           kind="llm", producer="uitesting",
           aggregation="pooled_instructions",
           definition="WebGen-Bench's instruction verdict of the app, the card's primary Accuracy: 100 when every "
                      "UI test case is YES, 50 when one is YES or PARTIAL, 0 otherwise; unscored when a case is"),
    Metric(name="uitest_accuracy", unit="%", higher_is_better=True, floor=0.0,
           kind="llm", producer="uitesting",
           aggregation="pooled_cases",
           definition="WebGen-Bench Accuracy of the app's UI test cases run by the GUI agent: (YES + 0.5 · "
                      "PARTIAL) / cases × 100; an app that never started fails every case"),
    Metric(name="uitest_passed", unit="%", higher_is_better=True, floor=0.0,
           kind="llm", producer="uitesting",
           aggregation="pooled_cases",
           definition="share of the app's UI test cases the GUI agent judged YES"),
    Metric(name="appearance", unit="1-5", higher_is_better=True, floor=1.0,
           kind="llm", producer="uitesting",
           aggregation="mean",
           definition="WebGen-Bench appearance: a vision judge rates the first screen and up to two more "
                      "representative screenshots on a written 1–5 rubric"),
)

# ---- issue 11: WebCoderBench's 24 metrics (seed 002, Table 3) ----------------------------
# Rule metrics (producer "quality", stages/quality) and the five LLM metrics (producer
# "judging", stages/judging/webcoder.py); docs/metrics-wcb.md has the detail. Every value
# is 0-100, higher is better.
#
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


def _wcb(*, name: str, kind: Kind, perspective: str, definition: str) -> Metric:
    """One of WebCoderBench's 24: 0-100, higher is better, floor 0 (weights: ``_shared``)."""
    return Metric(name=name, unit="0-100", higher_is_better=True, floor=0.0, kind=kind,
                  producer="judging" if kind == "llm" else "quality", perspective=perspective,
                  aggregation="sample_z", definition=definition)


WEBCODER: tuple[Metric, ...] = (
    _wcb(name="wcb_functionality", kind="llm", perspective="code_quality",
         definition="1 General Functionality Correctness: an LLM reads the app's source and the requirement "
                    "(no checklist) and rates whether the code would work as asked, 0-10 against a written "
                    "rubric; ×10"),
    _wcb(name="wcb_best_practices", kind="rule", perspective="code_quality",
         definition="2 Best Practices: Lighthouse 12 best-practices category score ×100 on the start page "
                    "(console errors, deprecated APIs, doctype, charset, image aspect ratios, ...); console errors "
                    "of loads our sandbox refused are left out, the category scored again as Lighthouse does"),
    _wcb(name="wcb_error_handling", kind="rule", perspective="code_quality",
         definition="3 Error Handling: on the Babel parse tree of the app's JavaScript and TypeScript, the mean of the "
                    "shares of risky calls (JSON.parse, fetch, storage, URL, ...) inside try or with a "
                    "rejection handler, of promise chains and awaits that handle rejection, and of "
                    "input-reading handlers that check what they read; ×100 (unscored when the code has none "
                    "of the three)"),
    _wcb(name="wcb_console_errors", kind="rule", perspective="code_quality",
         definition="4 Runtime Console Errors: 100 × 0.8^u, u = 2 per distinct uncaught page error + 1 per "
                    "distinct console error over the load and every explored step (an error raised when a control is "
                    "used is a runtime error); numbers and URLs folded, so a repeated error counts once"),
    _wcb(name="wcb_linting", kind="rule", perspective="code_quality",
         definition="5 Static Syntax Checking: HTMLHint (its default rules), Stylelint (config-recommended) "
                    "and ESLint (js recommended; no-undef off, top-level names exempt from no-unused-vars) "
                    "on the app's sources (TypeScript with its types blanked; component templates and SCSS/Less are not "
                    "linted and not counted); d = findings per 1000 non-blank lines (errors 1, warnings 0.5, a "
                    "file that does not parse 10); 100 × 20 / (20 + d)"),
    _wcb(name="wcb_visual_experience", kind="llm", perspective="visual_quality",
         definition="6 General Visual Experience: an LLM looks at the start-page screenshot and rates "
                    "layout, readability and polish 0-10 against a written rubric; ×10"),
    _wcb(name="wcb_component_consistency", kind="rule", perspective="visual_quality",
         definition="7 Component Style Consistency: computed styles of same-role elements (buttons, text "
                    "inputs, headings of one level, cards) over the rendered states (the page as loaded; "
                    "quality.states explored: the first explored states); per role with 2+ "
                    "elements the mean share of the most common value of each style property (font, size, "
                    "weight, colours, radius, border, padding, height, shadow); mean over roles ×100"),
    _wcb(name="wcb_icon_consistency", kind="rule", perspective="visual_quality",
         definition="8 Icon Style Consistency: icons found in the rendered states (SVGs up to 64 px, "
                    "icon-font glyphs, images up to 32 px, emoji used as icons); 100 × (0.6 × share of the "
                    "most used kind/icon set + 0.4 × share of the most common size band); unscored with "
                    "fewer than 2 icons"),
    _wcb(name="wcb_layout_consistency", kind="rule", perspective="visual_quality",
         definition="9 Layout Consistency: over the rendered states, the mean of: share of content boxes "
                    "whose left edge, centre or right edge lines up with another's (±2 px), regularity of "
                    "the gaps between neighbours of the same kind (1 − coefficient of variation of, say, "
                    "every label → input gap), and share of landmarks (header, nav, main, footer, h1) that "
                    "stay in place across states; ×100"),
    _wcb(name="wcb_layout_sparsity", kind="rule", perspective="visual_quality",
         definition="10 Layout Sparsity: share o of 16×16 px screenshot cells holding detail (luminance "
                    "spread > 8), per state; 100 for o in 8-50 %, falling linearly to 0 at o = 0 (a blank "
                    "page) and at o = 100 %; mean over states"),
    _wcb(name="wcb_visual_harmony", kind="rule", perspective="visual_quality",
         definition="11 Visual Harmony Degree: mean of palette size (colours covering 95 % of the "
                    "screenshot: ≤ 6 → 100, ≥ 20 → 0), hue harmony (share of saturated pixels inside the "
                    "best-fitting harmonic hue template) and text contrast (share of text elements meeting "
                    "WCAG AA); ×100"),
    _wcb(name="wcb_copywriting", kind="rule", perspective="content_quality",
         definition="12 Copywriting Quality: mean of spelling (Hunspell en-US/en-GB dictionaries via nspell: "
                    "100 × (1 − misspelled share / 5 %)), no lorem ipsum (0 or 100), casing consistency of "
                    "headings and of buttons (share of the most common style) and untruncated text (100 × (1 "
                    "− 10 × share clipped)), over the visible text of the rendered states"),
    _wcb(name="wcb_media_quality", kind="rule", perspective="content_quality",
         definition="13 Media Quality: share of images, media and canvases in the rendered states without a defect: "
                    "broken (did not load), upscaled more than 2× (too small a file for its box), stretched "
                    "(aspect ratio off by more than 5 % without object-fit), unlabelled (img without alt) or, for "
                    "a canvas, blank (its pixels in the screenshot one flat shade); "
                    "×100 (unscored without media); an image that did not load from a host our sandbox refuses "
                    "is left out (blocked_by_sandbox), not broken"),
    _wcb(name="wcb_placeholders", kind="rule", perspective="content_quality",
         definition="14 Placeholder Quality: 100 × 0.8^n, n = distinct placeholders left in the rendered "
                    "states: TODO/FIXME/TBD markers and template text ('your text here', '{{name}}', "
                    "'undefined', 'NaN', '[object Object]'), links to example.com/empty links, images from "
                    "placeholder services"),
    _wcb(name="wcb_resource_validity", kind="rule", perspective="content_quality",
         definition="15 Resource Validity: share of the distinct resources and same-origin links the app "
                    "requested (the load, the phone load, link targets; quality.states explored: every step) that were answered, broken ones (4xx/5xx, "
                    "failed) counting against it; ×100. A request our sandbox refused (an outside host, a CDN "
                    "file the mirror lacks) is left out as blocked_by_sandbox, not counted as invalid"),
    _wcb(name="wcb_performance", kind="rule", perspective="performance",
         definition="16 General Performance: Lighthouse 12 performance category score ×100 on the start page "
                    "(FCP 10 %, Speed Index 10 %, LCP 25 %, TBT 30 %, CLS 25 %; default mobile simulated "
                    "throttling)"),
    _wcb(name="wcb_accessibility", kind="rule", perspective="accessibility",
         definition="17 Accessibility Core Metrics: Lighthouse 12 accessibility category score ×100 on the "
                    "start page (beside IWC's axe-core `accessibility` over every state)"),
    _wcb(name="wcb_cross_browser", kind="rule", perspective="accessibility",
         definition="18 Cross-Browser Compatibility: the start page loaded live in Firefox ESR and in Chromium "
                    "alike (1280×800, 500 ms after the load event, the same probe); mean of 100 × 0.7^e (e = distinct page errors only Firefox raised) and the "
                    "share of neighbouring content boxes (document order) arranged alike in both engines "
                    "(beside, below, on top, 4 px), a box Firefox does not show counting against it; 0 when "
                    "Firefox cannot load it"),
    _wcb(name="wcb_mobile", kind="rule", perspective="accessibility",
         definition="19 Mobile Device Compatibility: the start page at 375×667 with touch; mean of viewport "
                    "meta (width=device-width), no horizontal overflow, share of tap targets at least 24×24 "
                    "px (WCAG 2.5.8; inline links exempt) and share of text at least 12 px; ×100"),
    _wcb(name="wcb_redundancy", kind="rule", perspective="maintainability",
         definition="20 Code Redundancy Rate: share r of source lines inside duplicated blocks (jscpd: 50+ "
                    "tokens, 5+ lines) across the app's JavaScript, CSS and HTML; 100 × max(0, 1 − r / 25 %)"),
    _wcb(name="wcb_comments", kind="rule", perspective="maintainability",
         definition="21 Comment Rate: c = lines holding a comment / non-blank lines of the app's sources; "
                    "100 inside 10-30 %, 100 × c / 10 % below, falling linearly to 0 at 60 % above"),
    _wcb(name="wcb_functional_alignment", kind="llm", perspective="functional_alignment",
         definition="22 Functional Alignment: an LLM reads the app's source and judges each functional "
                    "criterion of the task's checklist met or not (static, as WebCoderBench does); % met"),
    _wcb(name="wcb_visual_alignment", kind="llm", perspective="visual_alignment",
         definition="23 Visual Alignment: the same static judgement of the checklist's visual criteria; % "
                    "met"),
    _wcb(name="wcb_content_alignment", kind="llm", perspective="content_alignment",
         definition="24 Content Alignment: the same static judgement of the checklist's content criteria; % "
                    "met"),
)


def _shared(entries: tuple[Metric, ...]) -> tuple[Metric, ...]:
    """Each entry with an equal share of its perspective's weight in every WebCoderBench set,
    and each rule metric its part of ``OFFLINE_WCB`` in the offline set, in the proportions
    of the ``wcb`` set."""
    members = {p: sum(1 for m in entries if m.perspective == p) for p in TABLE6}
    shared = [{ws: perspective_weight(ws, m.perspective) / members[m.perspective] for ws in WEBCODER_SETS}
              for m in entries]
    rules = math.fsum(w["wcb"] for m, w in zip(entries, shared) if m.kind == "rule")
    for m, w in zip(entries, shared):
        if m.kind == "rule":
            w["default"] = w["wcb"] * OFFLINE_WCB / rules
    return tuple(m.model_copy(update={"weights": w}) for m, w in zip(entries, shared))


WEBCODER = _shared(WEBCODER)
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
    """WebCoderBench's perspectives → their metrics (the entries it aggregates, ``sample_z``),
    in Table 3 order: what its questionnaire ranks and its Table 4 sums."""
    groups: dict[str, tuple[str, ...]] = {p: () for p in PERSPECTIVES}
    for m in TABLE:
        if m.aggregation == "sample_z" and m.perspective is not None:
            groups[m.perspective] += (m.name,)
    return {p: names for p, names in groups.items() if names}


def higher_is_better(name: str) -> bool:
    """Direction of a metric; names outside the table count as higher-is-better."""
    metric = find(name)
    return metric.higher_is_better if metric is not None else True


def score(name: str, value: float | None, reason: str, evidence: Iterable[str] = (),
          raw: dict | None = None, rationale: str | None = None,
          status: ScoreStatus | None = None) -> Score:
    """A Score of a table metric, its unit and direction taken from the table;
    ``status`` by default ``scored`` with a value, ``unscored`` without."""
    metric = BY_NAME[base_name(name)]
    return Score(value=value, reason=reason, rationale=rationale, higher_is_better=metric.higher_is_better,
                 unit=metric.unit, evidence=tuple(evidence), raw=raw,
                 status=status or ("scored" if value is not None else "unscored"))


def not_applicable(name: str, reason: str, evidence: Iterable[str] = (), raw: dict | None = None) -> Score:
    """A metric the app gives nothing to measure (``reason`` says what is absent)."""
    return score(name, None, reason, evidence, raw, status="not_applicable")


def unscored(names_: Iterable[str], reason: str, raw: dict | None = None,
             status: ScoreStatus = "unscored") -> dict[str, Score]:
    """Each named metric not scored, with the same reason (never 0) and ``status``."""
    return {n: score(n, None, reason, raw=raw, status=status) for n in names_}


def names_aggregated(*aggregations: Aggregation) -> tuple[str, ...]:
    """The metrics whose benchmark pools them per model one of these ways, in table order."""
    return tuple(m.name for m in TABLE if m.aggregation in aggregations)


def aggregation_of(name: str) -> Aggregation:
    """How a score name is pooled per model; names outside the table as a mean."""
    metric = find(name)
    return metric.aggregation if metric is not None else "mean"


def ranks_as_table4(weights: Mapping[str, float]) -> bool:
    """Whether weights are WebCoderBench's kind (every metric they weigh is one of its 24,
    aggregation ``sample_z``): then the leaderboard ranks by its Table 4 (per-sample z),
    so a run holds one WebCoderBench ranking, not two."""
    weighed = [n for n, w in weights.items() if w > 0]
    return bool(weighed) and all((m := find(n)) is not None and m.aggregation == "sample_z" for n in weighed)


def floors(names_: Iterable[str], reason: str) -> dict[str, Score]:
    """Scores of an app that is the model's fault: each metric at its floor; a metric
    without a floor (an unbounded count) is unscored, saying so."""
    out = {}
    for n in names_:
        floor = BY_NAME[n].floor
        out[n] = score(n, floor, reason) if floor is not None else \
            score(n, None, f"no floor for a count; {reason}")
    return out
