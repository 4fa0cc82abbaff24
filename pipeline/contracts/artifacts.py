"""Every stored artifact, declared once: its store key, its model, the stage that
makes it.

Two levels. An app's evidence lives under ``apps/<model>/<task_id>/`` (keys here are
relative to that prefix); a run's files live at the root of its store. A declaration
with a model is validated whenever it is read (``Reader.load``) and carries
``schema_version``; one without a model is a format that is not ours (Istanbul's
coverage JSON, the batch journal of kits/llm/batches, HTML, PNG) or a folder of files
(a key ending in "/").

Adding a stored artifact: one declaration here (key, model, producer), its model
in the contract module it belongs to, and the code in its producer that makes it;
the runs write it with ``runs.evidence`` (``AppEvidence.save`` / ``RunFiles.save``),
stages read it through a ``Reader``, hack/gen-schemas writes its JSON Schema and
hack/gen-docs lists it in docs/store.md.

Pure: ``Reader`` validates bytes a caller's ``read(key)`` hands it; it does no I/O.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Callable, Generic, Literal, TypeVar

import pydantic

from iwcbench.pipeline.contracts import analyses, evidence, layout, quality, results, uitests

Level = Literal["app", "run"]
M = TypeVar("M", bound=pydantic.BaseModel)


@dataclasses.dataclass(frozen=True)
class Artifact(Generic[M]):
    key: str  # relative to the app's prefix (level "app") or the store's root ("run"); "x/": a folder
    model: type[M] | None  # None: not our format (``form`` says whose), or a folder
    producer: str  # the stage (or run module) whose code makes it
    level: Level
    about: str
    form: str = "json"  # json (model or not), istanbul, text, html, png, folder
    schema: str | None = None  # docs/schemas/<schema>.schema.json, for the ones with a model

    @property
    def is_folder(self) -> bool:
        return self.key.endswith("/")


def _app(key: str, model: type[M] | None, producer: str, about: str, form: str = "json",
         schema: str | None = None) -> Artifact[M]:
    return Artifact(key, model, producer, "app", about, form, schema)


def _run(key: str, model: type[M] | None, producer: str, about: str, form: str = "json",
         schema: str | None = None) -> Artifact[M]:
    return Artifact(key, model, producer, "run", about, form, schema)


# Not our format, or a folder (model None): nothing to validate it against, so the
# model type is the base class.
Unmodelled = Artifact[pydantic.BaseModel]

# ---- an app's evidence, in the order a run makes it
SOURCES = _app("sources.json", quality.AppSources, "stages.quality",
               "the app's authored HTML, CSS and JavaScript as submitted (before instrumenting)", schema="sources")
INSTRUMENT = _app("instrument.json", evidence.InstrumentationReport, "stages.instrumenting",
                  "what instrumenting did (framework, mode and why, files), with the load times exploring measured",
                  schema="instrument")
COVERAGE_MAP: Unmodelled = _app("coverage-map.json", None, "stages.instrumenting",
                    "Istanbul's initial FileCoverage per coverage key (contracts/instrumented.py)", form="istanbul")
TRACE = _app("trace.json", evidence.Trace, "stages.exploring", "every step of the exploration", schema="trace")
DOM: Unmodelled = _app("dom/", None, "stages.exploring", "DOM snapshot after step NNNN: dom/NNNN.html", form="html")
SHOTS: Unmodelled = _app("shots/", None, "stages.exploring", "screenshot after step NNNN when the look changed: shots/NNNN.png",
             form="png")
PROBES: Unmodelled = _app("probes/", None, "stages.exploring",
              "the probe's facts (kits/page/probe.mjs) of the live page beside DOM snapshot dom/NNNN.html, as on "
              "the page seen from its top (none for a scrolled page with a fixed or sticky box), for the quality "
              "stage: probes/NNNN.json")
ACCESSIBILITY = _app("a11y.json", evidence.AccessibilityReport, "stages.exploring",
                     "axe-core's violations per new state", schema="a11y")
COVERAGE: Unmodelled = _app("coverage.json", None, "stages.exploring",
                "the final merged Istanbul coverage (counters as credited)", form="istanbul")
GRAPH = _app("graph.json", evidence.StateGraph, "stages.abstracting", "the state graph (networkx node-link form)",
             schema="graph")
UI_TESTS = _app("uitests.json", uitests.UITestReport, "stages.uitesting",
                "WebGen-Bench's UI test cases: verdicts and their evidence (uitests/NN/: each case's trace)",
                schema="uitests")
QUALITY = _app("quality.json", quality.QualityReport, "stages.quality",
               "which WebCoderBench tools ran, their versions, seconds and failures", schema="quality")
RESULT = _app(layout.RESULT, results.AppResult, "runs.app", "the app's result: outcome, summaries, scores",
              schema="app-result")
REUSE_KEY = _app("reuse.json", results.ReuseKey, "runs.reusing",
                 "the app's input hash and the config hash of the evaluation its result.json comes from",
                 schema="reuse-key")
ERROR: Unmodelled = _app("error.txt", None, "runs.app", "the traceback when the app's evaluation failed on our side",
             form="text")
REPLAY_CHECKS: Unmodelled = _app("replay-checks.json", None, "runs.uitest_folder",
                     "iwc uitest replay: a list of uitests.ReplayCheck, one per stored replay played")

# ---- the run's
RESULTS = _run("results.json", results.RunResults, "runs.finishing", "the run's results: every app, the leaderboard",
               schema="results")
RUN_MARKER = _run("run.json", results.RunMarker, "runs.local",
                  "config hash of the run writing this folder (iwc run --resume)", schema="run-marker")
BATCHES: Unmodelled = _run("llm-batches.json", None, "runs.judging_pass",
               "the Message Batches submitted and collected (kits/llm/batches' journal)")
REPLAYS = _run("replays/", uitests.Replay, "stages.uitesting",
               "a passing UI test case's replay: replays/<task_id>/<key>.json", schema="replay")
AGREEMENT = _run(analyses.AGREEMENT, analyses.Agreement, "stages.analysing", "iwc analyse agreement",
                 schema="agreement")
COMPARISON = _run(analyses.COMPARISON, analyses.Comparison, "stages.analysing", "iwc analyse compare",
                  schema="comparison")
ROBUSTNESS = _run(analyses.ROBUSTNESS, analyses.Robustness, "stages.analysing", "iwc robustness",
                  schema="robustness")
REPORT: Unmodelled = _run("report/", None, "stages.reporting", "the HTML report (index.html, apps/<m>/<t>.html, assets/)",
              form="html")

APP: tuple[Artifact, ...] = (SOURCES, INSTRUMENT, COVERAGE_MAP, TRACE, DOM, SHOTS, PROBES, ACCESSIBILITY, COVERAGE,
                             GRAPH, UI_TESTS, QUALITY, RESULT, REUSE_KEY, ERROR, REPLAY_CHECKS)
RUN: tuple[Artifact, ...] = (RESULTS, RUN_MARKER, BATCHES, REPLAYS, AGREEMENT, COMPARISON, ROBUSTNESS, REPORT)
ALL: tuple[Artifact, ...] = APP + RUN


def probe_of(dom: str) -> str:
    """The key of the probe's facts stored beside a DOM snapshot: dom/0003.html →
    probes/0003.json."""
    return PROBES.key + dom.rsplit("/", 1)[-1].rsplit(".", 1)[0] + ".json"


class Unreadable(ValueError):
    """A stored artifact that is there but is not what its declaration says."""

    def __init__(self, key: str, model: type, error: pydantic.ValidationError) -> None:
        self.key, self.problems = key, error.error_count()
        self.first = error.errors()[0]["msg"]
        super().__init__(f"{key} is not a valid {model.__name__}: {self.problems} problem(s), first: {self.first}")


class Reader:
    """Artifacts read through ``read(key)`` (the bytes at a key, None when absent):
    an app's evidence (keys relative to its prefix, ``where``) or a run's. What stages
    are given instead of the store."""

    def __init__(self, read: Callable[[str], bytes | None], where: str = "") -> None:
        self._read = read
        self.where = where.strip("/")

    def raw(self, key: str) -> bytes | None:
        """The bytes at ``key`` (any file: ``dom/0003.html``, ``shots/0004.png``), or None."""
        return self._read(key)

    def text(self, key: str) -> str | None:
        data = self.raw(key)
        return None if data is None else data.decode("utf-8", "replace")

    def load(self, artifact: Artifact[M]) -> M | None:
        """The artifact as its model; None when absent; ``Unreadable`` when invalid."""
        return self.load_at(artifact.key, artifact)

    def load_at(self, key: str, artifact: Artifact[M]) -> M | None:
        """An artifact stored at another key (a UI test case's trace, a replay)."""
        if artifact.model is None:
            raise TypeError(f"{artifact.key} has no model ({artifact.form})")
        data = self.raw(key)
        if data is None:
            return None
        try:
            return artifact.model.model_validate_json(data)
        except pydantic.ValidationError as exc:
            raise Unreadable(self.full(key), artifact.model, exc) from exc

    def load_or_none(self, artifact: Artifact[M]) -> M | None:
        """The artifact as its model; None when absent or invalid."""
        try:
            return self.load(artifact)
        except Unreadable:
            return None

    def json(self, artifact: Artifact) -> Any | None:
        """An artifact without a model, as parsed JSON; None when absent."""
        data = self.raw(artifact.key)
        return None if data is None else json.loads(data)

    def full(self, key: str) -> str:
        return f"{self.where}/{key}" if self.where else key

    def under(self, prefix: str) -> Reader:
        """The same reads below ``prefix`` (a run's reader → one app's)."""
        prefix = prefix.strip("/")
        return Reader(lambda key: self.raw(f"{prefix}/{key}"), self.full(prefix))
