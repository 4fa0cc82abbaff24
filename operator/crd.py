"""The CustomResourceDefinition, derived from the API models (PURE; hack/gen-crds
writes it). pydantic's JSON Schema is turned into a structural OpenAPI v3 schema:
references inlined, nullable instead of anyOf-null, no titles.
"""

from __future__ import annotations

import copy
from typing import Any

import pydantic

from iwcbench.operator import api
from iwcbench.pipeline.contracts import settings

# Fields that make no sense to change once Jobs exist (the API server refuses it): the
# inputs and every section of the evaluation settings but the two a rescore reads again
# (judging and scoring: a new judge or weights over the stored evidence).
RESCORED = ("judging", "scoring")
IMMUTABLE = ("tasks", "apps", "store", *(f for f in settings.Evaluation.model_fields if f not in RESCORED))


def _structural(node: Any, defs: dict[str, Any]) -> Any:
    """One JSON Schema node → its structural OpenAPI v3 form."""
    if isinstance(node, list):
        return [_structural(n, defs) for n in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        target = copy.deepcopy(defs[node["$ref"].rsplit("/", 1)[-1]])
        return _structural({**target, **{k: v for k, v in node.items() if k != "$ref"}}, defs)
    node = {k: v for k, v in node.items() if k not in ("title", "$defs")}
    if "anyOf" in node:
        options = node.pop("anyOf")
        kinds = {o.get("type") for o in options}
        if kinds == {"string", "integer"}:
            return {**node, "x-kubernetes-int-or-string": True}
        real = [o for o in options if o.get("type") != "null"]
        if len(real) != 1:
            raise ValueError(f"cannot express anyOf {options!r} structurally")
        merged = {**_structural(real[0], defs), **node, "nullable": True}
        return _structural(merged, defs)
    if "const" in node:
        node["enum"] = [node.pop("const")]
    for bound, inclusive in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        if isinstance(node.get(bound), (int, float)) and not isinstance(node[bound], bool):
            # JSON Schema's numeric form → OpenAPI v3.0's boolean form
            node[inclusive] = node.pop(bound)
            node[bound] = True
    if node.get("type") == "object":
        # Structural schemas forbid additionalProperties: false (unknown fields are
        # pruned anyway) and object defaults would freeze nested defaults into the CRD.
        if node.get("additionalProperties") is False:
            node.pop("additionalProperties")
        node.pop("default", None)
        if "properties" not in node and "additionalProperties" not in node:
            node["x-kubernetes-preserve-unknown-fields"] = True
    if node.get("type") == "array":
        node.pop("default", None)
    if "default" in node and node["default"] is None:
        node.pop("default")  # unset optionals stay absent rather than null
    return {k: _structural(v, defs) for k, v in node.items()}


def _schema(model: type[pydantic.BaseModel]) -> dict[str, Any]:
    raw = model.model_json_schema(by_alias=True, mode="validation")
    return _structural(raw, raw.get("$defs", {}))


def open_api_schema() -> dict[str, Any]:
    spec = _schema(api.EvaluationRunSpec)
    # the run's own fields first, then the evaluation settings' sections
    sections = set(settings.Evaluation.model_fields)
    spec["properties"] = dict(sorted(spec["properties"].items(), key=lambda kv: kv[0] in sections))
    for name in IMMUTABLE:
        if name in spec["properties"]:
            spec["properties"][name]["x-kubernetes-validations"] = [
                {"rule": "self == oldSelf", "message": f"spec.{name} is immutable"}]
    status = _schema(api.EvaluationRunStatus)
    status["properties"]["conditions"]["x-kubernetes-list-type"] = "map"
    status["properties"]["conditions"]["x-kubernetes-list-map-keys"] = ["type"]
    return {
        "type": "object",
        "required": ["spec"],
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"type": "object"},
            "spec": spec,
            "status": status,
        },
    }


def definition() -> dict[str, Any]:
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{api.PLURAL}.{api.GROUP}",
                     "annotations": {"iwcbench.io/generated-by": "hack/gen-crds from operator/api.py"}},
        "spec": {
            "group": api.GROUP,
            "scope": "Namespaced",
            "names": {"kind": api.KIND, "plural": api.PLURAL, "singular": api.SINGULAR,
                      "shortNames": list(api.SHORT_NAMES), "listKind": f"{api.KIND}List",
                      "categories": ["iwcbench"]},
            "versions": [{
                "name": api.VERSION,
                "served": True,
                "storage": True,
                "subresources": {"status": {}},
                "additionalPrinterColumns": [
                    {"name": "Phase", "type": "string", "jsonPath": ".status.phase"},
                    {"name": "Done", "type": "string", "jsonPath": ".status.progress",
                     "description": "ended/total app Jobs"},
                    {"name": "Failed", "type": "integer", "jsonPath": ".status.counts.failed"},
                    {"name": "Queued", "type": "integer", "jsonPath": ".status.counts.queued", "priority": 1,
                     "description": "app Jobs waiting for Kueue's admission"},
                    {"name": "Cost", "type": "number", "jsonPath": ".status.costUsd",
                     "description": "LLM US dollars of the apps finished so far"},
                    {"name": "Round", "type": "integer", "jsonPath": ".status.round", "priority": 1,
                     "description": "0: the first pass; each retry or rescore adds one"},
                    {"name": "Leader", "type": "string", "jsonPath": ".status.leader"},
                    {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
                ],
                "schema": {"openAPIV3Schema": open_api_schema()},
            }],
        },
    }
