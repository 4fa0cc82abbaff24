"""The chart's provider map (charts/iwc-operator/files/providers.yaml) is PROVIDERS as
hack/gen-chart-providers writes it: the committed copy matches, a provider added to
PROVIDERS makes the check (hack/verify's) fail until the map is regenerated, and a
regenerated map is all the chart needs to carry the new provider's key and endpoint."""

from __future__ import annotations

import dataclasses
import os
import pathlib
import shutil
import subprocess
import sys

import helm_python
import yaml

from iwcbench.operator import provider_map
from iwcbench.pipeline.kits.llm import providers as llm_providers

ROOT = pathlib.Path(__file__).resolve().parents[3]
CHART = ROOT / "charts" / "iwc-operator"
MAP = CHART / "files" / "providers.yaml"
ACME = llm_providers.Provider("acme", "openai", ("ACME_API_KEY",), "ACME_BASE_URL", "https://api.acme.example/v1")
# Run in the generator's Python: PROVIDERS with one provider more, as if providers.py had it.
ADD_ACME = f"""
from iwcbench.pipeline.kits.llm import providers
providers.PROVIDERS["acme"] = providers.Provider(**{dataclasses.asdict(ACME)!r})
"""


def test_the_charts_map_is_providers_as_generated():
    assert MAP.read_text() == provider_map.chart_file()
    on_disk = yaml.safe_load(MAP.read_text())
    assert list(on_disk) == list(llm_providers.PROVIDERS)
    for name, provider in llm_providers.PROVIDERS.items():
        assert on_disk[name]["keyEnv"] in provider.key_env and on_disk[name]["urlEnv"] == provider.url_env


def test_the_check_fails_when_providers_gains_one_the_map_lacks(tmp_path):
    (tmp_path / "sitecustomize.py").write_text(ADD_ACME)
    check = [str(ROOT / "hack" / "gen-chart-providers"), "--check"]
    env = {**os.environ, "PY": sys.executable}
    assert subprocess.run(check, env=env, capture_output=True, text=True).returncode == 0
    drifted = subprocess.run(check, env={**env, "PYTHONPATH": str(tmp_path)}, capture_output=True, text=True)
    assert drifted.returncode == 1
    assert "DRIFT" in drifted.stderr and "+acme:" in drifted.stderr and '"ACME_BASE_URL"' in drifted.stderr


def test_a_regenerated_map_carries_a_new_providers_key_and_endpoint_without_a_template_edit(tmp_path):
    chart = tmp_path / "iwc-operator"
    shutil.copytree(CHART, chart)
    (chart / "files" / "providers.yaml").write_text(
        provider_map.chart_file({**llm_providers.PROVIDERS, "acme": ACME}))
    values = {"llm": {"providers": {"acme": {"baseUrl": "http://acme.models.svc:9000/v1"}}}}
    rendered = helm_python.Chart.load(str(chart)).render(values, name="iwc", namespace="iwc-system")
    docs = [d for t, text in rendered.items() if t.endswith(".yaml") for d in yaml.safe_load_all(text) if d]
    config = next(d for d in docs if d["kind"] == "ConfigMap" and d["metadata"]["name"] == "iwc-config")
    assert config["data"]["ACME_BASE_URL"] == "http://acme.models.svc:9000/v1"
    deployment = next(d for d in docs if d["kind"] == "Deployment")
    env = {e["name"]: e.get("value") for e in deployment["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env["IWC_PROVIDER_SECRETS"] == "acme=iwc-acme,anthropic=iwc-anthropic"
    llm = next(d for d in docs if d["kind"] == "NetworkPolicy" and d["metadata"]["name"] == "iwc-app-llm-egress")
    assert {"ports": [{"port": 9000, "protocol": "TCP"}], "to": [{"namespaceSelector": {
        "matchLabels": {"kubernetes.io/metadata.name": "models"}}}]} in llm["spec"]["egress"]


def test_the_chart_templates_name_no_providers_variable():
    templates = "".join(p.read_text() for p in (CHART / "templates").iterdir())
    for provider in llm_providers.PROVIDERS.values():
        for variable in (*provider.key_env, provider.url_env):
            assert variable not in templates, f"{variable} is written by hand in the chart's templates"
