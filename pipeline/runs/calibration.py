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

# hack/bench-llm example --model claude-opus-4-5 --max-steps 15 / 100 (interactive; Opus 4.5
# caches prompts of 4,096 tokens and more, so the shares are on the low side for other models)
PER_APP: dict[int, dict[str, tuple[float, float, float, float, float]]] = {
    15: {
        "aesthetics.advocate": (0.875, 6435, 300, 0.000, 0.000),
        "aesthetics.critic": (0.875, 6438, 300, 0.000, 0.000),
        "aesthetics.judge": (4.375, 7519, 300, 0.800, 0.200),
        "alignment.agent": (2.250, 3855, 20, 0.198, 0.401),
        "explore.guidance": (1.750, 569, 20, 0.000, 0.000),
        "explore.step": (15.000, 2639, 20, 0.222, 0.041),
        "usability.advocate": (1.000, 2939, 300, 0.000, 0.000),
        "usability.critic": (1.000, 2941, 300, 0.000, 0.000),
        "usability.judge": (5.000, 4042, 300, 0.427, 0.107),
    },
    100: {
        "aesthetics.advocate": (0.875, 7423, 300, 0.000, 0.000),
        "aesthetics.critic": (0.875, 7426, 300, 0.000, 0.000),
        "aesthetics.judge": (4.375, 8507, 300, 0.800, 0.200),
        "alignment.agent": (2.250, 5384, 20, 0.343, 0.461),
        "explore.guidance": (2.625, 546, 20, 0.000, 0.000),
        "explore.step": (100.000, 7386, 20, 0.888, 0.043),
        "usability.advocate": (1.000, 12646, 300, 0.000, 0.000),
        "usability.critic": (1.000, 12648, 300, 0.000, 0.000),
        "usability.judge": (5.000, 13749, 300, 0.800, 0.200),
    },
}
