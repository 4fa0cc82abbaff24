"""The EvaluationRuns shown in docs/kubernetes.md are valid against the generated
CRD's schema (what the API server checks) and the operator's own validation."""

from __future__ import annotations

import pathlib
import re

import jsonschema
import yaml

from iwcbench.operator import api, crd

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _examples() -> list[dict]:
    text = (ROOT / "docs" / "kubernetes.md").read_text()
    docs = [yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```", text, re.S)]
    return [d for d in docs if isinstance(d, dict) and d.get("kind") == api.KIND]


def _schema() -> dict:
    on_disk = yaml.safe_load((ROOT / "crds" / "evaluationruns.yaml").read_text())
    assert on_disk == crd.definition()  # hack/verify checks this too
    return on_disk["spec"]["versions"][0]["schema"]["openAPIV3Schema"]


def _validate(instance: dict) -> None:
    # OpenAPI v3.0 schemas are JSON Schema draft 4 as to numbers (boolean exclusiveMinimum)
    jsonschema.Draft4Validator(_schema()).validate(instance)


def test_docs_examples_pass_the_crd_schema_and_the_operator():
    examples = _examples()
    assert len(examples) >= 2
    for example in examples:
        _validate(example)
        assert not isinstance(api.parse_spec(example["spec"]), str)


def test_the_crd_schema_rejects_what_the_docs_say_it_rejects():
    good = _examples()[0]
    for path, value in ((("spec", "parallelism"), 0), (("spec", "store"), "/tmp/out"),
                        (("spec", "exploration", "policy"), "monkey"), (("spec", "backoffLimit"), 11)):
        bad = yaml.safe_load(yaml.safe_dump(good))
        node = bad
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = value
        try:
            _validate(bad)
        except jsonschema.ValidationError:
            continue
        raise AssertionError(f"{'.'.join(path)}={value!r} was accepted")
