"""The calibration sample of ``iwc run --estimate``: what one app's LLM calls held, per
purpose, measured by ``hack/bench-llm example`` on the example corpus
(tests/fakes/scripted_llm as the model, tokens estimated at 4 characters a token and
width × height / 750 per image) with prompt caching on, at two step budgets.

Per purpose: (calls per app, prompt tokens per call, output tokens per call, share of
the prompt tokens read from the prompt cache, share written to it); for the UI tests
(``UITESTS``) the calls are per UI test case (the GUI agent) and per app with UI test
cases (the appearance judge), at ``UITEST_STEPS`` actions per case. Output tokens are
those of the scripted replies: real replies are longer. ``hack/bench-llm example``
prints these rows at its end; re-measure and paste them when the prompts change
(docs/benchmarks.md says how), and the run's cost into ``MEASURED``.

The cache shares depend on the model's minimum cacheable length: the 15-step row and
the UI tests were measured with Sonnet 4.5 (1,024 tokens), the 100-step row with Opus 4.5
(4,096 tokens), so a 15-step forecast for Opus 4.5 counts more cache reads than it would
get (its tester prompts are mostly below 4,096 tokens).
"""

from __future__ import annotations

JUDGE_RUNS = 5  # judging.runs of the sample

# 15: hack/bench-llm example --model claude-sonnet-4-5 --max-steps 15 (14 apps, interactive;
#     issue 21, after its cost measures); 100: --model claude-opus-4-5 --max-steps 100
#     (the 8 apps of issue 14, before WebCoderBench's judges and the UI tests)
PER_APP: dict[int, dict[str, tuple[float, float, float, float, float]]] = {
    15: {
        "aesthetics.advocate": (0.929, 6243, 300, 0.000, 0.000),
        "aesthetics.critic": (0.929, 6246, 300, 0.000, 0.000),
        "aesthetics.judge": (4.643, 7327, 300, 0.800, 0.200),
        "alignment.agent": (1.286, 3636, 20, 0.548, 0.452),
        "explore.guidance": (1.429, 485, 20, 0.000, 0.000),
        "explore.step": (15.000, 2439, 20, 0.931, 0.069),
        "explore.summary": (1.000, 3686, 20, 0.310, 0.690),
        "usability.advocate": (1.000, 2936, 300, 0.000, 0.000),
        "usability.critic": (1.000, 2938, 300, 0.000, 0.000),
        "usability.judge": (5.000, 4039, 300, 0.800, 0.200),
        "wcb.alignment.content": (0.429, 1969, 300, 0.000, 0.000),
        "wcb.alignment.functional": (0.429, 2203, 300, 0.000, 0.000),
        "wcb.alignment.visual": (0.429, 2038, 300, 0.000, 0.000),
        "wcb.functionality": (1.000, 1883, 300, 0.000, 0.000),
        "wcb.visual": (1.000, 1719, 300, 0.000, 0.000),
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

UITEST_STEPS = 15  # uitests.max_steps of the sample

# the UI tests of the 15-step run: uitest.step (and uitest.verdict, none there: every case
# ended with the agent's own verdict) per UI test case (36 cases), uitest.appearance per app
# with UI test cases (8 apps); uitest.step re-measured by issue 47 (--batch-judges run), after
# its conversation became append-only with the screenshot as each call's uncached tail
UITESTS: dict[str, tuple[float, float, float, float, float]] = {
    "uitest.appearance": (1.000, 4261, 20, 0.000, 0.000),
    "uitest.step": (7.722, 3040, 20, 0.657, 0.054),
}

# what the 15-step run cost, by (model, --batch-judges): the forecast from this sample must
# stay within a quarter of it (tests/unit/runs/test_forecast.py). Sonnet 4.5 interactive and
# batched on the stand-in Messages API: issue 47's runs (the UI-test agent's append-only
# conversation); gpt-4o on the stand-in Chat Completions server (its own prefix caching):
# issue 39's run
MEASURED: dict[tuple[str, bool], float] = {
    ("claude-sonnet-4-5", False): 4.6953,
    ("claude-sonnet-4-5", True): 3.4181,
    ("openai/gpt-4o", False): 5.4004,
}
