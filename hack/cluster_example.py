"""The whole bundled example on real pods, beside `iwc run` (hack/cluster-example).

The tier's test (tests/cluster/test_real_pods.py) runs four of the example's apps with
two cheap metrics, to stay within CI's time. This runs all of them with every default
metric, as an EvaluationRun whose pods run on the kubelet node (the runner image,
restricted Pod Security, the store on the forwarded loopback port), then `iwc run` on
the same inputs and settings, and prints app for app: the outcome, statement coverage
and every score on both paths, and what differs. Timing-dependent values (Lighthouse's
performance, coverage of timed games) are listed, not hidden.

Needs hack/cluster-up --kubelet --egress 39000 with the images imported
(`IWC_CLUSTER_KEEP=1 hack/cluster-tier` leaves exactly that).

    hack/cluster-example [--max-steps N] [--parallelism N]
"""

from __future__ import annotations

import argparse
import json
import logging
import pathlib
import platform
import statistics
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import boto3  # noqa: E402
from moto.server import ThreadedMotoServer  # noqa: E402

from fakes import example_subset as example, s3_server  # noqa: E402
from fakes.real_cluster import (BUCKET, ON_KUBELET, S3_PORT, SYSTEM, Cluster, chart_values, environment,  # noqa: E402
                                helm_upgrade, prepare_namespace, run_manifest)

NS, NAME = "iwc-example", "example"
APPS = sorted(f"{m.name}/{a.name}" for m in (example.EXAMPLES / "apps").iterdir() if m.is_dir() for a in m.iterdir())
# two app pods and the operator on the node's 2 CPUs
RESOURCES = {
    "instrument": {"requests": {"cpu": "200m", "memory": "256Mi"}, "limits": {"memory": "3Gi"}},
    "app": {"requests": {"cpu": "50m", "memory": "64Mi"}, "limits": {"memory": "256Mi"}},
    "explorer": {"requests": {"cpu": "600m", "memory": "512Mi"}, "limits": {"memory": "3Gi"}},
    "scoring": {"requests": {"cpu": "200m", "memory": "256Mi"}, "limits": {"memory": "2Gi"}},
}


def on_pods(c: Cluster, steps: int, parallelism: int) -> tuple[dict, float]:
    example.upload(BUCKET, "full-example/", APPS)
    c.apply(run_manifest(NAME, "full-example", parallelism=parallelism, backoffLimit=1,
                         exploration={"maxSteps": steps}, scheduling={"nodeSelector": ON_KUBELET},
                         resources=RESOURCES, sandbox={"mirrorFetch": False}), NS)
    started = time.monotonic()
    status = c.wait_for_phase(NS, NAME, ("Succeeded", "Failed"), 3600)
    took = time.monotonic() - started
    if status["phase"] != "Succeeded":
        sys.exit(f"the run ended {status['phase']}: {json.dumps(status.get('conditions'), indent=1)}{c.diagnose(NS)}")
    body = boto3.client("s3").get_object(Bucket=BUCKET, Key=f"runs/{NAME}/results.json")["Body"].read()
    return json.loads(body), took


def _cov(app: dict) -> float | None:
    return ((app.get("exploration") or {}).get("coverage") or {}).get("statements")


def _fmt(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}"


def compare(pods: dict, local: dict) -> list[str]:
    """The per-app table and the differences, as Markdown lines."""
    mine = {f"{a['model']}/{a['task_id']}": a for a in pods["apps"]}
    theirs = {f"{a['model']}/{a['task_id']}": a for a in local["apps"]}
    lines = ["| app | outcome (pods / iwc run) | statements % (pods / iwc run) | scores equal | scores that differ |",
             "|---|---|---:|---:|---|"]
    equal_total = compared_total = 0
    for key in sorted(set(mine) | set(theirs)):
        a, b = mine.get(key, {}), theirs.get(key, {})
        sa, sb = a.get("scores") or {}, b.get("scores") or {}
        names = sorted(set(sa) | set(sb))
        value = lambda s, n: (s.get(n) or {}).get("value")  # noqa: E731
        differ = [f"{n} {value(sa, n)} / {value(sb, n)}" for n in names if value(sa, n) != value(sb, n)]
        equal_total += len(names) - len(differ)
        compared_total += len(names)
        lines.append(f"| {key} | {a.get('outcome')} / {b.get('outcome')} | {_fmt(_cov(a))} / {_fmt(_cov(b))} | "
                     f"{len(names) - len(differ)} of {len(names)} | {', '.join(differ) or '–'} |")
    outcomes = sum(1 for k in mine if k in theirs and mine[k].get("outcome") == theirs[k].get("outcome"))
    deltas = [abs(_cov(mine[k]) - _cov(theirs[k])) for k in mine if k in theirs
              and _cov(mine[k]) is not None and _cov(theirs[k]) is not None]
    board = lambda r: [(row["rank"], row["model"], round(row["overall"], 3)) for row in r["leaderboard"]]  # noqa: E731
    lines += ["", f"outcomes equal: {outcomes} of {len(theirs)} apps; scores equal: {equal_total} of {compared_total};"
              f" statement coverage |Δ|: median {statistics.median(deltas) if deltas else 0:.1f}, max "
              f"{max(deltas, default=0):.1f} points",
              f"leaderboard, pods: {board(pods)}", f"leaderboard, iwc run: {board(local)}"]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-steps", type=int, default=30)
    parser.add_argument("--parallelism", type=int, default=2)
    args = parser.parse_args()
    c = Cluster(environment())
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # moto's one line per request
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=S3_PORT, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{S3_PORT}"
    try:
        with s3_server.patched_environment(endpoint):
            boto3.client("s3").create_bucket(Bucket=BUCKET)
            for ns in (SYSTEM, NS):
                prepare_namespace(c, ns)
            helm_upgrade(c, "iwc", SYSTEM, chart_values([NS], endpoint))
            try:
                pods, pods_s = on_pods(c, args.max_steps, args.parallelism)
            finally:
                c.kubectl("-n", NS, "delete", "evaluationrun", NAME, "--wait=true", "--timeout=120s", check=False)
                c.run(c.env["IWC_HELM"], "uninstall", "iwc", "-n", SYSTEM, "--wait", "--timeout", "120s", check=False)
            with tempfile.TemporaryDirectory() as tmp:
                (pathlib.Path(tmp) / "empty-mirror").mkdir()
                started = time.monotonic()
                local = example.local_results(pathlib.Path(tmp), "--offline-mirror", "--mirror-dir",
                                              str(pathlib.Path(tmp) / "empty-mirror"), apps=APPS,
                                              steps=args.max_steps, metrics=())
                local_s = time.monotonic() - started
    finally:
        server.stop()
    print(f"machine: {platform.node()} · {platform.machine()} · {len(APPS)} apps · max steps {args.max_steps} · "
          f"every default metric · parallelism {args.parallelism}")
    print(f"on real pods: {pods_s:.0f} s to Succeeded; iwc run (1 worker): {local_s:.0f} s\n")
    print("\n".join(compare(pods, local)))


if __name__ == "__main__":
    main()
