"""Tracking: what the Jobs say → what to create next and the run's status. PURE.

The operator feeds in the spec, the listed apps, a view of each Job (from its index,
never written to) and the current status; it gets back the Jobs to create and the
status it should have. The caller patches only the keys that differ.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal, Mapping, Sequence

from iwcbench.operator import api, planning, sandboxing

JobState = Literal["queued", "active", "succeeded", "failed"]
TERMINAL: tuple[str, ...] = ("Succeeded", "Failed")
# Status keys the operator owns; publish-status owns results, resultsURI and leader.
OWNED = ("phase", "progress", "observedGeneration", "conditions", "counts", "startTime",
         "completionTime", "failures", "scoringJob", "costUsd", "round", "roundKind", "retriedFor", "rescoredFor",
         "storeOwner")
# A run that failed for one of these reasons is looked at again: the user may fix the
# spec, or the run that owns the store may go.
_RECHECKED = ("InvalidSpec", "StoreInUse")
_MESSAGE_LIMIT = 300


@dataclasses.dataclass(frozen=True)
class JobView:
    """What the operator needs to know about one Job (kept in kopf's index)."""

    name: str
    role: str  # app | scoring
    app: str  # model/task_id; "" for the scoring Job
    state: JobState
    reason: str = ""
    message: str = ""
    finished: str | None = None


def job_view(body: Mapping[str, Any]) -> JobView:
    """Read a Job the way the Job controller reports it: a True ``Complete`` or
    ``Failed`` condition ends it; a suspended Job (``spec.suspend``: Kueue has not
    admitted it yet) is queued; anything else is still active."""
    meta = body.get("metadata", {})
    labels = meta.get("labels", {}) or {}
    annotations = meta.get("annotations", {}) or {}
    app = ""
    if annotations.get(planning.ANNOTATION_MODEL):
        app = f"{annotations[planning.ANNOTATION_MODEL]}/{annotations.get(planning.ANNOTATION_TASK, '')}"
    ended = {c.get("type"): c for c in (body.get("status", {}) or {}).get("conditions", []) or []
             if c.get("status") == "True" and c.get("type") in ("Complete", "Failed")}
    base = dict(name=meta.get("name", ""), role=labels.get(planning.LABEL_ROLE, "app"), app=app)
    if "Complete" in ended:
        return JobView(**base, state="succeeded", finished=ended["Complete"].get("lastTransitionTime"))
    if "Failed" in ended:
        cond = ended["Failed"]
        return JobView(**base, state="failed", reason=cond.get("reason", "Failed"),
                       message=(cond.get("message") or "")[:_MESSAGE_LIMIT],
                       finished=cond.get("lastTransitionTime"))
    if (body.get("spec", {}) or {}).get("suspend"):
        return JobView(**base, state="queued")
    return JobView(**base, state="active")


@dataclasses.dataclass(frozen=True)
class Decision:
    create_apps: tuple[planning.AppPair, ...] = ()
    create_scoring: bool = False
    status: dict[str, Any] = dataclasses.field(default_factory=dict)  # wire form, OWNED keys


def _condition(old: Sequence[Mapping[str, Any]], now: str, type_: str, ok: bool, reason: str,
               message: str = "") -> dict[str, Any]:
    """A condition that keeps its lastTransitionTime while its status is unchanged."""
    status = "True" if ok else "False"
    previous = next((c for c in old if c.get("type") == type_), None)
    since = previous["lastTransitionTime"] if previous and previous.get("status") == status else now
    return api.Condition(type=type_, status=status, reason=reason, message=message,
                         last_transition_time=since).wire()


def is_settled(status: Mapping[str, Any]) -> bool:
    """A finished run stays finished (until a retry or rescore annotation starts its next
    round); a spec that failed validation or a store owned by another run is looked at
    again (the user may fix it, the other run may go)."""
    if status.get("phase") not in TERMINAL:
        return False
    rechecked = any(c.get("type") == "Failed" and c.get("reason") in _RECHECKED
                    for c in status.get("conditions", []) or [])
    return not rechecked


def refused_store(status: Mapping[str, Any], generation: int | None, message: str, now: str) -> dict[str, Any]:
    """The run names a store prefix another live run owns: no Job, a condition saying whose."""
    old = status.get("conditions", []) or []
    return {
        "phase": "Failed",
        "observedGeneration": generation,
        "conditions": [_condition(old, now, "SpecValid", True, "Valid"),
                       _condition(old, now, "StoreOwned", False, "StoreInUse", message),
                       _condition(old, now, "Failed", True, "StoreInUse", message)],
        "completionTime": status.get("completionTime") or now,
    }


def store_unavailable(status: Mapping[str, Any], generation: int | None, message: str, now: str) -> dict[str, Any]:
    """The run's store cannot be used (a bucket that does not exist, an endpoint that does
    not answer): no Job, Pending, a condition naming spec.store; the next look tries again."""
    old = status.get("conditions", []) or []
    return {**status, "phase": "Pending", "observedGeneration": generation,
            "conditions": [_condition(old, now, "SpecValid", True, "Valid"),
                           _condition(old, now, "StoreOwned", False, "StoreUnavailable", message)]}


def unrefused(status: Mapping[str, Any]) -> dict[str, Any]:
    """The status a run that was refused its store starts from once the store is its own:
    the refusal's end undone (its conditions are made afresh by ``decide``)."""
    refused = any(c.get("type") == "Failed" and c.get("reason") == "StoreInUse"
                  for c in status.get("conditions", []) or [])
    return {**status, "phase": "Pending", "completionTime": None} if refused else dict(status)


RoundKind = Literal["retry", "rescore"]


def next_round(status: Mapping[str, Any], kind: RoundKind, token: str, apps: int, total: int,
               now: str) -> dict[str, Any]:
    """The status that starts a settled run's next round: a retry re-runs ``apps`` of the
    run's ``total`` (those that ended ``error`` or were never scored) and scores again; a
    rescore only scores again. Its end conditions go; the look after decides the rest."""
    old = [c for c in status.get("conditions", []) or [] if c.get("type") not in ("Complete", "Failed")]
    round_ = int(status.get("round") or 0) + 1
    if kind == "retry":
        message = f"round {round_}: re-running {apps} of {total} apps (ended error or never scored)"
        condition = _condition([], now, "Retried", True, "RetryRequested", message)
    else:
        message = f"round {round_}: scoring the stored evidence again (no app is explored)"
        condition = _condition([], now, "Rescored", True, "RescoreRequested", message)
    conditions = [c for c in old if c.get("type") not in ("Retried", "Rescored")] + [condition]
    return {"phase": "Running", "round": round_, "roundKind": kind, "completionTime": None, "conditions": conditions,
            "failures": [], "scoringJob": None,
            **({"retriedFor": token} if kind == "retry" else {"rescoredFor": token})}


def invalid(status: Mapping[str, Any], generation: int | None, message: str, now: str) -> dict[str, Any]:
    old = status.get("conditions", []) or []
    return {
        "phase": "Failed",
        "observedGeneration": generation,
        "conditions": [_condition(old, now, "SpecValid", False, "InvalidSpec", message),
                       _condition(old, now, "Failed", True, "InvalidSpec", message)],
        "completionTime": status.get("completionTime") or now,
    }


@dataclasses.dataclass(frozen=True)
class Observed:
    """Everything one look at a run sees. ``apps`` is None until the store has been
    listed (``listing_error`` says why not); ``recently_created`` bridges the moment
    between creating a Job and its index entry, so a Job is never counted twice nor
    created twice."""

    spec: api.EvaluationRunSpec
    owner: planning.Owner
    generation: int | None
    apps: Sequence[planning.AppPair] | None
    jobs: tuple[JobView, ...]
    status: Mapping[str, Any]
    now: str
    listing_error: str | None = None
    recently_created: frozenset[str] = frozenset()
    results_present: bool = False
    round: int = 0  # the Jobs of this round are the ones looked at (``apps``: this round's)
    rescore: bool = False  # this round only scores again
    stored: frozenset[str] = frozenset()  # apps (model/task) whose result this run stored, Job gone or not
    cost_usd: float | None = None  # LLM dollars of the apps finished so far (None: none known)
    budget_reached: bool = False  # spec.maxCost reached: no new app Job
    sandbox: sandboxing.Sandbox | None = None  # the seccomp profile new app pods get, and why


@dataclasses.dataclass(frozen=True)
class _Apps:
    """The apps' Jobs as tracking counts them."""

    counts: api.Counts
    pending: tuple[planning.AppPair, ...]
    failures: tuple[JobView, ...]

    @property
    def ended(self) -> int:
        return self.counts.succeeded + self.counts.failed


def _count_apps(seen: Observed, apps: Sequence[planning.AppPair], by_name: Mapping[str, JobView]) -> _Apps:
    states: dict[str, str] = {}
    pending: list[planning.AppPair] = []
    failures: list[JobView] = []
    for pair in apps:
        name = planning.app_job_name(seen.owner, pair, seen.round)
        view = by_name.get(name)
        if view is not None:
            states[pair.key] = view.state
            if view.state == "failed":
                failures.append(view)
        elif name in seen.recently_created:
            states[pair.key] = "queued" if seen.spec.queue_name else "active"
        elif pair.key in seen.stored:
            # its Job went (ttlSecondsAfterFinished) after it stored its result
            states[pair.key] = "succeeded"
        else:
            states[pair.key] = "pending"
            pending.append(pair)
    values = list(states.values())
    counts = api.Counts(total=len(apps), pending=values.count("pending"), queued=values.count("queued"),
                        active=values.count("active"), succeeded=values.count("succeeded"),
                        failed=values.count("failed"))
    return _Apps(counts=counts, pending=tuple(pending), failures=tuple(failures))


def _phase(seen: Observed, apps: _Apps, scoring: JobView | None, scoring_name: str,
           conditions: list[dict[str, Any]]) -> tuple[str, tuple[planning.AppPair, ...], bool]:
    """The run's phase, the app Jobs to create and whether to create the scoring Job;
    appends the conditions that explain an end."""
    old = seen.status.get("conditions", []) or []
    now, spec = seen.now, seen.spec
    if scoring is not None and scoring.state == "succeeded":
        if seen.results_present:
            conditions.append(_condition(old, now, "Complete", True, "Scored", "results published"))
            return "Succeeded", (), False
        conditions.append(_condition(old, now, "Failed", True, "ScoringIncomplete",
                                     "the scoring Job ended without publishing results"))
        return "Failed", (), False
    if scoring is not None and scoring.state == "failed":
        conditions.append(_condition(old, now, "Failed", True, "ScoringFailed",
                                     f"{scoring.reason}: {scoring.message}".strip(": ")))
        return "Failed", (), False
    if scoring is not None or scoring_name in seen.recently_created:
        return "Scoring", (), False
    if seen.rescore:
        return "Scoring", (), True
    if not apps.counts.total and not seen.round:
        conditions.append(_condition(old, now, "Failed", True, "NoApps", f"no apps under {spec.apps.uri}"))
        return "Failed", (), False
    if spec.suspend:
        return "Suspended", (), False
    in_flight = apps.counts.active + apps.counts.queued
    if apps.ended == apps.counts.total or (seen.budget_reached and not in_flight):
        return "Scoring", (), True
    room = 0 if seen.budget_reached else max(spec.parallelism - in_flight, 0)
    create_apps = apps.pending[:room]
    return ("Running" if (in_flight or apps.ended or create_apps) else "Pending"), create_apps, False


def decide(seen: Observed) -> Decision:
    """The next step of one run."""
    old = seen.status.get("conditions", []) or []
    now, spec = seen.now, seen.spec
    conditions = [_condition(old, now, "SpecValid", True, "Valid")]
    by_name = {j.name: j for j in seen.jobs}
    scoring_name = planning.scoring_job_name(seen.owner, seen.round)
    scoring = by_name.get(scoring_name)

    if seen.apps is None:
        conditions.append(_condition(old, now, "AppsListed", False, "StoreUnavailable",
                                     seen.listing_error or "listing"))
        return Decision(status=_status(seen.status, seen.generation, "Pending", conditions, api.Counts(), [],
                                       None, now))
    apps = seen.apps
    conditions.append(_condition(
        old, now, "AppsListed", bool(apps), "Listed" if apps else "NoApps",
        f"{len(apps)} apps under {spec.apps.uri}" + (f" (models: {', '.join(spec.apps.models)})"
                                                     if spec.apps.models else "")))
    counted = _count_apps(seen, apps, by_name)
    conditions.append(_condition(old, now, "Suspended", spec.suspend, "Suspended" if spec.suspend else "Running"))
    if seen.sandbox is not None:
        conditions.append(_condition(old, now, "Sandboxed", seen.sandbox.isolated, seen.sandbox.reason,
                                     seen.sandbox.message))
    conditions += _round_conditions(seen, counted)
    phase, create_apps, create_scoring = _phase(seen, counted, scoring, scoring_name, conditions)

    failures = sorted(counted.failures, key=lambda f: (f.finished or "", f.name), reverse=True)
    shown = [api.Failure(app=f.app, job=f.name, reason=f.reason or "Failed", message=f.message[:_MESSAGE_LIMIT],
                         time=f.finished) for f in failures[: api.MAX_FAILURES]]
    started = bool(create_apps) or counted.counts.active + counted.counts.queued > 0 or counted.ended > 0
    status = _status(seen.status, seen.generation, phase, conditions, counted.counts, shown,
                     scoring_name if (create_scoring or phase == "Scoring" or scoring) else None, now, started)
    status["costUsd"] = None if seen.cost_usd is None else round(seen.cost_usd, 4)
    return Decision(create_apps=create_apps, create_scoring=create_scoring, status=status)


def _round_conditions(seen: Observed, counted: _Apps) -> list[dict[str, Any]]:
    """Kueue's admission and the cost budget, when the spec uses them; earlier rounds'
    Retried / Rescored conditions stay as they were."""
    old = seen.status.get("conditions", []) or []
    kept = [c for c in old if c.get("type") in ("Retried", "Rescored")]
    found: list[dict[str, Any]] = list(kept)
    if seen.spec.queue_name:
        waiting = counted.counts.queued
        found.append(_condition(old, seen.now, "Admitted", not waiting, "WaitingForAdmission" if waiting else "Admitted",
                                f"{waiting} Jobs waiting for Kueue's admission in queue {seen.spec.queue_name}"
                                if waiting else f"every created Job admitted by queue {seen.spec.queue_name}"))
    if seen.spec.max_cost is not None:
        spent = seen.cost_usd or 0.0
        found.append(_condition(
            old, seen.now, "WithinBudget", not seen.budget_reached,
            "BudgetReached" if seen.budget_reached else "WithinBudget",
            f"${spent:.4f} of maxCost ${seen.spec.max_cost:g}"
            + (f": {counted.counts.pending} apps not started (unscored; retry with a higher maxCost)"
               if seen.budget_reached and counted.counts.pending else "")))
    return found


def _status(old: Mapping[str, Any], generation: int | None, phase: str, conditions: list[dict],
            counts: api.Counts, failures: list[api.Failure], scoring_job: str | None, now: str,
            started: bool = False) -> dict[str, Any]:
    status = {
        "phase": phase,
        "progress": f"{counts.succeeded + counts.failed}/{counts.total}",
        "observedGeneration": generation,
        "conditions": conditions,
        "counts": counts.wire(),
        "failures": [f.wire() for f in failures],
        "startTime": old.get("startTime") or (now if started else None),
        "completionTime": old.get("completionTime") or (now if phase in TERMINAL else None),
        "scoringJob": scoring_job,
        "round": int(old.get("round") or 0),
    }
    return status


def unscored(status: Mapping[str, Any]) -> bool:
    """The status ends the run because its scoring Job published no results."""
    conditions = status.get("conditions", ()) or ()
    return status.get("phase") == "Failed" and any(
        c.get("type") == "Failed" and c.get("reason") == "ScoringIncomplete" for c in conditions)


def budget_state(status: Mapping[str, Any]) -> Literal["within", "reached"] | None:
    """The run's spec.maxCost as its WithinBudget condition says: ``reached`` once no new
    app Job starts for it, ``within`` before; None without the condition (no maxCost)."""
    budget = next((c for c in status.get("conditions", ()) or () if c.get("type") == "WithinBudget"), None)
    if budget is None:
        return None
    return "within" if budget.get("status") == "True" else "reached"


def changes(current: Mapping[str, Any], desired: Mapping[str, Any]) -> dict[str, Any]:
    """The merge patch that turns ``current`` into ``desired`` (owned keys only);
    empty when nothing changed, so an idle run costs no API writes."""
    return {k: v for k, v in desired.items() if k in OWNED and current.get(k) != v}
