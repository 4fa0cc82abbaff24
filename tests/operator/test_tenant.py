"""A good tenant of a shared cluster, as planned (pure): every Job cleans up after itself
(ttlSecondsAfterFinished), every pod has the chart's priority class and requests and
limits, and with spec.queueName every Job carries Kueue's queue label and starts
suspended. The chart's values reach the plan through the operator's environment."""

from __future__ import annotations

import pathlib

import helm_python
import kubernetes_validate
import yaml

from iwcbench.operator import api, cli as operator_cli, planning

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHART = ROOT / "charts" / "iwc-operator"
OWNER = planning.Owner("research", "tenant", "0b6e3d4e-1111-2222-3333-444455556666")
INPUTS = {"tasks": "s3://bench/tasks.jsonl", "apps": {"uri": "s3://bench/apps"}, "store": "s3://bench/runs/t"}


def _manifests(values: dict) -> list[dict]:
    """What Helm renders of the chart with these values."""
    rendered = helm_python.Chart.load(str(CHART)).render(values, name="iwc", namespace="iwc-system")
    return [doc for template, text in rendered.items() if template.endswith(".yaml")
            for doc in yaml.safe_load_all(text) if doc]


def _operator_env(values: dict) -> dict[str, str]:
    """The environment the chart gives the operator's container, rendered by Helm."""
    for doc in _manifests(values):
        if doc.get("kind") == "Deployment":
            return {e["name"]: e["value"] for e in doc["spec"]["template"]["spec"]["containers"][0]["env"]
                    if "value" in e}
    raise AssertionError("no Deployment rendered")


def _jobs(spec: dict, defaults: planning.Defaults) -> list[dict]:
    parsed = api.EvaluationRunSpec.model_validate({**INPUTS, **spec})
    return [planning.app_job(OWNER, parsed, planning.AppPair("m", "t"), defaults),
            planning.scoring_job(OWNER, parsed, defaults)]


def test_chart_values_reach_every_job_and_pod():
    values = yaml.safe_load((CHART / "ci" / "all-on-values.yaml").read_text())
    defaults = operator_cli.defaults_from(_operator_env(values))
    for job in _jobs({}, defaults):
        assert job["spec"]["ttlSecondsAfterFinished"] == 3600
        pod = job["spec"]["template"]["spec"]
        assert pod["priorityClassName"] == "iwc-batch"
        kubernetes_validate.validate(job, "1.30", strict=True)
    app_pod = _jobs({}, defaults)[0]["spec"]["template"]["spec"]
    containers = {c["name"]: c for c in app_pod["initContainers"] + app_pod["containers"]}
    assert containers["explore"]["resources"] == {"requests": {"cpu": "2", "memory": "2Gi"}, "limits": {"memory": "4Gi"}}
    assert containers["instrument"]["resources"]["limits"] == {"memory": "6Gi"}
    # a container the chart leaves out keeps the operator's own requests and limits
    assert containers["app"]["resources"]["requests"] and containers["app"]["resources"]["limits"]
    # a run's own spec wins over the chart
    jobs = _jobs({"priorityClassName": "urgent", "resources": {"explorer": {"requests": {"cpu": "3"}}}}, defaults)
    pod = jobs[0]["spec"]["template"]["spec"]
    assert pod["priorityClassName"] == "urgent"
    assert pod["containers"][0]["resources"]["requests"] == {"cpu": "3"}


def test_default_chart_cleans_up_jobs_and_sets_no_priority_class():
    defaults = operator_cli.defaults_from(_operator_env({}))
    for job in _jobs({}, defaults):
        assert job["spec"]["ttlSecondsAfterFinished"] == 86400
        assert "priorityClassName" not in job["spec"]["template"]["spec"]
    kept = operator_cli.defaults_from(_operator_env({"jobs": {"ttlSecondsAfterFinished": None}}))
    assert all("ttlSecondsAfterFinished" not in job["spec"] for job in _jobs({}, kept))


def test_kueue_queue_label_and_suspended_start():
    for job in _jobs({"queueName": "team-a"}, planning.Defaults()):
        assert job["metadata"]["labels"][planning.KUEUE_QUEUE_LABEL] == "team-a"
        assert job["spec"]["suspend"] is True
        kubernetes_validate.validate(job, "1.30", strict=True)
    for job in _jobs({}, planning.Defaults()):
        assert planning.KUEUE_QUEUE_LABEL not in job["metadata"]["labels"] and "suspend" not in job["spec"]


def test_retry_and_rescore_rounds_have_jobs_of_their_own():
    pair = planning.AppPair("m", "t")
    names = {planning.app_job_name(OWNER, pair, r) for r in range(3)} | {planning.scoring_job_name(OWNER, r)
                                                                          for r in range(3)}
    assert len(names) == 6
    assert planning.app_job_name(OWNER, pair, 0) == planning.app_job_name(OWNER, pair)  # round 0 as before
    judged = api.EvaluationRunSpec.model_validate({**INPUTS, "judging": {"model": "claude-x"}, "batchJudges": True})
    rescore = planning.scoring_job(OWNER, judged, planning.Defaults(), 1, rescore=True)
    first = rescore["spec"]["template"]["spec"]["initContainers"][0]
    assert first["name"] == "rejudge"
    assert first["command"][:3] == ["iwc", "rescore", "s3://bench/runs/t"] and "--batch" in first["command"]
    assert "ANTHROPIC_API_KEY" in {e["name"] for e in first["env"]}
    # without a judge, a rescore only aggregates again (new weights)
    plain = planning.scoring_job(OWNER, api.EvaluationRunSpec.model_validate(INPUTS), planning.Defaults(), 1, True)
    assert [c["name"] for c in plain["spec"]["template"]["spec"]["initContainers"]] == ["score"]


def test_batch_judging_splits_between_app_pods_and_the_scoring_job():
    from iwcbench.pipeline import cli as pipeline_cli

    spec = api.EvaluationRunSpec.model_validate({**INPUTS, "judging": {"model": "claude-x"}, "batchJudges": True})
    app = planning.app_job(OWNER, spec, planning.AppPair("m", "t"), planning.Defaults())
    score = planning.scoring_job(OWNER, spec, planning.Defaults())["spec"]["template"]["spec"]["initContainers"][0]
    explore = app["spec"]["template"]["spec"]["containers"][0]
    for container in (explore, score):
        assert "--batch-judges" in container["command"]
        assert pipeline_cli._parser().parse_args(container["command"][1:]).batch_judges
    assert "ANTHROPIC_API_KEY" in {e["name"] for e in score["env"]}  # the scoring Job judges now
    plain = planning.scoring_job(OWNER, api.EvaluationRunSpec.model_validate(INPUTS), planning.Defaults())
    plain_score = plain["spec"]["template"]["spec"]["initContainers"][0]
    assert "--batch-judges" not in plain_score["command"]
    assert "ANTHROPIC_API_KEY" not in {e["name"] for e in plain_score["env"]}


def test_the_chart_sandbox_profile_reaches_app_pods_only():
    """By default app pods run under the chart's Localhost profile (it allows unshare, so
    builds and app servers get loopback only, as in `iwc run`), which the chart's
    DaemonSet writes onto each node; the scoring pod builds nothing and keeps
    RuntimeDefault, as do app pods when sandbox.seccompProfile is emptied."""
    for values in ({}, yaml.safe_load((CHART / "ci" / "all-on-values.yaml").read_text())):
        defaults = operator_cli.defaults_from(_operator_env(values))
        assert defaults.sandbox_installer == "iwc-system/iwc-sandbox-profile"
        app, scoring = _jobs({}, defaults)
        assert app["spec"]["template"]["spec"]["securityContext"]["seccompProfile"] == {
            "type": "Localhost", "localhostProfile": "iwc-bench/sandbox.json"}
        assert scoring["spec"]["template"]["spec"]["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
        kubernetes_validate.validate(app, "1.30", strict=True)
        shipped = [doc for doc in _manifests(values)
                   if doc.get("kind") == "ConfigMap" and doc["metadata"]["name"] == "iwc-sandbox-seccomp"]
        assert [yaml.safe_load(d["data"]["sandbox.json"]) for d in shipped] == [
            yaml.safe_load((CHART / "files" / "sandbox-seccomp.json").read_text())]
    off = operator_cli.defaults_from(_operator_env({"sandbox": {"seccompProfile": ""}}))
    assert (off.seccomp_profile, off.sandbox_installer) == (None, None)
    for job in _jobs({}, off):
        assert job["spec"]["template"]["spec"]["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}


def test_the_chart_installs_the_profile_on_every_node_it_may_run_app_pods_on():
    """The DaemonSet mounts the ConfigMap and the kubelet's seccomp folder and writes the
    profile at the path app pods name; the operator may read that DaemonSet only."""
    docs = _manifests({"sandbox": {"installer": {"kubeletRootDir": "/srv/kubelet/"}}})
    (daemonset,) = [d for d in docs if d["kind"] == "DaemonSet"]
    pod = daemonset["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert container["command"][-1] == "/host-seccomp/iwc-bench/sandbox.json"
    assert "--check" in container["readinessProbe"]["exec"]["command"]
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert volumes["seccomp"]["hostPath"] == {"path": "/srv/kubelet/seccomp", "type": "DirectoryOrCreate"}
    assert volumes["profile"]["configMap"]["name"] == "iwc-sandbox-seccomp"
    assert container["securityContext"]["capabilities"] == {"drop": ["ALL"]}
    assert pod["tolerations"] == [{"operator": "Exists"}]
    (role,) = [d for d in docs if d["kind"] == "Role" and d["metadata"]["name"] == "iwc-operator-sandbox"]
    assert role["rules"] == [{"apiGroups": ["apps"], "resources": ["daemonsets"],
                              "resourceNames": ["iwc-sandbox-profile"], "verbs": ["get"]}]
    for values in ({"sandbox": {"installer": {"enabled": False}}}, {"sandbox": {"seccompProfile": ""}}):
        assert not [d for d in _manifests(values) if d["kind"] == "DaemonSet"]
    yours = operator_cli.defaults_from(_operator_env({"sandbox": {"installer": {"enabled": False}}}))
    assert (yours.seccomp_profile, yours.sandbox_installer) == ("iwc-bench/sandbox.json", None)


def test_the_npm_cache_image_runs_only_the_instrument_container():
    """build.npmCacheImage: the runner plus a pre-filled npm cache, for builds in pods that
    reach no registry; the other containers keep the runner, and a run naming its own
    runner image gets that one everywhere."""
    image = "registry.example/iwc-bench/npm-cache:0.1.0"
    defaults = operator_cli.defaults_from(_operator_env({"build": {"npmCacheImage": image}}))
    app = _jobs({}, defaults)[0]["spec"]["template"]["spec"]
    images = {c["name"]: c["image"] for c in app["initContainers"] + app["containers"]}
    assert images["instrument"] == image
    assert {images["app"], images["explore"]} == {defaults.runner_image}
    instrument = next(c for c in app["initContainers"] if c["name"] == "instrument")
    # what a reused result names is the runner that evaluated it
    assert {"name": "IWC_IMAGE", "value": defaults.runner_image} in instrument["env"]
    own = _jobs({"images": {"runner": "mine/runner:1"}}, defaults)[0]["spec"]["template"]["spec"]
    assert {c["image"] for c in own["initContainers"] + own["containers"]} == {"mine/runner:1"}
    plain = _jobs({}, operator_cli.defaults_from(_operator_env({})))[0]["spec"]["template"]["spec"]
    assert len({c["image"] for c in plain["initContainers"] + plain["containers"]}) == 1
