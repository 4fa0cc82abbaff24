"""The calibration sample of ``iwc run --estimate``: what one app's LLM calls held, per
purpose, measured by ``hack/bench-llm example`` on the example corpus (8 apps,
tests/fakes/scripted_llm as the model, tokens estimated at 4 characters a token and
width × height / 750 per image) with prompt caching on, at two step budgets.

Per purpose: (calls per app, prompt tokens per call, output tokens per call, share of
the prompt tokens read from the prompt cache, share written to it). Output tokens are
those of the scripted replies: real replies are longer. Re-measure and paste when the
prompts change (docs/benchmarks.md says how).
"""

from __future__ import annotations

JUDGE_RUNS = 5  # judging.runs of the sample

PER_APP: dict[int, dict[str, tuple[float, float, float, float, float]]] = {
    15: {},
    100: {},
}
