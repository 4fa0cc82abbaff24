"""The kopf handlers: thin. An index over our Jobs (read-only: nothing is written to
a Job after its creation), one timer per EvaluationRun whose look (reconciling.py) lists
the apps once, asks ``tracking.decide`` what to do, creates Jobs and patches status when
it changed, and a delete handler that forgets the run.

Handlers are registered on a registry passed in (never at import time), so the
interval and the cluster defaults come from the command line and tests.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any, Callable

import kopf

from iwcbench.operator import api, planning, reconciling, tracking
from iwcbench.pipeline.kits import cluster as cluster_kit, store as store_mod

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


def _list_store(uri: str) -> list[str]:
    return list(store_mod.open_store(uri).list(""))


def register(registry: kopf.OperatorRegistry, options: Options,
             connect: Callable[[], cluster_kit.Cluster] = cluster_kit.connect,
             lister: Callable[[str], list[str]] = _list_store,
             open_store: Callable[[str], store_mod.Store] = store_mod.open_store) -> None:
    work = reconciling.Reconciler(options.defaults, options.concurrent_creates, connect, lister, open_store)

    @kopf.index("batch", "v1", "jobs", id="jobs_by_run", registry=registry,
                labels={planning.LABEL_MANAGED_BY: planning.MANAGED_BY})
    def jobs_by_run(body: kopf.Body, labels: kopf.Labels, **_: Any) -> dict[str, tracking.JobView] | None:
        uid = labels.get(planning.LABEL_RUN_UID)
        return {uid: work.index_job(uid, body)} if uid else None

    @kopf.timer(api.GROUP, api.VERSION, api.PLURAL, id="reconcile", registry=registry,  # type: ignore[arg-type]  # kopf passes the index jobs_by_run as a keyword its TimerFn protocol cannot declare
                interval=options.interval, errors=kopf.ErrorsMode.TEMPORARY, backoff=options.interval)
    def reconcile(spec: kopf.Spec, status: kopf.Status, meta: kopf.Meta, namespace: str | None, name: str,
                  uid: str, patch: kopf.Patch, jobs_by_run: kopf.Index, logger: reconciling.Log,
                  **_: Any) -> None:
        assert namespace is not None  # an EvaluationRun is namespaced (crd.py: scope)
        owner = planning.Owner(namespace=namespace, name=name, uid=uid)
        try:
            work.look(spec, dict(status or {}), meta, owner, patch, list(jobs_by_run.get(uid, [])), logger)
        except cluster_kit.ApiError as exc:
            # the API server refused or is restarting (429, or 403 while its RBAC cache fills
            # again): the next look tries again; logged as a line, not as a crash's traceback
            raise kopf.TemporaryError(f"the API server refused a request: {exc}", delay=options.interval) from exc

    @kopf.on.delete(api.GROUP, api.VERSION, api.PLURAL, id="forget", registry=registry, optional=True)
    def forget(uid: str, **_: Any) -> None:
        work.forget(uid)
