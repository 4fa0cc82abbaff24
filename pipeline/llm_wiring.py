"""Wiring the LLM pieces into a run: one client per worker process, one ledger per
app, the LLM tester with coverage-plateau guidance, the judges; and the commands
that only exist with an LLM (rescore, checklist, robustness).

Imported only when a run asks for an LLM, so an offline run never loads the SDK.
It holds no prompt and no judging logic: those are in stages/judging and
stages/exploring/llm_policy.
"""

from __future__ import annotations

import argparse
import datetime
import json
import pathlib
import shutil
import sys
from typing import Callable

from iwcbench.pipeline import istanbul, settings as settings_mod
from iwcbench.pipeline.contracts import results, task
from iwcbench.pipeline.kits import llm, store as store_mod
from iwcbench.pipeline.stages import judging
from iwcbench.pipeline.stages.exploring import llm_policy

UNCOVERED_LIMIT = 20  # uncovered functions/statements shown to the guidance model


def render_uncovered(items: list[dict]) -> str | None:
    """Istanbul's uncovered items as source excerpts with file and line numbers."""
    if not items:
        return None
    parts = []
    for item in items:
        name = f" {item['name']}" if item.get("name") else ""
        parts.append(f"--- {item['file']} lines {item['start_line']}-{item['end_line']} "
                     f"({item['kind']}{name})\n{item['snippet']}")
    return "\n".join(parts)


def _client(config: settings_mod.RunSettings, model: str) -> llm.Client:
    cache = config.scoring.llm_cache_dir or str(pathlib.Path(config.out) / "llm-cache")
    if config.out.startswith("s3://") and not config.scoring.llm_cache_dir:
        cache = None  # no local folder to keep a cache in; set scoring.llm_cache_dir
    return llm.Client(llm.Config(model=model, effort=config.scoring.effort, cache_dir=cache))


class AppLLM:
    """The LLM side of one app: its tester (or None), its judge, its ledger."""

    def __init__(self, wiring: "Wiring", app_key: str, coverage_map: dict, sources: dict[str, str]) -> None:
        self.ledger = llm.Ledger(app_key)
        self.policy = None
        if wiring.tester is not None:
            tester = wiring.tester.derive(ledger=self.ledger)
            policy = llm_policy.LLMPolicy(tester)
            if coverage_map:
                def uncovered() -> str | None:
                    live = policy.context.coverage if policy.context else None
                    if live is None:
                        return None
                    return render_uncovered(istanbul.uncovered(live(), coverage_map, sources, UNCOVERED_LIMIT))

                policy.uncovered = uncovered
            self.policy = policy
        self._judge = wiring.judge.derive(ledger=self.ledger) if wiring.judge is not None else None

    @property
    def judging(self) -> bool:
        return self._judge is not None

    def judge(self, item: task.Task, read: Callable[[str], bytes | None]) -> dict[str, results.Score]:
        return judging.judge_app(item, read, self._judge) if self._judge is not None else {}

    def usage(self) -> dict:
        totals = self.ledger.totals()
        return totals if totals.get("calls") else {}


class Wiring:
    """Clients for a worker process, built once from the run's settings."""

    def __init__(self, config: settings_mod.RunSettings) -> None:
        self.judge = _client(config, config.scoring.judge) if config.scoring.judge else None
        tester_model = config.tester_model() if config.exploration.policy == "llm" else None
        self.tester = _client(config, tester_model) if tester_model else None

    def for_app(self, app_key: str, coverage_map: dict, sources: dict[str, str]) -> AppLLM:
        return AppLLM(self, app_key, coverage_map, sources)


# ---------------------------------------------------------------- commands


def rescore_command(args: argparse.Namespace) -> int:
    from iwcbench.pipeline import batching, commands  # noqa: PLC0415 - avoid a cycle at import

    run_uri = args.run
    if args.out:
        if run_uri.startswith("s3://"):
            raise commands.UsageError("--out: re-scoring into a copy works for local runs only")
        shutil.copytree(run_uri, args.out, dirs_exist_ok=True)
        run_uri = args.out
    store = store_mod.open_store(run_uri)
    tasks = {t.id: t for t in commands._load_tasks(args.tasks)}
    try:
        previous = json.loads(store.get_bytes("results.json"))
        config = settings_mod.RunSettings.model_validate(previous["run"]["configuration"])
    except (store_mod.NotFound, KeyError, ValueError):
        config = settings_mod.RunSettings(tasks=args.tasks, apps="-", out=run_uri)
    config = config.model_copy(update={
        "out": run_uri, "scoring": config.scoring.model_copy(update={"judge": args.judge})})
    client = _client(config, args.judge)
    updated = judging.rescore(store, tasks, client)
    batching.finish(config, store, tasks.values(), updated, [],
                    datetime.datetime.now(datetime.timezone.utc))
    totals = client.ledger.totals()
    print(f"re-scored {len(updated)} apps with {args.judge}: {totals.get('calls', 0)} calls, "
          f"{totals.get('cache_hits', 0)} from the cache, cost ${totals.get('cost_usd') or 0:.4f}")
    return 0


def checklist_command(args: argparse.Namespace) -> int:
    from iwcbench.pipeline import commands  # noqa: PLC0415
    from iwcbench.pipeline.stages.judging import checklist  # noqa: PLC0415

    models = [m.strip() for m in args.judges.split(",") if m.strip()]
    if len(models) != 3:
        raise commands.UsageError("--judges: name exactly three judge models, comma-separated")
    tasks = commands._load_tasks(args.tasks)
    out = pathlib.Path(args.out)
    config = settings_mod.RunSettings(tasks=args.tasks, apps="-", out=str(out.parent))
    clients = [_client(config, m) for m in models]
    filled, failed = checklist.fill(tasks, clients)
    out.write_text("".join(t.model_dump_json(exclude_defaults=True) + "\n" for t in filled))
    for task_id, reason in sorted(failed.items()):
        print(f"{task_id}: no checklist: {reason}", file=sys.stderr)
    print(f"wrote {len(filled)} tasks ({len(filled) - len(failed)} with a checklist) to {out}")
    return 0


def _overall_by_model(path: str) -> dict[str, float | None]:
    target = pathlib.Path(path)
    if target.is_dir():
        target = target / "results.json"
    data = json.loads(target.read_text())
    return {row["model"]: row["overall"] for row in data["leaderboard"]}


def robustness_command(args: argparse.Namespace) -> int:
    from iwcbench.pipeline.stages.judging import robustness  # noqa: PLC0415

    first, second = _overall_by_model(args.a), _overall_by_model(args.b)
    found = robustness.compare(first, second)
    fmt = lambda v: "n/a" if v is None else f"{v:.3f}"  # noqa: E731
    print(json.dumps({"models": found.models, "pearson": found.pearson, "spearman": found.spearman,
                      "pairs": found.pairs, "pairs_kept": found.pairs_kept,
                      "pairs_kept_share": found.pairs_kept_share}))
    print(f"{found.models} models · Pearson {fmt(found.pearson)} · Spearman {fmt(found.spearman)} · "
          f"{found.pairs_kept} of {found.pairs} model pairs keep their order ({fmt(found.pairs_kept_share)})",
          file=sys.stderr)
    return 0
