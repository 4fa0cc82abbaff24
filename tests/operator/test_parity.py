"""One evaluation, two runners: an app pod evaluates with exactly the settings ``iwc run``
uses for the same choices — every default of the settings tree, field by field — and the
app Job's deadline sits above every limit of the evaluation, so a slow but legitimate
build ends as it would locally (a recorded outcome), never as ``error``."""

from __future__ import annotations

import pytest

from iwcbench.operator import api, planning
from iwcbench.pipeline import cli as pipeline_cli
from iwcbench.pipeline.cli import options
from iwcbench.pipeline.contracts import settings

OWNER = planning.Owner("research", "parity", "0b6e3d4e-1111-2222-3333-444455556666")
INPUTS = {"tasks": "s3://bench/tasks.jsonl", "apps": {"uri": "s3://bench/apps"}, "store": "s3://bench/runs/p"}
# Where the npm cache lives: the pod's folders come from the operator (IWC_NPM_CACHE,
# IWC_NPM_CACHE_SEED), a local run's from the user; the config hash leaves both out.
WHERE = {("build", "npm_cache_dir"), ("build", "npm_cache_seed")}


def _leaves(tree: dict, path: tuple[str, ...] = ()) -> dict[tuple[str, ...], object]:
    found = {}
    for key, value in tree.items():
        if isinstance(value, dict) and key != "custom_weights":
            found.update(_leaves(value, (*path, key)))
        else:
            found[(*path, key)] = value
    return found


def _local(flags: list[str]) -> settings.Evaluation:
    """What ``iwc run`` evaluates with for these flags."""
    args = pipeline_cli._parser().parse_args(["run", "--tasks", "t.jsonl", "--apps", "apps", "--out", "out", *flags])
    return options.run_settings(args, tasks=args.tasks, apps=args.apps, out=args.out).evaluation()


def _pod(spec: api.EvaluationRunSpec) -> dict[str, settings.Evaluation]:
    """What each container of an app pod and of the scoring pod evaluates with: its
    command parsed by the real CLI, with the environment the operator gives it."""
    job = planning.app_job(OWNER, spec, planning.AppPair("m", "t"), planning.Defaults())
    scoring = planning.scoring_job(OWNER, spec, planning.Defaults())
    found = {}
    for container in (*job["spec"]["template"]["spec"]["initContainers"], *job["spec"]["template"]["spec"]["containers"],
                      *scoring["spec"]["template"]["spec"]["initContainers"]):
        argv = container["command"]
        if "--settings" not in argv:
            continue  # the app server: it evaluates nothing
        env = {e["name"]: e["value"] for e in container.get("env", []) if "value" in e}
        found[container["name"]] = options.evaluation(pipeline_cli._parser().parse_args(argv[1:]), env)
    return found


@pytest.mark.parametrize("flags, spec", [
    ([], {}),
    (["--max-steps", "7", "--seed", "3", "--judge", "claude-x", "--judge-runs", "3", "--app-timeout", "450",
      "--build-timeout", "900", "--no-lighthouse"],
     {"exploration": {"maxSteps": 7, "seed": 3, "appTimeoutS": 450}, "judging": {"model": "claude-x", "runs": 3},
      "build": {"buildTimeoutS": 900}, "quality": {"lighthouse": False}}),
])
def test_a_pod_evaluates_with_every_setting_iwc_run_uses(flags, spec):
    local = _local(flags)
    pods = _pod(api.EvaluationRunSpec.model_validate({**INPUTS, **spec}))
    assert set(pods) == {"instrument", "explore", "score"}
    expected = {k: v for k, v in _leaves(local.model_dump(mode="json")).items() if k not in WHERE}
    # the whole tree (every section, every field), not a handful of fields
    assert set(expected) | WHERE == set(_leaves(settings.Evaluation().model_dump(mode="json")))
    for container, evaluation in pods.items():
        got = {k: v for k, v in _leaves(evaluation.model_dump(mode="json")).items() if k not in WHERE}
        drifted = {".".join(k): (expected[k], got.get(k)) for k in expected if expected[k] != got.get(k)}
        assert not drifted, f"{container} differs from iwc run (local, pod): {drifted}"
        assert evaluation.config_hash() == local.config_hash()


def test_the_default_exploration_budget_is_the_same_on_both_paths():
    """It used to be 600 s in a pod (two thirds of a 900 s Job deadline) against 300 s locally."""
    local = _local([])
    pods = _pod(api.EvaluationRunSpec.model_validate(INPUTS))
    assert local.exploration.app_timeout_s == 300 == pods["explore"].exploration.app_timeout_s


def test_the_job_deadline_is_above_every_limit_of_the_evaluation():
    """A build may take install + build time up to its limits, each ending in a recorded
    outcome; the Job's deadline must not cut in first (it was a fixed 900 s)."""
    for spec in ({}, {"build": {"buildTimeoutS": 1800, "installTimeoutS": 900}},
                 {"exploration": {"appTimeoutS": 1200}}, {"build": {"enabled": False}}):
        parsed = api.EvaluationRunSpec.model_validate({**INPUTS, **spec})
        evaluation = parsed.evaluation()
        job = planning.app_job(OWNER, parsed, planning.AppPair("m", "t"), planning.Defaults())
        deadline = job["spec"]["activeDeadlineSeconds"]
        b = evaluation.build
        app_time = evaluation.exploration.load_timeout_s + evaluation.exploration.app_timeout_s
        building = (3 * b.install_timeout_s + 4 * b.build_timeout_s) if b.enabled else 0
        assert deadline > evaluation.instrumentation.timeout_s + building + app_time, spec
    # the slowest build the defaults allow (one npm ci at its limit, then one build at its limit)
    default = planning.app_deadline_s(api.EvaluationRunSpec.model_validate(INPUTS))
    assert default > settings.Build().install_timeout_s + settings.Build().build_timeout_s + 300
    # a deadline the spec names is kept as given
    named = api.EvaluationRunSpec.model_validate({**INPUTS, "appTimeoutSeconds": 2400})
    assert planning.app_job(OWNER, named, planning.AppPair("m", "t"),
                            planning.Defaults())["spec"]["activeDeadlineSeconds"] == 2400
