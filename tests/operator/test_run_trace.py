"""One trace per EvaluationRun: every reporting container of the run's Jobs is given
the run's trace context, the app server none, and the operator emits the root span
once, when the run reaches an end."""

from __future__ import annotations

from iwcbench.operator import api, planning, reconciling
from iwcbench.pipeline.kits import telemetry

OWNER = planning.Owner("research", "nightly", "0b6e3d4e-1111-2222-3333-444455556666")
SPEC = api.EvaluationRunSpec.model_validate({"tasks": "s3://bench/tasks.jsonl", "apps": {"uri": "s3://bench/apps"},
                                             "store": "s3://bench/runs/nightly"})


def _env(container: dict) -> dict[str, str]:
    return {e["name"]: e.get("value") for e in container.get("env", [])}


def test_every_reporting_container_joins_the_runs_trace():
    pair = planning.AppPair("aurora-7b", "000026")
    app = planning.app_job(OWNER, SPEC, pair, planning.Defaults())["spec"]["template"]["spec"]
    scoring = planning.scoring_job(OWNER, SPEC, planning.Defaults())["spec"]["template"]["spec"]
    expected = telemetry.run_traceparent(OWNER.uid)
    by_name = {c["name"]: c for c in app["initContainers"] + app["containers"]}
    for name in ("instrument", "explore"):
        env = _env(by_name[name])
        assert env["TRACEPARENT"] == expected, name
        assert "iwc.model=aurora-7b" in env["OTEL_RESOURCE_ATTRIBUTES"]
        assert f"k8s.job.name={planning.app_job_name(OWNER, pair)}" in env["OTEL_RESOURCE_ATTRIBUTES"]
    assert "env" not in by_name["app"]  # the least trusted process gets no environment at all
    for container in scoring["initContainers"] + scoring["containers"]:
        assert _env(container)["TRACEPARENT"] == expected


def test_the_root_span_is_emitted_once_when_the_run_ends():
    memory = telemetry.setup("operator", memory=True)
    try:
        running = {"phase": "Running", "startTime": "2026-12-01T10:00:00Z"}
        ended = {"phase": "Succeeded", "startTime": "2026-12-01T10:00:00Z",
                 "completionTime": "2026-12-01T10:05:00Z", "counts": {"total": 3, "succeeded": 3, "failed": 0}}
        reconciling._report_end({}, running, OWNER)  # not an end: nothing
        reconciling._report_end(running, ended, OWNER)
        reconciling._report_end(ended, ended, OWNER)  # already ended: not again
        (root,) = memory.spans.get_finished_spans()
        assert root.name == "run" and root.parent is None
        assert (root.end_time - root.start_time) == 300 * 10**9
        assert f"{root.context.trace_id:032x}" == OWNER.uid.replace("-", "")
        assert root.attributes["phase"] == "Succeeded" and root.attributes["apps"] == 3
    finally:
        telemetry.setup("test")
