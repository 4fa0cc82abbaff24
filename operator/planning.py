"""Planning: spec → Job manifests. PURE: no I/O, no clock, no Kubernetes client.

Every pod command is a real ``iwc`` sub-command (the same stage code as ``iwc run``).
Names are deterministic, so re-planning after an operator restart yields the same
Jobs and creating one that already exists is success, not a duplicate.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from typing import Iterable, Sequence

import pydantic
import pydantic.alias_generators

from iwcbench.operator import api, provider_map
from iwcbench.pipeline.contracts import layout, purposes, settings
from iwcbench.pipeline.kits import telemetry
from iwcbench.pipeline.kits.llm import providers as llm_providers

LABEL_MANAGED_BY = "app.kubernetes.io/managed-by"
MANAGED_BY = "iwc-operator"
LABEL_RUN_UID = "iwcbench.io/run-uid"
LABEL_ROLE = "iwcbench.io/role"  # app | scoring
ANNOTATION_MODEL = "iwcbench.io/model"
ANNOTATION_TASK = "iwcbench.io/task"
LABEL_ROUND = "iwcbench.io/round"  # 0: the first pass; each retry or rescore is the next
KUEUE_QUEUE_LABEL = "kueue.x-k8s.io/queue-name"  # Kueue admits Jobs that carry it (and start suspended)

WORK = "/work"
NPM_CACHE = "/npm-cache"  # the instrument container's npm cache (an emptyDir)
NPM_CACHE_SEED = "/opt/iwc/npm-cache"  # the npm-cache image's pre-filled, read-only cache (absent: none)
APP_PORT = 8080
EXIT_INFRA = 75  # the pod commands' "our side failed, retry" (EX_TEMPFAIL)
EXIT_CONFIG = 2  # bad configuration: a retry cannot help
UID = 10001  # the images' non-root user

@dataclasses.dataclass(frozen=True)
class AppPair:
    model: str
    task_id: str

    @property
    def key(self) -> str:
        return f"{self.model}/{self.task_id}"


@dataclasses.dataclass(frozen=True)
class Owner:
    """The EvaluationRun the Jobs belong to."""

    namespace: str
    name: str
    uid: str


@dataclasses.dataclass(frozen=True)
class Defaults:
    """What the chart configures for every run (the operator reads it from its env)."""

    runner_image: str = "ghcr.io/iwc-bench/runner:0.1.0"
    # the runner plus a pre-filled npm cache (images/npm-cache), run by the instrument
    # containers only; None: they run the runner and download from the registry
    npm_cache_image: str | None = None
    pull_policy: str = "IfNotPresent"
    app_service_account: str = "iwc-app"
    scoring_service_account: str = "iwc-scoring"
    config_map: str | None = "iwc-config"  # AWS_ENDPOINT_URL, AWS_REGION, OTLP endpoint...
    store_secret: str | None = "iwc-store-credentials"  # AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY
    # a Secret (key apiKey) per provider whose key the LLM pods get (anthropic → ANTHROPIC_API_KEY,
    # openai → OPENAI_API_KEY, ...: provider_map); by default the bare model name's provider's, as the chart's
    provider_secrets: tuple[tuple[str, str], ...] = (
        (provider_map.BARE_NAME_PROVIDER, provider_map.secret_name(provider_map.BARE_NAME_PROVIDER)),)
    job_ttl_seconds: int | None = 86400  # finished Jobs (and their pods) go after this; None: kept
    priority_class: str | None = None  # PriorityClass of every pod (a run's spec may name another)
    resources: dict | None = None  # {instrument|app|explorer|scoring: {requests, limits}} from the chart
    # app pods' seccomp profile, a path under each node's kubelet seccomp folder (the chart's
    # sandbox-seccomp.json, which allows unshare: builds and app servers then get loopback
    # only, as in `iwc run`); None: RuntimeDefault, where they share the pod's network
    seccomp_profile: str | None = None
    # NAMESPACE/NAME of the chart's DaemonSet that writes that profile onto the nodes: app
    # pods name it only while it is ready (sandboxing); None: the nodes have it already
    sandbox_installer: str | None = None


# ---------------------------------------------------------------- apps


def app_pairs(keys: Iterable[str], models: Sequence[str] = ()) -> list[AppPair]:
    """Store keys under the apps prefix → (model, task_id) pairs, sorted, unique
    (the input stage's rule, so the cluster and ``iwc run`` see the same apps)."""
    return [AppPair(model, task_id) for model, task_id in layout.pairs_from_keys(keys, models)]


# ---------------------------------------------------------------- names


def _slug(text: str, limit: int) -> str:
    slug = re.sub(r"[^a-z0-9-]+", "-", text.lower()).strip("-")
    return slug[:limit].strip("-") or "x"


def _hash(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:10]


def app_job_name(owner: Owner, pair: AppPair, round_: int = 0) -> str:
    """``<run>-<task>-<hash>``: DNS-1123, ≤ 63 characters (the job-name label limit).
    The hash covers the run's uid, so a re-created run never meets its predecessor's
    Jobs still being garbage-collected, and the round (a retry's Jobs are new ones)."""
    parts = (owner.uid, pair.model, pair.task_id) + ((f"round {round_}",) if round_ else ())
    return f"{_slug(owner.name, 28)}-{_slug(pair.task_id, 20)}-{_hash(*parts)}"


def scoring_job_name(owner: Owner, round_: int = 0) -> str:
    parts = (owner.uid, "scoring") + ((f"round {round_}",) if round_ else ())
    return f"{_slug(owner.name, 40)}-score-{_hash(*parts)}"


# ---------------------------------------------------------------- manifests


_DEFAULT_RESOURCES = {
    # Building a framework app (npm ci, a webpack or Vite build) takes 1–2 GiB; the
    # build's own memory limit (build.memory_mib, 4 GiB) stays below this one.
    "instrument": {"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"memory": "5Gi"}},
    # A static app's server takes ~40 MB; an app built for its framework's server (a
    # Next.js or @astrojs/node server, 150-250 MB) runs inside this one.
    "app": {"requests": {"cpu": "100m", "memory": "64Mi"}, "limits": {"memory": "1Gi"}},
    "explorer": {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"memory": "2Gi"}},
    "scoring": {"requests": {"cpu": "500m", "memory": "512Mi"}, "limits": {"memory": "2Gi"}},
}


def _resources(spec: api.EvaluationRunSpec, which: str, defaults: Defaults) -> dict:
    """The spec's requests and limits for one container, else the chart's, else ours."""
    override = getattr(spec.resources, which)
    if override is not None:
        return override.wire()
    return dict((defaults.resources or {}).get(which) or _DEFAULT_RESOURCES[which])


def _hardened(read_only_root: bool = True) -> dict:
    return {
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": read_only_root,
        "runAsNonRoot": True,
        "capabilities": {"drop": ["ALL"]},
    }


def _pod_security(seccomp_profile: str | None = None) -> dict:
    profile = ({"type": "Localhost", "localhostProfile": seccomp_profile} if seccomp_profile
               else {"type": "RuntimeDefault"})
    return {"runAsNonRoot": True, "runAsUser": UID, "runAsGroup": UID, "fsGroup": UID, "seccompProfile": profile}


def _store_env(defaults: Defaults) -> tuple[list[dict], list[dict]]:
    """(env, envFrom) for containers that talk to the store. Secrets are optional so a
    cluster using workload identity needs none."""
    env: list[dict] = [{"name": "HOME", "value": "/tmp"}]
    if defaults.store_secret:
        for var, key in (("AWS_ACCESS_KEY_ID", "accessKeyId"), ("AWS_SECRET_ACCESS_KEY", "secretAccessKey")):
            env.append({"name": var, "valueFrom": {"secretKeyRef": {
                "name": defaults.store_secret, "key": key, "optional": True}}})
    env_from = [{"configMapRef": {"name": defaults.config_map, "optional": True}}] if defaults.config_map else []
    return env, env_from


def _telemetry_env(owner: Owner, job: str, pair: AppPair | None = None) -> list[dict]:
    """Every container that reports (all but the app server) joins the run's one trace
    and labels what it exports with the run, the Job and the app. Without an OTLP
    endpoint in the ConfigMap they are inert."""
    attributes = [f"k8s.namespace.name={owner.namespace}", f"k8s.job.name={job}",
                  f"iwc.run.name={owner.name}", f"iwc.run.uid={owner.uid}"]
    if pair is not None:
        attributes += [f"iwc.model={pair.model}", f"iwc.task={pair.task_id}"]
    return [{"name": telemetry.PARENT_VAR, "value": telemetry.run_traceparent(owner.uid)},
            {"name": "OTEL_RESOURCE_ATTRIBUTES", "value": ",".join(attributes)}]


def _metadata(owner: Owner, spec: api.EvaluationRunSpec, name: str, role: str, annotations: dict[str, str],
              round_: int) -> dict:
    labels = {LABEL_MANAGED_BY: MANAGED_BY, LABEL_RUN_UID: owner.uid, LABEL_ROLE: role, LABEL_ROUND: str(round_)}
    if spec.queue_name:
        labels[KUEUE_QUEUE_LABEL] = spec.queue_name
    return {
        "name": name,
        "namespace": owner.namespace,
        "labels": labels,
        "annotations": annotations,
        "ownerReferences": [{
            "apiVersion": api.API_VERSION, "kind": api.KIND, "name": owner.name, "uid": owner.uid,
            "controller": True, "blockOwnerDeletion": True,
        }],
    }


def _failure_policy() -> dict:
    """Node drain or preemption is not the app's fault (Ignore: retried, not counted);
    exit 75 is our infrastructure (Count toward backoffLimit); exit 2 is a bad
    configuration that no retry can fix (FailJob). Exit 0 — including an app's own
    defect, which is recorded in the store — is success."""
    return {"rules": [
        {"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget", "status": "True"}]},
        {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [EXIT_CONFIG]}},
        {"action": "Count", "onExitCodes": {"operator": "In", "values": [EXIT_INFRA]}},
    ]}


def _placement(spec: api.EvaluationRunSpec) -> dict:
    """nodeSelector and tolerations of the run's pods, when the spec sets them."""
    placement: dict = {}
    if spec.scheduling.node_selector:
        placement["nodeSelector"] = dict(spec.scheduling.node_selector)
    if spec.scheduling.tolerations:
        placement["tolerations"] = [t.wire() for t in spec.scheduling.tolerations]
    return placement


def _image(spec: api.EvaluationRunSpec, defaults: Defaults) -> dict:
    return {"image": spec.images.runner or defaults.runner_image,
            "imagePullPolicy": spec.images.pull_policy or defaults.pull_policy}


def _builder_image(spec: api.EvaluationRunSpec, defaults: Defaults) -> dict:
    """The instrument container's image: the npm-cache image (the runner with a pre-filled
    npm cache) where the chart names one, unless the run names its own runner."""
    image = _image(spec, defaults)
    if defaults.npm_cache_image and not spec.images.runner:
        image["image"] = defaults.npm_cache_image
    return image


def evaluation_for_pods(spec: api.EvaluationRunSpec) -> str:
    """The evaluation settings every pod of the run receives, as one JSON document:
    the spec's, unchanged, so a pod evaluates an app exactly as ``iwc run`` does with
    the same settings (the same budgets and limits, the same defaults)."""
    return spec.evaluation().document()


# Allowance on top of the evaluation's own limits: fetching the app from the store,
# the app server sidecar starting, the explorer waiting for it, Chromium starting, the
# evidence's upload. None of it is the app's time.
_POD_OVERHEAD_S = 300
# How many times one app may run each limited step (stages/instrumenting/building.py):
# npm ci, npm install after a lockfile npm ci refused, npm rebuild of the allowed scripts;
# the build ladder's four rungs (static and for its server, with and without Istanbul).
_INSTALLS, _BUILDS = 3, 4


def app_deadline_s(spec: api.EvaluationRunSpec) -> int:
    """The app Job's ``activeDeadlineSeconds``: the spec's, else the longest one app may
    legitimately take under the evaluation's own limits (each of which ends in a
    recorded outcome, as in ``iwc run``) plus the pod's overhead, so that the Job's
    deadline only catches a hang — never a slow build the local run would have waited for."""
    if spec.app_timeout_seconds is not None:
        return spec.app_timeout_seconds
    evaluation: settings.Evaluation = spec.evaluation()
    build = evaluation.build
    building = (_INSTALLS * build.install_timeout_s + _BUILDS * build.build_timeout_s) if build.enabled else 0.0
    exploring = evaluation.exploration.load_timeout_s + evaluation.exploration.app_timeout_s
    return int(evaluation.instrumentation.timeout_s + building + exploring + _POD_OVERHEAD_S)


def explore_args(spec: api.EvaluationRunSpec, pair: AppPair) -> list[str]:
    return ["iwc", "app", "explore", "--work", WORK, "--url", f"http://127.0.0.1:{APP_PORT}/",
            "--store", spec.store, "--tasks", spec.tasks, "--model", pair.model, "--task", pair.task_id,
            "--settings", evaluation_for_pods(spec), *(["--batch-judges"] if _batched(spec) else [])]


def _batched(spec: api.EvaluationRunSpec) -> bool:
    """The app pods leave the non-interactive judging to the scoring Job's batches."""
    return spec.batch_judges and spec.uses_llm()


def model_problem(spec: api.EvaluationRunSpec) -> str | None:
    """The first model the spec names that no provider serves (``acme/x``; a bare name is
    Anthropic's), as the condition's message naming the field, else None. The fields are
    contracts/purposes' table's. Keys and endpoints are the pods' to check: the operator
    holds neither."""
    evaluation = spec.evaluation()
    for field in purposes.FIELDS:
        name = purposes.value(evaluation, field)
        if not name:
            continue
        try:
            llm_providers.split(name)
        except llm_providers.ModelProblem as exc:
            where = ".".join(pydantic.alias_generators.to_camel(p) for p in field.split("."))
            return f"spec.{where}: {exc}"
    return None


def _llm_keys(spec: api.EvaluationRunSpec, defaults: Defaults) -> list[dict]:
    """The explorer's API keys, one optional Secret per provider (none without an LLM)."""
    if not spec.uses_llm():
        return []
    return provider_map.key_env(defaults.provider_secrets)


def _job_spec(spec: api.EvaluationRunSpec, defaults: Defaults) -> dict:
    """What every Job of the run has: its failure policy, its clean-up after it ends,
    and, with a Kueue queue, a suspended start (Kueue resumes the Job when it admits it)."""
    job: dict = {"backoffLimit": spec.backoff_limit, "podFailurePolicy": _failure_policy()}
    if defaults.job_ttl_seconds is not None:
        job["ttlSecondsAfterFinished"] = defaults.job_ttl_seconds
    if spec.queue_name:
        job["suspend"] = True
    return job


def _pod_extras(spec: api.EvaluationRunSpec, defaults: Defaults) -> dict:
    """Placement and priority of the run's pods."""
    extras = _placement(spec)
    priority = spec.priority_class_name or defaults.priority_class
    if priority:
        extras["priorityClassName"] = priority
    return extras


def app_job(owner: Owner, spec: api.EvaluationRunSpec, pair: AppPair, defaults: Defaults, round_: int = 0) -> dict:
    """One app's Job: instrument (init) → app server (native sidecar) → explorer."""
    name = app_job_name(owner, pair, round_)
    env, env_from = _store_env(defaults)
    env += _telemetry_env(owner, name, pair)
    explorer_env = [*env, *_llm_keys(spec, defaults)]
    image = _image(spec, defaults)
    # what a result reused later names, and what it was made with (runs.reusing)
    made_by = [{"name": layout.RUN_ENV, "value": f"EvaluationRun {owner.namespace}/{owner.name}"},
               {"name": layout.IMAGE_ENV, "value": image["image"]}]
    instrument = {
        "name": "instrument", **_builder_image(spec, defaults),
        "command": ["iwc", "app", "instrument", "--apps", spec.apps.uri, "--model", pair.model,
                    "--task", pair.task_id, "--tasks", spec.tasks, "--work", WORK, "--store", spec.store,
                    "--settings", evaluation_for_pods(spec)],
        # The registry (IWC_NPM_REGISTRY) comes from the chart's ConfigMap.
        "env": [*env, *made_by, {"name": "IWC_NPM_CACHE", "value": NPM_CACHE},
                {"name": "IWC_NPM_CACHE_SEED", "value": NPM_CACHE_SEED}],
        "envFrom": env_from,
        "resources": _resources(spec, "instrument", defaults),
        "securityContext": _hardened(),
        "volumeMounts": [{"name": "work", "mountPath": WORK}, {"name": "tmp", "mountPath": "/tmp"},
                         {"name": "npm-cache", "mountPath": NPM_CACHE}],
    }
    server = _app_server(spec, image, defaults)
    explorer = {
        "name": "explore", **image,
        "command": explore_args(spec, pair),
        "env": explorer_env, "envFrom": env_from,
        "resources": _resources(spec, "explorer", defaults),
        "securityContext": _hardened(),
        "volumeMounts": [{"name": "work", "mountPath": WORK}, {"name": "tmp", "mountPath": "/tmp"}],
    }
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": _metadata(owner, spec, name, "app", {ANNOTATION_MODEL: pair.model, ANNOTATION_TASK: pair.task_id},
                              round_),
        "spec": {
            **_job_spec(spec, defaults),
            "activeDeadlineSeconds": app_deadline_s(spec),
            "template": {
                "metadata": {"labels": {LABEL_MANAGED_BY: MANAGED_BY, LABEL_RUN_UID: owner.uid, LABEL_ROLE: "app"}},
                "spec": {
                    "restartPolicy": "Never",
                    "serviceAccountName": defaults.app_service_account,
                    "automountServiceAccountToken": False,
                    "enableServiceLinks": False,
                    "securityContext": _pod_security(defaults.seccomp_profile),
                    "initContainers": [instrument, server],
                    "containers": [explorer],
                    **_pod_extras(spec, defaults),
                    "volumes": _app_volumes(),
                },
            },
        },
    }


def _app_volumes() -> list[dict]:
    return [
        # A built app's copy holds its node_modules (up to ~400 MB for CRA).
        {"name": "work", "emptyDir": {"sizeLimit": "4Gi"}},
        {"name": "npm-cache", "emptyDir": {"sizeLimit": "2Gi"}},
        {"name": "tmp", "emptyDir": {"sizeLimit": "2Gi"}},
        {"name": "app-tmp", "emptyDir": {"sizeLimit": "256Mi"}},  # a server build's socket, HOME and log
    ]


def _app_server(spec: api.EvaluationRunSpec, image: dict, defaults: Defaults) -> dict:
    """The app server serves the generated code's files, or runs the app's own framework
    server (a server build, docs/frameworks.md): the least trusted process, with no env,
    no token, a read-only view of the work folder (the built app's copy is on it)."""
    return {
        "name": "app", **image, "restartPolicy": "Always",
        "command": ["iwc", "app", "serve", "--root", f"{WORK}/site", "--port", str(APP_PORT)],
        "ports": [{"name": "http", "containerPort": APP_PORT}],
        "resources": _resources(spec, "app", defaults),
        "securityContext": _hardened(),
        "volumeMounts": [{"name": "work", "mountPath": WORK, "readOnly": True},
                         {"name": "app-tmp", "mountPath": "/tmp"}],
    }


def rescore_args(spec: api.EvaluationRunSpec) -> list[str]:
    """``iwc rescore`` over the run's stored evidence with the spec's judging and UI-test
    settings as they are now, every purpose with its own model (no app is explored
    again); batched with ``spec.batchJudges``."""
    assert spec.evaluation().judging.model, "a rescore re-judges only with a judge model"
    return ["iwc", "rescore", spec.store, "--tasks", spec.tasks, "--settings", evaluation_for_pods(spec),
            *(["--batch"] if spec.batch_judges else [])]


def scoring_job(owner: Owner, spec: api.EvaluationRunSpec, defaults: Defaults, round_: int = 0,
                rescore: bool = False) -> dict:
    """Aggregate every stored app result (``iwc score``), then publish the summary
    into the EvaluationRun's status (the only pod with an API token). A rescore first
    judges the stored evidence again when the spec names a judge."""
    name = scoring_job_name(owner, round_)
    env, env_from = _store_env(defaults)
    env += _telemetry_env(owner, name)
    image = _image(spec, defaults)
    mounts = [{"name": "tmp", "mountPath": "/tmp"}]
    llm_env = [*env, *_llm_keys(spec, defaults)]  # a rescore's or a batch's judge
    rejudge = []
    if rescore and spec.evaluation().judging.model:
        rejudge = [{"name": "rejudge", **image, "command": rescore_args(spec), "env": llm_env, "envFrom": env_from,
                    "resources": _resources(spec, "scoring", defaults), "securityContext": _hardened(),
                    "volumeMounts": mounts}]
    score = {
        "name": "score", **image,
        "command": ["iwc", "score", "--store", spec.store, "--tasks", spec.tasks,
                    "--apps", spec.apps.uri, *(["--models", *spec.apps.models] if spec.apps.models else []),
                    "--settings", evaluation_for_pods(spec), *(["--batch-judges"] if _batched(spec) else [])],
        "env": llm_env if _batched(spec) else env, "envFrom": env_from,
        "resources": _resources(spec, "scoring", defaults),
        "securityContext": _hardened(), "volumeMounts": mounts,
    }
    publish = {
        "name": "publish", **image,
        "command": ["iwc", "operator", "publish-status", "--store", spec.store,
                    "--evaluation-run", f"{owner.namespace}/{owner.name}"],
        "env": env, "envFrom": env_from,
        "resources": {"requests": {"cpu": "50m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}},
        "securityContext": _hardened(), "volumeMounts": mounts,
    }
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": _metadata(owner, spec, name, "scoring", {}, round_),
        "spec": {
            **_job_spec(spec, defaults),
            "template": {
                "metadata": {"labels": {LABEL_MANAGED_BY: MANAGED_BY, LABEL_RUN_UID: owner.uid, LABEL_ROLE: "scoring"}},
                "spec": {
                    "restartPolicy": "Never",
                    "serviceAccountName": defaults.scoring_service_account,
                    "automountServiceAccountToken": True,
                    "enableServiceLinks": False,
                    "securityContext": _pod_security(),
                    "initContainers": [*rejudge, score],
                    "containers": [publish],
                    **_pod_extras(spec, defaults),
                    "volumes": [{"name": "tmp", "emptyDir": {"sizeLimit": "2Gi"}}],
                },
            },
        },
    }
