"""The kopf handlers: thin. An index over our Jobs (read-only: nothing is written to
a Job after its creation) and one timer per EvaluationRun that lists the apps once,
asks ``tracking.decide`` what to do, creates Jobs and patches status when it changed.

Handlers are registered on a registry passed in (never at import time), so the
interval and the cluster defaults come from the command line and tests.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import datetime
import logging
import threading
import time
from typing import Any, Callable

import kopf

from iwcbench.operator import api, planning, storing, tracking
from iwcbench.pipeline.kits import cluster as cluster_kit, store as store_mod, telemetry

PREFIX = "iwcbench.io"
FINALIZER = f"{PREFIX}/operator"


@dataclasses.dataclass(frozen=True)
class Options:
    interval: float = 5.0  # seconds between two looks at one run
    concurrent_creates: int = 8  # Job creations in flight at once
    defaults: planning.Defaults = planning.Defaults()


def settings() -> kopf.OperatorSettings:
    """kopf's settings: our own annotation prefix and finalizer name, no namespace
    scanning (we watch named namespaces or the whole cluster), few Events."""
    s = kopf.OperatorSettings()
    s.persistence.finalizer = FINALIZER
    s.persistence.progress_storage = kopf.AnnotationsProgressStorage(prefix=PREFIX)
    s.persistence.diffbase_storage = kopf.AnnotationsDiffBaseStorage(
        prefix=PREFIX, key="last-handled-configuration")
    s.scanning.disabled = True
    s.posting.level = logging.WARNING  # each Event is an API write; keep them for trouble
    return s


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


def _list_store(uri: str) -> list[str]:
    return list(store_mod.open_store(uri).list(""))


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def register(registry: kopf.OperatorRegistry, options: Options,
             connect: Callable[[], cluster_kit.Cluster] = cluster_kit.connect,
             lister: Callable[[str], list[str]] = _list_store,
             open_store: Callable[[str], store_mod.Store] = store_mod.open_store) -> None:
    memory = _Memory(lister)
    claims = storing.Claims(open_store)
    metrics = telemetry.RunMetrics()
    connection: list[cluster_kit.Cluster] = []
    creator = concurrent.futures.ThreadPoolExecutor(max_workers=options.concurrent_creates,
                                                    thread_name_prefix="create-job")

    def cluster() -> cluster_kit.Cluster:
        if not connection:
            connection.append(connect())
        return connection[0]

    @kopf.index("batch", "v1", "jobs", id="jobs_by_run", registry=registry,
                labels={planning.LABEL_MANAGED_BY: planning.MANAGED_BY})
    def jobs_by_run(body: kopf.Body, labels: kopf.Labels, **_: Any) -> dict[str, tracking.JobView] | None:
        uid = labels.get(planning.LABEL_RUN_UID)
        if not uid:
            return None
        view = tracking.job_view(body)
        if view.state in ("succeeded", "failed"):
            # remembered here, as the watch delivers it: a Job's TTL may delete it before
            # the run's next look, and a Job never seen ended would be created again
            memory.remember_ended(uid, view)
        return {uid: view}

    @kopf.timer(api.GROUP, api.VERSION, api.PLURAL, id="reconcile", registry=registry,
                interval=options.interval, errors=kopf.ErrorsMode.TEMPORARY, backoff=options.interval)
    def reconcile(spec: kopf.Spec, status: kopf.Status, meta: kopf.Meta, namespace: str, name: str,
                  uid: str, patch: kopf.Patch, jobs_by_run: kopf.Index, logger: logging.Logger,
                  **_: Any) -> None:
        current = dict(status or {})
        owner = planning.Owner(namespace=namespace, name=name, uid=uid)
        if tracking.is_settled(current):
            memory.forget(uid)
            _observe(metrics, owner, current)
            _next_round(current, dict(meta.get("annotations") or {}), spec, owner, patch, logger)
            return
        generation = meta.get("generation")
        parsed = api.parse_spec(dict(spec))
        parsed = parsed if isinstance(parsed, str) else planning.model_problem(parsed) or parsed
        if isinstance(parsed, str):
            _apply(patch, current, tracking.invalid(current, generation, parsed, _now()))
            return
        owned = claims.claim(parsed.store, storing.Claim(uid=uid, namespace=namespace, name=name),
                             lambda holder: _alive(cluster(), holder))
        if isinstance(owned, str):
            _apply(patch, current, tracking.refused_store(current, generation, owned, _now()))
            return
        if current.get("storeOwner") != uid:
            patch.status["storeOwner"] = uid
        apps, error = memory.apps(uid, parsed)
        round_ = int(current.get("round") or 0)
        rescore = current.get("roundKind") == "rescore"
        if apps is not None and round_:
            apps = [] if rescore else _round_apps(memory, uid, round_, open_store(parsed.store), apps)
        elif apps is not None and uid not in memory.stored:
            # After a restart, a result this run stored counts as done even when its Job
            # has gone (ttlSecondsAfterFinished); a new claim starts from nothing.
            memory.stored[uid] = (storing.stored_results(open_store(parsed.store))
                                  if owned.resumed else frozenset())
        jobs = _jobs_seen(memory, uid, list(jobs_by_run.get(uid, [])))
        created = memory.created(uid)
        created -= {j.name for j in jobs}  # the index has caught up with these
        cost = _cost(memory, uid, parsed, jobs, open_store)
        seen = tracking.Observed(spec=parsed, owner=owner, generation=generation, apps=apps, listing_error=error,
                                 jobs=tuple(jobs), recently_created=frozenset(created), status=current,
                                 results_present=current.get("results") is not None, now=_now(),
                                 round=round_, rescore=rescore, stored=memory.stored.get(uid, frozenset()),
                                 cost_usd=cost, budget_reached=parsed.max_cost is not None
                                 and (cost or 0.0) >= parsed.max_cost)
        decision = tracking.decide(seen)
        manifests = [planning.app_job(owner, parsed, pair, options.defaults, round_) for pair in decision.create_apps]
        # A few creations in flight at once: a thousand round trips one by one is minutes.
        for manifest, _ in zip(manifests, creator.map(cluster().create_job, manifests)):
            created.add(manifest["metadata"]["name"])
        if decision.create_scoring:
            manifest = planning.scoring_job(owner, parsed, options.defaults, round_, rescore)
            cluster().create_job(manifest)
            created.add(manifest["metadata"]["name"])
            logger.info("all %d app Jobs of round %d ended; scoring", len(apps or []), round_)
        if decision.create_apps or decision.create_scoring:
            # The counts above were computed before these Jobs existed; count them now.
            decision = tracking.decide(dataclasses.replace(seen, recently_created=frozenset(created), now=_now()))
        if tracking.unscored(decision.status):
            decision = _verdict_on_fresh_status(seen, decision, cluster(), owner)
        _apply(patch, current, decision.status)
        _observe(metrics, owner, {**current, **decision.status})
        _report_end(current, decision.status, owner)

    @kopf.on.delete(api.GROUP, api.VERSION, api.PLURAL, id="forget", registry=registry, optional=True)
    def forget(uid: str, **_: Any) -> None:
        memory.forget(uid)
        claims.release(uid)
        metrics.forget(uid)

    def _next_round(current: dict[str, Any], annotations: dict[str, str], spec: kopf.Spec, owner: planning.Owner,
                    patch: kopf.Patch, logger: logging.Logger) -> None:
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
        apps, error = memory.apps(owner.uid, parsed)
        if apps is None:
            logger.warning("cannot start the %s: %s", kind, error)
            return
        again = storing.retry_apps(open_store(parsed.store), apps) if kind == "retry" else []
        status = tracking.next_round(current, kind, token, len(again), len(apps), _now())
        memory.round_apps[(owner.uid, status["round"])] = again
        logger.info("%s requested (%s): round %d, %d apps to run", kind, token, status["round"], len(again))
        _apply(patch, current, status)

def _observe(metrics: telemetry.RunMetrics, owner: planning.Owner, status: dict[str, Any]) -> None:
    metrics.observe(owner.uid, {"namespace": owner.namespace, "run": owner.name}, status.get("phase") or "Pending",
                    dict(status.get("counts") or {}), status.get("costUsd"))


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
          open_store: Callable[[str], store_mod.Store]) -> float | None:
    """LLM dollars of the run's finished apps, each read once from its stored result;
    None when the run makes no LLM call."""
    if not spec.uses_llm():
        return None
    costs = memory.costs.setdefault(uid, {})
    new = sorted({j.app for j in jobs if j.role == "app" and j.state == "succeeded" and j.app not in costs})
    if new:
        store = open_store(spec.store)
        for app in new:
            costs[app] = storing.app_cost(store, app)
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
