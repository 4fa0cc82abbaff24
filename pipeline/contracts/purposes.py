"""Which model serves which purpose: one table, from which the judges' routes, the cost
forecast, the checks before a run, the operator's check of a spec, the CLI's flags and
docs/settings.md are all derived.

A purpose is the prefix of the ``purpose`` a stage names on its calls (``aesthetics``
covers ``aesthetics.judge`` and ``aesthetics.advocate``; the longest prefix wins, as
kits/llm's routes match it). Its model is its settings field, else its fallback's,
followed down to ``judging.model``. Adding a purpose is adding its row (and its settings
field in contracts/settings); nothing else names the fields.

Pure data: whether a purpose runs at all (the dimensions chosen, the explorer, UI tests
on) stays with the settings (``Evaluation``) and the forecast.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

Images = Literal["needs", "reads", "none"]  # screenshots: without them it cannot judge / it can / it sees none

ROOT = "judging.model"  # every chain of fallbacks ends here


@dataclasses.dataclass(frozen=True)
class Purpose:
    name: str  # the calls' purpose prefix
    field: str  # the settings field naming its model (section.field)
    fallback: str | None  # the field whose model it takes when its own is unset
    flag: str | None  # iwc run's option setting the field (None: shared with another row, or --judge)
    batchable: bool  # its calls may go through a batch API (--batch-judges): no answer depends on another
    images: Images
    what: str  # a phrase for help texts and docs


PURPOSES: tuple[Purpose, ...] = (
    Purpose("judge", ROOT, None, "--judge", True, "reads", "the judges, unless a purpose names its own"),
    Purpose("explore", "exploration.model", ROOT, "--explorer-model", False, "reads",
            "the LLM tester (--explorer llm, or assisted at plateaus): its steps and its summary"),
    Purpose("explore.guidance", "exploration.guidance_model", "exploration.model", "--guidance-model", False, "none",
            "coverage-plateau guidance for the tester"),
    Purpose("aesthetics", "judging.aesthetics_model", ROOT, "--aesthetics-model", True, "needs",
            "the aesthetics judge (advocate, critic, final judges), on screenshots"),
    Purpose("usability", "judging.usability_model", ROOT, "--usability-model", True, "reads",
            "the usability judge (advocate, critic, final judges)"),
    Purpose("alignment", "judging.alignment_model", ROOT, "--alignment-model", False, "reads",
            "the requirement-alignment agent, which reads the evidence through tools"),
    Purpose("wcb", "judging.webcoder_model", ROOT, "--webcoder-model", True, "reads",
            "WebCoderBench's general-quality judges of the code"),
    Purpose("wcb.visual", "judging.webcoder_model", ROOT, None, True, "needs",
            "WebCoderBench's visual-quality judge, on a screenshot"),
    Purpose("wcb.alignment", "judging.webcoder_alignment_model", "judging.webcoder_model", "--webcoder-alignment-model",
            True, "reads", "WebCoderBench's three alignment judges"),
    Purpose("uitest", "uitests.model", ROOT, "--uitest-model", False, "reads",
            "the GUI agent running WebGen-Bench's UI test cases"),
    Purpose("uitest.appearance", "uitests.appearance_model", "uitests.model", "--appearance-model", True, "needs",
            "WebGen-Bench's appearance judge, on screenshots"),
)
BY_NAME: dict[str, Purpose] = {p.name: p for p in PURPOSES}
FIELDS: tuple[str, ...] = tuple(dict.fromkeys(p.field for p in PURPOSES))


def of(purpose: str) -> Purpose:
    """The row serving calls made for ``purpose`` (the longest matching prefix; the
    judges' row for a purpose no row names)."""
    names = [n for n in BY_NAME if purpose == n or purpose.startswith(n + ".")]
    return BY_NAME[max(names, key=len)] if names else BY_NAME["judge"]


def value(evaluation: object, field: str) -> str | None:
    section, name = field.split(".")
    found = getattr(getattr(evaluation, section), name)
    return str(found) if found else None


def model_of_field(evaluation: object, field: str) -> str | None:
    """The model ``field`` gives: its own value, else its fallback chain's."""
    seen = set()
    while field and field not in seen:
        seen.add(field)
        found = value(evaluation, field)
        if found:
            return found
        field = next((p.fallback for p in PURPOSES if p.field == field), None) or ""
    return None


def model_for(evaluation: object, purpose: str) -> str | None:
    """The model ``purpose``'s calls go to under ``evaluation`` (None: no model at all)."""
    return model_of_field(evaluation, of(purpose).field)


def routes(evaluation: object, section: str = "judging") -> dict[str, str]:
    """Purpose prefix → model, for the rows of ``section`` whose model is not the
    judges' own: what the judges' client is ``routed`` with."""
    root = value(evaluation, ROOT)
    found = {}
    for p in PURPOSES:
        model = model_of_field(evaluation, p.field)
        if p.field != ROOT and p.field.startswith(section + ".") and model and model != root:
            found[p.name] = model
    return found


def flag_dest(flag: str) -> str:
    """argparse's attribute for ``flag`` (``--aesthetics-model`` → ``aesthetics_model``)."""
    return flag.removeprefix("--").replace("-", "_")
