"""``iwc submit``: start an EvaluationRun on Kubernetes from the flags ``iwc run`` takes,
plus where the run goes (namespace, name, store) and the cluster fields of its spec.
Argparse only; operator/submitting does the work.
"""

from __future__ import annotations

import argparse
import datetime
import os
import pathlib
import sys
from typing import Any

from iwcbench.operator import api, submitting, watching
from iwcbench.pipeline.cli import options
from iwcbench.pipeline.kits import cluster as cluster_kit
from iwcbench.pipeline.runs import inputs

# Flags of `iwc run` that mean nothing on a cluster, and what to do instead.
_ELSEWHERE = ("`iwc run --estimate` with the same flags prints the same estimate (it reads only local files, "
              "and starts nothing)")
REFUSED: dict[str, str] = {
    "--out": "a cluster run writes its evidence, results.json and report to its store (--store s3://bucket/prefix); "
             "`iwc fetch NAME --out DIR` brings them here",
    "--workers": "apps run side by side as Jobs: --parallelism N",
    "--resume": "a cluster run keeps what its store holds by itself (an app whose stored result was made from the "
                "same inputs is reused); to run its failed apps again, annotate it with iwcbench.io/retry "
                "(docs/kubernetes.md, \"Retry\")",
    "--estimate": _ELSEWHERE,
    "--calibrate-from": _ELSEWHERE,
    "--mirror-dir": "it is a folder of this machine: the pods use the runner image's CDN mirror",
    "--npm-cache": "it is a folder of this machine: the pods' npm cache is the operator's (--npm-registry names a mirror)",
}
# flag (argparse dest) → the spec field it sets (wire spelling, dotted)
SPEC_FIELDS: dict[str, str] = {
    "parallelism": "parallelism", "backoff_limit": "backoffLimit", "job_deadline": "appTimeoutSeconds",
    "queue": "queueName", "priority_class": "priorityClassName", "runner_image": "images.runner",
    "suspend": "suspend",
    # how the run spends (options.add_spending_options): the spec's own fields on a cluster
    "batch_judges": "batchJudges", "max_cost_usd": "maxCost",
}


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("submit", help="upload tasks and apps to S3 and start an EvaluationRun on Kubernetes",
                       description="Upload --tasks and --apps to the store and create an EvaluationRun with the "
                       "settings `iwc run` would use for the same flags. --tasks and --apps may also be s3:// URIs "
                       "(used as they are, nothing uploaded).")
    options.add_input_options(p)
    options.add_evaluation_options(p)
    options.add_spending_options(p)
    add_cluster_options(p)
    for flag in ("--out", "--workers", "--resume", "--estimate", "--calibrate-from"):
        p.add_argument(flag, dest=f"refused_{flag[2:].replace('-', '_')}", nargs="?", const=True,
                       help=argparse.SUPPRESS)
    p.set_defaults(handler=submit)


def add_cluster_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("where the run goes (the EvaluationRun's own fields)")
    g.add_argument("--name", help="the EvaluationRun's name, a DNS-1123 label (default: the apps folder's name "
                   "and the UTC time, e.g. example-20261206-141503)")
    g.add_argument("-n", "--namespace", help="default: the kubeconfig context's namespace")
    g.add_argument("--store", default=os.environ.get("IWC_STORE"), metavar="s3://BUCKET/PREFIX",
                   help="where runs go: this one's store is PREFIX/NAMESPACE/NAME, its inputs under its inputs/ "
                   "(default: IWC_STORE)")
    g.add_argument("--endpoint-url", metavar="URL", help="the S3 endpoint to upload to (default: AWS_ENDPOINT_URL, "
                   "else AWS); the cluster's pods use the chart's store.endpoint")
    g.add_argument("--parallelism", type=int, help="app Jobs active at once (default 10)")
    g.add_argument("--backoff-limit", type=int, help="retries of an app Job after infrastructure failures (default 2)")
    g.add_argument("--job-deadline", type=int, metavar="S",
                   help="an app Job's deadline, seconds (default: derived from the evaluation's limits)")
    g.add_argument("--queue", metavar="LOCALQUEUE", help="Kueue LocalQueue (spec.queueName)")
    g.add_argument("--priority-class", metavar="NAME", help="PriorityClass of the run's pods")
    g.add_argument("--runner-image", metavar="IMAGE", help="image of every pod (default: the chart's)")
    g.add_argument("--node-selector", action="append", default=[], metavar="KEY=VALUE",
                   help="a label the run's nodes must carry (repeatable)")
    g.add_argument("--suspend", action="store_true", default=None, help="create it suspended (spec.suspend)")
    g.add_argument("--spec-file", metavar="FILE", help="YAML of spec fields (or a whole EvaluationRun) the flags "
                   "go over: resources, tolerations, images, ...")
    g.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", dest="set_fields",
                   help="one spec field, over everything else, e.g. resources.explorer.limits.memory=3Gi "
                   "(repeatable; the value is YAML)")
    g.add_argument("--dry-run", action="store_true",
                   help="print the EvaluationRun as YAML (kubectl apply -f - takes it) and stop: nothing is "
                   "uploaded, nothing created")


def _refuse_local_flags(args: argparse.Namespace) -> None:
    for flag, instead in REFUSED.items():
        dest = flag[2:].replace("-", "_")
        if getattr(args, f"refused_{dest}", None) is not None or getattr(args, dest, None):
            raise options.UsageError(f"{flag} has no meaning on a cluster: {instead}")


def _cluster_fields(args: argparse.Namespace) -> dict[str, Any]:
    given = {**vars(args), **options.spending_data(args)}
    fields: dict[str, Any] = {}
    for dest, path in SPEC_FIELDS.items():
        if given.get(dest) is not None:
            fields = submitting.merged(fields, submitting.nested(path, given[dest]))
    selector = {}
    for item in args.node_selector:
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise options.UsageError(f"--node-selector: {item!r} is not KEY=VALUE")
        selector[key] = value
    if selector:
        fields["scheduling"] = {"nodeSelector": selector}
    return fields


def _choices(args: argparse.Namespace) -> submitting.Choices:
    evaluation = options.evaluation(args)
    reference = evaluation.scoring.reference
    if reference and not reference.startswith("s3://"):
        raise options.UsageError(f"--reference: the scoring pod reads it from the store: give the s3:// URI of a "
                                 f"results.json, not {reference!r}")
    return submitting.Choices(
        tasks=args.tasks, apps=args.apps, evaluation=evaluation, models=tuple(args.models),
        cluster=_cluster_fields(args), base=submitting.read_spec_file(args.spec_file) if args.spec_file else {},
        overlays=tuple(submitting.set_value(item) for item in args.set_fields))


def _check_inputs(choices: submitting.Choices) -> int:
    """The tasks file reads (a bad line names itself) and at least one app of a known
    task is there; the number of apps. Inputs already in S3 are read the same way."""
    if not choices.apps.startswith("s3://") and not pathlib.Path(choices.apps).is_dir():
        raise options.UsageError(f"--apps: no such folder: {choices.apps}")
    tasks = inputs.load_tasks(choices.tasks, "--tasks")  # inputs.BadInput: exit 2, naming the line
    found = inputs.expected_apps(choices.apps, choices.models, [t.id for t in tasks])
    if not found:
        models = f" of the models {', '.join(choices.models)}" if choices.models else ""
        raise options.UsageError(f"--apps: no app{models} for a task of {choices.tasks} under {choices.apps} "
                                 "(expected <model>/<task_id>/ folders, or <task_id>.zip / .tar.gz)")
    return len(found)


def submit(args: argparse.Namespace) -> int:
    _refuse_local_flags(args)
    if args.endpoint_url:
        os.environ["AWS_ENDPOINT_URL"] = args.endpoint_url  # the uploads, and reading s3:// inputs
    try:
        choices = _choices(args)
        name = args.name or submitting.derive_name(args.apps, datetime.datetime.now(datetime.timezone.utc))
        placement = submitting.Placement(args.namespace or cluster_kit.default_namespace(),
                                         submitting.check_name(name), submitting.check_store(args.store))
        spec = submitting.spec_for(placement, choices)
        apps = _check_inputs(choices)
    except submitting.Refused as exc:
        raise options.UsageError(str(exc)) from None
    if args.dry_run:
        sys.stdout.write(submitting.to_yaml(submitting.manifest(placement, spec)))
        print(f"dry run: {apps} apps; nothing uploaded (the inputs would go to {placement.run_store}/"
              f"{submitting.INPUTS}/), nothing created", file=sys.stderr)
        return 0
    try:
        done = submitting.submit(placement, choices, spec, cluster_kit.connect())
    except submitting.Refused as exc:
        raise options.UsageError(str(exc)) from None
    except Exception as exc:  # noqa: BLE001 - the API server or the store unreachable, credentials refused
        print(f"iwc submit: {type(exc).__name__}: {exc}", file=sys.stderr)
        return watching.EXIT_INFRA
    print(f"{done.uploaded.describe()} ({placement.run_store}/{submitting.INPUTS}/)", file=sys.stderr)
    print(f"evaluationrun.{api.GROUP}/{placement.name} created in namespace {placement.namespace} ({apps} apps)")
    print("watch it:")
    for line in submitting.how_to_watch(placement):
        print(f"  {line}")
    return 0
