"""``iwc submit``'s work: an EvaluationRun made from the choices ``iwc run`` takes (the
evaluation settings, the models) and from where the run goes (namespace, name, store,
the cluster fields of the spec); its inputs copied to the store; the resource created.

Where a run's files go under ``--store s3://bucket/prefix``::

    <prefix>/<namespace>/<name>/                     spec.store: evidence, results.json, report/
    <prefix>/<namespace>/<name>/inputs/tasks.jsonl   spec.tasks
    <prefix>/<namespace>/<name>/inputs/apps/         spec.apps.uri (<model>/<task_id>/...)

It must not parse command lines (pipeline/cli/submit does) nor decide anything the
operator decides; the spec is checked by the API models the operator reads.
"""

from __future__ import annotations

import dataclasses
import datetime
import pathlib
import re
from typing import Any, Callable, Iterable

import yaml

from iwcbench.operator import api, syncing
from iwcbench.pipeline.contracts import settings
from iwcbench.pipeline.kits import cluster as cluster_kit, store as store_mod

INPUTS = "inputs"  # under the run's store: tasks.jsonl and apps/
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
NAME_LIMIT = 63  # a label value: the operator puts the run's name on its Jobs' telemetry


class Refused(Exception):
    """The choices cannot make a run; the message names the flag or the spec field."""


@dataclasses.dataclass(frozen=True)
class Placement:
    """Where a run goes: its namespace and name, and the s3:// prefix runs go under."""

    namespace: str
    name: str
    store: str

    @property
    def run_store(self) -> str:
        return f"{self.store.rstrip('/')}/{self.namespace}/{self.name}"

    @property
    def tasks_uri(self) -> str:
        return f"{self.run_store}/{INPUTS}/tasks.jsonl"

    @property
    def apps_uri(self) -> str:
        return f"{self.run_store}/{INPUTS}/apps"


@dataclasses.dataclass(frozen=True)
class Choices:
    """What the run evaluates and how: ``tasks`` and ``apps`` are local paths (uploaded)
    or s3:// URIs (used as they are); ``cluster`` holds the spec's own fields in wire
    form (parallelism, queueName, ...). The flags go over ``base`` (a spec file), and
    ``overlays`` (each ``--set``) over everything, in order."""

    tasks: str
    apps: str
    evaluation: settings.Evaluation
    models: tuple[str, ...] = ()
    cluster: dict[str, Any] = dataclasses.field(default_factory=dict)
    base: dict[str, Any] = dataclasses.field(default_factory=dict)
    overlays: tuple[dict[str, Any], ...] = ()


@dataclasses.dataclass(frozen=True)
class Submitted:
    manifest: dict[str, Any]
    uploaded: syncing.Tally


# ---------------------------------------------------------------- names and places


def derive_name(apps: str, now: datetime.datetime) -> str:
    """``<apps folder>-<UTC date>-<time>``: the folder's name (its parent's when it is
    called ``apps``), as a DNS-1123 label."""
    path = pathlib.PurePosixPath(apps.rstrip("/").removeprefix("s3://"))
    stem = path.parent.name if path.name == "apps" and path.parent.name else path.name
    slug = re.sub(r"[^a-z0-9-]+", "-", stem.lower()).strip("-")[:40].strip("-") or "run"
    if not slug[0].isalpha():
        slug = f"run-{slug}"[:40].strip("-")
    return f"{slug}-{now.astimezone(datetime.timezone.utc):%Y%m%d-%H%M%S}"


def check_name(name: str) -> str:
    if len(name) > NAME_LIMIT or not DNS_LABEL.match(name):
        raise Refused(f"--name: {name!r} is not a DNS-1123 label (lowercase letters, digits and '-', starting "
                      f"and ending with a letter or digit, at most {NAME_LIMIT} characters)")
    return name


def check_store(uri: str | None) -> str:
    if not uri:
        raise Refused("--store: where the run's inputs and results go, s3://bucket/prefix (or IWC_STORE)")
    if not re.match(api.S3_URI, uri):
        raise Refused(f"--store: {uri!r} is not s3://bucket/prefix (a bucket name of 3-63 lowercase letters, "
                      "digits, '.' and '-')")
    return uri.rstrip("/")


# ---------------------------------------------------------------- the resource


def set_value(assignment: str) -> dict[str, Any]:
    """``--set exploration.maxSteps=30`` → ``{"exploration": {"maxSteps": 30}}``; the value
    is read as YAML (numbers, booleans, ``[a, b]``, ``{k: v}``)."""
    path, eq, text = assignment.partition("=")
    keys = [k for k in path.strip().removeprefix("spec.").split(".")]
    if not eq or not all(keys):
        raise Refused(f"--set: {assignment!r} is not FIELD=VALUE with a dotted spec field "
                      "(e.g. exploration.maxSteps=30)")
    try:
        value: Any = yaml.safe_load(text) if text.strip() else ""
    except yaml.YAMLError as exc:
        raise Refused(f"--set {path}: the value is not YAML: {exc}") from None
    return nested(".".join(keys), value)


def nested(path: str, value: Any) -> dict[str, Any]:
    """``nested("images.runner", v)`` → ``{"images": {"runner": v}}``."""
    for key in reversed(path.split(".")):
        value = {key: value}
    return value


def read_spec_file(path: str) -> dict[str, Any]:
    """A spec overlay: a YAML mapping of spec fields, or a whole EvaluationRun (its spec is taken)."""
    try:
        data = yaml.safe_load(pathlib.Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise Refused(f"--spec-file: cannot read {path}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise Refused(f"--spec-file: {path} is not YAML: {exc}") from None
    if isinstance(data, dict) and data.get("kind") == api.KIND:
        data = data.get("spec") or {}
    if not isinstance(data, dict):
        raise Refused(f"--spec-file: {path} holds no mapping of spec fields")
    return data


def merged(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """``over`` on ``base``: mappings merge key by key, anything else is replaced."""
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merged(out[key], value)
        else:
            out[key] = value
    return out


def spec_for(placement: Placement, choices: Choices) -> dict[str, Any]:
    """The spec in wire form, checked as the operator checks it (the message names each
    bad field, ``spec.exploration.maxSteps: ...``); defaults left out."""
    tasks = choices.tasks if choices.tasks.startswith("s3://") else placement.tasks_uri
    apps = choices.apps if choices.apps.startswith("s3://") else placement.apps_uri
    flags: dict[str, Any] = {
        "tasks": tasks, "apps": {"uri": apps}, "store": placement.run_store,
        **choices.evaluation.model_dump(mode="json", by_alias=True, exclude_defaults=True), **choices.cluster}
    if choices.models:
        flags["apps"]["models"] = list(choices.models)
    spec = merged(choices.base, flags)
    for overlay in choices.overlays:
        spec = merged(spec, overlay)
    parsed = api.parse_spec(spec)
    if isinstance(parsed, str):
        raise Refused(parsed)
    dumped = parsed.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    first = ("tasks", "apps", "store")  # the inputs first, as a person writes them
    return {**{k: dumped[k] for k in first}, **{k: v for k, v in dumped.items() if k not in first}}


def manifest(placement: Placement, spec: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": api.API_VERSION, "kind": api.KIND,
            "metadata": {"name": placement.name, "namespace": placement.namespace}, "spec": spec}


def to_yaml(resource: dict[str, Any]) -> str:
    return yaml.safe_dump(resource, sort_keys=False, default_flow_style=False)


# ---------------------------------------------------------------- inputs


def upload(placement: Placement, choices: Choices,
           open_s3: Callable[[str], store_mod.S3Store] = store_mod.S3Store) -> syncing.Tally:
    """The local inputs to the run's ``inputs/`` (what is there already is kept;
    what the folder no longer holds is removed)."""
    s3 = open_s3(placement.run_store)
    tally = syncing.Tally()
    if not choices.tasks.startswith("s3://"):
        key = f"{INPUTS}/tasks.jsonl"
        tally = tally.add(syncing.upload_file(pathlib.Path(choices.tasks), s3, key, syncing.remote_of(s3, key)))
    if not choices.apps.startswith("s3://"):
        # hidden names among models and apps are not apps (the input stage skips them too)
        tally = tally.add(syncing.upload_tree(pathlib.Path(choices.apps), s3, f"{INPUTS}/apps", skip_hidden_depth=2))
    return tally


# ---------------------------------------------------------------- the API server


def refusal(error: cluster_kit.ApiError, what: str) -> str:
    """What the API server said, each field it named first (a 422's causes)."""
    body = error.body if isinstance(error.body, dict) else {}
    causes = (body.get("details") or {}).get("causes") or []
    named = [f"{c.get('field')}: {c.get('message')}" if c.get("field") else str(c.get("message"))
             for c in causes if isinstance(c, dict)]
    told = "; ".join(named) or str(body.get("message") or error)
    if error.status == 404 and "namespaces" not in told:
        return (f"{what}: the API server has no {api.PLURAL}.{api.GROUP} (HTTP 404: {told}): install the "
                "CRD with the chart (docs/kubernetes.md, \"Install with Helm\")")
    if error.status == 403:
        return f"{what}: not allowed (HTTP 403): {told}"
    return f"{what}: the API server refused it (HTTP {error.status}): {told}"


def submit(placement: Placement, choices: Choices, spec: dict[str, Any], cluster: cluster_kit.Cluster,
           open_s3: Callable[[str], store_mod.S3Store] = store_mod.S3Store) -> Submitted:
    """Upload the inputs, then create the EvaluationRun (never over an existing one)."""
    where = f"EvaluationRun {placement.namespace}/{placement.name}"
    exists = (f"--name: an {where} exists already: choose another --name, or delete it first "
              f"(kubectl delete evaluationrun {placement.name} -n {placement.namespace})")
    resource = manifest(placement, spec)
    try:
        if cluster.get(api.GROUP, api.VERSION, api.PLURAL, placement.namespace, placement.name) is not None:
            raise Refused(exists)
        tally = upload(placement, choices, open_s3)
        if cluster.create(api.GROUP, api.VERSION, api.PLURAL, placement.namespace, resource) is None:
            raise Refused(exists)
    except cluster_kit.ApiError as exc:
        if exc.status >= 500 or exc.status == 429:
            raise
        raise Refused(refusal(exc, where)) from None
    return Submitted(manifest=resource, uploaded=tally)


def how_to_watch(placement: Placement) -> Iterable[str]:
    ns, name = placement.namespace, placement.name
    yield f"kubectl get evaluationrun {name} -n {ns} -w"
    yield f"iwc status {name} -n {ns} --watch"
    yield f"iwc fetch {name} -n {ns}"
