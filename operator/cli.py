"""``iwc operator ...``: run the operator, or publish a run's results into its status.

    iwc operator run [--namespace NS ...] [--standalone] [--interval S]
    iwc operator publish-status --store URI --evaluation-run NS/NAME

Cluster defaults (runner image, service accounts, ConfigMap and Secret names) come
from the environment the chart sets: IWC_RUNNER_IMAGE, IWC_IMAGE_PULL_POLICY,
IWC_NPM_CACHE_IMAGE (the instrument containers' image when set),
IWC_APP_SERVICE_ACCOUNT, IWC_SCORING_SERVICE_ACCOUNT, IWC_CONFIG_MAP,
IWC_STORE_SECRET, IWC_JOB_TTL_SECONDS, IWC_PRIORITY_CLASS, IWC_SECCOMP_PROFILE
(app pods' Localhost seccomp profile; an empty value means "none"), IWC_SANDBOX_INSTALLER
(NAMESPACE/NAME of the DaemonSet that installs it; empty: the nodes have it), IWC_POD_RESOURCES (JSON: {instrument|app|explorer|scoring: {requests, limits}}) and
IWC_PROVIDER_SECRETS: the Secret of each LLM provider whose key the pods get,
``anthropic=iwc-anthropic,openai=iwc-openai`` (empty: none; unset: the bare model name's
provider's, iwc-anthropic). The chart writes it from llm.providers and its generated
provider map (provider_map).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from typing import Mapping, Sequence

import pydantic

from iwcbench.operator import planning, provider_map

EXIT_CONFIG = 2
EXIT_INFRA = 75

log = logging.getLogger(__name__)


def defaults_from(env: Mapping[str, str]) -> planning.Defaults:
    base = planning.Defaults()

    def pick(var: str, current: str | None) -> str | None:
        if var not in env:
            return current
        return env[var] or None

    return planning.Defaults(
        runner_image=pick("IWC_RUNNER_IMAGE", base.runner_image) or base.runner_image,
        pull_policy=pick("IWC_IMAGE_PULL_POLICY", base.pull_policy) or base.pull_policy,
        npm_cache_image=pick("IWC_NPM_CACHE_IMAGE", base.npm_cache_image),
        app_service_account=pick("IWC_APP_SERVICE_ACCOUNT", base.app_service_account) or base.app_service_account,
        scoring_service_account=pick("IWC_SCORING_SERVICE_ACCOUNT", base.scoring_service_account)
        or base.scoring_service_account,
        config_map=pick("IWC_CONFIG_MAP", base.config_map),
        store_secret=pick("IWC_STORE_SECRET", base.store_secret),
        provider_secrets=provider_map.parse_secrets(env["IWC_PROVIDER_SECRETS"]) if "IWC_PROVIDER_SECRETS" in env
        else base.provider_secrets,
        job_ttl_seconds=_int_or_none(pick("IWC_JOB_TTL_SECONDS", _text(base.job_ttl_seconds))),
        priority_class=pick("IWC_PRIORITY_CLASS", base.priority_class),
        resources=json.loads(env["IWC_POD_RESOURCES"]) if env.get("IWC_POD_RESOURCES") else base.resources,
        seccomp_profile=pick("IWC_SECCOMP_PROFILE", base.seccomp_profile),
        sandbox_installer=pick("IWC_SANDBOX_INSTALLER", base.sandbox_installer),
    )


def _text(value: int | None) -> str | None:
    return None if value is None else str(value)


def _int_or_none(value: str | None) -> int | None:
    return None if value is None else int(value)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="iwc operator", description="The EvaluationRun operator.")
    parser.add_argument("-v", "--verbose", action="store_true")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run the operator (kopf)")
    run.add_argument("--namespace", action="append", default=[],
                     help="watch this namespace (repeatable; default: the whole cluster)")
    run.add_argument("--standalone", action="store_true",
                     help="no peering (run exactly one replica; the chart does)")
    run.add_argument("--interval", type=float, default=5.0, help="seconds between looks at a run (default 5)")
    run.add_argument("--liveness", help="liveness endpoint, e.g. http://0.0.0.0:8080/healthz")
    pub = sub.add_parser("publish-status", help="patch a results summary into an EvaluationRun's status")
    pub.add_argument("--store", required=True, help="the run's store URI (s3://bucket/prefix)")
    pub.add_argument("--evaluation-run", required=True, metavar="NS/NAME")
    return parser


def _run(args: argparse.Namespace) -> int:
    import kopf

    from iwcbench.operator import handlers
    from iwcbench.pipeline.kits import telemetry

    if args.interval <= 0:
        print("iwc operator: --interval must be positive", file=sys.stderr)
        return EXIT_CONFIG
    telemetry.setup("iwc-operator")
    registry = kopf.OperatorRegistry()
    # In-cluster service account, else the kubeconfig: the same as the cluster kit's.
    kopf.on.login(registry=registry)(kopf.login_via_client)
    handlers.register(registry, handlers.Options(interval=args.interval, defaults=defaults_from(os.environ)))
    kopf.configure(verbose=args.verbose)
    for noisy in ("botocore", "boto3", "urllib3", "s3transfer"):
        logging.getLogger(noisy).setLevel(logging.INFO)
    kopf.run(registry=registry, settings=handlers.settings(), standalone=args.standalone,
             namespaces=args.namespace, clusterwide=not args.namespace,
             liveness_endpoint=args.liveness)
    return 0


def _publish(args: argparse.Namespace) -> int:
    from iwcbench.operator import publishing
    from iwcbench.pipeline.kits import cluster as cluster_kit, store as store_mod

    namespace, _, name = args.evaluation_run.partition("/")
    if not namespace or not name or "/" in name:
        print("iwc operator publish-status: --evaluation-run must be NAMESPACE/NAME", file=sys.stderr)
        return EXIT_CONFIG
    try:
        patch = publishing.publish(args.store, namespace, name, cluster_kit.connect())
    except store_mod.NotFound as exc:
        print(f"iwc operator publish-status: no results.json in {args.store} ({exc})", file=sys.stderr)
        return EXIT_INFRA
    except pydantic.ValidationError as exc:
        print(f"iwc operator publish-status: results.json is not valid: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    except cluster_kit.ApiError as exc:
        print(f"iwc operator publish-status: {exc}", file=sys.stderr)
        return EXIT_CONFIG if exc.status in (401, 403, 404, 422) else EXIT_INFRA
    except Exception as exc:  # the store or the API unreachable: retry the pod
        log.exception("publishing failed")
        print(f"iwc operator publish-status: infrastructure failure: {exc}", file=sys.stderr)
        return EXIT_INFRA
    print(json.dumps(patch))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    if args.command == "run":
        return _run(args)  # kopf configures logging
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    return _publish(args)
