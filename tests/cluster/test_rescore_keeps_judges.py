"""A rescore on the real control plane keeps the run's judges: an EvaluationRun judged by
two models (`judging.model` for every judge, `judging.usabilityModel` for usability), one
app of the bundled example on the real kubelet, then the rescore annotation. The
scoring Job's `iwc rescore` gets the spec's judging whole, so the stand-in
OpenAI-compatible server is asked by both models again, and every judged score names
the model its purpose has, before and after."""

from __future__ import annotations

import json

import boto3

from fakes import example_subset as example
from fakes.real_cluster import BUCKET, ON_KUBELET, REAL, Cluster, run_manifest, wait_for

NAME = "two-judges"
APPS = ["aurora-7b/todomvc"]
JUDGE, USABILITY = "openai/gpt-4o", "openai/gpt-4o-mini"
SMALL = {"instrument": {"requests": {"cpu": "100m", "memory": "256Mi"}, "limits": {"memory": "2Gi"}},
         "app": {"requests": {"cpu": "50m", "memory": "64Mi"}, "limits": {"memory": "256Mi"}},
         "explorer": {"requests": {"cpu": "500m", "memory": "512Mi"}, "limits": {"memory": "2Gi"}},
         "scoring": {"requests": {"cpu": "200m", "memory": "256Mi"}, "limits": {"memory": "2Gi"}}}


def _judges(release: Cluster) -> dict[str, str]:
    """Judged dimension → the model its stored score names, for the run's one app."""
    body = boto3.client("s3").get_object(Bucket=BUCKET, Key=f"runs/{NAME}/results.json")["Body"].read()
    app = next(a for a in json.loads(body)["apps"] if f"{a['model']}/{a['task_id']}" in APPS)
    return {name: app["scores"][name]["raw"]["judge_model"] for name in ("aesthetics", "usability")}


def test_a_rescore_of_a_run_with_two_judge_models_keeps_both(release: Cluster, openai_for_pods):
    fake = openai_for_pods
    example.upload(BUCKET, f"{NAME}/", apps=APPS)
    release.apply(run_manifest(NAME, NAME, parallelism=1, backoffLimit=0,
                               exploration={"maxSteps": 3}, quality={"enabled": False},
                               judging={"model": JUDGE, "usabilityModel": USABILITY, "protocol": "single",
                                        "dimensions": ["aesthetics", "usability"]},
                               scheduling={"nodeSelector": ON_KUBELET}, resources=SMALL,
                               sandbox={"mirrorFetch": False}), REAL)
    status = release.wait_for_phase(REAL, NAME, ("Succeeded", "Failed"), 1200)
    assert status["phase"] == "Succeeded", json.dumps(status, indent=1) + release.diagnose(REAL)
    assert _judges(release) == {"aesthetics": JUDGE, "usability": USABILITY}

    before = len(fake.requests)
    release.kubectl("-n", REAL, "annotate", "evaluationrun", NAME, "--overwrite", "iwcbench.io/rescore=two-judges")
    rescored = wait_for(lambda: ((s := release.run_status(REAL, NAME)).get("phase") in ("Succeeded", "Failed")
                                 and s.get("rescoredFor") == "two-judges" and s), 900, "the rescore to end",
                        lambda: release.diagnose(REAL))
    assert rescored["phase"] == "Succeeded", json.dumps(rescored, indent=1) + release.diagnose(REAL)
    asked = {r.body["model"] for r in fake.requests[before:]}
    assert asked == {"gpt-4o", "gpt-4o-mini"}, asked  # both judges asked again, by the rescore Job
    assert _judges(release) == {"aesthetics": JUDGE, "usability": USABILITY}
    release.kubectl("-n", REAL, "delete", "evaluationrun", NAME)
