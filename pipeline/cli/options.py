"""Command-line options that build the evaluation settings tree, shared by the commands
that run apps (``iwc run``, ``iwc submit``, ``iwc app explore``). Each flag is one field of
contracts/settings; argparse only, no defaults of its own (the settings have them).
"""

from __future__ import annotations

import argparse
import pathlib
import typing
from typing import Any, Callable

from iwcbench.pipeline.contracts import metrics, protocols, purposes, settings as settings_mod
from iwcbench.pipeline.runs import weighting

EXIT_CONFIG = 2  # bad configuration or input file: the message names the field
EXIT_INFRA = 75  # EX_TEMPFAIL: our side failed; a retry may succeed (podFailurePolicy)


# the purposes' flags that other option groups define, with help of their own
_OWN_FLAGS = ("--judge", "--explorer-model", "--uitest-model")


class UsageError(Exception):
    """A bad argument or input file; the message says which and why."""


# flag → (dotted settings field, how to read the parsed value)
_FIELDS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "max_steps": ("exploration.max_steps", lambda v: v),
    "seed": ("exploration.seed", lambda v: v),
    "explorer": ("exploration.policy", lambda v: v),
    "assist_steps": ("exploration.assist_steps", lambda v: v),
    "app_timeout": ("exploration.app_timeout_s", lambda v: v),
    "step_timeout": ("exploration.step_timeout_s", lambda v: v),
    "judge_runs": ("judging.runs", lambda v: v),
    "effort": ("llm.effort", lambda v: v),
    "no_prompt_caching": ("llm.prompt_caching", lambda v: False if v else None),
    "no_accessibility": ("scoring.accessibility", lambda v: False if v else None),
    "offline_mirror": ("sandbox.mirror_fetch", lambda v: False if v else None),
    "no_quality": ("quality.enabled", lambda v: False if v else None),
    "no_lighthouse": ("quality.lighthouse", lambda v: False if v else None),
    "metrics": ("quality.metrics", lambda v: tuple(v) if v else None),
    "no_guidance": ("exploration.guidance", lambda v: False if v else None),
    "judge_protocol": ("judging.protocol", lambda v: v),
    "reference": ("scoring.reference", lambda v: v),
    "not_runnable": ("scoring.not_runnable", lambda v: v),
    "no_build": ("build.enabled", lambda v: False if v else None),
    "require_lockfile": ("build.require_lockfile", lambda v: True if v else None),
    "npm_registry": ("build.registry", lambda v: v),
    "npm_cache": ("build.npm_cache_dir", lambda v: v),
    "build_timeout": ("build.build_timeout_s", lambda v: v),
    "uitests": ("uitests.enabled", lambda v: v),
    "uitest_steps": ("uitests.max_steps", lambda v: v),
    "endpoint": ("llm.endpoints", lambda v: endpoints(v)),
    # a model per purpose: the flags of contracts/purposes' table
    **{purposes.flag_dest(p.flag): (p.field, lambda v: v) for p in purposes.PURPOSES if p.flag},
}


def endpoints(values: list[str] | None) -> dict[str, str] | None:
    """``--endpoint PROVIDER=URL`` flags as ``llm.endpoints``."""
    if not values:
        return None
    found = {}
    for value in values:
        provider, eq, url = value.partition("=")
        if not eq or not provider.strip() or not url.strip():
            raise UsageError(f"--endpoint: {value!r} is not PROVIDER=URL (e.g. openai=http://127.0.0.1:8000/v1)")
        found[provider.strip()] = url.strip()
    return found
# Environment a Kubernetes pod gets from the chart (the registry, through the ConfigMap)
# and from the operator (its npm cache folders): flags and --settings still win.
POD_ENV: dict[str, str] = {
    "IWC_NPM_REGISTRY": "build.registry",
    "IWC_NPM_CACHE": "build.npm_cache_dir",
    "IWC_NPM_CACHE_SEED": "build.npm_cache_seed",
}


def add_input_options(p: argparse.ArgumentParser) -> None:
    """What a run evaluates (``iwc run``, ``iwc submit``)."""
    p.add_argument("--tasks", required=True, help="tasks.jsonl (WebGen-Bench / ArtifactsBench files accepted)")
    p.add_argument("--apps", required=True, help="folder holding <model>/<task_id>/ apps")
    p.add_argument("--models", nargs="*", default=(), help="only these models")


def add_evaluation_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--settings", help="the evaluation settings as one JSON document, or a file holding one "
                   "(flags below override it)")
    p.add_argument("--max-steps", type=int, help="actions per app (default 100)")
    p.add_argument("--seed", type=int, help="explorer seed (default 0)")
    p.add_argument("--explorer", choices=typing.get_args(settings_mod.ChosenPolicy),
                   help="exploration policy (default heuristic; random: the seeded baseline clicker; assisted: "
                   "the heuristic, asking the LLM tester for a few steps where its coverage stalls)")
    p.add_argument("--assist-steps", type=int,
                   help="--explorer assisted: the LLM tester's steps per app at most (default 12)")
    p.add_argument("--judge", help="LLM judge model, e.g. claude-opus-4-5 (needs ANTHROPIC_API_KEY)")
    p.add_argument("--judge-runs", type=int, help="final-judge runs per deliberated dimension (default 5)")
    p.add_argument("--explorer-model", help="LLM tester model for --explorer llm or assisted (default: the judge)")
    p.add_argument("--effort", choices=["low", "medium", "high", "xhigh", "max"],
                   help="reasoning effort for the LLM tester and judges (default: API default)")
    p.add_argument("--no-prompt-caching", action="store_true",
                   help="send no cache_control breakpoints (the prompts are the same either way)")
    p.add_argument("--app-timeout", type=float,
                   help="seconds for one app from its first page load to its last score, every stage (default 300)")
    p.add_argument("--step-timeout", type=float, help="seconds for one action (default 10)")
    p.add_argument("--no-accessibility", action="store_true", help="skip axe-core")
    p.add_argument("--no-guidance", action="store_true",
                   help="LLM tester without coverage-plateau guidance (the guidance ablation)")
    p.add_argument("--judge-protocol", choices=["deliberative", "single"],
                   help="deliberative (default) or the single-round baseline")
    p.add_argument("--reference", help="results.json whose pool fixes μ and σ of the z-scores")
    p.add_argument("--mirror-dir", help="CDN mirror cache folder (default ~/.cache/iwc-bench/cdn)")
    p.add_argument("--offline-mirror", action="store_true", help="serve CDN files from the cache only")
    p.add_argument("--no-quality", action="store_true", help="skip the WebCoderBench rule metrics")
    p.add_argument("--no-lighthouse", action="store_true",
                   help="skip Lighthouse (best practices, performance, Lighthouse accessibility unscored)")
    p.add_argument("--metrics", nargs="+", metavar="NAME",
                   help="only these WebCoderBench rule metrics, e.g. wcb_linting wcb_mobile (default all 19)")
    p.add_argument("--no-build", action="store_true",
                   help="do not build Vite/Next.js/CRA/Astro apps (they run as black boxes)")
    p.add_argument("--require-lockfile", action="store_true",
                   help="refuse built apps without package-lock.json (default: npm install resolves their ranges)")
    p.add_argument("--npm-registry", help="npm registry or mirror the builds install from (default the npm registry)")
    p.add_argument("--npm-cache", help="npm cache folder shared by the builds (default ~/.cache/iwc-bench/npm)")
    p.add_argument("--build-timeout", type=float, help="seconds for one app's build (default 600)")
    p.add_argument("--uitests", action=argparse.BooleanOptionalAction, default=None,
                   help="run tasks' WebGen-Bench UI test cases with the GUI agent (default on; needs an LLM)")
    p.add_argument("--uitest-model", help="GUI agent and appearance judge model (default: the judge)")
    p.add_argument("--uitest-steps", type=int, help="actions per UI test case (default 15)")
    add_model_options(p)
    add_weights_option(p)


def add_model_options(p: argparse.ArgumentParser) -> None:
    """A model per purpose (provider/model; a bare name is Anthropic's) and the endpoints."""
    p.add_argument("--seed-protocol", choices=sorted(protocols.SEED_PROTOCOLS),
                   help="the models a seed paper used (webgen: Qwen2.5-VL-32B agent on vLLM, GPT-4o appearance; "
                   "webcoder: Gemini-2.5-pro and GPT-5-chat judges; iwc: Claude-Opus-4.8 and its LLM tester; its "
                   "three checklist proposers: iwc checklist --seed-protocol iwc); flags and --settings still win; you supply the endpoints and keys")
    p.add_argument("--endpoint", action="append", metavar="PROVIDER=URL",
                   help="base URL of a provider's API, e.g. openai=http://127.0.0.1:8000/v1 for vLLM (repeatable; "
                   "default: OPENAI_BASE_URL, ANTHROPIC_BASE_URL, ... then the provider's public API)")
    for row in purposes.PURPOSES:
        if row.flag and row.flag not in _OWN_FLAGS:
            fallback = next((q.flag for q in purposes.PURPOSES if q.field == row.fallback), row.fallback)
            p.add_argument(row.flag, metavar="PROVIDER/MODEL", help=f"{row.what} (default: {fallback}'s)")


def add_weights_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--weights", metavar="SET|FILE",
                   help=f"leaderboard weights: {'|'.join(metrics.WEIGHT_SETS)} (weight sets of the metric table) "
                   "or a weights file (iwc weights borda --out FILE); default: iwc when judged, else default")
    p.add_argument("--not-runnable", choices=["common_tasks", "floor"],
                   help="apps that cannot run here: compare models on the tasks where every model's app ran "
                   "(common_tasks, default), or give such an app the floor of what it lacks (floor)")


def _weights(value: str | None) -> dict | None:
    """``scoring`` fields for a --weights value: a weight set's name, or a file's weights."""
    if value is None:
        return None
    if value in metrics.WEIGHT_SETS:
        return {"weights": value, "custom_weights": {}}
    path = pathlib.Path(value)
    if not path.is_file():
        raise UsageError(f"--weights: {value!r} is neither a weight set ({', '.join(metrics.WEIGHT_SETS)}) nor a file")
    return {"weights": None, "custom_weights": weighting.read_weights(path)}


# flag → RunSettings.spending field (iwc run, iwc rescore: how a run spends, not what it measures)
_SPENDING: dict[str, str] = {"batch_judges": "batch_judges", "max_cost": "max_cost_usd"}


def add_spending_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--batch-judges", action="store_true",
                   help="judge through batch APIs at half price (Anthropic's Message Batches, OpenAI's where "
                   "the endpoint serves it; the alignment agent stays interactive); an interrupted run resumes its batches without sending them again")
    p.add_argument("--max-cost", type=float, metavar="USD",
                   help="start no new LLM work once the run's LLM cost reaches USD (unjudged apps are unscored "
                   "with the reason; --resume with a higher limit goes on)")


def spending_data(args: argparse.Namespace) -> dict:
    data = {}
    for flag, field in _SPENDING.items():
        value = getattr(args, flag, None)
        if value not in (None, False):
            data[field] = value
    return data


def evaluation_data(args: argparse.Namespace, environ: dict[str, str] | None = None) -> dict:
    """The settings tree as a nested dict: ``environ``'s POD_ENV values, the seed
    protocol's models over them, the --settings document over those, then each flag given."""
    data: dict = {}
    for var, path in POD_ENV.items():
        value = (environ or {}).get(var)
        if value:
            section, field = path.split(".")
            data.setdefault(section, {})[field] = value
    for section, fields in protocols.SEED_PROTOCOLS.get(getattr(args, "seed_protocol", None) or "", {}).items():
        data[section] = {**data.get(section, {}), **fields}
    if getattr(args, "settings", None):
        text = args.settings
        if not text.lstrip().startswith("{") and pathlib.Path(text).is_file():
            text = pathlib.Path(text).read_text(encoding="utf-8")  # a file holding the document
        document = settings_mod.parse_document(text).model_dump(exclude_defaults=True)
        for section, fields in document.items():
            data[section] = {**data.get(section, {}), **fields} if isinstance(fields, dict) else fields
    for flag, (path, read) in _FIELDS.items():
        value = read(getattr(args, flag, None))
        if value is None:
            continue
        section, field = path.split(".")
        data.setdefault(section, {})[field] = value
    chosen = _weights(getattr(args, "weights", None))
    if chosen is not None:
        data.setdefault("scoring", {}).update(chosen)
    return data


def evaluation(args: argparse.Namespace, environ: dict[str, str] | None = None) -> settings_mod.Evaluation:
    return settings_mod.Evaluation.model_validate(evaluation_data(args, environ))


def run_settings(args: argparse.Namespace, **where: Any) -> settings_mod.RunSettings:
    return settings_mod.RunSettings.model_validate(
        {**evaluation_data(args), **where, "mirror_dir": getattr(args, "mirror_dir", None),
         "spending": spending_data(args)})
