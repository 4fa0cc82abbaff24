"""Tracking: what the Jobs say → what to create next and the run's status. PURE.

The operator feeds in the spec, the listed apps, a view of each Job (from its index,
never written to) and the current status; it gets back the Jobs to create and the
status it should have. The caller patches only the keys that differ.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal, Mapping, Sequence

from iwcbench.operator import api, planning

JobState = Literal["active", "succeeded", "failed"]
TERMINAL: tuple[str, ...] = ("Succeeded", "Failed")
# Status keys the operator owns; publish-status owns results, resultsURI and leader.
OWNED = ("phase", "progress", "observedGeneration", "conditions", "counts", "startTime",
         "completionTime", "failures", "scoringJob")
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
    ``Failed`` condition ends it; anything else is still active."""
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
    """A finished run stays finished; only a spec that failed validation is looked at
    again (the user may fix it)."""
    if status.get("phase") not in TERMINAL:
        return False
    invalid = any(c.get("type") == "SpecValid" and c.get("status") == "False"
                  for c in status.get("conditions", []) or [])
    return not invalid


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
        name = planning.app_job_name(seen.owner, pair)
        view = by_name.get(name)
        if view is not None:
            states[pair.key] = view.state
            if view.state == "failed":
                failures.append(view)
        elif name in seen.recently_created:
            states[pair.key] = "active"
        else:
            states[pair.key] = "pending"
            pending.append(pair)
    values = list(states.values())
    counts = api.Counts(total=len(apps), pending=values.count("pending"), active=values.count("active"),
                        succeeded=values.count("succeeded"), failed=values.count("failed"))
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
    if not apps.counts.total:
        conditions.append(_condition(old, now, "Failed", True, "NoApps", f"no apps under {spec.apps.uri}"))
        return "Failed", (), False
    if spec.suspend:
        return "Suspended", (), False
    if apps.ended == apps.counts.total:
        return "Scoring", (), True
    room = max(spec.parallelism - apps.counts.active, 0)
    create_apps = apps.pending[:room]
    return ("Running" if (apps.counts.active or apps.ended or create_apps) else "Pending"), create_apps, False


def decide(seen: Observed) -> Decision:
    """The next step of one run."""
    old = seen.status.get("conditions", []) or []
    now, spec = seen.now, seen.spec
    conditions = [_condition(old, now, "SpecValid", True, "Valid")]
    by_name = {j.name: j for j in seen.jobs}
    scoring_name = planning.scoring_job_name(seen.owner)
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
    phase, create_apps, create_scoring = _phase(seen, counted, scoring, scoring_name, conditions)

    failures = sorted(counted.failures, key=lambda f: (f.finished or "", f.name), reverse=True)
    shown = [api.Failure(app=f.app, job=f.name, reason=f.reason or "Failed", message=f.message[:_MESSAGE_LIMIT],
                         time=f.finished) for f in failures[: api.MAX_FAILURES]]
    started = bool(create_apps) or counted.counts.active > 0 or counted.ended > 0
    return Decision(create_apps=create_apps, create_scoring=create_scoring,
                    status=_status(seen.status, seen.generation, phase, conditions, counted.counts, shown,
                                   scoring_name if (create_scoring or phase == "Scoring" or scoring) else None,
                                   now, started))


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
    }
    return status


def unscored(status: Mapping[str, Any]) -> bool:
    """The status ends the run because its scoring Job published no results."""
    conditions = status.get("conditions", ()) or ()
    return status.get("phase") == "Failed" and any(
        c.get("type") == "Failed" and c.get("reason") == "ScoringIncomplete" for c in conditions)


def changes(current: Mapping[str, Any], desired: Mapping[str, Any]) -> dict[str, Any]:
    """The merge patch that turns ``current`` into ``desired`` (owned keys only);
    empty when nothing changed, so an idle run costs no API writes."""
    return {k: v for k, v in desired.items() if k in OWNED and current.get(k) != v}
