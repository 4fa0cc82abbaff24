"""Form completion for the heuristic policy: typing is one unit with what completes it.
In a form, the other empty fields and the submit button follow; outside a form, Enter,
then the adjacent button (rules.adjacent_button) if the field still holds its text. A
choice in a form (radio, checkbox, option) is followed by the form's submit button. The
queue lives in the policy's ``Memory`` (``followups``). It chooses; it must not touch
the page.
"""

from __future__ import annotations

from iwcbench.pipeline.contracts import evidence
from iwcbench.pipeline.stages.exploring import memory as memory_mod, observing, rules


def after_typing(memory: memory_mod.Memory, typed: observing.Candidate, obs: observing.Observation) -> None:
    """What completes typing into ``typed``: in a form, its other empty fields and its
    submit button; outside one, Enter, then the adjacent button if the field still
    holds its text."""
    memory.followups.clear()
    if typed.form >= 0:
        for c in obs.candidates:
            if c.form == typed.form and "type" in c.kinds and c.selector != typed.selector and not c.value:
                memory.followups.append((rules.signature("type", c.selector), evidence.Action(
                    kind="type", target=c.describe(), selector=c.selector), None))
        submit = next((c for c in obs.candidates if c.form == typed.form and c.submit), None)
        if submit is not None:
            memory.followups.append((rules.signature("click", submit.selector), evidence.Action(
                kind="click", target=submit.describe(), selector=submit.selector), None))
            return
    if typed.type in ("textarea", "contenteditable"):
        return
    # A free-standing field: Enter is how most such fields submit; the button next
    # to it is pressed too if the field still holds its text afterwards.
    memory.followups.append((rules.signature("enter", typed.selector), evidence.Action(
        kind="key", target=typed.describe(), selector=typed.selector, value="Enter"), None))
    button = rules.adjacent_button(typed, obs)
    if button is not None:
        memory.followups.append((rules.signature("click", button.selector), evidence.Action(
            kind="click", target=button.describe(), selector=button.selector), typed.selector))

def after_choice(memory: memory_mod.Memory, picked: observing.Candidate, obs: observing.Observation) -> None:
    """A choice made in a form (a radio, a checkbox, an option) is submitted."""
    memory.followups.clear()
    submit = next((c for c in obs.candidates if picked.form >= 0 and c.form == picked.form and c.submit), None)
    if submit is not None:
        memory.followups.append((rules.signature("click", submit.selector), evidence.Action(
            kind="click", target=submit.describe(), selector=submit.selector), None))

def next_action(memory: memory_mod.Memory, obs: observing.Observation) -> tuple[str, evidence.Action] | None:
    """The next queued action whose element is still on the page (an action on the page
    itself, a wait, always is; and, for a button that follows a field, whose field
    still holds text), or None."""
    by_selector = {c.selector: c for c in obs.candidates}
    while memory.followups:
        sig, action, needs_text = memory.followups.popleft()
        if (action.selector is not None and action.selector not in by_selector) or sig in memory.banned:
            continue
        if needs_text is not None and not (getattr(by_selector.get(needs_text), "value", None) or "").strip():
            continue  # the field was consumed (submitted and cleared): done
        return sig, action
    return None
