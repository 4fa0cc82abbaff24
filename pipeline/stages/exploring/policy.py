"""The policy interface: what decides the next action. The explorer owns the browser,
the budget and the evidence; a policy only chooses. It must not touch the page.

Action grammar a policy returns (``evidence.Action``; ``selector`` is a CSS selector,
normally a candidate's ``selector``; ``target`` is its ``describe()``):

    click   selector                    a left click ("double" as value: a double click;
                                        "right": a right click, for a context menu;
                                        "at:0.2,0.75": at that fraction of its box)
    type    selector, value             replace the field's content with ``value``
    select  selector, value             choose the option whose value is ``value``
    check   selector                    toggle a checkbox / radio / switch (a click)
    hover   selector                    move the mouse over it (value "at:fx,fy" as for click)
    drag    selector, value "dx,dy"     press in its middle, move by dx,dy, release
    drag    selector, value "to:<css>"  HTML drag and drop onto another element
    drag    selector, value "touch:dx,dy"  a finger: touch start, moves, end (a tap at 0,0)
    key     value "ArrowUp Space"       press keys in order (Playwright key names,
                                        "Control+z" for a combination);
            value "hold:ArrowRight:600" hold a key (or "Shift+ArrowRight") for 600 ms
                                        of the page's time (in virtual time, at once);
            optional selector: focus it first
    scroll  value "dx,dy"               mouse wheel (default "0,600")
    back    -                           history back (the explorer returns to the app
                                        if that leaves it)
    route   value "#/active" or "/about" go to a view of the app's own router: a hash is
                                        set on the address; a path is pushed to the
                                        history and announced with a popstate event
    resize  value "390x844"             set the viewport to that size (a phone; the
                                        settings' size again with the next one)
    wait    value "ms"                  let timers and animations run (≤ step timeout)
            value "fast:ms"             in virtual time: run the next ms of timers and
                                        frames at once (≤ 60 s; a plain wait without it)
    load    -                           reload the start URL (a fresh app)
    finish  -                           testing is complete: the exploration stops

An element action (click … drag) with a ``target`` but no ``selector`` names an
element the policy could not find on the page: the step is taken and fails with that
reason, and counts against the budget.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Protocol

from iwcbench.pipeline.contracts import evidence, instrumented, settings
from iwcbench.pipeline.stages.exploring import observing


# (Context's field ``instrumented`` hides the module inside the class body)
CodeFacts = instrumented.CodeFacts


@dataclasses.dataclass(frozen=True)
class Context:
    """What a policy is told once, before the first choice."""

    start_url: str
    app_origin: str
    seed: int
    max_steps: int
    instrumented: bool  # coverage is measured (False: black box)
    step_timeout_s: float
    plateau_steps: int  # steps without coverage gain that make a plateau
    # The live merged Istanbul counters (None in black box): lets a policy ask what
    # code has not run yet, e.g. for coverage-plateau guidance.
    coverage: Callable[[], dict] | None = None
    coverage_map: dict | None = None  # Istanbul's location maps of the app's files
    facts: dict[str, CodeFacts] | None = None  # code facts per file (instrumenting's code-facts.json)
    idle_steps: int = 15  # steps that found nothing new before a policy may stop
    viewport: str = "1280x800"  # the viewport's size, "WIDTHxHEIGHT"
    virtual_time: bool = False  # the page's clock is Playwright's: "fast:ms" waits and long holds are cheap


class Policy(Protocol):
    """One exploration's decision maker. Called in this order:
    ``begin`` once; then per step ``choose`` → (the explorer acts) → ``observe``;
    then ``end`` once with why the loop stopped (the step budget, the time limit, …);
    finally ``summary`` once. ``choose`` returning None ends the exploration
    ("the policy had nothing left to try"); an Action of kind "finish" ends it as
    "the explorer declared testing complete"."""

    name: settings.PolicyName

    def begin(self, context: Context) -> None: ...

    def choose(self, observation: observing.Observation) -> evidence.Action | None: ...

    def observe(self, step: evidence.Step, after: observing.Observation | None) -> None:
        """The recorded step (errors, dialogs, coverage gain, ...) and the page after
        it (None when the page was lost or hung)."""
        ...

    def choice(self) -> evidence.Choice | None:
        """Why the last action ``choose`` returned was chosen (evidence.Step.choice),
        or None for a policy that does not say."""
        ...

    def end(self, stop_reason: str) -> None:
        """The loop is over (not called when the app never loaded); the LLM tester asks
        for its final summary here when it has not given one."""
        ...

    def summary(self) -> str | None:
        """A final summary for Trace.summary (the LLM tester's); None if it has none."""
        ...
