"""One sandbox, two runners: an app's build tries to reach a service this machine and the
pod can both reach (the store, 127.0.0.1:S3_PORT: on the host, and through the pod's
loopback forward in the pod). Its vite.config.js throws if the connection opens, so the
app builds only where the build has no network. It builds, with the network isolated, in
`iwc run` and on a real pod of a default install: the chart's DaemonSet wrote its
sandbox-seccomp.json where the kubelet reads Localhost profiles (nobody put it there by
hand), the operator saw it ready and gave the app pod that profile, and the run says so
(Sandboxed). The control (the same build with the network) is
tests/unit/processes/test_confined_limits.py: the attempt succeeds there."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess

import boto3

from fakes.example_subset import IWC
from fakes.real_cluster import (BUCKET, KUBELET_ROOT, ON_KUBELET, POD_RESOURCES, REAL, ROOT, S3_PORT, SYSTEM, Cluster,
                                put_tasks_and_apps, run_manifest)

FIXTURE = ROOT / "tests/fixtures/frameworks/vite"
PREFIX = "sandbox"
TASK = {"id": "t1", "prompt": "A counter with a button that adds one."}
CONFIG = f"""import {{ defineConfig }} from 'vite'
import react from '@vitejs/plugin-react'
import net from 'node:net'

// A build that phones a service while building: the store the pod itself can reach.
const reached = await new Promise((resolve) => {{
  const socket = net.connect({S3_PORT}, '127.0.0.1')
  socket.setTimeout(5000)
  socket.on('connect', () => {{ socket.destroy(); resolve('connected') }})
  socket.on('timeout', () => {{ socket.destroy(); resolve(null) }})
  socket.on('error', () => resolve(null))
}})
if (reached) throw new Error('the build reached 127.0.0.1:{S3_PORT}: builds here have the network')

export default defineConfig({{ plugins: [react()] }})
"""


def _app() -> dict[str, bytes]:
    files = {p.relative_to(FIXTURE).as_posix(): p.read_bytes() for p in FIXTURE.rglob("*")
             if p.is_file() and "node_modules" not in p.parts and "dist" not in p.parts}
    files["vite.config.js"] = CONFIG.encode()
    return files


def _iwc_run(tmp: pathlib.Path) -> tuple[dict, dict]:
    """(result, instrument report) of the app under `iwc run`."""
    app = tmp / "apps" / "m" / "t1"
    for name, data in _app().items():
        (app / name).parent.mkdir(parents=True, exist_ok=True)
        (app / name).write_bytes(data)
    (tmp / "tasks.jsonl").write_text(json.dumps(TASK) + "\n")
    out = tmp / "out"
    done = subprocess.run([IWC, "run", "--tasks", str(tmp / "tasks.jsonl"), "--apps", str(tmp / "apps"), "--out",
                           str(out), "--max-steps", "3", "--metrics", "wcb_linting", "--offline-mirror"],
                          capture_output=True, text=True, timeout=1200,
                          env={**os.environ, **({"IWC_NPM_CACHE": c} if (c := os.environ.get("IWC_TEST_NPM_CACHE"))
                                                else {})})
    assert done.returncode == 0, done.stderr[-3000:]
    evidence = out / "apps" / "m" / "t1"
    return (json.loads((evidence / "result.json").read_text()), json.loads((evidence / "instrument.json").read_text()))


def _pod_run(release: Cluster) -> tuple[dict, dict, dict, dict]:
    """(result, instrument report, the app pod's spec, the run's status) of the app on a real pod."""
    put_tasks_and_apps(PREFIX, [TASK], {"m/t1": _app()})
    release.apply(run_manifest("sandbox", PREFIX, exploration={"maxSteps": 3}, quality={"metrics": ["wcb_linting"]},
                               scheduling={"nodeSelector": ON_KUBELET}, resources=POD_RESOURCES,
                               sandbox={"mirrorFetch": False}), REAL)
    status = release.wait_for_phase(REAL, "sandbox", ("Succeeded", "Failed"), 1200)
    assert status["phase"] == "Succeeded", json.dumps(status, indent=1) + release.diagnose(REAL)
    run = release.get("-n", REAL, "evaluationrun", "sandbox")
    (job,) = release.get("-n", REAL, "jobs", "-l", f"iwcbench.io/run-uid={run['metadata']['uid']},"
                         "iwcbench.io/role=app")["items"]
    s3 = boto3.client("s3")

    def read(key: str) -> dict:
        return json.loads(s3.get_object(Bucket=BUCKET, Key=f"runs/sandbox/apps/m/t1/{key}")["Body"].read())
    return read("result.json"), read("instrument.json"), job["spec"]["template"]["spec"], status


def test_a_build_that_reaches_for_the_network_is_refused_in_iwc_run_and_in_a_pod(release: Cluster, tmp_path):
    # the default install's DaemonSet put the profile on the node
    written = KUBELET_ROOT / "seccomp" / "iwc-bench" / "sandbox.json"
    assert written.read_bytes() == (ROOT / "charts/iwc-operator/files/sandbox-seccomp.json").read_bytes()
    installer = release.get("-n", SYSTEM, "daemonset", "iwc-sandbox-profile")["status"]
    assert installer["numberReady"] == installer["desiredNumberScheduled"] > 0, installer
    pod_result, pod_report, pod, status = _pod_run(release)
    assert pod["securityContext"]["seccompProfile"] == {"type": "Localhost",
                                                       "localhostProfile": "iwc-bench/sandbox.json"}
    (sandboxed,) = [c for c in status["conditions"] if c["type"] == "Sandboxed"]
    assert (sandboxed["status"], sandboxed["reason"]) == ("True", "ProfileInstalled"), sandboxed
    local_result, local_report = _iwc_run(tmp_path)
    for where, result, report in (("iwc run", local_result, local_report), ("pod", pod_result, pod_report)):
        build = report["build"]
        assert build["network_isolated"], (where, build)
        # the connection was refused, so vite.config.js did not throw: built with Istanbul
        assert build["result"] == "instrumented", (where, build)
        assert result["outcome"] == "evaluated", (where, result["reason"])
