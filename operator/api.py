"""The EvaluationRun API (iwcbench.io/v1alpha1): the one source of truth.

Python uses snake_case; the wire (and the CRD that hack/gen-crds writes from these
models) uses camelCase. The models are pure data: no I/O, no Kubernetes client.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal, get_args

import pydantic

from iwcbench.pipeline.contracts import settings

GROUP = "iwcbench.io"
VERSION = "v1alpha1"
KIND = "EvaluationRun"
PLURAL = "evaluationruns"
SINGULAR = "evaluationrun"
SHORT_NAMES = ("evalrun",)
API_VERSION = f"{GROUP}/{VERSION}"

# s3://bucket[/prefix]: the pods share nothing but the store, so a local path is
# meaningless on a cluster. Bucket names follow S3's rules (3–63 characters).
S3_URI = r"^s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/.*)?$"
# Kubernetes quantities ("500m", "2Gi", 1).
QUANTITY = r"^[+-]?(\d+|\d+\.\d*|\.\d+)([eE][+-]?\d+|[numkMGTPE]i?|Ki)?$"

Phase = Literal["Pending", "Running", "Scoring", "Succeeded", "Failed", "Suspended"]
# Annotations a user sets on a finished run (any new value, e.g. a timestamp, asks again):
RETRY_ANNOTATION = f"{GROUP}/retry"  # re-run the apps that ended `error` or were never scored, then score
RESCORE_ANNOTATION = f"{GROUP}/rescore"  # score the stored evidence again (spec.judging / spec.scoring as now)
PHASES: tuple[str, ...] = get_args(Phase)


def _s3_uri(value: str) -> str:
    if not re.match(S3_URI, value):
        raise ValueError(f"must be an s3:// URI (s3://bucket/prefix), got {value!r}")
    return value


# The pattern goes into the CRD (the API server rejects a bad URI at apply time); the
# validator gives the operator's condition a message a person can act on.
S3Uri = Annotated[str, pydantic.AfterValidator(_s3_uri), pydantic.WithJsonSchema(
    {"type": "string", "pattern": S3_URI})]


class _Wire(settings.Section):
    """Every API model: frozen, camelCase on the wire. (A subclass, not an alias of
    Section: pydantic's mypy plugin reads the fields of a model only through a class
    statement's bases.)"""


# ---------------------------------------------------------------- spec


class AppsSource(_Wire):
    uri: S3Uri = pydantic.Field(
        description="s3://bucket/prefix holding <model>/<task_id>/ folders or <task_id>.zip/.tar.gz")
    models: list[str] = pydantic.Field(
        default_factory=list, description="only these models (default: every model found)")


class ResourceRequirements(_Wire):
    requests: dict[str, str | int] = pydantic.Field(default_factory=dict, description="e.g. cpu: 500m")
    limits: dict[str, str | int] = pydantic.Field(default_factory=dict, description="e.g. memory: 2Gi")

    @pydantic.field_validator("requests", "limits")
    @classmethod
    def _quantities(cls, value: dict[str, str | int]) -> dict[str, str | int]:
        for name, quantity in value.items():
            if not re.match(QUANTITY, str(quantity)):
                raise ValueError(f"{name}: {quantity!r} is not a Kubernetes quantity")
        return value


class ResourcesSpec(_Wire):
    instrument: ResourceRequirements | None = None
    app: ResourceRequirements | None = None
    explorer: ResourceRequirements | None = None
    scoring: ResourceRequirements | None = None


class ImagesSpec(_Wire):
    runner: str | None = pydantic.Field(None, min_length=1, description="image for every pod")
    pull_policy: Literal["Always", "IfNotPresent", "Never"] | None = None


class Toleration(_Wire):
    """A pod toleration, as Kubernetes spells it."""

    key: str | None = None
    operator: Literal["Exists", "Equal"] | None = None
    value: str | None = None
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] | None = None
    toleration_seconds: int | None = None


class SchedulingSpec(_Wire):
    """Where the run's pods may go (e.g. a node pool of its own). It applies to Jobs
    created after a change."""

    node_selector: dict[str, str] = pydantic.Field(
        default_factory=dict, description="labels a node must carry for the run's pods (default: any node)")
    tolerations: list[Toleration] = pydantic.Field(
        default_factory=list, description="taints the run's pods tolerate (default: none)")


class EvaluationRunSpec(settings.Evaluation):
    """Where the run's inputs and evidence live, how the cluster runs it, and the
    evaluation settings themselves (exploration, scoring, judging, …: the same models
    ``iwc run`` builds, camelCase on the wire)."""

    tasks: S3Uri = pydantic.Field(description="s3:// URI of tasks.jsonl")
    apps: AppsSource
    store: S3Uri = pydantic.Field(description="s3://bucket/prefix for evidence and results")
    parallelism: int = pydantic.Field(10, ge=1, le=1000, description="app Jobs active at once")
    backoff_limit: int = pydantic.Field(
        2, ge=0, le=10, description="retries of an app Job after infrastructure failures")
    app_timeout_seconds: int | None = pydantic.Field(
        None, ge=60, le=86400, description="deadline of one app Job, all containers, seconds (default: derived "
        "from the evaluation's own limits, above the longest an app may legitimately take, so only a hang "
        "reaches it)")
    queue_name: str | None = pydantic.Field(
        None, min_length=1, max_length=63, pattern=r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$",
        description="Kueue LocalQueue: the run's Jobs carry kueue.x-k8s.io/queue-name and start suspended "
        "until Kueue admits them (default: no queue)")
    priority_class_name: str | None = pydantic.Field(
        None, min_length=1, description="PriorityClass of the run's pods (default: the chart's jobs.priorityClassName)")
    max_cost: float | None = pydantic.Field(
        None, gt=0, description="US dollars of LLM calls: no new app Job starts once the finished apps' cost "
        "reaches it; the apps left are unscored with the reason and a retry with a higher maxCost runs them "
        "(default: no limit)")
    batch_judges: bool = pydantic.Field(
        False, description="judge through batch APIs at half price (Anthropic's Message Batches; OpenAI's where "
        "the endpoint serves it, else one by one), as iwc run --batch-judges: the "
        "app pods judge only the interactive dimensions (the alignment agent), the scoring Job the rest, in "
        "batches, once every app is explored; a rescore batches too (default false)")
    suspend: bool = pydantic.Field(False, description="true: start no new Jobs (running ones finish)")
    resources: ResourcesSpec = ResourcesSpec()
    images: ImagesSpec = ImagesSpec()
    scheduling: SchedulingSpec = SchedulingSpec()


# ---------------------------------------------------------------- status


class Condition(_Wire):
    type: str
    status: Literal["True", "False", "Unknown"]
    reason: str
    message: str = ""
    last_transition_time: str


class Counts(_Wire):
    total: int = 0
    pending: int = 0
    queued: int = pydantic.Field(0, description="app Jobs created and waiting for Kueue's admission")
    active: int = 0
    succeeded: int = 0
    failed: int = 0


class Failure(_Wire):
    app: str = pydantic.Field(description="model/task_id")
    job: str
    reason: str
    message: str = ""
    time: str | None = None


class LeaderRow(_Wire):
    rank: int
    model: str
    overall: float | None = None
    apps: int = 0
    accuracy: float | None = pydantic.Field(
        None, description="WebGen-Bench Accuracy, % of UI test cases (start failures as NO); unset: none run")
    start_failures: int | None = pydantic.Field(
        None, description="apps of tasks with UI test cases that never started")


class ResultsSummary(_Wire):
    uri: str
    digest: str
    apps: int
    leaderboard: list[LeaderRow] = pydantic.Field(default_factory=list)
    overall_name: str | None = pydantic.Field(
        None, description="what the rows' overall is: the offline overall (runtime and code quality, not "
        "requirement satisfaction) or the judged overall (results.json ranking)")


class EvaluationRunStatus(_Wire):
    phase: Phase = "Pending"
    progress: str = pydantic.Field("0/0", description="ended/total app Jobs (printer column)")
    observed_generation: int | None = None
    conditions: list[Condition] = pydantic.Field(default_factory=list)
    counts: Counts = Counts()
    start_time: str | None = None
    completion_time: str | None = None
    failures: list[Failure] = pydantic.Field(default_factory=list, description="most recent, capped")
    scoring_job: str | None = None
    cost_usd: float | None = pydantic.Field(None, description="LLM dollars of the apps finished so far")
    round: int = pydantic.Field(0, description="0: the first pass; each retry or rescore adds one")
    round_kind: Literal["retry", "rescore"] | None = pydantic.Field(None, description="what the current round does")
    retried_for: str | None = pydantic.Field(None, description="the retry annotation's value last acted on")
    rescored_for: str | None = pydantic.Field(None, description="the rescore annotation's value last acted on")
    store_owner: str | None = pydantic.Field(None, description="uid of the run owning spec.store (this one)")
    leader: str | None = None
    results_uri: str | None = pydantic.Field(None, alias="resultsURI")
    results: ResultsSummary | None = None


MAX_FAILURES = 10  # status stays small whatever the number of apps
MAX_LEADERBOARD_ROWS = 5


def describe_error(error: pydantic.ValidationError, root: str = "spec") -> str:
    """'spec.exploration.maxSteps: Input should be ...' for each problem, by wire name;
    a cross-field rule names the field it is about."""
    parts = []
    for item in error.errors():
        where = ".".join(p for p in (root, settings.field_path(item, alias=True)) if p)
        parts.append(f"{where}: {settings.problem_message(item)}")
    return "; ".join(parts)


def parse_spec(raw: dict | None) -> EvaluationRunSpec | str:
    """The validated spec, or a message naming every bad field (for the condition)."""
    try:
        return EvaluationRunSpec.model_validate(raw or {})
    except pydantic.ValidationError as exc:
        return describe_error(exc)
