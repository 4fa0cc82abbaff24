"""``iwc rescore``: re-judge a finished run's stored evidence (no new exploration)."""

from __future__ import annotations

import argparse

from iwcbench.pipeline.cli import options
from iwcbench.pipeline.runs import assistants, rescoring


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("rescore", help="re-judge stored evidence (no new exploration)")
    p.add_argument("run", help="a run's output folder or store URI")
    p.add_argument("--tasks", required=True)
    p.add_argument("--judge", required=True, help="judge model")
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
    try:
        done = rescoring.rescore(args.run, args.tasks, args.judge, args.out, args.judge_protocol, batch=args.batch,
                                 endpoints=options.endpoints(args.endpoint))
    except assistants.ModelProblem as exc:
        raise options.UsageError(str(exc)) from None
    usage = done.usage
    calls, hits = (usage.calls, usage.cache_hits) if usage else (0, 0)
    cost = usage.cost_usd if usage else 0.0
    batched = usage.batched_calls if usage else 0
    tokens = (usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens
              + usage.output_tokens) if usage else 0
    # a model without a list price costs "no price", never $0
    spent = f"cost ${cost:.4f}" if cost is not None else f"{tokens:,} tokens, no price for {args.judge}"
    print(f"re-scored {done.apps} apps with {args.judge}: {calls} calls, {hits} from the cache, "
          f"{batched} through batches, {spent}")
    return 0
