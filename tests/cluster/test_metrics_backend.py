"""The operator's metrics in a real metrics backend: the operator's pod exports them
over OTLP to the collector (Jaeger v2, forwarded into its network namespace), which
sends them on to VictoriaMetrics, built from its Go module by cluster-up --metrics; the
test reads them back with the PromQL a platform team would write (docs/kubernetes.md,
"Metrics"). The pods' own metrics (app durations, LLM calls per purpose) are read back
in test_real_pods.py and test_openai_judge.py, whose pods really run."""

from __future__ import annotations

from fakes.real_cluster import FAKE, ON_KWOK, Cluster, promql, put_tasks_and_apps, run_manifest, wait_for

NAME = "measured"


def _value(rows: list[dict]) -> float | None:
    return float(rows[0]["value"][1]) if rows else None


def test_runs_by_phase_and_apps_per_run_are_read_back_with_promql(release: Cluster):
    tasks = [{"id": f"p{i}", "prompt": "A page."} for i in range(3)]
    put_tasks_and_apps(NAME, tasks, {f"{m}/{t['id']}": {"index.html": b"<p>m</p>"} for m in ("m-a", "m-b")
                                     for t in tasks})
    release.apply(run_manifest(NAME, NAME, parallelism=3, scheduling={"nodeSelector": ON_KWOK}), FAKE)
    status = release.wait_for_phase(FAKE, NAME, ("Succeeded", "Failed"), 300)
    done = f'iwc_run_apps{{namespace="{FAKE}", run="{NAME}", state="done"}}'

    def phases() -> dict[str, float]:
        return {r["metric"]["phase"]: float(r["value"][1]) for r in promql(release, "sum by (phase) (iwc_runs)")}

    # the operator exports every 5 s here (telemetry.metricIntervalSeconds); the run's
    # end phase comes with the export after its end, its apps done may come before
    wait_for(lambda: _value(promql(release, done)) == 6 and phases().get(status["phase"], 0) >= 1, 90,
             f"{done} = 6 and a run {status['phase']} in VictoriaMetrics", lambda: str(phases()))
    by_state = {r["metric"]["state"]: float(r["value"][1])
                for r in promql(release, f'iwc_run_apps{{namespace="{FAKE}", run="{NAME}"}}')}
    assert by_state == {"done": 6, "failed": 0, "in_flight": 0, "queued": 0, "pending": 0}, by_state
    progress = promql(release, f'sum by (run) (iwc_run_apps{{state="done", run="{NAME}"}}) '
                               f'/ sum by (run) (iwc_run_apps{{run="{NAME}"}})')
    assert _value(progress) == 1.0, progress
    release.kubectl("-n", FAKE, "delete", "evaluationrun", NAME, "--wait=true", "--timeout=60s")
