"""Visual aesthetics: the three-round deliberation over up to five screenshots.

The screenshots are chosen by ``screenshots.select`` (no blank or half-loaded frames,
varied by farthest-point sampling) and labelled with their store key, step and state
so that every claim can name the place it refers to. It must not look at the trace's
behaviour: dynamic failures are usability's business, not inferred from pictures.
"""

from __future__ import annotations

from iwcbench.pipeline.contracts import metrics
from iwcbench.pipeline.kits import llm
from iwcbench.pipeline.stages.judging import bundle as bundle_mod
from iwcbench.pipeline.stages.judging import deliberation, screenshots

DIMENSION = deliberation.Dimension(
    name="aesthetics",
    subject="the visual aesthetics",
    base_meaning="overall visual impression",
    aspects=tuple(deliberation.Aspect(i, t) for i, t in (
        ("first_impression", "first impression"),
        ("content_completeness", "content completeness"),
        ("layout_structure", "layout structure"),
        ("visual_detail", "visual detail"),
        ("hierarchy_typography", "information hierarchy and typography"),
        ("stylistic_consistency", "stylistic consistency"),
        ("emotion_trust", "emotion and trust"),
    )),
    rules=(
        "Judge only what the screenshots show. Cite each observation by the screenshot's key "
        "(for example shots/0003.png) and a place in it (top bar, left column, card grid, footer…). "
        "Tell deliberate simplicity apart from unfinished or empty content; judge the quality of "
        "graphics and layout, not their mere presence. Correct facts alone are not visual quality. "
        "Do not infer failures of behaviour you cannot see in a still picture."),
)


def judge(client: llm.Client, requirement: str, evidence: bundle_mod.Bundle,
          options: deliberation.Options, max_shots: int = 5) -> metrics.Score:
    states = evidence.state_of_step()
    shots = []
    for step in evidence.trace.steps:
        if step.screenshot:
            data = evidence.read(step.screenshot)
            if data is not None:
                shots.append((step.screenshot, data))
    picked = screenshots.select(shots, limit=max_shots)
    if shots and not picked.chosen and all(why.startswith("blank") for why in picked.dropped.values()):
        # The app shows nothing: that is the model's doing, judged at the floor.
        floor = metrics.BY_NAME[DIMENSION.name].floor
        return metrics.score(DIMENSION.name, floor, f"the app shows nothing: all {len(shots)} screenshots "
                             "were blank; judged at the floor", raw={"dropped": picked.dropped})
    if not picked.chosen:
        reason = "no usable screenshot" + (
            f": {'; '.join(f'{k} {why}' for k, why in picked.dropped.items())}" if picked.dropped else
            " was recorded")
        return metrics.score(DIMENSION.name, None, reason, raw={"dropped": picked.dropped})
    by_key = dict(shots)
    step_of = {s.screenshot: s.index for s in evidence.trace.steps if s.screenshot}
    blocks = []
    for key in picked.chosen:
        index = step_of[key]
        where = f", state {states[index]}" if index in states else ""
        blocks.append(llm.text_block(f"<screenshot> {key} (after step {index}{where}) </screenshot>"))
        blocks.append(llm.image_block(by_key[key]))
    score = deliberation.deliberate(client, DIMENSION, requirement, blocks,
                                    evidence.refs() | set(picked.chosen), evidence.nonce, options)
    raw = dict(score.raw or {})
    raw["screenshots"] = list(picked.chosen)
    raw["screenshots_dropped"] = picked.dropped
    return score.model_copy(update={"raw": raw})
