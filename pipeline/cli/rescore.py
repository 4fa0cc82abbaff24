"""``iwc rescore``: re-judge a finished run's stored evidence (no new exploration)."""

from __future__ import annotations

import argparse

from iwcbench.pipeline.cli import options
from iwcbench.pipeline.runs import assistants, rescoring


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("rescore", help="re-judge stored evidence (no new exploration)")
    p.add_argument("run", help="a run's output folder or store URI")
    p.add_argument("--tasks", required=True)
    p.add_argument("--judge", help="the default judge model (judging.model; default: the run's). A purpose the "
                   "run's settings give a model of its own (judging.aesthetics_model, judging.webcoder_model, "
                   "uitests.appearance_model, ...) keeps it")
    p.add_argument("--settings", help="an evaluation settings document (JSON, or a file holding it) whose judging "
                   "and uitests sections replace the run's (the cluster's rescore passes the EvaluationRun's)")
    p.add_argument("--out", help="write the re-scored run here (default: in place)")
    p.add_argument("--batch", action="store_true",
                   help="judge through batch APIs at half price (Anthropic's, OpenAI's where the endpoint serves "
                   "it; the alignment agent stays "
                   "interactive); run it again after an interruption to collect what was submitted")
    p.add_argument("--endpoint", action="append", metavar="PROVIDER=URL", help="base URL of a provider's API")
    p.add_argument("--judge-protocol", choices=["deliberative", "single"],
                   help="judge with this protocol instead of the run's (single: Appendix D's baseline)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    given = options.evaluation(args) if args.settings else None
    try:
        done = rescoring.rescore(args.run, args.tasks, args.judge, args.out, args.judge_protocol, batch=args.batch,
                                 endpoints=options.endpoints(args.endpoint), given=given)
    except assistants.ModelProblem as exc:
        raise options.UsageError(str(exc)) from None
    usage = done.usage
    calls, hits = (usage.calls, usage.cache_hits) if usage else (0, 0)
    cost = usage.cost_usd if usage else 0.0
    batched = usage.batched_calls if usage else 0
    tokens = (usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens
              + usage.output_tokens) if usage else 0
    # a model without a list price costs "no price", never $0
    judges = ", ".join(f"{field} {model}" for field, model in done.models.items())
    spent = f"cost ${cost:.4f}" if cost is not None else f"{tokens:,} tokens, no price for a judge model"
    print(f"re-scored {done.apps} apps with {judges}: {calls} calls, {hits} from the cache, "
          f"{batched} through batches, {spent}")
    return 0
