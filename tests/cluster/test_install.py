"""What a platform team sees on the first day: `helm install` of the chart, the operator
running from its image as its ServiceAccount, meeting the restricted Pod Security profile
(its namespace enforces "privileged" for the sandbox profile's DaemonSet and warns on
"restricted"; the served namespaces enforce "restricted"), and the API server refusing or
the operator reporting a bad EvaluationRun by the field at fault."""

from __future__ import annotations

import json

from fakes.real_cluster import FAKE, ON_KWOK, SYSTEM, VERSION, Cluster, helm_upgrade, run_manifest, wait_for


def test_the_chart_installs_and_the_operator_runs_from_its_image(release: Cluster):
    pods = release.get("-n", SYSTEM, "pods", "-l", "app.kubernetes.io/name=iwc-operator")["items"]
    assert len(pods) == 1
    pod = pods[0]
    assert pod["status"]["phase"] == "Running"
    assert pod["spec"]["nodeName"] == "127.0.0.1"  # the real kubelet, not a kwok node
    assert pod["spec"]["serviceAccountName"] == "iwc-operator"
    assert pod["spec"]["containers"][0]["image"] == f"localhost/iwc-bench/operator:{VERSION}"
    assert not pod["spec"].get("hostNetwork")  # its own network namespace: loopback forwards only
    # as "restricted" wants: non-root, no capabilities, no privilege escalation
    assert pod["spec"]["securityContext"]["runAsNonRoot"] is True
    args = pod["spec"]["containers"][0]["args"]
    assert "--namespace=iwc-real" in args and "--namespace=iwc-kwok" in args
    # it logs in with its token (in-cluster), and the kubelet's liveness probe reaches it
    log = wait_for(lambda: "kube-probe" in (text := release.operator_log(400)) and text, 90,
                   "the operator's first liveness probe", release.operator_log)
    assert "Initial authentication has finished" in log and "Traceback" not in log, log


def test_the_api_server_refuses_a_bad_manifest_naming_the_field(release: Cluster):
    bad = run_manifest("bad-steps", "none", exploration={"maxSteps": 0})
    proc = release.apply(bad, FAKE, check=False)
    assert proc.returncode != 0
    assert "spec.exploration.maxSteps" in proc.stderr, proc.stderr
    unknown = run_manifest("bad-field", "none", exploration={"maxStep": 5})
    proc = release.kubectl("-n", FAKE, "apply", "--validate=strict", "-f", "-",
                           stdin=json.dumps(unknown), check=False)
    assert proc.returncode != 0 and "maxStep" in proc.stderr, proc.stderr


def test_a_spec_the_operator_cannot_use_fails_with_spec_valid_false_and_no_job(release: Cluster):
    # valid for the schema, refused by the cross-field rule: the llm explorer needs a model
    run = run_manifest("no-model", "none", exploration={"policy": "llm"}, scheduling={"nodeSelector": ON_KWOK})
    release.apply(run, FAKE)
    status = release.wait_for_phase(FAKE, "no-model", ("Failed",), 120)
    valid = next(c for c in status["conditions"] if c["type"] == "SpecValid")
    assert valid["status"] == "False"
    assert "spec.exploration.model" in valid["message"], valid
    jobs = release.get("-n", FAKE, "jobs", "-l", f"iwcbench.io/run-uid={_uid(release, FAKE, 'no-model')}")["items"]
    assert jobs == []
    release.kubectl("-n", FAKE, "delete", "evaluationrun", "no-model")


def _uid(cluster: Cluster, namespace: str, name: str) -> str:
    return cluster.get("-n", namespace, "evaluationrun", name)["metadata"]["uid"]


def test_deleting_a_served_namespace_with_a_run_in_it_finishes(release: Cluster):
    """The namespace's Role may go before its EvaluationRuns: the operator must still
    remove its finalizer, and keep serving the other namespaces."""
    ns = "iwc-doomed"
    release.kubectl("create", "namespace", ns)
    values = release.run(release.env["IWC_HELM"], "get", "values", "iwc", "-n", SYSTEM, "-o", "json").stdout
    current = json.loads(values)
    helm_upgrade(release, "iwc", SYSTEM, {**current, "namespaces": [*current["namespaces"], ns]})
    release.apply(run_manifest("doomed", "none", scheduling={"nodeSelector": ON_KWOK}), ns)
    wait_for(lambda: release.get("-n", ns, "evaluationrun", "doomed")["metadata"].get("finalizers"), 120,
             "the operator's finalizer on the run", lambda: release.operator_log(80))
    release.kubectl("delete", "namespace", ns, "--wait=false")
    wait_for(lambda: release.kubectl("get", "namespace", ns, check=False).returncode != 0, 180,
             f"namespace {ns} to be deleted", lambda: release.operator_log(80))
    helm_upgrade(release, "iwc", SYSTEM, current)
    pods = release.get("-n", SYSTEM, "pods", "-l", "app.kubernetes.io/name=iwc-operator")["items"]
    assert [p["status"]["phase"] for p in pods] == ["Running"]
