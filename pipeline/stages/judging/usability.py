"""Usability: the three-round deliberation over the exploration trace and state graph.

Every claim cites a step ("step 7"), a state ("S3") or a transition ("S1->S2").
Paths the exploration did not try are neither strengths nor weaknesses; observed
failures that block core operations weigh heavily. It must not look at screenshots
(visual quality is aesthetics' business) or at acceptance criteria.
"""

from __future__ import annotations

from iwcbench.pipeline.contracts import metrics
from iwcbench.pipeline.kits import llm
from iwcbench.pipeline.stages.judging import bundle as bundle_mod
from iwcbench.pipeline.stages.judging import deliberation

DIMENSION = deliberation.Dimension(
    name="usability",
    subject="the usability",
    base_meaning="overall interaction experience",
    aspects=tuple(deliberation.Aspect(i, t) for i, t in (
        ("core_operations", "effectiveness of core operations"),
        ("feedback", "immediacy of feedback"),
        ("controls_input", "quality of controls and input"),
        ("flow_discoverability", "interaction flow and discoverability"),
        ("reachability_recovery", "state reachability and recovery"),
        ("dead_ends_consistency", "avoidance of dead ends and errors, with response consistency"),
        ("stability", "stability and fault tolerance"),
    )),
    rules=(
        "The evidence is the exploration trace (what a tester did, step by step, and what the "
        "app did in response) and the state-transition graph built from it. Cite every claim by "
        "a step (\"step 7\"), a state (\"S3\") or a transition (\"S1->S2\"). Consider observed "
        "responses, navigation, recovery and failures. A path the tester did not try is neither "
        "a strength nor a weakness, and do not invent requirements for features nobody used. "
        "A failed action whose cause was the tester (an element that was not there) is not an "
        "app defect; errors the app raised are. Observed failures that block core operations "
        "warrant substantial penalties."),
)


def judge(client: llm.Client, requirement: str, evidence: bundle_mod.Bundle,
          options: deliberation.Options) -> metrics.Score:
    if len(evidence.trace.steps) < 2:
        return metrics.score(DIMENSION.name, None, "the exploration recorded no interaction to judge")
    blocks = [
        llm.text_block("<trace>\n" + "\n".join(evidence.trace_lines()) + "\n</trace>"),
        llm.text_block("<graph>\n" + "\n".join(evidence.graph_lines()) + "\n</graph>"),
    ]
    return deliberation.deliberate(client, DIMENSION, requirement, blocks, evidence.refs(),
                                   evidence.nonce, options)
