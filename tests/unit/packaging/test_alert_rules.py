"""The chart's alert rules (charts/iwc-operator/files/alerts.yaml) page on what the code
really exports: every rule is complete and its runbook is a section of
docs/kubernetes.md; every expr parses with a real PromQL parser (promql-parser, the
Rust crate of that name, which also checks the operands' types) and names only
metrics the telemetry defines, under the names a Prometheus-compatible backend gives
them, and only labels those metrics carry; the chart renders the rules as a
PrometheusRule, or as the ConfigMap iwc-alerts, or not at all (the default)."""

from __future__ import annotations

import pathlib
import re

import helm_python
import promql_parser
import pytest
import yaml
from opentelemetry.sdk.metrics import export as metrics_export

from iwcbench.operator import api, planning, tracking
from iwcbench.pipeline.kits import telemetry

ROOT = pathlib.Path(__file__).resolve().parents[3]
CHART = ROOT / "charts" / "iwc-operator"
RULES = yaml.safe_load((CHART / "files" / "alerts.yaml").read_text())
DOCS = ROOT / "docs" / "kubernetes.md"
ALERTS = [rule for group in RULES["groups"] for rule in group["rules"]]
# Units as the backend spells them in a name (OpenTelemetry's Prometheus compatibility
# spec, as VictoriaMetrics' -opentelemetry.usePrometheusNaming and the collector's
# Prometheus exporter apply it); a unit in braces is an annotation and is dropped. A unit
# not here fails the test: add how the backend names it.
UNITS = {"s": "seconds", "%": "percent", "USD": "USD"}
DURATION = re.compile(r"^(0|(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?)$")
RULE_KEYS = {"alert", "expr", "for", "keep_firing_for", "labels", "annotations"}  # PrometheusRule's, less record


def backend_names(metric: metrics_export.Metric) -> list[str]:
    """The series names a Prometheus-compatible backend stores for one OpenTelemetry
    metric: dots become underscores, the unit a suffix, a monotonic sum ends in _total,
    a histogram is three series."""
    name = metric.name.replace(".", "_")
    if metric.unit and not metric.unit.startswith("{"):
        name += "_" + UNITS[metric.unit]
    if isinstance(metric.data, metrics_export.Histogram):
        return [f"{name}_bucket", f"{name}_sum", f"{name}_count"]
    if isinstance(metric.data, metrics_export.Sum) and metric.data.is_monotonic:
        return [f"{name}_total"]
    return [name]


def _exported(memory: telemetry.Memory, resource_labels: set[str]) -> dict[str, set[str]]:
    """Series name → the labels its points carry (their attributes and ``resource_labels``)."""
    found: dict[str, set[str]] = {}
    data = memory.metrics.get_metrics_data()
    for rm in data.resource_metrics if data else ():
        for sm in rm.scope_metrics:
            for metric in sm.metrics:
                labels = {key.replace(".", "_") for p in metric.data.data_points for key in p.attributes or {}}
                for series in backend_names(metric):
                    found[series] = labels | resource_labels | ({"le"} if series.endswith("_bucket") else set())
    return found


def _pod_resource_labels() -> set[str]:
    """The resource attributes an app pod reports with (planning's OTEL_RESOURCE_ATTRIBUTES)."""
    spec = api.EvaluationRunSpec.model_validate({
        "tasks": "s3://bench/tasks.jsonl", "apps": {"uri": "s3://bench/apps"}, "store": "s3://bench/out"})
    job = planning.app_job(planning.Owner("ns", "run", "uid-1"), spec, planning.AppPair("m", "t"), planning.Defaults())
    pod = job["spec"]["template"]["spec"]
    env = {e["name"]: e.get("value") for c in pod.get("initContainers", []) + pod["containers"] for e in c.get("env", [])}
    return {pair.split("=", 1)[0].replace(".", "_") for pair in env["OTEL_RESOURCE_ATTRIBUTES"].split(",")}


@pytest.fixture(scope="module")
def defined() -> dict[str, set[str]]:
    """Every series the operator and the pods export, with its labels, from the code
    itself: each instrument is made to record once, in memory."""
    memory = telemetry.setup("iwc-operator", memory=True)
    try:
        assert memory is not None
        runs = telemetry.RunMetrics()
        runs.observe("uid-1", {"namespace": "ns", "run": "run"}, "Running",
                     {"succeeded": 1, "failed": 1, "active": 1, "queued": 1, "pending": 1}, 0.5)
        runs.observe_budget("uid-1", {"namespace": "ns", "run": "run"}, "within")
        operator = _exported(memory, {"service_name"})
        memory = telemetry.setup("iwc-app", memory=True)
        assert memory is not None
        telemetry.record_app("error", 40.0, 3.0)
        telemetry.record_stage("explore", 2.0)
        telemetry.record_tokens("m", 10, 2)
        telemetry.record_llm("m", {"purposes": {"explore.step": {"calls": 1, "input_tokens": 10, "cost_usd": 0.1}}})
        pods = _exported(memory, {"service_name"} | _pod_resource_labels())
    finally:
        telemetry.setup("test")
    assert not set(operator) & set(pods)
    return {**operator, **pods}


def test_the_derived_names_are_those_the_cluster_tier_read_back_from_victoriametrics(defined):
    """The naming above, checked against the queries that ran on the real backend: a
    name followed by a selector's brace, a closing parenthesis or a range is a series."""
    queried = {name for path in (ROOT / "tests" / "cluster").glob("test_*.py") if path.name != "test_alert_rules.py"
               for name in re.findall(r"\b(iwc_[A-Za-z_]+)[{)\[]", path.read_text())}
    assert {"iwc_run_apps", "iwc_runs", "iwc_apps_total", "iwc_llm_cost_USD_total"} <= queried
    assert queried <= set(defined), queried - set(defined)


def _selectors(expr: promql_parser.Expr) -> list[promql_parser.VectorSelector]:
    found: list[promql_parser.VectorSelector] = []
    promql_parser.walk(expr, lambda node: found.append(node) if isinstance(node, promql_parser.VectorSelector) else None)
    return found


def _label_problems(expr: promql_parser.Expr, defined: dict[str, set[str]]) -> list[str]:
    """A metric the code does not export, a label its series lack, a by/on label that no
    series below it carries."""
    problems: list[str] = []

    def visit(node: promql_parser.Expr) -> None:
        if isinstance(node, promql_parser.VectorSelector):
            if node.name not in defined:
                problems.append(f"{node.name}: no metric of the code is stored under this name")
            matched = {m.name for m in node.matchers.matchers} - {"__name__"}
            problems.extend(f"{node.name}{{{label}}}: not a label of it" for label in matched - defined.get(node.name, set()))
        modifier = getattr(node, "modifier", None)
        grouping = getattr(modifier, "labels", None) or getattr(getattr(modifier, "matching", None), "labels", None)
        if grouping:
            below = set().union(*(defined.get(s.name, set()) for s in _selectors(node)))
            problems.extend(f"{label} in {str(modifier).strip()}: no series below carries it"
                            for label in set(grouping) - below)

    promql_parser.walk(expr, visit)
    return problems


@pytest.mark.parametrize("rule", ALERTS, ids=[r["alert"] for r in ALERTS])
def test_each_expr_parses_and_names_only_what_the_code_exports(rule, defined):
    expr = promql_parser.parse(rule["expr"])  # raises on a syntax or type error
    assert _selectors(expr), "an alert on no metric"
    assert _label_problems(expr, defined) == []


def test_a_misspelt_metric_or_label_is_caught(defined):
    """The check above can fail: a wrong name, a wrong label, a wrong grouping."""
    assert _label_problems(promql_parser.parse('iwc_run_app{state="done"}'), defined)
    assert _label_problems(promql_parser.parse('iwc_run_apps{phase="Running"}'), defined)
    assert _label_problems(promql_parser.parse("sum by (iwc_run_name) (iwc_run_apps)"), defined)
    with pytest.raises(ValueError):
        promql_parser.parse("sum by (run (iwc_run_apps)")


def _anchors(markdown: str) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation but - and _ dropped,
    spaces to dashes."""
    headings = re.findall(r"^#+ (.+)$", markdown, flags=re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def test_every_rule_is_complete_and_its_runbook_is_a_section_of_the_docs():
    anchors = _anchors(DOCS.read_text())
    assert len({r["alert"] for r in ALERTS}) == len(ALERTS) >= 5
    for group in RULES["groups"]:
        assert group["name"] and set(group) <= {"name", "interval", "rules"}
    for rule in ALERTS:
        assert set(rule) <= RULE_KEYS and {"alert", "expr", "for", "labels", "annotations"} <= set(rule), rule["alert"]
        assert re.fullmatch(r"IWC[A-Z][A-Za-z]+", rule["alert"]) and DURATION.match(rule["for"]), rule["alert"]
        assert rule["labels"]["severity"] in ("critical", "warning")
        notes = rule["annotations"]
        assert notes["summary"] and notes["description"], rule["alert"]
        page, anchor = notes["runbook_url"].split("#")
        assert page == "docs/kubernetes.md" and anchor == rule["alert"].lower() and anchor in anchors, notes


def test_the_budget_alert_reads_the_state_the_operator_derives_from_its_condition():
    """BudgetReached in the status is what iwc_run_budget{state="reached"} says."""
    reached = {"conditions": [{"type": "WithinBudget", "status": "False", "reason": "BudgetReached"}]}
    within = {"conditions": [{"type": "WithinBudget", "status": "True", "reason": "WithinBudget"}]}
    assert (tracking.budget_state(reached), tracking.budget_state(within), tracking.budget_state({})) \
        == ("reached", "within", None)
    budget = next(r for r in ALERTS if r["alert"] == "IWCRunBudgetReached")
    assert 'iwc_run_budget{state="reached"}' in budget["expr"]


def _render(values: dict) -> list[dict]:
    defaults = yaml.safe_load((CHART / "values.yaml").read_text())
    merged = {**defaults, "alerts": {**defaults["alerts"], **values}}
    rendered = helm_python.Chart.load(str(CHART)).render(merged, name="iwc", namespace="iwc-system")
    return [d for t, text in rendered.items() if t.endswith(".yaml") for d in yaml.safe_load_all(text) if d]


def _named_alerts(docs: list[dict]) -> list[dict]:
    return [d for d in docs if d["metadata"].get("name") == "iwc-alerts"]


def test_the_chart_renders_the_rules_as_a_prometheus_rule_with_runbook_links():
    base = "https://git.example.com/iwc-bench/blob/main/"
    (rule,) = _named_alerts(_render({"prometheusRule": {"enabled": True, "labels": {"release": "prom"}},
                                     "configMap": {"enabled": True}, "runbookBaseUrl": base}))
    assert (rule["apiVersion"], rule["kind"]) == ("monitoring.coreos.com/v1", "PrometheusRule")
    assert rule["metadata"]["namespace"] == "iwc-system" and rule["metadata"]["labels"]["release"] == "prom"
    expected = yaml.safe_load((CHART / "files" / "alerts.yaml").read_text())
    for group in expected["groups"]:
        for r in group["rules"]:
            r["annotations"]["runbook_url"] = base + r["annotations"]["runbook_url"]
    assert rule["spec"] == expected


def test_the_chart_renders_the_rules_as_a_config_map_or_not_at_all():
    (config,) = _named_alerts(_render({"configMap": {"enabled": True}}))
    assert config["kind"] == "ConfigMap" and yaml.safe_load(config["data"]["alerts.yaml"]) == RULES
    assert _named_alerts(_render({})) == []
