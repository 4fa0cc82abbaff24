"""The chart's alert rules (charts/iwc-operator/files/alerts.yaml) against the real
metrics backend: VictoriaMetrics, built by cluster-up --metrics and fed by the operator
through the collector, answers every rule's expr (a PromQL it could not parse is an
HTTP 400), and after a run on kwok's nodes that reached its spec.maxCost the budget
alert's expr returns that run. kwok's pods write nothing, so the test stores each app's
result.json beforehand, with $0.50 of LLM calls, as the pods would have (the operator
reads an app's dollars from it when its Job completes, as test_rounds_on_kwok stores
results in the pods' place): with maxCost $1 and parallelism 1, two apps run and four
never start. Unit-level checks of the same file: tests/unit/packaging/test_alert_rules.py."""

from __future__ import annotations

import pathlib
import urllib.error

import boto3
import pytest
import yaml

from fakes.real_cluster import BUCKET, FAKE, ON_KWOK, Cluster, promql, put_tasks_and_apps, run_manifest, wait_for
from iwcbench.pipeline.contracts import results

NAME = "budgeted"
RULES = pathlib.Path(__file__).resolve().parents[2] / "charts" / "iwc-operator" / "files" / "alerts.yaml"
ALERTS = {rule["alert"]: rule for group in yaml.safe_load(RULES.read_text())["groups"] for rule in group["rules"]}
TASKS = [{"id": f"b{i}", "prompt": f"Page {i}."} for i in range(6)]
APPS = [f"m-a/{t['id']}" for t in TASKS]
COST = 0.5  # dollars of LLM calls each app's stored result says it made


def _query(release: Cluster, alert: str) -> list[dict]:
    try:
        return promql(release, ALERTS[alert]["expr"])
    except urllib.error.HTTPError as error:
        pytest.fail(f"{alert}: VictoriaMetrics refused its expr: {error.code} {error.read().decode()[:500]}")


def test_victoriametrics_parses_every_rules_expr(release: Cluster):
    for alert in ALERTS:
        _query(release, alert)


def _store_results() -> None:
    """What each app pod would have stored: evaluated, with COST dollars of judging."""
    s3 = boto3.client("s3")
    for app in APPS:
        model, task = app.split("/")
        usage = results.LLMUsage(calls=1, cost_usd=COST, purposes={
            "aesthetics.judge": results.PurposeUsage(calls=1, cost_usd=COST)})
        result = results.AppResult(model=model, task_id=task, outcome="evaluated", reason="", llm_usage=usage)
        s3.put_object(Bucket=BUCKET, Key=f"runs/{NAME}/apps/{app}/result.json", Body=result.model_dump_json().encode())


def test_the_budget_alert_returns_a_run_that_reached_its_max_cost(release: Cluster):
    put_tasks_and_apps(NAME, TASKS, {app: {"index.html": b"<p>b</p>"} for app in APPS})
    _store_results()
    release.apply(run_manifest(NAME, NAME, parallelism=1, maxCost=2 * COST, judging={"model": "openai/gpt-4o"},
                               scheduling={"nodeSelector": ON_KWOK}), FAKE)
    status = release.wait_for_phase(FAKE, NAME, ("Succeeded", "Failed"), 300, lambda: release.diagnose(FAKE))
    budget = {c["type"]: c for c in status["conditions"]}["WithinBudget"]
    assert (budget["status"], budget["reason"]) == ("False", "BudgetReached"), budget
    assert status["counts"]["succeeded"] == 2 and status["counts"]["pending"] == 4, status["counts"]

    def firing() -> set[tuple[str, str]]:
        return {(r["metric"].get("namespace", ""), r["metric"].get("run", ""))
                for r in _query(release, "IWCRunBudgetReached")}

    # the operator exports every 5 s here (telemetry.metricIntervalSeconds)
    wait_for(lambda: (FAKE, NAME) in firing(), 90, f"IWCRunBudgetReached's expr to return {FAKE}/{NAME}",
             lambda: str(promql(release, f'iwc_run_budget{{run="{NAME}"}}')))
    within = promql(release, f'iwc_run_budget{{namespace="{FAKE}", run="{NAME}", state="within"}}')
    assert [float(r["value"][1]) for r in within] == [0.0], within
    release.kubectl("-n", FAKE, "delete", "evaluationrun", NAME, "--wait=true", "--timeout=60s")
