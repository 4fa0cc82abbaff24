"""Reconciling one EvaluationRun: what one look at it does. The handlers (handlers.py)
call in here; the decisions are tracking's (pure), the Job manifests planning's, and the
run's store is read and written through storing.

One ``Reconciler`` per operator process holds what is cheap to rebuild after a restart
(``_Memory``), the store prefixes' owners (``storing.Claims``) and the run metrics.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import datetime
import logging
import threading
import time
from typing import Any, Callable, Mapping

import kopf

from iwcbench.operator import api, planning, sandboxing, storing, tracking
from iwcbench.pipeline.kits import cluster as cluster_kit, store as store_mod, telemetry

# what kopf hands a handler as its logger (an adapter that names the object)
Log = logging.Logger | logging.LoggerAdapter[Any]


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class _Memory:
    """Per-process knowledge that is cheap to rebuild after a restart: each run's app
    list (listed once), the Jobs created but not yet seen in the index, the Jobs seen
    ended (a Job's ttlSecondsAfterFinished may take it away before the run ends), the
    apps a retry round re-runs, the results stored before a restart, the apps' costs."""

    def __init__(self, lister: Callable[[str], list[str]]) -> None:
        self._lister = lister
        self._apps: dict[str, list[planning.AppPair]] = {}
        self._created: dict[str, set[str]] = {}
        self.ended: dict[str, dict[str, tracking.JobView]] = {}
        self.round_apps: dict[tuple[str, int], list[planning.AppPair]] = {}
        self.stored: dict[str, frozenset[str]] = {}
        self.costs: dict[str, dict[str, float]] = {}
        self._lock = threading.Lock()

    def apps(self, uid: str, spec: api.EvaluationRunSpec) -> tuple[list[planning.AppPair] | None, str | None]:
        if uid in self._apps:
            return self._apps[uid], None
        try:
            keys = self._lister(spec.apps.uri)
        except Exception as exc:  # noqa: BLE001 - the store's trouble becomes a condition
            return None, f"cannot list {spec.apps.uri}: {exc}"[:300]
        pairs = planning.app_pairs(keys, spec.apps.models)
        with self._lock:
            self._apps[uid] = pairs
        return pairs, None

    def created(self, uid: str) -> set[str]:
        with self._lock:
            return self._created.setdefault(uid, set())

    def remember_ended(self, uid: str, view: tracking.JobView) -> None:
        with self._lock:
            self.ended.setdefault(uid, {})[view.name] = view

    def forget(self, uid: str) -> None:
        with self._lock:
            self._apps.pop(uid, None)
            self._created.pop(uid, None)
            self.ended.pop(uid, None)
            self.stored.pop(uid, None)
            self.costs.pop(uid, None)
            for key in [k for k in self.round_apps if k[0] == uid]:
                del self.round_apps[key]


class Reconciler:
    """The operator's work, shared by its handlers (threads: kopf runs sync handlers in
    an executor)."""

    def __init__(self, defaults: planning.Defaults, concurrent_creates: int,
                 connect: Callable[[], cluster_kit.Cluster], lister: Callable[[str], list[str]],
                 open_store: Callable[[str], store_mod.Store]) -> None:
        self.defaults = defaults
        self.memory = _Memory(lister)
        self.claims = storing.Claims(open_store)
        self.metrics = telemetry.RunMetrics()
        self.open_store = open_store
        self._connect = connect
        self._connection: list[cluster_kit.Cluster] = []
        self._creator = concurrent.futures.ThreadPoolExecutor(max_workers=concurrent_creates,
                                                              thread_name_prefix="create-job")
        self.sandbox = sandboxing.Watch(defaults.seccomp_profile, defaults.sandbox_installer, self.cluster)

    def cluster(self) -> cluster_kit.Cluster:
        if not self._connection:
            self._connection.append(self._connect())
        return self._connection[0]

    def index_job(self, uid: str, body: Mapping[str, Any]) -> tracking.JobView:
        view = tracking.job_view(body)
        if view.state in ("succeeded", "failed"):
            # remembered here, as the watch delivers it: a Job's TTL may delete it before
            # the run's next look, and a Job never seen ended would be created again
            self.memory.remember_ended(uid, view)
        return view

    def forget(self, uid: str) -> None:
        """The run is gone."""
        self.memory.forget(uid)
        self.claims.release(uid)
        self.metrics.forget(uid)

    def look(self, spec: Mapping[str, Any], current: dict[str, Any], meta: Mapping[str, Any], owner: planning.Owner,
             patch: kopf.Patch, indexed: list[tracking.JobView], logger: Log) -> None:
        """One look at a run: settle it, refuse it, or take its next step."""
        if tracking.is_settled(current):
            self.memory.forget(owner.uid)
            _observe(self.metrics, owner, current)
            self._next_round(current, dict(meta.get("annotations") or {}), spec, owner, patch, logger)
            return
        generation = meta.get("generation")
        parsed = api.parse_spec(dict(spec))
        parsed = parsed if isinstance(parsed, str) else planning.model_problem(parsed) or parsed
        if isinstance(parsed, str):
            _apply(patch, current, tracking.invalid(current, generation, parsed, _now()))
            return
        owned = self.claims.claim(parsed.store, storing.Claim(uid=owner.uid, namespace=owner.namespace,
                                                              name=owner.name),
                                  lambda holder: _alive(self.cluster(), holder))
        if isinstance(owned, str):
            _apply(patch, current, tracking.refused_store(current, generation, owned, _now()))
            return
        if isinstance(owned, storing.Unavailable):
            _apply(patch, current, tracking.store_unavailable(current, generation, owned.message, _now()))
            return
        if current.get("storeOwner") != owner.uid:
            patch.status["storeOwner"] = owner.uid
        seen = self._observed(parsed, tracking.unrefused(current), generation, owner, owned, indexed)
        self._step(seen, parsed, current, owner, patch, logger)

    def _observed(self, spec: api.EvaluationRunSpec, current: dict[str, Any], generation: int | None,
                  owner: planning.Owner, owned: storing.Owned, indexed: list[tracking.JobView]) -> tracking.Observed:
        """What this look sees: the round's apps, the Jobs (ended ones the TTL took
        included), the results stored before a restart, the cost so far."""
        uid, memory = owner.uid, self.memory
        apps, error = memory.apps(uid, spec)
        round_ = int(current.get("round") or 0)
        rescore = current.get("roundKind") == "rescore"
        if apps is not None and round_:
            apps = [] if rescore else _round_apps(memory, uid, round_, self.open_store(spec.store), apps)
        elif apps is not None and uid not in memory.stored:
            # After a restart, a result this run stored counts as done even when its Job
            # has gone (ttlSecondsAfterFinished); a new claim starts from nothing.
            memory.stored[uid] = (storing.stored_results(self.open_store(spec.store))
                                  if owned.resumed else frozenset())
        jobs = _jobs_seen(memory, uid, indexed)
        created = memory.created(uid)
        created -= {j.name for j in jobs}  # the index has caught up with these
        cost = _cost(memory, uid, spec, jobs, self.open_store, self._creator.map)
        return tracking.Observed(spec=spec, owner=owner, generation=generation, apps=apps, listing_error=error,
                                 jobs=tuple(jobs), recently_created=frozenset(created), status=current,
                                 results_present=current.get("results") is not None, now=_now(),
                                 round=round_, rescore=rescore, stored=memory.stored.get(uid, frozenset()),
                                 cost_usd=cost, budget_reached=spec.max_cost is not None
                                 and (cost or 0.0) >= spec.max_cost, sandbox=self.sandbox.current())

    def _step(self, seen: tracking.Observed, spec: api.EvaluationRunSpec, current: dict[str, Any],
              owner: planning.Owner, patch: kopf.Patch, logger: Log) -> None:
        """Create what the decision asks for, then patch the status that results."""
        decision = tracking.decide(seen)
        created = self.memory.created(owner.uid)
        # app pods name the sandbox's profile only while it is on the nodes (sandboxing)
        defaults = (dataclasses.replace(self.defaults, seccomp_profile=seen.sandbox.profile) if seen.sandbox
                    else self.defaults)
        manifests = [planning.app_job(owner, spec, pair, defaults, seen.round) for pair in decision.create_apps]
        # A few creations in flight at once: a thousand round trips one by one is minutes.
        for manifest, _ in zip(manifests, self._creator.map(self.cluster().create_job, manifests)):
            created.add(manifest["metadata"]["name"])
        if decision.create_scoring:
            manifest = planning.scoring_job(owner, spec, self.defaults, seen.round, seen.rescore)
            self.cluster().create_job(manifest)
            created.add(manifest["metadata"]["name"])
            logger.info("all %d app Jobs of round %d ended; scoring", len(seen.apps or []), seen.round)
        if decision.create_apps or decision.create_scoring:
            # The counts above were computed before these Jobs existed; count them now.
            decision = tracking.decide(dataclasses.replace(seen, recently_created=frozenset(created), now=_now()))
        if tracking.unscored(decision.status):
            decision = _verdict_on_fresh_status(seen, decision, self.cluster(), owner)
        _apply(patch, current, decision.status)
        _observe(self.metrics, owner, {**current, **decision.status})
        _report_end(dict(seen.status), decision.status, owner)

    def _next_round(self, current: dict[str, Any], annotations: dict[str, str], spec: Mapping[str, Any],
                    owner: planning.Owner, patch: kopf.Patch, logger: Log) -> None:
        """A settled run whose retry or rescore annotation has a value not yet acted on
        starts its next round."""
        retry, rescore = annotations.get(api.RETRY_ANNOTATION), annotations.get(api.RESCORE_ANNOTATION)
        kind: tracking.RoundKind
        if retry and retry != current.get("retriedFor"):
            kind, token = "retry", retry
        elif rescore and rescore != current.get("rescoredFor"):
            kind, token = "rescore", rescore
        else:
            return
        parsed = api.parse_spec(dict(spec))
        if isinstance(parsed, str):
            return  # an invalid spec is not settled: this is never reached with one
        apps, error = self.memory.apps(owner.uid, parsed)
        if apps is None:
            logger.warning("cannot start the %s: %s", kind, error)
            return
        again = storing.retry_apps(self.open_store(parsed.store), apps) if kind == "retry" else []
        status = tracking.next_round(current, kind, token, len(again), len(apps), _now())
        self.memory.round_apps[(owner.uid, status["round"])] = again
        logger.info("%s requested (%s): round %d, %d apps to run", kind, token, status["round"], len(again))
        _apply(patch, current, status)


def _observe(metrics: telemetry.RunMetrics, owner: planning.Owner, status: dict[str, Any]) -> None:
    attrs = {"namespace": owner.namespace, "run": owner.name}
    metrics.observe(owner.uid, attrs, status.get("phase") or "Pending", dict(status.get("counts") or {}),
                    status.get("costUsd"))
    metrics.observe_budget(owner.uid, attrs, tracking.budget_state(status))


def _alive(cluster: cluster_kit.Cluster, holder: storing.Claim) -> bool:
    """Whether the run that claimed a store prefix still exists (the same uid: a run
    re-created under the same name is another run)."""
    body = cluster.get(api.GROUP, api.VERSION, api.PLURAL, holder.namespace, holder.name)
    return body is not None and (body.get("metadata") or {}).get("uid") == holder.uid


def _round_apps(memory: _Memory, uid: str, round_: int, store: store_mod.Store,
                apps: list[planning.AppPair]) -> list[planning.AppPair]:
    """The apps a retry round re-runs; after a restart, worked out again from the store
    (the last scoring's results.json is unchanged until this round's scoring ends it)."""
    key = (uid, round_)
    if key not in memory.round_apps:
        memory.round_apps[key] = storing.retry_apps(store, apps)
    return memory.round_apps[key]


def _jobs_seen(memory: _Memory, uid: str, indexed: list[tracking.JobView]) -> list[tracking.JobView]:
    """The index's Jobs plus those seen ended before their TTL took them away."""
    for view in indexed:
        if view.state in ("succeeded", "failed"):
            memory.remember_ended(uid, view)
    names = {v.name for v in indexed}
    return indexed + [v for n, v in dict(memory.ended.get(uid, {})).items() if n not in names]


def _cost(memory: _Memory, uid: str, spec: api.EvaluationRunSpec, jobs: list[tracking.JobView],
          open_store: Callable[[str], store_mod.Store], mapper: Callable = map) -> float | None:
    """LLM dollars of the run's finished apps, each read once from its stored result (a
    few reads at once: after a restart, every finished app is read again); None when the
    run makes no LLM call."""
    if not spec.uses_llm():
        return None
    costs = memory.costs.setdefault(uid, {})
    new = sorted({j.app for j in jobs if j.role == "app" and j.state == "succeeded" and j.app not in costs})
    if new:
        store = open_store(spec.store)
        costs.update(zip(new, mapper(lambda app: storing.app_cost(store, app), new)))
    return sum(costs.values())


def _verdict_on_fresh_status(seen: tracking.Observed, decision: tracking.Decision, cluster: cluster_kit.Cluster,
                             owner: planning.Owner) -> tracking.Decision:
    """Before a run ends as ScoringIncomplete, its status is read from the API server:
    the scoring pod publishes its results there just before it ends, and the watch that
    fed this look may not have delivered that write yet while the Job's end has arrived
    (two resources, two streams). Published, the run is Scored; else the verdict stands."""
    fresh = cluster.get_status(api.GROUP, api.VERSION, api.PLURAL, owner.namespace, owner.name)
    if not fresh or fresh.get("results") is None:
        return decision
    return tracking.decide(dataclasses.replace(seen, results_present=True, now=_now()))


def _report_end(before: dict[str, Any], after: dict[str, Any], owner: planning.Owner) -> None:
    """The run's root span, once, when the run reaches an end: every pod's spans were
    recorded below its ids (planning gives them TRACEPARENT), so the run is one trace."""
    phase = after.get("phase")
    if phase not in tracking.TERMINAL or before.get("phase") in tracking.TERMINAL:
        return
    end = _epoch_ns(after.get("completionTime")) or time.time_ns()
    start = _epoch_ns(after.get("startTime") or before.get("startTime")) or end
    counts = after.get("counts") or {}
    telemetry.emit_root("run", telemetry.run_traceparent(owner.uid), start, end,
                        namespace=owner.namespace, run=owner.name, phase=phase,
                        apps=counts.get("total"), succeeded=counts.get("succeeded"), failed=counts.get("failed"))


def _epoch_ns(stamp: str | None) -> int | None:
    if not stamp:
        return None
    try:
        moment = datetime.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        return None
    return int(moment.replace(tzinfo=datetime.timezone.utc).timestamp() * 1e9)


def _apply(patch: kopf.Patch, current: dict[str, Any], desired: dict[str, Any]) -> None:
    for key, value in tracking.changes(current, desired).items():
        patch.status[key] = value
