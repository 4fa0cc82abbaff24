"""The operator against the emulated API server, with stubbed containers: fan-out
bounded by parallelism, a Job per app, scoring after the last app, status a user reads."""

from __future__ import annotations

from fakes import operator_harness as h
from iwcbench.operator import planning

APPS = {f"m{m}/t{t}": {"index.html": b"<p>hi</p>"} for m in (1, 2) for t in (1, 2, 3)}


def test_fan_out_is_bounded_by_parallelism_and_ends_in_scoring(apiserver, namespace, operator, make_kubelet, s3_bucket):
    h.put_apps(s3_bucket, "apps", APPS)
    explore, peak = h.counting_stub(0.4)
    kubelet = make_kubelet(capacity=10, stub_everything=True,
                           stubs={"explore": explore, "publish": h.publish_stub(apiserver, len(APPS))})
    apiserver.apply_run(namespace, h.run_manifest("fan", s3_bucket, parallelism=2))

    run = h.wait_for(lambda: (r := apiserver.get_run(namespace, "fan")) and
                     r.get("status", {}).get("phase") == "Succeeded" and r,
                     60, "the run to succeed", operator.log)
    status = run["status"]
    assert status["counts"] == {"total": 6, "pending": 0, "queued": 0, "active": 0, "succeeded": 6, "failed": 0}
    assert status["progress"] == "6/6"
    assert status["leader"] == "m1"
    assert {c["type"]: c["status"] for c in status["conditions"]}["Complete"] == "True"
    assert status["startTime"] and status["completionTime"]
    assert max(peak) <= 2  # never more app Jobs active than spec.parallelism
    jobs = apiserver.jobs(namespace)
    roles = sorted(j["metadata"]["labels"][planning.LABEL_ROLE] for j in jobs)
    assert roles == ["app"] * 6 + ["scoring"]
    # One pod per Job, and kopf wrote nothing onto the Jobs it only tracks.
    assert all(n == 1 for n in kubelet.attempts.values()) and len(kubelet.attempts) == 7
    assert not any(k.startswith(("kopf.", "iwcbench.io/last")) for j in jobs
                   for k in (j["metadata"].get("annotations") or {}))


def test_bad_spec_field_is_named_in_a_condition(apiserver, namespace, operator, s3_bucket):
    manifest = h.run_manifest("bad", s3_bucket, exploration={"maxSteps": 0}, parallelism=3)
    manifest["spec"]["store"] = "/tmp/not-s3"
    apiserver.apply_run(namespace, manifest)
    run = h.wait_for(lambda: (r := apiserver.get_run(namespace, "bad")) and
                     r.get("status", {}).get("phase") and r, 30, "a status", operator.log)
    assert run["status"]["phase"] == "Failed"
    cond = {c["type"]: c for c in run["status"]["conditions"]}["SpecValid"]
    assert cond["status"] == "False" and cond["reason"] == "InvalidSpec"
    assert "spec.exploration.maxSteps" in cond["message"] and "spec.store" in cond["message"]
    assert apiserver.jobs(namespace) == []
    # Fixing the spec is picked up: the run starts.
    h.put_apps(s3_bucket, "apps", {"m1/t1": {"index.html": b"x"}})
    apiserver.patch_run(namespace, "bad", {"spec": {"store": f"s3://{s3_bucket}/runs/bad",
                                                    "exploration": {"maxSteps": 5}}})
    h.wait_for(lambda: apiserver.jobs(namespace), 30, "a Job after the fix", operator.log)


def test_a_cross_field_rule_is_a_condition_before_any_job(apiserver, namespace, operator, s3_bucket):
    """policy llm with no model anywhere used to be accepted, and every app pod exited 2."""
    h.put_apps(s3_bucket, "apps", {"m1/t1": {"index.html": b"x"}})
    apiserver.apply_run(namespace, h.run_manifest("nomodel", s3_bucket, exploration={"policy": "llm"}))
    run = h.wait_for(lambda: (r := apiserver.get_run(namespace, "nomodel")) and
                     r.get("status", {}).get("phase") and r, 30, "a status", operator.log)
    assert run["status"]["phase"] == "Failed"
    cond = {c["type"]: c for c in run["status"]["conditions"]}["SpecValid"]
    assert cond["status"] == "False" and cond["reason"] == "InvalidSpec"
    assert cond["message"].startswith("spec.exploration.model: the llm explorer needs a model")
    assert apiserver.jobs(namespace) == []


def test_a_model_no_provider_serves_is_a_condition_before_any_job(apiserver, namespace, operator, s3_bucket):
    h.put_apps(s3_bucket, "apps", {"m1/t1": {"index.html": b"x"}})
    apiserver.apply_run(namespace, h.run_manifest("badmodel", s3_bucket, judging={"model": "acme/judge-1"}))
    run = h.wait_for(lambda: (r := apiserver.get_run(namespace, "badmodel")) and
                     r.get("status", {}).get("phase") and r, 30, "a status", operator.log)
    cond = {c["type"]: c for c in run["status"]["conditions"]}["SpecValid"]
    assert run["status"]["phase"] == "Failed" and cond["reason"] == "InvalidSpec"
    assert cond["message"].startswith("spec.judging.model: 'acme/judge-1': unknown provider 'acme'")
    assert apiserver.jobs(namespace) == []
