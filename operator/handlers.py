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

from iwcbench.operator import api, planning, tracking
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
    list (listed once) and the Jobs created but not yet seen in the index."""

    def __init__(self, lister: Callable[[str], list[str]]) -> None:
        self._lister = lister
        self._apps: dict[str, list[planning.AppPair]] = {}
        self._created: dict[str, set[str]] = {}
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

    def forget(self, uid: str) -> None:
        with self._lock:
            self._apps.pop(uid, None)
            self._created.pop(uid, None)


def _list_store(uri: str) -> list[str]:
    return list(store_mod.open_store(uri).list(""))


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def register(registry: kopf.OperatorRegistry, options: Options,
             connect: Callable[[], cluster_kit.Cluster] = cluster_kit.connect,
             lister: Callable[[str], list[str]] = _list_store) -> None:
    memory = _Memory(lister)
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
        return {uid: tracking.job_view(body)} if uid else None

    @kopf.timer(api.GROUP, api.VERSION, api.PLURAL, id="reconcile", registry=registry,
                interval=options.interval, errors=kopf.ErrorsMode.TEMPORARY, backoff=options.interval)
    def reconcile(spec: kopf.Spec, status: kopf.Status, meta: kopf.Meta, namespace: str, name: str,
                  uid: str, patch: kopf.Patch, jobs_by_run: kopf.Index, logger: logging.Logger,
                  **_: Any) -> None:
        current = dict(status or {})
        if tracking.is_settled(current):
            memory.forget(uid)
            return
        generation = meta.get("generation")
        parsed = api.parse_spec(dict(spec))
        parsed = parsed if isinstance(parsed, str) else planning.model_problem(parsed) or parsed
        if isinstance(parsed, str):
            _apply(patch, current, tracking.invalid(current, generation, parsed, _now()))
            return
        owner = planning.Owner(namespace=namespace, name=name, uid=uid)
        apps, error = memory.apps(uid, parsed)
        jobs = list(jobs_by_run.get(uid, []))
        created = memory.created(uid)
        created -= {j.name for j in jobs}  # the index has caught up with these
        seen = tracking.Observed(spec=parsed, owner=owner, generation=generation, apps=apps, listing_error=error,
                                 jobs=tuple(jobs), recently_created=frozenset(created), status=current,
                                 results_present=current.get("results") is not None, now=_now())
        decision = tracking.decide(seen)
        manifests = [planning.app_job(owner, parsed, pair, options.defaults) for pair in decision.create_apps]
        # A few creations in flight at once: a thousand round trips one by one is minutes.
        for manifest, _ in zip(manifests, creator.map(cluster().create_job, manifests)):
            created.add(manifest["metadata"]["name"])
        if decision.create_scoring:
            manifest = planning.scoring_job(owner, parsed, options.defaults)
            cluster().create_job(manifest)
            created.add(manifest["metadata"]["name"])
            logger.info("all %d app Jobs ended; scoring", len(apps or []))
        if decision.create_apps or decision.create_scoring:
            # The counts above were computed before these Jobs existed; count them now.
            decision = tracking.decide(dataclasses.replace(seen, recently_created=frozenset(created), now=_now()))
        if tracking.unscored(decision.status):
            decision = _verdict_on_fresh_status(seen, decision, cluster(), owner)
        _apply(patch, current, decision.status)
        _report_end(current, decision.status, owner)


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
