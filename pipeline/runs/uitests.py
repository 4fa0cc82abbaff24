"""The UI tests of one app (WebGen-Bench's evaluator), in order: each test case on a
fresh page — decided by a stored replay of the same app hash, test and agent model when
one still reaches its end state, else run by the GUI agent; a YES stores its replay —
then the appearance judge, then the app's UI-test scores. In batch mode
(``Bench.appearance_later``) the appearance score is left ``pending`` and
runs/judging_pass judges it with the other batched judges (``judge_appearance_later``),
from the screenshots the store holds. Also what a run's end needs:
the floors of apps that never started and the Accuracy table.

``runs.app.explore_app`` calls ``after_exploring``; ``runs.uitest_folder`` (``iwc
uitest``) calls ``test_app`` directly. The agent and the replayer are exploring's
policies, driven by ``exploring.explore`` (hermetic network, dialogs, popups, watchdog,
time limits); records, scores, replays and appearance are uitesting's. This module
implements no stage.
"""

from __future__ import annotations

import dataclasses
import logging
import pathlib
import time
from typing import Callable, Mapping, Sequence

from iwcbench.pipeline.contracts import artifacts, evidence, metrics, results, settings as settings_mod, task, uitests
from iwcbench.pipeline.kits import clock, llm, store as store_mod
from iwcbench.pipeline.kits import browser as browser_kit
from iwcbench.pipeline.kits.mirror import routing
from iwcbench.pipeline.runs import evidence as stored
from iwcbench.pipeline.stages import abstracting, aggregating, exploring
from iwcbench.pipeline.stages.aggregating import webgen
from iwcbench.pipeline.stages.exploring import replay_policy, uitest_policy
from iwcbench.pipeline.stages.judging import screenshots
from iwcbench.pipeline.stages.uitesting import appearance, cases, replays

log = logging.getLogger(__name__)


def needs_llm(evaluation: settings_mod.Evaluation) -> str | None:
    """Why the agent cannot run (no model, no API key), or None when it can."""
    model = evaluation.uitest_model()
    if not model:
        return f"{uitests.NEEDS_LLM} (set --judge MODEL or uitests.model, and its provider's API key)"
    if llm.api_key_missing(model):
        return f"{uitests.NEEDS_LLM} ({model}: its provider's API key is not set)"
    return None


class Recorder:
    """The sink of one test case: everything goes to the store under ``prefix``; the
    screenshots and DOM snapshots are also kept here for the agent and the replay check."""

    def __init__(self, store: store_mod.Store, prefix: str) -> None:
        self.store, self.prefix = store_mod.Prefixed(store, prefix), prefix
        self.files: dict[str, bytes] = {}
        self._newest: str | None = None

    def __call__(self, rel: str, data: bytes) -> None:
        self.store.put_bytes(rel, data)
        self.files[rel] = data
        if rel.startswith("shots/"):
            self._newest = rel

    def newest(self) -> str | None:
        return self._newest

    def read(self, key: str) -> bytes | None:
        return self.files.get(key)


@dataclasses.dataclass(frozen=True)
class Bench:
    """What the UI tests of one served app need."""

    app: evidence.AppRef
    site: pathlib.Path  # the served folder: its hash keys the replays
    start_url: str
    router: Callable[[], routing.Router]  # a fresh hermetic router per test case
    store: store_mod.Store
    evaluation: settings_mod.Evaluation
    client: llm.Client | None  # None: no LLM (replays may still decide)
    deadline: clock.Deadline = clock.Deadline.never()  # the app's: no case starts once it is spent
    appearance_later: bool = False  # batch mode: appearance is judged by the judging pass, batched
    browser: browser_kit.Browser | None = None  # the worker's Chromium; None: one per test case

    @property
    def evidence(self) -> stored.AppEvidence:
        return stored.AppEvidence(self.store, self.app.key)


@dataclasses.dataclass(frozen=True)
class Tested:
    scores: dict[str, metrics.Score]
    outcomes: tuple[results.UITestOutcome, ...]
    report: uitests.UITestReport
    duration_s: float


def case_settings(evaluation: settings_mod.Evaluation) -> settings_mod.Exploration:
    """Exploration settings of one test case: the UI-test step cap and time limit."""
    return evaluation.exploration.model_copy(update={
        "max_steps": evaluation.uitests.max_steps, "app_timeout_s": evaluation.uitests.case_timeout_s})


def _digest(html: bytes | None) -> str | None:
    if html is None:
        return None
    return abstracting.digest_of(abstracting.normalize_dom(html.decode("utf-8", "replace")))


def _last_dom(trace: evidence.Trace, recorder: Recorder) -> bytes | None:
    key = next((s.dom for s in reversed(trace.steps) if s.dom), None)
    return recorder.read(key) if key else None


def play(bench: Bench, replay: uitests.Replay, folder: str) -> tuple[uitests.ReplayCheck, str, tuple[str, ...]]:
    """Run one replay on a fresh page: (check, trace key, screenshot keys), keys under
    the app prefix."""
    recorder = Recorder(bench.store, f"{bench.app.key}/{folder}")
    player = replay_policy.ReplayPolicy(replay.steps)
    started = time.monotonic()
    case = case_settings(bench.evaluation)
    explored = exploring.explore(bench.start_url, case, recorder, options=exploring.Options(
        policy=player, hermetic=bench.router(), accessibility=False, deadline=bench.deadline.within(case.app_timeout_s),
        browser=bench.browser))
    trace = explored.trace
    bench.evidence.save_at(f"{folder}/{artifacts.TRACE.key}", artifacts.TRACE, trace)
    failure = player.failure or (f"the app did not load: {trace.load_error}" if trace.load_error else None)
    if failure is None and player.played < len(replay.steps):
        failure = f"the replay stopped after {player.played} of {len(replay.steps)} steps: {trace.stop_reason}"
    check = replays.check(replay, failure=failure, steps=max(0, len(trace.steps) - 1),
                          end_digest=_digest(_last_dom(trace, recorder)), last_tree=player.last_tree,
                          duration_s=time.monotonic() - started)
    shots = tuple(f"{folder}/{s.screenshot}" for s in trace.steps if s.screenshot)
    return check, f"{folder}/{artifacts.TRACE.key}", shots[-1:]


def _agent(bench: Bench, item: task.Task, index: int, app_hash: str) -> uitests.CaseResult:
    test, folder = item.ui_tests[index], uitests.case_folder(index)
    assert bench.client is not None
    recorder = Recorder(bench.store, f"{bench.app.key}/{folder}")
    agent = uitest_policy.UITestPolicy(
        bench.client, test.task, test.expected_result, shots=recorder,
        parse_retries=bench.evaluation.uitests.parse_retries, fence_seed=f"{app_hash}\0{index}\0{test.task}",
        screenshot_px=bench.evaluation.uitests.screenshot_px)
    started = time.monotonic()
    exploration = case_settings(bench.evaluation)
    explored = exploring.explore(bench.start_url, exploration, recorder, options=exploring.Options(
        policy=agent, hermetic=bench.router(), accessibility=False,
        deadline=bench.deadline.within(exploration.app_timeout_s), browser=bench.browser))
    trace = explored.trace
    if trace.load_error:  # NO without asking the agent: nothing of the case could be tried
        bench.evidence.save_at(f"{folder}/{artifacts.TRACE.key}", artifacts.TRACE, trace)
        return cases.page_failed_case(test, index, load_error=trace.load_error, trace=f"{folder}/{artifacts.TRACE.key}",
                                      duration_s=time.monotonic() - started)
    agent.conclude(trace.stop_reason)
    trace = trace.model_copy(update={"summary": agent.summary()})
    bench.evidence.save_at(f"{folder}/{artifacts.TRACE.key}", artifacts.TRACE, trace)
    case = cases.agent_case(
        test, index, verdict=agent.verdict, problem=agent.problem,
        screenshots=[f"{folder}/{k}" for k in agent.evidence_shots()], steps=max(0, len(trace.steps) - 1),
        stop_reason=(f"the agent gave its verdict after step {agent.last_step}"
                     if agent.verdict is not None and not agent.concluded
                     else trace.stop_reason),
        trace=f"{folder}/{artifacts.TRACE.key}", duration_s=time.monotonic() - started,
        calls=agent.calls, reasks=agent.reasks, problems=agent.problems)
    digest = _digest(_last_dom(trace, recorder))
    if case.verdict == "YES" and digest is not None:
        replay = replays.build(
            task_id=item.id, case_index=index, test=test.task, expected_result=test.expected_result,
            app=f"{bench.app.model}/{bench.app.task_id}", app_hash=app_hash,
            agent_model=bench.client.config.model, steps=agent.performed, end_digest=digest,
            first_tree=agent.first_tree or "", last_tree=agent.last_tree or "")
        stored.RunFiles(bench.store).save_at(replays.store_key(item.id, replay.key), artifacts.REPLAYS, replay)
        case = case.model_copy(update={"replay": replays.store_key(item.id, replay.key)})
    return case


def run_case(bench: Bench, item: task.Task, index: int, app_hash: str, no_llm: str | None) -> uitests.CaseResult:
    """One test case: a stored replay first (reuse on), else the agent, else unscored."""
    test = item.ui_tests[index]
    model = bench.evaluation.uitest_model()
    tried: list[str] = []
    if model and bench.evaluation.uitests.reuse_replays:
        key = replays.store_key(item.id, uitests.replay_key(app_hash, test.task, test.expected_result, model))
        replay = stored.RunFiles(bench.store).load_at(key, artifacts.REPLAYS)
        if replay is not None:
            check, trace_key, shots = play(bench, replay, f"{uitests.case_folder(index)}/replay")
            if check.passed:
                return cases.replayed_case(test, index, check, trace=trace_key, screenshots=shots,
                                           recorded=replay).model_copy(update={"replay": key})
            tried.append(f"the stored replay {replay.key} no longer passes: {check.reason}")
    if no_llm is not None or bench.client is None:
        reason = no_llm or uitests.NEEDS_LLM
        return cases.unscored_cases(item, reason)[index].model_copy(update={"problems": tuple(tried)})
    case = _agent(bench, item, index, app_hash)
    return case.model_copy(update={"problems": (*tried, *case.problems)}) if tried else case


def _appearance(client: llm.Client, item: task.Task, shots: Sequence[tuple[str, bytes]],
                parse_retries: int) -> metrics.Score:
    """First screen plus up to two representative screenshots (judging's selection)."""
    if not shots:
        return metrics.score("appearance", None, "unscored: no screenshot of the app was recorded")
    first, rest = shots[0], list(shots[1:])
    picked = screenshots.select(rest, limit=appearance.MAX_EXTRA).chosen if rest else ()
    by_key = dict(rest)
    chosen = [first, *((k, by_key[k]) for k in picked)]
    return appearance.judge(client, item.prompt, chosen, parse_retries)


APPEARANCE_PENDING = f"{metrics.PENDING_REASON}: the appearance judge runs once every app is explored"


def judge_appearance_later(files: stored.AppEvidence, item: task.Task, client: llm.Client,
                           parse_retries: int) -> metrics.Score:
    """The appearance of a stored app whose judge was left for later (batch mode): from
    its exploration's screenshots, first screen first, else its test cases' own — what
    ``test_app`` would have shown the judge."""
    trace = files.load(artifacts.TRACE)
    shots = [(s.screenshot, data) for s in (trace.steps if trace else ())
             if s.screenshot and (data := files.raw(s.screenshot)) is not None]
    if not shots:
        report = files.load(artifacts.UI_TESTS)
        shots = _case_shots(files, report.cases if report else ())
    return _appearance(client, item, shots, parse_retries)


def test_app(bench: Bench, item: task.Task, shots: Sequence[tuple[str, bytes]]) -> Tested:
    """Every UI test case of ``item`` on the served app, then appearance; writes
    uitests.json. ``shots``: (key, bytes) of the app's screenshots, first screen first
    (the exploration's; empty: the test cases' own are used). Never raises for the
    app's or the API's trouble; a case that fails on our side is unscored, saying so."""
    started = time.monotonic()
    no_llm = needs_llm(bench.evaluation)
    app_hash = replays.folder_hash(bench.site)
    recorded: list[uitests.CaseResult] = []
    for index in range(len(item.ui_tests)):
        if no_llm is None and (spent := _budget_spent(bench)) is not None:
            recorded.append(cases.unscored_cases(item, spent)[index])
            continue
        if bench.deadline.spent():
            recorded.append(cases.unscored_cases(item, f"unscored: not tested, {bench.deadline.why()}")[index])
            continue
        try:
            recorded.append(run_case(bench, item, index, app_hash, no_llm))
        except Exception as exc:  # one case's failure must not cost the others
            log.exception("UI test case %d of %s failed on our side", index + 1, bench.app.key)
            recorded.append(cases.unscored_cases(item, f"unscored: the test case failed on our side: "
                                                       f"{type(exc).__name__}: {exc}")[index])
    scores = cases.scores(recorded)
    if bench.evaluation.uitests.appearance:
        if no_llm is not None or bench.client is None:
            scores["appearance"] = metrics.score("appearance", None, no_llm or uitests.NEEDS_LLM)
        elif (spent := _budget_spent(bench)) is not None:
            scores["appearance"] = metrics.score("appearance", None, spent)
        elif bench.deadline.spent():
            scores["appearance"] = metrics.score("appearance", None, f"not measured: {bench.deadline.why()}")
        elif bench.appearance_later:
            scores["appearance"] = metrics.score("appearance", None, APPEARANCE_PENDING, status="pending")
        else:
            if not shots:
                shots = _case_shots(bench.evidence, recorded)
            scores["appearance"] = _appearance(bench.client, item, shots, bench.evaluation.uitests.parse_retries)
    report = uitests.UITestReport(
        model=bench.app.model, task_id=item.id, agent_model=bench.evaluation.uitest_model() if no_llm is None else None,
        app_hash=app_hash, max_steps=bench.evaluation.uitests.max_steps, cases=tuple(recorded),
        duration_s=round(time.monotonic() - started, 3))
    bench.evidence.save(artifacts.UI_TESTS, report)
    return Tested(scores=scores, outcomes=cases.outcomes(recorded), report=report,
                  duration_s=report.duration_s)


def _budget_spent(bench: Bench) -> str | None:
    """Why no new UI-test call may start (the run's --max-cost is reached), or None.
    The agent and the appearance judge spend from the run's budget like every LLM call."""
    budget = bench.client.ledger.budget if bench.client is not None else None
    if budget is None or not budget.reached():
        return None
    return (f"unscored: not tested, the run's LLM budget of ${budget.limit_usd:.2f} was reached "
            f"(${budget.spent():.2f} spent)")


def _case_shots(files: stored.AppEvidence, recorded: Sequence[uitests.CaseResult]) -> list[tuple[str, bytes]]:
    """Without an exploration: each case's first screen, then its other screenshots."""
    out: list[tuple[str, bytes]] = []
    for case in recorded:
        if not case.trace:
            continue
        folder = case.trace.rsplit("/", 1)[0]
        trace = files.load_at(case.trace, artifacts.TRACE)
        if trace is None:
            continue
        for step in trace.steps:
            if step.screenshot and (data := files.raw(f"{folder}/{step.screenshot}")) is not None:
                out.append((f"{folder}/{step.screenshot}", data))
    return out


def after_exploring(bench: Bench, item: task.Task | None, trace: evidence.Trace,
                    files: artifacts.Reader) -> Tested | None:
    """The UI tests explore_app runs after exploring (None: the task has none, or they
    are off). Appearance sees the exploration's screenshots, first screen first."""
    if item is None or not item.ui_tests or not bench.evaluation.uitests.enabled:
        return None
    shots = [(s.screenshot, data) for s in trace.steps if s.screenshot and (data := files.raw(s.screenshot))]
    return test_app(bench, item, shots)


# ---------------------------------------------------------------- a run's end

def unscored_reason(evaluation: settings_mod.Evaluation) -> str | None:
    """The reason every Accuracy figure is unscored (no model for the agent), or None."""
    return None if evaluation.uitest_model() else needs_llm(evaluation)


def with_start_failures(apps: Sequence[results.AppResult], tasks: Mapping[str, task.Task],
                        evaluation: settings_mod.Evaluation) -> list[results.AppResult]:
    """Apps that never started, of tasks with UI test cases, get the UI-test floors
    (every case NO, appearance 1) — or, without a model for the agent, those scores
    unscored with the reason. Apps that cannot run here too, when the run floors them
    (scoring.not_runnable ``floor``), as the leaderboard does."""
    if not evaluation.uitests.enabled:
        return list(apps)
    reason = unscored_reason(evaluation)
    floor_them = evaluation.scoring.not_runnable == aggregating.FLOOR
    floored = {"start_failed"} | (results.NOT_RUNNABLE_HERE if floor_them else set())
    out = []
    for app in apps:
        item = tasks.get(app.task_id)
        if app.outcome not in floored or item is None or not item.ui_tests or "uitest_accuracy" in app.scores:
            out.append(app)
            continue
        names = [n for n in cases.SCORE_NAMES if n != "appearance" or evaluation.uitests.appearance]
        added = (metrics.unscored(names, reason) if reason is not None else
                 {n: s for n, s in cases.failure_scores(app.reason).items() if n in names})
        out.append(app.model_copy(update={"scores": {**app.scores, **added}}))
    return out


def accuracy(apps: Sequence[results.AppResult], tasks: Sequence[task.Task],
             evaluation: settings_mod.Evaluation) -> tuple[results.UITestRow, ...]:
    """WebGen-Bench's Accuracy per model (empty when UI tests are off), on the tasks the
    leaderboard compares (scoring.not_runnable)."""
    if not evaluation.uitests.enabled:
        return ()
    return webgen.accuracy_table(apps, tasks, unscored_reason(evaluation), evaluation.scoring.not_runnable)
