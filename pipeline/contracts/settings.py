"""The one settings tree of an evaluation. Every field says its unit and default.

``Evaluation`` is everything that changes results: exploration, instrumentation, input
limits, sandbox, scoring, judging and LLM options. The CLI builds it (``iwc run``), the
EvaluationRun spec embeds the same models (operator/api.py: camelCase on the wire through
the aliases here), a Kubernetes pod receives it as one JSON document (``--settings``),
and the config hash covers all of it. ``RunSettings`` adds where a local run reads and
writes (tasks, apps, output, workers, cache folders) and how it spends on the LLM API
(``Spending``: batches, a budget), which never changes what a score means.

Cross-field rules are checked here once; a violation names the field
(``FieldProblem``), so the CLI and the operator's condition say the same thing
(contracts/sections: how a section is written and its problems told). The model side's
sections, ``LLM`` and ``Spending``, are in contracts/llm_settings. Pure data: no I/O.
"""

from __future__ import annotations

import hashlib
import json
from typing import Literal

import pydantic

from iwcbench.pipeline.contracts import metrics as metric_table
from iwcbench.pipeline.contracts.llm_settings import LLM as LLM, Effort as Effort, ModelTraits as ModelTraits
from iwcbench.pipeline.contracts.llm_settings import Spending as Spending
from iwcbench.pipeline.contracts.sections import FieldProblem as FieldProblem, Section as Section
from iwcbench.pipeline.contracts.sections import describe_error as describe_error, field_path as field_path
from iwcbench.pipeline.contracts.sections import problem_message as problem_message

# ``wcb``: WebCoderBench's five LLM metrics (static judges of the code and a screenshot)
Dimension = Literal["aesthetics", "usability", "alignment", "wcb"]
# How the leaderboard ranks apps that cannot run here (Scoring.not_runnable)
NotRunnablePolicy = Literal["common_tasks", "floor"]
WeightSetName = metric_table.WeightSet  # the metric table's weight sets


# The exploration policies by name. A run's settings choose one of ``ChosenPolicy``;
# runs/uitests.py drives the other two, one UI test case at a time. A new policy is its
# module in stages/exploring/, its name here and its place in stages/exploring/__init__.py
# (``OFFLINE``, or brought by the caller when it needs a model, as "llm" and "assisted" are).
ChosenPolicy = Literal["heuristic", "llm", "random", "assisted"]
PolicyName = Literal[ChosenPolicy, "uitest", "replay"]


class Exploration(Section):
    policy: ChosenPolicy = pydantic.Field(
        "heuristic", description="heuristic (offline), llm (Claude as the tester; needs a model), "
        "random (the seeded random clicker the heuristic is measured against) or assisted (the heuristic, "
        "handing a few steps to the LLM tester when its coverage stalls; needs a model)")
    max_steps: int = pydantic.Field(100, ge=1, le=1000, description="actions per app (default 100)")
    seed: int = pydantic.Field(0, ge=0, description="seed of the explorer's choices (default 0)")
    step_timeout_s: float = pydantic.Field(10.0, gt=0, description="seconds one action may take (default 10)")
    app_timeout_s: float = pydantic.Field(
        300.0, gt=0, description=(
            "seconds for one app from its first page load to its last score (default 300): a hard deadline that "
            "exploring, the UI tests and the quality stage share; exploring leaves a quarter to the stages after "
            "it; building and instrumenting have limits of their own"))
    load_timeout_s: float = pydantic.Field(20.0, gt=0, description="seconds for the first page load (default 20)")
    plateau_steps: int = pydantic.Field(
        3, ge=1, description="steps without coverage gain that make a plateau (default 3)")
    virtual_time: bool = pydantic.Field(
        True, description="give the page Playwright's clock when its code schedules timers or animation "
                          "frames, so the explorer can let game time pass at once (default true)")
    stop_after_idle_steps: int = pydantic.Field(
        15, ge=1, description="heuristic, black box: stop after this many steps that found nothing new (default 15)")
    viewport_width: int = pydantic.Field(1280, ge=320, description="pixels (default 1280)")
    viewport_height: int = pydantic.Field(800, ge=240, description="pixels (default 800)")
    max_dom_bytes: int = pydantic.Field(
        2_000_000, ge=10_000, description="DOM snapshot cap, bytes (default 2,000,000)")
    model: str | None = pydantic.Field(
        None, min_length=1, description="LLM tester model for policy llm (default: judging.model); every model "
        "field is provider/model (anthropic/, openai/, google/, grok/, openrouter/, vllm/, sglang/, ollama/, "
        "llama-cpp/), a bare name is Anthropic's")
    guidance_model: str | None = pydantic.Field(
        None, min_length=1, description="model that reads the code not yet run at a coverage plateau (default: "
        "the tester's)")
    assist_steps: int = pydantic.Field(
        12, ge=1, le=1000, description="assisted: the LLM tester's steps per app at most, taken three at a time "
        "when the heuristic's coverage has not risen for 10 steps; each is one model call (two or three when "
        "its answer is unusable), and each turn of three begins with one guidance call (default 12)")
    guidance: bool = pydantic.Field(
        True, description="llm tester: at a coverage plateau, show it the code not yet run (default true; "
        "false for the guidance ablation)")


class Instrumentation(Section):
    timeout_s: float = pydantic.Field(120.0, gt=0, description="seconds for one app's Node process (default 120)")
    max_file_bytes: int = pydantic.Field(
        5_000_000, ge=1, description="larger scripts stay uninstrumented, bytes (default 5,000,000)")


class Build(Section):
    """Building Vite, Next.js, Create React App and Astro apps that ship no build
    (docs/frameworks.md). Where the npm cache lives does not change results: the config
    hash leaves ``npm_cache_dir`` and ``npm_cache_seed`` out, and a pod gets both from
    the operator (IWC_NPM_CACHE, IWC_NPM_CACHE_SEED)."""

    enabled: bool = pydantic.Field(
        True, description="build apps of the build frameworks; off: they run as black boxes (default true)")
    registry: str = pydantic.Field(
        "https://registry.npmjs.org", pattern=r"^https?://\S+$",
        description="npm registry (or mirror) that installs come from (default the npm registry)")
    npm_cache_dir: str | None = pydantic.Field(
        None, description="npm cache shared by every app's install (default ~/.cache/iwc-bench/npm)")
    npm_cache_seed: str | None = pydantic.Field(
        None, description="read-only npm cache copied into npm_cache_dir when that is empty (the runner image's)")
    require_lockfile: bool = pydantic.Field(
        False, description="refuse apps without package-lock.json (start_failed); off: npm install resolves "
                           "package.json's ranges from the registry, within the same limits, and the build's "
                           "reason says so (default false)")
    allow_scripts: tuple[str, ...] = pydantic.Field(
        ("esbuild", "@swc/core"),
        description="dependencies whose install scripts run (npm rebuild) after the scripts-off install")
    install_timeout_s: float = pydantic.Field(600.0, gt=0, description="seconds for npm ci (default 600)")
    build_timeout_s: float = pydantic.Field(
        600.0, gt=0, description="seconds for one build, instrumented or plain (default 600)")
    memory_mib: int = pydantic.Field(
        4096, ge=256, description="resident memory of an install or build with all its processes, MiB (default 4096)")
    disk_mib: int = pydantic.Field(
        3072, ge=64, description="the app's working copy with node_modules and the build output, MiB (default 3072)")
    cpu_s: int = pydantic.Field(1800, ge=10, description="CPU seconds of any one process of a step (default 1800)")
    isolate_network: bool = pydantic.Field(
        True, description="builds run with loopback only (a network namespace) where the machine allows it "
                          "(default true)")


class Input(Section):
    max_archive_bytes: int = pydantic.Field(
        200_000_000, ge=1, description="cap on an app's size, bytes: an archive's extracted bytes, a "
        "folder's (sparse files at their full size) (default 200,000,000)")
    max_archive_members: int = pydantic.Field(
        20_000, ge=1, description="files per app: archive members, or files in a folder (default 20,000)")


class Sandbox(Section):
    mirror_fetch: bool = pydantic.Field(
        True, description="fill the CDN mirror from the npm registry on a miss (default true)")
    npm_registry: str = pydantic.Field(
        "https://registry.npmjs.org", min_length=1, description="npm registry URL the mirror fills from")


class Scoring(Section):
    accessibility: bool = pydantic.Field(True, description="run axe-core on each new state (default true)")
    reference: str | None = pydantic.Field(
        None, min_length=1, description="results.json (path or URI) whose pool fixes μ and σ of every "
        "z-score; unset = the run's own pool")
    judge: str | None = pydantic.Field(
        None, min_length=1, description="old spelling of judging.model (kept for existing EvaluationRuns)")
    weights: WeightSetName | None = pydantic.Field(
        None, description="leaderboard weights: a weight set of the metric table (default, iwc, wcb, or wcb_<persona>: "
        "a column of WebCoderBench's Table 6); unset = iwc when a judged dimension was scored, else default; a "
        "WebCoderBench set ranks as its Table 4 does (per-sample z)")
    custom_weights: dict[str, float] = pydantic.Field(
        {}, description="leaderboard weights as {metric: weight} (what `--weights FILE` reads, e.g. a file "
        "`iwc weights borda` wrote); replaces `weights` (default none)")
    not_runnable: NotRunnablePolicy = pydantic.Field(
        "common_tasks", description="apps that cannot run here (outcome not_runnable: a git dependency, a network "
        "build). common_tasks (default): the leaderboard compares models on the tasks where every model's app ran "
        "and names the tasks left out; floor: such an app takes the floor of every metric it lacks, as an app that "
        "never started")

    @pydantic.field_validator("custom_weights")
    @classmethod
    def _known_metrics(cls, value: dict[str, float]) -> dict[str, float]:
        if value:
            unknown = sorted(n for n in value if metric_table.find(n) is None)
            if unknown:
                raise ValueError(f"not in the metric table: {', '.join(unknown)}")
            if any(w < 0 for w in value.values()) or sum(value.values()) <= 0:
                raise ValueError("weights must be ≥ 0 and not all 0")
            pooled_names = metric_table.names_aggregated(*metric_table.POOLED)
            pooled = sorted(n for n, w in value.items() if w > 0 and n in pooled_names)
            if pooled:
                raise ValueError(f"{', '.join(pooled)}: pooled per model over UI test cases (results.json ui_tests), "
                                 "not a per-app score the overall can weigh")
        return value

    def chosen_weights(self) -> dict[str, float] | None:
        """The leaderboard's weights as asked for; None: decided from the results."""
        if self.custom_weights:
            return dict(self.custom_weights)
        return metric_table.weights(self.weights) if self.weights else None


class Quality(Section):
    """WebCoderBench's rule metrics (stages/quality): tools over the app's sources and
    evidence, plus a few extra page loads (Lighthouse, a phone viewport, Firefox)."""

    enabled: bool = pydantic.Field(True, description="run the WebCoderBench rule suite after exploring (default true)")
    metrics: tuple[str, ...] = pydantic.Field(
        (), description="only these rule metrics (metric-table names, e.g. wcb_linting); empty = all 19 (default)")
    lighthouse: bool = pydantic.Field(
        True, description="run Lighthouse; off: best practices, performance and Lighthouse accessibility "
        "are unscored (default true)")
    second_engine: Literal["firefox", "none"] = pydantic.Field(
        "firefox", description="the second browser engine for cross-browser compatibility (default firefox: "
        "Debian's firefox-esr); none: unscored")
    states: Literal["initial", "explored"] = pydantic.Field(
        "initial", description="what the render and resource metrics read. initial (default): the "
        "page as loaded, as WebCoderBench measures it — the start state, and the load with its idle window "
        "(step 0) — so that no explorer, seed or step budget changes them; explored: the first max_states "
        "explored states and the whole trace (an extension of ours). Runtime console errors read the whole "
        "exploration either way")
    max_states: int = pydantic.Field(
        8, ge=1, le=50, description="with states explored: the explored states whose DOM snapshots are "
        "rendered and probed (default 8)")
    lighthouse_timeout_s: float = pydantic.Field(
        90.0, gt=0, description="seconds for Lighthouse on one app, its runs together (the median of up to 3; "
        "default 90)")
    tool_timeout_s: float = pydantic.Field(
        60.0, gt=0, description="seconds for the linters, duplication and spelling, and for Firefox (default 60)")
    max_source_bytes: int = pydantic.Field(
        1_000_000, ge=1000, description="authored source kept per app for the code metrics, bytes (default 1,000,000)")

    @pydantic.field_validator("metrics")
    @classmethod
    def _rule_metrics(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        known = metric_table.names("quality")
        unknown = [n for n in value if n not in known]
        if unknown:
            raise ValueError(f"not a WebCoderBench rule metric: {', '.join(unknown)} (known: {', '.join(known)})")
        return value

    def selected(self) -> tuple[str, ...]:
        """The rule metrics this evaluation computes (none when the suite is off)."""
        if not self.enabled:
            return ()
        return tuple(n for n in metric_table.names("quality") if not self.metrics or n in self.metrics)


class Judging(Section):
    model: str | None = pydantic.Field(
        None, min_length=1, description="LLM judge model; unset = offline scores only")
    protocol: Literal["deliberative", "single"] = pydantic.Field(
        "deliberative", description="deliberative: advocate → critic → judge runs; single: the final judge "
        "prompt alone, once (IWC-Bench Appendix D's baseline)")
    dimensions: tuple[Dimension, ...] = pydantic.Field(
        ("aesthetics", "usability", "alignment", "wcb"),
        description="judged dimensions (default all four; wcb: WebCoderBench's five LLM metrics)")
    runs: int = pydantic.Field(5, ge=1, le=25, description="final-judge runs per deliberated dimension (default 5)")
    min_usable_runs: int = pydantic.Field(
        3, ge=1, description="fewer usable final-judge runs → unscored (default 3)")
    parse_retries: int = pydantic.Field(2, ge=0, le=10, description="re-asks after an unreadable answer (default 2)")
    max_adjustment: float = pydantic.Field(
        1.0, gt=0, le=5, description="largest |adjustment| per aspect, score points (default 1)")
    temperature: float | None = pydantic.Field(
        None, ge=0, le=1, description="temperature of the final-judge runs; unset = the client's (API default)")
    max_screenshots: int = pydantic.Field(5, ge=1, le=20, description="screenshots the aesthetics judge sees (default 5)")
    alignment_max_tool_calls: int = pydantic.Field(
        40, ge=1, description="alignment agent tool calls per app before verdicts are demanded (default 40)")
    alignment_page_lines: int = pydantic.Field(80, ge=10, description="lines per page of the read tool (default 80)")
    alignment_max_hits: int = pydantic.Field(40, ge=1, description="search hits shown per call (default 40)")
    aesthetics_model: str | None = pydantic.Field(None, min_length=1, description="aesthetics judge (default: model)")
    usability_model: str | None = pydantic.Field(None, min_length=1, description="usability judge (default: model)")
    alignment_model: str | None = pydantic.Field(
        None, min_length=1, description="requirement-alignment agent (default: model)")
    webcoder_model: str | None = pydantic.Field(
        None, min_length=1, description="WebCoderBench's general-quality judges, wcb_functionality and "
        "wcb_visual_experience (default: model)")
    webcoder_alignment_model: str | None = pydantic.Field(
        None, min_length=1, description="WebCoderBench's three alignment judges (default: webcoder_model)")
    # The checklist proposers are no setting of an evaluation: a checklist is part of the
    # task (written once by ``iwc checklist --judges``, then the same for every model and
    # part of what a stored result is reused for), never made anew by a run.

    @pydantic.model_validator(mode="before")
    @classmethod
    def _no_checklist_models(cls, data: object) -> object:
        """A results.json written before the field left (it never drove a run) still reads."""
        if isinstance(data, dict):
            return {k: v for k, v in data.items() if k not in ("checklist_models", "checklistModels")}
        return data


class UITests(Section):
    """WebGen-Bench's evaluator: a GUI agent runs each UI test case of a task (issue 12)."""

    enabled: bool = pydantic.Field(
        True, description="run the UI test cases of tasks that have them, after exploration (default "
        "true); they need an LLM (uitests.model or judging.model), else they are unscored")
    model: str | None = pydantic.Field(
        None, min_length=1, description="GUI agent and appearance judge model (default: judging.model)")
    appearance_model: str | None = pydantic.Field(
        None, min_length=1, description="appearance judge model (default: uitests.model)")
    max_steps: int = pydantic.Field(
        15, ge=1, le=100, description="actions per test case (default 15, WebGen-Bench's cap)")
    case_timeout_s: float = pydantic.Field(
        180.0, gt=0, description="seconds for one test case, LLM calls included (default 180)")
    parse_retries: int = pydantic.Field(
        2, ge=0, le=10, description="re-asks after an agent reply that cannot be used (default 2)")
    screenshot_px: int | None = pydantic.Field(
        1024, ge=256, le=1568, description="longest side in pixels of the screenshots the GUI agent sees, scaled "
        "down with their aspect ratio kept (default 1024: XGA width, the size Anthropic's computer-use guidance "
        "scales screenshots to; 1568 and above the API scales itself); null: as taken")
    appearance: bool = pydantic.Field(
        True, description="rate the first screen (and up to two more) 1–5 with a vision judge (default true)")
    reuse_replays: bool = pydantic.Field(
        True, description="a stored replay of the same app hash, test text and agent model that still "
        "reaches its end state decides the case without the agent (default true)")


# The cross-field rules ``Evaluation`` checks, in words (docs/settings.md lists them).
RULES: tuple[str, ...] = (
    "`exploration.model`: `exploration.policy: llm` needs `exploration.model` or `judging.model`.",
    "`judging.min_usable_runs` cannot exceed `judging.runs`.",
    "`judging.dimensions` cannot be empty when a judge model is set.",
    "`scoring.judge` is the old spelling of `judging.model`; naming two different models is an error.",
    "`scoring.custom_weights` replaces `scoring.weights`; setting both is an error.",
)


class Evaluation(Section):
    """Everything that changes an evaluation's results."""

    exploration: Exploration = Exploration()
    instrumentation: Instrumentation = Instrumentation()
    build: Build = Build()
    input: Input = Input()
    sandbox: Sandbox = Sandbox()
    scoring: Scoring = Scoring()
    judging: Judging = Judging()
    llm: LLM = LLM()
    uitests: UITests = UITests()
    quality: Quality = Quality()

    @pydantic.model_validator(mode="before")
    @classmethod
    def _old_judge_spelling(cls, data: object) -> object:
        """``scoring.judge`` is the old place of ``judging.model``: move it there."""
        if not isinstance(data, dict):
            return data
        scoring = data.get("scoring")
        if isinstance(scoring, dict) and scoring.get("judge") is not None:
            judging = data.get("judging") or {}
            if isinstance(judging, Judging):
                judging = judging.model_dump(exclude_unset=True)
            if not isinstance(judging, dict):
                return data
            named = judging.get("model")
            if named is not None and named != scoring["judge"]:
                raise FieldProblem("scoring.judge", f"names {scoring['judge']!r} while judging.model names "
                                   f"{named!r}; set only judging.model")
            data = {**data, "scoring": {k: v for k, v in scoring.items() if k != "judge"},
                    "judging": {**judging, "model": scoring["judge"]}}
        return data

    @pydantic.model_validator(mode="after")
    def _cross_field_rules(self) -> "Evaluation":
        if self.asks_tester() and not self.tester_model():
            raise FieldProblem("exploration.model", f"the {self.exploration.policy} explorer needs a model: set "
                               "exploration.model or judging.model (--explorer-model or --judge)")
        if self.judging.min_usable_runs > self.judging.runs:
            raise FieldProblem("judging.min_usable_runs", f"{self.judging.min_usable_runs} usable runs can "
                               f"never come from {self.judging.runs} judging.runs")
        if self.scoring.custom_weights and self.scoring.weights:
            raise FieldProblem("scoring.custom_weights", f"replaces scoring.weights ({self.scoring.weights}); "
                               "set only one of them")
        if not self.judging.dimensions and self.judging.model:
            raise FieldProblem("judging.dimensions", "a judge model with no dimension to judge")
        return self

    def tester_model(self) -> str | None:
        return self.exploration.model or self.judging.model

    def asks_tester(self) -> bool:
        """Does the explorer call the LLM tester (policy llm, or assisted at its plateaus)?"""
        return self.exploration.policy in ("llm", "assisted")

    def uitest_model(self) -> str | None:
        """The GUI agent's model; None: UI tests are off or have no LLM."""
        return (self.uitests.model or self.judging.model) if self.uitests.enabled else None

    def uses_llm(self) -> bool:
        return bool(self.judging.model) or self.asks_tester() or bool(self.uitest_model())

    def evaluation(self) -> "Evaluation":
        """Only the evaluation part (a ``RunSettings`` drops where it runs)."""
        return Evaluation.model_validate(self.model_dump(include=set(Evaluation.model_fields)))

    def document(self) -> str:
        """The evaluation as the one JSON document a pod receives (``--settings``)."""
        return self.evaluation().model_dump_json(exclude_defaults=True)

    def config_hash(self) -> str:
        """Hash of everything that changes results."""
        data = self.evaluation().model_dump(mode="json")
        for where in ("npm_cache_dir", "npm_cache_seed"):  # where the cache lives, not what it holds
            data["build"].pop(where, None)
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


class LocalRun(Section):
    """What a run on one machine (``iwc run``) adds to its evaluation: where it reads and
    writes, how many apps at once, how it spends. results.json records it apart from
    the evaluation (``RunInfo.local``)."""

    tasks: str = pydantic.Field(description="tasks.jsonl path or URI")
    apps: str = pydantic.Field(description="folder (or URI) holding apps/<model>/<task_id>")
    out: str = pydantic.Field(description="output folder or store URI")
    workers: int = pydantic.Field(1, ge=1, le=64, description="apps evaluated in parallel (default 1)")
    models: tuple[str, ...] = pydantic.Field((), description="only these models (default all)")
    mirror_dir: str | None = pydantic.Field(
        None, description="CDN mirror cache folder (default ~/.cache/iwc-bench/cdn)")
    llm_cache_dir: str | None = pydantic.Field(
        None, description="LLM response cache folder (default OUT/llm-cache; none for an s3:// OUT)")
    spending: Spending = Spending()


class RunSettings(LocalRun, Evaluation):
    """An evaluation plus where a local run reads and writes."""

    @classmethod
    def of(cls, evaluation: Evaluation, local: LocalRun) -> "RunSettings":
        """The run's settings put together again from its two parts."""
        return cls.model_validate({**evaluation.evaluation().model_dump(), **local.model_dump()})

    def local(self) -> LocalRun:
        """Only the local-run part."""
        return LocalRun.model_validate(self.model_dump(include=set(LocalRun.model_fields)))

    def config_hash(self) -> str:
        """The evaluation's hash plus the inputs (which tasks, apps and models)."""
        data = {"evaluation": super().config_hash(), "tasks": self.tasks, "apps": self.apps,
                "models": list(self.models)}
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


def parse_document(text: str) -> Evaluation:
    """An evaluation from its JSON document (what ``Evaluation.document`` wrote)."""
    return Evaluation.model_validate_json(text or "{}")
