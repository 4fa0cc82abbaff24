"""An EvaluationRun whose judge is an OpenAI-compatible model, scored on the real
control plane: two apps of the bundled example, `judging.model: openai/gpt-4o` and
`batchJudges`, pods on the real kubelet. The chart gives the explorer and the scoring
Job the OpenAI key from its Secret (`llm.providers.openai.apiKeySecret`) and the base
URL (`llm.providers.openai.baseUrl`: the stand-in OpenAI-compatible server on the host,
reached through the pods' loopback egress forward like the store). The app pods ask the
alignment agent interactively; the scoring Job sends the other judges' calls through
the stand-in's batch API (files + batches). Every judged score comes from that judge,
every call carried the Secret's bearer token, and the status shows the judged ranking
and the app pods' LLM cost (the scoring Job's batches come after it is summed)."""

from __future__ import annotations

import json

import boto3

from fakes import example_subset as example
from fakes.real_cluster import BUCKET, LLM_KEY, ON_KUBELET, REAL, Cluster, promql, run_manifest, wait_for

APPS = ["aurora-7b/todomvc", "brisk-3b/todomvc"]
JUDGE = "openai/gpt-4o"
JUDGED = ("aesthetics", "usability", "alignment_functional", "wcb_functionality")
SMALL = {"instrument": {"requests": {"cpu": "100m", "memory": "256Mi"}, "limits": {"memory": "2Gi"}},
         "app": {"requests": {"cpu": "50m", "memory": "64Mi"}, "limits": {"memory": "256Mi"}},
         "explorer": {"requests": {"cpu": "500m", "memory": "512Mi"}, "limits": {"memory": "2Gi"}},
         "scoring": {"requests": {"cpu": "200m", "memory": "256Mi"}, "limits": {"memory": "2Gi"}}}


def test_an_openai_compatible_judge_scores_a_run_on_real_pods(release: Cluster, openai_for_pods):
    fake = openai_for_pods
    example.upload(BUCKET, "openai-judge/", apps=APPS)
    release.apply(run_manifest("openai-judge", "openai-judge", parallelism=2, backoffLimit=0,
                               exploration={"maxSteps": 4}, quality={"enabled": False},
                               judging={"model": JUDGE}, batchJudges=True,
                               scheduling={"nodeSelector": ON_KUBELET}, resources=SMALL,
                               sandbox={"mirrorFetch": False}), REAL)
    status = release.wait_for_phase(REAL, "openai-judge", ("Succeeded", "Failed"), 1200)
    assert status["phase"] == "Succeeded", json.dumps(status, indent=1) + release.diagnose(REAL)
    assert status["counts"]["succeeded"] == len(APPS) and status["counts"]["failed"] == 0

    # the status: the judged ranking over both models, and the app pods' dollars (gpt-4o is priced)
    summary = status["results"]
    assert summary["overallName"] == "judged overall" and len(summary["leaderboard"]) == len(APPS), summary
    assert all(row["overall"] is not None for row in summary["leaderboard"]), summary
    assert status["costUsd"] > 0

    # every judged score of every app came from the OpenAI-compatible judge
    results = json.loads(boto3.client("s3").get_object(Bucket=BUCKET, Key="runs/openai-judge/results.json")["Body"]
                         .read())
    evaluated = [a for a in results["apps"] if f"{a['model']}/{a['task_id']}" in APPS]
    assert len(evaluated) == len(APPS)  # the example's other tasks have no app here: floors, not judged
    for app in evaluated:
        for name in JUDGED:
            score = app["scores"][name]
            assert score["value"] is not None, (app["model"], name, score)
        assert app["scores"]["aesthetics"]["raw"]["judge_model"] == JUDGE
        # aesthetics and usability (advocate, critic, 5 final judges each) and WebCoderBench's 5
        assert app["llm_usage"]["batched_calls"] == 2 * 7 + 5, app["llm_usage"]

    # the stand-in saw the pods' calls, each with the Secret's token, and refused none
    bearer = f"Bearer {LLM_KEY}"
    assert fake.requests and {r.headers.get("authorization") for r in fake.requests} == {bearer}
    assert fake.batches.created and {auth for _, _, auth in fake.batches.calls} == {bearer}
    assert all(b.status == "completed" for b in fake.batches.created)
    assert {r.body["model"] for r in fake.requests} == {"gpt-4o"} and fake.refusals == []

    # the app pods' LLM calls, tokens and dollars per purpose, read back with PromQL from
    # VictoriaMetrics (pods → OTLP → the collector → VictoriaMetrics)
    run = 'iwc_run_name="openai-judge"'

    def by(query: str, *labels: str) -> dict[tuple[str, ...], float]:
        return {tuple(r["metric"].get(k, "") for k in labels): float(r["value"][1]) for r in promql(release, query)}

    dollars = wait_for(lambda: (d := by(f"sum(iwc_llm_cost_USD_total{{{run}}})"))
                       and round(d[()], 4) == status["costUsd"] and d, 90,  # the status keeps 4 decimals
                       "the app pods' dollars in PromQL equal to the status' costUsd")
    calls = by(f"sum by (purpose) (iwc_llm_calls_total{{{run}}})", "purpose")
    tokens = by(f"sum by (purpose, kind) (iwc_llm_purpose_tokens_total{{{run}}})", "purpose", "kind")
    cost = by(f"sum by (purpose) (iwc_llm_cost_USD_total{{{run}}})", "purpose")
    assert calls and all(n > 0 for n in calls.values()), calls
    assert {(p,) for p, _ in tokens} == set(calls) and all((p, "input") in tokens for (p,) in calls), tokens
    assert abs(sum(cost.values()) - dollars[()]) < 1e-9 and set(cost) <= set(calls), cost
    print(f"LLM per purpose in VictoriaMetrics: calls {calls}, dollars {cost}")
    release.kubectl("-n", REAL, "delete", "evaluationrun", "openai-judge")


def test_a_budget_stops_new_apps_on_real_pods_and_a_retry_with_more_runs_them(release: Cluster, openai_for_pods):
    """spec.maxCost below one app's dollars, one app at a time: the first app's pod judges
    (its dollars come from its result.json), the second never starts, and the run is scored
    with what it has (WithinBudget False, BudgetReached); raised and retried, the second
    app runs on a real pod and both are judged."""
    name = "budget"
    example.upload(BUCKET, f"{name}/", apps=APPS)
    release.apply(run_manifest(name, name, parallelism=1, backoffLimit=0, maxCost=0.000001,
                               exploration={"maxSteps": 3}, quality={"enabled": False}, judging={"model": JUDGE},
                               scheduling={"nodeSelector": ON_KUBELET}, resources=SMALL,
                               sandbox={"mirrorFetch": False}), REAL)
    status = release.wait_for_phase(REAL, name, ("Succeeded", "Failed"), 1200)
    assert status["phase"] == "Succeeded", json.dumps(status, indent=1) + release.diagnose(REAL)
    assert status["costUsd"] > 0.000001 and status["counts"]["succeeded"] == 1, status
    assert status["counts"]["pending"] == 1, status["counts"]
    budget = {c["type"]: c for c in status["conditions"]}["WithinBudget"]
    assert (budget["status"], budget["reason"]) == ("False", "BudgetReached") and "1 apps not started" in budget["message"]
    s3 = boto3.client("s3")

    def outcomes() -> dict[str, str]:
        board = json.loads(s3.get_object(Bucket=BUCKET, Key=f"runs/{name}/results.json")["Body"].read())
        return {f"{a['model']}/{a['task_id']}": a["outcome"] for a in board["apps"] if f"{a['model']}/{a['task_id']}" in APPS}

    assert sorted(outcomes().values()) == ["error", "evaluated"], outcomes()  # never started: no result recorded
    release.kubectl("-n", REAL, "patch", "evaluationrun", name, "--type=merge", "-p", '{"spec": {"maxCost": 100}}')
    release.kubectl("-n", REAL, "annotate", "evaluationrun", name, "--overwrite", "iwcbench.io/retry=more-money")
    again = wait_for(lambda: ((s := release.run_status(REAL, name)).get("phase") in ("Succeeded", "Failed")
                              and int(s.get("round") or 0) == 1 and s), 900, "the retry to end",
                     lambda: release.diagnose(REAL))
    assert again["phase"] == "Succeeded" and again["counts"]["succeeded"] == 1, json.dumps(again, indent=1)
    assert outcomes() == {app: "evaluated" for app in APPS}, outcomes()
    budget = {c["type"]: c for c in again["conditions"]}["WithinBudget"]
    assert budget["status"] == "True", budget
    release.kubectl("-n", REAL, "delete", "evaluationrun", name, "--wait=true", "--timeout=120s")
