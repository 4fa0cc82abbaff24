"""The LLM side on a cluster, as the chart renders it and the operator plans it (pure):
every provider's key and endpoint reach the pods that call models through one mechanism
(llm.providers, the generated provider map, IWC_PROVIDER_SECRETS), and the app pods'
egress to models is derived from the endpoints named: an in-cluster server is reachable,
and HTTPS to the outside opens only when a hosted provider is named."""

from __future__ import annotations

import pathlib

import helm_python
import kubernetes_validate
import pytest
import yaml

from iwcbench.operator import api, cli as operator_cli, planning
from iwcbench.pipeline.kits.llm import providers as llm_providers

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHART = ROOT / "charts" / "iwc-operator"
OWNER = planning.Owner("research", "llm", "0b6e3d4e-1111-2222-3333-444455556666")
# The store and the npm registry in the cluster too, so that only the LLM could open 443.
IN_CLUSTER = {"store": {"endpoint": "http://minio.storage.svc:9000"},
              "build": {"registry": "http://verdaccio.npm-mirror.svc:4873"}}
VLLM = {"apiKeySecret": "", "baseUrl": "http://vllm.models.svc:8000/v1"}
PUBLIC = {"cidr": "0.0.0.0/0", "except": ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16",
                                          "100.64.0.0/10", "127.0.0.0/8"]}
HTTPS_OUT = {"ports": [{"port": 443, "protocol": "TCP"}], "to": [{"ipBlock": PUBLIC}]}


def _render(values: dict) -> list[dict]:
    rendered = helm_python.Chart.load(str(CHART)).render(values, name="iwc", namespace="iwc-system")
    return [doc for template, text in rendered.items() if template.endswith(".yaml")
            for doc in yaml.safe_load_all(text) if doc]


def _named(docs: list[dict], kind: str, name: str) -> dict | None:
    return next((d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name), None)


def _policies(docs: list[dict]) -> dict[str, list[dict]]:
    return {d["metadata"]["name"]: d["spec"]["egress"] for d in docs if d["kind"] == "NetworkPolicy"}


def _opens_the_outside(rule: dict) -> bool:
    return any(peer.get("ipBlock", {}).get("cidr") == "0.0.0.0/0" for peer in rule.get("to", [])) \
        or any(port.get("port") == 443 for port in rule.get("ports", []))


def _operator_env(docs: list[dict]) -> dict[str, str]:
    deployment = _named(docs, "Deployment", "iwc-operator")
    return {e["name"]: e["value"] for e in deployment["spec"]["template"]["spec"]["containers"][0]["env"]
            if "value" in e}


def _explorer_keys(docs: list[dict], model: str) -> dict[str, str]:
    """Variable → Secret of the keys the explorer of an app judged by ``model`` gets."""
    spec = api.EvaluationRunSpec.model_validate({
        "tasks": "s3://bench/tasks.jsonl", "apps": {"uri": "s3://bench/apps"}, "store": "s3://bench/runs/1",
        "judging": {"model": model}})
    defaults = operator_cli.defaults_from(_operator_env(docs))
    pod = planning.app_job(OWNER, spec, planning.AppPair("m", "t"), defaults)["spec"]["template"]["spec"]
    return {e["name"]: e["valueFrom"]["secretKeyRef"]["name"] for e in pod["containers"][0]["env"]
            if e.get("valueFrom", {}).get("secretKeyRef", {}).get("key") == "apiKey"}


def test_only_an_in_cluster_vllm_server_opens_that_service_and_nothing_on_443():
    docs = _render({**IN_CLUSTER, "llm": {"providers": {"anthropic": None, "vllm": VLLM}}})
    policies = _policies(docs)
    assert policies["iwc-app-llm-egress"] == [{"ports": [{"port": 8000, "protocol": "TCP"}], "to": [
        {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "models"}}}]}]
    assert not [rule for rules in policies.values() for rule in rules if _opens_the_outside(rule)]
    assert _named(docs, "ConfigMap", "iwc-config")["data"]["VLLM_BASE_URL"] == "http://vllm.models.svc:8000/v1"
    assert _operator_env(docs)["IWC_PROVIDER_SECRETS"] == ""  # a server that takes no key
    assert _explorer_keys(docs, "vllm/Qwen2.5-VL") == {}
    for doc in docs:
        if doc["kind"] == "NetworkPolicy":
            kubernetes_validate.validate(doc, "1.30", strict=True)


@pytest.mark.parametrize("provider, given", [
    ("openai", {}),  # its public default, https://api.openai.com/v1
    ("anthropic", {}),  # the SDK's own default, https://api.anthropic.com
    ("vllm", {"baseUrl": "https://gpu.example.com/v1"}),  # a self-hosted one, named outside
])
def test_a_hosted_provider_opens_https_to_public_addresses_only(provider, given):
    docs = _render({**IN_CLUSTER, "llm": {"providers": {"anthropic": None, provider: given}}})
    policies = _policies(docs)
    assert policies["iwc-app-llm-egress"] == [HTTPS_OUT]
    assert not [rule for name, rules in policies.items() if name != "iwc-app-llm-egress"
                for rule in rules if _opens_the_outside(rule)]


def test_no_llm_means_no_llm_egress_and_no_keys():
    docs = _render({**IN_CLUSTER, "llm": {"providers": {"anthropic": None}}})
    policies = _policies(docs)
    assert "iwc-app-llm-egress" not in policies
    assert not [rule for rules in policies.values() for rule in rules if _opens_the_outside(rule)]
    assert _operator_env(docs)["IWC_PROVIDER_SECRETS"] == ""
    assert _explorer_keys(docs, "claude-x") == {}


def test_every_providers_key_and_endpoint_take_the_same_path():
    for name, provider in llm_providers.PROVIDERS.items():
        url = f"http://{name}.models-{name}.svc:8123/v1"
        docs = _render({"llm": {"providers": {"anthropic": None, name: {"apiKeySecret": f"key-{name}", "baseUrl": url}}}})
        assert _named(docs, "ConfigMap", "iwc-config")["data"][provider.url_env] == url, name
        assert _explorer_keys(docs, f"{name}/some-model") == {provider.key_env[0]: f"key-{name}"}, name
        namespaces = [peer["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"]
                      for rule in _policies(docs)["iwc-app-llm-egress"] for peer in rule["to"]]
        assert namespaces == [f"models-{name}"], name


def test_a_provider_named_without_a_secret_gets_the_generated_default_and_the_install_default_is_the_operators():
    docs = _render({"llm": {"providers": {"google": {}}}})
    assert _explorer_keys(docs, "google/gemini-2.5-pro") == {"ANTHROPIC_API_KEY": "iwc-anthropic",
                                                              "GEMINI_API_KEY": "iwc-google"}
    plain = _render({})
    assert _operator_env(plain)["IWC_PROVIDER_SECRETS"] == "anthropic=iwc-anthropic"
    assert operator_cli.defaults_from(_operator_env(plain)).provider_secrets == planning.Defaults().provider_secrets


def test_the_deprecated_anthropic_values_still_work():
    docs = _render({"llm": {"apiKeySecret": "old-key", "baseUrl": "http://gateway.llm.svc:8080"}})
    assert _operator_env(docs)["IWC_PROVIDER_SECRETS"] == "anthropic=old-key"
    assert _named(docs, "ConfigMap", "iwc-config")["data"]["ANTHROPIC_BASE_URL"] == "http://gateway.llm.svc:8080"
    assert _policies(docs)["iwc-app-llm-egress"] == [{"ports": [{"port": 8080, "protocol": "TCP"}], "to": [
        {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "llm"}}}]}]
    notes = helm_python.Chart.load(str(CHART)).render({"llm": {"apiKeySecret": "old-key"}}, name="iwc",
                                                       namespace="iwc-system")["iwc-operator/templates/NOTES.txt"]
    assert "DEPRECATED: llm.apiKeySecret and llm.baseUrl" in notes and "anthropic: old-key" in notes
    assert "DEPRECATED" not in helm_python.Chart.load(str(CHART)).render(
        {}, name="iwc", namespace="iwc-system")["iwc-operator/templates/NOTES.txt"]
    # `apiKeySecret: ""` meant "no Anthropic" (tests/fakes/real_cluster.py's values say it so)
    none = _render({**IN_CLUSTER, "llm": {"apiKeySecret": "", "providers": {"vllm": VLLM}}})
    assert _operator_env(none)["IWC_PROVIDER_SECRETS"] == ""
    assert not [rule for rules in _policies(none).values() for rule in rules if _opens_the_outside(rule)]


def test_a_providers_own_egress_replaces_the_derived_rule_and_endpoints_can_be_left_out():
    mine = [{"to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "models"}},
                     "podSelector": {"matchLabels": {"app": "vllm"}}}], "ports": [{"protocol": "TCP", "port": 8001}]}]
    docs = _render({**IN_CLUSTER, "llm": {"providers": {"anthropic": None, "vllm": {**VLLM, "egress": mine}}}})
    assert _policies(docs)["iwc-app-llm-egress"] == mine
    written = [{"to": [{"ipBlock": {"cidr": "203.0.113.0/24"}}], "ports": [{"protocol": "TCP", "port": 443}]}]
    off = _render({"networkPolicy": {"fromEndpoints": False, "egress": written}})
    assert _policies(off) == {"iwc-app-egress": [_policies(off)["iwc-app-egress"][0], *written]}  # DNS, then mine


@pytest.mark.parametrize("url, rule", [
    ("http://127.0.0.1:11434/v1", None),  # the pod itself
    ("http://10.1.2.3:8000/v1", {"ports": [{"port": 8000, "protocol": "TCP"}],
                                 "to": [{"ipBlock": {"cidr": "10.1.2.3/32"}}]}),
    ("http://vllm:8000/v1", {"ports": [{"port": 8000, "protocol": "TCP"}], "to": [{"podSelector": {}}]}),
    ("http://vllm.models.svc.cluster.local/v1", {"ports": [{"port": 80, "protocol": "TCP"}], "to": [
        {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "models"}}}]}),
    ("https://llm.example.com:8443/v1", {"ports": [{"port": 8443, "protocol": "TCP"}], "to": [{"ipBlock": PUBLIC}]}),
])
def test_an_endpoint_opens_what_its_url_needs(url, rule):
    docs = _render({"llm": {"providers": {"anthropic": None, "llama-cpp": {"baseUrl": url}}}})
    assert _policies(docs).get("iwc-app-llm-egress") == ([rule] if rule else None)


def test_an_unknown_provider_is_refused_at_install():
    with pytest.raises(helm_python.HelmError, match="llm.providers.acme: no such provider"):
        _render({"llm": {"providers": {"acme": {"baseUrl": "http://acme:1/v1"}}}})
