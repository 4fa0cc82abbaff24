"""Planning (pure): apps found in the store, Job names, and manifests a real API
server accepts, whose commands are real `iwc` sub-commands, with the sandbox as
documented."""

from __future__ import annotations

import re

import kubernetes_validate
import pytest

from iwcbench.operator import api, cli as operator_cli, planning
from iwcbench.pipeline import cli as pipeline_cli
from iwcbench.pipeline.contracts import settings

OWNER = planning.Owner("research", "nightly-webgen", "0b6e3d4e-1111-2222-3333-444455556666")
SPEC = api.EvaluationRunSpec.model_validate({
    "tasks": "s3://bench/tasks.jsonl", "apps": {"uri": "s3://bench/apps"}, "store": "s3://bench/runs/n1"})
DNS1123 = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


def test_store_keys_become_model_task_pairs():
    keys = ["m1/t1/index.html", "m1/t1/js/app.js", "m1/t2.zip", "m2/t3.tar.gz", "m2/t4.tgz",
            "README.md", "m1/.hidden/index.html", "m2/notes.txt", "m3/.zip"]
    pairs = planning.app_pairs(keys)
    assert [p.key for p in pairs] == ["m1/t1", "m1/t2", "m2/t3", "m2/t4"]
    assert [p.key for p in planning.app_pairs(keys, ["m2"])] == ["m2/t3", "m2/t4"]


def test_job_names_are_deterministic_distinct_and_dns_safe():
    a, b = planning.AppPair("m1", "000026"), planning.AppPair("m2", "000026")
    assert planning.app_job_name(OWNER, a) == planning.app_job_name(OWNER, a)
    assert planning.app_job_name(OWNER, a) != planning.app_job_name(OWNER, b)
    other_run = planning.Owner(OWNER.namespace, OWNER.name, "another-uid")
    assert planning.app_job_name(OWNER, a) != planning.app_job_name(other_run, a)
    weird = planning.Owner("ns", "A" * 200 + ".Run_Name", "uid")
    for name in (planning.app_job_name(weird, planning.AppPair("Model/X", "Task With Spaces_" + "z" * 90)),
                 planning.scoring_job_name(weird), planning.app_job_name(OWNER, a)):
        assert len(name) <= 63 and DNS1123.match(name), name


@pytest.mark.parametrize("overrides", [
    {},
    {"exploration": {"policy": "llm", "maxSteps": 5, "seed": 3}, "scoring": {"judge": "claude-x", "accessibility": False},
     "resources": {"explorer": {"requests": {"cpu": 2, "memory": "3Gi"}, "limits": {"memory": "4Gi"}}},
     "images": {"runner": "registry.example/iwc/runner:1", "pullPolicy": "Always"}},
])
def test_manifests_pass_strict_kubernetes_validation(overrides):
    spec = SPEC.model_copy(update={k: getattr(api.EvaluationRunSpec.model_validate(
        {**SPEC.wire(), **overrides}), k) for k in api.EvaluationRunSpec.model_fields})
    for manifest in (planning.app_job(OWNER, spec, planning.AppPair("aurora-7b", "000026"), planning.Defaults()),
                     planning.scoring_job(OWNER, spec, planning.Defaults())):
        kubernetes_validate.validate(manifest, "1.37", strict=True)
        kubernetes_validate.validate(manifest, "1.29", strict=True)  # native sidecars: GA-ish since 1.29


def test_pod_commands_are_real_iwc_subcommands():
    job = planning.app_job(OWNER, SPEC, planning.AppPair("aurora-7b", "000026"), planning.Defaults())
    scoring = planning.scoring_job(OWNER, SPEC, planning.Defaults())
    pod, spod = job["spec"]["template"]["spec"], scoring["spec"]["template"]["spec"]
    commands = [c["command"] for c in pod["initContainers"] + pod["containers"] + spod["initContainers"]]
    for argv in commands:
        assert argv[0] == "iwc"
        pipeline_cli._parser().parse_args(argv[1:])  # exits (SystemExit) on an unknown option
    publish = spod["containers"][0]["command"]
    assert publish[:3] == ["iwc", "operator", "publish-status"]
    operator_cli._parser().parse_args(publish[2:])
    assert "research/nightly-webgen" in publish


def test_every_pod_gets_the_evaluation_as_one_document():
    spec = api.EvaluationRunSpec.model_validate({**SPEC.wire(), "exploration": {"maxSteps": 7},
                                                 "judging": {"model": "claude-x", "runs": 3}})
    job = planning.app_job(OWNER, spec, planning.AppPair("aurora-7b", "000026"), planning.Defaults())
    scoring = planning.scoring_job(OWNER, spec, planning.Defaults())
    pod = job["spec"]["template"]["spec"]
    for argv in (pod["initContainers"][0]["command"], pod["containers"][0]["command"],
                 scoring["spec"]["template"]["spec"]["initContainers"][0]["command"]):
        assert not {"--max-steps", "--judge", "--explorer"} & set(argv)
        sent = settings.parse_document(argv[argv.index("--settings") + 1])
        assert (sent.exploration.max_steps, sent.judging.model, sent.judging.runs) == (7, "claude-x", 3)


def test_app_pod_sandbox():
    spec = api.EvaluationRunSpec.model_validate({**SPEC.wire(), "exploration": {"policy": "llm", "model": "claude-test"}})
    pod = planning.app_job(OWNER, spec, planning.AppPair("m", "t"), planning.Defaults())["spec"]["template"]["spec"]
    instrument, server = pod["initContainers"]
    (explorer,) = pod["containers"]
    assert pod["automountServiceAccountToken"] is False and pod["securityContext"]["runAsNonRoot"]
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    assert server["restartPolicy"] == "Always"  # a native sidecar
    assert "env" not in server and "envFrom" not in server  # no secrets, no endpoints
    assert {"name": "work", "mountPath": "/work", "readOnly": True} in server["volumeMounts"]
    for c in (instrument, server, explorer):
        sc = c["securityContext"]
        assert sc["readOnlyRootFilesystem"] and not sc["allowPrivilegeEscalation"]
        assert sc["capabilities"] == {"drop": ["ALL"]}
    secret_vars = lambda c: {e["name"] for e in c.get("env", []) if "valueFrom" in e}
    assert secret_vars(explorer) == {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "ANTHROPIC_API_KEY"}
    assert "ANTHROPIC_API_KEY" not in secret_vars(instrument)
    # The heuristic explorer never gets the LLM key.
    plain = planning.app_job(OWNER, SPEC, planning.AppPair("m", "t"), planning.Defaults())
    assert "ANTHROPIC_API_KEY" not in secret_vars(plain["spec"]["template"]["spec"]["containers"][0])


def test_failure_policy_separates_defects_from_infrastructure():
    rules = planning.app_job(OWNER, SPEC, planning.AppPair("m", "t"), planning.Defaults())["spec"]["podFailurePolicy"]["rules"]
    by_action = {r["action"]: r for r in rules}
    assert by_action["Ignore"]["onPodConditions"] == [{"type": "DisruptionTarget", "status": "True"}]
    assert by_action["Count"]["onExitCodes"]["values"] == [75]
    assert by_action["FailJob"]["onExitCodes"]["values"] == [2]


def test_defaults_come_from_the_environment():
    d = operator_cli.defaults_from({"IWC_RUNNER_IMAGE": "r:1", "IWC_PROVIDER_SECRETS": "", "IWC_CONFIG_MAP": "cfg"})
    assert (d.runner_image, d.provider_secrets, d.config_map) == ("r:1", (), "cfg")
    assert d.store_secret == planning.Defaults().store_secret


def test_scheduling_places_every_pod_of_the_run():
    spec = api.EvaluationRunSpec.model_validate({
        **SPEC.wire(), "scheduling": {
            "nodeSelector": {"pool": "eval"},
            "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "eval", "effect": "NoSchedule"}]}})
    for job in (planning.app_job(OWNER, spec, planning.AppPair("m", "t"), planning.Defaults()),
                planning.scoring_job(OWNER, spec, planning.Defaults())):
        pod = job["spec"]["template"]["spec"]
        assert pod["nodeSelector"] == {"pool": "eval"}
        assert pod["tolerations"] == [{"key": "dedicated", "operator": "Equal", "value": "eval", "effect": "NoSchedule"}]
        kubernetes_validate.validate(job, "1.30", strict=True)
    plain = planning.app_job(OWNER, SPEC, planning.AppPair("m", "t"), planning.Defaults())["spec"]["template"]["spec"]
    assert "nodeSelector" not in plain and "tolerations" not in plain


def test_an_openai_compatible_judge_gets_its_providers_key_and_endpoint_and_only_the_explorer_does():
    from iwcbench.operator import cli as operator_cli
    spec = api.EvaluationRunSpec.model_validate({**SPEC.wire(), "judging": {"model": "openai/Qwen2.5-VL-32B-Instruct"},
                                                 "llm": {"endpoints": {"openai": "http://vllm.gpu.svc:8000/v1"}}})
    defaults = operator_cli.defaults_from(
        {"IWC_PROVIDER_SECRETS": "anthropic=iwc-anthropic,openai=iwc-openai,google=iwc-gemini"})
    pod = planning.app_job(OWNER, spec, planning.AppPair("m", "t"), defaults)["spec"]["template"]["spec"]
    (explorer,) = pod["containers"]
    keys = {e["name"]: e["valueFrom"]["secretKeyRef"]["name"] for e in explorer.get("env", []) if "valueFrom" in e
            and "secretKeyRef" in e["valueFrom"] and e["valueFrom"]["secretKeyRef"]["key"] == "apiKey"}
    assert keys == {"ANTHROPIC_API_KEY": "iwc-anthropic", "OPENAI_API_KEY": "iwc-openai", "GEMINI_API_KEY": "iwc-gemini"}
    assert all("OPENAI_API_KEY" not in str(c.get("env")) for c in pod["initContainers"])
    argv = explorer["command"]
    sent = settings.parse_document(argv[argv.index("--settings") + 1])
    assert sent.judging.model == "openai/Qwen2.5-VL-32B-Instruct"
    assert sent.llm.endpoints == {"openai": "http://vllm.gpu.svc:8000/v1"}


def test_a_model_no_provider_serves_is_named_by_its_field_before_any_job():
    spec = api.EvaluationRunSpec.model_validate({**SPEC.wire(), "judging": {
        "model": "openai/gpt-4o", "webcoderModel": "acme/b"}})
    assert planning.model_problem(spec) == "spec.judging.webcoderModel: 'acme/b': unknown provider 'acme' " \
        "(known: anthropic, openai, google, grok, openrouter, vllm, sglang, ollama, llama-cpp; a model on another " \
        "OpenAI-compatible server is openai/acme/b with OPENAI_BASE_URL set)"
    good = api.EvaluationRunSpec.model_validate({**SPEC.wire(), "uitests": {"model": "vllm/Qwen2.5-VL"}})
    assert planning.model_problem(good) is None
